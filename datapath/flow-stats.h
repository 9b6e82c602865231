/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU statistics of one megaflow, written without a lock.
 *
 * A flow's stats are an array of RCU-protected pointers, one per possible
 * CPU (sized from nr_cpu_ids), to slots of {packets, bytes, used, TCP
 * flags}, a CPU mask of the slots that exist, a clear generation, and slot
 * 0's shared part: one more slot, under a spinlock.
 *
 * Ownership rules:
 * - Slot N belongs to CPU N, and only CPU N writes it, on the packet path
 *   (softirq or BHs off, so one update at a time per CPU), with plain
 *   stores: no lock, no atomic read-modify-write, no cache line that
 *   another CPU writes.  Slot 0 comes with the flow (allocated on CPU 0's
 *   node); slot N > 0 is allocated by CPU N itself on its first hit of the
 *   flow, in softirq: node-local, never sleeping (GFP_NOWAIT |
 *   __GFP_THISNODE), published with rcu_assign_pointer() and recorded in
 *   the mask while holding the shared part's lock (so that the mask has
 *   one writer at a time).
 * - The shared part takes the hits that a CPU cannot count in a slot of its
 *   own, under its lock: a CPU whose slot allocation failed (counted,
 *   ovsp_flow_stats_alloc_failures(); the next hit tries again), and every
 *   CPU, CPU 0 included, while the module parameter flow_stats_one_slot
 *   (the ablation switch) is set, which makes it one slot per flow under
 *   one lock, as the per-NUMA-node design of 2014 was on a one-node
 *   machine.  It is a slot apart, on a cache line of its own, because slot
 *   0 would otherwise have two writers, CPU 0 without the lock and the
 *   falling-back CPU with it; readers report it as part of slot 0.  It is
 *   the only lock of the packet path, taken only on these rare paths and
 *   on a CPU's first hit.
 * - A slot's 64-bit counters are written inside u64_stats_update_begin()
 *   and _end() (a seqcount on 32-bit kernels, nothing on 64-bit ones) and
 *   read with u64_stats_fetch_begin() and _retry(), so that a reader sees
 *   each counter whole; on 64-bit, as with all of Linux's u64_stats, a
 *   slot's packets and bytes are two reads, not one snapshot.  The
 *   counters are plain u64 written with WRITE_ONCE(), not u64_stats_t,
 *   whose local64_t is an atomic read-modify-write where the architecture
 *   has no local one.
 * - OVS_FLOW_ATTR_CLEAR writes no slot: it advances the flow's generation,
 *   and a slot stamped with another generation counts as zero to readers
 *   until its owner (or the holder of the shared part's lock) next writes
 *   it, zeroes it and stamps it.  So hits counted before a clear never
 *   reappear after it, and a hit racing the clear is counted or not, never
 *   more than the hits since the clear began.  While its writer zeroes it,
 *   a slot's stamp is an odd value that is never a generation; readers
 *   check the stamp before and after reading, so they never mix the
 *   counts of two generations.  One clear at a time (the caller holds
 *   ovsp_lock).
 * - Readers (flow dumps, GET, our per-CPU family) take no lock: they walk
 *   the mask under RCU and sum, the shared part into slot 0.
 * - Slots are never freed while the flow lives; ovsp_flow_stats_free()
 *   frees them all and must run after an RCU grace period (the flow's own
 *   RCU callback calls it).
 */
#ifndef OVSP_FLOW_STATS_H
#define OVSP_FLOW_STATS_H 1

#include <linux/types.h>

struct ovsp_flow_stats;

/* What a reader gets: one slot, or the sum of all. */
struct ovsp_flow_stats_info {
	u64 n_packets;			/* Packets counted. */
	u64 n_bytes;			/* Bytes counted. */
	unsigned long used;		/* Jiffies of the last hit, or 0. */
	__be16 tcp_flags;		/* TCP flags seen, ORed. */
};

int ovsp_flow_stats_init(void);
void ovsp_flow_stats_exit(void);

/* Allocates the stats of a new flow with slot 0 (process context, may
 * sleep).  Returns NULL on allocation failure.
 */
struct ovsp_flow_stats *ovsp_flow_stats_alloc(void);

/* Frees 'stats' and its slots; NULL is fine.  Only after an RCU grace
 * period since the flow was unpublished.
 */
void ovsp_flow_stats_free(struct ovsp_flow_stats *stats);

/* Counts one packet of 'len' bytes with TCP flags 'tcp_flags' on the
 * current CPU.  Packet path: softirq or BHs disabled, under RCU.
 */
void ovsp_flow_stats_update(struct ovsp_flow_stats *stats, __be16 tcp_flags,
			    unsigned int len);

/* Sums every slot into 'info' (process context; takes no lock). */
void ovsp_flow_stats_get(const struct ovsp_flow_stats *stats,
			 struct ovsp_flow_stats_info *info);

/* Copies CPU 'cpu''s slot into 'info' (slot 0 with the shared part);
 * returns false if it has none.
 */
bool ovsp_flow_stats_get_slot(const struct ovsp_flow_stats *stats,
			      unsigned int cpu,
			      struct ovsp_flow_stats_info *info);

/* Zeroes every slot as readers see them (OVS_FLOW_ATTR_CLEAR), without
 * writing any: see the contract above.  One call at a time per flow.
 */
void ovsp_flow_stats_clear(struct ovsp_flow_stats *stats);

/* Slot allocations that failed, each a packet counted in slot 0's shared
 * part, summed over CPUs.
 */
u64 ovsp_flow_stats_alloc_failures(void);

/* True when the ablation switch puts every CPU on slot 0's shared part. */
bool ovsp_flow_stats_one_slot(void);

/* Converts a slot's 'used' jiffies to OVS_FLOW_ATTR_USED's monotonic
 * milliseconds (0 stays 0).
 */
u64 ovsp_flow_stats_used_ms(unsigned long used);

#endif

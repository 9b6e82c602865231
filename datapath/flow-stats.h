/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU statistics of one megaflow.
 *
 * A flow's stats are an array of RCU-protected pointers, one per possible
 * CPU (sized from nr_cpu_ids), to slots of {packets, bytes, used, TCP
 * flags} each under its own spinlock, and a CPU mask of the slots that
 * exist.
 *
 * Ownership rules:
 * - Slot 0 comes with the flow (allocated on CPU 0's node) and belongs to
 *   CPU 0.  It is also the fallback: a CPU whose own slot could not be
 *   allocated, and every CPU when the module parameter
 *   flow_stats_one_slot is set (the ablation switch), adds to slot 0
 *   under slot 0's lock.
 * - Slot N > 0 is allocated by CPU N itself, on its first hit of the flow,
 *   in softirq: node-local, never sleeping (GFP_NOWAIT | __GFP_THISNODE),
 *   published with rcu_assign_pointer() and recorded in the mask while
 *   holding slot 0's lock (so two CPUs never race on the mask).  From then
 *   on only CPU N writes it on the packet path; a failed allocation is
 *   counted (ovsp_flow_stats_alloc_failures()) and the packet goes to
 *   slot 0.
 * - A slot's lock is taken by its owner on the packet path (uncontended:
 *   the slot's memory is the owner's) and, with BHs disabled, by readers
 *   and by clearing (control path), so a reader sees each slot whole.
 * - Readers (flow dumps, GET, our per-CPU family) walk the mask under RCU
 *   and sum.  OVS_FLOW_ATTR_CLEAR zeroes every slot under its lock.
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
 * sleep).  Returns NULL on allocation failure. */
struct ovsp_flow_stats *ovsp_flow_stats_alloc(void);

/* Frees 'stats' and its slots; NULL is fine.  Only after an RCU grace
 * period since the flow was unpublished. */
void ovsp_flow_stats_free(struct ovsp_flow_stats *stats);

/* Counts one packet of 'len' bytes with TCP flags 'tcp_flags' on the
 * current CPU.  Packet path: softirq or BHs disabled, under RCU. */
void ovsp_flow_stats_update(struct ovsp_flow_stats *stats, __be16 tcp_flags,
			    unsigned int len);

/* Sums every slot into 'info' (process context, under RCU or ovsp_lock). */
void ovsp_flow_stats_get(const struct ovsp_flow_stats *stats,
			 struct ovsp_flow_stats_info *info);

/* Copies CPU 'cpu''s slot into 'info'; returns false if it has none. */
bool ovsp_flow_stats_get_slot(const struct ovsp_flow_stats *stats,
			      unsigned int cpu,
			      struct ovsp_flow_stats_info *info);

/* Zeroes every slot (OVS_FLOW_ATTR_CLEAR). */
void ovsp_flow_stats_clear(struct ovsp_flow_stats *stats);

/* Slot allocations that failed and fell back to slot 0, summed over CPUs. */
u64 ovsp_flow_stats_alloc_failures(void);

/* True when the ablation switch puts every CPU on slot 0. */
bool ovsp_flow_stats_one_slot(void);

/* Converts a slot's 'used' jiffies to OVS_FLOW_ATTR_USED's monotonic
 * milliseconds (0 stays 0). */
u64 ovsp_flow_stats_used_ms(unsigned long used);

#endif

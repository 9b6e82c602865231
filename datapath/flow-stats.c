// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU flow statistics: see flow-stats.h for the design and its
 * ownership rules.
 */
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/topology.h>
#include <linux/u64_stats_sync.h>

#include "flow-stats.h"

/* The ablation switch: every CPU adds to slot 0's shared part under its
 * lock, one slot per flow, as the per-NUMA-node design of 2014 did on a
 * one-node machine.
 */
static bool flow_stats_one_slot;
module_param(flow_stats_one_slot, bool, 0644);
MODULE_PARM_DESC(flow_stats_one_slot,
		 "Count every CPU's hits in one stats slot per flow, under a lock (ablation of per-CPU slots)");

/* A clear generation steps by 2, so that a slot's stamp is odd only while
 * its writer zeroes it (SLOT_ZEROING), never equal to a generation.
 */
#define GEN_STEP 2
#define SLOT_ZEROING 1UL

/* One CPU's share of a flow's statistics, or slot 0's shared part; from a
 * SLAB_HWCACHE_ALIGN cache, so that no two slots share a cache line.  One
 * writer at a time (see flow-stats.h); readers take no lock.
 */
struct ovsp_flow_stats_slot {
	struct u64_stats_sync syncp;	/* Around each write (32-bit). */
	unsigned long gen;		/* The flow's generation these counts
					 * belong to, or SLOT_ZEROING.
					 */
	u64 n_packets;			/* Packets counted. */
	u64 n_bytes;			/* Bytes counted. */
	unsigned long used;		/* Jiffies of the last hit, or 0. */
	__be16 tcp_flags;		/* TCP flags seen, ORed. */
};

/* Slot 0's shared part: the hits of a CPU without a slot of its own, and
 * every hit under the ablation switch.
 */
struct ovsp_flow_stats_shared {
	spinlock_t lock;		/* Serializes the writers of 'slot', and
					 * of the flow's mask.
					 */
	struct ovsp_flow_stats_slot slot;	/* Counted under 'lock'. */
};

/* A flow's stats: its clear generation, slot 0's shared part, the mask of
 * existing slots, then one RCU pointer per possible CPU.  Allocated once
 * with the flow, sized from nr_cpu_ids; read by every CPU on every hit,
 * written only by slot creation and clears.
 */
struct ovsp_flow_stats {
	unsigned long gen;		/* Advanced by GEN_STEP on each clear;
					 * slots of another count as zero.
					 */
	struct ovsp_flow_stats_shared *shared;	/* Never NULL. */
	struct cpumask *cpu_used;	/* CPUs whose slot exists; written
					 * under shared->lock.
					 */
	struct ovsp_flow_stats_slot __rcu *slots[];	/* nr_cpu_ids
							 * entries, then the
							 * mask's bits.
							 */
};

/* Where the slots and the shared parts come from. */
static struct kmem_cache *slot_cache;
static struct kmem_cache *shared_cache;

/* Slot allocations that failed, per CPU (each CPU counts its own). */
static DEFINE_PER_CPU(u64, alloc_failures);

int ovsp_flow_stats_init(void)
{
	slot_cache = kmem_cache_create("ovsp_flow_stats",
				       sizeof(struct ovsp_flow_stats_slot), 0,
				       SLAB_HWCACHE_ALIGN, NULL);
	shared_cache = kmem_cache_create("ovsp_flow_stats_shared",
					 sizeof(struct ovsp_flow_stats_shared),
					 0, SLAB_HWCACHE_ALIGN, NULL);
	if (!slot_cache || !shared_cache) {
		ovsp_flow_stats_exit();
		return -ENOMEM;
	}
	return 0;
}

void ovsp_flow_stats_exit(void)
{
	kmem_cache_destroy(shared_cache);
	kmem_cache_destroy(slot_cache);
	shared_cache = NULL;
	slot_cache = NULL;
}

bool ovsp_flow_stats_one_slot(void)
{
	return READ_ONCE(flow_stats_one_slot);
}

/* Bytes of a struct ovsp_flow_stats: the pointer array, then the mask's
 * bits, as many as the cpumask operations read (cpumask_size(): all of
 * NR_CPUS's without CONFIG_CPUMASK_OFFSTACK, not only nr_cpu_ids).
 */
static size_t stats_size(void)
{
	return sizeof(struct ovsp_flow_stats)
		+ nr_cpu_ids * sizeof(struct ovsp_flow_stats_slot *)
		+ cpumask_size();
}

/* Makes zeroed 'slot' count for generation 'gen'. */
static void slot_init(struct ovsp_flow_stats_slot *slot, unsigned long gen)
{
	u64_stats_init(&slot->syncp);
	slot->gen = gen;
}

struct ovsp_flow_stats *ovsp_flow_stats_alloc(void)
{
	struct ovsp_flow_stats_slot *slot;
	struct ovsp_flow_stats *stats;
	int node = node_online(0) ? 0 : NUMA_NO_NODE;

	stats = kzalloc(stats_size(), GFP_KERNEL);
	if (!stats)
		return NULL;
	stats->cpu_used = (struct cpumask *)&stats->slots[nr_cpu_ids];

	stats->shared = kmem_cache_alloc_node(shared_cache,
					      GFP_KERNEL | __GFP_ZERO, node);
	slot = kmem_cache_alloc_node(slot_cache, GFP_KERNEL | __GFP_ZERO, node);
	if (!stats->shared || !slot) {
		if (slot)
			kmem_cache_free(slot_cache, slot);
		ovsp_flow_stats_free(stats);
		return NULL;
	}
	spin_lock_init(&stats->shared->lock);
	slot_init(&stats->shared->slot, 0);
	slot_init(slot, 0);
	RCU_INIT_POINTER(stats->slots[0], slot);
	cpumask_set_cpu(0, stats->cpu_used);
	return stats;
}

void ovsp_flow_stats_free(struct ovsp_flow_stats *stats)
{
	unsigned int cpu;

	if (!stats)
		return;
	for_each_cpu(cpu, stats->cpu_used)
		kmem_cache_free(slot_cache,
				rcu_dereference_protected(stats->slots[cpu], 1));
	if (stats->shared)
		kmem_cache_free(shared_cache, stats->shared);
	kfree(stats);
}

/* Zeroes 'slot' for generation 'gen', inside its writer's
 * u64_stats_update_begin().  The odd stamp first, so that a reader that
 * sees any of the zeroes sees the stamp change on its second look; 'gen'
 * last, after the zeroes, for readers that look with 'gen'.
 */
static noinline void slot_zero(struct ovsp_flow_stats_slot *slot,
			       unsigned long gen)
{
	WRITE_ONCE(slot->gen, SLOT_ZEROING);
	smp_wmb();	/* The odd stamp before the zeroes. */
	WRITE_ONCE(slot->n_packets, 0);
	WRITE_ONCE(slot->n_bytes, 0);
	WRITE_ONCE(slot->used, 0);
	WRITE_ONCE(slot->tcp_flags, 0);
	smp_store_release(&slot->gen, gen);	/* 'gen' after the zeroes. */
}

/* Adds one packet to 'slot', whose counts belong to the flow's
 * generation, inside u64_stats_update_begin().
 */
static __always_inline void slot_count(struct ovsp_flow_stats_slot *slot,
				       __be16 tcp_flags, unsigned int len)
{
	WRITE_ONCE(slot->n_packets, slot->n_packets + 1);
	WRITE_ONCE(slot->n_bytes, slot->n_bytes + len);
	WRITE_ONCE(slot->used, jiffies);
	WRITE_ONCE(slot->tcp_flags, slot->tcp_flags | tcp_flags);
}

/* Adds one packet to 'slot' for generation 'gen', zeroing it first if its
 * counts belong to another.  Only the slot's one writer calls this: its
 * owner CPU, or the holder of the shared part's lock.
 */
static void slot_add(struct ovsp_flow_stats_slot *slot, unsigned long gen,
		     __be16 tcp_flags, unsigned int len)
{
	u64_stats_update_begin(&slot->syncp);
	if (slot->gen != gen)
		slot_zero(slot, gen);
	slot_count(slot, tcp_flags, len);
	u64_stats_update_end(&slot->syncp);
}

/* Tries to give CPU 'cpu' its own slot, counting this packet in it.
 * Called with the shared part's lock held, so that only one CPU at a time
 * sets bits in the mask.  Returns false if the allocation failed.
 */
static bool slot_create(struct ovsp_flow_stats *stats, unsigned int cpu,
			unsigned long gen, __be16 tcp_flags, unsigned int len)
{
	struct ovsp_flow_stats_slot *slot;

	slot = kmem_cache_alloc_node(slot_cache,
				     GFP_NOWAIT | __GFP_THISNODE |
				     __GFP_NOWARN | __GFP_NOMEMALLOC |
				     __GFP_ZERO,
				     numa_node_id());
	if (!slot) {
		this_cpu_inc(alloc_failures);
		return false;
	}
	slot_init(slot, gen);
	slot_add(slot, gen, tcp_flags, len);
	rcu_assign_pointer(stats->slots[cpu], slot);
	cpumask_set_cpu(cpu, stats->cpu_used);
	return true;
}

/* The updates that ovsp_flow_stats_update() leaves: the first hit of
 * this CPU's slot since a clear, which zeroes it; the CPU's first hit of
 * the flow, which allocates its slot; a hit that goes to the shared part
 * (a failed allocation, or the ablation switch).  Out of line, so that the
 * usual update needs no stack frame.
 */
static noinline void update_slow(struct ovsp_flow_stats *stats,
				 __be16 tcp_flags, unsigned int len)
{
	struct ovsp_flow_stats_shared *shared = stats->shared;
	unsigned int cpu = smp_processor_id();
	struct ovsp_flow_stats_slot *slot;
	unsigned long gen;

	if (!ovsp_flow_stats_one_slot()) {
		slot = rcu_dereference(stats->slots[cpu]);
		if (slot) {
			slot_add(slot, READ_ONCE(stats->gen), tcp_flags, len);
			return;
		}
	}

	spin_lock(&shared->lock);
	/* Read under the lock: the last holder's generation or a newer one,
	 * so that the shared part never goes back to an older one.
	 */
	gen = READ_ONCE(stats->gen);
	if (!ovsp_flow_stats_one_slot()
	    && !rcu_access_pointer(stats->slots[cpu])
	    && slot_create(stats, cpu, gen, tcp_flags, len)) {
		spin_unlock(&shared->lock);
		return;
	}
	slot_add(&shared->slot, gen, tcp_flags, len);
	spin_unlock(&shared->lock);
}

void ovsp_flow_stats_update(struct ovsp_flow_stats *stats, __be16 tcp_flags,
			    unsigned int len)
{
	struct ovsp_flow_stats_slot *slot;

	if (likely(!ovsp_flow_stats_one_slot())) {
		slot = rcu_dereference(stats->slots[smp_processor_id()]);
		if (likely(slot && slot->gen == READ_ONCE(stats->gen))) {
			u64_stats_update_begin(&slot->syncp);
			slot_count(slot, tcp_flags, len);
			u64_stats_update_end(&slot->syncp);
			return;
		}
	}
	update_slow(stats, tcp_flags, len);
}

/* Adds 'slot' into 'info' if its counts belong to generation 'gen'.
 * Lock-free: the stamp is read before and after the counters, so that
 * counts being zeroed for a newer generation are not mixed in.
 */
static void slot_read(const struct ovsp_flow_stats_slot *slot,
		      unsigned long gen, struct ovsp_flow_stats_info *info)
{
	unsigned long used;
	u64 packets, bytes;
	unsigned int start;
	__be16 flags;

	if (smp_load_acquire(&slot->gen) != gen)	/* Stamp, then counts. */
		return;
	do {
		start = u64_stats_fetch_begin(&slot->syncp);
		packets = READ_ONCE(slot->n_packets);
		bytes = READ_ONCE(slot->n_bytes);
		used = READ_ONCE(slot->used);
		flags = READ_ONCE(slot->tcp_flags);
	} while (u64_stats_fetch_retry(&slot->syncp, start));
	smp_rmb();	/* Counts, then the stamp again. */
	if (READ_ONCE(slot->gen) != gen)
		return;

	if (!info->used || (used && time_after(used, info->used)))
		info->used = used;
	info->n_packets += packets;
	info->n_bytes += bytes;
	info->tcp_flags |= flags;
}

void ovsp_flow_stats_get(const struct ovsp_flow_stats *stats,
			 struct ovsp_flow_stats_info *info)
{
	unsigned long gen = READ_ONCE(stats->gen);
	unsigned int cpu;

	memset(info, 0, sizeof(*info));
	rcu_read_lock();
	for_each_cpu(cpu, stats->cpu_used) {
		struct ovsp_flow_stats_slot *slot;

		slot = rcu_dereference(stats->slots[cpu]);
		if (slot)
			slot_read(slot, gen, info);
	}
	slot_read(&stats->shared->slot, gen, info);
	rcu_read_unlock();
}

bool ovsp_flow_stats_get_slot(const struct ovsp_flow_stats *stats,
			      unsigned int cpu,
			      struct ovsp_flow_stats_info *info)
{
	unsigned long gen = READ_ONCE(stats->gen);
	struct ovsp_flow_stats_slot *slot;

	memset(info, 0, sizeof(*info));
	if (cpu >= nr_cpu_ids)
		return false;
	rcu_read_lock();
	slot = rcu_dereference(stats->slots[cpu]);
	if (slot)
		slot_read(slot, gen, info);
	if (!cpu)
		slot_read(&stats->shared->slot, gen, info);
	rcu_read_unlock();
	return slot != NULL;
}

void ovsp_flow_stats_clear(struct ovsp_flow_stats *stats)
{
	WRITE_ONCE(stats->gen, stats->gen + GEN_STEP);
}

u64 ovsp_flow_stats_alloc_failures(void)
{
	unsigned int cpu;
	u64 sum = 0;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(alloc_failures, cpu));
	return sum;
}

u64 ovsp_flow_stats_used_ms(unsigned long used)
{
	struct timespec64 now;
	u64 now_ms, idle_ms;

	if (!used)
		return 0;
	/* OVS reads USED as monotonic milliseconds with the seconds cut to
	 * 32 bits, as its time_msec() computes them.
	 */
	ktime_get_ts64(&now);
	now_ms = (u64)(u32)now.tv_sec * MSEC_PER_SEC + now.tv_nsec / NSEC_PER_MSEC;
	idle_ms = jiffies_to_msecs(jiffies - used);
	return now_ms - idle_ms;
}

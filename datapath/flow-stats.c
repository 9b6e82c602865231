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

#include "flow-stats.h"

/* The ablation switch: every CPU adds to slot 0 under its lock, as the
 * per-NUMA-node design did on a one-node machine. */
static bool flow_stats_one_slot;
module_param(flow_stats_one_slot, bool, 0644);
MODULE_PARM_DESC(flow_stats_one_slot,
		 "Count every CPU's hits in a flow's first stats slot, under its lock (ablation of per-CPU slots)");

/* One CPU's share of a flow's statistics; from a SLAB_HWCACHE_ALIGN cache,
 * so that no two slots share a cache line. */
struct ovsp_flow_stats_slot {
	spinlock_t lock;		/* Owner on the packet path; readers and
					 * clear with BHs off. */
	u64 n_packets;			/* Packets counted. */
	u64 n_bytes;			/* Bytes counted. */
	unsigned long used;		/* Jiffies of the last hit, or 0. */
	__be16 tcp_flags;		/* TCP flags seen, ORed. */
};

/* A flow's stats: the mask of existing slots, then one RCU pointer per
 * possible CPU.  Allocated once with the flow, sized from nr_cpu_ids. */
struct ovsp_flow_stats {
	struct cpumask *cpu_used;	/* CPUs whose slot exists; written
					 * under slots[0]->lock. */
	struct ovsp_flow_stats_slot __rcu *slots[];	/* nr_cpu_ids
							 * entries, then the
							 * mask's bits. */
};

/* Where the slots come from. */
static struct kmem_cache *slot_cache;

/* Slot allocations that failed, per CPU (each CPU counts its own). */
static DEFINE_PER_CPU(u64, alloc_failures);

int ovsp_flow_stats_init(void)
{
	slot_cache = kmem_cache_create("ovsp_flow_stats",
				       sizeof(struct ovsp_flow_stats_slot), 0,
				       SLAB_HWCACHE_ALIGN, NULL);
	return slot_cache ? 0 : -ENOMEM;
}

void ovsp_flow_stats_exit(void)
{
	kmem_cache_destroy(slot_cache);
}

bool ovsp_flow_stats_one_slot(void)
{
	return READ_ONCE(flow_stats_one_slot);
}

/* Bytes of a struct ovsp_flow_stats: the pointer array, then the mask's
 * bits, as many as the cpumask operations read (cpumask_size(): all of
 * NR_CPUS's without CONFIG_CPUMASK_OFFSTACK, not only nr_cpu_ids). */
static size_t stats_size(void)
{
	return sizeof(struct ovsp_flow_stats)
		+ nr_cpu_ids * sizeof(struct ovsp_flow_stats_slot *)
		+ cpumask_size();
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

	slot = kmem_cache_alloc_node(slot_cache, GFP_KERNEL | __GFP_ZERO, node);
	if (!slot) {
		kfree(stats);
		return NULL;
	}
	spin_lock_init(&slot->lock);
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
	kfree(stats);
}

/* Adds one packet to 'slot', whose lock the caller holds. */
static void slot_add(struct ovsp_flow_stats_slot *slot, __be16 tcp_flags,
		     unsigned int len)
{
	slot->used = jiffies;
	slot->n_packets++;
	slot->n_bytes += len;
	slot->tcp_flags |= tcp_flags;
}

/* Tries to give CPU 'cpu' its own slot, counting this packet in it.
 * Called with slot 0's lock held, so that only one CPU at a time sets bits
 * in the mask.  Returns false if the allocation failed. */
static bool slot_create(struct ovsp_flow_stats *stats, unsigned int cpu,
			__be16 tcp_flags, unsigned int len)
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
	spin_lock_init(&slot->lock);
	slot_add(slot, tcp_flags, len);
	rcu_assign_pointer(stats->slots[cpu], slot);
	cpumask_set_cpu(cpu, stats->cpu_used);
	return true;
}

void ovsp_flow_stats_update(struct ovsp_flow_stats *stats, __be16 tcp_flags,
			    unsigned int len)
{
	unsigned int cpu = smp_processor_id();
	struct ovsp_flow_stats_slot *slot;

	if (cpu && !ovsp_flow_stats_one_slot()) {
		slot = rcu_dereference(stats->slots[cpu]);
		if (likely(slot)) {
			spin_lock(&slot->lock);
			slot_add(slot, tcp_flags, len);
			spin_unlock(&slot->lock);
			return;
		}
	}

	slot = rcu_dereference(stats->slots[0]);
	spin_lock(&slot->lock);
	if (cpu && !ovsp_flow_stats_one_slot()
	    && !rcu_access_pointer(stats->slots[cpu])
	    && slot_create(stats, cpu, tcp_flags, len)) {
		spin_unlock(&slot->lock);
		return;
	}
	slot_add(slot, tcp_flags, len);
	spin_unlock(&slot->lock);
}

/* Adds 'slot' (under its lock) into 'info'. */
static void slot_read(struct ovsp_flow_stats_slot *slot,
		      struct ovsp_flow_stats_info *info)
{
	spin_lock_bh(&slot->lock);
	if (!info->used || (slot->used && time_after(slot->used, info->used)))
		info->used = slot->used;
	info->n_packets += slot->n_packets;
	info->n_bytes += slot->n_bytes;
	info->tcp_flags |= slot->tcp_flags;
	spin_unlock_bh(&slot->lock);
}

void ovsp_flow_stats_get(const struct ovsp_flow_stats *stats,
			 struct ovsp_flow_stats_info *info)
{
	unsigned int cpu;

	memset(info, 0, sizeof(*info));
	rcu_read_lock();
	for_each_cpu(cpu, stats->cpu_used) {
		struct ovsp_flow_stats_slot *slot;

		slot = rcu_dereference(stats->slots[cpu]);
		if (slot)
			slot_read(slot, info);
	}
	rcu_read_unlock();
}

bool ovsp_flow_stats_get_slot(const struct ovsp_flow_stats *stats,
			      unsigned int cpu,
			      struct ovsp_flow_stats_info *info)
{
	struct ovsp_flow_stats_slot *slot;

	memset(info, 0, sizeof(*info));
	if (cpu >= nr_cpu_ids)
		return false;
	rcu_read_lock();
	slot = rcu_dereference(stats->slots[cpu]);
	if (slot)
		slot_read(slot, info);
	rcu_read_unlock();
	return slot != NULL;
}

void ovsp_flow_stats_clear(struct ovsp_flow_stats *stats)
{
	unsigned int cpu;

	rcu_read_lock();
	for_each_cpu(cpu, stats->cpu_used) {
		struct ovsp_flow_stats_slot *slot;

		slot = rcu_dereference(stats->slots[cpu]);
		if (!slot)
			continue;
		spin_lock_bh(&slot->lock);
		slot->used = 0;
		slot->n_packets = 0;
		slot->n_bytes = 0;
		slot->tcp_flags = 0;
		spin_unlock_bh(&slot->lock);
	}
	rcu_read_unlock();
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
	 * 32 bits, as its time_msec() computes them. */
	ktime_get_ts64(&now);
	now_ms = (u64)(u32)now.tv_sec * MSEC_PER_SEC + now.tv_nsec / NSEC_PER_MSEC;
	idle_ms = jiffies_to_msecs(jiffies - used);
	return now_ms - idle_ms;
}

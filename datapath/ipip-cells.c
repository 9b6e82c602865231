// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU GRO cells of the ovs_ipip device, after the pattern of
 * net/core/gro_cells.c but ours, so that they count.
 *
 * Contract:
 * - ovsp_ipip_cells_receive() runs on the CPU that decapsulated the packet
 *   (softirq, RCU) and consumes it: a device not up drops it (down_drops);
 *   GRO off (or a cloned skb, which GRO must not touch) passes it to
 *   netif_rx() on this CPU (rx_gro_bypassed); otherwise it joins this
 *   CPU's cell (or, with the shared-cell ablation, the one shared cell)
 *   unless that holds netdev_max_backlog packets already (backlog_drops),
 *   and the cell's NAPI is scheduled on this CPU if it was idle.
 * - A cell's poll hands its packets to napi_gro_receive() up to the budget
 *   and counts on the polling CPU the packets GRO passes up or holds (a
 *   held packet is passed up later as one, with whatever merges into it),
 *   so that 'polled' is the number of packets handed up after GRO.
 * - Every counter is written by its own CPU only (ovsp_ipip_count()),
 *   and each cell's own counters under its queue's lock, so by its own
 *   CPU only but for the shared-cell ablation.
 * - ovsp_ipip_cells_init() (ndo_init, RTNL) adds and enables one NAPI
 *   context per possible CPU; ovsp_ipip_cells_stop() (ndo_uninit, after
 *   the receive path can no longer find the device) disables them, takes
 *   them off the device's NAPI list and purges the queues, without waiting
 *   for RCU readers of that list (netpoll), as gro_cells_destroy() does:
 *   RTNL is held there, for every device of a batch.
 *   ovsp_ipip_cells_free() (destructor) frees the cells after one RCU
 *   grace period (call_rcu(), its rcu_head allocated with the cells, so
 *   that freeing cannot fail), once for all CPUs; the module's exit waits
 *   for it with rcu_barrier().
 */
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "ipip.h"

/* What ovsp_ipip_cells_free() hands to call_rcu(), allocated with the
 * cells.
 */
struct ovsp_ipip_cells_rcu {
	struct rcu_head rcu;
	struct ovsp_ipip_cell __percpu *cells;	/* To free. */
};

/* The NAPI poll of one cell (softirq, on the CPU it was scheduled on). */
static int cell_poll(struct napi_struct *napi, int budget)
{
	struct ovsp_ipip_cell *cell = container_of(napi, struct ovsp_ipip_cell,
						   napi);
	struct ovsp_ipip *t = netdev_priv(napi->dev);
	int work = 0;

	while (work < budget) {
		struct sk_buff *skb = skb_dequeue(&cell->queue);
		gro_result_t res;

		if (!skb)
			break;
		res = napi_gro_receive(napi, skb);
		if (res == GRO_NORMAL || res == GRO_HELD)
			ovsp_ipip_count(t, OVSP_IPIP_STAT_POLLED);
		work++;
	}
	if (work < budget)
		napi_complete_done(napi, work);
	return work;
}

void ovsp_ipip_cells_receive(struct ovsp_ipip *t, struct sk_buff *skb)
{
	struct net_device *dev = t->dev;
	struct ovsp_ipip_cell *cell;
	bool first;

	if (unlikely(!netif_running(dev))) {
		ovsp_ipip_count(t, OVSP_IPIP_STAT_DOWN_DROPS);
		dev_core_stats_rx_dropped_inc(dev);
		kfree_skb(skb);
		return;
	}
	if (!READ_ONCE(t->gro) || skb_cloned(skb) || netif_elide_gro(dev)) {
		ovsp_ipip_count(t, OVSP_IPIP_STAT_RX_GRO_BYPASSED);
		netif_rx(skb);
		return;
	}

	cell = READ_ONCE(t->shared_cell) ? per_cpu_ptr(t->cells, t->shared_cpu)
					 : this_cpu_ptr(t->cells);
	spin_lock(&cell->queue.lock);
	if (unlikely(skb_queue_len(&cell->queue)
		     >= READ_ONCE(netdev_max_backlog))) {
		spin_unlock(&cell->queue.lock);
		ovsp_ipip_count(t, OVSP_IPIP_STAT_BACKLOG_DROPS);
		dev_core_stats_rx_dropped_inc(dev);
		kfree_skb(skb);
		return;
	}
	__skb_queue_tail(&cell->queue, skb);
	first = skb_queue_len(&cell->queue) == 1;
	u64_stats_update_begin(&cell->syncp);
	u64_stats_inc(&cell->n[OVSP_IPIP_CELL_QUEUED]);
	u64_stats_update_end(&cell->syncp);
	spin_unlock(&cell->queue.lock);
	ovsp_ipip_count(t, OVSP_IPIP_STAT_QUEUED);
	if (first)
		napi_schedule(&cell->napi);
}

int ovsp_ipip_cells_init(struct ovsp_ipip *t)
{
	int cpu;

	t->cells_rcu = kzalloc(sizeof(*t->cells_rcu), GFP_KERNEL);
	if (!t->cells_rcu)
		return -ENOMEM;
	t->cells = alloc_percpu(struct ovsp_ipip_cell);
	if (!t->cells) {
		kfree(t->cells_rcu);
		t->cells_rcu = NULL;
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		struct ovsp_ipip_cell *cell = per_cpu_ptr(t->cells, cpu);

		skb_queue_head_init(&cell->queue);
		u64_stats_init(&cell->syncp);
		set_bit(NAPI_STATE_NO_BUSY_POLL, &cell->napi.state);
		netif_napi_add(t->dev, &cell->napi, cell_poll);
		napi_enable(&cell->napi);
	}
	return 0;
}

void ovsp_ipip_cells_stop(struct ovsp_ipip *t)
{
	int cpu;

	if (!t->cells)
		return;
	for_each_possible_cpu(cpu) {
		struct ovsp_ipip_cell *cell = per_cpu_ptr(t->cells, cpu);

		napi_disable(&cell->napi);
		__netif_napi_del(&cell->napi);
		skb_queue_purge(&cell->queue);
	}
}

static void cells_free_rcu(struct rcu_head *rcu)
{
	struct ovsp_ipip_cells_rcu *f;

	f = container_of(rcu, struct ovsp_ipip_cells_rcu, rcu);

	free_percpu(f->cells);
	kfree(f);
}

void ovsp_ipip_cells_free(struct ovsp_ipip *t)
{
	/* ovsp_ipip_cells_stop() ran (ndo_uninit, or the undoing of a failed
	 * registration): nothing new reaches the cells, but a reader of the
	 * device's NAPI list may still be at one until a grace period.
	 */
	if (!t->cells_rcu)
		return;
	t->cells_rcu->cells = t->cells;
	call_rcu(&t->cells_rcu->rcu, cells_free_rcu);
	t->cells_rcu = NULL;
	t->cells = NULL;
}

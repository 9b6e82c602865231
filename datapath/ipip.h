/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ovs_ipip device (kind OVSP_IPIP_KIND, ovsp-ipip-uapi.h): an
 * IPPROTO_IPIP tunnel of ours, attached to a datapath as a NETDEV vport.
 * Four files, one job each:
 *   ipip-dev.c    the net_device, its rtnl_link_ops and ethtool stats,
 *                 each namespace's table of devices that the receive path
 *                 searches, init/exit;
 *   ipip-rcv.c    the IPPROTO_IPIP handlers (tunnel4: our exact devices'
 *                 before Linux's ipip.ko, the others' after it) that
 *                 decapsulate packets for our devices attached to a
 *                 datapath and decline the others, and their ICMP error
 *                 handlers;
 *   ipip-cells.c  the per-CPU GRO cells the decapsulated packets go
 *                 through on the CPU that decapsulated them;
 *   ipip-xmit.c   encapsulation from the egress tunnel info.
 *
 * Locking and ownership:
 * - The per-namespace device tables and every device's configuration are
 *   written under RTNL only; the packet path reads them under RCU
 *   (READ_ONCE for the configuration bytes, which changelink may rewrite
 *   between packets).
 * - The counters ('pcpu') and each CPU's cell are written only by their
 *   own CPU in softirq (or BHs off), but for the shared-cell ablation in
 *   which every CPU feeds cell 'shared_cpu' (under its queue's lock).
 * - A device leaves its table (and RCU readers) in dellink, before
 *   unregister_netdevice_queue(), whose synchronize_net() (one for the
 *   whole batch) comes before ndo_uninit, which disables the cells' NAPI,
 *   takes it off the device's list and purges their queues, and waits for
 *   nothing; the destructor, after the last reference (ethtool readers
 *   included) is gone, frees the counters and hands the cells to
 *   call_rcu(), for the readers of the NAPI list.
 */
#ifndef OVSP_IPIP_H
#define OVSP_IPIP_H 1

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/types.h>
#include <linux/u64_stats_sync.h>

#include "ovsp-ipip-uapi.h"

struct ovsp_ipip_cells_rcu;

/* One CPU's GRO cell: a queue of decapsulated packets and the NAPI
 * context that feeds them to GRO.  The queue's lock is taken for every
 * operation, so that the shared-cell ablation (all CPUs feeding one cell)
 * and a runtime switch between the modes stay safe; in the per-CPU mode
 * it is only ever taken by its own CPU.
 */
struct ovsp_ipip_cell {
	struct sk_buff_head queue;	/* Awaiting the poll; at most
					 * netdev_max_backlog packets.
					 */
	struct napi_struct napi;	/* On the device's napi_list. */
	/* The cell's own counters (enum ovsp_ipip_cell_stat), written
	 * under 'queue.lock' by whichever CPU feeds the cell, so only by its
	 * own CPU but for the shared-cell ablation; read by ethtool through
	 * 'syncp'.
	 */
	struct u64_stats_sync syncp;	/* For 32-bit readers. */
	u64_stats_t n[OVSP_IPIP_N_CELL_STATS]; /* The counters. */
};

/* One CPU's counters, by enum ovsp_ipip_total (the first
 * OVSP_IPIP_N_CPU_STATS are also that CPU's ethtool block).  Written only
 * by that CPU (BHs off); read by ethtool through 'syncp'.
 */
struct ovsp_ipip_pcpu {
	struct u64_stats_sync syncp;	/* For 32-bit readers. */
	u64_stats_t n[OVSP_IPIP_N_TOTALS]; /* The counters. */
};

/* The device's private data (netdev_priv()). */
struct ovsp_ipip {
	struct net_device *dev;		/* The device itself. */
	struct hlist_node hash_node;	/* In its namespace's table, by
					 * (local, remote) (RCU; written
					 * under RTNL).
					 */
	__be32 local;			/* OVSP_IPIP_ATTR_LOCAL, 0 for any. */
	__be32 remote;			/* OVSP_IPIP_ATTR_REMOTE, 0 for any. */
	u8 gro;				/* OVSP_IPIP_ATTR_GRO. */
	u8 shared_cell;			/* OVSP_IPIP_ATTR_SHARED_CELL. */
	unsigned int shared_cpu;	/* The cell all CPUs feed with
					 * 'shared_cell': the first possible
					 * CPU's.
					 */
	struct ovsp_ipip_cell __percpu *cells;	/* One per possible CPU. */
	struct ovsp_ipip_cells_rcu *cells_rcu;	/* For freeing them after
						 * a grace period
						 * (ipip-cells.c).
						 */
	struct ovsp_ipip_pcpu __percpu *pcpu;	/* One per possible CPU. */
};

/* Adds 1 to this CPU's counter 'stat' (enum ovsp_ipip_total) of 't'.
 * BHs off.
 */
static inline void ovsp_ipip_count(struct ovsp_ipip *t,
				   enum ovsp_ipip_total stat)
{
	struct ovsp_ipip_pcpu *p = this_cpu_ptr(t->pcpu);

	u64_stats_update_begin(&p->syncp);
	u64_stats_inc(&p->n[stat]);
	u64_stats_update_end(&p->syncp);
}

/* ipip-dev.c */

/* Which of a namespace's devices ovsp_ipip_lookup() considers: the
 * receive path asks for the exact ones before Linux's ipip.ko has the
 * packet, the others after it.
 */
enum ovsp_ipip_match {
	OVSP_IPIP_EXACT,	/* LOCAL and REMOTE both set. */
	OVSP_IPIP_WILDCARD,	/* LOCAL or REMOTE (or both) any. */
};

/* The device of 'net' of kind 'match' that takes a packet for 'local'
 * from 'remote', and, if 'attached', is a port of a datapath: for
 * OVSP_IPIP_EXACT the one configured with both addresses; for
 * OVSP_IPIP_WILDCARD the one with REMOTE 'remote' and LOCAL any, else
 * with LOCAL 'local' and REMOTE any, else with both any (the first of
 * these that qualifies).  NULL if none.  RCU.
 */
struct ovsp_ipip *ovsp_ipip_lookup(const struct net *net, __be32 local,
				   __be32 remote, enum ovsp_ipip_match match,
				   bool attached);
int ovsp_ipip_dev_init(void);
void ovsp_ipip_dev_exit(void);

/* ipip-cells.c */
int ovsp_ipip_cells_init(struct ovsp_ipip *t);
void ovsp_ipip_cells_stop(struct ovsp_ipip *t);
void ovsp_ipip_cells_free(struct ovsp_ipip *t);
void ovsp_ipip_cells_receive(struct ovsp_ipip *t, struct sk_buff *skb);

/* ipip-rcv.c */
int ovsp_ipip_rcv_init(void);
void ovsp_ipip_rcv_exit(void);

/* ipip-xmit.c */
netdev_tx_t ovsp_ipip_xmit(struct sk_buff *skb, struct net_device *dev);

/* The module's entry points (ipip-dev.c): the rtnl kind, then the
 * handler; undone in the opposite order.
 */
int ovsp_ipip_init(void);
void ovsp_ipip_exit(void);

#endif

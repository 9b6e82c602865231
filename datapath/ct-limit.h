/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Conntrack zone limits (the ovs_ct_limit family, ct-limit-family.c): how
 * many connections a conntrack zone may hold that ct(commit) committed.
 *
 * Contract:
 * - The state is per network namespace, as Linux's
 *   ovs_net->ct_limit_info: a default limit and, for any of the 65,536
 *   zones, a limit of its own.  A limit of 0 is "unlimited"
 *   (OVSP_CT_LIMIT_UNLIMITED), and the default starts at 0.  A zone
 *   without a limit of its own follows the default.
 * - The packet path (ovsp_ct_limit_admit()) reads the limits under RCU
 *   with no lock, and writes only nf_conncount's list of the zone (which
 *   every CPU that commits in that zone writes: the counting is
 *   nf_conncount's, Documentation/kernel-datapath.md, "Zone limits") and
 *   this CPU's counters.
 * - Control operations (set, del, get) take the namespace's own mutex;
 *   they may sleep.
 * - Bounded: at most 65,536 zone limits per namespace, kept in at most
 *   OVSP_CT_LIMIT_CHUNKS chunks of OVSP_CT_LIMIT_PER_CHUNK zones, allocated
 *   on demand and charged to the memory cgroup of the process that set
 *   them (2 KiB each, 512 KiB at most).
 * - nf_conncount's state for a namespace is made by the first SET there
 *   of a limit that is not 0 (nf_conncount_init(), which also takes
 *   conntrack's hooks for the namespace, as openvswitch.ko does for every
 *   namespace), and goes with the namespace or the module.
 */
#ifndef OVSP_CT_LIMIT_H
#define OVSP_CT_LIMIT_H 1

#include <linux/skbuff.h>
#include <linux/types.h>
#include <net/net_namespace.h>

/* A limit of 0 means no limit, as Linux's OVS_CT_LIMIT_UNLIMITED. */
#define OVSP_CT_LIMIT_UNLIMITED 0

/* The zone table: zones are u16, split into chunks of 256. */
#define OVSP_CT_LIMIT_PER_CHUNK 256
#define OVSP_CT_LIMIT_CHUNKS (65536 / OVSP_CT_LIMIT_PER_CHUNK)

/* One zone's limit as GET answers it. */
struct ovsp_ct_zone_limit {
	u16 zone;
	u32 limit;			/* Its own, or the default. */
	u32 count;			/* Connections counted in it. */
};

/* One CPU's counters of a namespace. */
struct ovsp_ct_limit_stats {
	u64 refused;			/* Commits refused: over the limit. */
	u64 uncounted;			/* Commits nf_conncount could not
					 * count (no memory, no tuple):
					 * admitted, as in Linux.
					 */
};

/* Module init and exit: the per-namespace state. */
int ovsp_ct_limit_init(void);
void ovsp_ct_limit_exit(void);

/* Sets the default limit to 'limit' (0: unlimited).  Returns 0 or a
 * negative errno (-ENOMEM: nf_conncount's state could not be made).
 */
int ovsp_ct_limit_set_default(struct net *net, u32 limit);

/* Sets zone 'zone''s own limit to 'limit'.  Returns 0 or a negative
 * errno (-ENOMEM).
 */
int ovsp_ct_limit_set_zone(struct net *net, u16 zone, u32 limit);

/* Removes zone 'zone''s own limit: it follows the default again. */
void ovsp_ct_limit_del_zone(struct net *net, u16 zone);

/* The default limit. */
u32 ovsp_ct_limit_get_default(struct net *net);

/* Zone 'zone''s limit (its own or the default) and count, in '*out'. */
void ovsp_ct_limit_get_zone(struct net *net, u16 zone,
			    struct ovsp_ct_zone_limit *out);

/* What ovsp_ct_limit_walk_zones() calls with each zone. */
typedef int ovsp_ct_zone_limit_cb_t(const struct ovsp_ct_zone_limit *zl,
				    void *aux);

/* Calls 'cb' with each zone that has a limit of its own, in ascending
 * order, until it returns non-zero, which is then returned; else 0.
 */
int ovsp_ct_limit_walk_zones(struct net *net, ovsp_ct_zone_limit_cb_t *cb,
				void *aux);

/* The enforcement entry point, for ct(commit) of a connection that is not
 * yet confirmed, before it is confirmed: 'skb' carries that connection
 * (nf_ct_get()), of family 'l3num' (NFPROTO_IPV4 or NFPROTO_IPV6), in zone
 * 'zone'.  Counts the connection in its zone if the zone's limit is not
 * 0, and returns 0 to admit it or -ENOMEM when the zone already holds its
 * limit (the caller drops the packet, and the connection is never
 * confirmed), as Linux's openvswitch.ko.  Called under RCU with BHs off.
 */
int ovsp_ct_limit_admit(struct net *net, const struct sk_buff *skb,
			u16 l3num, u16 zone);

/* CPU 'cpu''s counters of the namespace, in '*stats'. */
void ovsp_ct_limit_get_stats(struct net *net, unsigned int cpu,
			     struct ovsp_ct_limit_stats *stats);

#endif

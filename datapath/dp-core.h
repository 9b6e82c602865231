/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The datapath core's private view of a datapath and its services to the
 * core's own files (the genetlink families, vports, upcalls).  Not part of
 * the contract with the flow-key and actions half (datapath.h is).
 *
 * Locking:
 * - ovsp_lock() (a mutex) serialises every control operation: creating,
 *   changing and destroying datapaths, vports and flows.  It is taken
 *   before rtnl_lock() where both are needed, never after.
 * - The packet path reads everything here under RCU and writes only this
 *   CPU's 'stats' entry and the per-CPU parts of the flow table and flow
 *   stats.
 */
#ifndef OVSP_DP_CORE_H
#define OVSP_DP_CORE_H 1

#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/u64_stats_sync.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include "datapath.h"

struct ovsp_flow_table;
struct ovsp_meter_table;

/* Buckets of a datapath's port hash, and the number of port numbers:
 * 0 to 65534, since 65535 (OVSP_IN_PORT_NONE) means "no port", as the
 * kernel's DP_MAX_PORTS.
 */
#define OVSP_PORT_HASH_BUCKETS 1024
#define OVSP_MAX_PORTS 65535

/* OVS_PACKET_ATTR_HASH's flag bits above the 32-bit hash, as OVS's
 * userspace reads them: a software hash, an L4 (4-tuple) hash.  (The
 * local port's number, OVSP_LOCAL, is the uapi header's.)
 */
#define OVSP_PACKET_HASH_SW_BIT (1ULL << 32)
#define OVSP_PACKET_HASH_L4_BIT (1ULL << 33)

/* The user features this datapath honours. */
#define OVSP_DP_FEATURES (OVS_DP_F_UNALIGNED | OVS_DP_F_VPORT_PIDS | \
			  OVS_DP_F_DISPATCH_UPCALL_PER_CPU)

/* One CPU's datapath counters; written only by that CPU. */
struct ovsp_dp_stats_pcpu {
	u64 n_hit;			/* Packets that matched a flow. */
	u64 n_missed;			/* Packets sent up as misses. */
	u64 n_lost;			/* Upcalls that could not be queued. */
	u64 n_mask_hit;			/* Masks probed by lookups. */
	u64 n_cache_hit;		/* Lookups the masks cache answered. */
	struct u64_stats_sync syncp;	/* For 32-bit readers. */
};

/* A set of upcall Netlink PIDs (per CPU for the datapath, per handler
 * for a vport); immutable once published, replaced by RCU.
 */
struct ovsp_pids {
	struct rcu_head rcu;		/* Deferred free. */
	u32 n;				/* Entries in 'ids', at least 1. */
	u32 ids[];
};

struct ovsp_datapath {
	struct list_head node;		/* In the list of all datapaths. */
	struct rcu_head rcu;		/* Deferred free. */
	possible_net_t net;		/* Its network namespace. */
	struct ovsp_flow_table *table;	/* Its megaflows. */
	struct ovsp_meter_table *meters;	/* Its meters. */
	struct hlist_head *ports;	/* Vports by port number (RCU). */
	u32 n_ports;			/* Vports in 'ports'. */
	struct ovsp_dp_stats_pcpu __percpu *stats;	/* Counters. */
	u32 user_features;		/* OVS_DP_F_*. */
	struct ovsp_pids __rcu *cpu_pids;	/* Per-CPU dispatch PIDs. */
};

/* Control-path serialisation. */
void ovsp_lock(void);
void ovsp_unlock(void);
bool lockdep_ovsp_is_held(void);

static inline struct net *ovsp_dp_net(const struct ovsp_datapath *dp)
{
	return read_pnet(&dp->net);
}

/* Datapath lifecycle and lookup (ovsp_lock, or RCU for lookups). */
struct ovsp_datapath *ovsp_dp_create(struct net *net, const char *name,
				     u32 upcall_pid, int *errp);
void ovsp_dp_destroy(struct ovsp_datapath *dp);
void ovsp_dp_destroy_net(struct net *net);
/* Deletes the vports of other namespaces' datapaths whose devices (moved
 * internal devices) live in 'net', calling 'notify' for each first.
 */
void ovsp_dp_detach_net_devices(struct net *net,
				void (*notify)(struct ovsp_vport *));
/* The vport of a datapath of 'net' whose device, moved to another
 * namespace, is named 'name' (ovsp_lock), or NULL.
 */
struct ovsp_vport *ovsp_dp_vport_moved(struct net *net, const char *name);
struct ovsp_datapath *ovsp_dp_lookup(struct net *net, int dp_ifindex);
struct ovsp_datapath *ovsp_dp_lookup_name(struct net *net, const char *name);
struct ovsp_datapath *ovsp_dp_next(struct net *net, long *pos);
int ovsp_dp_ifindex(const struct ovsp_datapath *dp);
const char *ovsp_dp_name(const struct ovsp_datapath *dp);
void ovsp_dp_get_stats(const struct ovsp_datapath *dp,
		       struct ovsp_dp_stats_pcpu *sum);

/* Ports (ovsp_lock for changes; RCU for lookups). */
struct ovsp_vport *ovsp_dp_vport(const struct ovsp_datapath *dp, u16 port_no);
int ovsp_dp_attach_port(struct ovsp_datapath *dp, struct ovsp_vport *vport);
void ovsp_dp_detach_port(struct ovsp_vport *vport);
/* Deletes every vport whose device the notifier detached, calling
 * 'notify' for each first (ovsp_lock).
 */
void ovsp_dp_reap_detached(void (*notify)(struct ovsp_vport *));

/* Upcall PIDs: parse a u32 array attribute into a new set (ERR_PTR on a
 * bad length), choose one, and free one after RCU.
 */
struct ovsp_pids *ovsp_pids_from_nlattr(const struct nlattr *attr);
u32 ovsp_pids_select(const struct ovsp_pids *pids, u32 hash);
void ovsp_pids_free_rcu(struct ovsp_pids *pids);
int ovsp_dp_set_cpu_pids(struct ovsp_datapath *dp, const struct nlattr *a);

/* The PID for a miss of 'skb' that entered on 'vport'. */
u32 ovsp_dp_miss_portid(struct ovsp_datapath *dp, struct ovsp_vport *vport,
			struct sk_buff *skb);

/* The families (each in its own file). */
extern struct genl_family ovsp_dp_family;
extern struct genl_family ovsp_vport_family;
extern struct genl_family ovsp_flow_family;
extern struct genl_family ovsp_packet_family;
extern struct genl_family ovsp_meter_family;
extern struct genl_family ovsp_ct_limit_family;
extern struct genl_family ovsp_pcpu_family;

/* Builds a vport message (vport-family.c), for notifications from the
 * device notifier's work.
 */
struct sk_buff *ovsp_vport_msg(struct ovsp_vport *vport, u32 portid, u32 seq,
			       u32 flags, u8 cmd, gfp_t gfp);

/* Device notifier (dp-notify.c), and the vport mcgroup's message for a
 * vport about to be deleted (ovsp_lock).
 */
int ovsp_dp_notify_init(void);
void ovsp_dp_notify_exit(void);
void ovsp_dp_notify_del(struct ovsp_vport *vport);

/* Pernet handling and the list of datapaths (datapath.c). */
int ovsp_dp_init(void);
void ovsp_dp_exit(void);

#endif

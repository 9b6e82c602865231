// SPDX-License-Identifier: GPL-2.0
/*
 * Datapaths: their lifecycle, their ports, their counters, and the packet
 * path's entry (ovsp_dp_process_packet) and exit (ovsp_dp_output).  See
 * datapath.h for the contract with the actions half and dp-core.h for the
 * locking.
 */
#include <linux/hash.h>
#include <linux/if_vlan.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/openvswitch.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/dst_metadata.h>

#include "actions.h"
#include "dp-core.h"
#include "flow-stats.h"
#include "flow-table.h"
#include "meter.h"
#include "skb-cb.h"
#include "vport.h"

/* Serialises the control path. */
static DEFINE_MUTEX(ovsp_mutex);

/* Every datapath of every namespace (ovsp_mutex; RCU for readers). */
static LIST_HEAD(ovsp_dps);

void ovsp_lock(void)
{
	mutex_lock(&ovsp_mutex);
}

void ovsp_unlock(void)
{
	mutex_unlock(&ovsp_mutex);
}

bool lockdep_ovsp_is_held(void)
{
#ifdef CONFIG_LOCKDEP
	return lockdep_is_held(&ovsp_mutex);
#else
	return mutex_is_locked(&ovsp_mutex);
#endif
}

/* Ports. */

static struct hlist_head *port_bucket(const struct ovsp_datapath *dp,
				      u16 port_no)
{
	return &dp->ports[port_no & (OVSP_PORT_HASH_BUCKETS - 1)];
}

struct ovsp_vport *ovsp_dp_vport(const struct ovsp_datapath *dp, u16 port_no)
{
	struct ovsp_vport *vport;

	hlist_for_each_entry_rcu(vport, port_bucket(dp, port_no), dp_node,
				 lockdep_ovsp_is_held())
		if (vport->port_no == port_no)
			return vport;
	return NULL;
}

int ovsp_dp_attach_port(struct ovsp_datapath *dp, struct ovsp_vport *vport)
{
	if (ovsp_dp_vport(dp, vport->port_no))
		return -EBUSY;
	hlist_add_head_rcu(&vport->dp_node, port_bucket(dp, vport->port_no));
	dp->n_ports++;
	return 0;
}

void ovsp_dp_detach_port(struct ovsp_vport *vport)
{
	hlist_del_rcu(&vport->dp_node);
	vport->dp->n_ports--;
	ovsp_vport_destroy(vport);
}

/* Deletes every vport of every datapath for which 'doomed' is true, given
 * 'arg', calling 'notify' for each first (ovsp_lock).
 */
static void detach_ports(bool (*doomed)(const struct ovsp_vport *,
					const void *arg),
			 const void *arg,
			 void (*notify)(struct ovsp_vport *))
{
	struct ovsp_datapath *dp;
	struct ovsp_vport *vport;
	struct hlist_node *n;
	int i;

	list_for_each_entry(dp, &ovsp_dps, node)
		for (i = 0; i < OVSP_PORT_HASH_BUCKETS; i++)
			hlist_for_each_entry_safe(vport, n, &dp->ports[i],
						  dp_node)
				if (doomed(vport, arg)) {
					notify(vport);
					ovsp_dp_detach_port(vport);
				}
}

static bool vport_detached(const struct ovsp_vport *vport, const void *arg)
{
	return READ_ONCE(vport->detached);
}

void ovsp_dp_reap_detached(void (*notify)(struct ovsp_vport *))
{
	detach_ports(vport_detached, NULL, notify);
}

/* Upcall PIDs. */

struct ovsp_pids *ovsp_pids_from_nlattr(const struct nlattr *attr)
{
	int len = nla_len(attr);
	struct ovsp_pids *pids;
	u32 n = len / sizeof(u32);

	/* No cap but the attribute's own length (16,382 entries at most),
	 * as the kernel's: a host may have more CPU ids than any cap.
	 */
	if (len < (int)sizeof(u32) || len % sizeof(u32))
		return ERR_PTR(-EINVAL);
	pids = kmalloc(struct_size(pids, ids, n), GFP_KERNEL);
	if (!pids)
		return ERR_PTR(-ENOMEM);
	pids->n = n;
	memcpy(pids->ids, nla_data(attr), len);
	return pids;
}

u32 ovsp_pids_select(const struct ovsp_pids *pids, u32 hash)
{
	if (!pids)
		return 0;
	return pids->ids[hash < pids->n ? hash : hash % pids->n];
}

void ovsp_pids_free_rcu(struct ovsp_pids *pids)
{
	if (pids)
		kfree_rcu(pids, rcu);
}

int ovsp_dp_set_cpu_pids(struct ovsp_datapath *dp, const struct nlattr *a)
{
	struct ovsp_pids *pids = ovsp_pids_from_nlattr(a);

	if (IS_ERR(pids))
		return PTR_ERR(pids);
	ovsp_pids_free_rcu(rcu_dereference_protected(dp->cpu_pids,
						     lockdep_ovsp_is_held()));
	rcu_assign_pointer(dp->cpu_pids, pids);
	return 0;
}

u32 ovsp_dp_miss_portid(struct ovsp_datapath *dp, struct ovsp_vport *vport,
			struct sk_buff *skb)
{
	struct ovsp_pids *pids;

	if (dp->user_features & OVS_DP_F_DISPATCH_UPCALL_PER_CPU)
		return ovsp_pids_select(rcu_dereference(dp->cpu_pids),
					smp_processor_id());
	if (!vport)
		return 0;
	pids = rcu_dereference(vport->pids);
	if (!pids)
		return 0;
	if (pids->n == 1)
		return pids->ids[0];
	return pids->ids[reciprocal_scale(skb_get_hash(skb), pids->n)];
}

/* Datapaths. */

int ovsp_dp_ifindex(const struct ovsp_datapath *dp)
{
	struct ovsp_vport *local = ovsp_dp_vport(dp, OVSP_LOCAL);

	return local ? local->dev->ifindex : 0;
}

const char *ovsp_dp_name(const struct ovsp_datapath *dp)
{
	struct ovsp_vport *local = ovsp_dp_vport(dp, OVSP_LOCAL);

	return local ? local->dev->name : "";
}

struct ovsp_datapath *ovsp_dp_lookup(struct net *net, int dp_ifindex)
{
	struct ovsp_datapath *dp = NULL;
	struct net_device *dev;
	struct ovsp_vport *vport;

	rcu_read_lock();
	dev = dev_get_by_index_rcu(net, dp_ifindex);
	if (dev) {
		vport = ovsp_internal_vport(dev);
		if (vport && vport->port_no == OVSP_LOCAL)
			dp = vport->dp;
	}
	rcu_read_unlock();
	return dp;
}

struct ovsp_datapath *ovsp_dp_lookup_name(struct net *net, const char *name)
{
	struct ovsp_datapath *dp = NULL;
	struct net_device *dev;
	struct ovsp_vport *vport;

	rcu_read_lock();
	dev = dev_get_by_name_rcu(net, name);
	if (dev) {
		vport = ovsp_internal_vport(dev);
		if (vport && vport->port_no == OVSP_LOCAL)
			dp = vport->dp;
	}
	rcu_read_unlock();
	return dp;
}

struct ovsp_datapath *ovsp_dp_next(struct net *net, long *pos)
{
	struct ovsp_datapath *dp;
	long i = 0;

	list_for_each_entry_rcu(dp, &ovsp_dps, node, lockdep_ovsp_is_held()) {
		if (!net_eq(ovsp_dp_net(dp), net))
			continue;
		if (i++ == *pos) {
			(*pos)++;
			return dp;
		}
	}
	return NULL;
}

void ovsp_dp_get_stats(const struct ovsp_datapath *dp,
		       struct ovsp_dp_stats_pcpu *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct ovsp_dp_stats_pcpu *s = per_cpu_ptr(dp->stats, cpu);
		struct ovsp_dp_stats_pcpu c;
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			c = *s;
		} while (u64_stats_fetch_retry(&s->syncp, start));
		sum->n_hit += c.n_hit;
		sum->n_missed += c.n_missed;
		sum->n_lost += c.n_lost;
		sum->n_mask_hit += c.n_mask_hit;
		sum->n_cache_hit += c.n_cache_hit;
	}
}

static void dp_free(struct ovsp_datapath *dp)
{
	ovsp_flow_table_destroy(dp->table);
	ovsp_meter_table_destroy(dp->meters);
	free_percpu(dp->stats);
	kfree(dp->ports);
	kfree(rcu_dereference_raw(dp->cpu_pids));
	kfree(dp);
}

static void dp_free_rcu(struct rcu_head *rcu)
{
	struct ovsp_datapath *dp = container_of(rcu, struct ovsp_datapath,
						rcu);

	free_percpu(dp->stats);
	kfree(dp->ports);
	kfree(rcu_dereference_raw(dp->cpu_pids));
	kfree(dp);
}

struct ovsp_datapath *ovsp_dp_create(struct net *net, const char *name,
				     u32 upcall_pid, int *errp)
{
	struct ovsp_vport_parms parms;
	struct ovsp_datapath *dp;
	struct ovsp_vport *local;
	int err = -ENOMEM, i;

	dp = kzalloc(sizeof(*dp), GFP_KERNEL);
	if (!dp)
		goto err;
	write_pnet(&dp->net, net);
	dp->table = ovsp_flow_table_create();
	dp->meters = ovsp_meter_table_create();
	dp->stats = netdev_alloc_pcpu_stats(struct ovsp_dp_stats_pcpu);
	dp->ports = kmalloc_array(OVSP_PORT_HASH_BUCKETS,
				  sizeof(struct hlist_head), GFP_KERNEL);
	if (!dp->table || !dp->meters || !dp->stats || !dp->ports)
		goto err_free;
	for (i = 0; i < OVSP_PORT_HASH_BUCKETS; i++)
		INIT_HLIST_HEAD(&dp->ports[i]);

	parms = (struct ovsp_vport_parms) {
		.name = name,
		.type = OVS_VPORT_TYPE_INTERNAL,
		.dp = dp,
		.port_no = OVSP_LOCAL,
	};
	if (upcall_pid) {
		parms.pids = kmalloc(struct_size(parms.pids, ids, 1),
				     GFP_KERNEL);
		if (!parms.pids)
			goto err_free;
		parms.pids->n = 1;
		parms.pids->ids[0] = upcall_pid;
	}
	local = ovsp_vport_create(&parms);
	if (IS_ERR(local)) {
		kfree(parms.pids);
		err = PTR_ERR(local);
		/* A name taken by another device, as the kernel's own
		 * datapath says it.
		 */
		if (err == -EBUSY)
			err = -EEXIST;
		goto err_free;
	}
	ovsp_dp_attach_port(dp, local);
	list_add_tail_rcu(&dp->node, &ovsp_dps);
	return dp;

err_free:
	dp_free(dp);
err:
	*errp = err;
	return NULL;
}

void ovsp_dp_destroy(struct ovsp_datapath *dp)
{
	struct ovsp_vport *vport;
	struct hlist_node *n;
	int i;

	list_del_rcu(&dp->node);
	/* Every port but the local one, then the local one, whose device
	 * the others are linked to.
	 */
	for (i = 0; i < OVSP_PORT_HASH_BUCKETS; i++)
		hlist_for_each_entry_safe(vport, n, &dp->ports[i], dp_node)
			if (vport->port_no != OVSP_LOCAL)
				ovsp_dp_detach_port(vport);
	vport = ovsp_dp_vport(dp, OVSP_LOCAL);
	if (vport)
		ovsp_dp_detach_port(vport);
	ovsp_flow_table_destroy(dp->table);
	ovsp_meter_table_destroy(dp->meters);
	call_rcu(&dp->rcu, dp_free_rcu);
}

void ovsp_dp_destroy_net(struct net *net)
{
	struct ovsp_datapath *dp, *n;

	list_for_each_entry_safe(dp, n, &ovsp_dps, node)
		if (net_eq(ovsp_dp_net(dp), net))
			ovsp_dp_destroy(dp);
}

static bool vport_dev_in_net(const struct ovsp_vport *vport, const void *net)
{
	return net_eq(dev_net(vport->dev), net);
}

void ovsp_dp_detach_net_devices(struct net *net,
				void (*notify)(struct ovsp_vport *))
{
	detach_ports(vport_dev_in_net, net, notify);
}

struct ovsp_vport *ovsp_dp_vport_moved(struct net *net, const char *name)
{
	struct ovsp_datapath *dp;
	struct ovsp_vport *vport;
	int i;

	list_for_each_entry(dp, &ovsp_dps, node) {
		if (!net_eq(ovsp_dp_net(dp), net))
			continue;
		for (i = 0; i < OVSP_PORT_HASH_BUCKETS; i++)
			hlist_for_each_entry(vport, &dp->ports[i], dp_node)
				if (!net_eq(dev_net(vport->dev), net) &&
				    !strcmp(vport->dev->name, name))
					return vport;
	}
	return NULL;
}

/* The packet path. */

struct ovsp_datapath *ovsp_skb_datapath(struct sk_buff *skb)
{
	return ovsp_skb_cb(skb)->input_vport->dp;
}

struct ovsp_meter_table *ovsp_dp_meters(const struct ovsp_datapath *dp)
{
	return dp->meters;
}

/* Sends a miss upcall for 'skb' (consumed). */
static void dp_miss(struct ovsp_datapath *dp, struct sk_buff *skb,
		    struct ovsp_flow_key *key,
		    struct ovsp_dp_stats_pcpu *stats)
{
	struct ovsp_upcall_info info = {
		.cmd = OVS_PACKET_CMD_MISS,
		.portid = ovsp_dp_miss_portid(dp, ovsp_skb_cb(skb)->input_vport,
					      skb),
		.mru = ovsp_skb_cb(skb)->mru,
	};
	int err = ovsp_dp_upcall(dp, skb, key, &info, 0);

	u64_stats_update_begin(&stats->syncp);
	stats->n_missed++;
	u64_stats_update_end(&stats->syncp);
	if (err)
		kfree_skb(skb);
	else
		consume_skb(skb);
}

void ovsp_dp_process_packet(struct sk_buff *skb, struct ovsp_flow_key *key)
{
	struct ovsp_datapath *dp = ovsp_skb_datapath(skb);
	struct ovsp_dp_stats_pcpu *stats = this_cpu_ptr(dp->stats);
	const struct ovsp_actions *acts;
	struct ovsp_flow *flow;
	u32 n_mask_hit = 0;
	bool cache_hit;
	unsigned int len;

	flow = ovsp_flow_table_lookup(dp->table, key, skb_get_hash(skb),
				      &n_mask_hit, &cache_hit);
	u64_stats_update_begin(&stats->syncp);
	stats->n_mask_hit += n_mask_hit;
	stats->n_cache_hit += cache_hit;
	if (flow)
		stats->n_hit++;
	u64_stats_update_end(&stats->syncp);

	if (unlikely(!flow)) {
		dp_miss(dp, skb, key, stats);
		return;
	}
	len = skb->len + (skb_vlan_tag_present(skb) ? VLAN_HLEN : 0);
	ovsp_flow_stats_update(flow->stats, key->tp.flags, len);
	acts = rcu_dereference(flow->acts);
	ovsp_actions_execute(dp, skb, acts, key);
}

void ovsp_dp_output(struct ovsp_datapath *dp, struct sk_buff *skb,
		    u16 port_no, struct ovsp_flow_key *key)
{
	struct ovsp_vport *vport = ovsp_dp_vport(dp, port_no);
	u32 trunc_len = ovsp_skb_cb(skb)->trunc_len;

	if (unlikely(!vport)) {
		kfree_skb(skb);
		return;
	}
	if (unlikely(!netif_running(vport->dev) ||
		     !netif_carrier_ok(vport->dev))) {
		dev_core_stats_tx_dropped_inc(vport->dev);
		kfree_skb(skb);
		return;
	}
	if (unlikely(trunc_len) && trunc_len < skb->len) {
		unsigned int l2 = key->meta.mac_proto == OVSP_MAC_PROTO_ETHERNET
				  ? ETH_HLEN : 0;

		pskb_trim(skb, max(trunc_len, l2));
	}
	/* A datagram that ct() reassembled leaves cut to its MRU. */
	ovsp_vport_send_mru(vport, skb, key->meta.mac_proto, key->eth.type,
			    ovsp_skb_cb(skb)->mru);
}

/* Gives 'skb' a transmit metadata dst of its own, a copy of the one it
 * has (the flow's set(tunnel), shared), for a device to complete.  Returns
 * its tunnel info, or NULL.  As dev_fill_metadata_dst()'s unclone, but the
 * Geneve options are copied apart from the struct: one memcpy() across
 * both is a write past the field, which FORTIFY_SOURCE warns of.
 */
static struct ip_tunnel_info *egress_info_unclone(struct sk_buff *skb)
{
	struct metadata_dst *md = skb_metadata_dst(skb), *new;
	struct ip_tunnel_info *old;

	if (!md || md->type != METADATA_IP_TUNNEL)
		return NULL;
	old = &md->u.tun_info;
	if (!(old->mode & IP_TUNNEL_INFO_TX))
		return NULL;
	new = metadata_dst_alloc(old->options_len, METADATA_IP_TUNNEL,
				 GFP_ATOMIC);
	if (!new)
		return NULL;
	new->u.tun_info = *old;
	memcpy(ip_tunnel_info_opts(&new->u.tun_info),
	       ip_tunnel_info_opts(old), old->options_len);
#if IS_ENABLED(CONFIG_DST_CACHE)
	/* The copy's cache is its own (the old one stays the flow's). */
	if (new->u.tun_info.dst_cache.cache &&
	    dst_cache_init(&new->u.tun_info.dst_cache, GFP_ATOMIC)) {
		metadata_dst_free(new);
		return NULL;
	}
#endif
	skb_dst_drop(skb);
	skb_dst_set(skb, &new->dst);
	return &new->u.tun_info;
}

const struct ip_tunnel_info *ovsp_dp_egress_tun_info(struct ovsp_datapath *dp,
						     u16 port_no,
						     struct sk_buff *skb)
{
	struct ovsp_vport *vport = ovsp_dp_vport(dp, port_no);
	const struct net_device_ops *ops;

	if (!vport)
		return NULL;
	ops = vport->dev->netdev_ops;
	if (!ops->ndo_fill_metadata_dst || !egress_info_unclone(skb) ||
	    ops->ndo_fill_metadata_dst(vport->dev, skb))
		return NULL;
	return skb_tunnel_info(skb);
}

/* Namespaces: a dying namespace's datapaths go with it. */

static void __net_exit dp_net_exit(struct net *net)
{
	ovsp_lock();
	ovsp_dp_destroy_net(net);
	ovsp_dp_detach_net_devices(net, ovsp_dp_notify_del);
	ovsp_unlock();
}

static struct pernet_operations dp_net_ops = {
	.exit = dp_net_exit,
};

int ovsp_dp_init(void)
{
	return register_pernet_device(&dp_net_ops);
}

void ovsp_dp_exit(void)
{
	unregister_pernet_device(&dp_net_ops);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The ovs_ipip net_device: rtnl_link_ops of kind OVSP_IPIP_KIND, its
 * netdev and ethtool operations, and each namespace's table of devices
 * that the receive path (ipip-rcv.c) searches by outer addresses.
 *
 * Contract (see ovsp-ipip-uapi.h for what userspace sees):
 * - A device is ARPHRD_NONE (the datapath's flow key is L3), IFF_NOARP,
 *   with NETIF_F_GRO among its features, LLTX, and the tunnel info of its
 *   egress packets kept (netif_keep_dst) for ipip-xmit.c.
 * - Each namespace has its own table (pernet_operations, net_generic),
 *   hashed by (local, remote), so that neither a lookup nor newlink's
 *   uniqueness check ever looks at another namespace's devices: a lookup
 *   reads at most four buckets of its own namespace.  It finds either the
 *   exact device or the wildcard ones (ipip-rcv.c asks before and after
 *   Linux's ipip.ko), and for packets only a port of a datapath.
 * - newlink, changelink and dellink run under RTNL, which guards the
 *   tables and the configuration; the packet path reads both under RCU.
 *   changelink moves a device whose addresses change to its new bucket
 *   without a grace period, as ip_tunnel does: a packet meanwhile may miss
 *   it (and go to the next IPIP handler), never find a freed device.
 * - dellink takes the device out of its table before unregistering it, so
 *   that after unregister's synchronize_net() (one for the whole batch)
 *   the receive path cannot reach it; ndo_uninit then stops the cells
 *   without waiting for anything, and the destructor frees the counters
 *   and leaves the cells to call_rcu().  rtnl_link_unregister() at module
 *   exit deletes the devices through dellink too, and a dying namespace
 *   deletes its own in our pernet exit, before the table goes.
 */
#include <linux/ethtool.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/ip.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/rtnetlink.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/netlink.h>
#include <net/rtnetlink.h>

#include "ipip.h"

/* Buckets of a namespace's table: as ip_tunnel's, 128.  A namespace with
 * more devices than that has longer chains, for its own packets only.
 */
#define IPIP_HASH_BITS 7
#define IPIP_HASH_SIZE (1 << IPIP_HASH_BITS)

/* One namespace's devices (net_generic(net, ipip_net_id)), hashed by
 * (local, remote).  Written under RTNL; read under RCU.
 */
struct ipip_net {
	struct hlist_head devs[IPIP_HASH_SIZE];
};

static unsigned int ipip_net_id __read_mostly;

/* Random, so that no one chooses addresses that share a bucket. */
static u32 ipip_hash_seed __read_mostly;

static struct hlist_head *ipip_bucket(const struct net *net, __be32 local,
				      __be32 remote)
{
	struct ipip_net *in = net_generic(net, ipip_net_id);
	u32 hash = jhash_2words((__force u32)local, (__force u32)remote,
				ipip_hash_seed);

	return &in->devs[hash & (IPIP_HASH_SIZE - 1)];
}

/* The device of 'net' configured with exactly 'local' and 'remote' (0
 * meaning any), or NULL.  RCU or RTNL.
 */
static struct ovsp_ipip *ipip_find(const struct net *net, __be32 local,
				   __be32 remote)
{
	struct ovsp_ipip *t;

	hlist_for_each_entry_rcu(t, ipip_bucket(net, local, remote), hash_node,
				 lockdep_rtnl_is_held())
		if (READ_ONCE(t->local) == local
		    && READ_ONCE(t->remote) == remote)
			return t;
	return NULL;
}

/* Whether 't' may take a packet: it exists and, if 'attached', is a port
 * of a datapath.
 */
static bool ipip_usable(const struct ovsp_ipip *t, bool attached)
{
	return t && (!attached || netif_is_ovs_port(t->dev));
}

struct ovsp_ipip *ovsp_ipip_lookup(const struct net *net, __be32 local,
				   __be32 remote, enum ovsp_ipip_match match,
				   bool attached)
{
	struct ovsp_ipip *t;

	if (match == OVSP_IPIP_EXACT) {
		if (!local || !remote)
			return NULL;
		t = ipip_find(net, local, remote);
		return ipip_usable(t, attached) ? t : NULL;
	}

	/* Most specific first: remote exact, local exact, both any.  A key
	 * with a 0 address of the packet's would be a less specific one's,
	 * so it is skipped.
	 */
	if (remote) {
		t = ipip_find(net, 0, remote);
		if (ipip_usable(t, attached))
			return t;
	}
	if (local) {
		t = ipip_find(net, local, 0);
		if (ipip_usable(t, attached))
			return t;
	}
	t = ipip_find(net, 0, 0);
	return ipip_usable(t, attached) ? t : NULL;
}

/* Netdev operations. */

/* The destructor's work, also the undoing of a failed ndo_init. */
static void ipip_free(struct ovsp_ipip *t)
{
	ovsp_ipip_cells_free(t);
	free_percpu(t->pcpu);
	t->pcpu = NULL;
	free_percpu(t->dev->tstats);
	t->dev->tstats = NULL;
}

static int ipip_init(struct net_device *dev)
{
	struct ovsp_ipip *t = netdev_priv(dev);
	int err = -ENOMEM;
	int cpu;

	dev->tstats = netdev_alloc_pcpu_stats(struct pcpu_sw_netstats);
	if (!dev->tstats)
		goto err;
	t->pcpu = alloc_percpu(struct ovsp_ipip_pcpu);
	if (!t->pcpu)
		goto err;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(t->pcpu, cpu)->syncp);
	t->shared_cpu = cpumask_first(cpu_possible_mask);
	err = ovsp_ipip_cells_init(t);
	if (err)
		goto err;
	return 0;

err:
	ipip_free(t);
	return err;
}

static void ipip_uninit(struct net_device *dev)
{
	ovsp_ipip_cells_stop(netdev_priv(dev));
}

static void ipip_destructor(struct net_device *dev)
{
	ipip_free(netdev_priv(dev));
}

static const struct net_device_ops ipip_netdev_ops = {
	.ndo_init = ipip_init,
	.ndo_uninit = ipip_uninit,
	.ndo_start_xmit = ovsp_ipip_xmit,
	.ndo_get_stats64 = dev_get_tstats64,
};

/* Ethtool: the counters of ovsp-ipip-uapi.h. */

#define IPIP_NAME_(ID, NAME) NAME,
static const char *const total_names[OVSP_IPIP_N_TOTALS] = {
	OVSP_IPIP_TOTALS(IPIP_NAME_)
};
static const char *const cpu_names[OVSP_IPIP_N_CPU_STATS] = {
	OVSP_IPIP_CPU_STATS(IPIP_NAME_)
};
static const char *const cell_names[OVSP_IPIP_N_CELL_STATS] = {
	OVSP_IPIP_CELL_STATS(IPIP_NAME_)
};
#undef IPIP_NAME_

static void ipip_get_drvinfo(struct net_device *dev,
			     struct ethtool_drvinfo *info)
{
	strscpy(info->driver, OVSP_IPIP_KIND, sizeof(info->driver));
}

static int ipip_get_sset_count(struct net_device *dev, int sset)
{
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return OVSP_IPIP_N_TOTALS + num_possible_cpus()
		* (OVSP_IPIP_N_CPU_STATS + OVSP_IPIP_N_CELL_STATS);
}

static void ipip_get_strings(struct net_device *dev, u32 sset, u8 *buf)
{
	int cpu, i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < OVSP_IPIP_N_TOTALS; i++)
		ethtool_sprintf(&buf, "%s", total_names[i]);
	for_each_possible_cpu(cpu)
		for (i = 0; i < OVSP_IPIP_N_CPU_STATS; i++)
			ethtool_sprintf(&buf, "cpu%d_%s", cpu, cpu_names[i]);
	for_each_possible_cpu(cpu)
		for (i = 0; i < OVSP_IPIP_N_CELL_STATS; i++)
			ethtool_sprintf(&buf, "cell%d_%s", cpu, cell_names[i]);
}

/* Reads CPU 'cpu''s counters of 't' into 'n' consistently. */
static void read_cpu(const struct ovsp_ipip *t, int cpu,
		     u64 n[OVSP_IPIP_N_TOTALS])
{
	const struct ovsp_ipip_pcpu *p = per_cpu_ptr(t->pcpu, cpu);
	unsigned int start;
	int i;

	do {
		start = u64_stats_fetch_begin(&p->syncp);
		for (i = 0; i < OVSP_IPIP_N_TOTALS; i++)
			n[i] = u64_stats_read(&p->n[i]);
	} while (u64_stats_fetch_retry(&p->syncp, start));
}

/* Reads the counters of CPU 'cpu''s cell of 't' into 'n' consistently,
 * or zeroes without cells.
 */
static void read_cell(const struct ovsp_ipip *t, int cpu,
		      u64 n[OVSP_IPIP_N_CELL_STATS])
{
	const struct ovsp_ipip_cell *cell;
	unsigned int start;
	int i;

	if (!t->cells) {
		memset(n, 0, OVSP_IPIP_N_CELL_STATS * sizeof(*n));
		return;
	}
	cell = per_cpu_ptr(t->cells, cpu);
	do {
		start = u64_stats_fetch_begin(&cell->syncp);
		for (i = 0; i < OVSP_IPIP_N_CELL_STATS; i++)
			n[i] = u64_stats_read(&cell->n[i]);
	} while (u64_stats_fetch_retry(&cell->syncp, start));
}

static void ipip_get_ethtool_stats(struct net_device *dev,
				   struct ethtool_stats *stats, u64 *data)
{
	struct ovsp_ipip *t = netdev_priv(dev);
	u64 *cpu_data = data + OVSP_IPIP_N_TOTALS;
	int cpu, i;

	/* The per-CPU block is the head of each CPU's counters. */
	BUILD_BUG_ON((int)OVSP_IPIP_CPU_QUEUED != (int)OVSP_IPIP_STAT_QUEUED
		     || (int)OVSP_IPIP_CPU_POLLED != (int)OVSP_IPIP_STAT_POLLED
		     || (int)OVSP_IPIP_CPU_BACKLOG_DROPS
			!= (int)OVSP_IPIP_STAT_BACKLOG_DROPS
		     || (int)OVSP_IPIP_CPU_DOWN_DROPS
			!= (int)OVSP_IPIP_STAT_DOWN_DROPS);

	memset(data, 0, OVSP_IPIP_N_TOTALS * sizeof(*data));
	for_each_possible_cpu(cpu) {
		u64 n[OVSP_IPIP_N_TOTALS];

		read_cpu(t, cpu, n);
		for (i = 0; i < OVSP_IPIP_N_TOTALS; i++)
			data[i] += n[i];
		memcpy(cpu_data, n, OVSP_IPIP_N_CPU_STATS * sizeof(*n));
		cpu_data += OVSP_IPIP_N_CPU_STATS;
	}
	for_each_possible_cpu(cpu) {
		read_cell(t, cpu, cpu_data);
		cpu_data += OVSP_IPIP_N_CELL_STATS;
	}
}

static const struct ethtool_ops ipip_ethtool_ops = {
	.get_drvinfo = ipip_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = ipip_get_sset_count,
	.get_strings = ipip_get_strings,
	.get_ethtool_stats = ipip_get_ethtool_stats,
};

/* Rtnetlink. */

/* The features we offer, as Linux's ipip. */
#define IPIP_FEATURES (NETIF_F_SG | NETIF_F_FRAGLIST | NETIF_F_HIGHDMA \
		       | NETIF_F_GSO_SOFTWARE | NETIF_F_HW_CSUM)

static void ipip_setup(struct net_device *dev)
{
	struct ovsp_ipip *t = netdev_priv(dev);

	t->dev = dev;
	INIT_HLIST_NODE(&t->hash_node);
	t->gro = 1;
	dev->netdev_ops = &ipip_netdev_ops;
	dev->ethtool_ops = &ipip_ethtool_ops;
	dev->needs_free_netdev = true;
	dev->priv_destructor = ipip_destructor;
	dev->type = ARPHRD_NONE;
	dev->flags = IFF_NOARP;
	dev->hard_header_len = 0;
	dev->addr_len = 0;
	dev->needed_headroom = LL_MAX_HEADER + sizeof(struct iphdr);
	dev->mtu = ETH_DATA_LEN - sizeof(struct iphdr);
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = IP_MAX_MTU - sizeof(struct iphdr);
	dev->features |= NETIF_F_LLTX | NETIF_F_GRO | NETIF_F_NETNS_LOCAL
			 | IPIP_FEATURES;
	dev->hw_features |= IPIP_FEATURES;
	netif_keep_dst(dev);
}

static const struct nla_policy ipip_policy[OVSP_IPIP_ATTR_MAX + 1] = {
	[OVSP_IPIP_ATTR_GRO] = { .type = NLA_U8 },
	[OVSP_IPIP_ATTR_SHARED_CELL] = { .type = NLA_U8 },
	[OVSP_IPIP_ATTR_LOCAL] = { .type = NLA_U32 },
	[OVSP_IPIP_ATTR_REMOTE] = { .type = NLA_U32 },
};

/* Checks that 'data''s attribute 'type', if present, is exactly 'len'
 * bytes (rtnetlink's lenient parse lets longer ones through).
 */
static int check_len(struct nlattr *data[], int type, int len,
		     struct netlink_ext_ack *extack)
{
	if (data[type] && nla_len(data[type]) != len) {
		NL_SET_ERR_MSG_ATTR(extack, data[type],
				    "ovs_ipip: attribute of the wrong size");
		return -EINVAL;
	}
	return 0;
}

static int ipip_validate(struct nlattr *tb[], struct nlattr *data[],
			 struct netlink_ext_ack *extack)
{
	static const int flags[] = { OVSP_IPIP_ATTR_GRO,
				     OVSP_IPIP_ATTR_SHARED_CELL };
	static const int addrs[] = { OVSP_IPIP_ATTR_LOCAL,
				     OVSP_IPIP_ATTR_REMOTE };
	int err, i;

	if (tb[IFLA_ADDRESS]) {
		NL_SET_ERR_MSG(extack, "ovs_ipip: no link-layer address");
		return -EINVAL;
	}
	if (!data)
		return 0;
	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		err = check_len(data, flags[i], sizeof(u8), extack);
		if (err)
			return err;
		if (data[flags[i]] && nla_get_u8(data[flags[i]]) > 1) {
			NL_SET_ERR_MSG_ATTR(extack, data[flags[i]],
					    "ovs_ipip: a flag must be 0 or 1");
			return -EINVAL;
		}
	}
	for (i = 0; i < ARRAY_SIZE(addrs); i++) {
		__be32 addr;

		err = check_len(data, addrs[i], sizeof(__be32), extack);
		if (err)
			return err;
		if (!data[addrs[i]])
			continue;
		addr = nla_get_in_addr(data[addrs[i]]);
		if (ipv4_is_multicast(addr) || ipv4_is_lbcast(addr)
		    || (ipv4_is_zeronet(addr) && addr)) {
			NL_SET_ERR_MSG_ATTR(extack, data[addrs[i]],
					    "ovs_ipip: not a unicast address");
			return -EINVAL;
		}
	}
	return 0;
}

/* The configuration 'data' asks of 't' (RTNL), over its current one. */
struct ipip_conf {
	__be32 local, remote;	/* Addresses received for. */
	u8 gro, shared_cell;	/* Flags. */
};

static void conf_parse(const struct ovsp_ipip *t, struct nlattr *data[],
		       struct ipip_conf *c)
{
	*c = (struct ipip_conf) { t->local, t->remote, t->gro,
				  t->shared_cell };
	if (!data)
		return;
	if (data[OVSP_IPIP_ATTR_LOCAL])
		c->local = nla_get_in_addr(data[OVSP_IPIP_ATTR_LOCAL]);
	if (data[OVSP_IPIP_ATTR_REMOTE])
		c->remote = nla_get_in_addr(data[OVSP_IPIP_ATTR_REMOTE]);
	if (data[OVSP_IPIP_ATTR_GRO])
		c->gro = nla_get_u8(data[OVSP_IPIP_ATTR_GRO]);
	if (data[OVSP_IPIP_ATTR_SHARED_CELL])
		c->shared_cell = nla_get_u8(data[OVSP_IPIP_ATTR_SHARED_CELL]);
}

/* Refuses a second device of 'net' with the addresses of 'c' (RTNL). */
static int conf_check_unique(const struct net *net,
			     const struct ovsp_ipip *self,
			     const struct ipip_conf *c,
			     struct netlink_ext_ack *extack)
{
	struct ovsp_ipip *t;

	ASSERT_RTNL();
	t = ipip_find(net, c->local, c->remote);
	if (t && t != self) {
		NL_SET_ERR_MSG(extack, "ovs_ipip: a device with these local and remote addresses exists in this namespace");
		return -EEXIST;
	}
	return 0;
}

/* Applies 'c' to 't', in its namespace's table (RTNL), moving it to the
 * bucket of its new addresses if they change.
 */
static void conf_apply(struct ovsp_ipip *t, const struct ipip_conf *c)
{
	bool move = t->local != c->local || t->remote != c->remote;

	if (move)
		hlist_del_init_rcu(&t->hash_node);
	WRITE_ONCE(t->local, c->local);
	WRITE_ONCE(t->remote, c->remote);
	WRITE_ONCE(t->gro, c->gro);
	WRITE_ONCE(t->shared_cell, c->shared_cell);
	if (move)
		hlist_add_head_rcu(&t->hash_node,
				   ipip_bucket(dev_net(t->dev), t->local,
					       t->remote));
}

static int ipip_newlink(struct net *src_net, struct net_device *dev,
			struct nlattr *tb[], struct nlattr *data[],
			struct netlink_ext_ack *extack)
{
	struct ovsp_ipip *t = netdev_priv(dev);
	struct ipip_conf c;
	int err;

	conf_parse(t, data, &c);
	err = conf_check_unique(dev_net(dev), NULL, &c, extack);
	if (err)
		return err;
	t->local = c.local;
	t->remote = c.remote;
	t->gro = c.gro;
	t->shared_cell = c.shared_cell;
	err = register_netdevice(dev);
	if (err)
		return err;
	hlist_add_head_rcu(&t->hash_node,
			   ipip_bucket(dev_net(dev), t->local, t->remote));
	return 0;
}

static int ipip_changelink(struct net_device *dev, struct nlattr *tb[],
			   struct nlattr *data[],
			   struct netlink_ext_ack *extack)
{
	struct ovsp_ipip *t = netdev_priv(dev);
	struct ipip_conf c;
	int err;

	conf_parse(t, data, &c);
	err = conf_check_unique(dev_net(dev), t, &c, extack);
	if (err)
		return err;
	conf_apply(t, &c);
	return 0;
}

static void ipip_dellink(struct net_device *dev, struct list_head *head)
{
	struct ovsp_ipip *t = netdev_priv(dev);

	hlist_del_init_rcu(&t->hash_node);
	unregister_netdevice_queue(dev, head);
}

static size_t ipip_get_size(const struct net_device *dev)
{
	return 2 * nla_total_size(sizeof(u8))
	       + 2 * nla_total_size(sizeof(__be32));
}

static int ipip_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	const struct ovsp_ipip *t = netdev_priv(dev);

	if (nla_put_u8(skb, OVSP_IPIP_ATTR_GRO, t->gro)
	    || nla_put_u8(skb, OVSP_IPIP_ATTR_SHARED_CELL, t->shared_cell)
	    || nla_put_in_addr(skb, OVSP_IPIP_ATTR_LOCAL, t->local)
	    || nla_put_in_addr(skb, OVSP_IPIP_ATTR_REMOTE, t->remote))
		return -EMSGSIZE;
	return 0;
}

static struct rtnl_link_ops ipip_link_ops __read_mostly = {
	.kind = OVSP_IPIP_KIND,
	.maxtype = OVSP_IPIP_ATTR_MAX,
	.policy = ipip_policy,
	.priv_size = sizeof(struct ovsp_ipip),
	.setup = ipip_setup,
	.validate = ipip_validate,
	.newlink = ipip_newlink,
	.changelink = ipip_changelink,
	.dellink = ipip_dellink,
	.get_size = ipip_get_size,
	.fill_info = ipip_fill_info,
};

/* Namespaces. */

/* A dying namespace's devices go before its table: ours is a pernet
 * device op registered after default_device_exit_batch's, so it runs
 * first, while they are still there.
 */
static void __net_exit ipip_net_exit_batch(struct list_head *net_list)
{
	struct net *net;
	LIST_HEAD(kill);

	rtnl_lock();
	list_for_each_entry(net, net_list, exit_list) {
		struct ipip_net *in = net_generic(net, ipip_net_id);
		int i;

		for (i = 0; i < IPIP_HASH_SIZE; i++) {
			struct hlist_node *next;
			struct ovsp_ipip *t;

			hlist_for_each_entry_safe(t, next, &in->devs[i],
						  hash_node)
				ipip_dellink(t->dev, &kill);
		}
	}
	unregister_netdevice_many(&kill);
	rtnl_unlock();
}

static struct pernet_operations ipip_net_ops = {
	.exit_batch = ipip_net_exit_batch,
	.id = &ipip_net_id,
	.size = sizeof(struct ipip_net),
};

int ovsp_ipip_dev_init(void)
{
	int err;

	ipip_hash_seed = get_random_u32();
	err = register_pernet_device(&ipip_net_ops);
	if (err)
		return err;
	err = rtnl_link_register(&ipip_link_ops);
	if (err)
		unregister_pernet_device(&ipip_net_ops);
	return err;
}

void ovsp_ipip_dev_exit(void)
{
	/* Deletes every device of ours, through dellink; then the tables,
	 * empty.
	 */
	rtnl_link_unregister(&ipip_link_ops);
	unregister_pernet_device(&ipip_net_ops);
}

int ovsp_ipip_init(void)
{
	int err;

	err = ovsp_ipip_dev_init();
	if (err)
		return err;
	err = ovsp_ipip_rcv_init();
	if (err)
		ovsp_ipip_dev_exit();
	return err;
}

void ovsp_ipip_exit(void)
{
	/* No new packets first (xfrm4_tunnel_deregister waits for the
	 * handlers running), then the devices.
	 */
	ovsp_ipip_rcv_exit();
	ovsp_ipip_dev_exit();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The ovs_vport generic-netlink family: OVS_VPORT_CMD_NEW, DEL, GET, SET
 * and dump, with the vport mcgroup that tells ovs-vswitchd of port
 * changes.
 *
 * NEW needs NAME, TYPE and UPCALL_PID, as the ABI says; a PORT_NO other
 * than 0 names the number wanted (-EBUSY if taken, -EFBIG past the
 * largest), none or 0 asks for the lowest free one, as with Linux.  Types
 * other than netdev and internal are -EAFNOSUPPORT: OVS 3.1 in in-tree
 * mode adds the kernel's own tunnel devices as netdev vports.  The local
 * port (0) is deleted only with its datapath.
 */
#include <linux/netdevice.h>
#include <linux/openvswitch.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include "dp-core.h"
#include "vport.h"

static const struct nla_policy vport_policy[OVS_VPORT_ATTR_MAX + 1] = {
	[OVS_VPORT_ATTR_NAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[OVS_VPORT_ATTR_STATS] = { .len = sizeof(struct ovs_vport_stats) },
	[OVS_VPORT_ATTR_PORT_NO] = { .type = NLA_U32 },
	[OVS_VPORT_ATTR_TYPE] = { .type = NLA_U32 },
	[OVS_VPORT_ATTR_UPCALL_PID] = { .type = NLA_UNSPEC },
	[OVS_VPORT_ATTR_OPTIONS] = { .type = NLA_NESTED },
	[OVS_VPORT_ATTR_IFINDEX] = { .type = NLA_U32 },
	[OVS_VPORT_ATTR_NETNSID] = { .type = NLA_S32 },
};

/* Bytes of a vport message. */
static size_t vport_msg_size(const struct ovsp_vport *vport)
{
	const struct ovsp_pids *pids = rcu_dereference_raw(vport->pids);

	return NLMSG_ALIGN(sizeof(struct ovs_header))
		+ nla_total_size(sizeof(u32)) * 4	/* PORT_NO TYPE IFINDEX
							 * NETNSID
							 */
		+ nla_total_size(IFNAMSIZ)
		+ nla_total_size_64bit(sizeof(struct ovs_vport_stats))
		+ nla_total_size(pids ? pids->n * sizeof(u32) : sizeof(u32));
}

static void vport_stats(struct ovsp_vport *vport, struct ovs_vport_stats *s)
{
	struct rtnl_link_stats64 dev_stats;

	dev_get_stats(vport->dev, &dev_stats);
	*s = (struct ovs_vport_stats) {
		.rx_packets = dev_stats.rx_packets,
		.rx_bytes = dev_stats.rx_bytes,
		.rx_errors = dev_stats.rx_errors,
		.rx_dropped = dev_stats.rx_dropped,
		.tx_packets = dev_stats.tx_packets,
		.tx_bytes = dev_stats.tx_bytes,
		.tx_errors = dev_stats.tx_errors,
		.tx_dropped = dev_stats.tx_dropped,
	};
}

static int vport_put_pids(struct ovsp_vport *vport, struct sk_buff *skb)
{
	const struct ovsp_pids *pids = rcu_dereference_raw(vport->pids);

	if (!pids)
		return nla_put_u32(skb, OVS_VPORT_ATTR_UPCALL_PID, 0);
	return nla_put(skb, OVS_VPORT_ATTR_UPCALL_PID,
		       pids->n * sizeof(u32), pids->ids);
}

static int vport_fill(struct ovsp_vport *vport, struct sk_buff *skb,
		      struct net *net, u32 portid, u32 seq, u32 flags, u8 cmd,
		      gfp_t gfp)
{
	struct ovs_vport_stats stats;
	struct ovs_header *hdr;

	hdr = genlmsg_put(skb, portid, seq, &ovsp_vport_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	hdr->dp_ifindex = ovsp_dp_ifindex(vport->dp);
	vport_stats(vport, &stats);
	if (nla_put_u32(skb, OVS_VPORT_ATTR_PORT_NO, vport->port_no)
	    || nla_put_u32(skb, OVS_VPORT_ATTR_TYPE, vport->ops->type)
	    || nla_put_string(skb, OVS_VPORT_ATTR_NAME, vport->dev->name)
	    || nla_put_u32(skb, OVS_VPORT_ATTR_IFINDEX, vport->dev->ifindex)
	    || nla_put_64bit(skb, OVS_VPORT_ATTR_STATS, sizeof(stats), &stats,
			     OVS_VPORT_ATTR_PAD)
	    || vport_put_pids(vport, skb))
		goto cancel;
	if (net && !net_eq(net, dev_net(vport->dev))) {
		int id = peernet2id_alloc(net, dev_net(vport->dev), gfp);

		if (nla_put_s32(skb, OVS_VPORT_ATTR_NETNSID, id))
			goto cancel;
	}
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

struct sk_buff *ovsp_vport_msg(struct ovsp_vport *vport, u32 portid, u32 seq,
			       u32 flags, u8 cmd, gfp_t gfp)
{
	struct sk_buff *skb = genlmsg_new(vport_msg_size(vport), gfp);
	int err;

	if (!skb)
		return ERR_PTR(-ENOMEM);
	err = vport_fill(vport, skb, ovsp_dp_net(vport->dp), portid, seq,
			 flags, cmd, gfp);
	if (err) {
		kfree_skb(skb);
		return ERR_PTR(err);
	}
	return skb;
}

/* The vport a request names: by NAME (checked against dp_ifindex if
 * given), else by dp_ifindex and PORT_NO.  ovsp_lock.
 */
static struct ovsp_vport *vport_from_request(struct genl_info *info)
{
	struct ovs_header *hdr = info->userhdr;
	struct net *net = genl_info_net(info);
	struct nlattr **a = info->attrs;
	struct ovsp_datapath *dp;
	struct ovsp_vport *vport;
	struct net_device *dev;
	u32 port_no;

	if (a[OVS_VPORT_ATTR_IFINDEX])
		return ERR_PTR(-EOPNOTSUPP);
	if (a[OVS_VPORT_ATTR_NAME]) {
		rcu_read_lock();
		dev = dev_get_by_name_rcu(net, nla_data(a[OVS_VPORT_ATTR_NAME]));
		vport = dev ? ovsp_vport_from_dev(dev) : NULL;
		rcu_read_unlock();
		/* A vport keeps its name in its datapath's namespace when
		 * its (internal) device moves to another, as the kernel's
		 * datapath does.
		 */
		if (!vport)
			vport = ovsp_dp_vport_moved(net,
						    nla_data(a[OVS_VPORT_ATTR_NAME]));
		if (!vport)
			return ERR_PTR(-ENODEV);
		if (hdr->dp_ifindex
		    && hdr->dp_ifindex != ovsp_dp_ifindex(vport->dp))
			return ERR_PTR(-ENODEV);
		return vport;
	}
	if (!a[OVS_VPORT_ATTR_PORT_NO])
		return ERR_PTR(-EINVAL);
	port_no = nla_get_u32(a[OVS_VPORT_ATTR_PORT_NO]);
	if (port_no >= OVSP_MAX_PORTS)
		return ERR_PTR(-EFBIG);
	dp = ovsp_dp_lookup(net, hdr->dp_ifindex);
	if (!dp)
		return ERR_PTR(-ENODEV);
	vport = ovsp_dp_vport(dp, port_no);
	return vport ?: ERR_PTR(-ENODEV);
}

/* The port number for a new vport: the one asked for, or the lowest
 * free one when none or 0 (the local port's, never free) is.
 */
static int vport_port_no(struct ovsp_datapath *dp, struct nlattr **a)
{
	u32 port_no = 0;

	if (a[OVS_VPORT_ATTR_PORT_NO])
		port_no = nla_get_u32(a[OVS_VPORT_ATTR_PORT_NO]);
	if (port_no) {
		if (port_no >= OVSP_MAX_PORTS)
			return -EFBIG;
		return ovsp_dp_vport(dp, port_no) ? -EBUSY : port_no;
	}
	for (port_no = 1; port_no < OVSP_MAX_PORTS; port_no++)
		if (!ovsp_dp_vport(dp, port_no))
			return port_no;
	return -EFBIG;
}

static int vport_cmd_new(struct sk_buff *skb, struct genl_info *info)
{
	struct ovs_header *hdr = info->userhdr;
	struct nlattr **a = info->attrs;
	struct ovsp_vport_parms parms;
	struct ovsp_datapath *dp;
	struct ovsp_vport *vport;
	struct sk_buff *reply;
	int err, port_no;

	if (!a[OVS_VPORT_ATTR_NAME] || !a[OVS_VPORT_ATTR_TYPE]
	    || !a[OVS_VPORT_ATTR_UPCALL_PID])
		return -EINVAL;
	if (a[OVS_VPORT_ATTR_IFINDEX])
		return -EOPNOTSUPP;
	parms.pids = ovsp_pids_from_nlattr(a[OVS_VPORT_ATTR_UPCALL_PID]);
	if (IS_ERR(parms.pids))
		return PTR_ERR(parms.pids);

	ovsp_lock();
	err = -ENODEV;
	dp = ovsp_dp_lookup(genl_info_net(info), hdr->dp_ifindex);
	if (!dp)
		goto err;
	port_no = vport_port_no(dp, a);
	if (port_no < 0) {
		err = port_no;
		goto err;
	}
	parms.name = nla_data(a[OVS_VPORT_ATTR_NAME]);
	parms.type = nla_get_u32(a[OVS_VPORT_ATTR_TYPE]);
	parms.dp = dp;
	parms.port_no = port_no;
	vport = ovsp_vport_create(&parms);
	if (IS_ERR(vport)) {
		err = PTR_ERR(vport);
		goto err;
	}
	ovsp_dp_attach_port(dp, vport);
	reply = ovsp_vport_msg(vport, info->snd_portid, info->snd_seq, 0,
			       OVS_VPORT_CMD_NEW, GFP_KERNEL);
	ovsp_unlock();
	if (IS_ERR(reply))
		return 0;
	genl_notify(&ovsp_vport_family, reply, info, 0, GFP_KERNEL);
	return 0;
err:
	ovsp_unlock();
	kfree(parms.pids);
	return err;
}

static int vport_cmd_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct ovsp_vport *vport;
	struct sk_buff *reply;
	struct ovsp_pids *pids;
	int err;

	ovsp_lock();
	vport = vport_from_request(info);
	err = PTR_ERR_OR_ZERO(vport);
	if (err)
		goto unlock;
	err = -EINVAL;
	if (a[OVS_VPORT_ATTR_TYPE]
	    && nla_get_u32(a[OVS_VPORT_ATTR_TYPE]) != vport->ops->type)
		goto unlock;
	err = -EOPNOTSUPP;
	if (a[OVS_VPORT_ATTR_OPTIONS])
		goto unlock;
	if (a[OVS_VPORT_ATTR_UPCALL_PID]) {
		pids = ovsp_pids_from_nlattr(a[OVS_VPORT_ATTR_UPCALL_PID]);
		err = PTR_ERR_OR_ZERO(pids);
		if (err)
			goto unlock;
		ovsp_vport_set_pids(vport, pids);
	}
	reply = ovsp_vport_msg(vport, info->snd_portid, info->snd_seq, 0,
			       OVS_VPORT_CMD_SET, GFP_KERNEL);
	ovsp_unlock();
	if (IS_ERR(reply))
		return PTR_ERR(reply);
	genl_notify(&ovsp_vport_family, reply, info, 0, GFP_KERNEL);
	return 0;
unlock:
	ovsp_unlock();
	return err;
}

static int vport_cmd_del(struct sk_buff *skb, struct genl_info *info)
{
	struct ovsp_vport *vport;
	struct sk_buff *reply;
	int err;

	ovsp_lock();
	vport = vport_from_request(info);
	err = PTR_ERR_OR_ZERO(vport);
	if (err)
		goto unlock;
	err = -EINVAL;
	if (vport->port_no == OVSP_LOCAL)
		goto unlock;
	reply = ovsp_vport_msg(vport, info->snd_portid, info->snd_seq, 0,
			       OVS_VPORT_CMD_DEL, GFP_KERNEL);
	err = PTR_ERR_OR_ZERO(reply);
	if (err)
		goto unlock;
	ovsp_dp_detach_port(vport);
	ovsp_unlock();
	genl_notify(&ovsp_vport_family, reply, info, 0, GFP_KERNEL);
	return 0;
unlock:
	ovsp_unlock();
	return err;
}

static int vport_cmd_get(struct sk_buff *skb, struct genl_info *info)
{
	struct ovsp_vport *vport;
	struct sk_buff *reply;

	ovsp_lock();
	vport = vport_from_request(info);
	if (IS_ERR(vport)) {
		ovsp_unlock();
		return PTR_ERR(vport);
	}
	reply = ovsp_vport_msg(vport, info->snd_portid, info->snd_seq, 0,
			       OVS_VPORT_CMD_GET, GFP_KERNEL);
	ovsp_unlock();
	if (IS_ERR(reply))
		return PTR_ERR(reply);
	return genlmsg_reply(reply, info);
}

/* Dumps the ports of the datapath in the request's header, under RCU
 * (never ovsp_lock: any user may dump, as often as it likes), bucket by
 * bucket of the port hash, resuming at port cb->args[1] of bucket
 * cb->args[0].  A port added or deleted between two messages may be
 * missed or seen twice, as with the kernel's own datapath.
 */
static int vport_cmd_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ovs_header *hdr = genlmsg_data(nlmsg_data(cb->nlh));
	long bucket = cb->args[0], skip = cb->args[1], n = 0;
	struct ovsp_datapath *dp;

	rcu_read_lock();
	dp = ovsp_dp_lookup(sock_net(skb->sk), hdr->dp_ifindex);
	if (!dp) {
		rcu_read_unlock();
		return -ENODEV;
	}
	for (; bucket < OVSP_PORT_HASH_BUCKETS; bucket++, skip = 0) {
		struct ovsp_vport *vport;

		n = 0;
		hlist_for_each_entry_rcu(vport, &dp->ports[bucket], dp_node) {
			if (n >= skip &&
			    vport_fill(vport, skb, sock_net(skb->sk),
				       NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI,
				       OVS_VPORT_CMD_GET, GFP_ATOMIC) < 0)
				goto out;
			n++;
		}
	}
out:
	rcu_read_unlock();
	cb->args[0] = bucket;
	cb->args[1] = n;
	return skb->len;
}

static const struct genl_small_ops vport_ops[] = {
	{ .cmd = OVS_VPORT_CMD_NEW,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = vport_cmd_new },
	{ .cmd = OVS_VPORT_CMD_DEL,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = vport_cmd_del },
	{ .cmd = OVS_VPORT_CMD_GET,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .doit = vport_cmd_get,
	  .dumpit = vport_cmd_dump },
	{ .cmd = OVS_VPORT_CMD_SET,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = vport_cmd_set },
};

static const struct genl_multicast_group vport_mcgroups[] = {
	{ .name = OVS_VPORT_MCGROUP },
};

struct genl_family ovsp_vport_family __ro_after_init = {
	.hdrsize = sizeof(struct ovs_header),
	.name = OVS_VPORT_FAMILY,
	.version = OVS_VPORT_VERSION,
	.maxattr = OVS_VPORT_ATTR_MAX,
	.policy = vport_policy,
	.netnsok = true,
	.parallel_ops = true,
	.small_ops = vport_ops,
	.n_small_ops = ARRAY_SIZE(vport_ops),
	.resv_start_op = OVS_VPORT_CMD_SET + 1,
	.mcgrps = vport_mcgroups,
	.n_mcgrps = ARRAY_SIZE(vport_mcgroups),
	.module = THIS_MODULE,
};

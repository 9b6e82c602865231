// SPDX-License-Identifier: GPL-2.0
/*
 * The ovs_datapath generic-netlink family: OVS_DP_CMD_NEW, DEL, GET, SET
 * and dump, with the datapath mcgroup.
 *
 * What OVS 3.1's dpif-netlink relies on:
 * - USER_FEATURES with a bit we do not know (it probes with 1 << 31), or
 *   OVS_DP_F_TC_RECIRC_SHARING (no tc offload here), is refused with
 *   -EOPNOTSUPP, which is how it learns what we carry.
 * - Every NEW and SET sets the features it carries, and zeroes them
 *   without the attribute, as the ABI has it.
 * - OVS_DP_ATTR_PER_CPU_PIDS is honoured only with per-CPU dispatch.
 * - OVS_DP_ATTR_MASKS_CACHE_SIZE above the largest is -ERANGE (policy),
 *   not a power of two -EINVAL.
 * Replies to NEW, DEL and SET go out through genl_notify(), which answers
 * the requester (NLM_F_ECHO) and the mcgroup.
 */
#include <linux/netdevice.h>
#include <linux/openvswitch.h>
#include <net/genetlink.h>

#include "dp-core.h"
#include "flow-table.h"

static const struct nla_policy dp_policy[OVS_DP_ATTR_MAX + 1] = {
	[OVS_DP_ATTR_NAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[OVS_DP_ATTR_UPCALL_PID] = { .type = NLA_U32 },
	[OVS_DP_ATTR_USER_FEATURES] = { .type = NLA_U32 },
	[OVS_DP_ATTR_MASKS_CACHE_SIZE] =
		NLA_POLICY_RANGE(NLA_U32, 0, OVSP_MASK_CACHE_MAX),
	[OVS_DP_ATTR_PER_CPU_PIDS] = { .type = NLA_BINARY },
	[OVS_DP_ATTR_IFINDEX] = { .type = NLA_U32 },
};

/* Bytes of a datapath message. */
static size_t dp_msg_size(void)
{
	return NLMSG_ALIGN(sizeof(struct ovs_header))
		+ nla_total_size(IFNAMSIZ)
		+ nla_total_size_64bit(sizeof(struct ovs_dp_stats))
		+ nla_total_size_64bit(sizeof(struct ovs_dp_megaflow_stats))
		+ nla_total_size(sizeof(u32))	/* USER_FEATURES */
		+ nla_total_size(sizeof(u32));	/* MASKS_CACHE_SIZE */
}

static int dp_fill(struct ovsp_datapath *dp, struct sk_buff *skb, u32 portid,
		   u32 seq, u32 flags, u8 cmd)
{
	struct ovs_dp_megaflow_stats mstats = { 0 };
	struct ovs_dp_stats stats = { 0 };
	struct ovsp_dp_stats_pcpu sum;
	struct ovs_header *hdr;

	hdr = genlmsg_put(skb, portid, seq, &ovsp_dp_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	hdr->dp_ifindex = ovsp_dp_ifindex(dp);

	ovsp_dp_get_stats(dp, &sum);
	stats.n_hit = sum.n_hit;
	stats.n_missed = sum.n_missed;
	stats.n_lost = sum.n_lost;
	stats.n_flows = ovsp_flow_table_n_flows(dp->table);
	mstats.n_mask_hit = sum.n_mask_hit;
	mstats.n_cache_hit = sum.n_cache_hit;
	mstats.n_masks = ovsp_flow_table_n_masks(dp->table);

	if (nla_put_string(skb, OVS_DP_ATTR_NAME, ovsp_dp_name(dp))
	    || nla_put_64bit(skb, OVS_DP_ATTR_STATS, sizeof(stats), &stats,
			     OVS_DP_ATTR_PAD)
	    || nla_put_64bit(skb, OVS_DP_ATTR_MEGAFLOW_STATS, sizeof(mstats),
			     &mstats, OVS_DP_ATTR_PAD)
	    || nla_put_u32(skb, OVS_DP_ATTR_USER_FEATURES, dp->user_features)
	    || nla_put_u32(skb, OVS_DP_ATTR_MASKS_CACHE_SIZE,
			   ovsp_flow_table_mask_cache_size(dp->table))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* A reply for 'info' about 'dp', or an ERR_PTR. */
static struct sk_buff *dp_reply(struct ovsp_datapath *dp,
				struct genl_info *info, u8 cmd)
{
	struct sk_buff *skb = genlmsg_new(dp_msg_size(), GFP_KERNEL);
	int err;

	if (!skb)
		return ERR_PTR(-ENOMEM);
	err = dp_fill(dp, skb, info->snd_portid, info->snd_seq, 0, cmd);
	if (err) {
		kfree_skb(skb);
		return ERR_PTR(err);
	}
	return skb;
}

/* The datapath a request names: by OVS_DP_ATTR_NAME, else by the
 * header's dp_ifindex.
 */
static struct ovsp_datapath *dp_from_request(struct genl_info *info)
{
	struct ovs_header *hdr = info->userhdr;
	struct net *net = genl_info_net(info);

	if (info->attrs[OVS_DP_ATTR_NAME])
		return ovsp_dp_lookup_name(net,
					   nla_data(info->attrs[OVS_DP_ATTR_NAME]));
	return ovsp_dp_lookup(net, hdr->dp_ifindex);
}

/* Checks USER_FEATURES before anything is created. */
static int dp_check_features(struct nlattr **a)
{
	if (a[OVS_DP_ATTR_USER_FEATURES]
	    && nla_get_u32(a[OVS_DP_ATTR_USER_FEATURES]) & ~OVSP_DP_FEATURES)
		return -EOPNOTSUPP;
	return 0;
}

/* Applies USER_FEATURES, MASKS_CACHE_SIZE and PER_CPU_PIDS (ovsp_lock). */
static int dp_change(struct ovsp_datapath *dp, struct nlattr **a)
{
	u32 features = 0;
	int err;

	if (a[OVS_DP_ATTR_USER_FEATURES]) {
		features = nla_get_u32(a[OVS_DP_ATTR_USER_FEATURES]);
		if (features & ~OVSP_DP_FEATURES)
			return -EOPNOTSUPP;
	}
	if (a[OVS_DP_ATTR_MASKS_CACHE_SIZE]) {
		u32 size = nla_get_u32(a[OVS_DP_ATTR_MASKS_CACHE_SIZE]);

		err = ovsp_flow_table_set_mask_cache_size(dp->table, size);
		if (err)
			return err;
	}
	if ((features & OVS_DP_F_DISPATCH_UPCALL_PER_CPU)
	    && a[OVS_DP_ATTR_PER_CPU_PIDS]) {
		err = ovsp_dp_set_cpu_pids(dp, a[OVS_DP_ATTR_PER_CPU_PIDS]);
		if (err)
			return err;
	}
	WRITE_ONCE(dp->user_features, features);
	return 0;
}

static int dp_cmd_new(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct ovsp_datapath *dp;
	struct sk_buff *reply;
	int err;

	if (!a[OVS_DP_ATTR_NAME] || !a[OVS_DP_ATTR_UPCALL_PID])
		return -EINVAL;
	err = dp_check_features(a);
	if (err)
		return err;
	ovsp_lock();
	dp = ovsp_dp_create(genl_info_net(info),
			    nla_data(a[OVS_DP_ATTR_NAME]),
			    nla_get_u32(a[OVS_DP_ATTR_UPCALL_PID]), &err);
	if (!dp)
		goto unlock;
	err = dp_change(dp, a);
	if (err)
		goto destroy;
	reply = dp_reply(dp, info, OVS_DP_CMD_NEW);
	if (IS_ERR(reply)) {
		err = PTR_ERR(reply);
		goto destroy;
	}
	ovsp_unlock();
	genl_notify(&ovsp_dp_family, reply, info, 0, GFP_KERNEL);
	return 0;

destroy:
	ovsp_dp_destroy(dp);
unlock:
	ovsp_unlock();
	return err;
}

static int dp_cmd_del(struct sk_buff *skb, struct genl_info *info)
{
	struct ovsp_datapath *dp;
	struct sk_buff *reply;
	int err = -ENODEV;

	ovsp_lock();
	dp = dp_from_request(info);
	if (!dp)
		goto unlock;
	reply = dp_reply(dp, info, OVS_DP_CMD_DEL);
	if (IS_ERR(reply)) {
		err = PTR_ERR(reply);
		goto unlock;
	}
	ovsp_dp_destroy(dp);
	ovsp_unlock();
	genl_notify(&ovsp_dp_family, reply, info, 0, GFP_KERNEL);
	return 0;
unlock:
	ovsp_unlock();
	return err;
}

static int dp_cmd_set(struct sk_buff *skb, struct genl_info *info)
{
	struct ovsp_datapath *dp;
	struct sk_buff *reply;
	int err = -ENODEV;

	ovsp_lock();
	dp = dp_from_request(info);
	if (!dp)
		goto unlock;
	err = dp_change(dp, info->attrs);
	if (err)
		goto unlock;
	reply = dp_reply(dp, info, OVS_DP_CMD_SET);
	if (IS_ERR(reply)) {
		err = PTR_ERR(reply);
		goto unlock;
	}
	ovsp_unlock();
	genl_notify(&ovsp_dp_family, reply, info, 0, GFP_KERNEL);
	return 0;
unlock:
	ovsp_unlock();
	return err;
}

static int dp_cmd_get(struct sk_buff *skb, struct genl_info *info)
{
	struct ovsp_datapath *dp;
	struct sk_buff *reply;
	int err = -ENODEV;

	ovsp_lock();
	dp = dp_from_request(info);
	if (!dp)
		goto unlock;
	reply = dp_reply(dp, info, OVS_DP_CMD_GET);
	ovsp_unlock();
	if (IS_ERR(reply))
		return PTR_ERR(reply);
	return genlmsg_reply(reply, info);
unlock:
	ovsp_unlock();
	return err;
}

static int dp_cmd_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct ovsp_datapath *dp;
	long pos = cb->args[0];

	ovsp_lock();
	while ((dp = ovsp_dp_next(net, &pos)) != NULL) {
		if (dp_fill(dp, skb, NETLINK_CB(cb->skb).portid,
			    cb->nlh->nlmsg_seq, NLM_F_MULTI,
			    OVS_DP_CMD_GET) < 0)
			break;
		cb->args[0] = pos;
	}
	ovsp_unlock();
	return skb->len;
}

static const struct genl_small_ops dp_ops[] = {
	{ .cmd = OVS_DP_CMD_NEW,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = dp_cmd_new },
	{ .cmd = OVS_DP_CMD_DEL,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = dp_cmd_del },
	{ .cmd = OVS_DP_CMD_GET,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .doit = dp_cmd_get,
	  .dumpit = dp_cmd_dump },
	{ .cmd = OVS_DP_CMD_SET,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = dp_cmd_set },
};

static const struct genl_multicast_group dp_mcgroups[] = {
	{ .name = OVS_DATAPATH_MCGROUP },
};

struct genl_family ovsp_dp_family __ro_after_init = {
	.hdrsize = sizeof(struct ovs_header),
	.name = OVS_DATAPATH_FAMILY,
	.version = OVS_DATAPATH_VERSION,
	.maxattr = OVS_DP_ATTR_MAX,
	.policy = dp_policy,
	.netnsok = true,
	.parallel_ops = true,
	.small_ops = dp_ops,
	.n_small_ops = ARRAY_SIZE(dp_ops),
	.resv_start_op = OVS_DP_CMD_SET + 1,
	.mcgrps = dp_mcgroups,
	.n_mcgrps = ARRAY_SIZE(dp_mcgroups),
	.module = THIS_MODULE,
};

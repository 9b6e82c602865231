// SPDX-License-Identifier: GPL-2.0
/*
 * ovs_meter and ovs_ct_limit: families this datapath registers only to say
 * "not carried", so that OVS turns the features off quietly and the
 * kernel never autoloads openvswitch.ko to answer for them.
 *
 * - ovs_meter: FEATURES answers max_meters 0 and max_bands 0; SET, GET
 *   and DEL are -EOPNOTSUPP, which dpif-netlink's broken-meter probe reads
 *   as "no meters" (an INFO line, no OpenFlow meters).
 * - ovs_ct_limit: every command is -EOPNOTSUPP (no conntrack here).
 */
#include <linux/openvswitch.h>
#include <net/genetlink.h>

#include "dp-core.h"

static const struct nla_policy meter_policy[OVS_METER_ATTR_MAX + 1] = {
	[OVS_METER_ATTR_ID] = { .type = NLA_U32 },
};

static int meter_cmd_features(struct sk_buff *skb, struct genl_info *info)
{
	struct ovs_header *hdr = info->userhdr, *rhdr;
	struct sk_buff *reply;

	reply = genlmsg_new(NLMSG_ALIGN(sizeof(*rhdr))
			    + 2 * nla_total_size(sizeof(u32)), GFP_KERNEL);
	if (!reply)
		return -ENOMEM;
	rhdr = genlmsg_put(reply, info->snd_portid, info->snd_seq,
			   &ovsp_meter_family, 0, OVS_METER_CMD_FEATURES);
	if (!rhdr)
		goto err;
	rhdr->dp_ifindex = hdr->dp_ifindex;
	if (nla_put_u32(reply, OVS_METER_ATTR_MAX_METERS, 0)
	    || nla_put_u32(reply, OVS_METER_ATTR_MAX_BANDS, 0))
		goto err;
	genlmsg_end(reply, rhdr);
	return genlmsg_reply(reply, info);
err:
	kfree_skb(reply);
	return -EMSGSIZE;
}

static int not_carried(struct sk_buff *skb, struct genl_info *info)
{
	return -EOPNOTSUPP;
}

static const struct genl_small_ops meter_ops[] = {
	{ .cmd = OVS_METER_CMD_FEATURES,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .doit = meter_cmd_features },
	{ .cmd = OVS_METER_CMD_SET,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = not_carried },
	{ .cmd = OVS_METER_CMD_DEL,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = not_carried },
	{ .cmd = OVS_METER_CMD_GET,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .doit = not_carried },
};

static const struct genl_multicast_group meter_mcgroups[] = {
	{ .name = OVS_METER_MCGROUP },
};

struct genl_family ovsp_meter_family __ro_after_init = {
	.hdrsize = sizeof(struct ovs_header),
	.name = OVS_METER_FAMILY,
	.version = OVS_METER_VERSION,
	.maxattr = OVS_METER_ATTR_MAX,
	.policy = meter_policy,
	.netnsok = true,
	.parallel_ops = true,
	.small_ops = meter_ops,
	.n_small_ops = ARRAY_SIZE(meter_ops),
	.resv_start_op = OVS_METER_CMD_GET + 1,
	.mcgrps = meter_mcgroups,
	.n_mcgrps = ARRAY_SIZE(meter_mcgroups),
	.module = THIS_MODULE,
};

static const struct nla_policy ct_limit_policy[OVS_CT_LIMIT_ATTR_MAX + 1] = {
	[OVS_CT_LIMIT_ATTR_ZONE_LIMIT] = { .type = NLA_NESTED },
};

static const struct genl_small_ops ct_limit_ops[] = {
	{ .cmd = OVS_CT_LIMIT_CMD_SET,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = not_carried },
	{ .cmd = OVS_CT_LIMIT_CMD_DEL,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = not_carried },
	{ .cmd = OVS_CT_LIMIT_CMD_GET,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .doit = not_carried },
};

static const struct genl_multicast_group ct_limit_mcgroups[] = {
	{ .name = OVS_CT_LIMIT_MCGROUP },
};

struct genl_family ovsp_ct_limit_family __ro_after_init = {
	.hdrsize = sizeof(struct ovs_header),
	.name = OVS_CT_LIMIT_FAMILY,
	.version = OVS_CT_LIMIT_VERSION,
	.maxattr = OVS_CT_LIMIT_ATTR_MAX,
	.policy = ct_limit_policy,
	.netnsok = true,
	.parallel_ops = true,
	.small_ops = ct_limit_ops,
	.n_small_ops = ARRAY_SIZE(ct_limit_ops),
	.resv_start_op = OVS_CT_LIMIT_CMD_GET + 1,
	.mcgrps = ct_limit_mcgroups,
	.n_mcgrps = ARRAY_SIZE(ct_limit_mcgroups),
	.module = THIS_MODULE,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * ovs_ct_limit: a family this datapath registers only to say "not
 * carried", so that OVS turns the feature off quietly and the kernel
 * never autoloads openvswitch.ko to answer for it: every command is
 * -EOPNOTSUPP (no conntrack here).  (ovs_meter is meter-family.c.)
 */
#include <linux/openvswitch.h>
#include <net/genetlink.h>

#include "dp-core.h"

static int not_carried(struct sk_buff *skb, struct genl_info *info)
{
	return -EOPNOTSUPP;
}

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

// SPDX-License-Identifier: GPL-2.0
/*
 * The ovs_ct_limit family: SET, DEL and GET of the namespace's conntrack
 * zone limits (ct-limit.c), answered as Linux 6.1's openvswitch.ko
 * answers them, so that OVS 3.1's dpctl/ct-set-limits, ct-del-limits and
 * ct-get-limits work on a datapath of ours.
 *
 * - The limits are the namespace's, not a datapath's: the request's
 *   dp_ifindex is only echoed in the reply.
 * - GET is open to any user of the namespace; SET and DEL need
 *   CAP_NET_ADMIN in its user namespace (GENL_UNS_ADMIN_PERM).
 * - OVS_CT_LIMIT_ATTR_ZONE_LIMIT holds back-to-back struct ovs_zone_limit
 *   {zone_id, limit, count}, each NLA_ALIGN()ed.  Zone id
 *   OVS_ZONE_LIMIT_DEFAULT_ZONE (-1) names the default; ids 0 to 65535
 *   name zones; any other id is logged and skipped, not refused, and so
 *   are bytes left over that do not make a whole entry.  Linux reads the
 *   attribute's length rounded up to 4 bytes, so a last entry cut short
 *   by up to 3 bytes is read with the padding, which is zero here.
 * - SET and DEL without the attribute are -EINVAL; SET may fail -ENOMEM
 *   part way, the entries before it applied.  Their replies carry no
 *   attribute.  SET of the default sets it, DEL of the default makes it
 *   0 (unlimited) again, DEL of a zone makes it follow the default.
 * - GET replies with one ZONE_LIMIT holding: for a list, one entry per
 *   entry asked ({-1, default, 0} for the default, {zone, its limit or
 *   the default, its count} for a zone); without a list, the default and
 *   then every zone with a limit of its own, in ascending order.  A reply
 *   is one buffer of genlmsg_new(NLMSG_DEFAULT_SIZE), as Linux's: past
 *   the entries it holds (653 on x86-64) GET is -EMSGSIZE.
 */
#include <linux/openvswitch.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "ct-limit.h"
#include "dp-core.h"

/* The most zone ids, u16. */
#define CT_LIMIT_MAX_ZONE 65535

static const struct nla_policy ct_limit_policy[OVS_CT_LIMIT_ATTR_MAX + 1] = {
	[OVS_CT_LIMIT_ATTR_ZONE_LIMIT] = { .type = NLA_NESTED },
};

/* Logs a skipped part of a request, rate-limited. */
#define ct_limit_skip(fmt, ...) \
	net_info_ratelimited("ovs_percpu: ct_limit: " fmt "\n", ##__VA_ARGS__)

/* A reply to 'info' with command 'cmd', its header in '*hdrp'. */
static struct sk_buff *ct_limit_reply_start(struct genl_info *info, u8 cmd,
					    struct ovs_header **hdrp)
{
	struct ovs_header *hdr = info->userhdr;
	struct sk_buff *reply;

	reply = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!reply)
		return ERR_PTR(-ENOMEM);
	*hdrp = genlmsg_put(reply, info->snd_portid, info->snd_seq,
			    &ovsp_ct_limit_family, 0, cmd);
	if (!*hdrp) {
		nlmsg_free(reply);
		return ERR_PTR(-EMSGSIZE);
	}
	(*hdrp)->dp_ifindex = hdr->dp_ifindex;
	return reply;
}

/* Sends 'reply' (whose header is 'hdr') to the sender of 'info', or frees
 * it if 'err' is a negative errno.  Returns 'err' or the send's result.
 */
static int ct_limit_reply_finish(struct sk_buff *reply, struct ovs_header *hdr,
				 struct genl_info *info, int err)
{
	if (err < 0) {
		nlmsg_free(reply);
		return err;
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}

/* What a request's entry says. */
enum ct_limit_which {
	CT_LIMIT_DEFAULT,		/* The default. */
	CT_LIMIT_ZONE,			/* A zone. */
	CT_LIMIT_BAD_ZONE,		/* Out of range: skipped. */
};

/* What ct_limit_walk_entries() calls with each entry. */
typedef int ct_limit_entry_fn_t(struct net *net, enum ct_limit_which which,
			      const struct ovs_zone_limit *zl, void *aux);

/* Calls 'fn' with each entry of ZONE_LIMIT attribute 'nla', in order,
 * until it returns an error, which is then returned; else 0.
 */
static int ct_limit_walk_entries(const struct nlattr *nla, struct net *net,
				   ct_limit_entry_fn_t *fn, void *aux)
{
	const int stride = NLA_ALIGN(sizeof(struct ovs_zone_limit));
	int len = nla_len(nla);
	int rem = NLA_ALIGN(len);
	int off = 0;

	while (rem >= (int)sizeof(struct ovs_zone_limit)) {
		struct ovs_zone_limit zl = { 0 };
		enum ct_limit_which which;
		int err;

		/* Only the attribute's own bytes: what Linux reads of its
		 * padding is zero (netlink pads with zeros).
		 */
		memcpy(&zl, (const u8 *)nla_data(nla) + off,
		       min_t(int, sizeof(zl), len - off));
		if (zl.zone_id == OVS_ZONE_LIMIT_DEFAULT_ZONE) {
			which = CT_LIMIT_DEFAULT;
		} else if (zl.zone_id < 0 || zl.zone_id > CT_LIMIT_MAX_ZONE) {
			ct_limit_skip("zone id %d is out of range", zl.zone_id);
			which = CT_LIMIT_BAD_ZONE;
		} else {
			which = CT_LIMIT_ZONE;
		}
		if (which != CT_LIMIT_BAD_ZONE) {
			err = fn(net, which, &zl, aux);
			if (err)
				return err;
		}
		rem -= stride;
		off += stride;
	}
	if (rem)
		ct_limit_skip("%d bytes left over in a zone limit list", rem);
	return 0;
}

static int ct_limit_set_one(struct net *net, enum ct_limit_which which,
			    const struct ovs_zone_limit *zl, void *aux)
{
	if (which == CT_LIMIT_DEFAULT)
		return ovsp_ct_limit_set_default(net, zl->limit);
	return ovsp_ct_limit_set_zone(net, zl->zone_id, zl->limit);
}

static int ct_limit_del_one(struct net *net, enum ct_limit_which which,
			    const struct ovs_zone_limit *zl, void *aux)
{
	if (which == CT_LIMIT_DEFAULT)
		return ovsp_ct_limit_set_default(net, OVSP_CT_LIMIT_UNLIMITED);
	ovsp_ct_limit_del_zone(net, zl->zone_id);
	return 0;
}

/* SET (set true) or DEL. */
static int ct_limit_set_or_del(struct sk_buff *skb, struct genl_info *info,
			       bool set)
{
	struct nlattr *nla = info->attrs[OVS_CT_LIMIT_ATTR_ZONE_LIMIT];
	struct ovs_header *hdr;
	struct sk_buff *reply;
	int err;

	reply = ct_limit_reply_start(info, set ? OVS_CT_LIMIT_CMD_SET
					       : OVS_CT_LIMIT_CMD_DEL, &hdr);
	if (IS_ERR(reply))
		return PTR_ERR(reply);
	if (!nla)
		err = -EINVAL;
	else
		err = ct_limit_walk_entries(nla, genl_info_net(info),
					      set ? ct_limit_set_one
						  : ct_limit_del_one, NULL);
	return ct_limit_reply_finish(reply, hdr, info, err);
}

static int ct_limit_cmd_set(struct sk_buff *skb, struct genl_info *info)
{
	return ct_limit_set_or_del(skb, info, true);
}

static int ct_limit_cmd_del(struct sk_buff *skb, struct genl_info *info)
{
	return ct_limit_set_or_del(skb, info, false);
}

/* Appends one entry to a GET reply.  Returns 0 or -EMSGSIZE. */
static int ct_limit_put(struct sk_buff *reply, int zone_id, u32 limit,
			u32 count)
{
	struct ovs_zone_limit zl = {
		.zone_id = zone_id,
		.limit = limit,
		.count = count,
	};

	return nla_put_nohdr(reply, sizeof(zl), &zl);
}

static int ct_limit_put_default(struct sk_buff *reply, struct net *net)
{
	return ct_limit_put(reply, OVS_ZONE_LIMIT_DEFAULT_ZONE,
			    ovsp_ct_limit_get_default(net), 0);
}

static int ct_limit_get_one(struct net *net, enum ct_limit_which which,
			    const struct ovs_zone_limit *zl, void *reply)
{
	struct ovsp_ct_zone_limit z;

	if (which == CT_LIMIT_DEFAULT)
		return ct_limit_put_default(reply, net);
	ovsp_ct_limit_get_zone(net, zl->zone_id, &z);
	return ct_limit_put(reply, z.zone, z.limit, z.count);
}

static int ct_limit_get_each(const struct ovsp_ct_zone_limit *z, void *reply)
{
	return ct_limit_put(reply, z->zone, z->limit, z->count);
}

static int ct_limit_cmd_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *nla = info->attrs[OVS_CT_LIMIT_ATTR_ZONE_LIMIT];
	struct net *net = genl_info_net(info);
	struct ovs_header *hdr;
	struct sk_buff *reply;
	struct nlattr *nest;
	int err;

	reply = ct_limit_reply_start(info, OVS_CT_LIMIT_CMD_GET, &hdr);
	if (IS_ERR(reply))
		return PTR_ERR(reply);
	nest = nla_nest_start_noflag(reply, OVS_CT_LIMIT_ATTR_ZONE_LIMIT);
	if (!nest) {
		err = -EMSGSIZE;
	} else if (nla) {
		err = ct_limit_walk_entries(nla, net, ct_limit_get_one, reply);
	} else {
		err = ct_limit_put_default(reply, net);
		if (!err)
			err = ovsp_ct_limit_walk_zones(net, ct_limit_get_each,
							  reply);
	}
	if (!err)
		nla_nest_end(reply, nest);
	return ct_limit_reply_finish(reply, hdr, info, err);
}

static const struct genl_small_ops ct_limit_ops[] = {
	{ .cmd = OVS_CT_LIMIT_CMD_SET,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = ct_limit_cmd_set },
	{ .cmd = OVS_CT_LIMIT_CMD_DEL,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = ct_limit_cmd_del },
	{ .cmd = OVS_CT_LIMIT_CMD_GET,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .doit = ct_limit_cmd_get },
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

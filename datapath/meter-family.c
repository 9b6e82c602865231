// SPDX-License-Identifier: GPL-2.0
/*
 * The ovs_meter family: FEATURES, SET, GET and DEL of a datapath's meters
 * (meter.c), answered as Linux's openvswitch.ko answers them, so that
 * OVS 3.1's dpif-netlink (its probe of "broken" meters included) offers
 * OpenFlow meters on a datapath of ours.
 *
 * - Requests are parsed with the ABI's policies, non-strict, as Linux
 *   does: a short attribute is -ERANGE, an unknown one ignored.
 * - FEATURES and GET are open to any user of the namespace; SET and DEL
 *   need CAP_NET_ADMIN in its user namespace (GENL_UNS_ADMIN_PERM).
 * - SET needs ID and BANDS (-EINVAL), at most OVSP_METER_MAX_BANDS bands
 *   (-EINVAL), each with TYPE, RATE and BURST (-EINVAL) and a rate that
 *   is not 0 (-EINVAL); the band type is not checked, as in Linux.  A
 *   full table is -EFBIG.  A request is validated before its datapath is
 *   looked up (-ENODEV), as in Linux.
 * - Replies: FEATURES the most meters and bands and the drop band type;
 *   SET the id, and the replaced meter's statistics if it kept them; GET
 *   the id and statistics (-ENOENT for no such meter); DEL the id and
 *   statistics, or nothing when there was no such meter.
 */
#include <linux/openvswitch.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "dp-core.h"
#include "meter.h"

static const struct nla_policy meter_policy[OVS_METER_ATTR_MAX + 1] = {
	[OVS_METER_ATTR_ID] = { .type = NLA_U32 },
	[OVS_METER_ATTR_KBPS] = { .type = NLA_FLAG },
	[OVS_METER_ATTR_STATS] = { .len = sizeof(struct ovs_flow_stats) },
	[OVS_METER_ATTR_BANDS] = { .type = NLA_NESTED },
	[OVS_METER_ATTR_USED] = { .type = NLA_U64 },
	[OVS_METER_ATTR_CLEAR] = { .type = NLA_FLAG },
	[OVS_METER_ATTR_MAX_METERS] = { .type = NLA_U32 },
	[OVS_METER_ATTR_MAX_BANDS] = { .type = NLA_U32 },
};

static const struct nla_policy band_policy[OVS_BAND_ATTR_MAX + 1] = {
	[OVS_BAND_ATTR_TYPE] = { .type = NLA_U32 },
	[OVS_BAND_ATTR_RATE] = { .type = NLA_U32 },
	[OVS_BAND_ATTR_BURST] = { .type = NLA_U32 },
	[OVS_BAND_ATTR_STATS] = { .len = sizeof(struct ovs_flow_stats) },
};

/* Logs a refused request, rate-limited. */
#define meter_refuse(fmt, ...) \
	net_info_ratelimited("ovs_percpu: meter: " fmt "\n", ##__VA_ARGS__)

/* A reply to 'info' with command 'cmd', its header in '*hdrp'. */
static struct sk_buff *meter_reply_start(struct genl_info *info, u8 cmd,
					 struct ovs_header **hdrp)
{
	struct ovs_header *hdr = info->userhdr;
	struct sk_buff *reply;

	reply = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!reply)
		return ERR_PTR(-ENOMEM);
	*hdrp = genlmsg_put(reply, info->snd_portid, info->snd_seq,
			    &ovsp_meter_family, 0, cmd);
	if (!*hdrp) {
		nlmsg_free(reply);
		return ERR_PTR(-EMSGSIZE);
	}
	(*hdrp)->dp_ifindex = hdr->dp_ifindex;
	return reply;
}

/* Sends 'reply' (whose header is 'hdr') to the sender of 'info', or
 * frees it if 'err' is a negative errno.  Returns 'err' or the send's
 * result.
 */
static int meter_reply_finish(struct sk_buff *reply, struct ovs_header *hdr,
			      struct genl_info *info, int err)
{
	if (err < 0) {
		nlmsg_free(reply);
		return err;
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}

/* The datapath the request names (ovsp_lock). */
static struct ovsp_datapath *meter_dp(struct genl_info *info)
{
	struct ovs_header *hdr = info->userhdr;

	return ovsp_dp_lookup(genl_info_net(info), hdr->dp_ifindex);
}

/* Appends a meter's statistics 'stats': STATS, USED and a BANDS nest of
 * one nest per band holding its STATS.  Returns 0 or -EMSGSIZE.
 */
static int meter_put_stats(struct sk_buff *reply,
			   const struct ovsp_meter_stats *stats)
{
	struct nlattr *bands, *band;
	int i;

	if (nla_put(reply, OVS_METER_ATTR_STATS, sizeof(stats->stats),
		    &stats->stats) ||
	    nla_put_u64_64bit(reply, OVS_METER_ATTR_USED, stats->used,
			      OVS_METER_ATTR_PAD))
		return -EMSGSIZE;
	bands = nla_nest_start_noflag(reply, OVS_METER_ATTR_BANDS);
	if (!bands)
		return -EMSGSIZE;
	for (i = 0; i < stats->n_bands; i++) {
		band = nla_nest_start_noflag(reply, OVS_BAND_ATTR_UNSPEC);
		if (!band || nla_put(reply, OVS_BAND_ATTR_STATS,
				     sizeof(stats->bands[i]),
				     &stats->bands[i]))
			return -EMSGSIZE;
		nla_nest_end(reply, band);
	}
	nla_nest_end(reply, bands);
	return 0;
}

/* Appends FEATURES' answer: at most 'max_meters' meters, and the bands
 * carried (OVSP_METER_MAX_BANDS, drop only).  Returns 0 or -EMSGSIZE.
 */
static int meter_put_features(struct sk_buff *reply, u32 max_meters)
{
	struct nlattr *bands, *band;

	if (nla_put_u32(reply, OVS_METER_ATTR_MAX_METERS, max_meters) ||
	    nla_put_u32(reply, OVS_METER_ATTR_MAX_BANDS, OVSP_METER_MAX_BANDS))
		return -EMSGSIZE;
	bands = nla_nest_start_noflag(reply, OVS_METER_ATTR_BANDS);
	if (!bands)
		return -EMSGSIZE;
	band = nla_nest_start_noflag(reply, OVS_BAND_ATTR_UNSPEC);
	if (!band ||
	    nla_put_u32(reply, OVS_BAND_ATTR_TYPE, OVS_METER_BAND_TYPE_DROP))
		return -EMSGSIZE;
	nla_nest_end(reply, band);
	nla_nest_end(reply, bands);
	return 0;
}

static int meter_cmd_features(struct sk_buff *skb, struct genl_info *info)
{
	struct ovsp_datapath *dp;
	struct ovs_header *hdr;
	struct sk_buff *reply;
	int err;

	reply = meter_reply_start(info, OVS_METER_CMD_FEATURES, &hdr);
	if (IS_ERR(reply))
		return PTR_ERR(reply);
	ovsp_lock();
	dp = meter_dp(info);
	err = dp ? meter_put_features(reply, ovsp_meter_table_max(dp->meters))
		 : -ENODEV;
	ovsp_unlock();
	return meter_reply_finish(reply, hdr, info, err);
}

/* Parses one band nest 'nla' into '*band'.  Returns 0 or a negative
 * errno.
 */
static int meter_parse_band(const struct nlattr *nla,
			    struct ovsp_meter_band_config *band)
{
	struct nlattr *a[OVS_BAND_ATTR_MAX + 1];
	int err;

	err = nla_parse_deprecated(a, OVS_BAND_ATTR_MAX, nla_data(nla),
				   nla_len(nla), band_policy, NULL);
	if (err)
		return err;
	if (!a[OVS_BAND_ATTR_TYPE] || !a[OVS_BAND_ATTR_RATE] ||
	    !a[OVS_BAND_ATTR_BURST]) {
		meter_refuse("band without type, rate or burst");
		return -EINVAL;
	}
	band->type = nla_get_u32(a[OVS_BAND_ATTR_TYPE]);
	band->rate = nla_get_u32(a[OVS_BAND_ATTR_RATE]);
	band->burst = nla_get_u32(a[OVS_BAND_ATTR_BURST]);
	if (!band->rate) {
		meter_refuse("band of rate 0");
		return -EINVAL;
	}
	return 0;
}

/* Parses a SET request's attributes 'a' into '*cfg'.  Returns 0 or a
 * negative errno.
 */
static int meter_parse(struct nlattr **a, struct ovsp_meter_config *cfg)
{
	const struct nlattr *nla;
	int rem, err, n = 0;

	memset(cfg, 0, sizeof(*cfg));
	if (!a[OVS_METER_ATTR_ID] || !a[OVS_METER_ATTR_BANDS]) {
		meter_refuse("SET without id or bands");
		return -EINVAL;
	}
	cfg->id = nla_get_u32(a[OVS_METER_ATTR_ID]);
	cfg->kbps = !!a[OVS_METER_ATTR_KBPS];
	cfg->keep_stats = !a[OVS_METER_ATTR_CLEAR];
	if (cfg->keep_stats && a[OVS_METER_ATTR_STATS])
		memcpy(&cfg->stats, nla_data(a[OVS_METER_ATTR_STATS]),
		       sizeof(cfg->stats));
	/* Counted before any is parsed, so that too many bands is -EINVAL
	 * whatever they hold, as in Linux.
	 */
	nla_for_each_nested(nla, a[OVS_METER_ATTR_BANDS], rem) {
		if (++n > OVSP_METER_MAX_BANDS) {
			meter_refuse("more than %d bands",
				     OVSP_METER_MAX_BANDS);
			return -EINVAL;
		}
	}
	nla_for_each_nested(nla, a[OVS_METER_ATTR_BANDS], rem) {
		err = meter_parse_band(nla, &cfg->bands[cfg->n_bands]);
		if (err)
			return err;
		cfg->n_bands++;
	}
	return 0;
}

static int meter_cmd_set(struct sk_buff *skb, struct genl_info *info)
{
	struct ovsp_meter_config cfg;
	struct ovsp_meter_stats old;
	struct ovsp_datapath *dp;
	struct ovs_header *hdr;
	struct sk_buff *reply;
	int err;

	err = meter_parse(info->attrs, &cfg);
	if (err)
		return err;
	reply = meter_reply_start(info, OVS_METER_CMD_SET, &hdr);
	if (IS_ERR(reply))
		return PTR_ERR(reply);
	ovsp_lock();
	dp = meter_dp(info);
	err = dp ? ovsp_meter_set(dp->meters, &cfg, &old) : -ENODEV;
	ovsp_unlock();
	/* NLMSG_DEFAULT_SIZE holds a one-band meter's reply. */
	if (err >= 0 && (nla_put_u32(reply, OVS_METER_ATTR_ID, cfg.id) ||
			 (err == 1 && meter_put_stats(reply, &old))))
		err = -EMSGSIZE;
	return meter_reply_finish(reply, hdr, info, err);
}

/* GET (del false) or DEL (del true). */
static int meter_get_or_del(struct genl_info *info, bool del)
{
	struct ovsp_meter_stats stats;
	struct ovsp_datapath *dp;
	struct ovs_header *hdr;
	struct sk_buff *reply;
	int err;
	u32 id;

	if (!info->attrs[OVS_METER_ATTR_ID])
		return -EINVAL;
	id = nla_get_u32(info->attrs[OVS_METER_ATTR_ID]);
	reply = meter_reply_start(info, del ? OVS_METER_CMD_DEL
					    : OVS_METER_CMD_GET, &hdr);
	if (IS_ERR(reply))
		return PTR_ERR(reply);
	ovsp_lock();
	dp = meter_dp(info);
	if (!dp)
		err = -ENODEV;
	else if (del)
		err = ovsp_meter_del(dp->meters, id, &stats);
	else
		err = ovsp_meter_get(dp->meters, id, &stats) ? : 1;
	ovsp_unlock();
	/* A DEL of no meter answers with nothing, as Linux's. */
	if (err == 1 && (nla_put_u32(reply, OVS_METER_ATTR_ID, id) ||
			 meter_put_stats(reply, &stats)))
		err = -EMSGSIZE;
	return meter_reply_finish(reply, hdr, info, err);
}

static int meter_cmd_get(struct sk_buff *skb, struct genl_info *info)
{
	return meter_get_or_del(info, false);
}

static int meter_cmd_del(struct sk_buff *skb, struct genl_info *info)
{
	return meter_get_or_del(info, true);
}

static const struct genl_small_ops meter_ops[] = {
	{ .cmd = OVS_METER_CMD_FEATURES,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .doit = meter_cmd_features },
	{ .cmd = OVS_METER_CMD_SET,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = meter_cmd_set },
	{ .cmd = OVS_METER_CMD_DEL,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = meter_cmd_del },
	{ .cmd = OVS_METER_CMD_GET,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .doit = meter_cmd_get },
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

// SPDX-License-Identifier: GPL-2.0
/*
 * The ovs_flow generic-netlink family: OVS_FLOW_CMD_NEW, SET, GET, DEL and
 * dump.
 *
 * - A flow is known by its UFID if it has one, else by its key as it was
 *   put (whatever its mask), as in the kernel's datapath; a request finds
 *   it by that identifier only, never by a packet's lookup of its key.
 * - NEW meets the flow of its UFID, else the flow its key hits as a
 *   packet's would, as the kernel's: none, it creates one; one, it fails
 *   -EEXIST if NLM_F_CREATE or NLM_F_EXCL, else replaces the actions of
 *   the flow its key names (that flow, or the flow without a UFID put
 *   with that key), or fails -ENOENT: its actions were validated against
 *   its key, and no flow overlaps another.  SET replaces actions (KEY
 *   required, to validate them) and, with OVS_FLOW_ATTR_CLEAR, zeroes the
 *   stats after reporting them; it names the flow by UFID or KEY.  DEL
 *   without KEY or UFID flushes the table.
 * - Replies carry the UFID and the masked KEY, or (without a UFID) the KEY
 *   as it was put, then MASK and ACTIONS, unless OVS_FLOW_ATTR_UFID_FLAGS
 *   omits them (terse dumps), USED if non-zero, STATS if a packet was
 *   counted and TCP_FLAGS if any were seen.
 * - OVS_FLOW_ATTR_PROBE only silences the parsers' logs.
 */
#include <linux/netdevice.h>
#include <linux/openvswitch.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "dp-core.h"
#include "flow-actions.h"
#include "flow-netlink.h"
#include "flow-stats.h"
#include "flow-table.h"

static const struct nla_policy flow_policy[OVS_FLOW_ATTR_MAX + 1] = {
	[OVS_FLOW_ATTR_KEY] = { .type = NLA_NESTED },
	[OVS_FLOW_ATTR_MASK] = { .type = NLA_NESTED },
	[OVS_FLOW_ATTR_ACTIONS] = { .type = NLA_NESTED },
	[OVS_FLOW_ATTR_CLEAR] = { .type = NLA_FLAG },
	[OVS_FLOW_ATTR_PROBE] = { .type = NLA_FLAG },
	[OVS_FLOW_ATTR_UFID] = { .type = NLA_UNSPEC, .len = 1 },
	[OVS_FLOW_ATTR_UFID_FLAGS] = { .type = NLA_U32 },
};

/* What a request names and carries, parsed before taking ovsp_lock.  A
 * request without KEY is allocated without 'match' and 'unmasked' (see
 * parse_request()), which must therefore stay last.
 */
struct flow_request {
	struct ovsp_flow_ufid ufid;	/* UFID, len 0 if none. */
	bool has_key;			/* KEY was given. */
	u32 ufid_flags;			/* OVS_UFID_F_*. */
	bool log;			/* Not a probe. */
	struct ovsp_flow_match match;	/* KEY and MASK, if 'has_key'. */
	struct ovsp_flow_key unmasked;	/* KEY before masking. */
};

/* Parses UFID and UFID_FLAGS; -EINVAL for a UFID longer than ours. */
static int parse_ufid(struct nlattr **a, struct flow_request *req)
{
	memset(&req->ufid, 0, sizeof(req->ufid));
	if (a[OVS_FLOW_ATTR_UFID]) {
		int len = nla_len(a[OVS_FLOW_ATTR_UFID]);

		if (len < 1 || len > OVSP_UFID_MAX_LEN)
			return -EINVAL;
		req->ufid.len = len;
		memcpy(req->ufid.id, nla_data(a[OVS_FLOW_ATTR_UFID]), len);
	}
	req->ufid_flags = a[OVS_FLOW_ATTR_UFID_FLAGS]
		? nla_get_u32(a[OVS_FLOW_ATTR_UFID_FLAGS]) : 0;
	return 0;
}

/* Allocates and fills a request; KEY (with MASK if 'use_mask') is parsed
 * if present.
 */
static struct flow_request *parse_request(struct genl_info *info,
					  bool use_mask, int *errp)
{
	struct nlattr **a = info->attrs;
	struct flow_request *req;
	int err;

	/* 'match' and 'unmasked' are written whole when KEY is given and
	 * read only then ('has_key'), and every other member is set here:
	 * without KEY (a delete or get by UFID) they are not allocated.  The
	 * kernel may zero what is allocated (init_on_alloc, Debian's
	 * default), and the whole request's 1.5 KiB cost every request more
	 * than parsing its key did.
	 */
	req = kmalloc(a[OVS_FLOW_ATTR_KEY] ? sizeof(*req)
		      : offsetof(struct flow_request, match), GFP_KERNEL);
	if (!req) {
		*errp = -ENOMEM;
		return NULL;
	}
	req->has_key = false;
	req->log = !a[OVS_FLOW_ATTR_PROBE];
	err = parse_ufid(a, req);
	if (!err && a[OVS_FLOW_ATTR_KEY]) {
		req->has_key = true;
		err = ovsp_flow_match_from_nlattrs(genl_info_net(info),
						   &req->match, &req->unmasked,
						   a[OVS_FLOW_ATTR_KEY],
						   use_mask
						   ? a[OVS_FLOW_ATTR_MASK] : NULL,
						   req->log);
	}
	if (err) {
		kfree(req);
		*errp = err;
		return NULL;
	}
	return req;
}

/* Bytes of a reply about 'flow'. */
static size_t flow_msg_size(const struct ovsp_actions *acts)
{
	return NLMSG_ALIGN(sizeof(struct ovs_header))
		+ nla_total_size(ovsp_flow_key_attr_size()) * 2
		+ nla_total_size(OVSP_UFID_MAX_LEN)
		+ nla_total_size_64bit(sizeof(struct ovs_flow_stats))
		+ nla_total_size(1)			/* TCP_FLAGS */
		+ nla_total_size_64bit(sizeof(u64))	/* USED */
		+ (acts ? nla_total_size(ovsp_actions_attr_size(acts)) : 0);
}

static int flow_put_stats(const struct ovsp_flow *flow, struct sk_buff *skb)
{
	struct ovsp_flow_stats_info info;
	struct ovs_flow_stats stats;

	ovsp_flow_stats_get(flow->stats, &info);
	if (info.used
	    && nla_put_u64_64bit(skb, OVS_FLOW_ATTR_USED,
				 ovsp_flow_stats_used_ms(info.used),
				 OVS_FLOW_ATTR_PAD))
		return -EMSGSIZE;
	if (info.n_packets) {
		stats.n_packets = info.n_packets;
		stats.n_bytes = info.n_bytes;
		if (nla_put_64bit(skb, OVS_FLOW_ATTR_STATS, sizeof(stats),
				  &stats, OVS_FLOW_ATTR_PAD))
			return -EMSGSIZE;
	}
	if ((u8)ntohs(info.tcp_flags)
	    && nla_put_u8(skb, OVS_FLOW_ATTR_TCP_FLAGS,
			  (u8)ntohs(info.tcp_flags)))
		return -EMSGSIZE;
	return 0;
}

/* Fills a message about 'flow' (under RCU or ovsp_lock). */
static int flow_fill(struct ovsp_datapath *dp, const struct ovsp_flow *flow,
		     struct sk_buff *skb, u32 portid, u32 seq, u32 flags,
		     u8 cmd, u32 ufid_flags)
{
	const struct ovsp_actions *acts;
	struct ovs_header *hdr;
	int err = -EMSGSIZE;

	hdr = genlmsg_put(skb, portid, seq, &ovsp_flow_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	hdr->dp_ifindex = ovsp_dp_ifindex(dp);

	if (flow->ufid.len) {
		if (nla_put(skb, OVS_FLOW_ATTR_UFID, flow->ufid.len,
			    flow->ufid.id))
			goto cancel;
		if (!(ufid_flags & OVS_UFID_F_OMIT_KEY)) {
			err = ovsp_flow_key_to_nlattrs(&flow->key, skb,
						       OVS_FLOW_ATTR_KEY);
			if (err)
				goto cancel;
		}
	} else {
		/* The identifier: the key as it was put. */
		err = ovsp_flow_key_to_nlattrs(flow->unmasked, skb,
					       OVS_FLOW_ATTR_KEY);
		if (err)
			goto cancel;
	}
	if (!(ufid_flags & OVS_UFID_F_OMIT_MASK)) {
		err = ovsp_flow_mask_to_nlattrs(&flow->key,
						ovsp_flow_mask_key(flow), skb);
		if (err)
			goto cancel;
	}
	err = flow_put_stats(flow, skb);
	if (err)
		goto cancel;
	if (!(ufid_flags & OVS_UFID_F_OMIT_ACTIONS)) {
		acts = rcu_dereference_check(flow->acts,
					     lockdep_ovsp_is_held());
		err = ovsp_actions_to_nlattrs(acts, skb, OVS_FLOW_ATTR_ACTIONS);
		if (err)
			goto cancel;
	}
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return err;
}

/* A reply about 'flow', or an ERR_PTR; NULL when nobody listens. */
static struct sk_buff *flow_reply(struct ovsp_datapath *dp,
				  const struct ovsp_flow *flow,
				  struct genl_info *info, u8 cmd,
				  u32 ufid_flags, bool always)
{
	const struct ovsp_actions *acts;
	struct sk_buff *skb;
	int err;

	if (!always && !(info->nlhdr->nlmsg_flags & NLM_F_ECHO)
	    && !genl_has_listeners(&ovsp_flow_family, genl_info_net(info), 0))
		return NULL;
	acts = rcu_dereference_protected(flow->acts, lockdep_ovsp_is_held());
	skb = genlmsg_new(flow_msg_size(acts), GFP_KERNEL);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	err = flow_fill(dp, flow, skb, info->snd_portid, info->snd_seq, 0, cmd,
			ufid_flags);
	if (err) {
		kfree_skb(skb);
		return ERR_PTR(err);
	}
	return skb;
}

/* The flow a request names: by UFID, else the flow without a UFID that
 * was put with the request's key.
 */
static struct ovsp_flow *flow_find(struct ovsp_datapath *dp,
				   const struct flow_request *req)
{
	if (req->ufid.len)
		return ovsp_flow_table_find_ufid(dp->table, &req->ufid);
	if (!req->has_key)
		return NULL;
	return ovsp_flow_table_find_unmasked(dp->table, &req->unmasked);
}

/* The flow a NEW request meets, as the kernel's NEW looks for it: the
 * flow of its UFID (setting '*by_ufid'), else the flow its key hits as a
 * packet's would (any mask), so that a NEW never overlaps a flow.
 */
static struct ovsp_flow *flow_find_for_new(struct ovsp_datapath *dp,
					   const struct flow_request *req,
					   bool *by_ufid)
{
	struct ovsp_flow *flow = NULL;
	bool cache_hit;
	u32 n_mask_hit;

	if (req->ufid.len)
		flow = ovsp_flow_table_find_ufid(dp->table, &req->ufid);
	*by_ufid = flow != NULL;
	if (!flow) {
		rcu_read_lock();
		flow = ovsp_flow_table_lookup(dp->table, &req->unmasked, 0,
					      &n_mask_hit, &cache_hit);
		rcu_read_unlock();
	}
	return flow;
}

static void notify(struct sk_buff *reply, struct genl_info *info)
{
	if (!IS_ERR_OR_NULL(reply))
		genl_notify(&ovsp_flow_family, reply, info, 0, GFP_KERNEL);
}

/* NEW: inserts, or replaces an existing flow's actions. */
static int flow_cmd_new(struct sk_buff *skb, struct genl_info *info)
{
	struct ovs_header *hdr = info->userhdr;
	struct nlattr **a = info->attrs;
	struct ovsp_actions *acts = NULL;
	struct sk_buff *reply = NULL;
	struct flow_request *req;
	struct ovsp_datapath *dp;
	struct ovsp_flow *flow;
	bool by_ufid;
	int err;

	if (!a[OVS_FLOW_ATTR_KEY] || !a[OVS_FLOW_ATTR_ACTIONS])
		return -EINVAL;
	req = parse_request(info, true, &err);
	if (!req)
		return err;
	err = ovsp_actions_from_nlattrs(genl_info_net(info),
					a[OVS_FLOW_ATTR_ACTIONS],
					&req->match.key, &acts, req->log);
	if (err)
		goto out;

	ovsp_lock();
	err = -ENODEV;
	dp = ovsp_dp_lookup(genl_info_net(info), hdr->dp_ifindex);
	if (!dp)
		goto unlock;
	flow = flow_find_for_new(dp, req, &by_ufid);
	if (!flow) {
		/* Refused with -EEXIST if another flow has the same mask and
		 * masked key.
		 */
		flow = ovsp_flow_alloc(&req->match, &req->unmasked, &req->ufid,
				       acts);
		acts = NULL;
		err = -ENOMEM;
		if (!flow)
			goto unlock;
		err = ovsp_flow_table_insert(dp->table, flow, &req->match);
		if (err) {
			ovsp_flow_free(flow);
			goto unlock;
		}
	} else {
		err = -EEXIST;
		if (info->nlhdr->nlmsg_flags & (NLM_F_CREATE | NLM_F_EXCL))
			goto unlock;
		/* The actions were validated against this request's key:
		 * they replace those of the flow it names, or of none.
		 */
		if (!ovsp_flow_named_by_key(flow, &req->unmasked,
					    &req->match.range))
			flow = by_ufid || flow->ufid.len ? NULL
			       : ovsp_flow_table_find_unmasked(dp->table,
							       &req->unmasked);
		err = -ENOENT;
		if (!flow)
			goto unlock;
		ovsp_flow_set_actions(flow, acts);
		acts = NULL;
	}
	reply = flow_reply(dp, flow, info, OVS_FLOW_CMD_NEW, req->ufid_flags,
			   false);
	err = 0;
unlock:
	ovsp_unlock();
out:
	ovsp_actions_free(acts);
	kfree(req);
	notify(reply, info);
	return err;
}

/* SET: new actions and/or cleared stats for an existing flow. */
static int flow_cmd_set(struct sk_buff *skb, struct genl_info *info)
{
	struct ovs_header *hdr = info->userhdr;
	struct nlattr **a = info->attrs;
	struct ovsp_actions *acts = NULL;
	struct sk_buff *reply = NULL;
	struct flow_request *req;
	struct ovsp_datapath *dp;
	struct ovsp_flow *flow;
	int err;

	/* A UFID names the flow; actions need the key to be validated. */
	if (!a[OVS_FLOW_ATTR_KEY] &&
	    (!a[OVS_FLOW_ATTR_UFID] || a[OVS_FLOW_ATTR_ACTIONS]))
		return -EINVAL;
	req = parse_request(info, true, &err);
	if (!req)
		return err;
	if (a[OVS_FLOW_ATTR_ACTIONS]) {
		err = ovsp_actions_from_nlattrs(genl_info_net(info),
						a[OVS_FLOW_ATTR_ACTIONS],
						&req->match.key, &acts,
						req->log);
		if (err)
			goto out;
	}

	ovsp_lock();
	err = -ENODEV;
	dp = ovsp_dp_lookup(genl_info_net(info), hdr->dp_ifindex);
	if (!dp)
		goto unlock;
	err = -ENOENT;
	flow = flow_find(dp, req);
	if (!flow)
		goto unlock;
	/* As for NEW: actions validated against another key than the
	 * flow's are refused.
	 */
	if (acts && flow->ufid.len && !ovsp_flow_key_equal(flow, &req->match))
		goto unlock;
	if (acts) {
		ovsp_flow_set_actions(flow, acts);
		acts = NULL;
	}
	reply = flow_reply(dp, flow, info, OVS_FLOW_CMD_SET, req->ufid_flags,
			   false);
	if (a[OVS_FLOW_ATTR_CLEAR])
		ovsp_flow_stats_clear(flow->stats);
	err = 0;
unlock:
	ovsp_unlock();
out:
	ovsp_actions_free(acts);
	kfree(req);
	notify(reply, info);
	return err;
}

static int flow_cmd_get(struct sk_buff *skb, struct genl_info *info)
{
	struct ovs_header *hdr = info->userhdr;
	struct sk_buff *reply = NULL;
	struct flow_request *req;
	struct ovsp_datapath *dp;
	struct ovsp_flow *flow;
	int err;

	req = parse_request(info, false, &err);
	if (!req)
		return err;
	err = -EINVAL;
	if (!req->has_key && !req->ufid.len)
		goto out;
	ovsp_lock();
	err = -ENODEV;
	dp = ovsp_dp_lookup(genl_info_net(info), hdr->dp_ifindex);
	if (!dp)
		goto unlock;
	err = -ENOENT;
	flow = flow_find(dp, req);
	if (!flow)
		goto unlock;
	reply = flow_reply(dp, flow, info, OVS_FLOW_CMD_GET, req->ufid_flags,
			   true);
	err = PTR_ERR_OR_ZERO(reply);
unlock:
	ovsp_unlock();
out:
	kfree(req);
	return err ? err : genlmsg_reply(reply, info);
}

static int flow_cmd_del(struct sk_buff *skb, struct genl_info *info)
{
	struct ovs_header *hdr = info->userhdr;
	struct sk_buff *reply = NULL;
	struct flow_request *req;
	struct ovsp_datapath *dp;
	struct ovsp_flow *flow;
	int err;

	req = parse_request(info, false, &err);
	if (!req)
		return err;
	ovsp_lock();
	err = -ENODEV;
	dp = ovsp_dp_lookup(genl_info_net(info), hdr->dp_ifindex);
	if (!dp)
		goto unlock;
	if (!req->has_key && !req->ufid.len) {
		ovsp_flow_table_flush(dp->table);
		err = 0;
		goto unlock;
	}
	err = -ENOENT;
	flow = flow_find(dp, req);
	if (!flow)
		goto unlock;
	reply = flow_reply(dp, flow, info, OVS_FLOW_CMD_DEL, req->ufid_flags,
			   false);
	ovsp_flow_table_remove(dp->table, flow);
	err = 0;
unlock:
	ovsp_unlock();
	kfree(req);
	notify(reply, info);
	return err;
}

/* Dumps the flows of the request's datapath, resuming at flow index
 * cb->args[0]; cb->args[1] holds the request's UFID flags.
 */
static int flow_cmd_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ovs_header *hdr = genlmsg_data(nlmsg_data(cb->nlh));
	struct nlattr *a[OVS_FLOW_ATTR_MAX + 1];
	struct ovsp_datapath *dp;
	unsigned long index;
	struct ovsp_flow *flow;
	u32 ufid_flags = 0;
	int err;

	err = genlmsg_parse_deprecated(cb->nlh, &ovsp_flow_family, a,
				       OVS_FLOW_ATTR_MAX, flow_policy, NULL);
	if (err)
		return err;
	if (a[OVS_FLOW_ATTR_UFID_FLAGS])
		ufid_flags = nla_get_u32(a[OVS_FLOW_ATTR_UFID_FLAGS]);

	rcu_read_lock();
	dp = ovsp_dp_lookup(sock_net(skb->sk), hdr->dp_ifindex);
	if (!dp) {
		rcu_read_unlock();
		return -ENODEV;
	}
	for (;;) {
		index = cb->args[0];
		flow = ovsp_flow_table_next(dp->table, &index);
		if (!flow)
			break;
		if (flow_fill(dp, flow, skb, NETLINK_CB(cb->skb).portid,
			      cb->nlh->nlmsg_seq, NLM_F_MULTI,
			      OVS_FLOW_CMD_GET, ufid_flags) < 0)
			break;
		cb->args[0] = index + 1;
	}
	rcu_read_unlock();
	return skb->len;
}

static const struct genl_small_ops flow_ops[] = {
	{ .cmd = OVS_FLOW_CMD_NEW,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = flow_cmd_new },
	{ .cmd = OVS_FLOW_CMD_DEL,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = flow_cmd_del },
	{ .cmd = OVS_FLOW_CMD_GET,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .doit = flow_cmd_get,
	  .dumpit = flow_cmd_dump },
	{ .cmd = OVS_FLOW_CMD_SET,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = flow_cmd_set },
};

static const struct genl_multicast_group flow_mcgroups[] = {
	{ .name = OVS_FLOW_MCGROUP },
};

struct genl_family ovsp_flow_family __ro_after_init = {
	.hdrsize = sizeof(struct ovs_header),
	.name = OVS_FLOW_FAMILY,
	.version = OVS_FLOW_VERSION,
	.maxattr = OVS_FLOW_ATTR_MAX,
	.policy = flow_policy,
	.netnsok = true,
	.parallel_ops = true,
	.small_ops = flow_ops,
	.n_small_ops = ARRAY_SIZE(flow_ops),
	.resv_start_op = OVS_FLOW_CMD_SET + 1,
	.mcgrps = flow_mcgroups,
	.n_mcgrps = ARRAY_SIZE(flow_mcgroups),
	.module = THIS_MODULE,
};

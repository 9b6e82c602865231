// SPDX-License-Identifier: GPL-2.0
/*
 * A flow's actions: validated and copied from OVS_ACTION_ATTR_* netlink
 * attributes into their executable form (actions-format.h), and written
 * back for dumps.
 *
 * Contract (see flow-actions.h):
 * - Validation follows the packet through the list, as the kernel
 *   datapath does: the Ethertype, the outer VLAN TCI, the number of MPLS
 *   labels and whether there is an Ethernet header, so that a set action
 *   matches the protocol it writes and a push or pop makes sense.  Nested
 *   lists (sample, clone, check_pkt_len) start from their parent's view.
 * - What this datapath does not carry is refused with -EINVAL: push/pop
 *   NSH, dec_ttl, types above the ABI, the parts of ct() that conntrack.h
 *   lists, and set actions on conntrack or NSH fields.  So are malformed actions
 *   and nesting deeper than OVSP_ACTIONS_MAX_DEPTH.  A copy larger than
 *   OVSP_ACTIONS_MAX_SIZE is refused with -EMSGSIZE.
 * - The attributes userspace sent are kept after the executable copy, so
 *   dumps and the userspace action's OVS_USERSPACE_ATTR_ACTIONS give back
 *   exactly what was installed.
 * - Copying may sleep (it allocates with GFP_KERNEL); freeing may run in
 *   an RCU callback.  A copy is immutable once returned.  Whoever unloads
 *   the module waits for pending callbacks (rcu_barrier()).
 */
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/openvswitch.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/dst.h>
#include <net/dst_metadata.h>
#include <net/geneve.h>
#include <net/ip_tunnels.h>
#include <net/mpls.h>
#include <net/netlink.h>

#include "actions-format.h"
#include "conntrack.h"
#include "flow-actions.h"
#include "flow-key.h"
#include "flow-netlink.h"

/* Logs a refusal of userspace input when 'log' is true, rate-limited. */
#define ovsp_fa_refuse(log, fmt, ...)					\
	do {								\
		if (log)						\
			net_info_ratelimited("ovs_percpu: actions: "	\
					     fmt "\n", ##__VA_ARGS__);	\
	} while (0)

/* The executable copy being built. */
struct ovsp_acts_builder {
	u8 *buf;			/* The copy so far (kvmalloc()). */
	size_t len;			/* Bytes used. */
	size_t cap;			/* Bytes allocated. */
	const u8 *orig;			/* nla_data() of what userspace sent:
					 * lists' offsets are from here.
					 */
	struct metadata_dst **dsts;	/* Tunnel dsts taken so far, released
					 * if the copy fails.
					 */
	unsigned int n_dsts;		/* Used in 'dsts'. */
	unsigned int max_dsts;		/* Allocated in 'dsts'. */
	struct ovsp_ct_info **cts;	/* ct() actions parsed so far, freed
					 * if the copy fails.
					 */
	unsigned int n_cts;		/* Used in 'cts'. */
	unsigned int max_cts;		/* Allocated in 'cts'. */
	struct net *net;		/* The flow's namespace. */
	bool log;			/* Log refusals. */
};

/* What validation knows of the packet at a point of a list. */
struct ovsp_acts_ctx {
	const struct ovsp_flow_key *key; /* The flow's (masked) key. */
	__be16 eth_type;		/* Ethertype; 0 once unknown (after
					 * the last MPLS label is popped).
					 */
	__be16 vlan_tci;		/* Outer TCI (VLAN_CFI_MASK if a tag). */
	u32 mpls_labels;		/* MPLS labels on the packet. */
	u8 mac_proto;			/* OVSP_MAC_PROTO_*. */
};

static int ovsp_copy_actions(struct ovsp_acts_builder *b,
			     const struct nlattr *list, int len,
			     struct ovsp_acts_ctx *ctx, int depth);

/* Makes room for 'bytes' more bytes in 'b'.  Returns 0, -EMSGSIZE past
 * OVSP_ACTIONS_MAX_SIZE, or -ENOMEM.
 */
static int ovsp_ab_reserve(struct ovsp_acts_builder *b, size_t bytes)
{
	size_t need = b->len + bytes;
	size_t cap;
	u8 *buf;

	if (need > OVSP_ACTIONS_MAX_SIZE) {
		ovsp_fa_refuse(b->log, "more than %d bytes of actions",
			       OVSP_ACTIONS_MAX_SIZE);
		return -EMSGSIZE;
	}
	if (need <= b->cap)
		return 0;
	cap = clamp_t(size_t, b->cap * 2, need, OVSP_ACTIONS_MAX_SIZE);
	buf = kvrealloc(b->buf, b->cap, cap, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	b->buf = buf;
	b->cap = cap;
	return 0;
}

/* Appends 'len' zero bytes to 'b', not an attribute ('len' a multiple of
 * NLA_ALIGNTO).  Returns their offset or a negative errno.
 */
static int ovsp_ab_raw(struct ovsp_acts_builder *b, size_t len)
{
	int err = ovsp_ab_reserve(b, len);
	int off = b->len;

	if (err)
		return err;
	memset(b->buf + off, 0, len);
	b->len += len;
	return off;
}

/* Appends an attribute of 'type' with the 'len' bytes at 'data' (zeros if
 * NULL) to 'b'.  Returns the offset of its payload or a negative errno.
 */
static int ovsp_ab_put(struct ovsp_acts_builder *b, u16 type,
		       const void *data, size_t len)
{
	int off = ovsp_ab_raw(b, nla_total_size(len));
	struct nlattr *nla;

	if (off < 0)
		return off;
	nla = (struct nlattr *)(b->buf + off);
	nla->nla_type = type;
	nla->nla_len = nla_attr_size(len);
	if (data)
		memcpy(nla_data(nla), data, len);
	return off + NLA_HDRLEN;
}

/* Sets the length of the attribute whose payload is at offset 'payload'
 * to end where 'b' ends now.
 */
static void ovsp_ab_end_nested(struct ovsp_acts_builder *b, int payload)
{
	struct nlattr *nla = (struct nlattr *)(b->buf + payload - NLA_HDRLEN);

	/* b->len <= OVSP_ACTIONS_MAX_SIZE, below U16_MAX. */
	nla->nla_len = b->len - (payload - NLA_HDRLEN);
}

/* Copies action 'a' unchanged.  Returns 0 or a negative errno. */
static int ovsp_ab_copy(struct ovsp_acts_builder *b, const struct nlattr *a)
{
	int off = ovsp_ab_put(b, nla_type(a), nla_data(a), nla_len(a));

	return off < 0 ? off : 0;
}

/* Remembers 'dst' so that a failed copy releases it.  Returns 0 or
 * -ENOMEM (then 'dst' is released).
 */
static int ovsp_ab_add_dst(struct ovsp_acts_builder *b,
			   struct metadata_dst *dst)
{
	if (b->n_dsts == b->max_dsts) {
		unsigned int max = b->max_dsts ? b->max_dsts * 2 : 4;
		struct metadata_dst **dsts;

		dsts = krealloc_array(b->dsts, max, sizeof(*dsts), GFP_KERNEL);
		if (!dsts) {
			dst_release(&dst->dst);
			return -ENOMEM;
		}
		b->dsts = dsts;
		b->max_dsts = max;
	}
	b->dsts[b->n_dsts++] = dst;
	return 0;
}

/* Most ct() actions in one flow's actions: each holds a template per CPU
 * when it has a zone or a timeout policy.  OVS emits one per conntrack
 * table a packet passes through, a handful.
 */
#define OVSP_ACTIONS_MAX_CTS 64

/* Validates and copies ct() action 'a'.  Returns 0 or a negative errno. */
static int ovsp_copy_ct(struct ovsp_acts_builder *b, const struct nlattr *a,
			const struct ovsp_acts_ctx *ctx)
{
	struct ovsp_act_ct act;
	int err;

	if (b->n_cts >= OVSP_ACTIONS_MAX_CTS) {
		ovsp_fa_refuse(b->log, "more than %d ct actions",
			       OVSP_ACTIONS_MAX_CTS);
		return -EINVAL;
	}
	if (b->n_cts == b->max_cts) {
		unsigned int max = b->max_cts ? b->max_cts * 2 : 2;
		struct ovsp_ct_info **cts;

		cts = krealloc_array(b->cts, max, sizeof(*cts), GFP_KERNEL);
		if (!cts)
			return -ENOMEM;
		b->cts = cts;
		b->max_cts = max;
	}
	/* The packet's protocol where the action runs: after an MPLS push
	 * or pop it is not the flow's.
	 */
	err = ovsp_ct_info_from_nlattr(b->net, a, ctx->eth_type,
				       ctx->key->ip.proto, &act.info, b->log);
	if (err)
		return err;
	b->cts[b->n_cts++] = act.info;
	return ovsp_ab_put(b, OVSP_ACT_CT, &act, sizeof(act)) < 0 ? -ENOMEM
								  : 0;
}

/* True if some action in the list nested in 'attr' may change the flow
 * key; output, userspace, recirc, trunc and meter do not.
 */
static bool ovsp_list_may_change_key(const struct nlattr *attr)
{
	const struct nlattr *a;
	int rem;

	nla_for_each_nested(a, attr, rem) {
		switch (nla_type(a)) {
		case OVS_ACTION_ATTR_OUTPUT:
		case OVS_ACTION_ATTR_USERSPACE:
		case OVS_ACTION_ATTR_RECIRC:
		case OVS_ACTION_ATTR_TRUNC:
		case OVS_ACTION_ATTR_METER:
			break;
		default:
			return true;
		}
	}
	return false;
}

/* Copies the actions nested in 'attr' after the list header reserved at
 * offset 'hdr' (which ends where 'b' ends), starting from view 'ctx' of
 * the packet.  Returns 0 or a negative errno.
 */
static int ovsp_copy_list(struct ovsp_acts_builder *b, int hdr,
			  const struct nlattr *attr,
			  const struct ovsp_acts_ctx *ctx, int depth)
{
	struct ovsp_acts_ctx inner = *ctx;
	struct ovsp_act_list *list;
	int start = b->len;
	int err;

	err = ovsp_copy_actions(b, nla_data(attr), nla_len(attr), &inner,
				depth + 1);
	if (err)
		return err;
	list = (struct ovsp_act_list *)(b->buf + hdr);
	list->orig_off = (const u8 *)nla_data(attr) - b->orig;
	list->orig_len = nla_len(attr);
	list->len = b->len - start;
	list->flags = ovsp_list_may_change_key(attr) ? 0
						     : OVSP_ACT_LIST_KEEPS_KEY;
	return 0;
}

/* Validates userspace action 'a'.  Returns 0 or -EINVAL. */
static int ovsp_check_userspace(const struct nlattr *a, bool log)
{
	const struct nlattr *attrs[OVS_USERSPACE_ATTR_MAX + 1] = { NULL };
	const struct nlattr *nla;
	int rem;

	nla_for_each_nested(nla, a, rem) {
		u16 type = nla_type(nla);

		if (!type || type > OVS_USERSPACE_ATTR_MAX || attrs[type]) {
			ovsp_fa_refuse(log, "userspace attribute %u", type);
			return -EINVAL;
		}
		if ((type == OVS_USERSPACE_ATTR_PID ||
		     type == OVS_USERSPACE_ATTR_EGRESS_TUN_PORT) &&
		    nla_len(nla) != sizeof(u32)) {
			ovsp_fa_refuse(log, "userspace attribute %u of %d bytes",
				       type, nla_len(nla));
			return -EINVAL;
		}
		/* A port number, as output's: none past u16, nor the
		 * one that means "no port".
		 */
		if (type == OVS_USERSPACE_ATTR_EGRESS_TUN_PORT &&
		    nla_get_u32(nla) >= OVSP_IN_PORT_NONE) {
			ovsp_fa_refuse(log, "userspace egress port %u",
				       nla_get_u32(nla));
			return -EINVAL;
		}
		attrs[type] = nla;
	}
	if (rem || !attrs[OVS_USERSPACE_ATTR_PID] ||
	    !nla_get_u32(attrs[OVS_USERSPACE_ATTR_PID])) {
		ovsp_fa_refuse(log, "userspace action without a PID");
		return -EINVAL;
	}
	return 0;
}

/* Checks the Geneve options of a set(tunnel) key: each option fits, and
 * TUNNEL_CRIT_OPT is set if one is critical.  Returns 0 or -EINVAL.
 */
static int ovsp_check_geneve_opts(struct ovsp_flow_key *key, bool log)
{
	unsigned int off = 0;

	while (off < key->tun_opts_len) {
		const struct geneve_opt *opt;
		unsigned int len;

		if (key->tun_opts_len - off < sizeof(*opt))
			goto bad;
		opt = (const struct geneve_opt *)(key->tun_opts + off);
		len = sizeof(*opt) + opt->length * 4;
		if (len > key->tun_opts_len - off)
			goto bad;
		if (opt->type & GENEVE_CRIT_OPT_TYPE)
			key->tun_key.tun_flags |= TUNNEL_CRIT_OPT;
		off += len;
	}
	return 0;

bad:
	ovsp_fa_refuse(log, "malformed geneve option at byte %u", off);
	return -EINVAL;
}

/* Copies set(tunnel(...)) whose tunnel attribute is 'tun' as an
 * OVSP_ACT_SET_TUNNEL with a metadata dst.  Returns 0 or a negative
 * errno.
 */
static int ovsp_copy_set_tunnel(struct ovsp_acts_builder *b,
				const struct nlattr *tun)
{
	struct ovsp_act_set_tunnel set;
	struct ip_tunnel_info *info;
	struct metadata_dst *md;
	struct ovsp_flow_key *key;
	bool bridge;
	int err;

	key = kzalloc(sizeof(*key), GFP_KERNEL);
	if (!key)
		return -ENOMEM;
	err = ovsp_tunnel_key_from_nlattr(tun, key, &bridge, b->log);
	if (!err && key->tun_key.tun_flags & TUNNEL_GENEVE_OPT)
		err = ovsp_check_geneve_opts(key, b->log);
	if (err)
		goto out;

	md = metadata_dst_alloc(key->tun_opts_len, METADATA_IP_TUNNEL,
				GFP_KERNEL);
	if (!md) {
		err = -ENOMEM;
		goto out;
	}
	err = ovsp_ab_add_dst(b, md);
	if (err)
		goto out;
	info = &md->u.tun_info;
#if IS_ENABLED(CONFIG_DST_CACHE)
	err = dst_cache_init(&info->dst_cache, GFP_KERNEL);
	if (err)
		goto out;
#endif
	info->mode = IP_TUNNEL_INFO_TX;
	if (key->meta.tun_proto == AF_INET6)
		info->mode |= IP_TUNNEL_INFO_IPV6;
	if (bridge)
		info->mode |= IP_TUNNEL_INFO_BRIDGE;
	info->key = key->tun_key;
	/* The option flags are in the key already. */
	ip_tunnel_info_opts_set(info, key->tun_opts, key->tun_opts_len, 0);

	set.dst = md;
	err = ovsp_ab_put(b, OVSP_ACT_SET_TUNNEL, &set, sizeof(set));
	if (err > 0)
		err = 0;
out:
	kfree(key);
	return err;
}

/* Payload lengths of the key attributes a set action may write. */
static const u8 ovsp_set_lens[OVS_KEY_ATTR_MAX + 1] = {
	[OVS_KEY_ATTR_PRIORITY] = sizeof(u32),
	[OVS_KEY_ATTR_SKB_MARK] = sizeof(u32),
	[OVS_KEY_ATTR_ETHERNET] = sizeof(struct ovs_key_ethernet),
	[OVS_KEY_ATTR_IPV4] = sizeof(struct ovs_key_ipv4),
	[OVS_KEY_ATTR_IPV6] = sizeof(struct ovs_key_ipv6),
	[OVS_KEY_ATTR_TCP] = sizeof(struct ovs_key_tcp),
	[OVS_KEY_ATTR_UDP] = sizeof(struct ovs_key_udp),
	[OVS_KEY_ATTR_SCTP] = sizeof(struct ovs_key_sctp),
	[OVS_KEY_ATTR_MPLS] = sizeof(struct ovs_key_mpls),
};

/* Writes into 'mask' the mask of every writable bit of set attribute
 * 'type' ('len' bytes): what a set without a mask writes.
 */
static void ovsp_set_full_mask(u16 type, void *mask, size_t len)
{
	memset(mask, 0xff, len);
	if (type == OVS_KEY_ATTR_IPV4) {
		struct ovs_key_ipv4 *m = mask;

		m->ipv4_proto = 0;
		m->ipv4_frag = 0;
	} else if (type == OVS_KEY_ATTR_IPV6) {
		struct ovs_key_ipv6 *m = mask;

		m->ipv6_proto = 0;
		m->ipv6_frag = 0;
		m->ipv6_label = htonl(0x000fffff);
	}
}

/* Validates and copies set or set_masked action 'a' ('masked').
 * Returns 0 or a negative errno.
 */
static int ovsp_copy_set(struct ovsp_acts_builder *b, const struct nlattr *a,
			 const struct ovsp_acts_ctx *ctx, bool masked)
{
	const struct nlattr *inner = nla_data(a);
	const struct ovsp_flow_key *key = ctx->key;
	const u8 *val, *mask;
	size_t len;
	u16 type;
	int off;

	/* Exactly one key attribute. */
	if (nla_len(a) < NLA_HDRLEN || !nla_ok(inner, nla_len(a)) ||
	    nla_total_size(nla_len(inner)) != nla_len(a)) {
		ovsp_fa_refuse(b->log, "set action with %d bytes", nla_len(a));
		return -EINVAL;
	}
	type = nla_type(inner);
	len = nla_len(inner);
	val = nla_data(inner);

	if (type == OVS_KEY_ATTR_TUNNEL) {
		if (masked) {
			ovsp_fa_refuse(b->log, "masked set of the tunnel");
			return -EINVAL;
		}
		return ovsp_copy_set_tunnel(b, inner);
	}

	if (type > OVS_KEY_ATTR_MAX || !ovsp_set_lens[type] ||
	    len != ovsp_set_lens[type] * (masked ? 2 : 1)) {
		ovsp_fa_refuse(b->log, "set of key attribute %u, %zu bytes",
			       type, len);
		return -EINVAL;
	}
	if (masked) {
		size_t i;

		len /= 2;
		mask = val + len;
		for (i = 0; i < len; i++) {
			if (val[i] & ~mask[i]) {
				ovsp_fa_refuse(b->log,
					       "set value outside its mask");
				return -EINVAL;
			}
		}
	}

	switch (type) {
	case OVS_KEY_ATTR_PRIORITY:
	case OVS_KEY_ATTR_SKB_MARK:
		break;
	case OVS_KEY_ATTR_ETHERNET:
		if (ctx->mac_proto != OVSP_MAC_PROTO_ETHERNET)
			goto bad_proto;
		break;
	case OVS_KEY_ATTR_IPV4: {
		const struct ovs_key_ipv4 *k = (const void *)val;

		if (ctx->eth_type != htons(ETH_P_IP))
			goto bad_proto;
		if (masked) {
			const struct ovs_key_ipv4 *m = (const void *)mask;

			if (m->ipv4_proto || m->ipv4_frag)
				goto bad_field;
		} else if (k->ipv4_proto != key->ip.proto ||
			   k->ipv4_frag != key->ip.frag) {
			goto bad_field;
		}
		break;
	}
	case OVS_KEY_ATTR_IPV6: {
		const struct ovs_key_ipv6 *k = (const void *)val;

		if (ctx->eth_type != htons(ETH_P_IPV6))
			goto bad_proto;
		if (k->ipv6_label & ~htonl(0x000fffff))
			goto bad_field;
		if (masked) {
			const struct ovs_key_ipv6 *m = (const void *)mask;

			if (m->ipv6_proto || m->ipv6_frag ||
			    m->ipv6_label & ~htonl(0x000fffff))
				goto bad_field;
		} else if (k->ipv6_proto != key->ip.proto ||
			   k->ipv6_frag != key->ip.frag) {
			goto bad_field;
		}
		break;
	}
	case OVS_KEY_ATTR_TCP:
	case OVS_KEY_ATTR_UDP:
	case OVS_KEY_ATTR_SCTP: {
		u8 proto = type == OVS_KEY_ATTR_TCP ? IPPROTO_TCP
			 : type == OVS_KEY_ATTR_UDP ? IPPROTO_UDP
			 : IPPROTO_SCTP;

		if ((ctx->eth_type != htons(ETH_P_IP) &&
		     ctx->eth_type != htons(ETH_P_IPV6)) ||
		    key->ip.proto != proto)
			goto bad_proto;
		break;
	}
	case OVS_KEY_ATTR_MPLS:
		if (!eth_p_mpls(ctx->eth_type))
			goto bad_proto;
		break;
	}

	if (masked)
		return ovsp_ab_copy(b, a);

	/* A set without a mask is a set_masked of every writable bit. */
	off = ovsp_ab_put(b, OVS_ACTION_ATTR_SET_MASKED, NULL,
			  nla_total_size(2 * len));
	if (off < 0)
		return off;
	inner = (const struct nlattr *)(b->buf + off);
	((struct nlattr *)inner)->nla_type = type;
	((struct nlattr *)inner)->nla_len = nla_attr_size(2 * len);
	memcpy(b->buf + off + NLA_HDRLEN, val, len);
	ovsp_set_full_mask(type, b->buf + off + NLA_HDRLEN + len, len);
	ovsp_ab_end_nested(b, off);
	return 0;

bad_proto:
	ovsp_fa_refuse(b->log, "set of attribute %u on Ethertype %#x",
		       type, ntohs(ctx->eth_type));
	return -EINVAL;
bad_field:
	ovsp_fa_refuse(b->log, "set of a read-only field of attribute %u",
		       type);
	return -EINVAL;
}

/* Validates and copies sample action 'a'.  Returns 0 or a negative
 * errno.
 */
static int ovsp_copy_sample(struct ovsp_acts_builder *b, const struct nlattr *a,
			    const struct ovsp_acts_ctx *ctx, int depth)
{
	const struct nlattr *attrs[OVS_SAMPLE_ATTR_MAX + 1] = { NULL };
	const struct nlattr *nla;
	struct ovsp_act_sample *s;
	int off, rem, err;

	nla_for_each_nested(nla, a, rem) {
		u16 type = nla_type(nla);

		if (!type || type > OVS_SAMPLE_ATTR_MAX || attrs[type]) {
			ovsp_fa_refuse(b->log, "sample attribute %u", type);
			return -EINVAL;
		}
		attrs[type] = nla;
	}
	if (rem || !attrs[OVS_SAMPLE_ATTR_PROBABILITY] ||
	    nla_len(attrs[OVS_SAMPLE_ATTR_PROBABILITY]) != sizeof(u32) ||
	    !attrs[OVS_SAMPLE_ATTR_ACTIONS]) {
		ovsp_fa_refuse(b->log, "malformed sample action");
		return -EINVAL;
	}

	off = ovsp_ab_put(b, OVSP_ACT_SAMPLE, NULL, sizeof(*s));
	if (off < 0)
		return off;
	err = ovsp_copy_list(b, off + offsetof(struct ovsp_act_sample, list),
			     attrs[OVS_SAMPLE_ATTR_ACTIONS], ctx, depth);
	if (err)
		return err;
	s = (struct ovsp_act_sample *)(b->buf + off);
	s->probability = nla_get_u32(attrs[OVS_SAMPLE_ATTR_PROBABILITY]);
	ovsp_ab_end_nested(b, off);
	return 0;
}

/* Validates and copies clone action 'a'.  Returns 0 or a negative errno. */
static int ovsp_copy_clone(struct ovsp_acts_builder *b, const struct nlattr *a,
			   const struct ovsp_acts_ctx *ctx, int depth)
{
	int off, err;

	off = ovsp_ab_put(b, OVSP_ACT_CLONE, NULL, sizeof(struct ovsp_act_list));
	if (off < 0)
		return off;
	err = ovsp_copy_list(b, off, a, ctx, depth);
	if (err)
		return err;
	ovsp_ab_end_nested(b, off);
	return 0;
}

/* Validates and copies check_pkt_len action 'a'.  Returns 0 or a negative
 * errno.
 */
static int ovsp_copy_check_pkt_len(struct ovsp_acts_builder *b,
				   const struct nlattr *a,
				   const struct ovsp_acts_ctx *ctx, int depth)
{
	const struct nlattr *attrs[OVS_CHECK_PKT_LEN_ATTR_MAX + 1] = { NULL };
	struct ovsp_act_check_pkt_len *cpl;
	const struct nlattr *nla;
	int off, le, gt, rem, err;
	u16 pkt_len;

	nla_for_each_nested(nla, a, rem) {
		u16 type = nla_type(nla);

		if (!type || type > OVS_CHECK_PKT_LEN_ATTR_MAX || attrs[type]) {
			ovsp_fa_refuse(b->log, "check_pkt_len attribute %u",
				       type);
			return -EINVAL;
		}
		attrs[type] = nla;
	}
	if (rem || !attrs[OVS_CHECK_PKT_LEN_ATTR_PKT_LEN] ||
	    nla_len(attrs[OVS_CHECK_PKT_LEN_ATTR_PKT_LEN]) != sizeof(u16) ||
	    !attrs[OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_LESS_EQUAL] ||
	    !attrs[OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_GREATER]) {
		ovsp_fa_refuse(b->log, "malformed check_pkt_len action");
		return -EINVAL;
	}
	pkt_len = nla_get_u16(attrs[OVS_CHECK_PKT_LEN_ATTR_PKT_LEN]);
	if (!pkt_len) {
		ovsp_fa_refuse(b->log, "check_pkt_len of 0 bytes");
		return -EINVAL;
	}

	off = ovsp_ab_put(b, OVSP_ACT_CHECK_PKT_LEN, NULL, sizeof(*cpl));
	if (off < 0)
		return off;
	le = ovsp_ab_raw(b, sizeof(struct ovsp_act_list));
	if (le < 0)
		return le;
	err = ovsp_copy_list(b, le,
			     attrs[OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_LESS_EQUAL],
			     ctx, depth);
	if (err)
		return err;
	gt = ovsp_ab_raw(b, sizeof(struct ovsp_act_list));
	if (gt < 0)
		return gt;
	err = ovsp_copy_list(b, gt,
			     attrs[OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_GREATER],
			     ctx, depth);
	if (err)
		return err;
	cpl = (struct ovsp_act_check_pkt_len *)(b->buf + off);
	cpl->pkt_len = pkt_len;
	cpl->le_size = gt - le;
	ovsp_ab_end_nested(b, off);
	return 0;
}

/* True if 'type' is one that MPLS may be pushed on. */
static bool ovsp_mpls_pushable(__be16 type)
{
	return type == htons(ETH_P_IP) || type == htons(ETH_P_IPV6) ||
	       type == htons(ETH_P_ARP) || type == htons(ETH_P_RARP) ||
	       eth_p_mpls(type);
}

/* Argument lengths of the actions carried; -1 for variable. */
static const s16 ovsp_action_lens[OVS_ACTION_ATTR_MAX + 1] = {
	[OVS_ACTION_ATTR_OUTPUT] = sizeof(u32),
	[OVS_ACTION_ATTR_USERSPACE] = -1,
	[OVS_ACTION_ATTR_SET] = -1,
	[OVS_ACTION_ATTR_PUSH_VLAN] = sizeof(struct ovs_action_push_vlan),
	[OVS_ACTION_ATTR_POP_VLAN] = 0,
	[OVS_ACTION_ATTR_SAMPLE] = -1,
	[OVS_ACTION_ATTR_RECIRC] = sizeof(u32),
	[OVS_ACTION_ATTR_HASH] = sizeof(struct ovs_action_hash),
	[OVS_ACTION_ATTR_PUSH_MPLS] = sizeof(struct ovs_action_push_mpls),
	[OVS_ACTION_ATTR_POP_MPLS] = sizeof(__be16),
	[OVS_ACTION_ATTR_SET_MASKED] = -1,
	[OVS_ACTION_ATTR_TRUNC] = sizeof(struct ovs_action_trunc),
	[OVS_ACTION_ATTR_PUSH_ETH] = sizeof(struct ovs_action_push_eth),
	[OVS_ACTION_ATTR_POP_ETH] = 0,
	[OVS_ACTION_ATTR_CLONE] = -1,
	[OVS_ACTION_ATTR_CHECK_PKT_LEN] = -1,
	[OVS_ACTION_ATTR_ADD_MPLS] = sizeof(struct ovs_action_add_mpls),
	[OVS_ACTION_ATTR_METER] = sizeof(u32),
	[OVS_ACTION_ATTR_CT] = -1,
	[OVS_ACTION_ATTR_CT_CLEAR] = 0,
};

/* True if action type 'type' is carried. */
static bool ovsp_action_carried(u16 type)
{
	switch (type) {
	case OVS_ACTION_ATTR_OUTPUT:
	case OVS_ACTION_ATTR_USERSPACE:
	case OVS_ACTION_ATTR_SET:
	case OVS_ACTION_ATTR_PUSH_VLAN:
	case OVS_ACTION_ATTR_POP_VLAN:
	case OVS_ACTION_ATTR_SAMPLE:
	case OVS_ACTION_ATTR_RECIRC:
	case OVS_ACTION_ATTR_HASH:
	case OVS_ACTION_ATTR_PUSH_MPLS:
	case OVS_ACTION_ATTR_POP_MPLS:
	case OVS_ACTION_ATTR_SET_MASKED:
	case OVS_ACTION_ATTR_TRUNC:
	case OVS_ACTION_ATTR_PUSH_ETH:
	case OVS_ACTION_ATTR_POP_ETH:
	case OVS_ACTION_ATTR_CLONE:
	case OVS_ACTION_ATTR_CHECK_PKT_LEN:
	case OVS_ACTION_ATTR_ADD_MPLS:
	case OVS_ACTION_ATTR_METER:
	case OVS_ACTION_ATTR_CT:
	case OVS_ACTION_ATTR_CT_CLEAR:
		return true;
	default:
		/* NSH, dec_ttl, unknown. */
		return false;
	}
}

/* Validates one action 'a' against 'ctx', which it updates, and copies
 * it.  Returns 0 or a negative errno.
 */
static int ovsp_copy_action(struct ovsp_acts_builder *b,
			    const struct nlattr *a,
			    struct ovsp_acts_ctx *ctx, int depth)
{
	u16 type = nla_type(a);

	if (!ovsp_action_carried(type)) {
		ovsp_fa_refuse(b->log, "action %u not supported", type);
		return -EINVAL;
	}
	if (ovsp_action_lens[type] >= 0 &&
	    nla_len(a) != ovsp_action_lens[type]) {
		ovsp_fa_refuse(b->log, "action %u of %d bytes", type,
			       nla_len(a));
		return -EINVAL;
	}

	switch (type) {
	case OVS_ACTION_ATTR_OUTPUT:
		if (nla_get_u32(a) >= OVSP_IN_PORT_NONE)
			goto bad;
		break;
	case OVS_ACTION_ATTR_USERSPACE:
		if (ovsp_check_userspace(a, b->log))
			return -EINVAL;
		break;
	case OVS_ACTION_ATTR_SET:
	case OVS_ACTION_ATTR_SET_MASKED:
		return ovsp_copy_set(b, a, ctx,
				     type == OVS_ACTION_ATTR_SET_MASKED);
	case OVS_ACTION_ATTR_PUSH_VLAN: {
		const struct ovs_action_push_vlan *vlan = nla_data(a);

		if (ctx->mac_proto != OVSP_MAC_PROTO_ETHERNET ||
		    !eth_type_vlan(vlan->vlan_tpid) ||
		    !(vlan->vlan_tci & htons(VLAN_CFI_MASK)))
			goto bad;
		ctx->vlan_tci = vlan->vlan_tci;
		break;
	}
	case OVS_ACTION_ATTR_POP_VLAN:
		if (ctx->mac_proto != OVSP_MAC_PROTO_ETHERNET)
			goto bad;
		ctx->vlan_tci = 0;
		break;
	case OVS_ACTION_ATTR_SAMPLE:
		return ovsp_copy_sample(b, a, ctx, depth);
	case OVS_ACTION_ATTR_RECIRC:
		break;
	case OVS_ACTION_ATTR_METER:
		/* Any id: a meter that does not exist lets packets
		 * through, as in Linux.
		 */
		break;
	case OVS_ACTION_ATTR_HASH: {
		const struct ovs_action_hash *hash = nla_data(a);

		/* Only the L4 hash: ofproto-dpif probes for others. */
		if (hash->hash_alg != OVS_HASH_ALG_L4)
			goto bad;
		break;
	}
	case OVS_ACTION_ATTR_PUSH_MPLS: {
		const struct ovs_action_push_mpls *mpls = nla_data(a);

		if (!eth_p_mpls(mpls->mpls_ethertype) ||
		    ctx->vlan_tci & htons(VLAN_CFI_MASK) ||
		    !ovsp_mpls_pushable(ctx->eth_type))
			goto bad;
		ctx->eth_type = mpls->mpls_ethertype;
		ctx->mpls_labels++;
		break;
	}
	case OVS_ACTION_ATTR_ADD_MPLS: {
		const struct ovs_action_add_mpls *mpls = nla_data(a);

		if (!eth_p_mpls(mpls->mpls_ethertype))
			goto bad;
		if (mpls->tun_flags & OVS_MPLS_L3_TUNNEL_FLAG_MASK) {
			/* After layer 2, as push_mpls. */
			if (ctx->vlan_tci & htons(VLAN_CFI_MASK) ||
			    !ovsp_mpls_pushable(ctx->eth_type))
				goto bad;
			ctx->mpls_labels++;
		} else if (ctx->mac_proto == OVSP_MAC_PROTO_ETHERNET) {
			/* Before the Ethernet header: the packet becomes
			 * layer 3, MPLS over Ethernet.
			 */
			ctx->mpls_labels = 1;
			ctx->mac_proto = OVSP_MAC_PROTO_NONE;
		} else {
			ctx->mpls_labels++;
		}
		ctx->eth_type = mpls->mpls_ethertype;
		break;
	}
	case OVS_ACTION_ATTR_POP_MPLS: {
		__be16 proto = nla_get_be16(a);

		if (ctx->vlan_tci & htons(VLAN_CFI_MASK) ||
		    !eth_p_mpls(ctx->eth_type) || !ctx->mpls_labels ||
		    (proto == htons(ETH_P_TEB) &&
		     ctx->mac_proto != OVSP_MAC_PROTO_NONE))
			goto bad;
		ctx->mpls_labels--;
		/* What follows the last label is not known before a
		 * recirculation: no more L3 set actions.
		 */
		ctx->eth_type = eth_p_mpls(proto) && ctx->mpls_labels ? proto
								      : 0;
		if (proto == htons(ETH_P_TEB))
			ctx->mac_proto = OVSP_MAC_PROTO_ETHERNET;
		break;
	}
	case OVS_ACTION_ATTR_TRUNC: {
		const struct ovs_action_trunc *trunc = nla_data(a);

		if (trunc->max_len < ETH_HLEN)
			goto bad;
		break;
	}
	case OVS_ACTION_ATTR_PUSH_ETH:
		if (ctx->mac_proto != OVSP_MAC_PROTO_NONE)
			goto bad;
		ctx->mac_proto = OVSP_MAC_PROTO_ETHERNET;
		break;
	case OVS_ACTION_ATTR_POP_ETH:
		if (ctx->mac_proto != OVSP_MAC_PROTO_ETHERNET ||
		    ctx->vlan_tci & htons(VLAN_CFI_MASK))
			goto bad;
		ctx->mac_proto = OVSP_MAC_PROTO_NONE;
		break;
	case OVS_ACTION_ATTR_CLONE:
		return ovsp_copy_clone(b, a, ctx, depth);
	case OVS_ACTION_ATTR_CHECK_PKT_LEN:
		return ovsp_copy_check_pkt_len(b, a, ctx, depth);
	case OVS_ACTION_ATTR_CT:
		return ovsp_copy_ct(b, a, ctx);
	case OVS_ACTION_ATTR_CT_CLEAR:
		break;
	}
	return ovsp_ab_copy(b, a);

bad:
	ovsp_fa_refuse(b->log, "action %u invalid here", type);
	return -EINVAL;
}

/* Validates and copies the 'len' bytes of actions at 'list', nested
 * 'depth' deep, starting from view 'ctx'.  Returns 0 or a negative
 * errno.
 */
static int ovsp_copy_actions(struct ovsp_acts_builder *b,
			     const struct nlattr *list, int len,
			     struct ovsp_acts_ctx *ctx, int depth)
{
	const struct nlattr *a;
	int rem, err;

	if (depth > OVSP_ACTIONS_MAX_DEPTH) {
		ovsp_fa_refuse(b->log, "actions nested deeper than %d",
			       OVSP_ACTIONS_MAX_DEPTH);
		return -EINVAL;
	}
	nla_for_each_attr(a, list, len, rem) {
		err = ovsp_copy_action(b, a, ctx, depth);
		if (err)
			return err;
	}
	if (rem) {
		ovsp_fa_refuse(b->log, "%d trailing bytes of actions", rem);
		return -EINVAL;
	}
	return 0;
}

int ovsp_actions_from_nlattrs(struct net *net, const struct nlattr *attr,
			      const struct ovsp_flow_key *key,
			      struct ovsp_actions **actsp, bool log)
{
	struct ovsp_acts_builder b = {
		.orig = nla_data(attr),
		.net = net,
		.log = log,
	};
	struct ovsp_acts_ctx ctx = {
		.key = key,
		.eth_type = key->eth.type,
		.vlan_tci = key->eth.vlan.tci,
		.mpls_labels = eth_p_mpls(key->eth.type)
			       ? hweight32(key->mpls.num_labels_mask) : 0,
		.mac_proto = key->meta.mac_proto,
	};
	struct ovsp_actions *acts = NULL;
	size_t orig_len = nla_len(attr);
	unsigned int i;
	int err;

	*actsp = NULL;
	err = ovsp_ab_reserve(&b, min_t(size_t, 2 * orig_len + 64,
					OVSP_ACTIONS_MAX_SIZE));
	if (!err)
		err = ovsp_copy_actions(&b, nla_data(attr), orig_len, &ctx, 0);
	if (!err) {
		acts = kvmalloc(sizeof(*acts) + NLA_ALIGN(b.len) + orig_len,
				GFP_KERNEL);
		if (!acts)
			err = -ENOMEM;
	}
	if (err) {
		for (i = 0; i < b.n_dsts; i++)
			dst_release(&b.dsts[i]->dst);
		for (i = 0; i < b.n_cts; i++)
			ovsp_ct_info_free(b.cts[i]);
		goto out;
	}

	acts->orig_len = orig_len;
	acts->actions_len = b.len;
	memcpy(acts->actions, b.buf, b.len);
	memcpy((u8 *)ovsp_actions_orig(acts), nla_data(attr), orig_len);
	*actsp = acts;
out:
	kfree(b.cts);
	kfree(b.dsts);
	kvfree(b.buf);
	return err;
}

int ovsp_actions_to_nlattrs(const struct ovsp_actions *acts,
			    struct sk_buff *skb, int attrtype)
{
	return nla_put(skb, attrtype, acts->orig_len, ovsp_actions_orig(acts))
	       ? -EMSGSIZE : 0;
}

size_t ovsp_actions_attr_size(const struct ovsp_actions *acts)
{
	return nla_total_size(acts->orig_len);
}

/* Releases the tunnel dsts held by the 'len' bytes of executable actions
 * at 'list'.
 */
static void ovsp_actions_release(const struct nlattr *list, int len)
{
	const struct nlattr *a;
	int rem;

	nla_for_each_attr(a, list, len, rem) {
		switch (nla_type(a)) {
		case OVSP_ACT_SET_TUNNEL: {
			const struct ovsp_act_set_tunnel *set = nla_data(a);

			dst_release(&set->dst->dst);
			break;
		}
		case OVSP_ACT_CT: {
			const struct ovsp_act_ct *ct = nla_data(a);

			ovsp_ct_info_free(ct->info);
			break;
		}
		case OVSP_ACT_SAMPLE: {
			const struct ovsp_act_sample *s = nla_data(a);

			ovsp_actions_release(ovsp_act_list_actions(&s->list),
					     s->list.len);
			break;
		}
		case OVSP_ACT_CLONE: {
			const struct ovsp_act_list *l = nla_data(a);

			ovsp_actions_release(ovsp_act_list_actions(l), l->len);
			break;
		}
		case OVSP_ACT_CHECK_PKT_LEN: {
			const struct ovsp_act_check_pkt_len *c = nla_data(a);
			const struct ovsp_act_list *le = (const void *)(c + 1);
			const struct ovsp_act_list *gt =
				(const void *)((const u8 *)le + c->le_size);

			ovsp_actions_release(ovsp_act_list_actions(le), le->len);
			ovsp_actions_release(ovsp_act_list_actions(gt), gt->len);
			break;
		}
		}
	}
}

void ovsp_actions_free(struct ovsp_actions *acts)
{
	if (!acts)
		return;
	ovsp_actions_release(acts->actions, acts->actions_len);
	kvfree(acts);
}

/* RCU callback of ovsp_actions_free_rcu(). */
static void ovsp_actions_free_cb(struct rcu_head *rcu)
{
	ovsp_actions_free(container_of(rcu, struct ovsp_actions, rcu));
}

void ovsp_actions_free_rcu(struct ovsp_actions *acts)
{
	if (acts)
		call_rcu(&acts->rcu, ovsp_actions_free_cb);
}

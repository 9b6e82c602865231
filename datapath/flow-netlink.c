// SPDX-License-Identifier: GPL-2.0
/*
 * Flow keys and masks to and from OVS_KEY_ATTR_* netlink attributes.
 *
 * Contract (see flow-netlink.h):
 * - A key is parsed level by level: the top level, then the contents of
 *   OVS_KEY_ATTR_ENCAP for each VLAN tag (two at most).  Every attribute
 *   is checked for type, length and duplication; the attributes this
 *   datapath does not carry (NSH, PACKET_TYPE, ND_EXTENSIONS,
 *   TUNNEL_INFO, IPV6_EXTHDRS) and any attribute that the key's protocols
 *   do not explain are refused with -EINVAL.  So is a key without every
 *   attribute its protocols explain, as Linux's match_validate() refuses
 *   it: IPV4, IPV6, ARP or MPLS for its Ethertype, then (but in a later
 *   fragment) TCP with TCP_FLAGS, UDP, SCTP, ICMP or ICMPV6 for its IP
 *   protocol, and ND for a neighbour solicitation or advertisement of
 *   any code.
 * - The conntrack attributes (CT_STATE, CT_ZONE, CT_MARK, CT_LABELS) are
 *   metadata, accepted in any key, and in a mask whose key has them; a
 *   ct_state bit that ct() cannot set (none of Linux's OVS_CS_F_* bits)
 *   is refused.  An original tuple must be of the key's family, and its
 *   mask needs an exact Ethertype and a key without ND.
 * - A mask mirrors its key: the ETHERTYPE of a VLAN level is the TPID's
 *   mask, and the ENCAP of the mask holds the masks of the key's ENCAP.  A
 *   mask attribute that is all zero is ignored, as if absent.  A mask for
 *   a layer-3 or layer-4 field needs an exact match on what makes the field
 *   exist (Ethertype, IP protocol, ICMPv6 type), as ofproto-dpif's probes
 *   expect.  mac_proto, the VLAN TCIs and (when given) in_port are always
 *   matched exactly.
 * - No mask means an exact match on every field the key has, tunnel
 *   included.
 * - Output follows the layout of OVS 3.1's odp-util: metadata first, the
 *   tunnel, in_port, Ethernet, VLANs as ETHERTYPE+VLAN+ENCAP, the
 *   Ethertype, then layers 3 and 4.  A mask is written in the shape of its
 *   key, with the mask's values.
 *
 * Parsing may sleep (flow commands run in process context); output runs
 * under RCU or ovsp_lock and writes only the reply skb.
 */
#include <linux/etherdevice.h>
#include <linux/icmpv6.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/kernel.h>
#include <linux/net.h>
#include <linux/openvswitch.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/erspan.h>
#include <net/ip_tunnels.h>
#include <net/ipv6.h>
#include <net/mpls.h>
#include <net/ndisc.h>
#include <net/netlink.h>
#include <net/vxlan.h>

#include "conntrack.h"
#include "flow-key.h"
#include "flow-netlink.h"

/* Logs a refusal of userspace input when 'log' is true, rate-limited. */
#define ovsp_fnl_refuse(log, fmt, ...)					\
	do {								\
		if (log)						\
			net_info_ratelimited("ovs_percpu: flow key: "	\
					     fmt "\n", ##__VA_ARGS__);	\
	} while (0)

/* The levels of a key: the top level and one per VLAN tag. */
#define OVSP_KEY_LEVELS 3

/* The most MPLS labels a key attribute may carry. */
#define OVSP_KEY_MPLS_MAX_LEN (OVSP_MPLS_LABEL_DEPTH * sizeof(__be32))

/* Attribute lengths that are not a fixed number of bytes. */
#define OVSP_LEN_NESTED (-1)		/* Nested attributes. */
#define OVSP_LEN_VAR (-2)		/* Checked by the attribute's parser. */

/* What the parser knows of one OVS_KEY_ATTR_* type. */
struct ovsp_key_attr_info {
	s16 len;	/* Payload bytes or OVSP_LEN_*; 0: refused. */
	bool inner;	/* May appear inside OVS_KEY_ATTR_ENCAP. */
};

/* The key attributes this datapath carries.  The others (NSH,
 * PACKET_TYPE, ND_EXTENSIONS, TUNNEL_INFO, IPV6_EXTHDRS) are refused, so
 * that ofproto-dpif's probes find them unsupported.
 */
static const struct ovsp_key_attr_info ovsp_key_attrs[OVS_KEY_ATTR_MAX + 1] = {
	[OVS_KEY_ATTR_ENCAP] = { OVSP_LEN_NESTED, true },
	[OVS_KEY_ATTR_PRIORITY] = { sizeof(u32), false },
	[OVS_KEY_ATTR_IN_PORT] = { sizeof(u32), false },
	[OVS_KEY_ATTR_ETHERNET] = { sizeof(struct ovs_key_ethernet), false },
	[OVS_KEY_ATTR_VLAN] = { sizeof(__be16), true },
	[OVS_KEY_ATTR_ETHERTYPE] = { sizeof(__be16), true },
	[OVS_KEY_ATTR_IPV4] = { sizeof(struct ovs_key_ipv4), true },
	[OVS_KEY_ATTR_IPV6] = { sizeof(struct ovs_key_ipv6), true },
	[OVS_KEY_ATTR_TCP] = { sizeof(struct ovs_key_tcp), true },
	[OVS_KEY_ATTR_UDP] = { sizeof(struct ovs_key_udp), true },
	[OVS_KEY_ATTR_ICMP] = { sizeof(struct ovs_key_icmp), true },
	[OVS_KEY_ATTR_ICMPV6] = { sizeof(struct ovs_key_icmpv6), true },
	[OVS_KEY_ATTR_ARP] = { sizeof(struct ovs_key_arp), true },
	[OVS_KEY_ATTR_ND] = { sizeof(struct ovs_key_nd), true },
	[OVS_KEY_ATTR_SKB_MARK] = { sizeof(u32), false },
	[OVS_KEY_ATTR_TUNNEL] = { OVSP_LEN_NESTED, false },
	[OVS_KEY_ATTR_SCTP] = { sizeof(struct ovs_key_sctp), true },
	[OVS_KEY_ATTR_TCP_FLAGS] = { sizeof(__be16), true },
	[OVS_KEY_ATTR_DP_HASH] = { sizeof(u32), false },
	[OVS_KEY_ATTR_RECIRC_ID] = { sizeof(u32), false },
	[OVS_KEY_ATTR_MPLS] = { OVSP_LEN_VAR, true },
	[OVS_KEY_ATTR_CT_STATE] = { sizeof(u32), false },
	[OVS_KEY_ATTR_CT_ZONE] = { sizeof(u16), false },
	[OVS_KEY_ATTR_CT_MARK] = { sizeof(u32), false },
	[OVS_KEY_ATTR_CT_LABELS] = { OVSP_CT_LABELS_LEN, false },
	[OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV4] = {
		sizeof(struct ovs_key_ct_tuple_ipv4), false },
	[OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6] = {
		sizeof(struct ovs_key_ct_tuple_ipv6), false },
};

/* Payload lengths of the OVS_TUNNEL_KEY_ATTR_* types carried; 0 for a
 * flag, -1 (OVSP_LEN_*) for the variable ones.
 */
static const s16 ovsp_tun_attr_lens[OVS_TUNNEL_KEY_ATTR_MAX + 1] = {
	[OVS_TUNNEL_KEY_ATTR_ID] = sizeof(__be64),
	[OVS_TUNNEL_KEY_ATTR_IPV4_SRC] = sizeof(__be32),
	[OVS_TUNNEL_KEY_ATTR_IPV4_DST] = sizeof(__be32),
	[OVS_TUNNEL_KEY_ATTR_TOS] = 1,
	[OVS_TUNNEL_KEY_ATTR_TTL] = 1,
	[OVS_TUNNEL_KEY_ATTR_DONT_FRAGMENT] = 0,
	[OVS_TUNNEL_KEY_ATTR_CSUM] = 0,
	[OVS_TUNNEL_KEY_ATTR_OAM] = 0,
	[OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS] = OVSP_LEN_VAR,
	[OVS_TUNNEL_KEY_ATTR_TP_SRC] = sizeof(__be16),
	[OVS_TUNNEL_KEY_ATTR_TP_DST] = sizeof(__be16),
	[OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS] = OVSP_LEN_NESTED,
	[OVS_TUNNEL_KEY_ATTR_IPV6_SRC] = sizeof(struct in6_addr),
	[OVS_TUNNEL_KEY_ATTR_IPV6_DST] = sizeof(struct in6_addr),
	[OVS_TUNNEL_KEY_ATTR_PAD] = OVSP_LEN_VAR,
	[OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS] = sizeof(struct erspan_metadata),
	[OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE] = 0,
};

/* The attributes of one level of a key or mask, by type. */
struct ovsp_key_level {
	const struct nlattr *a[OVS_KEY_ATTR_MAX + 1];	/* NULL if absent. */
	u64 present;			/* Bit 'type' set if a[type]. */
};

/* All levels of a key or mask. */
struct ovsp_key_attrs {
	struct ovsp_key_level lv[OVSP_KEY_LEVELS];
	int n_levels;			/* Levels parsed, 1 or more. */
};

/* How ovsp_key_from_attrs() reads attributes. */
enum ovsp_parse_mode {
	OVSP_PARSE_KEY,		/* A flow key. */
	OVSP_PARSE_MASK,	/* A mask, given the key it masks. */
	OVSP_PARSE_EXACT,	/* The key's attributes, every bit taken as 1:
				 * the exact-match mask of a key.
				 */
};

/* One parse of a key, a mask or an exact mask. */
struct ovsp_key_parse {
	struct ovsp_flow_key *out;	/* Where the values go. */
	const struct ovsp_flow_key *key; /* The parsed key, when 'out' is a
					  * mask.
					  */
	const struct ovsp_key_attrs *attrs; /* The attributes. */
	enum ovsp_parse_mode mode;
	bool log;			/* Log refusals. */
};

/* All ones, the value of every attribute in OVSP_PARSE_EXACT mode; as
 * long as the longest fixed-size key attribute.
 */
static const u8 ovsp_ones[sizeof(struct ovs_key_ipv6)] = {
	[0 ... sizeof(struct ovs_key_ipv6) - 1] = 0xff
};

/* True if the 'len' bytes at 'p' are all zero. */
static bool ovsp_all_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/* The value of attribute 'a' as 'p' reads it. */
static const void *ovsp_attr_val(const struct ovsp_key_parse *p,
				 const struct nlattr *a)
{
	BUILD_BUG_ON(sizeof(ovsp_ones) < OVSP_KEY_MPLS_MAX_LEN);
	BUILD_BUG_ON(sizeof(ovsp_ones) < sizeof(struct ovs_key_ct_tuple_ipv6));
	return p->mode == OVSP_PARSE_EXACT ? ovsp_ones : nla_data(a);
}

/* The be16 value of attribute 'a' as 'p' reads it. */
static __be16 ovsp_attr_be16(const struct ovsp_key_parse *p,
			     const struct nlattr *a)
{
	return *(const __be16 *)ovsp_attr_val(p, a);
}

/* The u32 value of attribute 'a' as 'p' reads it. */
static u32 ovsp_attr_u32(const struct ovsp_key_parse *p,
			 const struct nlattr *a)
{
	return *(const u32 *)ovsp_attr_val(p, a);
}

/* Parses the attributes nested in 'nla' into level 'depth' of 'attrs',
 * then the levels inside its OVS_KEY_ATTR_ENCAP.  'mask' ignores all-zero
 * attributes.  Returns 0 or -EINVAL.
 */
static int ovsp_parse_level(const struct nlattr *nla, int depth, bool mask,
			    struct ovsp_key_attrs *attrs, bool log)
{
	struct ovsp_key_level *lv = &attrs->lv[depth];
	const struct nlattr *a;
	int rem;

	attrs->n_levels = depth + 1;
	nla_for_each_nested(a, nla, rem) {
		u16 type = nla_type(a);
		const struct ovsp_key_attr_info *info;

		if (type > OVS_KEY_ATTR_MAX || !ovsp_key_attrs[type].len) {
			ovsp_fnl_refuse(log, "attribute %u not supported",
					type);
			return -EINVAL;
		}
		info = &ovsp_key_attrs[type];
		if (depth && !info->inner) {
			ovsp_fnl_refuse(log, "attribute %u inside encap", type);
			return -EINVAL;
		}
		if (lv->present & BIT_ULL(type)) {
			ovsp_fnl_refuse(log, "duplicate attribute %u", type);
			return -EINVAL;
		}
		if (info->len >= 0 && nla_len(a) != info->len) {
			ovsp_fnl_refuse(log, "attribute %u has length %d",
					type, nla_len(a));
			return -EINVAL;
		}
		if (mask && ovsp_all_zero(nla_data(a), nla_len(a)))
			continue;
		if (type == OVS_KEY_ATTR_MPLS &&
		    (!nla_len(a) || nla_len(a) % sizeof(__be32) ||
		     nla_len(a) > OVSP_KEY_MPLS_MAX_LEN)) {
			ovsp_fnl_refuse(log, "%d bytes of MPLS labels",
					nla_len(a));
			return -EINVAL;
		}
		lv->a[type] = a;
		lv->present |= BIT_ULL(type);
	}
	if (rem) {
		ovsp_fnl_refuse(log, "%d trailing bytes", rem);
		return -EINVAL;
	}

	if (lv->a[OVS_KEY_ATTR_ENCAP]) {
		if (depth + 1 >= OVSP_KEY_LEVELS) {
			ovsp_fnl_refuse(log, "more than %d VLAN tags",
					OVSP_KEY_LEVELS - 1);
			return -EINVAL;
		}
		return ovsp_parse_level(lv->a[OVS_KEY_ATTR_ENCAP], depth + 1,
					mask, attrs, log);
	}
	return 0;
}

/* Parses OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS 'attr' into '*gbp'.  Returns 0 or
 * -EINVAL.
 */
static int ovsp_vxlan_opts_from_nlattr(const struct nlattr *attr, u32 *gbp,
				       bool log)
{
	const struct nlattr *a;
	bool seen = false;
	int rem;

	nla_for_each_nested(a, attr, rem) {
		if (nla_type(a) != OVS_VXLAN_EXT_GBP ||
		    nla_len(a) != sizeof(u32) || seen) {
			ovsp_fnl_refuse(log, "bad vxlan option %u",
					nla_type(a));
			return -EINVAL;
		}
		*gbp = nla_get_u32(a);
		seen = true;
	}
	if (rem) {
		ovsp_fnl_refuse(log, "%d trailing bytes in vxlan options", rem);
		return -EINVAL;
	}
	return 0;
}

/* Parses the tunnel attributes nested in 'attr' into 'out' (a key or a
 * mask, by 'mode'; 'key' is the parsed key when 'out' is a mask).  Sets
 * '*bridge' for IPV4_INFO_BRIDGE.  Returns 0 or -EINVAL.
 */
static int ovsp_tun_from_nlattr(const struct nlattr *attr,
				struct ovsp_flow_key *out,
				const struct ovsp_flow_key *key,
				bool is_mask, bool *bridge, bool log)
{
	struct ip_tunnel_key *tun = &out->tun_key;
	bool ipv4 = false, ipv6 = false, ttl = false;
	__be16 flags = 0;
	u32 seen = 0;
	const struct nlattr *a;
	int opts_len = -1;
	int rem;

	*bridge = false;
	nla_for_each_nested(a, attr, rem) {
		u16 type = nla_type(a);
		int len = nla_len(a);

		if (type > OVS_TUNNEL_KEY_ATTR_MAX ||
		    (ovsp_tun_attr_lens[type] >= 0 &&
		     len != ovsp_tun_attr_lens[type])) {
			ovsp_fnl_refuse(log, "tunnel attribute %u, length %d",
					type, len);
			return -EINVAL;
		}
		if (seen & BIT(type)) {
			ovsp_fnl_refuse(log, "duplicate tunnel attribute %u",
					type);
			return -EINVAL;
		}
		seen |= BIT(type);

		switch (type) {
		case OVS_TUNNEL_KEY_ATTR_ID:
			tun->tun_id = nla_get_be64(a);
			flags |= TUNNEL_KEY;
			break;
		case OVS_TUNNEL_KEY_ATTR_IPV4_SRC:
			tun->u.ipv4.src = nla_get_in_addr(a);
			ipv4 = true;
			break;
		case OVS_TUNNEL_KEY_ATTR_IPV4_DST:
			tun->u.ipv4.dst = nla_get_in_addr(a);
			ipv4 = true;
			break;
		case OVS_TUNNEL_KEY_ATTR_IPV6_SRC:
			tun->u.ipv6.src = nla_get_in6_addr(a);
			ipv6 = true;
			break;
		case OVS_TUNNEL_KEY_ATTR_IPV6_DST:
			tun->u.ipv6.dst = nla_get_in6_addr(a);
			ipv6 = true;
			break;
		case OVS_TUNNEL_KEY_ATTR_TOS:
			tun->tos = nla_get_u8(a);
			break;
		case OVS_TUNNEL_KEY_ATTR_TTL:
			tun->ttl = nla_get_u8(a);
			ttl = true;
			break;
		case OVS_TUNNEL_KEY_ATTR_DONT_FRAGMENT:
			flags |= TUNNEL_DONT_FRAGMENT;
			break;
		case OVS_TUNNEL_KEY_ATTR_CSUM:
			flags |= TUNNEL_CSUM;
			break;
		case OVS_TUNNEL_KEY_ATTR_OAM:
			flags |= TUNNEL_OAM;
			break;
		case OVS_TUNNEL_KEY_ATTR_TP_SRC:
			tun->tp_src = nla_get_be16(a);
			break;
		case OVS_TUNNEL_KEY_ATTR_TP_DST:
			tun->tp_dst = nla_get_be16(a);
			break;
		case OVS_TUNNEL_KEY_ATTR_PAD:
			break;
		case OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE:
			*bridge = true;
			ipv4 = true;
			break;
		case OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS:
		case OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS:
		case OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS:
			if (opts_len >= 0) {
				ovsp_fnl_refuse(log, "two tunnel option blocks");
				return -EINVAL;
			}
			if (type == OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS) {
				if (len > sizeof(out->tun_opts) || len % 4) {
					ovsp_fnl_refuse(log,
							"geneve options of %d bytes",
							len);
					return -EINVAL;
				}
				memcpy(out->tun_opts, nla_data(a), len);
				opts_len = len;
				flags |= TUNNEL_GENEVE_OPT;
			} else if (type == OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS) {
				struct vxlan_metadata md = { 0 };

				if (ovsp_vxlan_opts_from_nlattr(a, &md.gbp,
								log))
					return -EINVAL;
				memcpy(out->tun_opts, &md, sizeof(md));
				opts_len = sizeof(md);
				flags |= TUNNEL_VXLAN_OPT;
			} else {
				memcpy(out->tun_opts, nla_data(a), len);
				opts_len = len;
				flags |= TUNNEL_ERSPAN_OPT;
			}
			break;
		default:
			ovsp_fnl_refuse(log, "tunnel attribute %u not supported",
					type);
			return -EINVAL;
		}
	}
	if (rem) {
		ovsp_fnl_refuse(log, "%d trailing bytes in tunnel", rem);
		return -EINVAL;
	}
	if (ipv4 && ipv6) {
		ovsp_fnl_refuse(log, "tunnel with IPv4 and IPv6 addresses");
		return -EINVAL;
	}

	tun->tun_flags = flags;
	if (is_mask) {
		/* The options of a mask have the length of the key's. */
		if (opts_len >= 0 && opts_len != key->tun_opts_len) {
			ovsp_fnl_refuse(log, "tunnel option mask of %d bytes",
					opts_len);
			return -EINVAL;
		}
		out->meta.tun_proto = 0xff;
		if (opts_len >= 0)
			out->tun_opts_len = 0xff;
		return 0;
	}

	if (*bridge) {
		if (tun->u.ipv4.src || tun->u.ipv4.dst || tun->tp_src ||
		    tun->tp_dst || tun->ttl || tun->tos ||
		    flags & ~TUNNEL_KEY) {
			ovsp_fnl_refuse(log, "bridge tunnel info with addresses");
			return -EINVAL;
		}
	} else if (ipv4 ? !tun->u.ipv4.dst
			: !ipv6 || ipv6_addr_any(&tun->u.ipv6.dst)) {
		ovsp_fnl_refuse(log, "tunnel without a destination");
		return -EINVAL;
	} else if (!ttl) {
		ovsp_fnl_refuse(log, "tunnel without a TTL");
		return -EINVAL;
	}
	out->meta.tun_proto = ipv6 ? AF_INET6 : AF_INET;
	out->tun_opts_len = opts_len > 0 ? opts_len : 0;
	return 0;
}

int ovsp_tunnel_key_from_nlattr(const struct nlattr *attr,
				struct ovsp_flow_key *key, bool *bridge,
				bool log)
{
	return ovsp_tun_from_nlattr(attr, key, NULL, false, bridge, log);
}

/* The metadata of level 0: recirc_id, dp_hash, priority, skb_mark,
 * in_port, tunnel, mac_proto.  Returns 0 or -EINVAL.
 */
static int ovsp_key_metadata(const struct ovsp_key_parse *p)
{
	const struct ovsp_key_level *lv = &p->attrs->lv[0];
	const struct nlattr *const *a = lv->a;
	struct ovsp_flow_key *out = p->out;
	bool is_mask = p->mode != OVSP_PARSE_KEY;
	bool bridge;

	if (a[OVS_KEY_ATTR_RECIRC_ID])
		out->meta.recirc_id = ovsp_attr_u32(p, a[OVS_KEY_ATTR_RECIRC_ID]);
	if (a[OVS_KEY_ATTR_DP_HASH])
		out->meta.dp_hash = ovsp_attr_u32(p, a[OVS_KEY_ATTR_DP_HASH]);
	if (a[OVS_KEY_ATTR_PRIORITY])
		out->meta.priority = ovsp_attr_u32(p, a[OVS_KEY_ATTR_PRIORITY]);
	if (a[OVS_KEY_ATTR_SKB_MARK])
		out->meta.skb_mark = ovsp_attr_u32(p, a[OVS_KEY_ATTR_SKB_MARK]);

	if (is_mask) {
		/* in_port, when given, is always matched exactly. */
		if (a[OVS_KEY_ATTR_IN_PORT])
			out->meta.in_port = 0xffff;
		out->meta.mac_proto = 0xff;
	} else {
		out->meta.in_port = OVSP_IN_PORT_NONE;
		if (a[OVS_KEY_ATTR_IN_PORT]) {
			u32 port = nla_get_u32(a[OVS_KEY_ATTR_IN_PORT]);

			if (port >= OVSP_IN_PORT_NONE) {
				ovsp_fnl_refuse(p->log, "in_port %u", port);
				return -EINVAL;
			}
			out->meta.in_port = port;
		}
		out->meta.mac_proto = !a[OVS_KEY_ATTR_ETHERNET] &&
				      a[OVS_KEY_ATTR_ETHERTYPE]
				      ? OVSP_MAC_PROTO_NONE
				      : OVSP_MAC_PROTO_ETHERNET;
	}

	if (a[OVS_KEY_ATTR_TUNNEL]) {
		if (p->mode == OVSP_PARSE_EXACT) {
			/* Userspace leaves zero tunnel fields out, but they
			 * are matched too.
			 */
			memset(&out->tun_key, 0xff, sizeof(out->tun_key));
			out->meta.tun_proto = 0xff;
			if (p->key->tun_opts_len) {
				out->tun_opts_len = 0xff;
				memset(out->tun_opts, 0xff,
				       p->key->tun_opts_len);
			}
		} else if (ovsp_tun_from_nlattr(a[OVS_KEY_ATTR_TUNNEL], out,
						p->key, is_mask, &bridge,
						p->log)) {
			return -EINVAL;
		} else if (bridge) {
			ovsp_fnl_refuse(p->log, "bridge tunnel info in a key");
			return -EINVAL;
		}
	}
	return 0;
}

/* True if 'key' is an ICMPv6 neighbour solicitation or advertisement
 * (of any code, as Linux's match_validate() has it): its key carries
 * OVS_KEY_ATTR_ND, whose fields share room with an IPv6 original tuple.
 */
static bool ovsp_key_is_nd(const struct ovsp_flow_key *key)
{
	return key->eth.type == htons(ETH_P_IPV6) &&
	       key->ip.frag != OVS_FRAG_TYPE_LATER &&
	       key->ip.proto == IPPROTO_ICMPV6 &&
	       (key->tp.src == htons(NDISC_NEIGHBOUR_SOLICITATION) ||
		key->tp.src == htons(NDISC_NEIGHBOUR_ADVERTISEMENT));
}

/* The conntrack metadata of level 0.  With 'check_family' (a flow, whose
 * Ethertype is parsed), an original tuple must be of the key's family and
 * its mask needs an exact Ethertype.  Returns 0 or -EINVAL.
 */
static int ovsp_key_ct(const struct ovsp_key_parse *p, bool check_family)
{
	const struct nlattr *const *a = p->attrs->lv[0].a;
	const struct nlattr *t4 = a[OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV4];
	const struct nlattr *t6 = a[OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6];
	const struct ovsp_flow_key *key = p->key ? p->key : p->out;
	struct ovsp_flow_key *out = p->out;

	if (a[OVS_KEY_ATTR_CT_STATE]) {
		u32 state = ovsp_attr_u32(p, a[OVS_KEY_ATTR_CT_STATE]);

		if (p->mode == OVSP_PARSE_EXACT) {
			state = OVSP_CT_STATE_SUPPORTED;
		} else if (state & ~OVSP_CT_STATE_SUPPORTED) {
			ovsp_fnl_refuse(p->log, "ct_state %#x", state);
			return -EINVAL;
		}
		out->ct.state = state;
	}
	if (a[OVS_KEY_ATTR_CT_ZONE])
		out->ct.zone = *(const u16 *)ovsp_attr_val(p,
						a[OVS_KEY_ATTR_CT_ZONE]);
	if (a[OVS_KEY_ATTR_CT_MARK])
		out->ct.mark = ovsp_attr_u32(p, a[OVS_KEY_ATTR_CT_MARK]);
	if (a[OVS_KEY_ATTR_CT_LABELS])
		memcpy(out->ct.labels,
		       ovsp_attr_val(p, a[OVS_KEY_ATTR_CT_LABELS]),
		       OVSP_CT_LABELS_LEN);
	if (!t4 && !t6)
		return 0;

	if (t4 && t6) {
		ovsp_fnl_refuse(p->log, "IPv4 and IPv6 original tuples");
		return -EINVAL;
	}
	if (check_family &&
	    (key->eth.type != (t4 ? htons(ETH_P_IP) : htons(ETH_P_IPV6)) ||
	     (p->mode == OVSP_PARSE_MASK && out->eth.type != htons(0xffff)))) {
		ovsp_fnl_refuse(p->log, "original tuple for Ethertype %#x",
				ntohs(key->eth.type));
		return -EINVAL;
	}
	/* Linux's match_validate() takes ND and an IPv6 original tuple
	 * together in a key, but never in its mask (exact or given).
	 */
	if (t6 && p->mode != OVSP_PARSE_KEY && ovsp_key_is_nd(key)) {
		ovsp_fnl_refuse(p->log, "original tuple masked with ND");
		return -EINVAL;
	}
	if (t4) {
		const struct ovs_key_ct_tuple_ipv4 *t = ovsp_attr_val(p, t4);

		out->ct.orig.ipv4.src = t->ipv4_src;
		out->ct.orig.ipv4.dst = t->ipv4_dst;
		out->ct.orig_tp_src = t->src_port;
		out->ct.orig_tp_dst = t->dst_port;
		out->ct.orig_proto = t->ipv4_proto;
	} else {
		const struct ovs_key_ct_tuple_ipv6 *t = ovsp_attr_val(p, t6);

		memcpy(&out->ct.orig.ipv6.src, t->ipv6_src,
		       sizeof(out->ct.orig.ipv6.src));
		memcpy(&out->ct.orig.ipv6.dst, t->ipv6_dst,
		       sizeof(out->ct.orig.ipv6.dst));
		out->ct.orig_tp_src = t->src_port;
		out->ct.orig_tp_dst = t->dst_port;
		out->ct.orig_proto = t->ipv6_proto;
	}
	return 0;
}

/* Layer 2 of a key or mask: Ethernet addresses, VLAN tags, Ethertype.
 * Sets '*l3' to the level that holds layers 3 and 4 (NULL if none may
 * follow).  Returns 0 or -EINVAL.
 */
static int ovsp_key_l2(const struct ovsp_key_parse *p,
		       const struct ovsp_key_level **l3)
{
	const struct ovsp_key_attrs *attrs = p->attrs;
	const struct nlattr *const *a0 = attrs->lv[0].a;
	const struct ovsp_flow_key *key = p->key ? p->key : p->out;
	struct ovsp_flow_key *out = p->out;
	bool is_mask = p->mode != OVSP_PARSE_KEY;
	int i;

	*l3 = NULL;
	if (!is_mask && key->meta.mac_proto == OVSP_MAC_PROTO_ETHERNET &&
	    !a0[OVS_KEY_ATTR_ETHERNET]) {
		ovsp_fnl_refuse(p->log, "neither Ethernet nor Ethertype");
		return -EINVAL;
	}
	if (a0[OVS_KEY_ATTR_ETHERNET]) {
		const struct ovs_key_ethernet *eth;

		if (key->meta.mac_proto != OVSP_MAC_PROTO_ETHERNET) {
			ovsp_fnl_refuse(p->log, "Ethernet mask of an L3 flow");
			return -EINVAL;
		}
		eth = ovsp_attr_val(p, a0[OVS_KEY_ATTR_ETHERNET]);
		ether_addr_copy(out->eth.src, eth->eth_src);
		ether_addr_copy(out->eth.dst, eth->eth_dst);
	}

	if (is_mask) {
		/* The TCIs are always matched: "no tag" is a match too. */
		out->eth.vlan.tci = htons(0xffff);
		out->eth.cvlan.tci = htons(0xffff);
	}

	if (key->meta.mac_proto == OVSP_MAC_PROTO_NONE) {
		if (a0[OVS_KEY_ATTR_VLAN] || a0[OVS_KEY_ATTR_ENCAP]) {
			ovsp_fnl_refuse(p->log, "VLAN in a layer-3 flow");
			return -EINVAL;
		}
		if (is_mask) {
			out->eth.type = htons(0xffff);
		} else {
			out->eth.type = nla_get_be16(a0[OVS_KEY_ATTR_ETHERTYPE]);
			if (!eth_proto_is_802_3(out->eth.type) ||
			    eth_type_vlan(out->eth.type)) {
				ovsp_fnl_refuse(p->log, "L3 Ethertype %#x",
						ntohs(out->eth.type));
				return -EINVAL;
			}
		}
		*l3 = &attrs->lv[0];
		return 0;
	}

	for (i = 0; i < OVSP_KEY_LEVELS; i++) {
		const struct ovsp_key_level *lv = i < attrs->n_levels
						  ? &attrs->lv[i] : NULL;
		const struct nlattr *type_a = lv ? lv->a[OVS_KEY_ATTR_ETHERTYPE]
						 : NULL;
		const struct nlattr *vlan_a = lv ? lv->a[OVS_KEY_ATTR_VLAN]
						 : NULL;
		const struct nlattr *encap_a = lv ? lv->a[OVS_KEY_ATTR_ENCAP]
						  : NULL;
		struct ovsp_vlan *out_vlan = i ? &out->eth.cvlan
					       : &out->eth.vlan;
		const struct ovsp_vlan *key_vlan = i ? &key->eth.cvlan
						     : &key->eth.vlan;
		__be16 type;

		if (!is_mask) {
			type = type_a ? nla_get_be16(type_a)
				      : htons(ETH_P_802_2);
			if (i < OVSP_KEY_LEVELS - 1 && type_a &&
			    eth_type_vlan(type)) {
				__be16 tci;

				if (!vlan_a || !encap_a) {
					ovsp_fnl_refuse(p->log,
							"VLAN without TCI or encap");
					return -EINVAL;
				}
				tci = nla_get_be16(vlan_a);
				if (tci & htons(VLAN_CFI_MASK)) {
					out_vlan->tpid = type;
					out_vlan->tci = tci;
					continue;
				}
				if (tci || nla_len(encap_a)) {
					ovsp_fnl_refuse(p->log,
							"VLAN TCI %#x without CFI",
							ntohs(tci));
					return -EINVAL;
				}
				/* A truncated tag: its TPID is the type. */
				out->eth.type = type;
				return 0;
			}
			if (vlan_a || encap_a) {
				ovsp_fnl_refuse(p->log, "VLAN on type %#x",
						ntohs(type));
				return -EINVAL;
			}
			if (type_a && !eth_proto_is_802_3(type)) {
				ovsp_fnl_refuse(p->log, "Ethertype %#x",
						ntohs(type));
				return -EINVAL;
			}
			out->eth.type = type;
			*l3 = lv;
			return 0;
		}

		/* A mask, in the shape of the key. */
		if (i < OVSP_KEY_LEVELS - 1 &&
		    key_vlan->tci & htons(VLAN_CFI_MASK)) {
			out_vlan->tpid = type_a ? ovsp_attr_be16(p, type_a) : 0;
			if (vlan_a)
				out_vlan->tci = ovsp_attr_be16(p, vlan_a);
			if (!(out_vlan->tci & htons(VLAN_CFI_MASK))) {
				ovsp_fnl_refuse(p->log,
						"VLAN mask without CFI");
				return -EINVAL;
			}
			if (!encap_a)
				return 0;
			if (out_vlan->tpid != htons(0xffff)) {
				ovsp_fnl_refuse(p->log, "TPID mask %#x",
						ntohs(out_vlan->tpid));
				return -EINVAL;
			}
			continue;
		}
		if (encap_a || (vlan_a && !(i < OVSP_KEY_LEVELS - 1 &&
					    eth_type_vlan(key->eth.type)))) {
			ovsp_fnl_refuse(p->log, "VLAN mask for no VLAN");
			return -EINVAL;
		}
		if (vlan_a)
			out_vlan->tci = ovsp_attr_be16(p, vlan_a);
		if (type_a)
			out->eth.type = htons(0xffff);
		*l3 = lv;
		return 0;
	}
	return 0;
}

/* The layer-3 and layer-4 attributes that 'key' must have (for a key) or
 * may have (for a mask 'mask', which it checks by the key's protocols),
 * as bits by type: Linux's match_validate() sets.  Attributes outside the
 * set are refused; for a key, every attribute in the set is required.
 */
static u64 ovsp_l3_attrs(const struct ovsp_flow_key *key,
			 const struct ovsp_flow_key *mask)
{
	__be16 type = key->eth.type;
	bool l3_exact = !mask || mask->eth.type == htons(0xffff);
	bool l4_exact = !mask || mask->ip.proto == 0xff;
	u64 l3 = 0, l4 = 0;

	if (type == htons(ETH_P_ARP) || type == htons(ETH_P_RARP))
		l3 = BIT_ULL(OVS_KEY_ATTR_ARP);
	else if (eth_p_mpls(type))
		l3 = BIT_ULL(OVS_KEY_ATTR_MPLS);
	else if (type == htons(ETH_P_IP))
		l3 = BIT_ULL(OVS_KEY_ATTR_IPV4);
	else if (type == htons(ETH_P_IPV6))
		l3 = BIT_ULL(OVS_KEY_ATTR_IPV6);
	if (!l3_exact)
		l3 = 0;

	if ((type == htons(ETH_P_IP) || type == htons(ETH_P_IPV6)) &&
	    key->ip.frag != OVS_FRAG_TYPE_LATER) {
		switch (key->ip.proto) {
		case IPPROTO_TCP:
			l4 = BIT_ULL(OVS_KEY_ATTR_TCP) |
			     BIT_ULL(OVS_KEY_ATTR_TCP_FLAGS);
			break;
		case IPPROTO_UDP:
			l4 = BIT_ULL(OVS_KEY_ATTR_UDP);
			break;
		case IPPROTO_SCTP:
			l4 = BIT_ULL(OVS_KEY_ATTR_SCTP);
			break;
		case IPPROTO_ICMP:
			if (type == htons(ETH_P_IP))
				l4 = BIT_ULL(OVS_KEY_ATTR_ICMP);
			break;
		case IPPROTO_ICMPV6:
			if (type != htons(ETH_P_IPV6))
				break;
			l4 = BIT_ULL(OVS_KEY_ATTR_ICMPV6);
			if (ovsp_key_is_nd(key) &&
			    (!mask || mask->tp.src == htons(0xff)))
				l4 |= BIT_ULL(OVS_KEY_ATTR_ND);
			break;
		}
	}
	if (!l4_exact)
		l4 = 0;
	return l3 | l4;
}

/* Layer 3 from level 'lv'.  Returns 0 or -EINVAL. */
static int ovsp_key_l3(const struct ovsp_key_parse *p,
		       const struct ovsp_key_level *lv)
{
	const struct nlattr *const *a = lv->a;
	struct ovsp_flow_key *out = p->out;
	bool is_key = p->mode == OVSP_PARSE_KEY;

	if (a[OVS_KEY_ATTR_IPV4]) {
		const struct ovs_key_ipv4 *k = ovsp_attr_val(p, a[OVS_KEY_ATTR_IPV4]);

		if (is_key && k->ipv4_frag > OVS_FRAG_TYPE_MAX) {
			ovsp_fnl_refuse(p->log, "IPv4 frag type %u",
					k->ipv4_frag);
			return -EINVAL;
		}
		out->ipv4.src = k->ipv4_src;
		out->ipv4.dst = k->ipv4_dst;
		out->ip.proto = k->ipv4_proto;
		out->ip.tos = k->ipv4_tos;
		out->ip.ttl = k->ipv4_ttl;
		out->ip.frag = k->ipv4_frag;
	} else if (a[OVS_KEY_ATTR_IPV6]) {
		const struct ovs_key_ipv6 *k = ovsp_attr_val(p, a[OVS_KEY_ATTR_IPV6]);

		if (is_key && (k->ipv6_frag > OVS_FRAG_TYPE_MAX ||
			       k->ipv6_label & ~IPV6_FLOWLABEL_MASK)) {
			ovsp_fnl_refuse(p->log, "IPv6 frag %u, label %#x",
					k->ipv6_frag, ntohl(k->ipv6_label));
			return -EINVAL;
		}
		memcpy(&out->ipv6.src, k->ipv6_src, sizeof(out->ipv6.src));
		memcpy(&out->ipv6.dst, k->ipv6_dst, sizeof(out->ipv6.dst));
		out->ipv6.label = k->ipv6_label;
		out->ip.proto = k->ipv6_proto;
		out->ip.tos = k->ipv6_tclass;
		out->ip.ttl = k->ipv6_hlimit;
		out->ip.frag = k->ipv6_frag;
	} else if (a[OVS_KEY_ATTR_ARP]) {
		const struct ovs_key_arp *k = ovsp_attr_val(p, a[OVS_KEY_ATTR_ARP]);

		if (is_key && k->arp_op & htons(0xff00)) {
			ovsp_fnl_refuse(p->log, "ARP opcode %u",
					ntohs(k->arp_op));
			return -EINVAL;
		}
		out->ipv4.src = k->arp_sip;
		out->ipv4.dst = k->arp_tip;
		out->ip.proto = ntohs(k->arp_op) & 0xff;
		ether_addr_copy(out->ipv4.arp_sha, k->arp_sha);
		ether_addr_copy(out->ipv4.arp_tha, k->arp_tha);
	} else if (a[OVS_KEY_ATTR_MPLS]) {
		const __be32 *lse = ovsp_attr_val(p, a[OVS_KEY_ATTR_MPLS]);
		unsigned int n = nla_len(a[OVS_KEY_ATTR_MPLS]) / sizeof(*lse);

		memcpy(out->mpls.lse, lse, n * sizeof(*lse));
		out->mpls.num_labels_mask = GENMASK(n - 1, 0);
	}
	return 0;
}

/* Layer 4 from level 'lv'.  Returns 0. */
static int ovsp_key_l4(const struct ovsp_key_parse *p,
		       const struct ovsp_key_level *lv)
{
	const struct nlattr *const *a = lv->a;
	struct ovsp_flow_key *out = p->out;

	if (a[OVS_KEY_ATTR_TCP]) {
		const struct ovs_key_tcp *k = ovsp_attr_val(p, a[OVS_KEY_ATTR_TCP]);

		out->tp.src = k->tcp_src;
		out->tp.dst = k->tcp_dst;
	} else if (a[OVS_KEY_ATTR_UDP]) {
		const struct ovs_key_udp *k = ovsp_attr_val(p, a[OVS_KEY_ATTR_UDP]);

		out->tp.src = k->udp_src;
		out->tp.dst = k->udp_dst;
	} else if (a[OVS_KEY_ATTR_SCTP]) {
		const struct ovs_key_sctp *k = ovsp_attr_val(p, a[OVS_KEY_ATTR_SCTP]);

		out->tp.src = k->sctp_src;
		out->tp.dst = k->sctp_dst;
	} else if (a[OVS_KEY_ATTR_ICMP]) {
		const struct ovs_key_icmp *k = ovsp_attr_val(p, a[OVS_KEY_ATTR_ICMP]);

		out->tp.src = htons(k->icmp_type);
		out->tp.dst = htons(k->icmp_code);
	} else if (a[OVS_KEY_ATTR_ICMPV6]) {
		const struct ovs_key_icmpv6 *k = ovsp_attr_val(p, a[OVS_KEY_ATTR_ICMPV6]);

		out->tp.src = htons(k->icmpv6_type);
		out->tp.dst = htons(k->icmpv6_code);
	}
	if (a[OVS_KEY_ATTR_TCP_FLAGS])
		out->tp.flags = ovsp_attr_be16(p, a[OVS_KEY_ATTR_TCP_FLAGS]);
	if (a[OVS_KEY_ATTR_ND]) {
		const struct ovs_key_nd *k = ovsp_attr_val(p, a[OVS_KEY_ATTR_ND]);

		memcpy(&out->ipv6.nd_target, k->nd_target,
		       sizeof(out->ipv6.nd_target));
		ether_addr_copy(out->ipv6.nd_sll, k->nd_sll);
		ether_addr_copy(out->ipv6.nd_tll, k->nd_tll);
	}
	return 0;
}

/* The bits of the attributes in level 'lv' that are neither layer 2 nor
 * metadata.
 */
static u64 ovsp_level_l3_present(const struct ovsp_key_level *lv)
{
	return lv->present & ~(BIT_ULL(OVS_KEY_ATTR_ENCAP) |
			       BIT_ULL(OVS_KEY_ATTR_PRIORITY) |
			       BIT_ULL(OVS_KEY_ATTR_IN_PORT) |
			       BIT_ULL(OVS_KEY_ATTR_ETHERNET) |
			       BIT_ULL(OVS_KEY_ATTR_VLAN) |
			       BIT_ULL(OVS_KEY_ATTR_ETHERTYPE) |
			       BIT_ULL(OVS_KEY_ATTR_SKB_MARK) |
			       BIT_ULL(OVS_KEY_ATTR_TUNNEL) |
			       BIT_ULL(OVS_KEY_ATTR_DP_HASH) |
			       BIT_ULL(OVS_KEY_ATTR_RECIRC_ID) |
			       BIT_ULL(OVS_KEY_ATTR_CT_STATE) |
			       BIT_ULL(OVS_KEY_ATTR_CT_ZONE) |
			       BIT_ULL(OVS_KEY_ATTR_CT_MARK) |
			       BIT_ULL(OVS_KEY_ATTR_CT_LABELS) |
			       BIT_ULL(OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV4) |
			       BIT_ULL(OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6));
}

/* Parses a whole key, mask or exact mask as 'p' says.  Returns 0 or
 * -EINVAL.
 */
static int ovsp_key_from_attrs(const struct ovsp_key_parse *p)
{
	const struct ovsp_key_level *l3 = NULL;
	const struct ovsp_flow_key *key = p->key;
	u64 allowed, present = 0;
	int err;
	int i;

	err = ovsp_key_metadata(p);
	if (!err)
		err = ovsp_key_l2(p, &l3);
	if (!err)
		err = ovsp_key_ct(p, true);
	if (err)
		return err;

	/* Layers 3 and 4 only where the key's layer 2 puts them. */
	for (i = 0; i < p->attrs->n_levels; i++) {
		const struct ovsp_key_level *lv = &p->attrs->lv[i];

		if (lv != l3 && ovsp_level_l3_present(lv)) {
			ovsp_fnl_refuse(p->log, "L3 attributes at VLAN level %d",
					i);
			return -EINVAL;
		}
	}
	if (!l3)
		return 0;
	present = ovsp_level_l3_present(l3);

	/* A mask's layer 3 needs an exact Ethertype. */
	if (p->mode != OVSP_PARSE_KEY) {
		allowed = ovsp_l3_attrs(key, p->out);
		if (present & ~allowed & (BIT_ULL(OVS_KEY_ATTR_IPV4) |
					  BIT_ULL(OVS_KEY_ATTR_IPV6) |
					  BIT_ULL(OVS_KEY_ATTR_ARP) |
					  BIT_ULL(OVS_KEY_ATTR_MPLS))) {
			ovsp_fnl_refuse(p->log,
					"L3 mask %#llx for Ethertype %#x",
					present, ntohs(key->eth.type));
			return -EINVAL;
		}
	}

	/* Layer 4 (and ND) is told apart by the layer-3 fields and the ICMP
	 * type, so both are read before what may be there is known.  They
	 * write only 'out', which the caller discards on an error.
	 */
	err = ovsp_key_l3(p, l3);
	if (!err)
		err = ovsp_key_l4(p, l3);
	if (err)
		return err;

	/* For a key, exactly the attributes its protocols explain, as
	 * Linux's match_validate() wants them (TCP_FLAGS with TCP, ND with a
	 * neighbour solicitation or advertisement).  For a mask, the layer-4
	 * attributes need an exact IP protocol and ND an exact ICMP type.
	 */
	if (p->mode == OVSP_PARSE_KEY)
		allowed = ovsp_l3_attrs(p->out, NULL);
	else
		allowed = ovsp_l3_attrs(key, p->out);
	if (present & ~allowed) {
		ovsp_fnl_refuse(p->log, "unexpected attributes %#llx",
				present & ~allowed);
		return -EINVAL;
	}
	if (p->mode == OVSP_PARSE_KEY && allowed & ~present) {
		ovsp_fnl_refuse(p->log, "missing attributes %#llx",
				allowed & ~present);
		return -EINVAL;
	}
	return 0;
}

/* Checks that every metadata and Ethernet attribute of the mask 'm' is in
 * the key 'k' too, as Linux's match_validate() does (in_port, the tunnel
 * and an original tuple may be masked without being in the key).  Returns
 * 0 or -EINVAL.
 */
static int ovsp_mask_attrs_in_key(const struct ovsp_key_attrs *k,
				  const struct ovsp_key_attrs *m, bool log)
{
	u64 need = BIT_ULL(OVS_KEY_ATTR_PRIORITY) |
		   BIT_ULL(OVS_KEY_ATTR_SKB_MARK) |
		   BIT_ULL(OVS_KEY_ATTR_DP_HASH) |
		   BIT_ULL(OVS_KEY_ATTR_RECIRC_ID) |
		   BIT_ULL(OVS_KEY_ATTR_ETHERNET) |
		   BIT_ULL(OVS_KEY_ATTR_CT_STATE) |
		   BIT_ULL(OVS_KEY_ATTR_CT_ZONE) |
		   BIT_ULL(OVS_KEY_ATTR_CT_MARK) |
		   BIT_ULL(OVS_KEY_ATTR_CT_LABELS);
	u64 extra = m->lv[0].present & need & ~k->lv[0].present;

	if (extra) {
		ovsp_fnl_refuse(log, "mask attributes %#llx not in the key",
				extra);
		return -EINVAL;
	}
	return 0;
}

/* The bytes of 'mask' that are not zero, as a range of whole longs. */
static struct ovsp_key_range ovsp_mask_range(const struct ovsp_flow_key *mask)
{
	const long *l = (const long *)mask;
	size_t n = sizeof(*mask) / sizeof(long);
	struct ovsp_key_range range = { 0, 0 };
	size_t first, last;

	for (first = 0; first < n && !l[first]; first++)
		;
	if (first == n)
		return range;
	for (last = n - 1; !l[last]; last--)
		;
	range.start = first * sizeof(long);
	range.end = (last + 1) * sizeof(long);
	return range;
}

int ovsp_flow_match_from_nlattrs(struct net *net, struct ovsp_flow_match *match,
				 struct ovsp_flow_key *unmasked,
				 const struct nlattr *key,
				 const struct nlattr *mask, bool log)
{
	struct ovsp_key_attrs *key_attrs, *mask_attrs = NULL;
	struct ovsp_key_parse p;
	struct ovsp_key_range full = { 0, sizeof(match->key) };
	int err;

	memset(match, 0, sizeof(*match));
	if (!key)
		return -EINVAL;
	/* The mask's table is allocated only when there is a mask to parse
	 * into it: the allocator may zero what it gives (init_on_alloc), and
	 * this runs for every flow put.
	 */
	key_attrs = kzalloc(sizeof(*key_attrs), GFP_KERNEL);
	if (!key_attrs)
		return -ENOMEM;

	err = ovsp_parse_level(key, 0, false, key_attrs, log);
	if (err)
		goto out;
	p = (struct ovsp_key_parse) {
		.out = &match->key, .key = NULL, .attrs = key_attrs,
		.mode = OVSP_PARSE_KEY, .log = log,
	};
	err = ovsp_key_from_attrs(&p);
	if (err)
		goto out;

	p.out = &match->mask;
	p.key = &match->key;
	if (mask) {
		mask_attrs = kzalloc(sizeof(*mask_attrs), GFP_KERNEL);
		err = -ENOMEM;
		if (!mask_attrs)
			goto out;
		err = ovsp_parse_level(mask, 0, true, mask_attrs, log);
		if (err)
			goto out;
		err = ovsp_mask_attrs_in_key(key_attrs, mask_attrs, log);
		if (err)
			goto out;
		p.attrs = mask_attrs;
		p.mode = OVSP_PARSE_MASK;
	} else {
		p.mode = OVSP_PARSE_EXACT;
	}
	err = ovsp_key_from_attrs(&p);
	if (err)
		goto out;
	/* An exact match includes the Ethertype that an absent ETHERTYPE
	 * (802.2) or a truncated tag implies.
	 */
	if (p.mode == OVSP_PARSE_EXACT)
		match->mask.eth.type = htons(0xffff);

	match->range = ovsp_mask_range(&match->mask);
	if (unmasked)
		*unmasked = match->key;
	ovsp_flow_key_mask(&match->key, &match->key, &match->mask, &full,
			   false);
out:
	kfree(mask_attrs);
	kfree(key_attrs);
	if (err)
		memset(match, 0, sizeof(*match));
	return err;
}

int ovsp_flow_metadata_from_nlattrs(const struct nlattr *attr,
				    struct ovsp_flow_key *key, bool log)
{
	struct ovsp_key_attrs *attrs;
	struct ovsp_key_parse p;
	int err;

	attrs = kzalloc(sizeof(*attrs), GFP_ATOMIC);
	if (!attrs)
		return -ENOMEM;
	err = ovsp_parse_level(attr, 0, false, attrs, log);
	if (err)
		goto out;
	p = (struct ovsp_key_parse) {
		.out = key, .key = NULL, .attrs = attrs,
		.mode = OVSP_PARSE_KEY, .log = log,
	};
	err = ovsp_key_metadata(&p);
	if (!err)
		err = ovsp_key_ct(&p, false);
	if (err || key->meta.mac_proto != OVSP_MAC_PROTO_NONE)
		goto out;
	key->eth.type = nla_get_be16(attrs->lv[0].a[OVS_KEY_ATTR_ETHERTYPE]);
	if (!eth_proto_is_802_3(key->eth.type) ||
	    eth_type_vlan(key->eth.type)) {
		ovsp_fnl_refuse(log, "L3 Ethertype %#x", ntohs(key->eth.type));
		err = -EINVAL;
	}
out:
	kfree(attrs);
	return err;
}

/* Appends the OVS_TUNNEL_KEY_ATTR_* attributes of tunnel key 'tun', with
 * options 'opts' of 'opts_len' bytes, address family 'af' and
 * IP_TUNNEL_INFO_* 'mode', to 'skb'.  Returns 0 or -EMSGSIZE.
 */
static int ovsp_tun_put_attrs(struct sk_buff *skb,
			      const struct ip_tunnel_key *tun,
			      const void *opts, int opts_len, u8 af, u8 mode)
{
	if (tun->tun_flags & TUNNEL_KEY &&
	    nla_put_be64(skb, OVS_TUNNEL_KEY_ATTR_ID, tun->tun_id,
			 OVS_TUNNEL_KEY_ATTR_PAD))
		return -EMSGSIZE;
	if (mode & IP_TUNNEL_INFO_BRIDGE)
		return nla_put_flag(skb, OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE)
		       ? -EMSGSIZE : 0;

	if (af == AF_INET) {
		if (tun->u.ipv4.src &&
		    nla_put_in_addr(skb, OVS_TUNNEL_KEY_ATTR_IPV4_SRC,
				    tun->u.ipv4.src))
			return -EMSGSIZE;
		if (tun->u.ipv4.dst &&
		    nla_put_in_addr(skb, OVS_TUNNEL_KEY_ATTR_IPV4_DST,
				    tun->u.ipv4.dst))
			return -EMSGSIZE;
	} else if (af == AF_INET6) {
		if (!ipv6_addr_any(&tun->u.ipv6.src) &&
		    nla_put_in6_addr(skb, OVS_TUNNEL_KEY_ATTR_IPV6_SRC,
				     &tun->u.ipv6.src))
			return -EMSGSIZE;
		if (!ipv6_addr_any(&tun->u.ipv6.dst) &&
		    nla_put_in6_addr(skb, OVS_TUNNEL_KEY_ATTR_IPV6_DST,
				     &tun->u.ipv6.dst))
			return -EMSGSIZE;
	}
	if (tun->tos && nla_put_u8(skb, OVS_TUNNEL_KEY_ATTR_TOS, tun->tos))
		return -EMSGSIZE;
	if (nla_put_u8(skb, OVS_TUNNEL_KEY_ATTR_TTL, tun->ttl))
		return -EMSGSIZE;
	if (tun->tun_flags & TUNNEL_DONT_FRAGMENT &&
	    nla_put_flag(skb, OVS_TUNNEL_KEY_ATTR_DONT_FRAGMENT))
		return -EMSGSIZE;
	if (tun->tun_flags & TUNNEL_CSUM &&
	    nla_put_flag(skb, OVS_TUNNEL_KEY_ATTR_CSUM))
		return -EMSGSIZE;
	if (tun->tp_src &&
	    nla_put_be16(skb, OVS_TUNNEL_KEY_ATTR_TP_SRC, tun->tp_src))
		return -EMSGSIZE;
	if (tun->tp_dst &&
	    nla_put_be16(skb, OVS_TUNNEL_KEY_ATTR_TP_DST, tun->tp_dst))
		return -EMSGSIZE;
	if (tun->tun_flags & TUNNEL_OAM &&
	    nla_put_flag(skb, OVS_TUNNEL_KEY_ATTR_OAM))
		return -EMSGSIZE;

	if (!opts_len)
		return 0;
	if (tun->tun_flags & TUNNEL_GENEVE_OPT)
		return nla_put(skb, OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS, opts_len,
			       opts) ? -EMSGSIZE : 0;
	if (tun->tun_flags & TUNNEL_VXLAN_OPT) {
		const struct vxlan_metadata *md = opts;
		struct nlattr *nest;

		if (opts_len < sizeof(*md))
			return 0;
		nest = nla_nest_start_noflag(skb,
					     OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS);
		if (!nest || nla_put_u32(skb, OVS_VXLAN_EXT_GBP, md->gbp))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
		return 0;
	}
	if (tun->tun_flags & TUNNEL_ERSPAN_OPT)
		return nla_put(skb, OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS, opts_len,
			       opts) ? -EMSGSIZE : 0;
	return 0;
}

/* Appends OVS_KEY_ATTR_ETHERTYPE 'type' and OVS_KEY_ATTR_VLAN 'tci', then
 * opens an OVS_KEY_ATTR_ENCAP.  Returns the nest, or NULL.
 */
static struct nlattr *ovsp_put_vlan(struct sk_buff *skb, __be16 type,
				    __be16 tci)
{
	if (nla_put_be16(skb, OVS_KEY_ATTR_ETHERTYPE, type) ||
	    nla_put_be16(skb, OVS_KEY_ATTR_VLAN, tci))
		return NULL;
	return nla_nest_start_noflag(skb, OVS_KEY_ATTR_ENCAP);
}

/* Appends the layer-3 and layer-4 attributes of 'out' (a key, or a mask
 * with 'is_mask') in the shape of key 'shape'.  Returns 0 or -EMSGSIZE.
 */
static int ovsp_put_l3(struct sk_buff *skb, const struct ovsp_flow_key *shape,
		       const struct ovsp_flow_key *out, bool is_mask)
{
	__be16 type = shape->eth.type;
	struct nlattr *nla;

	if (type == htons(ETH_P_IP)) {
		struct ovs_key_ipv4 *k;

		nla = nla_reserve(skb, OVS_KEY_ATTR_IPV4, sizeof(*k));
		if (!nla)
			return -EMSGSIZE;
		k = nla_data(nla);
		k->ipv4_src = out->ipv4.src;
		k->ipv4_dst = out->ipv4.dst;
		k->ipv4_proto = out->ip.proto;
		k->ipv4_tos = out->ip.tos;
		k->ipv4_ttl = out->ip.ttl;
		k->ipv4_frag = out->ip.frag;
	} else if (type == htons(ETH_P_IPV6)) {
		struct ovs_key_ipv6 *k;

		nla = nla_reserve(skb, OVS_KEY_ATTR_IPV6, sizeof(*k));
		if (!nla)
			return -EMSGSIZE;
		k = nla_data(nla);
		memcpy(k->ipv6_src, &out->ipv6.src, sizeof(k->ipv6_src));
		memcpy(k->ipv6_dst, &out->ipv6.dst, sizeof(k->ipv6_dst));
		k->ipv6_label = out->ipv6.label;
		k->ipv6_proto = out->ip.proto;
		k->ipv6_tclass = out->ip.tos;
		k->ipv6_hlimit = out->ip.ttl;
		k->ipv6_frag = out->ip.frag;
	} else if (type == htons(ETH_P_ARP) || type == htons(ETH_P_RARP)) {
		struct ovs_key_arp *k;

		nla = nla_reserve(skb, OVS_KEY_ATTR_ARP, sizeof(*k));
		if (!nla)
			return -EMSGSIZE;
		k = nla_data(nla);
		memset(k, 0, sizeof(*k));
		k->arp_sip = out->ipv4.src;
		k->arp_tip = out->ipv4.dst;
		k->arp_op = htons(out->ip.proto);
		ether_addr_copy(k->arp_sha, out->ipv4.arp_sha);
		ether_addr_copy(k->arp_tha, out->ipv4.arp_tha);
		return 0;
	} else if (eth_p_mpls(type)) {
		/* As many labels as the key has: odp-util refuses an
		 * empty MPLS attribute.
		 */
		unsigned int n = hweight32(shape->mpls.num_labels_mask);

		n = min_t(unsigned int, n, OVSP_MPLS_LABEL_DEPTH);
		if (n && nla_put(skb, OVS_KEY_ATTR_MPLS, n * sizeof(__be32),
				 out->mpls.lse))
			return -EMSGSIZE;
		return 0;
	} else {
		return 0;
	}

	if (shape->ip.frag == OVS_FRAG_TYPE_LATER)
		return 0;
	switch (shape->ip.proto) {
	case IPPROTO_TCP: {
		struct ovs_key_tcp k = { out->tp.src, out->tp.dst };

		if (nla_put(skb, OVS_KEY_ATTR_TCP, sizeof(k), &k) ||
		    nla_put_be16(skb, OVS_KEY_ATTR_TCP_FLAGS, out->tp.flags))
			return -EMSGSIZE;
		break;
	}
	case IPPROTO_UDP: {
		struct ovs_key_udp k = { out->tp.src, out->tp.dst };

		if (nla_put(skb, OVS_KEY_ATTR_UDP, sizeof(k), &k))
			return -EMSGSIZE;
		break;
	}
	case IPPROTO_SCTP: {
		struct ovs_key_sctp k = { out->tp.src, out->tp.dst };

		if (nla_put(skb, OVS_KEY_ATTR_SCTP, sizeof(k), &k))
			return -EMSGSIZE;
		break;
	}
	case IPPROTO_ICMP: {
		struct ovs_key_icmp k = { ntohs(out->tp.src), ntohs(out->tp.dst) };

		if (type == htons(ETH_P_IP) &&
		    nla_put(skb, OVS_KEY_ATTR_ICMP, sizeof(k), &k))
			return -EMSGSIZE;
		break;
	}
	case IPPROTO_ICMPV6: {
		struct ovs_key_icmpv6 k = { ntohs(out->tp.src),
					    ntohs(out->tp.dst) };
		struct ovs_key_nd *nd;

		if (type != htons(ETH_P_IPV6))
			break;
		if (nla_put(skb, OVS_KEY_ATTR_ICMPV6, sizeof(k), &k))
			return -EMSGSIZE;
		/* ND for every code, as Linux writes and wants it. */
		if (!ovsp_key_is_nd(shape))
			break;
		nla = nla_reserve(skb, OVS_KEY_ATTR_ND, sizeof(*nd));
		if (!nla)
			return -EMSGSIZE;
		nd = nla_data(nla);
		memcpy(nd->nd_target, &out->ipv6.nd_target,
		       sizeof(nd->nd_target));
		ether_addr_copy(nd->nd_sll, out->ipv6.nd_sll);
		ether_addr_copy(nd->nd_tll, out->ipv6.nd_tll);
		break;
	}
	}
	return 0;
}

/* Appends the conntrack attributes of 'out' (a key or a mask) in the shape
 * of key 'shape': state, zone, mark and labels always, as Linux does, the
 * original tuple when the key has one.  Returns 0 or -EMSGSIZE.
 */
static int ovsp_put_ct(struct sk_buff *skb, const struct ovsp_flow_key *shape,
		       const struct ovsp_flow_key *out)
{
	if (nla_put_u32(skb, OVS_KEY_ATTR_CT_STATE, out->ct.state) ||
	    nla_put_u16(skb, OVS_KEY_ATTR_CT_ZONE, out->ct.zone) ||
	    nla_put_u32(skb, OVS_KEY_ATTR_CT_MARK, out->ct.mark) ||
	    nla_put(skb, OVS_KEY_ATTR_CT_LABELS, OVSP_CT_LABELS_LEN,
		    out->ct.labels))
		return -EMSGSIZE;
	if (!shape->ct.orig_proto)
		return 0;
	if (shape->eth.type == htons(ETH_P_IP)) {
		struct ovs_key_ct_tuple_ipv4 t = {
			.ipv4_src = out->ct.orig.ipv4.src,
			.ipv4_dst = out->ct.orig.ipv4.dst,
			.src_port = out->ct.orig_tp_src,
			.dst_port = out->ct.orig_tp_dst,
			.ipv4_proto = out->ct.orig_proto,
		};

		return nla_put(skb, OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV4, sizeof(t),
			       &t) ? -EMSGSIZE : 0;
	}
	if (shape->eth.type == htons(ETH_P_IPV6)) {
		struct ovs_key_ct_tuple_ipv6 t = {
			.src_port = out->ct.orig_tp_src,
			.dst_port = out->ct.orig_tp_dst,
			.ipv6_proto = out->ct.orig_proto,
		};

		memcpy(t.ipv6_src, &out->ct.orig.ipv6.src, sizeof(t.ipv6_src));
		memcpy(t.ipv6_dst, &out->ct.orig.ipv6.dst, sizeof(t.ipv6_dst));
		return nla_put(skb, OVS_KEY_ATTR_CT_ORIG_TUPLE_IPV6, sizeof(t),
			       &t) ? -EMSGSIZE : 0;
	}
	return 0;
}

/* Appends the attributes of 'out' (a key, or a mask with 'is_mask') in
 * the shape of key 'shape'.  Returns 0 or -EMSGSIZE.
 */
static int ovsp_put_key(struct sk_buff *skb, const struct ovsp_flow_key *shape,
			const struct ovsp_flow_key *out, bool is_mask)
{
	struct nlattr *encap[OVSP_KEY_LEVELS - 1] = { NULL, NULL };
	int err = 0;
	int i;

	if (nla_put_u32(skb, OVS_KEY_ATTR_RECIRC_ID, out->meta.recirc_id) ||
	    nla_put_u32(skb, OVS_KEY_ATTR_DP_HASH, out->meta.dp_hash) ||
	    nla_put_u32(skb, OVS_KEY_ATTR_PRIORITY, out->meta.priority))
		return -EMSGSIZE;

	if (shape->meta.tun_proto || is_mask) {
		struct nlattr *nest;
		const void *opts = NULL;
		int opts_len = 0;

		if (out->tun_key.tun_flags & TUNNEL_OPTIONS_PRESENT) {
			opts = out->tun_opts;
			opts_len = shape->tun_opts_len;
		}
		nest = nla_nest_start_noflag(skb, OVS_KEY_ATTR_TUNNEL);
		if (!nest || ovsp_tun_put_attrs(skb, &out->tun_key, opts,
						opts_len,
						shape->meta.tun_proto, 0))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}

	if (shape->meta.in_port != OVSP_IN_PORT_NONE) {
		u32 port = out->meta.in_port | (is_mask ? 0xffff0000 : 0);

		if (nla_put_u32(skb, OVS_KEY_ATTR_IN_PORT, port))
			return -EMSGSIZE;
	} else if (is_mask && out->meta.in_port == 0xffff) {
		if (nla_put_u32(skb, OVS_KEY_ATTR_IN_PORT, 0xffffffff))
			return -EMSGSIZE;
	}
	if (nla_put_u32(skb, OVS_KEY_ATTR_SKB_MARK, out->meta.skb_mark))
		return -EMSGSIZE;
	if (ovsp_put_ct(skb, shape, out))
		return -EMSGSIZE;

	if (shape->meta.mac_proto == OVSP_MAC_PROTO_ETHERNET) {
		const struct ovsp_vlan *svlan[] = { &shape->eth.vlan,
						    &shape->eth.cvlan };
		const struct ovsp_vlan *ovlan[] = { &out->eth.vlan,
						    &out->eth.cvlan };
		struct ovs_key_ethernet eth;

		ether_addr_copy(eth.eth_src, out->eth.src);
		ether_addr_copy(eth.eth_dst, out->eth.dst);
		if (nla_put(skb, OVS_KEY_ATTR_ETHERNET, sizeof(eth), &eth))
			return -EMSGSIZE;

		for (i = 0; i < OVSP_KEY_LEVELS - 1; i++) {
			bool truncated = !svlan[i]->tci &&
					 eth_type_vlan(shape->eth.type);
			__be16 type;

			if (!svlan[i]->tci && !truncated)
				break;
			/* A truncated tag's TPID is the Ethertype, as odp-util
			 * writes it.
			 */
			if (is_mask)
				type = htons(0xffff);
			else
				type = truncated ? out->eth.type
						 : ovlan[i]->tpid;
			encap[i] = ovsp_put_vlan(skb, type, ovlan[i]->tci);
			if (!encap[i])
				return -EMSGSIZE;
			if (truncated)
				goto unencap;
		}

		if (shape->eth.type == htons(ETH_P_802_2)) {
			/* 802.2 has no ETHERTYPE in a key; a mask may still
			 * match on it.
			 */
			if (is_mask && out->eth.type &&
			    nla_put_be16(skb, OVS_KEY_ATTR_ETHERTYPE,
					 out->eth.type))
				err = -EMSGSIZE;
			goto unencap;
		}
	}

	if (nla_put_be16(skb, OVS_KEY_ATTR_ETHERTYPE, out->eth.type)) {
		err = -EMSGSIZE;
		goto unencap;
	}
	/* A third tag: nothing is known beyond it. */
	if (!eth_type_vlan(shape->eth.type))
		err = ovsp_put_l3(skb, shape, out, is_mask);

unencap:
	for (i = OVSP_KEY_LEVELS - 2; i >= 0; i--)
		if (encap[i])
			nla_nest_end(skb, encap[i]);
	return err;
}

int ovsp_flow_key_to_nlattrs(const struct ovsp_flow_key *key,
			     struct sk_buff *skb, int attrtype)
{
	struct nlattr *nest = nla_nest_start_noflag(skb, attrtype);

	if (!nest)
		return -EMSGSIZE;
	if (ovsp_put_key(skb, key, key, false)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

int ovsp_flow_mask_to_nlattrs(const struct ovsp_flow_key *key,
			      const struct ovsp_flow_key *mask,
			      struct sk_buff *skb)
{
	struct nlattr *nest = nla_nest_start_noflag(skb, OVS_FLOW_ATTR_MASK);

	if (!nest)
		return -EMSGSIZE;
	if (ovsp_put_key(skb, key, mask, true)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

int ovsp_tunnel_info_to_nlattrs(struct sk_buff *skb, int attrtype,
				const struct ip_tunnel_info *tun)
{
	struct nlattr *nest = nla_nest_start_noflag(skb, attrtype);

	if (!nest)
		return -EMSGSIZE;
	/* ip_tunnel_info_opts() only computes an address. */
	if (ovsp_tun_put_attrs(skb, &tun->key,
			       ip_tunnel_info_opts((struct ip_tunnel_info *)tun),
			       tun->options_len, ip_tunnel_info_af(tun),
			       tun->mode)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* The most bytes ovsp_tun_put_attrs() writes. */
static size_t ovsp_tun_attr_size(void)
{
	return nla_total_size_64bit(sizeof(__be64))		/* ID */
	       + 2 * nla_total_size(sizeof(struct in6_addr))	/* SRC, DST */
	       + nla_total_size(1)				/* TOS */
	       + nla_total_size(1)				/* TTL */
	       + 3 * nla_total_size(0)			/* DF, CSUM, OAM */
	       + 2 * nla_total_size(sizeof(__be16))		/* TP_* */
	       + nla_total_size(IP_TUNNEL_OPTS_MAX);		/* options */
}

size_t ovsp_flow_key_attr_size(void)
{
	/* Metadata, tunnel, Ethernet and two tags. */
	size_t size = 3 * nla_total_size(sizeof(u32))	/* RECIRC, HASH, PRIO */
		      + nla_total_size(0) + ovsp_tun_attr_size()
		      + nla_total_size(sizeof(u32))		/* IN_PORT */
		      + nla_total_size(sizeof(u32))		/* SKB_MARK */
		      + 2 * nla_total_size(sizeof(u32))	/* CT_STATE, MARK */
		      + nla_total_size(sizeof(u16))		/* CT_ZONE */
		      + nla_total_size(OVSP_CT_LABELS_LEN)	/* CT_LABELS */
		      + nla_total_size(sizeof(struct ovs_key_ct_tuple_ipv6))
		      + nla_total_size(sizeof(struct ovs_key_ethernet))
		      + (OVSP_KEY_LEVELS - 1) *
			(2 * nla_total_size(sizeof(__be16))	/* TYPE, VLAN */
			 + nla_total_size(0))			/* ENCAP */
		      + nla_total_size(sizeof(__be16));	/* ETHERTYPE */

	/* The largest layers 3 and 4: IPv6 with ICMPv6 and ND. */
	return size + nla_total_size(sizeof(struct ovs_key_ipv6))
	       + nla_total_size(sizeof(struct ovs_key_icmpv6))
	       + nla_total_size(sizeof(struct ovs_key_nd));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * NAT inside ct(): the OVS_CT_ATTR_NAT nest and the translation of a
 * tracked packet through nf_nat's exported functions.
 *
 * Contract: see conntrack-nat.h.  Written from the ABI
 * (linux/openvswitch.h) and nf_nat's exported API (net/netfilter/nf_nat.h).
 * The per-packet path writes the skb and the key; everything else it
 * writes is nf_nat's: the connection's NAT extension and reply tuple when
 * its mapping is set up (once per connection, by the first packet that
 * commits it), and nf_nat's bysource hash for source NAT.
 */
#include <linux/icmp.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kernel.h>
#include <linux/net.h>
#include <linux/netfilter.h>
#include <linux/openvswitch.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <net/ipv6.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netfilter/nf_nat.h>

#include "conntrack-nat.h"
#include "flow-key.h"

/* Logs a refusal of userspace input when 'log' is true, rate-limited. */
#define ovsp_nat_refuse(log, fmt, ...)					\
	do {								\
		if (log)						\
			net_info_ratelimited("ovs_percpu: ct: nat: "	\
					     fmt "\n", ##__VA_ARGS__);	\
	} while (0)

/* The payload length of OVS_NAT_ATTR_* 'type' in a flow of 'family', or
 * -1 for a type that does not exist (0 included).
 */
static int ovsp_nat_attr_len(u16 type, u8 family)
{
	switch (type) {
	case OVS_NAT_ATTR_SRC:
	case OVS_NAT_ATTR_DST:
	case OVS_NAT_ATTR_PERSISTENT:
	case OVS_NAT_ATTR_PROTO_HASH:
	case OVS_NAT_ATTR_PROTO_RANDOM:
		return 0;
	case OVS_NAT_ATTR_IP_MIN:
	case OVS_NAT_ATTR_IP_MAX:
		return family == NFPROTO_IPV4 ? sizeof(struct in_addr)
					      : sizeof(struct in6_addr);
	case OVS_NAT_ATTR_PROTO_MIN:
	case OVS_NAT_ATTR_PROTO_MAX:
		return sizeof(u16);
	default:
		return -1;
	}
}

int ovsp_ct_nat_parse(const struct nlattr *attr, u8 family, bool commit,
		      struct ovsp_ct_nat *nat, bool log)
{
	struct nf_nat_range2 *range = &nat->range;
	bool have_ip_max = false, have_proto_max = false;
	const struct nlattr *a;
	int rem;

	nla_for_each_nested(a, attr, rem) {
		u16 type = nla_type(a);
		int len = nla_len(a);
		int want = ovsp_nat_attr_len(type, family);

		if (want < 0) {
			ovsp_nat_refuse(log, "unknown attribute %u", type);
			return -EINVAL;
		}
		if (len != want) {
			ovsp_nat_refuse(log, "attribute %u of %d bytes, not %d",
					type, len, want);
			return -EINVAL;
		}
		switch (type) {
		case OVS_NAT_ATTR_SRC:
		case OVS_NAT_ATTR_DST:
			if (nat->flags & (OVSP_CT_NAT_SRC | OVSP_CT_NAT_DST)) {
				ovsp_nat_refuse(log, "more than one of src and dst");
				return -ERANGE;
			}
			nat->flags |= type == OVS_NAT_ATTR_SRC ? OVSP_CT_NAT_SRC
							       : OVSP_CT_NAT_DST;
			break;
		case OVS_NAT_ATTR_IP_MIN:
			memcpy(&range->min_addr, nla_data(a), len);
			range->flags |= NF_NAT_RANGE_MAP_IPS;
			break;
		case OVS_NAT_ATTR_IP_MAX:
			memcpy(&range->max_addr, nla_data(a), len);
			range->flags |= NF_NAT_RANGE_MAP_IPS;
			have_ip_max = true;
			break;
		case OVS_NAT_ATTR_PROTO_MIN:
			/* Host order on the wire, network order in nf_nat. */
			range->min_proto.all = htons(nla_get_u16(a));
			range->flags |= NF_NAT_RANGE_PROTO_SPECIFIED;
			break;
		case OVS_NAT_ATTR_PROTO_MAX:
			range->max_proto.all = htons(nla_get_u16(a));
			range->flags |= NF_NAT_RANGE_PROTO_SPECIFIED;
			have_proto_max = true;
			break;
		case OVS_NAT_ATTR_PERSISTENT:
			range->flags |= NF_NAT_RANGE_PERSISTENT;
			break;
		case OVS_NAT_ATTR_PROTO_HASH:
			range->flags |= NF_NAT_RANGE_PROTO_RANDOM;
			break;
		case OVS_NAT_ATTR_PROTO_RANDOM:
			range->flags |= NF_NAT_RANGE_PROTO_RANDOM_FULLY;
			break;
		}
	}
	if (rem) {
		ovsp_nat_refuse(log, "%d trailing bytes", rem);
		return -EINVAL;
	}
	if (!(nat->flags & (OVSP_CT_NAT_SRC | OVSP_CT_NAT_DST))) {
		if (range->flags) {
			ovsp_nat_refuse(log, "a range or flags without src or dst");
			return -EINVAL;
		}
	} else if (!commit) {
		ovsp_nat_refuse(log, "src or dst without commit");
		return -EINVAL;
	}
	if ((range->flags & NF_NAT_RANGE_MAP_IPS) && !have_ip_max)
		range->max_addr = range->min_addr;
	if ((range->flags & NF_NAT_RANGE_PROTO_SPECIFIED) && !have_proto_max)
		range->max_proto = range->min_proto;
	nat->flags |= OVSP_CT_NAT_ANY;
	return 0;
}

/* Writes the addresses and ports that 'manip' of 'skb' (skb->data at the
 * network header, of 'family') translated into 'key', with its NAT bit.
 */
static void ovsp_ct_nat_update_key(struct ovsp_flow_key *key,
				   const struct sk_buff *skb, u8 family,
				   enum nf_nat_manip_type manip)
{
	bool src = manip == NF_NAT_MANIP_SRC;
	const __be16 *ports;

	key->ct.state |= src ? OVS_CS_F_SRC_NAT : OVS_CS_F_DST_NAT;
	if (family == NFPROTO_IPV4) {
		const struct iphdr *ip = ip_hdr(skb);

		if (src)
			key->ipv4.src = ip->saddr;
		else
			key->ipv4.dst = ip->daddr;
	} else {
		const struct ipv6hdr *ip6 = ipv6_hdr(skb);

		if (src)
			key->ipv6.src = ip6->saddr;
		else
			key->ipv6.dst = ip6->daddr;
	}
	/* TCP, UDP and SCTP start with the two ports; the key's extraction
	 * made them linear, and nf_nat kept them so when it wrote them.
	 */
	switch (key->ip.proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_SCTP:
		ports = (const __be16 *)skb_transport_header(skb);
		if (src)
			key->tp.src = ports[0];
		else
			key->tp.dst = ports[1];
		break;
	default:
		break;
	}
}

/* If 'skb' is an ICMP (ICMPv6) packet, translates it as the related error
 * it is (its outer header and the header it quotes) and returns 1 or, if
 * nf_nat refuses it, -EINVAL; returns 0 when it is no ICMP packet.
 */
static int ovsp_ct_nat_icmp(struct sk_buff *skb, u8 family, struct nf_conn *ct,
			    enum ip_conntrack_info ctinfo, unsigned int hook)
{
	if (family == NFPROTO_IPV4) {
		if (ip_hdr(skb)->protocol != IPPROTO_ICMP)
			return 0;
		return nf_nat_icmp_reply_translation(skb, ct, ctinfo, hook)
		       ? 1 : -EINVAL;
	} else {
		u8 nexthdr = ipv6_hdr(skb)->nexthdr;
		__be16 frag_off;
		int off = ipv6_skip_exthdr(skb, sizeof(struct ipv6hdr),
					   &nexthdr, &frag_off);

		if (off < 0 || nexthdr != IPPROTO_ICMPV6)
			return 0;
		return nf_nat_icmpv6_reply_translation(skb, ct, ctinfo, hook,
						       off) ? 1 : -EINVAL;
	}
}

/* Applies 'manip' of 'ct' to 'skb' (skb->data at the network header),
 * setting up the connection's mapping from 'range' (NULL: a null binding)
 * when this is its first packet, and updates 'key'.  Returns 0 or
 * -EINVAL.
 */
static int ovsp_ct_nat_one(struct sk_buff *skb, struct ovsp_flow_key *key,
			   const struct nf_nat_range2 *range,
			   enum nf_nat_manip_type manip, u8 family,
			   struct nf_conn *ct, enum ip_conntrack_info ctinfo)
{
	/* nf_nat tells the manip from the hook (HOOK2MANIP): LOCAL_IN
	 * rewrites the source, LOCAL_OUT the destination.
	 */
	unsigned int hook = manip == NF_NAT_MANIP_SRC ? NF_INET_LOCAL_IN
						      : NF_INET_LOCAL_OUT;
	unsigned int verdict;
	int err;

	switch (ctinfo) {
	case IP_CT_RELATED:
	case IP_CT_RELATED_REPLY:
		err = ovsp_ct_nat_icmp(skb, family, ct, ctinfo, hook);
		if (err < 0)
			return err;
		if (err > 0)
			goto done;
		/* Another related packet (a helper's data connection) is
		 * set up as a new one.
		 */
		fallthrough;
	case IP_CT_NEW:
		if (!nf_nat_initialized(ct, manip)) {
			if (range && (range->flags & NF_NAT_RANGE_MAP_IPS))
				verdict = nf_nat_setup_info(ct, range, manip);
			else
				verdict = nf_nat_alloc_null_binding(ct, hook);
			if (verdict != NF_ACCEPT)
				return -EINVAL;
		}
		break;
	case IP_CT_ESTABLISHED:
	case IP_CT_ESTABLISHED_REPLY:
		break;
	default:
		return -EINVAL;
	}
	if (nf_nat_packet(ct, ctinfo, hook, skb) != NF_ACCEPT)
		return -EINVAL;
done:
	ovsp_ct_nat_update_key(key, skb, family, manip);
	return 0;
}

int ovsp_ct_nat_execute(struct sk_buff *skb, struct ovsp_flow_key *key,
			const struct ovsp_ct_nat *nat, bool commit, u8 family,
			struct nf_conn *ct, enum ip_conntrack_info ctinfo)
{
	unsigned long status;
	enum nf_nat_manip_type manip;
	bool reply = CTINFO2DIR(ctinfo) == IP_CT_DIR_REPLY;
	int err;

	/* Once per packet and zone; a new connection only when this ct()
	 * commits it, so that what it NATs is what gets confirmed.
	 */
	if (!nat->flags || (key->ct.state & OVSP_CT_STATE_NAT))
		return 0;
	if (!nf_ct_is_confirmed(ct)) {
		if (!commit)
			return 0;
		if (!nf_ct_nat_ext_add(ct))
			return -ENOMEM;
	}

	/* An established or related connection (a new related one only
	 * when committed) that was NATed is NATed the same way, reversed
	 * in the reply direction; otherwise the nest says which.
	 */
	status = READ_ONCE(ct->status);
	if (ctinfo != IP_CT_NEW && (status & IPS_NAT_MASK) &&
	    (ctinfo != IP_CT_RELATED || commit)) {
		bool snat = status & IPS_SRC_NAT;

		manip = snat != reply ? NF_NAT_MANIP_SRC : NF_NAT_MANIP_DST;
	} else if (nat->flags & OVSP_CT_NAT_SRC) {
		manip = NF_NAT_MANIP_SRC;
	} else if (nat->flags & OVSP_CT_NAT_DST) {
		manip = NF_NAT_MANIP_DST;
	} else {
		return 0;
	}
	err = ovsp_ct_nat_one(skb, key, &nat->range, manip, family, ct, ctinfo);
	if (err)
		return err;

	/* A destination mapping is followed by the other half: the
	 * connection's source mapping when it has both, else (original
	 * direction) a null source binding, so that the connection has both
	 * halves set up as netfilter's own hooks give every connection (and
	 * nf_nat may move its source port off a clash).
	 */
	status = READ_ONCE(ct->status);
	if (!(status & IPS_DST_NAT))
		return 0;
	if (status & IPS_SRC_NAT)
		return ovsp_ct_nat_one(skb, key, &nat->range,
				       manip == NF_NAT_MANIP_SRC
				       ? NF_NAT_MANIP_DST : NF_NAT_MANIP_SRC,
				       family, ct, ctinfo);
	if (!reply)
		return ovsp_ct_nat_one(skb, key, NULL, NF_NAT_MANIP_SRC,
				       family, ct, ctinfo);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Flow key extraction: a packet (struct sk_buff) to a struct ovsp_flow_key.
 *
 * Contract (see flow-key.h):
 * - On entry skb->data is at the start of the packet: the Ethernet header,
 *   or the network header of a layer-3 packet (key->meta.mac_proto NONE).
 *   On return it is there still; the mac, network and transport header
 *   offsets and skb->mac_len describe what was found, and skb->protocol is
 *   the type of what starts at the network header (the inner TPID while a
 *   second VLAN tag is still in the payload, as skb_vlan_pop() expects).
 * - An outer 802.1Q/802.1ad tag in the payload is moved into the skb's
 *   accelerated tag, so that the outer tag of a packet always lives there
 *   and the actions see one representation.
 * - Every read is bounded by the packet.  A header too short for its
 *   protocol leaves that layer's fields zero, as the kernel datapath does;
 *   only an Ethernet frame shorter than its header is refused (-EINVAL).
 *   -ENOMEM means a pull or an unshare failed.
 * - The key starts zeroed, so that the bytes between fields are zero and
 *   keys compare as arrays of longs.
 *
 * - A packet that arrives with a connection (from the host stack) has
 *   its conntrack state in the key, as Linux's datapath reports it.
 *
 * Runs on the CPU that processes the packet, in softirq or with BHs
 * disabled; it writes only the skb and the key, both owned by the caller.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/llc.h>
#include <linux/netdevice.h>
#include <linux/openvswitch.h>
#include <linux/sctp.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ip_tunnels.h>
#include <net/ipv6.h>
#include <net/mpls.h>
#include <net/ndisc.h>

#include "conntrack.h"
#include "flow-key.h"
#include "flow-netlink.h"

/* The IPv6 extension headers walked before giving up on finding the
 * upper-layer header.  Each is at least 8 bytes, so a 64 KiB packet could
 * chain thousands; real stacks carry a handful. */
#define OVSP_IPV6_MAX_EXT_HDRS 32

/* The TCP flags that OVS_KEY_ATTR_TCP_FLAGS carries: the low 12 bits of
 * the 16-bit word that also holds the data offset. */
#define OVSP_TCP_FLAGS_MASK 0x0fff

/* An ARP packet for IPv4 over Ethernet, the only kind with addresses in
 * the key (no public kernel header declares its variable part). */
struct ovsp_arp_eth {
	struct arphdr hdr;		/* Fixed part: types, lengths, op. */
	u8 sha[ETH_ALEN];		/* Sender hardware address. */
	u8 sip[4];			/* Sender protocol address. */
	u8 tha[ETH_ALEN];		/* Target hardware address. */
	u8 tip[4];			/* Target protocol address. */
} __packed;

/* The 802.2 LLC and SNAP header that can follow an 802.3 length field. */
struct ovsp_llc_snap {
	u8 dsap;			/* LLC_SAP_SNAP for SNAP. */
	u8 ssap;			/* LLC_SAP_SNAP for SNAP. */
	u8 ctrl;			/* LLC control. */
	u8 oui[3];			/* 0 for an encapsulated Ethertype. */
	__be16 ethertype;		/* The encapsulated Ethertype. */
} __packed;

/* Makes the first 'len' bytes of 'skb' (from skb->data) linear.  Returns 0,
 * -EINVAL if the packet is shorter than 'len', or -ENOMEM if the pull
 * failed. */
static int ovsp_key_pull(struct sk_buff *skb, unsigned int len)
{
	if (unlikely(skb->len < len))
		return -EINVAL;
	if (unlikely(!pskb_may_pull(skb, len)))
		return -ENOMEM;
	return 0;
}

/* Layer 4 of an IPv4 or IPv6 packet whose transport header is set: TCP,
 * UDP and SCTP ports, TCP flags, IPv4 ICMP type and code.  A truncated
 * header leaves key->tp zero.  Returns 0 or -ENOMEM. */
static int ovsp_key_l4(struct sk_buff *skb, struct ovsp_flow_key *key)
{
	unsigned int th = skb_transport_offset(skb);
	int err = 0;

	memset(&key->tp, 0, sizeof(key->tp));
	switch (key->ip.proto) {
	case IPPROTO_TCP: {
		const struct tcphdr *tcp;

		err = ovsp_key_pull(skb, th + sizeof(*tcp));
		if (err)
			break;
		tcp = tcp_hdr(skb);
		if (tcp->doff * 4 < sizeof(*tcp) ||
		    skb->len < th + tcp->doff * 4)
			break;
		key->tp.src = tcp->source;
		key->tp.dst = tcp->dest;
		key->tp.flags = tcp_flag_word(tcp) &
				htons(OVSP_TCP_FLAGS_MASK);
		break;
	}
	case IPPROTO_UDP: {
		const struct udphdr *udp;

		err = ovsp_key_pull(skb, th + sizeof(*udp));
		if (err)
			break;
		udp = udp_hdr(skb);
		key->tp.src = udp->source;
		key->tp.dst = udp->dest;
		break;
	}
	case IPPROTO_SCTP: {
		const struct sctphdr *sctp;

		err = ovsp_key_pull(skb, th + sizeof(*sctp));
		if (err)
			break;
		sctp = sctp_hdr(skb);
		key->tp.src = sctp->source;
		key->tp.dst = sctp->dest;
		break;
	}
	case IPPROTO_ICMP: {
		const struct icmphdr *icmp;

		/* ICMP for IPv4 only; IPv6's is IPPROTO_ICMPV6. */
		if (key->eth.type != htons(ETH_P_IP))
			break;
		err = ovsp_key_pull(skb, th + sizeof(*icmp));
		if (err)
			break;
		icmp = icmp_hdr(skb);
		key->tp.src = htons(icmp->type);
		key->tp.dst = htons(icmp->code);
		break;
	}
	}
	return err == -ENOMEM ? err : 0;
}

/* IPv4: addresses, protocol, TOS, TTL, fragment type, then layer 4.
 * Returns 0 or -ENOMEM. */
static int ovsp_key_ipv4(struct sk_buff *skb, struct ovsp_flow_key *key)
{
	unsigned int nh = skb_network_offset(skb);
	const struct iphdr *iph;
	unsigned int ihl;
	int err;

	err = ovsp_key_pull(skb, nh + sizeof(*iph));
	if (err == -ENOMEM)
		return err;
	if (err)
		goto malformed;
	iph = ip_hdr(skb);
	ihl = iph->ihl * 4;
	if (ihl < sizeof(*iph) || skb->len < nh + ihl)
		goto malformed;
	skb_set_transport_header(skb, nh + ihl);

	key->ipv4.src = iph->saddr;
	key->ipv4.dst = iph->daddr;
	key->ip.proto = iph->protocol;
	key->ip.tos = iph->tos;
	key->ip.ttl = iph->ttl;

	if (iph->frag_off & htons(IP_OFFSET)) {
		key->ip.frag = OVS_FRAG_TYPE_LATER;
		return 0;
	}
	if (iph->frag_off & htons(IP_MF) ||
	    skb_shinfo(skb)->gso_type & SKB_GSO_UDP)
		key->ip.frag = OVS_FRAG_TYPE_FIRST;
	else
		key->ip.frag = OVS_FRAG_TYPE_NONE;

	return ovsp_key_l4(skb, key);

malformed:
	/* Truncated or malformed: no layer 3 or 4 fields. */
	memset(&key->ip, 0, sizeof(key->ip));
	memset(&key->ipv4, 0, sizeof(key->ipv4));
	skb_set_transport_header(skb, nh);
	return 0;
}

/* The Neighbor Discovery part of an ICMPv6 NS or NA whose transport header
 * is set: the target, and the source and target link-layer address
 * options.  Options are read in place, never linearizing the packet.  A
 * truncated option list keeps what came before it; a repeated link-layer
 * option makes the whole ND part zero, as the kernel datapath does. */
static void ovsp_key_nd(const struct sk_buff *skb, struct ovsp_flow_key *key)
{
	unsigned int off = skb_transport_offset(skb);
	const struct nd_msg *nd;
	struct nd_msg nd_buf;

	nd = skb_header_pointer(skb, off, sizeof(*nd), &nd_buf);
	if (!nd)
		return;
	key->ipv6.nd_target = nd->target;

	for (off += sizeof(*nd); off + 8 <= skb->len; ) {
		u8 opt_buf[8];
		unsigned int opt_len;
		const u8 *opt;
		u8 *lladdr;

		opt = skb_header_pointer(skb, off, sizeof(opt_buf), opt_buf);
		if (!opt)
			return;
		opt_len = opt[1] * 8;
		if (!opt_len || opt_len > skb->len - off)
			return;

		lladdr = NULL;
		if (opt_len == 8 && opt[0] == ND_OPT_SOURCE_LL_ADDR)
			lladdr = key->ipv6.nd_sll;
		else if (opt_len == 8 && opt[0] == ND_OPT_TARGET_LL_ADDR)
			lladdr = key->ipv6.nd_tll;
		if (lladdr) {
			if (!is_zero_ether_addr(lladdr))
				goto invalid;
			ether_addr_copy(lladdr, opt + 2);
		}
		off += opt_len;
	}
	return;

invalid:
	memset(&key->ipv6.nd_target, 0, sizeof(key->ipv6.nd_target));
	eth_zero_addr(key->ipv6.nd_sll);
	eth_zero_addr(key->ipv6.nd_tll);
}

/* Walks the IPv6 extension headers that follow the fixed header at network
 * offset 'nh', whose next-header field is 'nexthdr', reading them in
 * place.  Sets key->ip.frag.  Returns the upper-layer protocol with
 * '*l4_off' its offset, NEXTHDR_FRAGMENT for a later fragment, or -1 when
 * the chain is truncated or longer than OVSP_IPV6_MAX_EXT_HDRS.  ESP ends
 * the walk, as in OVS's own parser: what follows it is encrypted. */
static int ovsp_key_ipv6_exthdrs(const struct sk_buff *skb, unsigned int nh,
				 u8 nexthdr, unsigned int *l4_off,
				 struct ovsp_flow_key *key)
{
	unsigned int off = nh + sizeof(struct ipv6hdr);
	int i;

	key->ip.frag = OVS_FRAG_TYPE_NONE;
	for (i = 0; i < OVSP_IPV6_MAX_EXT_HDRS; i++) {
		switch (nexthdr) {
		case NEXTHDR_FRAGMENT: {
			const struct frag_hdr *fh;
			struct frag_hdr fh_buf;

			fh = skb_header_pointer(skb, off, sizeof(*fh), &fh_buf);
			if (!fh)
				return -1;
			if (fh->frag_off & htons(IP6_OFFSET)) {
				key->ip.frag = OVS_FRAG_TYPE_LATER;
				*l4_off = off + sizeof(*fh);
				return NEXTHDR_FRAGMENT;
			}
			key->ip.frag = OVS_FRAG_TYPE_FIRST;
			nexthdr = fh->nexthdr;
			off += sizeof(*fh);
			break;
		}
		case NEXTHDR_HOP:
		case NEXTHDR_ROUTING:
		case NEXTHDR_DEST:
		case NEXTHDR_AUTH: {
			const struct ipv6_opt_hdr *hp;
			struct ipv6_opt_hdr hp_buf;

			hp = skb_header_pointer(skb, off, sizeof(*hp), &hp_buf);
			if (!hp)
				return -1;
			off += nexthdr == NEXTHDR_AUTH ? ipv6_authlen(hp)
						       : ipv6_optlen(hp);
			nexthdr = hp->nexthdr;
			break;
		}
		default:
			*l4_off = off;
			return nexthdr;
		}
	}
	return -1;
}

/* IPv6: addresses, flow label, traffic class, hop limit, fragment type,
 * the upper-layer protocol after the extension headers, then layer 4 and
 * Neighbor Discovery.  Returns 0 or -ENOMEM. */
static int ovsp_key_ipv6(struct sk_buff *skb, struct ovsp_flow_key *key)
{
	unsigned int nh = skb_network_offset(skb);
	const struct ipv6hdr *ip6;
	unsigned int l4_off = nh;
	int proto;
	int err;

	err = ovsp_key_pull(skb, nh + sizeof(*ip6));
	if (err) {
		if (err == -ENOMEM)
			return err;
		memset(&key->ip, 0, sizeof(key->ip));
		memset(&key->ipv6, 0, sizeof(key->ipv6));
		skb_set_transport_header(skb, nh);
		return 0;
	}
	ip6 = ipv6_hdr(skb);
	key->ip.tos = ipv6_get_dsfield(ip6);
	key->ip.ttl = ip6->hop_limit;
	key->ipv6.label = *(const __be32 *)ip6 & IPV6_FLOWLABEL_MASK;
	key->ipv6.src = ip6->saddr;
	key->ipv6.dst = ip6->daddr;

	proto = ovsp_key_ipv6_exthdrs(skb, nh, ip6->nexthdr, &l4_off, key);
	if (proto < 0) {
		/* The upper layer is unknown. */
		key->ip.proto = NEXTHDR_NONE;
		skb_set_transport_header(skb, nh);
		return 0;
	}
	key->ip.proto = proto;
	skb_set_transport_header(skb, l4_off);
	if (key->ip.frag == OVS_FRAG_TYPE_LATER)
		return 0;
	if (skb_shinfo(skb)->gso_type & SKB_GSO_UDP)
		key->ip.frag = OVS_FRAG_TYPE_FIRST;

	if (key->ip.proto == IPPROTO_ICMPV6) {
		const struct icmp6hdr *icmp6;

		err = ovsp_key_pull(skb, l4_off + sizeof(*icmp6));
		if (err)
			return err == -ENOMEM ? err : 0;
		icmp6 = icmp6_hdr(skb);
		key->tp.src = htons(icmp6->icmp6_type);
		key->tp.dst = htons(icmp6->icmp6_code);
		if (icmp6->icmp6_code == 0 &&
		    (icmp6->icmp6_type == NDISC_NEIGHBOUR_SOLICITATION ||
		     icmp6->icmp6_type == NDISC_NEIGHBOUR_ADVERTISEMENT))
			ovsp_key_nd(skb, key);
		return 0;
	}
	return ovsp_key_l4(skb, key);
}

/* ARP and RARP for IPv4 over Ethernet: opcode (low 8 bits), addresses.
 * Anything else leaves the fields zero.  Returns 0 or -ENOMEM. */
static int ovsp_key_arp(struct sk_buff *skb, struct ovsp_flow_key *key)
{
	const struct ovsp_arp_eth *arp;
	int err;

	err = ovsp_key_pull(skb, skb_network_offset(skb) + sizeof(*arp));
	if (err)
		return err == -ENOMEM ? err : 0;
	arp = (const struct ovsp_arp_eth *)skb_network_header(skb);
	if (arp->hdr.ar_hrd != htons(ARPHRD_ETHER) ||
	    arp->hdr.ar_pro != htons(ETH_P_IP) ||
	    arp->hdr.ar_hln != ETH_ALEN || arp->hdr.ar_pln != 4)
		return 0;

	/* Only the low 8 bits of the opcode are in the key. */
	if (ntohs(arp->hdr.ar_op) <= 0xff)
		key->ip.proto = ntohs(arp->hdr.ar_op);
	memcpy(&key->ipv4.src, arp->sip, sizeof(key->ipv4.src));
	memcpy(&key->ipv4.dst, arp->tip, sizeof(key->ipv4.dst));
	ether_addr_copy(key->ipv4.arp_sha, arp->sha);
	ether_addr_copy(key->ipv4.arp_tha, arp->tha);
	return 0;
}

/* MPLS: the first OVSP_MPLS_LABEL_DEPTH label stack entries, read in
 * place up to the bottom of the stack, whose end becomes the inner network
 * header.  A stack that the packet ends before its bottom leaves the MPLS
 * fields zero. */
static void ovsp_key_mpls(struct sk_buff *skb, struct ovsp_flow_key *key)
{
	unsigned int off = skb_network_offset(skb);
	__be32 lse[OVSP_MPLS_LABEL_DEPTH];
	unsigned int n;

	/* Each entry is 4 bytes and the read fails past the packet's end,
	 * so the packet's length bounds the loop. */
	for (n = 0; ; n++) {
		const __be32 *p;
		__be32 buf;

		p = skb_header_pointer(skb, off, MPLS_HLEN, &buf);
		if (!p)
			return;
		if (n < OVSP_MPLS_LABEL_DEPTH)
			lse[n] = *p;
		off += MPLS_HLEN;
		if (*p & htonl(MPLS_LS_S_MASK))
			break;
	}
	n = min_t(unsigned int, n + 1, OVSP_MPLS_LABEL_DEPTH);
	memcpy(key->mpls.lse, lse, n * sizeof(lse[0]));
	key->mpls.num_labels_mask = GENMASK(n - 1, 0);
	skb_set_inner_network_header(skb, off);
}

/* Layers 3 and 4, by key->eth.type, with the network header set.
 * Returns 0 or -ENOMEM. */
static int ovsp_key_l3(struct sk_buff *skb, struct ovsp_flow_key *key)
{
	__be16 type = key->eth.type;

	if (type == htons(ETH_P_IP))
		return ovsp_key_ipv4(skb, key);
	if (type == htons(ETH_P_IPV6))
		return ovsp_key_ipv6(skb, key);
	if (type == htons(ETH_P_ARP) || type == htons(ETH_P_RARP))
		return ovsp_key_arp(skb, key);
	if (eth_p_mpls(type))
		ovsp_key_mpls(skb, key);
	return 0;
}

/* The Ethertype at offset 'off' of an Ethernet frame whose first 'off' + 2
 * bytes are linear, following an 802.3 length field into 802.2 LLC and
 * SNAP.  Sets '*nh' to the network header's offset.  Returns the type,
 * ETH_P_802_2 for 802.2 frames without an Ethertype, or 0 if a pull
 * failed. */
static __be16 ovsp_key_ethertype(struct sk_buff *skb, unsigned int off,
				 unsigned int *nh)
{
	const struct ovsp_llc_snap *llc;
	__be16 type;

	type = *(const __be16 *)(skb->data + off);
	off += sizeof(type);
	*nh = off;
	if (eth_proto_is_802_3(type))
		return type;

	if (skb->len < off + sizeof(*llc))
		return htons(ETH_P_802_2);
	if (!pskb_may_pull(skb, off + sizeof(*llc)))
		return 0;
	llc = (const struct ovsp_llc_snap *)(skb->data + off);
	if (llc->dsap != LLC_SAP_SNAP || llc->ssap != LLC_SAP_SNAP ||
	    (llc->oui[0] | llc->oui[1] | llc->oui[2]) ||
	    !eth_proto_is_802_3(llc->ethertype))
		return htons(ETH_P_802_2);
	*nh = off + sizeof(*llc);
	return llc->ethertype;
}

/* Layer 2 of an Ethernet frame at skb->data: addresses, up to two VLAN
 * tags (the outer moved into the accelerated tag), the Ethertype; sets
 * the mac and network headers, mac_len and skb->protocol.  Returns 0,
 * -EINVAL for a runt frame, or -ENOMEM. */
static int ovsp_key_eth(struct sk_buff *skb, struct ovsp_flow_key *key)
{
	const struct ethhdr *eth;
	unsigned int off = 2 * ETH_ALEN;
	unsigned int nh;
	int err;

	err = ovsp_key_pull(skb, ETH_HLEN);
	if (err)
		return err;
	/* The mac header is wherever the packet's last user left it (a
	 * packet from userspace has none); __skb_vlan_pop() below needs it
	 * at skb->data, as Linux's key_extract() resets it first. */
	skb_reset_mac_header(skb);
	eth = eth_hdr(skb);
	ether_addr_copy(key->eth.src, eth->h_source);
	ether_addr_copy(key->eth.dst, eth->h_dest);

	if (skb_vlan_tag_present(skb)) {
		key->eth.vlan.tpid = skb->vlan_proto;
		key->eth.vlan.tci = htons(skb_vlan_tag_get(skb) |
					  VLAN_CFI_MASK);
	} else if (eth_type_vlan(eth->h_proto) &&
		   skb->len >= VLAN_ETH_HLEN) {
		__be16 tpid = eth->h_proto;
		u16 tci;

		if (!pskb_may_pull(skb, VLAN_ETH_HLEN))
			return -ENOMEM;
		err = __skb_vlan_pop(skb, &tci);
		if (err)
			return err;
		__vlan_hwaccel_put_tag(skb, tpid, tci);
		key->eth.vlan.tpid = tpid;
		key->eth.vlan.tci = htons(tci | VLAN_CFI_MASK);
	}

	/* A second tag stays in the payload. */
	if (key->eth.vlan.tci &&
	    eth_type_vlan(*(const __be16 *)(skb->data + off)) &&
	    skb->len >= VLAN_ETH_HLEN) {
		const struct vlan_hdr *vh;

		if (!pskb_may_pull(skb, VLAN_ETH_HLEN))
			return -ENOMEM;
		vh = (const struct vlan_hdr *)(skb->data + off + 2);
		key->eth.cvlan.tpid = *(const __be16 *)(skb->data + off);
		key->eth.cvlan.tci = vh->h_vlan_TCI | htons(VLAN_CFI_MASK);
		off += VLAN_HLEN;
	}

	key->eth.type = ovsp_key_ethertype(skb, off, &nh);
	if (!key->eth.type)
		return -ENOMEM;

	skb_reset_mac_header(skb);
	skb_set_network_header(skb, nh);
	skb_reset_mac_len(skb);
	skb->protocol = key->eth.cvlan.tci ? key->eth.cvlan.tpid
					   : key->eth.type;
	return 0;
}

/* Extracts everything that comes from the packet's bytes (layers 2 to 4)
 * into 'key', whose metadata (mac_proto included) is set and whose other
 * fields are zero.  Returns 0 or a negative errno. */
static int ovsp_key_packet(struct sk_buff *skb, struct ovsp_flow_key *key)
{
	int err;

	if (key->meta.mac_proto == OVSP_MAC_PROTO_NONE) {
		if (eth_type_vlan(skb->protocol))
			return -EINVAL;
		key->eth.type = skb->protocol;
		skb_reset_mac_header(skb);
		skb_reset_network_header(skb);
		skb_reset_mac_len(skb);
	} else {
		err = ovsp_key_eth(skb, key);
		if (err)
			return err;
	}
	return ovsp_key_l3(skb, key);
}

int ovsp_flow_key_extract(const struct ip_tunnel_info *tun,
			  struct sk_buff *skb, u16 in_port,
			  struct ovsp_flow_key *key)
{
	int err;

	memset(key, 0, sizeof(*key));

	if (!skb->dev)
		return -EINVAL;
	switch (skb->dev->type) {
	case ARPHRD_ETHER:
		key->meta.mac_proto = OVSP_MAC_PROTO_ETHERNET;
		break;
	case ARPHRD_NONE:
		key->meta.mac_proto = skb->protocol == htons(ETH_P_TEB)
				      ? OVSP_MAC_PROTO_ETHERNET
				      : OVSP_MAC_PROTO_NONE;
		break;
	default:
		return -EINVAL;
	}

	if (tun) {
		key->meta.tun_proto = ip_tunnel_info_af(tun);
		key->tun_key = tun->key;
		key->tun_opts_len = tun->options_len;
		ip_tunnel_info_opts_get(key->tun_opts, tun);
	}
	key->meta.priority = skb->priority;
	key->meta.skb_mark = skb->mark;
	key->meta.in_port = in_port;

	err = ovsp_key_packet(skb, key);
	if (!err)
		ovsp_ct_key_fill(skb, key);
	return err;
}

int ovsp_flow_key_extract_userspace(struct net *net, const struct nlattr *attr,
				    struct sk_buff *skb,
				    struct ovsp_flow_key *key, bool log)
{
	int err;

	memset(key, 0, sizeof(*key));
	err = ovsp_flow_metadata_from_nlattrs(attr, key, log);
	if (err)
		return err;

	/* A layer-3 packet's type is in the key's ETHERTYPE attribute. */
	if (key->meta.mac_proto == OVSP_MAC_PROTO_NONE)
		skb->protocol = key->eth.type;
	key->eth.type = 0;
	return ovsp_key_packet(skb, key);
}

int ovsp_flow_key_update(struct sk_buff *skb, struct ovsp_flow_key *key)
{
	size_t start = offsetof(struct ovsp_flow_key, eth);
	size_t end = offsetof(struct ovsp_flow_key, tun_key);

	memset((u8 *)key + start, 0, end - start);
	return ovsp_key_packet(skb, key);
}

void ovsp_flow_key_mask(struct ovsp_flow_key *dst,
			const struct ovsp_flow_key *src,
			const struct ovsp_flow_key *mask,
			const struct ovsp_key_range *range, bool full)
{
	const long *s = (const long *)((const u8 *)src + range->start);
	const long *m = (const long *)((const u8 *)mask + range->start);
	long *d = (long *)((u8 *)dst + range->start);
	size_t n = (range->end - range->start) / sizeof(long);
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = s[i] & m[i];
	/* Around the range last, so that 'dst' may be 'src'. */
	if (full) {
		memset(dst, 0, range->start);
		memset((u8 *)dst + range->end, 0, sizeof(*dst) - range->end);
	}
}

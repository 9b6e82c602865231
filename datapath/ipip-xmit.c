// SPDX-License-Identifier: GPL-2.0
/*
 * Encapsulation by the ovs_ipip device (its ndo_start_xmit).
 *
 * Contract:
 * - The outer header comes from the packet's egress tunnel info (the
 *   metadata dst of set(tunnel(...)), IPv4, TX mode, a destination):
 *   source (the route's when 0), destination, TOS (1: the inner one's; its
 *   DSCP for the route, its ECN by RFC 6040 from the inner), TTL (0: the
 *   inner one's) and DF (TUNNEL_DONT_FRAGMENT).  A packet the stack routes
 *   to the device without tunnel info (no datapath attached) uses the
 *   device's REMOTE and LOCAL instead, the inner TTL and TOS 0, no DF; with
 *   no REMOTE it is dropped (tx_drop_no_tunnel_info).
 * - The inner packet must start with a whole IPv4 header (ipip carries
 *   IPv4 only), else tx_drop_not_ipv4.
 * - The route: the tunnel info's per-CPU dst_cache when usable (no mark,
 *   no TUNNEL_NOCACHE), else a lookup; both under RCU, on this CPU only.
 *   The FIB hands each CPU its own cached output route, so the reference
 *   the packet takes is on that CPU's route.  No route, or a route back
 *   through this device: tx_drop_no_route.
 * - Path MTU: a packet (or a GSO packet's segments) that does not fit
 *   the route's MTU less the outer header is dropped (tx_drop_too_big) if
 *   the inner has DF, and its sender is sent an ICMP "fragmentation
 *   needed" with that MTU (icmp_frag_needed_sent), through the stack as a
 *   router on its path would (icmp_ndo_send(), as Linux's
 *   tnl_update_pmtu()): from an address of this namespace, routed by its
 *   table, one per packet (Linux's ICMP rate limits exempt this type);
 *   nothing re-enters a datapath on the way.  None for a source that is
 *   no one's, a multicast or broadcast destination, or a path MTU below
 *   IPv4's minimum.  A packet the stack
 *   routed here also lowers the path MTU of its own route.  Without DF,
 *   the outer DF is cleared and the IP layer fragments the outer packet,
 *   as Linux's ip_tunnel and our userspace port do.
 * - GSO: a GSO packet is marked SKB_GSO_IPXIP4 and sent whole; the stack
 *   segments it (in software or on the underlay's hardware).
 * - Consumes the skb; always returns NETDEV_TX_OK.  BHs off, RCU.
 */
#include <linux/icmp.h>
#include <linux/ip.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/dst_cache.h>
#include <net/dst_metadata.h>
#include <net/icmp.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip_tunnels.h>
#include <net/route.h>

#include "ipip.h"

/* What the outer header is made of. */
struct encap_params {
	__be32 saddr, daddr;		/* Outer addresses (saddr may be 0). */
	u8 tos;				/* Outer TOS, or 1 to inherit. */
	u8 ttl;				/* Outer TTL, or 0 to inherit. */
	__be16 df;			/* htons(IP_DF) or 0. */
	struct dst_cache *cache;	/* Per-CPU route cache, or NULL. */
};

/* Fills 'p' from 'skb''s egress tunnel info, or from the device's
 * addresses without one.  Returns false if neither gives a destination.
 */
static bool encap_params(const struct ovsp_ipip *t, struct sk_buff *skb,
			 struct encap_params *p)
{
	struct ip_tunnel_info *info = skb_tunnel_info(skb);

	memset(p, 0, sizeof(*p));
	if (info) {
		const struct ip_tunnel_key *key = &info->key;

		if (!(info->mode & IP_TUNNEL_INFO_TX)
		    || ip_tunnel_info_af(info) != AF_INET
		    || !key->u.ipv4.dst)
			return false;
		p->daddr = key->u.ipv4.dst;
		p->saddr = key->u.ipv4.src;
		p->tos = key->tos;
		p->ttl = key->ttl;
		if (key->tun_flags & TUNNEL_DONT_FRAGMENT)
			p->df = htons(IP_DF);
		if (ip_tunnel_dst_cache_usable(skb, info))
			p->cache = &info->dst_cache;
		return true;
	}
	p->daddr = READ_ONCE(t->remote);
	p->saddr = READ_ONCE(t->local);
	return p->daddr != 0;
}

/* Returns the route for 'p' (a reference the caller owns), or an
 * ERR_PTR.
 */
static struct rtable *encap_route(struct net_device *dev,
				  struct sk_buff *skb, struct encap_params *p,
				  struct flowi4 *fl4)
{
	struct rtable *rt = NULL;

	ip_tunnel_init_flow(fl4, IPPROTO_IPIP, p->daddr, p->saddr, 0,
			    p->tos & INET_DSCP_MASK, dev_net(dev), 0,
			    skb->mark, skb_get_hash(skb), 0);
	if (p->cache)
		rt = dst_cache_get_ip4(p->cache, &fl4->saddr);
	if (!rt) {
		rt = ip_route_output_key(dev_net(dev), fl4);
		if (IS_ERR(rt))
			return rt;
		if (p->cache)
			dst_cache_set_ip4(p->cache, &rt->dst, fl4->saddr);
	}
	if (rt->dst.dev == dev) {
		ip_rt_put(rt);
		return ERR_PTR(-ELOOP);
	}
	return rt;
}

/* Whether 'skb' (or each of its GSO segments) fits 'mtu' bytes of IP. */
static bool fits_mtu(const struct sk_buff *skb, unsigned int mtu)
{
	if (skb_is_gso(skb))
		return skb_gso_validate_network_len(skb, mtu);
	return skb->len <= mtu;
}

/* Sends the sender of 'skb' (an IPv4 packet at its network header, with
 * DF, too big for 'mtu' bytes of IP on the path of 't') an ICMP
 * "fragmentation needed" through the stack, and counts it if it was
 * handed to the stack.
 */
static void send_frag_needed(struct ovsp_ipip *t, struct sk_buff *skb,
			     int mtu)
{
	const struct iphdr *iph = ip_hdr(skb);

	/* No one to tell, or no answer due (to a multicast or broadcast,
	 * which the route to the sender below would not say).
	 */
	if (ipv4_is_zeronet(iph->saddr) || ipv4_is_multicast(iph->saddr)
	    || ipv4_is_lbcast(iph->saddr) || ipv4_is_loopback(iph->saddr)
	    || ipv4_is_multicast(iph->daddr) || ipv4_is_lbcast(iph->daddr))
		return;

	if (skb_valid_dst(skb)) {
		/* The stack routed it here: its route learns the path MTU,
		 * as with Linux's tunnels.
		 */
		skb_dst_update_pmtu_no_confirm(skb, mtu);
	} else {
		/* From a datapath, whose tunnel info is the skb's dst.
		 * icmp_send() reads the route the packet took: take the one
		 * to its destination in our namespace (which tells whether
		 * that is us, or a broadcast), else, without one, the one to
		 * its sender; without either, no ICMP could get there.
		 */
		struct net *net = dev_net(t->dev);
		struct rtable *rt;

		rt = ip_route_output(net, iph->daddr, 0, 0, 0);
		if (IS_ERR(rt))
			rt = ip_route_output(net, iph->saddr, 0, 0, 0);
		if (IS_ERR(rt))
			return;
		skb_dst_drop(skb);
		skb_dst_set(skb, &rt->dst);
	}
	/* The datapath switched it to a MAC address that is not ours; the
	 * tunnel is still the router it reached.
	 */
	if (skb->pkt_type == PACKET_OTHERHOST)
		skb->pkt_type = PACKET_HOST;
	/* Whatever the datapath left in the control block is no IP
	 * options.
	 */
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	icmp_ndo_send(skb, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED, htonl(mtu));
	ovsp_ipip_count(t, OVSP_IPIP_STAT_ICMP_FRAG_NEEDED);
}

netdev_tx_t ovsp_ipip_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct ovsp_ipip *t = netdev_priv(dev);
	enum ovsp_ipip_total why;
	const struct iphdr *inner;
	struct encap_params p;
	unsigned int headroom;
	struct rtable *rt;
	struct flowi4 fl4;
	int mtu;

	if (!encap_params(t, skb, &p)) {
		why = OVSP_IPIP_STAT_TX_DROP_NO_TUNNEL;
		goto drop;
	}
	skb_reset_network_header(skb);
	if (skb->protocol != htons(ETH_P_IP)
	    || !pskb_network_may_pull(skb, sizeof(*inner))
	    || ip_hdr(skb)->version != 4 || ip_hdr(skb)->ihl < 5) {
		why = OVSP_IPIP_STAT_TX_DROP_NOT_IPV4;
		goto drop;
	}
	inner = ip_hdr(skb);
	if (p.tos == 1)
		p.tos = inner->tos;

	rt = encap_route(dev, skb, &p, &fl4);
	if (IS_ERR(rt)) {
		why = OVSP_IPIP_STAT_TX_DROP_NO_ROUTE;
		DEV_STATS_INC(dev, tx_carrier_errors);
		goto drop;
	}

	mtu = (int)dst_mtu(&rt->dst) - (int)sizeof(struct iphdr);
	if (mtu < IPV4_MIN_MTU || !fits_mtu(skb, mtu)) {
		if (inner->frag_off & htons(IP_DF) || mtu < IPV4_MIN_MTU) {
			ip_rt_put(rt);
			if (mtu >= IPV4_MIN_MTU)
				send_frag_needed(t, skb, mtu);
			why = OVSP_IPIP_STAT_TX_DROP_TOO_BIG;
			goto drop;
		}
		p.df = 0;
	}

	p.tos = ip_tunnel_ecn_encap(p.tos, inner, skb);
	if (!p.ttl)
		p.ttl = inner->ttl;

	headroom = sizeof(struct iphdr) + LL_RESERVED_SPACE(rt->dst.dev)
		   + rt->dst.header_len;
	if (skb_cow_head(skb, headroom)
	    || iptunnel_handle_offloads(skb, SKB_GSO_IPXIP4)) {
		ip_rt_put(rt);
		why = OVSP_IPIP_STAT_TX_DROP_NOMEM;
		goto drop;
	}
	skb_set_inner_ipproto(skb, IPPROTO_IPIP);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));

	ovsp_ipip_count(t, OVSP_IPIP_STAT_TX_ENCAP);
	/* Drops the tunnel info (the skb's dst) for 'rt'. */
	iptunnel_xmit(NULL, rt, skb, fl4.saddr, fl4.daddr, IPPROTO_IPIP,
		      p.tos, p.ttl, p.df, false);
	return NETDEV_TX_OK;

drop:
	ovsp_ipip_count(t, why);
	DEV_STATS_INC(dev, tx_dropped);
	kfree_skb(skb);
	return NETDEV_TX_OK;
}

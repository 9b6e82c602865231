// SPDX-License-Identifier: GPL-2.0
/*
 * The IPPROTO_IPIP handlers of the ovs_ipip devices.
 *
 * Contract:
 * - Two tunnel4 handlers, so that Linux's ipip.ko (priority 1) keeps its
 *   place between them: at priority 0, ahead of it, the one for our exact
 *   devices (LOCAL and REMOTE both set); at priority 3, after ipip.ko and
 *   sit (2) and before xfrm4_tunnel (4, which takes whatever reaches it),
 *   the one for our devices with LOCAL or REMOTE any, most specific first,
 *   the catch-all (both any) last (ovsp_ipip_lookup()).  So a tunnel that
 *   ipip.ko has configured goes before any device of ours that matches
 *   only by a wildcard, and an exact device of ours before ipip.ko.
 * - Only a device that is a port of a datapath (netif_is_ovs_port())
 *   decapsulates: a packet (or an ICMP error about one) that matches no
 *   such device of the kind its handler takes, in its namespace, is
 *   declined with a non-zero return, untouched, and the next handler gets
 *   it.
 * - A packet that matches is ours from then on (return 0): it is dropped
 *   and counted if the xfrm inbound policy refuses it, if the inner packet
 *   is not one whole IPv4 datagram (rx_drop_bad_inner), if ECN
 *   decapsulation says drop (outer CE on not-ECT), or on no memory;
 *   otherwise the outer source, destination, TOS, TTL and DF become its
 *   tunnel metadata (an RX metadata dst, skb_tunnel_info()), it is
 *   scrubbed, its device becomes ours and it goes to this CPU's GRO cell
 *   (ipip-cells.c).
 * - The error handlers treat an ICMP error about a packet one of our
 *   devices sent (any of them: a device that no datapath holds sends what
 *   the stack routes to it) as Linux's ipip does: "fragmentation needed"
 *   updates the path MTU (ipv4_update_pmtu), a redirect is applied
 *   (ipv4_redirect), the rest is ignored; each is counted.  Exact devices
 *   first, wildcard ones after ipip.ko's, as for packets.
 * - Softirq, RCU; nothing here writes memory shared between CPUs but the
 *   skb's.
 */
#include <linux/icmp.h>
#include <linux/ip.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/dst_metadata.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip_tunnels.h>
#include <net/route.h>
#include <net/xfrm.h>

#include "ipip.h"

/* Checks that 'skb', at its network header, holds one whole IPv4 datagram
 * (bytes after its total length are trimmed off, as ip_rcv does).
 * Returns 0 or a negative errno.
 */
static int check_inner(struct sk_buff *skb)
{
	const struct iphdr *iph;
	unsigned int ihl, len;

	if (!pskb_may_pull(skb, sizeof(*iph)))
		return -EINVAL;
	iph = ip_hdr(skb);
	ihl = iph->ihl * 4;
	if (iph->version != 4 || ihl < sizeof(*iph))
		return -EINVAL;
	if (!pskb_may_pull(skb, ihl))
		return -EINVAL;
	iph = ip_hdr(skb);
	len = ntohs(iph->tot_len);
	if (len < ihl || len > skb->len)
		return -EINVAL;
	if (len < skb->len && pskb_trim_rcsum(skb, len))
		return -ENOMEM;
	return 0;
}

/* tunnel4's handler for our devices of kind 'match': 'skb''s data is at
 * the inner header, its network header the outer one.
 */
static int ipip_rcv(struct sk_buff *skb, enum ovsp_ipip_match match)
{
	const struct iphdr *outer = ip_hdr(skb);
	struct metadata_dst *tun_dst;
	struct ovsp_ipip *t;
	__be32 saddr, daddr;
	u8 tos, ttl;
	__be16 flags;
	int err;

	t = ovsp_ipip_lookup(dev_net(skb->dev), outer->daddr, outer->saddr,
			     match, true);
	if (!t)
		return -1;

	/* The outer header's fields, before any pull may move it. */
	saddr = outer->saddr;
	daddr = outer->daddr;
	tos = outer->tos;
	ttl = outer->ttl;
	flags = outer->frag_off & htons(IP_DF) ? TUNNEL_DONT_FRAGMENT : 0;

	if (!xfrm4_policy_check(NULL, XFRM_POLICY_IN, skb)) {
		ovsp_ipip_count(t, OVSP_IPIP_STAT_RX_DROP_POLICY);
		goto drop;
	}
	/* Nothing to pull; sets the protocol, scrubs, clears the offloads
	 * that belonged to the outer packet.
	 */
	if (iptunnel_pull_header(skb, 0, htons(ETH_P_IP), false)) {
		ovsp_ipip_count(t, OVSP_IPIP_STAT_RX_DROP_NOMEM);
		goto drop;
	}
	skb_reset_network_header(skb);
	err = check_inner(skb);
	if (err) {
		ovsp_ipip_count(t, err == -ENOMEM ? OVSP_IPIP_STAT_RX_DROP_NOMEM
					  : OVSP_IPIP_STAT_RX_DROP_BAD_INNER);
		goto drop;
	}
	/* INET_ECN_decapsulate() wants the outer TOS only. */
	err = INET_ECN_decapsulate(skb, tos, ip_hdr(skb)->tos);
	if (unlikely(err > 1)) {
		ovsp_ipip_count(t, OVSP_IPIP_STAT_RX_DROP_ECN);
		goto drop;
	}

	tun_dst = __ip_tun_set_dst(saddr, daddr, tos, ttl, 0, flags, 0, 0);
	if (!tun_dst) {
		ovsp_ipip_count(t, OVSP_IPIP_STAT_RX_DROP_NOMEM);
		goto drop;
	}
	skb_reset_mac_header(skb);
	skb->mac_len = 0;
	skb->dev = t->dev;
	skb->pkt_type = PACKET_HOST;
	skb_dst_set(skb, &tun_dst->dst);
	dev_sw_netstats_rx_add(t->dev, skb->len);
	ovsp_ipip_count(t, OVSP_IPIP_STAT_RX_DECAP);
	ovsp_ipip_cells_receive(t, skb);
	return 0;

drop:
	DEV_STATS_INC(t->dev, rx_errors);
	kfree_skb(skb);
	return 0;
}

/* tunnel4's error handler for our devices of kind 'match': 'skb''s data
 * is the outer IPv4 header of the packet the error is about (at least 8
 * bytes after it, checked by icmp_unreach).
 */
static int ipip_err(struct sk_buff *skb, u32 info, enum ovsp_ipip_match match)
{
	const struct iphdr *iph = (const struct iphdr *)skb->data;
	const int type = icmp_hdr(skb)->type;
	const int code = icmp_hdr(skb)->code;
	struct net *net = dev_net(skb->dev);
	struct ovsp_ipip *t;

	/* We sent it: our address is its source. */
	t = ovsp_ipip_lookup(net, iph->saddr, iph->daddr, match, false);
	if (!t)
		return -ENOENT;

	if (type == ICMP_DEST_UNREACH && code == ICMP_FRAG_NEEDED) {
		ipv4_update_pmtu(skb, net, info, 0, IPPROTO_IPIP);
		ovsp_ipip_count(t, OVSP_IPIP_STAT_ICMP_PMTU);
	} else if (type == ICMP_REDIRECT) {
		ipv4_redirect(skb, net, 0, IPPROTO_IPIP);
		ovsp_ipip_count(t, OVSP_IPIP_STAT_ICMP_REDIRECT);
	}
	/* Anything else is no business of a tunnel without a fixed remote
	 * to report errors for (as ipip.ko for collect_md devices).
	 */
	return 0;
}

static int ipip_rcv_exact(struct sk_buff *skb)
{
	return ipip_rcv(skb, OVSP_IPIP_EXACT);
}

static int ipip_err_exact(struct sk_buff *skb, u32 info)
{
	return ipip_err(skb, info, OVSP_IPIP_EXACT);
}

static int ipip_rcv_wildcard(struct sk_buff *skb)
{
	return ipip_rcv(skb, OVSP_IPIP_WILDCARD);
}

static int ipip_err_wildcard(struct sk_buff *skb, u32 info)
{
	return ipip_err(skb, info, OVSP_IPIP_WILDCARD);
}

/* Before ipip.ko's handler (priority 1). */
static struct xfrm_tunnel ipip_exact_handler __read_mostly = {
	.handler = ipip_rcv_exact,
	.err_handler = ipip_err_exact,
	.priority = 0,
};

/* After ipip.ko's and sit's (2), before xfrm4_tunnel's (4). */
static struct xfrm_tunnel ipip_wildcard_handler __read_mostly = {
	.handler = ipip_rcv_wildcard,
	.err_handler = ipip_err_wildcard,
	.priority = 3,
};

int ovsp_ipip_rcv_init(void)
{
	int err;

	err = xfrm4_tunnel_register(&ipip_exact_handler, AF_INET);
	if (err) {
		pr_err("ovs_percpu: cannot register the IPPROTO_IPIP handler at priority %d (%d)\n",
		       ipip_exact_handler.priority, err);
		return err;
	}
	err = xfrm4_tunnel_register(&ipip_wildcard_handler, AF_INET);
	if (err) {
		pr_err("ovs_percpu: cannot register the IPPROTO_IPIP handler at priority %d (%d)\n",
		       ipip_wildcard_handler.priority, err);
		xfrm4_tunnel_deregister(&ipip_exact_handler, AF_INET);
	}
	return err;
}

void ovsp_ipip_rcv_exit(void)
{
	xfrm4_tunnel_deregister(&ipip_wildcard_handler, AF_INET);
	xfrm4_tunnel_deregister(&ipip_exact_handler, AF_INET);
}

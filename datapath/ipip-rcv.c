// SPDX-License-Identifier: GPL-2.0
/*
 * The IPPROTO_IPIP handler of the ovs_ipip devices.
 *
 * Contract:
 * - Registered with tunnel4 at priority 0, before Linux's ipip.ko
 *   (priority 1), which keeps working beside it: a packet (or an ICMP
 *   error about one) whose outer addresses match none of our devices in
 *   its namespace (ovsp_ipip_lookup()) is declined with a non-zero return,
 *   untouched, and the next handler gets it.
 * - A packet that matches is ours from then on (return 0): it is dropped
 *   and counted if the xfrm inbound policy refuses it, if the inner packet
 *   is not one whole IPv4 datagram (rx_drop_bad_inner), if ECN
 *   decapsulation says drop (outer CE on not-ECT), or on no memory;
 *   otherwise the outer source, destination, TOS, TTL and DF become its
 *   tunnel metadata (an RX metadata dst, skb_tunnel_info()), it is
 *   scrubbed, its device becomes ours and it goes to this CPU's GRO cell
 *   (ipip-cells.c).
 * - The error handler treats an ICMP error about a packet one of our
 *   devices sent as Linux's ipip does: "fragmentation needed" updates the
 *   path MTU (ipv4_update_pmtu), a redirect is applied (ipv4_redirect),
 *   the rest is ignored; each is counted.
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
 * Returns 0 or a negative errno. */
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

/* tunnel4's handler: 'skb''s data is at the inner header, its network
 * header the outer one. */
static int ipip_rcv(struct sk_buff *skb)
{
	const struct iphdr *outer = ip_hdr(skb);
	struct metadata_dst *tun_dst;
	struct ovsp_ipip *t;
	__be32 saddr, daddr;
	u8 tos, ttl;
	__be16 flags;
	int err;

	t = ovsp_ipip_lookup(dev_net(skb->dev), outer->daddr, outer->saddr);
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
	 * that belonged to the outer packet. */
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

/* tunnel4's error handler: 'skb''s data is the outer IPv4 header of the
 * packet the error is about (at least 8 bytes after it, checked by
 * icmp_unreach). */
static int ipip_err(struct sk_buff *skb, u32 info)
{
	const struct iphdr *iph = (const struct iphdr *)skb->data;
	const int type = icmp_hdr(skb)->type;
	const int code = icmp_hdr(skb)->code;
	struct net *net = dev_net(skb->dev);
	struct ovsp_ipip *t;

	/* We sent it: our address is its source. */
	t = ovsp_ipip_lookup(net, iph->saddr, iph->daddr);
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
	 * to report errors for (as ipip.ko for collect_md devices). */
	return 0;
}

static struct xfrm_tunnel ipip_handler __read_mostly = {
	.handler = ipip_rcv,
	.err_handler = ipip_err,
	.priority = 0,
};

int ovsp_ipip_rcv_init(void)
{
	int err = xfrm4_tunnel_register(&ipip_handler, AF_INET);

	if (err)
		pr_err("ovs_percpu: cannot register the IPPROTO_IPIP handler at priority 0 (%d)\n",
		       err);
	return err;
}

void ovsp_ipip_rcv_exit(void)
{
	xfrm4_tunnel_deregister(&ipip_handler, AF_INET);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Output of a datagram that ct() reassembled (vport.h has the contract):
 * cut again on the way out into fragments no larger than the largest it
 * was reassembled from (its MRU), so that what leaves is what came in, as
 * Linux's openvswitch.ko does.  The IP layer does the cutting
 * (ip_do_fragment(), and IPv6's through ipv6_stub), given a route of ours
 * on the stack whose MTU is the output device's; it hands each fragment
 * back to ovsp_frag_send_one(), which puts the link-layer header back and
 * sends it.
 *
 * Per packet it writes the skb, the caller's stack and this CPU's struct
 * ovsp_frag_out; what it drops is counted on this CPU
 * (ovsp_ct_count_refrag_drop()).
 */
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <net/dst.h>
#include <net/ip.h>
#include <net/ip6_fib.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>

#include "conntrack.h"
#include "dp-core.h"
#include "skb-cb.h"
#include "vport.h"

/* The longest link-layer header a datagram is cut under: Ethernet with
 * two VLAN tags in the data (an outer tag is usually the skb's, not the
 * data's).  A longer one (MPLS) is dropped.
 */
#define OVSP_FRAG_L2_MAX (VLAN_ETH_HLEN + VLAN_HLEN)

/* What each fragment needs to leave as its datagram would have.  Written
 * by ovsp_vport_send_mru() just before it has the datagram cut, read by
 * ovsp_frag_send_one() for each fragment, on the same CPU with BHs off:
 * this CPU's alone.
 */
struct ovsp_frag_out {
	struct ovsp_vport *vport;	/* Where the fragments go. */
	unsigned long refdst;		/* The datagram's dst (a tunnel's
					 * metadata, say), copied to each.
					 */
	struct ovsp_skb_cb cb;		/* Our cb, copied to each. */
	__be16 vlan_proto;		/* The skb's own VLAN tag, if */
	u16 vlan_tci;			/* 'vlan_present'. */
	bool vlan_present;
	u8 mac_proto;			/* OVSP_MAC_PROTO_*. */
	u8 l2_len;			/* Bytes used in 'l2'. */
	u8 l2[OVSP_FRAG_L2_MAX];	/* The link-layer header. */
};

static DEFINE_PER_CPU(struct ovsp_frag_out, ovsp_frag_out);

/* Our routes' MTU: the output device's. */
static unsigned int ovsp_frag_dst_mtu(const struct dst_entry *dst)
{
	return READ_ONCE(dst->dev->mtu);
}

/* The operations of the routes that ovsp_frag_cut() builds: the IP
 * layer's fragmentation reads only the MTU of a route.
 */
static struct dst_ops ovsp_frag_dst_ops = {
	.family = AF_UNSPEC,
	.mtu = ovsp_frag_dst_mtu,
};

/* Sends fragment 'skb' (skb->data at its network header), as the datagram
 * it was cut from would have gone.  Called by the IP layer for each.
 */
static int ovsp_frag_send_one(struct net *net, struct sock *sk,
			      struct sk_buff *skb)
{
	const struct ovsp_frag_out *o = this_cpu_ptr(&ovsp_frag_out);

	if (skb_cow_head(skb, o->l2_len)) {
		kfree_skb(skb);
		return -ENOMEM;
	}
	/* Our route on the stack dies with ovsp_frag_cut(). */
	skb_dst_drop(skb);
	__skb_dst_copy(skb, o->refdst);
	*ovsp_skb_cb(skb) = o->cb;
	if (o->vlan_present)
		__vlan_hwaccel_put_tag(skb, o->vlan_proto, o->vlan_tci);
	else
		__vlan_hwaccel_clear_tag(skb);
	skb_push(skb, o->l2_len);
	memcpy(skb->data, o->l2, o->l2_len);
	skb_postpush_rcsum(skb, skb->data, o->l2_len);
	skb_reset_mac_header(skb);
	ovsp_vport_send(o->vport, skb, o->mac_proto);
	return 0;
}

/* Has the IP layer cut 'skb' (skb->data at its network header, of
 * Ethertype 'type') into fragments of at most 'mru' bytes for 'dev', each
 * sent by ovsp_frag_send_one().  Consumes 'skb'.  Returns 0 or the IP
 * layer's negative errno.
 */
static int ovsp_frag_cut(struct net *net, struct sk_buff *skb,
			 struct net_device *dev, __be16 type, u16 mru)
{
	union {
		struct rtable v4;
		struct rt6_info v6;
	} rt;
	unsigned long refdst = skb->_skb_refdst;
	int err;

	memset(&rt, 0, sizeof(rt));
	if (type == htons(ETH_P_IP)) {
		dst_init(&rt.v4.dst, &ovsp_frag_dst_ops, NULL, 1,
			 DST_OBSOLETE_NONE, DST_NOCOUNT);
		rt.v4.dst.dev = dev;
		skb_dst_set_noref(skb, &rt.v4.dst);
		memset(IPCB(skb), 0, sizeof(struct inet_skb_parm));
		IPCB(skb)->frag_max_size = mru;
		err = ip_do_fragment(net, skb->sk, skb, ovsp_frag_send_one);
	} else {
		dst_init(&rt.v6.dst, &ovsp_frag_dst_ops, NULL, 1,
			 DST_OBSOLETE_NONE, DST_NOCOUNT);
		rt.v6.dst.dev = dev;
		skb_dst_set_noref(skb, &rt.v6.dst);
		memset(IP6CB(skb), 0, sizeof(struct inet6_skb_parm));
		IP6CB(skb)->frag_max_size = mru;
		err = ipv6_stub->ipv6_fragment(net, skb->sk, skb,
					       ovsp_frag_send_one);
	}
	/* The datagram's own reference, which each fragment copied. */
	refdst_drop(refdst);
	return err;
}

void ovsp_vport_send_mru(struct ovsp_vport *vport, struct sk_buff *skb,
			 u8 mac_proto, __be16 type, u16 mru)
{
	struct net_device *dev = vport->dev;
	struct net *net = ovsp_dp_net(vport->dp);
	unsigned int l2_len = skb_network_offset(skb);
	struct ovsp_frag_out *o;

	if (likely(!mru || skb->len <= mru + dev->hard_header_len)) {
		ovsp_vport_send(vport, skb, mac_proto);
		return;
	}
	/* Fragments of the MRU would not fit the device either: dropped,
	 * as Linux drops them.
	 */
	if (mru > READ_ONCE(dev->mtu) || l2_len > OVSP_FRAG_L2_MAX ||
	    l2_len > skb_headlen(skb) ||
	    (type != htons(ETH_P_IP) && type != htons(ETH_P_IPV6)))
		goto drop;

	o = this_cpu_ptr(&ovsp_frag_out);
	o->vport = vport;
	o->refdst = skb->_skb_refdst;
	o->cb = *ovsp_skb_cb(skb);
	o->vlan_present = skb_vlan_tag_present(skb);
	o->vlan_proto = skb->vlan_proto;
	o->vlan_tci = skb_vlan_tag_get(skb);
	o->mac_proto = mac_proto;
	o->l2_len = l2_len;
	memcpy(o->l2, skb->data, l2_len);
	__skb_pull(skb, l2_len);
	if (ovsp_frag_cut(net, skb, dev, type, mru))
		ovsp_ct_count_refrag_drop(net);
	return;
drop:
	ovsp_ct_count_refrag_drop(net);
	kfree_skb(skb);
}

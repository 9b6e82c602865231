/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the datapath keeps in skb->cb while it owns a packet.
 *
 * Written by the vport that receives the packet (or by EXECUTE) and by the
 * actions; read by output and upcall.  Owned by the CPU processing the
 * packet, like the skb itself.
 */
#ifndef OVSP_SKB_CB_H
#define OVSP_SKB_CB_H 1

#include <linux/build_bug.h>
#include <linux/skbuff.h>

struct ovsp_vport;

struct ovsp_skb_cb {
	struct ovsp_vport *input_vport;	/* Where the packet entered (NULL for
					 * EXECUTE without a known port).
					 */
	u16 mru;			/* Largest fragment of a reassembled
					 * datagram, or 0.
					 */
	u16 acts_origlen;		/* nla_len() of the actions run on it,
					 * for an action upcall's sizing.
					 */
	u32 trunc_len;			/* Length trunc() cuts the packet to
					 * at output or upcall, at least
					 * ETH_HLEN (validation checks); 0:
					 * none.
					 */
};

static inline struct ovsp_skb_cb *ovsp_skb_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct ovsp_skb_cb) > sizeof_field(struct sk_buff, cb));
	return (struct ovsp_skb_cb *)skb->cb;
}

#endif

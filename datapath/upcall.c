// SPDX-License-Identifier: GPL-2.0
/*
 * Upcalls: a packet and its key queued to a userspace Netlink socket
 * (OVS_PACKET_CMD_MISS or OVS_PACKET_CMD_ACTION).
 *
 * Which socket: in per-CPU dispatch mode (OVS_DP_F_DISPATCH_UPCALL_PER_CPU)
 * always the PID of the current CPU (smp_processor_id()) in the datapath's
 * per-CPU array; otherwise the caller's PID if it gave one, else the input
 * vport's PIDs indexed by the skb hash.  PID 0 is -ENOTCONN.
 *
 * Every failure is counted in this CPU's n_lost.  A GSO packet goes up as
 * its segments; a VLAN tag held in the skb goes back into the data; a
 * packet that does not fit a Netlink attribute (16-bit length) is refused
 * with -EMSGSIZE.
 */
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/openvswitch.h>
#include <linux/skbuff.h>
#include <net/genetlink.h>

#include "dp-core.h"
#include "flow-netlink.h"
#include "skb-cb.h"

/* Bytes of the message for a packet of 'len' bytes and 'info'. */
static size_t upcall_msg_size(const struct ovsp_upcall_info *info,
			      unsigned int len)
{
	size_t size = NLMSG_ALIGN(sizeof(struct ovs_header))
		+ nla_total_size(len)
		+ nla_total_size(ovsp_flow_key_attr_size())
		+ nla_total_size(sizeof(u32))	/* LEN */
		+ nla_total_size_64bit(sizeof(u64))	/* HASH */
		+ nla_total_size(sizeof(u16));	/* MRU */

	if (info->userdata)
		size += NLA_ALIGN(info->userdata->nla_len);
	if (info->egress_tun_info)
		size += nla_total_size(ovsp_flow_key_attr_size());
	if (info->actions)
		size += nla_total_size(info->actions_len);
	return size;
}

/* OVS_PACKET_ATTR_HASH: the skb hash and whether it is a software or an
 * L4 hash, as userspace reads it.
 */
static u64 upcall_hash(const struct ovsp_upcall_info *info,
		       struct sk_buff *skb)
{
	u64 hash = info->hash ?: skb_get_hash_raw(skb);

	if (!hash)
		return 0;
	if (skb->sw_hash)
		hash |= OVSP_PACKET_HASH_SW_BIT;
	if (skb->l4_hash)
		hash |= OVSP_PACKET_HASH_L4_BIT;
	return hash;
}

/* Appends the attributes but the packet. */
static int upcall_put_attrs(struct sk_buff *msg, struct sk_buff *skb,
			    const struct ovsp_flow_key *key,
			    const struct ovsp_upcall_info *info, bool truncated)
{
	u64 hash = upcall_hash(info, skb);
	int err;

	err = ovsp_flow_key_to_nlattrs(key, msg, OVS_PACKET_ATTR_KEY);
	if (err)
		return err;
	if (info->userdata
	    && nla_put(msg, OVS_PACKET_ATTR_USERDATA, nla_len(info->userdata),
		       nla_data(info->userdata)))
		return -EMSGSIZE;
	if (info->egress_tun_info) {
		err = ovsp_tunnel_info_to_nlattrs(msg,
						  OVS_PACKET_ATTR_EGRESS_TUN_KEY,
						  info->egress_tun_info);
		if (err)
			return err;
	}
	if (info->actions && info->actions_len
	    && nla_put(msg, OVS_PACKET_ATTR_ACTIONS, info->actions_len,
		       info->actions))
		return -EMSGSIZE;
	if (info->mru && nla_put_u16(msg, OVS_PACKET_ATTR_MRU, info->mru))
		return -EMSGSIZE;
	if (truncated && nla_put_u32(msg, OVS_PACKET_ATTR_LEN, skb->len))
		return -EMSGSIZE;
	if (hash && nla_put_u64_64bit(msg, OVS_PACKET_ATTR_HASH, hash,
				      OVS_PACKET_ATTR_UNSPEC))
		return -EMSGSIZE;
	return 0;
}

/* Queues one (non-GSO) packet to 'portid'. */
static int upcall_queue(struct ovsp_datapath *dp, struct sk_buff *skb,
			const struct ovsp_flow_key *key,
			const struct ovsp_upcall_info *info, u32 trunc_len,
			u32 portid)
{
	struct sk_buff *nskb = NULL, *msg;
	struct ovs_header *hdr;
	struct nlattr *nla;
	unsigned int len;
	int err;

	if (skb_vlan_tag_present(skb)) {
		nskb = skb_clone(skb, GFP_ATOMIC);
		if (!nskb)
			return -ENOMEM;
		nskb = __vlan_hwaccel_push_inside(nskb);
		if (!nskb)
			return -ENOMEM;
		skb = nskb;
	}
	err = -EINVAL;
	if (skb->ip_summed == CHECKSUM_PARTIAL && skb_checksum_help(skb))
		goto out;

	len = trunc_len ? min(trunc_len, skb->len) : skb->len;
	err = -EMSGSIZE;
	if (len > U16_MAX - NLA_HDRLEN)
		goto out;

	err = -ENOMEM;
	msg = genlmsg_new(upcall_msg_size(info, len), GFP_ATOMIC);
	if (!msg)
		goto out;
	hdr = genlmsg_put(msg, 0, 0, &ovsp_packet_family, 0, info->cmd);
	if (!hdr)
		goto out_msg;
	hdr->dp_ifindex = ovsp_dp_ifindex(dp);
	err = upcall_put_attrs(msg, skb, key, info, len < skb->len);
	if (err)
		goto out_msg;
	err = -EMSGSIZE;
	nla = nla_reserve(msg, OVS_PACKET_ATTR_PACKET, len);
	if (!nla)
		goto out_msg;
	err = skb_copy_bits(skb, 0, nla_data(nla), len);
	if (err)
		goto out_msg;
	genlmsg_end(msg, hdr);
	err = genlmsg_unicast(ovsp_dp_net(dp), msg, portid);
	goto out;

out_msg:
	kfree_skb(msg);
out:
	kfree_skb(nskb);
	return err;
}

/* Queues each segment of GSO packet 'skb'. */
static int upcall_queue_gso(struct ovsp_datapath *dp, struct sk_buff *skb,
			    const struct ovsp_flow_key *key,
			    const struct ovsp_upcall_info *info, u32 trunc_len,
			    u32 portid)
{
	struct sk_buff *segs, *seg, *next;
	int err = 0;

	segs = __skb_gso_segment(skb, NETIF_F_SG, false);
	if (IS_ERR(segs))
		return PTR_ERR(segs);
	if (!segs)
		return -EINVAL;
	skb_list_walk_safe(segs, seg, next) {
		if (!err)
			err = upcall_queue(dp, seg, key, info, trunc_len,
					   portid);
		consume_skb(seg);
	}
	return err;
}

int ovsp_dp_upcall(struct ovsp_datapath *dp, struct sk_buff *skb,
		   const struct ovsp_flow_key *key,
		   const struct ovsp_upcall_info *info, u32 trunc_len)
{
	struct ovsp_dp_stats_pcpu *stats;
	u32 portid = info->portid;
	int err;

	if (dp->user_features & OVS_DP_F_DISPATCH_UPCALL_PER_CPU)
		portid = ovsp_pids_select(rcu_dereference(dp->cpu_pids),
					  smp_processor_id());
	else if (!portid)
		portid = ovsp_dp_miss_portid(dp, ovsp_skb_cb(skb)->input_vport,
					     skb);

	if (!portid)
		err = -ENOTCONN;
	else if (skb_is_gso(skb))
		err = upcall_queue_gso(dp, skb, key, info, trunc_len, portid);
	else
		err = upcall_queue(dp, skb, key, info, trunc_len, portid);

	if (err) {
		stats = this_cpu_ptr(dp->stats);
		u64_stats_update_begin(&stats->syncp);
		stats->n_lost++;
		u64_stats_update_end(&stats->syncp);
	}
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Vports: creation, destruction, receive and send common to every kind
 * (vport.h has the contract).
 */
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/openvswitch.h>
#include <linux/slab.h>

#include "dp-core.h"
#include "flow-key.h"
#include "skb-cb.h"
#include "vport.h"

/* The kinds of vport carried; no module is ever loaded for another. */
static const struct ovsp_vport_ops *vport_ops(u32 type)
{
	switch (type) {
	case OVS_VPORT_TYPE_NETDEV:
		return &ovsp_netdev_vport_ops;
	case OVS_VPORT_TYPE_INTERNAL:
		return &ovsp_internal_vport_ops;
	default:
		return NULL;
	}
}

struct ovsp_vport *ovsp_vport_create(const struct ovsp_vport_parms *parms)
{
	const struct ovsp_vport_ops *ops = vport_ops(parms->type);
	struct ovsp_vport *vport;
	int err;

	if (!ops)
		return ERR_PTR(-EAFNOSUPPORT);
	vport = kzalloc(sizeof(*vport), GFP_KERNEL);
	if (!vport)
		return ERR_PTR(-ENOMEM);
	vport->dp = parms->dp;
	vport->port_no = parms->port_no;
	vport->ops = ops;
	RCU_INIT_POINTER(vport->pids, parms->pids);
	err = ops->create(vport, parms->name);
	if (err) {
		kfree(vport);
		return ERR_PTR(err);
	}
	return vport;
}

static void vport_free_rcu(struct rcu_head *rcu)
{
	struct ovsp_vport *vport = container_of(rcu, struct ovsp_vport, rcu);

	if (!vport->dev_released)
		netdev_put(vport->dev, &vport->dev_tracker);
	kfree(rcu_dereference_raw(vport->pids));
	kfree(vport);
}

void ovsp_vport_destroy(struct ovsp_vport *vport)
{
	vport->ops->destroy(vport);
	call_rcu(&vport->rcu, vport_free_rcu);
}

struct ovsp_vport *ovsp_vport_from_dev(const struct net_device *dev)
{
	return ovsp_netdev_vport(dev) ?: ovsp_internal_vport(dev);
}

void ovsp_vport_set_pids(struct ovsp_vport *vport, struct ovsp_pids *pids)
{
	struct ovsp_pids *old = rcu_dereference_protected(vport->pids, 1);

	rcu_assign_pointer(vport->pids, pids);
	ovsp_pids_free_rcu(old);
}

void ovsp_vport_receive(struct ovsp_vport *vport, struct sk_buff *skb,
			const struct ip_tunnel_info *tun)
{
	struct ovsp_flow_key key;
	int err;

	*ovsp_skb_cb(skb) = (struct ovsp_skb_cb) { .input_vport = vport };
	if (unlikely(!net_eq(dev_net(skb->dev), ovsp_dp_net(vport->dp)))) {
		/* A device in another namespace: drop what belongs to that
		 * namespace (the dst, and with it any tunnel metadata) but
		 * the mark.
		 */
		u32 mark = skb->mark;

		skb_scrub_packet(skb, true);
		skb->mark = mark;
		tun = NULL;
	}
	err = ovsp_flow_key_extract(tun, skb, vport->port_no, &key);
	if (unlikely(err)) {
		kfree_skb(skb);
		return;
	}
	ovsp_dp_process_packet(skb, &key);
}

/* The length the device's MTU limits: without its link-layer header and
 * a VLAN tag still in the data (0 for a packet no longer than the
 * header).
 */
static unsigned int packet_length(const struct sk_buff *skb,
				  const struct net_device *dev)
{
	unsigned int len;

	if (skb->len <= dev->hard_header_len)
		return 0;
	len = skb->len - dev->hard_header_len;
	if (!skb_vlan_tag_present(skb) && eth_type_vlan(skb->protocol)
	    && len >= VLAN_HLEN)
		len -= VLAN_HLEN;
	return len;
}

void ovsp_vport_send(struct ovsp_vport *vport, struct sk_buff *skb,
		     u8 mac_proto)
{
	struct net_device *dev = vport->dev;

	if (unlikely(vport->detached))
		goto drop;
	switch (dev->type) {
	case ARPHRD_NONE:
		if (mac_proto == OVSP_MAC_PROTO_ETHERNET) {
			skb_reset_network_header(skb);
			skb_reset_mac_len(skb);
			skb->protocol = htons(ETH_P_TEB);
		}
		break;
	case ARPHRD_ETHER:
		/* An Ethernet device takes whole Ethernet headers only. */
		if (mac_proto != OVSP_MAC_PROTO_ETHERNET || skb->len < ETH_HLEN)
			goto drop;
		break;
	default:
		goto drop;
	}
	if (unlikely(packet_length(skb, dev) > dev->mtu && !skb_is_gso(skb)))
		goto drop;
	skb->dev = dev;
	vport->ops->send(vport, skb);
	return;
drop:
	dev_core_stats_tx_dropped_inc(dev);
	kfree_skb(skb);
}

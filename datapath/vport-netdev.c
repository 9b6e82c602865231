// SPDX-License-Identifier: GPL-2.0
/*
 * Netdev vports: an existing net_device attached to a datapath through an
 * rx_handler.  The kernel's collect_md tunnel devices (vxlan, gre,
 * geneve) attach this way too; their receive path leaves the tunnel
 * metadata in skb_tunnel_info(), which goes into the flow key.
 *
 * Attach: by name in the datapath's namespace; loopback, devices that are
 * neither Ethernet nor L3 (ARPHRD_NONE), and our own internal devices are
 * refused with -EINVAL; a device with another rx_handler (a bridge port,
 * another datapath's) with -EBUSY.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/openvswitch.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <net/dst_metadata.h>

#include "dp-core.h"
#include "vport.h"

/* The rx_handler: every packet the device receives enters the datapath. */
static rx_handler_result_t netdev_frame_hook(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct ovsp_vport *vport;

	if (unlikely(skb->pkt_type == PACKET_LOOPBACK))
		return RX_HANDLER_PASS;
	vport = rcu_dereference(skb->dev->rx_handler_data);
	if (unlikely(!vport || vport->detached))
		return RX_HANDLER_PASS;

	skb = skb_share_check(skb, GFP_ATOMIC);
	if (unlikely(!skb))
		return RX_HANDLER_CONSUMED;
	/* The stack pulled the Ethernet header; the key starts at it. */
	if (skb->dev->type == ARPHRD_ETHER)
		skb_push_rcsum(skb, ETH_HLEN);
	ovsp_vport_receive(vport, skb, skb_tunnel_info(skb));
	return RX_HANDLER_CONSUMED;
}

struct ovsp_vport *ovsp_netdev_vport(const struct net_device *dev)
{
	if (rcu_access_pointer(dev->rx_handler) != netdev_frame_hook)
		return NULL;
	return rcu_dereference_rtnl(dev->rx_handler_data);
}

/* The datapath's local port device, to be the attached device's master. */
static struct net_device *local_dev(struct ovsp_vport *vport)
{
	struct ovsp_vport *local = ovsp_dp_vport(vport->dp, OVSP_LOCAL);

	return local ? local->dev : NULL;
}

static int netdev_attach(struct ovsp_vport *vport, struct net_device *dev)
{
	struct net_device *master = local_dev(vport);
	int err;

	if (!master)
		return -ENODEV;
	err = netdev_master_upper_dev_link(dev, master, NULL, NULL, NULL);
	if (err)
		return err;
	err = netdev_rx_handler_register(dev, netdev_frame_hook, vport);
	if (err) {
		netdev_upper_dev_unlink(dev, master);
		return err;
	}
	dev->priv_flags |= IFF_OVS_DATAPATH;
	dev_set_promiscuity(dev, 1);
	dev_disable_lro(dev);
	return 0;
}

static int netdev_create(struct ovsp_vport *vport, const char *name)
{
	struct net_device *dev;
	int err;

	rtnl_lock();
	dev = __dev_get_by_name(ovsp_dp_net(vport->dp), name);
	if (!dev) {
		err = -ENODEV;
		goto out;
	}
	if (dev->flags & IFF_LOOPBACK
	    || (dev->type != ARPHRD_ETHER && dev->type != ARPHRD_NONE)
	    || ovsp_internal_vport(dev)) {
		err = -EINVAL;
		goto out;
	}
	err = netdev_attach(vport, dev);
	if (!err) {
		vport->dev = dev;
		netdev_hold(dev, &vport->dev_tracker, GFP_KERNEL);
	}
out:
	rtnl_unlock();
	return err;
}

void ovsp_netdev_detach(struct ovsp_vport *vport)
{
	struct net_device *dev = vport->dev;
	struct net_device *master;

	ASSERT_RTNL();
	if (vport->detached)
		return;
	WRITE_ONCE(vport->detached, true);
	dev->priv_flags &= ~IFF_OVS_DATAPATH;
	netdev_rx_handler_unregister(dev);
	master = netdev_master_upper_dev_get(dev);
	if (master)
		netdev_upper_dev_unlink(dev, master);
	dev_set_promiscuity(dev, -1);
}

static void netdev_destroy(struct ovsp_vport *vport)
{
	rtnl_lock();
	ovsp_netdev_detach(vport);
	rtnl_unlock();
}

static void netdev_send(struct ovsp_vport *vport, struct sk_buff *skb)
{
	dev_queue_xmit(skb);
}

const struct ovsp_vport_ops ovsp_netdev_vport_ops = {
	.type = OVS_VPORT_TYPE_NETDEV,
	.create = netdev_create,
	.destroy = netdev_destroy,
	.send = netdev_send,
};

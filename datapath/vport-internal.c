// SPDX-License-Identifier: GPL-2.0
/*
 * Internal vports: a net_device of ours whose transmit feeds the datapath
 * and which the datapath's output delivers to the host stack, as a
 * bridge's own interface.  The datapath's local port (number 0, named
 * after the datapath) is one.
 *
 * Only the local port's device is netns-local (NETIF_F_NETNS_LOCAL): it
 * lives and dies with its datapath, which the pernet exit destroys.  Any
 * other internal device may be moved to another namespace ('ip link set
 * DEV netns NS', as Neutron's agents do with OVS's interface driver) and
 * stays a port of its datapath; packets it sends are scrubbed of what
 * belongs to its namespace (ovsp_vport_receive()), and the exit of that
 * namespace deletes the vport (ovsp_dp_detach_net_devices()), before the
 * kernel would push the device back to the initial namespace.  It has no
 * rtnl kind, so 'ip link add/del' cannot make or remove one: only
 * OVS_VPORT_CMD_NEW/DEL.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/openvswitch.h>
#include <net/dst.h>
#include <net/xfrm.h>
#include <net/netfilter/nf_conntrack_zones.h>

#include "dp-core.h"
#include "vport.h"

/* The device's private area. */
struct internal_priv {
	struct ovsp_vport *vport;	/* Its vport (set before register). */
};

static const struct net_device_ops internal_netdev_ops;

struct ovsp_vport *ovsp_internal_vport(const struct net_device *dev)
{
	if (dev->netdev_ops != &internal_netdev_ops)
		return NULL;
	return ((struct internal_priv *)netdev_priv(dev))->vport;
}

/* The host sent a packet on the device: it enters the datapath. */
static netdev_tx_t internal_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct ovsp_vport *vport = ovsp_internal_vport(dev);
	unsigned int len = skb->len;

	skb_reset_mac_header(skb);
	rcu_read_lock();
	ovsp_vport_receive(vport, skb, NULL);
	rcu_read_unlock();
	dev_sw_netstats_tx_add(dev, 1, len);
	return NETDEV_TX_OK;
}

static int internal_open(struct net_device *dev)
{
	netif_start_queue(dev);
	return 0;
}

static int internal_stop(struct net_device *dev)
{
	netif_stop_queue(dev);
	return 0;
}

static int internal_init(struct net_device *dev)
{
	dev->tstats = netdev_alloc_pcpu_stats(struct pcpu_sw_netstats);
	return dev->tstats ? 0 : -ENOMEM;
}

static void internal_uninit(struct net_device *dev)
{
	free_percpu(dev->tstats);
}

static const struct net_device_ops internal_netdev_ops = {
	.ndo_init = internal_init,
	.ndo_uninit = internal_uninit,
	.ndo_open = internal_open,
	.ndo_stop = internal_stop,
	.ndo_start_xmit = internal_xmit,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_get_stats64 = dev_get_tstats64,
};

/* Reports the driver as "openvswitch", as OVS's netdev-linux expects of a
 * datapath's internal device.
 */
static void internal_get_drvinfo(struct net_device *dev,
				 struct ethtool_drvinfo *info)
{
	strscpy(info->driver, "openvswitch", sizeof(info->driver));
}

static const struct ethtool_ops internal_ethtool_ops = {
	.get_drvinfo = internal_get_drvinfo,
	.get_link = ethtool_op_get_link,
};

static void internal_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &internal_netdev_ops;
	dev->ethtool_ops = &internal_ethtool_ops;
	dev->needs_free_netdev = true;
	dev->max_mtu = ETH_MAX_MTU;
	dev->priv_flags &= ~IFF_TX_SKB_SHARING;
	dev->priv_flags |= IFF_LIVE_ADDR_CHANGE | IFF_OPENVSWITCH |
			   IFF_NO_QUEUE;
	dev->features = NETIF_F_LLTX | NETIF_F_SG | NETIF_F_FRAGLIST |
			NETIF_F_HIGHDMA | NETIF_F_HW_CSUM |
			NETIF_F_GSO_SOFTWARE | NETIF_F_GSO_ENCAP_ALL;
	dev->vlan_features = dev->features;
	dev->hw_enc_features = dev->features;
	dev->features |= NETIF_F_HW_VLAN_CTAG_TX | NETIF_F_HW_VLAN_STAG_TX;
	dev->hw_features = dev->features & ~NETIF_F_LLTX;
	eth_hw_addr_random(dev);
}

static int internal_create(struct ovsp_vport *vport, const char *name)
{
	struct net_device *dev;
	struct internal_priv *priv;
	int err;

	dev = alloc_netdev(sizeof(struct internal_priv), name,
			   NET_NAME_USER, internal_setup);
	if (!dev)
		return -ENOMEM;
	priv = netdev_priv(dev);
	priv->vport = vport;
	dev_net_set(dev, ovsp_dp_net(vport->dp));
	if (vport->port_no == OVSP_LOCAL)
		dev->features |= NETIF_F_NETNS_LOCAL;

	rtnl_lock();
	err = register_netdevice(dev);
	if (err) {
		rtnl_unlock();
		free_netdev(dev);
		return err;
	}
	vport->dev = dev;
	netdev_hold(dev, &vport->dev_tracker, GFP_KERNEL);
	dev_set_promiscuity(dev, 1);
	rtnl_unlock();
	netif_start_queue(dev);
	return 0;
}

static void internal_destroy(struct ovsp_vport *vport)
{
	rtnl_lock();
	dev_set_promiscuity(vport->dev, -1);
	unregister_netdevice(vport->dev);
	/* The vport left its datapath's port hash before, and
	 * unregister_netdevice() waited for RCU readers: nobody can reach
	 * the device through us, and rtnl_unlock() waits for this.
	 */
	netdev_put(vport->dev, &vport->dev_tracker);
	vport->dev_released = true;
	rtnl_unlock();
}

/* The datapath sends a packet to the host stack through the device. */
static void internal_send(struct ovsp_vport *vport, struct sk_buff *skb)
{
	struct net_device *dev = vport->dev;
	unsigned int len;

	if (unlikely(!(dev->flags & IFF_UP))) {
		dev_core_stats_rx_dropped_inc(dev);
		kfree_skb(skb);
		return;
	}
	skb_dst_drop(skb);
	nf_reset_ct(skb);
	secpath_reset(skb);
	skb->pkt_type = PACKET_HOST;
	skb->protocol = eth_type_trans(skb, dev);
	skb_postpull_rcsum(skb, eth_hdr(skb), ETH_HLEN);
	len = skb->len;
	if (netif_rx(skb) == NET_RX_SUCCESS)
		dev_sw_netstats_rx_add(dev, len);
}

const struct ovsp_vport_ops ovsp_internal_vport_ops = {
	.type = OVS_VPORT_TYPE_INTERNAL,
	.create = internal_create,
	.destroy = internal_destroy,
	.send = internal_send,
};

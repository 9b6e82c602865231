/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Vports: a datapath's ports.  Two kinds carry packets: netdev (an
 * existing net_device, ours through an rx_handler) and internal (a
 * net_device of ours).  The kernel's own collect_md vxlan, gre and geneve
 * devices are netdev vports; their tunnel metadata comes with each skb
 * (skb_tunnel_info()) and goes out as a metadata dst.
 *
 * Contract:
 * - Created and destroyed under ovsp_lock() (they take rtnl_lock()
 *   themselves); freed after an RCU grace period, so the packet path uses
 *   a vport it found under RCU without a reference.
 * - ovsp_vport_receive() and ovsp_vport_send() are the packet path: RCU,
 *   softirq or BHs off, this CPU only.
 * - A vport holds a reference on its net_device until it is freed.
 */
#ifndef OVSP_VPORT_H
#define OVSP_VPORT_H 1

#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/types.h>
#include <net/ip_tunnels.h>

struct ovsp_datapath;
struct ovsp_pids;
struct ovsp_vport;

/* What creating a vport needs. */
struct ovsp_vport_parms {
	const char *name;		/* Device name. */
	u32 type;			/* OVS_VPORT_TYPE_*. */
	struct ovsp_datapath *dp;	/* Its datapath. */
	u16 port_no;			/* Its port number. */
	struct ovsp_pids *pids;		/* Upcall PIDs (taken over). */
};

/* One kind of vport. */
struct ovsp_vport_ops {
	u32 type;			/* OVS_VPORT_TYPE_*. */
	/* Creates the vport's device side; fills vport->dev. */
	int (*create)(struct ovsp_vport *vport, const char *name);
	/* Undoes create() (ovsp_lock, not rtnl).  The device reference
	 * is dropped after RCU unless destroy() did it (an unregistered
	 * device waits for it, so internal devices drop it themselves once
	 * unregister_netdevice() has waited for RCU readers).
	 */
	void (*destroy)(struct ovsp_vport *vport);
	/* Transmits 'skb' (consumed) on vport->dev. */
	void (*send)(struct ovsp_vport *vport, struct sk_buff *skb);
};

struct ovsp_vport {
	struct net_device *dev;		/* Its device (a reference). */
	netdevice_tracker dev_tracker;	/* For that reference. */
	struct ovsp_datapath *dp;	/* Its datapath. */
	u16 port_no;			/* Its port number. */
	bool dev_released;		/* destroy() dropped 'dev' already. */
	bool detached;			/* Device unregistering: detached by
					 * the notifier, awaiting deletion.
					 */
	const struct ovsp_vport_ops *ops;	/* Its kind. */
	struct hlist_node dp_node;	/* In the datapath's port hash. */
	struct ovsp_pids __rcu *pids;	/* Per-vport upcall PIDs. */
	struct rcu_head rcu;		/* Deferred free. */
};

extern const struct ovsp_vport_ops ovsp_netdev_vport_ops;
extern const struct ovsp_vport_ops ovsp_internal_vport_ops;

/* Creates a vport (ovsp_lock).  Returns it or an ERR_PTR: -EAFNOSUPPORT
 * for a type this datapath does not carry (it never loads modules).
 */
struct ovsp_vport *ovsp_vport_create(const struct ovsp_vport_parms *parms);

/* Destroys a vport already detached from its datapath's port hash. */
void ovsp_vport_destroy(struct ovsp_vport *vport);

/* The vport whose device is 'dev' (RCU or rtnl), or NULL. */
struct ovsp_vport *ovsp_vport_from_dev(const struct net_device *dev);
struct ovsp_vport *ovsp_netdev_vport(const struct net_device *dev);
struct ovsp_vport *ovsp_internal_vport(const struct net_device *dev);

/* Detaches a netdev vport from its unregistering device (rtnl held). */
void ovsp_netdev_detach(struct ovsp_vport *vport);

/* Replaces the vport's upcall PIDs (ovsp_lock). */
void ovsp_vport_set_pids(struct ovsp_vport *vport, struct ovsp_pids *pids);

/* Packet path: a packet received on 'vport' (data at its MAC header, or
 * network header for an L3 device), with tunnel metadata 'tun' or NULL.
 * Consumes 'skb'.
 */
void ovsp_vport_receive(struct ovsp_vport *vport, struct sk_buff *skb,
			const struct ip_tunnel_info *tun);

/* Packet path: sends 'skb' (consumed) whose key's mac_proto is
 * 'mac_proto' out of 'vport'; a packet the device cannot carry is a
 * counted drop (the device's tx_dropped).
 */
void ovsp_vport_send(struct ovsp_vport *vport, struct sk_buff *skb,
		     u8 mac_proto);

/* Packet path (vport-fragment.c): sends 'skb' (consumed) as
 * ovsp_vport_send() does, unless it is a datagram that ct() reassembled
 * (its MRU 'mru' not 0) longer than the MRU plus the device's link-layer
 * header: then it leaves cut into IPv4 or IPv6 (Ethertype 'type')
 * fragments of at most 'mru' bytes, as Linux's openvswitch.ko does.  One
 * that cannot be cut so (the device's MTU below the MRU, neither IPv4 nor
 * IPv6, a link-layer header longer than Ethernet with two VLAN tags) is
 * dropped and counted on this CPU (ovsp_ct_count_refrag_drop()).
 */
void ovsp_vport_send_mru(struct ovsp_vport *vport, struct sk_buff *skb,
			 u8 mac_proto, __be16 type, u16 mru);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * Devices that go away under a datapath: a netdev vport whose device is
 * unregistered (ip link del, a namespace dying, a module unloading) is
 * detached at once, under rtnl in the notifier, then deleted from its
 * datapath by a work item that takes ovsp_lock() (which the notifier
 * cannot: ovsp_lock comes before rtnl) and tells the vport mcgroup, so
 * that ovs-vswitchd sees the port go.
 */
#include <linux/netdevice.h>
#include <linux/openvswitch.h>
#include <linux/workqueue.h>

#include "dp-core.h"
#include "vport.h"

void ovsp_dp_notify_del(struct ovsp_vport *vport)
{
	struct sk_buff *msg;

	msg = ovsp_vport_msg(vport, 0, 0, 0, OVS_VPORT_CMD_DEL, GFP_KERNEL);
	if (IS_ERR(msg))
		return;
	genlmsg_multicast_netns(&ovsp_vport_family, ovsp_dp_net(vport->dp),
				msg, 0, 0, GFP_KERNEL);
}

/* Deletes every detached vport of every datapath. */
static void detach_work_fn(struct work_struct *work)
{
	ovsp_lock();
	ovsp_dp_reap_detached(ovsp_dp_notify_del);
	ovsp_unlock();
}

static DECLARE_WORK(detach_work, detach_work_fn);

static int dp_device_event(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct ovsp_vport *vport;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	vport = ovsp_netdev_vport(dev);
	if (!vport)
		return NOTIFY_DONE;
	ovsp_netdev_detach(vport);
	schedule_work(&detach_work);
	return NOTIFY_DONE;
}

static struct notifier_block dp_device_notifier = {
	.notifier_call = dp_device_event,
};

int ovsp_dp_notify_init(void)
{
	return register_netdevice_notifier(&dp_device_notifier);
}

void ovsp_dp_notify_exit(void)
{
	unregister_netdevice_notifier(&dp_device_notifier);
	flush_work(&detach_work);
}

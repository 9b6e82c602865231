// SPDX-License-Identifier: GPL-2.0
/*
 * The ovs-percpu kernel datapath module: its init and exit.
 *
 * The module registers the Open vSwitch generic-netlink families
 * (ovs_datapath, ovs_vport, ovs_flow, ovs_packet...) so that OVS's own
 * dpif-netlink drives it unchanged.  Only one module can own those names,
 * so it refuses to load while openvswitch.ko holds them.
 */
#include <linux/module.h>

#include "actions.h"
#include "datapath.h"
#include "flow-actions.h"
#include "flow-key.h"
#include "flow-netlink.h"
#include "skb-cb.h"

static int __init ovsp_module_init(void)
{
	pr_info("ovs_percpu: loaded (skeleton: no families yet)\n");
	return 0;
}

static void __exit ovsp_module_exit(void)
{
}

module_init(ovsp_module_init);
module_exit(ovsp_module_exit);

MODULE_DESCRIPTION("ovs-percpu: Open vSwitch kernel datapath with per-CPU flow statistics");
MODULE_LICENSE("GPL");

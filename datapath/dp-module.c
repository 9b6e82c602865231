// SPDX-License-Identifier: GPL-2.0
/*
 * The ovs-percpu kernel datapath module: its init and exit.
 *
 * The module registers the Open vSwitch generic-netlink families
 * (ovs_datapath, ovs_vport, ovs_flow, ovs_packet, ovs_meter, ovs_ct_limit)
 * so that OVS's own dpif-netlink drives it unchanged, and its own
 * ovsp_percpu family.  Only one module can own the OVS names, so it
 * refuses to load, saying why, while openvswitch.ko holds them.  It never
 * loads another module (no request_module of vport types).
 *
 * Unloading with datapaths present is clean: the families go first (no
 * new requests), then every datapath of every namespace is destroyed
 * (its devices unregistered, its netdev ports released), then RCU
 * callbacks are waited for before the caches go, and the meter tables'
 * destruction, which they queue, before its queue goes.
 */
#include <linux/module.h>
#include <linux/openvswitch.h>
#include <net/genetlink.h>

#include "actions.h"
#include "conntrack.h"
#include "ct-limit.h"
#include "dp-core.h"
#include "flow-stats.h"
#include "flow-table.h"
#include "ipip.h"
#include "meter.h"

/* The families, in registration order. */
static struct genl_family *const families[] = {
	&ovsp_dp_family,
	&ovsp_vport_family,
	&ovsp_flow_family,
	&ovsp_packet_family,
	&ovsp_meter_family,
	&ovsp_ct_limit_family,
	&ovsp_pcpu_family,
};

static void unregister_families(int n)
{
	while (n-- > 0)
		genl_unregister_family(families[n]);
}

static int register_families(void)
{
	int i, err;

	for (i = 0; i < ARRAY_SIZE(families); i++) {
		err = genl_register_family(families[i]);
		if (err) {
			if (err == -EEXIST)
				pr_err("ovs_percpu: generic netlink family %s is already registered, probably by openvswitch.ko: unload it first (rmmod openvswitch)\n",
				       families[i]->name);
			unregister_families(i);
			return err;
		}
	}
	return 0;
}

static int __init ovsp_module_init(void)
{
	int err;

	err = ovsp_flow_stats_init();
	if (err)
		return err;
	err = ovsp_flow_table_init();
	if (err)
		goto err_stats;
	err = ovsp_actions_init();
	if (err)
		goto err_table;
	err = ovsp_meters_init();
	if (err)
		goto err_actions;
	err = ovsp_ct_init();
	if (err)
		goto err_meters;
	err = ovsp_ct_limit_init();
	if (err)
		goto err_ct;
	err = ovsp_dp_init();
	if (err)
		goto err_ct_limit;
	err = ovsp_dp_notify_init();
	if (err)
		goto err_dp;
	err = ovsp_ipip_init();
	if (err)
		goto err_notify;
	err = register_families();
	if (err)
		goto err_ipip;
	pr_info("ovs_percpu: Open vSwitch datapath with per-CPU flow statistics (%u CPUs)\n",
		nr_cpu_ids);
	return 0;

err_ipip:
	ovsp_ipip_exit();
err_notify:
	ovsp_dp_notify_exit();
err_dp:
	ovsp_dp_exit();
err_ct_limit:
	ovsp_ct_limit_exit();
err_ct:
	ovsp_ct_exit();
err_meters:
	ovsp_meters_exit();
err_actions:
	ovsp_actions_exit();
err_table:
	ovsp_flow_table_exit();
err_stats:
	ovsp_flow_stats_exit();
	return err;
}

static void __exit ovsp_module_exit(void)
{
	unregister_families(ARRAY_SIZE(families));
	/* Our ipip devices go before the datapaths, while the notifier that
	 * detaches them from their vports is still there.
	 */
	ovsp_ipip_exit();
	ovsp_dp_exit();
	ovsp_dp_notify_exit();
	/* After the datapaths, whose packets count connections. */
	ovsp_ct_limit_exit();
	/* Every call_rcu() of ours (flows, the ipip devices' cells) runs
	 * before the code it calls goes.
	 */
	rcu_barrier();
	ovsp_ct_exit();
	ovsp_meters_exit();
	ovsp_actions_exit();
	ovsp_flow_table_exit();
	ovsp_flow_stats_exit();
}

module_init(ovsp_module_init);
module_exit(ovsp_module_exit);

MODULE_DESCRIPTION("ovs-percpu: Open vSwitch kernel datapath with per-CPU flow statistics");
MODULE_LICENSE("GPL");

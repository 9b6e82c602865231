/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One datapath (an "ovs-system"-style switch instance): its ports, its flow
 * table, its per-CPU counters and its upcall sockets; and the services the
 * packet path calls.
 *
 * Contract:
 * - Control operations (genl handlers) run under ovsp_lock() (a mutex of
 *   ours, as the kernel datapath's ovs_mutex); the packet path runs under
 *   RCU in softirq (or with BHs disabled), reads the datapath, its vports
 *   and its flow table without locks or reference counts, and writes only
 *   this CPU's counters and slots.
 * - struct ovsp_datapath is opaque outside datapath.c; the functions below
 *   are all the packet path needs.
 */
#ifndef OVSP_DATAPATH_H
#define OVSP_DATAPATH_H 1

#include <linux/skbuff.h>
#include <linux/types.h>
#include <net/ip_tunnels.h>
#include <net/netlink.h>

#include "flow-key.h"

struct ovsp_datapath;
struct ovsp_meter_table;
struct ovsp_vport;

/* What an upcall carries besides the packet and its key
 * (OVS_PACKET_CMD_MISS or OVS_PACKET_CMD_ACTION).
 */
struct ovsp_upcall_info {
	u8 cmd;				/* OVS_PACKET_CMD_*. */
	u16 mru;			/* OVS_PACKET_ATTR_MRU if non-zero. */
	u32 portid;			/* Netlink socket, or 0 to choose by
					 * the datapath's dispatch mode.  An
					 * action upcall passes the userspace
					 * action's OVS_USERSPACE_ATTR_PID;
					 * in per-CPU dispatch mode the
					 * datapath uses this CPU's PID
					 * instead (OVS 3.1 puts a placeholder
					 * there), as the kernel does.
					 */
	const struct nlattr *userdata;	/* OVS_PACKET_ATTR_USERDATA. */
	const struct nlattr *actions;	/* OVS_PACKET_ATTR_ACTIONS. */
	int actions_len;
	const struct ip_tunnel_info *egress_tun_info;
					/* OVS_PACKET_ATTR_EGRESS_TUN_KEY. */
	u32 hash;			/* OVS_PACKET_ATTR_HASH if non-zero. */
};

/* Looks up the flow for 'key' (already extracted from 'skb', with
 * ovsp_skb_cb(skb)->input_vport set), updates its per-CPU stats and
 * executes its actions, or sends a miss upcall.  Consumes 'skb'.  The entry
 * point from vports and from recirculation.
 */
void ovsp_dp_process_packet(struct sk_buff *skb, struct ovsp_flow_key *key);

/* Sends 'skb' to datapath port 'port_no' of 'dp', cut to
 * ovsp_skb_cb(skb)->trunc_len (never shorter than its link-layer header),
 * honouring ->mru (refragmenting a reassembled datagram).  Consumes
 * 'skb'; a missing port, a device that is down or without carrier, or a
 * packet too big is a drop, counted on the device where there is one.
 */
void ovsp_dp_output(struct ovsp_datapath *dp, struct sk_buff *skb,
		    u16 port_no, struct ovsp_flow_key *key);

/* Queues 'skb' (not consumed) with 'key' to userspace as 'info' says,
 * cut to 'trunc_len' bytes unless 0 (each segment of a GSO packet).
 * Returns 0 or a negative errno; a failure is counted in the datapath's
 * n_lost.
 */
int ovsp_dp_upcall(struct ovsp_datapath *dp, struct sk_buff *skb,
		   const struct ovsp_flow_key *key,
		   const struct ovsp_upcall_info *info, u32 trunc_len);

/* The tunnel metadata an output to tunnel port 'port_no' would use for
 * 'skb' (for the userspace action's OVS_USERSPACE_ATTR_EGRESS_TUN_PORT),
 * or NULL.  It is the skb's own metadata dst, Geneve options included
 * (ip_tunnel_info_opts()), which the device completed: valid while 'skb'
 * holds its dst.
 */
const struct ip_tunnel_info *ovsp_dp_egress_tun_info(struct ovsp_datapath *dp,
						     u16 port_no,
						     struct sk_buff *skb);

/* The datapath that received 'skb' (from its input vport). */
struct ovsp_datapath *ovsp_skb_datapath(struct sk_buff *skb);

/* The meters of 'dp' (meter.h), for the meter action. */
struct ovsp_meter_table *ovsp_dp_meters(const struct ovsp_datapath *dp);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Executing a flow's actions on a packet.
 *
 * Contract:
 * - Runs in softirq or with BHs disabled, under RCU, on one CPU; it writes
 *   only the packet, the key on the caller's stack and this CPU's state
 *   (the deferred-action FIFO and recursion level are per CPU), but for
 *   the meter action's shared bucket word (meter.h).
 * - Consumes the skb in every case (sent, queued to userspace, or freed).
 * - Recirculation re-enters the datapath through ovsp_dp_process_packet()
 *   (datapath.h), deferred through a per-CPU FIFO at the outermost level,
 *   and bounded in depth as the kernel does (OVSP_RECURSION_LIMIT).
 */
#ifndef OVSP_ACTIONS_H
#define OVSP_ACTIONS_H 1

#include <linux/skbuff.h>

#include "flow-actions.h"
#include "flow-key.h"

struct ovsp_datapath;

/* How deep actions may re-enter the datapath (recirculation, nested
 * execution), as the kernel's OVS_RECURSION_LIMIT.
 */
#define OVSP_RECURSION_LIMIT 5

/* Executes 'acts' on 'skb', whose key is 'key', in datapath 'dp'.  Returns
 * 0, or a negative errno when the packet was dropped for an error (the
 * caller counts it; it never needs to free the skb).
 */
int ovsp_actions_execute(struct ovsp_datapath *dp, struct sk_buff *skb,
			 const struct ovsp_actions *acts,
			 struct ovsp_flow_key *key);

/* Module init and exit of the per-CPU state actions keep (the deferred
 * FIFOs and recursion levels).
 */
int ovsp_actions_init(void);
void ovsp_actions_exit(void);

#endif

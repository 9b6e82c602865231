/*
 * Copyright (c) 2026 The ovs-percpu authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at:
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

/* Executing datapath actions: output, recirculation, userspace, meter, ct. */

#include <config.h>
#include "dp-actions.h"

#include <errno.h>

#include "datapath.h"
#include "dp-actions-guard.h"
#include "dp-conntrack.h"
#include "dp-gso.h"
#include "dp-ipf.h"
#include "dp-input.h"
#include "dp-meter.h"
#include "dp-packet.h"
#include "dp-port.h"
#include "dp-upcall.h"
#include "flow.h"
#include "flow-table.h"
#include "frag-mru.h"
#include "gso.h"
#include "netdev.h"
#include "netlink.h"
#include "odp-execute.h"
#include "odp-netlink.h"
#include "odp-util.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/vlog.h"
#include "pmd.h"
#include "timeval.h"
#include "tunnel-neigh.h"
#include "vport-tunnel.h"

VLOG_DEFINE_THIS_MODULE(dp_actions);

/* Stack space for the actions one userspace action upcall returns. */
#define DP_USERSPACE_ACTIONS_STUB 512

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

static void execute_checked(struct pmd_thread *, struct dp_packet_batch *,
                            bool steal, const struct nlattr *actions,
                            size_t actions_len,
                            const struct dp_actions_needs *,
                            bool sets_tunnel);

/* Counts the packets of 'batch' as dropped by this action for 'reason', and
 * frees them if the callback may steal them; otherwise they stay with the
 * caller, who owns them and goes on with its later actions. */
static void
drop_batch(struct pmd_thread *t, struct dp_packet_batch *batch,
           bool should_steal, enum pmd_counter reason)
{
    pmd_counter_add(t, reason, dp_packet_batch_size(batch));
    if (should_steal) {
        dp_packet_delete_batch(batch, true);
    }
}

/* Sends every packet queued for output by 't' since the last flush. */
void
dp_actions_flush(struct pmd_thread *t)
{
    for (size_t i = 0; i < t->n_tx_queues; i++) {
        struct pmd_tx_queue *q = &t->tx_queues[i];

        if (!dp_packet_batch_is_empty(&q->batch)) {
            pmd_counter_add(t, PMD_SENT_PACKETS,
                            dp_packet_batch_size(&q->batch));
            pmd_counter_add(t, PMD_SENT_BATCHES, 1);
            dp_port_send(q->port, t->index, &q->batch,
                         dp_gso_thread_stats(t->dp->gso, t->index));
        }
    }
    t->n_tx_queues = 0;
}

/* Returns the queue of packets 't' has for output on port 'port_no', or
 * NULL.  Consulted before the datapath's port map: a batch's megaflows
 * mostly leave by a few ports, and this search is cheaper than a lookup in
 * the map. */
static struct pmd_tx_queue *
find_tx_queue(struct pmd_thread *t, odp_port_t port_no)
{
    for (size_t i = 0; i < t->n_tx_queues; i++) {
        if (t->tx_queues[i].port->port_no == port_no) {
            return &t->tx_queues[i];
        }
    }
    return NULL;
}

static struct pmd_tx_queue *
add_tx_queue(struct pmd_thread *t, struct dp_port *port)
{
    struct pmd_tx_queue *q;

    if (t->n_tx_queues == PMD_MAX_TX_QUEUES) {
        dp_actions_flush(t);
    }
    q = &t->tx_queues[t->n_tx_queues++];
    q->port = port;
    dp_packet_batch_init(&q->batch);
    return q;
}

/* Outputs 'batch' to tunnel port 'port': encapsulated, it re-enters the
 * datapath through the underlay bridge. */
static void
execute_tunnel_output(struct pmd_thread *t, struct dp_port *port,
                      struct dp_packet_batch *batch, bool should_steal)
{
    struct dp_packet_batch copy;

    if (!should_steal) {
        dp_packet_batch_clone(&copy, batch);
        dp_packet_batch_reset_cutlen(batch);
        batch = &copy;
    }
    dp_packet_batch_apply_cutlen(batch);
    vport_tunnel_send(t, port, batch);
}

/* Where the fragments of a reassembled datagram go: 'q''s batch, sent when
 * full. */
struct refrag_sink {
    struct pmd_thread *t;
    struct pmd_tx_queue *q;
};

/* gso_output flush callback for 'struct refrag_sink'. */
static void
refrag_flush(struct dp_packet_batch *batch, void *sink_)
{
    struct refrag_sink *sink = sink_;

    dp_port_send(sink->q->port, sink->t->index, batch,
                 dp_gso_thread_stats(sink->t->dp->gso, sink->t->index));
    dp_packet_batch_init(batch);
}

/* Queues 'packet', a datagram that ct() reassembled from fragments of at
 * most 'mru' IP bytes, on 'q' cut again into fragments of that size, as
 * Linux's datapath does on output. */
static void
output_refragment(struct pmd_thread *t, struct pmd_tx_queue *q,
                  struct dp_packet *packet, uint16_t mru)
{
    struct refrag_sink sink = { .t = t, .q = q };
    struct gso_output out = {
        .batch = &q->batch, .flush = refrag_flush, .aux = &sink,
    };
    bool cut;

    if (dp_conntrack_refragment(packet, mru, &out, &cut)) {
        dp_conntrack_count(t->dp->conntrack, t->index, DP_CT_DROP_REFRAGMENT,
                           1);
    } else if (cut) {
        dp_conntrack_count(t->dp->conntrack, t->index, DP_CT_REFRAGMENTED, 1);
    }
}

/* Outputs 'batch' to the port the output action 'a' names.  The packets
 * are queued, already truncated, and sent when 't' next flushes, so that
 * the packets of many megaflows that leave by one port go out in one
 * netdev_send(), as with dpif-netdev's output batching. */
static void
execute_output(struct pmd_thread *t, struct dp_packet_batch *batch,
               const struct nlattr *a, bool should_steal)
{
    odp_port_t port_no = nl_attr_get_odp_port(a);
    struct pmd_tx_queue *q = find_tx_queue(t, port_no);
    struct dp_packet_batch copy;
    struct dp_packet *packet;

    if (!q) {
        struct dp_port *port = datapath_lookup_port(t->dp, port_no);

        if (OVS_UNLIKELY(!port)) {
            drop_batch(t, batch, should_steal, PMD_DROP_NO_PORT);
            return;
        }
        if (OVS_UNLIKELY(port->is_tunnel)) {
            VLOG_WARN_RL(&rl, "packet dropped: output to tunnel port %s "
                         "(%s): ovs-percpu does not carry this tunnel "
                         "type", netdev_get_name(port->netdev), port->type);
            drop_batch(t, batch, should_steal, PMD_DROP_TUNNEL);
            return;
        }
        if (port->tunnel) {
            execute_tunnel_output(t, port, batch, should_steal);
            return;
        }
        q = add_tx_queue(t, port);
    }
    if (!should_steal) {
        /* The truncation applies to this output only: the caller's packets
         * go on whole to later actions. */
        dp_packet_batch_clone(&copy, batch);
        dp_packet_batch_reset_cutlen(batch);
        batch = &copy;
    }
    dp_packet_batch_apply_cutlen(batch);
    if (OVS_UNLIKELY(q->port->is_internal)) {
        tunnel_neigh_snoop(t, q->port, batch);
    }
    if (OVS_UNLIKELY(dp_port_terminates_tunnels(q->port))) {
        struct dp_port *port = q->port;

        /* The tunnel packets for this port's addresses are decapsulated
         * here, as the kernel's IP stack hands them to its tunnel sockets.
         * That may forward packets, and so flush 't''s output queues: 'q'
         * is looked up again. */
        vport_tunnel_terminate(t, port, batch);
        if (dp_packet_batch_is_empty(batch)) {
            return;
        }
        q = find_tx_queue(t, port_no);
        if (!q) {
            q = add_tx_queue(t, port);
        }
    }
    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        uint16_t mru = frag_mru_get(packet);

        if (OVS_UNLIKELY(mru)) {
            output_refragment(t, q, packet, mru);
            continue;
        }
        if (OVS_UNLIKELY(dp_packet_batch_is_full(&q->batch))) {
            pmd_counter_add(t, PMD_SENT_PACKETS,
                            dp_packet_batch_size(&q->batch));
            pmd_counter_add(t, PMD_SENT_BATCHES, 1);
            dp_port_send(q->port, t->index, &q->batch,
                         dp_gso_thread_stats(t->dp->gso, t->index));
            dp_packet_batch_init(&q->batch);
        }
        dp_packet_batch_add(&q->batch, packet);
    }
}

static void
execute_recirc(struct pmd_thread *t, struct dp_packet_batch *batch,
               const struct nlattr *a, bool should_steal)
{
    struct dp_packet_batch copy;
    struct dp_packet *packet;

    if (OVS_UNLIKELY(t->recirc_depth >= DP_MAX_RECIRC_DEPTH)) {
        VLOG_WARN_RL(&rl, "packet dropped: recirculation depth exceeded");
        drop_batch(t, batch, should_steal, PMD_DROP_RECIRC_DEPTH);
        return;
    }
    if (!should_steal) {
        dp_packet_batch_clone(&copy, batch);
        batch = &copy;
    }
    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        packet->md.recirc_id = nl_attr_get_u32(a);
    }
    t->recirc_depth++;
    dp_input_recirculate(t, batch);
    t->recirc_depth--;
}

/* Sends each packet of 'batch' to ofproto with the userspace action's
 * attributes and executes the actions it returns, as dpif-netdev does for
 * sFlow, controller and other slow-path actions. */
static void
execute_userspace(struct pmd_thread *t, struct dp_packet_batch *batch,
                  const struct nlattr *a, bool should_steal)
{
    const struct nlattr *userdata;
    struct dp_packet_batch copy;
    struct dp_packet *packet;

    userdata = nl_attr_find_nested(a, OVS_USERSPACE_ATTR_USERDATA);
    if (!should_steal) {
        dp_packet_batch_clone(&copy, batch);
        dp_packet_batch_reset_cutlen(batch);
        batch = &copy;
    }
    dp_packet_batch_apply_cutlen(batch);

    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        uint64_t stub[DP_USERSPACE_ACTIONS_STUB / 8];
        struct ofpbuf actions;
        struct flow flow;
        int error;

        ofpbuf_use_stub(&actions, stub, sizeof stub);
        flow_extract(packet, &flow);
        error = dp_upcall_action(t, packet, &flow, userdata, &actions);
        if (!error || error == ENOSPC) {
            struct dp_packet_batch one;

            dp_packet_batch_init_packet(&one, packet);
            execute_checked(t, &one, true, actions.data, actions.size,
                            NULL, false);
        } else {
            pmd_counter_add(t, PMD_LOST, 1);
            dp_packet_delete(packet);
        }
        ofpbuf_uninit(&actions);
    }
}

/* Runs 'batch' through the meter that action 'a' names: the packets that
 * exceed it are removed from 'batch' and freed, whether or not this action
 * may steal them, as in dpif-netdev.  Every caller of dp_actions_execute()
 * owns the packets it passes (see dp-actions.h), so dropping in place is
 * safe. */
static void
execute_meter(struct pmd_thread *t, struct dp_packet_batch *batch,
              const struct nlattr *a)
{
    size_t n_dropped = dp_meter_run(t->dp->meters, nl_attr_get_u32(a),
                                    t->index, batch, time_usec() * 1000);

    if (n_dropped) {
        pmd_counter_add(t, PMD_DROP_METER, n_dropped);
    }
}

/* Returns in '*tp_src' and '*tp_dst' the transport ports of what the
 * running actions were chosen for, if ct() action 'a' names a helper (a
 * non-zero port then names the helper's control port), else zeros. */
static void
ct_helper_ports(const struct pmd_thread *t, const struct nlattr *a,
                ovs_be16 *tp_src, ovs_be16 *tp_dst)
{
    *tp_src = *tp_dst = 0;
    if (OVS_LIKELY(!nl_attr_find_nested(a, OVS_CT_ATTR_HELPER))) {
        return;
    }
    if (t->exec_key) {
        *tp_src = t->exec_key->tp_src;
        *tp_dst = t->exec_key->tp_dst;
    } else if (t->exec_flow) {
        struct flow key;

        megaflow_get_key(t->exec_flow, &key);
        *tp_src = key.tp_src;
        *tp_dst = key.tp_dst;
    }
}

/* Executes ct() action 'a' on 'batch', in place, in 't'. */
static void
execute_ct(struct pmd_thread *t, struct dp_packet_batch *batch,
           const struct nlattr *a)
{
    struct dp_conntrack *ct = t->dp->conntrack;
    struct dp_conntrack_stats st = { 0 };
    ovs_be16 tp_src, tp_dst;

    ct_helper_ports(t, a, &tp_src, &tp_dst);
    dp_conntrack_execute(ct, dp_ipf_thread_table(t),
                         dp_ipf_ct_families(t->dp), batch, a,
                         tp_src, tp_dst, t->now, &st);
    dp_conntrack_count(ct, t->index, DP_CT_PACKETS, st.packets);
    if (OVS_UNLIKELY(st.fragments)) {
        dp_conntrack_count(ct, t->index, DP_CT_FRAGMENTS, st.fragments);
        dp_conntrack_count(ct, t->index, DP_CT_REASSEMBLED, st.reassembled);
    }
}

/* The odp_execute_actions() callback: actions that need the datapath. */
static void
execute_cb(void *t_, struct dp_packet_batch *batch, const struct nlattr *a,
           bool should_steal)
{
    struct pmd_thread *t = t_;
    enum ovs_action_attr type = nl_attr_type(a);

    switch (type) {
    case OVS_ACTION_ATTR_OUTPUT:
        execute_output(t, batch, a, should_steal);
        break;

    case OVS_ACTION_ATTR_RECIRC:
        execute_recirc(t, batch, a, should_steal);
        break;

    case OVS_ACTION_ATTR_USERSPACE:
        execute_userspace(t, batch, a, should_steal);
        break;

    case OVS_ACTION_ATTR_CT:
        /* Conntrack works on the packets in place, as its results are for
         * the later actions; the last action's packets are freed after. */
        execute_ct(t, batch, a);
        if (should_steal) {
            dp_packet_delete_batch(batch, true);
        }
        break;

    case OVS_ACTION_ATTR_CT_CLEAR:
        dp_conntrack_clear(batch);
        if (should_steal) {
            dp_packet_delete_batch(batch, true);
        }
        break;

    case OVS_ACTION_ATTR_METER:
        execute_meter(t, batch, a);
        break;

    case OVS_ACTION_ATTR_LB_OUTPUT:
    case OVS_ACTION_ATTR_TUNNEL_PUSH:
    case OVS_ACTION_ATTR_TUNNEL_POP:
    case OVS_ACTION_ATTR_UNSPEC:
    case OVS_ACTION_ATTR_SET:
    case OVS_ACTION_ATTR_PUSH_VLAN:
    case OVS_ACTION_ATTR_POP_VLAN:
    case OVS_ACTION_ATTR_SAMPLE:
    case OVS_ACTION_ATTR_HASH:
    case OVS_ACTION_ATTR_PUSH_MPLS:
    case OVS_ACTION_ATTR_POP_MPLS:
    case OVS_ACTION_ATTR_SET_MASKED:
    case OVS_ACTION_ATTR_TRUNC:
    case OVS_ACTION_ATTR_PUSH_ETH:
    case OVS_ACTION_ATTR_POP_ETH:
    case OVS_ACTION_ATTR_PUSH_NSH:
    case OVS_ACTION_ATTR_POP_NSH:
    case OVS_ACTION_ATTR_CLONE:
    case OVS_ACTION_ATTR_CHECK_PKT_LEN:
    case OVS_ACTION_ATTR_ADD_MPLS:
    case OVS_ACTION_ATTR_DROP:
    case __OVS_ACTION_ATTR_MAX:
    default:
        VLOG_WARN_RL(&rl, "packet dropped: datapath action %d is not "
                     "supported by this datapath", type);
        drop_batch(t, batch, should_steal, PMD_DROP_UNSUPPORTED);
        break;
    }
}

/* Drops from 'batch', in place as a meter does, and counts, the packets
 * shorter than a header 'actions' ('actions_len' bytes) write, which ask
 * 'needs' of them (NULL: sums it here). */
static void
drop_short(struct pmd_thread *t, struct dp_packet_batch *batch,
           const struct nlattr *actions, size_t actions_len,
           const struct dp_actions_needs *needs)
{
    struct dp_actions_needs computed;
    struct dp_packet *packet;
    size_t n_dropped = 0;
    size_t i, size;

    if (!needs) {
        dp_actions_needs_compute(actions, actions_len, &computed);
        needs = &computed;
    }
    if (OVS_LIKELY(dp_actions_needs_none(needs))) {
        return;
    }
    size = dp_packet_batch_size(batch);
    DP_PACKET_BATCH_REFILL_FOR_EACH (i, size, packet, batch) {
        if (OVS_LIKELY(dp_actions_packet_ok(packet, needs))) {
            dp_packet_batch_refill(batch, packet, i);
        } else {
            dp_packet_delete(packet);
            n_dropped++;
        }
    }
    if (n_dropped) {
        VLOG_INFO_RL(&rl, "%"PRIuSIZE" packets dropped: shorter than a "
                     "header their actions write", n_dropped);
        pmd_counter_add(t, PMD_DROP_ACTION_SHORT, n_dropped);
    }
}

/* Keeps a slow path out of line: inlined, it makes its caller's usual path
 * save and restore registers and set up a stack frame that the usual path,
 * which ends in a tail call or a return, does not need. */
#define SLOW_PATH __attribute__((__noinline__))

/* Sets the tunnel metadata of every packet of 'batch' to 'key', an
 * OVS_KEY_ATTR_TUNNEL attribute, parsed once.  The result is what OVS's
 * odp_set_tunnel_action() gives each packet: the whole 'struct flow_tnl',
 * zeroed and then filled.  A key that does not parse (checked when the flow
 * was installed, so never expected) drops the batch, counted, where
 * odp-execute would abort. */
static void
set_tunnel(struct pmd_thread *t, struct dp_packet_batch *batch,
           const struct nlattr *key)
{
    struct dp_packet *packet;
    struct flow_tnl tunnel;

    if (odp_tun_key_from_attr(key, &tunnel, NULL) == ODP_FIT_ERROR) {
        VLOG_WARN_RL(&rl, "set(tunnel()) that does not parse: "
                     "%"PRIuSIZE" packets dropped",
                     dp_packet_batch_size(batch));
        drop_batch(t, batch, true, PMD_DROP_UNSUPPORTED);
        return;
    }
    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        packet->md.tunnel = tunnel;
    }
}

/* Executes 'actions' on 'batch' as odp_execute_actions() does, but each
 * top-level set(tunnel()) here, parsed once for the batch (set_tunnel()):
 * odp-execute parses it again for every packet, 4.5% of a tunnel-sending
 * switch's thread in performance.md's profile.  The actions between two
 * such sets go to odp_execute_actions() as a list of their own, without
 * 'steal' unless they end the list: what they would have got in the whole
 * list, since none of them was its last. */
static void
execute_with_tunnel_sets(struct pmd_thread *t, struct dp_packet_batch *batch,
                         bool steal, const struct nlattr *actions,
                         size_t actions_len)
{
    const struct nlattr *run = actions;
    size_t run_left = actions_len;
    const struct nlattr *a;
    size_t left;

    NL_ATTR_FOR_EACH_UNSAFE (a, left, actions, actions_len) {
        size_t a_len = NLA_ALIGN(a->nla_len);

        if (!megaflow_action_sets_tunnel(a)) {
            continue;
        }
        if (a != run) {
            odp_execute_actions(t, batch, false, run,
                                (const char *) a - (const char *) run,
                                execute_cb);
        }
        if (dp_packet_batch_is_empty(batch)) {
            return;             /* A meter took them all. */
        }
        set_tunnel(t, batch, nl_attr_get(a));
        if (dp_packet_batch_is_empty(batch)) {
            return;
        }
        run = nl_attr_next(a);
        run_left = left > a_len ? left - a_len : 0;
    }
    if (!dp_packet_batch_is_empty(batch)) {
        /* With nothing left, this frees the packets if 'steal'. */
        odp_execute_actions(t, batch, steal, run, run_left, execute_cb);
    }
}

/* Drops the packets of 'batch' too short for 'actions' (drop_short()),
 * then executes 'actions' on the rest, with any top-level set(tunnel())
 * once for the batch if 'sets_tunnel'. */
static SLOW_PATH void
execute_checked(struct pmd_thread *t, struct dp_packet_batch *batch,
                bool steal, const struct nlattr *actions, size_t actions_len,
                const struct dp_actions_needs *needs, bool sets_tunnel)
{
    drop_short(t, batch, actions, actions_len, needs);
    if (sets_tunnel) {
        execute_with_tunnel_sets(t, batch, steal, actions, actions_len);
    } else {
        odp_execute_actions(t, batch, steal, actions, actions_len,
                            execute_cb);
    }
}

/* Executes megaflow actions 'actions' on 'batch' in forwarding thread 't'.
 * If 'steal', the packets are consumed; otherwise the caller keeps those
 * left in 'batch'.  Either way the caller must own the packets: a meter
 * action drops packets in place, removing them from 'batch' and freeing
 * them, as dpif-netdev's does, and so are the packets dropped before the
 * actions run, shorter than a header they write (see dp-actions-guard.h). */
void
dp_actions_execute(struct pmd_thread *t, struct dp_packet_batch *batch,
                   bool steal, const struct megaflow_actions *actions)
{
    /* Checked here, not only in drop_short(), so that the usual batch,
     * whose actions ask nothing, pays no call and, with nothing to do but
     * a tail call, no stack frame. */
    if (OVS_UNLIKELY(!dp_actions_needs_none(&actions->needs)
                     || actions->sets_tunnel)) {
        execute_checked(t, batch, steal, actions->actions, actions->size,
                        &actions->needs, actions->sets_tunnel);
    } else {
        odp_execute_actions(t, batch, steal, actions->actions, actions->size,
                            execute_cb);
    }
}

/* As dp_actions_execute(), for actions chosen for the packets with key
 * 'key' (an upcalled or executed packet's), not for a megaflow. */
void
dp_actions_execute_for(struct pmd_thread *t, struct dp_packet_batch *batch,
                       bool steal, const struct flow *key,
                       const struct nlattr *actions, size_t actions_len)
{
    const struct megaflow *outer = t->exec_flow;
    const struct flow *outer_key = t->exec_key;

    t->exec_flow = NULL;
    t->exec_key = key;
    execute_checked(t, batch, steal, actions, actions_len, NULL, false);
    t->exec_flow = outer;
    t->exec_key = outer_key;
}

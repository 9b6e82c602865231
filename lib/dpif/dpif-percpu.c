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

/* The dpif provider of the ovs-percpu userspace datapath. */

#include <config.h>
#include "dpif-percpu.h"

#include <errno.h>
#include <string.h>

#include "coverage.h"
#include "datapath.h"
#include "dp-actions.h"
#include "dp-actions-check.h"
#include "dp-input.h"
#include "dp-log.h"
#include "dp-meter.h"
#include "dp-packet.h"
#include "dp-port.h"
#include "dp-unixctl.h"
#include "dpif-netdev.h"
#include "dpif-percpu-ct.h"
#include "dpif-provider.h"
#include "flow-stats.h"
#include "flow-table.h"
#include "netdev.h"
#include "netdev-vport.h"
#include "netlink.h"
#include "odp-util.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/match.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "pmd.h"
#include "seq.h"
#include "vport-tunnel.h"
#include "sset.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_percpu);

COVERAGE_DEFINE(percpu_actions_refused);

/* Flows returned by one call of flow_dump_next, at most. */
#define FLOW_DUMP_MAX_BATCH 50

/* One open handle on a datapath. */
struct dpif_percpu {
    struct dpif dpif;
    struct datapath *dp;
    uint64_t last_port_seq;     /* For port_poll. */
};

static struct dpif_percpu *
dpif_percpu_cast(const struct dpif *dpif)
{
    return CONTAINER_OF(dpif, struct dpif_percpu, dpif);
}

static struct datapath *
get_datapath(const struct dpif *dpif)
{
    return dpif_percpu_cast(dpif)->dp;
}

/* Returns the datapath that 'dpif', one of our dpifs, is open on. */
struct datapath *
dpif_percpu_get_datapath(const struct dpif *dpif)
{
    return get_datapath(dpif);
}

static bool
class_is_dummy(const struct dpif_class *class)
{
    return strcmp(class->type, "netdev");
}

/* The dpif_class callbacks below (dpif_percpu_*) implement the contracts
 * that OVS's lib/dpif-provider.h documents for each member; comments here
 * only say what this datapath does beyond or differently. */

/* Registers our appctl commands once, whichever class is registered
 * first. */
static int
dpif_percpu_init(void)
{
    dp_unixctl_register();
    return 0;
}

static int
dpif_percpu_enumerate(struct sset *all_dps, const struct dpif_class *class)
{
    datapath_enumerate(class, all_dps);
    return 0;
}

/* The netdev type that opens a port of 'type' in a datapath of 'class'.
 *
 * A bridge's local port ("internal") is a tap, as in dpif-netdev.  A plain
 * Linux interface ("system", the type of "ovs-vsctl add-port br0 eth1") is
 * opened as an "afpacket" port (netdev-afpacket.h): OVS's own "system"
 * netdev reads one socket from the main thread and forwards partial
 * checksums as they are, so TCP through it fails against a veth peer with
 * its default offloads.  Dummy datapaths keep "system" as it is, for the
 * dummy devices that tests put behind it. */
static const char *
dpif_percpu_port_open_type(const struct dpif_class *class, const char *type)
{
    if (class_is_dummy(class)) {
        return strcmp(type, "internal") ? type : "dummy-internal";
    }
    return (!strcmp(type, "internal") ? "tap"
            : !strcmp(type, "system") ? "afpacket"
            : type);
}

/* Returns a new dpif on 'dp', whose reference it takes over. */
static struct dpif *
create_dpif(struct datapath *dp)
{
    uint16_t netflow_id = hash_string(dp->name, 0);
    struct dpif_percpu *dpif = xmalloc(sizeof *dpif);

    dpif_init(&dpif->dpif, dp->class, dp->name, netflow_id >> 8, netflow_id);
    dpif->dp = dp;
    dpif->last_port_seq = seq_read(dp->port_seq);
    return &dpif->dpif;
}

static int
dpif_percpu_open(const struct dpif_class *class, const char *name,
                 bool create, struct dpif **dpifp)
{
    struct datapath *dp, *new_dp = NULL;
    int error;

    /* A new datapath is created outside the list of datapaths' mutex: it
     * starts with its upcall lock write-locked (upcalls disabled), and
     * closing a datapath takes that mutex with that lock held, so creating
     * it under the mutex would take the two in both orders (a lock-order
     * inversion ThreadSanitizer found).  Only the main thread opens
     * datapaths; should another have created the same one meanwhile, ours
     * is freed and theirs used. */
    if (create && !datapath_find(name)) {
        error = datapath_create(name, class,
                                dpif_percpu_port_open_type(class, "internal"),
                                &new_dp);
        if (error) {
            return error;
        }
    }

    error = datapath_ref(name, class, create, &new_dp, &dp);
    if (!error) {
        *dpifp = create_dpif(dp);
    }
    if (new_dp) {
        datapath_free(new_dp);
    }
    return error;
}

static void
dpif_percpu_close(struct dpif *dpif)
{
    struct datapath *dp = get_datapath(dpif);

    datapath_unref(dp);
    free(dpif_percpu_cast(dpif));
}

static int
dpif_percpu_destroy(struct dpif *dpif)
{
    struct datapath *dp = get_datapath(dpif);

    if (!atomic_flag_test_and_set(&dp->destroyed)) {
        if (ovs_refcount_unref_relaxed(&dp->ref_cnt) == 1) {
            /* The dpif that called us still holds a reference. */
            OVS_NOT_REACHED();
        }
    }
    return 0;
}

static bool
dpif_percpu_run(struct dpif *dpif)
{
    datapath_run(get_datapath(dpif));
    return false;
}

static void
dpif_percpu_wait(struct dpif *dpif)
{
    datapath_wait(get_datapath(dpif));
}

static int
dpif_percpu_get_stats(const struct dpif *dpif, struct dpif_dp_stats *stats)
{
    struct datapath *dp = get_datapath(dpif);

    /* No lock: upcalls call this (through should_install_flow()) from
     * forwarding threads that the main thread may be waiting for. */
    memset(stats, 0, sizeof *stats);
    for (size_t i = 0; i < dp->n_thread_slots; i++) {
        struct pmd_thread *t = datapath_thread(dp, i);
        uint64_t c[PMD_N_COUNTERS];

        if (!t) {
            continue;
        }
        pmd_thread_read_counters(t, c);
        stats->n_hit += c[PMD_EMC_HITS] + c[PMD_MEGAFLOW_HITS];
        stats->n_missed += c[PMD_MISSES];
        stats->n_lost += c[PMD_LOST];
    }
    stats->n_flows = flow_table_count(dp->table);

    /* As dpif-netdev: mask statistics are left out of 'dpctl/show'. */
    stats->n_masks = UINT32_MAX;
    stats->n_mask_hit = UINT64_MAX;
    stats->n_cache_hit = UINT64_MAX;
    return 0;
}

static int
dpif_percpu_port_add(struct dpif *dpif, struct netdev *netdev,
                     odp_port_t *port_nop)
{
    char namebuf[NETDEV_VPORT_NAME_BUFSIZE];
    const struct netdev_tunnel_config *cfg;
    struct datapath *dp = get_datapath(dpif);
    const char *name;
    int error;

    name = netdev_vport_get_dpif_port(netdev, namebuf, sizeof namebuf);
    error = datapath_add_port(dp, name, netdev_get_type(netdev), port_nop);
    cfg = netdev_get_tunnel_config(netdev);
    if (!error && cfg && cfg->exts) {
        struct dp_port *port;

        /* The VXLAN extensions are the OpenFlow port's options, as
         * dpif-netlink gives them to the kernel's vport. */
        ovs_mutex_lock(&dp->reconfig_mutex);
        port = datapath_lookup_port(dp, *port_nop);
        if (port && port->tunnel) {
            vport_tunnel_set_exts(port->tunnel, cfg->exts);
        }
        ovs_mutex_unlock(&dp->reconfig_mutex);
    }
    return error;
}

static int
dpif_percpu_port_set_config(struct dpif *dpif, odp_port_t port_no,
                            const struct smap *cfg)
{
    return datapath_set_port_config(get_datapath(dpif), port_no, cfg);
}

static int
dpif_percpu_port_del(struct dpif *dpif, odp_port_t port_no)
{
    return datapath_del_port(get_datapath(dpif), port_no);
}

static void
answer_port_query(const struct dp_port *port, struct dpif_port *dpif_port)
{
    if (dpif_port) {
        dpif_port->name = xstrdup(netdev_get_name(port->netdev));
        dpif_port->type = xstrdup(port->type);
        dpif_port->port_no = port->port_no;
    }
}

static int
dpif_percpu_port_query_by_number(const struct dpif *dpif, odp_port_t port_no,
                                 struct dpif_port *dpif_port)
{
    struct datapath *dp = get_datapath(dpif);
    struct dp_port *port;
    int error = 0;

    if (port_no == ODPP_NONE) {
        return EINVAL;
    }
    ovs_mutex_lock(&dp->reconfig_mutex);
    port = datapath_lookup_port(dp, port_no);
    if (port) {
        answer_port_query(port, dpif_port);
    } else {
        error = ENODEV;
    }
    ovs_mutex_unlock(&dp->reconfig_mutex);
    return error;
}

static int
dpif_percpu_port_query_by_name(const struct dpif *dpif, const char *devname,
                               struct dpif_port *dpif_port)
{
    struct datapath *dp = get_datapath(dpif);
    struct dp_port *port;
    int error = 0;

    ovs_mutex_lock(&dp->reconfig_mutex);
    port = datapath_find_port_by_name(dp, devname);
    if (port) {
        answer_port_query(port, dpif_port);
    } else {
        error = ENODEV;
    }
    ovs_mutex_unlock(&dp->reconfig_mutex);
    return error;
}

/* State of a port dump: where it is, and the strings of the last port it
 * returned, which must stay valid until the next call. */
struct port_dump_state {
    struct cmap_position position;
    char *name;
    char *type;
};

static int
dpif_percpu_port_dump_start(const struct dpif *dpif OVS_UNUSED,
                            void **statep)
{
    *statep = xzalloc(sizeof(struct port_dump_state));
    return 0;
}

static int
dpif_percpu_port_dump_next(const struct dpif *dpif, void *state_,
                           struct dpif_port *dpif_port)
{
    struct datapath *dp = get_datapath(dpif);
    struct port_dump_state *state = state_;
    struct cmap_node *node;
    int error = EOF;

    ovs_mutex_lock(&dp->reconfig_mutex);
    node = cmap_next_position(&dp->ports, &state->position);
    if (node) {
        struct dp_port *port = CONTAINER_OF(node, struct dp_port, node);

        free(state->name);
        free(state->type);
        state->name = xstrdup(netdev_get_name(port->netdev));
        state->type = xstrdup(port->type);
        dpif_port->name = state->name;
        dpif_port->type = state->type;
        dpif_port->port_no = port->port_no;
        error = 0;
    }
    ovs_mutex_unlock(&dp->reconfig_mutex);
    return error;
}

static int
dpif_percpu_port_dump_done(const struct dpif *dpif OVS_UNUSED, void *state_)
{
    struct port_dump_state *state = state_;

    free(state->name);
    free(state->type);
    free(state);
    return 0;
}

static int
dpif_percpu_port_poll(const struct dpif *dpif_, char **devnamep OVS_UNUSED)
{
    struct dpif_percpu *dpif = dpif_percpu_cast(dpif_);
    uint64_t seq = seq_read(dpif->dp->port_seq);

    if (seq != dpif->last_port_seq) {
        dpif->last_port_seq = seq;
        return ENOBUFS;
    }
    return EAGAIN;
}

static void
dpif_percpu_port_poll_wait(const struct dpif *dpif_)
{
    struct dpif_percpu *dpif = dpif_percpu_cast(dpif_);

    seq_wait(dpif->dp->port_seq, dpif->last_port_seq);
}

static int
dpif_percpu_flow_flush(struct dpif *dpif)
{
    flow_table_flush(get_datapath(dpif)->table);
    return 0;
}

/* Converts 'key' into 'flow'.  Logs a parse failure unless 'probe'. */
static int
flow_from_nlattrs(const struct nlattr *key, uint32_t key_len,
                  struct flow *flow, bool probe)
{
    if (odp_flow_key_to_flow(key, key_len, flow, NULL)) {
        if (!probe) {
            static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
            struct ds s = DS_EMPTY_INITIALIZER;

            odp_flow_format(key, key_len, NULL, 0, NULL, &s, true);
            VLOG_ERR_RL(&rl, "internal error parsing flow key %s",
                        ds_cstr(&s));
            ds_destroy(&s);
        }
        return EINVAL;
    }
    return 0;
}

/* Converts 'mask' into 'wc' for 'flow'.  Logs a parse failure unless
 * 'probe'. */
static int
mask_from_nlattrs(const struct nlattr *key, uint32_t key_len,
                  const struct nlattr *mask, uint32_t mask_len,
                  const struct flow *flow, struct flow_wildcards *wc,
                  bool probe)
{
    enum odp_key_fitness fitness;

    fitness = odp_flow_key_to_mask(mask, mask_len, wc, flow, NULL);
    if (fitness) {
        if (!probe) {
            static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
            struct ds s = DS_EMPTY_INITIALIZER;

            odp_flow_format(key, key_len, mask, mask_len, NULL, &s, true);
            VLOG_ERR_RL(&rl, "internal error parsing flow mask %s (%s)",
                        ds_cstr(&s), odp_key_fitness_to_string(fitness));
            ds_destroy(&s);
        }
        return EINVAL;
    }
    return 0;
}

/* The connection states OVS's userspace conntrack sets, as in
 * dpif-netdev. */
#define CT_STATES_SUPPORTED (CS_NEW | CS_ESTABLISHED | CS_RELATED          \
                             | CS_INVALID | CS_REPLY_DIR | CS_TRACKED      \
                             | CS_SRC_NAT | CS_DST_NAT)

/* Returns true if 'flow' matches a connection state that conntrack never
 * sets (such as "snat"-less kernel-only bits), which would never match. */
static bool
flow_uses_unsupported_ct_state(const struct flow *flow)
{
    return flow->ct_state & ~(uint32_t) CT_STATES_SUPPORTED;
}

/* Fills 'out' from 'flow': the key and mask re-serialised in canonical order
 * into 'key_buf' and 'mask_buf', the actions (valid until the caller
 * quiesces) and the summed per-thread stats. */
static void
megaflow_to_dpif_flow(const struct megaflow *flow, struct ofpbuf *key_buf,
                      struct ofpbuf *mask_buf, struct dpif_flow *out,
                      bool terse)
{
    if (terse) {
        memset(out, 0, sizeof *out);
    } else {
        const struct megaflow_actions *actions = megaflow_get_actions(flow);
        struct flow_wildcards wc;
        struct flow key;
        struct odp_flow_key_parms parms = {
            .flow = &key,
            .mask = &wc.masks,
            .support = dp_log_odp_support,
        };
        size_t offset;

        megaflow_get_mask(flow, &wc);
        megaflow_get_key(flow, &key);

        offset = key_buf->size;
        out->key = ofpbuf_tail(key_buf);
        odp_flow_key_from_flow(&parms, key_buf);
        out->key_len = key_buf->size - offset;

        offset = mask_buf->size;
        out->mask = ofpbuf_tail(mask_buf);
        parms.key_buf = key_buf;
        odp_flow_key_from_mask(&parms, mask_buf);
        out->mask_len = mask_buf->size - offset;

        out->actions = actions->actions;
        out->actions_len = actions->size;
    }

    out->ufid = *megaflow_ufid(flow);
    out->ufid_present = true;
    out->pmd_id = NON_PMD_CORE_ID;
    flow_stats_get(flow->stats, &out->stats);
    out->attrs.offloaded = false;
    out->attrs.dp_layer = "ovs";
    out->attrs.dp_extra_info = megaflow_extra_info(flow);
}

/* Finds the megaflow that 'ufid', or failing that 'key', names. */
static struct megaflow *
find_megaflow(const struct datapath *dp, const ovs_u128 *ufid,
              const struct nlattr *key, size_t key_len)
{
    ovs_u128 key_ufid;
    struct flow flow;

    if (ufid) {
        return flow_table_find_ufid(dp->table, ufid);
    }
    if (key && !flow_from_nlattrs(key, key_len, &flow, true)) {
        odp_flow_key_hash(&flow, sizeof flow, &key_ufid);
        return flow_table_find_ufid(dp->table, &key_ufid);
    }
    return NULL;
}

/* Counts, and logs (rate-limited) unless 'probe', the refusal of
 * 'actions' ('len' bytes) by dp-actions-check for a 'what' ("flow put",
 * "execute").  A feature probe's refusal is its answer, not counted. */
static void
actions_refused(const struct nlattr *actions, size_t len, const char *what,
                bool probe)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

    if (probe) {
        return;
    }
    COVERAGE_INC(percpu_actions_refused);
    if (!VLOG_DROP_INFO(&rl)) {
        struct ds s = DS_EMPTY_INITIALIZER;

        format_odp_actions(&s, actions, len, NULL);
        VLOG_INFO("%s refused: datapath actions malformed or unsuited to "
                  "the key: %s", what, ds_cstr(&s));
        ds_destroy(&s);
    }
}

static int
flow_put(struct datapath *dp, const struct dpif_flow_put *put)
{
    bool probe = put->flags & DPIF_FP_PROBE;
    struct megaflow_draft draft = { .flow = NULL };
    struct megaflow *flow;
    struct match match;
    ovs_u128 ufid;
    int error;

    if (put->stats) {
        memset(put->stats, 0, sizeof *put->stats);
    }
    error = flow_from_nlattrs(put->key, put->key_len, &match.flow, probe);
    if (error) {
        return error;
    }
    error = mask_from_nlattrs(put->key, put->key_len, put->mask,
                              put->mask_len, &match.flow, &match.wc, probe);
    if (error) {
        return error;
    }
    if (match.wc.masks.in_port.odp_port != ODPP_NONE) {
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);

        VLOG_ERR_RL(&rl, "failed to put%s flow: in_port is not an exact "
                    "match", (put->flags & DPIF_FP_CREATE) ? "[create]"
                    : (put->flags & DPIF_FP_MODIFY) ? "[modify]" : "[zero]");
        return EINVAL;
    }
    if (flow_uses_unsupported_ct_state(&match.flow)) {
        return EINVAL;
    }
    error = dp_actions_check_key(&match.flow, &match.wc, put->actions,
                                 put->actions_len);
    if (error) {
        actions_refused(put->actions, put->actions_len, "flow put", probe);
        return EINVAL;
    }

    if (put->ufid) {
        ufid = *put->ufid;
    } else {
        odp_flow_key_hash(&match.flow, sizeof match.flow, &ufid);
    }

    megaflow_mask_vlan_presence(&match.wc);

    if (put->flags & DPIF_FP_CREATE) {
        /* Built before the mutex is taken (flow-table.h), for no thread in
         * particular: every thread that hits it allocates its own
         * statistics slot. */
        megaflow_draft_build(&draft, dp->table, &match, &ufid, put->actions,
                             put->actions_len, 0);
    }
    flow_table_lock(dp->table);
    flow = flow_table_lookup_flow(dp->table, &match.flow);
    if (!flow) {
        if (put->flags & DPIF_FP_CREATE) {
            flow = flow_table_install(dp->table, &draft);
            if (flow) {
                dp_log_flow_change(flow, &match, NULL, put->actions,
                                   put->actions_len);
            } else {
                /* At the table's limit, as dpif-netdev beyond MAX_FLOWS. */
                error = EFBIG;
            }
        } else {
            error = ENOENT;
        }
    } else if (put->flags & DPIF_FP_MODIFY) {
        if (put->stats) {
            flow_stats_get(flow->stats, put->stats);
        }
        dp_log_flow_change(flow, &match, megaflow_get_actions(flow),
                           put->actions, put->actions_len);
        flow_table_set_actions(dp->table, flow, put->actions,
                               put->actions_len);
        if (put->flags & DPIF_FP_ZERO_STATS) {
            flow_stats_clear(flow->stats);
        }
    } else if (put->flags & DPIF_FP_CREATE) {
        error = EEXIST;
    } else {
        /* Overlapping flow. */
        error = EINVAL;
    }
    flow_table_unlock(dp->table);
    megaflow_draft_destroy(&draft);
    return error;
}

static int
flow_del(struct datapath *dp, const struct dpif_flow_del *del)
{
    struct megaflow *flow;
    int error = 0;

    if (del->stats) {
        memset(del->stats, 0, sizeof *del->stats);
    }
    flow_table_lock(dp->table);
    flow = find_megaflow(dp, del->ufid, del->key, del->key_len);
    if (flow) {
        if (del->stats) {
            flow_stats_get(flow->stats, del->stats);
        }
        flow_table_remove(dp->table, flow);
    } else {
        error = ENOENT;
    }
    flow_table_unlock(dp->table);
    return error;
}

static int
flow_get(struct datapath *dp, const struct dpif_flow_get *get)
{
    struct megaflow *flow;

    flow = find_megaflow(dp, get->ufid, get->key, get->key_len);
    if (!flow) {
        return ENOENT;
    }
    megaflow_to_dpif_flow(flow, get->buffer, get->buffer, get->flow, false);
    return 0;
}

/* Runs 'execute''s actions on a copy of its packet, as thread 't', and
 * swaps the result back into the caller's packet. */
static void
execute_as(struct pmd_thread *t, struct dpif_execute *execute)
{
    struct dp_packet *packet = execute->packet;
    struct dp_packet_batch batch;

    /* Packets that did not come through the datapath (packet-out, BFD...)
     * have no RSS hash yet; actions such as hash need one. */
    if (!dp_packet_rss_valid(packet)) {
        dp_packet_set_rss_hash(packet, flow_hash_5tuple(execute->flow, 0));
    }

    /* The caller keeps 'packet' and may expect to see the actions' changes,
     * so execute on a copy and swap it back. */
    dp_packet_batch_init_packet(&batch, dp_packet_clone(packet));
    dp_actions_execute_for(t, &batch, false, execute->flow,
                           execute->actions, execute->actions_len);
    dp_input_finish_round(t);

    if (dp_packet_batch_size(&batch) == 1) {
        dp_packet_swap(packet, batch.packets[0]);
    }
    dp_packet_delete_batch(&batch, true);
}

static int
execute(struct datapath *dp, struct dpif_execute *execute)
{
    struct dp_packet *packet = execute->packet;
    struct pmd_thread *t = pmd_thread_self(dp);

    if (dp_packet_size(packet) < ETH_HEADER_LEN
        || dp_packet_size(packet) > UINT16_MAX) {
        return EINVAL;
    }
    if (execute->probe) {
        /* A probe's packet need not meet its actions' prerequisites, so it
         * is never executed: only the actions are judged, not against the
         * packet. */
        return dp_actions_check(execute->actions, execute->actions_len)
               ? EINVAL : 0;
    }
    if (dp_actions_check_key(execute->flow, NULL, execute->actions,
                             execute->actions_len)) {
        actions_refused(execute->actions, execute->actions_len, "execute",
                        false);
        return EINVAL;
    }

    if (t) {
        execute_as(t, execute);
    } else {
        /* Not a forwarding thread: borrow the non-PMD context. */
        ovs_mutex_lock(&dp->non_pmd_mutex);
        t = datapath_thread(dp, 0);
        t->now = time_msec();
        execute_as(t, execute);
        ovs_mutex_unlock(&dp->non_pmd_mutex);
    }
    return 0;
}

static void
dpif_percpu_operate(struct dpif *dpif, struct dpif_op **ops, size_t n_ops,
                    enum dpif_offload_type offload_type OVS_UNUSED)
{
    struct datapath *dp = get_datapath(dpif);

    for (size_t i = 0; i < n_ops; i++) {
        struct dpif_op *op = ops[i];

        switch (op->type) {
        case DPIF_OP_FLOW_PUT:
            op->error = flow_put(dp, &op->flow_put);
            break;
        case DPIF_OP_FLOW_DEL:
            op->error = flow_del(dp, &op->flow_del);
            break;
        case DPIF_OP_FLOW_GET:
            op->error = flow_get(dp, &op->flow_get);
            break;
        case DPIF_OP_EXECUTE:
            op->error = execute(dp, &op->execute);
            break;
        }
    }
}

/* A flow dump walks the shared table once. */
struct percpu_flow_dump {
    struct dpif_flow_dump up;
    struct ovs_mutex mutex;         /* Guards 'position' and 'done'. */
    struct cmap_position position OVS_GUARDED;
    bool done OVS_GUARDED;
};

struct percpu_flow_dump_thread {
    struct dpif_flow_dump_thread up;
    struct percpu_flow_dump *dump;
    struct odputil_keybuf keybuf[FLOW_DUMP_MAX_BATCH];
    struct odputil_keybuf maskbuf[FLOW_DUMP_MAX_BATCH];
};

static struct percpu_flow_dump *
flow_dump_cast(struct dpif_flow_dump *dump)
{
    return CONTAINER_OF(dump, struct percpu_flow_dump, up);
}

static struct percpu_flow_dump_thread *
flow_dump_thread_cast(struct dpif_flow_dump_thread *thread)
{
    return CONTAINER_OF(thread, struct percpu_flow_dump_thread, up);
}

static struct dpif_flow_dump *
dpif_percpu_flow_dump_create(const struct dpif *dpif, bool terse,
                             struct dpif_flow_dump_types *types OVS_UNUSED)
{
    struct percpu_flow_dump *dump = xzalloc(sizeof *dump);

    dpif_flow_dump_init(&dump->up, dpif);
    dump->up.terse = terse;
    ovs_mutex_init(&dump->mutex);
    return &dump->up;
}

static int
dpif_percpu_flow_dump_destroy(struct dpif_flow_dump *dump_)
{
    struct percpu_flow_dump *dump = flow_dump_cast(dump_);

    ovs_mutex_destroy(&dump->mutex);
    free(dump);
    return 0;
}

static struct dpif_flow_dump_thread *
dpif_percpu_flow_dump_thread_create(struct dpif_flow_dump *dump_)
{
    struct percpu_flow_dump *dump = flow_dump_cast(dump_);
    struct percpu_flow_dump_thread *thread = xmalloc(sizeof *thread);

    dpif_flow_dump_thread_init(&thread->up, &dump->up);
    thread->dump = dump;
    return &thread->up;
}

static void
dpif_percpu_flow_dump_thread_destroy(struct dpif_flow_dump_thread *thread)
{
    free(flow_dump_thread_cast(thread));
}

static int
dpif_percpu_flow_dump_next(struct dpif_flow_dump_thread *thread_,
                           struct dpif_flow *flows, int max_flows)
{
    struct percpu_flow_dump_thread *thread = flow_dump_thread_cast(thread_);
    struct percpu_flow_dump *dump = thread->dump;
    struct datapath *dp = get_datapath(thread->up.dpif);
    struct megaflow *batch[FLOW_DUMP_MAX_BATCH];
    int limit = MIN(max_flows, FLOW_DUMP_MAX_BATCH);
    int n = 0;

    ovs_mutex_lock(&dump->mutex);
    while (!dump->done && n < limit) {
        struct megaflow *flow = flow_table_next(dp->table, &dump->position);

        if (flow) {
            batch[n++] = flow;
        } else {
            dump->done = true;
        }
    }
    ovs_mutex_unlock(&dump->mutex);

    for (int i = 0; i < n; i++) {
        struct ofpbuf key, mask;

        ofpbuf_use_stack(&key, &thread->keybuf[i], sizeof thread->keybuf[i]);
        ofpbuf_use_stack(&mask, &thread->maskbuf[i],
                         sizeof thread->maskbuf[i]);
        megaflow_to_dpif_flow(batch[i], &key, &mask, &flows[i],
                              dump->up.terse);
    }
    return n;
}

static void
dpif_percpu_register_upcall_cb(struct dpif *dpif, upcall_callback *cb,
                               void *aux)
{
    struct datapath *dp = get_datapath(dpif);

    dp->upcall_aux = aux;
    dp->upcall_cb = cb;
}

/* Upcalls are disabled by holding 'upcall_rwlock' for writing, from the
 * main thread, as in dpif-netdev.  Unlike dpif-netdev, enabling or
 * disabling twice in a row is harmless. */
static void
dpif_percpu_enable_upcall(struct dpif *dpif)
{
    datapath_enable_upcalls(get_datapath(dpif));
}

static void
dpif_percpu_disable_upcall(struct dpif *dpif)
{
    datapath_disable_upcalls(get_datapath(dpif));
}

/* Maps an OpenFlow queue to the packet priority that set_queue sets, as
 * dpif-netdev does: the queue number itself.  netdevs with QoS (DPDK) read
 * it on output. */
static int
dpif_percpu_queue_to_priority(const struct dpif *dpif OVS_UNUSED,
                              uint32_t queue_id, uint32_t *priority)
{
    *priority = queue_id;
    return 0;
}

static char *
dpif_percpu_get_datapath_version(void)
{
    return xasprintf("ovs-percpu %s", OVS_PERCPU_VERSION);
}

static int
dpif_percpu_set_config(struct dpif *dpif, const struct smap *other_config)
{
    return datapath_set_config(get_datapath(dpif), other_config);
}

/* Meters: see dp-meter.h.  ofproto-dpif calls meter_set and meter_get from
 * the main thread, and meter_del also from the RCU thread after a grace
 * period. */
static void
dpif_percpu_meter_get_features(const struct dpif *dpif OVS_UNUSED,
                               struct ofputil_meter_features *features)
{
    dp_meter_get_features(features);
}

static int
dpif_percpu_meter_set(struct dpif *dpif, ofproto_meter_id meter_id,
                      struct ofputil_meter_config *config)
{
    return dp_meter_set(get_datapath(dpif)->meters, meter_id.uint32, config);
}

static int
dpif_percpu_meter_get(const struct dpif *dpif, ofproto_meter_id meter_id,
                      struct ofputil_meter_stats *stats, uint16_t n_bands)
{
    return dp_meter_get(get_datapath(dpif)->meters, meter_id.uint32, stats,
                        n_bands);
}

static int
dpif_percpu_meter_del(struct dpif *dpif, ofproto_meter_id meter_id,
                      struct ofputil_meter_stats *stats, uint16_t n_bands)
{
    return dp_meter_del(get_datapath(dpif)->meters, meter_id.uint32, stats,
                        n_bands);
}

#define DPIF_PERCPU_CLASS(TYPE)                                         \
    {                                                                   \
        .type = TYPE,                                                   \
        .cleanup_required = true,                                       \
        .init = dpif_percpu_init,                                       \
        .enumerate = dpif_percpu_enumerate,                             \
        .port_open_type = dpif_percpu_port_open_type,                   \
        .open = dpif_percpu_open,                                       \
        .close = dpif_percpu_close,                                     \
        .destroy = dpif_percpu_destroy,                                 \
        .run = dpif_percpu_run,                                         \
        .wait = dpif_percpu_wait,                                       \
        .get_stats = dpif_percpu_get_stats,                             \
        .port_add = dpif_percpu_port_add,                               \
        .port_del = dpif_percpu_port_del,                               \
        .port_set_config = dpif_percpu_port_set_config,                 \
        .port_query_by_number = dpif_percpu_port_query_by_number,       \
        .port_query_by_name = dpif_percpu_port_query_by_name,           \
        .port_dump_start = dpif_percpu_port_dump_start,                 \
        .port_dump_next = dpif_percpu_port_dump_next,                   \
        .port_dump_done = dpif_percpu_port_dump_done,                   \
        .port_poll = dpif_percpu_port_poll,                             \
        .port_poll_wait = dpif_percpu_port_poll_wait,                   \
        .flow_flush = dpif_percpu_flow_flush,                           \
        .flow_dump_create = dpif_percpu_flow_dump_create,               \
        .flow_dump_destroy = dpif_percpu_flow_dump_destroy,             \
        .flow_dump_thread_create = dpif_percpu_flow_dump_thread_create, \
        .flow_dump_thread_destroy = dpif_percpu_flow_dump_thread_destroy, \
        .flow_dump_next = dpif_percpu_flow_dump_next,                   \
        .operate = dpif_percpu_operate,                                 \
        .register_upcall_cb = dpif_percpu_register_upcall_cb,           \
        .enable_upcall = dpif_percpu_enable_upcall,                     \
        .disable_upcall = dpif_percpu_disable_upcall,                   \
        .queue_to_priority = dpif_percpu_queue_to_priority,             \
        .get_datapath_version = dpif_percpu_get_datapath_version,       \
        .set_config = dpif_percpu_set_config,                           \
        .meter_get_features = dpif_percpu_meter_get_features,           \
        .meter_set = dpif_percpu_meter_set,                             \
        .meter_get = dpif_percpu_meter_get,                             \
        .meter_del = dpif_percpu_meter_del,                             \
        DPIF_PERCPU_CT_MEMBERS,                                         \
    }

/* The class behind datapath_type=netdev. */
static const struct dpif_class dpif_percpu_class = DPIF_PERCPU_CLASS("netdev");

/* The class behind datapath_type=dummy, for tests: internal ports are dummy
 * devices and port numbers follow port names. */
static const struct dpif_class dpif_percpu_dummy_class
    = DPIF_PERCPU_CLASS("dummy");

/* The dummy class again under the type "system", for
 * --enable-dummy=system and =override. */
static const struct dpif_class dpif_percpu_system_dummy_class
    = DPIF_PERCPU_CLASS("system");

/* Registers our classes and shuts OVS's dpif-netdev out of their types.
 * Must run before anything calls dp_initialize(). */
void
dpif_percpu_register(void)
{
    dp_register_provider(&dpif_percpu_class);
    dp_disallow_provider("netdev");
    dp_register_provider(&dpif_percpu_dummy_class);
    dp_disallow_provider("dummy");
}

/* Registers our class under the datapath type 'type' as well, for programs
 * other than ovs-vswitchd that want it beside OVS's own dpif-netdev: the
 * benchmark.  Internal ports are dummy devices under any type but
 * "netdev". */
void
dpif_percpu_register_as(const char *type)
{
    struct dpif_class *class = xmemdup(&dpif_percpu_class, sizeof *class);

    class->type = xstrdup(type);
    dp_register_provider(class);
}

/* Puts the dummy class behind the type "system" too, so that a test's
 * "system" bridges use dummy devices, as --enable-dummy=system asks. */
void
dpif_percpu_override_system(void)
{
    dp_register_provider(&dpif_percpu_system_dummy_class);
    dp_disallow_provider("system");
}

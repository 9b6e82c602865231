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

#include <config.h>
#include "dp-input.h"

#include "datapath.h"
#include "dp-actions.h"
#include "dp-packet.h"
#include "dp-upcall.h"
#include "flow-cache.h"
#include "flow-stats.h"
#include "flow-table.h"
#include "netdev.h"
#include "odp-util.h"
#include "packet-key.h"
#include "pmd.h"
#include "bitmap.h"
#include "hash.h"
#include "random.h"
#include "util.h"
#include "vport-tunnel.h"

/* Packets of one batch that hit the same megaflow. */
struct flow_batch {
    struct megaflow *flow;          /* The megaflow they hit. */
    struct dp_packet_batch packets; /* The packets, in arrival order. */
    uint32_t n_bytes;               /* Their total size. */
    uint16_t tcp_flags;             /* Their TCP flags, OR-ed. */
};

/* Slots in the index of a receive batch's flow batches: a power of two, at
 * least twice the most flow batches there can be. */
#define FLOW_BATCH_INDEX_SIZE 64
BUILD_ASSERT_DECL(FLOW_BATCH_INDEX_SIZE >= 2 * NETDEV_MAX_BURST);

/* The flow batches of one receive batch, with an open-addressing index by
 * megaflow, so that finding a packet's batch costs the same with 32
 * megaflows as with one.  (dpif-netdev keeps a batch pointer in each flow,
 * which its per-thread flows allow and our shared ones do not.) */
struct flow_batches {
    size_t n;
    uint8_t index[FLOW_BATCH_INDEX_SIZE];   /* Batch number + 1, or 0. */
    struct flow_batch batches[NETDEV_MAX_BURST];
};

static void
flow_batches_init(struct flow_batches *fb)
{
    fb->n = 0;
    memset(fb->index, 0, sizeof fb->index);
}

/* Returns the flow batch for 'flow' in 'fb', starting one if needed. */
static struct flow_batch *
flow_batches_find(struct flow_batches *fb, struct megaflow *flow)
{
    struct flow_batch *b;
    size_t slot;

    /* Consecutive packets mostly hit the same megaflow. */
    if (fb->n && fb->batches[fb->n - 1].flow == flow) {
        return &fb->batches[fb->n - 1];
    }
    for (slot = hash_pointer(flow, 0) & (FLOW_BATCH_INDEX_SIZE - 1);
         fb->index[slot];
         slot = (slot + 1) & (FLOW_BATCH_INDEX_SIZE - 1)) {
        b = &fb->batches[fb->index[slot] - 1];
        if (b->flow == flow) {
            return b;
        }
    }
    b = &fb->batches[fb->n++];
    fb->index[slot] = fb->n;
    b->flow = flow;
    dp_packet_batch_init(&b->packets);
    b->n_bytes = 0;
    b->tcp_flags = 0;
    return b;
}

/* Adds 'packet', which hit 'flow', to the flow batch for 'flow' in 'fb'. */
static void
flow_batch_add(struct flow_batches *fb, struct megaflow *flow,
               struct dp_packet *packet, uint16_t tcp_flags)
{
    struct flow_batch *b = flow_batches_find(fb, flow);

    dp_packet_batch_add(&b->packets, packet);
    b->n_bytes += dp_packet_size(packet);
    b->tcp_flags |= tcp_flags;
}

/* Copies 'key''s hit on 'flow' into the thread's exact-match cache, with
 * the probability emc-insert-inv-prob sets ('insert_min' out of
 * UINT32_MAX). */
static void
maybe_cache(struct pmd_thread *t, uint32_t insert_min,
            const struct packet_key *key, struct megaflow *flow)
{
    if (insert_min && random_uint32() <= insert_min) {
        flow_cache_insert(t->cache, key, flow);
    }
}

/* Lookups in one measuring window of the exact-match cache's hit rate. */
#define EMC_WINDOW_LOOKUPS 1024

/* Below this hit rate (1/8) the cache's lookups, two likely cache misses
 * each, cost more than its hits save, and the thread stops looking... */
#define EMC_MIN_HIT_RATE_INV 8

/* ...for this many batches, after which it measures again. */
#define EMC_SKIP_BATCHES 256

/* Returns true if 't' should look its packets up in its exact-match cache
 * for this batch. */
static bool
emc_lookup_wanted(struct pmd_thread *t, uint32_t insert_min)
{
    if (!insert_min) {
        return false;
    }
    if (t->emc_skip_batches) {
        t->emc_skip_batches--;
        return false;
    }
    return true;
}

/* Accounts 'n_lookups' exact-match lookups with 'n_hits' hits. */
static void
emc_account(struct pmd_thread *t, uint32_t n_lookups, uint32_t n_hits)
{
    t->emc_window_lookups += n_lookups;
    t->emc_window_hits += n_hits;
    if (t->emc_window_lookups >= EMC_WINDOW_LOOKUPS) {
        if (t->emc_window_hits * EMC_MIN_HIT_RATE_INV
            < t->emc_window_lookups) {
            t->emc_skip_batches = EMC_SKIP_BATCHES;
        }
        t->emc_window_lookups = 0;
        t->emc_window_hits = 0;
    }
}

/* Classifies and executes 'batch', received on 'in_port' or recirculated
 * ('md_is_valid').  Three passes: every packet's key and exact-match cache
 * lookup; one batched megaflow lookup for the cache's misses; an upcall for
 * each packet still unmatched.  Then each megaflow's packets are executed
 * together, with one statistics update. */
static void
dp_input__(struct pmd_thread *t, struct dp_packet_batch *batch,
           bool md_is_valid, odp_port_t in_port)
{
    struct packet_key keys[NETDEV_MAX_BURST];
    const struct miniflow *miniflows[NETDEV_MAX_BURST];
    struct megaflow *flows[NETDEV_MAX_BURST];
    struct dp_packet *packets[NETDEV_MAX_BURST];
    uint16_t tcp_flags[NETDEV_MAX_BURST];
    struct flow_batches fb;
    size_t n_packets = dp_packet_batch_size(batch);
    size_t n = 0;
    unsigned long miss_map = 0;
    uint32_t insert_min;
    bool use_emc;

    BUILD_ASSERT(NETDEV_MAX_BURST <= FLOW_TABLE_MAX_BATCH);
    atomic_read_relaxed(&t->dp->emc_insert_min, &insert_min);
    use_emc = emc_lookup_wanted(t, insert_min);

    for (size_t i = 0; i < n_packets; i++) {
        struct dp_packet *packet = batch->packets[i];
        struct packet_key *key = &keys[n];

        if (i + 1 < n_packets) {
            OVS_PREFETCH(dp_packet_data(batch->packets[i + 1]));
        }
        if (OVS_UNLIKELY(dp_packet_size(packet) < ETH_HEADER_LEN)) {
            pmd_counter_add(t, PMD_DROP_SHORT, 1);
            dp_packet_delete(packet);
            continue;
        }
        if (!md_is_valid) {
            pkt_metadata_init(&packet->md, in_port);
        }

        packet_key_init(key, packet, t->recirc_depth);
        flows[n] = use_emc ? flow_cache_lookup(t->cache, key) : NULL;
        if (!flows[n]) {
            miss_map |= 1UL << n;
        }
        miniflows[n] = &key->mf;
        tcp_flags[n] = miniflow_get_tcp_flags(&key->mf);
        packets[n++] = packet;
    }
    if (use_emc) {
        uint32_t n_hits = n - count_1bits(miss_map);

        pmd_counter_add(t, PMD_EMC_HITS, n_hits);
        emc_account(t, n, n_hits);
    }

    if (miss_map) {
        unsigned long lookup_map = miss_map;
        size_t i;

        flow_table_lookup_batch(t->dp->table, t->ranking, miniflows,
                                &lookup_map, flows);
        pmd_counter_add(t, PMD_MEGAFLOW_HITS,
                        count_1bits(miss_map & ~lookup_map));
        ULLONG_FOR_EACH_1 (i, miss_map & ~lookup_map) {
            maybe_cache(t, insert_min, &keys[i], flows[i]);
        }

        /* dp_upcall_miss() looks the table up again before upcalling, so
         * a packet covered by a megaflow that an earlier upcall of this
         * batch, or another thread, installed meanwhile is forwarded here
         * with it instead of upcalled. */
        ULLONG_FOR_EACH_1 (i, lookup_map) {
            struct megaflow *flow = dp_upcall_miss(t, packets[i], &keys[i]);

            if (flow) {
                pmd_counter_add(t, PMD_MEGAFLOW_HITS, 1);
                maybe_cache(t, insert_min, &keys[i], flow);
            } else {
                pmd_counter_add(t, PMD_MISSES, 1);
            }
            flows[i] = flow;
        }
    }

    flow_batches_init(&fb);
    for (size_t i = 0; i < n; i++) {
        if (flows[i]) {
            flow_batch_add(&fb, flows[i], packets[i], tcp_flags[i]);
        }
    }
    for (size_t i = 0; i < fb.n; i++) {
        struct flow_batch *b = &fb.batches[i];
        const struct megaflow_actions *actions;
        const struct megaflow *outer = t->exec_flow;
        const struct flow *outer_key = t->exec_key;

        flow_stats_update(b->flow->stats, t->index,
                          dp_packet_batch_size(&b->packets), b->n_bytes,
                          b->tcp_flags, t->now);
        actions = megaflow_get_actions(b->flow);
        t->exec_flow = b->flow;
        t->exec_key = NULL;
        dp_actions_execute(t, &b->packets, true, actions->actions,
                           actions->size, &actions->needs);
        t->exec_flow = outer;
        t->exec_key = outer_key;
    }
}

void
dp_input_batch(struct pmd_thread *t, struct dp_packet_batch *batch,
               odp_port_t in_port)
{
    dp_input__(t, batch, false, in_port);
    dp_actions_flush(t);
}

/* Ends a round of 't': the packets its tunnel vports decapsulated in the
 * round go through the lookup, then all queued output is sent. */
void
dp_input_finish_round(struct pmd_thread *t)
{
    vport_tunnel_flush(t);
    dp_actions_flush(t);
}

/* Forwards 'batch', decapsulated by a tunnel vport, whose packets' metadata
 * says so (the tunnel port as input port, the tunnel metadata).  Takes
 * ownership of the packets. */
void
dp_input_tunnel(struct pmd_thread *t, struct dp_packet_batch *batch)
{
    dp_input__(t, batch, true, ODPP_NONE);
}

/* Forwards 'batch', encapsulated frames or ARP requests that a tunnel vport
 * sends into its underlay bridge, with metadata naming the bridge's local
 * port as the input port.  Counts as a recirculation for the depth limit:
 * a tunnel routed into itself must end.  Takes ownership of the packets. */
void
dp_input_inject(struct pmd_thread *t, struct dp_packet_batch *batch)
{
    if (OVS_UNLIKELY(t->recirc_depth >= DP_MAX_RECIRC_DEPTH)) {
        pmd_counter_add(t, PMD_DROP_RECIRC_DEPTH,
                        dp_packet_batch_size(batch));
        dp_packet_delete_batch(batch, true);
        return;
    }
    t->recirc_depth++;
    dp_input__(t, batch, true, ODPP_NONE);
    t->recirc_depth--;
}

/* Forwards 'batch' again after a recirculation action set its packets'
 * recirc_id.  Takes ownership of the packets. */
void
dp_input_recirculate(struct pmd_thread *t, struct dp_packet_batch *batch)
{
    pmd_counter_add(t, PMD_RECIRC_PACKETS, dp_packet_batch_size(batch));
    dp_input__(t, batch, true, ODPP_NONE);
}

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

/* The per-packet path: classify a batch, account it, execute its actions. */

#include <config.h>
#include "dp-input.h"

#include "datapath.h"
#include "dp-actions.h"
#include "dp-packet.h"
#include "dp-upcall.h"
#include "flow-cache.h"
#include "flow-stats.h"
#include "flow-table.h"
#include "header-key.h"
#include "netdev.h"
#include "odp-util.h"
#include "packet-key.h"
#include "pmd.h"
#include "bitmap.h"
#include "coverage.h"
#include "hash.h"
#include "random.h"
#include "util.h"
#include "vport-tunnel.h"

COVERAGE_DEFINE(percpu_upcall_deferred);
COVERAGE_DEFINE(percpu_emc_wide_lookup);
COVERAGE_DEFINE(percpu_tunnel_header_key);
COVERAGE_DEFINE(percpu_tunnel_no_header_key);

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

/* Returns the first slot of 'flow' in a flow batch index.  Megaflows are
 * allocated on cache-line boundaries, several lines apart, so the address
 * bits above the line offset spread them well enough for an index that is
 * at least half empty, for much less than hash_pointer() costs, once a
 * packet when every packet hits a different megaflow. */
static inline size_t
flow_batch_index_slot(const struct megaflow *flow)
{
    uintptr_t line = (uintptr_t) flow / CACHE_LINE_SIZE;

    return (line ^ (line >> 6)) & (FLOW_BATCH_INDEX_SIZE - 1);
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
    for (slot = flow_batch_index_slot(flow);
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

/* Lookups in one measuring window of the exact-match cache's hit rate. */
#define EMC_WINDOW_LOOKUPS 1024

/* Below this hit rate (1/8) the cache's lookups, two likely cache misses
 * each, cost more than its hits save, and the thread stops looking... */
#define EMC_MIN_HIT_RATE_INV 8

/* ...for this many batches, after which it measures again. */
#define EMC_SKIP_BATCHES 256

/* At or above this miss rate (1/16), the thread's flows outnumber its
 * 8192 entries, and with a few lines each they do not fit the CPU's
 * caches either: the lookups of a batch then overlap their misses
 * (input_header_hits()).  Below it, a working set that the caches hold
 * would pay for that pass and gain nothing. */
#define EMC_WIDE_MISS_RATE_INV 16

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
        uint32_t n_misses = t->emc_window_lookups - t->emc_window_hits;

        if (t->emc_window_hits * EMC_MIN_HIT_RATE_INV
            < t->emc_window_lookups) {
            t->emc_skip_batches = EMC_SKIP_BATCHES;
        }
        t->emc_wide = (n_misses * EMC_WIDE_MISS_RATE_INV
                       >= t->emc_window_lookups);
        t->emc_window_lookups = 0;
        t->emc_window_hits = 0;
    }
}

/* One receive batch as it goes through the passes of dp_input__(): each
 * packet kept, with its key and the megaflow it hit.  On the stack of the
 * forwarding thread; entry 'i' of every array is the same packet. */
struct input_batch {
    struct packet_key keys[NETDEV_MAX_BURST];   /* Each packet's key, unless
                                                 * its header key hit. */
    struct header_key header_keys[NETDEV_MAX_BURST]; /* Its header key, if
                                                 * 'header_map' has it. */
    unsigned long header_map;                   /* Packets with a header key
                                                 * (header-key.h's shape). */
    const struct miniflow *miniflows[NETDEV_MAX_BURST]; /* &keys[i].mf, for
                                                 * the batched lookup. */
    struct megaflow *flows[NETDEV_MAX_BURST];   /* Its megaflow, NULL while
                                                 * it has none. */
    struct dp_packet *packets[NETDEV_MAX_BURST]; /* The packet. */
    uint16_t tcp_flags[NETDEV_MAX_BURST];       /* Its TCP flags. */
};

/* Copies the hit of packet 'i' of 'ib' on 'flow' into the thread's
 * exact-match cache, by its header key if it has one and otherwise by its
 * miniflow, with the probability emc-insert-inv-prob sets ('insert_min' out
 * of UINT32_MAX). */
static void
maybe_cache(struct pmd_thread *t, uint32_t insert_min,
            const struct input_batch *ib, size_t i, struct megaflow *flow)
{
    if (insert_min && random_uint32() <= insert_min) {
        if (ib->header_map & (1UL << i)) {
            flow_cache_insert_header(t->cache, &ib->header_keys[i], flow);
        } else {
            flow_cache_insert(t->cache, &ib->keys[i], flow);
        }
    }
}

/* Starts fetching what pass 4 reads of 'flow' beyond the lines a lookup
 * reads: its actions and 't''s statistics slot, so that with many
 * megaflows their misses overlap instead of coming one group at a time. */
static void
input_prefetch_execution(const struct pmd_thread *t,
                         const struct megaflow *flow)
{
    OVS_PREFETCH(megaflow_get_actions(flow));
    flow_stats_prefetch(flow->stats, t->index);
}

/* Pass 1's miniflow key for packet 'n' of 'ib', one without a header key
 * (header-key.h) or whose header key the exact-match cache did not match:
 * extracts its miniflow into 'ib', for the megaflow lookup, and, if
 * 'lookup', looks the packet up by it in the exact-match cache.  Returns
 * true if the cache matched it. */
static bool
input_miniflow_key(struct pmd_thread *t, struct input_batch *ib, size_t n,
                   bool lookup)
{
    struct packet_key *key = &ib->keys[n];

    packet_key_init(key, ib->packets[n], t->recirc_depth);
    ib->flows[n] = lookup ? flow_cache_lookup(t->cache, key) : NULL;
    ib->miniflows[n] = &key->mf;
    ib->tcp_flags[n] = miniflow_get_tcp_flags(&key->mf);
    return ib->flows[n] != NULL;
}

/* Pass 1's exact-match cache lookups by header key, for the packets of
 * 'wide_map', whose entries input_keys_and_cache() prefetched: finds every
 * packet's entry and prefetches the megaflow it names, and only then reads
 * the megaflows (are they live?), prefetching their actions and the
 * thread's statistics slots for pass 4, so that with many flows the misses
 * overlap across the batch instead of coming one after another.  A packet
 * the cache does not match gets its miniflow for the megaflow lookup.
 * Returns the map of those. */
static unsigned long
input_header_hits(struct pmd_thread *t, struct input_batch *ib,
                  unsigned long wide_map)
{
    struct flow_cache_header_entry *entries[NETDEV_MAX_BURST];
    const struct megaflow *last = NULL;
    unsigned long miss_map = 0;
    size_t i;

    ULLONG_FOR_EACH_1 (i, wide_map) {
        entries[i] = flow_cache_find_header(t->cache, &ib->header_keys[i]);
        if (entries[i] && entries[i]->flow != last) {
            last = entries[i]->flow;
            megaflow_prefetch_hit(last);
        }
    }
    last = NULL;
    ULLONG_FOR_EACH_1 (i, wide_map) {
        struct megaflow *flow = (entries[i]
                                 ? flow_cache_header_entry_flow(entries[i])
                                 : NULL);

        ib->flows[i] = flow;
        if (!flow) {
            input_miniflow_key(t, ib, i, false);
            miss_map |= 1UL << i;
        } else if (flow != last) {
            last = flow;
            input_prefetch_execution(t, flow);
        }
    }
    return miss_map;
}

/* Where the packets of a batch come from, which says what their metadata
 * holds and which header key (header-key.h) they may get. */
enum input_origin {
    INPUT_RECEIVED,             /* From a port: metadata to initialize. */
    INPUT_TUNNEL,               /* Decapsulated by a tunnel vport: metadata
                                 * as header_key_extract_tunnel() says. */
    INPUT_RECIRCULATED,         /* Recirculated or injected: no header
                                 * key. */
};

/* Gets the header key of 'packet', from 'origin', into 'key' and its TCP
 * flags into '*tcp_flags', and returns true, or returns false if it has
 * none.  Initializes the metadata of a packet received on 'in_port'. */
static inline bool
input_header_key_extract(struct header_key *key, struct dp_packet *packet,
                         enum input_origin origin, odp_port_t in_port,
                         bool use_header_keys, uint16_t *tcp_flags)
{
    if (origin == INPUT_RECEIVED) {
        pkt_metadata_init(&packet->md, in_port);
        return (use_header_keys
                && header_key_extract(key, packet, in_port, tcp_flags));
    }
    return (origin == INPUT_TUNNEL && use_header_keys
            && header_key_extract_tunnel(key, packet, tcp_flags));
}

/* Pass 1, key and cache (dpif-netdev's dfc_processing()): drops what is
 * shorter than an Ethernet header, initializes the metadata of a packet
 * received on 'in_port' (if 'origin' says so), and, if 'use_emc', looks
 * each packet up in the exact-match cache: by its header key, if it has
 * one (received, or decapsulated with tunnel metadata that a tunnel
 * header key covers) and 'use_header_keys' (the cache is on), without
 * extracting its miniflow on a hit; otherwise by its miniflow, extracted
 * into 'ib'.
 * While the thread's flows outnumber the cache ('emc_wide'), the header
 * keys' lookups wait until every packet's entries are prefetched
 * (input_header_hits()).  A packet the cache does not match has its
 * miniflow extracted for the megaflow lookup.  Returns how many packets
 * 'ib' holds; sets '*miss_mapp' to those the cache did not match (all of
 * them without 'use_emc'). */
static size_t
input_keys_and_cache(struct pmd_thread *t, struct dp_packet_batch *batch,
                     enum input_origin origin, odp_port_t in_port,
                     bool use_emc,
                     bool use_header_keys, struct input_batch *ib,
                     unsigned long *miss_mapp)
{
    size_t n_packets = dp_packet_batch_size(batch);
    bool wide = use_emc && t->emc_wide;
    unsigned long miss_map = 0, wide_map = 0;
    uint32_t last_hash = 0;
    size_t n = 0;

    ib->header_map = 0;
    for (size_t i = 0; i < n_packets; i++) {
        struct dp_packet *packet = batch->packets[i];
        bool lookup = use_emc;

        if (i + 1 < n_packets) {
            OVS_PREFETCH(dp_packet_data(batch->packets[i + 1]));
        }
        if (OVS_UNLIKELY(dp_packet_size(packet) < ETH_HEADER_LEN)) {
            pmd_counter_add(t, PMD_DROP_SHORT, 1);
            dp_packet_delete(packet);
            continue;
        }
        ib->packets[n] = packet;
        if (input_header_key_extract(&ib->header_keys[n], packet, origin,
                                     in_port, use_header_keys,
                                     &ib->tcp_flags[n])) {
            ib->header_map |= 1UL << n;
            if (wide) {
                if (ib->header_keys[n].hash != last_hash || !wide_map) {
                    last_hash = ib->header_keys[n].hash;
                    flow_cache_prefetch_header(t->cache,
                                               &ib->header_keys[n]);
                }
                wide_map |= 1UL << n;
                n++;
                continue;
            }
            ib->flows[n] = (use_emc
                            ? flow_cache_lookup_header(t->cache,
                                                       &ib->header_keys[n])
                            : NULL);
            if (ib->flows[n]) {
                n++;
                continue;
            }
            lookup = false;     /* Cached by its header key only. */
        }
        if (!input_miniflow_key(t, ib, n, lookup)) {
            miss_map |= 1UL << n;
        }
        n++;
    }
    if (wide_map) {
        COVERAGE_ADD(percpu_emc_wide_lookup, count_1bits(wide_map));
        miss_map |= input_header_hits(t, ib, wide_map);
    }
    if (origin == INPUT_TUNNEL && use_header_keys) {
        size_t n_keyed = count_1bits(ib->header_map);

        COVERAGE_ADD(percpu_tunnel_header_key, n_keyed);
        COVERAGE_ADD(percpu_tunnel_no_header_key, n - n_keyed);
    }
    if (use_emc) {
        uint32_t n_hits = n - count_1bits(miss_map);

        pmd_counter_add(t, PMD_EMC_HITS, n_hits);
        emc_account(t, n, n_hits);
    }
    *miss_mapp = miss_map;
    return n;
}

/* Pass 2, the batched megaflow lookup (the first half of dpif-netdev's
 * fast_path_processing()): looks the packets of 'miss_map' up in the
 * shared megaflow table, all at once, and copies each hit into the
 * exact-match cache as 'insert_min' says.  Returns the packets still
 * unmatched. */
static unsigned long
input_megaflow_lookup(struct pmd_thread *t, struct input_batch *ib,
                      unsigned long miss_map, uint32_t insert_min)
{
    unsigned long lookup_map = miss_map;
    size_t i;

    flow_table_lookup_batch(t->dp->table, t->ranking, ib->miniflows,
                            &lookup_map, ib->flows);
    pmd_counter_add(t, PMD_MEGAFLOW_HITS,
                    count_1bits(miss_map & ~lookup_map));
    ULLONG_FOR_EACH_1 (i, miss_map & ~lookup_map) {
        struct megaflow *flow = ib->flows[i];

        maybe_cache(t, insert_min, ib, i, flow);

        /* A megaflow that the cache did not hold is likely cold.  (The
         * lookup fetched the lines it read.) */
        input_prefetch_execution(t, flow);
    }
    return lookup_map;
}

/* Records the outcome of pass 3 for packet 'i' of 'ib': the megaflow that
 * dp_upcall_miss() or dp_upcall_try_miss() returned, or NULL if the upcall
 * consumed the packet. */
static void
input_upcall_done(struct pmd_thread *t, struct input_batch *ib, size_t i,
                  struct megaflow *flow, uint32_t insert_min)
{
    if (flow) {
        pmd_counter_add(t, PMD_MEGAFLOW_HITS, 1);
        maybe_cache(t, insert_min, ib, i, flow);
    } else {
        pmd_counter_add(t, PMD_MISSES, 1);
    }
    ib->flows[i] = flow;
}

/* Returns the header key of packet 'i' of 'ib', or NULL if it has none. */
static const struct header_key *
input_header_key(const struct input_batch *ib, size_t i)
{
    return ib->header_map & (1UL << i) ? &ib->header_keys[i] : NULL;
}

/* Pass 3, upcalls (dpif-netdev's handle_packet_upcall()): one for each
 * packet of 'lookup_map', which no megaflow matched.  dp_upcall_miss()
 * looks the table up again before upcalling, so a packet covered by a
 * megaflow that an earlier upcall of this batch, or another thread,
 * installed meanwhile is forwarded here with it instead of upcalled.  A
 * packet left with no megaflow was consumed by the upcall.
 *
 * A packet whose turn another thread holds (most likely upcalling for the
 * same flow, when both threads receive the same new flows) waits until
 * the batch's other packets have had theirs, and so do the batch's later
 * packets of the same turn, which keeps each flow's packets in order:
 * the thread upcalls for the next new flow meanwhile instead of waiting
 * for the other thread's upcall. */
static void
input_upcalls(struct pmd_thread *t, struct input_batch *ib,
              unsigned long lookup_map, uint32_t insert_min)
{
    unsigned long deferred_map = 0;
    uint64_t busy_turns = 0;
    size_t i;

    BUILD_ASSERT(DP_UPCALL_LOCKS <= 64);
    ULLONG_FOR_EACH_1 (i, lookup_map) {
        uint64_t turn_bit = UINT64_C(1) << dp_upcall_turn(&ib->keys[i]);
        struct megaflow *flow;

        if (busy_turns & turn_bit
            || !dp_upcall_try_miss(t, ib->packets[i], &ib->keys[i],
                                   input_header_key(ib, i), &flow)) {
            busy_turns |= turn_bit;
            deferred_map |= 1UL << i;
            COVERAGE_INC(percpu_upcall_deferred);
            continue;
        }
        input_upcall_done(t, ib, i, flow, insert_min);
    }
    ULLONG_FOR_EACH_1 (i, deferred_map) {
        input_upcall_done(t, ib, i,
                          dp_upcall_miss(t, ib->packets[i], &ib->keys[i],
                                         input_header_key(ib, i)),
                          insert_min);
    }
}

/* Pass 4, grouped execution (dpif-netdev's packet_batch_per_flow_execute()):
 * the 'n' packets of 'ib' that have a megaflow, grouped by megaflow in
 * arrival order, each group accounted with one statistics update and
 * executed together. */
static void
input_execute_grouped(struct pmd_thread *t, struct input_batch *ib, size_t n)
{
    struct flow_batches fb;

    flow_batches_init(&fb);
    for (size_t i = 0; i < n; i++) {
        if (ib->flows[i]) {
            flow_batch_add(&fb, ib->flows[i], ib->packets[i],
                           ib->tcp_flags[i]);
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
        dp_actions_execute(t, &b->packets, true, actions);
        t->exec_flow = outer;
        t->exec_key = outer_key;
    }
}

/* Classifies and executes 'batch', received on 'in_port', decapsulated or
 * recirculated (by 'origin'), in the passes above: every packet's key and
 * exact-match cache lookup; one batched megaflow lookup for the cache's
 * misses; an upcall for each packet still unmatched; then each megaflow's
 * packets executed together, with one statistics update. */
static void
dp_input__(struct pmd_thread *t, struct dp_packet_batch *batch,
           enum input_origin origin, odp_port_t in_port)
{
    struct input_batch ib;
    unsigned long miss_map;
    uint32_t insert_min;
    bool use_emc;
    size_t n;

    BUILD_ASSERT(NETDEV_MAX_BURST <= FLOW_TABLE_MAX_BATCH);
    atomic_read_relaxed(&t->dp->emc_insert_min, &insert_min);
    use_emc = emc_lookup_wanted(t, insert_min);

    n = input_keys_and_cache(t, batch, origin, in_port, use_emc,
                             insert_min != 0, &ib, &miss_map);
    if (miss_map) {
        unsigned long lookup_map = input_megaflow_lookup(t, &ib, miss_map,
                                                         insert_min);

        input_upcalls(t, &ib, lookup_map, insert_min);
    }
    input_execute_grouped(t, &ib, n);
}

void
dp_input_batch(struct pmd_thread *t, struct dp_packet_batch *batch,
               odp_port_t in_port)
{
    dp_input__(t, batch, INPUT_RECEIVED, in_port);
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
    dp_input__(t, batch, INPUT_TUNNEL, ODPP_NONE);
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
    dp_input__(t, batch, INPUT_RECIRCULATED, ODPP_NONE);
    t->recirc_depth--;
}

/* Forwards 'batch' again after a recirculation action set its packets'
 * recirc_id.  Takes ownership of the packets. */
void
dp_input_recirculate(struct pmd_thread *t, struct dp_packet_batch *batch)
{
    pmd_counter_add(t, PMD_RECIRC_PACKETS, dp_packet_batch_size(batch));
    dp_input__(t, batch, INPUT_RECIRCULATED, ODPP_NONE);
}

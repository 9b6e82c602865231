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

/* Unit tests for lib/flow/flow-table.c, run by tests/percpu-flows.at.
 *
 * "shapes": flow_table_lookup_batch(), which masks the keys by the shapes
 * (miniflow maps) a thread has learnt, against flow_table_lookup(), which
 * walks each key's map, for keys of many shapes: fields present or absent
 * (zero, so left out of the miniflow) in every combination, one batch
 * mixing them, so that the shapes a thread remembers are replaced again
 * and again.  Any key for which the two disagree fails the test.
 *
 * "sweep": a thread's exact-match cache (flow-cache.h) is swept only while
 * the table has removed megaflows that its last sweep pass did not see; a
 * pass releases the removed megaflows the cache holds and keeps the rest,
 * and flow_cache_insert() takes no removed megaflow.
 *
 * "header-sizes": each header-key table of the exact-match cache takes 14
 * bits of a key's hash for each of its two candidate positions
 * (FLOW_CACHE_HEADER_ENTRIES), the miniflow table 13: three keys whose
 * hashes differ only in bits 26 and 27 are all cached by header key, and
 * two of them by miniflow.
 *
 * "drafts": a megaflow built outside the table's mutex
 * (megaflow_draft_build()) is found, once installed, by the lookups that
 * mask a packet's key; one the table refuses (at its maximum) is not, and
 * leaves the table as it was; a draft whose mask a subtable already has
 * adds no subtable.  What a draft still holds is freed by
 * megaflow_draft_destroy() (the sanitizer build's run of this test finds
 * a leak).
 *
 * "one-allocation": a megaflow holds its key and the actions it was
 * installed with in its own allocation; both read back as given, and
 * actions replaced twice (flow_table_set_actions()) read back as given,
 * the first, which the megaflow holds, left to be freed with it, the
 * second freed after a grace period (freeing the first on its own aborts
 * the test; the sanitizer build's run finds a leak or a double free).
 *
 * "slot-pools": the pools of statistics slots (slot-pool.h) give each
 * thread index lines that lie beside no other pool's line, aligned and
 * zeroed, take lines given back for their next allocations, and count
 * what they hand out. */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow-cache.h"
#include "flow-table.h"
#include "flow.h"
#include "netlink.h"
#include "odp-util.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/match.h"
#include "ovs-rcu.h"
#include "packet-key.h"
#include "packets.h"
#include "slot-pool.h"
#include "test-harness.h"
#include "util.h"

/* Batches of FLOW_TABLE_MAX_BATCH keys the "shapes" test looks up. */
#define N_BATCHES 400

/* A key held as a miniflow, with room for every value. */
struct test_key {
    struct miniflow mf;
    uint64_t buf[FLOW_U64S];
};

/* The test's own pseudo-random numbers: the same on every run. */
static uint32_t
next_random(uint32_t *state)
{
    *state = *state * 1103515245 + 12345;
    return *state >> 8;
}

static struct megaflow *
insert(struct flow_table *table, const struct match *match, uint32_t id)
{
    ovs_u128 ufid = { .u32 = { id, 0, 0, 1 } };
    struct megaflow_draft draft;
    struct megaflow *flow;

    megaflow_draft_build(&draft, table, match, &ufid, NULL, 0, 1);
    flow_table_lock(table);
    flow = flow_table_install(table, &draft);
    flow_table_unlock(table);
    megaflow_draft_destroy(&draft);
    if (!flow) {
        test_fail("megaflow %"PRIu32" not installed", id);
    }
    return flow;
}

/* Installs megaflows with two masks: in_port, IPv4 destination and
 * transport destination (10.0.0.k, port 80 + k or 0, which a key without
 * a transport port also matches), and IPv4 source and destination
 * (192.168.0.k or 0.0.0.0, to 10.0.1.k). */
static void
install_flows(struct flow_table *table)
{
    for (uint32_t k = 0; k < 8; k++) {
        struct match match;

        match_init_catchall(&match);
        match_set_in_port(&match, 1);
        match_set_dl_type(&match, htons(ETH_TYPE_IP));
        match_set_nw_dst(&match, htonl(0x0a000000 | k));
        match_set_tp_dst(&match, k % 2 ? htons(80 + k) : 0);
        insert(table, &match, k);
    }
    for (uint32_t k = 0; k < 4; k++) {
        struct match match;

        match_init_catchall(&match);
        match_set_dl_type(&match, htons(ETH_TYPE_IP));
        match_set_nw_dst(&match, htonl(0x0a000100 | k));
        match_set_nw_src(&match, k ? htonl(0xc0a80000 | k) : 0);
        insert(table, &match, 100 + k);
    }
}

/* Makes 'key' a key whose fields are each present or absent at random. */
static void
random_key(struct test_key *key, uint32_t *state)
{
    uint32_t r = next_random(state);
    uint32_t v = next_random(state);
    struct flow flow;

    memset(&flow, 0, sizeof flow);
    flow.in_port.odp_port = u32_to_odp(r & 1 ? 1 : 2);
    flow.dl_type = htons(ETH_TYPE_IP);
    flow.nw_dst = htonl(r & 2 ? 0x0a000000 | (v % 10) : 0x0a000100 | (v % 5));
    if (r & 4) {
        flow.nw_src = htonl(0xc0a80000 | ((v >> 4) % 5));
    }
    if (r & 8) {
        flow.tp_dst = htons(80 + (v >> 8) % 10);
    }
    if (r & 16) {
        flow.tp_src = htons(1234);
    }
    if (r & 32) {
        flow.tcp_flags = htons(TCP_SYN);
    }
    if (r & 64) {
        flow.nw_proto = r & 128 ? IPPROTO_TCP : IPPROTO_UDP;
    }
    if (r & 256) {
        flow.dl_src = (struct eth_addr) ETH_ADDR_C(50, 54, 00, 00, 00, 01);
    }
    if (r & 512) {
        flow.vlans[0].tci = htons(VLAN_CFI | 10);
    }
    if (r & 1024) {
        flow.recirc_id = 7;
    }
    miniflow_map_init(&key->mf, &flow);
    miniflow_init(&key->mf, &flow);
}

static void
test_shapes(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct flow_table *table = flow_table_create(2);
    struct flow_table_ranking *ranking = flow_table_ranking_create();
    struct flowmap maps[2048];
    size_t n_maps = 0, n_lookups = 0, n_hits = 0;
    uint32_t state = 1;

    install_flows(table);
    for (int batch = 0; batch < N_BATCHES; batch++) {
        struct test_key keys[FLOW_TABLE_MAX_BATCH];
        const struct miniflow *mfs[FLOW_TABLE_MAX_BATCH];
        struct megaflow *flows[FLOW_TABLE_MAX_BATCH];
        unsigned long map = 0;

        for (size_t j = 0; j < FLOW_TABLE_MAX_BATCH; j++) {
            size_t m;

            random_key(&keys[j], &state);
            mfs[j] = &keys[j].mf;
            flows[j] = NULL;
            map |= 1UL << j;
            for (m = 0; m < n_maps; m++) {
                if (flowmap_equal(maps[m], keys[j].mf.map)) {
                    break;
                }
            }
            if (m == n_maps && n_maps < ARRAY_SIZE(maps)) {
                maps[n_maps++] = keys[j].mf.map;
            }
        }
        flow_table_lookup_batch(table, ranking, mfs, &map, flows);
        for (size_t j = 0; j < FLOW_TABLE_MAX_BATCH; j++) {
            struct megaflow *expected = flow_table_lookup(table, mfs[j]);
            struct megaflow *found = map & (1UL << j) ? NULL : flows[j];

            if (found != expected) {
                test_fail("batch %d, key %"PRIuSIZE": batched lookup found "
                          "%s, flow_table_lookup() %s", batch, j,
                          found ? "a megaflow" : "none",
                          expected
                          ? (found ? "another" : "a megaflow") : "none");
            }
            n_lookups++;
            n_hits += found != NULL;
        }
        if (batch % 50 == 49) {
            flow_table_ranking_sort(ranking);
        }
    }
    printf("%"PRIuSIZE" lookups, %"PRIuSIZE" hits, %"PRIuSIZE" key shapes: "
           "batched lookups as flow_table_lookup()\n",
           n_lookups, n_hits, n_maps);
    flow_table_ranking_destroy(ranking);
    flow_table_destroy(table);
}

/* Installs a megaflow matching IPv4 destination 10.0.2.'k' and returns it,
 * with in 'key' a packet key it matches whose exact-match hash is 'hash'. */
static struct megaflow *
install_cached_flow(struct flow_table *table, uint32_t k, uint32_t hash,
                    struct packet_key *key)
{
    struct match match;
    struct flow flow;

    match_init_catchall(&match);
    match_set_dl_type(&match, htons(ETH_TYPE_IP));
    match_set_nw_dst(&match, htonl(0x0a000200 | k));

    memset(&flow, 0, sizeof flow);
    flow.dl_type = htons(ETH_TYPE_IP);
    flow.nw_dst = htonl(0x0a000200 | k);
    miniflow_map_init(&key->mf, &flow);
    miniflow_init(&key->mf, &flow);
    key->hash = hash;
    return insert(table, &match, 200 + k);
}

/* Returns a header key of 'n_words' whose hash is 'hash', as if of a frame
 * received on port 'k'. */
static struct header_key
cached_header_key(uint32_t k, uint32_t hash, uint32_t n_words)
{
    struct header_key key;

    memset(&key, 0, sizeof key);
    key.hash = hash;
    key.in_port = k;
    key.n_words = n_words;
    return key;
}

/* Returns how many entries of 'cache', of any table, hold 'flow'. */
static size_t
count_cached(const struct flow_cache *cache, const struct megaflow *flow)
{
    size_t n = 0;

    for (size_t i = 0; i < FLOW_CACHE_ENTRIES; i++) {
        n += cache->entries[i].flow == flow;
    }
    for (size_t i = 0; i < FLOW_CACHE_HEADER_ENTRIES; i++) {
        n += cache->ipv4_entries[i].header.flow == flow;
        n += cache->ipv6_entries[i].header.flow == flow;
    }
    return n;
}

/* Sweeps 'cache' as a forwarding thread's round does, up to 'max' times,
 * until the sweep is back at entry 0; returns the calls a pass took, or 0 if
 * the sweep did not move. */
static size_t
sweep_until_pass_ends(struct flow_cache *cache,
                      const struct flow_table *table, size_t max)
{
    for (size_t n = 1; n <= max; n++) {
        flow_cache_sweep(cache, flow_table_n_removed(table));
        if (!cache->sweep_pos) {
            /* A pass takes many calls: ending after one, it never began. */
            return n == 1 ? 0 : n;
        }
    }
    return max;
}

static void
test_sweep(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct flow_table *table = flow_table_create(1);
    struct flow_cache *cache = flow_cache_create();
    struct header_key header_a = cached_header_key(1, 1,
                                                   HEADER_KEY_IPV4_WORDS);
    struct header_key header_b = cached_header_key(2, 2,
                                                   HEADER_KEY_IPV4_WORDS);
    struct header_key header_c = cached_header_key(3, 3,
                                                   HEADER_KEY_IPV4_WORDS);
    struct header_key ipv6_a = cached_header_key(1, 1, HEADER_KEY_IPV6_WORDS);
    struct header_key ipv6_b = cached_header_key(2, 2, HEADER_KEY_IPV6_WORDS);
    struct header_key ipv6_c = cached_header_key(3, 3, HEADER_KEY_IPV6_WORDS);
    struct flow_cache_header_entry *entry;
    struct packet_key key_a, key_b, key_c;
    struct megaflow *a, *b;
    size_t calls;

    /* Hashes 1, 2 and 3 take entries 1, 2 and 3 of each table. */
    a = install_cached_flow(table, 1, 1, &key_a);
    b = install_cached_flow(table, 2, 2, &key_b);
    install_cached_flow(table, 3, 3, &key_c);
    flow_cache_insert(cache, &key_a, a);
    flow_cache_insert(cache, &key_b, b);
    flow_cache_insert_header(cache, &header_a, a);
    flow_cache_insert_header(cache, &header_b, b);
    flow_cache_insert_header(cache, &ipv6_a, a);
    flow_cache_insert_header(cache, &ipv6_b, b);
    if (count_cached(cache, a) != 3 || count_cached(cache, b) != 3) {
        test_fail("megaflows a and b not cached once in each table");
    }
    if (flow_cache_lookup_header(cache, &header_a) != a
        || flow_cache_lookup_header(cache, &header_c)
        || flow_cache_lookup_header(cache, &ipv6_a) != a
        || flow_cache_lookup_header(cache, &ipv6_c)) {
        test_fail("header keys a and c do not find a and nothing");
    }

    /* Nothing removed: the sweep does not move. */
    for (size_t i = 0; i < FLOW_CACHE_ENTRIES; i++) {
        flow_cache_sweep(cache, flow_table_n_removed(table));
        if (cache->sweep_pos) {
            test_fail("the sweep moved to entry %"PRIuSIZE" with nothing "
                      "removed", cache->sweep_pos);
        }
    }
    printf("nothing removed: the sweep stays at entry 0\n");

    /* 'a' removed: a dead megaflow is not cached again, and one pass
     * releases it. */
    flow_table_lock(table);
    flow_table_remove(table, a);
    flow_table_unlock(table);
    printf("removed: %"PRIu64"\n", flow_table_n_removed(table));
    flow_cache_insert(cache, &key_c, a);
    flow_cache_insert_header(cache, &header_c, a);
    flow_cache_insert_header(cache, &ipv6_c, a);
    if (count_cached(cache, a) != 3) {
        test_fail("a removed megaflow was cached again: %"PRIuSIZE
                  " entries hold it", count_cached(cache, a));
    }
    calls = sweep_until_pass_ends(cache, table,
                                  2 * FLOW_CACHE_HEADER_ENTRIES);
    printf("one pass over %u positions: %"PRIuSIZE" calls\n",
           FLOW_CACHE_HEADER_ENTRIES, calls);
    printf("after the pass: a cached %"PRIuSIZE" times, b %"PRIuSIZE"\n",
           count_cached(cache, a), count_cached(cache, b));

    /* The pass saw every removal: the sweep stops again. */
    calls = sweep_until_pass_ends(cache, table,
                                  2 * FLOW_CACHE_HEADER_ENTRIES);
    printf("then: %"PRIuSIZE" calls move the sweep\n", calls);

    /* 'b' removed: before any sweep, a lookup by either key drops it, and
     * so does a batch's lookup that found b's header entry for two packets
     * before reading the megaflow (dp-input.c, input_header_hits()). */
    flow_table_lock(table);
    flow_table_remove(table, b);
    flow_table_unlock(table);
    entry = flow_cache_find_header(cache, &header_b);
    if (!entry || flow_cache_find_header(cache, &header_b) != entry) {
        test_fail("header key b's entry was not found twice");
    }
    if (flow_cache_header_entry_flow(entry)
        || flow_cache_header_entry_flow(entry)
        || flow_cache_lookup_header(cache, &header_b)
        || flow_cache_lookup_header(cache, &ipv6_b)
        || flow_cache_lookup(cache, &key_b)) {
        test_fail("a removed megaflow was found in the cache");
    }
    printf("b removed: found by no key, then cached %"PRIuSIZE
           " times\n", count_cached(cache, b));

    flow_cache_destroy(cache);
    flow_table_destroy(table);
    ovsrcu_quiesce();
}

static void
test_header_sizes(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const uint32_t n_words[] = {
        HEADER_KEY_IPV4_WORDS, HEADER_KEY_IPV6_WORDS, HEADER_KEY_TNL_WORDS,
        HEADER_KEY_TNL6_WORDS,
    };
    static const uint32_t hashes[3] = { 5, 5 | (1u << 26), 5 | (1u << 27) };
    struct flow_table *table = flow_table_create(1);
    struct flow_cache *cache = flow_cache_create();
    struct packet_key keys[3];
    struct megaflow *flows[3];
    size_t n_found = 0;

    for (int i = 0; i < 3; i++) {
        flows[i] = install_cached_flow(table, i + 1, hashes[i], &keys[i]);
        flow_cache_insert(cache, &keys[i], flows[i]);
    }
    for (int i = 0; i < 3; i++) {
        n_found += flow_cache_lookup(cache, &keys[i]) == flows[i];
    }
    printf("miniflows: %"PRIuSIZE" of 3 cached\n", n_found);

    for (size_t t = 0; t < ARRAY_SIZE(n_words); t++) {
        struct header_key header_keys[3];

        n_found = 0;
        for (int i = 0; i < 3; i++) {
            header_keys[i] = cached_header_key(i + 1, hashes[i], n_words[t]);
            flow_cache_insert_header(cache, &header_keys[i], flows[i]);
        }
        for (int i = 0; i < 3; i++) {
            n_found += (flow_cache_lookup_header(cache, &header_keys[i])
                        == flows[i]);
        }
        printf("header keys of %"PRIu32" words: %"PRIuSIZE" of 3 cached\n",
               n_words[t], n_found);
    }

    flow_cache_destroy(cache);
    flow_table_destroy(table);
    ovsrcu_quiesce();
}

/* Lines the "slot-pools" test takes from each of two pools: three chunks'
 * worth. */
#define N_POOL_LINES 3000

/* A line taken from a pool, and which pool. */
struct pool_line {
    uintptr_t addr;
    size_t pool;
};

static int
compare_pool_lines(const void *a_, const void *b_)
{
    const struct pool_line *a = a_, *b = b_;

    return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* A match on in_port 1, IPv4 destination 10.0.2.'k' and, if 'with_port',
 * TCP destination port 80: two masks. */
static void
draft_match(struct match *match, uint32_t k, bool with_port)
{
    match_init_catchall(match);
    match_set_in_port(match, 1);
    match_set_dl_type(match, htons(ETH_TYPE_IP));
    match_set_nw_dst(match, htonl(0x0a000200 | k));
    if (with_port) {
        match_set_nw_proto(match, IPPROTO_TCP);
        match_set_tp_dst(match, htons(80));
    }
}

/* Returns what flow_table_lookup() finds for a TCP packet from in_port 1 to
 * 10.0.2.'k', port 80. */
static struct megaflow *
draft_lookup(const struct flow_table *table, uint32_t k)
{
    struct test_key key;
    struct flow flow;

    memset(&flow, 0, sizeof flow);
    flow.in_port.odp_port = u32_to_odp(1);
    flow.dl_type = htons(ETH_TYPE_IP);
    flow.nw_dst = htonl(0x0a000200 | k);
    flow.nw_proto = IPPROTO_TCP;
    flow.tp_dst = htons(80);
    miniflow_map_init(&key.mf, &flow);
    miniflow_init(&key.mf, &flow);
    return flow_table_lookup(table, &key.mf);
}

/* Builds a draft for draft_match('k', 'with_port') with UFID 'k' and
 * installs it, under the mutex, into 'table'; returns the installed
 * megaflow or NULL.  Reports in '*new_mask' whether the draft added a
 * subtable. */
static struct megaflow *
draft_install(struct flow_table *table, uint32_t k, bool with_port,
              bool *new_mask)
{
    ovs_u128 ufid = { .u32 = { k, 0, 0, 2 } };
    size_t n_masks = flow_table_n_masks(table);
    struct megaflow_draft draft;
    struct megaflow *flow;
    struct match match;

    draft_match(&match, k, with_port);
    megaflow_draft_build(&draft, table, &match, &ufid, NULL, 0, 1);
    flow_table_lock(table);
    flow = flow_table_install(table, &draft);
    flow_table_unlock(table);
    if (flow && draft.flow) {
        test_fail("draft %"PRIu32" still holds its installed megaflow", k);
    }
    *new_mask = flow_table_n_masks(table) > n_masks;
    megaflow_draft_destroy(&draft);
    return flow;
}

static void
test_drafts(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct flow_table *table = flow_table_create(2);
    struct megaflow *first, *refused, *second, *wide;
    bool new_mask;

    flow_table_set_max(table, 1);
    first = draft_install(table, 1, false, &new_mask);
    printf("first: %s, new subtable %s, found %s\n",
           first ? "installed" : "refused", new_mask ? "yes" : "no",
           draft_lookup(table, 1) == first ? "yes" : "no");

    refused = draft_install(table, 2, false, &new_mask);
    printf("at the maximum: %s, found %s, %"PRIuSIZE" flows, "
           "%"PRIuSIZE" masks\n", refused ? "installed" : "refused",
           draft_lookup(table, 2) ? "yes" : "no", flow_table_count(table),
           flow_table_n_masks(table));

    flow_table_set_max(table, 10);
    second = draft_install(table, 2, false, &new_mask);
    printf("same mask: %s, new subtable %s, found %s, %"PRIuSIZE" masks\n",
           second ? "installed" : "refused", new_mask ? "yes" : "no",
           second && draft_lookup(table, 2) == second ? "yes" : "no",
           flow_table_n_masks(table));

    wide = draft_install(table, 3, true, &new_mask);
    printf("another mask: %s, new subtable %s, found %s, %"PRIuSIZE" masks, "
           "%"PRIuSIZE" flows\n", wide ? "installed" : "refused",
           new_mask ? "yes" : "no",
           wide && draft_lookup(table, 3) == wide ? "yes" : "no",
           flow_table_n_masks(table), flow_table_count(table));
    flow_table_destroy(table);
}

/* Puts into 'actions' 'n' actions that output to port 'port'. */
static void
put_outputs(struct ofpbuf *actions, uint32_t port, int n)
{
    ofpbuf_init(actions, 0);
    for (int i = 0; i < n; i++) {
        nl_msg_put_odp_port(actions, OVS_ACTION_ATTR_OUTPUT,
                            u32_to_odp(port));
    }
}

/* Returns "as given" if 'flow''s actions are 'expected', else "different". */
static const char *
compare_actions(const struct megaflow *flow, const struct ofpbuf *expected)
{
    const struct megaflow_actions *a = megaflow_get_actions(flow);

    return (a->size == expected->size
            && !memcmp(a->actions, expected->data, a->size)
            ? "as given" : "different");
}

static void
test_one_allocation(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct flow_table *table = flow_table_create(2);
    ovs_u128 ufid = { .u32 = { 7, 0, 0, 3 } };
    struct ofpbuf first, second, third;
    struct megaflow_draft draft;
    struct megaflow *flow;
    struct match match;
    struct flow key;

    draft_match(&match, 7, true);
    put_outputs(&first, 2, 1);
    put_outputs(&second, 3, 40);     /* Several lines. */
    put_outputs(&third, 4, 1);

    megaflow_draft_build(&draft, table, &match, &ufid, first.data,
                         first.size, 1);
    flow_table_lock(table);
    flow = flow_table_install(table, &draft);
    flow_table_unlock(table);
    megaflow_draft_destroy(&draft);
    if (!flow) {
        test_fail("the megaflow was not installed");
    }
    megaflow_get_key(flow, &key);
    printf("installed: key %s, actions %s\n",
           flow_equal(&key, &match.flow) ? "as given" : "different",
           compare_actions(flow, &first));

    flow_table_lock(table);
    flow_table_set_actions(table, flow, second.data, second.size);
    flow_table_unlock(table);
    printf("replaced by 40 outputs: actions %s\n",
           compare_actions(flow, &second));
    ovsrcu_quiesce();

    flow_table_lock(table);
    flow_table_set_actions(table, flow, third.data, third.size);
    flow_table_unlock(table);
    printf("replaced again: actions %s, key %s\n",
           compare_actions(flow, &third),
           flow_equal(&key, &match.flow) ? "as given" : "different");

    flow_table_destroy(table);
    ovsrcu_quiesce();
    ofpbuf_uninit(&first);
    ofpbuf_uninit(&second);
    ofpbuf_uninit(&third);
}

static void
test_slot_pools(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct slot_pools *pools = slot_pools_create(3);
    struct pool_line *lines = xmalloc(2 * N_POOL_LINES * sizeof *lines);
    size_t n_held, n_lines, n_beside = 0, n_after_own = 0;
    void *again[16];

    /* Two threads take lines in turns, as two threads that first hit the
     * same flows do. */
    for (size_t i = 0; i < 2 * N_POOL_LINES; i++) {
        size_t pool = 1 + i % 2;
        uint8_t *line = slot_pools_alloc(pools, pool);

        if (!line) {
            test_fail("pool %"PRIuSIZE" gave no line", pool);
        }
        if ((uintptr_t) line % CACHE_LINE_SIZE) {
            test_fail("line %p is not aligned to a cache line", line);
        }
        for (size_t j = 0; j < CACHE_LINE_SIZE; j++) {
            if (line[j]) {
                test_fail("a new line is not zeroed");
            }
        }
        memset(line, 0xff, CACHE_LINE_SIZE);
        lines[i] = (struct pool_line) { (uintptr_t) line, pool };
    }
    qsort(lines, 2 * N_POOL_LINES, sizeof *lines, compare_pool_lines);
    for (size_t i = 1; i < 2 * N_POOL_LINES; i++) {
        if (lines[i].addr - lines[i - 1].addr < CACHE_LINE_SIZE) {
            test_fail("two lines overlap");
        }
        if (lines[i].addr - lines[i - 1].addr == CACHE_LINE_SIZE
            && lines[i].pool != lines[i - 1].pool) {
            n_beside++;
        }
        if (lines[i].addr - lines[i - 1].addr == CACHE_LINE_SIZE
            && lines[i].pool == lines[i - 1].pool) {
            n_after_own++;
        }
    }
    printf("%d lines from each of pools 1 and 2, taken in turns: "
           "%"PRIuSIZE" beside a line of the other pool, "
           "%"PRIuSIZE" right after a line of their own\n",
           N_POOL_LINES, n_beside, n_after_own);
    n_lines = slot_pools_n_lines(pools, 1, &n_held);
    printf("pool 1: %"PRIuSIZE" lines in use, room for %"PRIuSIZE"\n",
           n_lines, n_held);

    /* Lines given back are taken again, zeroed, before a new chunk. */
    for (size_t i = 0; i < ARRAY_SIZE(again); i++) {
        for (size_t j = 0; j < 2 * N_POOL_LINES; j++) {
            if (lines[j].pool == 1 && lines[j].addr) {
                slot_pools_free(pools, 1, (void *) lines[j].addr);
                lines[j].addr = 0;
                break;
            }
        }
    }
    n_lines = slot_pools_n_lines(pools, 1, &n_held);
    printf("%"PRIuSIZE" given back: %"PRIuSIZE" in use\n",
           ARRAY_SIZE(again), n_lines);
    for (size_t i = 0; i < ARRAY_SIZE(again); i++) {
        uint8_t *line = again[i] = slot_pools_alloc(pools, 1);

        for (size_t j = 0; j < CACHE_LINE_SIZE; j++) {
            if (line[j]) {
                test_fail("a line taken again is not zeroed");
            }
        }
    }
    n_lines = slot_pools_n_lines(pools, 1, &n_held);
    printf("taken again: %"PRIuSIZE" in use, room for %"PRIuSIZE"\n",
           n_lines, n_held);
    printf("pool 3 of 3: %s\n",
           slot_pools_alloc(pools, 3) ? "a line" : "no line");

    /* A reference keeps the pools after their creator's is gone. */
    slot_pools_ref(pools);
    slot_pools_unref(pools);
    for (size_t i = 0; i < ARRAY_SIZE(again); i++) {
        slot_pools_free(pools, 1, again[i]);
    }
    n_lines = slot_pools_n_lines(pools, 1, &n_held);
    printf("after one of two references: %"PRIuSIZE" in use\n", n_lines);
    slot_pools_unref(pools);
    free(lines);
}

int
main(int argc, char *argv[])
{
    static const struct test_command commands[] = {
        { "shapes", test_shapes },
        { "sweep", test_sweep },
        { "header-sizes", test_header_sizes },
        { "drafts", test_drafts },
        { "one-allocation", test_one_allocation },
        { "slot-pools", test_slot_pools },
    };

    return test_run_command(commands, ARRAY_SIZE(commands), argc, argv);
}

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

/* Unit tests for lib/flow-table.c, run by tests/percpu-flows.at.
 *
 * "shapes": flow_table_lookup_batch(), which masks the keys by the shapes
 * (miniflow maps) a thread has learnt, against flow_table_lookup(), which
 * walks each key's map, for keys of many shapes: fields present or absent
 * (zero, so left out of the miniflow) in every combination, one batch
 * mixing them, so that the shapes a thread remembers are replaced again
 * and again.  Any key for which the two disagree fails the test. */

#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow-table.h"
#include "flow.h"
#include "openvswitch/match.h"
#include "packets.h"
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

static void
insert(struct flow_table *table, const struct match *match, uint32_t id)
{
    ovs_u128 ufid = { .u32 = { id, 0, 0, 1 } };
    struct megaflow *flow;

    flow_table_lock(table);
    flow = flow_table_insert(table, match, &ufid, NULL, 0, 1);
    flow_table_unlock(table);
    if (!flow) {
        test_fail("megaflow %"PRIu32" not installed", id);
    }
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

int
main(int argc, char *argv[])
{
    static const struct test_command commands[] = {
        { "shapes", test_shapes },
    };

    return test_run_command(commands, ARRAY_SIZE(commands), argc, argv);
}

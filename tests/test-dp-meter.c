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

/* Unit tests for lib/dp-meter.c, run by tests/percpu-meters.at.
 *
 * Each subcommand runs batches of packets through a meter at times the test
 * chooses and prints, for each batch, which packets passed ('P') and which
 * were dropped ('.'), then the meter's statistics.  The program keeps its
 * own account of what it saw pass and drop and checks dp_meter_get()'s
 * statistics against it; any mismatch prints what was expected and what
 * came, and exits with status 1. */

#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp-meter.h"
#include "dp-packet.h"
#include "netdev.h"
#include "openflow/openflow-1.3.h"
#include "openvswitch/ofp-meter.h"
#include "openvswitch/util.h"
#include "ovs-thread.h"
#include "test-harness.h"
#include "util.h"

/* The time of the tests' first batch, in ns: any monotonic time will do. */
#define T0 (1000LL * 1000 * 1000 * 1000)

/* Nanoseconds in a millisecond. */
#define NS_PER_MS (1000LL * 1000)

/* The meter id the tests use. */
#define TEST_METER 5

/* The test's own account of one meter, to check dp_meter_get() against. */
struct account {
    uint64_t packets_in;
    uint64_t bytes_in;
    uint64_t band_packets[DP_METER_MAX_BANDS];
    uint64_t band_bytes[DP_METER_MAX_BANDS];
};

static void
check_int(const char *what, long long int expected, long long int got)
{
    if (expected != got) {
        test_fail("%s: expected %lld, got %lld", what, expected, got);
    }
}

/* Fills 'batch' with 'n' packets of the sizes in 'sizes', each tagged with
 * its index in its first byte. */
static void
make_batch(struct dp_packet_batch *batch, size_t n, const uint32_t sizes[])
{
    dp_packet_batch_init(batch);
    for (size_t i = 0; i < n; i++) {
        struct dp_packet *p = dp_packet_new(sizes[i]);
        uint8_t *data = dp_packet_put_zeros(p, sizes[i]);

        data[0] = i;
        dp_packet_batch_add(batch, p);
    }
}

/* Runs 'n' packets of sizes 'sizes' through meter TEST_METER of 'table' as
 * thread 'thread' at time T0 + 'ms', prints which passed, and records what
 * passed and dropped in 'acc'.  A drop is charged to band 'drop_band'
 * unless 'drop_bands' gives the band of each packet.  Returns the number
 * that passed. */
static size_t
run(struct dp_meter_table *table, size_t thread, long long int ms,
    size_t n, const uint32_t sizes[], struct account *acc,
    const int drop_bands[])
{
    bool passed[NETDEV_MAX_BURST] = { false };
    struct dp_packet_batch batch;
    struct dp_packet *p;
    char pattern[NETDEV_MAX_BURST + 1];
    size_t n_dropped, n_passed;

    make_batch(&batch, n, sizes);
    n_dropped = dp_meter_run(table, TEST_METER, thread, &batch,
                             T0 + ms * NS_PER_MS);
    n_passed = dp_packet_batch_size(&batch);
    check_int("packets passed plus dropped", n, n_passed + n_dropped);

    DP_PACKET_BATCH_FOR_EACH (i, p, &batch) {
        uint8_t tag = *(uint8_t *) dp_packet_data(p);

        if (tag >= n || passed[tag]) {
            test_fail("packet tag %u unexpected in the output", tag);
        }
        if (i && tag <= *(uint8_t *) dp_packet_data(batch.packets[i - 1])) {
            test_fail("packets reordered: tag %u after a later one", tag);
        }
        passed[tag] = true;
    }
    for (size_t i = 0; i < n; i++) {
        pattern[i] = passed[i] ? 'P' : '.';
        acc->packets_in++;
        acc->bytes_in += sizes[i];
        if (!passed[i]) {
            int b = drop_bands ? drop_bands[i] : 0;

            acc->band_packets[b]++;
            acc->band_bytes[b] += sizes[i];
        }
    }
    pattern[n] = '\0';
    printf("t=%lldms: %s (%"PRIuSIZE" passed, %"PRIuSIZE" dropped)\n",
           ms, pattern, n_passed, n_dropped);
    dp_packet_delete_batch(&batch, true);
    return n_passed;
}

/* Prints the statistics of TEST_METER and checks them against 'acc'. */
static void
check_stats(const struct dp_meter_table *table, size_t n_bands,
            const struct account *acc)
{
    struct ofputil_meter_band_stats bands[DP_METER_MAX_BANDS];
    struct ofputil_meter_stats stats = { .bands = bands };
    int error;

    error = dp_meter_get(table, TEST_METER, &stats, DP_METER_MAX_BANDS);
    check_int("dp_meter_get() error", 0, error);
    printf("stats: in %"PRIu64" packets %"PRIu64" bytes",
           stats.packet_in_count, stats.byte_in_count);
    for (size_t b = 0; b < stats.n_bands; b++) {
        printf(", band %"PRIuSIZE" %"PRIu64" packets %"PRIu64" bytes", b,
               stats.bands[b].packet_count, stats.bands[b].byte_count);
    }
    printf("\n");

    check_int("number of bands", n_bands, stats.n_bands);
    check_int("packet_in_count", acc->packets_in, stats.packet_in_count);
    check_int("byte_in_count", acc->bytes_in, stats.byte_in_count);
    for (size_t b = 0; b < n_bands; b++) {
        check_int("band packet_count", acc->band_packets[b],
                  stats.bands[b].packet_count);
        check_int("band byte_count", acc->band_bytes[b],
                  stats.bands[b].byte_count);
    }
}

/* Adds TEST_METER with 'n' drop bands of the given rates and burst sizes. */
static void
set_meter(struct dp_meter_table *table, uint16_t flags, size_t n,
          const uint32_t rates[], const uint32_t bursts[])
{
    struct ofputil_meter_band bands[DP_METER_MAX_BANDS];
    struct ofputil_meter_config config = {
        .flags = flags | OFPMF13_STATS | OFPMF13_BURST,
        .n_bands = n,
        .bands = bands,
    };

    for (size_t i = 0; i < n; i++) {
        bands[i] = (struct ofputil_meter_band) {
            .type = OFPMBT13_DROP,
            .rate = rates[i],
            .burst_size = bursts[i],
        };
    }
    check_int("dp_meter_set() error", 0,
              dp_meter_set(table, TEST_METER, &config));
}

/* A pktps meter: a full bucket lets 'burst' packets through, then tokens
 * come at the rate, fractions of a token carry over, and the bucket never
 * holds more than 'burst'. */
static void
test_pktps(void)
{
    uint32_t sizes[NETDEV_MAX_BURST];
    struct dp_meter_table *table = dp_meter_table_create(1);
    struct account acc = { 0 };

    for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
        sizes[i] = 60;
    }
    set_meter(table, OFPMF13_PKTPS, 1, (uint32_t[]) { 10 },
              (uint32_t[]) { 5 });
    printf("meter: pktps, rate 10, burst 5\n");
    run(table, 0, 0, 8, sizes, &acc, NULL);       /* Full bucket: 5. */
    run(table, 0, 100, 3, sizes, &acc, NULL);     /* 100 ms: 1 token. */
    run(table, 0, 150, 2, sizes, &acc, NULL);     /* Half a token. */
    run(table, 0, 200, 2, sizes, &acc, NULL);     /* Two halves: 1. */
    run(table, 0, 10000, 8, sizes, &acc, NULL);   /* Capped at 5. */
    run(table, 0, 10000, 1, sizes, &acc, NULL);   /* Empty again. */
    check_stats(table, 1, &acc);
    dp_meter_table_destroy(table);
}

/* A kbps meter charges bits: a packet too big for the tokens left is
 * dropped without spending them, so a smaller one after it may pass. */
static void
test_kbps(void)
{
    struct dp_meter_table *table = dp_meter_table_create(1);
    struct account acc = { 0 };

    /* 1000 kbps is one bit per microsecond; 8 kbit is 1000 bytes. */
    set_meter(table, OFPMF13_KBPS, 1, (uint32_t[]) { 1000 },
              (uint32_t[]) { 8 });
    printf("meter: kbps, rate 1000, burst 8\n");
    run(table, 0, 0, 5, (uint32_t[]) { 400, 400, 300, 100, 60 }, &acc, NULL);
    /* 320 bits were left; 1 ms brings 1000 more. */
    run(table, 0, 1, 3, (uint32_t[]) { 200, 150, 30 }, &acc, NULL);
    /* 120 bits left, then 10 ms fill the 8000-bit bucket. */
    run(table, 0, 11, 4, (uint32_t[]) { 500, 500, 1, 1 }, &acc, NULL);
    check_stats(table, 1, &acc);
    dp_meter_table_destroy(table);
}

/* With two bands, each takes the tokens of the packets that conform to it,
 * and a packet that exceeds both is counted by the one with the higher
 * rate. */
static void
test_bands(void)
{
    struct dp_meter_table *table = dp_meter_table_create(1);
    struct account acc = { 0 };
    uint32_t sizes[12];
    int drop_bands[12];

    for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
        sizes[i] = 100 + i;
        /* Packets 5 to 9 exceed band 1 only; 10 and 11 both bands. */
        drop_bands[i] = i >= 10 ? 0 : 1;
    }
    set_meter(table, OFPMF13_PKTPS, 2, (uint32_t[]) { 10, 5 },
              (uint32_t[]) { 10, 5 });
    printf("meter: pktps, band 0 rate 10 burst 10, band 1 rate 5 burst 5\n");
    run(table, 0, 0, 12, sizes, &acc, drop_bands);
    /* 200 ms: band 0 took 10 and earns 2, band 1 took 5 and earns 1.  The
     * first packet passes both; the second exceeds band 1 only. */
    run(table, 0, 200, 3, sizes, &acc, (int[]) { 1, 1, 0 });
    check_stats(table, 2, &acc);
    dp_meter_table_destroy(table);
}

/* What one thread of test_threads() does. */
struct thread_work {
    struct dp_meter_table *table;
    size_t index;               /* The thread's dense index. */
    size_t n_batches;           /* Batches of NETDEV_MAX_BURST to send. */
    size_t passed;              /* Packets that passed. */
    size_t dropped;             /* Packets dropped. */
};

static void *
thread_main(void *work_)
{
    struct thread_work *work = work_;
    uint32_t sizes[NETDEV_MAX_BURST];

    for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
        sizes[i] = 64;
    }
    for (size_t i = 0; i < work->n_batches; i++) {
        struct dp_packet_batch batch;

        make_batch(&batch, NETDEV_MAX_BURST, sizes);
        work->dropped += dp_meter_run(work->table, TEST_METER, work->index,
                                      &batch, T0);
        work->passed += dp_packet_batch_size(&batch);
        dp_packet_delete_batch(&batch, true);
    }
    return NULL;
}

/* Two threads at once, with uneven traffic, draw from one meter: together
 * they get exactly the bucket's tokens, however their batches interleave,
 * which a bucket split per thread (rate / N each) would not give. */
static void
test_threads(void)
{
    struct dp_meter_table *table = dp_meter_table_create(3);
    struct thread_work work[2] = {
        { .table = table, .index = 1, .n_batches = 1000 },
        { .table = table, .index = 2, .n_batches = 30 },
    };
    struct account acc = { 0 };
    pthread_t threads[2];
    size_t passed, dropped;

    set_meter(table, OFPMF13_PKTPS, 1, (uint32_t[]) { 1 },
              (uint32_t[]) { 10000 });
    printf("meter: pktps, rate 1, burst 10000; two threads send 1000 and "
           "30 batches of 32 at once\n");
    for (size_t i = 0; i < ARRAY_SIZE(work); i++) {
        threads[i] = ovs_thread_create("meter-test", thread_main, &work[i]);
    }
    for (size_t i = 0; i < ARRAY_SIZE(work); i++) {
        xpthread_join(threads[i], NULL);
    }

    passed = work[0].passed + work[1].passed;
    dropped = work[0].dropped + work[1].dropped;
    printf("together: %"PRIuSIZE" passed, %"PRIuSIZE" dropped\n",
           passed, dropped);
    check_int("packets passed by both threads", 10000, passed);
    acc.packets_in = passed + dropped;
    acc.bytes_in = acc.packets_in * 64;
    acc.band_packets[0] = dropped;
    acc.band_bytes[0] = dropped * 64;
    check_stats(table, 1, &acc);
    dp_meter_table_destroy(table);
}

/* Configuration: the features, the errors dp_meter_set() reports, a
 * missing meter, replacing and deleting. */
static void
test_config(void)
{
    struct dp_meter_table *table = dp_meter_table_create(2);
    struct ofputil_meter_band_stats band_stats[DP_METER_MAX_BANDS];
    struct ofputil_meter_stats stats = { .bands = band_stats };
    struct ofputil_meter_band bands[DP_METER_MAX_BANDS + 1];
    struct ofputil_meter_config config = {
        .flags = OFPMF13_PKTPS, .n_bands = 1, .bands = bands,
    };
    struct ofputil_meter_features features;
    struct account acc = { 0 };
    uint32_t sizes[4] = { 60, 60, 60, 60 };

    dp_meter_get_features(&features);
    printf("features: max_meters %"PRIu32" band_types %#"PRIx32
           " capabilities %#"PRIx32" max_bands %u max_color %u\n",
           features.max_meters, features.band_types, features.capabilities,
           features.max_bands, features.max_color);

    for (size_t i = 0; i < ARRAY_SIZE(bands); i++) {
        bands[i] = (struct ofputil_meter_band) {
            .type = OFPMBT13_DROP, .rate = 1000, .burst_size = 0,
        };
    }
    check_int("meter id out of range", EFBIG,
              dp_meter_set(table, DP_METER_MAX_METERS, &config));
    config.flags = OFPMF13_PKTPS | 0x100;
    check_int("unknown flag", EBADF, dp_meter_set(table, 1, &config));
    config.flags = OFPMF13_PKTPS;
    config.n_bands = DP_METER_MAX_BANDS + 1;
    check_int("too many bands", EINVAL, dp_meter_set(table, 1, &config));
    config.n_bands = 1;
    bands[0].type = OFPMBT13_DSCP_REMARK;
    check_int("dscp_remark band", ENODEV, dp_meter_set(table, 1, &config));
    bands[0].type = OFPMBT13_DROP;
    bands[0].rate = 0;
    check_int("zero rate", EDOM, dp_meter_set(table, 1, &config));
    bands[0].rate = 2;
    check_int("meter id 1 absent", ENOENT, dp_meter_get(table, 1, NULL, 0));
    printf("set errors: EFBIG EBADF EINVAL ENODEV EDOM as expected\n");

    /* No meter: packets pass and nothing is counted. */
    check_int("packets passed by a missing meter", 4,
              run(table, 0, 0, 4, sizes, &acc, NULL));
    acc = (struct account) { 0 };

    check_int("set meter", 0, dp_meter_set(table, TEST_METER, &config));
    printf("burst size 0 became %"PRIu32"\n", bands[0].burst_size);
    run(table, 1, 0, 4, sizes, &acc, NULL);
    check_stats(table, 1, &acc);

    /* Replacing the meter refills its bucket and zeroes its stats. */
    bands[0].burst_size = 3;
    check_int("replace meter", 0, dp_meter_set(table, TEST_METER, &config));
    acc = (struct account) { 0 };
    run(table, 0, 0, 4, sizes, &acc, NULL);
    check_stats(table, 1, &acc);

    /* Deleting returns the stats; then the meter is gone. */
    memset(&stats, 0, sizeof stats);
    stats.bands = band_stats;
    check_int("delete", 0, dp_meter_del(table, TEST_METER, &stats, 1));
    check_int("stats from delete", acc.packets_in, stats.packet_in_count);
    check_int("band stats from delete", acc.band_packets[0],
              stats.bands[0].packet_count);
    check_int("get after delete", ENOENT,
              dp_meter_get(table, TEST_METER, NULL, 0));
    check_int("delete again", ENOENT,
              dp_meter_del(table, TEST_METER, NULL, 0));
    printf("deleted: stats returned, then ENOENT\n");
    dp_meter_table_destroy(table);
}

int
main(int argc, char *argv[])
{
    static const struct {
        const char *name;
        void (*run)(void);
    } tests[] = {
        { "pktps", test_pktps },
        { "kbps", test_kbps },
        { "bands", test_bands },
        { "threads", test_threads },
        { "config", test_config },
    };

    set_program_name(argv[0]);
    if (argc != 2) {
        ovs_fatal(0, "usage: %s pktps|kbps|bands|threads|config", argv[0]);
    }
    for (size_t i = 0; i < ARRAY_SIZE(tests); i++) {
        if (!strcmp(argv[1], tests[i].name)) {
            tests[i].run();
            return 0;
        }
    }
    ovs_fatal(0, "unknown test %s", argv[1]);
}

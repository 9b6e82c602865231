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

/* meter-benchmark: the cost of lib/dp-meter's meter action per batch of
 * 32 packets, on one thread and on two threads at once sharing one meter
 * or using one meter each, against a baseline in the same process: the
 * same loop through a meter id that does not exist (the clock read and the
 * lookup, no bucket).  A last scenario measures what a per-meter spinlock,
 * as the Linux kernel's meters take, costs by itself when two threads take
 * it for every batch, for comparison with the shared compare-and-swap.
 *
 * The meters have a rate no batch can exceed, so that every batch takes
 * tokens: the worst case for the shared bucket (a meter over its rate
 * writes nothing shared).  The program fails if a packet is dropped.
 *
 * This is a measurement, not a test: run by
 * utilities/benchmark/meter-benchmark.sh. */

#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dp-meter.h"
#include "dp-packet.h"
#include "netdev.h"
#include "openflow/openflow-1.3.h"
#include "openvswitch/ofp-meter.h"
#include "openvswitch/util.h"
#include "ovs-thread.h"
#include "timeval.h"
#include "util.h"

/* Bytes of each packet. */
#define BENCH_PACKET_SIZE 64

/* Meter ids: two meters, and one never set. */
#define BENCH_METER_A 1
#define BENCH_METER_B 2
#define BENCH_METER_NONE 3

/* What one thread of a scenario does. */
enum bench_op {
    BENCH_OP_METER,             /* dp_meter_run() on 'meter_id'. */
    BENCH_OP_SPINLOCK,          /* Take and release a shared spinlock. */
};

struct bench_thread {
    struct dp_meter_table *table;
    enum bench_op op;
    uint32_t meter_id;
    size_t index;               /* Dense thread index. */
    long long int deadline_ms;  /* When to stop. */
    uint64_t n_batches;         /* Batches done. */
    uint64_t n_dropped;         /* Packets the meter dropped: must be 0. */
    long long int elapsed_ns;   /* CPU time the loop took. */
};

/* The spinlock of BENCH_OP_SPINLOCK, standing for a per-meter lock. */
static struct ovs_spin bench_spin;

/* Returns the CPU time the calling thread has used, in ns: unlike the wall
 * clock, it leaves out the time the thread waits for a CPU, which on a
 * shared machine would otherwise be counted as cost. */
static long long int
thread_cpu_ns(void)
{
    struct timespec ts;

    xclock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *
bench_thread_main(void *b_)
{
    struct bench_thread *b = b_;
    struct dp_packet_batch batch;
    long long int start;

    dp_packet_batch_init(&batch);
    for (size_t i = 0; i < NETDEV_MAX_BURST; i++) {
        struct dp_packet *p = dp_packet_new(BENCH_PACKET_SIZE);

        dp_packet_put_zeros(p, BENCH_PACKET_SIZE);
        dp_packet_batch_add(&batch, p);
    }

    start = thread_cpu_ns();
    while (time_msec() < b->deadline_ms) {
        /* Check the deadline once every this many batches. */
        for (int i = 0; i < 1024; i++) {
            long long int now_ns = time_usec() * 1000;

            if (b->op == BENCH_OP_METER) {
                b->n_dropped += dp_meter_run(b->table, b->meter_id, b->index,
                                             &batch, now_ns);
            } else {
                ovs_spin_lock(&bench_spin);
                ovs_spin_unlock(&bench_spin);
            }
        }
        b->n_batches += 1024;
    }
    b->elapsed_ns = thread_cpu_ns() - start;
    dp_packet_delete_batch(&batch, true);
    return NULL;
}

/* Runs 'n' threads described by 'threads' for 'seconds' and returns the
 * mean CPU nanoseconds per batch per thread.  Stores in '*overlap' the
 * threads' CPU time over the wall time: how many of them really ran at
 * once (2.0 for two threads on two free cores), without which the
 * two-thread figures say nothing about contention. */
static double
run_scenario(struct bench_thread threads[], size_t n, int seconds,
             double *overlap)
{
    long long int start = time_usec();
    long long int cpu_ns = 0;
    pthread_t ids[2];
    double ns = 0;

    ovs_assert(n <= ARRAY_SIZE(ids));
    for (size_t i = 0; i < n; i++) {
        threads[i].deadline_ms = time_msec() + seconds * 1000LL;
        ids[i] = ovs_thread_create("meter-bench", bench_thread_main,
                                   &threads[i]);
    }
    for (size_t i = 0; i < n; i++) {
        xpthread_join(ids[i], NULL);
        if (threads[i].n_dropped) {
            ovs_fatal(0, "the meter dropped %"PRIu64" packets: the "
                      "measurement would count drops", threads[i].n_dropped);
        }
        ns += (double) threads[i].elapsed_ns / threads[i].n_batches;
        cpu_ns += threads[i].elapsed_ns;
    }
    *overlap = (double) cpu_ns / ((time_usec() - start) * 1000);
    return ns / n;
}

static void
set_meter(struct dp_meter_table *table, uint32_t meter_id)
{
    /* About 4 Tbps, with a burst of 4 Gbit: no batch exceeds it. */
    struct ofputil_meter_band band = {
        .type = OFPMBT13_DROP, .rate = UINT32_MAX, .burst_size = UINT32_MAX,
    };
    struct ofputil_meter_config config = {
        .flags = OFPMF13_KBPS | OFPMF13_BURST | OFPMF13_STATS,
        .n_bands = 1,
        .bands = &band,
    };

    ovs_assert(!dp_meter_set(table, meter_id, &config));
}

/* Initializer of a 'struct bench_thread' of 'table' in main(). */
#define BENCH_THREAD(OP, METER_ID, INDEX) \
    { .table = table, .op = OP, .meter_id = METER_ID, .index = INDEX }

static void
report(const char *name, double ns, double baseline, double overlap)
{
    printf("%-44s %7.1f ns/batch %6.2f ns/packet  x%.2f  overlap %.2f\n",
           name, ns, ns / NETDEV_MAX_BURST, ns / baseline, overlap);
}

int
main(int argc, char *argv[])
{
    struct dp_meter_table *table = dp_meter_table_create(3);
    int seconds = 2;
    double base, ns, overlap;

    set_program_name(argv[0]);
    for (;;) {
        static const struct option options[] = {
            { "seconds", required_argument, NULL, 's' },
            { NULL, 0, NULL, 0 },
        };
        int c = getopt_long(argc, argv, "", options, NULL);

        if (c == -1) {
            break;
        } else if (c == 's') {
            seconds = atoi(optarg);
        } else {
            ovs_fatal(0, "usage: %s [--seconds=N]", argv[0]);
        }
    }
    ovs_spin_init(&bench_spin);
    set_meter(table, BENCH_METER_A);
    set_meter(table, BENCH_METER_B);

    printf("batches of %d packets of %d bytes, %d s per scenario; x = ratio "
           "to the baseline;\noverlap = threads' CPU time / wall time, 2.00 "
           "when two threads really ran at once\n",
           NETDEV_MAX_BURST, BENCH_PACKET_SIZE, seconds);
    base = run_scenario((struct bench_thread[]) {
        BENCH_THREAD(BENCH_OP_METER, BENCH_METER_NONE, 1) },
        1, seconds, &overlap);
    report("baseline: clock read + lookup, no meter", base, base, overlap);

    ns = run_scenario((struct bench_thread[]) {
        BENCH_THREAD(BENCH_OP_METER, BENCH_METER_A, 1) },
        1, seconds, &overlap);
    report("1 thread, 1 meter", ns, base, overlap);

    ns = run_scenario((struct bench_thread[]) {
        BENCH_THREAD(BENCH_OP_METER, BENCH_METER_A, 1),
        BENCH_THREAD(BENCH_OP_METER, BENCH_METER_B, 2) },
        2, seconds, &overlap);
    report("2 threads, 1 meter each", ns, base, overlap);

    ns = run_scenario((struct bench_thread[]) {
        BENCH_THREAD(BENCH_OP_METER, BENCH_METER_A, 1),
        BENCH_THREAD(BENCH_OP_METER, BENCH_METER_A, 2) },
        2, seconds, &overlap);
    report("2 threads, 1 shared meter (CAS)", ns, base, overlap);

    ns = run_scenario((struct bench_thread[]) {
        BENCH_THREAD(BENCH_OP_SPINLOCK, 0, 1),
        BENCH_THREAD(BENCH_OP_SPINLOCK, 0, 2) }, 2, seconds, &overlap);
    report("2 threads, shared spinlock alone, no meter", ns, base, overlap);

    dp_meter_table_destroy(table);
    return 0;
}

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

/* A stress test of the userspace datapath's flow statistics,
 * lib/flow/flow-stats.c, run by tests/percpu-flow-stats.at: N writer
 * threads hit one megaflow's statistics H times each, each as its PMD
 * thread would (thread index 1 + its number, so its own slot; slot 0 is
 * the main thread's, as in the datapath; thread 1 installed the flow and
 * has its slot from the start), while the main thread reads the total and
 * every slot all the while.
 *
 * Usage: test-flow-stats [-n WRITERS] [-h HITS] [-r ROUNDS] CASE
 *
 *   percpu    every thread counts in its own slot.
 *   fallback  slot allocations fail (flow_stats_set_alloc_failure()): the
 *             installer counts in the slot that came with the flow, every
 *             other thread in slot 0, under its lock.
 *   shared    the benchmark's mode (flow_stats_set_shared_locked()): every
 *             thread counts in slot 0, under its lock.
 *   clear     the reader clears the flow over and over while the writers
 *             run; then, the writers stopped, clears it and has each thread
 *             count HITS / 1000 more.
 *
 * While the writers run, every read is checked: no total and no slot lower
 * than the read before it (in 'clear', since the last clear), none above the
 * hits made (in 'clear', above the hits made since the clear began), no slot
 * with another thread's TCP flags.  Once the writers stop, the totals and
 * every slot must be exact; they are printed.  The first check that fails
 * prints "FAIL:" and exits 1.
 *
 * Each round (5 by default) takes a new flow, and must end as the first
 * did.  The writers are pinned to the usable cores in turn, so that two of
 * them run on two cores at once wherever there are two. */

#include <config.h>

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dpif.h"
#include "flow-stats.h"
#include "flow-stats-reader.h"
#include "slot-pool.h"
#include "test-harness.h"
#include "util.h"

/* What every hit counts: one packet of HIT_LEN bytes.  Writer w's hits
 * carry TCP flag bit w, so that a slot's flags say whose hits it holds. */
#define HIT_LEN 100
#define MAX_WRITERS 12

/* The writers wait for the reader at each 1/PACE_STEPS of their hits, so
 * that their hits and its reads interleave however the threads are
 * scheduled: by the end, the reader has read (or cleared) at least
 * PACE_STEPS times while they were writing. */
#define PACE_STEPS 64

/* One writer thread, alone on its cache line since the reader reads 'done'
 * all the while. */
struct writer {
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        pthread_t thread;
        unsigned int number;        /* 0 to n_writers - 1. */
        unsigned long long hits;    /* Hits to make. */
        unsigned long long done;    /* Hits made so far (seq_cst store
                                     * after each hit's update). */
    );
};

static struct writer writers[MAX_WRITERS];
static unsigned long long reader_rounds;    /* Reads (or clears) so far. */
static unsigned int n_writers = 4;
static struct flow_stats *stats;
static pthread_barrier_t start;
static const char *test_case;
static FILE *out;               /* Where a round's results go. */

/* The cores the writers are pinned to in turn. */
static int cores[CPU_SETSIZE];
static int n_cores;

/* The slot (thread index) writer 'w' is, as a PMD thread: slot 0 is the
 * main thread's. */
static size_t
index_of(unsigned int w)
{
    return w + 1;
}

/* The thread index that installed the flow: its slot comes with it. */
#define INSTALLER 1

static uint16_t
writer_flag(unsigned int w)
{
    return 1u << w;
}

static void *
writer_main(void *w_)
{
    struct writer *w = w_;
    unsigned long long step = MAX(w->hits / PACE_STEPS, 1);

    if (n_cores > 1) {
        cpu_set_t set;

        CPU_ZERO(&set);
        CPU_SET(cores[w->number % n_cores], &set);
        pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
    pthread_barrier_wait(&start);
    for (unsigned long long i = 1; i <= w->hits; i++) {
        if (i % step == 0) {
            while (__atomic_load_n(&reader_rounds, __ATOMIC_RELAXED)
                   < i / step) {
                sched_yield();
            }
        }
        flow_stats_update(stats, index_of(w->number), 1, HIT_LEN,
                          writer_flag(w->number), i);
        __atomic_store_n(&w->done, i, __ATOMIC_SEQ_CST);
    }
    return NULL;
}

/* Starts the writers, each to make 'hits' hits, once the caller too waits
 * on 'start'. */
static void
writers_start(unsigned long long hits)
{
    __atomic_store_n(&reader_rounds, 0, __ATOMIC_RELAXED);
    pthread_barrier_init(&start, NULL, n_writers + 1);
    for (unsigned int i = 0; i < n_writers; i++) {
        struct writer *w = &writers[i];

        w->number = i;
        w->hits = hits;
        __atomic_store_n(&w->done, 0, __ATOMIC_RELAXED);
        if (pthread_create(&w->thread, NULL, writer_main, w)) {
            test_fail("cannot create a thread");
        }
    }
}

static void
writers_join(void)
{
    for (unsigned int i = 0; i < n_writers; i++) {
        pthread_join(writers[i].thread, NULL);
    }
    pthread_barrier_destroy(&start);
}

/* Hits writer 'i' has made. */
static unsigned long long
done(unsigned int i)
{
    return __atomic_load_n(&writers[i].done, __ATOMIC_SEQ_CST);
}

/* Where writer 'w' counts in 'test_case': the slot of its thread index, or
 * slot 0. */
static size_t
slot_of(unsigned int w)
{
    if (!strcmp(test_case, "shared")
        || (!strcmp(test_case, "fallback") && index_of(w) != INSTALLER)) {
        return 0;
    }
    return index_of(w);
}

/* Reads the total into 'info', as the flow's other slot readers do. */
static void
read_total(struct flow_stats_slot_info *info)
{
    struct dpif_flow_stats total;

    flow_stats_get(stats, &total);
    *info = (struct flow_stats_slot_info) {
        .n_packets = total.n_packets,
        .n_bytes = total.n_bytes,
        .used = total.used,
        .tcp_flags = total.tcp_flags,
    };
}

/* The reader's view of the flow and the writers (flow-stats-reader.h). */
static void
reader_read_total(struct fsr_read *read)
{
    struct flow_stats_slot_info info;

    read_total(&info);
    *read = (struct fsr_read) {
        .n_packets = info.n_packets,
        .n_bytes = info.n_bytes,
        .tcp_flags = info.tcp_flags,
    };
}

static void
reader_read_slot(unsigned int slot, struct fsr_read *read)
{
    struct flow_stats_slot_info info;

    flow_stats_get_slot(stats, slot, &info);
    *read = (struct fsr_read) {
        .n_packets = info.n_packets,
        .n_bytes = info.n_bytes,
        .tcp_flags = info.tcp_flags,
    };
}

static void
reader_clear(void)
{
    flow_stats_clear(stats);
}

static unsigned int
reader_slot_of(unsigned int w)
{
    return slot_of(w);
}

static void
reader_fail(const char *message)
{
    test_fail("%s: %s", test_case, message);
}

static struct fsr_reader
reader_create(void)
{
    return (struct fsr_reader) {
        .n_writers = n_writers,
        .n_slots = n_writers + 1,
        .hit_len = HIT_LEN,
        .read_total = reader_read_total,
        .read_slot = reader_read_slot,
        .clear = reader_clear,
        .slot_of = reader_slot_of,
        .flag_of = writer_flag,
        .done = done,
        .fail = reader_fail,
        .rounds = &reader_rounds,
    };
}

static void
print_info(const char *what, const struct flow_stats_slot_info *info)
{
    fprintf(out, "%s: packets:%"PRIu64" bytes:%"PRIu64" tcp_flags:%#x "
            "used:%s\n", what, info->n_packets, info->n_bytes,
            info->tcp_flags, info->used ? "yes" : "no");
}

/* Prints the total and each slot, or "none" for a slot never allocated. */
static void
print_slots(void)
{
    struct flow_stats_slot_info info;

    read_total(&info);
    print_info("total", &info);
    for (size_t slot = 0; slot <= n_writers; slot++) {
        char what[32];

        snprintf(what, sizeof what, "slot %"PRIuSIZE, slot);
        if (flow_stats_get_slot(stats, slot, &info)) {
            print_info(what, &info);
        } else {
            fprintf(out, "%s: none\n", what);
        }
    }
}

/* Writers and a reader: 'percpu', 'fallback' and 'shared'. */
static void
test_count(unsigned long long hits)
{
    struct fsr_reader reader = reader_create();
    unsigned long long reads;

    writers_start(hits);
    pthread_barrier_wait(&start);
    reads = fsr_read_while_writing(&reader, hits);
    writers_join();
    if (reads < PACE_STEPS) {
        test_fail("%s: only %llu reads while the writers ran", test_case,
                  reads);
    }
    print_slots();
}

/* Clears racing the writers, then a clear and a count after them. */
static void
test_clear(unsigned long long hits)
{
    struct fsr_reader reader = reader_create();
    unsigned long long clears, more = hits / 1000;

    writers_start(hits);
    pthread_barrier_wait(&start);
    clears = fsr_clear_while_writing(&reader, hits);
    writers_join();
    if (clears < PACE_STEPS) {
        test_fail("%s: only %llu clears while the writers ran", test_case,
                  clears);
    }

    flow_stats_clear(stats);
    fprintf(out, "after a clear:\n");
    print_slots();
    writers_start(more);
    pthread_barrier_wait(&start);
    while (fsr_writers_running(&reader, more)) {
        __atomic_fetch_add(&reader_rounds, 1, __ATOMIC_RELAXED);
        sched_yield();
    }
    writers_join();
    fprintf(out, "after %llu more hits per thread:\n", more);
    print_slots();
}

/* Runs one round of the test case on a new flow, whose stats come from
 * pools of their own as a flow table's do; returns what it printed. */
static char *
run_round(unsigned long long hits)
{
    size_t n_slots = n_writers + 1;
    struct slot_pools *pools = slot_pools_create(n_slots);
    char *text;
    size_t size;

    stats = xzalloc_cacheline(flow_stats_size(n_slots));
    flow_stats_init(stats, n_slots, pools, INSTALLER);
    slot_pools_unref(pools);

    flow_stats_set_alloc_failure(!strcmp(test_case, "fallback"));
    flow_stats_set_shared_locked(!strcmp(test_case, "shared"));
    out = open_memstream(&text, &size);
    if (!strcmp(test_case, "clear")) {
        test_clear(hits);
    } else {
        test_count(hits);
    }
    fclose(out);
    flow_stats_set_alloc_failure(false);
    flow_stats_set_shared_locked(false);

    /* No writer is left: the slots can go back at once. */
    flow_stats_uninit(stats);
    free_cacheline(stats);
    return text;
}

static void
usage(void)
{
    test_fail("usage: test-flow-stats [-n WRITERS] [-h HITS] [-r ROUNDS] "
              "percpu|fallback|shared|clear");
}

int
main(int argc, char *argv[])
{
    unsigned long long hits = 1000000;
    int rounds = 5;
    char *first;
    cpu_set_t set;
    int opt;

    set_program_name(argv[0]);
    while ((opt = getopt(argc, argv, "n:h:r:")) != -1) {
        switch (opt) {
        case 'n':
            n_writers = atoi(optarg);
            break;
        case 'h':
            hits = strtoull(optarg, NULL, 10);
            break;
        case 'r':
            rounds = atoi(optarg);
            break;
        default:
            usage();
        }
    }
    if (optind != argc - 1 || n_writers < 2 || n_writers > MAX_WRITERS
        || hits < 1000 || rounds < 1) {
        usage();
    }
    test_case = argv[optind];
    if (strcmp(test_case, "percpu") && strcmp(test_case, "fallback")
        && strcmp(test_case, "shared") && strcmp(test_case, "clear")) {
        usage();
    }

    if (!sched_getaffinity(0, sizeof set, &set)) {
        for (int core = 0; core < CPU_SETSIZE; core++) {
            if (CPU_ISSET(core, &set)) {
                cores[n_cores++] = core;
            }
        }
    }

    printf("%u writers x %llu hits, %d rounds\n", n_writers, hits, rounds);
    first = run_round(hits);
    fputs(first, stdout);
    for (int round = 2; round <= rounds; round++) {
        char *text = run_round(hits);

        if (strcmp(text, first)) {
            test_fail("%s: round %d ended otherwise:\n%s", test_case, round,
                      text);
        }
        free(text);
    }
    free(first);
    return 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stress test of the kernel module's flow statistics, datapath/flow-stats.c
 * compiled unchanged against utilities/benchmark/kernel-shim.h and run on
 * the host's threads: N writer threads, each a CPU of its own to the code,
 * hit one flow H times each while the main thread reads the flow's total
 * and each CPU's slot all the while.  GPL-2.0, as it links that file.
 *
 * Usage: test-kernel-flow-stats [-n WRITERS] [-h HITS] [-r ROUNDS] CASE
 *
 *   percpu    every CPU counts in its own slot.
 *   fallback  the slot allocations of the odd CPUs fail: their hits go to
 *             slot 0, while CPU 0 counts there too.
 *   one-slot  the ablation switch: every CPU counts in slot 0.
 *   clear     the reader clears the flow over and over while the writers
 *             run; then, the writers stopped, clears it and has each CPU
 *             count HITS / 1000 more.
 *
 * While the writers run, every read is checked: no total and no slot lower
 * than the read before it (in 'clear', since the last clear), none above the
 * hits made (in 'clear', above the hits made since the clear began), and no
 * slot with another CPU's TCP flags.  Built with KSHIM_U64_STATS_SEQCOUNT
 * (u64_stats_sync as on 32-bit kernels, test-kernel-flow-stats-seqcount),
 * every read is also checked whole: bytes exactly HIT_LEN times packets.
 * Once the writers stop, the totals and every slot must be exact; they are
 * printed, and the program exits 1 at the first check that fails.
 *
 * Each round (5 by default) takes a new flow, and must end as the first
 * did.  The writers are pinned to the usable cores in turn, so that CPU 0
 * and CPU 1 run on two cores at once wherever there are two.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel-shim.h"
#include "flow-stats.h"
#include "flow-stats-reader.h"

/* What every hit counts.  CPU c's hits carry TCP flag bit c. */
#define HIT_LEN 100
#define MAX_WRITERS 16

#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* module_param()'s setter (kernel-shim.h). */
void kshim_set_param_flow_stats_one_slot(bool);

/* One writer thread, alone on its cache line since the reader reads 'done'
 * all the while. */
struct writer {
    pthread_t thread;
    unsigned int cpu;           /* Its CPU id. */
    unsigned long long hits;    /* Hits to make. */
    unsigned long long done;    /* Hits made so far (release store). */
} __attribute__((__aligned__(KSHIM_CACHE_LINE)));

/* The writers wait for the reader at each 1/PACE_STEPS of their hits, so
 * that their hits and its reads interleave however the threads are
 * scheduled: by the end, the reader has read (or cleared) at least
 * PACE_STEPS times while they were writing. */
#define PACE_STEPS 64

static struct writer writers[MAX_WRITERS];
static unsigned long long reader_rounds;    /* Reads (or clears) so far. */
static unsigned int n_writers = 4;
static struct ovsp_flow_stats *stats;
static pthread_barrier_t start;
static const char *test_case;
static FILE *out;               /* Where a round's results go. */

/* The cores the writers are pinned to in turn. */
static int cores[CPU_SETSIZE];
static int n_cores;

static void __attribute__((__format__(printf, 1, 2), __noreturn__))
fail(const char *format, ...)
{
    va_list args;

    fprintf(stderr, "%s: ", test_case);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    exit(1);
}

static __be16
cpu_flag(unsigned int cpu)
{
    return 1u << cpu;
}

static void *
writer_main(void *w_)
{
    struct writer *w = w_;

    unsigned long long step = MAX(w->hits / PACE_STEPS, 1);

    if (n_cores > 1) {
        cpu_set_t set;

        CPU_ZERO(&set);
        CPU_SET(cores[w->cpu % n_cores], &set);
        pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
    kshim_set_cpu(w->cpu);
    pthread_barrier_wait(&start);
    for (unsigned long long i = 1; i <= w->hits; i++) {
        if (i % step == 0) {
            while (__atomic_load_n(&reader_rounds, __ATOMIC_RELAXED)
                   < i / step) {
                sched_yield();
            }
        }
        ovsp_flow_stats_update(stats, cpu_flag(w->cpu), HIT_LEN);
        __atomic_store_n(&w->done, i, __ATOMIC_RELEASE);
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

        w->cpu = i;
        w->hits = hits;
        __atomic_store_n(&w->done, 0, __ATOMIC_RELAXED);
        if (pthread_create(&w->thread, NULL, writer_main, w)) {
            fail("cannot create a thread");
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
    return __atomic_load_n(&writers[i].done, __ATOMIC_ACQUIRE);
}

/* Where CPU 'cpu' counts in 'test_case': its own slot, or slot 0. */
static unsigned int
slot_of(unsigned int cpu)
{
    if (!strcmp(test_case, "one-slot")
        || (!strcmp(test_case, "fallback") && cpu % 2)) {
        return 0;
    }
    return cpu;
}

/* The reader's view of the flow and the writers (flow-stats-reader.h). */
static void
reader_read(const struct ovsp_flow_stats_info *info, struct fsr_read *read)
{
    *read = (struct fsr_read) {
        .n_packets = info->n_packets,
        .n_bytes = info->n_bytes,
        .tcp_flags = info->tcp_flags,
    };
}

static void
reader_read_total(struct fsr_read *read)
{
    struct ovsp_flow_stats_info info;

    ovsp_flow_stats_get(stats, &info);
    reader_read(&info, read);
}

static void
reader_read_slot(unsigned int slot, struct fsr_read *read)
{
    struct ovsp_flow_stats_info info;

    ovsp_flow_stats_get_slot(stats, slot, &info);
    reader_read(&info, read);
}

static void
reader_clear(void)
{
    ovsp_flow_stats_clear(stats);
}

static uint16_t
reader_flag_of(unsigned int cpu)
{
    return cpu_flag(cpu);
}

static void
reader_fail(const char *message)
{
    fail("%s", message);
}

static struct fsr_reader
reader_create(void)
{
    return (struct fsr_reader) {
        .n_writers = n_writers,
        .n_slots = n_writers,
#ifdef KSHIM_U64_STATS_SEQCOUNT
        .whole = true,
#endif
        .hit_len = HIT_LEN,
        .read_total = reader_read_total,
        .read_slot = reader_read_slot,
        .clear = reader_clear,
        .slot_of = slot_of,
        .flag_of = reader_flag_of,
        .done = done,
        .fail = reader_fail,
        .rounds = &reader_rounds,
    };
}

static void
print_info(const char *what, const struct ovsp_flow_stats_info *info)
{
    fprintf(out, "%s: packets:%llu bytes:%llu tcp_flags:%#x used:%s\n", what,
           (unsigned long long) info->n_packets,
           (unsigned long long) info->n_bytes, info->tcp_flags,
           info->used ? "yes" : "no");
}

/* Prints the total and each slot (or "none" if it has none), with the
 * slot allocations that failed since 'failures_before'. */
static void
print_slots(u64 failures_before)
{
    struct ovsp_flow_stats_info info;

    ovsp_flow_stats_get(stats, &info);
    print_info("total", &info);
    for (unsigned int slot = 0; slot < n_writers; slot++) {
        char what[32];

        snprintf(what, sizeof what, "slot %u", slot);
        if (ovsp_flow_stats_get_slot(stats, slot, &info)) {
            print_info(what, &info);
        } else {
            fprintf(out, "%s: none\n", what);
        }
    }
    fprintf(out, "allocation failures: %llu\n",
           (unsigned long long) (ovsp_flow_stats_alloc_failures()
                                 - failures_before));
}

/* Writers and a reader: 'percpu', 'fallback' and 'one-slot'. */
static void
test_count(unsigned long long hits)
{
    u64 failures = ovsp_flow_stats_alloc_failures();
    struct fsr_reader reader = reader_create();
    unsigned long long reads;

    for (unsigned int cpu = 0; cpu < n_writers; cpu++) {
        kshim_fail_nowait_alloc(cpu, slot_of(cpu) != cpu);
    }
    kshim_set_param_flow_stats_one_slot(!strcmp(test_case, "one-slot"));
    writers_start(hits);
    pthread_barrier_wait(&start);
    reads = fsr_read_while_writing(&reader, hits);
    writers_join();
    if (reads < PACE_STEPS) {
        fail("only %llu reads while the writers ran", reads);
    }
    print_slots(failures);
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
        fail("only %llu clears while the writers ran", clears);
    }

    ovsp_flow_stats_clear(stats);
    fprintf(out, "after a clear:\n");
    print_slots(ovsp_flow_stats_alloc_failures());
    writers_start(more);
    pthread_barrier_wait(&start);
    while (fsr_writers_running(&reader, more)) {
        __atomic_fetch_add(&reader_rounds, 1, __ATOMIC_RELAXED);
        sched_yield();
    }
    writers_join();
    fprintf(out, "after %llu more hits per CPU:\n", more);
    print_slots(ovsp_flow_stats_alloc_failures());
}

static void
usage(void)
{
    printf("usage: test-kernel-flow-stats [-n WRITERS] [-h HITS] [-r ROUNDS] "
           "percpu|fallback|one-slot|clear\n");
}

/* Runs one round of the test case on a new flow; returns what it
 * printed. */
static char *
run_round(unsigned long long hits)
{
    char *text;
    size_t size;

    stats = ovsp_flow_stats_alloc();
    if (!stats) {
        fail("cannot allocate a flow's stats");
    }
    out = open_memstream(&text, &size);
    if (!strcmp(test_case, "clear")) {
        test_clear(hits);
    } else {
        test_count(hits);
    }
    fclose(out);
    ovsp_flow_stats_free(stats);
    return text;
}

int
main(int argc, char *argv[])
{
    unsigned long long hits = 1000000;
    int rounds = 5;
    char *first;
    cpu_set_t set;
    int opt;

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
            return 1;
        }
    }
    if (optind != argc - 1 || n_writers < 2 || n_writers > MAX_WRITERS
        || hits < 1000 || rounds < 1) {
        usage();
        return 1;
    }
    test_case = argv[optind];
    if (strcmp(test_case, "percpu") && strcmp(test_case, "fallback")
        && strcmp(test_case, "one-slot") && strcmp(test_case, "clear")) {
        usage();
        return 1;
    }

    if (!sched_getaffinity(0, sizeof set, &set)) {
        for (int core = 0; core < CPU_SETSIZE; core++) {
            if (CPU_ISSET(core, &set)) {
                cores[n_cores++] = core;
            }
        }
    }
    kshim_nr_cpu_ids = n_writers;
    if (ovsp_flow_stats_init()) {
        fail("cannot create the slab caches");
    }

    printf("%u writers x %llu hits, %d rounds\n", n_writers, hits, rounds);
    first = run_round(hits);
    fputs(first, stdout);
    for (int round = 2; round <= rounds; round++) {
        char *text = run_round(hits);

        if (strcmp(text, first)) {
            fprintf(stderr, "%s: round %d ended otherwise:\n%s", test_case,
                    round, text);
            return 1;
        }
        free(text);
    }
    free(first);
    ovsp_flow_stats_exit();
    return 0;
}

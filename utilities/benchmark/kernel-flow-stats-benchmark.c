/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel-flow-stats-benchmark: the kernel module's flow-stats update path
 * (datapath/flow-stats.c, compiled unchanged against kernel-shim.h) on the
 * host's real cores, where the qemu/TCG guest cannot show cache-line
 * effects.  One flow is hit by a thread pinned to each core, every thread
 * a CPU of its own to the code, and the program prints the hits per second
 * and the CPU time per hit of each variant, on one core and on all, and
 * their ratios:
 *
 *   lock-free  the work tree's file: each CPU adds to its own slot with
 *              plain stores;
 *   locked     an older commit's file, if the build script linked it (the
 *              per-CPU slots as Linux's: each under its own spinlock,
 *              which its owner takes for every hit);
 *   one-slot   the work tree's file with flow_stats_one_slot set: every CPU
 *              adds to one slot under one lock (the ablation switch).
 *
 * Each round runs every variant once, in an order that rotates from round
 * to round; the figures are medians over the rounds.  The CPU time is the
 * threads' own (CLOCK_THREAD_CPUTIME_ID), which other processes on a busy
 * machine do not inflate as they do the wall-clock rate; how many threads
 * ran at once on average says how much they could contend.  Every run
 * checks that the flow counted every hit its threads made.
 *
 * This is a measurement, not a test: run by
 * utilities/benchmark/kernel-flow-stats-benchmark.sh, which builds it.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kernel-shim.h"
#include "kernel-benchmark-common.h"
#include "flow-stats.h"
#include "kernel-flow-stats-variant.h"

/* The builds the script linked: the work tree's always, the older one if
 * it could be built. */
extern const struct kfs_variant new_kfs_variant;
extern const struct kfs_variant old_kfs_variant __attribute__((__weak__));

/* What every hit counts: a 64-byte frame with TCP's ACK flag. */
#define HIT_LEN 64
#define HIT_TCP_FLAGS 0x10

/* Hits each thread makes before the clock starts: its first hit allocates
 * its slot. */
#define WARMUP_HITS 1000

/* Hits between two looks at the stop flag. */
#define HITS_PER_LOOK 1024

/* One variant as measured. */
struct variant {
    const char *name;           /* As printed. */
    const struct kfs_variant *kfs;  /* The build. */
    bool one_slot;              /* The module parameter's value. */
};

/* One thread of a run. */
struct worker {
    pthread_t thread;
    unsigned int cpu;           /* Its CPU id, 0 to n - 1. */
    int core;                   /* The core it is pinned to. */
    const struct kfs_variant *kfs;
    struct ovsp_flow_stats *stats;
    pthread_barrier_t *start;
    unsigned long long hits;    /* Timed hits made. */
    double seconds;             /* Time they took. */
    double cpu_seconds;         /* CPU time the thread used for them. */
};

/* What one run measured. */
struct result {
    double mpps;                /* Millions of hits per second of wall
                                 * time, all threads together. */
    double cpu_ns;              /* Nanoseconds of CPU time per hit. */
    double parallelism;         /* CPU time over wall time: how many of
                                 * the threads ran at once, on average. */
};

static bool stop;               /* Set to end a run. */

static double
now_seconds(void)
{
    return kbench_clock_seconds(CLOCK_MONOTONIC);
}

static void *
worker_main(void *w_)
{
    struct worker *w = w_;
    unsigned long long hits = 0;
    double start, cpu_start;

    kbench_pin(w->core);
    kshim_set_cpu(w->cpu);
    for (int i = 0; i < WARMUP_HITS; i++) {
        w->kfs->update(w->stats, HIT_TCP_FLAGS, HIT_LEN);
    }
    pthread_barrier_wait(w->start);

    start = now_seconds();
    cpu_start = kbench_clock_seconds(CLOCK_THREAD_CPUTIME_ID);
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        for (int i = 0; i < HITS_PER_LOOK; i++) {
            w->kfs->update(w->stats, HIT_TCP_FLAGS, HIT_LEN);
        }
        hits += HITS_PER_LOOK;
    }
    w->seconds = now_seconds() - start;
    w->cpu_seconds = (kbench_clock_seconds(CLOCK_THREAD_CPUTIME_ID)
                      - cpu_start);
    w->hits = hits;
    return NULL;
}

/* Runs 'v' for 'seconds' on the first 'n' of 'cores'. */
static struct result
run(const struct variant *v, const int *cores, unsigned int n,
    double seconds)
{
    struct worker workers[KSHIM_NR_CPUS];
    struct ovsp_flow_stats_info info;
    unsigned long long total = 0;
    struct timespec tick = { 0, 1000000000L / HZ };
    double cpu_seconds = 0, wall_seconds = 0, end;
    struct result result = { 0, 0, 0 };
    unsigned long long timed = 0;
    pthread_barrier_t start;

    v->kfs->set_one_slot(v->one_slot);
    struct ovsp_flow_stats *stats = v->kfs->alloc();
    if (!stats) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    __atomic_store_n(&stop, false, __ATOMIC_RELAXED);
    pthread_barrier_init(&start, NULL, n + 1);
    for (unsigned int i = 0; i < n; i++) {
        struct worker *w = &workers[i];

        *w = (struct worker) {
            .cpu = i, .core = cores[i], .kfs = v->kfs, .stats = stats,
            .start = &start,
        };
        if (pthread_create(&w->thread, NULL, worker_main, w)) {
            fprintf(stderr, "cannot create a thread\n");
            exit(1);
        }
    }
    pthread_barrier_wait(&start);

    /* The timer tick: jiffies advance at HZ while the threads run. */
    end = now_seconds() + seconds;
    while (now_seconds() < end) {
        nanosleep(&tick, NULL);
        __atomic_fetch_add(&kshim_jiffies, 1, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&stop, true, __ATOMIC_RELAXED);

    for (unsigned int i = 0; i < n; i++) {
        struct worker *w = &workers[i];

        pthread_join(w->thread, NULL);
        result.mpps += w->hits / w->seconds / 1e6;
        timed += w->hits;
        cpu_seconds += w->cpu_seconds;
        wall_seconds = w->seconds > wall_seconds ? w->seconds : wall_seconds;
        total += w->hits + WARMUP_HITS;
    }
    result.cpu_ns = cpu_seconds * 1e9 / timed;
    result.parallelism = cpu_seconds / wall_seconds;
    pthread_barrier_destroy(&start);

    v->kfs->get(stats, &info);
    if (info.n_packets != total || info.n_bytes != total * HIT_LEN) {
        fprintf(stderr, "%s on %u cores: %llu packets and %llu bytes "
                "counted, %llu hits made\n", v->name, n,
                (unsigned long long) info.n_packets,
                (unsigned long long) info.n_bytes, total);
        exit(1);
    }
    v->kfs->free(stats);
    return result;
}

static void
usage(void)
{
    printf("usage: kernel-flow-stats-benchmark [-r ROUNDS] [-s SECONDS] "
           "[-c CORES]\n"
           "  -r  rounds, each running every variant once (default 5)\n"
           "  -s  seconds per run (default 1)\n"
           "  -c  how many of the usable cores to use (default all)\n");
}

int
main(int argc, char *argv[])
{
    enum { MAX_VARIANTS = 3, MAX_ROUNDS = 100 };
    struct variant variants[MAX_VARIANTS];
    int n_variants = 0;
    int rounds = 5;
    double seconds = 1;
    unsigned int n_cores = 0, max_cores = 0;
    int cores[KSHIM_NR_CPUS];
    int opt;

    while ((opt = getopt(argc, argv, "r:s:c:h")) != -1) {
        switch (opt) {
        case 'r':
            rounds = atoi(optarg);
            break;
        case 's':
            seconds = atof(optarg);
            break;
        case 'c':
            n_cores = atoi(optarg);
            break;
        default:
            usage();
            return opt == 'h' ? 0 : 1;
        }
    }
    if (rounds < 1 || rounds > MAX_ROUNDS || seconds <= 0) {
        usage();
        return 1;
    }

    max_cores = kbench_usable_cores(cores, KSHIM_NR_CPUS);
    if (!n_cores || n_cores > max_cores) {
        n_cores = max_cores;
    }
    kshim_nr_cpu_ids = n_cores;

    variants[n_variants++] = (struct variant) {
        "lock-free", &new_kfs_variant, false
    };
    if (&old_kfs_variant) {
        variants[n_variants++] = (struct variant) {
            "locked", &old_kfs_variant, false
        };
    }
    variants[n_variants++] = (struct variant) {
        "one-slot", &new_kfs_variant, true
    };
    if (new_kfs_variant.init()
        || (&old_kfs_variant && old_kfs_variant.init())) {
        fprintf(stderr, "cannot create the slab caches\n");
        return 1;
    }

    printf("One flow, %d-byte hits; %d rounds of %.1f s per variant, on 1 "
           "core and on %u (cores", HIT_LEN, rounds, seconds, n_cores);
    for (unsigned int i = 0; i < n_cores; i++) {
        printf(" %d", cores[i]);
    }
    printf(").\n\n");

    /* Per variant, on one core [0] and on all [1], per round. */
    static double mpps[MAX_VARIANTS][2][MAX_ROUNDS];
    static double cpu_ns[MAX_VARIANTS][2][MAX_ROUNDS];
    static double parallelism[MAX_VARIANTS * MAX_ROUNDS];
    double med_mpps[MAX_VARIANTS][2], med_ns[MAX_VARIANTS][2];
    int n_parallelism = 0;

    for (int r = 0; r < rounds; r++) {
        printf("round %d:", r + 1);
        for (int k = 0; k < n_variants; k++) {
            int i = (k + r) % n_variants;

            for (int all = 0; all < 2; all++) {
                struct result res = run(&variants[i], cores,
                                        all ? n_cores : 1, seconds);

                mpps[i][all][r] = res.mpps;
                cpu_ns[i][all][r] = res.cpu_ns;
                if (all) {
                    parallelism[n_parallelism++] = res.parallelism;
                }
            }
            printf(" %s %.1f/%.1f", variants[i].name, mpps[i][0][r],
                   mpps[i][1][r]);
        }
        printf(" Mpps\n");
        fflush(stdout);
    }

    printf("\n%-10s %28s %28s\n", "", "on 1 core", "on all cores");
    printf("%-10s %14s %13s %14s %13s\n", "variant", "Mpps",
           "CPU ns/hit", "Mpps", "CPU ns/hit");
    for (int i = 0; i < n_variants; i++) {
        for (int all = 0; all < 2; all++) {
            med_mpps[i][all] = kbench_median(mpps[i][all], rounds);
            med_ns[i][all] = kbench_median(cpu_ns[i][all], rounds);
        }
        printf("%-10s %14.1f %13.2f %14.1f %13.2f\n", variants[i].name,
               med_mpps[i][0], med_ns[i][0], med_mpps[i][1], med_ns[i][1]);
    }
    printf("(medians; on all cores, the threads ran %.2f at a time of %u, "
           "median over the runs)\n",
           kbench_median(parallelism, n_parallelism), n_cores);

    printf("\nratios of the medians, Mpps and CPU time per hit, "
           "on 1 core | on %u cores:\n", n_cores);
    for (int a = 0; a < n_variants; a++) {
        for (int b = a + 1; b < n_variants; b++) {
            printf("  %s / %s: %.2f %.2f | %.2f %.2f\n", variants[a].name,
                   variants[b].name, med_mpps[a][0] / med_mpps[b][0],
                   med_ns[b][0] / med_ns[a][0],
                   med_mpps[a][1] / med_mpps[b][1],
                   med_ns[b][1] / med_ns[a][1]);
        }
    }

    new_kfs_variant.exit();
    if (&old_kfs_variant) {
        old_kfs_variant.exit();
    }
    return 0;
}

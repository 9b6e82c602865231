/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel-meter-benchmark: the kernel module's meter action
 * (datapath/meter.c, compiled unchanged against kernel-shim-meter.h) on
 * the host's real cores, where the qemu/TCG guest cannot show cache-line
 * effects, against the design of Linux 6.1's meters
 * (kernel-meter-locked.c).  One meter with one drop band is hit by a
 * thread pinned to each core, every thread a CPU of its own to the code:
 *
 *   lock-free  the module's meter: per-CPU statistics, and the band's one
 *              shared word changed by a compare-and-swap only when a
 *              packet conforms;
 *   locked     one spinlock per meter taken for every packet, under which
 *              the statistics and the bucket, shared by every CPU, are
 *              written.
 *
 * in two regimes: 'within', a rate no traffic reaches (every packet pays
 * the band: the lock-free meter's worst case, one compare-and-swap per
 * packet), and 'above', 1,000 packets per second (nearly every packet
 * exceeds the band and is dropped, as in a flood the meter is there to
 * stop).  Each round runs every variant once per regime, in an order that
 * rotates; the figures are medians over the rounds, with the CPU time per
 * packet (the threads' own, which other processes on a busy machine do
 * not inflate as they do the wall-clock rate).  Every run checks that the
 * meter counted every packet, and measures how many passed against how
 * many the band allows (the program fails if the module's meter passed
 * more; Linux's design does, on more than one CPU: kernel-meter-locked.c).
 *
 * This is a measurement, not a test: run by
 * utilities/benchmark/kernel-meter-benchmark.sh, which builds it.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kernel-benchmark-common.h"
#include "kernel-meter-variant.h"

/* What every packet is: 64 bytes. */
#define PACKET_LEN 64

/* Packets each thread sends before the clock starts. */
#define WARMUP_PACKETS 1000

/* Packets between two looks at the stop flag. */
#define PACKETS_PER_LOOK 1024

/* The regimes: a band's rate and burst, in packets. */
struct regime {
    const char *name;
    u32 rate;                   /* Packets per second. */
    u32 burst;                  /* Packets. */
};

static const struct regime regimes[] = {
    { "within", 4000000000u, 4000000 },
    { "above", 1000, 10 },
};
#define N_REGIMES (sizeof regimes / sizeof regimes[0])

static const struct kmb_variant *const variants[] = {
    &kmb_lock_free, &kmb_locked,
};
#define N_VARIANTS (sizeof variants / sizeof variants[0])

/* One thread of a run. */
struct worker {
    pthread_t thread;
    unsigned int cpu;           /* Its CPU id, 0 to n - 1. */
    int core;                   /* The core it is pinned to. */
    const struct kmb_variant *v;
    pthread_barrier_t *start;
    unsigned long long packets; /* Timed packets sent. */
    unsigned long long dropped; /* Of all it sent. */
    double seconds;             /* Time they took. */
    double cpu_seconds;         /* CPU time the thread used for them. */
};

/* What one run measured. */
struct result {
    double mpps;                /* Millions of packets per second of wall
                                 * time, all threads together. */
    double cpu_ns;              /* Nanoseconds of CPU time per packet. */
    double admitted;            /* Packets passed over those allowed. */
};

static bool stop;               /* Set to end a run. */

static void *
worker_main(void *w_)
{
    struct sk_buff skb = { .len = PACKET_LEN };
    struct worker *w = w_;
    unsigned long long packets = 0, dropped = 0;
    double start, cpu_start;

    kbench_pin(w->core);
    kshim_set_cpu(w->cpu);
    for (int i = 0; i < WARMUP_PACKETS; i++) {
        dropped += w->v->execute(&skb);
    }
    pthread_barrier_wait(w->start);

    start = kbench_clock_seconds(CLOCK_MONOTONIC);
    cpu_start = kbench_clock_seconds(CLOCK_THREAD_CPUTIME_ID);
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        for (int i = 0; i < PACKETS_PER_LOOK; i++) {
            dropped += w->v->execute(&skb);
        }
        packets += PACKETS_PER_LOOK;
    }
    w->seconds = kbench_clock_seconds(CLOCK_MONOTONIC) - start;
    w->cpu_seconds = kbench_clock_seconds(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
    w->packets = packets;
    w->dropped = dropped;
    return NULL;
}

/* Checks what variant 'v' counted in regime 'g' against what its 'n'
 * threads sent ('sent', 'dropped'); exits on a difference.  Returns the
 * packets that passed over those the band allows in 'seconds' since the
 * meter was made (its burst, its rate times the time, and one more per
 * thread for the packets deciding when the clock was read). */
static double
check_counts(const struct kmb_variant *v, const struct regime *g,
             unsigned int n, unsigned long long sent,
             unsigned long long dropped, double seconds)
{
    double allowed = g->burst + g->rate * seconds + n;
    u64 packets, exceeded;

    v->read(&packets, &exceeded);
    if (packets != sent || exceeded != dropped) {
        fprintf(stderr, "%s %s on %u cores: %llu packets and %llu "
                "exceeding counted, %llu sent and %llu dropped\n", v->name,
                g->name, n, (unsigned long long) packets,
                (unsigned long long) exceeded, sent, dropped);
        exit(1);
    }
    return (sent - dropped) / allowed;
}

/* Runs variant 'v' in regime 'g' for 'seconds' on the first 'n' of
 * 'cores'. */
static struct result
run(const struct kmb_variant *v, const struct regime *g, const int *cores,
    unsigned int n, double seconds)
{
    struct worker workers[KSHIM_NR_CPUS];
    unsigned long long timed = 0, sent = 0, dropped = 0;
    double cpu_seconds = 0, made;
    struct result result = { 0, 0, 0 };
    struct timespec pause = { 0, 0 };
    pthread_barrier_t start;

    if (v->create(g->rate, g->burst)) {
        fprintf(stderr, "%s: cannot make the meter\n", v->name);
        exit(1);
    }
    made = kbench_clock_seconds(CLOCK_MONOTONIC);
    __atomic_store_n(&stop, false, __ATOMIC_RELAXED);
    pthread_barrier_init(&start, NULL, n + 1);
    for (unsigned int i = 0; i < n; i++) {
        struct worker *w = &workers[i];

        *w = (struct worker) {
            .cpu = i, .core = cores[i], .v = v, .start = &start,
        };
        if (pthread_create(&w->thread, NULL, worker_main, w)) {
            fprintf(stderr, "cannot create a thread\n");
            exit(1);
        }
    }
    pthread_barrier_wait(&start);
    pause.tv_sec = (time_t) seconds;
    pause.tv_nsec = (long) ((seconds - pause.tv_sec) * 1e9);
    nanosleep(&pause, NULL);
    __atomic_store_n(&stop, true, __ATOMIC_RELAXED);

    for (unsigned int i = 0; i < n; i++) {
        struct worker *w = &workers[i];

        pthread_join(w->thread, NULL);
        result.mpps += w->packets / w->seconds / 1e6;
        timed += w->packets;
        cpu_seconds += w->cpu_seconds;
        sent += w->packets + WARMUP_PACKETS;
        dropped += w->dropped;
    }
    result.cpu_ns = cpu_seconds * 1e9 / timed;
    pthread_barrier_destroy(&start);

    result.admitted = check_counts(v, g, n, sent, dropped,
                                   kbench_clock_seconds(CLOCK_MONOTONIC)
                                   - made);
    v->destroy();
    return result;
}

static void
usage(void)
{
    printf("usage: kernel-meter-benchmark [-r ROUNDS] [-s SECONDS] "
           "[-c CORES]\n"
           "  -r  rounds, each running every variant once per regime "
           "(default 5)\n"
           "  -s  seconds per run (default 1)\n"
           "  -c  how many of the usable cores to use (default all)\n");
}

int
main(int argc, char *argv[])
{
    enum { MAX_ROUNDS = 100 };
    /* Per regime, variant, one core [0] or all [1], round. */
    static double mpps[N_REGIMES][N_VARIANTS][2][MAX_ROUNDS];
    static double cpu_ns[N_REGIMES][N_VARIANTS][2][MAX_ROUNDS];
    static double admitted[N_REGIMES][N_VARIANTS][2][MAX_ROUNDS];
    double med_mpps[N_REGIMES][N_VARIANTS][2];
    double med_ns[N_REGIMES][N_VARIANTS][2];
    unsigned int n_cores = 0, max_cores;
    int cores[KSHIM_NR_CPUS];
    double seconds = 1;
    int rounds = 5;
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

    printf("One meter, one drop band, %d-byte packets; regimes: within "
           "(%u packets/s, never reached) and above (%u packets/s); %d "
           "rounds of %.1f s per variant, on 1 core and on %u (cores",
           PACKET_LEN, regimes[0].rate, regimes[1].rate, rounds, seconds,
           n_cores);
    for (unsigned int i = 0; i < n_cores; i++) {
        printf(" %d", cores[i]);
    }
    printf(").\n\n");

    for (int r = 0; r < rounds; r++) {
        printf("round %d:", r + 1);
        for (size_t gi = 0; gi < N_REGIMES; gi++) {
            for (size_t k = 0; k < N_VARIANTS; k++) {
                size_t i = (k + r) % N_VARIANTS;

                for (int all = 0; all < 2; all++) {
                    struct result res = run(variants[i], &regimes[gi],
                                            cores, all ? n_cores : 1,
                                            seconds);

                    mpps[gi][i][all][r] = res.mpps;
                    cpu_ns[gi][i][all][r] = res.cpu_ns;
                    admitted[gi][i][all][r] = res.admitted;
                    if (variants[i] == &kmb_lock_free
                        && res.admitted > 1) {
                        fprintf(stderr, "\n%s %s: %.3f times the packets "
                                "the band allows passed\n",
                                variants[i]->name, regimes[gi].name,
                                res.admitted);
                        return 1;
                    }
                }
                printf(" %s/%s %.1f/%.1f", regimes[gi].name,
                       variants[i]->name, mpps[gi][i][0][r],
                       mpps[gi][i][1][r]);
            }
        }
        printf(" Mpps\n");
        fflush(stdout);
    }

    printf("\n%-18s %28s %28s\n", "", "on 1 core", "on all cores");
    printf("%-18s %14s %13s %14s %13s\n", "regime/variant", "Mpps",
           "CPU ns/pkt", "Mpps", "CPU ns/pkt");
    for (size_t gi = 0; gi < N_REGIMES; gi++) {
        for (size_t i = 0; i < N_VARIANTS; i++) {
            char name[32];

            for (int all = 0; all < 2; all++) {
                med_mpps[gi][i][all] = kbench_median(mpps[gi][i][all], rounds);
                med_ns[gi][i][all] = kbench_median(cpu_ns[gi][i][all], rounds);
            }
            snprintf(name, sizeof name, "%s/%s", regimes[gi].name,
                     variants[i]->name);
            printf("%-18s %14.1f %13.2f %14.1f %13.2f\n", name,
                   med_mpps[gi][i][0], med_ns[gi][i][0],
                   med_mpps[gi][i][1], med_ns[gi][i][1]);
        }
    }
    printf("(medians)\n");

    printf("\npackets passed over those the band allows, %s regime, "
           "median (highest), on 1 core | on %u cores:\n", regimes[1].name,
           n_cores);
    for (size_t i = 0; i < N_VARIANTS; i++) {
        double most[2];

        for (int all = 0; all < 2; all++) {
            most[all] = 0;
            for (int r = 0; r < rounds; r++) {
                if (admitted[1][i][all][r] > most[all]) {
                    most[all] = admitted[1][i][all][r];
                }
            }
        }
        printf("  %s: %.3f (%.3f) | %.3f (%.3f)\n", variants[i]->name,
               kbench_median(admitted[1][i][0], rounds), most[0],
               kbench_median(admitted[1][i][1], rounds), most[1]);
    }

    printf("\nratios of the medians, Mpps and CPU time per packet, "
           "on 1 core | on %u cores:\n", n_cores);
    for (size_t gi = 0; gi < N_REGIMES; gi++) {
        printf("  %s: %s / %s: %.2f %.2f | %.2f %.2f\n", regimes[gi].name,
               variants[0]->name, variants[1]->name,
               med_mpps[gi][0][0] / med_mpps[gi][1][0],
               med_ns[gi][1][0] / med_ns[gi][0][0],
               med_mpps[gi][0][1] / med_mpps[gi][1][1],
               med_ns[gi][1][1] / med_ns[gi][0][1]);
    }
    return 0;
}

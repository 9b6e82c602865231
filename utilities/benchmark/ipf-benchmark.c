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

/* ipf-benchmark: IPv4 fragment reassembly rate of lib/ipf-cpu, per thread,
 * on one thread and then on several at once, each thread owning its own
 * 'struct ipf_cpu' as the datapath's forwarding threads do.  The ratio of
 * the two rates shows whether per-thread tables scale.
 *
 * Each thread replays a prebuilt pool of fragments, cloned with
 * dp_packet_clone() because ipf_cpu_reassemble() takes ownership.  The
 * cloning alone is measured too, and subtracted, to give the cost of
 * reassembly itself.  A measurement fails (exit status 1) unless every
 * datagram fed was reassembled and nothing was dropped, evicted or timed
 * out, so that the rate never counts drops.
 *
 * A flood scenario then feeds only first fragments, on every thread at
 * once, and checks that no table's memory account ever exceeds its high
 * threshold while evictions keep it there.
 *
 * This is a measurement, not a test: run by utilities/ipf-benchmark.sh. */

#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchmark-median.h"
#include "csum.h"
#include "dp-packet.h"
#include "ipf-cpu.h"
#include "openvswitch/util.h"
#include "openvswitch/vlog.h"
#include "ovs-numa.h"
#include "ovs-thread.h"
#include "packets.h"
#include "timeval.h"
#include "util.h"

/* Distinct datagrams (IP IDs) in each thread's pool.  Much more than
 * IPF_CPU_RECENT_MAX, so that by the time an ID comes round again its
 * "recently completed" record has been overwritten and the datagram is
 * reassembled again rather than dropped as IPF_DROP_COMPLETE. */
#define BENCH_N_DATAGRAMS 4096
BUILD_ASSERT_DECL(BENCH_N_DATAGRAMS > 4 * IPF_CPU_RECENT_MAX);

/* Datagrams fed between two reads of the clock (and calls to
 * ipf_cpu_run()). */
#define BENCH_BATCH 32

/* Flood: fragments fed between two reads of the table's memory account. */
#define BENCH_FLOOD_CHECK_EVERY 64

/* Most threads --threads-max accepts. */
#define BENCH_MAX_THREADS 64

/* Defaults of the options. */
#define BENCH_DEFAULT_SIZE 4000         /* UDP payload bytes. */
#define BENCH_DEFAULT_FRAGSIZE 1480     /* IP payload bytes per fragment:
                                         * a 1500-byte MTU. */
#define BENCH_DEFAULT_SECONDS 2.0
#define BENCH_DEFAULT_ROUNDS 3

/* Largest UDP payload in one IPv4 datagram. */
#define BENCH_MAX_SIZE (65535 - IP_HEADER_LEN - UDP_HEADER_LEN)

/* Command-line settings. */
static double seconds = BENCH_DEFAULT_SECONDS;
static int rounds = BENCH_DEFAULT_ROUNDS;
static size_t size = BENCH_DEFAULT_SIZE;
static size_t fragsize = BENCH_DEFAULT_FRAGSIZE;
static bool reverse;
static int threads_max = 2;

/* What a thread does in a measurement. */
enum bench_mode {
    BENCH_CLONE,            /* Clones each fragment and frees the clone. */
    BENCH_REASSEMBLE,       /* Clones each fragment and reassembles. */
    BENCH_FLOOD,            /* Clones first fragments only, reassembles. */
};

/* One thread's prebuilt fragments: 'n_frags' per datagram, in the order
 * they are fed, for BENCH_N_DATAGRAMS datagrams.  Built and freed by the
 * main thread, read only by the thread that replays it. */
struct bench_pool {
    struct dp_packet **frags;   /* [datagram * n_frags + i]. */
    struct dp_packet **firsts;  /* [datagram]: its offset-0 fragment. */
    size_t n_frags;             /* Fragments per datagram. */
    size_t frame_len;           /* Length of a reassembled frame. */
};

/* One thread of one measurement.  The main thread fills in the settings,
 * the thread itself the results, which the main thread reads after
 * joining it. */
struct bench_thread {
    /* Settings. */
    enum bench_mode mode;
    const struct bench_pool *pool;
    struct ipf_cpu *ipf;        /* Owned by this thread while it runs;
                                 * NULL for BENCH_CLONE. */
    int core;                   /* Core to pin to, or -1. */
    struct ovs_barrier *start;  /* All threads start timing together. */
    const struct ipf_cpu_config *cfg;   /* The table's configuration. */

    /* Results. */
    bool pinned;                /* Pinning to 'core' succeeded. */
    uint64_t datagrams;         /* Datagrams fed whole (BENCH_FLOOD:
                                 * first fragments fed). */
    uint64_t outputs;           /* Packets ipf_cpu_reassemble() returned. */
    uint64_t bad_outputs;       /* ... whose length was not 'frame_len'. */
    uint64_t elapsed_ns;        /* Time spent feeding. */
    uint64_t max_held;          /* BENCH_FLOOD: largest 'bytes_held'
                                 * seen. */
    uint64_t evicted;           /* BENCH_FLOOD: datagrams evicted. */
};

/* Rates of one measurement, per thread averaged and in total. */
struct bench_result {
    double total_rate;          /* Sum over threads of datagrams/s. */
    double ns_per_datagram;     /* Mean over threads of ns per datagram. */
};

static uint64_t
monotonic_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Builds one fragment of a datagram from thread 'thread' with IP ID 'id'
 * whose IP payload (UDP header included) is 'l4' of 'l4_len' bytes: bytes
 * 'ofs' through 'ofs + len' of it, with MF set if it is not the last. */
static struct dp_packet *
bench_make_fragment(int thread, uint16_t id, const uint8_t *l4,
                    size_t l4_len, size_t ofs, size_t len)
{
    static const struct eth_addr src_mac = ETH_ADDR_C(02,00,00,00,00,01);
    static const struct eth_addr dst_mac = ETH_ADDR_C(02,00,00,00,00,02);
    struct dp_packet *p;
    struct ip_header *ip;
    bool more = ofs + len < l4_len;

    p = dp_packet_new(ETH_HEADER_LEN + IP_HEADER_LEN + len);
    ip = eth_compose(p, dst_mac, src_mac, ETH_TYPE_IP, IP_HEADER_LEN + len);
    ip->ip_ihl_ver = IP_IHL_VER(IP_HEADER_LEN / 4, IP_VERSION);
    ip->ip_tos = 0;
    ip->ip_tot_len = htons(IP_HEADER_LEN + len);
    ip->ip_id = htons(id);
    ip->ip_frag_off = htons((more ? IP_MORE_FRAGMENTS : 0) | (ofs / 8));
    ip->ip_ttl = 64;
    ip->ip_proto = IPPROTO_UDP;
    /* Each thread its own source, so that tables never share a key. */
    put_16aligned_be32(&ip->ip_src, htonl(0x0a000001 + (thread << 16)));
    put_16aligned_be32(&ip->ip_dst, htonl(0x0a640001));
    ip->ip_csum = 0;
    ip->ip_csum = csum(ip, IP_HEADER_LEN);
    memcpy(ip + 1, l4 + ofs, len);
    pkt_metadata_init(&p->md, u32_to_odp(1));
    return p;
}

/* Builds the pool of thread 'thread'. */
static void
bench_pool_build(struct bench_pool *pool, int thread)
{
    size_t l4_len = UDP_HEADER_LEN + size;
    uint8_t *l4 = xmalloc(l4_len);

    pool->n_frags = DIV_ROUND_UP(l4_len, fragsize);
    pool->frame_len = ETH_HEADER_LEN + IP_HEADER_LEN + l4_len;
    pool->frags = xcalloc(BENCH_N_DATAGRAMS * pool->n_frags,
                          sizeof *pool->frags);
    pool->firsts = xcalloc(BENCH_N_DATAGRAMS, sizeof *pool->firsts);

    for (size_t d = 0; d < BENCH_N_DATAGRAMS; d++) {
        struct udp_header *udp = (struct udp_header *) l4;
        struct ip_header pseudo;
        uint16_t id = d;

        /* The whole datagram, with its UDP checksum over all of it. */
        for (size_t i = 0; i < size; i++) {
            l4[UDP_HEADER_LEN + i] = d + i;
        }
        udp->udp_src = htons(1000 + thread);
        udp->udp_dst = htons(2000);
        udp->udp_len = htons(l4_len);
        udp->udp_csum = 0;
        memset(&pseudo, 0, sizeof pseudo);
        pseudo.ip_ihl_ver = IP_IHL_VER(IP_HEADER_LEN / 4, IP_VERSION);
        pseudo.ip_tot_len = htons(IP_HEADER_LEN + l4_len);
        pseudo.ip_proto = IPPROTO_UDP;
        put_16aligned_be32(&pseudo.ip_src, htonl(0x0a000001 + (thread << 16)));
        put_16aligned_be32(&pseudo.ip_dst, htonl(0x0a640001));
        udp->udp_csum = csum_finish(csum_continue(
                                        packet_csum_pseudoheader(&pseudo),
                                        l4, l4_len));
        if (!udp->udp_csum) {
            udp->udp_csum = htons(0xffff);
        }

        for (size_t i = 0; i < pool->n_frags; i++) {
            size_t ofs = i * fragsize;
            size_t len = MIN(fragsize, l4_len - ofs);
            size_t slot = reverse ? pool->n_frags - 1 - i : i;
            struct dp_packet *p;

            p = bench_make_fragment(thread, id, l4, l4_len, ofs, len);
            pool->frags[d * pool->n_frags + slot] = p;
            if (!ofs) {
                pool->firsts[d] = p;
            }
        }
    }
    free(l4);
}

static void
bench_pool_destroy(struct bench_pool *pool)
{
    for (size_t i = 0; i < BENCH_N_DATAGRAMS * pool->n_frags; i++) {
        dp_packet_delete(pool->frags[i]);
    }
    free(pool->frags);
    free(pool->firsts);
}

/* Feeds whole datagrams until the deadline. */
static void
bench_feed_datagrams(struct bench_thread *t, uint64_t deadline)
{
    const struct bench_pool *pool = t->pool;
    size_t d = 0;

    for (;;) {
        long long int now = time_msec();

        for (int b = 0; b < BENCH_BATCH; b++) {
            struct dp_packet **frags = &pool->frags[d * pool->n_frags];

            for (size_t i = 0; i < pool->n_frags; i++) {
                struct dp_packet *p = dp_packet_clone(frags[i]);

                if (t->mode == BENCH_CLONE) {
                    dp_packet_delete(p);
                } else {
                    p = ipf_cpu_reassemble(t->ipf, p, now);
                    if (p) {
                        t->outputs++;
                        if (dp_packet_size(p) != pool->frame_len) {
                            t->bad_outputs++;
                        }
                        dp_packet_delete(p);
                    }
                }
            }
            if (++d == BENCH_N_DATAGRAMS) {
                d = 0;
            }
        }
        t->datagrams += BENCH_BATCH;
        if (t->ipf) {
            ipf_cpu_run(t->ipf, now);
        }
        if (monotonic_ns() >= deadline) {
            break;
        }
    }
}

/* Feeds first fragments only until the deadline, reading the memory
 * account every BENCH_FLOOD_CHECK_EVERY fragments. */
static void
bench_feed_flood(struct bench_thread *t, uint64_t deadline)
{
    const struct bench_pool *pool = t->pool;
    size_t d = 0;

    for (;;) {
        long long int now = time_msec();
        struct ipf_cpu_stats stats;

        for (int b = 0; b < BENCH_FLOOD_CHECK_EVERY; b++) {
            struct dp_packet *p = dp_packet_clone(pool->firsts[d]);

            p = ipf_cpu_reassemble(t->ipf, p, now);
            if (p) {
                t->outputs++;
                dp_packet_delete(p);
            }
            if (++d == BENCH_N_DATAGRAMS) {
                d = 0;
            }
        }
        t->datagrams += BENCH_FLOOD_CHECK_EVERY;
        ipf_cpu_get_stats(t->ipf, &stats);
        t->max_held = MAX(t->max_held, stats.bytes_held);
        ipf_cpu_run(t->ipf, now);
        if (monotonic_ns() >= deadline) {
            break;
        }
    }
}

static void *
bench_thread_main(void *t_)
{
    struct bench_thread *t = t_;
    uint64_t start;

    if (t->core >= 0) {
        t->pinned = !ovs_numa_thread_setaffinity_core(t->core);
    }
    ovs_barrier_block(t->start);
    start = monotonic_ns();
    if (t->mode == BENCH_FLOOD) {
        bench_feed_flood(t, start + seconds * 1e9);
    } else {
        bench_feed_datagrams(t, start + seconds * 1e9);
    }
    t->elapsed_ns = monotonic_ns() - start;
    return NULL;
}

/* Returns the core thread 'i' of 'n' is pinned to, or -1 to leave it
 * unpinned.  One thread runs on core 1 (core 0 tends to take the system's
 * interrupts), several on cores 0, 1, ... */
static int
bench_core_for(int i, int n)
{
    int core = n == 1 ? 1 : i;

    return ovs_numa_core_id_is_valid(core) ? core : -1;
}

static bool all_pinned = true;  /* Every thread run so far was pinned. */

/* Runs 'n' threads in 'mode' over 'pools' once and returns their rates.
 * Exits with an error message if a table did not reassemble exactly what
 * it was fed (or, for the flood, went over its high threshold). */
static struct bench_result
bench_run(enum bench_mode mode, int n, const struct bench_pool pools[],
          struct bench_thread threads[])
{
    struct ipf_cpu_config cfg;
    struct bench_result r = { 0, 0 };
    struct ovs_barrier start;

    ipf_cpu_config_default(&cfg);
    ovs_barrier_init(&start, n);
    for (int i = 0; i < n; i++) {
        struct bench_thread *t = &threads[i];

        memset(t, 0, sizeof *t);
        t->mode = mode;
        t->pool = &pools[i];
        t->ipf = mode == BENCH_CLONE ? NULL : ipf_cpu_create(&cfg);
        t->core = bench_core_for(i, n);
        t->start = &start;
        t->cfg = &cfg;
    }

    pthread_t ids[BENCH_MAX_THREADS];
    for (int i = 0; i < n; i++) {
        ids[i] = ovs_thread_create("ipf-bench", bench_thread_main,
                                   &threads[i]);
    }
    for (int i = 0; i < n; i++) {
        xpthread_join(ids[i], NULL);
    }
    ovs_barrier_destroy(&start);

    for (int i = 0; i < n; i++) {
        struct bench_thread *t = &threads[i];
        double secs = t->elapsed_ns / 1e9;

        all_pinned = all_pinned && t->pinned;
        r.total_rate += t->datagrams / secs;
        r.ns_per_datagram += (double) t->elapsed_ns / t->datagrams / n;

        if (t->ipf) {
            struct ipf_cpu_stats s;
            uint64_t drops = 0;

            ipf_cpu_get_stats(t->ipf, &s);
            for (size_t j = 0; j < IPF_N_DROP_REASONS; j++) {
                if (s.drops[j]) {
                    fprintf(stderr, "thread %d: %"PRIu64" fragments "
                            "dropped as %s\n", i, s.drops[j],
                            ipf_cpu_drop_reason_to_string(j));
                }
                drops += s.drops[j];
            }
            if (mode == BENCH_REASSEMBLE
                && (s.reassembled != t->datagrams
                    || t->outputs != t->datagrams || t->bad_outputs
                    || drops || s.evicted || s.timed_out || s.discarded
                    || s.queues)) {
                ovs_fatal(0, "thread %d: fed %"PRIu64" datagrams, expected "
                          "as many reassembled and nothing else, got "
                          "%"PRIu64" reassembled (%"PRIu64" returned, "
                          "%"PRIu64" of the wrong length), %"PRIu64" drops, "
                          "%"PRIu64" evicted, %"PRIu64" timed out, "
                          "%"PRIu64" discarded, %"PRIu64" queues left",
                          i, t->datagrams, s.reassembled, t->outputs,
                          t->bad_outputs, drops, s.evicted, s.timed_out,
                          s.discarded, s.queues);
            }
            if (mode == BENCH_FLOOD
                && (t->max_held > cfg.high_thresh || s.bytes_held
                    > cfg.high_thresh || drops || t->outputs
                    || !s.evicted)) {
                ovs_fatal(0, "flood, thread %d: expected bytes_held at most "
                          "%"PRIuSIZE", evictions, no drops and nothing "
                          "reassembled; got bytes_held up to %"PRIu64", "
                          "%"PRIu64" evicted, %"PRIu64" drops, %"PRIu64
                          " reassembled", i, cfg.high_thresh, t->max_held,
                          s.evicted, drops, t->outputs);
            }
            t->evicted = s.evicted;
            ipf_cpu_destroy(t->ipf);
            t->ipf = NULL;
        }
    }
    return r;
}

static void OVS_NO_RETURN
usage(void)
{
    printf("%s: IPv4 reassembly rate of lib/ipf-cpu, per thread\n"
           "usage: %s [OPTIONS]\n"
           "  --seconds=N       seconds per measurement (default %g)\n"
           "  --rounds=N        rounds; medians are reported (default %d)\n"
           "  --size=BYTES      UDP payload of a datagram (default %d)\n"
           "  --fragsize=BYTES  IP payload per fragment, a multiple of 8\n"
           "                    (default %d)\n"
           "  --reverse         feed each datagram's fragments last first\n"
           "  --threads-max=N   compare N threads with 1 (default 2)\n",
           program_name, program_name, BENCH_DEFAULT_SECONDS,
           BENCH_DEFAULT_ROUNDS, BENCH_DEFAULT_SIZE, BENCH_DEFAULT_FRAGSIZE);
    exit(EXIT_SUCCESS);
}

static void
parse_options(int argc, char *argv[])
{
    enum { OPT_SECONDS = UCHAR_MAX + 1, OPT_ROUNDS, OPT_SIZE, OPT_FRAGSIZE,
           OPT_REVERSE, OPT_THREADS_MAX };
    static const struct option long_options[] = {
        {"seconds", required_argument, NULL, OPT_SECONDS},
        {"rounds", required_argument, NULL, OPT_ROUNDS},
        {"size", required_argument, NULL, OPT_SIZE},
        {"fragsize", required_argument, NULL, OPT_FRAGSIZE},
        {"reverse", no_argument, NULL, OPT_REVERSE},
        {"threads-max", required_argument, NULL, OPT_THREADS_MAX},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };

    for (;;) {
        int c = getopt_long(argc, argv, "h", long_options, NULL);

        if (c == -1) {
            break;
        }
        switch (c) {
        case OPT_SECONDS:
            seconds = atof(optarg);
            if (seconds <= 0) {
                ovs_fatal(0, "--seconds must be positive");
            }
            break;
        case OPT_ROUNDS:
            rounds = atoi(optarg);
            if (rounds < 1) {
                ovs_fatal(0, "--rounds must be at least 1");
            }
            break;
        case OPT_SIZE:
            size = atoi(optarg);
            break;
        case OPT_FRAGSIZE:
            fragsize = atoi(optarg);
            break;
        case OPT_REVERSE:
            reverse = true;
            break;
        case OPT_THREADS_MAX:
            threads_max = atoi(optarg);
            if (threads_max < 2 || threads_max > BENCH_MAX_THREADS) {
                ovs_fatal(0, "--threads-max must be between 2 and %d",
                          BENCH_MAX_THREADS);
            }
            break;
        case 'h':
            usage();
        default:
            exit(EXIT_FAILURE);
        }
    }
    if (fragsize < 8 || fragsize % 8 || fragsize > 65528) {
        ovs_fatal(0, "--fragsize must be a positive multiple of 8");
    }
    if (size > BENCH_MAX_SIZE || UDP_HEADER_LEN + size <= fragsize) {
        ovs_fatal(0, "--size must make more than one fragment and at most "
                  "%d bytes", BENCH_MAX_SIZE);
    }
    if (DIV_ROUND_UP(UDP_HEADER_LEN + size, fragsize) > IPF_CPU_MAX_FRAGS) {
        ovs_fatal(0, "--size/--fragsize make more than %d fragments",
                  IPF_CPU_MAX_FRAGS);
    }
}

int
main(int argc, char *argv[])
{
    int counts[2] = { 1, 0 };
    struct bench_result res[2][2];     /* [count index][clone, reasm]. */
    struct bench_thread *threads;
    struct bench_pool *pools;

    set_program_name(argv[0]);
    parse_options(argc, argv);
    counts[1] = threads_max;
    vlog_set_levels(NULL, VLF_CONSOLE, VLL_WARN);
    ovs_numa_init();

    pools = xcalloc(threads_max, sizeof *pools);
    threads = xcalloc(threads_max, sizeof *threads);
    for (int i = 0; i < threads_max; i++) {
        bench_pool_build(&pools[i], i);
    }

    /* Medians over 'rounds' of each (thread count, mode), the rounds
     * interleaved so that a slow spell on the machine hits them all. */
    double *rates = xcalloc(rounds, sizeof *rates);
    double *ns = xcalloc(rounds, sizeof *ns);
    struct bench_result (*all)[2][2] = xcalloc(rounds, sizeof *all);
    for (int r = 0; r < rounds; r++) {
        for (int c = 0; c < 2; c++) {
            all[r][c][0] = bench_run(BENCH_CLONE, counts[c], pools, threads);
            all[r][c][1] = bench_run(BENCH_REASSEMBLE, counts[c], pools,
                                     threads);
        }
    }
    for (int c = 0; c < 2; c++) {
        for (int m = 0; m < 2; m++) {
            for (int r = 0; r < rounds; r++) {
                rates[r] = all[r][c][m].total_rate;
                ns[r] = all[r][c][m].ns_per_datagram;
            }
            res[c][m].total_rate = benchmark_median(rates, rounds);
            res[c][m].ns_per_datagram = benchmark_median(ns, rounds);
        }
    }
    free(all);

    /* The flood, once, on every thread. */
    bench_run(BENCH_FLOOD, threads_max, pools, threads);

    printf("reassembly, %"PRIuSIZE"-byte datagrams in %"PRIuSIZE" fragments "
           "of up to %"PRIuSIZE" bytes, %s, %d rounds x %g s, threads %s\n",
           size, pools[0].n_frags, fragsize,
           reverse ? "reversed" : "in order", rounds, seconds,
           all_pinned ? "pinned" : "NOT all pinned");
    for (int c = 0; c < 2; c++) {
        double ns_all = res[c][1].ns_per_datagram;
        double ns_clone = res[c][0].ns_per_datagram;

        if (c == 0) {
            printf("1 thread : %5.2f M reassemblies/s",
                   res[c][1].total_rate / 1e6);
        } else {
            printf("%d threads: %5.2f M reassemblies/s total, %.2f M per "
                   "thread", counts[c], res[c][1].total_rate / 1e6,
                   res[c][1].total_rate / counts[c] / 1e6);
        }
        printf("  (%.0f ns per datagram = %.0f ns cloning %"PRIuSIZE
               " fragments + %.0f ns reassembly)\n", ns_all, ns_clone,
               pools[0].n_frags, ns_all - ns_clone);
    }
    printf("scaling  : %.2f (%d threads / 1 thread); reassembly alone, "
           "clones excluded: %.2f\n",
           res[1][1].total_rate / res[0][1].total_rate, threads_max,
           counts[1] * (res[0][1].ns_per_datagram - res[0][0].ns_per_datagram)
           / (res[1][1].ns_per_datagram - res[1][0].ns_per_datagram));

    printf("flood    : first fragments only, %d threads x %g s; per thread:",
           threads_max, seconds);
    for (int i = 0; i < threads_max; i++) {
        const struct bench_thread *t = &threads[i];
        double secs = t->elapsed_ns / 1e9;

        printf("%s %.2f M fragments/s, %.2f M evictions/s, bytes_held <= "
               "%"PRIu64, i ? ";" : "", t->datagrams / secs / 1e6,
               t->evicted / secs / 1e6, t->max_held);
    }
    printf(" (high threshold %d, read every %d fragments)\n",
           IPF_CPU_DEFAULT_HIGH_THRESH, BENCH_FLOOD_CHECK_EVERY);

    for (int i = 0; i < threads_max; i++) {
        bench_pool_destroy(&pools[i]);
    }
    free(pools);
    free(threads);
    free(rates);
    free(ns);
    return 0;
}

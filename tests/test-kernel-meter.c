/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stress test of the kernel module's meters, datapath/meter.c compiled
 * unchanged against utilities/benchmark/kernel-shim-meter.h and run on
 * the host's threads: N sender threads, each a CPU of its own to the code
 * and pinned to the usable cores in turn, send packets through one meter
 * for a while, as the meter action does, while the main thread reads the
 * meter's statistics all the while.  GPL-2.0, as it links that file.
 *
 * Usage: test-kernel-meter [-n SENDERS] [-t MILLISECONDS] CASE
 *
 *   within   a pktps band at a rate no sender reaches: nothing dropped.
 *   pktps    1,000 packets/s, burst 50: nearly everything dropped.
 *   kbps     800 kbps, burst 100 kilobits, 100-byte packets (1,000
 *            packets/s): the same, counted in bits.
 *
 * While the senders run, every read is checked: the meter's packets and
 * its band's packets never lower than the read before, never above what
 * the senders have sent.  Once they stop: the meter counted every packet
 * sent, its band every packet dropped, bytes exactly 100 per packet; no
 * more packets passed than the band allows in the time since the meter
 * was made (its burst, plus its rate times that time, plus one per sender
 * for a decision made on a clock read just before), and, when senders
 * outpace the band, no fewer than half of that (a meter whose bucket
 * sits full and idle while every sender is descheduled loses that
 * time, as it should; half leaves room for a busy machine).  The
 * program prints one line per case and exits 1 at the first check that
 * fails.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel-shim-meter.h"
#include "meter.h"

#define PACKET_LEN 100
#define MAX_SENDERS 16
#define METER_ID 54545401

/* One sender, alone on its cache line: the reader reads 'sent'. */
struct sender {
    pthread_t thread;
    unsigned int cpu;           /* Its CPU id. */
    int core;                   /* The core it is pinned to. */
    unsigned long long sent;    /* Packets sent so far (release store). */
    unsigned long long dropped; /* Of those, dropped. */
} __attribute__((__aligned__(64)));

static struct ovsp_meter_table *table;
static bool stop;

static void
fail(const char *msg, unsigned long long a, unsigned long long b)
{
    fprintf(stderr, "test-kernel-meter: %s (%llu, %llu)\n", msg, a, b);
    exit(1);
}

static void *
sender_main(void *s_)
{
    struct sk_buff skb = { .len = PACKET_LEN };
    struct sender *s = s_;
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(s->core, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    kshim_set_cpu(s->cpu);
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        if (ovsp_meter_execute(table, &skb, METER_ID)) {
            s->dropped++;
        }
        __atomic_store_n(&s->sent, s->sent + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

/* Total sent so far by the 'n' senders of 's'. */
static unsigned long long
total_sent(const struct sender *s, unsigned int n)
{
    unsigned long long total = 0;

    for (unsigned int i = 0; i < n; i++) {
        total += __atomic_load_n(&s[i].sent, __ATOMIC_ACQUIRE);
    }
    return total;
}

static double
now_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char *argv[])
{
    struct sender senders[MAX_SENDERS];
    struct ovsp_meter_config cfg = {
        .id = METER_ID, .keep_stats = true, .n_bands = 1,
    };
    struct ovsp_meter_stats st, old;
    unsigned long long last_packets = 0, last_band = 0, sent, dropped = 0;
    unsigned int n = 4, n_cores = 0, ms = 300;
    double made, seconds, allowed, per_second;
    int cores[CPU_SETSIZE];
    const char *mode;
    cpu_set_t set;
    int opt;

    while ((opt = getopt(argc, argv, "n:t:")) != -1) {
        if (opt == 'n') {
            n = atoi(optarg);
        } else if (opt == 't') {
            ms = atoi(optarg);
        } else {
            return 2;
        }
    }
    if (optind != argc - 1 || !n || n > MAX_SENDERS || !ms) {
        fprintf(stderr, "usage: test-kernel-meter [-n SENDERS] "
                "[-t MILLISECONDS] within|pktps|kbps\n");
        return 2;
    }
    mode = argv[optind];
    if (!strcmp(mode, "within")) {
        cfg.bands[0] = (struct ovsp_meter_band_config) {
            OVS_METER_BAND_TYPE_DROP, 4000000000u, 4000000 };
        per_second = 4e9;
    } else if (!strcmp(mode, "pktps")) {
        cfg.bands[0] = (struct ovsp_meter_band_config) {
            OVS_METER_BAND_TYPE_DROP, 1000, 50 };
        per_second = 1000;
    } else if (!strcmp(mode, "kbps")) {
        cfg.kbps = true;
        cfg.bands[0] = (struct ovsp_meter_band_config) {
            OVS_METER_BAND_TYPE_DROP, 800, 100 };
        per_second = 1000;      /* 800 kbps of 800-bit packets. */
    } else {
        return 2;
    }

    sched_getaffinity(0, sizeof set, &set);
    for (int core = 0; core < CPU_SETSIZE; core++) {
        if (CPU_ISSET(core, &set)) {
            cores[n_cores++] = core;
        }
    }
    kshim_nr_cpu_ids = n;
    if (ovsp_meters_init() || !(table = ovsp_meter_table_create())
        || ovsp_meter_set(table, &cfg, &old)) {
        fail("cannot make the meter", 0, 0);
    }
    made = now_seconds();

    memset(senders, 0, sizeof senders);
    for (unsigned int i = 0; i < n; i++) {
        senders[i].cpu = i;
        senders[i].core = cores[i % n_cores];
        if (pthread_create(&senders[i].thread, NULL, sender_main,
                           &senders[i])) {
            fail("cannot create a thread", i, n);
        }
    }
    /* Read all the while. */
    while (now_seconds() < made + ms / 1000.0) {
        unsigned long long after;

        if (ovsp_meter_get(table, METER_ID, &st)) {
            fail("meter gone", 0, 0);
        }
        after = total_sent(senders, n);
        if (st.stats.n_packets < last_packets
            || st.bands[0].n_packets < last_band) {
            fail("a read went back", st.stats.n_packets, last_packets);
        }
        /* Packets counted before 'after' was read: at most 'after', plus
         * one in flight per sender (counted, 'sent' not yet stored). */
        if (st.stats.n_packets > after + n) {
            fail("more counted than sent", st.stats.n_packets, after);
        }
        last_packets = st.stats.n_packets;
        last_band = st.bands[0].n_packets;
    }
    __atomic_store_n(&stop, true, __ATOMIC_RELAXED);
    for (unsigned int i = 0; i < n; i++) {
        pthread_join(senders[i].thread, NULL);
        dropped += senders[i].dropped;
    }
    seconds = now_seconds() - made;
    sent = total_sent(senders, n);

    ovsp_meter_get(table, METER_ID, &st);
    if (st.stats.n_packets != sent) {
        fail("packets counted != sent", st.stats.n_packets, sent);
    }
    if (st.stats.n_bytes != sent * PACKET_LEN) {
        fail("bytes counted != sent", st.stats.n_bytes, sent * PACKET_LEN);
    }
    if (st.bands[0].n_packets != dropped
        || st.bands[0].n_bytes != dropped * PACKET_LEN) {
        fail("band counted != dropped", st.bands[0].n_packets, dropped);
    }
    /* The burst in packets: kilobits over the bits of a packet. */
    allowed = (cfg.kbps ? cfg.bands[0].burst * 1000.0 / (PACKET_LEN * 8)
                        : cfg.bands[0].burst)
              + per_second * seconds + n;
    if (sent - dropped > allowed) {
        fail("more passed than the band allows",
             sent - dropped, (unsigned long long) allowed);
    }
    if (sent > allowed && sent - dropped < 0.5 * (allowed - n)) {
        fail("under half of what the band allows passed",
             sent - dropped, (unsigned long long) allowed);
    }
    printf("%s: %u senders, every packet counted, %s\n", mode, n,
           dropped ? "the rest dropped within the band"
                   : "none dropped");

    ovsp_meter_del(table, METER_ID, &st);
    ovsp_meter_table_destroy(table);
    ovsp_meters_exit();
    return 0;
}

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

/* Conntrack of fragmented UDP: datagrams per second through a ct(commit)
 * action (dp_conntrack_execute(), the datapath's own entry point), with the
 * fragments reassembled per thread (lib/ipf-cpu) or by OVS's ipf.c under
 * its global lock, on one thread and on two at once.  Each thread has its
 * own connection (its own source address), so the threads share OVS's
 * conntrack, as in the datapath, and, with OVS's ipf, its lock.
 *
 * Usage: ct-frag-benchmark [--seconds=N] [--size=BYTES]
 * Prints one line per mode and thread count, and the two-thread/one-thread
 * ratio of each mode.  Exits non-zero if a datagram was lost. */

#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conntrack.h"
#include "csum.h"
#include "dp-conntrack.h"
#include "dp-ipf.h"
#include "dp-packet.h"
#include "flow.h"
#include "gso.h"
#include "ip-fragment.h"
#include "ipf-cpu.h"
#include "netlink.h"
#include "odp-netlink.h"
#include "openvswitch/ofpbuf.h"
#include "ovs-thread.h"
#include "packets.h"
#include "smap.h"
#include "timeval.h"
#include "util.h"

/* Distinct IP IDs each thread cycles through: more than the 64 datagrams
 * ipf-cpu remembers as recently completed. */
#define N_IDS 1024

/* IP bytes of each fragment but the last. */
#define FRAG_MTU 1420

/* One thread's run. */
struct bench_thread {
    struct dp_conntrack *dpct;  /* Shared. */
    const struct nlattr *ct_action;
    int index;                  /* Source address 10.0.<index>.1. */
    int size;                   /* UDP payload bytes. */
    long long int deadline;     /* When to stop, in ms. */
    struct dp_packet_batch frags[N_IDS];   /* Fragments of each datagram. */
    uint64_t datagrams;         /* Out: datagrams fully through ct. */
    uint64_t packets_out;       /* Out: packets ct() left in batches. */
    double seconds;             /* Out: how long it ran. */
};

static void
put_frag(struct dp_packet_batch *batch, void *aux OVS_UNUSED)
{
    ovs_assert(!dp_packet_batch_is_full(batch));
}

/* Builds the fragments of datagram 'id' of thread 't' into 'batch'. */
static void
build_datagram(const struct bench_thread *t, uint16_t id,
               struct dp_packet_batch *batch)
{
    size_t len = ETH_HEADER_LEN + IP_HEADER_LEN + UDP_HEADER_LEN + t->size;
    struct dp_packet *p = dp_packet_new(len);
    struct gso_output out = { .batch = batch, .flush = put_frag };
    struct eth_header *eth;
    struct ip_header *ip;
    struct udp_header *udp;
    struct dp_packet *f;
    uint8_t *payload;

    eth = dp_packet_put_zeros(p, ETH_HEADER_LEN);
    eth->eth_type = htons(ETH_TYPE_IP);
    eth->eth_src = (struct eth_addr) ETH_ADDR_C(50, 54, 00, 00, 00, 01);
    eth->eth_dst = (struct eth_addr) ETH_ADDR_C(50, 54, 00, 00, 00, 02);
    ip = dp_packet_put_zeros(p, IP_HEADER_LEN);
    ip->ip_ihl_ver = IP_IHL_VER(5, 4);
    ip->ip_tot_len = htons(IP_HEADER_LEN + UDP_HEADER_LEN + t->size);
    ip->ip_id = htons(id);
    ip->ip_ttl = 64;
    ip->ip_proto = IPPROTO_UDP;
    put_16aligned_be32(&ip->ip_src, htonl(0x0a000001 | (t->index << 8)));
    put_16aligned_be32(&ip->ip_dst, htonl(0x0a0000fe));
    ip->ip_csum = csum(ip, IP_HEADER_LEN);
    udp = dp_packet_put_zeros(p, UDP_HEADER_LEN);
    udp->udp_src = htons(1234);
    udp->udp_dst = htons(5678);
    udp->udp_len = htons(UDP_HEADER_LEN + t->size);
    payload = dp_packet_put_uninit(p, t->size);
    for (int i = 0; i < t->size; i++) {
        payload[i] = i;
    }
    /* A zero UDP checksum is "none" for IPv4: conntrack accepts it. */

    dp_packet_batch_init(batch);
    ovs_assert(!ip_fragment_v4(p, FRAG_MTU, &out));
    DP_PACKET_BATCH_FOR_EACH (i, f, batch) {
        struct flow flow;

        pkt_metadata_init(&f->md, u32_to_odp(1));
        flow_extract(f, &flow);
    }
}

static void *
bench_main(void *t_)
{
    struct bench_thread *t = t_;
    struct ipf_cpu_config cfg;
    struct dp_conntrack_stats st;
    struct ipf_cpu *ipf;
    long long int start, now;
    uint64_t n = 0;

    ipf_cpu_config_default(&cfg);
    ipf = ipf_cpu_create(&cfg);
    memset(&st, 0, sizeof st);
    start = now = time_msec();
    while (now < t->deadline) {
        for (int k = 0; k < 64; k++, n++) {
            struct dp_packet_batch batch;

            dp_packet_batch_clone(&batch, &t->frags[n % N_IDS]);
            dp_conntrack_execute(t->dpct, ipf, DP_IPF_CT_V4 | DP_IPF_CT_V6,
                                 &batch, t->ct_action, 0, 0,
                                 now, &st);
            t->packets_out += dp_packet_batch_size(&batch);
            dp_packet_delete_batch(&batch, true);
        }
        now = time_msec();
    }
    t->seconds = (now - start) / 1000.0;
    t->datagrams = n;
    ipf_cpu_destroy(ipf);
    return NULL;
}

/* Runs 'n_threads' threads for 'seconds' on 'dpct' and prints the rate. */
static bool
run(struct dp_conntrack *dpct, const struct nlattr *ct_action,
    const char *mode, int n_threads, int seconds, int size, double *rate)
{
    struct bench_thread *threads = xcalloc(n_threads, sizeof *threads);
    pthread_t *ids = xcalloc(n_threads, sizeof *ids);
    long long int deadline = time_msec() + seconds * 1000;
    uint64_t total = 0, packets = 0;
    double secs = 0;
    bool ok = true;

    for (int i = 0; i < n_threads; i++) {
        struct bench_thread *t = &threads[i];

        t->dpct = dpct;
        t->ct_action = ct_action;
        t->index = i + 1;
        t->size = size;
        t->deadline = deadline;
        for (int id = 0; id < N_IDS; id++) {
            build_datagram(t, id, &t->frags[id]);
        }
    }
    for (int i = 0; i < n_threads; i++) {
        ids[i] = ovs_thread_create("ct-bench", bench_main, &threads[i]);
    }
    for (int i = 0; i < n_threads; i++) {
        xpthread_join(ids[i], NULL);
        total += threads[i].datagrams;
        packets += threads[i].packets_out;
        secs = MAX(secs, threads[i].seconds);
        for (int id = 0; id < N_IDS; id++) {
            dp_packet_delete_batch(&threads[i].frags[id], true);
        }
    }
    *rate = total / secs;
    printf("%-10s %d thread%s: %6.3f M datagrams/s total, %6.3f M per "
           "thread; %"PRIu64" datagrams in, %"PRIu64" packets out of ct()\n",
           mode, n_threads, n_threads > 1 ? "s" : " ", *rate / 1e6,
           *rate / 1e6 / n_threads, total, packets);
    /* Per-thread reassembly hands on one whole datagram per datagram;
     * OVS's ipf hands on the fragments (3 per datagram here), the last
     * datagram's possibly still held when the clock ran out. */
    if (packets < total || packets > 3 * total) {
        printf("  lost datagrams: %"PRIu64" packets for %"PRIu64
               " datagrams\n", packets, total);
        ok = false;
    }
    free(threads);
    free(ids);
    return ok;
}

int
main(int argc, char *argv[])
{
    static const struct option options[] = {
        { "seconds", required_argument, NULL, 's' },
        { "size", required_argument, NULL, 'z' },
        { NULL, 0, NULL, 0 },
    };
    int seconds = 2, size = 3000;
    uint64_t buf[64 / 8];
    struct ofpbuf action;
    bool ok = true;
    size_t ofs;
    int c;

    set_program_name(argv[0]);
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's':
            seconds = atoi(optarg);
            break;
        case 'z':
            size = atoi(optarg);
            break;
        default:
            exit(EXIT_FAILURE);
        }
    }

    ofpbuf_use_stack(&action, buf, sizeof buf);
    ofs = nl_msg_start_nested(&action, OVS_ACTION_ATTR_CT);
    nl_msg_put_flag(&action, OVS_CT_ATTR_COMMIT);
    nl_msg_end_nested(&action, ofs);

    printf("ct(commit) on %d-byte UDP datagrams in fragments of %d IP bytes, "
           "%d s per run\n", size, FRAG_MTU, seconds);
    for (int m = 0; m < 2; m++) {
        const char *mode = m ? "ovs-ipf" : "per-thread";
        struct dp_conntrack *dpct = dp_conntrack_create(2);
        struct smap cfg = SMAP_INITIALIZER(&cfg);
        double one, two;

        smap_add(&cfg, "ct-frag-reassembly", mode);
        dp_conntrack_set_config(dpct, "bench", &cfg);
        smap_destroy(&cfg);
        ok &= run(dpct, action.data, mode, 1, seconds, size, &one);
        ok &= run(dpct, action.data, mode, 2, seconds, size, &two);
        printf("%-10s scaling: %.2f (2 threads / 1 thread)\n", mode,
               two / one);
        dp_conntrack_destroy(dpct);
    }
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

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

/* Unit tests for GRO cells (lib/packet/gro-cell.h), run by
 * tests/percpu-gro.at.
 *
 * Each test offers crafted inner IPv4 packets to a cell, as the datapath does
 * after decapsulation, and prints every packet the cell hands back.  Every
 * packet is checked independently of the code under test: a packet handed
 * back unmerged must be byte for byte one that was offered, unmarked; a
 * merged one must have a valid IPv4 checksum (recomputed with csum()), the
 * pseudo-header sum in its TCP checksum field (recomputed from a pseudo
 * header built here), a payload equal to the stream the segments carried,
 * its offload marks and its segment size.  At the end, every offered packet
 * must be accounted for: handed back, merged into another, or dropped.  The
 * program exits non-zero at the first check that fails, saying what it
 * expected and what it got. */

#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "dp-packet.h"
#include "gro-cell.h"
#include "packets.h"
#include "random.h"
#include "test-harness.h"
#include "test-pkt.h"
#include "tso-segsz.h"
#include "util.h"

/* Headroom of a crafted packet: as if an Ethernet and an outer IPv4 header
 * had been stripped from a packet received with 128 bytes of headroom. */
#define TEST_HEADROOM (128 + ETH_HEADER_LEN + IP_HEADER_LEN)

/* Backlog of the cells the tests create, unless a test says otherwise. */
#define TEST_BACKLOG 256

/* The usual segment size of the tests (Ethernet MTU 1500 minus IPv4, TCP and
 * a timestamp option). */
#define TEST_MSS 1448

/* Most packets one test offers. */
#define TEST_MAX_OFFERED 4096

/* A segment to craft. */
struct seg_spec {
    ovs_be32 ip_src, ip_dst;    /* Inner addresses. */
    uint16_t sport, dport;      /* TCP ports. */
    uint32_t seq, ack;          /* TCP sequence and acknowledgment. */
    uint16_t flags;             /* TCP flags. */
    uint16_t win;               /* TCP window. */
    uint16_t urg;               /* TCP urgent pointer. */
    uint16_t ip_id;             /* IP ID. */
    uint8_t tos, ttl;           /* IP TOS and TTL. */
    bool df;                    /* IP DF. */
    size_t payload;             /* Payload bytes. */
    uint8_t opts[40];           /* TCP options. */
    size_t opts_len;            /* Bytes in 'opts', a multiple of 4. */
    ovs_be32 tun_src, tun_dst;  /* Tunnel (outer) addresses. */
    uint8_t tun_tos, tun_ttl;   /* Tunnel TOS and TTL. */
    uint16_t tun_flags;         /* Tunnel flags. */
    ovs_be16 tun_tp_src;        /* Tunnel (outer) UDP source port. */
    uint8_t tun_opts[8];        /* Raw Geneve options (UDPIF), if... */
    uint8_t tun_opts_len;       /* ...this is nonzero. */
    uint32_t in_port;           /* Input port. */
};

/* A copy of an offered packet, to compare with what comes back. */
struct offered {
    uint8_t *data;              /* Its bytes, from xmemdup(). */
    size_t size;                /* Number of bytes in 'data'. */
};

/* The state of one test. */
struct test {
    struct gro_cell *cell;      /* The cell under test. */
    struct offered offered[TEST_MAX_OFFERED]; /* Every packet offered. */
    size_t n_offered;           /* Number of elements in 'offered'. */
    size_t n_out;               /* Packets handed back so far. */
    bool quiet;                 /* Don't print each packet handed back. */
};

/* The byte at sequence number 'seq' of the stream of the flow with source
 * port 'sport': every byte differs from its neighbours, so that a payload
 * copied to the wrong place or in the wrong order shows. */
static uint8_t
stream_byte(uint16_t sport, uint32_t seq)
{
    return ((seq * 2654435761u) >> 24) ^ (seq & 0xff) ^ sport;
}

/* The one's-complement sum, unfolded, of the TCP/IPv4 pseudo header of
 * 'ip' with TCP length 'l4_len', built byte by byte here rather than with
 * packet_csum_pseudoheader(), which the code under test uses. */
static uint32_t
pseudo_sum(const struct ip_header *ip, size_t l4_len)
{
    uint8_t ph[12];

    memcpy(ph, &ip->ip_src, 4);
    memcpy(ph + 4, &ip->ip_dst, 4);
    ph[8] = 0;
    ph[9] = IPPROTO_TCP;
    ph[10] = l4_len >> 8;
    ph[11] = l4_len & 0xff;
    return csum_continue(0, ph, sizeof ph);
}

/* Returns the TCP checksum that 'tcp', 'l4_len' bytes of TCP segment under
 * 'ip', should carry, computed with its checksum field taken as zero. */
static ovs_be16
tcp_csum_of(const struct ip_header *ip, const struct tcp_header *tcp,
            size_t l4_len)
{
    uint8_t *copy = xmemdup(tcp, l4_len);
    struct tcp_header *th = ALIGNED_CAST(struct tcp_header *, copy);
    ovs_be16 result;

    th->tcp_csum = 0;
    result = csum_finish(csum_continue(pseudo_sum(ip, l4_len), copy, l4_len));
    free(copy);
    return result;
}

/* Returns the spec of a full segment of the tests' usual flow. */
static struct seg_spec
default_spec(void)
{
    struct seg_spec s;

    memset(&s, 0, sizeof s);
    s.ip_src = htonl(0x0a000001);
    s.ip_dst = htonl(0x0a000002);
    s.sport = 40000;
    s.dport = 5201;
    s.seq = 1000;
    s.ack = 77777;
    s.flags = TCP_ACK;
    s.win = 500;
    s.ip_id = 100;
    s.ttl = 64;
    s.df = true;
    s.payload = TEST_MSS;
    s.tun_src = htonl(0xc0a80001);
    s.tun_dst = htonl(0xc0a80002);
    s.tun_ttl = 64;
    s.in_port = 3;
    return s;
}

/* Returns a new inner TCP/IPv4 packet as 's' describes it, with valid
 * checksums and metadata, as the datapath hands it to a cell. */
static struct dp_packet *
make_seg(const struct seg_spec *s)
{
    size_t tcp_len = TCP_HEADER_LEN + s->opts_len;
    size_t len = IP_HEADER_LEN + tcp_len + s->payload;
    struct dp_packet *p = dp_packet_new_with_headroom(len, TEST_HEADROOM);
    struct ip_header *ip = dp_packet_put_zeros(p, IP_HEADER_LEN);
    struct tcp_header *tcp = dp_packet_put_zeros(p, TCP_HEADER_LEN);
    uint8_t *payload;

    ovs_assert(s->opts_len % 4 == 0 && s->opts_len <= sizeof s->opts);
    ip->ip_ihl_ver = IP_IHL_VER(5, IP_VERSION);
    ip->ip_tos = s->tos;
    ip->ip_tot_len = htons(len);
    ip->ip_id = htons(s->ip_id);
    ip->ip_frag_off = s->df ? htons(IP_DONT_FRAGMENT) : 0;
    ip->ip_ttl = s->ttl;
    ip->ip_proto = IPPROTO_TCP;
    put_16aligned_be32(&ip->ip_src, s->ip_src);
    put_16aligned_be32(&ip->ip_dst, s->ip_dst);
    ip->ip_csum = csum(ip, IP_HEADER_LEN);

    tcp->tcp_src = htons(s->sport);
    tcp->tcp_dst = htons(s->dport);
    put_16aligned_be32(&tcp->tcp_seq, htonl(s->seq));
    put_16aligned_be32(&tcp->tcp_ack, htonl(s->ack));
    tcp->tcp_ctl = TCP_CTL(s->flags, tcp_len / 4);
    tcp->tcp_winsz = htons(s->win);
    tcp->tcp_urg = htons(s->urg);
    dp_packet_put(p, s->opts, s->opts_len);
    payload = dp_packet_put_uninit(p, s->payload);
    for (size_t i = 0; i < s->payload; i++) {
        payload[i] = stream_byte(s->sport, s->seq + i);
    }
    tcp->tcp_csum = tcp_csum_of(ip, tcp, tcp_len + s->payload);

    p->packet_type = htonl(PT_IPV4);
    memset(&p->md, 0, sizeof p->md);
    p->md.in_port.odp_port = u32_to_odp(s->in_port);
    p->md.tunnel.ip_src = s->tun_src;
    p->md.tunnel.ip_dst = s->tun_dst;
    p->md.tunnel.ip_tos = s->tun_tos;
    p->md.tunnel.ip_ttl = s->tun_ttl;
    p->md.tunnel.flags = s->tun_flags;
    p->md.tunnel.tp_src = s->tun_tp_src;
    if (s->tun_opts_len) {
        p->md.tunnel.flags |= FLOW_TNL_F_UDPIF;
        p->md.tunnel.metadata.present.len = s->tun_opts_len;
        memcpy(p->md.tunnel.metadata.opts.u8, s->tun_opts, s->tun_opts_len);
    }
    dp_packet_set_l3(p, dp_packet_data(p));
    return p;
}

/* Returns a packet made of the 'n' bytes at 'data', with the metadata of a
 * decapsulated inner IPv4 packet, for malformed packets. */
static struct dp_packet *
make_raw(const void *data, size_t n)
{
    struct dp_packet *p = dp_packet_new_with_headroom(n, TEST_HEADROOM);

    dp_packet_put(p, data, n);
    p->packet_type = htonl(PT_IPV4);
    memset(&p->md, 0, sizeof p->md);
    p->md.in_port.odp_port = u32_to_odp(3);
    p->md.tunnel.ip_src = htonl(0xc0a80001);
    p->md.tunnel.ip_dst = htonl(0xc0a80002);
    p->md.tunnel.ip_ttl = 64;
    dp_packet_set_l3(p, dp_packet_data(p));
    return p;
}

/* Recomputes the IPv4 and TCP checksums of 'p', a packet made by
 * make_seg() whose headers a test changed. */
static void
fix_csums(struct dp_packet *p)
{
    struct ip_header *ip = dp_packet_data(p);
    size_t ihl = IP_IHL(ip->ip_ihl_ver) * 4;
    struct tcp_header *tcp = ALIGNED_CAST(struct tcp_header *,
                                          (char *) ip + ihl);

    ip->ip_csum = 0;
    ip->ip_csum = csum(ip, ihl);
    tcp->tcp_csum = tcp_csum_of(ip, tcp, ntohs(ip->ip_tot_len) - ihl);
}

/* Starts a test with a cell of 'max_backlog'. */
static void
test_init(struct test *t, size_t max_backlog)
{
    memset(t, 0, sizeof *t);
    t->cell = gro_cell_create(max_backlog);
}

/* Offers 'p' to the test's cell, keeping a copy of its bytes. */
static void
offer(struct test *t, struct dp_packet *p)
{
    struct offered *o;

    ovs_assert(t->n_offered < TEST_MAX_OFFERED);
    o = &t->offered[t->n_offered++];
    o->size = dp_packet_size(p);
    o->data = xmemdup(dp_packet_data(p), o->size);
    gro_cell_receive(t->cell, p);
}

/* Offers the segment 's' describes. */
static void
offer_seg(struct test *t, const struct seg_spec *s)
{
    offer(t, make_seg(s));
}

/* Checks 'p', a merged packet the cell handed back, and prints it. */
static void
check_merged(struct test *t, const struct dp_packet *p, size_t idx)
{
    const struct ip_header *ip = dp_packet_data(p);
    const struct tcp_header *tcp = ALIGNED_CAST(const struct tcp_header *,
                                                ip + 1);
    size_t size = dp_packet_size(p);
    size_t tcp_len, l4_len, payload_len;
    uint16_t segsz = tso_segsz_get(p);
    ovs_be16 expect_partial;
    const uint8_t *payload;
    uint32_t seq;
    uint8_t *copy;
    struct ds ds = DS_EMPTY_INITIALIZER;

    if (size < IP_HEADER_LEN + TCP_HEADER_LEN
        || ip->ip_ihl_ver != IP_IHL_VER(5, IP_VERSION)) {
        test_fail("out %"PRIuSIZE": merged packet of %"PRIuSIZE" bytes "
                  "does not start with a 20-byte IPv4 header", idx, size);
    }
    if (ntohs(ip->ip_tot_len) != size) {
        test_fail("out %"PRIuSIZE": IP total length %u, expected the packet "
             "size %"PRIuSIZE, idx, ntohs(ip->ip_tot_len), size);
    }
    if (size > GRO_CELL_MAX_LEN) {
        test_fail("out %"PRIuSIZE": merged packet of %"PRIuSIZE" bytes, more "
             "than GRO_CELL_MAX_LEN %d", idx, size, GRO_CELL_MAX_LEN);
    }
    if (csum(ip, IP_HEADER_LEN)) {
        test_fail("out %"PRIuSIZE": IP header checksum 0x%04x is wrong", idx,
             ntohs(ip->ip_csum));
    }
    l4_len = size - IP_HEADER_LEN;
    tcp_len = TCP_OFFSET(tcp->tcp_ctl) * 4;
    payload_len = l4_len - tcp_len;

    /* The checksum field holds the folded, uncomplemented pseudo-header
     * sum; summing the segment over it and complementing completes it. */
    expect_partial = ~csum_finish(pseudo_sum(ip, l4_len));
    if (tcp->tcp_csum != expect_partial) {
        test_fail("out %"PRIuSIZE": TCP checksum field 0x%04x, expected the "
             "pseudo-header sum 0x%04x", idx, ntohs(tcp->tcp_csum),
             ntohs(expect_partial));
    }
    copy = xmemdup(tcp, l4_len);
    ALIGNED_CAST(struct tcp_header *, copy)->tcp_csum = csum(copy, l4_len);
    if (csum_finish(csum_continue(pseudo_sum(ip, l4_len), copy, l4_len))) {
        test_fail("out %"PRIuSIZE": completing the TCP checksum from the "
             "pseudo-header sum does not give a valid checksum", idx);
    }
    free(copy);

    if (!segsz || !dp_packet_hwol_is_tso(p)) {
        test_fail("out %"PRIuSIZE": merged packet not marked for TSO", idx);
    }
    if (!dp_packet_hwol_is_ipv4(p) || !dp_packet_hwol_l4_is_tcp(p)) {
        test_fail("out %"PRIuSIZE": merged packet not marked for IPv4 and TCP "
             "checksum offload", idx);
    }
    if (dp_packet_l3(p) != dp_packet_data(p)
        || dp_packet_l4(p) != (const char *) dp_packet_data(p)
                              + IP_HEADER_LEN) {
        test_fail("out %"PRIuSIZE": l3_ofs/l4_ofs not at the IPv4 and TCP "
             "headers", idx);
    }
    if (dp_packet_headroom(p) < GRO_CELL_HEADROOM) {
        test_fail("out %"PRIuSIZE": headroom %"PRIuSIZE", expected at "
                  "least %d", idx, dp_packet_headroom(p), GRO_CELL_HEADROOM);
    }
    if (p->packet_type != htonl(PT_IPV4)) {
        test_fail("out %"PRIuSIZE": packet_type is not PT_IPV4", idx);
    }

    seq = ntohl(get_16aligned_be32(&tcp->tcp_seq));
    payload = (const uint8_t *) tcp + tcp_len;
    for (size_t i = 0; i < payload_len; i++) {
        uint8_t expect = stream_byte(ntohs(tcp->tcp_src), seq + i);
        if (payload[i] != expect) {
            test_fail("out %"PRIuSIZE": payload byte %"PRIuSIZE" (seq %u) is "
                 "0x%02x, expected 0x%02x", idx, i, seq + (uint32_t) i,
                 payload[i], expect);
        }
    }

    ds_put_format(&ds, "out %"PRIuSIZE": merged sport=%u seq=%u len=%"
                  PRIuSIZE" payload=%"PRIuSIZE" segsz=%u flags=", idx,
                  ntohs(tcp->tcp_src), seq, size, payload_len, segsz);
    test_format_tcp_flags(&ds, TCP_FLAGS(tcp->tcp_ctl));
    ds_put_format(&ds, " win=%u id=%u\n", ntohs(tcp->tcp_winsz),
                  ntohs(ip->ip_id));
    if (!t->quiet) {
        fputs(ds_cstr(&ds), stdout);
    }
    ds_destroy(&ds);
}

/* Checks 'p', a packet the cell handed back unmerged, and prints it: it must
 * be one of the packets offered, byte for byte, without TSO marks. */
static void
check_unmerged(struct test *t, const struct dp_packet *p, size_t idx)
{
    if (dp_packet_hwol_is_tso(p) || dp_packet_hwol_tx_l4_checksum(p)) {
        test_fail("out %"PRIuSIZE": an unmerged packet has offload marks",
                  idx);
    }
    for (size_t i = 0; i < t->n_offered; i++) {
        const struct offered *o = &t->offered[i];

        if (o->size == dp_packet_size(p)
            && !memcmp(o->data, dp_packet_data(p), o->size)) {
            if (!t->quiet) {
                printf("out %"PRIuSIZE": as offered #%"PRIuSIZE
                       " (%"PRIuSIZE" bytes)\n", idx, i, o->size);
            }
            return;
        }
    }
    test_fail("out %"PRIuSIZE": unmerged packet of %"PRIu32" bytes is not one "
         "of those offered", idx, dp_packet_size(p));
}

/* Takes every ready packet out of the cell, checks and prints it. */
static void
drain(struct test *t)
{
    for (;;) {
        struct dp_packet_batch batch;
        struct dp_packet *p;
        size_t n;

        dp_packet_batch_init(&batch);
        n = gro_cell_pop(t->cell, &batch);
        if (n != dp_packet_batch_size(&batch)) {
            test_fail("gro_cell_pop() returned %"PRIuSIZE" but put %"PRIuSIZE
                 " packets in the batch", n, dp_packet_batch_size(&batch));
        }
        if (!n) {
            break;
        }
        DP_PACKET_BATCH_FOR_EACH (i, p, &batch) {
            if (tso_segsz_get(p)) {
                check_merged(t, p, t->n_out);
            } else {
                check_unmerged(t, p, t->n_out);
            }
            t->n_out++;
        }
        dp_packet_delete_batch(&batch, true);
    }
}

/* Ends the poll round and drains the cell. */
static void
flush(struct test *t)
{
    printf("-- flush\n");
    gro_cell_flush(t->cell);
    drain(t);
}

/* Prints the cell's counters and backlog. */
static void
print_stats(const struct test *t)
{
    struct gro_cell_stats s;

    gro_cell_get_stats(t->cell, &s);
    printf("stats: in=%"PRIu64" merged=%"PRIu64" out=%"PRIu64" drops=%"
           PRIu64" csum_errors=%"PRIu64" backlog=%"PRIuSIZE" flushes:",
           s.segments_in, s.segments_merged, s.packets_out,
           s.backlog_drops, s.csum_errors, gro_cell_backlog(t->cell));
    for (int i = 0; i < GRO_N_FLUSH_REASONS; i++) {
        if (s.flushes[i]) {
            printf(" %s=%"PRIu64, gro_flush_reason_to_string(i),
                   s.flushes[i]);
        }
    }
    printf("\n");
}

/* Ends a test: drains the cell, prints its counters, checks that every
 * offered packet is accounted for, frees everything. */
static void
test_finish(struct test *t)
{
    struct gro_cell_stats s;

    flush(t);
    print_stats(t);
    gro_cell_get_stats(t->cell, &s);
    if (gro_cell_backlog(t->cell)) {
        test_fail("backlog %"PRIuSIZE" after a flush and a drain",
             gro_cell_backlog(t->cell));
    }
    if (s.packets_out != t->n_out) {
        test_fail("packets_out=%"PRIu64" but %"PRIuSIZE" packets were popped",
             s.packets_out, t->n_out);
    }
    if (t->n_offered != s.packets_out + s.segments_merged + s.backlog_drops) {
        test_fail("%"PRIuSIZE" packets offered, but out %"PRIu64" + merged %"
             PRIu64" + dropped %"PRIu64" differ", t->n_offered,
             s.packets_out, s.segments_merged, s.backlog_drops);
    }
    gro_cell_destroy(t->cell);
    for (size_t i = 0; i < t->n_offered; i++) {
        free(t->offered[i].data);
    }
}

/* Offers 'n' in-order segments of 's''s flow, from 's', advancing 's'. */
static void
offer_stream(struct test *t, struct seg_spec *s, int n)
{
    for (int i = 0; i < n; i++) {
        offer_seg(t, s);
        s->seq += s->payload;
        s->ip_id++;
    }
}

/* The tests: test_NAME() is run by "test-gro NAME", and by the .at test
 * whose title says what it shows. */

static void
test_merge(struct test *t)
{
    struct seg_spec s = default_spec();

    for (int i = 0; i < 5; i++) {
        s.win = 500 + i;
        offer_seg(t, &s);
        s.seq += s.payload;
        s.ip_id++;
    }
    printf("-- before flush\n");
    drain(t);
}

static void
test_psh(struct test *t)
{
    struct seg_spec s = default_spec();

    offer_stream(t, &s, 2);
    s.flags |= TCP_PSH;
    offer_stream(t, &s, 1);
    printf("-- before flush\n");
    drain(t);

    /* A PSH segment that starts a packet is passed through at once. */
    s.flags = TCP_ACK | TCP_PSH;
    offer_stream(t, &s, 1);
    printf("-- lone psh\n");
    drain(t);
}

static void
test_fin(struct test *t)
{
    struct seg_spec s = default_spec();

    offer_stream(t, &s, 2);
    s.flags |= TCP_FIN;
    s.payload = 100;
    offer_stream(t, &s, 1);
    printf("-- before flush\n");
    drain(t);
}

static void
test_rst(struct test *t)
{
    struct seg_spec s = default_spec();

    offer_stream(t, &s, 3);
    s.flags = TCP_RST | TCP_ACK;
    s.payload = 0;
    offer_stream(t, &s, 1);
    printf("-- before flush\n");
    drain(t);
}

static void
test_urg(struct test *t)
{
    struct seg_spec s = default_spec();

    offer_stream(t, &s, 3);
    s.flags = TCP_URG | TCP_ACK;
    s.urg = 10;
    offer_stream(t, &s, 1);
    s.flags = TCP_ACK;
    s.urg = 0;
    offer_stream(t, &s, 2);
    printf("-- before flush\n");
    drain(t);
}

static void
test_gap(struct test *t)
{
    struct seg_spec s = default_spec();

    /* The IP IDs stay consecutive, so that only the sequence numbers tell
     * the gaps. */
    offer_stream(t, &s, 2);
    s.seq += s.payload;         /* One segment lost. */
    offer_stream(t, &s, 2);
    s.seq -= 3 * s.payload;     /* The lost one, late. */
    offer_stream(t, &s, 1);
}

static void
test_options(struct test *t)
{
    struct seg_spec s = default_spec();
    static const uint8_t ts[12] = {
        1, 1, 8, 10, 0, 0, 0x10, 0, 0, 0, 0x20, 0   /* NOP NOP TS. */
    };

    memcpy(s.opts, ts, sizeof ts);
    s.opts_len = sizeof ts;
    offer_stream(t, &s, 2);
    s.opts[7] = 1;              /* Later timestamp. */
    offer_stream(t, &s, 2);
    s.opts_len = 0;             /* No options at all. */
    offer_stream(t, &s, 2);
}

static void
test_tos(struct test *t)
{
    struct seg_spec s = default_spec();

    offer_stream(t, &s, 2);
    s.tos = 0x02;               /* ECT(0). */
    offer_stream(t, &s, 2);
    s.ttl = 63;
    offer_stream(t, &s, 1);
    s.df = false;
    offer_stream(t, &s, 1);
}

static void
test_tunnel(struct test *t)
{
    struct seg_spec a = default_spec();
    struct seg_spec b = default_spec();
    struct seg_spec c;

    /* The same inner flow through two tunnels, and through two ports: three
     * flows. */
    b.tun_src = htonl(0xc0a80009);
    c = a;
    c.in_port = 4;
    for (int i = 0; i < 2; i++) {
        offer_stream(t, &a, 1);
        offer_stream(t, &b, 1);
        offer_stream(t, &c, 1);
    }
    flush(t);

    /* The tunnel's TOS, TTL or flags change: flushed. */
    offer_stream(t, &a, 2);
    a.tun_tos = 0x10;
    offer_stream(t, &a, 2);
    a.tun_ttl = 10;
    offer_stream(t, &a, 2);
    a.tun_flags = FLOW_TNL_F_DONT_FRAGMENT;
    offer_stream(t, &a, 2);
}

/* Geneve options and the outer UDP source port separate flows, as Linux's
 * geneve_gro_receive() and udp_gro_receive() compare them. */
static void
test_tunnel_identity(struct test *t)
{
    static const uint8_t opt_a[8] = { 0xff, 0xff, 0, 1, 0, 0, 0x12, 0x34 };
    static const uint8_t opt_b[8] = { 0xff, 0xff, 0, 1, 0, 0, 0x56, 0x78 };
    struct seg_spec a = default_spec();
    struct seg_spec b, c, d;

    a.tun_tp_src = htons(50000);
    memcpy(a.tun_opts, opt_a, sizeof opt_a);
    a.tun_opts_len = sizeof opt_a;
    b = a;
    memcpy(b.tun_opts, opt_b, sizeof opt_b);
    c = a;
    c.tun_tp_src = htons(50001);
    d = a;
    d.tun_opts_len = 0;

    /* The same inner flow and outer addresses, four tunnels: four flows,
     * each merging its own two segments. */
    for (int i = 0; i < 2; i++) {
        offer_stream(t, &a, 1);
        offer_stream(t, &b, 1);
        offer_stream(t, &c, 1);
        offer_stream(t, &d, 1);
    }
    flush(t);
}

static void
test_ack(struct test *t)
{
    struct seg_spec s = default_spec();

    offer_stream(t, &s, 2);
    s.ack += 1000;
    offer_stream(t, &s, 2);
}

static void
test_size_limit(struct test *t)
{
    struct seg_spec s = default_spec();
    int max_segs = (GRO_CELL_MAX_LEN - IP_HEADER_LEN - TCP_HEADER_LEN)
                   / TEST_MSS;

    printf("max segments of %d bytes: %d\n", TEST_MSS, max_segs);
    s.ip_id = 65530;            /* The IP ID wraps around. */
    s.df = false;
    offer_stream(t, &s, max_segs + 3);
    printf("-- before flush\n");
    drain(t);
}

static void
test_short(struct test *t)
{
    struct seg_spec s = default_spec();

    offer_stream(t, &s, 2);
    s.payload = 500;
    offer_stream(t, &s, 1);
    printf("-- before flush\n");
    drain(t);

    /* A segment longer than the first ends the packet without merging, and
     * starts the next one. */
    s.payload = 1000;
    offer_stream(t, &s, 1);
    s.payload = TEST_MSS;
    offer_stream(t, &s, 2);
}

static void
test_lone(struct test *t)
{
    struct seg_spec s = default_spec();
    struct seg_spec s2 = default_spec();

    offer_stream(t, &s, 1);
    s2.sport = 40001;
    s2.payload = 1;
    offer_stream(t, &s2, 1);
}

static void
test_cwr(struct test *t)
{
    struct seg_spec s = default_spec();

    offer_stream(t, &s, 2);
    s.flags = TCP_ACK | TCP_CWR;
    offer_stream(t, &s, 1);
    s.flags = TCP_ACK;
    offer_stream(t, &s, 2);
    s.flags = TCP_ACK | TCP_ECE;
    offer_stream(t, &s, 2);
}

static void
test_ip_id(struct test *t)
{
    struct seg_spec s = default_spec();

    /* DF with a fixed ID merges. */
    for (int i = 0; i < 3; i++) {
        offer_seg(t, &s);
        s.seq += s.payload;
    }
    /* Then an incrementing ID does not continue it. */
    s.ip_id++;
    offer_stream(t, &s, 2);
    /* Nor does a skipped ID. */
    s.ip_id++;
    offer_stream(t, &s, 2);
    flush(t);

    /* Without DF, a fixed ID does not merge. */
    s.df = false;
    offer_seg(t, &s);
    s.seq += s.payload;
    offer_seg(t, &s);
    s.seq += s.payload;
}

static void
test_interleave(struct test *t)
{
    struct seg_spec a = default_spec();
    struct seg_spec b = default_spec();

    b.ip_src = htonl(0x0a000003);
    b.sport = 40001;
    b.seq = 5000000;
    for (int i = 0; i < 4; i++) {
        offer_stream(t, &a, 1);
        offer_stream(t, &b, 1);
    }
}

static void
test_flows(struct test *t)
{
    struct seg_spec s[GRO_CELL_MAX_FLOWS + 2];

    for (int i = 0; i < ARRAY_SIZE(s); i++) {
        s[i] = default_spec();
        s[i].sport = 41000 + i;
        offer_stream(t, &s[i], 2);
    }
    printf("-- before flush\n");
    drain(t);
    for (int i = 0; i < ARRAY_SIZE(s); i++) {
        offer_stream(t, &s[i], 1);
    }
}

/* Valid-looking TCP/IPv4 bytes to break: a 20-byte IPv4 header, a 20-byte
 * TCP header, 8 bytes of payload. */
static size_t
base_bytes(uint8_t *buf, uint16_t sport)
{
    struct seg_spec s = default_spec();
    struct dp_packet *p;
    size_t n;

    s.payload = 8;
    s.sport = sport;
    p = make_seg(&s);
    n = dp_packet_size(p);
    memcpy(buf, dp_packet_data(p), n);
    dp_packet_delete(p);
    return n;
}

static void
test_malformed(struct test *t)
{
    uint8_t buf[256];
    struct ip_header *ip = ALIGNED_CAST(struct ip_header *, buf);
    struct tcp_header *tcp = ALIGNED_CAST(struct tcp_header *, buf + 20);
    struct dp_packet *p;
    size_t n;

    /* A flow held all along, which none of these may disturb: they are of
     * no TCP flow, or of another one. */
    struct seg_spec s = default_spec();
    s.sport = 50000;
    offer_stream(t, &s, 1);

    printf("empty\n");
    offer(t, make_raw(buf, 0));
    printf("10 bytes\n");
    n = base_bytes(buf, 40000);
    offer(t, make_raw(buf, 10));
    printf("IHL 4\n");
    n = base_bytes(buf, 40000);
    ip->ip_ihl_ver = IP_IHL_VER(4, 4);
    offer(t, make_raw(buf, n));
    printf("IHL 15, longer than the packet\n");
    n = base_bytes(buf, 40000);
    ip->ip_ihl_ver = IP_IHL_VER(15, 4);
    offer(t, make_raw(buf, 40));
    printf("version 6\n");
    n = base_bytes(buf, 40000);
    ip->ip_ihl_ver = IP_IHL_VER(5, 6);
    offer(t, make_raw(buf, n));
    printf("total length beyond the packet\n");
    n = base_bytes(buf, 40000);
    ip->ip_tot_len = htons(n + 1);
    offer(t, make_raw(buf, n));
    printf("total length 65535 in a short packet\n");
    n = base_bytes(buf, 40000);
    ip->ip_tot_len = htons(65535);
    offer(t, make_raw(buf, n));
    printf("total length shorter than the header\n");
    n = base_bytes(buf, 40000);
    ip->ip_tot_len = htons(19);
    offer(t, make_raw(buf, n));
    printf("TCP header truncated\n");
    n = base_bytes(buf, 40000);
    ip->ip_tot_len = htons(30);
    ip->ip_csum = 0;
    ip->ip_csum = csum(ip, 20);
    offer(t, make_raw(buf, 30));
    printf("TCP data offset 15, beyond the packet\n");
    n = base_bytes(buf, 40000);
    tcp->tcp_ctl = TCP_CTL(TCP_ACK, 15);
    offer(t, make_raw(buf, n));
    printf("TCP data offset 4\n");
    n = base_bytes(buf, 40000);
    tcp->tcp_ctl = TCP_CTL(TCP_ACK, 4);
    offer(t, make_raw(buf, n));
    printf("TCP data offset 0\n");
    n = base_bytes(buf, 40000);
    tcp->tcp_ctl = TCP_CTL(TCP_ACK, 0);
    offer(t, make_raw(buf, n));
    printf("UDP\n");
    n = base_bytes(buf, 40000);
    ip->ip_proto = IPPROTO_UDP;
    offer(t, make_raw(buf, n));
    printf("ICMP\n");
    n = base_bytes(buf, 40000);
    ip->ip_proto = IPPROTO_ICMP;
    offer(t, make_raw(buf, n));
    printf("packet_type Ethernet\n");
    n = base_bytes(buf, 40000);
    p = make_raw(buf, n);
    p->packet_type = htonl(PT_ETH);
    offer(t, p);
    printf("bad IPv4 checksum\n");
    n = base_bytes(buf, 40000);
    ip->ip_csum ^= htons(1);
    offer(t, make_raw(buf, n));
    printf("bad TCP checksum\n");
    n = base_bytes(buf, 40000);
    tcp->tcp_csum ^= htons(1);
    offer(t, make_raw(buf, n));
    printf("bad payload byte\n");
    n = base_bytes(buf, 40000);
    buf[n - 1] ^= 0x40;
    offer(t, make_raw(buf, n));
    printf("-- before flush\n");
    drain(t);
}

static void
test_unmergeable(struct test *t)
{
    struct seg_spec s = default_spec();
    struct dp_packet *p;
    struct ip_header *ip;

    /* Each packet of the flow that cannot merge flushes its held packet
     * first, and goes out after it, untouched. */
    printf("pure ACK\n");
    offer_stream(t, &s, 2);
    s.payload = 0;
    offer_stream(t, &s, 1);
    s.payload = TEST_MSS;

    printf("SYN with data\n");
    offer_stream(t, &s, 2);
    s.flags = TCP_SYN | TCP_ACK;
    offer_stream(t, &s, 1);
    s.flags = TCP_ACK;

    printf("first fragment\n");
    offer_stream(t, &s, 2);
    p = make_seg(&s);
    ip = dp_packet_data(p);
    ip->ip_frag_off = htons(IP_MORE_FRAGMENTS);
    fix_csums(p);
    offer(t, p);
    s.seq += s.payload;
    s.ip_id++;

    printf("later fragment (no ports: flushes both flows between the "
           "addresses)\n");
    offer_stream(t, &s, 2);
    struct seg_spec other = default_spec();
    other.sport = 40001;
    offer_stream(t, &other, 1);
    p = make_seg(&s);
    ip = dp_packet_data(p);
    ip->ip_frag_off = htons(100);
    fix_csums(p);
    offer(t, p);
    s.seq += s.payload;
    s.ip_id++;

    printf("IP options\n");
    offer_stream(t, &s, 2);
    {
        struct dp_packet *q = make_seg(&s);
        size_t n = dp_packet_size(q);
        uint8_t *buf = xmalloc(n + 4);

        /* Insert 4 bytes of IP options (NOPs, an End). */
        memcpy(buf, dp_packet_data(q), 20);
        memcpy(buf + 20, "\x01\x01\x01\x00", 4);
        memcpy(buf + 24, (char *) dp_packet_data(q) + 20, n - 20);
        ip = ALIGNED_CAST(struct ip_header *, buf);
        ip->ip_ihl_ver = IP_IHL_VER(6, IP_VERSION);
        ip->ip_tot_len = htons(n + 4);
        p = make_raw(buf, n + 4);
        fix_csums(p);
        offer(t, p);
        free(buf);
        dp_packet_delete(q);
    }
    s.seq += s.payload;
    s.ip_id++;

    printf("bytes after the IP total length\n");
    offer_stream(t, &s, 2);
    p = make_seg(&s);
    dp_packet_put_zeros(p, 6);
    offer(t, p);
    s.seq += s.payload;
    s.ip_id++;
    drain(t);
}

static void
test_backlog(struct test *t)
{
    struct seg_spec a = default_spec();
    struct seg_spec b = default_spec();
    struct seg_spec u = default_spec();
    struct dp_packet *p;

    b.sport = 40001;
    u.sport = 40002;
    offer_stream(t, &a, 2);     /* Held: 1. */
    for (int i = 0; i < 3; i++) {
        /* Ready: a short segment of another flow with PSH. */
        u.flags = TCP_ACK | TCP_PSH;
        u.payload = 10;
        offer_stream(t, &u, 1);
    }
    printf("backlog %"PRIuSIZE"\n", gro_cell_backlog(t->cell));
    offer_stream(t, &u, 1);     /* Dropped. */
    offer_stream(t, &b, 1);     /* A new flow: dropped. */
    offer_stream(t, &a, 1);     /* Merges: no new packet. */
    p = make_seg(&u);
    ALIGNED_CAST(struct ip_header *, dp_packet_data(p))->ip_proto = 17;
    offer(t, p);                /* Not TCP: dropped. */
    printf("backlog %"PRIuSIZE"\n", gro_cell_backlog(t->cell));
    printf("-- before flush\n");
    drain(t);
    printf("backlog %"PRIuSIZE"\n", gro_cell_backlog(t->cell));
    offer_stream(t, &b, 1);     /* Room again. */

    /* A gap in the held flow, with a full backlog: the held packet goes
     * out, the new segment is dropped. */
    offer_stream(t, &u, 3);
    a.seq += 1;
    offer_stream(t, &a, 1);
}

static void
test_destroy(struct test *t)
{
    struct seg_spec a = default_spec();
    struct seg_spec b = default_spec();

    /* Packets held, merged and ready when the cell is destroyed are freed
     * (valgrind checks it). */
    b.sport = 40001;
    offer_stream(t, &a, 3);
    b.flags |= TCP_PSH;
    offer_stream(t, &b, 1);
    gro_cell_destroy(t->cell);
    gro_cell_destroy(NULL);
    for (size_t i = 0; i < t->n_offered; i++) {
        free(t->offered[i].data);
    }
    printf("destroyed with 2 packets in the backlog\n");
}

static void
test_pop_burst(struct test *t)
{
    struct seg_spec u = default_spec();
    struct dp_packet_batch batch;
    size_t n;

    u.flags = TCP_ACK | TCP_PSH;
    u.payload = 10;
    t->quiet = true;
    for (int i = 0; i < NETDEV_MAX_BURST + 5; i++) {
        u.sport = 30000 + i;
        offer_stream(t, &u, 1);
    }
    dp_packet_batch_init(&batch);
    n = gro_cell_pop(t->cell, &batch);
    printf("first pop: %"PRIuSIZE", backlog %"PRIuSIZE"\n", n,
           gro_cell_backlog(t->cell));
    for (size_t i = 0; i < n; i++) {
        const struct tcp_header *tcp = ALIGNED_CAST(
            const struct tcp_header *,
            (char *) dp_packet_data(batch.packets[i]) + IP_HEADER_LEN);

        if (ntohs(tcp->tcp_src) != 30000 + i) {
            test_fail("popped packet %"PRIuSIZE" has port %u, expected %"
                 PRIuSIZE" (out of order)", i, ntohs(tcp->tcp_src),
                 30000 + i);
        }
    }
    t->n_out += n;
    dp_packet_delete_batch(&batch, true);
    drain(t);
    printf("popped in order\n");
}

/* Random damage to a stream of segments: every packet offered must come
 * back or be merged, checked, and nothing may crash or leak. */
static void
test_fuzz(struct test *t)
{
    struct seg_spec s[3];

    random_set_seed(0x5eed);
    t->quiet = true;
    for (int i = 0; i < ARRAY_SIZE(s); i++) {
        s[i] = default_spec();
        s[i].sport = 42000 + i;
    }
    for (int i = 0; i < 3000; i++) {
        struct seg_spec *f = &s[random_range(ARRAY_SIZE(s))];
        struct dp_packet *p;
        size_t size;
        int what = random_range(10);

        f->payload = random_range(8) ? TEST_MSS : random_range(TEST_MSS + 1);
        f->flags = TCP_ACK | (random_range(20) ? 0 : TCP_PSH);
        p = make_seg(f);
        size = dp_packet_size(p);
        if (what == 0) {
            /* Flip a byte of the headers. */
            ((uint8_t *) dp_packet_data(p))[random_range(40)]
                ^= 1 << random_range(8);
        } else if (what == 1) {
            /* Truncate. */
            dp_packet_set_size(p, random_range(size + 1));
        } else if (what == 2) {
            /* Damage and fix the checksums. */
            ((uint8_t *) dp_packet_data(p))[random_range(40)]
                ^= 1 << random_range(8);
            if (size >= 40) {
                struct ip_header *ip = dp_packet_data(p);
                size_t ihl = IP_IHL(ip->ip_ihl_ver) * 4;

                if (ihl >= 20 && ihl + 20 <= size
                    && ntohs(ip->ip_tot_len) == size) {
                    fix_csums(p);
                }
            }
        }
        offer(t, p);
        if (random_range(4)) {
            f->seq += f->payload;
            f->ip_id++;
        }
        if (random_range(50) == 0) {
            gro_cell_flush(t->cell);
        }
        if (random_range(10) == 0) {
            drain(t);
        }
        if (t->n_offered == TEST_MAX_OFFERED) {
            break;
        }
    }
    printf("fuzz: %"PRIuSIZE" packets offered\n", t->n_offered);
    drain(t);
}

/* A test the command line can name. */
struct test_case {
    const char *name;           /* Its name on the command line. */
    void (*run)(struct test *); /* Offers the packets. */
    size_t max_backlog;         /* Backlog of its cell. */
    bool finishes_itself;       /* Destroys the cell itself. */
};

static const struct test_case tests[] = {
    { "merge", test_merge, TEST_BACKLOG, false },
    { "psh", test_psh, TEST_BACKLOG, false },
    { "fin", test_fin, TEST_BACKLOG, false },
    { "rst", test_rst, TEST_BACKLOG, false },
    { "urg", test_urg, TEST_BACKLOG, false },
    { "gap", test_gap, TEST_BACKLOG, false },
    { "options", test_options, TEST_BACKLOG, false },
    { "tos", test_tos, TEST_BACKLOG, false },
    { "tunnel", test_tunnel, TEST_BACKLOG, false },
    { "tunnel-identity", test_tunnel_identity, TEST_BACKLOG, false },
    { "ack", test_ack, TEST_BACKLOG, false },
    { "size-limit", test_size_limit, TEST_BACKLOG, false },
    { "short", test_short, TEST_BACKLOG, false },
    { "lone", test_lone, TEST_BACKLOG, false },
    { "cwr", test_cwr, TEST_BACKLOG, false },
    { "ip-id", test_ip_id, TEST_BACKLOG, false },
    { "interleave", test_interleave, TEST_BACKLOG, false },
    { "flows", test_flows, TEST_BACKLOG, false },
    { "malformed", test_malformed, TEST_BACKLOG, false },
    { "unmergeable", test_unmergeable, TEST_BACKLOG, false },
    { "backlog", test_backlog, 4, false },
    { "destroy", test_destroy, TEST_BACKLOG, true },
    { "pop-burst", test_pop_burst, TEST_BACKLOG, false },
    { "fuzz", test_fuzz, TEST_BACKLOG, false },
};

/* Runs 'tc' with a cell of its own, then checks and frees everything. */
static void
run_test(const struct test_case *tc)
{
    struct test *t = xmalloc(sizeof *t);

    test_init(t, tc->max_backlog);
    tc->run(t);
    if (!tc->finishes_itself) {
        test_finish(t);
    }
    free(t);
}

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    if (argc != 2) {
        ovs_fatal(0, "usage: %s TEST|all", argv[0]);
    }
    for (size_t i = 0; i < ARRAY_SIZE(tests); i++) {
        if (!strcmp(argv[1], "all")) {
            printf("== %s\n", tests[i].name);
            run_test(&tests[i]);
        } else if (!strcmp(argv[1], tests[i].name)) {
            run_test(&tests[i]);
            return 0;
        }
    }
    if (strcmp(argv[1], "all")) {
        ovs_fatal(0, "unknown test %s", argv[1]);
    }
    return 0;
}

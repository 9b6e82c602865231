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

/* Unit tests for lib/packet/ipf-cpu.c, run by tests/percpu-ipf.at.
 *
 * Each subcommand drives one behaviour with crafted fragments and prints
 * what happened to each fragment and the table's counters.  Reassembled
 * packets are compared byte for byte with the whole datagram, which this
 * program builds itself, and IPv4 header checksums are verified with csum()
 * over the output's bytes.  Any failed check prints what was expected and
 * what came, and exits with status 1. */

#include <config.h>

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "dp-packet.h"
#include "flow.h"
#include "ipf-cpu.h"
#include "openvswitch/util.h"
#include "packets.h"
#include "test-harness.h"
#include "util.h"

/* Bytes of an Ethernet header, as the test builds it. */
#define TEST_ETH_LEN 14

/* Bytes of the IPv6 hop-by-hop header the test can add. */
#define TEST_HBH_LEN 8

/* Bytes of an IPv6 fragment header. */
#define TEST_FRAG6_LEN 8

/* A datagram the test fragments. */
struct dgram {
    bool ipv6;                  /* IPv6 rather than IPv4. */
    bool eth;                   /* Ethernet frames rather than L3 packets. */
    bool hbh;                   /* IPv6: a hop-by-hop header before the
                                 * fragment header (unfragmentable part). */
    int ihl;                    /* IPv4: header length in 32-bit words. */
    uint32_t id;                /* IP identification. */
    uint8_t proto;              /* Transport protocol. */
    uint32_t in_port;           /* md.in_port. */
    uint32_t recirc_id;         /* md.recirc_id. */
    ovs_be32 tun_dst;           /* md.tunnel.ip_dst, or 0. */
    size_t alloc;               /* Buffer size of each fragment, if more
                                 * than needed. */
    size_t len;                 /* Data length (transport header and up). */
    uint8_t data[65536];        /* The data. */
};

/* Returns a new datagram with 'len' bytes of patterned data. */
static struct dgram *
dgram_new(bool ipv6, bool eth, uint8_t proto, size_t len, uint32_t id)
{
    struct dgram *d = xzalloc(sizeof *d);

    d->ipv6 = ipv6;
    d->eth = eth;
    d->ihl = 5;
    d->id = id;
    d->proto = proto;
    d->in_port = 1;
    d->len = len;
    for (size_t i = 0; i < len; i++) {
        d->data[i] = (i * 7 + id) & 0xff;
    }
    return d;
}

/* Builds a packet of datagram 'd': its fragment with data [start, start +
 * len) and MF 'more' if 'frag', else the whole datagram unfragmented (what
 * reassembly must produce). */
static struct dp_packet *
build(const struct dgram *d, size_t start, size_t len, bool more, bool frag)
{
    size_t l2 = d->eth ? TEST_ETH_LEN : 0;
    size_t l3;
    struct dp_packet *p;
    uint8_t *b;

    if (d->ipv6) {
        l3 = IPV6_HEADER_LEN + (d->hbh ? TEST_HBH_LEN : 0)
             + (frag ? TEST_FRAG6_LEN : 0);
    } else {
        l3 = d->ihl * 4;
    }
    p = dp_packet_new(MAX(d->alloc, l2 + l3 + len));
    b = dp_packet_put_zeros(p, l2 + l3 + len);

    if (d->eth) {
        static const uint8_t macs[12] = {
            0x50, 0x54, 0x00, 0x00, 0x00, 0x01,
            0x50, 0x54, 0x00, 0x00, 0x00, 0x02,
        };
        uint16_t type = d->ipv6 ? ETH_TYPE_IPV6 : ETH_TYPE_IP;

        memcpy(b, macs, sizeof macs);
        b[12] = type >> 8;
        b[13] = type & 0xff;
        p->packet_type = htonl(PT_ETH);
    } else {
        p->packet_type = htonl(d->ipv6 ? PT_IPV6 : PT_IPV4);
    }
    b += l2;

    if (!d->ipv6) {
        struct ip_header *ip = (struct ip_header *) b;

        ip->ip_ihl_ver = IP_IHL_VER(d->ihl, 4);
        ip->ip_tot_len = htons(l3 + len);
        ip->ip_id = htons(d->id);
        ip->ip_frag_off = frag ? htons((start / 8) | (more ? 0x2000 : 0)) : 0;
        ip->ip_ttl = 64;
        ip->ip_proto = d->proto;
        put_16aligned_be32(&ip->ip_src, htonl(0xc0a80001));
        put_16aligned_be32(&ip->ip_dst, htonl(0xc0a80002));
        /* Options, if any: NOPs. */
        memset(b + IP_HEADER_LEN, 1, l3 - IP_HEADER_LEN);
        ip->ip_csum = csum(ip, l3);
    } else {
        uint8_t *h = b + IPV6_HEADER_LEN;

        b[0] = 0x60;
        b[4] = (l3 - IPV6_HEADER_LEN + len) >> 8;
        b[5] = (l3 - IPV6_HEADER_LEN + len) & 0xff;
        b[7] = 64;
        for (int i = 0; i < 16; i++) {
            b[8 + i] = i == 0 ? 0x20 : i == 1 ? 0x01 : i == 15 ? 1 : 0;
            b[24 + i] = i == 0 ? 0x20 : i == 1 ? 0x01 : i == 15 ? 2 : 0;
        }
        /* Chain: [hop-by-hop] [fragment] proto. */
        b[6] = d->hbh ? IPPROTO_HOPOPTS : frag ? IPPROTO_FRAGMENT : d->proto;
        if (d->hbh) {
            h[0] = frag ? IPPROTO_FRAGMENT : d->proto;
            h[1] = 0;
            h[2] = 1;           /* PadN... */
            h[3] = 4;           /* ...of 4 bytes. */
            h += TEST_HBH_LEN;
        }
        if (frag) {
            h[0] = d->proto;
            h[2] = (start | (more ? 1 : 0)) >> 8;
            h[3] = (start | (more ? 1 : 0)) & 0xff;
            put_16aligned_be32((ovs_16aligned_be32 *) (h + 4), htonl(d->id));
        }
    }
    memcpy(b + l3, d->data + start, len);

    pkt_metadata_init(&p->md, u32_to_odp(d->in_port));
    p->md.recirc_id = d->recirc_id;
    if (d->tun_dst) {
        p->md.tunnel.ip_dst = d->tun_dst;
        p->md.tunnel.ip_src = htonl(0x0a000001);
        p->md.tunnel.tun_id = htonll(42);
    }
    p->l3_ofs = l2;
    return p;
}

/* Returns fragment [start, start + len) of 'd', with MF 'more'. */
static struct dp_packet *
frag(const struct dgram *d, size_t start, size_t len, bool more)
{
    return build(d, start, len, more, true);
}

/* Returns the 'i'th of the fragments of 'd' that carry 'size' bytes each
 * (the last one less). */
static struct dp_packet *
nth_frag(const struct dgram *d, size_t size, size_t i)
{
    size_t start = i * size;
    size_t len = MIN(size, d->len - start);

    return frag(d, start, len, start + len < d->len);
}

/* Returns how many fragments of 'size' bytes 'd' makes. */
static size_t
n_frags(const struct dgram *d, size_t size)
{
    return DIV_ROUND_UP(d->len, size);
}

/* Reads the stats of 'ipf'. */
static struct ipf_cpu_stats
stats(const struct ipf_cpu *ipf)
{
    struct ipf_cpu_stats s;

    ipf_cpu_get_stats(ipf, &s);
    return s;
}

/* Returns the sum of the drop counters in 's'. */
static uint64_t
total_drops(const struct ipf_cpu_stats *s)
{
    uint64_t n = 0;

    for (int i = 0; i < IPF_N_DROP_REASONS; i++) {
        n += s->drops[i];
    }
    return n;
}

/* Prints the counters of 'ipf' on one line. */
static void
print_stats(const struct ipf_cpu *ipf)
{
    struct ipf_cpu_stats s = stats(ipf);
    bool any = false;

    printf("stats: in=%"PRIu64" reassembled=%"PRIu64" evicted=%"PRIu64
           " timed_out=%"PRIu64" discarded=%"PRIu64" queues=%"PRIu64
           " bytes_held%s drops:",
           s.fragments_in, s.reassembled, s.evicted, s.timed_out,
           s.discarded, s.queues, s.bytes_held ? ">0" : "=0");
    for (int i = 0; i < IPF_N_DROP_REASONS; i++) {
        if (s.drops[i]) {
            printf(" %s=%"PRIu64, ipf_cpu_drop_reason_to_string(i),
                   s.drops[i]);
            any = true;
        }
    }
    printf("%s\n", any ? "" : " none");
    if ((s.queues == 0) != (s.bytes_held == 0)) {
        test_fail("bytes_held %"PRIu64" with %"PRIu64" queues", s.bytes_held,
             s.queues);
    }
    if (s.bytes_held > IPF_CPU_DEFAULT_HIGH_THRESH) {
        test_fail("bytes_held %"PRIu64" above the default high threshold",
             s.bytes_held);
    }
}

/* Checks that 'out' is byte for byte the whole datagram 'd', with a valid
 * IPv4 header checksum, and the metadata of 'd'. */
static void
check_reassembled(const struct dgram *d, const struct dp_packet *out)
{
    struct dp_packet *whole = build(d, 0, d->len, false, false);
    size_t l2 = d->eth ? TEST_ETH_LEN : 0;

    if (dp_packet_size(out) != dp_packet_size(whole)) {
        test_fail("reassembled %"PRIu32" bytes, expected %"PRIu32,
             dp_packet_size(out), dp_packet_size(whole));
    }
    for (size_t i = 0; i < dp_packet_size(out); i++) {
        uint8_t got = ((const uint8_t *) dp_packet_data(out))[i];
        uint8_t exp = ((const uint8_t *) dp_packet_data(whole))[i];

        if (got != exp) {
            test_fail("reassembled byte %"PRIuSIZE" is 0x%02x, "
                      "expected 0x%02x", i, got, exp);
        }
    }
    if (out->l3_ofs != l2) {
        test_fail("reassembled l3_ofs %u, expected %"PRIuSIZE,
                  out->l3_ofs, l2);
    }
    if (!d->ipv6) {
        const struct ip_header *ip = dp_packet_l3(out);

        if (csum(ip, IP_IHL(ip->ip_ihl_ver) * 4)) {
            test_fail("reassembled IPv4 header checksum does not verify");
        }
    }
    if (odp_to_u32(out->md.in_port.odp_port) != d->in_port) {
        test_fail("reassembled in_port %"PRIu32", expected %"PRIu32,
             odp_to_u32(out->md.in_port.odp_port), d->in_port);
    }
    if (out->md.recirc_id != d->recirc_id) {
        test_fail("reassembled recirc_id %"PRIu32", expected %"PRIu32,
             out->md.recirc_id, d->recirc_id);
    }
    if (out->packet_type != whole->packet_type) {
        test_fail("reassembled packet_type 0x%08"PRIx32", "
                  "expected 0x%08"PRIx32,
                  ntohl(out->packet_type), ntohl(whole->packet_type));
    }
    dp_packet_delete(whole);
}

/* If nonzero, offer() offers for ct() in this zone
 * (ipf_cpu_reassemble_ct()), else as a tunnel does (ipf_cpu_reassemble()). */
static uint16_t offer_ct_zone;

/* Offers 'p' to 'ipf' at 'now' and prints what happened as "LABEL: ...";
 * checks a reassembled packet against 'd'.  Returns true if 'p' completed
 * its datagram. */
static bool
offer(struct ipf_cpu *ipf, const struct dgram *d, struct dp_packet *p,
      long long int now, const char *label)
{
    struct ipf_cpu_stats before = stats(ipf);
    struct ipf_cpu_stats after;
    struct dp_packet *out;

    out = (offer_ct_zone
           ? ipf_cpu_reassemble_ct(ipf, p, now, offer_ct_zone)
           : ipf_cpu_reassemble(ipf, p, now));
    after = stats(ipf);
    printf("%s: ", label);
    if (out == p) {
        printf("passed through\n");
        dp_packet_delete(out);
    } else if (out) {
        printf("reassembled %"PRIu32" bytes\n", dp_packet_size(out));
        check_reassembled(d, out);
        dp_packet_delete(out);
        return true;
    } else if (total_drops(&after) > total_drops(&before)) {
        for (int i = 0; i < IPF_N_DROP_REASONS; i++) {
            if (after.drops[i] > before.drops[i]) {
                printf("dropped, %s\n", ipf_cpu_drop_reason_to_string(i));
            }
        }
    } else {
        printf("held\n");
    }
    return false;
}

/* Offers fragment [start, start + len) of 'd' with MF 'more', labelled by
 * its range. */
static bool
offer_frag(struct ipf_cpu *ipf, const struct dgram *d, size_t start,
           size_t len, bool more, long long int now)
{
    char label[64];

    snprintf(label, sizeof label, "id %"PRIu32" %"PRIuSIZE"-%"PRIuSIZE"%s",
             d->id, start, start + len, more ? " MF" : "");
    return offer(ipf, d, frag(d, start, len, more), now, label);
}

/* Offers the fragments of 'd' of 'size' bytes in the order 'order' ('n'
 * indexes). */
static void
offer_order(struct ipf_cpu *ipf, const struct dgram *d, size_t size,
            const size_t *order, size_t n, long long int now)
{
    for (size_t i = 0; i < n; i++) {
        size_t start = order[i] * size;
        size_t len = MIN(size, d->len - start);

        offer_frag(ipf, d, start, len, start + len < d->len, now);
    }
}

/* Offers fragments 'from' to 'to' - 1 of 'd', of 'size' bytes each, which
 * must all be held, and prints how many were. */
static void
offer_range(struct ipf_cpu *ipf, const struct dgram *d, size_t size,
            size_t from, size_t to, long long int now)
{
    for (size_t i = from; i < to; i++) {
        struct ipf_cpu_stats before = stats(ipf);
        struct ipf_cpu_stats after;

        if (ipf_cpu_reassemble(ipf, nth_frag(d, size, i), now)) {
            test_fail("id %"PRIu32" fragment %"PRIuSIZE" completed", d->id, i);
        }
        after = stats(ipf);
        if (total_drops(&after) != total_drops(&before)) {
            test_fail("id %"PRIu32" fragment %"PRIuSIZE" was dropped",
                      d->id, i);
        }
    }
    printf("id %"PRIu32" fragments %"PRIuSIZE" to %"PRIuSIZE": held\n",
           d->id, from, to - 1);
}

/* Subcommands. */

/* in-order eth|l3 [ipv6]: a 4000-byte datagram in three fragments. */
static void
test_in_order(bool eth, bool ipv6)
{
    struct dgram *d = dgram_new(ipv6, eth, IPPROTO_UDP, 4000, 1);
    struct ipf_cpu *ipf = ipf_cpu_create(NULL);
    size_t order[] = { 0, 1, 2 };

    offer_order(ipf, d, 1480, order, ARRAY_SIZE(order), 0);
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    free(d);
}

/* out-of-order [ipv6]: reverse, then shuffled, order of six fragments. */
static void
test_out_of_order(bool ipv6)
{
    struct dgram *d1 = dgram_new(ipv6, true, IPPROTO_UDP, 4500, 1);
    struct dgram *d2 = dgram_new(ipv6, true, IPPROTO_UDP, 4500, 2);
    struct ipf_cpu *ipf = ipf_cpu_create(NULL);
    size_t reverse[] = { 5, 4, 3, 2, 1, 0 };
    size_t shuffled[] = { 3, 0, 5, 1, 4, 2 };

    ovs_assert(n_frags(d1, 800) == 6);
    offer_order(ipf, d1, 800, reverse, ARRAY_SIZE(reverse), 0);
    offer_order(ipf, d2, 800, shuffled, ARRAY_SIZE(shuffled), 0);
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    free(d1);
    free(d2);
}

/* duplicate: exact duplicates, a fragment inside a held one, and one that
 * spans two contiguous held ones are dropped alone. */
static void
test_duplicate(void)
{
    struct dgram *d = dgram_new(false, true, IPPROTO_UDP, 3200, 1);
    struct ipf_cpu *ipf = ipf_cpu_create(NULL);

    offer_frag(ipf, d, 0, 800, true, 0);
    offer_frag(ipf, d, 0, 800, true, 0);          /* Exact duplicate. */
    offer_frag(ipf, d, 800, 800, true, 0);
    offer_frag(ipf, d, 800, 800, true, 0);        /* Exact duplicate. */
    offer_frag(ipf, d, 400, 16, true, 0);         /* Inside [0,800). */
    offer_frag(ipf, d, 400, 800, true, 0);        /* Spans both. */
    offer_frag(ipf, d, 2400, 800, false, 0);
    offer_frag(ipf, d, 2400, 800, false, 0);      /* Duplicate last. */
    print_stats(ipf);
    offer_frag(ipf, d, 1600, 800, true, 0);       /* Completes. */
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    free(d);
}

/* overlap [ipv6]: a partial overlap discards the datagram; its later
 * fragments drop until the record of it expires, then start a new queue. */
static void
test_overlap(bool ipv6)
{
    struct dgram *d = dgram_new(ipv6, true, IPPROTO_UDP, 3000, 1);
    struct ipf_cpu *ipf = ipf_cpu_create(NULL);

    offer_frag(ipf, d, 0, 1000, true, 0);
    offer_frag(ipf, d, 1000, 1000, true, 0);
    offer_frag(ipf, d, 1496, 1000, true, 0);      /* Overlaps [1000,2000). */
    print_stats(ipf);
    offer_frag(ipf, d, 2000, 1000, false, 500);   /* Late: dropped too. */
    print_stats(ipf);
    offer_frag(ipf, d, 2000, 1000, false, 1000);  /* Record expired. */
    print_stats(ipf);

    /* An overlap reaching past the end of the last held fragment is the
     * other path of the search. */
    d->id = 2;
    offer_frag(ipf, d, 0, 1000, true, 2000);
    offer_frag(ipf, d, 992, 1000, true, 2000);
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    free(d);
}

/* tiny: RFC 1858 and RFC 7112 first fragments. */
static void
test_tiny(void)
{
    struct dgram *tcp = dgram_new(false, true, IPPROTO_TCP, 2000, 1);
    struct dgram *udp = dgram_new(false, true, IPPROTO_UDP, 2000, 2);
    struct dgram *tcp6 = dgram_new(true, true, IPPROTO_TCP, 2000, 3);
    struct ipf_cpu *ipf = ipf_cpu_create(NULL);

    offer_frag(ipf, tcp, 0, 16, true, 0);         /* < 20 bytes of TCP. */
    offer_frag(ipf, tcp, 8, 800, true, 0);        /* Offset 1 (RFC 1858). */
    offer_frag(ipf, tcp, 0, 24, true, 0);         /* Whole TCP header. */
    offer_frag(ipf, udp, 0, 8, true, 0);          /* Whole UDP header. */
    offer_frag(ipf, tcp6, 0, 16, true, 0);        /* IPv6, < 20 of TCP. */
    offer_frag(ipf, tcp6, 0, 24, true, 0);
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    free(tcp);
    free(udp);
    free(tcp6);
}

/* oversize: fragments ending beyond 65535 bytes of datagram, a datagram
 * whose first fragment's options make it too big, and the dp_packet size
 * limit. */
static void
test_oversize(void)
{
    struct dgram *d = dgram_new(false, false, IPPROTO_UDP, 65515, 1);
    struct ipf_cpu *ipf = ipf_cpu_create(NULL);
    size_t size = 1480;
    size_t n = n_frags(d, size);

    ovs_assert(n == 45);
    offer_frag(ipf, d, 65528, 8, true, 0);        /* 20 + 65536 bytes. */
    offer_frag(ipf, d, 64000, 1520, false, 0);    /* 20 + 65520 bytes. */
    print_stats(ipf);

    /* 20 + 65515 = 65535 bytes: the largest datagram, as an L3 packet. */
    offer_range(ipf, d, size, 0, n - 1, 0);
    offer(ipf, d, nth_frag(d, size, n - 1), 0, "last");
    print_stats(ipf);

    /* With 4 bytes of options on the first fragment, the same datagram
     * would be 65539 bytes: every fragment fits, completion fails. */
    d->id = 2;
    d->ihl = 6;
    offer(ipf, d, nth_frag(d, size, 0), 0, "first with options");
    d->ihl = 5;
    offer_range(ipf, d, size, 1, n - 1, 0);
    offer(ipf, d, nth_frag(d, size, n - 1), 0, "last");
    offer(ipf, d, nth_frag(d, size, 1), 0, "late");
    print_stats(ipf);

    /* In an Ethernet frame, 14 + 20 + 65515 bytes exceed what a dp_packet
     * can hold; 14 + 20 + 65501 bytes fit. */
    d->id = 3;
    d->eth = true;
    offer_range(ipf, d, size, 0, n - 1, 0);
    offer(ipf, d, nth_frag(d, size, n - 1), 0, "last");
    d->id = 4;
    d->len = 65501;
    offer_range(ipf, d, size, 0, n - 1, 0);
    offer(ipf, d, nth_frag(d, size, n - 1), 0, "last");
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    free(d);
}

/* too-many: IPF_CPU_MAX_FRAGS fragments make a datagram, one more discards
 * it. */
static void
test_too_many(void)
{
    struct dgram *d = dgram_new(false, true, IPPROTO_UDP,
                                IPF_CPU_MAX_FRAGS * 8, 1);
    struct ipf_cpu *ipf = ipf_cpu_create(NULL);

    /* Exactly the maximum, in reverse: the array grows from the front. */
    for (size_t i = IPF_CPU_MAX_FRAGS - 1; i > 0; i--) {
        if (ipf_cpu_reassemble(ipf, nth_frag(d, 8, i), 0)) {
            test_fail("fragment %"PRIuSIZE" completed", i);
        }
    }
    printf("63 fragments offered\n");
    offer(ipf, d, nth_frag(d, 8, 0), 0, "first, 64th offered");
    print_stats(ipf);

    /* One more than the maximum. */
    d->id = 2;
    d->len = (IPF_CPU_MAX_FRAGS + 1) * 8;
    offer_range(ipf, d, 8, 0, IPF_CPU_MAX_FRAGS, 0);
    print_stats(ipf);
    offer(ipf, d, nth_frag(d, 8, IPF_CPU_MAX_FRAGS), 0, "65th");
    print_stats(ipf);
    offer(ipf, d, nth_frag(d, 8, 0), 0, "late");
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    free(d);
}

/* complete: a fragment of a datagram just reassembled drops, until the
 * record expires. */
static void
test_complete(void)
{
    struct dgram *d = dgram_new(false, true, IPPROTO_UDP, 2000, 1);
    struct ipf_cpu *ipf = ipf_cpu_create(NULL);

    offer_frag(ipf, d, 0, 1000, true, 0);
    offer_frag(ipf, d, 1000, 1000, false, 0);
    offer_frag(ipf, d, 1000, 1000, false, 10);
    offer_frag(ipf, d, 0, 1000, true, IPF_CPU_RECENT_MS - 1);
    print_stats(ipf);
    offer_frag(ipf, d, 0, 1000, true, IPF_CPU_RECENT_MS);
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    free(d);
}

/* timeout: queues expire 30 s after their first fragment, oldest first,
 * in ipf_cpu_run() or when a fragment finds its queue expired. */
static void
test_timeout(void)
{
    struct dgram *d1 = dgram_new(false, true, IPPROTO_UDP, 3000, 1);
    struct dgram *d2 = dgram_new(false, true, IPPROTO_UDP, 3000, 2);
    struct dgram *d3 = dgram_new(false, true, IPPROTO_UDP, 3000, 3);
    struct ipf_cpu *ipf = ipf_cpu_create(NULL);

    offer_frag(ipf, d1, 0, 1000, true, 0);
    offer_frag(ipf, d2, 0, 1000, true, 10000);
    offer_frag(ipf, d1, 1000, 1000, true, 20000); /* Does not renew it. */
    ipf_cpu_run(ipf, 29999);
    printf("run at 29999\n");
    print_stats(ipf);
    ipf_cpu_run(ipf, 30000);
    printf("run at 30000\n");
    print_stats(ipf);
    offer_frag(ipf, d1, 2000, 1000, false, 30000); /* A new queue. */
    ipf_cpu_run(ipf, 40000);
    printf("run at 40000\n");
    print_stats(ipf);

    /* Without a run, the next fragment of an expired queue finds it
     * expired. */
    offer_frag(ipf, d3, 0, 1000, true, 50000);
    offer_frag(ipf, d3, 1000, 1000, true, 80000);
    print_stats(ipf);
    ipf_cpu_run(ipf, 1000000);
    printf("run at 1000000\n");
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    free(d1);
    free(d2);
    free(d3);
}

/* timeout-bounded: ipf_cpu_expire() frees at most the number it is given,
 * oldest first, and only expired queues. */
static void
test_timeout_bounded(void)
{
    struct dgram *d[20];
    struct ipf_cpu *ipf = ipf_cpu_create(NULL);

    for (size_t i = 0; i < ARRAY_SIZE(d); i++) {
        d[i] = dgram_new(false, true, IPPROTO_UDP, 2000, i + 1);
        offer_frag(ipf, d[i], 0, 1000, true, i < 18 ? 0 : 5000);
    }
    printf("expire at 29999, 8: %"PRIuSIZE"\n",
           ipf_cpu_expire(ipf, 29999, 8));
    for (int round = 0; round < 3; round++) {
        printf("expire at 30000, 8: %"PRIuSIZE"\n",
               ipf_cpu_expire(ipf, 30000, 8));
        print_stats(ipf);
    }
    /* The oldest went first: the newest two are still held. */
    offer_frag(ipf, d[19], 1000, 1000, false, 30000);
    offer_frag(ipf, d[0], 1000, 1000, false, 30000);
    printf("expire at 35000, 8: %"PRIuSIZE"\n",
           ipf_cpu_expire(ipf, 35000, 8));
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    for (size_t i = 0; i < ARRAY_SIZE(d); i++) {
        free(d[i]);
    }
}

/* Returns the bytes a held fragment 'p' costs at least: its buffer and its
 * struct. */
static size_t
min_cost(const struct dp_packet *p)
{
    return dp_packet_get_allocated(p) + sizeof *p;
}

/* memory: a flood of incomplete datagrams never takes the account above
 * the high threshold; eviction goes down to the low one. */
static void
test_memory(void)
{
    struct ipf_cpu_config cfg = {
        .high_thresh = 100 * 1000,
        .low_thresh = 70 * 1000,
        .timeout_ms = IPF_CPU_DEFAULT_TIMEOUT_MS,
        .max_frags = SIZE_MAX,
    };
    struct dgram *d = dgram_new(false, true, IPPROTO_UDP, 2000, 0);
    struct ipf_cpu *ipf = ipf_cpu_create(&cfg);
    uint64_t max_held = 0;
    size_t cost = 0;
    int n = 1000;

    /* Each fragment has a 10000-byte buffer, so that the queue's own
     * overhead (under 1000 bytes) does not change how many fit: 9 one-
     * fragment queues fit under 100000 bytes, and an eviction round
     * leaves 6 (at most 70000). */
    d->alloc = 10000;
    for (int i = 0; i < n; i++) {
        struct dp_packet *p;
        struct ipf_cpu_stats s;

        d->id = i;
        p = frag(d, 0, 1000, true);
        cost = min_cost(p);
        if (ipf_cpu_reassemble(ipf, p, i)) {
            test_fail("a first fragment completed a datagram");
        }
        s = stats(ipf);
        max_held = MAX(max_held, s.bytes_held);
        if (s.bytes_held > cfg.high_thresh) {
            test_fail("after fragment %d, %"PRIu64" bytes held, "
                      "above %"PRIuSIZE, i, s.bytes_held, cfg.high_thresh);
        }
        if (s.bytes_held < s.queues * cost
            || s.bytes_held > s.queues * (cost + 1000)) {
            test_fail("%"PRIu64" bytes held for %"PRIu64" queues of %"PRIuSIZE
                 " bytes of fragment each", s.bytes_held, s.queues, cost);
        }
        if (i == 0 && s.bytes_held - cost >= 1000) {
            test_fail("a queue's overhead is %"PRIu64" bytes, the test "
                      "assumes under 1000", s.bytes_held - cost);
        }
        if (s.queues + s.evicted != i + 1) {
            test_fail("after %d datagrams, %"PRIu64" queues and %"PRIu64
                 " evicted", i + 1, s.queues, s.evicted);
        }
    }
    printf("%d datagrams, max held <= high: %s\n", n,
           max_held <= cfg.high_thresh ? "yes" : "no");
    print_stats(ipf);

    ipf_cpu_destroy(ipf);

    /* Refusals.  A table with room for 20000 bytes holds a 2000-byte
     * fragment of datagram 3 and an 8000-byte one of datagram 1. */
    cfg.high_thresh = 20 * 1000;
    cfg.low_thresh = 10 * 1000;
    ipf = ipf_cpu_create(&cfg);
    d->id = 3;
    d->alloc = 2000;
    offer_frag(ipf, d, 0, 1000, true, 0);
    d->id = 1;
    d->alloc = 8000;
    offer_frag(ipf, d, 0, 1000, true, 1);

    /* A fragment bigger than the high threshold on its own is refused
     * without evicting anything. */
    d->id = 2;
    d->alloc = 30000;
    offer_frag(ipf, d, 0, 1000, true, 2);

    /* So is one that would take its own queue above the high threshold:
     * evicting the others would not make room. */
    d->id = 1;
    d->alloc = 15000;
    offer_frag(ipf, d, 1000, 1000, true, 3);
    print_stats(ipf);

    /* One that fits once datagram 3, the least recently used, is
     * evicted. */
    d->alloc = 10000;
    offer_frag(ipf, d, 1000, 1000, true, 4);
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    free(d);
}

/* lru: eviction takes the least recently used queue, not the oldest. */
static void
test_lru(void)
{
    struct ipf_cpu_config cfg = {
        .high_thresh = 40 * 1000,
        .low_thresh = 25 * 1000,
        .timeout_ms = IPF_CPU_DEFAULT_TIMEOUT_MS,
        .max_frags = SIZE_MAX,
    };
    struct dgram *d[4];
    struct ipf_cpu *ipf = ipf_cpu_create(&cfg);

    /* With 10000-byte buffers, three queues fit under 40000 bytes, but not
     * four: the fourth evicts the least recently used queue, which leaves
     * two, under 25000 bytes. */
    for (int i = 0; i < ARRAY_SIZE(d); i++) {
        d[i] = dgram_new(false, true, IPPROTO_UDP, 3000, i + 1);
        d[i]->alloc = 10000;
    }
    offer_frag(ipf, d[0], 0, 1000, true, 0);
    offer_frag(ipf, d[1], 0, 1000, true, 1);
    offer_frag(ipf, d[2], 0, 1000, true, 2);
    print_stats(ipf);
    d[0]->alloc = 0;
    offer_frag(ipf, d[0], 1000, 1000, true, 3);   /* 1 is now the LRU. */
    print_stats(ipf);
    offer_frag(ipf, d[3], 0, 1000, true, 4);      /* Evicts id 2 only. */
    print_stats(ipf);
    offer_frag(ipf, d[0], 2000, 1000, false, 5);  /* Survived. */
    offer_frag(ipf, d[1], 1000, 2000, false, 6);  /* Evicted: new queue. */
    offer_frag(ipf, d[2], 1000, 2000, false, 7);  /* Survived. */
    print_stats(ipf);
    ipf_cpu_destroy(ipf);

    /* A fragment whose own queue is the least recently used one needs
     * room: the queue it goes to is kept, the next one is evicted. */
    ipf = ipf_cpu_create(&cfg);
    for (int i = 0; i < 3; i++) {
        d[i]->alloc = 10000;
        offer_frag(ipf, d[i], 0, 1000, true, i);
    }
    offer_frag(ipf, d[0], 1000, 1000, true, 3);   /* Evicts id 2. */
    print_stats(ipf);
    d[0]->alloc = 0;
    offer_frag(ipf, d[0], 2000, 1000, false, 4);
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    for (int i = 0; i < ARRAY_SIZE(d); i++) {
        free(d[i]);
    }
}

/* set-config: a lower threshold evicts down to the new low one. */
static void
test_set_config(void)
{
    struct ipf_cpu_config cfg = {
        .high_thresh = 35 * 1000,
        .low_thresh = 15 * 1000,
        .timeout_ms = 5000,
        .max_frags = SIZE_MAX,
    };
    struct dgram *d = dgram_new(false, true, IPPROTO_UDP, 3000, 0);
    struct ipf_cpu *ipf = ipf_cpu_create(NULL);

    d->alloc = 10000;
    for (int i = 0; i < 5; i++) {
        d->id = i;
        offer_frag(ipf, d, 0, 1000, true, i);
    }
    print_stats(ipf);
    ipf_cpu_set_config(ipf, &cfg);
    printf("set high 35000 low 15000 timeout 5000\n");
    print_stats(ipf);
    ipf_cpu_run(ipf, 5003);
    printf("run at 5003\n");
    print_stats(ipf);
    ipf_cpu_run(ipf, 5004);
    printf("run at 5004\n");
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    free(d);
}

/* keys: the same IP datagram identity on two ports, or inside and outside
 * a tunnel, makes separate datagrams. */
static void
test_keys(void)
{
    struct dgram *d = dgram_new(false, true, IPPROTO_UDP, 2000, 7);
    struct ipf_cpu *ipf = ipf_cpu_create(NULL);

    offer_frag(ipf, d, 0, 1000, true, 0);
    d->in_port = 2;
    offer_frag(ipf, d, 0, 1000, true, 0);
    d->tun_dst = htonl(0x0a000002);
    offer_frag(ipf, d, 0, 1000, true, 0);
    print_stats(ipf);
    offer_frag(ipf, d, 1000, 1000, false, 0);
    d->tun_dst = 0;
    offer_frag(ipf, d, 1000, 1000, false, 0);
    d->in_port = 1;
    offer_frag(ipf, d, 1000, 1000, false, 0);
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    free(d);
}

/* malformed: bad fragments are dropped alone; one contradicting the known
 * end discards its datagram. */
static void
test_malformed(void)
{
    struct dgram *d = dgram_new(false, true, IPPROTO_UDP, 3000, 1);
    struct ipf_cpu *ipf = ipf_cpu_create(NULL);
    struct ip_header *ip;
    struct dp_packet *p;

    p = frag(d, 0, 1000, true);
    ip = dp_packet_l3(p);
    ip->ip_ttl--;                                 /* Checksum now bad. */
    offer(ipf, d, p, 0, "bad checksum");

    p = frag(d, 0, 1000, true);
    ip = dp_packet_l3(p);
    ip->ip_ihl_ver = IP_IHL_VER(4, 4);
    offer(ipf, d, p, 0, "IHL 4");

    p = frag(d, 0, 1000, true);
    ip = dp_packet_l3(p);
    ip->ip_tot_len = htons(1100);
    ip->ip_csum = 0;
    ip->ip_csum = csum(ip, IP_HEADER_LEN);
    offer(ipf, d, p, 0, "total length beyond the packet");

    offer_frag(ipf, d, 0, 1004, true, 0);         /* Not a multiple of 8. */
    offer_frag(ipf, d, 1000, 0, false, 0);        /* Empty. */
    print_stats(ipf);

    /* Contradictions with the known end. */
    offer_frag(ipf, d, 0, 1000, true, 0);
    offer_frag(ipf, d, 2000, 1000, false, 0);
    offer_frag(ipf, d, 3000, 1000, true, 0);      /* Beyond the end. */
    print_stats(ipf);
    d->id = 2;
    offer_frag(ipf, d, 2000, 1000, false, 0);
    offer_frag(ipf, d, 1000, 1000, false, 0);     /* A second last. */
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    free(d);
}

/* passthrough: packets that are not fragments come back unchanged. */
static void
test_passthrough(void)
{
    struct dgram *d4 = dgram_new(false, true, IPPROTO_UDP, 1000, 1);
    struct dgram *d6 = dgram_new(true, true, IPPROTO_UDP, 1000, 2);
    struct ipf_cpu *ipf = ipf_cpu_create(NULL);
    struct dp_packet *p, *copy, *out;
    const char *names[] = {
        "IPv4", "IPv4 DF", "IPv6", "IPv6 hop-by-hop", "IPv6 atomic fragment",
        "ARP", "IPv4 L3",
    };

    for (int i = 0; i < ARRAY_SIZE(names); i++) {
        switch (i) {
        case 0:
            p = build(d4, 0, d4->len, false, false);
            break;
        case 1: {
            struct ip_header *ip;

            p = build(d4, 0, d4->len, false, false);
            ip = dp_packet_l3(p);
            ip->ip_frag_off = htons(IP_DONT_FRAGMENT);
            ip->ip_csum = 0;
            ip->ip_csum = csum(ip, IP_HEADER_LEN);
            break;
        }
        case 2:
            p = build(d6, 0, d6->len, false, false);
            break;
        case 3:
            d6->hbh = true;
            p = build(d6, 0, d6->len, false, false);
            d6->hbh = false;
            break;
        case 4:
            p = frag(d6, 0, d6->len, false);
            break;
        case 5:
            p = dp_packet_new(64);
            dp_packet_put_zeros(p, 42);
            break;
        case 6:
        default:
            d4->eth = false;
            p = build(d4, 0, d4->len, false, false);
            break;
        }
        copy = dp_packet_clone(p);
        out = ipf_cpu_reassemble(ipf, p, 0);
        printf("%s: %s, %s\n", names[i],
               out == p ? "same packet" : "other packet",
               dp_packet_equal(out, copy) ? "unchanged" : "changed");
        dp_packet_delete(out);
        dp_packet_delete(copy);
    }
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    free(d4);
    free(d6);
}

/* ipv6-hbh: the fragment header after a hop-by-hop header; reassembly
 * keeps the unfragmentable part and fixes its next header. */
static void
test_ipv6_hbh(void)
{
    struct dgram *d = dgram_new(true, true, IPPROTO_UDP, 3000, 1);
    struct ipf_cpu *ipf = ipf_cpu_create(NULL);
    size_t order[] = { 2, 0, 1 };

    d->hbh = true;
    offer_order(ipf, d, 1232, order, ARRAY_SIZE(order), 0);
    d->eth = false;
    d->id = 2;
    offer_order(ipf, d, 1232, order, ARRAY_SIZE(order), 0);
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    free(d);
}

/* padding: bytes after the IP datagram (Ethernet padding, here not marked
 * as such in l2_pad_size) are not fragment data. */
static void
test_padding(bool ipv6)
{
    static const uint8_t junk[32] = {
        0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee,
        0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee,
        0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee,
        0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee,
    };
    struct dgram *d = dgram_new(ipv6, true, IPPROTO_UDP, 1488, 1);
    struct ipf_cpu *ipf = ipf_cpu_create(NULL);
    struct dp_packet *p;

    /* The last fragment carries 8 bytes: a 42-byte IPv4 frame, which
     * Ethernet pads to 60 bytes; both fragments get 32 bytes of junk. */
    p = frag(d, 1480, 8, false);
    dp_packet_put(p, junk, sizeof junk);
    printf("last fragment frame: %"PRIu32" bytes\n", dp_packet_size(p));
    offer(ipf, d, p, 0, "last, padded");
    p = frag(d, 0, 1480, true);
    dp_packet_put(p, junk, sizeof junk);
    offer(ipf, d, p, 0, "first, padded");
    print_stats(ipf);
    ipf_cpu_destroy(ipf);
    free(d);
}

/* config: ipf_cpu_config_check() accepts the defaults and rejects bad
 * limits. */
static void
test_config(void)
{
    struct ipf_cpu_config cfgs[] = {
        { IPF_CPU_DEFAULT_HIGH_THRESH, IPF_CPU_DEFAULT_LOW_THRESH,
          IPF_CPU_DEFAULT_TIMEOUT_MS, { 0, 0 }, SIZE_MAX },
        { 0, 0, 1000, { 0, 0 }, SIZE_MAX },
        { 1000, 1000, 1000, { 0, 0 }, SIZE_MAX },
        { 1000, 2000, 1000, { 0, 0 }, SIZE_MAX },
        { 1000, 0, 0, { 0, 0 }, SIZE_MAX },
        { 1000, 0, -5, { 0, 0 }, SIZE_MAX },
        { 1000, 0, IPF_CPU_MAX_TIMEOUT_MS, { 0, 0 }, SIZE_MAX },
        { 1000, 0, IPF_CPU_MAX_TIMEOUT_MS + 1, { 0, 0 }, SIZE_MAX },
    };

    for (int i = 0; i < ARRAY_SIZE(cfgs); i++) {
        char *error = ipf_cpu_config_check(&cfgs[i]);

        printf("high %"PRIuSIZE" low %"PRIuSIZE" timeout %lld: %s\n",
               cfgs[i].high_thresh, cfgs[i].low_thresh, cfgs[i].timeout_ms,
               error ? error : "ok");
        free(error);
    }
}

/* Prints the per-family counters and the fragments held of 'ipf'. */
static void
print_family_stats(const struct ipf_cpu *ipf)
{
    struct ipf_cpu_stats s = stats(ipf);

    for (int i = 0; i < 2; i++) {
        const struct ipf_cpu_family_stats *f = &s.family[i];

        printf("%s: accepted=%"PRIu64" completed=%"PRIu64" expired=%"PRIu64
               " too_small=%"PRIu64" overlap=%"PRIu64" purged=%"PRIu64"\n",
               i ? "v6" : "v4", f->accepted, f->completed, f->expired,
               f->too_small, f->overlap, f->purged);
    }
    printf("frags_held=%"PRIu64"\n", s.frags_held);
}

/* Prints what ipf_cpu_snapshot() lists of 'ipf', sorted by IP ID. */
static void
print_snapshot(const struct ipf_cpu *ipf)
{
    struct ipf_cpu_held held[8];
    size_t n = ipf_cpu_snapshot(ipf, held, ARRAY_SIZE(held));

    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 1; j < n; j++) {
            if (held[j].id < held[i].id) {
                struct ipf_cpu_held tmp = held[i];

                held[i] = held[j];
                held[j] = tmp;
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        printf("held: id %"PRIu32" v%d zone %"PRIu16" proto %d frags %"PRIu32
               "%s%s\n", held[i].id, held[i].is_ipv6 ? 6 : 4, held[i].zone,
               held[i].proto, held[i].n_frags,
               held[i].first_in ? " first" : "",
               held[i].last_in ? " last" : "");
    }
}

/* limits: min_frag refuses small non-last fragments of its family only,
 * max_frags bounds the fragments held but never refuses a completing
 * one, and the per-family counters move as ipf.c's do, all for ct() only:
 * a tunnel's fragments (ipf_cpu_reassemble()) are neither refused nor
 * counted by them.  ipf_cpu_snapshot() lists what is held for ct(). */
static void
test_limits(void)
{
    struct ipf_cpu_config cfg;
    struct dgram *a = dgram_new(false, true, IPPROTO_UDP, 3000, 1);
    struct dgram *b = dgram_new(true, true, IPPROTO_UDP, 3000, 2);
    struct dgram *c = dgram_new(false, true, IPPROTO_UDP, 2000, 3);
    struct dgram *e = dgram_new(true, true, IPPROTO_UDP, 2000, 4);
    struct dgram *t = dgram_new(false, true, IPPROTO_UDP, 3000, 5);
    struct ipf_cpu *ipf;

    ipf_cpu_config_default(&cfg);
    cfg.min_frag[0] = 1000;     /* IPv4: 1000 IP bytes, header included. */
    cfg.max_frags = 3;
    ipf = ipf_cpu_create(&cfg);

    /* Not for ct(): neither limit applies, nor do the family counters. */
    offer_ct_zone = 0;
    offer_frag(ipf, t, 0, 504, true, 0);
    offer_frag(ipf, t, 504, 504, true, 0);
    offer_frag(ipf, t, 1008, 504, true, 0);
    offer_frag(ipf, t, 1512, 504, true, 0);
    print_family_stats(ipf);

    offer_ct_zone = 9;
    /* IPv4: 976 bytes of data + 20 of header is too small unless last. */
    offer_frag(ipf, a, 0, 976, true, 0);
    offer_frag(ipf, a, 0, 984, true, 0);
    offer_frag(ipf, a, 984, 984, true, 0);
    offer_frag(ipf, a, 984, 984, true, 0);        /* Duplicate. */
    /* IPv6 has no minimum here. */
    offer_frag(ipf, b, 0, 504, true, 0);
    /* Three held: the next to be held is refused... */
    offer_frag(ipf, c, 0, 1000, true, 0);
    offer_frag(ipf, b, 1000, 504, true, 0);
    /* ...but the one that completes 'a' is not. */
    offer_frag(ipf, a, 1968, 1032, false, 0);
    print_stats(ipf);
    print_family_stats(ipf);
    print_snapshot(ipf);

    /* IPv6: an overlap discards 'b' (1 held fragment purged). */
    offer_frag(ipf, b, 496, 504, true, 0);
    /* Then 'e' times out with one fragment held. */
    offer_frag(ipf, e, 0, 1000, true, 10);
    ipf_cpu_run(ipf, 10 + IPF_CPU_DEFAULT_TIMEOUT_MS);
    print_stats(ipf);
    print_family_stats(ipf);

    ipf_cpu_destroy(ipf);
    free(a);
    free(b);
    free(c);
    free(e);
    free(t);
    offer_ct_zone = 0;
}

/* zones: for ct(), one datagram's fragments in two zones, or at two
 * recirculations, are two datagrams, each reassembled on its own, as OVS's
 * ipf.c keys them; and a fragment for ct() never joins a datagram held for
 * a tunnel, nor the other way round, so that ct()'s count of fragments
 * held sees all of its own and none of a tunnel's. */
static void
test_zones(void)
{
    struct dgram *d = dgram_new(false, true, IPPROTO_UDP, 2000, 11);
    struct ipf_cpu *ipf = ipf_cpu_create(NULL);

    /* The first half in zones 1 and 2: two datagrams, both held. */
    offer_ct_zone = 1;
    offer_frag(ipf, d, 0, 1000, true, 0);
    offer_ct_zone = 2;
    offer_frag(ipf, d, 0, 1000, true, 0);
    print_family_stats(ipf);
    print_snapshot(ipf);
    /* The second half completes each in its own zone. */
    offer_frag(ipf, d, 1000, 1000, false, 0);
    offer_ct_zone = 1;
    offer_frag(ipf, d, 1000, 1000, false, 0);
    print_stats(ipf);

    /* In zone 1 again, at two recirculations: two datagrams. */
    d->id = 12;
    offer_frag(ipf, d, 0, 1000, true, 0);
    d->recirc_id = 5;
    offer_frag(ipf, d, 0, 1000, true, 0);
    offer_frag(ipf, d, 1000, 1000, false, 0);
    d->recirc_id = 0;
    offer_frag(ipf, d, 1000, 1000, false, 0);
    print_stats(ipf);

    /* A tunnel holds the first half; the second half for ct() starts a
     * datagram of its own, counted as held for ct(), instead of completing
     * the tunnel's. */
    d->id = 13;
    offer_ct_zone = 0;
    offer_frag(ipf, d, 0, 1000, true, 0);
    offer_ct_zone = 1;
    offer_frag(ipf, d, 1000, 1000, false, 0);
    print_family_stats(ipf);
    offer_frag(ipf, d, 0, 1000, true, 0);
    offer_ct_zone = 0;
    offer_frag(ipf, d, 1000, 1000, false, 0);
    print_stats(ipf);
    print_family_stats(ipf);

    ipf_cpu_destroy(ipf);
    free(d);
}

/* Returns true if 'arg' names the second optional word 'word'. */
static bool
arg_is(int argc, char *argv[], int i, const char *word)
{
    return argc > i && !strcmp(argv[i], word);
}

int
main(int argc, char *argv[])
{
    const char *cmd = argc > 1 ? argv[1] : "";

    set_program_name(argv[0]);
    if (!strcmp(cmd, "in-order")) {
        test_in_order(!arg_is(argc, argv, 2, "l3"),
                      arg_is(argc, argv, 3, "ipv6"));
    } else if (!strcmp(cmd, "out-of-order")) {
        test_out_of_order(arg_is(argc, argv, 2, "ipv6"));
    } else if (!strcmp(cmd, "duplicate")) {
        test_duplicate();
    } else if (!strcmp(cmd, "overlap")) {
        test_overlap(arg_is(argc, argv, 2, "ipv6"));
    } else if (!strcmp(cmd, "tiny")) {
        test_tiny();
    } else if (!strcmp(cmd, "oversize")) {
        test_oversize();
    } else if (!strcmp(cmd, "too-many")) {
        test_too_many();
    } else if (!strcmp(cmd, "complete")) {
        test_complete();
    } else if (!strcmp(cmd, "timeout")) {
        test_timeout();
    } else if (!strcmp(cmd, "timeout-bounded")) {
        test_timeout_bounded();
    } else if (!strcmp(cmd, "memory")) {
        test_memory();
    } else if (!strcmp(cmd, "lru")) {
        test_lru();
    } else if (!strcmp(cmd, "set-config")) {
        test_set_config();
    } else if (!strcmp(cmd, "keys")) {
        test_keys();
    } else if (!strcmp(cmd, "malformed")) {
        test_malformed();
    } else if (!strcmp(cmd, "passthrough")) {
        test_passthrough();
    } else if (!strcmp(cmd, "ipv6-hbh")) {
        test_ipv6_hbh();
    } else if (!strcmp(cmd, "padding")) {
        test_padding(arg_is(argc, argv, 2, "ipv6"));
    } else if (!strcmp(cmd, "limits")) {
        test_limits();
    } else if (!strcmp(cmd, "zones")) {
        test_zones();
    } else if (!strcmp(cmd, "config")) {
        test_config();
    } else {
        test_fail("unknown command \"%s\"", cmd);
    }
    return 0;
}

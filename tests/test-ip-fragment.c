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

/* Unit tests of lib/packet/ip-fragment.c: IPv4 fragmentation and the ICMP
 * "fragmentation needed" reply, on crafted packets checked field by field.
 * Run by tests/percpu-ip-fragment.at. */

#include <config.h>

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dp-packet.h"
#include "gso.h"
#include "ip-fragment.h"
#include "openvswitch/util.h"
#include "packets.h"
#include "test-pkt.h"
#include "tso-segsz.h"
#include "util.h"

/* The packets tipf_build() makes. */
#define TIPF_IP_ID 0x4242
#define TIPF_SRC 0x0a000001             /* 10.0.0.1 */
#define TIPF_DST 0x0a000002             /* 10.0.0.2 */
#define TIPF_REPLY_SRC 0xc0a80001       /* 192.168.0.1 */
#define TIPF_IN_PORT 9

/* 20 bytes of IP options: router alert and loose source route (both with
 * the copied flag), record route (without it), two NOPs. */
static const uint8_t tipf_opts[20] = {
    0x94, 0x04, 0x00, 0x00,
    0x83, 0x07, 0x04, 0xc0, 0x00, 0x02, 0x01,
    0x07, 0x07, 0x04, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x01,
};

/* What later fragments must carry instead: the copied options, padded with
 * End of Option List to 12 bytes. */
static const uint8_t tipf_later_opts[12] = {
    0x94, 0x04, 0x00, 0x00,
    0x83, 0x07, 0x04, 0xc0, 0x00, 0x02, 0x01,
    0x00,
};

/* A packet to build. */
struct tipf_spec {
    size_t l2_len;              /* 0 (L3 packet), 14 or 18 (one tag). */
    size_t tot_len;             /* IP total length. */
    bool opts;                  /* With tipf_opts[]. */
    uint8_t proto;              /* IP protocol. */
    uint8_t icmp_type;          /* ICMP type, if 'proto' is ICMP. */
    uint16_t frag_off;          /* Fragment field, host order. */
    uint32_t src, dst;          /* Addresses. */
};

/* Builds the packet 'spec' describes, with a valid header checksum. */
static struct dp_packet *
tipf_build(const struct tipf_spec *spec)
{
    size_t ihl = IP_HEADER_LEN + (spec->opts ? sizeof tipf_opts : 0);
    size_t size = spec->l2_len + spec->tot_len;
    uint8_t *b = xzalloc(size);
    uint8_t *ip = b + spec->l2_len;
    struct dp_packet *p;

    if (spec->l2_len) {
        for (int i = 0; i < 12; i++) {
            b[i] = 0x10 + i;
        }
        if (spec->l2_len == 18) {
            test_put16(b + 12, ETH_TYPE_VLAN_8021Q);
            test_put16(b + 14, 300);
        }
        test_put16(b + spec->l2_len - 2, ETH_TYPE_IP);
    }
    ip[0] = 0x40 | (ihl / 4);
    ip[1] = 0x28;
    test_put16(ip + 2, spec->tot_len);
    test_put16(ip + 4, TIPF_IP_ID);
    test_put16(ip + 6, spec->frag_off);
    ip[8] = 33;
    ip[9] = spec->proto;
    test_put32(ip + 12, spec->src);
    test_put32(ip + 16, spec->dst);
    if (spec->opts) {
        memcpy(ip + IP_HEADER_LEN, tipf_opts, sizeof tipf_opts);
    }
    for (size_t i = ihl; i < spec->tot_len; i++) {
        ip[i] = (i * 37 + (i >> 8)) & 0xff;
    }
    if (spec->proto == IPPROTO_UDP && spec->tot_len >= ihl + 8) {
        test_put16(ip + ihl, 5000);
        test_put16(ip + ihl + 2, 6000);
        test_put16(ip + ihl + 4, spec->tot_len - ihl);
        test_put16(ip + ihl + 6, 0);
    } else if (spec->proto == IPPROTO_ICMP && spec->tot_len > ihl) {
        ip[ihl] = spec->icmp_type;
    }
    test_put16(ip + 10, ntohs(csum(ip, ihl)));

    p = dp_packet_clone_data(b, size);
    free(b);
    if (!spec->l2_len) {
        p->packet_type = htonl(PT_IPV4);
    }
    p->md.in_port.odp_port = u32_to_odp(TIPF_IN_PORT);
    return p;
}

/* Checks the 'n' fragments 'frags' of 'orig' ('spec', as built) cut at
 * 'mtu', and prints one line for each. */
static void
tipf_check_fragments(struct dp_packet **frags, size_t n, const uint8_t *orig,
                     const struct tipf_spec *spec, int mtu)
{
    size_t l2 = spec->l2_len;
    const uint8_t *oip = orig + l2;
    size_t ihl = (oip[0] & 0xf) * 4;
    size_t later_ihl = IP_HEADER_LEN + (spec->opts
                                        ? sizeof tipf_later_opts : 0);
    size_t payload_len = spec->tot_len - ihl;
    uint8_t *payload = xzalloc(payload_len);
    uint16_t off0 = spec->frag_off & IP_FRAG_OFF_MASK;
    bool mf0 = spec->frag_off & IP_MORE_FRAGMENTS;
    size_t start = 0;

    for (size_t i = 0; i < n; i++) {
        const uint8_t *b = dp_packet_data(frags[i]);
        size_t size = dp_packet_size(frags[i]);
        const uint8_t *ip = b + l2;
        size_t want_ihl = i ? later_ihl : ihl;
        size_t fihl, tot_len, len, max;
        uint16_t frag_off;
        bool mf, last = i + 1 == n;

        if (size < l2 + IP_HEADER_LEN) {
            test_fail("fragment %"PRIuSIZE": only %"PRIuSIZE" bytes", i,
                      size);
        }
        fihl = (ip[0] & 0xf) * 4;
        tot_len = test_get16(ip + 2);
        frag_off = test_get16(ip + 6);
        mf = frag_off & IP_MORE_FRAGMENTS;
        if (memcmp(b, orig, l2)) {
            test_fail("fragment %"PRIuSIZE": L2 header differs", i);
        }
        if (frags[i]->packet_type != (l2 ? htonl(PT_ETH) : htonl(PT_IPV4))
            || odp_to_u32(frags[i]->md.in_port.odp_port) != TIPF_IN_PORT) {
            test_fail("fragment %"PRIuSIZE": packet type or metadata lost",
                      i);
        }
        if (frags[i]->l3_ofs != l2 || frags[i]->l4_ofs != l2 + fihl) {
            test_fail("fragment %"PRIuSIZE": layer offsets %"PRIu16" %"PRIu16,
                      i, frags[i]->l3_ofs, frags[i]->l4_ofs);
        }
        if (ip[0] >> 4 != 4 || fihl != want_ihl) {
            test_fail("fragment %"PRIuSIZE": version/ihl %#x, expected ihl "
                      "%"PRIuSIZE, i, ip[0], want_ihl);
        }
        if (tot_len != size - l2 || tot_len > mtu || tot_len < fihl) {
            test_fail("fragment %"PRIuSIZE": total length %"PRIuSIZE" for %"
                      PRIuSIZE" bytes, mtu %d", i, tot_len, size - l2, mtu);
        }
        if (memcmp(ip + 1, oip + 1, 1) || memcmp(ip + 4, oip + 4, 2)
            || memcmp(ip + 8, oip + 8, 2) || memcmp(ip + 12, oip + 12, 8)) {
            test_fail("fragment %"PRIuSIZE": TOS, ID, TTL, protocol or "
                      "addresses differ", i);
        }
        if (spec->opts
            && memcmp(ip + IP_HEADER_LEN,
                      i ? tipf_later_opts : tipf_opts, fihl - IP_HEADER_LEN)) {
            test_fail("fragment %"PRIuSIZE": wrong options", i);
        }
        if (!test_ipv4_csum_ok(ip)) {
            test_fail("fragment %"PRIuSIZE": bad header checksum", i);
        }
        if (frag_off & IP_DONT_FRAGMENT) {
            test_fail("fragment %"PRIuSIZE": DF set", i);
        }
        if ((frag_off & IP_FRAG_OFF_MASK) != off0 + start / 8) {
            test_fail("fragment %"PRIuSIZE": offset %d, expected %"PRIuSIZE,
                      i, frag_off & IP_FRAG_OFF_MASK, off0 + start / 8);
        }
        if (mf != (last ? mf0 : true)) {
            test_fail("fragment %"PRIuSIZE": MF %d", i, mf);
        }
        len = tot_len - fihl;
        max = (mtu - want_ihl) / 8 * 8;
        if (last ? len > max : len != max) {
            test_fail("fragment %"PRIuSIZE": %"PRIuSIZE" payload bytes, "
                      "expected %s%"PRIuSIZE, i, len, last ? "at most " : "",
                      max);
        }
        if (start + len > payload_len) {
            test_fail("fragments carry more than the original");
        }
        memcpy(payload + start, ip + fihl, len);
        printf("fragment %"PRIuSIZE": %"PRIuSIZE" bytes, ip len %"PRIuSIZE
               ", ihl %"PRIuSIZE", offset %d (%d bytes), MF %d\n", i, size,
               tot_len, fihl, frag_off & IP_FRAG_OFF_MASK,
               (frag_off & IP_FRAG_OFF_MASK) * 8, mf);
        start += len;
    }
    if (start != payload_len || memcmp(payload, oip + ihl, payload_len)) {
        test_fail("reassembled payload differs from the original");
    }
    printf("reassembled %"PRIuSIZE" payload bytes: equal to the original\n",
           start);
    free(payload);
}

/* fragment L2LEN TOTLEN MTU [opts] [frag=OFFSET,MF] [df] [udp-csum] */
static void
cmd_fragment(int argc, char *argv[])
{
    struct tipf_spec spec = {
        .proto = IPPROTO_UDP, .src = TIPF_SRC, .dst = TIPF_DST,
    };
    bool df = false, udp_csum = false;
    struct test_sink sink;
    struct dp_packet *p;
    uint8_t *orig;
    size_t size;
    int mtu, error;

    if (argc < 5) {
        test_fail("usage: fragment L2LEN TOTLEN MTU [opts] [frag=O,MF] [df] "
                  "[udp-csum]");
    }
    spec.l2_len = atoi(argv[2]);
    spec.tot_len = atoi(argv[3]);
    mtu = atoi(argv[4]);
    for (int i = 5; i < argc; i++) {
        int off, more;

        if (!strcmp(argv[i], "opts")) {
            spec.opts = true;
        } else if (sscanf(argv[i], "frag=%d,%d", &off, &more) == 2) {
            spec.frag_off = off | (more ? IP_MORE_FRAGMENTS : 0);
        } else if (!strcmp(argv[i], "df")) {
            df = true;
        } else if (!strcmp(argv[i], "udp-csum")) {
            udp_csum = true;
        } else {
            test_fail("unknown option %s", argv[i]);
        }
    }
    if (df) {
        spec.frag_off |= IP_DONT_FRAGMENT;
    }

    test_sink_init(&sink);
    p = tipf_build(&spec);
    if (udp_csum) {
        /* Leave the UDP checksum to offload, as a local stack would. */
        dp_packet_hwol_set_tx_ipv4(p);
        dp_packet_hwol_set_csum_udp(p);
    }
    orig = xmemdup(dp_packet_data(p), dp_packet_size(p));
    size = dp_packet_size(p);

    error = ip_fragment_v4(p, mtu, &sink.out);
    test_sink_drain(&sink);
    printf("ip_fragment_v4: %s, %"PRIuSIZE" packets\n",
           test_errno_name(error), sink.n_pkts);

    if (error == EMSGSIZE) {
        /* 'p' is still ours, untouched. */
        if (dp_packet_size(p) != size
            || memcmp(dp_packet_data(p), orig, size) || sink.n_pkts) {
            test_fail("EMSGSIZE, but the packet was changed or emitted");
        }
        printf("packet left with the caller, unchanged\n");
        dp_packet_delete(p);
    } else if (error) {
        test_fail("unexpected error %s", test_errno_name(error));
    } else if (sink.n_pkts == 1 && size - spec.l2_len <= mtu) {
        if (sink.pkts[0] != p || dp_packet_size(p) != size
            || memcmp(dp_packet_data(p), orig, size)) {
            test_fail("a packet that fits was changed");
        }
        printf("packet sent unchanged\n");
    } else {
        if (udp_csum) {
            /* The fragmenter had to complete the UDP checksum first: the
             * reassembled datagram must carry the one computed here. */
            uint8_t *ip = orig + spec.l2_len;
            size_t ihl = (ip[0] & 0xf) * 4;
            uint16_t sum = test_l4_csum(ip, false, ip + ihl,
                                        spec.tot_len - ihl, IPPROTO_UDP);

            test_put16(ip + ihl + 6, sum ? sum : 0xffff);
            printf("udp checksum expected in the fragments: %#06"PRIx16"\n",
                   test_get16(ip + ihl + 6));
            for (size_t i = 0; i < sink.n_pkts; i++) {
                if (*dp_packet_ol_flags_ptr(sink.pkts[i])
                    & (DP_PACKET_OL_TX_L4_MASK | DP_PACKET_OL_TX_IPV4)) {
                    test_fail("fragment %"PRIuSIZE" still asks for checksum "
                              "offload", i);
                }
            }
        }
        tipf_check_fragments(sink.pkts, sink.n_pkts, orig, &spec, mtu);
    }
    free(orig);
    test_sink_destroy(&sink);
}

/* Packets ip_fragment_v4() must refuse, freeing them. */
static void
cmd_fragment_errors(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct tipf_spec spec = {
        .l2_len = 14, .tot_len = 3000, .proto = IPPROTO_UDP,
        .src = TIPF_SRC, .dst = TIPF_DST,
    };
    struct test_sink sink;
    struct dp_packet *p;
    int error;

    test_sink_init(&sink);

    p = tipf_build(&spec);
    error = ip_fragment_v4(p, 27, &sink.out);
    printf("mtu 27 (no room for 8 bytes after 20): %s\n",
           test_errno_name(error));

    spec.opts = true;
    p = tipf_build(&spec);
    error = ip_fragment_v4(p, 47, &sink.out);
    printf("mtu 47 with a 40-byte header: %s\n", test_errno_name(error));

    p = tipf_build(&spec);
    ((uint8_t *) dp_packet_data(p))[14 + 20 + 4 + 1] = 30;  /* LSRR len. */
    error = ip_fragment_v4(p, 576, &sink.out);
    printf("option overrunning the header: %s\n", test_errno_name(error));

    p = tipf_build(&spec);
    ((uint8_t *) dp_packet_data(p))[14 + 20 + 1] = 1;       /* RA len. */
    error = ip_fragment_v4(p, 576, &sink.out);
    printf("option length under 2: %s\n", test_errno_name(error));

    spec.opts = false;
    p = tipf_build(&spec);
    dp_packet_set_size(p, 14 + 2000);
    error = ip_fragment_v4(p, 576, &sink.out);
    printf("total length beyond packet: %s\n", test_errno_name(error));

    p = tipf_build(&spec);
    tso_segsz_set(p, 1000);
    error = ip_fragment_v4(p, 576, &sink.out);
    printf("marked for TSO: %s\n", test_errno_name(error));

    p = tipf_build(&spec);
    test_put16((uint8_t *) dp_packet_data(p) + 12, ETH_TYPE_IPV6);
    ((uint8_t *) dp_packet_data(p))[14] = 0x60;
    test_put16((uint8_t *) dp_packet_data(p) + 14 + 4, spec.tot_len - 40);
    error = ip_fragment_v4(p, 576, &sink.out);
    printf("ipv6: %s\n", test_errno_name(error));

    spec.frag_off = 8000;
    p = tipf_build(&spec);
    error = ip_fragment_v4(p, 576, &sink.out);
    printf("offset 8000 plus 2980 bytes overflows 13 bits: %s\n",
           test_errno_name(error));

    test_sink_drain(&sink);
    if (sink.n_pkts || sink.n_flushes) {
        test_fail("a refused packet produced output");
    }
    test_sink_destroy(&sink);
}

/* Checks the ICMP reply 'r' to 'orig' (built from 'spec') with MTU 'mtu',
 * field by field, and prints them. */
static void
tipf_check_icmp(const char *name, const struct dp_packet *r,
                const uint8_t *orig, const struct tipf_spec *spec, int mtu)
{
    const uint8_t *oip = orig + spec->l2_len;
    size_t oihl = (oip[0] & 0xf) * 4;
    size_t quote = oihl + MIN(spec->tot_len - oihl, 8);
    const uint8_t *ip = dp_packet_data(r);
    const uint8_t *icmp = ip + 20;
    size_t size = dp_packet_size(r);

    if (size != 20 + 8 + quote) {
        test_fail("%s: reply of %"PRIuSIZE" bytes, expected %"PRIuSIZE,
                  name, size, 20 + 8 + quote);
    }
    if (r->packet_type != htonl(PT_IPV4) || r->l3_ofs != 0
        || r->l4_ofs != 20) {
        test_fail("%s: not an L3 IPv4 packet with its offsets set", name);
    }
    if (ip[0] != 0x45 || test_get16(ip + 2) != size
        || ip[8] != 64 || ip[9] != IPPROTO_ICMP
        || test_get32(ip + 12) != TIPF_REPLY_SRC
        || test_get32(ip + 16) != spec->src
        || !test_ipv4_csum_ok(ip)
        || (test_get16(ip + 6) & (IP_MORE_FRAGMENTS | IP_FRAG_OFF_MASK))) {
        test_fail("%s: bad IP header", name);
    }
    if (icmp[0] != 3 || icmp[1] != 4 || test_get16(icmp + 4) != 0
        || test_get16(icmp + 6) != mtu
        || csum(icmp, size - 20) != 0) {
        test_fail("%s: bad ICMP header", name);
    }
    if (memcmp(icmp + 8, oip, quote)) {
        test_fail("%s: quoted bytes differ from the original", name);
    }
    printf("%s: ip ver/ihl %#x tos %#x len %"PRIu16" id %"PRIu16" frag %#06"
           PRIx16" ttl %d proto %d src %#010"PRIx32" dst %#010"PRIx32
           " csum ok; icmp type %d code %d unused %"PRIu16" mtu %"PRIu16
           " csum ok; quoted %"PRIuSIZE" bytes (header %"PRIuSIZE" + %"
           PRIuSIZE")\n", name, ip[0], ip[1], test_get16(ip + 2),
           test_get16(ip + 4), test_get16(ip + 6), ip[8], ip[9],
           test_get32(ip + 12), test_get32(ip + 16), icmp[0], icmp[1],
           test_get16(icmp + 4), test_get16(icmp + 6), quote, oihl,
           quote - oihl);
}

/* A case of ip_icmp_frag_needed(). */
struct tipf_icmp_case {
    const char *name;
    struct tipf_spec spec;
    int mtu;
};

#define TIPF_UDP(L2, LEN, FRAG) { .l2_len = L2, .tot_len = LEN, \
                                  .proto = IPPROTO_UDP, .frag_off = FRAG, \
                                  .src = TIPF_SRC, .dst = TIPF_DST }
#define TIPF_ICMP(TYPE) { .l2_len = 0, .tot_len = 1500, \
                          .proto = IPPROTO_ICMP, .icmp_type = TYPE, \
                          .frag_off = IP_DONT_FRAGMENT, \
                          .src = TIPF_SRC, .dst = TIPF_DST }
#define TIPF_ADDR(SRC, DST) { .l2_len = 0, .tot_len = 1500, \
                              .proto = IPPROTO_UDP, \
                              .frag_off = IP_DONT_FRAGMENT, \
                              .src = SRC, .dst = DST }

static void
cmd_icmp(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const struct tipf_icmp_case cases[] = {
        { "l3 udp", TIPF_UDP(0, 1500, IP_DONT_FRAGMENT), 1400 },
        { "ethernet udp", TIPF_UDP(14, 1500, IP_DONT_FRAGMENT), 1280 },
        { "with options",
          { .l2_len = 0, .tot_len = 1500, .opts = true,
            .proto = IPPROTO_UDP, .frag_off = IP_DONT_FRAGMENT,
            .src = TIPF_SRC, .dst = TIPF_DST }, 1000 },
        { "4-byte payload", TIPF_UDP(0, 24, IP_DONT_FRAGMENT), 68 },
        { "first fragment", TIPF_UDP(0, 1500, IP_MORE_FRAGMENTS), 576 },
        { "icmp echo request", TIPF_ICMP(ICMP4_ECHO_REQUEST), 1400 },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct dp_packet *p = tipf_build(&cases[i].spec);
        uint8_t *orig = xmemdup(dp_packet_data(p), dp_packet_size(p));
        struct dp_packet *r;

        r = ip_icmp_frag_needed(p, htonl(TIPF_REPLY_SRC), cases[i].mtu);
        if (!r) {
            test_fail("%s: no reply", cases[i].name);
        }
        if (memcmp(dp_packet_data(p), orig, dp_packet_size(p))) {
            test_fail("%s: the original was modified", cases[i].name);
        }
        tipf_check_icmp(cases[i].name, r, orig, &cases[i].spec,
                        cases[i].mtu);
        dp_packet_delete(r);
        dp_packet_delete(p);
        free(orig);
    }
}

static void
cmd_icmp_refused(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const struct tipf_icmp_case cases[] = {
        { "icmp destination unreachable", TIPF_ICMP(ICMP4_DST_UNREACH),
          1400 },
        { "icmp time exceeded", TIPF_ICMP(ICMP4_TIME_EXCEEDED), 1400 },
        { "icmp redirect", TIPF_ICMP(ICMP4_REDIRECT), 1400 },
        { "icmp unknown type 42", TIPF_ICMP(42), 1400 },
        { "icmp without payload",
          { .tot_len = 20, .proto = IPPROTO_ICMP, .src = TIPF_SRC,
            .dst = TIPF_DST }, 1400 },
        { "middle fragment", TIPF_UDP(0, 1500, 185 | IP_MORE_FRAGMENTS),
          576 },
        { "last fragment", TIPF_UDP(0, 1500, 185), 576 },
        { "source 0.0.0.0", TIPF_ADDR(0, TIPF_DST), 1400 },
        { "source 127.0.0.1", TIPF_ADDR(0x7f000001, TIPF_DST), 1400 },
        { "source 224.0.0.5", TIPF_ADDR(0xe0000005, TIPF_DST), 1400 },
        { "source 240.0.0.1", TIPF_ADDR(0xf0000001, TIPF_DST), 1400 },
        { "source 255.255.255.255", TIPF_ADDR(0xffffffff, TIPF_DST), 1400 },
        { "destination 224.0.0.1", TIPF_ADDR(TIPF_SRC, 0xe0000001), 1400 },
        { "destination 255.255.255.255",
          TIPF_ADDR(TIPF_SRC, 0xffffffff), 1400 },
        { "mtu 67", TIPF_UDP(0, 1500, IP_DONT_FRAGMENT), 67 },
        { "mtu 65536", TIPF_UDP(0, 1500, IP_DONT_FRAGMENT), 65536 },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct dp_packet *p = tipf_build(&cases[i].spec);
        struct dp_packet *r;

        r = ip_icmp_frag_needed(p, htonl(TIPF_REPLY_SRC), cases[i].mtu);
        printf("%s: %s\n", cases[i].name, r ? "REPLY" : "no reply");
        if (r) {
            test_fail("%s must not get a reply", cases[i].name);
        }
        dp_packet_delete(p);
    }

    /* Malformed originals. */
    {
        struct tipf_spec spec = TIPF_UDP(0, 1500, IP_DONT_FRAGMENT);
        struct dp_packet *p;

        p = tipf_build(&spec);
        dp_packet_set_size(p, 1000);
        printf("truncated datagram: %s\n",
               ip_icmp_frag_needed(p, htonl(TIPF_REPLY_SRC), 1400)
               ? "REPLY" : "no reply");
        dp_packet_delete(p);

        p = tipf_build(&spec);
        ((uint8_t *) dp_packet_data(p))[0] = 0x43;
        printf("header length 12: %s\n",
               ip_icmp_frag_needed(p, htonl(TIPF_REPLY_SRC), 1400)
               ? "REPLY" : "no reply");
        dp_packet_delete(p);

        p = tipf_build(&spec);
        p->packet_type = htonl(PT_IPV6);
        printf("ipv6 packet type: %s\n",
               ip_icmp_frag_needed(p, htonl(TIPF_REPLY_SRC), 1400)
               ? "REPLY" : "no reply");
        dp_packet_delete(p);
    }
}

/* The subcommands. */
static const struct test_command tipf_cmds[] = {
    { "fragment", cmd_fragment },
    { "fragment-errors", cmd_fragment_errors },
    { "icmp", cmd_icmp },
    { "icmp-refused", cmd_icmp_refused },
};

int
main(int argc, char *argv[])
{
    return test_run_command(tipf_cmds, ARRAY_SIZE(tipf_cmds), argc, argv);
}

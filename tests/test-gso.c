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

/* Unit tests of lib/packet/gso.c: crafted TCP packets are segmented and every
 * segment is checked byte by byte against the original, with checksums
 * recomputed here independently.  Run by tests/percpu-gso.at. */

#include <config.h>

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "dp-packet.h"
#include "gso.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/util.h"
#include "packets.h"
#include "test-pkt.h"
#include "tso-segsz.h"
#include "util.h"

/* What goes in front of IP. */
enum tgso_l2 {
    TGSO_L2_ETH,        /* Ethernet. */
    TGSO_L2_VLAN,       /* Ethernet, 802.1Q tag. */
    TGSO_L2_QINQ,       /* Ethernet, 802.1ad tag, 802.1Q tag. */
    TGSO_L2_NONE,       /* L3 packet (PT_IPV4 / PT_IPV6). */
};

/* The IP header. */
enum tgso_l3 {
    TGSO_L3_IPV4,       /* IPv4, no options. */
    TGSO_L3_IPV4_OPTS,  /* IPv4 with 8 bytes of options. */
    TGSO_L3_IPV6,       /* IPv6, TCP right after. */
    TGSO_L3_IPV6_EXT,   /* IPv6, an 8-byte hop-by-hop header, then TCP. */
};

/* A packet to build. */
struct tgso_spec {
    enum tgso_l2 l2;
    enum tgso_l3 l3;
    uint8_t proto;              /* IPPROTO_TCP or IPPROTO_UDP. */
    size_t payload_len;         /* L4 payload bytes. */
    uint16_t tcp_flags;         /* TCP flags. */
    size_t pad;                 /* Junk bytes after the IP datagram. */
};

/* Where the builder put things. */
struct tgso_layout {
    size_t l3_ofs;              /* IP header. */
    size_t l4_ofs;              /* TCP or UDP header. */
    size_t payload_ofs;         /* L4 payload. */
    size_t end_ofs;             /* End of the IP datagram. */
    bool is_ipv6;
};

/* Field values of the packets the builder makes. */
#define TGSO_IP_ID 0xfffe               /* Wraps after two segments. */
#define TGSO_SEQ 0xfffffc00u            /* Wraps after 1024 bytes. */
#define TGSO_ACK 0x01020304u
#define TGSO_TCP_HDR_LEN 32             /* 20 + 12 bytes of timestamps. */
#define TGSO_TCP_CSUM_JUNK 0xdead       /* What GSO must overwrite. */
#define TGSO_SCTP_HDR_LEN 12
#define TGSO_IN_PORT 7
#define TGSO_RECIRC_ID 5
#define TGSO_TUN_DST 0x0a000063
#define TGSO_RSS_HASH 0x12345678
#define TGSO_DEFAULT_FLAGS (TCP_ACK | TCP_PSH | TCP_FIN | TCP_CWR | TCP_ECE)

/* The byte at 'i' of every payload: not periodic over any segment size
 * used here, so that a misplaced chunk shows. */
static uint8_t
tgso_payload_byte(size_t i)
{
    return (i * 131 + (i >> 8) * 7 + 3) & 0xff;
}

/* Builds the packet 'spec' describes, byte by byte, marks it for TSO with
 * 'segsz' and checksum offload as a tap or GRO would, gives it metadata,
 * and stores its layout in '*lay'. */
static struct dp_packet *
tgso_build(const struct tgso_spec *spec, uint16_t segsz,
           struct tgso_layout *lay)
{
    bool ipv6 = spec->l3 == TGSO_L3_IPV6 || spec->l3 == TGSO_L3_IPV6_EXT;
    size_t l4_hdr = (spec->proto == IPPROTO_TCP ? TGSO_TCP_HDR_LEN
                     : spec->proto == IPPROTO_SCTP ? TGSO_SCTP_HDR_LEN
                     : 8);
    size_t l3_hdr, size, o;
    struct dp_packet *p;
    uint8_t *b;

    switch (spec->l2) {
    case TGSO_L2_ETH: lay->l3_ofs = 14; break;
    case TGSO_L2_VLAN: lay->l3_ofs = 18; break;
    case TGSO_L2_QINQ: lay->l3_ofs = 22; break;
    case TGSO_L2_NONE: default: lay->l3_ofs = 0; break;
    }
    switch (spec->l3) {
    case TGSO_L3_IPV4: l3_hdr = 20; break;
    case TGSO_L3_IPV4_OPTS: l3_hdr = 28; break;
    case TGSO_L3_IPV6: l3_hdr = 40; break;
    case TGSO_L3_IPV6_EXT: default: l3_hdr = 48; break;
    }
    lay->is_ipv6 = ipv6;
    lay->l4_ofs = lay->l3_ofs + l3_hdr;
    lay->payload_ofs = lay->l4_ofs + l4_hdr;
    lay->end_ofs = lay->payload_ofs + spec->payload_len;
    size = lay->end_ofs + spec->pad;

    b = xzalloc(size);
    if (spec->l2 != TGSO_L2_NONE) {
        static const uint8_t macs[12] = {
            0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
            0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,
        };
        memcpy(b, macs, sizeof macs);
        o = 12;
        if (spec->l2 == TGSO_L2_QINQ) {
            test_put16(b + o, ETH_TYPE_VLAN_8021AD);
            test_put16(b + o + 2, 200);
            o += 4;
        }
        if (spec->l2 != TGSO_L2_ETH) {
            test_put16(b + o, ETH_TYPE_VLAN_8021Q);
            test_put16(b + o + 2, 0x2064);   /* PCP 1, VID 100. */
            o += 4;
        }
        test_put16(b + o, ipv6 ? ETH_TYPE_IPV6 : ETH_TYPE_IP);
    }

    o = lay->l3_ofs;
    if (!ipv6) {
        b[o] = 0x40 | (l3_hdr / 4);
        b[o + 1] = 0x10;                        /* TOS. */
        test_put16(b + o + 2, lay->end_ofs - o);
        test_put16(b + o + 4, TGSO_IP_ID);
        test_put16(b + o + 6, IP_DONT_FRAGMENT);
        b[o + 8] = 64;                          /* TTL. */
        b[o + 9] = spec->proto;
        test_put32(b + o + 12, 0x0a000001);
        test_put32(b + o + 16, 0x0a000002);
        if (spec->l3 == TGSO_L3_IPV4_OPTS) {
            static const uint8_t opts[8] = {
                0x94, 0x04, 0x00, 0x00,         /* Router alert. */
                0x01, 0x01, 0x01, 0x00,         /* NOP x3, EOL. */
            };
            memcpy(b + o + 20, opts, sizeof opts);
        }
        /* The IP checksum is left 0, for offload. */
    } else {
        test_put32(b + o, 0x600abcde);               /* Version, flow label. */
        test_put16(b + o + 4, lay->end_ofs - o - 40);
        b[o + 6] = spec->l3 == TGSO_L3_IPV6_EXT ? IPPROTO_HOPOPTS
                                                : spec->proto;
        b[o + 7] = 64;                          /* Hop limit. */
        test_put32(b + o + 8, 0x20010db8);
        b[o + 23] = 1;
        test_put32(b + o + 24, 0x20010db8);
        b[o + 39] = 2;
        if (spec->l3 == TGSO_L3_IPV6_EXT) {
            b[o + 40] = spec->proto;
            b[o + 41] = 0;                      /* 8 bytes. */
            b[o + 42] = 1;                      /* PadN, 4 bytes. */
            b[o + 43] = 4;
        }
    }

    o = lay->l4_ofs;
    if (spec->proto == IPPROTO_TCP) {
        static const uint8_t ts[12] = {
            0x01, 0x01, 0x08, 0x0a,             /* NOP, NOP, timestamps. */
            0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
        };
        test_put16(b + o, 12345);
        test_put16(b + o + 2, 80);
        test_put32(b + o + 4, TGSO_SEQ);
        test_put32(b + o + 8, TGSO_ACK);
        test_put16(b + o + 12,
                   ((TGSO_TCP_HDR_LEN / 4) << 12) | spec->tcp_flags);
        test_put16(b + o + 14, 512);                 /* Window. */
        test_put16(b + o + 16, TGSO_TCP_CSUM_JUNK);
        memcpy(b + o + 20, ts, sizeof ts);
    } else if (spec->proto == IPPROTO_SCTP) {
        test_put16(b + o, 12345);
        test_put16(b + o + 2, 3868);
        test_put32(b + o + 4, 0xcafef00d);           /* Verification tag. */
        test_put32(b + o + 8, 0x12345678);           /* Junk checksum. */
    } else {
        test_put16(b + o, 12345);
        test_put16(b + o + 2, 53);
        test_put16(b + o + 4, l4_hdr + spec->payload_len);
        test_put16(b + o + 6, 0xbeef);
    }
    for (size_t i = 0; i < spec->payload_len; i++) {
        b[lay->payload_ofs + i] = tgso_payload_byte(i);
    }
    for (size_t i = 0; i < spec->pad; i++) {
        b[lay->end_ofs + i] = 0xee;
    }

    p = dp_packet_clone_data(b, size);
    free(b);
    if (spec->l2 == TGSO_L2_NONE) {
        p->packet_type = htonl(ipv6 ? PT_IPV6 : PT_IPV4);
    }
    p->md.in_port.odp_port = u32_to_odp(TGSO_IN_PORT);
    p->md.recirc_id = TGSO_RECIRC_ID;
    p->md.tunnel.ip_dst = htonl(TGSO_TUN_DST);
    dp_packet_set_rss_hash(p, TGSO_RSS_HASH);
    if (segsz) {
        tso_segsz_set(p, segsz);
    }
    if (ipv6) {
        dp_packet_hwol_set_tx_ipv6(p);
    } else {
        dp_packet_hwol_set_tx_ipv4(p);
    }
    if (spec->proto == IPPROTO_TCP) {
        dp_packet_hwol_set_csum_tcp(p);
    } else if (spec->proto == IPPROTO_SCTP) {
        dp_packet_hwol_set_csum_sctp(p);
    } else {
        dp_packet_hwol_set_csum_udp(p);
    }
    return p;
}

/* Checks 'n' segments 'segs' that 'orig' (a copy of the original bytes,
 * laid out as 'lay', of packet type 'packet_type') was cut into with
 * segment size 'segsz', prints one line per segment, and fails on the first
 * mismatch. */
static void
tgso_check_segments(struct dp_packet **segs, size_t n, const uint8_t *orig,
                    const struct tgso_layout *lay, ovs_be32 packet_type,
                    uint16_t segsz, bool print)
{
    size_t payload_len = lay->end_ofs - lay->payload_ofs;
    size_t l4_hdr = lay->payload_ofs - lay->l4_ofs;
    uint16_t orig_flags = test_get16(orig + lay->l4_ofs + 12) & 0x0fff;
    uint8_t *payload = xmalloc(payload_len + 1);
    size_t offset = 0;

    for (size_t i = 0; i < n; i++) {
        struct dp_packet *seg = segs[i];
        const uint8_t *b = dp_packet_data(seg);
        size_t size = dp_packet_size(seg);
        const uint8_t *ip = b + lay->l3_ofs;
        const uint8_t *th = b + lay->l4_ofs;
        size_t seg_payload, l4_len;
        uint16_t flags, want_flags;
        struct ds s = DS_EMPTY_INITIALIZER;

        if (size < lay->payload_ofs) {
            test_fail("segment %"PRIuSIZE": %"PRIuSIZE" bytes, shorter than "
                      "its headers (%"PRIuSIZE")", i, size, lay->payload_ofs);
        }
        seg_payload = size - lay->payload_ofs;
        l4_len = size - lay->l4_ofs;
        if (seg_payload > segsz
            || (i + 1 < n && seg_payload != segsz)) {
            test_fail("segment %"PRIuSIZE" of %"PRIuSIZE": payload %"PRIuSIZE
                      ", segsz %"PRIu16, i, n, seg_payload, segsz);
        }
        if (offset + seg_payload > payload_len) {
            test_fail("segments carry more than %"PRIuSIZE" payload bytes",
                      payload_len);
        }

        /* Metadata and flags. */
        if (seg->packet_type != packet_type) {
            test_fail("segment %"PRIuSIZE": packet_type %#"PRIx32", expected "
                      "%#"PRIx32, i, ntohl(seg->packet_type),
                      ntohl(packet_type));
        }
        if (odp_to_u32(seg->md.in_port.odp_port) != TGSO_IN_PORT
            || seg->md.recirc_id != TGSO_RECIRC_ID
            || seg->md.tunnel.ip_dst != htonl(TGSO_TUN_DST)) {
            test_fail("segment %"PRIuSIZE": metadata not copied", i);
        }
        if (!dp_packet_rss_valid(seg)
            || dp_packet_get_rss_hash(seg) != TGSO_RSS_HASH) {
            test_fail("segment %"PRIuSIZE": RSS hash not kept", i);
        }
        if (*dp_packet_ol_flags_ptr(seg) & ~(uint64_t) DP_PACKET_OL_RSS_HASH) {
            test_fail("segment %"PRIuSIZE": offload flags %#"PRIx64" left",
                      i, (uint64_t) *dp_packet_ol_flags_ptr(seg));
        }
        if (tso_segsz_get(seg) || dp_packet_hwol_is_tso(seg)) {
            test_fail("segment %"PRIuSIZE": still marked for TSO", i);
        }
        if (seg->l3_ofs != lay->l3_ofs || seg->l4_ofs != lay->l4_ofs) {
            test_fail("segment %"PRIuSIZE": l3_ofs %"PRIu16" l4_ofs %"PRIu16
                      ", expected %"PRIuSIZE" %"PRIuSIZE, i, seg->l3_ofs,
                      seg->l4_ofs, lay->l3_ofs, lay->l4_ofs);
        }

        /* L2, copied unchanged. */
        if (memcmp(b, orig, lay->l3_ofs)) {
            test_fail("segment %"PRIuSIZE": L2 header differs", i);
        }

        /* IP. */
        if (!lay->is_ipv6) {
            uint16_t id = test_get16(ip + 4);

            if (test_get16(ip + 2) != size - lay->l3_ofs) {
                test_fail("segment %"PRIuSIZE": IP total length %"PRIu16
                          ", expected %"PRIuSIZE, i, test_get16(ip + 2),
                          size - lay->l3_ofs);
            }
            if (id != (uint16_t) (TGSO_IP_ID + i)) {
                test_fail("segment %"PRIuSIZE": IP ID %"PRIu16", expected "
                          "%"PRIu16, i, id, (uint16_t) (TGSO_IP_ID + i));
            }
            if (memcmp(ip, orig + lay->l3_ofs, 2)
                || memcmp(ip + 6, orig + lay->l3_ofs + 6, 4)
                || memcmp(ip + 12, orig + lay->l3_ofs + 12,
                          lay->l4_ofs - lay->l3_ofs - 12)) {
                test_fail("segment %"PRIuSIZE": IP header fields or options "
                          "differ from the original", i);
            }
            if (!test_ipv4_csum_ok(ip)) {
                test_fail("segment %"PRIuSIZE": bad IP header checksum", i);
            }
        } else {
            if (test_get16(ip + 4) != size - lay->l3_ofs - 40) {
                test_fail("segment %"PRIuSIZE": IPv6 payload length %"PRIu16
                          ", expected %"PRIuSIZE, i, test_get16(ip + 4),
                          size - lay->l3_ofs - 40);
            }
            if (memcmp(ip, orig + lay->l3_ofs, 4)
                || memcmp(ip + 6, orig + lay->l3_ofs + 6,
                          lay->l4_ofs - lay->l3_ofs - 6)) {
                test_fail("segment %"PRIuSIZE": IPv6 header fields or "
                          "extension headers differ from the original", i);
            }
        }

        /* TCP. */
        if (test_get32(th + 4) != (uint32_t) (TGSO_SEQ + offset)) {
            test_fail("segment %"PRIuSIZE": seq %"PRIu32", expected %"PRIu32,
                      i, test_get32(th + 4), (uint32_t) (TGSO_SEQ + offset));
        }
        flags = test_get16(th + 12) & 0x0fff;
        want_flags = orig_flags;
        if (i + 1 < n) {
            want_flags &= ~(TCP_FIN | TCP_PSH);
        }
        if (i > 0) {
            want_flags &= ~TCP_CWR;
        }
        if (flags != want_flags) {
            test_fail("segment %"PRIuSIZE": TCP flags %#"PRIx16", expected "
                      "%#"PRIx16, i, flags, want_flags);
        }
        if (memcmp(th, orig + lay->l4_ofs, 4)
            || memcmp(th + 8, orig + lay->l4_ofs + 8, 5)
            || memcmp(th + 14, orig + lay->l4_ofs + 14, 2)
            || memcmp(th + 18, orig + lay->l4_ofs + 18, l4_hdr - 18)) {
            test_fail("segment %"PRIuSIZE": TCP ports, ack, offset, window, "
                      "urgent pointer or options differ", i);
        }
        if (!test_l4_csum_ok(ip, lay->is_ipv6, th, l4_len, IPPROTO_TCP)) {
            test_fail("segment %"PRIuSIZE": bad TCP checksum", i);
        }

        memcpy(payload + offset, b + lay->payload_ofs, seg_payload);

        if (print) {
            ds_put_format(&s, "segment %"PRIuSIZE": %"PRIuSIZE" bytes, "
                          "payload %"PRIuSIZE", seq %"PRIu32, i, size,
                          seg_payload, test_get32(th + 4));
            if (!lay->is_ipv6) {
                ds_put_format(&s, ", ip id %"PRIu16, test_get16(ip + 4));
            }
            ds_put_cstr(&s, ", flags ");
            test_format_tcp_flags(&s, flags);
            printf("%s\n", ds_cstr(&s));
        }
        ds_destroy(&s);
        offset += seg_payload;
    }

    if (offset != payload_len
        || memcmp(payload, orig + lay->payload_ofs, payload_len)) {
        test_fail("reassembled payload (%"PRIuSIZE" bytes) differs from the "
                  "original (%"PRIuSIZE" bytes)", offset, payload_len);
    }
    free(payload);
}

static void
tgso_print_stats(const struct gso_stats *st)
{
    printf("stats: segmented %"PRIu64", segments %"PRIu64", drops: "
           "not-tcp %"PRIu64", malformed %"PRIu64", too-many %"PRIu64"\n",
           gso_stats_get(&st->packets_segmented),
           gso_stats_get(&st->segments_out),
           gso_stats_get(&st->drops[GSO_DROP_NOT_TCP]),
           gso_stats_get(&st->drops[GSO_DROP_MALFORMED]),
           gso_stats_get(&st->drops[GSO_DROP_TOO_MANY_SEGS]));
}

static enum tgso_l2
tgso_parse_l2(const char *s)
{
    return (!strcmp(s, "eth") ? TGSO_L2_ETH
            : !strcmp(s, "vlan") ? TGSO_L2_VLAN
            : !strcmp(s, "qinq") ? TGSO_L2_QINQ
            : !strcmp(s, "l3") ? TGSO_L2_NONE
            : (test_fail("unknown L2 %s", s), TGSO_L2_ETH));
}

static enum tgso_l3
tgso_parse_l3(const char *s)
{
    return (!strcmp(s, "ipv4") ? TGSO_L3_IPV4
            : !strcmp(s, "ipv4-opts") ? TGSO_L3_IPV4_OPTS
            : !strcmp(s, "ipv6") ? TGSO_L3_IPV6
            : !strcmp(s, "ipv6-ext") ? TGSO_L3_IPV6_EXT
            : (test_fail("unknown L3 %s", s), TGSO_L3_IPV4));
}

/* Segments one packet, checks every segment and prints them.  'prefill'
 * unrelated packets are in the batch before the call. */
static void
tgso_run(const struct tgso_spec *spec, uint16_t segsz, size_t prefill,
         bool print)
{
    struct gso_stats stats;
    struct test_sink sink;
    struct tgso_layout lay;
    struct dp_packet *p;
    ovs_be32 packet_type;
    uint8_t *orig;
    int error;

    memset(&stats, 0, sizeof stats);
    test_sink_init(&sink);
    for (size_t i = 0; i < prefill; i++) {
        struct dp_packet *other = dp_packet_new(64);

        other->md.recirc_id = 1000 + i;
        dp_packet_batch_add(&sink.batch, other);
    }

    p = tgso_build(spec, segsz, &lay);
    orig = xmemdup(dp_packet_data(p), dp_packet_size(p));
    packet_type = p->packet_type;

    error = gso_segment(p, segsz, &sink.out, &stats);
    if (error) {
        test_fail("gso_segment() returned %s", test_errno_name(error));
    }
    test_sink_drain(&sink);

    for (size_t i = 0; i < prefill; i++) {
        if (sink.pkts[i]->md.recirc_id != 1000 + i) {
            test_fail("packet %"PRIuSIZE" is not the one queued before "
                      "segmentation", i);
        }
    }
    tgso_check_segments(sink.pkts + prefill, sink.n_pkts - prefill, orig,
                        &lay, packet_type, segsz, print);
    printf("checked %"PRIuSIZE" segments: headers, checksums, metadata, "
           "%"PRIuSIZE" payload bytes reassembled\n", sink.n_pkts - prefill,
           spec->payload_len);
    tgso_print_stats(&stats);
    printf("flushes %d", sink.n_flushes);
    for (int i = 0; i < MIN(sink.n_flushes, ARRAY_SIZE(sink.flush_sizes));
         i++) {
        printf(" (%"PRIuSIZE")", sink.flush_sizes[i]);
    }
    printf(", left in batch %"PRIuSIZE"\n",
           sink.n_pkts - (sink.n_flushes * (size_t) NETDEV_MAX_BURST));
    if (gso_stats_get(&stats.segments_out) != sink.n_pkts - prefill
        || gso_stats_get(&stats.packets_segmented) != 1) {
        test_fail("stats do not match the %"PRIuSIZE" segments emitted",
                  sink.n_pkts - prefill);
    }
    free(orig);
    test_sink_destroy(&sink);
}

/* segment L2 L3 PAYLOAD SEGSZ [pad=N] [prefill=N] [flags=N] [quiet] */
static void
cmd_segment(int argc, char *argv[])
{
    struct tgso_spec spec = {
        .proto = IPPROTO_TCP,
        .tcp_flags = TGSO_DEFAULT_FLAGS,
    };
    size_t prefill = 0;
    bool print = true;

    if (argc < 6) {
        test_fail("usage: segment L2 L3 PAYLOAD SEGSZ [pad=N] [prefill=N]");
    }
    spec.l2 = tgso_parse_l2(argv[2]);
    spec.l3 = tgso_parse_l3(argv[3]);
    spec.payload_len = atoi(argv[4]);
    for (int i = 6; i < argc; i++) {
        if (!strncmp(argv[i], "pad=", 4)) {
            spec.pad = atoi(argv[i] + 4);
        } else if (!strncmp(argv[i], "prefill=", 8)) {
            prefill = atoi(argv[i] + 8);
        } else if (!strncmp(argv[i], "flags=", 6)) {
            spec.tcp_flags = strtol(argv[i] + 6, NULL, 0);
        } else if (!strcmp(argv[i], "quiet")) {
            print = false;
        } else {
            test_fail("unknown option %s", argv[i]);
        }
    }
    tgso_run(&spec, atoi(argv[5]), prefill, print);
}

/* One bad packet: how to make it, and how it must be dropped. */
struct tgso_bad {
    const char *name;
    struct tgso_spec spec;
    uint16_t segsz;
    void (*mutate)(struct dp_packet *, const struct tgso_layout *);
    int error;
    enum gso_drop_reason reason;
};

static uint8_t *
tgso_bytes(struct dp_packet *p)
{
    return dp_packet_data(p);
}

static void
bad_eth_truncated(struct dp_packet *p, const struct tgso_layout *lay
                  OVS_UNUSED)
{
    dp_packet_set_size(p, 10);
}

static void
bad_vlan_truncated(struct dp_packet *p, const struct tgso_layout *lay
                   OVS_UNUSED)
{
    dp_packet_set_size(p, 16);
}

static void
bad_ipv4_truncated(struct dp_packet *p, const struct tgso_layout *lay)
{
    dp_packet_set_size(p, lay->l3_ofs + 12);
}

static void
bad_ipv4_ihl(struct dp_packet *p, const struct tgso_layout *lay)
{
    tgso_bytes(p)[lay->l3_ofs] = 0x44;
}

static void
bad_ipv4_options_beyond(struct dp_packet *p, const struct tgso_layout *lay)
{
    uint8_t *ip = tgso_bytes(p) + lay->l3_ofs;

    ip[0] = 0x4f;                       /* 60-byte header... */
    test_put16(ip + 2, 40);                  /* ...in a 40-byte datagram. */
}

static void
bad_ipv4_version(struct dp_packet *p, const struct tgso_layout *lay)
{
    tgso_bytes(p)[lay->l3_ofs] = 0x65;
}

static void
bad_ipv4_tot_len_beyond(struct dp_packet *p, const struct tgso_layout *lay)
{
    uint8_t *ip = tgso_bytes(p) + lay->l3_ofs;

    test_put16(ip + 2, test_get16(ip + 2) + 1);
}

static void
bad_ipv4_tot_len_short(struct dp_packet *p, const struct tgso_layout *lay)
{
    test_put16(tgso_bytes(p) + lay->l3_ofs + 2, 16);
}

static void
bad_ipv4_fragment(struct dp_packet *p, const struct tgso_layout *lay)
{
    test_put16(tgso_bytes(p) + lay->l3_ofs + 6, IP_MORE_FRAGMENTS);
}

static void
bad_ipv4_later_fragment(struct dp_packet *p, const struct tgso_layout *lay)
{
    test_put16(tgso_bytes(p) + lay->l3_ofs + 6, 185);
}

static void
bad_tcp_truncated(struct dp_packet *p, const struct tgso_layout *lay)
{
    test_put16(tgso_bytes(p) + lay->l3_ofs + 2,
               lay->l4_ofs - lay->l3_ofs + 10);
    dp_packet_set_size(p, lay->l4_ofs + 10);
}

static void
bad_tcp_doff_short(struct dp_packet *p, const struct tgso_layout *lay)
{
    uint8_t *th = tgso_bytes(p) + lay->l4_ofs;

    th[12] = (th[12] & 0x0f) | (4 << 4);
}

static void
bad_tcp_doff_beyond(struct dp_packet *p, const struct tgso_layout *lay)
{
    uint8_t *th = tgso_bytes(p) + lay->l4_ofs;

    th[12] = (th[12] & 0x0f) | (15 << 4);
}

static void
bad_ipv6_truncated(struct dp_packet *p, const struct tgso_layout *lay)
{
    dp_packet_set_size(p, lay->l3_ofs + 30);
}

static void
bad_ipv6_plen_beyond(struct dp_packet *p, const struct tgso_layout *lay)
{
    uint8_t *ip6 = tgso_bytes(p) + lay->l3_ofs;

    test_put16(ip6 + 4, test_get16(ip6 + 4) + 1);
}

static void
bad_ipv6_routing(struct dp_packet *p, const struct tgso_layout *lay)
{
    tgso_bytes(p)[lay->l3_ofs + 6] = IPPROTO_ROUTING;
}

static void
bad_ipv6_fragment(struct dp_packet *p, const struct tgso_layout *lay)
{
    tgso_bytes(p)[lay->l3_ofs + 6] = IPPROTO_FRAGMENT;
}

static void
bad_ipv6_hbh_beyond(struct dp_packet *p, const struct tgso_layout *lay)
{
    tgso_bytes(p)[lay->l3_ofs + 41] = 200;
}

static void
bad_proto_icmp(struct dp_packet *p, const struct tgso_layout *lay)
{
    tgso_bytes(p)[lay->l3_ofs + 9] = IPPROTO_ICMP;
}

static void
bad_arp(struct dp_packet *p, const struct tgso_layout *lay OVS_UNUSED)
{
    test_put16(tgso_bytes(p) + 12, ETH_TYPE_ARP);
}

static void
bad_three_vlans(struct dp_packet *p, const struct tgso_layout *lay)
{
    test_put16(tgso_bytes(p) + lay->l3_ofs - 2, ETH_TYPE_VLAN_8021Q);
}

static void
bad_packet_type(struct dp_packet *p, const struct tgso_layout *lay OVS_UNUSED)
{
    p->packet_type = htonl(PT_NSH);
}

#define TGSO_TCP4(L2) { .l2 = L2, .l3 = TGSO_L3_IPV4, .proto = IPPROTO_TCP, \
                        .payload_len = 3000, .tcp_flags = TCP_ACK }
#define TGSO_TCP6(L2, L3) { .l2 = L2, .l3 = L3, .proto = IPPROTO_TCP, \
                            .payload_len = 3000, .tcp_flags = TCP_ACK }

static const struct tgso_bad tgso_malformed[] = {
    { "ethernet header truncated", TGSO_TCP4(TGSO_L2_ETH), 1000,
      bad_eth_truncated, EINVAL, GSO_DROP_MALFORMED },
    { "vlan tag truncated", TGSO_TCP4(TGSO_L2_VLAN), 1000,
      bad_vlan_truncated, EINVAL, GSO_DROP_MALFORMED },
    { "ipv4 header truncated", TGSO_TCP4(TGSO_L2_ETH), 1000,
      bad_ipv4_truncated, EINVAL, GSO_DROP_MALFORMED },
    { "ipv4 header length under 20", TGSO_TCP4(TGSO_L2_ETH), 1000,
      bad_ipv4_ihl, EINVAL, GSO_DROP_MALFORMED },
    { "ipv4 options beyond total length", TGSO_TCP4(TGSO_L2_NONE), 1000,
      bad_ipv4_options_beyond, EINVAL, GSO_DROP_MALFORMED },
    { "ipv4 version 6 under ethertype ipv4", TGSO_TCP4(TGSO_L2_ETH), 1000,
      bad_ipv4_version, EINVAL, GSO_DROP_MALFORMED },
    { "ipv4 total length beyond packet", TGSO_TCP4(TGSO_L2_ETH), 1000,
      bad_ipv4_tot_len_beyond, EINVAL, GSO_DROP_MALFORMED },
    { "ipv4 total length under header", TGSO_TCP4(TGSO_L2_QINQ), 1000,
      bad_ipv4_tot_len_short, EINVAL, GSO_DROP_MALFORMED },
    { "ipv4 first fragment", TGSO_TCP4(TGSO_L2_ETH), 1000,
      bad_ipv4_fragment, EINVAL, GSO_DROP_MALFORMED },
    { "ipv4 later fragment", TGSO_TCP4(TGSO_L2_NONE), 1000,
      bad_ipv4_later_fragment, EINVAL, GSO_DROP_MALFORMED },
    { "tcp header truncated", TGSO_TCP4(TGSO_L2_ETH), 1000,
      bad_tcp_truncated, EINVAL, GSO_DROP_MALFORMED },
    { "tcp data offset under 5", TGSO_TCP4(TGSO_L2_ETH), 1000,
      bad_tcp_doff_short, EINVAL, GSO_DROP_MALFORMED },
    { "tcp data offset beyond datagram",
      { .l2 = TGSO_L2_ETH, .l3 = TGSO_L3_IPV4, .proto = IPPROTO_TCP,
        .payload_len = 10, .tcp_flags = TCP_ACK }, 1000,
      bad_tcp_doff_beyond, EINVAL, GSO_DROP_MALFORMED },
    { "ipv6 header truncated", TGSO_TCP6(TGSO_L2_NONE, TGSO_L3_IPV6), 1000,
      bad_ipv6_truncated, EINVAL, GSO_DROP_MALFORMED },
    { "ipv6 payload length beyond packet",
      TGSO_TCP6(TGSO_L2_ETH, TGSO_L3_IPV6), 1000,
      bad_ipv6_plen_beyond, EINVAL, GSO_DROP_MALFORMED },
    { "ipv6 routing header", TGSO_TCP6(TGSO_L2_ETH, TGSO_L3_IPV6), 1000,
      bad_ipv6_routing, EINVAL, GSO_DROP_MALFORMED },
    { "ipv6 fragment header", TGSO_TCP6(TGSO_L2_ETH, TGSO_L3_IPV6), 1000,
      bad_ipv6_fragment, EINVAL, GSO_DROP_MALFORMED },
    { "ipv6 hop-by-hop header beyond datagram",
      { .l2 = TGSO_L2_ETH, .l3 = TGSO_L3_IPV6_EXT, .proto = IPPROTO_TCP,
        .payload_len = 10, .tcp_flags = TCP_ACK }, 1000,
      bad_ipv6_hbh_beyond, EINVAL, GSO_DROP_MALFORMED },
    { "segment size 0", TGSO_TCP4(TGSO_L2_ETH), 0,
      NULL, EINVAL, GSO_DROP_MALFORMED },
};

static const struct tgso_bad tgso_not_tcp[] = {
    { "udp over ipv4",
      { .l2 = TGSO_L2_ETH, .l3 = TGSO_L3_IPV4, .proto = IPPROTO_UDP,
        .payload_len = 3000 }, 1000,
      NULL, EPROTONOSUPPORT, GSO_DROP_NOT_TCP },
    { "udp over ipv6",
      { .l2 = TGSO_L2_NONE, .l3 = TGSO_L3_IPV6_EXT, .proto = IPPROTO_UDP,
        .payload_len = 3000 }, 1000,
      NULL, EPROTONOSUPPORT, GSO_DROP_NOT_TCP },
    { "icmp over ipv4", TGSO_TCP4(TGSO_L2_VLAN), 1000,
      bad_proto_icmp, EPROTONOSUPPORT, GSO_DROP_NOT_TCP },
    { "arp frame", TGSO_TCP4(TGSO_L2_ETH), 1000,
      bad_arp, EPROTONOSUPPORT, GSO_DROP_NOT_TCP },
    { "three vlan tags", TGSO_TCP4(TGSO_L2_QINQ), 1000,
      bad_three_vlans, EPROTONOSUPPORT, GSO_DROP_NOT_TCP },
    { "nsh packet type", TGSO_TCP4(TGSO_L2_NONE), 1000,
      bad_packet_type, EPROTONOSUPPORT, GSO_DROP_NOT_TCP },
};

/* Feeds each of the 'n' packets 'bads' to gso_segment() and checks that it
 * is dropped as expected and nothing comes out. */
static void
tgso_run_bad(const struct tgso_bad *bads, size_t n)
{
    struct gso_stats stats;
    struct test_sink sink;

    memset(&stats, 0, sizeof stats);
    test_sink_init(&sink);
    for (size_t i = 0; i < n; i++) {
        const struct tgso_bad *bad = &bads[i];
        uint64_t before = gso_stats_get(&stats.drops[bad->reason]);
        struct tgso_layout lay;
        struct dp_packet *p;
        int error;

        p = tgso_build(&bad->spec, bad->segsz, &lay);
        if (bad->mutate) {
            bad->mutate(p, &lay);
        }
        error = gso_segment(p, bad->segsz, &sink.out, &stats);
        if (error != bad->error) {
            test_fail("%s: gso_segment() returned %s, expected %s",
                      bad->name, test_errno_name(error),
                      test_errno_name(bad->error));
        }
        if (gso_stats_get(&stats.drops[bad->reason]) != before + 1) {
            test_fail("%s: drop not counted under reason %d", bad->name,
                      bad->reason);
        }
        if (!dp_packet_batch_is_empty(&sink.batch) || sink.n_flushes) {
            test_fail("%s: a dropped packet produced output", bad->name);
        }
        printf("%s: %s\n", bad->name, test_errno_name(error));
    }
    tgso_print_stats(&stats);
    test_sink_destroy(&sink);
}

static void
cmd_malformed(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    tgso_run_bad(tgso_malformed, ARRAY_SIZE(tgso_malformed));
}

static void
cmd_not_tcp(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    tgso_run_bad(tgso_not_tcp, ARRAY_SIZE(tgso_not_tcp));
}

/* GSO_MAX_SEGS segments pass, one more is refused. */
static void
cmd_too_many(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct tgso_spec spec = {
        .l2 = TGSO_L2_ETH, .l3 = TGSO_L3_IPV4, .proto = IPPROTO_TCP,
        .tcp_flags = TGSO_DEFAULT_FLAGS,
    };
    uint16_t segsz = 50;
    struct gso_stats stats;
    struct test_sink sink;
    struct tgso_layout lay;
    struct dp_packet *p;
    uint8_t *orig;
    int error;

    memset(&stats, 0, sizeof stats);
    test_sink_init(&sink);

    spec.payload_len = GSO_MAX_SEGS * segsz;
    p = tgso_build(&spec, segsz, &lay);
    orig = xmemdup(dp_packet_data(p), dp_packet_size(p));
    error = gso_segment(p, segsz, &sink.out, &stats);
    test_sink_drain(&sink);
    if (error) {
        test_fail("%d segments refused: %s", GSO_MAX_SEGS,
                  test_errno_name(error));
    }
    tgso_check_segments(sink.pkts, sink.n_pkts, orig, &lay, htonl(PT_ETH),
                        segsz, false);
    printf("payload %"PRIuSIZE" at segsz %"PRIu16": %s, %"PRIuSIZE
           " segments, %d flushes\n", spec.payload_len, segsz,
           test_errno_name(error), sink.n_pkts, sink.n_flushes);
    free(orig);
    test_sink_clear(&sink);

    spec.payload_len++;
    p = tgso_build(&spec, segsz, &lay);
    error = gso_segment(p, segsz, &sink.out, &stats);
    test_sink_drain(&sink);
    printf("payload %"PRIuSIZE" at segsz %"PRIu16": %s, %"PRIuSIZE
           " segments\n", spec.payload_len, segsz, test_errno_name(error),
           sink.n_pkts);
    tgso_print_stats(&stats);
    test_sink_destroy(&sink);
}

/* gso_segsz_for_mtu() on a few packets and MTUs. */
static void
cmd_segsz_for_mtu(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const struct {
        const char *name;
        enum tgso_l2 l2;
        enum tgso_l3 l3;
        uint8_t proto;
        uint16_t marked;
        int mtu;
    } cases[] = {
        { "eth ipv4, unmarked, mtu 1500", TGSO_L2_ETH, TGSO_L3_IPV4,
          IPPROTO_TCP, 0, 1500 },
        { "eth ipv4, marked 1000, mtu 1500", TGSO_L2_ETH, TGSO_L3_IPV4,
          IPPROTO_TCP, 1000, 1500 },
        { "eth ipv4, marked 9000, mtu 1500", TGSO_L2_ETH, TGSO_L3_IPV4,
          IPPROTO_TCP, 9000, 1500 },
        { "eth ipv4, unmarked, mtu 9000", TGSO_L2_ETH, TGSO_L3_IPV4,
          IPPROTO_TCP, 0, 9000 },
        { "vlan ipv4-opts, unmarked, mtu 1500", TGSO_L2_VLAN,
          TGSO_L3_IPV4_OPTS, IPPROTO_TCP, 0, 1500 },
        { "l3 ipv6, unmarked, mtu 1500", TGSO_L2_NONE, TGSO_L3_IPV6,
          IPPROTO_TCP, 0, 1500 },
        { "eth ipv6-ext, marked 1400, mtu 1500", TGSO_L2_ETH,
          TGSO_L3_IPV6_EXT, IPPROTO_TCP, 1400, 1500 },
        { "eth ipv4, unmarked, mtu 53", TGSO_L2_ETH, TGSO_L3_IPV4,
          IPPROTO_TCP, 0, 53 },
        { "eth ipv4, marked 1000, mtu 52", TGSO_L2_ETH, TGSO_L3_IPV4,
          IPPROTO_TCP, 1000, 52 },
        { "eth ipv4 udp, marked 1000, mtu 1500", TGSO_L2_ETH, TGSO_L3_IPV4,
          IPPROTO_UDP, 1000, 1500 },
        { "eth ipv4 udp, unmarked, mtu 1500", TGSO_L2_ETH, TGSO_L3_IPV4,
          IPPROTO_UDP, 0, 1500 },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        struct tgso_spec spec = {
            .l2 = cases[i].l2, .l3 = cases[i].l3, .proto = cases[i].proto,
            .payload_len = 20000, .tcp_flags = TCP_ACK,
        };
        struct tgso_layout lay;
        struct dp_packet *p;

        p = tgso_build(&spec, cases[i].marked, &lay);
        printf("%s: %"PRIu16"\n", cases[i].name,
               gso_segsz_for_mtu(p, cases[i].mtu));
        dp_packet_delete(p);
    }
}

/* Checks that 'p' equals 'orig' but for the two checksum bytes at
 * 'csum_ofs' and, if 'ip_csum_ofs' is nonzero, the two at 'ip_csum_ofs'. */
static void
tgso_check_unchanged(const char *name, const struct dp_packet *p,
                     const uint8_t *orig, size_t size, size_t csum_ofs,
                     size_t ip_csum_ofs)
{
    const uint8_t *b = dp_packet_data(p);

    if (dp_packet_size(p) != size) {
        test_fail("%s: size changed", name);
    }
    for (size_t i = 0; i < size; i++) {
        bool is_csum = (i == csum_ofs || i == csum_ofs + 1
                        || (ip_csum_ofs
                            && (i == ip_csum_ofs || i == ip_csum_ofs + 1)));
        if (!is_csum && b[i] != orig[i]) {
            test_fail("%s: byte %"PRIuSIZE" changed", name, i);
        }
    }
}

/* gso_complete_csum() on a TCP or UDP packet left with a partial
 * (pseudo-header only) checksum, as a tap's vnet header or a local stack
 * leaves it. */
static void
tgso_csum_case(const char *name, enum tgso_l2 l2, enum tgso_l3 l3,
               uint8_t proto, bool set_ipv4_flag, bool make_zero)
{
    struct tgso_spec spec = {
        .l2 = l2, .l3 = l3, .proto = proto, .payload_len = 1001,
        .tcp_flags = TCP_ACK | TCP_PSH,
    };
    size_t csum_ofs, ip_csum_ofs;
    struct tgso_layout lay;
    struct dp_packet *p;
    uint8_t *b, *orig;
    uint16_t field;
    size_t l4_len;
    int error;

    p = tgso_build(&spec, 0, &lay);
    if (!set_ipv4_flag) {
        *dp_packet_ol_flags_ptr(p) &= ~DP_PACKET_OL_TX_IPV4;
    }
    b = dp_packet_data(p);
    l4_len = lay.end_ofs - lay.l4_ofs;
    csum_ofs = lay.l4_ofs + (proto == IPPROTO_TCP ? 16 : 6);
    ip_csum_ofs = lay.is_ipv6 ? 0 : lay.l3_ofs + 10;

    if (make_zero) {
        /* Choose the last two payload bytes so that the checksum comes out
         * as 0, which UDP must send as 0xffff. */
        test_put16(b + lay.end_ofs - 2, 0);
        test_put16(b + csum_ofs, 0);
        if (test_l4_csum_ok(b + lay.l3_ofs, lay.is_ipv6, b + lay.l4_ofs,
                            l4_len, proto)) {
            test_fail("%s: cannot craft a zero checksum", name);
        }
        for (uint32_t v = 0; v <= 0xffff; v++) {
            test_put16(b + lay.end_ofs - 2, v);
            if (test_l4_csum_ok(b + lay.l3_ofs, lay.is_ipv6, b + lay.l4_ofs,
                                l4_len, proto)) {
                break;
            }
        }
    }

    /* The partial checksum: the folded pseudo-header sum, not inverted. */
    {
        uint8_t pseudo[40];
        size_t n;

        if (lay.is_ipv6) {
            memset(pseudo, 0, sizeof pseudo);
            memcpy(pseudo, b + lay.l3_ofs + 8, 32);
            test_put16(pseudo + 34, l4_len);
            pseudo[39] = proto;
            n = 40;
        } else {
            memcpy(pseudo, b + lay.l3_ofs + 12, 8);
            pseudo[8] = 0;
            pseudo[9] = proto;
            test_put16(pseudo + 10, l4_len);
            n = 12;
        }
        test_put16(b + csum_ofs, ~ntohs(csum(pseudo, n)));
    }

    orig = xmemdup(b, dp_packet_size(p));
    error = gso_complete_csum(p);
    b = dp_packet_data(p);
    field = test_get16(b + csum_ofs);
    tgso_check_unchanged(name, p, orig, lay.end_ofs, csum_ofs, ip_csum_ofs);
    if (*dp_packet_ol_flags_ptr(p)
        & (DP_PACKET_OL_TX_IPV4 | DP_PACKET_OL_TX_L4_MASK)) {
        test_fail("%s: checksum offload flags left", name);
    }
    if (!test_l4_csum_ok(b + lay.l3_ofs, lay.is_ipv6, b + lay.l4_ofs, l4_len,
                         proto)) {
        test_fail("%s: bad %s checksum", name,
                  proto == IPPROTO_TCP ? "TCP" : "UDP");
    }
    printf("%s: %s, %s checksum %s", name, test_errno_name(error),
           proto == IPPROTO_TCP ? "tcp" : "udp",
           field == 0xffff ? "0xffff (valid)" : "valid");
    if (!lay.is_ipv6) {
        if (set_ipv4_flag) {
            if (!test_ipv4_csum_ok(b + lay.l3_ofs)) {
                test_fail("%s: bad IP checksum", name);
            }
            printf(", ip checksum valid");
        } else {
            printf(", ip checksum left 0x%04"PRIx16,
                   test_get16(b + ip_csum_ofs));
        }
    }
    printf("\n");
    free(orig);
    dp_packet_delete(p);
}

/* gso_complete_csum() on an SCTP packet whose CRC32c is left to offload:
 * the result must be OVS's crc32c() over the SCTP packet with a zero
 * checksum field, as packet_set_sctp_port() keeps it. */
static void
tgso_csum_sctp(const char *name, enum tgso_l3 l3)
{
    struct tgso_spec spec = {
        .l2 = TGSO_L2_ETH, .l3 = l3, .proto = IPPROTO_SCTP,
        .payload_len = 333,
    };
    struct tgso_layout lay;
    struct dp_packet *p;
    uint8_t *b, *orig;
    ovs_be32 want;
    int error;

    p = tgso_build(&spec, 0, &lay);
    b = dp_packet_data(p);
    orig = xmemdup(b, dp_packet_size(p));
    memset(orig + lay.l4_ofs + 8, 0, 4);
    want = crc32c(orig + lay.l4_ofs, lay.end_ofs - lay.l4_ofs);
    memcpy(orig + lay.l4_ofs + 8, &want, 4);

    error = gso_complete_csum(p);
    b = dp_packet_data(p);
    tgso_check_unchanged(name, p, orig, lay.end_ofs,
                         lay.is_ipv6 ? lay.end_ofs : lay.l3_ofs + 10, 0);
    if (memcmp(b + lay.l4_ofs + 8, &want, 4)) {
        test_fail("%s: wrong CRC32c", name);
    }
    if (*dp_packet_ol_flags_ptr(p) & DP_PACKET_OL_TX_L4_MASK) {
        test_fail("%s: checksum offload flag left", name);
    }
    printf("%s: %s, crc32c matches\n", name, test_errno_name(error));
    free(orig);
    dp_packet_delete(p);
}

/* csum tcp|udp|sctp|mismatch */
static void
cmd_csum(int argc, char *argv[])
{
    if (argc < 3) {
        test_fail("usage: csum tcp|udp|mismatch");
    }
    if (!strcmp(argv[2], "tcp")) {
        tgso_csum_case("eth ipv4 tcp", TGSO_L2_ETH, TGSO_L3_IPV4,
                       IPPROTO_TCP, true, false);
        tgso_csum_case("vlan ipv4-opts tcp", TGSO_L2_VLAN, TGSO_L3_IPV4_OPTS,
                       IPPROTO_TCP, true, false);
        tgso_csum_case("eth ipv4 tcp, tcp flag only", TGSO_L2_ETH,
                       TGSO_L3_IPV4, IPPROTO_TCP, false, false);
        tgso_csum_case("eth ipv6 tcp", TGSO_L2_ETH, TGSO_L3_IPV6,
                       IPPROTO_TCP, true, false);
        tgso_csum_case("l3 ipv6-ext tcp", TGSO_L2_NONE, TGSO_L3_IPV6_EXT,
                       IPPROTO_TCP, true, false);
    } else if (!strcmp(argv[2], "udp")) {
        tgso_csum_case("eth ipv4 udp", TGSO_L2_ETH, TGSO_L3_IPV4,
                       IPPROTO_UDP, true, false);
        tgso_csum_case("l3 ipv4 udp", TGSO_L2_NONE, TGSO_L3_IPV4,
                       IPPROTO_UDP, true, false);
        tgso_csum_case("eth ipv6 udp", TGSO_L2_ETH, TGSO_L3_IPV6,
                       IPPROTO_UDP, true, false);
        tgso_csum_case("eth ipv4 udp, zero sum", TGSO_L2_ETH, TGSO_L3_IPV4,
                       IPPROTO_UDP, true, true);
        tgso_csum_case("eth ipv6 udp, zero sum", TGSO_L2_ETH, TGSO_L3_IPV6,
                       IPPROTO_UDP, true, true);
    } else if (!strcmp(argv[2], "sctp")) {
        tgso_csum_sctp("eth ipv4 sctp", TGSO_L3_IPV4);
        tgso_csum_sctp("eth ipv6 sctp", TGSO_L3_IPV6);
    } else if (!strcmp(argv[2], "mismatch")) {
        /* A TCP checksum request on a UDP packet, and a request on a
         * truncated packet, are refused; flags go either way. */
        struct tgso_spec spec = {
            .l2 = TGSO_L2_ETH, .l3 = TGSO_L3_IPV4, .proto = IPPROTO_UDP,
            .payload_len = 100,
        };
        struct tgso_layout lay;
        struct dp_packet *p;
        int error;

        p = tgso_build(&spec, 0, &lay);
        *dp_packet_ol_flags_ptr(p) &= ~DP_PACKET_OL_TX_L4_MASK;
        dp_packet_hwol_set_csum_tcp(p);
        error = gso_complete_csum(p);
        printf("tcp request on udp: %s, flags left %s\n",
               test_errno_name(error),
               dp_packet_hwol_tx_l4_checksum(p) ? "yes" : "no");
        dp_packet_delete(p);

        spec.proto = IPPROTO_TCP;
        p = tgso_build(&spec, 1000, &lay);
        dp_packet_set_size(p, lay.l3_ofs + 10);
        error = gso_complete_csum(p);
        printf("truncated tcp: %s, flags left %s, tso kept %s\n",
               test_errno_name(error),
               dp_packet_hwol_tx_l4_checksum(p) ? "yes" : "no",
               dp_packet_hwol_is_tso(p) ? "yes" : "no");
        dp_packet_delete(p);
    } else {
        test_fail("unknown csum case %s", argv[2]);
    }
}

/* The subcommands. */
static const struct test_command tgso_cmds[] = {
    { "segment", cmd_segment },
    { "malformed", cmd_malformed },
    { "not-tcp", cmd_not_tcp },
    { "too-many", cmd_too_many },
    { "segsz-for-mtu", cmd_segsz_for_mtu },
    { "csum", cmd_csum },
};

int
main(int argc, char *argv[])
{
    return test_run_command(tgso_cmds, ARRAY_SIZE(tgso_cmds), argc, argv);
}

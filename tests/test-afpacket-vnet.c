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

/* Unit tests of lib/afpacket/afpacket-vnet.c: virtio-net headers to OVS
 * offload flags on receive, and back on transmit.
 *
 * Packets are built byte by byte here.  Checksums are checked with
 * test_l4_csum() of test-pkt.h, which lays out the pseudo-header itself,
 * and a transmitted partial checksum is finished the way a NIC or Linux's
 * skb_checksum_help() would (sum from csum_start to the end, field
 * included) before it is checked, so that a wrong pseudo-header sum in the
 * field shows as a bad checksum.
 *
 * And of lib/afpacket/afpacket-frame.c ("frame"): a received frame copied into
 * packets, frames longer than a dp_packet can hold (OVS 3.1 keeps its
 * allocated size in 16 bits) dropped or, for TCP, cut into pieces that
 * fit.  Each piece is then segmented (or its checksum completed) with our
 * software GSO, and the segments are checked one by one against the
 * frame: consecutive sequence numbers and IPv4 IDs, the frame's payload
 * byte for byte, PSH on the last segment only, valid checksums.
 *
 * Usage: test-afpacket-vnet rx|tx|frame.  Prints one line per case; exits
 * 1 on the first inconsistency it can judge by itself. */

#include <config.h>

#include <linux/virtio_net.h>

#include "afpacket-frame.h"
#include "afpacket-vnet.h"
#include "crc32c.h"
#include "openvswitch/dynamic-string.h"
#include "test-pkt.h"
#include "tso-segsz.h"

/* UDP segmentation offload, which Linux 6.2 and later report on receive;
 * Debian 12's headers predate it. */
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5
#endif

/* What a test packet holds. */
struct tv_spec {
    bool vlan;                  /* One 802.1Q tag after the MACs. */
    bool ipv6;                  /* IPv6 rather than IPv4. */
    uint8_t proto;              /* IPPROTO_TCP, _UDP or _SCTP. */
    size_t payload;             /* Transport payload bytes. */
    size_t pad;                 /* L2 padding bytes after the datagram. */
};

/* Where the headers of a built packet are. */
struct tv_layout {
    size_t l3_ofs, l4_ofs, l4_len, csum_field;
};

/* Returns the offset of the checksum field in a header of 'proto'. */
static size_t
tv_csum_field(uint8_t proto)
{
    return proto == IPPROTO_TCP ? 16 : proto == IPPROTO_UDP ? 6 : 8;
}

/* Returns the length of the header of 'proto' as built here. */
static size_t
tv_l4_hlen(uint8_t proto)
{
    return proto == IPPROTO_TCP ? 20 : proto == IPPROTO_UDP ? 8 : 12;
}

/* Writes an IPv4 or IPv6 header of protocol 'proto' carrying 'l4_len'
 * bytes at 'p'; returns its length. */
static size_t
tv_put_ip(uint8_t *p, bool ipv6, uint8_t proto, size_t l4_len)
{
    if (ipv6) {
        static const uint8_t src[16] = { 0xfd, [15] = 1 };
        static const uint8_t dst[16] = { 0xfd, [15] = 2 };

        memset(p, 0, 40);
        p[0] = 0x60;
        test_put16(p + 4, l4_len);
        p[6] = proto;
        p[7] = 64;
        memcpy(p + 8, src, 16);
        memcpy(p + 24, dst, 16);
        return 40;
    } else {
        static const uint8_t addrs[8] = { 10, 0, 0, 1, 10, 0, 0, 2 };
        ovs_be16 sum;

        memset(p, 0, 20);
        p[0] = 0x45;
        test_put16(p + 2, 20 + l4_len);
        test_put16(p + 4, 0x1234);
        p[8] = 64;
        p[9] = proto;
        memcpy(p + 12, addrs, 8);
        sum = csum(p, 20);
        memcpy(p + 10, &sum, 2);
        return 20;
    }
}

/* Writes a transport header of 'proto' for 'l4_len' bytes at 'p', with a
 * zero checksum. */
static void
tv_put_l4(uint8_t *p, uint8_t proto, size_t l4_len)
{
    memset(p, 0, tv_l4_hlen(proto));
    test_put16(p, 1234);
    test_put16(p + 2, 80);
    if (proto == IPPROTO_TCP) {
        test_put16(p + 4, 0x1000);           /* Sequence number. */
        p[12] = 5 << 4;                 /* Data offset: 20 bytes. */
        p[13] = 0x18;                   /* PSH, ACK. */
        test_put16(p + 14, 65535);
    } else if (proto == IPPROTO_UDP) {
        test_put16(p + 4, l4_len);
    }
}

/* Builds the packet 'spec' describes, with every checksum zero; stores
 * where its headers are in '*lay'. */
static struct dp_packet *
tv_build(const struct tv_spec *spec, struct tv_layout *lay)
{
    size_t l4_len = tv_l4_hlen(spec->proto) + spec->payload;
    size_t total = (ETH_HEADER_LEN + (spec->vlan ? VLAN_HEADER_LEN : 0)
                    + (spec->ipv6 ? 40 : 20) + l4_len + spec->pad);
    struct dp_packet *p = dp_packet_new_with_headroom(total, 64);
    uint8_t *d = dp_packet_put_zeros(p, total);
    size_t ofs = 12;

    d[0] = 0x02;                        /* Destination MAC 02:..:01. */
    d[5] = 1;
    d[6] = 0x02;                        /* Source MAC 02:..:02. */
    d[11] = 2;
    if (spec->vlan) {
        test_put16(d + ofs, 0x8100);
        test_put16(d + ofs + 2, 5);
        ofs += 4;
    }
    test_put16(d + ofs, spec->ipv6 ? 0x86dd : 0x0800);
    ofs += 2;
    lay->l3_ofs = ofs;
    ofs += tv_put_ip(d + ofs, spec->ipv6, spec->proto, l4_len);
    lay->l4_ofs = ofs;
    lay->l4_len = l4_len;
    lay->csum_field = ofs + tv_csum_field(spec->proto);
    tv_put_l4(d + ofs, spec->proto, l4_len);
    for (size_t i = tv_l4_hlen(spec->proto); i < l4_len; i++) {
        d[ofs + i] = i * 7;
    }
    ofs += l4_len;
    memset(d + ofs, 0xee, spec->pad);
    return p;
}

/* Returns the folded, uncomplemented pseudo-header sum of the datagram at
 * 'l3', as Linux leaves in the field of a CHECKSUM_PARTIAL packet: the
 * complement of the checksum of an all-zero segment of that length. */
static ovs_be16
tv_pseudo_fold(const uint8_t *l3, bool ipv6, size_t l4_len, uint8_t proto)
{
    uint8_t *zeros = xzalloc(l4_len);
    uint16_t sum = test_l4_csum(l3, ipv6, zeros, l4_len, proto);

    free(zeros);
    return htons(~sum & 0xffff);
}

/* Stores in the checksum field of 'p' the pseudo-header sum Linux leaves in
 * a partial checksum. */
static void
tv_make_partial(struct dp_packet *p, const struct tv_spec *spec,
                const struct tv_layout *lay)
{
    uint8_t *d = dp_packet_data(p);
    ovs_be16 fold = tv_pseudo_fold(d + lay->l3_ofs, spec->ipv6, lay->l4_len,
                                   spec->proto);

    memcpy(d + lay->csum_field, &fold, 2);
}

/* Returns "valid" if the transport checksum of 'p' checks, else "BAD". */
static const char *
tv_l4_csum_state(struct dp_packet *p, const struct tv_spec *spec,
                 const struct tv_layout *lay)
{
    const uint8_t *d = dp_packet_data(p);

    return (test_l4_csum_ok(d + lay->l3_ofs, spec->ipv6, d + lay->l4_ofs,
                            lay->l4_len, spec->proto) ? "valid" : "BAD");
}

/* Appends the names of the offload flags of 'p' to 's'. */
static void
tv_format_flags(struct ds *s, struct dp_packet *p)
{
    static const struct test_flag_name names[] = {
        { DP_PACKET_OL_RX_L4_CKSUM_GOOD, "rx_l4_good" },
        { DP_PACKET_OL_TX_IPV4, "ipv4" },
        { DP_PACKET_OL_TX_IPV6, "ipv6" },
        { DP_PACKET_OL_TX_TCP_CKSUM, "tcp_csum" },
        { DP_PACKET_OL_TX_UDP_CKSUM, "udp_csum" },
        { DP_PACKET_OL_TX_SCTP_CKSUM, "sctp_csum" },
        { DP_PACKET_OL_TX_TCP_SEG, "tcp_seg" },
    };

    test_format_flags(s, *dp_packet_ol_flags_ptr(p), names,
                      ARRAY_SIZE(names));
}

/* Runs afpacket_vnet_to_packet() on 'p' with 'vnet' and prints the result:
 * return value, flags and segment size. */
static int
tv_rx(const char *name, struct dp_packet *p, const struct virtio_net_hdr *vnet,
      int vlan_shift)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    int error = afpacket_vnet_to_packet(p, vnet, vlan_shift);

    ds_put_format(&s, "%s: %s flags=", name, test_errno_name(error));
    tv_format_flags(&s, p);
    if (tso_segsz_get(p)) {
        ds_put_format(&s, " segsz=%u", tso_segsz_get(p));
    }
    printf("%s", ds_cstr(&s));
    ds_destroy(&s);
    return error;
}

/* A virtio-net header asking for a partial checksum at 'start'/'offset'. */
static struct virtio_net_hdr
tv_vnet_csum(uint16_t start, uint16_t offset)
{
    return (struct virtio_net_hdr) {
        .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
        .csum_start = start,
        .csum_offset = offset,
    };
}

static void
cmd_rx(void)
{
    struct tv_spec tcp4 = { .proto = IPPROTO_TCP, .payload = 100 };
    struct tv_spec udp6 = { .ipv6 = true, .proto = IPPROTO_UDP,
                            .payload = 50 };
    struct tv_spec vlan_tcp4 = { .vlan = true, .proto = IPPROTO_TCP,
                                 .payload = 100 };
    struct tv_spec big_tcp4 = { .proto = IPPROTO_TCP, .payload = 30000 };
    struct tv_spec big_tcp6 = { .ipv6 = true, .proto = IPPROTO_TCP,
                                .payload = 20000 };
    struct tv_spec sctp4 = { .proto = IPPROTO_SCTP, .payload = 40 };
    struct virtio_net_hdr vnet;
    struct tv_layout lay;
    struct dp_packet *p;

    /* No offload at all. */
    p = tv_build(&tcp4, &lay);
    vnet = (struct virtio_net_hdr) { .flags = 0 };
    tv_rx("plain", p, &vnet, 0);
    printf("\n");
    dp_packet_delete(p);

    /* Checksum already verified by Linux. */
    p = tv_build(&tcp4, &lay);
    vnet = (struct virtio_net_hdr) { .flags = VIRTIO_NET_HDR_F_DATA_VALID };
    tv_rx("data-valid", p, &vnet, 0);
    printf("\n");
    dp_packet_delete(p);

    /* Partial TCP checksum at the transport header: carried as flags, the
     * field left as Linux gave it. */
    p = tv_build(&tcp4, &lay);
    tv_make_partial(p, &tcp4, &lay);
    vnet = tv_vnet_csum(lay.l4_ofs, 16);
    if (!tv_rx("partial-tcp4", p, &vnet, 0)) {
        /* Completing it afterwards gives a valid checksum. */
        gso_complete_csum(p);
        printf(" completed=%s", tv_l4_csum_state(p, &tcp4, &lay));
    }
    printf("\n");
    dp_packet_delete(p);

    p = tv_build(&udp6, &lay);
    tv_make_partial(p, &udp6, &lay);
    vnet = tv_vnet_csum(lay.l4_ofs, 6);
    if (!tv_rx("partial-udp6", p, &vnet, 0)) {
        gso_complete_csum(p);
        printf(" completed=%s", tv_l4_csum_state(p, &udp6, &lay));
    }
    printf("\n");
    dp_packet_delete(p);

    p = tv_build(&sctp4, &lay);
    vnet = tv_vnet_csum(lay.l4_ofs, 8);
    tv_rx("partial-sctp4", p, &vnet, 0);
    printf("\n");
    dp_packet_delete(p);

    /* A VLAN tag Linux had taken out of the frame and we pushed back: the
     * header's offsets do not count it. */
    p = tv_build(&vlan_tcp4, &lay);
    tv_make_partial(p, &vlan_tcp4, &lay);
    vnet = tv_vnet_csum(lay.l4_ofs - VLAN_HEADER_LEN, 16);
    tv_rx("partial-vlan-shifted", p, &vnet, VLAN_HEADER_LEN);
    printf("\n");
    dp_packet_delete(p);

    /* The same without the shift: the offset misses the TCP header and the
     * 'checksum' is completed in software where the header says. */
    p = tv_build(&vlan_tcp4, &lay);
    vnet = tv_vnet_csum(lay.l4_ofs - VLAN_HEADER_LEN, 16);
    tv_rx("partial-vlan-unshifted", p, &vnet, 0);
    printf("\n");
    dp_packet_delete(p);

    /* A partial checksum of an inner TCP segment carried in a UDP
     * datagram's payload, as a tunnel packet has: no flag can carry it, so
     * it is completed here, and the inner checksum must then check. */
    {
        struct tv_spec outer = { .proto = IPPROTO_UDP, .payload = 20 + 20
                                                                 + 64 };
        struct tv_spec inner = { .proto = IPPROTO_TCP, .payload = 64 };
        struct tv_layout in_lay = { .l3_ofs = 0 };
        uint8_t *d;

        p = tv_build(&outer, &lay);
        d = dp_packet_data(p);
        in_lay.l3_ofs = lay.l4_ofs + 8;
        in_lay.l4_ofs = in_lay.l3_ofs + tv_put_ip(d + in_lay.l3_ofs, false,
                                                  IPPROTO_TCP, 20 + 64);
        in_lay.l4_len = 20 + 64;
        in_lay.csum_field = in_lay.l4_ofs + 16;
        tv_put_l4(d + in_lay.l4_ofs, IPPROTO_TCP, in_lay.l4_len);
        tv_make_partial(p, &inner, &in_lay);
        vnet = tv_vnet_csum(in_lay.l4_ofs, 16);
        if (!tv_rx("partial-inner-tcp", p, &vnet, 0)) {
            printf(" inner=%s", tv_l4_csum_state(p, &inner, &in_lay));
        }
        printf("\n");
        dp_packet_delete(p);
    }

    /* GSO TCP: one 64 KiB-style frame with its segment size. */
    p = tv_build(&big_tcp4, &lay);
    tv_make_partial(p, &big_tcp4, &lay);
    vnet = tv_vnet_csum(lay.l4_ofs, 16);
    vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
    vnet.gso_size = 1448;
    vnet.hdr_len = lay.l4_ofs + 20;
    tv_rx("gso-tcp4", p, &vnet, 0);
    printf("\n");
    dp_packet_delete(p);

    p = tv_build(&big_tcp6, &lay);
    tv_make_partial(p, &big_tcp6, &lay);
    vnet = tv_vnet_csum(lay.l4_ofs, 16);
    vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV6 | VIRTIO_NET_HDR_GSO_ECN;
    vnet.gso_size = 1000;
    tv_rx("gso-tcp6-ecn", p, &vnet, 0);
    printf("\n");
    dp_packet_delete(p);

    /* What cannot be carried or contradicts the bytes. */
    p = tv_build(&udp6, &lay);
    vnet = tv_vnet_csum(lay.l4_ofs, 6);
    vnet.gso_type = VIRTIO_NET_HDR_GSO_UDP_L4;
    vnet.gso_size = 20;
    tv_rx("gso-udp-l4", p, &vnet, 0);
    printf("\n");
    dp_packet_delete(p);

    p = tv_build(&big_tcp4, &lay);
    vnet = (struct virtio_net_hdr) { .gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
                                     .gso_size = 1448 };
    tv_rx("gso-without-csum", p, &vnet, 0);
    printf("\n");
    dp_packet_delete(p);

    p = tv_build(&big_tcp4, &lay);
    vnet = tv_vnet_csum(lay.l4_ofs, 16);
    vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV6;
    vnet.gso_size = 1448;
    tv_rx("gso-tcp6-on-ipv4", p, &vnet, 0);
    printf("\n");
    dp_packet_delete(p);

    p = tv_build(&big_tcp4, &lay);
    vnet = tv_vnet_csum(lay.l4_ofs, 16);
    vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
    tv_rx("gso-size-zero", p, &vnet, 0);
    printf("\n");
    dp_packet_delete(p);

    /* A segment size under the floor would make hundreds of segments of
     * one frame: refused.  The floor itself passes. */
    p = tv_build(&big_tcp4, &lay);
    tv_make_partial(p, &big_tcp4, &lay);
    vnet = tv_vnet_csum(lay.l4_ofs, 16);
    vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
    vnet.gso_size = 1;
    tv_rx("gso-size-1", p, &vnet, 0);
    printf("\n");
    dp_packet_delete(p);

    p = tv_build(&big_tcp4, &lay);
    tv_make_partial(p, &big_tcp4, &lay);
    vnet = tv_vnet_csum(lay.l4_ofs, 16);
    vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
    vnet.gso_size = AFPACKET_VNET_MIN_GSO_SIZE - 1;
    tv_rx("gso-size-below-floor", p, &vnet, 0);
    printf("\n");
    dp_packet_delete(p);

    p = tv_build(&big_tcp4, &lay);
    tv_make_partial(p, &big_tcp4, &lay);
    vnet = tv_vnet_csum(lay.l4_ofs, 16);
    vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
    vnet.gso_size = AFPACKET_VNET_MIN_GSO_SIZE;
    tv_rx("gso-size-floor", p, &vnet, 0);
    printf("\n");
    dp_packet_delete(p);

    p = tv_build(&tcp4, &lay);
    vnet = tv_vnet_csum(dp_packet_size(p) - 1, 16);
    tv_rx("csum-beyond-end", p, &vnet, 0);
    printf("\n");
    dp_packet_delete(p);
}

/* Runs afpacket_vnet_from_packet() on 'p' and prints the header it made.
 * Then, if it asks for a checksum, completes it as the device would from
 * the header alone and prints whether the result checks. */
static void
tv_tx(const char *name, struct dp_packet *p, const struct tv_spec *spec,
      const struct tv_layout *lay, int mtu)
{
    struct virtio_net_hdr vnet;
    size_t size_before = dp_packet_size(p);
    int error = afpacket_vnet_from_packet(p, &vnet, mtu);

    printf("%s: %s", name, test_errno_name(error));
    if (error) {
        printf("\n");
        return;
    }
    printf(" flags=%u gso_type=%u", vnet.flags, vnet.gso_type);
    if (vnet.gso_type) {
        printf(" hdr_len=%u gso_size=%u", vnet.hdr_len, vnet.gso_size);
    }
    if (vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
        uint8_t *d = dp_packet_data(p);
        size_t len = dp_packet_size(p) - vnet.csum_start;
        ovs_be16 sum;

        printf(" csum_start=%u csum_offset=%u", vnet.csum_start,
               vnet.csum_offset);
        sum = csum(d + vnet.csum_start, len);
        memcpy(d + vnet.csum_start + vnet.csum_offset, &sum, 2);
        printf(" device-csum=%s", tv_l4_csum_state(p, spec, lay));
    }
    if (dp_packet_size(p) != size_before) {
        printf(" size=%"PRIu32"->%"PRIu32, (uint32_t) size_before,
               dp_packet_size(p));
    }
    printf("\n");
}

static void
cmd_tx(void)
{
    struct tv_spec tcp4 = { .proto = IPPROTO_TCP, .payload = 100 };
    struct tv_spec udp4_pad = { .proto = IPPROTO_UDP, .payload = 6,
                                .pad = 12 };
    struct tv_spec udp6 = { .ipv6 = true, .proto = IPPROTO_UDP,
                            .payload = 50 };
    struct tv_spec vlan_tcp6 = { .vlan = true, .ipv6 = true,
                                 .proto = IPPROTO_TCP, .payload = 200 };
    struct tv_spec big_tcp4 = { .proto = IPPROTO_TCP, .payload = 30000 };
    struct tv_spec big_tcp6 = { .ipv6 = true, .proto = IPPROTO_TCP,
                                .payload = 20000 };
    struct tv_spec sctp4 = { .proto = IPPROTO_SCTP, .payload = 40 };
    struct tv_layout lay;
    struct dp_packet *p;
    uint8_t *d;

    /* No flag: an all-zero header, the bytes untouched. */
    p = tv_build(&tcp4, &lay);
    d = dp_packet_data(p);
    memcpy(d + lay.csum_field, "\x12\x34", 2);
    tv_tx("plain", p, &tcp4, &lay, 1500);
    if (memcmp(d + lay.csum_field, "\x12\x34", 2)) {
        test_fail("plain: checksum field changed");
    }
    printf("plain: field untouched\n");
    dp_packet_delete(p);

    /* Partial checksums: whatever the field held (here garbage, as after a
     * header rewrite), the device's completion must check. */
    p = tv_build(&tcp4, &lay);
    d = dp_packet_data(p);
    memcpy(d + lay.csum_field, "\xde\xad", 2);
    dp_packet_hwol_set_tx_ipv4(p);
    dp_packet_hwol_set_csum_tcp(p);
    tv_tx("csum-tcp4", p, &tcp4, &lay, 1500);
    dp_packet_delete(p);

    p = tv_build(&udp6, &lay);
    dp_packet_hwol_set_tx_ipv6(p);
    dp_packet_hwol_set_csum_udp(p);
    tv_tx("csum-udp6", p, &udp6, &lay, 1500);
    dp_packet_delete(p);

    p = tv_build(&vlan_tcp6, &lay);
    dp_packet_hwol_set_tx_ipv6(p);
    dp_packet_hwol_set_csum_tcp(p);
    tv_tx("csum-vlan-tcp6", p, &vlan_tcp6, &lay, 1500);
    dp_packet_delete(p);

    /* L2 padding is cut off, or the device would sum it. */
    p = tv_build(&udp4_pad, &lay);
    dp_packet_hwol_set_tx_ipv4(p);
    dp_packet_hwol_set_csum_udp(p);
    tv_tx("csum-udp4-padded", p, &udp4_pad, &lay, 1500);
    dp_packet_delete(p);

    /* SCTP's CRC32c is done here, not by the device. */
    p = tv_build(&sctp4, &lay);
    dp_packet_hwol_set_tx_ipv4(p);
    dp_packet_hwol_set_csum_sctp(p);
    tv_tx("csum-sctp4", p, &sctp4, &lay, 1500);
    {
        uint8_t *l4 = (uint8_t *) dp_packet_data(p) + lay.l4_ofs;
        ovs_be32 got, want;

        memcpy(&got, l4 + 8, 4);
        memset(l4 + 8, 0, 4);
        want = crc32c(l4, lay.l4_len);
        printf("csum-sctp4: crc32c %s\n", got == want ? "valid" : "BAD");
    }
    dp_packet_delete(p);

    /* TSO: the segment size GRO recorded, or what fits in the MTU. */
    p = tv_build(&big_tcp4, &lay);
    dp_packet_hwol_set_tx_ipv4(p);
    dp_packet_hwol_set_csum_tcp(p);
    tso_segsz_set(p, 1448);
    tv_tx("tso-tcp4-segsz", p, &big_tcp4, &lay, 1500);
    dp_packet_delete(p);

    p = tv_build(&big_tcp6, &lay);
    dp_packet_hwol_set_tx_ipv6(p);
    dp_packet_hwol_set_csum_tcp(p);
    tso_segsz_set(p, 0);
    tv_tx("tso-tcp6-mtu", p, &big_tcp6, &lay, 1500);
    dp_packet_delete(p);

    /* Flags the bytes contradict. */
    p = tv_build(&udp6, &lay);
    dp_packet_hwol_set_tx_ipv6(p);
    dp_packet_hwol_set_csum_tcp(p);
    tv_tx("tcp-csum-on-udp", p, &udp6, &lay, 1500);
    dp_packet_delete(p);

    p = tv_build(&udp6, &lay);
    dp_packet_hwol_set_tx_ipv6(p);
    dp_packet_hwol_set_csum_udp(p);
    tso_segsz_set(p, 1000);
    tv_tx("tso-on-udp", p, &udp6, &lay, 1500);
    dp_packet_delete(p);

    p = tv_build(&big_tcp4, &lay);
    dp_packet_hwol_set_csum_tcp(p);
    tso_segsz_set(p, 0);
    tv_tx("tso-mtu-too-small", p, &big_tcp4, &lay, 40);
    dp_packet_delete(p);
}

/* The names of afpacket_frame_to_packets()' verdicts. */
static const char *
tf_verdict_name(enum afpacket_frame_verdict v)
{
    switch (v) {
    case AFPACKET_FRAME_OK: return "ok";
    case AFPACKET_FRAME_TOO_LONG: return "too-long";
    case AFPACKET_FRAME_BAD_VNET: return "bad-vnet";
    case AFPACKET_FRAME_TINY_GSO: return "tiny-gso";
    case AFPACKET_FRAME_MALFORMED: return "malformed";
    default: return "?";
    }
}

/* A frame as Linux hands it over, possibly longer than a dp_packet. */
struct tf_frame {
    uint8_t *bytes;             /* The frame... */
    size_t len;                 /* ...of this many bytes. */
    size_t l3_ofs, l4_ofs;      /* Where its IP and TCP headers are. */
    bool ipv6;                  /* IPv6 rather than IPv4. */
};

/* Builds in '*f' a frame with 'l4_len' transport bytes of 'proto' (header
 * included, payload bytes i * 7), over IPv6 if 'ipv6', then 'extra' bytes
 * the IP length does not count, and a partial checksum if 'partial' (the
 * complete one otherwise, wrong if 'bad_csum'). */
static void
tf_build(struct tf_frame *f, bool ipv6, uint8_t proto, size_t l4_len,
         size_t extra, bool partial, bool bad_csum)
{
    size_t hl = tv_l4_hlen(proto);
    size_t csum_field;
    uint8_t *d;

    f->ipv6 = ipv6;
    f->l3_ofs = ETH_HEADER_LEN;
    f->l4_ofs = f->l3_ofs + (ipv6 ? 40 : 20);
    f->len = f->l4_ofs + l4_len + extra;
    d = f->bytes = xzalloc(f->len);
    d[0] = 0x02;
    d[5] = 1;
    d[6] = 0x02;
    d[11] = 2;
    test_put16(d + 12, ipv6 ? 0x86dd : 0x0800);
    tv_put_ip(d + f->l3_ofs, ipv6, proto, l4_len);
    if (!ipv6 && l4_len + 20 > UINT16_MAX) {
        test_put16(d + f->l3_ofs + 2, UINT16_MAX);   /* A lie, as asked. */
    }
    tv_put_l4(d + f->l4_ofs, proto, l4_len);
    for (size_t i = hl; i < l4_len + extra; i++) {
        d[f->l4_ofs + i] = i * 7;
    }
    csum_field = f->l4_ofs + tv_csum_field(proto);
    if (partial) {
        ovs_be16 fold = tv_pseudo_fold(d + f->l3_ofs, ipv6, l4_len, proto);

        memcpy(d + csum_field, &fold, 2);
    } else if (l4_len + extra <= UINT16_MAX) {
        uint16_t sum = test_l4_csum(d + f->l3_ofs, ipv6, d + f->l4_ofs,
                                    l4_len, proto);

        test_put16(d + csum_field, sum ^ (bad_csum ? 1 : 0));
    }
}

/* Checks that the packets in 'batch', each segmented (or its checksum
 * completed) by our software GSO, are the TCP segments of frame 'f', in
 * order, and prints how many there were.  'vlan' if a VLAN tag was pushed
 * back into them. */
static void
tf_check_tcp(const char *name, const struct tf_frame *f,
             struct dp_packet_batch *batch, bool vlan)
{
    const uint8_t *fd = f->bytes;
    uint32_t seq0 = test_get32(fd + f->l4_ofs + 4);
    uint16_t id0 = f->ipv6 ? 0 : test_get16(fd + f->l3_ofs + 4);
    size_t hdr = f->l4_ofs + 20, payload = f->len - hdr, done = 0;
    size_t shift = vlan ? VLAN_HEADER_LEN : 0;
    struct gso_stats stats;
    struct test_sink sink;
    struct dp_packet *p;
    size_t n = 0;

    memset(&stats, 0, sizeof stats);
    test_sink_init(&sink);
    DP_PACKET_BATCH_FOR_EACH (i, p, batch) {
        if (dp_packet_get_allocated(p) != dp_packet_headroom(p)
                                          + dp_packet_size(p)
                                          + dp_packet_tailroom(p)
            || dp_packet_headroom(p) + dp_packet_size(p) > UINT16_MAX) {
            test_fail("%s: piece %"PRIuSIZE" of %"PRIu32" bytes does not "
                      "fit its buffer", name, i, dp_packet_size(p));
        }
        if (dp_packet_hwol_is_tso(p)) {
            if (gso_segment(p, tso_segsz_get(p), &sink.out, &stats)) {
                test_fail("%s: piece %"PRIuSIZE" not segmented", name, i);
            }
        } else {
            if (gso_complete_csum(p)) {
                test_fail("%s: piece %"PRIuSIZE" not completed", name, i);
            }
            gso_output_put(&sink.out, p);
        }
    }
    dp_packet_batch_init(batch);
    test_sink_drain(&sink);

    for (size_t k = 0; k < sink.n_pkts; k++) {
        const uint8_t *d = dp_packet_data(sink.pkts[k]);
        size_t size = dp_packet_size(sink.pkts[k]);
        const uint8_t *l3 = d + f->l3_ofs + shift;
        const uint8_t *l4 = d + f->l4_ofs + shift;
        size_t seg = size - hdr - shift;
        bool last = k == sink.n_pkts - 1;

        if (seg == 0 || seg > payload - done
            || memcmp(l4 + 20, fd + hdr + done, seg)
            || test_get32(l4 + 4) != seq0 + done
            || (!f->ipv6 && test_get16(l3 + 4) != (uint16_t) (id0 + k))
            || (!f->ipv6 && !test_ipv4_csum_ok(l3))
            || !test_l4_csum_ok(l3, f->ipv6, l4, size - f->l4_ofs - shift,
                                IPPROTO_TCP)
            || ((l4[13] & TCP_PSH) != 0) != last) {
            test_fail("%s: segment %"PRIuSIZE" (%"PRIuSIZE" bytes of "
                      "payload from byte %"PRIuSIZE") is not the frame's",
                      name, k, seg, done);
        }
        done += seg;
        n++;
    }
    if (done != payload) {
        test_fail("%s: segments carry %"PRIuSIZE" of %"PRIuSIZE" bytes",
                  name, done, payload);
    }
    printf(" segments=%"PRIuSIZE" same-payload", n);
    test_sink_destroy(&sink);
}

/* Runs afpacket_frame_to_packets() on 'f' with 'vnet' and 'info', and
 * prints the verdict and the packets' sizes; if 'tcp', checks the packets
 * against the frame with tf_check_tcp().  Frees the frame. */
static void
tf_run(const char *name, struct tf_frame *f, const struct virtio_net_hdr *vnet,
       const struct afpacket_frame_info *info, bool tcp)
{
    struct dp_packet_batch batch;
    enum afpacket_frame_verdict v;
    struct dp_packet *p;
    struct ds s = DS_EMPTY_INITIALIZER;

    dp_packet_batch_init(&batch);
    v = afpacket_frame_to_packets(f->bytes, f->len, vnet, info, &batch);
    ds_put_format(&s, "%s: %"PRIuSIZE" bytes: %s", name, f->len,
                  tf_verdict_name(v));
    if (v != AFPACKET_FRAME_OK && dp_packet_batch_size(&batch)) {
        test_fail("%s: dropped, yet packets were added", name);
    }
    DP_PACKET_BATCH_FOR_EACH (i, p, &batch) {
        ds_put_format(&s, "%s%"PRIu32, i ? "+" : " packets=",
                      dp_packet_size(p));
        if (dp_packet_headroom(p) < AFPACKET_FRAME_HEADROOM
                                    - (info->vlan_valid ? 4 : 0)) {
            test_fail("%s: headroom %"PRIuSIZE, name, dp_packet_headroom(p));
        }
    }
    if (dp_packet_batch_size(&batch) == 1 && !info->vlan_valid
        && !tcp) {
        p = batch.packets[0];
        ds_put_cstr(&s, (dp_packet_size(p) == f->len
                         && !memcmp(dp_packet_data(p), f->bytes, f->len)
                         ? " same-bytes" : " DIFFERENT-BYTES"));
    }
    printf("%s", ds_cstr(&s));
    if (tcp && v == AFPACKET_FRAME_OK) {
        tf_check_tcp(name, f, &batch, info->vlan_valid);
    }
    printf("\n");
    dp_packet_delete_batch(&batch, true);
    ds_destroy(&s);
    free(f->bytes);
}

static void
cmd_frame(void)
{
    const struct afpacket_frame_info no_vlan = { .vlan_valid = false };
    const struct afpacket_frame_info vlan = {
        .vlan_valid = true, .vlan_tpid = ETH_TYPE_VLAN_8021Q, .vlan_tci = 5,
    };
    const struct virtio_net_hdr none = { .flags = 0 };
    const size_t udp4_hdrs = ETH_HEADER_LEN + 20;
    struct virtio_net_hdr vnet;
    struct tf_frame f;

    /* The longest frame that fits in one packet, and one byte more. */
    tf_build(&f, false, IPPROTO_UDP, AFPACKET_FRAME_MAX_PACKET - udp4_hdrs,
             0, false, false);
    tf_run("udp4-max", &f, &none, &no_vlan, false);
    tf_build(&f, false, IPPROTO_UDP,
             AFPACKET_FRAME_MAX_PACKET + 1 - udp4_hdrs, 0, false, false);
    tf_run("udp4-max+1", &f, &none, &no_vlan, false);
    /* The VLAN tag that goes back in counts. */
    tf_build(&f, false, IPPROTO_UDP,
             AFPACKET_FRAME_MAX_PACKET - 4 - udp4_hdrs, 0, false, false);
    tf_run("udp4-max-vlan", &f, &none, &vlan, false);
    tf_build(&f, false, IPPROTO_UDP,
             AFPACKET_FRAME_MAX_PACKET - 3 - udp4_hdrs, 0, false, false);
    tf_run("udp4-max+1-vlan", &f, &none, &vlan, false);
    /* 64 KiB and beyond. */
    tf_build(&f, false, IPPROTO_UDP, UINT16_MAX - 20, 0, false, false);
    tf_run("udp4-ip-64k", &f, &none, &no_vlan, false);
    tf_build(&f, false, IPPROTO_UDP, UINT16_MAX - 20, 70000, false, false);
    tf_run("udp4-beyond-ip-length", &f, &none, &no_vlan, false);

    /* A TCP GSO frame of a whole 64 KiB IPv4 datagram, as GRO makes: cut
     * at segment boundaries. */
    tf_build(&f, false, IPPROTO_TCP, UINT16_MAX - 20, 0, true, false);
    vnet = tv_vnet_csum(f.l4_ofs, 16);
    vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
    vnet.gso_size = 1448;
    tf_run("gso-tcp4-ip-64k", &f, &vnet, &no_vlan, true);

    /* The same with the VLAN tag Linux took out, over IPv6 (64 KiB of IPv6
     * payload), with a segment size just over half a packet: three
     * pieces. */
    tf_build(&f, true, IPPROTO_TCP, UINT16_MAX, 0, true, false);
    vnet = tv_vnet_csum(f.l4_ofs, 16);
    vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV6;
    vnet.gso_size = 32700;
    tf_run("gso-tcp6-ip-64k-vlan", &f, &vnet, &vlan, true);

    /* Not GSO: a full-sized frame of a veth with MTU 65535, partial
     * checksum, or verified by Linux, or complete and right: cut anywhere;
     * complete and wrong: dropped. */
    tf_build(&f, false, IPPROTO_TCP, UINT16_MAX - 20, 0, true, false);
    vnet = tv_vnet_csum(f.l4_ofs, 16);
    tf_run("tcp4-mtu-64k-partial", &f, &vnet, &no_vlan, true);
    tf_build(&f, false, IPPROTO_TCP, UINT16_MAX - 20, 0, false, false);
    vnet = (struct virtio_net_hdr) { .flags = VIRTIO_NET_HDR_F_DATA_VALID };
    tf_run("tcp4-mtu-64k-data-valid", &f, &vnet, &no_vlan, true);
    tf_build(&f, false, IPPROTO_TCP, UINT16_MAX - 20, 0, false, false);
    tf_run("tcp4-mtu-64k-csum-good", &f, &none, &no_vlan, true);
    tf_build(&f, false, IPPROTO_TCP, UINT16_MAX - 20, 0, false, true);
    tf_run("tcp4-mtu-64k-csum-bad", &f, &none, &no_vlan, true);

    /* What cannot be cut. */
    tf_build(&f, false, IPPROTO_TCP, UINT16_MAX - 20, 0, true, false);
    vnet = tv_vnet_csum(f.l4_ofs, 16);
    vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
    vnet.gso_size = 1;
    tf_run("gso-tcp4-64k-size-1", &f, &vnet, &no_vlan, true);
    tf_build(&f, false, IPPROTO_TCP, UINT16_MAX - 20, 0, true, false);
    vnet = tv_vnet_csum(f.l4_ofs, 16);
    vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
    vnet.gso_size = 65400;
    tf_run("gso-tcp4-64k-segment-too-long", &f, &vnet, &no_vlan, true);
    tf_build(&f, false, IPPROTO_TCP, UINT16_MAX - 20, 0, true, false);
    vnet = tv_vnet_csum(f.l4_ofs + 2, 16);
    vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
    vnet.gso_size = 1448;
    tf_run("gso-tcp4-64k-csum-elsewhere", &f, &vnet, &no_vlan, true);
    tf_build(&f, false, IPPROTO_TCP, UINT16_MAX - 20, 5000, true, false);
    vnet = tv_vnet_csum(f.l4_ofs, 16);
    vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
    vnet.gso_size = 1448;
    tf_run("gso-tcp4-beyond-ip-length", &f, &vnet, &no_vlan, true);

    /* A frame too short for the tag Linux took out of it. */
    tf_build(&f, false, IPPROTO_UDP, 8, 0, false, false);
    f.len = 10;
    tf_run("runt-vlan", &f, &none, &vlan, false);
}

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    if (argc == 2 && !strcmp(argv[1], "rx")) {
        cmd_rx();
    } else if (argc == 2 && !strcmp(argv[1], "tx")) {
        cmd_tx();
    } else if (argc == 2 && !strcmp(argv[1], "frame")) {
        cmd_frame();
    } else {
        fprintf(stderr, "usage: %s rx|tx|frame\n", argv[0]);
        return 2;
    }
    return 0;
}

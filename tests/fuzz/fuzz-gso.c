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

/* Fuzz target: the output path's packet surgery on packets that may come
 * from a guest (a tap's vnet header) or from GRO: software segmentation
 * (gso_segment(), gso_segsz_for_mtu(), lib/packet/gso.c and
 * lib/packet/gso-tcp.c),
 * checksum completion (gso_complete_csum()), IPv4 and IPv6 fragmentation
 * and the ICMP "fragmentation needed" reply (lib/packet/ip-fragment.c).
 *
 * Input: a mode byte, a flags byte, a 16-bit segment size, a 16-bit MTU
 * (both big-endian), then the packet's bytes.  Flags:
 *   bit 0    the packet is an Ethernet frame (else an L3 packet whose type,
 *            PT_IPV4 or PT_IPV6, follows its first nibble);
 *   bit 1    DP_PACKET_OL_TX_IPV4          bit 2  DP_PACKET_OL_TX_TCP_CKSUM
 *   bit 3    DP_PACKET_OL_TX_UDP_CKSUM     bit 4  DP_PACKET_OL_TX_SCTP_CKSUM
 *   bit 5    marked for segmentation with the segment size (tso_segsz_set())
 *   bit 6    fix its IPv4 checksums first
 *   bit 7    DP_PACKET_OL_TX_IPV6
 * Modes (the byte modulo FUZZ_GSO_N_MODES): gso_segment() with the segment
 * size; gso_segment() with gso_segsz_for_mtu(); gso_complete_csum();
 * ip_fragment_v4(), then ip_icmp_frag_needed() if it refuses for DF;
 * ip_fragment_v6(); ip_icmp_frag_needed() and ip6_icmp_packet_too_big().
 *
 * Checks, on every packet produced: no offload flag is left on a segment,
 * whose IP header is 2-byte aligned as the input's is;
 * an IPv4 segment, fragment or reply has a valid header checksum, an
 * ICMPv6 reply a valid checksum and at most 1280 bytes, and a
 * segment or completed packet valid TCP or UDP checksums (recomputed with
 * OVS's csum()); no segment carries more than the segment size; no
 * fragment's datagram exceeds the MTU and every fragment but the last
 * carries a multiple of 8 bytes. */

#include <config.h>
#include "fuzz-common.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip6.h>

#include "csum.h"
#include "dp-packet.h"
#include "gso.h"
#include "ip-fragment.h"
#include "packets.h"
#include "tso-segsz.h"
#include "util.h"

/* What one input exercises. */
enum fuzz_gso_mode {
    FUZZ_GSO_SEGMENT,           /* gso_segment(), the input's size. */
    FUZZ_GSO_SEGMENT_MTU,       /* gso_segment(), gso_segsz_for_mtu(). */
    FUZZ_GSO_CSUM,              /* gso_complete_csum(). */
    FUZZ_GSO_FRAG_V4,           /* ip_fragment_v4(). */
    FUZZ_GSO_FRAG_V6,           /* ip_fragment_v6(). */
    FUZZ_GSO_ICMP,              /* ip_icmp_frag_needed(),
                                 * ip6_icmp_packet_too_big(). */
    FUZZ_GSO_N_MODES
};

/* The source address of the ICMP replies. */
#define FUZZ_GSO_ICMP_SRC 0xc0000201

/* What the output sink checks each packet against. */
struct fuzz_gso_sink {
    enum fuzz_gso_mode mode;
    uint16_t segsz;             /* Largest TCP payload of a segment. */
    int mtu;                    /* Largest IP datagram of a fragment. */
    const struct dp_packet *orig; /* The input packet, which goes out
                                   * unchanged when it need not be cut. */
    size_t n;                   /* Packets seen. */
};

/* Returns the TCP payload length of IPv4 TCP segment 'p' (l3_ofs set), or
 * -1 if it is not one. */
static int
tcp4_payload_len(const struct dp_packet *p)
{
    const struct ip_header *ip = dp_packet_l3(p);
    const struct tcp_header *tcp;
    size_t ihl, tot_len;

    if (!ip || dp_packet_l3_size(p) < IP_HEADER_LEN
        || IP_VER(ip->ip_ihl_ver) != 4 || ip->ip_proto != IPPROTO_TCP) {
        return -1;
    }
    ihl = IP_IHL(ip->ip_ihl_ver) * 4;
    tot_len = ntohs(ip->ip_tot_len);
    if (ihl < IP_HEADER_LEN || tot_len > dp_packet_l3_size(p)
        || tot_len < ihl + TCP_HEADER_LEN) {
        return -1;
    }
    tcp = (const struct tcp_header *) ((const char *) ip + ihl);
    if (TCP_OFFSET(tcp->tcp_ctl) * 4 > tot_len - ihl) {
        return -1;
    }
    return tot_len - ihl - TCP_OFFSET(tcp->tcp_ctl) * 4;
}

/* Checks fragment 'p' against 'mtu'.  'unchanged' if it is the input
 * packet, which fit: its checksum and its own fragment fields are then the
 * sender's business. */
static void
check_fragment(const struct dp_packet *p, int mtu, bool unchanged)
{
    const uint8_t *l3 = dp_packet_l3(p);
    size_t l3_size = l3 ? dp_packet_l3_size(p) : 0;

    if (l3_size >= IP_HEADER_LEN && (l3[0] >> 4) == 4) {
        const struct ip_header *ip = (const struct ip_header *) l3;
        size_t tot_len = ntohs(ip->ip_tot_len);
        size_t ihl = IP_IHL(ip->ip_ihl_ver) * 4;

        fuzz_check(tot_len <= mtu, "IPv4 fragment of %"PRIuSIZE" bytes, "
                   "MTU %d", tot_len, mtu);
        fuzz_check(ihl >= IP_HEADER_LEN && ihl <= tot_len
                   && tot_len <= l3_size, "IPv4 fragment lengths");
        fuzz_check(unchanged || !csum(ip, ihl),
                   "IPv4 fragment header checksum");
        if (!unchanged && ip->ip_frag_off & htons(IP_MORE_FRAGMENTS)) {
            fuzz_check((tot_len - ihl) % 8 == 0, "IPv4 fragment of %"PRIuSIZE
                       " data bytes has MF", tot_len - ihl);
        }
    } else if (l3_size >= IPV6_HEADER_LEN && (l3[0] >> 4) == 6) {
        const struct ovs_16aligned_ip6_hdr *ip6 = (const void *) l3;

        fuzz_check(IPV6_HEADER_LEN + ntohs(ip6->ip6_plen) <= mtu,
                   "IPv6 fragment of %d bytes, MTU %d",
                   IPV6_HEADER_LEN + ntohs(ip6->ip6_plen), mtu);
        fuzz_check(IPV6_HEADER_LEN + ntohs(ip6->ip6_plen) <= l3_size,
                   "IPv6 fragment payload length beyond its bytes");
    } else {
        fuzz_check(false, "fragment is not IP");
    }
}

/* Checks ICMP reply 'p' against ip-fragment.h. */
static void
check_icmp(const struct dp_packet *p)
{
    const struct ip_header *ip = dp_packet_data(p);
    size_t size = dp_packet_size(p);
    size_t ihl;

    fuzz_check(p->packet_type == htonl(PT_IPV4) && size >= IP_HEADER_LEN
               + ICMP_HEADER_LEN, "ICMP reply is not IPv4");
    ihl = IP_IHL(ip->ip_ihl_ver) * 4;
    fuzz_check(ihl == IP_HEADER_LEN && ntohs(ip->ip_tot_len) == size
               && ip->ip_proto == IPPROTO_ICMP, "ICMP reply's IPv4 header");
    fuzz_check(!csum(ip, ihl), "ICMP reply's header checksum");
    fuzz_check(!csum((const char *) ip + ihl, size - ihl),
               "ICMP reply's checksum");
}

/* Checks 'p', an ICMPv6 "packet too big" from ip6_icmp_packet_too_big()
 * for a path of MTU 'mtu'. */
static void
check_icmp6(const struct dp_packet *p, int mtu)
{
    const struct ovs_16aligned_ip6_hdr *ip6 = dp_packet_data(p);
    size_t size = dp_packet_size(p);
    const struct icmp6_data_header *icmp;
    uint32_t partial;

    fuzz_check(p->packet_type == htonl(PT_IPV6)
               && size >= IPV6_HEADER_LEN + ICMP6_DATA_HEADER_LEN
               && size <= IP6_MIN_MTU, "ICMPv6 reply of %"PRIuSIZE" bytes",
               size);
    fuzz_check(ntohs(ip6->ip6_plen) == size - IPV6_HEADER_LEN
               && ip6->ip6_nxt == IPPROTO_ICMPV6, "ICMPv6 reply's header");
    icmp = (const struct icmp6_data_header *) (ip6 + 1);
    fuzz_check(icmp->icmp6_base.icmp6_type == 2
               && ntohl(get_16aligned_be32(icmp->icmp6_data.be32)) == mtu
               && mtu >= IP6_MIN_MTU, "ICMPv6 reply's type and MTU");
    partial = packet_csum_pseudoheader6(ip6);
    fuzz_check(!csum_finish(csum_continue(partial, icmp,
                                          size - IPV6_HEADER_LEN)),
               "ICMPv6 reply's checksum");
}

/* Checks one packet 'p' that 'sink' received. */
static void
check_output(struct fuzz_gso_sink *sink, struct dp_packet *p)
{
    struct dp_packet copy_ofs;
    const void *l3;
    int payload;

    sink->n++;
    fuzz_check(sink->n <= GSO_MAX_SEGS, "more than GSO_MAX_SEGS outputs");
    /* Find the headers independently of the offsets the code under test
     * set, on a shallow copy. */
    copy_ofs = *p;
    fuzz_set_l3_ofs(&copy_ofs);
    switch (sink->mode) {
    case FUZZ_GSO_SEGMENT:
    case FUZZ_GSO_SEGMENT_MTU:
        /* The input's IP header is 2-byte aligned, as the structs that
         * describe it require; so must every segment's be. */
        l3 = dp_packet_l3(&copy_ofs);
        fuzz_check(!l3 || (uintptr_t) l3 % 2 == 0,
                   "segment's IP header at a misaligned address %p", l3);
        fuzz_check(!(*dp_packet_ol_flags_ptr(p) & (DP_PACKET_OL_TX_L4_MASK
                                                   | DP_PACKET_OL_TX_TCP_SEG)),
                   "segment keeps offload flags %#"PRIx64,
                   (uint64_t) *dp_packet_ol_flags_ptr(p));
        fuzz_check(fuzz_l4_csum_ok(&copy_ofs, true), "segment checksum");
        payload = tcp4_payload_len(&copy_ofs);
        fuzz_check(payload <= sink->segsz, "segment of %d payload bytes, "
                   "segsz %u", payload, sink->segsz);
        break;
    case FUZZ_GSO_FRAG_V4:
    case FUZZ_GSO_FRAG_V6:
        if (sink->mtu >= 0) {
            check_fragment(&copy_ofs, sink->mtu, p == sink->orig);
        }
        break;
    case FUZZ_GSO_CSUM:
    case FUZZ_GSO_ICMP:
    case FUZZ_GSO_N_MODES:
    default:
        OVS_NOT_REACHED();
    }
}

/* The output's flush: checks and frees every packet of 'batch'. */
static void
sink_flush(struct dp_packet_batch *batch, void *sink_)
{
    struct fuzz_gso_sink *sink = sink_;
    struct dp_packet *p;

    DP_PACKET_BATCH_FOR_EACH (i, p, batch) {
        check_output(sink, p);
        dp_packet_delete(p);
    }
    dp_packet_batch_init(batch);
}

/* Sets the offload flags of 'p' from input flags 'flags'. */
static void
set_offloads(struct dp_packet *p, uint8_t flags, uint16_t segsz)
{
    static const uint64_t bits[8] = {
        [1] = DP_PACKET_OL_TX_IPV4, [2] = DP_PACKET_OL_TX_TCP_CKSUM,
        [3] = DP_PACKET_OL_TX_UDP_CKSUM, [4] = DP_PACKET_OL_TX_SCTP_CKSUM,
        [7] = DP_PACKET_OL_TX_IPV6,
    };

    for (int i = 0; i < 8; i++) {
        if (flags & (1u << i)) {
            *dp_packet_ol_flags_ptr(p) |= bits[i];
        }
    }
    if (flags & (1u << 5)) {
        tso_segsz_set(p, segsz);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = { .data = data, .size = size };
    enum fuzz_gso_mode mode = fuzz_take_u8(&in) % FUZZ_GSO_N_MODES;
    uint8_t flags = fuzz_take_u8(&in);
    uint16_t segsz = fuzz_take_be16(&in);
    int mtu = fuzz_take_be16(&in);
    struct fuzz_gso_sink sink = { .mode = mode, .segsz = segsz, .mtu = mtu };
    struct gso_stats stats = { 0 };
    struct dp_packet_batch batch;
    struct gso_output out = {
        .batch = &batch, .flush = sink_flush, .aux = &sink,
    };
    struct dp_packet *p, *icmp;
    ovs_be32 type;
    int error;

    fuzz_init();
    if (flags & 1) {
        type = htonl(PT_ETH);
    } else {
        type = htonl(in.size && (in.data[0] >> 4) == 6 ? PT_IPV6 : PT_IPV4);
    }
    p = fuzz_packet(in.data, in.size, type);
    sink.orig = p;
    if (flags & (1u << 6)) {
        fuzz_set_l3_ofs(p);
        fuzz_fix_ipv4_csums(p);
    }
    /* The code under test parses the bytes; the offsets are the datapath's
     * (and their absence must not matter). */
    fuzz_set_l3_ofs(p);
    set_offloads(p, flags, segsz);
    dp_packet_batch_init(&batch);

    switch (mode) {
    case FUZZ_GSO_SEGMENT:
        gso_segment(p, segsz, &out, &stats);
        break;
    case FUZZ_GSO_SEGMENT_MTU:
        sink.segsz = gso_segsz_for_mtu(p, mtu);
        gso_segment(p, sink.segsz, &out, &stats);
        break;
    case FUZZ_GSO_CSUM:
        if (!gso_complete_csum(p)) {
            struct dp_packet copy_ofs = *p;

            fuzz_set_l3_ofs(&copy_ofs);
            const struct ip_header *ip = dp_packet_l3(&copy_ofs);

            if (flags & (1u << 2 | 1u << 3)) {
                /* The header checksum only if it was asked for too. */
                fuzz_check(fuzz_l4_csum_ok(&copy_ofs, flags & (1u << 1)),
                           "completed checksum");
            } else if (flags & (1u << 1) && ip
                       && dp_packet_l3_size(&copy_ofs) >= IP_HEADER_LEN
                       && IP_VER(ip->ip_ihl_ver) == 4
                       && IP_IHL(ip->ip_ihl_ver) * 4
                          <= dp_packet_l3_size(&copy_ofs)) {
                fuzz_check(!csum(ip, IP_IHL(ip->ip_ihl_ver) * 4),
                           "completed IPv4 header checksum");
            }
        }
        fuzz_check(!(*dp_packet_ol_flags_ptr(p) & (DP_PACKET_OL_TX_IPV4
                                                   | DP_PACKET_OL_TX_L4_MASK)),
                   "checksum flags left");
        dp_packet_delete(p);
        break;
    case FUZZ_GSO_FRAG_V4:
        error = ip_fragment_v4(p, mtu, &out);
        if (error == EMSGSIZE) {
            icmp = ip_icmp_frag_needed(p, htonl(FUZZ_GSO_ICMP_SRC), mtu);
            if (icmp) {
                check_icmp(icmp);
                dp_packet_delete(icmp);
            }
            dp_packet_delete(p);
        }
        break;
    case FUZZ_GSO_FRAG_V6:
        ip_fragment_v6(p, mtu, htonl(segsz), &out);
        break;
    case FUZZ_GSO_ICMP:
        icmp = ip_icmp_frag_needed(p, htonl(FUZZ_GSO_ICMP_SRC), mtu);
        if (icmp) {
            check_icmp(icmp);
            dp_packet_delete(icmp);
        }
        icmp = ip6_icmp_packet_too_big(p, &in6addr_exact, mtu);
        if (icmp) {
            check_icmp6(icmp, mtu);
            dp_packet_delete(icmp);
        }
        dp_packet_delete(p);
        break;
    case FUZZ_GSO_N_MODES:
    default:
        OVS_NOT_REACHED();
    }
    sink_flush(&batch, &sink);
    return 0;
}

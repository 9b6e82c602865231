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

/* Software segmentation offload (GSO) and checksum completion. */

#include <config.h>
#include "gso.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "crc32c.h"
#include "csum.h"
#include "dp-packet.h"
#include "gro-fraglist.h"
#include "gso-private.h"
#include "net-hdrs.h"
#include "packets.h"
#include "tso-segsz.h"
#include "util.h"

/* Headroom of every packet GSO allocates: room for an 802.1Q tag or a
 * vnet header pushed on the way out without reallocating. */
#define GSO_HEADROOM 64

/* The offload flags a packet keeps once GSO has done the offloads in
 * software: only its RSS hash, which still describes its flow.  TSO, the
 * TX checksum requests, the RX checksum verdicts (about the bytes as
 * received, not as sent) and the flow mark (which carries the segment
 * size, see tso-segsz.h) all go. */
#define GSO_OL_KEEP DP_PACKET_OL_RSS_HASH

/* The TX flags that ask for a checksum to be completed. */
#define GSO_OL_TX_CSUM (DP_PACKET_OL_TX_IPV4 | DP_PACKET_OL_TX_L4_MASK)

/* An SCTP header's length, up to and including its checksum. */
#define GSO_SCTP_HEADER_LEN 12

/* Appends 'pkt' to 'out''s batch, flushing the batch first if it is full.
 * Takes ownership of 'pkt'. */
void
gso_output_put(struct gso_output *out, struct dp_packet *pkt)
{
    if (dp_packet_batch_is_full(out->batch)) {
        out->flush(out->batch, out->aux);
        ovs_assert(dp_packet_batch_is_empty(out->batch));
    }
    dp_packet_batch_add(out->batch, pkt);
}

/* Returns a new packet made of 'hdr_len' bytes of headers from 'hdrs'
 * followed by 'len' bytes from 'payload', with the packet type, metadata
 * (in_port, tunnel, recirculation state...) and RSS hash of 'orig', and no
 * offload flag.  Its layer offsets are unset: the caller sets them. */
struct dp_packet *
gso_pkt_new(const struct dp_packet *orig, const void *hdrs, size_t hdr_len,
            const void *payload, size_t len)
{
    struct dp_packet *pkt;

    pkt = dp_packet_new_with_headroom(hdr_len + len, GSO_HEADROOM);
    dp_packet_put(pkt, hdrs, hdr_len);
    dp_packet_put(pkt, payload, len);

    pkt->packet_type = orig->packet_type;
    memcpy(&pkt->md, &orig->md, sizeof pkt->md);
    /* dp_packet_new() clears only the flags OVS knows of; the rest of the
     * word would be left as malloc() returned it. */
    *dp_packet_ol_flags_ptr(pkt) = 0;
    if (dp_packet_rss_valid(orig)) {
        dp_packet_set_rss_hash(pkt, dp_packet_get_rss_hash(orig));
    }
    return pkt;
}

/* Turns 'pkt' into its own last segment: the 'len' bytes at offset
 * 'tail_ofs' of its data, preceded by a copy of the 'hdr_len' bytes at
 * 'hdrs' (which may point into 'pkt' itself, anywhere before 'tail_ofs',
 * but may end at 'tail_ofs' only if 'tail_ofs' equals 'hdr_len').
 * This saves one allocation and one payload copy per segmented packet.
 * Clears its offload flags but the RSS hash, its cut length and its layer
 * offsets, which the caller sets.
 *
 * The new data starts at an even distance from the old, so that the
 * headers keep the 2-byte alignment their structs (struct ip_header,
 * struct tcp_header...) require: with an odd segment size, the last
 * segment's payload starts at an odd offset, and it moves down one byte
 * first.  (Found by tests/fuzz/fuzz-gso.c under UndefinedBehaviorSanitizer:
 * the headers were written through misaligned pointers, undefined
 * behaviour that faults on strict-alignment CPUs.) */
void
gso_pkt_reuse_tail(struct dp_packet *pkt, const void *hdrs, size_t hdr_len,
                   size_t tail_ofs, size_t len)
{
    uint8_t *data = dp_packet_data(pkt);

    ovs_assert(tail_ofs >= hdr_len && tail_ofs + len <= dp_packet_size(pkt));
    if ((tail_ofs - hdr_len) % 2) {
        /* By the contract above, the byte overwritten is not one of
         * 'hdrs'. */
        memmove(data + tail_ofs - 1, data + tail_ofs, len);
        tail_ofs--;
    }
    memmove(data + tail_ofs - hdr_len, hdrs, hdr_len);

    dp_packet_reset_offsets(pkt);
    dp_packet_pull(pkt, tail_ofs - hdr_len);
    dp_packet_set_size(pkt, hdr_len + len);
    dp_packet_reset_cutlen(pkt);
    *dp_packet_ol_flags_ptr(pkt) &= GSO_OL_KEEP;
}

/* Recomputes the IPv4 header checksum of the packet whose data is 'data',
 * laid out as 'h' says. */
void
gso_ipv4_hdr_csum(void *data, const struct net_hdrs *h)
{
    struct ip_header *ip = (struct ip_header *) ((uint8_t *) data
                                                 + h->l3_ofs);

    ip->ip_csum = 0;
    ip->ip_csum = csum(ip, net_hdrs_l3_len(h));
}

/* Returns the transport checksum, pseudo-header included, of the 'l4_len'
 * bytes at 'h->l4_ofs' of 'data', whose checksum field the caller has
 * zeroed.  For IPv4 the IP total length must already say 'l4_len'. */
ovs_be16
gso_l4_csum(const void *data, const struct net_hdrs *h, uint16_t l4_len)
{
    const uint8_t *l3 = (const uint8_t *) data + h->l3_ofs;
    const uint8_t *l4 = (const uint8_t *) data + h->l4_ofs;

    if (h->is_ipv6) {
        return packet_csum_upperlayer6(
            (const struct ovs_16aligned_ip6_hdr *) l3, l4, h->l4_proto,
            l4_len);
    } else {
        uint32_t partial;

        partial = packet_csum_pseudoheader((const struct ip_header *) l3);
        return csum_finish(csum_continue(partial, l4, l4_len));
    }
}

/* Finds the IP headers of 'p' for segmentation.  Returns 0 with '*h'
 * filled in, or a positive errno value with the drop reason in
 * '*reason'. */
static int
gso_parse_ip(const struct dp_packet *p, struct net_hdrs *h,
             enum gso_drop_reason *reason)
{
    int error = net_hdrs_parse(p, h);

    if (error) {
        *reason = (error == EPROTONOSUPPORT
                   ? GSO_DROP_NOT_TCP : GSO_DROP_MALFORMED);
        return error;
    }

    if (h->is_ipv6) {
        /* net_hdrs_parse() stops at the extension headers a segment cannot
         * simply copy: a routing header changes the pseudo-header's
         * destination, a fragment header means a fragment, and AH
         * authenticates the original payload. */
        if (h->l4_proto == IPPROTO_ROUTING || h->l4_proto == IPPROTO_FRAGMENT
            || h->l4_proto == IPPROTO_AH) {
            *reason = GSO_DROP_MALFORMED;
            return EINVAL;
        }
    } else {
        const struct ip_header *ip;

        ip = (const struct ip_header *) ((const uint8_t *) dp_packet_data(p)
                                         + h->l3_ofs);
        if (IP_IS_FRAGMENT(ip->ip_frag_off)) {
            *reason = GSO_DROP_MALFORMED;
            return EINVAL;
        }
    }

    if (h->l4_proto != IPPROTO_TCP) {
        *reason = GSO_DROP_NOT_TCP;
        return EPROTONOSUPPORT;
    }
    return 0;
}

/* Counts 'p' as dropped for 'reason' and frees it. */
static void
gso_drop(struct dp_packet *p, enum gso_drop_reason reason,
         struct gso_stats *stats)
{
    gso_stats_add(&stats->drops[reason], 1);
    dp_packet_delete(p);
}

/* Cuts 'p' into segments of at most 'segsz' TCP payload bytes each and
 * hands them, in order, to 'out'.  Each segment is a complete packet: a
 * copy of the headers of 'p' (L2 and VLAN tags, IP with its options or
 * extension headers, TCP with its options) with its own IP lengths, IPv4
 * ID (the first segment's plus its index), TCP sequence number and flags
 * (FIN and PSH on the last segment only, CWR on the first only) and
 * checksums computed in software, and no offload flag.  Segments keep the
 * metadata and the packet type of 'p'.  If the payload fits in 'segsz', 'p'
 * goes out alone, with its checksums completed.
 *
 * Takes ownership of 'p'.  Returns 0 on success, otherwise frees 'p',
 * counts the drop in 'stats' and returns a positive errno value:
 * EPROTONOSUPPORT if 'p' is not TCP over IP, EINVAL if it is malformed or
 * 'segsz' is 0, E2BIG if it would need more than GSO_MAX_SEGS segments.
 *
 * Called by the thread that owns 'p', 'out' and 'stats'. */
int
gso_segment(struct dp_packet *p, uint16_t segsz, struct gso_output *out,
            struct gso_stats *stats)
{
    enum gso_drop_reason reason;
    struct net_hdrs h;
    uint16_t hdr_len;
    size_t n_segs;
    int error;

    error = gso_parse_ip(p, &h, &reason);
    if (error) {
        gso_drop(p, reason, stats);
        return error;
    }

    error = gso_tcp_hdr_len(p, &h, &hdr_len);
    if (error || !segsz) {
        gso_drop(p, GSO_DROP_MALFORMED, stats);
        return EINVAL;
    }

    /* A packet GRO merged goes out as the segments it was merged from,
     * when they are still known and usable. */
    error = gro_fraglist_segment(p, &h, hdr_len, segsz, out, &n_segs);
    if (!error) {
        gso_stats_add(&stats->fraglist_packets, 1);
        gso_stats_add(&stats->fraglist_segments, n_segs);
        return 0;
    } else if (error != ENOENT) {
        gso_stats_add(&stats->fraglist_unusable, 1);
    }

    error = gso_tcp_segment(p, &h, hdr_len, segsz, out, &n_segs);
    if (error) {
        gso_drop(p, GSO_DROP_TOO_MANY_SEGS, stats);
        return error;
    }
    gso_stats_add(&stats->packets_segmented, 1);
    gso_stats_add(&stats->segments_out, n_segs);
    return 0;
}

/* Returns the TCP payload size of the segments 'p' should be cut into on
 * its way out of a port whose MTU is 'mtu': the size it was marked with
 * (tso_segsz_get()), but no more than what fits in an IP datagram of 'mtu'
 * bytes with the headers of 'p' (IP and TCP, options included), which is
 * what OVS's tap path uses when the packet has no size of its own.  Returns
 * 0 if the headers alone do not fit in 'mtu'.  If 'p' is not well-formed
 * TCP over IP, returns its marked size (0 if none): gso_segment() will then
 * drop it with the right reason. */
uint16_t
gso_segsz_for_mtu(const struct dp_packet *p, int mtu)
{
    uint16_t marked = tso_segsz_get(p);
    enum gso_drop_reason reason;
    struct net_hdrs h;
    uint16_t hdr_len;
    int fit;

    if (gso_parse_ip(p, &h, &reason) || gso_tcp_hdr_len(p, &h, &hdr_len)) {
        return marked;
    }

    fit = mtu - (hdr_len - h.l3_ofs);
    if (fit <= 0) {
        return 0;
    }
    fit = MIN(fit, UINT16_MAX);
    return marked ? MIN(marked, fit) : fit;
}

/* Completes in software the checksums 'p' was left with: the IPv4 header
 * checksum if DP_PACKET_OL_TX_IPV4 is set (OVS 3.1 has no separate flag for
 * it: DPDK's TX path offloads the IPv4 header checksum of any packet so
 * marked), and the whole TCP, UDP or SCTP checksum if
 * DP_PACKET_OL_TX_TCP_CKSUM, _UDP_CKSUM or _SCTP_CKSUM is, whatever value
 * (partial pseudo-header sum or garbage) the field held.  Then clears those
 * flags; TSO, if set, stays.
 *
 * Returns 0, or EINVAL if the headers of 'p' are malformed, its L4
 * protocol does not match the flag, or it is an IPv4 fragment (a checksum
 * covers the whole datagram); 'p' then goes unchanged, but for its flags,
 * which are cleared either way.  Called by the thread that owns 'p'. */
int
gso_complete_csum(struct dp_packet *p)
{
    uint64_t flags = *dp_packet_ol_flags_ptr(p) & GSO_OL_TX_CSUM;
    uint64_t l4_flag = flags & DP_PACKET_OL_TX_L4_MASK;
    struct net_hdrs h;
    uint8_t *data, *l4;
    uint16_t l4_len;

    if (!flags) {
        return 0;
    }
    *dp_packet_ol_flags_ptr(p) &= ~GSO_OL_TX_CSUM;

    if (net_hdrs_parse(p, &h)) {
        return EINVAL;
    }
    data = dp_packet_data(p);
    l4 = data + h.l4_ofs;
    l4_len = net_hdrs_l4_len(&h);

    if (flags & DP_PACKET_OL_TX_IPV4 && !h.is_ipv6) {
        gso_ipv4_hdr_csum(data, &h);
    }
    if (l4_flag) {
        if (!h.is_ipv6) {
            const struct ip_header *ip = (const struct ip_header *)
                                         (data + h.l3_ofs);

            if (IP_IS_FRAGMENT(ip->ip_frag_off)) {
                return EINVAL;
            }
        }

        if (l4_flag == DP_PACKET_OL_TX_TCP_CKSUM
            && h.l4_proto == IPPROTO_TCP && l4_len >= TCP_HEADER_LEN) {
            struct tcp_header *th = (struct tcp_header *) l4;

            th->tcp_csum = 0;
            th->tcp_csum = gso_l4_csum(data, &h, l4_len);
        } else if (l4_flag == DP_PACKET_OL_TX_UDP_CKSUM
                   && h.l4_proto == IPPROTO_UDP
                   && l4_len >= UDP_HEADER_LEN) {
            struct udp_header *uh = (struct udp_header *) l4;

            uh->udp_csum = 0;
            uh->udp_csum = gso_l4_csum(data, &h, l4_len);
            if (!uh->udp_csum) {
                /* 0 means "no checksum" in UDP (RFC 768). */
                uh->udp_csum = htons(0xffff);
            }
        } else if (l4_flag == DP_PACKET_OL_TX_SCTP_CKSUM
                   && h.l4_proto == IPPROTO_SCTP
                   && l4_len >= GSO_SCTP_HEADER_LEN) {
            struct sctp_header *sh = (struct sctp_header *) l4;

            put_16aligned_be32(&sh->sctp_csum, 0);
            put_16aligned_be32(&sh->sctp_csum, crc32c(l4, l4_len));
        } else {
            return EINVAL;
        }
    }

    return 0;
}

/* Completes 'p''s partial checksums with gso_complete_csum() for an egress
 * that cannot, counting it in 'stats'.  Returns true if 'p' may be sent;
 * otherwise deletes it, counted as a drop: a packet whose checksum was
 * left partial would be dropped by its receiver without a trace.  Called
 * by the thread that owns 'p' and 'stats'. */
bool
gso_complete_csum_or_drop(struct dp_packet *p, struct gso_stats *stats)
{
    if (gso_complete_csum(p)) {
        gso_stats_add(&stats->drops[GSO_DROP_BAD_CSUM_REQUEST], 1);
        dp_packet_delete(p);
        return false;
    }
    gso_stats_add(&stats->csums_completed, 1);
    return true;
}

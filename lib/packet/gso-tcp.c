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

/* The TCP case of software GSO (gso.h): one packet cut into segments. */

#include <config.h>

#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip6.h>

#include "dp-packet.h"
#include "gso-private.h"
#include "net-hdrs.h"
#include "packets.h"
#include "util.h"

/* GSO for TCP over IPv4 and IPv6, as Linux's tcp_gso_segment() and DPDK's
 * gso_tcp4 do it: every segment gets a copy of the headers, its share of
 * the payload, and its own lengths, IPv4 ID, sequence number, flags and
 * checksums. */

/* The TCP flags that only the last segment keeps (FIN and PSH end the
 * whole send) and the one only the first keeps (CWR acknowledges one ECN
 * echo, once). */
#define GSO_TCP_LAST_ONLY (TCP_FIN | TCP_PSH)
#define GSO_TCP_FIRST_ONLY TCP_CWR

/* Checks the TCP header of 'p', whose IP headers are 'h', and stores the
 * length of all its headers, L2 to TCP options, in '*hdr_len'.  Returns 0,
 * or EINVAL if the header is truncated or its data offset is out of
 * range. */
int
gso_tcp_hdr_len(const struct dp_packet *p, const struct net_hdrs *h,
                uint16_t *hdr_len)
{
    const struct tcp_header *th;
    size_t tcp_len;

    if (net_hdrs_l4_len(h) < TCP_HEADER_LEN) {
        return EINVAL;
    }
    th = (const struct tcp_header *) ((const uint8_t *) dp_packet_data(p)
                                      + h->l4_ofs);
    tcp_len = TCP_OFFSET(th->tcp_ctl) * 4;
    if (tcp_len < TCP_HEADER_LEN || tcp_len > net_hdrs_l4_len(h)) {
        return EINVAL;
    }
    *hdr_len = h->l4_ofs + tcp_len;
    return 0;
}

/* The header fields of the original packet that every segment derives its
 * own from, saved before the last segment overwrites them. */
struct gso_tcp_orig {
    uint32_t seq;               /* TCP sequence number. */
    ovs_be16 ctl;               /* TCP data offset and flags. */
    uint16_t ip_id;             /* IPv4 ID (unused for IPv6). */
};

/* Gives segment 'seg', number 'idx' of 'n_segs', carrying 'len' payload
 * bytes that start 'offset' bytes into the original payload, its own
 * headers.  'seg' holds a copy of the original headers, laid out as 'h'
 * says, 'hdr_len' bytes in all. */
static void
gso_tcp_fix(struct dp_packet *seg, const struct net_hdrs *h,
            uint16_t hdr_len, const struct gso_tcp_orig *orig,
            size_t idx, size_t n_segs, uint32_t offset, uint16_t len)
{
    uint8_t *data = dp_packet_data(seg);
    struct tcp_header *th = (struct tcp_header *) (data + h->l4_ofs);
    uint16_t l4_len = hdr_len - h->l4_ofs + len;
    uint16_t l3_len = net_hdrs_l3_len(h) + l4_len;
    ovs_be16 clear = 0;

    if (h->is_ipv6) {
        struct ovs_16aligned_ip6_hdr *ip6;

        ip6 = (struct ovs_16aligned_ip6_hdr *) (data + h->l3_ofs);
        ip6->ip6_plen = htons(l3_len - IPV6_HEADER_LEN);
    } else {
        struct ip_header *ip = (struct ip_header *) (data + h->l3_ofs);

        ip->ip_tot_len = htons(l3_len);
        ip->ip_id = htons((uint16_t) (orig->ip_id + idx));
        gso_ipv4_hdr_csum(data, h);
    }

    put_16aligned_be32(&th->tcp_seq, htonl(orig->seq + offset));
    if (idx + 1 < n_segs) {
        clear |= htons(GSO_TCP_LAST_ONLY);
    }
    if (idx > 0) {
        clear |= htons(GSO_TCP_FIRST_ONLY);
    }
    th->tcp_ctl = orig->ctl & ~clear;
    th->tcp_csum = 0;
    th->tcp_csum = gso_l4_csum(data, h, l4_len);

    seg->l3_ofs = h->l3_ofs;
    seg->l4_ofs = h->l4_ofs;
}

/* Cuts 'p', checked TCP over IP laid out as 'h' with 'hdr_len' bytes of
 * headers, into segments of at most 'segsz' (nonzero) payload bytes, hands
 * them to 'out' and stores their number in '*n_segs'.  The last segment
 * reuses 'p'.  Returns 0, or E2BIG, leaving 'p' untouched, if that would
 * take more than GSO_MAX_SEGS segments. */
int
gso_tcp_segment(struct dp_packet *p, const struct net_hdrs *h,
                uint16_t hdr_len, uint16_t segsz, struct gso_output *out,
                size_t *n_segs_p)
{
    uint32_t payload_len = h->end_ofs - hdr_len;
    size_t n_segs = MAX(DIV_ROUND_UP(payload_len, segsz), 1);
    const uint8_t *data = dp_packet_data(p);
    const struct tcp_header *th;
    struct gso_tcp_orig orig;
    uint32_t offset;
    size_t idx;

    if (n_segs > GSO_MAX_SEGS) {
        return E2BIG;
    }

    th = (const struct tcp_header *) (data + h->l4_ofs);
    orig.seq = ntohl(get_16aligned_be32(&th->tcp_seq));
    orig.ctl = th->tcp_ctl;
    orig.ip_id = (h->is_ipv6 ? 0 : ntohs(((const struct ip_header *)
                                          (data + h->l3_ofs))->ip_id));

    for (idx = 0, offset = 0; idx + 1 < n_segs; idx++, offset += segsz) {
        struct dp_packet *seg;

        seg = gso_pkt_new(p, data, hdr_len, data + hdr_len + offset, segsz);
        gso_tcp_fix(seg, h, hdr_len, &orig, idx, n_segs, offset, segsz);
        gso_output_put(out, seg);
    }

    /* The last segment, or the only one, is 'p' itself, its headers moved
     * up to its last bytes of payload and any L2 padding cut off. */
    gso_pkt_reuse_tail(p, data, hdr_len, hdr_len + offset,
                       payload_len - offset);
    gso_tcp_fix(p, h, hdr_len, &orig, idx, n_segs, offset,
                payload_len - offset);
    gso_output_put(out, p);

    *n_segs_p = n_segs;
    return 0;
}

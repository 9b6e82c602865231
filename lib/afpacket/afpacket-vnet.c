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

/* Virtio-net headers to OVS's offload metadata, and back. */

#include <config.h>
#include "afpacket-vnet.h"

#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>

#include "csum.h"
#include "dp-packet.h"
#include "gso.h"
#include "net-hdrs.h"
#include "packets.h"
#include "tso-segsz.h"

/* Where each transport header keeps its checksum: the 'csum_offset' of a
 * virtio-net header. */
#define AFPACKET_VNET_TCP_CSUM_OFS offsetof(struct tcp_header, tcp_csum)
#define AFPACKET_VNET_UDP_CSUM_OFS offsetof(struct udp_header, udp_csum)
#define AFPACKET_VNET_SCTP_CSUM_OFS offsetof(struct sctp_header, sctp_csum)

/* The smallest SCTP common header: ports, tag, checksum. */
#define AFPACKET_VNET_SCTP_HEADER_LEN 12

/* Completes the partial checksum of 'p' that covers its bytes from 'start'
 * to its end and is stored 'offset' bytes past 'start', as Linux's
 * skb_checksum_help() does: the field holds the pseudo-header sum, so the
 * checksum is the folded complement of the sum of those bytes, field
 * included. */
static int
complete_csum_at(struct dp_packet *p, uint32_t start, uint32_t offset)
{
    uint32_t size = dp_packet_size(p);
    uint8_t *data = dp_packet_data(p);
    ovs_be16 sum;

    if (start >= size || offset + sizeof sum > size - start) {
        return EINVAL;
    }
    sum = csum(data + start, size - start);
    memcpy(data + start + offset, &sum, sizeof sum);
    return 0;
}

/* Returns the transport-header offset of its checksum field for a partial
 * checksum of protocol 'l4_proto' over 'l4_len' bytes, or 0 for a protocol
 * OVS has no offload flag for (or too short to hold its header). */
static uint32_t
csum_field_ofs(uint8_t l4_proto, uint32_t l4_len)
{
    switch (l4_proto) {
    case IPPROTO_TCP:
        return l4_len >= TCP_HEADER_LEN ? AFPACKET_VNET_TCP_CSUM_OFS : 0;
    case IPPROTO_UDP:
        return l4_len >= UDP_HEADER_LEN ? AFPACKET_VNET_UDP_CSUM_OFS : 0;
    case IPPROTO_SCTP:
        return (l4_len >= AFPACKET_VNET_SCTP_HEADER_LEN
                ? AFPACKET_VNET_SCTP_CSUM_OFS : 0);
    default:
        return 0;
    }
}

int
afpacket_vnet_to_packet(struct dp_packet *p,
                        const struct virtio_net_hdr *vnet, int vlan_shift)
{
    uint8_t gso_type = vnet->gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
    uint32_t start, offset;
    struct net_hdrs h;

    if (vnet->flags & VIRTIO_NET_HDR_F_DATA_VALID) {
        *dp_packet_ol_flags_ptr(p) |= DP_PACKET_OL_RX_L4_CKSUM_GOOD;
    }
    if (!(vnet->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)) {
        /* Linux never segments without a partial checksum. */
        return gso_type == VIRTIO_NET_HDR_GSO_NONE ? 0 : EINVAL;
    }
    if (gso_type != VIRTIO_NET_HDR_GSO_NONE
        && gso_type != VIRTIO_NET_HDR_GSO_TCPV4
        && gso_type != VIRTIO_NET_HDR_GSO_TCPV6) {
        return EPROTONOSUPPORT;
    }

    start = vnet->csum_start + vlan_shift;
    offset = vnet->csum_offset;
    if (net_hdrs_parse(p, &h) || h.l4_ofs != start
        || csum_field_ofs(h.l4_proto, net_hdrs_l4_len(&h)) != offset) {
        /* Not the packet's own transport checksum: an inner one, or one of
         * a protocol OVS has no flag for.  Nothing could carry it further
         * as metadata, so it is completed now. */
        if (gso_type != VIRTIO_NET_HDR_GSO_NONE) {
            return EINVAL;
        }
        return complete_csum_at(p, start, offset);
    }

    if (gso_type != VIRTIO_NET_HDR_GSO_NONE
        && (h.l4_proto != IPPROTO_TCP || !vnet->gso_size
            || h.is_ipv6 != (gso_type == VIRTIO_NET_HDR_GSO_TCPV6))) {
        return EINVAL;
    }
    if (gso_type != VIRTIO_NET_HDR_GSO_NONE
        && vnet->gso_size < AFPACKET_VNET_MIN_GSO_SIZE) {
        return ERANGE;
    }
    if (h.is_ipv6) {
        dp_packet_hwol_set_tx_ipv6(p);
    } else {
        dp_packet_hwol_set_tx_ipv4(p);
    }
    if (h.l4_proto == IPPROTO_TCP) {
        dp_packet_hwol_set_csum_tcp(p);
    } else if (h.l4_proto == IPPROTO_UDP) {
        dp_packet_hwol_set_csum_udp(p);
    } else {
        dp_packet_hwol_set_csum_sctp(p);
    }
    if (gso_type != VIRTIO_NET_HDR_GSO_NONE) {
        tso_segsz_set(p, vnet->gso_size);
    }
    return 0;
}

/* Returns the sum, not yet folded, of the pseudo-header of the transport
 * segment that 'h' describes in 'data' (RFC 793 for IPv4, RFC 8200 section
 * 8.1 for IPv6; their lengths agree below 64 KiB). */
static uint32_t
pseudo_header_sum(const uint8_t *data, const struct net_hdrs *h)
{
    uint32_t sum;

    if (h->is_ipv6) {
        const struct ovs_16aligned_ip6_hdr *ip6 = (const void *)
                                                  (data + h->l3_ofs);

        sum = csum_continue(0, &ip6->ip6_src, sizeof ip6->ip6_src);
        sum = csum_continue(sum, &ip6->ip6_dst, sizeof ip6->ip6_dst);
    } else {
        const struct ip_header *ip = (const void *) (data + h->l3_ofs);

        sum = csum_add32(0, get_16aligned_be32(&ip->ip_src));
        sum = csum_add32(sum, get_16aligned_be32(&ip->ip_dst));
    }
    sum = csum_add16(sum, htons(h->l4_proto));
    return csum_add16(sum, htons(net_hdrs_l4_len(h)));
}

int
afpacket_vnet_from_packet(struct dp_packet *p, struct virtio_net_hdr *vnet,
                          int mtu)
{
    uint64_t l4_flag = *dp_packet_ol_flags_ptr(p) & DP_PACKET_OL_TX_L4_MASK;
    bool tso = dp_packet_hwol_is_tso(p);
    uint32_t l4_len, field_ofs;
    struct net_hdrs h;
    ovs_be16 pseudo;
    uint8_t *data;

    memset(vnet, 0, sizeof *vnet);
    if (!l4_flag && !tso) {
        return 0;
    }
    if (!tso && l4_flag == DP_PACKET_OL_TX_SCTP_CKSUM) {
        /* CRC32c: Linux would take it for an Internet checksum. */
        return gso_complete_csum(p);
    }
    if (net_hdrs_parse(p, &h)) {
        return EINVAL;
    }
    if (h.end_ofs != dp_packet_size(p)) {
        /* L2 padding, which Linux would sum with the segment.  The device
         * pads again as it needs. */
        dp_packet_set_size(p, h.end_ofs);
    }

    data = dp_packet_data(p);
    l4_len = net_hdrs_l4_len(&h);
    field_ofs = csum_field_ofs(h.l4_proto, l4_len);
    if (tso || l4_flag == DP_PACKET_OL_TX_TCP_CKSUM) {
        if (h.l4_proto != IPPROTO_TCP || !field_ofs) {
            return EINVAL;
        }
    } else if (h.l4_proto != IPPROTO_UDP || !field_ofs) {
        return EINVAL;
    }

    if (tso) {
        const struct tcp_header *th = (const void *) (data + h.l4_ofs);
        uint32_t thl = TCP_OFFSET(th->tcp_ctl) * 4;
        uint16_t segsz = tso_segsz_get(p);

        if (thl < TCP_HEADER_LEN || thl > l4_len) {
            return EINVAL;
        }
        int room = mtu - net_hdrs_l3_len(&h) - (int) thl;

        /* Segments must fit the egress MTU, whatever size GRO recorded: the
         * kernel cuts at gso_size, and a veth drops what is too big. */
        if (room <= 0) {
            return EINVAL;
        }
        if (!segsz || segsz > room) {
            segsz = room;
        }
        vnet->gso_type = (h.is_ipv6 ? VIRTIO_NET_HDR_GSO_TCPV6
                          : VIRTIO_NET_HDR_GSO_TCPV4);
        vnet->hdr_len = h.l4_ofs + thl;
        vnet->gso_size = segsz;
    }
    vnet->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
    vnet->csum_start = h.l4_ofs;
    vnet->csum_offset = field_ofs;

    /* The field holds the folded pseudo-header sum, not complemented. */
    pseudo = ~csum_finish(pseudo_header_sum(data, &h));
    memcpy(data + h.l4_ofs + field_ofs, &pseudo, sizeof pseudo);
    return 0;
}

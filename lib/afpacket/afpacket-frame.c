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

/* AF_PACKET frames checked against their block and copied into packets. */

#include <config.h>
#include "afpacket-frame.h"

#include <errno.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>

#include "afpacket-vnet.h"
#include "csum.h"
#include "dp-packet.h"
#include "packets.h"
#include "util.h"

/* The frame header of a TPACKET_V3 frame, as Linux lays it out. */
#define AFPACKET_V3_HDR_LEN sizeof(struct tpacket3_hdr)

/* Where a TCP frame that is cut keeps its headers. */
struct frame_cut_hdrs {
    uint32_t l3_ofs;            /* IPv4 or IPv6 header. */
    uint32_t l4_ofs;            /* TCP header. */
    uint32_t hdr_len;           /* Past the TCP header and its options. */
    bool is_ipv6;               /* IPv6 rather than IPv4. */
};

/* Returns the big-endian 16-bit value at 'p', which may be unaligned. */
static uint16_t
rd16(const uint8_t *p)
{
    return (p[0] << 8) | p[1];
}

/* Stores 'v' big-endian at 'p', which may be unaligned. */
static void
wr16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v;
}

/* Returns the big-endian 32-bit value at 'p', which may be unaligned. */
static uint32_t
rd32(const uint8_t *p)
{
    return ((uint32_t) rd16(p) << 16) | rd16(p + 2);
}

/* Stores 'v' big-endian at 'p', which may be unaligned. */
static void
wr32(uint8_t *p, uint32_t v)
{
    wr16(p, v >> 16);
    wr16(p + 2, v);
}

/* Finds the headers of 'frame', 'len' bytes, as a TCP segment over IPv4 or
 * IPv6 (without extension headers) whose IP length is exactly the rest of
 * the frame, and no fragment.  Returns 0 and fills '*h', or EINVAL. */
static int
frame_cut_parse(const uint8_t *frame, uint32_t len, struct frame_cut_hdrs *h)
{
    uint32_t ofs = ETH_HEADER_LEN;
    uint16_t eth_type;
    int n_vlans = 0;

    if (len < ETH_HEADER_LEN) {
        return EINVAL;
    }
    eth_type = rd16(frame + 2 * ETH_ADDR_LEN);
    while (eth_type == ETH_TYPE_VLAN_8021Q
           || eth_type == ETH_TYPE_VLAN_8021AD) {
        if (++n_vlans > 2 || len - ofs < VLAN_HEADER_LEN) {
            return EINVAL;
        }
        eth_type = rd16(frame + ofs + 2);
        ofs += VLAN_HEADER_LEN;
    }
    h->l3_ofs = ofs;

    if (eth_type == ETH_TYPE_IP) {
        const uint8_t *ip = frame + ofs;
        uint32_t ihl;

        if (len - ofs < IP_HEADER_LEN || ip[0] >> 4 != 4) {
            return EINVAL;
        }
        ihl = (ip[0] & 0xf) * 4;
        if (ihl < IP_HEADER_LEN || rd16(ip + 2) != len - ofs
            || rd16(ip + 6) & (IP_MORE_FRAGMENTS | IP_FRAG_OFF_MASK)
            || ip[9] != IPPROTO_TCP || len - ofs < ihl) {
            return EINVAL;
        }
        h->is_ipv6 = false;
        h->l4_ofs = ofs + ihl;
    } else if (eth_type == ETH_TYPE_IPV6) {
        const uint8_t *ip6 = frame + ofs;

        if (len - ofs < IPV6_HEADER_LEN || ip6[0] >> 4 != 6
            || rd16(ip6 + 4) != len - ofs - IPV6_HEADER_LEN
            || ip6[6] != IPPROTO_TCP) {
            return EINVAL;
        }
        h->is_ipv6 = true;
        h->l4_ofs = ofs + IPV6_HEADER_LEN;
    } else {
        return EINVAL;
    }

    if (len - h->l4_ofs < TCP_HEADER_LEN) {
        return EINVAL;
    }
    h->hdr_len = h->l4_ofs + (frame[h->l4_ofs + 12] >> 4) * 4;
    if (h->hdr_len < h->l4_ofs + TCP_HEADER_LEN || h->hdr_len > len) {
        return EINVAL;
    }
    return 0;
}

/* Returns the unfolded sum of the pseudo-header of the TCP segment that 'h'
 * describes in 'data', for 'l4_len' bytes of TCP. */
static uint32_t
frame_cut_pseudo_sum(const uint8_t *data, const struct frame_cut_hdrs *h,
                     uint32_t l4_len)
{
    uint32_t sum;

    if (h->is_ipv6) {
        /* Source and destination addresses, 16 bytes each, from byte 8. */
        sum = csum_continue(0, data + h->l3_ofs + 8, 32);
    } else {
        /* Source and destination addresses from byte 12. */
        sum = csum_continue(0, data + h->l3_ofs + 12, 8);
    }
    sum = csum_add16(sum, htons(IPPROTO_TCP));
    return csum_add16(sum, htons(l4_len));
}

/* Returns true if the TCP checksum of 'frame' ('len' bytes, headers 'h')
 * is valid. */
static bool
frame_cut_csum_ok(const uint8_t *frame, uint32_t len,
                  const struct frame_cut_hdrs *h)
{
    uint32_t sum = frame_cut_pseudo_sum(frame, h, len - h->l4_ofs);

    return !csum_finish(csum_continue(sum, frame + h->l4_ofs,
                                      len - h->l4_ofs));
}

/* Makes the headers at the start of 'data', copied from a frame with
 * headers 'h', those of the piece that carries 'payload' bytes from byte
 * 'offset' of the frame's TCP payload, piece 'i' of 'n', the frame's
 * 'first_seg'th segment onwards: IP lengths, IPv4 ID and checksum, TCP
 * sequence number and flags (FIN and PSH only on the last piece, CWR only
 * on the first, as Linux's TCP segmentation does), and the partial TCP
 * checksum's pseudo-header sum. */
static void
frame_cut_fix(uint8_t *data, const struct frame_cut_hdrs *h,
              uint32_t offset, uint32_t payload, uint32_t first_seg,
              int i, int n)
{
    uint32_t l4_len = h->hdr_len - h->l4_ofs + payload;
    uint8_t *ip = data + h->l3_ofs;
    uint8_t *tcp = data + h->l4_ofs;
    uint16_t flags = rd16(tcp + 12);
    ovs_be16 pseudo;

    if (h->is_ipv6) {
        wr16(ip + 4, l4_len);
    } else {
        uint32_t ihl = (ip[0] & 0xf) * 4;
        ovs_be16 ip_csum;

        wr16(ip + 2, ihl + l4_len);
        wr16(ip + 4, rd16(ip + 4) + first_seg);
        wr16(ip + 10, 0);
        ip_csum = csum(ip, ihl);
        memcpy(ip + 10, &ip_csum, sizeof ip_csum);
    }

    wr32(tcp + 4, rd32(tcp + 4) + offset);
    if (i < n - 1) {
        flags &= ~(TCP_FIN | TCP_PSH);
    }
    if (i > 0) {
        flags &= ~TCP_CWR;
    }
    wr16(tcp + 12, flags);

    /* The field of a partial checksum holds the folded pseudo-header sum,
     * not complemented. */
    pseudo = ~csum_finish(frame_cut_pseudo_sum(data, h, l4_len));
    memcpy(tcp + offsetof(struct tcp_header, tcp_csum), &pseudo,
           sizeof pseudo);
}

/* Puts back the VLAN tag 'info' says Linux took out of 'p', which must have
 * room for it in front.  Returns the bytes pushed. */
static int
frame_push_vlan(struct dp_packet *p, const struct afpacket_frame_info *info)
{
    if (!info->vlan_valid) {
        return 0;
    }
    eth_push_vlan(p, htons(info->vlan_tpid), htons(info->vlan_tci));
    return VLAN_HEADER_LEN;
}

/* Maps an error of afpacket_vnet_to_packet() to a verdict. */
static enum afpacket_frame_verdict
frame_vnet_verdict(int error)
{
    return (!error ? AFPACKET_FRAME_OK
            : error == ERANGE ? AFPACKET_FRAME_TINY_GSO
            : AFPACKET_FRAME_BAD_VNET);
}

/* Cuts 'frame', 'len' bytes longer than a packet, into packets added to
 * 'batch', which has room for AFPACKET_FRAME_MAX_PKTS, if it is a TCP frame
 * that can be cut (see afpacket-frame.h). */
static enum afpacket_frame_verdict
frame_cut(const uint8_t *frame, uint32_t len,
          const struct virtio_net_hdr *vnet,
          const struct afpacket_frame_info *info,
          struct dp_packet_batch *batch)
{
    uint8_t gso_type = vnet->gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
    uint32_t vlan_len = info->vlan_valid ? VLAN_HEADER_LEN : 0;
    struct dp_packet *pieces[AFPACKET_FRAME_MAX_PKTS];
    uint32_t room, chunk, payload, mss = 0;
    struct frame_cut_hdrs h;
    int n;

    if (frame_cut_parse(frame, len, &h)
        || TCP_FLAGS(htons(rd16(frame + h.l4_ofs + 12))) & TCP_URG) {
        /* Not TCP, or with an urgent pointer that the cut would move. */
        return AFPACKET_FRAME_TOO_LONG;
    }
    if (vnet->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
        if (vnet->csum_start != h.l4_ofs
            || vnet->csum_offset != offsetof(struct tcp_header, tcp_csum)) {
            return AFPACKET_FRAME_BAD_VNET;
        }
    } else if (gso_type != VIRTIO_NET_HDR_GSO_NONE) {
        /* Linux never segments without a partial checksum. */
        return AFPACKET_FRAME_BAD_VNET;
    } else if (!(vnet->flags & VIRTIO_NET_HDR_F_DATA_VALID)
               && !frame_cut_csum_ok(frame, len, &h)) {
        /* Each piece gets a checksum of its own: the frame's must be
         * right, or the cut would make good packets of a corrupt one. */
        return AFPACKET_FRAME_TOO_LONG;
    }
    if (gso_type != VIRTIO_NET_HDR_GSO_NONE) {
        if (gso_type != (h.is_ipv6 ? VIRTIO_NET_HDR_GSO_TCPV6
                         : VIRTIO_NET_HDR_GSO_TCPV4)) {
            return (gso_type == VIRTIO_NET_HDR_GSO_TCPV4
                    || gso_type == VIRTIO_NET_HDR_GSO_TCPV6
                    ? AFPACKET_FRAME_BAD_VNET : AFPACKET_FRAME_TOO_LONG);
        }
        if (vnet->gso_size < AFPACKET_VNET_MIN_GSO_SIZE) {
            return (vnet->gso_size ? AFPACKET_FRAME_TINY_GSO
                    : AFPACKET_FRAME_BAD_VNET);
        }
        mss = vnet->gso_size;
    }

    /* Each piece takes as many whole segments as fit. */
    room = AFPACKET_FRAME_MAX_PACKET - vlan_len - h.hdr_len;
    chunk = mss ? room / mss * mss : room;
    payload = len - h.hdr_len;
    if (!chunk) {
        return AFPACKET_FRAME_TOO_LONG;
    }
    n = DIV_ROUND_UP(payload, chunk);
    if (n > AFPACKET_FRAME_MAX_PKTS) {
        return AFPACKET_FRAME_TOO_LONG;
    }

    for (int i = 0; i < n; i++) {
        uint32_t offset = i * chunk;
        uint32_t size = MIN(chunk, payload - offset);
        struct virtio_net_hdr piece_vnet = {
            .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
            .gso_type = (mss && size > mss ? vnet->gso_type
                         : VIRTIO_NET_HDR_GSO_NONE),
            .hdr_len = h.hdr_len,
            .gso_size = mss,
            .csum_start = h.l4_ofs,
            .csum_offset = offsetof(struct tcp_header, tcp_csum),
        };
        struct dp_packet *p;
        int error;

        p = dp_packet_new_with_headroom(h.hdr_len + size,
                                        AFPACKET_FRAME_HEADROOM);
        dp_packet_put(p, frame, h.hdr_len);
        dp_packet_put(p, frame + h.hdr_len + offset, size);
        frame_cut_fix(dp_packet_data(p), &h, offset, size,
                      mss ? offset / mss : i, i, n);
        error = afpacket_vnet_to_packet(p, &piece_vnet,
                                        frame_push_vlan(p, info));
        pieces[i] = p;
        if (error) {
            for (int j = 0; j <= i; j++) {
                dp_packet_delete(pieces[j]);
            }
            return frame_vnet_verdict(error);
        }
    }
    for (int i = 0; i < n; i++) {
        dp_packet_batch_add(batch, pieces[i]);
    }
    return AFPACKET_FRAME_OK;
}

/* Copies the 'len' bytes of 'frame', received with virtio-net header 'vnet'
 * and the VLAN tag that 'info' describes, into new packets added to
 * 'batch', with their VLAN tag back in place and their offload metadata
 * (afpacket_vnet_to_packet()).  'batch' must have room for
 * afpacket_frame_n_slots() packets.  Returns AFPACKET_FRAME_OK, or why the
 * frame was dropped: then nothing was added. */
enum afpacket_frame_verdict
afpacket_frame_to_packets(const uint8_t *frame, uint32_t len,
                          const struct virtio_net_hdr *vnet,
                          const struct afpacket_frame_info *info,
                          struct dp_packet_batch *batch)
{
    struct dp_packet *p;
    int error;

    if (info->vlan_valid && len < 2 * ETH_ADDR_LEN) {
        /* No room for the tag behind the addresses. */
        return AFPACKET_FRAME_MALFORMED;
    }
    if (afpacket_frame_n_slots(len, info) > 1) {
        return frame_cut(frame, len, vnet, info, batch);
    }

    p = dp_packet_new_with_headroom(len, AFPACKET_FRAME_HEADROOM);
    dp_packet_put(p, frame, len);
    error = afpacket_vnet_to_packet(p, vnet, frame_push_vlan(p, info));
    if (OVS_UNLIKELY(error)) {
        dp_packet_delete(p);
        return frame_vnet_verdict(error);
    }
    dp_packet_batch_add(batch, p);
    return AFPACKET_FRAME_OK;
}

/* Reads the header of TPACKET_V3 block 'block', 'block_size' bytes, that
 * Linux has handed over: stores the offset of its first frame in
 * '*first_ofs' and its number of frames in '*n_frames'.  Returns 0, or
 * EINVAL if they do not fit in the block (then the block holds nothing to
 * read). */
int
afpacket_v3_block_open(const uint8_t *block, uint32_t block_size,
                       uint32_t *first_ofs, uint32_t *n_frames)
{
    const struct tpacket_block_desc *bd;

    *first_ofs = 0;
    *n_frames = 0;
    if (block_size < sizeof *bd) {
        return EINVAL;
    }
    bd = ALIGNED_CAST(const struct tpacket_block_desc *, block);
    if (!bd->hdr.bh1.num_pkts) {
        return 0;
    }
    if (bd->hdr.bh1.offset_to_first_pkt < sizeof *bd
        || bd->hdr.bh1.offset_to_first_pkt > block_size - AFPACKET_V3_HDR_LEN
        || bd->hdr.bh1.num_pkts > block_size / AFPACKET_V3_HDR_LEN) {
        return EINVAL;
    }
    *first_ofs = bd->hdr.bh1.offset_to_first_pkt;
    *n_frames = bd->hdr.bh1.num_pkts;
    return 0;
}

/* Checks the TPACKET_V3 frame whose header is at offset 'ofs' of 'block',
 * 'block_size' bytes, and describes it in '*f'.  Stores in '*next_ofs' the
 * offset of the next frame's header (block_size if the header gives none
 * that could be).  Returns:
 *   - 0 for a whole frame, with its virtio-net header in front of it;
 *   - EMSGSIZE for a frame that Linux truncated (it did not fit): '*f'
 *     then gives no frame, '*next_ofs' is valid;
 *   - EINVAL for a header that points outside the block or is not aligned:
 *     the rest of the block cannot be read. */
int
afpacket_v3_frame_parse(const uint8_t *block, uint32_t block_size,
                        uint32_t ofs, struct afpacket_v3_frame *f,
                        uint32_t *next_ofs)
{
    const struct tpacket3_hdr *hdr;
    uint32_t end;

    memset(f, 0, sizeof *f);
    *next_ofs = block_size;
    if (block_size < AFPACKET_V3_HDR_LEN
        || ofs > block_size - AFPACKET_V3_HDR_LEN
        || ofs % sizeof(uint32_t)) {
        return EINVAL;
    }
    hdr = ALIGNED_CAST(const struct tpacket3_hdr *, block + ofs);
    if (hdr->tp_mac < AFPACKET_V3_HDR_LEN + sizeof(struct virtio_net_hdr)
        || hdr->tp_mac % 2      /* The virtio-net header's alignment. */
        || hdr->tp_mac > block_size - ofs
        || hdr->tp_snaplen > block_size - ofs - hdr->tp_mac) {
        return EINVAL;
    }
    end = hdr->tp_mac + hdr->tp_snaplen;
    if (hdr->tp_next_offset >= end
        && hdr->tp_next_offset <= block_size - ofs) {
        *next_ofs = ofs + hdr->tp_next_offset;
    }
    if (hdr->tp_snaplen < hdr->tp_len) {
        return EMSGSIZE;
    }

    f->frame = block + ofs + hdr->tp_mac;
    f->len = hdr->tp_snaplen;
    f->vnet = ALIGNED_CAST(const struct virtio_net_hdr *,
                           f->frame - sizeof(struct virtio_net_hdr));
    f->info.vlan_valid = (hdr->tp_status & TP_STATUS_VLAN_VALID) != 0;
    f->info.vlan_tpid = (hdr->tp_status & TP_STATUS_VLAN_TPID_VALID
                         ? hdr->hv1.tp_vlan_tpid : ETH_TYPE_VLAN_8021Q);
    f->info.vlan_tci = hdr->hv1.tp_vlan_tci;
    f->rxhash = hdr->hv1.tp_rxhash;
    return 0;
}

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

#ifndef AFPACKET_FRAME_H
#define AFPACKET_FRAME_H 1

/* A frame Linux handed to an AF_PACKET socket, turned into packets: the
 * checks of a TPACKET_V3 block and frame header against the block, and the
 * copy of the frame into 'struct dp_packet's that can hold it.
 *
 * OVS 3.1 keeps a dp_packet's allocated size, headroom included, in 16
 * bits (dp-packet.h, 'allocated_'): a buffer of 65,536 bytes or more wraps
 * it, and the packet then believes in a buffer of a few bytes, or writes
 * past the one it has.  A frame from a port can be longer than that less
 * the headroom: a veth with MTU 65535 carries frames of up to 65,553 bytes
 * (an IP datagram of 64 KiB, an Ethernet header and a VLAN tag), GRO on a
 * NIC merges a remote sender's segments up to 64 KiB of IP, and a packet
 * socket writing with a virtio-net header can make a GSO frame of any
 * length.  So:
 *
 *   - a frame that fits in AFPACKET_FRAME_MAX_PACKET bytes (its VLAN tag
 *     back in place included) becomes one packet with
 *     AFPACKET_FRAME_HEADROOM bytes of headroom;
 *
 *   - a longer TCP frame over IPv4 or IPv6 whose checksum is partial or
 *     was verified by Linux, GSO or not, is cut, as TCP segmentation
 *     would, into up to AFPACKET_FRAME_MAX_PKTS packets that fit: each
 *     with its own headers, lengths, IPv4 ID, sequence number, flags and
 *     partial checksum, and a GSO frame's pieces at multiples of its
 *     segment size, so that the segments that finally reach a wire are the
 *     ones the sender asked for;
 *
 *   - any other (UDP, an inconsistent IP length, a GSO segment longer than
 *     a packet...) is dropped, and counted.
 *
 * Pure functions of the bytes they are given: any thread may call them. */

#include <linux/virtio_net.h>
#include <stdbool.h>
#include <stdint.h>

struct dp_packet_batch;

/* Room left in front of each received packet: enough to push a VLAN tag or
 * a tunnel's outer headers without moving the data (dpif-netdev's
 * DP_NETDEV_HEADROOM only fits a VLAN tag), plus 2 bytes so that the IP
 * header behind a 14-byte Ethernet header is 4-byte aligned. */
#define AFPACKET_FRAME_HEADROOM (128 + 2)

/* The longest packet, its VLAN tag included: the headroom and the packet
 * together must fit in a dp_packet's 16-bit allocated size. */
#define AFPACKET_FRAME_MAX_PACKET (UINT16_MAX - AFPACKET_FRAME_HEADROOM)

/* The most packets one frame may become: a TCP datagram of 64 KiB, cut at
 * multiples of a segment size a little over half a packet, takes three. */
#define AFPACKET_FRAME_MAX_PKTS 3

/* What Linux says of a received frame besides its bytes. */
struct afpacket_frame_info {
    bool vlan_valid;            /* Linux took a VLAN tag out of the frame: */
    uint16_t vlan_tpid;         /* ...its TPID... */
    uint16_t vlan_tci;          /* ...and TCI. */
};

/* What became of a frame. */
enum afpacket_frame_verdict {
    AFPACKET_FRAME_OK,          /* Packets added to the batch. */
    AFPACKET_FRAME_TOO_LONG,    /* Longer than a packet, and not a TCP
                                 * frame that can be cut. */
    AFPACKET_FRAME_BAD_VNET,    /* A GSO type we cannot segment, or a
                                 * virtio-net header that contradicts the
                                 * frame. */
    AFPACKET_FRAME_TINY_GSO,    /* A GSO segment size under
                                 * AFPACKET_VNET_MIN_GSO_SIZE. */
    AFPACKET_FRAME_MALFORMED,   /* Not a whole frame: too short for the
                                 * VLAN tag Linux took out of it. */
};

/* Returns how many packets 'batch' must have room for before
 * afpacket_frame_to_packets() is given a frame of 'len' bytes with 'info':
 * 1, or AFPACKET_FRAME_MAX_PKTS for a frame that may be cut. */
static inline int
afpacket_frame_n_slots(uint32_t len, const struct afpacket_frame_info *info)
{
    /* The VLAN tag, VLAN_HEADER_LEN bytes, goes back into the packet. */
    uint32_t max = AFPACKET_FRAME_MAX_PACKET - (info->vlan_valid ? 4 : 0);

    return len <= max ? 1 : AFPACKET_FRAME_MAX_PKTS;
}

enum afpacket_frame_verdict afpacket_frame_to_packets(
    const uint8_t *frame, uint32_t len, const struct virtio_net_hdr *vnet,
    const struct afpacket_frame_info *info, struct dp_packet_batch *batch);

/* One frame of a TPACKET_V3 block, checked against the block. */
struct afpacket_v3_frame {
    const uint8_t *frame;       /* The frame's first byte... */
    uint32_t len;               /* ...and its length, whole. */
    const struct virtio_net_hdr *vnet;  /* Its virtio-net header. */
    struct afpacket_frame_info info;    /* Its VLAN tag. */
    uint32_t rxhash;            /* Linux's RSS hash. */
};

int afpacket_v3_block_open(const uint8_t *block, uint32_t block_size,
                           uint32_t *first_ofs, uint32_t *n_frames);
int afpacket_v3_frame_parse(const uint8_t *block, uint32_t block_size,
                            uint32_t ofs, struct afpacket_v3_frame *,
                            uint32_t *next_ofs);

#endif /* afpacket-frame.h */

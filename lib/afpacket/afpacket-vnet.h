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

#ifndef AFPACKET_VNET_H
#define AFPACKET_VNET_H 1

/* The virtio-net header of an AF_PACKET socket with PACKET_VNET_HDR, and
 * the offload metadata of OVS's 'struct dp_packet'.
 *
 * With PACKET_VNET_HDR, Linux puts a 'struct virtio_net_hdr' in front of
 * every frame it hands over and expects one in front of every frame it is
 * given.  The header says:
 *
 *   - whether the frame's transport checksum is only partial
 *     (VIRTIO_NET_HDR_F_NEEDS_CSUM, the skb's CHECKSUM_PARTIAL: the field
 *     holds the pseudo-header sum and the rest is left to whoever sends the
 *     frame on a wire), or was already verified (VIRTIO_NET_HDR_F_DATA_VALID,
 *     CHECKSUM_UNNECESSARY);
 *   - whether the frame is a GSO packet, up to 64 KiB, still to be cut into
 *     segments of 'gso_size' bytes of payload.
 *
 * A veth peer with its default offloads sends every TCP and UDP packet with
 * a partial checksum and TCP in 64 KiB GSO packets.  This module turns the
 * header into OVS's flags (DP_PACKET_OL_TX_TCP_CKSUM, DP_PACKET_OL_TX_TCP_SEG
 * with the segment size of tso-segsz.h...) on receive, and the flags back
 * into a header on transmit, so that such packets cross the switch whole and
 * their checksums are completed only where a wire needs them: by the egress
 * device, or by our software GSO (gso.h) for an egress that cannot.
 *
 * The header's fields are in the host's byte order: Linux uses little-endian
 * virtio headers on little-endian hosts, the only ones this supports.
 *
 * Pure functions of a packet the calling thread owns: no shared state. */

#include <linux/virtio_net.h>
#include <stdint.h>

struct dp_packet;

/* The smallest GSO segment size accepted on receive, in TCP payload bytes.
 * A GSO frame is cut into frame-length / gso_size segments on its way out
 * (by our software GSO, or by Linux), so a tiny size from a hostile sender
 * turns one frame into hundreds of packets on a shared forwarding thread:
 * gso_size 1 makes 1,024 of a 1 KiB frame.  48 is Linux's TCP_MIN_SND_MSS,
 * the floor of net.ipv4.tcp_min_snd_mss, the smallest MSS Linux's TCP
 * sends with whatever MSS a peer advertises (Linux 5.2 added it against
 * peers that ask for tiny segments, CVE-2019-11479).  Linux's TCP_MIN_MSS,
 * 88, is the smallest MSS a socket may set or advertise, but Linux still
 * sends 48..87-byte segments to a peer that advertised so little, and such
 * traffic must pass.  A sender goes below 48 only by its TCP options on a
 * connection whose peer advertised an MSS under 48 plus those options.
 * With 48 a 1 KiB frame makes at most 22 segments, and a 64 KiB one more
 * than GSO_MAX_SEGS, which software GSO refuses. */
#define AFPACKET_VNET_MIN_GSO_SIZE 48

/* Applies 'vnet', the header Linux gave with received frame 'p', to 'p'.
 * 'vlan_shift' is the number of bytes of VLAN tag pushed back into 'p' after
 * Linux gave it (the header's offsets do not count them).
 *
 * On success 'p' carries:
 *   - DP_PACKET_OL_RX_L4_CKSUM_GOOD if Linux verified its checksum;
 *   - for a partial TCP, UDP or SCTP checksum whose start is the transport
 *     header that the bytes show, DP_PACKET_OL_TX_IPV4 or _IPV6 and
 *     DP_PACKET_OL_TX_{TCP,UDP,SCTP}_CKSUM, so that it goes out still
 *     partial to an egress that offloads it;
 *   - for any other partial checksum (e.g. the inner one of a tunnel
 *     packet), a checksum completed here in software: such a packet has no
 *     OVS flag to carry it;
 *   - for a TCP GSO packet, also DP_PACKET_OL_TX_TCP_SEG with its segment
 *     size (tso_segsz_set()).
 *
 * Returns 0, EPROTONOSUPPORT for a GSO type other than TCP (UDP
 * fragmentation or segmentation offload), ERANGE for a TCP GSO segment
 * size under AFPACKET_VNET_MIN_GSO_SIZE, or EINVAL for a header that
 * contradicts the frame's bytes (a segment size of 0 among them); the
 * caller must then drop 'p'. */
int afpacket_vnet_to_packet(struct dp_packet *p,
                            const struct virtio_net_hdr *vnet,
                            int vlan_shift);

/* Fills '*vnet' for sending 'p' to an AF_PACKET socket with PACKET_VNET_HDR
 * whose device is taken to offload TCP segmentation and TCP and UDP
 * checksums, and makes 'p' ready for it:
 *   - a packet with no offload flag gets an all-zero header;
 *   - a partial TCP or UDP checksum gets VIRTIO_NET_HDR_F_NEEDS_CSUM, and
 *     the checksum field is set to the pseudo-header sum, as Linux expects
 *     of a CHECKSUM_PARTIAL packet, whatever the field held before (the
 *     packet may have been rewritten on its way);
 *   - a packet marked for TCP segmentation also gets the GSO type, header
 *     length and segment size: tso_segsz_get(), or if it has none, what fits
 *     in 'mtu' (the egress MTU);
 *   - a partial SCTP checksum is completed here in software (and the
 *     packet's checksum flags cleared), since Linux would take CRC32c for
 *     an Internet checksum;
 *   - L2 padding after the IP datagram is trimmed, since Linux would sum
 *     it into the checksum.
 *
 * Returns 0, or EINVAL if 'p''s flags ask for an offload its bytes do not
 * allow (e.g. TCP segmentation of a UDP packet); then the caller must drop
 * 'p'. */
int afpacket_vnet_from_packet(struct dp_packet *p,
                              struct virtio_net_hdr *vnet, int mtu);

#endif /* afpacket-vnet.h */

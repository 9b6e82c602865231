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

#ifndef NET_HDRS_H
#define NET_HDRS_H 1

/* Where the headers of an IP packet are, found from its bytes.
 *
 * The segmentation and fragmentation code cannot trust a packet's l3_ofs and
 * l4_ofs: its packets may come straight from a tap's vnet header or from
 * GRO, and the offsets may be stale after actions rewrote headers.
 * net_hdrs_parse() walks the bytes instead and checks every length against
 * the buffer, so that the callers may then read and copy the headers it
 * reports without further bounds checks.
 *
 * It accepts an Ethernet frame (packet_type PT_ETH) with up to
 * NET_HDRS_MAX_VLANS 802.1Q/802.1ad tags, or an L3 packet (packet_type
 * PT_IPV4 or PT_IPV6, as inside an L3 tunnel) whose data starts at the IP
 * header.  For IPv6 it walks the hop-by-hop and destination options
 * extension headers, the ones a segment or fragment may copy unchanged, and
 * stops at any other next header, which it reports as 'l4_proto'.
 *
 * Pure functions of the packet's bytes: any thread may call them on a
 * packet it owns. */

#include <stdbool.h>
#include <stdint.h>

struct dp_packet;

/* The VLAN tags an Ethernet frame may carry: one 802.1Q tag, or an 802.1ad
 * outer tag and an 802.1Q inner one (QinQ), as OVS's own parser allows. */
#define NET_HDRS_MAX_VLANS 2

/* Offsets, in bytes from dp_packet_data(), of a packet's headers. */
struct net_hdrs {
    uint16_t l3_ofs;      /* IPv4 or IPv6 header; also the L2 length. */
    uint16_t l4_ofs;      /* Past the IPv4 options or IPv6 ext headers. */
    uint16_t end_ofs;     /* End of the IP datagram: its total or payload
                           * length says where; anything after it in the
                           * buffer is L2 padding. */
    uint8_t l4_proto;     /* IPv4 protocol or last IPv6 next header. */
    bool is_ipv6;         /* IPv6 rather than IPv4. */
};

int net_hdrs_parse(const struct dp_packet *, struct net_hdrs *);

/* Returns the length of the IP header of 'h', IPv4 options or IPv6
 * extension headers included. */
static inline uint16_t
net_hdrs_l3_len(const struct net_hdrs *h)
{
    return h->l4_ofs - h->l3_ofs;
}

/* Returns the length of the L4 part of the datagram described by 'h',
 * header and payload. */
static inline uint16_t
net_hdrs_l4_len(const struct net_hdrs *h)
{
    return h->end_ofs - h->l4_ofs;
}

#endif /* net-hdrs.h */

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

#ifndef HEADER_KEY_H
#define HEADER_KEY_H 1

/* The header key of a received packet of the commonest shape: an untagged
 * Ethernet frame carrying IPv4 without options, not a fragment, with a UDP
 * or TCP header, just received on a port (its metadata as
 * pkt_metadata_init() leaves it).  It is the port and the frame's first 48
 * bytes, with the bytes no flow field depends on masked out.
 *
 * For such a packet, what miniflow_extract() computes depends on nothing
 * else: the metadata it reads is the input port and zeros, and every byte
 * it reads is among those kept, except the IPv4 total length and the TCP
 * header length, which only decide whether the packet has this shape (and
 * the Ethernet padding), and which header_key_extract() checks packet by
 * packet.  So two packets of this shape with equal header keys have equal
 * miniflows, hit the same megaflow, and the exact-match cache can compare
 * these 48 bytes where it would otherwise extract the miniflow and compare
 * it (tests/test-header-key.c and tests/fuzz/fuzz-header-key.c check that
 * claim against miniflow_extract() itself).
 *
 * A header key lives on the stack of the thread that received the packet or
 * in that thread's exact-match cache; it is never shared. */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dp-packet.h"
#include "packets.h"

/* Bytes of the frame a header key covers: Ethernet (14), IPv4 without
 * options (20) and the first 14 bytes of TCP, up to its flags. */
#define HEADER_KEY_BYTES 48
#define HEADER_KEY_WORDS (HEADER_KEY_BYTES / 8)

/* Offsets in the frame. */
#define HEADER_KEY_L3_OFS ETH_HEADER_LEN
#define HEADER_KEY_L4_OFS (ETH_HEADER_LEN + IP_HEADER_LEN)

struct header_key {
    uint64_t words[HEADER_KEY_WORDS]; /* The frame's first bytes, masked. */
    uint32_t hash;              /* The packet's RSS hash. */
    uint32_t in_port;           /* The port it was received on. */
};

/* Clears the bytes of 'words', a frame's first HEADER_KEY_BYTES, that no
 * flow field depends on and that vary from packet to packet of one flow:
 * the IPv4 total length, identification and checksum, and, by 'ip_proto',
 * the TCP sequence and acknowledgement numbers or what follows the UDP
 * ports.  The masks are byte tables, so that they read the same on either
 * byte order. */
static inline void
header_key_mask(uint64_t words[HEADER_KEY_WORDS], uint8_t ip_proto)
{
    static const uint8_t udp_keep[HEADER_KEY_BYTES] = {
        [0 ... 15] = 0xff,              /* Ethernet, IPv4 version and ToS. */
        [20 ... 23] = 0xff,             /* Fragment bits, TTL, protocol. */
        [26 ... 37] = 0xff,             /* Addresses, ports. */
    };
    static const uint8_t tcp_keep[HEADER_KEY_BYTES] = {
        [0 ... 15] = 0xff,
        [20 ... 23] = 0xff,
        [26 ... 37] = 0xff,
        [46 ... 47] = 0xff,             /* TCP header length and flags. */
    };
    const uint8_t *keep = ip_proto == IPPROTO_TCP ? tcp_keep : udp_keep;

    for (int i = 0; i < HEADER_KEY_WORDS; i++) {
        uint64_t mask;

        memcpy(&mask, keep + i * 8, sizeof mask);
        words[i] &= mask;
    }
}

/* If 'packet', just received on 'in_port' with its metadata initialized,
 * has the shape this file describes, sets its layer offsets, Ethernet
 * padding and RSS hash as miniflow_extract() would, fills 'key' and
 * '*tcp_flags' (the packet's TCP flags, 0 for UDP) and returns true.
 * Otherwise returns false and changes nothing.  Never reads beyond the
 * packet's data. */
static inline bool
header_key_extract(struct header_key *key, struct dp_packet *packet,
                   odp_port_t in_port, uint16_t *tcp_flags)
{
    const uint8_t *frame = dp_packet_data(packet);
    uint32_t size = dp_packet_size(packet);
    const struct eth_header *eth = (const struct eth_header *) frame;
    const struct ip_header *ip;
    uint32_t tot_len, l4_min;

    if (OVS_UNLIKELY(size < HEADER_KEY_L4_OFS + UDP_HEADER_LEN)
        || packet->packet_type != htonl(PT_ETH)
        || eth->eth_type != htons(ETH_TYPE_IP)) {
        return false;
    }
    ip = (const struct ip_header *) (frame + HEADER_KEY_L3_OFS);
    if (ip->ip_ihl_ver != IP_IHL_VER(IP_HEADER_LEN / 4, 4)
        || IP_IS_FRAGMENT(ip->ip_frag_off)) {
        return false;
    }
    if (ip->ip_proto == IPPROTO_UDP) {
        l4_min = UDP_HEADER_LEN;
        *tcp_flags = 0;
    } else if (ip->ip_proto == IPPROTO_TCP
               && size >= HEADER_KEY_L4_OFS + TCP_HEADER_LEN) {
        const struct tcp_header *tcp
            = (const struct tcp_header *) (frame + HEADER_KEY_L4_OFS);

        l4_min = TCP_OFFSET(tcp->tcp_ctl) * 4;
        if (l4_min < TCP_HEADER_LEN) {
            return false;
        }
        *tcp_flags = TCP_FLAGS(tcp->tcp_ctl);
    } else {
        return false;
    }
    tot_len = ntohs(ip->ip_tot_len);
    if (tot_len < IP_HEADER_LEN + l4_min
        || tot_len > size - ETH_HEADER_LEN
        || size - ETH_HEADER_LEN - tot_len > UINT16_MAX) {
        return false;
    }

    dp_packet_reset_offsets(packet);
    packet->l3_ofs = HEADER_KEY_L3_OFS;
    packet->l4_ofs = HEADER_KEY_L4_OFS;
    dp_packet_set_l2_pad_size(packet, size - ETH_HEADER_LEN - tot_len);
    dp_packet_update_rss_hash_ipv4_tcp_udp(packet);

    if (OVS_LIKELY(size >= HEADER_KEY_BYTES)) {
        memcpy(key->words, frame, HEADER_KEY_BYTES);
    } else {
        /* A UDP frame of 42 to 47 bytes, which the mask ends within. */
        memset(key->words, 0, HEADER_KEY_BYTES);
        memcpy(key->words, frame, size);
    }
    header_key_mask(key->words, ip->ip_proto);
    key->hash = dp_packet_get_rss_hash(packet);
    key->in_port = odp_to_u32(in_port);
    return true;
}

/* Returns true if header keys 'a' and 'b' are equal. */
static inline bool
header_key_equal(const struct header_key *a, const struct header_key *b)
{
    uint64_t diff = ((uint64_t) a->hash ^ b->hash)
                    | ((uint64_t) a->in_port ^ b->in_port);

    for (int i = 0; i < HEADER_KEY_WORDS; i++) {
        diff |= a->words[i] ^ b->words[i];
    }
    return !diff;
}

#endif /* header-key.h */

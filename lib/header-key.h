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

/* The header key of a received packet of the commonest shape: an Ethernet
 * frame, untagged or with one 802.1Q or 802.1ad tag, carrying IPv4 without
 * options, not a fragment, with a UDP or TCP header, just received on a
 * port (its metadata as pkt_metadata_init() leaves it).  It is the port and
 * the frame's first 48 bytes, with the bytes no flow field depends on
 * masked out; a tagged frame's bytes are taken as if the tag were cut out,
 * and the tag goes into four of the masked bytes instead (HEADER_KEY_TAG).
 *
 * For such a packet, what miniflow_extract() computes depends on nothing
 * else: the metadata it reads is the input port and zeros, and every byte
 * it reads is among those kept, except the IPv4 total length and the TCP
 * header length, which only decide whether the packet has this shape (and
 * the Ethernet padding), and which header_key_extract() checks packet by
 * packet.  (It parses one tag whatever other_config:vlan-limit says, since
 * OVS's flow_limit_vlans() never sets a limit below one, and stops there,
 * since the type after the tag is IPv4.)  So two packets of this shape with
 * equal header keys have equal miniflows, hit the same megaflow, and the
 * exact-match cache can compare these 48 bytes where it would otherwise
 * extract the miniflow and compare it (tests/test-header-key.c and
 * tests/fuzz/fuzz-header-key.c check that claim against miniflow_extract()
 * itself).
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

/* Offsets in an untagged frame, and in a header key. */
#define HEADER_KEY_L3_OFS ETH_HEADER_LEN
#define HEADER_KEY_L4_OFS (ETH_HEADER_LEN + IP_HEADER_LEN)

/* Where a tagged frame's tag (its TPID and TCI, VLAN_HEADER_LEN bytes) goes
 * in its header key: over the IPv4 total length and identification, which
 * header_key_fill() clears.  The TPID is never zero, so a tagged frame's key
 * never equals an untagged one's. */
#define HEADER_KEY_TAG (HEADER_KEY_L3_OFS + 2)

/* Offset of the tag in a tagged frame, after the Ethernet addresses. */
#define HEADER_KEY_FRAME_TAG_OFS (2 * ETH_ADDR_LEN)

struct header_key {
    uint64_t words[HEADER_KEY_WORDS]; /* The frame's first bytes, masked. */
    uint32_t hash;              /* The packet's RSS hash. */
    uint32_t in_port;           /* The port it was received on. */
};

/* Returns the 8 bytes at 'p' as a word, in memory order. */
static inline uint64_t
header_key_load(const uint8_t *p)
{
    uint64_t word;

    memcpy(&word, p, sizeof word);
    return word;
}

/* Fills 'words' from 'frame', which has at least HEADER_KEY_BYTES +
 * 'tag_len' bytes: as an untagged frame's first bytes (the Ethernet
 * addresses, then what follows the tag, if 'tag_len' says there is one),
 * with the bytes cleared that no flow field depends on and that vary from
 * packet to packet of one flow (the IPv4 total length, identification and
 * checksum, and, by 'ip_proto', the TCP sequence and acknowledgement
 * numbers or what follows the UDP ports), and then the tag, if any, in
 * the place of the first two (HEADER_KEY_TAG).
 *
 * Each word is loaded from the frame, masked and stored once: the key is
 * compared right after, and a load that spans several smaller stores would
 * wait for them (no store forwarding).  The masks are byte tables, so that
 * they read the same on either byte order. */
static inline ALWAYS_INLINE void
header_key_fill(uint64_t words[HEADER_KEY_WORDS], const uint8_t *frame,
                const uint32_t tag_len, uint8_t ip_proto)
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
    static const uint8_t first_half[8] = { [0 ... 3] = 0xff };
    const uint8_t *keep = ip_proto == IPPROTO_TCP ? tcp_keep : udp_keep;

    BUILD_ASSERT(HEADER_KEY_FRAME_TAG_OFS == 12 && HEADER_KEY_TAG == 16);
    for (int i = 0; i < HEADER_KEY_WORDS; i++) {
        uint64_t word, mask;

        if (i == 0 || !tag_len) {
            word = header_key_load(frame + i * 8);
        } else if (i == 1) {
            /* The addresses' last 4 bytes, then the 4 after the tag. */
            uint64_t half = header_key_load(first_half);

            word = ((header_key_load(frame + 8) & half)
                    | (header_key_load(frame + 12) & ~half));
        } else {
            word = header_key_load(frame + i * 8 + tag_len);
        }
        memcpy(&mask, keep + i * 8, sizeof mask);
        word &= mask;
        if (tag_len && i == HEADER_KEY_TAG / 8) {
            word |= (header_key_load(frame + HEADER_KEY_FRAME_TAG_OFS)
                     & header_key_load(first_half));
        }
        words[i] = word;
    }
}

/* Fills 'words' as header_key_fill() does from a frame of 'size' bytes,
 * which may be shorter than it reads (a UDP frame of 42 to 47 bytes, 46 to
 * 51 tagged, which the masks end within): bytes beyond the frame count as
 * zeros. */
static inline ALWAYS_INLINE void
header_key_fill_frame(uint64_t words[HEADER_KEY_WORDS], const uint8_t *frame,
                      uint32_t size, const uint32_t tag_len, uint8_t ip_proto)
{
    if (OVS_LIKELY(size >= HEADER_KEY_BYTES + tag_len)) {
        header_key_fill(words, frame, tag_len, ip_proto);
    } else {
        uint8_t padded[HEADER_KEY_BYTES + VLAN_HEADER_LEN];

        memcpy(padded, frame, size);
        memset(padded + size, 0, sizeof padded - size);
        header_key_fill(words, padded, tag_len, ip_proto);
    }
}

/* header_key_extract() for a frame whose Ethernet addresses are followed by
 * 'tag_len' bytes of tag (0 or VLAN_HEADER_LEN) and then the IPv4 type,
 * which the caller checked, as at least HEADER_KEY_L4_OFS + UDP_HEADER_LEN
 * + 'tag_len' bytes.  Inlined with 'tag_len' a constant, so that each
 * shape gets code of its own with its offsets folded in. */
static inline ALWAYS_INLINE bool
header_key_extract__(struct header_key *key, struct dp_packet *packet,
                     odp_port_t in_port, uint16_t *tcp_flags,
                     const uint32_t tag_len)
{
    const uint8_t *frame = dp_packet_data(packet);
    uint32_t size = dp_packet_size(packet);
    const uint32_t l3_ofs = HEADER_KEY_L3_OFS + tag_len;
    const uint32_t l4_ofs = HEADER_KEY_L4_OFS + tag_len;
    const struct ip_header *ip = (const struct ip_header *) (frame + l3_ofs);
    uint32_t tot_len, l4_min;

    if (ip->ip_ihl_ver != IP_IHL_VER(IP_HEADER_LEN / 4, 4)
        || IP_IS_FRAGMENT(ip->ip_frag_off)) {
        return false;
    }
    if (ip->ip_proto == IPPROTO_UDP) {
        l4_min = UDP_HEADER_LEN;
        *tcp_flags = 0;
    } else if (ip->ip_proto == IPPROTO_TCP
               && size >= l4_ofs + TCP_HEADER_LEN) {
        const struct tcp_header *tcp
            = (const struct tcp_header *) (frame + l4_ofs);

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
        || tot_len > size - l3_ofs
        || size - l3_ofs - tot_len > UINT16_MAX) {
        return false;
    }

    dp_packet_reset_offsets(packet);
    packet->l3_ofs = l3_ofs;
    packet->l4_ofs = l4_ofs;
    dp_packet_set_l2_pad_size(packet, size - l3_ofs - tot_len);
    dp_packet_update_rss_hash_ipv4_tcp_udp(packet);

    header_key_fill_frame(key->words, frame, size, tag_len, ip->ip_proto);
    key->hash = dp_packet_get_rss_hash(packet);
    key->in_port = odp_to_u32(in_port);
    return true;
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

    if (OVS_UNLIKELY(size < HEADER_KEY_L4_OFS + UDP_HEADER_LEN)
        || packet->packet_type != htonl(PT_ETH)) {
        return false;
    }
    if (OVS_LIKELY(eth->eth_type == htons(ETH_TYPE_IP))) {
        return header_key_extract__(key, packet, in_port, tcp_flags, 0);
    }
    if (eth_type_vlan(eth->eth_type)
        && ((const struct vlan_eth_header *) frame)->veth_next_type
           == htons(ETH_TYPE_IP)
        && size >= VLAN_ETH_HEADER_LEN + IP_HEADER_LEN + UDP_HEADER_LEN) {
        return header_key_extract__(key, packet, in_port, tcp_flags,
                                    VLAN_HEADER_LEN);
    }
    return false;
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

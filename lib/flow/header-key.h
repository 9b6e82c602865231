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

/* The header key of a received packet of one of the commonest shapes: an
 * Ethernet frame, just received on a port (its metadata as
 * pkt_metadata_init() leaves it), carrying a UDP or TCP header right after
 * either
 *
 *   - IPv4 without options, not a fragment, the frame untagged or with one
 *     802.1Q or 802.1ad tag: the key is the port and the frame's first 48
 *     bytes, with the bytes no flow field depends on masked out; a tagged
 *     frame's bytes are taken as if the tag were cut out, and the tag goes
 *     into four of the masked bytes instead (HEADER_KEY_TAG); or
 *
 *   - IPv6 with no extension header, the frame untagged or with one tag:
 *     the key is the port and 64 bytes, the frame's first 56 (as if a tag
 *     were cut out) and then its destination port and TCP flags, with the
 *     payload length masked out and a tag in masked bytes
 *     (header_key_fill_ipv6()).
 *
 * For such a packet, what miniflow_extract() computes depends on nothing
 * else: the metadata it reads is the input port and zeros, and every byte
 * it reads is among those kept, except the IPv4 total length, the IPv6
 * payload length and the TCP header length, which only decide whether the
 * packet has this shape (and the Ethernet padding), and which
 * header_key_extract() checks packet by packet.  (It parses one tag
 * whatever other_config:vlan-limit says, since OVS's flow_limit_vlans()
 * never sets a limit below one, and stops there, since the type after the
 * tag is IPv4 or IPv6.)  So two packets of this shape with equal header
 * keys have equal miniflows, hit the same megaflow, and the exact-match
 * cache can compare these 48 or 64 bytes where it would otherwise extract
 * the miniflow and compare it (tests/test-header-key.c and
 * tests/fuzz/fuzz-header-key.c check that claim against miniflow_extract()
 * itself).  An IPv4 key is 6 words and an IPv6 key 8 ('n_words'), and the
 * cache keeps them in two tables, of one and two cache lines an entry.
 *
 * A packet that a tunnel vport decapsulated (Geneve, VXLAN, GRE with an
 * Ethernet payload) carries tunnel metadata, which miniflow_extract() also
 * reads.  If its inner frame has one of the shapes above, and its metadata
 * is that of an IPv4 or IPv6 tunnel with nothing set beyond the addresses,
 * tunnel ID, flags, ToS, TTL and UDP ports but up to
 * HEADER_KEY_TNL_OPT_BYTES of undecoded Geneve options, it gets a tunnel
 * header key: the inner frame's key, zero-filled to 8 words, then those
 * fields and options as miniflow_extract() takes them
 * (header_key_fill_tunnel()), with the tunnel port as its port; 14 words
 * in all with IPv4 outer addresses, 17 with IPv6 ones.  Any other
 * decapsulated packet (GBP, ERSPAN or GTP-U fields, more options, decoded
 * ones, both IPv4 and IPv6 addresses, an IP payload as ipip and L3 GRE
 * carry) gets none and is looked up by its miniflow (coverage counters
 * percpu_tunnel_header_key and percpu_tunnel_no_header_key count both).
 * The same tests check the claim for these keys with every byte of the
 * metadata changed.
 *
 * A header key lives on the stack of the thread that received the packet or
 * in that thread's exact-match cache; it is never shared. */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dp-packet.h"
#include "packets.h"

/* Bytes of the frame an IPv4 header key covers: Ethernet (14), IPv4
 * without options (20) and the first 14 bytes of TCP, up to its flags. */
#define HEADER_KEY_IPV4_BYTES 48
#define HEADER_KEY_IPV4_WORDS (HEADER_KEY_IPV4_BYTES / 8)

/* Words of an IPv6 header key: the frame's first 56 bytes (Ethernet, IPv6
 * and the source port), then one word for the destination port and the
 * TCP flags. */
#define HEADER_KEY_IPV6_WORDS 8

/* Bytes of Geneve options, as the tunnel metadata holds them undecoded
 * (FLOW_TNL_F_UDPIF), that a tunnel header key covers: two options of OVN's
 * shape (a 4-byte option header and 4 bytes of data) or one of up to 12
 * bytes of data.  A packet with more options gets no header key. */
#define HEADER_KEY_TNL_OPT_BYTES 16
#define HEADER_KEY_TNL_OPT_WORDS (HEADER_KEY_TNL_OPT_BYTES / 8)

/* Words of a tunnel header key's metadata part
 * (header_key_fill_tunnel()): the outer addresses, the tunnel ID, the
 * flags, ToS, TTL and ports, the options' present word, the options: with
 * IPv4 outer addresses, one word for both; with IPv6 ones, four. */
#define HEADER_KEY_TNL_MD_WORDS (4 + HEADER_KEY_TNL_OPT_WORDS)
#define HEADER_KEY_TNL6_MD_WORDS (7 + HEADER_KEY_TNL_OPT_WORDS)

/* Words of a tunnel header key: the inner frame's key, as an IPv6 one's
 * words long (an IPv4 one's zero-filled), then the metadata part, of an
 * IPv4 tunnel or (TNL6) an IPv6 one. */
#define HEADER_KEY_TNL_WORDS (HEADER_KEY_IPV6_WORDS + HEADER_KEY_TNL_MD_WORDS)
#define HEADER_KEY_TNL6_WORDS (HEADER_KEY_IPV6_WORDS \
                               + HEADER_KEY_TNL6_MD_WORDS)
#define HEADER_KEY_MAX_WORDS HEADER_KEY_TNL6_WORDS

/* Offset of the L4 header in an untagged IPv6 frame. */
#define HEADER_KEY_IPV6_L4_OFS (ETH_HEADER_LEN + IPV6_HEADER_LEN)

/* Offsets in an untagged frame, and in a header key. */
#define HEADER_KEY_L3_OFS ETH_HEADER_LEN
#define HEADER_KEY_L4_OFS (ETH_HEADER_LEN + IP_HEADER_LEN)

/* Where a tagged frame's tag (its TPID and TCI, VLAN_HEADER_LEN bytes) goes
 * in its header key: over the IPv4 total length and identification, which
 * header_key_fill_ipv4() clears.  The TPID is never zero, so a tagged
 * frame's key never equals an untagged one's. */
#define HEADER_KEY_TAG (HEADER_KEY_L3_OFS + 2)

/* Offset of the tag in a tagged frame, after the Ethernet addresses. */
#define HEADER_KEY_FRAME_TAG_OFS (2 * ETH_ADDR_LEN)

struct header_key {
    uint64_t words[HEADER_KEY_MAX_WORDS]; /* The frame's bytes, masked; the
                                 * first 'n_words' count. */
    uint32_t hash;              /* The packet's RSS hash. */
    uint32_t in_port;           /* The port it was received on. */
    uint32_t n_words;           /* HEADER_KEY_IPV4_WORDS, _IPV6_WORDS,
                                 * _TNL_WORDS or _TNL6_WORDS. */
};

/* Returns the 8 bytes at 'p' as a word, in memory order. */
static inline uint64_t
header_key_load(const uint8_t *p)
{
    uint64_t word;

    memcpy(&word, p, sizeof word);
    return word;
}

/* Returns word 'i' of the first bytes of 'frame', whose Ethernet addresses
 * are followed by 'tag_len' bytes of tag (0 or VLAN_HEADER_LEN), as if the
 * tag were cut out.  Inlined with 'i' and 'tag_len' constants. */
static inline ALWAYS_INLINE uint64_t
header_key_load_untagged(const uint8_t *frame, const int i,
                         const uint32_t tag_len)
{
    static const uint8_t first_half[8] = { [0 ... 3] = 0xff };

    if (i == 0 || !tag_len) {
        return header_key_load(frame + i * 8);
    } else if (i == 1) {
        /* The addresses' last 4 bytes, then the 4 after the tag. */
        uint64_t half = header_key_load(first_half);

        return ((header_key_load(frame + 8) & half)
                | (header_key_load(frame + 12) & ~half));
    } else {
        return header_key_load(frame + i * 8 + tag_len);
    }
}

/* Fills the words of an IPv4 header key from 'frame', which has at least
 * HEADER_KEY_IPV4_BYTES + 'tag_len' bytes: as an untagged frame's first
 * bytes (the Ethernet addresses, then what follows the tag, if 'tag_len'
 * says there is one), with the bytes cleared that no flow field depends on
 * and that vary from packet to packet of one flow (the IPv4 total length,
 * identification and checksum, and, by 'ip_proto', the TCP sequence and
 * acknowledgement numbers or what follows the UDP ports), and then the
 * tag, if any, in the place of the first two (HEADER_KEY_TAG).
 *
 * Each word is loaded from the frame, masked and stored once: the key is
 * compared right after, and a load that spans several smaller stores would
 * wait for them (no store forwarding).  The masks are byte tables, so that
 * they read the same on either byte order. */
static inline ALWAYS_INLINE void
header_key_fill_ipv4(uint64_t words[HEADER_KEY_IPV4_WORDS],
                     const uint8_t *frame, const uint32_t tag_len,
                     uint8_t ip_proto)
{
    static const uint8_t udp_keep[HEADER_KEY_IPV4_BYTES] = {
        [0 ... 15] = 0xff,              /* Ethernet, IPv4 version and ToS. */
        [20 ... 23] = 0xff,             /* Fragment bits, TTL, protocol. */
        [26 ... 37] = 0xff,             /* Addresses, ports. */
    };
    static const uint8_t tcp_keep[HEADER_KEY_IPV4_BYTES] = {
        [0 ... 15] = 0xff,
        [20 ... 23] = 0xff,
        [26 ... 37] = 0xff,
        [46 ... 47] = 0xff,             /* TCP header length and flags. */
    };
    static const uint8_t first_half[8] = { [0 ... 3] = 0xff };
    const uint8_t *keep = ip_proto == IPPROTO_TCP ? tcp_keep : udp_keep;

    BUILD_ASSERT(HEADER_KEY_FRAME_TAG_OFS == 12 && HEADER_KEY_TAG == 16);
    for (int i = 0; i < HEADER_KEY_IPV4_WORDS; i++) {
        uint64_t word, mask;

        word = header_key_load_untagged(frame, i, tag_len);
        memcpy(&mask, keep + i * 8, sizeof mask);
        word &= mask;
        if (tag_len && i == HEADER_KEY_TAG / 8) {
            word |= (header_key_load(frame + HEADER_KEY_FRAME_TAG_OFS)
                     & header_key_load(first_half));
        }
        words[i] = word;
    }
}

/* Fills 'words' as header_key_fill_ipv4() does from a frame of 'size'
 * bytes, which may be shorter than it reads (a UDP frame of 42 to 47
 * bytes, 46 to 51 tagged, which the masks end within): bytes beyond the
 * frame count as zeros. */
static inline ALWAYS_INLINE void
header_key_fill_ipv4_frame(uint64_t words[HEADER_KEY_IPV4_WORDS],
                           const uint8_t *frame, uint32_t size,
                           const uint32_t tag_len, uint8_t ip_proto)
{
    if (OVS_LIKELY(size >= HEADER_KEY_IPV4_BYTES + tag_len)) {
        header_key_fill_ipv4(words, frame, tag_len, ip_proto);
    } else {
        uint8_t padded[HEADER_KEY_IPV4_BYTES + VLAN_HEADER_LEN];

        memcpy(padded, frame, size);
        memset(padded + size, 0, sizeof padded - size);
        header_key_fill_ipv4(words, padded, tag_len, ip_proto);
    }
}

/* Sets what header_key_extract() sets of 'packet', whose L3 header starts
 * at 'l3_ofs' and L4 header at 'l4_ofs', and which carries 'l3_len' bytes
 * of IPv4 or IPv6 (by 'ipv6'): its offsets, its Ethernet padding and its
 * RSS hash, as miniflow_extract() would. */
static inline ALWAYS_INLINE void
header_key_set_packet(struct dp_packet *packet, uint32_t l3_ofs,
                      uint32_t l4_ofs, uint32_t l3_len, const bool ipv6)
{
    dp_packet_reset_offsets(packet);
    packet->l3_ofs = l3_ofs;
    packet->l4_ofs = l4_ofs;
    dp_packet_set_l2_pad_size(packet,
                              dp_packet_size(packet) - l3_ofs - l3_len);
    if (ipv6) {
        dp_packet_update_rss_hash_ipv6_tcp_udp(packet);
    } else {
        dp_packet_update_rss_hash_ipv4_tcp_udp(packet);
    }
}

/* Returns the length of the UDP header, or the TCP header of 'packet' at
 * 'l4_ofs', setting '*tcp_flags' (0 for UDP), or 0 if 'ip_proto' is
 * neither, or the TCP header is not all within the packet's 'size' bytes
 * or says it is shorter than a TCP header.  The caller checked that 'size'
 * covers a UDP header at 'l4_ofs'. */
static inline ALWAYS_INLINE uint32_t
header_key_l4_len(const uint8_t *frame, uint32_t size, uint32_t l4_ofs,
                  uint8_t ip_proto, uint16_t *tcp_flags)
{
    if (ip_proto == IPPROTO_UDP) {
        *tcp_flags = 0;
        return UDP_HEADER_LEN;
    } else if (ip_proto == IPPROTO_TCP && size >= l4_ofs + TCP_HEADER_LEN) {
        const struct tcp_header *tcp
            = (const struct tcp_header *) (frame + l4_ofs);
        uint32_t l4_len = TCP_OFFSET(tcp->tcp_ctl) * 4;

        *tcp_flags = TCP_FLAGS(tcp->tcp_ctl);
        return l4_len >= TCP_HEADER_LEN ? l4_len : 0;
    }
    return 0;
}

/* Returns true if a packet of 'size' bytes whose L3 header starts at
 * 'l3_ofs' and says it carries 'l3_len' bytes (its IPv4 total length, or
 * its IPv6 header and payload length), of which 'l3_min' are headers,
 * passes miniflow_extract()'s length checks with its headers whole. */
static inline bool
header_key_l3_len_ok(uint32_t size, uint32_t l3_ofs, uint32_t l3_len,
                     uint32_t l3_min)
{
    return (l3_len >= l3_min
            && l3_len <= size - l3_ofs
            && size - l3_ofs - l3_len <= UINT16_MAX);
}

/* Sets what header key 'key' holds besides its words, 'n_words' of which
 * the caller filled: the RSS hash header_key_set_packet() gave 'packet',
 * and the port it was received on. */
static inline void
header_key_finish(struct header_key *key, const struct dp_packet *packet,
                  odp_port_t in_port, uint32_t n_words)
{
    key->hash = dp_packet_get_rss_hash(packet);
    key->in_port = odp_to_u32(in_port);
    key->n_words = n_words;
}

/* header_key_extract() for a frame whose Ethernet addresses are followed by
 * 'tag_len' bytes of tag (0 or VLAN_HEADER_LEN) and then the IPv4 type,
 * which the caller checked, as at least HEADER_KEY_L4_OFS + UDP_HEADER_LEN
 * + 'tag_len' bytes.  Inlined with 'tag_len' a constant, so that each
 * shape gets code of its own with its offsets folded in. */
static inline ALWAYS_INLINE bool
header_key_extract_ipv4(struct header_key *key, struct dp_packet *packet,
                        odp_port_t in_port, uint16_t *tcp_flags,
                        const uint32_t tag_len)
{
    const uint8_t *frame = dp_packet_data(packet);
    uint32_t size = dp_packet_size(packet);
    const uint32_t l3_ofs = HEADER_KEY_L3_OFS + tag_len;
    const uint32_t l4_ofs = HEADER_KEY_L4_OFS + tag_len;
    const struct ip_header *ip = (const struct ip_header *) (frame + l3_ofs);
    uint32_t tot_len, l4_len;

    if (ip->ip_ihl_ver != IP_IHL_VER(IP_HEADER_LEN / 4, 4)
        || IP_IS_FRAGMENT(ip->ip_frag_off)) {
        return false;
    }
    l4_len = header_key_l4_len(frame, size, l4_ofs, ip->ip_proto,
                               tcp_flags);
    tot_len = ntohs(ip->ip_tot_len);
    if (!l4_len
        || !header_key_l3_len_ok(size, l3_ofs, tot_len,
                                 IP_HEADER_LEN + l4_len)) {
        return false;
    }

    header_key_set_packet(packet, l3_ofs, l4_ofs, tot_len, false);
    header_key_fill_ipv4_frame(key->words, frame, size, tag_len,
                               ip->ip_proto);
    header_key_finish(key, packet, in_port, HEADER_KEY_IPV4_WORDS);
    return true;
}

/* Fills the words of an IPv6 header key from 'frame', an IPv6 frame whose
 * Ethernet addresses are followed by 'tag_len' bytes of tag (0 or
 * VLAN_HEADER_LEN), with a UDP or TCP header (by 'ip_proto') right after
 * the IPv6 header, of at least HEADER_KEY_IPV6_L4_OFS + 'tag_len' +
 * UDP_HEADER_LEN bytes, or + TCP_HEADER_LEN for TCP.  Words 0 to 6 are the
 * frame's first 56 bytes, as if the tag were cut out, with the payload
 * length cleared.  Word 7 is the destination port (the 8 bytes from the
 * source port on, all but their bytes 2 and 3 cleared) and, for TCP, the
 * header length and flags (bytes 4 and 5 of the 8 from the TCP header's
 * byte 8).  A tag's TCI goes where the payload length was, and its TPID,
 * never zero, into word 7's bytes 0 and 1, each in the place it has in the
 * 8 bytes from the tag on.  No load reaches beyond the UDP header or the
 * TCP flags, and each word is stored once, as in header_key_fill_ipv4().
 * Inlined with 'tag_len' a constant. */
static inline ALWAYS_INLINE void
header_key_fill_ipv6(uint64_t words[HEADER_KEY_IPV6_WORDS],
                     const uint8_t *frame, const uint32_t tag_len,
                     uint8_t ip_proto)
{
    static const uint8_t word2_keep[8] = {
        0xff, 0xff,                     /* Traffic class, flow label. */
        0, 0,                           /* Payload length. */
        0xff, 0xff, 0xff, 0xff,         /* Next header, hop limit, source. */
    };
    static const uint8_t tpid_keep[8] = { [0 ... 1] = 0xff };
    static const uint8_t tci_keep[8] = { [2 ... 3] = 0xff };
    static const uint8_t dst_port_keep[8] = { [2 ... 3] = 0xff };
    static const uint8_t tcp_ctl_keep[8] = { [4 ... 5] = 0xff };
    const uint8_t *l4 = frame + HEADER_KEY_IPV6_L4_OFS + tag_len;
    const uint8_t *tag = frame + HEADER_KEY_FRAME_TAG_OFS;
    uint64_t mask, word;

    BUILD_ASSERT(HEADER_KEY_IPV6_L4_OFS == 54);
    for (int i = 0; i < HEADER_KEY_IPV6_WORDS - 1; i++) {
        word = header_key_load_untagged(frame, i, tag_len);
        if (i == 2) {
            memcpy(&mask, word2_keep, sizeof mask);
            word &= mask;
            if (tag_len) {
                memcpy(&mask, tci_keep, sizeof mask);
                word |= header_key_load(tag) & mask;
            }
        }
        words[i] = word;
    }
    memcpy(&mask, dst_port_keep, sizeof mask);
    word = header_key_load(l4) & mask;
    if (ip_proto == IPPROTO_TCP) {
        memcpy(&mask, tcp_ctl_keep, sizeof mask);
        word |= header_key_load(l4 + 8) & mask;
    }
    if (tag_len) {
        memcpy(&mask, tpid_keep, sizeof mask);
        word |= header_key_load(tag) & mask;
    }
    words[HEADER_KEY_IPV6_WORDS - 1] = word;
}

/* header_key_extract() for a frame whose Ethernet addresses are followed by
 * 'tag_len' bytes of tag (0 or VLAN_HEADER_LEN) and then the IPv6 type,
 * which the caller checked, as at least HEADER_KEY_IPV6_L4_OFS + 'tag_len'
 * + UDP_HEADER_LEN bytes.  Inlined with 'tag_len' a constant. */
static inline ALWAYS_INLINE bool
header_key_extract_ipv6(struct header_key *key, struct dp_packet *packet,
                        odp_port_t in_port, uint16_t *tcp_flags,
                        const uint32_t tag_len)
{
    const uint8_t *frame = dp_packet_data(packet);
    uint32_t size = dp_packet_size(packet);
    const uint32_t l3_ofs = HEADER_KEY_L3_OFS + tag_len;
    const uint32_t l4_ofs = HEADER_KEY_IPV6_L4_OFS + tag_len;
    const struct ovs_16aligned_ip6_hdr *ip6
        = (const struct ovs_16aligned_ip6_hdr *) (frame + l3_ofs);
    uint8_t ip_proto = ip6->ip6_ctlun.ip6_un1.ip6_un1_nxt;
    uint32_t l3_len, l4_len;

    l4_len = header_key_l4_len(frame, size, l4_ofs, ip_proto, tcp_flags);
    l3_len = IPV6_HEADER_LEN + ntohs(ip6->ip6_ctlun.ip6_un1.ip6_un1_plen);
    if (!l4_len
        || !header_key_l3_len_ok(size, l3_ofs, l3_len,
                                 IPV6_HEADER_LEN + l4_len)) {
        return false;
    }

    header_key_set_packet(packet, l3_ofs, l4_ofs, l3_len, true);
    header_key_fill_ipv6(key->words, frame, tag_len, ip_proto);
    header_key_finish(key, packet, in_port, HEADER_KEY_IPV6_WORDS);
    return true;
}

/* header_key_extract() for a frame with one tag, of at least
 * HEADER_KEY_L4_OFS + UDP_HEADER_LEN bytes, which the caller checked. */
static inline bool
header_key_extract_tagged(struct header_key *key, struct dp_packet *packet,
                          odp_port_t in_port, uint16_t *tcp_flags)
{
    const struct vlan_eth_header *veth = dp_packet_data(packet);
    uint32_t size = dp_packet_size(packet);

    if (veth->veth_next_type == htons(ETH_TYPE_IP)
        && size >= VLAN_ETH_HEADER_LEN + IP_HEADER_LEN + UDP_HEADER_LEN) {
        return header_key_extract_ipv4(key, packet, in_port, tcp_flags,
                                       VLAN_HEADER_LEN);
    }
    if (veth->veth_next_type == htons(ETH_TYPE_IPV6)
        && size >= HEADER_KEY_IPV6_L4_OFS + VLAN_HEADER_LEN + UDP_HEADER_LEN) {
        return header_key_extract_ipv6(key, packet, in_port, tcp_flags,
                                       VLAN_HEADER_LEN);
    }
    return false;
}

/* If 'packet', just received on 'in_port' with its metadata initialized,
 * has one of the shapes this file describes, sets its layer offsets,
 * Ethernet padding and RSS hash as miniflow_extract() would, fills 'key'
 * and '*tcp_flags' (the packet's TCP flags, 0 for UDP) and returns true.
 * Otherwise returns false and changes nothing in 'packet'.  Never reads
 * beyond the packet's data. */
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
        return header_key_extract_ipv4(key, packet, in_port, tcp_flags, 0);
    }
    if (eth->eth_type == htons(ETH_TYPE_IPV6)
        && size >= HEADER_KEY_IPV6_L4_OFS + UDP_HEADER_LEN) {
        return header_key_extract_ipv6(key, packet, in_port, tcp_flags, 0);
    }
    if (eth_type_vlan(eth->eth_type)) {
        return header_key_extract_tagged(key, packet, in_port, tcp_flags);
    }
    return false;
}

/* Fills 'words' with the metadata part of a tunnel header key from
 * 'md', the metadata of a packet decapsulated by a tunnel vport, and
 * returns how many words it filled (HEADER_KEY_TNL_MD_WORDS for an IPv4
 * tunnel, HEADER_KEY_TNL6_MD_WORDS for an IPv6 one), or returns 0 if the
 * packet gets no tunnel header key.
 *
 * miniflow_extract() copies into the miniflow, of the tunnel metadata,
 * the whole of 'struct flow_tnl' before its options (every byte, the flags
 * as they are, padding included) if the tunnel destination is set, and
 * then, if the flags say the options are undecoded (FLOW_TNL_F_UDPIF) and
 * their length is not zero, the present word (the length and the bytes
 * beside it) and the options in whole words, the bytes beyond the length
 * in the last one included; with decoded options, the whole of them if
 * their map is not zero.  A key covers the outer addresses of one family,
 * the tunnel ID, the 8 bytes of flags, ToS, TTL and UDP ports, and up to
 * HEADER_KEY_TNL_OPT_BYTES of undecoded options with their present word,
 * in whole words as miniflow_extract() takes them; so it is refused to a
 * packet with no tunnel destination, addresses of the other family set
 * too (an IPv4 destination with any IPv6 address, an IPv6 destination
 * with an IPv4 source), any of the fields after the ports (GBP, ERSPAN,
 * GTP-U, padding) set, more options, or decoded ones.  Of the rest of the
 * metadata, miniflow_extract() reads the input port, which the key holds,
 * and the fields that pkt_metadata_init() zeroes, which must be zero here
 * too.  The two families' keys differ in length, and so never compare
 * equal. */
static inline size_t
header_key_fill_tunnel(uint64_t words[HEADER_KEY_TNL6_MD_WORDS],
                       const struct pkt_metadata *md)
{
    const struct flow_tnl *tnl = &md->tunnel;
    const uint8_t *base = (const uint8_t *) tnl;
    size_t after_ports = offsetof(struct flow_tnl, gbp_id);
    size_t n_opt_words = 0;
    size_t n_addr_words;

    BUILD_ASSERT(offsetof(struct flow_tnl, tp_dst) + 2
                 == offsetof(struct flow_tnl, flags) + 8);
    BUILD_ASSERT(offsetof(struct flow_tnl, gbp_id) + 16
                 == offsetof(struct flow_tnl, metadata));
    BUILD_ASSERT(sizeof tnl->ipv6_dst + sizeof tnl->ipv6_src == 4 * 8);
    if (md->recirc_id || md->dp_hash || md->skb_priority || md->pkt_mark
        || md->ct_state
        || header_key_load(base + after_ports)
        || header_key_load(base + after_ports + 8)) {
        return 0;
    }
    if (tnl->ip_dst) {
        uint32_t addrs[2];

        if (ipv6_addr_is_set(&tnl->ipv6_dst)
            || ipv6_addr_is_set(&tnl->ipv6_src)) {
            return 0;
        }
        addrs[0] = (OVS_FORCE uint32_t) tnl->ip_dst;
        addrs[1] = (OVS_FORCE uint32_t) tnl->ip_src;
        memcpy(&words[0], addrs, sizeof addrs);
        n_addr_words = 1;
    } else if (ipv6_addr_is_set(&tnl->ipv6_dst) && !tnl->ip_src) {
        memcpy(&words[0], &tnl->ipv6_dst, sizeof tnl->ipv6_dst);
        memcpy(&words[2], &tnl->ipv6_src, sizeof tnl->ipv6_src);
        n_addr_words = 4;
    } else {
        return 0;
    }
    if (tnl->flags & FLOW_TNL_F_UDPIF) {
        uint8_t len = tnl->metadata.present.len;

        if (len > HEADER_KEY_TNL_OPT_BYTES) {
            return 0;
        }
        n_opt_words = DIV_ROUND_UP(len, 8);
    } else if (tnl->metadata.present.map) {
        return 0;
    }

    words += n_addr_words;
    words[0] = (OVS_FORCE uint64_t) tnl->tun_id;
    words[1] = header_key_load(base + offsetof(struct flow_tnl, flags));
    words[2] = (n_opt_words
                ? header_key_load((const uint8_t *) &tnl->metadata.present)
                : 0);
    for (size_t i = 0; i < HEADER_KEY_TNL_OPT_WORDS; i++) {
        words[3 + i] = (i < n_opt_words
                        ? header_key_load(tnl->metadata.opts.u8 + i * 8)
                        : 0);
    }
    return n_addr_words + 3 + HEADER_KEY_TNL_OPT_WORDS;
}

/* If 'packet', decapsulated by a tunnel vport (its metadata as
 * vport_tunnel_init_metadata() and the tunnel's parser leave it, the
 * tunnel port as its input port), carries an inner frame of one of the
 * shapes this file describes and tunnel metadata that
 * header_key_fill_tunnel() takes, does what header_key_extract() does,
 * with a tunnel header key of HEADER_KEY_TNL_WORDS (an IPv4 tunnel) or
 * HEADER_KEY_TNL6_WORDS (an IPv6 one): the inner frame's words
 * (zero-filled to an IPv6 key's), then the metadata part.  The inner
 * words' Ethernet type tells an IPv4 inner frame from an IPv6 one.
 * Otherwise returns false and changes nothing in 'packet'. */
static inline bool
header_key_extract_tunnel(struct header_key *key, struct dp_packet *packet,
                          uint16_t *tcp_flags)
{
    uint64_t md_words[HEADER_KEY_TNL6_MD_WORDS];
    size_t n_md_words = header_key_fill_tunnel(md_words, &packet->md);

    if (!n_md_words
        || !header_key_extract(key, packet, packet->md.in_port.odp_port,
                               tcp_flags)) {
        return false;
    }
    for (size_t i = key->n_words; i < HEADER_KEY_IPV6_WORDS; i++) {
        key->words[i] = 0;
    }
    memcpy(&key->words[HEADER_KEY_IPV6_WORDS], md_words,
           n_md_words * sizeof md_words[0]);
    key->n_words = HEADER_KEY_IPV6_WORDS + n_md_words;
    return true;
}

/* Returns true if header keys 'a' and 'b' are equal. */
static inline bool
header_key_equal(const struct header_key *a, const struct header_key *b)
{
    uint64_t diff = ((uint64_t) a->hash ^ b->hash)
                    | ((uint64_t) a->in_port ^ b->in_port);

    if (a->n_words != b->n_words) {
        return false;
    }
    for (int i = 0; i < a->n_words; i++) {
        diff |= a->words[i] ^ b->words[i];
    }
    return !diff;
}

#endif /* header-key.h */

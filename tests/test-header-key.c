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

/* Unit tests for header keys (lib/flow/header-key.h), run by
 * tests/percpu-flows.at.
 *
 *   test-header-key mutations
 *       For IPv4 UDP frames (of 64 and of 42 bytes, the shortest) and TCP
 *       frames with and without options, untagged, UDP and TCP frames with
 *       an 802.1Q or 802.1ad tag (a tagged UDP frame of 46 bytes among
 *       them), and IPv6 UDP frames (of 62 bytes, the shortest, and longer)
 *       and TCP frames with and without options, untagged and tagged,
 *       changes each byte in turn to several values, and each frame's
 *       length, and checks every result and every pair (original, changed)
 *       with header-key-check.h: equal header keys must mean equal
 *       miniflows, as miniflow_extract() computes them, and a frame with a
 *       header key gets miniflow_extract()'s offsets and hash.  Prints, per
 *       frame, how many changed frames kept a header key and how many kept
 *       the same one, so that a check that compared nothing would show.
 *
 *   test-header-key shapes
 *       Checks that frames of every other shape (two tags, IPv6 with an
 *       extension header, fragments, IPv4 options, ICMP, short or
 *       inconsistent lengths, not Ethernet) get no header key, that a frame
 *       and its tagged copy get two keys, and the same frame from two ports
 *       two keys.
 *
 *   test-header-key tunnel-mutations
 *       The same for tunnel header keys (header_key_extract_tunnel()): for
 *       decapsulated packets, IPv4 and IPv6, UDP and TCP, untagged and
 *       tagged inner frames, with the tunnel metadata of Geneve with
 *       options of 8 (OVN's), 12 (the last word in part beyond the
 *       options) and 16 bytes (the most a key covers) and of VXLAN, each
 *       over IPv4 and over IPv6 outer headers, changes each byte of the
 *       tunnel metadata up to 8 bytes beyond the options a key covers,
 *       and each byte of the inner frame, to several values, and checks
 *       each pair.
 *
 *   test-header-key tunnel-shapes
 *       Checks that decapsulated packets whose tunnel metadata no tunnel
 *       key covers get none, over IPv4 and over IPv6, and that a frame
 *       gets different keys as a received and as a decapsulated packet,
 *       and over IPv4 and over IPv6. */

#include <config.h>

#include <stdio.h>
#include <string.h>

#include "header-key-check.h"
#include "dp-packet.h"
#include "header-key.h"
#include "packets.h"
#include "tun-metadata.h"
#include "test-harness.h"
#include "util.h"

/* Longest frame built here. */
#define TEST_FRAME_MAX 128

/* A frame under test. */
struct test_frame {
    const char *name;
    uint8_t bytes[TEST_FRAME_MAX];
    size_t len;
};

/* Fills 'f' with an Ethernet frame carrying IPv4 with 'ip_opt_words' 32-bit
 * words of options and protocol 'proto', whose L4 header is 'l4' ('l4_len'
 * bytes) followed by 'payload' bytes of payload.  The IPv4 total length is
 * right; the checksums are not, as nothing here reads them. */
static void
test_frame_ipv4(struct test_frame *f, const char *name, int ip_opt_words,
                uint8_t proto, const uint8_t *l4, size_t l4_len,
                size_t payload)
{
    static const uint8_t eth[ETH_HEADER_LEN] = {
        0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00,
    };
    size_t ip_len = IP_HEADER_LEN + 4 * ip_opt_words;
    size_t tot_len = ip_len + l4_len + payload;
    uint8_t *ip = f->bytes + ETH_HEADER_LEN;

    ovs_assert(ETH_HEADER_LEN + tot_len <= TEST_FRAME_MAX);
    memset(f->bytes, 0, sizeof f->bytes);
    f->name = name;
    memcpy(f->bytes, eth, sizeof eth);
    ip[0] = 0x40 | (ip_len / 4);
    ip[1] = 0x10;                                   /* ToS. */
    ip[2] = tot_len >> 8;
    ip[3] = tot_len;
    ip[4] = 0x12;                                   /* Identification. */
    ip[5] = 0x34;
    ip[6] = 0x40;                                   /* Don't fragment. */
    ip[8] = 64;                                     /* TTL. */
    ip[9] = proto;
    memcpy(ip + 12, (const uint8_t[8]) { 10, 0, 0, 1, 10, 0, 0, 2 }, 8);
    memset(ip + IP_HEADER_LEN, 0x01, ip_len - IP_HEADER_LEN); /* NOPs. */
    memcpy(ip + ip_len, l4, l4_len);
    memset(ip + ip_len + l4_len, 'x', payload);
    f->len = ETH_HEADER_LEN + tot_len;
}

/* Fills 'f' with an Ethernet frame carrying IPv6 with next header 'proto'
 * (and no extension header), whose L4 header is 'l4' ('l4_len' bytes)
 * followed by 'payload' bytes of payload.  The payload length is right. */
static void
test_frame_ipv6(struct test_frame *f, const char *name, uint8_t proto,
                const uint8_t *l4, size_t l4_len, size_t payload)
{
    static const uint8_t eth[ETH_HEADER_LEN] = {
        0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x86, 0xdd,
    };
    size_t plen = l4_len + payload;
    uint8_t *ip6 = f->bytes + ETH_HEADER_LEN;

    ovs_assert(ETH_HEADER_LEN + IPV6_HEADER_LEN + plen <= TEST_FRAME_MAX);
    memset(f->bytes, 0, sizeof f->bytes);
    f->name = name;
    memcpy(f->bytes, eth, sizeof eth);
    ip6[0] = 0x6b;                          /* Version, traffic class 0xb5, */
    ip6[1] = 0x51;                          /* flow label 0x12345. */
    ip6[2] = 0x23;
    ip6[3] = 0x45;
    ip6[4] = plen >> 8;
    ip6[5] = plen;
    ip6[6] = proto;
    ip6[7] = 64;                            /* Hop limit. */
    ip6[8] = 0xfd;                          /* fd00::1 to fd00::2. */
    ip6[23] = 1;
    ip6[24] = 0xfd;
    ip6[39] = 2;
    memcpy(ip6 + IPV6_HEADER_LEN, l4, l4_len);
    memset(ip6 + IPV6_HEADER_LEN + l4_len, 'x', payload);
    f->len = ETH_HEADER_LEN + IPV6_HEADER_LEN + plen;
}

/* A UDP header, ports 1234 and 80. */
static const uint8_t test_udp[UDP_HEADER_LEN] = {
    0x04, 0xd2, 0x00, 0x50, 0x00, 0x1e, 0x00, 0x00,
};

/* A TCP header, ports 1234 and 80, ACK, header length 'words' words. */
static void
test_tcp(uint8_t *tcp, int words)
{
    static const uint8_t base[TCP_HEADER_LEN] = {
        0x04, 0xd2, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 2, 0x50, 0x10,
        0x01, 0xf4, 0, 0, 0, 0,
    };

    memcpy(tcp, base, sizeof base);
    tcp[12] = words << 4;
    memset(tcp + TCP_HEADER_LEN, 0x01, 4 * words - TCP_HEADER_LEN);
}

/* Makes 'f' a copy of 'src' named 'name' with a tag of type 'tpid' and
 * TCI 'tci' between its addresses and its type. */
static void
test_frame_tag(struct test_frame *f, const struct test_frame *src,
               const char *name, uint16_t tpid, uint16_t tci)
{
    const uint8_t tag[VLAN_HEADER_LEN] = { tpid >> 8, tpid, tci >> 8, tci };

    ovs_assert(src->len + VLAN_HEADER_LEN <= TEST_FRAME_MAX);
    *f = *src;
    f->name = name;
    memmove(f->bytes + 2 * ETH_ADDR_LEN + VLAN_HEADER_LEN,
            f->bytes + 2 * ETH_ADDR_LEN, src->len - 2 * ETH_ADDR_LEN);
    memcpy(f->bytes + 2 * ETH_ADDR_LEN, tag, sizeof tag);
    f->len += VLAN_HEADER_LEN;
}

/* Number of frames the mutations start from. */
#define TEST_N_FRAMES 14

/* The frames the mutations start from. */
static size_t
test_frames(struct test_frame frames[TEST_N_FRAMES])
{
    uint8_t tcp[60];

    test_frame_ipv4(&frames[0], "udp", 0, IPPROTO_UDP, test_udp,
                    sizeof test_udp, 22);
    test_tcp(tcp, 5);
    test_frame_ipv4(&frames[1], "tcp", 0, IPPROTO_TCP, tcp, 20, 10);
    test_tcp(tcp, 8);
    test_frame_ipv4(&frames[2], "tcp with options", 0, IPPROTO_TCP, tcp, 32,
                    6);
    test_frame_ipv4(&frames[3], "udp of 42 bytes", 0, IPPROTO_UDP, test_udp,
                    sizeof test_udp, 0);
    test_frame_tag(&frames[4], &frames[0], "802.1q udp", ETH_TYPE_VLAN_8021Q,
                   0x200a);
    test_frame_tag(&frames[5], &frames[1], "802.1ad tcp",
                   ETH_TYPE_VLAN_8021AD, 0x0064);
    test_frame_tag(&frames[6], &frames[3], "802.1q udp of 46 bytes",
                   ETH_TYPE_VLAN_8021Q, 0x0fff);
    test_frame_ipv6(&frames[7], "ipv6 udp", IPPROTO_UDP, test_udp,
                    sizeof test_udp, 10);
    test_frame_ipv6(&frames[8], "ipv6 udp of 62 bytes", IPPROTO_UDP,
                    test_udp, sizeof test_udp, 0);
    test_tcp(tcp, 5);
    test_frame_ipv6(&frames[9], "ipv6 tcp", IPPROTO_TCP, tcp, 20, 4);
    test_tcp(tcp, 8);
    test_frame_ipv6(&frames[10], "ipv6 tcp with options", IPPROTO_TCP, tcp,
                    32, 0);
    test_frame_tag(&frames[11], &frames[7], "802.1q ipv6 udp",
                   ETH_TYPE_VLAN_8021Q, 0x300a);
    test_frame_tag(&frames[12], &frames[9], "802.1ad ipv6 tcp",
                   ETH_TYPE_VLAN_8021AD, 0x0064);
    test_frame_tag(&frames[13], &frames[8], "802.1q ipv6 udp of 66 bytes",
                   ETH_TYPE_VLAN_8021Q, 0x0fff);
    return TEST_N_FRAMES;
}

/* Fails the test with 'error', about 'what' of frame 'f', if it is set. */
static void
test_check_error(char *error, const struct test_frame *f, const char *what)
{
    if (error) {
        test_fail("%s, %s: %s", f->name, what, error);
    }
}

/* Counts of the pairs one frame's mutations made. */
struct test_counts {
    int n_changed;              /* Changed frames checked. */
    int n_keyed;                /* ...that had a header key. */
    int n_same;                 /* ...the original's header key. */
};

/* Checks the pair ('f', 'changed' of 'len' bytes), described by 'what',
 * and counts it in 'c'. */
static void
test_check_changed(const struct test_frame *f, const uint8_t *changed,
                   size_t len, const char *what, struct test_counts *c)
{
    enum header_key_pair pair;
    char *error;

    pair = header_key_check_pair(f->bytes, f->len, changed, len,
                                 u32_to_odp(1), &error);
    test_check_error(error, f, what);
    c->n_changed++;
    c->n_keyed += pair == HEADER_KEY_PAIR_DIFFERENT
                  || pair == HEADER_KEY_PAIR_SAME;
    c->n_same += pair == HEADER_KEY_PAIR_SAME;
}

static void
test_mutations(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const uint8_t xors[] = { 0x01, 0x02, 0x10, 0x80, 0xff };
    struct test_frame frames[TEST_N_FRAMES];
    size_t n = test_frames(frames);

    for (size_t i = 0; i < n; i++) {
        const struct test_frame *f = &frames[i];
        struct test_counts c = { 0, 0, 0 };
        uint8_t changed[TEST_FRAME_MAX];
        char what[64];

        char *error;

        if (!header_key_check_frame(f->bytes, f->len, u32_to_odp(1),
                                    &error)) {
            test_fail("%s: no header key", f->name);
        }
        test_check_error(error, f, "unchanged");
        for (size_t pos = 0; pos < f->len; pos++) {
            for (size_t x = 0; x < ARRAY_SIZE(xors); x++) {
                memcpy(changed, f->bytes, f->len);
                changed[pos] ^= xors[x];
                snprintf(what, sizeof what, "byte %"PRIuSIZE" ^ %#x", pos,
                         xors[x]);
                test_check_changed(f, changed, f->len, what, &c);
            }
        }
        /* Shorter frames cut into the headers or the payload; longer ones
         * carry Ethernet padding beyond the IPv4 total length. */
        memcpy(changed, f->bytes, f->len);
        memset(changed + f->len, 0, sizeof changed - f->len);
        for (size_t len = 0; len <= TEST_FRAME_MAX; len++) {
            snprintf(what, sizeof what, "length %"PRIuSIZE, len);
            test_check_changed(f, changed, len, what, &c);
        }
        printf("%s: %d changed frames, %d with a header key, "
               "%d with the same one\n", f->name, c.n_changed, c.n_keyed,
               c.n_same);
    }
}

/* Checks that frame 'f' gets no header key. */
static void
test_no_key(const struct test_frame *f)
{
    char *error;

    if (header_key_check_frame(f->bytes, f->len, u32_to_odp(1), &error)) {
        test_fail("%s: has a header key", f->name);
    }
    test_check_error(error, f, "no key");
    printf("%s: no header key\n", f->name);
}

/* Checks that frame 'src', cut to 'len' bytes with the 16-bit length at
 * 'len_ofs' (its IPv4 total length or IPv6 payload length) cut to match,
 * as what follows offset 'len_base', gets no header key, naming it
 * 'name'. */
static void
test_no_key_cut(const struct test_frame *src, const char *name,
                size_t len_ofs, size_t len_base, size_t len)
{
    struct test_frame f = *src;

    f.name = name;
    f.bytes[len_ofs] = (len - len_base) >> 8;
    f.bytes[len_ofs + 1] = len - len_base;
    f.len = len;
    test_no_key(&f);
}

/* Checks test_no_key_cut() for IPv4 frame 'src', whose IPv4 header starts
 * at 'l3_ofs'. */
static void
test_no_key_cut_ipv4(const struct test_frame *src, const char *name,
                     size_t l3_ofs, size_t len)
{
    test_no_key_cut(src, name, l3_ofs + 2, l3_ofs, len);
}

/* Checks test_no_key_cut() for IPv6 frame 'src', whose IPv6 header starts
 * at 'l3_ofs'. */
static void
test_no_key_cut_ipv6(const struct test_frame *src, const char *name,
                     size_t l3_ofs, size_t len)
{
    test_no_key_cut(src, name, l3_ofs + 4, l3_ofs + IPV6_HEADER_LEN, len);
}

/* Gets the header key of frame 'f', received on 'in_port' as a packet of
 * type 'packet_type', into 'key' and returns true, or returns false if it
 * has none. */
static bool
test_key(const struct test_frame *f, odp_port_t in_port,
         ovs_be32 packet_type, struct header_key *key)
{
    struct dp_packet *p = dp_packet_clone_data(f->bytes, f->len);
    uint16_t tcp_flags;
    bool has_key;

    pkt_metadata_init(&p->md, in_port);
    p->packet_type = packet_type;
    has_key = header_key_extract(key, p, in_port, &tcp_flags);
    dp_packet_delete(p);
    return has_key;
}

/* Checks that frame 'f' gets different keys on two ports, and none as
 * anything but an Ethernet frame. */
static void
test_ports_and_types(const struct test_frame *f)
{
    struct header_key key1, key2;

    if (!test_key(f, u32_to_odp(1), htonl(PT_ETH), &key1)
        || !test_key(f, u32_to_odp(2), htonl(PT_ETH), &key2)) {
        test_fail("%s: no header key", f->name);
    }
    if (header_key_equal(&key1, &key2)) {
        test_fail("%s: the same header key on ports 1 and 2", f->name);
    }
    printf("%s: different header keys on ports 1 and 2\n", f->name);

    if (test_key(f, u32_to_odp(1), htonl(PT_IPV4), &key1)) {
        test_fail("%s: a header key as an IPv4 packet", f->name);
    }
    printf("%s: no header key as an IPv4 packet\n", f->name);
}

/* Checks that frames 'a' and 'b', which have different miniflows, get two
 * different header keys. */
static void
test_two_keys(const struct test_frame *a, const struct test_frame *b)
{
    enum header_key_pair pair;
    char *error;

    pair = header_key_check_pair(a->bytes, a->len, b->bytes, b->len,
                                 u32_to_odp(1), &error);
    test_check_error(error, b, a->name);
    if (pair != HEADER_KEY_PAIR_DIFFERENT) {
        test_fail("%s and %s: not two header keys (%d)", a->name, b->name,
                  pair);
    }
    printf("%s and %s: two header keys\n", a->name, b->name);
}

static void
test_shapes(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct test_frame frames[TEST_N_FRAMES], f, g;
    enum header_key_pair pair;
    uint8_t tcp[TCP_HEADER_LEN];
    char *error;

    test_frames(frames);

    /* An 802.1Q tag inside an 802.1ad one: OVS's flow_vlan_limit decides
     * whether miniflow_extract() parses the inner one. */
    test_frame_tag(&f, &frames[4], "two tags", ETH_TYPE_VLAN_8021AD, 0x0064);
    test_no_key(&f);

    f = frames[0];
    f.name = "ipv4 header under the ipv6 type";
    f.bytes[12] = 0x86;
    f.bytes[13] = 0xdd;
    test_no_key(&f);

    f = frames[4];
    f.name = "ipv6 type after a tag";
    f.bytes[16] = 0x86;
    f.bytes[17] = 0xdd;
    test_no_key(&f);

    test_no_key_cut_ipv4(&frames[4], "tagged udp frame of 45 bytes",
                         VLAN_ETH_HEADER_LEN, 45);

    test_frame_ipv4(&f, "ipv4 options", 1, IPPROTO_UDP, test_udp,
                    sizeof test_udp, 22);
    test_no_key(&f);

    f = frames[0];
    f.name = "first fragment";
    f.bytes[ETH_HEADER_LEN + 6] = 0x20;             /* More fragments. */
    test_no_key(&f);

    f = frames[0];
    f.name = "later fragment";
    f.bytes[ETH_HEADER_LEN + 7] = 0x10;             /* Offset 128. */
    test_no_key(&f);

    test_frame_ipv4(&f, "icmp", 0, IPPROTO_ICMP,
                    (const uint8_t[8]) { 8, 0, 0, 0, 0, 1, 0, 1 }, 8, 22);
    test_no_key(&f);

    test_tcp(tcp, 5);
    tcp[12] = 4 << 4;
    test_frame_ipv4(&f, "tcp header length 16", 0, IPPROTO_TCP, tcp,
                    TCP_HEADER_LEN, 10);
    test_no_key(&f);

    f = frames[0];
    f.name = "total length beyond the frame";
    f.bytes[ETH_HEADER_LEN + 3] = f.len - ETH_HEADER_LEN + 1;
    test_no_key(&f);

    f = frames[0];
    f.name = "total length short of udp";
    f.bytes[ETH_HEADER_LEN + 3] = IP_HEADER_LEN + UDP_HEADER_LEN - 1;
    test_no_key(&f);

    f = frames[1];
    f.name = "total length short of tcp";
    f.bytes[ETH_HEADER_LEN + 3] = IP_HEADER_LEN + TCP_HEADER_LEN - 1;
    test_no_key(&f);

    test_no_key_cut_ipv4(&frames[3], "udp frame of 41 bytes", ETH_HEADER_LEN,
                         41);
    test_no_key_cut_ipv4(&frames[1], "tcp frame of 53 bytes", ETH_HEADER_LEN,
                         53);

    test_frame_tag(&f, &frames[11], "two tags, ipv6", ETH_TYPE_VLAN_8021AD,
                   0x0064);
    test_no_key(&f);

    test_frame_ipv6(&f, "ipv6 hop-by-hop options", IPPROTO_HOPOPTS,
                    (const uint8_t[8]) { IPPROTO_UDP, 0, 1, 4 }, 8, 8);
    test_no_key(&f);

    test_frame_ipv6(&f, "ipv6 fragment header", IPPROTO_FRAGMENT,
                    (const uint8_t[8]) { IPPROTO_UDP, 0, 0, 0, 0, 0, 0, 1 },
                    8, 8);
    test_no_key(&f);

    test_frame_ipv6(&f, "ipv6 icmp", IPPROTO_ICMPV6,
                    (const uint8_t[8]) { 128, 0, 0, 0, 0, 1, 0, 1 }, 8, 8);
    test_no_key(&f);

    test_tcp(tcp, 5);
    tcp[12] = 4 << 4;
    test_frame_ipv6(&f, "ipv6 tcp header length 16", IPPROTO_TCP, tcp,
                    TCP_HEADER_LEN, 4);
    test_no_key(&f);

    f = frames[7];
    f.name = "ipv6 payload length beyond the frame";
    f.bytes[ETH_HEADER_LEN + 5]++;
    test_no_key(&f);

    f = frames[7];
    f.name = "ipv6 payload length short of udp";
    f.bytes[ETH_HEADER_LEN + 5] = UDP_HEADER_LEN - 1;
    test_no_key(&f);

    f = frames[10];
    f.name = "ipv6 payload length short of the tcp options";
    f.bytes[ETH_HEADER_LEN + 5] = 31;
    test_no_key(&f);

    test_no_key_cut_ipv6(&frames[8], "ipv6 udp frame of 61 bytes",
                         ETH_HEADER_LEN, 61);
    test_no_key_cut_ipv6(&frames[9], "ipv6 tcp frame of 73 bytes",
                         ETH_HEADER_LEN, 73);
    test_no_key_cut_ipv6(&frames[13], "tagged ipv6 udp frame of 65 bytes",
                         VLAN_ETH_HEADER_LEN, 65);
    test_no_key_cut_ipv6(&frames[12], "tagged ipv6 tcp frame of 77 bytes",
                         VLAN_ETH_HEADER_LEN, 77);

    pair = header_key_check_pair(frames[0].bytes, frames[0].len,
                                 frames[0].bytes, frames[0].len,
                                 u32_to_odp(1), &error);
    test_check_error(error, &frames[0], "itself");
    if (pair != HEADER_KEY_PAIR_SAME) {
        test_fail("udp: a different key from itself");
    }
    printf("udp: the same header key twice\n");

    test_two_keys(&frames[0], &frames[4]);
    test_two_keys(&frames[7], &frames[11]);
    test_frame_tag(&f, &frames[7], "802.1q ipv6 udp, tci 0",
                   ETH_TYPE_VLAN_8021Q, 0);
    test_two_keys(&frames[7], &f);
    test_frame_tag(&g, &frames[7], "802.1ad ipv6 udp, tci 0",
                   ETH_TYPE_VLAN_8021AD, 0);
    test_two_keys(&f, &g);

    test_ports_and_types(&frames[0]);
    test_ports_and_types(&frames[4]);
    test_ports_and_types(&frames[7]);
    test_ports_and_types(&frames[11]);
}

/* The tunnel metadata the tunnel tests start from. */
enum test_tnl_kind {
    TEST_TNL_GENEVE_8,          /* Geneve, one OVN option (8 bytes). */
    TEST_TNL_GENEVE_12,         /* Geneve, one option with 8 bytes of data. */
    TEST_TNL_GENEVE_16,         /* Geneve, two OVN-shaped options. */
    TEST_TNL_VXLAN,             /* VXLAN, no options. */
    TEST_TNL6_GENEVE_8,         /* The same four over IPv6. */
    TEST_TNL6_GENEVE_12,
    TEST_TNL6_GENEVE_16,
    TEST_TNL6_VXLAN,
    TEST_N_TNL_KINDS
};

/* Names of the test_tnl_kind's. */
static const char *const test_tnl_names[TEST_N_TNL_KINDS] = {
    "geneve 8", "geneve 12", "geneve 16", "vxlan",
    "ipv6 geneve 8", "ipv6 geneve 12", "ipv6 geneve 16", "ipv6 vxlan",
};

/* Number of test_tnl_kind's over IPv4, each of which has its IPv6 twin at
 * this many kinds further. */
#define TEST_TNL_N_IPV4 4

/* Bytes of a 'struct flow_tnl' that the tunnel mutations change: all
 * before the options, the options a key covers and 8 bytes more. */
#define TEST_TNL_MUTATE_BYTES (offsetof(struct flow_tnl, metadata.opts) \
                               + HEADER_KEY_TNL_OPT_BYTES + 8)

/* Fills 'tnl' with the tunnel metadata of 'kind', as a tunnel vport's
 * receive path leaves it: every field zero but those the tunnel's parser
 * sets (the IPv4 addresses or, for an IPv6 kind, the IPv6 ones), and the
 * options' bytes beyond their length left as the packet's metadata held
 * them (here 0xa5). */
static void
test_tnl(struct flow_tnl *tnl, enum test_tnl_kind kind)
{
    static const uint8_t ovn_opts[16] = {
        0x01, 0x02, 0x80, 0x01, 0x00, 0x01, 0x00, 0x02,  /* Class 0x0102, */
        0x01, 0x02, 0x80, 0x01, 0x00, 0x00, 0x00, 0x07,  /* type 0x80. */
    };
    static const uint8_t opt12[12] = {
        0xff, 0xff, 0x01, 0x02, 1, 2, 3, 4, 5, 6, 7, 8,
    };
    static const struct in6_addr ipv6_dst = { { {
        0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x88,
    } } };
    static const struct in6_addr ipv6_src = { { {
        0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x92,
    } } };
    bool ipv6 = kind >= TEST_TNL_N_IPV4;
    bool geneve;

    if (ipv6) {
        kind -= TEST_TNL_N_IPV4;
    }
    geneve = kind != TEST_TNL_VXLAN;
    memset(tnl, 0, sizeof *tnl);
    memset(tnl->metadata.opts.u8, 0xa5, sizeof tnl->metadata.opts.u8);
    if (ipv6) {
        tnl->ipv6_dst = ipv6_dst;
        tnl->ipv6_src = ipv6_src;
    } else {
        tnl->ip_dst = htonl(0xc0a80a01);
        tnl->ip_src = htonl(0xc0a80a02);
    }
    tnl->tun_id = htonll(geneve ? 0x123456 : 0x64);
    tnl->flags = FLOW_TNL_F_KEY | (geneve ? FLOW_TNL_F_UDPIF : 0);
    tnl->ip_tos = 0x02;
    tnl->ip_ttl = 63;
    tnl->tp_src = htons(49321);
    tnl->tp_dst = htons(geneve ? 6081 : 4789);
    switch (kind) {
    case TEST_TNL_GENEVE_8:
    case TEST_TNL_GENEVE_16:
        tnl->metadata.present.len = kind == TEST_TNL_GENEVE_8 ? 8 : 16;
        memcpy(tnl->metadata.opts.u8, ovn_opts, tnl->metadata.present.len);
        break;
    case TEST_TNL_GENEVE_12:
        tnl->metadata.present.len = sizeof opt12;
        memcpy(tnl->metadata.opts.u8, opt12, sizeof opt12);
        break;
    case TEST_TNL_VXLAN:
    case TEST_TNL6_GENEVE_8:
    case TEST_TNL6_GENEVE_12:
    case TEST_TNL6_GENEVE_16:
    case TEST_TNL6_VXLAN:
    case TEST_N_TNL_KINDS:
    default:
        break;
    }
}

/* The inner frames of the tunnel tests, by their index in test_frames(). */
static const size_t test_tnl_frames[] = { 0, 1, 4, 7, 9, 11 };

static void
test_tunnel_mutations(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const uint8_t xors[] = { 0x01, 0x02, 0x10, 0x80, 0xff };
    struct test_frame frames[TEST_N_FRAMES];

    test_frames(frames);
    for (int kind = 0; kind < TEST_N_TNL_KINDS; kind++) {
        for (size_t j = 0; j < ARRAY_SIZE(test_tnl_frames); j++) {
            const struct test_frame *f = &frames[test_tnl_frames[j]];
            struct test_counts md_c = { 0, 0, 0 }, frame_c = { 0, 0, 0 };
            uint8_t changed[TEST_FRAME_MAX];
            struct flow_tnl tnl, tnl2;
            char what[64];
            char *error;

            test_tnl(&tnl, kind);
            if (!header_key_check_tunnel_frame(f->bytes, f->len, &tnl,
                                               u32_to_odp(3), &error)) {
                test_fail("%s, %s: no tunnel header key",
                          test_tnl_names[kind], f->name);
            }
            test_check_error(error, f, "unchanged");
            for (size_t pos = 0; pos < TEST_TNL_MUTATE_BYTES; pos++) {
                for (size_t x = 0; x < ARRAY_SIZE(xors); x++) {
                    enum header_key_pair pair;

                    tnl2 = tnl;
                    ((uint8_t *) &tnl2)[pos] ^= xors[x];
                    pair = header_key_check_tunnel_pair(
                        f->bytes, f->len, &tnl, f->bytes, f->len, &tnl2,
                        u32_to_odp(3), &error);
                    snprintf(what, sizeof what, "%s, metadata byte %"PRIuSIZE
                             " ^ %#x", test_tnl_names[kind], pos, xors[x]);
                    test_check_error(error, f, what);
                    md_c.n_changed++;
                    md_c.n_keyed += (pair == HEADER_KEY_PAIR_DIFFERENT
                                     || pair == HEADER_KEY_PAIR_SAME);
                    md_c.n_same += pair == HEADER_KEY_PAIR_SAME;
                }
            }
            for (size_t pos = 0; pos < f->len; pos++) {
                for (size_t x = 0; x < ARRAY_SIZE(xors); x++) {
                    enum header_key_pair pair;

                    memcpy(changed, f->bytes, f->len);
                    changed[pos] ^= xors[x];
                    pair = header_key_check_tunnel_pair(
                        f->bytes, f->len, &tnl, changed, f->len, &tnl,
                        u32_to_odp(3), &error);
                    snprintf(what, sizeof what, "%s, byte %"PRIuSIZE
                             " ^ %#x", test_tnl_names[kind], pos, xors[x]);
                    test_check_error(error, f, what);
                    frame_c.n_changed++;
                    frame_c.n_keyed += (pair == HEADER_KEY_PAIR_DIFFERENT
                                        || pair == HEADER_KEY_PAIR_SAME);
                    frame_c.n_same += pair == HEADER_KEY_PAIR_SAME;
                }
            }
            printf("%s, %s: %d changed metadata, %d with a header key, "
                   "%d with the same one; %d changed frames, %d, %d\n",
                   test_tnl_names[kind], f->name, md_c.n_changed,
                   md_c.n_keyed, md_c.n_same, frame_c.n_changed,
                   frame_c.n_keyed, frame_c.n_same);
        }
    }
}

/* Checks that frame 'f', decapsulated with tunnel metadata 'tnl' (named
 * 'name'), gets no tunnel header key. */
static void
test_tunnel_no_key(const struct test_frame *f, const struct flow_tnl *tnl,
                   const char *name)
{
    char *error;

    if (header_key_check_tunnel_frame(f->bytes, f->len, tnl, u32_to_odp(3),
                                      &error)) {
        test_fail("%s: has a tunnel header key", name);
    }
    test_check_error(error, f, name);
    printf("%s: no tunnel header key\n", name);
}

static void
test_tunnel_shapes(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct test_frame frames[TEST_N_FRAMES];
    struct header_key plain, tunnel, tunnel6;
    struct flow_tnl tnl, base, base6;
    struct dp_packet *p;
    uint16_t tcp_flags;

    test_frames(frames);
    test_tnl(&base, TEST_TNL_GENEVE_8);

    tnl = base;
    tnl.ip_dst = 0;
    test_tunnel_no_key(&frames[0], &tnl, "no tunnel destination");

    tnl = base;
    tnl.ipv6_src.s6_addr[15] = 1;
    test_tunnel_no_key(&frames[0], &tnl, "an ipv6 tunnel source");

    tnl = base;
    tnl.ip_dst = 0;
    tnl.ipv6_dst.s6_addr[15] = 1;
    test_tunnel_no_key(&frames[0], &tnl,
                       "an ipv6 tunnel destination, an ipv4 source");

    tnl = base;
    tnl.ipv6_dst.s6_addr[15] = 1;
    test_tunnel_no_key(&frames[0], &tnl,
                       "an ipv4 and an ipv6 tunnel destination");

    tnl = base;
    tnl.gbp_id = htons(1);
    test_tunnel_no_key(&frames[0], &tnl, "a vxlan gbp id");

    tnl = base;
    tnl.erspan_idx = 1;
    test_tunnel_no_key(&frames[0], &tnl, "an erspan index");

    tnl = base;
    tnl.metadata.present.len = HEADER_KEY_TNL_OPT_BYTES + 4;
    test_tunnel_no_key(&frames[0], &tnl, "20 bytes of options");

    tnl = base;
    tnl.flags &= ~FLOW_TNL_F_UDPIF;
    tnl.metadata.present.map = 1;
    test_tunnel_no_key(&frames[0], &tnl, "decoded options");

    test_tnl(&base6, TEST_TNL6_GENEVE_8);

    tnl = base6;
    memset(&tnl.ipv6_dst, 0, sizeof tnl.ipv6_dst);
    test_tunnel_no_key(&frames[0], &tnl, "ipv6: no tunnel destination");

    tnl = base6;
    tnl.ip_src = htonl(0xc0a80a02);
    test_tunnel_no_key(&frames[0], &tnl, "ipv6: an ipv4 tunnel source");

    tnl = base6;
    tnl.gbp_flags = 1;
    test_tunnel_no_key(&frames[0], &tnl, "ipv6: vxlan gbp flags");

    tnl = base6;
    tnl.gtpu_msgtype = 1;
    test_tunnel_no_key(&frames[0], &tnl, "ipv6: a gtp-u message type");

    tnl = base6;
    tnl.metadata.present.len = HEADER_KEY_TNL_OPT_BYTES + 4;
    test_tunnel_no_key(&frames[0], &tnl, "ipv6: 20 bytes of options");

    tnl = base6;
    tnl.flags &= ~FLOW_TNL_F_UDPIF;
    tnl.metadata.present.map = 1;
    test_tunnel_no_key(&frames[0], &tnl, "ipv6: decoded options");

    /* The same frame received and decapsulated, on the same port. */
    p = dp_packet_clone_data(frames[0].bytes, frames[0].len);
    pkt_metadata_init(&p->md, u32_to_odp(3));
    p->packet_type = htonl(PT_ETH);
    if (!header_key_extract(&plain, p, u32_to_odp(3), &tcp_flags)) {
        test_fail("udp: no header key");
    }
    dp_packet_delete(p);
    p = dp_packet_clone_data(frames[0].bytes, frames[0].len);
    pkt_metadata_init(&p->md, u32_to_odp(3));
    p->md.tunnel = base;
    p->packet_type = htonl(PT_ETH);
    if (!header_key_extract_tunnel(&tunnel, p, &tcp_flags)) {
        test_fail("udp: no tunnel header key");
    }
    dp_packet_delete(p);
    p = dp_packet_clone_data(frames[0].bytes, frames[0].len);
    pkt_metadata_init(&p->md, u32_to_odp(3));
    p->md.tunnel = base6;
    p->packet_type = htonl(PT_ETH);
    if (!header_key_extract_tunnel(&tunnel6, p, &tcp_flags)) {
        test_fail("udp: no tunnel header key over ipv6");
    }
    dp_packet_delete(p);
    if (header_key_equal(&plain, &tunnel)) {
        test_fail("udp: the same key received and decapsulated");
    }
    printf("udp: different keys received and decapsulated\n");
    if (header_key_equal(&tunnel, &tunnel6)
        || tunnel6.n_words != HEADER_KEY_TNL6_WORDS) {
        test_fail("udp: the same key decapsulated over ipv4 and ipv6");
    }
    printf("udp: different keys decapsulated over ipv4 and ipv6\n");
}

int
main(int argc, char *argv[])
{
    static const struct test_command commands[] = {
        { "mutations", test_mutations },
        { "shapes", test_shapes },
        { "tunnel-mutations", test_tunnel_mutations },
        { "tunnel-shapes", test_tunnel_shapes },
    };

    return test_run_command(commands, ARRAY_SIZE(commands), argc, argv);
}

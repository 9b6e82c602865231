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

/* What the fuzz targets share: input records, packets, the check. */

#include <config.h>
#include "fuzz-common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <netinet/in.h>

#include "csum.h"
#include "dp-packet.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "util.h"

/* Most VLAN tags fuzz_set_l3_ofs() skips, as many as miniflow_extract()
 * parses (FLOW_MAX_VLAN_HEADERS). */
#define FUZZ_MAX_VLANS 2

/* Once per process: the program name OVS's utilities want, and no logging,
 * which would only slow the fuzzer down (the code under test logs malformed
 * input at a rate limit). */
void
fuzz_init(void)
{
    static bool done;

    if (!done) {
        done = true;
        set_program_name("ovs-percpu-fuzz");
        vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_OFF);
    }
}

/* Returns the next byte of 'in', or 0 once it is used up. */
uint8_t
fuzz_take_u8(struct fuzz_input *in)
{
    uint8_t b = 0;

    if (in->size) {
        b = in->data[0];
        in->data++;
        in->size--;
    }
    return b;
}

/* Returns the next two bytes of 'in' as a big-endian number, missing bytes
 * read as 0. */
uint16_t
fuzz_take_be16(struct fuzz_input *in)
{
    uint16_t hi = fuzz_take_u8(in);

    return (hi << 8) | fuzz_take_u8(in);
}

/* Reads the next record of 'in' into 'r'.  Returns false, with nothing
 * read, when 'in' is used up. */
bool
fuzz_take_record(struct fuzz_input *in, struct fuzz_record *r)
{
    uint16_t len;

    if (!in->size) {
        return false;
    }

    r->ctl = fuzz_take_u8(in);
    len = fuzz_take_be16(in);
    r->len = MIN(len, in->size);
    r->bytes = in->data;
    in->data += r->len;
    in->size -= r->len;
    return true;
}

/* Returns a new packet holding exactly 'len' bytes from 'bytes' (at most
 * FUZZ_MAX_PACKET of them), of type 'packet_type', after FUZZ_HEADROOM bytes
 * of headroom and with no tailroom, so that AddressSanitizer catches any
 * read past its end.  Its metadata is that of a packet received on port 1,
 * its offsets unset. */
struct dp_packet *
fuzz_packet(const uint8_t *bytes, size_t len, ovs_be32 packet_type)
{
    struct dp_packet *p;

    len = MIN(len, FUZZ_MAX_PACKET);
    p = dp_packet_new_with_headroom(len, FUZZ_HEADROOM);

    dp_packet_put(p, bytes, len);
    pkt_metadata_init(&p->md, u32_to_odp(1));
    p->packet_type = packet_type;
    return p;
}

/* Sets the l3_ofs of 'p' where the datapath's key extraction would: past
 * the Ethernet header and up to FUZZ_MAX_VLANS 802.1Q/802.1ad tags of an
 * Ethernet frame whose type is then IPv4 or IPv6, at the start of an L3
 * packet.  Leaves it unset for anything else. */
void
fuzz_set_l3_ofs(struct dp_packet *p)
{
    const uint8_t *data = dp_packet_data(p);
    size_t size = dp_packet_size(p);
    size_t ofs = ETH_ADDR_LEN * 2;
    uint16_t type;

    dp_packet_reset_offsets(p);
    if (p->packet_type != htonl(PT_ETH)) {
        p->l3_ofs = 0;
        return;
    }
    for (int i = 0; ; i++) {
        if (ofs + 2 > size) {
            return;
        }
        type = (data[ofs] << 8) | data[ofs + 1];
        ofs += 2;
        if ((type != ETH_TYPE_VLAN_8021Q && type != ETH_TYPE_VLAN_8021AD)
            || i == FUZZ_MAX_VLANS) {
            break;
        }
        ofs += 2;               /* The tag's TCI. */
    }
    if (type == ETH_TYPE_IP || type == ETH_TYPE_IPV6) {
        p->l3_ofs = ofs;
    }
}

/* Returns the IPv4 header at the l3_ofs of 'p' and its header length in
 * '*ihl' and total length in '*tot_len', if they are consistent with the
 * bytes present; else NULL. */
static struct ip_header *
fuzz_ipv4(const struct dp_packet *p, size_t *ihl, size_t *tot_len)
{
    struct ip_header *ip = dp_packet_l3(p);
    size_t avail = ip ? dp_packet_l3_size(p) : 0;

    if (avail < IP_HEADER_LEN || IP_VER(ip->ip_ihl_ver) != 4) {
        return NULL;
    }
    *ihl = IP_IHL(ip->ip_ihl_ver) * 4;
    *tot_len = ntohs(ip->ip_tot_len);
    if (*ihl < IP_HEADER_LEN || *ihl > *tot_len || *tot_len > avail) {
        return NULL;
    }
    return ip;
}

/* Where the checksum field of 'proto' sits in its header, or -1 if the
 * fuzz targets do not check it. */
static int
fuzz_l4_csum_ofs(uint8_t proto, size_t l4_len)
{
    if (proto == IPPROTO_TCP && l4_len >= TCP_HEADER_LEN) {
        return offsetof(struct tcp_header, tcp_csum);
    }
    if (proto == IPPROTO_UDP && l4_len >= UDP_HEADER_LEN) {
        return offsetof(struct udp_header, udp_csum);
    }
    return -1;
}

/* Makes the header checksum of the IPv4 header that follows the Ethernet
 * header of frame 'p' valid, if the bytes of a header its length field
 * claims are there, whatever the EtherType and the rest of the header say:
 * the tunnel targets (fuzz-ipip.c, fuzz-tunnel-rx.c) fix it before the
 * datapath's parser has looked at the frame. */
void
fuzz_fix_outer_ipv4_csum(struct dp_packet *p)
{
    struct ip_header *ip;
    size_t ihl;

    if (dp_packet_size(p) < ETH_HEADER_LEN + IP_HEADER_LEN) {
        return;
    }
    ip = (struct ip_header *) ((uint8_t *) dp_packet_data(p)
                               + ETH_HEADER_LEN);
    ihl = IP_IHL(ip->ip_ihl_ver) * 4;
    if (ihl >= IP_HEADER_LEN && ihl <= dp_packet_size(p) - ETH_HEADER_LEN) {
        ip->ip_csum = 0;
        ip->ip_csum = csum(ip, ihl);
    }
}

/* Makes the checksums of 'p', whose l3_ofs is set, valid where it holds a
 * well-formed IPv4 header: the header's, and, in a datagram that is not a
 * fragment, the TCP or UDP checksum.  Lets a fuzzer, which cannot guess a
 * checksum, reach the code behind the checks. */
void
fuzz_fix_ipv4_csums(struct dp_packet *p)
{
    size_t ihl, tot_len;
    struct ip_header *ip = fuzz_ipv4(p, &ihl, &tot_len);
    uint8_t *l4;
    int ofs;

    if (!ip) {
        return;
    }
    ip->ip_csum = 0;
    ip->ip_csum = csum(ip, ihl);
    if (IP_IS_FRAGMENT(ip->ip_frag_off)) {
        return;
    }
    l4 = (uint8_t *) ip + ihl;
    ofs = fuzz_l4_csum_ofs(ip->ip_proto, tot_len - ihl);
    if (ofs >= 0) {
        ovs_be16 sum;

        memset(l4 + ofs, 0, 2);
        sum = csum_finish(csum_continue(packet_csum_pseudoheader(ip), l4,
                                        tot_len - ihl));
        memcpy(l4 + ofs, &sum, 2);
    }
}

/* Returns false if 'p', whose l3_ofs is set, is a well-formed IPv4 TCP or
 * UDP datagram, not a fragment, whose L4 checksum is wrong (a UDP checksum
 * of 0 means none) or, if 'ip_hdr_too', whose header checksum is.  Returns
 * true otherwise, for anything it does not check.  The sums are OVS's
 * csum(), not the code under test. */
bool
fuzz_l4_csum_ok(const struct dp_packet *p, bool ip_hdr_too)
{
    size_t ihl, tot_len;
    struct ip_header *ip = fuzz_ipv4(p, &ihl, &tot_len);
    const uint8_t *l4;
    int ofs;

    if (!ip) {
        return true;
    }
    if (ip_hdr_too && csum(ip, ihl)) {
        return false;
    }
    if (IP_IS_FRAGMENT(ip->ip_frag_off)) {
        return true;
    }
    l4 = (const uint8_t *) ip + ihl;
    ofs = fuzz_l4_csum_ofs(ip->ip_proto, tot_len - ihl);
    if (ofs < 0 || (ip->ip_proto == IPPROTO_UDP && !l4[ofs] && !l4[ofs + 1])) {
        return true;
    }
    return !csum_finish(csum_continue(packet_csum_pseudoheader(ip), l4,
                                      tot_len - ihl));
}

/* Aborts, which libFuzzer reports as a crash, with a message, if 'cond' is
 * false: the code under test broke one of its documented promises. */
void
fuzz_check(bool cond, const char *format, ...)
{
    if (!cond) {
        va_list args;
        char *msg;

        va_start(args, format);
        msg = xvasprintf(format, args);
        va_end(args);
        ovs_abort(0, "fuzz check failed: %s", msg);
    }
}

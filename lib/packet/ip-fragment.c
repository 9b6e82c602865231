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

/* IPv4 and IPv6 fragmentation on output, or its ICMP error. */

#include <config.h>
#include "ip-fragment.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip6.h>
#include <string.h>

#include "csum.h"
#include "dp-packet.h"
#include "net-hdrs.h"
#include "packets.h"
#include "util.h"

/* Fragment offsets count 8-byte units (RFC 791), so every fragment but the
 * last carries a multiple of 8 payload bytes. */
#define IPF_UNIT 8

/* The largest IPv4 header, options included: a 4-bit IHL of 15 words. */
#define IPF_MAX_IP_HDR_LEN 60

/* The largest L2 header net_hdrs_parse() accepts in front of IPv4. */
#define IPF_MAX_L2_LEN (ETH_HEADER_LEN + NET_HDRS_MAX_VLANS * VLAN_HEADER_LEN)

/* IPv4 options (RFC 791, section 3.1): End of Option List and No
 * Operation are one byte long, every other option is type, length, data.
 * Options with the 'copied' flag in their type go into every fragment. */
#define IPF_OPT_EOL 0
#define IPF_OPT_NOP 1
#define IPF_OPT_COPIED 0x80

/* The smallest MTU an IPv4 link may have (RFC 791): a 60-byte header and
 * one 8-byte fragment.  ip_icmp_frag_needed() refuses to advertise less. */
#define IPF_MIN_MTU 68

/* ICMP "destination unreachable" code for "fragmentation needed and DF
 * set" (RFC 792). */
#define IPF_ICMP_FRAG_NEEDED 4

/* The TTL of the ICMP errors we originate, Linux's default. */
#define IPF_ICMP_TTL 64

/* The highest ICMP type Linux knows (ICMP_ADDRESSREPLY); it treats any
 * higher type as an error message, to which no error may answer. */
#define IPF_ICMP_MAX_KNOWN_TYPE 18

/* Headroom of the ICMP replies, for the Ethernet header (and a VLAN tag)
 * that will be pushed in front of them. */
#define IPF_ICMP_HEADROOM 64

/* Copies the options of the IPv4 header 'ip', 'ihl' bytes long, that have
 * the copied flag into 'dst', pads them with End of Option List to a
 * multiple of 4 bytes, and stores their padded length in '*len'.  Returns 0,
 * or EINVAL if an option overruns the header or has a length under 2. */
static int
ipf_copied_options(const uint8_t *ip, size_t ihl, uint8_t *dst, size_t *len)
{
    size_t i = IP_HEADER_LEN, n = 0;

    while (i < ihl) {
        uint8_t type = ip[i];
        size_t opt_len;

        if (type == IPF_OPT_EOL) {
            break;
        } else if (type == IPF_OPT_NOP) {
            i++;
            continue;
        }
        if (ihl - i < 2) {
            return EINVAL;
        }
        opt_len = ip[i + 1];
        if (opt_len < 2 || opt_len > ihl - i) {
            return EINVAL;
        }
        if (type & IPF_OPT_COPIED) {
            memcpy(dst + n, ip + i, opt_len);
            n += opt_len;
        }
        i += opt_len;
    }
    while (n % 4) {
        dst[n++] = IPF_OPT_EOL;
    }
    *len = n;
    return 0;
}

/* Sets the lengths, fragment field and checksum of fragment 'frag', whose
 * IPv4 header, 'ihl' bytes long, starts 'l3_ofs' bytes into its data and
 * is followed by 'len' payload bytes. */
static void
ipf_fix(struct dp_packet *frag, uint16_t l3_ofs, size_t ihl, size_t len,
        uint16_t frag_off)
{
    struct ip_header *ip = (struct ip_header *)
                           ((uint8_t *) dp_packet_data(frag) + l3_ofs);

    ip->ip_ihl_ver = IP_IHL_VER(ihl / 4, IP_VERSION);
    ip->ip_tot_len = htons(ihl + len);
    ip->ip_frag_off = htons(frag_off);
    ip->ip_csum = 0;
    ip->ip_csum = csum(ip, ihl);

    frag->l3_ofs = l3_ofs;
    frag->l4_ofs = l3_ofs + ihl;
}

/* Cuts IPv4 packet 'p' into fragments whose IP datagrams are at most 'mtu'
 * bytes each and hands them, in order, to 'out'.  An L2 header (Ethernet,
 * with its VLAN tags), if 'p' has one, is copied in front of every fragment
 * and does not count against 'mtu'.  Every fragment carries a multiple of 8
 * payload bytes but the last; fragment offsets add to the offset of 'p' if
 * 'p' was already a fragment, and all fragments but the last have MF set
 * (the last has it if 'p' had it).  The first fragment keeps all the IP
 * options of 'p', later ones only those with the copied flag (RFC 791).
 * Every fragment gets its own header checksum.  Pending checksum offloads of
 * 'p' are completed first: they cannot be done on fragments.  A packet that
 * already fits in 'mtu' goes to 'out' unchanged.
 *
 * Returns 0 on success, having taken ownership of 'p'.  Returns EMSGSIZE,
 * leaving 'p' with the caller (to answer with ip_icmp_frag_needed() and
 * free it), if 'p' needs fragmenting and has DF set.  Otherwise frees 'p'
 * and returns EPROTONOSUPPORT if it is not IPv4, or EINVAL if it is
 * malformed (headers, options, checksum offload that cannot complete), is
 * marked for TCP segmentation, or 'mtu' leaves no room for 8 payload bytes
 * after its header. */
int
ip_fragment_v4(struct dp_packet *p, int mtu, struct gso_output *out)
{
    uint8_t later_hdr[IPF_MAX_L2_LEN + IPF_MAX_IP_HDR_LEN];
    size_t ihl, later_ihl, first_max, later_max;
    size_t payload_len, start, dgram_len;
    uint16_t off0, mf0, keep, frag_off;
    const struct ip_header *ip;
    const uint8_t *data;
    struct net_hdrs h;
    size_t idx;
    int error;

    error = net_hdrs_parse(p, &h);
    if (!error && h.is_ipv6) {
        error = EPROTONOSUPPORT;
    }
    if (error) {
        goto drop;
    }

    data = dp_packet_data(p);
    ip = (const struct ip_header *) (data + h.l3_ofs);
    dgram_len = h.end_ofs - h.l3_ofs;
    if (mtu >= 0 && dgram_len <= (size_t) mtu) {
        gso_output_put(out, p);
        return 0;
    }
    if (ip->ip_frag_off & htons(IP_DONT_FRAGMENT)) {
        return EMSGSIZE;
    }
    if (dp_packet_hwol_is_tso(p) || gso_complete_csum(p)) {
        error = EINVAL;
        goto drop;
    }

    ihl = net_hdrs_l3_len(&h);
    memcpy(later_hdr, data, h.l3_ofs + IP_HEADER_LEN);
    error = ipf_copied_options(data + h.l3_ofs, ihl,
                               later_hdr + h.l3_ofs + IP_HEADER_LEN,
                               &later_ihl);
    if (error) {
        goto drop;
    }
    later_ihl += IP_HEADER_LEN;

    if (mtu < 0 || (size_t) mtu < ihl + IPF_UNIT) {
        error = EINVAL;
        goto drop;
    }
    first_max = ROUND_DOWN(mtu - ihl, IPF_UNIT);
    later_max = ROUND_DOWN(mtu - later_ihl, IPF_UNIT);

    payload_len = dgram_len - ihl;
    frag_off = ntohs(ip->ip_frag_off);
    off0 = frag_off & IP_FRAG_OFF_MASK;
    mf0 = frag_off & IP_MORE_FRAGMENTS;
    keep = frag_off & ~(IP_FRAG_OFF_MASK | IP_MORE_FRAGMENTS);
    if (off0 * IPF_UNIT + payload_len > (IP_FRAG_OFF_MASK + 1) * IPF_UNIT) {
        /* Some fragment's offset would not fit in 13 bits. */
        error = EINVAL;
        goto drop;
    }

    /* Every fragment but the last is a new packet; since 'p' exceeds 'mtu',
     * there are at least two. */
    for (idx = 0, start = 0; ; idx++) {
        size_t max = idx ? later_max : first_max;
        const uint8_t *hdr = idx ? later_hdr : data;
        size_t hdr_ihl = idx ? later_ihl : ihl;
        struct dp_packet *frag;

        if (payload_len - start <= max) {
            break;
        }
        frag = gso_pkt_new(p, hdr, h.l3_ofs + hdr_ihl,
                           data + h.l4_ofs + start, max);
        ipf_fix(frag, h.l3_ofs, hdr_ihl, max,
                keep | (off0 + start / IPF_UNIT) | IP_MORE_FRAGMENTS);
        gso_output_put(out, frag);
        start += max;
    }

    /* The last fragment is 'p' itself. */
    gso_pkt_reuse_tail(p, later_hdr, h.l3_ofs + later_ihl, h.l4_ofs + start,
                       payload_len - start);
    ipf_fix(p, h.l3_ofs, later_ihl, payload_len - start,
            keep | (off0 + start / IPF_UNIT) | mf0);
    gso_output_put(out, p);
    return 0;

drop:
    dp_packet_delete(p);
    return error;
}

/* Returns the offset, in 'p' (parsed into 'h'), of the end of the IPv6
 * unfragmentable part (RFC 8200, section 4.5: the fixed header, and a
 * hop-by-hop options header, a routing header and destination options
 * before a routing header), and in '*nh_ofs' that of the next-header byte
 * that names what follows it.  Returns 0 if the extension headers overrun
 * the ones 'h' found. */
static size_t
ipv6_unfragmentable_end(const struct dp_packet *p, const struct net_hdrs *h,
                        size_t *nh_ofs)
{
    const uint8_t *data = dp_packet_data(p);
    size_t ofs = h->l3_ofs + IPV6_HEADER_LEN;
    size_t nh = h->l3_ofs + offsetof(struct ovs_16aligned_ip6_hdr, ip6_nxt);
    size_t end = ofs;

    *nh_ofs = nh;
    while (data[nh] == IPPROTO_HOPOPTS || data[nh] == IPPROTO_ROUTING
           || data[nh] == IPPROTO_DSTOPTS) {
        uint8_t type = data[nh];
        size_t len;

        if (ofs + 2 > h->l4_ofs) {
            return 0;
        }
        len = (data[ofs + 1] + 1) * 8;
        if (ofs + len > h->l4_ofs) {
            return 0;
        }
        if (type != IPPROTO_DSTOPTS) {
            /* Destination options before it are unfragmentable too. */
            end = ofs + len;
            *nh_ofs = ofs;
        }
        nh = ofs;
        ofs += len;
    }
    return end;
}

/* Cuts IPv6 packet 'p' into fragments of at most 'mtu' bytes of IPv6
 * packet each, fixed header included, with fragment headers carrying 'id',
 * and hands them, in order, to 'out'.  The unfragmentable part (see
 * ipv6_unfragmentable_end()) and the L2 header are copied in front of
 * every fragment.  Pending checksum offloads are completed first.  A
 * packet that already fits goes to 'out' unchanged.
 *
 * Returns 0 on success, having taken ownership of 'p'.  Otherwise frees
 * 'p' and returns EPROTONOSUPPORT if it is not IPv6, or EINVAL if it is
 * malformed, already a fragment, marked for TCP segmentation, or 'mtu'
 * leaves no room for 8 payload bytes. */
int
ip_fragment_v6(struct dp_packet *p, int mtu, ovs_be32 id,
               struct gso_output *out)
{
    size_t unfrag_end, nh_ofs, frag_max, payload_len, start;
    const uint8_t *data;
    struct net_hdrs h;
    uint8_t *hdr;
    int error;

    error = net_hdrs_parse(p, &h);
    if (!error && !h.is_ipv6) {
        error = EPROTONOSUPPORT;
    }
    if (error) {
        goto drop;
    }
    if (mtu >= 0 && h.end_ofs - h.l3_ofs <= (size_t) mtu) {
        gso_output_put(out, p);
        return 0;
    }
    if (dp_packet_hwol_is_tso(p) || gso_complete_csum(p)) {
        error = EINVAL;
        goto drop;
    }

    data = dp_packet_data(p);
    unfrag_end = ipv6_unfragmentable_end(p, &h, &nh_ofs);
    if (!unfrag_end || data[nh_ofs] == IPPROTO_FRAGMENT
        || mtu < 0
        || (size_t) mtu < (unfrag_end - h.l3_ofs
                            + sizeof(struct ovs_16aligned_ip6_frag)
                            + IPF_UNIT)) {
        error = EINVAL;
        goto drop;
    }
    frag_max = ROUND_DOWN(mtu - (unfrag_end - h.l3_ofs)
                          - sizeof(struct ovs_16aligned_ip6_frag), IPF_UNIT);
    payload_len = h.end_ofs - unfrag_end;

    /* The headers of every fragment: L2, the unfragmentable part with the
     * byte that named the next header now naming the fragment header, and
     * the fragment header, whose offset and M flag change per fragment. */
    hdr = xmalloc(unfrag_end + sizeof(struct ovs_16aligned_ip6_frag));
    memcpy(hdr, data, unfrag_end);
    hdr[nh_ofs] = IPPROTO_FRAGMENT;

    for (start = 0; start < payload_len; start += frag_max) {
        size_t len = MIN(frag_max, payload_len - start);
        struct ovs_16aligned_ip6_frag *fh;
        struct ovs_16aligned_ip6_hdr *ip6;
        bool more = start + len < payload_len;
        struct dp_packet *frag;

        fh = (struct ovs_16aligned_ip6_frag *) (hdr + unfrag_end);
        fh->ip6f_nxt = data[nh_ofs];
        fh->ip6f_reserved = 0;
        /* <netinet/ip6.h>'s IP6F_MORE_FRAG is in network byte order. */
        fh->ip6f_offlg = htons(start) | (more ? IP6F_MORE_FRAG : 0);
        put_16aligned_be32(&fh->ip6f_ident, id);
        ip6 = (struct ovs_16aligned_ip6_hdr *) (hdr + h.l3_ofs);
        ip6->ip6_plen = htons(unfrag_end - h.l3_ofs - IPV6_HEADER_LEN
                              + sizeof *fh + len);

        frag = gso_pkt_new(p, hdr, unfrag_end + sizeof *fh,
                           data + unfrag_end + start, len);
        frag->l3_ofs = h.l3_ofs;
        gso_output_put(out, frag);
    }
    free(hdr);
    dp_packet_delete(p);
    return 0;

drop:
    dp_packet_delete(p);
    return error;
}

/* Returns true if IPv4 source address 'ip' names a single host, as RFC
 * 1122 (section 3.2.2) requires of the sender of a datagram that gets an
 * ICMP error: not in 0/8 ("this network"), 127/8 (loopback), 224/4
 * (multicast) or 240/4 (reserved, and the limited broadcast). */
static bool
ipf_is_unicast_src(ovs_be32 ip)
{
    uint8_t first = ntohl(ip) >> 24;

    return first != 0 && first != IN_LOOPBACKNET && first < 224;
}

/* Returns true if an ICMP message of 'type' is an error message, or a type
 * too new to know, to which no ICMP error may answer (RFC 1122, section
 * 3.2.2). */
static bool
ipf_icmp_is_error(uint8_t type)
{
    return (type == ICMP4_DST_UNREACH || type == ICMP4_SOURCEQUENCH
            || type == ICMP4_REDIRECT || type == ICMP4_TIME_EXCEEDED
            || type == ICMP4_PARAM_PROB || type > IPF_ICMP_MAX_KNOWN_TYPE);
}

/* Returns an ICMPv4 "destination unreachable, fragmentation needed and DF
 * set" message (type 3, code 4, RFC 792 and RFC 1191) answering IPv4
 * datagram 'orig' that could not leave through a next hop of MTU 'mtu'.
 * 'orig' is an L3 packet (data at its IP header) or an Ethernet frame.
 *
 * The reply is an L3 packet (packet_type PT_IPV4, data at its IP header)
 * from 'src' to the source of 'orig', TTL 64, DSCP CS6 (network control),
 * DF set with ID 0 (an atomic datagram, RFC 6864), that quotes the IP
 * header of 'orig', options included, and the first 8 bytes of its
 * payload, with valid checksums.  Its metadata is blank: the caller says
 * where it comes from.
 *
 * Returns NULL if 'orig' must not get one (RFC 1122, section 3.2.2): if it
 * is an ICMP error, a fragment other than the first, from a source that is
 * not a single host, or to a multicast or broadcast address; or if it is not
 * well-formed IPv4 or 'mtu' is not a valid IPv4 MTU (68 to 65535).  Does
 * not modify 'orig'; the caller frees both packets. */
struct dp_packet *
ip_icmp_frag_needed(const struct dp_packet *orig, ovs_be32 src, int mtu)
{
    const struct ip_header *ip;
    struct icmp_header *icmp;
    struct ip_header *rip;
    struct dp_packet *reply;
    size_t quote_len, payload_len, ihl;
    const uint8_t *data;
    ovs_be32 ip_src, ip_dst;
    struct net_hdrs h;

    if (net_hdrs_parse(orig, &h) || h.is_ipv6
        || mtu < IPF_MIN_MTU || mtu > UINT16_MAX) {
        return NULL;
    }
    data = dp_packet_data(orig);
    ip = (const struct ip_header *) (data + h.l3_ofs);
    ihl = net_hdrs_l3_len(&h);
    payload_len = net_hdrs_l4_len(&h);

    if (ip->ip_frag_off & htons(IP_FRAG_OFF_MASK)) {
        return NULL;
    }
    ip_src = get_16aligned_be32(&ip->ip_src);
    ip_dst = get_16aligned_be32(&ip->ip_dst);
    if (!ipf_is_unicast_src(ip_src) || ip_is_multicast(ip_dst)
        || ip_dst == htonl(INADDR_BROADCAST)) {
        return NULL;
    }
    if (ip->ip_proto == IPPROTO_ICMP
        && (!payload_len || ipf_icmp_is_error(data[h.l4_ofs]))) {
        return NULL;
    }

    quote_len = ihl + MIN(payload_len, ICMP_ERROR_DATA_L4_LEN);
    reply = dp_packet_new_with_headroom(IP_HEADER_LEN + ICMP_HEADER_LEN
                                        + quote_len, IPF_ICMP_HEADROOM);
    dp_packet_put_zeros(reply, IP_HEADER_LEN + ICMP_HEADER_LEN);
    dp_packet_put(reply, ip, quote_len);
    rip = dp_packet_data(reply);
    icmp = (struct icmp_header *) (rip + 1);

    icmp->icmp_type = ICMP4_DST_UNREACH;
    icmp->icmp_code = IPF_ICMP_FRAG_NEEDED;
    icmp->icmp_fields.frag.mtu = htons(mtu);
    icmp->icmp_csum = csum(icmp, ICMP_HEADER_LEN + quote_len);

    rip->ip_ihl_ver = IP_IHL_VER(IP_HEADER_LEN / 4, IP_VERSION);
    rip->ip_tos = IP_DSCP_CS6;
    rip->ip_tot_len = htons(dp_packet_size(reply));
    rip->ip_frag_off = htons(IP_DONT_FRAGMENT);
    rip->ip_ttl = IPF_ICMP_TTL;
    rip->ip_proto = IPPROTO_ICMP;
    put_16aligned_be32(&rip->ip_src, src);
    put_16aligned_be32(&rip->ip_dst, ip_src);
    rip->ip_csum = csum(rip, IP_HEADER_LEN);

    reply->packet_type = htonl(PT_IPV4);
    reply->l3_ofs = 0;
    reply->l4_ofs = IP_HEADER_LEN;
    return reply;
}

/* The ICMPv6 type of "packet too big" (RFC 4443, section 3.2). */
#define IPF_ICMP6_PKT_TOO_BIG 2

/* ICMPv6 types under this one are errors (RFC 4443, section 2.1). */
#define IPF_ICMP6_FIRST_INFO 128

/* The ICMPv6 type of a Redirect (RFC 4861), to which, as to an ICMPv6
 * error, Linux sends no error back. */
#define IPF_ICMP6_REDIRECT 137

/* The most extension headers ipf_icmp6_may_answer() walks past the ones
 * net_hdrs_parse() took. */
#define IPF_ICMP6_MAX_EXT 8

/* Returns true if IPv6 datagram 'p', parsed into 'h', may get an ICMPv6
 * error (RFC 4443, section 2.4 (e)): it is not an ICMPv6 error message nor
 * a Redirect, and not a fragment other than the first, as Linux's
 * iptunnel_pmtud_check_icmpv6() decides, walking the routing and fragment
 * headers that net_hdrs_parse() stops at (at most IPF_ICMP6_MAX_EXT, each
 * within the datagram).  A chain that is cut short or too long is answered
 * by nothing: what it carries cannot be told. */
static bool
ipf_icmp6_may_answer(const struct dp_packet *p, const struct net_hdrs *h)
{
    const uint8_t *data = dp_packet_data(p);
    size_t ofs = h->l4_ofs;
    uint8_t nh = h->l4_proto;

    for (int i = 0; ; i++) {
        if (nh == IPPROTO_ICMPV6) {
            return (ofs < h->end_ofs && data[ofs] >= IPF_ICMP6_FIRST_INFO
                    && data[ofs] != IPF_ICMP6_REDIRECT);
        }
        if (nh != IPPROTO_ROUTING && nh != IPPROTO_FRAGMENT
            && nh != IPPROTO_HOPOPTS && nh != IPPROTO_DSTOPTS) {
            return true;
        }
        if (i >= IPF_ICMP6_MAX_EXT || h->end_ofs - ofs < 8) {
            return false;
        }
        if (nh == IPPROTO_FRAGMENT) {
            const struct ovs_16aligned_ip6_frag *frag = (const void *)
                                                        (data + ofs);

            if (frag->ip6f_offlg & IP6F_OFF_MASK) {
                /* Not the first fragment.  (<netinet/ip6.h>'s mask is in
                 * network byte order.) */
                return false;
            }
            nh = frag->ip6f_nxt;
            ofs += 8;
        } else {
            size_t len = (data[ofs + 1] + 1) * 8;

            if (h->end_ofs - ofs < len) {
                return false;
            }
            nh = data[ofs];
            ofs += len;
        }
    }
}

/* Returns an ICMPv6 "packet too big" message (type 2, code 0, RFC 4443 and
 * RFC 8201) answering IPv6 datagram 'orig' that could not leave through a
 * path of MTU 'mtu'.  'orig' is an L3 packet (data at its IPv6 header) or
 * an Ethernet frame.
 *
 * The reply is, as ip_icmp_frag_needed()'s, an L3 packet (packet_type
 * PT_IPV6, data at its IPv6 header) from 'src' to the source of 'orig', hop
 * limit 64, traffic class 0 and flow label 0, as Linux's ICMPv6 sends them,
 * that quotes as much of 'orig', from its IPv6 header, as fits in a
 * 1280-byte packet (RFC 4443, section 3.2), with a valid checksum.  Its
 * metadata is blank: the caller says where it comes from.
 *
 * Returns NULL if 'orig' must not get one (RFC 4443, section 2.4): if it
 * is an ICMPv6 error or a Redirect, a fragment other than the first, or
 * from an unspecified, loopback or multicast source (a multicast
 * destination may get one, section 2.4 (e.3)); or if it is not well-formed
 * IPv6 or 'mtu' is under IPv6's minimum, 1280, or over 65535.  Does not
 * modify 'orig'; the caller frees both packets. */
struct dp_packet *
ip6_icmp_packet_too_big(const struct dp_packet *orig,
                        const struct in6_addr *src, int mtu)
{
    const struct ovs_16aligned_ip6_hdr *ip6;
    struct ovs_16aligned_ip6_hdr *rip6;
    struct icmp6_data_header *icmp;
    struct dp_packet *reply;
    struct in6_addr ip6_src;
    size_t quote_len, len;
    struct net_hdrs h;

    if (net_hdrs_parse(orig, &h) || !h.is_ipv6
        || mtu < IP6_MIN_MTU || mtu > UINT16_MAX) {
        return NULL;
    }
    ip6 = (const struct ovs_16aligned_ip6_hdr *)
          ((const uint8_t *) dp_packet_data(orig) + h.l3_ofs);
    memcpy(&ip6_src, &ip6->ip6_src, sizeof ip6_src);
    if (!ipv6_addr_is_set(&ip6_src) || ipv6_addr_is_multicast(&ip6_src)
        || ipv6_addr_equals(&ip6_src, &in6addr_loopback)
        || !ipf_icmp6_may_answer(orig, &h)) {
        return NULL;
    }

    quote_len = MIN(h.end_ofs - h.l3_ofs,
                    IP6_MIN_MTU - IPV6_HEADER_LEN - ICMP6_DATA_HEADER_LEN);
    len = ICMP6_DATA_HEADER_LEN + quote_len;
    reply = dp_packet_new_with_headroom(IPV6_HEADER_LEN + len,
                                        IPF_ICMP_HEADROOM);
    dp_packet_put_zeros(reply, IPV6_HEADER_LEN + ICMP6_DATA_HEADER_LEN);
    dp_packet_put(reply, ip6, quote_len);
    rip6 = dp_packet_data(reply);
    icmp = (struct icmp6_data_header *) (rip6 + 1);

    put_16aligned_be32(&rip6->ip6_flow, htonl(6u << 28));
    rip6->ip6_plen = htons(len);
    rip6->ip6_nxt = IPPROTO_ICMPV6;
    rip6->ip6_hlim = IPF_ICMP_TTL;
    memcpy(&rip6->ip6_src, src, sizeof rip6->ip6_src);
    memcpy(&rip6->ip6_dst, &ip6_src, sizeof rip6->ip6_dst);

    icmp->icmp6_base.icmp6_type = IPF_ICMP6_PKT_TOO_BIG;
    icmp->icmp6_base.icmp6_code = 0;
    put_16aligned_be32(icmp->icmp6_data.be32, htonl(mtu));
    icmp->icmp6_base.icmp6_cksum = 0;
    icmp->icmp6_base.icmp6_cksum
        = csum_finish(csum_continue(packet_csum_pseudoheader6(rip6),
                                    icmp, len));

    reply->packet_type = htonl(PT_IPV6);
    reply->l3_ofs = 0;
    reply->l4_ofs = IPV6_HEADER_LEN;
    return reply;
}

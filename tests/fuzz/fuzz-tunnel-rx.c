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

/* Fuzz target: where tunnel packets are decapsulated, the decision that
 * vport_tunnel_terminate() takes for each packet the flows output to a port
 * that holds addresses: vport_tunnel_classify() against an endpoint table of
 * every type (ipip with fixed IPv4 endpoints, with fixed IPv6 ones and with
 * any, vxlan, geneve, gre, ip6gre), with the thread's fragment verdicts, then
 * as the datapath goes on: the outer header's check, reassembly of outer
 * fragments (of a copy, for a later fragment of a datagram not known yet), and
 * ipip decapsulation.
 *
 * Input: records (fuzz-common.h), each an Ethernet frame output in turn to
 * one of two ports by one thread.  Control byte:
 *   bit 0    fix the outer IPv4 header checksum first (a fuzzer cannot
 *            guess it);
 *   bit 1    output to port 2 (address 198.51.100.2) rather than port 1
 *            (192.0.2.2, 192.0.2.3 and 2001:db8::2);
 *   bits 4-7 hundreds of milliseconds the clock advances before the frame
 *            (verdicts last 1 s).
 *
 * Checks: a packet classified as no tunnel's (or delivered as a later fragment
 * of a datagram not known yet) is left byte for byte as it was; a tunnel
 * packet is an untagged IPv4 frame to the port's MAC or a multicast one, to an
 * address of the port, of the vport's protocol and endpoints (UDP port, GRE
 * header); an IPv6 tunnel packet (or fragment) is to an address of the port,
 * and if whole, of a type with IPv6 underlays (ip6gre before gre), and if its
 * outer header is sound it has no extension header (but ipip one destination
 * options header, whole in the payload, before next header 4 or 41) and the
 * vport's next header and endpoints; a fragment is one, to an address of the
 * port; a datagram reassembled from fragments classifies as whole; an ipip
 * packet (next header 4 or 41, over IPv4 or IPv6) decapsulates into a whole
 * IPv4 or IPv6 packet, of the family its outer protocol says, with its outer
 * addresses as tunnel metadata. */

#include <config.h>
#include "fuzz-common.h"

#include <netinet/in.h>
#include <netinet/ip6.h>
#include <string.h>

#include "dp-packet.h"
#include "ipf-cpu.h"
#include "packets.h"
#include "util.h"
#include "vport-geneve.h"
#include "vport-gre.h"
#include "vport-ipip.h"
#include "vport-tunnel.h"
#include "vport-vxlan.h"

/* Ports of the table, and the input port of the packets. */
#define FUZZ_PORT_1 1
#define FUZZ_PORT_2 2
#define FUZZ_RX_PORT 3
#define FUZZ_VPORT 7

/* Stand-ins for the vports: vport_tunnel_classify() only returns them. */
static char vport_tags[7];
#define VPORT_IPIP_FIXED ((struct vport_tunnel *) &vport_tags[0])
#define VPORT_IPIP_ANY ((struct vport_tunnel *) &vport_tags[1])
#define VPORT_VXLAN ((struct vport_tunnel *) &vport_tags[2])
#define VPORT_GENEVE ((struct vport_tunnel *) &vport_tags[3])
#define VPORT_GRE ((struct vport_tunnel *) &vport_tags[4])
#define VPORT_IP6GRE ((struct vport_tunnel *) &vport_tags[5])
#define VPORT_IP6TNL_FIXED ((struct vport_tunnel *) &vport_tags[6])

/* Is 'v' one of the ipip stand-ins? */
#define IS_IPIP(V) ((V) == VPORT_IPIP_FIXED || (V) == VPORT_IPIP_ANY \
                    || (V) == VPORT_IP6TNL_FIXED)

/* The MAC of both ports. */
static const struct eth_addr port_mac = ETH_ADDR_C(02, 00, 00, 00, 00, 02);

/* The IPv6 address of port 1: 2001:db8::2. */
static const struct in6_addr port1_ip6 = { { {
    0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 } } };

/* The IPv6 remote of the fixed ip6tnl stand-in: 2001:db8::1. */
static const struct in6_addr remote1_ip6 = { { {
    0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 } } };

/* Adds to 'eps' the ways into ipip stand-in 'vport' from 'remote' to
 * 'local' (IPv4-mapped or IPv6), over IPv4 if 'ipv4', over IPv6 if 'ipv6',
 * as vport-ipip.c adds them: both inner families. */
static void
add_ipip(struct vport_tunnel_endpoints *eps, bool ipv4, bool ipv6,
         const struct in6_addr *local, const struct in6_addr *remote,
         struct vport_tunnel *vport)
{
    vport_tunnel_endpoints_add_ip(eps, 4, ipv4, ipv6, local, remote, vport);
    vport_tunnel_endpoints_add_ip(eps, 41, ipv4, ipv6, local, remote, vport);
}

/* Returns the table every input runs against. */
static struct vport_tunnel_endpoints *
make_table(void)
{
    struct vport_tunnel_endpoints *eps = vport_tunnel_endpoints_create();
    struct in6_addr local4, remote4;

    in6_addr_set_mapped_ipv4(&local4, htonl(0xc0000202));
    in6_addr_set_mapped_ipv4(&remote4, htonl(0xc0000201));
    add_ipip(eps, true, false, &local4, &remote4, VPORT_IPIP_FIXED);
    add_ipip(eps, false, true, &port1_ip6, &remote1_ip6, VPORT_IP6TNL_FIXED);
    add_ipip(eps, true, true, &in6addr_any, &in6addr_any, VPORT_IPIP_ANY);
    vport_tunnel_endpoints_add(eps, &vport_vxlan_ops, 0, 0, htons(4789),
                               VPORT_VXLAN);
    vport_tunnel_endpoints_add(eps, &vport_geneve_ops, 0, 0, htons(6081),
                               VPORT_GENEVE);
    vport_tunnel_endpoints_add(eps, &vport_gre_ops, 0, 0, 0, VPORT_GRE);
    vport_tunnel_endpoints_add(eps, &vport_ip6gre_ops, 0, 0, 0,
                               VPORT_IP6GRE);
    vport_tunnel_endpoints_add_local(eps, u32_to_odp(FUZZ_PORT_1),
                                     htonl(0xc0000202));
    vport_tunnel_endpoints_add_local(eps, u32_to_odp(FUZZ_PORT_1),
                                     htonl(0xc0000203));
    vport_tunnel_endpoints_add_local(eps, u32_to_odp(FUZZ_PORT_2),
                                     htonl(0xc6336402));
    vport_tunnel_endpoints_add_local6(eps, u32_to_odp(FUZZ_PORT_1),
                                      &port1_ip6);
    return eps;
}

/* Returns true if 'ip' is an address of port 'port' of make_table(). */
static bool
port_has(uint32_t port, ovs_be32 ip)
{
    return (port == FUZZ_PORT_1
            ? ip == htonl(0xc0000202) || ip == htonl(0xc0000203)
            : ip == htonl(0xc6336402));
}

/* Checks that 'p', an IPv6 frame which vport_tunnel_classify() took for
 * output to 'port' as 'class' of 'vport', is what it says. */
static void
check_taken6(const struct dp_packet *p, uint32_t port,
             enum vport_tunnel_class class, const struct vport_tunnel *vport)
{
    const struct ovs_16aligned_ip6_hdr *ip6 = dp_packet_l3(p);
    const uint8_t *l4 = (const uint8_t *) (ip6 + 1);
    size_t l4_len;

    fuzz_check(dp_packet_size(p) >= ETH_HEADER_LEN + IPV6_HEADER_LEN
               && ip6 == (const void *) ((const uint8_t *) dp_packet_data(p)
                                         + ETH_HEADER_LEN),
               "taken IPv6 frame too short, or l3_ofs %u", p->l3_ofs);
    fuzz_check(port == FUZZ_PORT_1
               && !memcmp(&ip6->ip6_dst, &port1_ip6, sizeof port1_ip6),
               "taken IPv6 packet to an address not the port's");
    if (class != VPORT_TUNNEL_OURS) {
        /* An outer fragment: a first one of a vport's (checked whole once
         * reassembled), a later one, or a fragment header cut short. */
        fuzz_check(class == VPORT_TUNNEL_FRAGMENT || !vport,
                   "IPv6 class %d with a vport", class);
        return;
    }
    fuzz_check(vport, "whole IPv6 packet without a vport");
    fuzz_check(vport == VPORT_VXLAN || vport == VPORT_GENEVE
               || vport == VPORT_IP6GRE || vport == VPORT_IPIP_ANY
               || vport == VPORT_IP6TNL_FIXED,
               "IPv6 taken by a type without it, or gre before ip6gre");
    if (vport_tunnel_check_outer(p, ip6)) {
        return;
    }
    l4_len = ntohs(ip6->ip6_plen);
    fuzz_check(l4_len <= (const uint8_t *) dp_packet_tail(p) - l4,
               "checked IPv6 payload beyond the packet");
    if (IS_IPIP(vport)) {
        uint8_t nxt = ip6->ip6_nxt;

        if (nxt == IPPROTO_DSTOPTS) {
            fuzz_check(l4_len >= 8 && (l4[1] + 1) * 8 <= l4_len,
                       "ipip destination options beyond the payload");
            nxt = l4[0];
        }
        fuzz_check(nxt == 4 || nxt == 41, "ipip of next header %d", nxt);
        fuzz_check(vport != VPORT_IP6TNL_FIXED
                   || !memcmp(&ip6->ip6_src, &remote1_ip6,
                              sizeof remote1_ip6), "ip6tnl endpoints");
    } else if (vport == VPORT_IP6GRE) {
        fuzz_check(ip6->ip6_nxt == IPPROTO_GRE && l4_len >= 4
                   && !(((const struct gre_base_hdr *) l4)->flags
                        & ~htons(GRE_CSUM | GRE_KEY | GRE_SEQ)),
                   "gre header over IPv6");
    } else {
        const struct udp_header *udp = (const struct udp_header *) l4;

        fuzz_check(ip6->ip6_nxt == IPPROTO_UDP && l4_len >= 8
                   && udp->udp_dst == htons(vport == VPORT_VXLAN
                                            ? 4789 : 6081),
                   "udp port over IPv6");
    }
}

/* Checks that 'p', which vport_tunnel_classify() took for output to 'port'
 * as 'class' of 'vport', is what it says. */
static void
check_taken(const struct dp_packet *p, uint32_t port,
            enum vport_tunnel_class class, const struct vport_tunnel *vport)
{
    const struct eth_header *eth = dp_packet_data(p);
    const struct ip_header *ip;
    const uint8_t *l4;
    size_t l4_len;
    bool later;

    if (dp_packet_size(p) >= ETH_HEADER_LEN
        && eth->eth_type == htons(ETH_TYPE_IPV6)) {
        fuzz_check(eth_addr_equals(eth->eth_dst, port_mac)
                   || eth_addr_is_multicast(eth->eth_dst),
                   "taken IPv6 frame to another MAC");
        check_taken6(p, port, class, vport);
        return;
    }

    fuzz_check(dp_packet_size(p) >= ETH_HEADER_LEN + IP_HEADER_LEN
               && eth->eth_type == htons(ETH_TYPE_IP),
               "taken frame is not untagged IPv4");
    fuzz_check(eth_addr_equals(eth->eth_dst, port_mac)
               || eth_addr_is_multicast(eth->eth_dst),
               "taken frame to another MAC");
    ip = dp_packet_l3(p);
    fuzz_check(ip == (const void *) (eth + 1), "l3_ofs %u", p->l3_ofs);
    fuzz_check(vport != VPORT_IP6GRE && vport != VPORT_IP6TNL_FIXED,
               "IPv4 taken by an IPv6-only vport");
    fuzz_check(port_has(port, get_16aligned_be32(&ip->ip_dst)),
               "taken packet to an address not the port's");
    later = (ip->ip_frag_off & htons(IP_FRAG_OFF_MASK)) != 0;
    if (class == VPORT_TUNNEL_OURS) {
        fuzz_check(!IP_IS_FRAGMENT(ip->ip_frag_off), "whole, a fragment");
    } else {
        fuzz_check(IP_IS_FRAGMENT(ip->ip_frag_off), "fragment, not one");
        if (class == VPORT_TUNNEL_FRAGMENT_UNKNOWN) {
            fuzz_check(later && ip->ip_proto != 4 && ip->ip_proto != 41
                       && !vport,
                       "unknown fragment");
        }
    }
    if (!vport) {
        fuzz_check(class != VPORT_TUNNEL_OURS, "whole packet without vport");
        fuzz_check(later, "first fragment without vport");
        return;
    }

    l4 = vport_tunnel_outer_l4(p, ip, &l4_len);
    if (vport == VPORT_IPIP_FIXED || vport == VPORT_IPIP_ANY) {
        fuzz_check(ip->ip_proto == 4 || ip->ip_proto == 41,
                   "ipip of protocol %d", ip->ip_proto);
        if (vport == VPORT_IPIP_FIXED) {
            fuzz_check(get_16aligned_be32(&ip->ip_src) == htonl(0xc0000201)
                       && get_16aligned_be32(&ip->ip_dst)
                          == htonl(0xc0000202), "ipip endpoints");
        }
    } else {
        fuzz_check(!later, "later fragment with its vport");
        fuzz_check(l4 && l4_len >= 4, "no L4 header");
        if (vport == VPORT_GRE) {
            fuzz_check(ip->ip_proto == IPPROTO_GRE
                       && !(((const struct gre_base_hdr *) l4)->flags
                            & ~htons(GRE_CSUM | GRE_KEY | GRE_SEQ)),
                       "gre header");
        } else {
            const struct udp_header *udp = (const struct udp_header *) l4;

            fuzz_check(ip->ip_proto == IPPROTO_UDP && l4_len >= 8
                       && udp->udp_dst == htons(vport == VPORT_VXLAN
                                                ? 4789 : 6081),
                       "udp port");
        }
    }
}

/* Decapsulates 'p', a whole tunnel packet of 'vport' whose outer header is
 * sound, if it is ipip, and checks the result; frees 'p'. */
static void
decapsulate(struct dp_packet *p, const struct vport_tunnel *vport)
{
    const struct ip_header *ip = dp_packet_l3(p);
    const struct ovs_16aligned_ip6_hdr *ip6 = dp_packet_l3(p);
    bool is_ipv6 = IP_VER(ip->ip_ihl_ver) == 6;
    uint8_t proto = is_ipv6 ? ip6->ip6_nxt : ip->ip_proto;
    struct in6_addr src6, dst6;
    ovs_be32 src = 0, dst = 0;

    if (is_ipv6 && proto == IPPROTO_DSTOPTS) {
        /* The one destination options header ipip over IPv6 may have,
         * checked whole by vport_tunnel_check_outer(). */
        proto = ((const uint8_t *) (ip6 + 1))[0];
    }
    if (is_ipv6) {
        memcpy(&src6, &ip6->ip6_src, sizeof src6);
        memcpy(&dst6, &ip6->ip6_dst, sizeof dst6);
    } else {
        src = get_16aligned_be32(&ip->ip_src);
        dst = get_16aligned_be32(&ip->ip_dst);
    }
    if (IS_IPIP(vport)
        && !vport_ipip_decapsulate(p, ip, u32_to_odp(FUZZ_VPORT),
                                   u32_to_odp(FUZZ_RX_PORT))) {
        const uint8_t *inner = dp_packet_data(p);
        size_t size = dp_packet_size(p);
        const struct flow_tnl *tnl = &p->md.tunnel;

        if (proto == 41) {
            fuzz_check(p->packet_type == htonl(PT_IPV6)
                       && size >= IPV6_HEADER_LEN && inner[0] >> 4 == 6
                       && IPV6_HEADER_LEN
                          + ntohs(((const struct ovs_16aligned_ip6_hdr *)
                                   inner)->ip6_plen) <= size,
                       "inner IPv6 packet");
        } else {
            fuzz_check(p->packet_type == htonl(PT_IPV4)
                       && size >= IP_HEADER_LEN && inner[0] >> 4 == 4
                       && ntohs(((const struct ip_header *) inner)
                                ->ip_tot_len) <= size,
                       "inner IPv4 packet");
        }
        if (is_ipv6) {
            fuzz_check(!tnl->ip_src && !tnl->ip_dst
                       && ipv6_addr_equals(&tnl->ipv6_src, &src6)
                       && ipv6_addr_equals(&tnl->ipv6_dst, &dst6),
                       "IPv6 tunnel addresses");
        } else {
            fuzz_check(tnl->ip_src == src && tnl->ip_dst == dst,
                       "tunnel addresses");
        }
    }
    dp_packet_delete(p);
}

/* Gives 'p', a sound outer fragment, to 'ipf', and goes on with the datagram
 * it completes, as terminate_one() does. */
static void
reassemble(const struct vport_tunnel_endpoints *eps, uint32_t port,
           struct vport_tunnel_thread *tt, struct ipf_cpu *ipf,
           long long int now, struct dp_packet *p)
{
    struct vport_tunnel *vport;
    enum vport_tunnel_class class;

    p = ipf_cpu_reassemble(ipf, p, now);
    if (!p) {
        return;
    }
    class = vport_tunnel_classify(eps, u32_to_odp(port), port_mac, tt, now,
                                  p, &vport);
    fuzz_check(class == VPORT_TUNNEL_OURS || class == VPORT_TUNNEL_NOT_OURS,
               "reassembled datagram classified %d", class);
    if (class == VPORT_TUNNEL_OURS) {
        check_taken(p, port, class, vport);
        if (!vport_tunnel_check_outer(p, dp_packet_l3(p))) {
            decapsulate(p, vport);
            return;
        }
    }
    dp_packet_delete(p);
}

/* One frame output to a port. */
static void
output_one(const struct vport_tunnel_endpoints *eps,
           struct vport_tunnel_thread *tt, struct ipf_cpu *ipf,
           const struct fuzz_record *r, long long int now)
{
    struct dp_packet *p = fuzz_packet(r->bytes, r->len, htonl(PT_ETH));
    uint32_t port = r->ctl & 2 ? FUZZ_PORT_2 : FUZZ_PORT_1;
    enum vport_tunnel_class class;
    struct vport_tunnel *vport;
    uint8_t *copy;
    size_t size;

    p->md.in_port.odp_port = u32_to_odp(FUZZ_RX_PORT);
    if (r->ctl & 1) {
        fuzz_fix_outer_ipv4_csum(p);
    }
    size = dp_packet_size(p);
    copy = xmemdup(dp_packet_data(p), size);

    class = vport_tunnel_classify(eps, u32_to_odp(port), port_mac, tt, now,
                                  p, &vport);
    if (class == VPORT_TUNNEL_NOT_OURS
        || class == VPORT_TUNNEL_FRAGMENT_UNKNOWN) {
        fuzz_check(dp_packet_size(p) == size
                   && !memcmp(dp_packet_data(p), copy, size),
                   "a packet delivered was changed");
        fuzz_check(!vport, "a packet delivered has a vport");
    }
    free(copy);
    if (class != VPORT_TUNNEL_NOT_OURS) {
        check_taken(p, port, class, vport);
    }

    if (class == VPORT_TUNNEL_NOT_OURS
        || vport_tunnel_check_outer(p, dp_packet_l3(p))) {
        dp_packet_delete(p);
    } else if (class == VPORT_TUNNEL_OURS) {
        decapsulate(p, vport);
    } else if (class == VPORT_TUNNEL_FRAGMENT) {
        reassemble(eps, port, tt, ipf, now, p);
    } else {
        reassemble(eps, port, tt, ipf, now, dp_packet_clone(p));
        dp_packet_delete(p);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = { .data = data, .size = size };
    struct vport_tunnel_endpoints *eps;
    struct vport_tunnel_thread *tt;
    struct ipf_cpu_config cfg;
    struct fuzz_record r;
    struct ipf_cpu *ipf;
    long long int now = 1;

    fuzz_init();
    eps = make_table();
    tt = vport_tunnel_thread_create();
    ipf_cpu_config_default(&cfg);
    ipf = ipf_cpu_create(&cfg);
    while (fuzz_take_record(&in, &r)) {
        now += (r.ctl >> 4) * 100;
        output_one(eps, tt, ipf, &r, now);
    }
    ipf_cpu_destroy(ipf);
    vport_tunnel_thread_destroy(tt);
    vport_tunnel_endpoints_destroy(eps);
    return 0;
}

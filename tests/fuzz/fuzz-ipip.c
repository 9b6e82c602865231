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

/* Fuzz target: the receive path of an ipip port, from the outer Ethernet
 * frame to the inner IPv4 packet, through the functions the datapath runs,
 * in the order and with the checks of vport_tunnel_terminate():
 * vport_tunnel_classify() against a table with one ipip vport,
 * vport_tunnel_check_outer(), reassembly of outer fragments in a per-thread
 * table (ipf_cpu_reassemble()) and the ipip type's 'decapsulate' op.
 * (fuzz-tunnel-rx.c fuzzes the decision against every type.)
 *
 * Input: records (fuzz-common.h), each an Ethernet frame output in turn by
 * one thread to the port that holds the tunnel's address, 192.0.2.2, MAC
 * 02:00:00:00:00:02.  Control byte:
 *   bit 0    fix the outer IPv4 header checksum first (a fuzzer cannot
 *            guess it);
 *   bit 1    mark the frame's IPv4 checksum as verified by the NIC
 *            (DP_PACKET_OL_RX_IP_CKSUM_GOOD), as a netdev may;
 *   bits 4-7 milliseconds the clock advances before the frame.
 *
 * Checks, on every packet decapsulated: an IPv4 packet (PT_IPV4, data and
 * l3_ofs at an IPv4 header, at least IP_HEADER_LEN bytes) with the tunnel
 * metadata of its outer header; a drop always names its counter. */

#include <config.h>
#include "fuzz-common.h"

#include "dp-packet.h"
#include "ipf-cpu.h"
#include "packets.h"
#include "pmd.h"
#include "vport-ipip.h"
#include "vport-tunnel.h"

/* Port numbers the packets come in on, are output to (the port that holds
 * the tunnel's address) and are received as (the ipip vport). */
#define FUZZ_IPIP_RX_PORT 1
#define FUZZ_IPIP_LOCAL_PORT 2
#define FUZZ_IPIP_VPORT 7

/* The address of the local port that terminates the tunnel. */
#define FUZZ_IPIP_LOCAL_IP 0xc0000202   /* 192.0.2.2 */

/* Stand-in for the vport: vport_tunnel_classify() only returns it. */
static char vport_tag;
#define VPORT_IPIP ((struct vport_tunnel *) &vport_tag)

/* The MAC of the local port. */
static const struct eth_addr port_mac = ETH_ADDR_C(02, 00, 00, 00, 00, 02);

/* Returns the table every input runs against: one ipip vport with any
 * endpoints, the tunnel's address on the local port. */
static struct vport_tunnel_endpoints *
make_table(void)
{
    struct vport_tunnel_endpoints *eps = vport_tunnel_endpoints_create();

    vport_tunnel_endpoints_add(eps, &vport_ipip_ops, 0, 0, 0, VPORT_IPIP);
    vport_tunnel_endpoints_add_local(eps, u32_to_odp(FUZZ_IPIP_LOCAL_PORT),
                                     htonl(FUZZ_IPIP_LOCAL_IP));
    return eps;
}

/* Checks that 'p', just decapsulated from outer header source 'src' and
 * destination 'dst', is what the ipip type's 'decapsulate' promises. */
static void
check_decapsulated(const struct dp_packet *p, ovs_be32 src, ovs_be32 dst)
{
    const struct ip_header *ip = dp_packet_data(p);

    fuzz_check(p->packet_type == htonl(PT_IPV4), "packet_type %#x",
               ntohl(p->packet_type));
    fuzz_check(dp_packet_size(p) >= IP_HEADER_LEN, "inner size %"PRIu32,
               dp_packet_size(p));
    fuzz_check(dp_packet_l3(p) == ip, "l3_ofs %u", p->l3_ofs);
    fuzz_check(IP_VER(ip->ip_ihl_ver) == 4, "inner version %d",
               IP_VER(ip->ip_ihl_ver));
    fuzz_check(p->md.tunnel.ip_src == src && p->md.tunnel.ip_dst == dst,
               "tunnel addresses");
    fuzz_check(odp_to_u32(p->md.in_port.odp_port) == FUZZ_IPIP_VPORT,
               "in_port");
}

/* Decapsulates 'p', a whole ipip datagram, as rx_decapsulate() does: the
 * outer header's check, then the type's 'decapsulate'.  Frees 'p'. */
static void
decapsulate(struct dp_packet *p)
{
    const struct ip_header *ip = dp_packet_l3(p);
    enum vport_tunnel_counter drop;
    ovs_be32 src, dst;

    if (vport_tunnel_check_outer(p, ip)) {
        dp_packet_delete(p);
        return;
    }
    src = get_16aligned_be32(&ip->ip_src);
    dst = get_16aligned_be32(&ip->ip_dst);
    drop = 0;
    p = vport_ipip_ops.decapsulate(NULL, p, ip, u32_to_odp(FUZZ_IPIP_VPORT),
                                   u32_to_odp(FUZZ_IPIP_RX_PORT), &drop);
    if (p) {
        check_decapsulated(p, src, dst);
        dp_packet_delete(p);
    } else {
        fuzz_check(drop != 0, "dropped without a counter");
    }
}

/* One frame output to the local port, as terminate_one() takes it. */
static void
receive_one(const struct vport_tunnel_endpoints *eps,
            struct vport_tunnel_thread *tt, struct ipf_cpu *ipf,
            const struct fuzz_record *r, long long int now)
{
    struct dp_packet *p = fuzz_packet(r->bytes, r->len, htonl(PT_ETH));
    struct vport_tunnel *vport;

    p->md.in_port.odp_port = u32_to_odp(FUZZ_IPIP_RX_PORT);
    if (r->ctl & 1) {
        fuzz_fix_outer_ipv4_csum(p);
    }
    if (r->ctl & 2) {
        *dp_packet_ol_flags_ptr(p) |= DP_PACKET_OL_RX_IP_CKSUM_GOOD;
    }

    switch (vport_tunnel_classify(eps, u32_to_odp(FUZZ_IPIP_LOCAL_PORT),
                                  port_mac, tt, now, p, &vport)) {
    case VPORT_TUNNEL_OURS:
        fuzz_check(vport == VPORT_IPIP, "ipip packet without its vport");
        decapsulate(p);
        break;

    case VPORT_TUNNEL_FRAGMENT:
        fuzz_check(vport == VPORT_IPIP, "ipip fragment without its vport");
        if (vport_tunnel_check_outer(p, dp_packet_l3(p))) {
            dp_packet_delete(p);
            break;
        }
        p = ipf_cpu_reassemble(ipf, p, now);
        if (p) {
            decapsulate(p);
        }
        break;

    case VPORT_TUNNEL_FRAGMENT_UNKNOWN:
        /* Only a type that looks past the IP header leaves a later
         * fragment unknown. */
        fuzz_check(false, "ipip fragment of unknown datagram");
        dp_packet_delete(p);
        break;

    case VPORT_TUNNEL_NOT_OURS:
    default:
        fuzz_check(!vport, "a packet delivered has a vport");
        dp_packet_delete(p);
        break;
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
        now += r.ctl >> 4;
        receive_one(eps, tt, ipf, &r, now);
    }
    ipf_cpu_destroy(ipf);
    vport_tunnel_thread_destroy(tt);
    vport_tunnel_endpoints_destroy(eps);
    return 0;
}

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
 * frame to the inner IPv4 packet: vport_ipip_outer_header(),
 * vport_ipip_check_outer(), reassembly of outer fragments in a per-thread
 * table (ipf_cpu_reassemble()) and vport_ipip_decapsulate(), in the order
 * and with the checks of vport_tunnel_terminate() (fuzz-tunnel-rx.c covers
 * its decision).
 *
 * Input: records (fuzz-common.h), each an Ethernet frame received in turn
 * by one thread.  Control byte:
 *   bit 0    fix the outer IPv4 header checksum first (a fuzzer cannot
 *            guess it);
 *   bit 1    mark the frame's IPv4 checksum as verified by the NIC
 *            (DP_PACKET_OL_RX_IP_CKSUM_GOOD), as a netdev may;
 *   bits 4-7 milliseconds the clock advances before the frame.
 *
 * Checks, on every packet decapsulated: an IPv4 packet (PT_IPV4, data and
 * l3_ofs at an IPv4 header, at least IP_HEADER_LEN bytes) with the tunnel
 * metadata of its outer header. */

#include <config.h>
#include "fuzz-common.h"

#include "csum.h"
#include "dp-packet.h"
#include "ipf-cpu.h"
#include "packets.h"
#include "pmd.h"
#include "vport-ipip.h"

/* Port numbers the packets come in on and are received as. */
#define FUZZ_IPIP_RX_PORT 1
#define FUZZ_IPIP_VPORT 7

/* Checks that 'p', just decapsulated from outer header source 'src' and
 * destination 'dst', is what vport_ipip_decapsulate() promises. */
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

/* One frame through the receive path, as vport_tunnel_terminate() takes it
 * once it found the frame's endpoint. */
static void
receive_one(struct ipf_cpu *ipf, const struct fuzz_record *r,
            long long int now)
{
    struct dp_packet *p = fuzz_packet(r->bytes, r->len, htonl(PT_ETH));
    struct ip_header *ip = vport_ipip_outer_header(p);
    ovs_be32 src, dst;

    if (!ip) {
        dp_packet_delete(p);
        return;
    }
    if (r->ctl & 1) {
        size_t ihl = IP_IHL(ip->ip_ihl_ver) * 4;

        if (ihl >= IP_HEADER_LEN && ihl <= dp_packet_l3_size(p)) {
            ip->ip_csum = 0;
            ip->ip_csum = csum(ip, ihl);
        }
    }
    if (r->ctl & 2) {
        *dp_packet_ol_flags_ptr(p) |= DP_PACKET_OL_RX_IP_CKSUM_GOOD;
    }

    if (vport_ipip_check_outer(p, ip)) {
        dp_packet_delete(p);
        return;
    }
    if (IP_IS_FRAGMENT(ip->ip_frag_off)) {
        p = ipf_cpu_reassemble(ipf, p, now);
        if (!p) {
            return;
        }
        ip = dp_packet_l3(p);
    }
    src = get_16aligned_be32(&ip->ip_src);
    dst = get_16aligned_be32(&ip->ip_dst);
    if (!vport_ipip_decapsulate(p, ip, u32_to_odp(FUZZ_IPIP_VPORT),
                                u32_to_odp(FUZZ_IPIP_RX_PORT))) {
        check_decapsulated(p, src, dst);
    }
    dp_packet_delete(p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = { .data = data, .size = size };
    struct ipf_cpu_config cfg;
    struct fuzz_record r;
    struct ipf_cpu *ipf;
    long long int now = 0;

    fuzz_init();
    ipf_cpu_config_default(&cfg);
    ipf = ipf_cpu_create(&cfg);
    while (fuzz_take_record(&in, &r)) {
        now += r.ctl >> 4;
        receive_one(ipf, &r, now);
    }
    ipf_cpu_destroy(ipf);
    return 0;
}

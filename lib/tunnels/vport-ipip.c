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

/* The ipip case of the tunnel vports: IPv4 or IPv6 inside IPv4 or IPv6. */

#include <config.h>
#include "vport-ipip.h"

#include <netinet/in.h>
#include <netinet/ip6.h>
#include <string.h>

#include "dp-packet.h"
#include "netdev-ipip.h"
#include "packets.h"
#include "vport-tunnel.h"

/* IP protocol numbers of IPv4 inside IP (RFC 2003) and of IPv6 inside IP
 * (RFC 4213, Linux's sit; RFC 2473, Linux's ip6tnl). */
#define IPPROTO_IPIP_ 4
#define IPPROTO_IPV6_ 41

/* Applies RFC 6040 decapsulation to 'ip6', an inner IPv6 header whose outer
 * header had traffic class (or TOS) 'outer_tos', as
 * vport_tunnel_ecn_decapsulate() does for IPv4.  Returns false if the packet
 * must be dropped (CE outside, not ECN-capable inside). */
static bool
ipip_ecn_decapsulate6(struct ovs_16aligned_ip6_hdr *ip6, uint8_t outer_tos)
{
    uint32_t flow = ntohl(get_16aligned_be32(&ip6->ip6_flow));
    uint8_t ecn = (flow >> 20) & IP_ECN_MASK;

    if ((outer_tos & IP_ECN_MASK) != IP_ECN_CE || ecn == IP_ECN_CE) {
        return true;
    }
    if (!ecn) {
        return false;
    }
    put_16aligned_be32(&ip6->ip6_flow, htonl(flow | (IP_ECN_CE << 20)));
    return true;
}

/* Checks the inner packet of 'len' bytes at 'inner', carried with outer
 * protocol (next header) 'proto' and outer TOS (traffic class)
 * 'outer_tos', and applies ECN decapsulation to it.  Returns 0 and stores
 * in '*type' its packet type, or the counter to drop it with: the inner
 * version must be the one 'proto' says, its header whole and its own length
 * within the outer payload. */
static enum vport_tunnel_counter
ipip_check_inner(uint8_t proto, void *inner, size_t len, uint8_t outer_tos,
                 ovs_be32 *type)
{
    if (proto == IPPROTO_IPV6_) {
        struct ovs_16aligned_ip6_hdr *ip6 = inner;

        if (len < IPV6_HEADER_LEN) {
            return len ? VPORT_TNL_DROP_TRUNCATED : VPORT_TNL_DROP_NOT_IPV6;
        }
        if ((*(const uint8_t *) inner >> 4) != 6) {
            return VPORT_TNL_DROP_NOT_IPV6;
        }
        if (IPV6_HEADER_LEN + ntohs(ip6->ip6_plen) > len) {
            /* Also a jumbogram's 0, whose hop-by-hop option would need a
             * payload of more than 65535 bytes. */
            return VPORT_TNL_DROP_INNER_TOO_LONG;
        }
        if (!ipip_ecn_decapsulate6(ip6, outer_tos)) {
            return VPORT_TNL_DROP_ECN;
        }
        *type = htonl(PT_IPV6);
    } else {
        struct ip_header *ip = inner;

        if (len < IP_HEADER_LEN) {
            return len ? VPORT_TNL_DROP_TRUNCATED : VPORT_TNL_DROP_NOT_IPV4;
        }
        if (IP_VER(ip->ip_ihl_ver) != 4) {
            return VPORT_TNL_DROP_NOT_IPV4;
        }
        if (ntohs(ip->ip_tot_len) > len) {
            return VPORT_TNL_DROP_INNER_TOO_LONG;
        }
        if (!vport_tunnel_ecn_decapsulate(ip, outer_tos)) {
            return VPORT_TNL_DROP_ECN;
        }
        *type = htonl(PT_IPV4);
    }
    return 0;
}

/* Fills in the tunnel metadata of 'packet' from 'ip6', its outer IPv6
 * header, as OVS's netdev-native-tnl does for its IPv6 tunnels (traffic
 * class in ip_tos, hop limit in ip_ttl; OVS 3.1's flow_tnl has no flow
 * label). */
static void
ipip_metadata6(struct flow_tnl *tnl, const struct ovs_16aligned_ip6_hdr *ip6)
{
    memcpy(&tnl->ipv6_src, &ip6->ip6_src, sizeof tnl->ipv6_src);
    memcpy(&tnl->ipv6_dst, &ip6->ip6_dst, sizeof tnl->ipv6_dst);
    tnl->ip_tos = ntohl(get_16aligned_be32(&ip6->ip6_flow)) >> 20;
    tnl->ip_ttl = ip6->ip6_hlim;
}

/* Strips the outer header of 'packet', whose outer IPv4 header 'outer'
 * passed vport_tunnel_check_outer() and is not a fragment (or whose outer
 * IPv6 header did, with no extension header or the one destination
 * options header Linux's ip6tnl sends, stripped with it), and fills in its
 * tunnel
 * metadata as received on vport 'port_no' (having come in on port
 * 'rx_port').  The outer protocol (next header) says the inner family: 4
 * IPv4, 41 IPv6.  Returns 0, or the counter to drop it with; the packet may
 * then have been modified (its inner ECN field) but is still the caller's
 * to free. */
enum vport_tunnel_counter
vport_ipip_decapsulate(struct dp_packet *packet, const struct ip_header *outer,
                       odp_port_t port_no, odp_port_t rx_port)
{
    bool is_ipv6 = IP_VER(outer->ip_ihl_ver) == 6;
    const struct ovs_16aligned_ip6_hdr *ip6 = (const void *) outer;
    size_t ihl = is_ipv6 ? IPV6_HEADER_LEN : IP_IHL(outer->ip_ihl_ver) * 4;
    size_t inner_len = (is_ipv6 ? ntohs(ip6->ip6_plen)
                        : ntohs(outer->ip_tot_len) - ihl);
    uint8_t proto = is_ipv6 ? ip6->ip6_nxt : outer->ip_proto;
    uint8_t outer_tos = (is_ipv6
                         ? ntohl(get_16aligned_be32(&ip6->ip6_flow)) >> 20
                         : outer->ip_tos);
    enum vport_tunnel_counter drop;
    struct flow_tnl *tnl;
    ovs_be32 type;
    void *inner;

    if (is_ipv6 && proto == IPPROTO_DSTOPTS) {
        /* Linux's ip6tnl's encapsulation limit, which
         * vport_tunnel_check_outer() found whole within the payload and
         * followed by 4 or 41. */
        const uint8_t *opts = (const uint8_t *) ip6 + IPV6_HEADER_LEN;
        size_t opts_len = (opts[1] + 1) * 8;

        ihl += opts_len;
        inner_len -= opts_len;
        proto = opts[0];
    }
    inner = (char *) outer + ihl;

    drop = ipip_check_inner(proto, inner, inner_len, outer_tos, &type);
    if (drop) {
        return drop;
    }

    vport_tunnel_init_metadata(packet, port_no, rx_port);
    tnl = &packet->md.tunnel;
    if (is_ipv6) {
        ipip_metadata6(tnl, ip6);
    } else {
        tnl->ip_src = get_16aligned_be32(&outer->ip_src);
        tnl->ip_dst = get_16aligned_be32(&outer->ip_dst);
        tnl->ip_tos = outer->ip_tos;
        tnl->ip_ttl = outer->ip_ttl;
        if (outer->ip_frag_off & htons(IP_DONT_FRAGMENT)) {
            tnl->flags |= FLOW_TNL_F_DONT_FRAGMENT;
        }
    }

    /* The outer header's offload results (RSS hash, checksum status) do not
     * describe the inner packet. */
    dp_packet_reset_offload(packet);
    dp_packet_set_size(packet,
                       ((char *) inner - (char *) dp_packet_data(packet))
                       + inner_len);
    dp_packet_pull(packet, (char *) inner - (char *) dp_packet_data(packet));
    packet->packet_type = type;
    dp_packet_reset_offsets(packet);
    dp_packet_set_l3(packet, dp_packet_data(packet));
    return 0;
}

/* vport_tunnel_ops 'decapsulate' for ipip. */
static struct dp_packet *
ipip_decapsulate(struct netdev *netdev OVS_UNUSED, struct dp_packet *packet,
                 const void *outer, odp_port_t port_no,
                 odp_port_t rx_port, enum vport_tunnel_counter *drop)
{
    *drop = vport_ipip_decapsulate(packet, outer, port_no, rx_port);
    if (*drop) {
        dp_packet_delete(packet);
        return NULL;
    }
    return packet;
}

/* vport_tunnel_ops 'endpoint' for ipip: the port's IPv4 local_ip and
 * remote_ip (0 for "flow" or IPv6: ipip_add_endpoints() adds the ways in). */
static const void *
ipip_endpoint(const struct netdev *netdev, ovs_be32 *local, ovs_be32 *remote,
              ovs_be16 *udp_port)
{
    const struct netdev_ipip_config *cfg = netdev_ipip_get_config(netdev);

    *local = cfg && !cfg->local_ip_flow ? cfg->local_ip : 0;
    *remote = cfg && !cfg->remote_ip_flow ? cfg->remote_ip : 0;
    *udp_port = 0;
    return cfg;
}

/* vport_tunnel_ops 'add_endpoints' for ipip: both inner families (4 and
 * 41), over the family of the port's addresses, or over both if neither
 * address says (remote_ip=flow with no local_ip, or local_ip=flow), as a
 * flow may then send either. */
static void
ipip_add_endpoints(const struct netdev *netdev,
                   struct vport_tunnel_endpoints *eps,
                   struct vport_tunnel *vport)
{
    static const uint8_t protos[] = { IPPROTO_IPIP_, IPPROTO_IPV6_ };
    const struct netdev_ipip_config *cfg = netdev_ipip_get_config(netdev);
    bool fixed_local = !cfg->local_ip_flow
                       && (cfg->local_ip
                           || ipv6_addr_is_set(&cfg->local_ip6));
    bool any_family = cfg->remote_ip_flow && !fixed_local;
    struct in6_addr local = in6addr_any, remote = in6addr_any;

    if (cfg->ipv6) {
        if (!cfg->local_ip_flow) {
            local = cfg->local_ip6;
        }
        if (!cfg->remote_ip_flow) {
            remote = cfg->remote_ip6;
        }
    } else {
        if (!cfg->local_ip_flow && cfg->local_ip) {
            in6_addr_set_mapped_ipv4(&local, cfg->local_ip);
        }
        if (!cfg->remote_ip_flow && cfg->remote_ip) {
            in6_addr_set_mapped_ipv4(&remote, cfg->remote_ip);
        }
    }
    for (size_t i = 0; i < ARRAY_SIZE(protos); i++) {
        vport_tunnel_endpoints_add_ip(eps, protos[i],
                                      any_family || !cfg->ipv6,
                                      any_family || cfg->ipv6,
                                      &local, &remote, vport);
    }
}

/* vport_tunnel_ops 'gro_enabled' for ipip: options:gro. */
static bool
ipip_gro_enabled(const struct netdev *netdev)
{
    const struct netdev_ipip_config *cfg = netdev_ipip_get_config(netdev);

    return cfg && cfg->gro;
}

/* vport_tunnel_ops 'prepare' for ipip: the tunnel carries a bare IPv4 or
 * IPv6 packet; of an Ethernet frame a flow outputs, its IP packet, as
 * Linux's ipip, sit and ip6tnl devices would. */
static bool
ipip_prepare(struct dp_packet *packet, size_t *hlen,
             uint32_t exts OVS_UNUSED)
{
    size_t size;
    uint8_t ver;

    if (packet->packet_type == htonl(PT_ETH)
        && dp_packet_size(packet) >= ETH_HEADER_LEN) {
        ovs_be16 eth_type = ((struct eth_header *) dp_packet_data(packet))
                            ->eth_type;

        if (eth_type == htons(ETH_TYPE_IP)
            || eth_type == htons(ETH_TYPE_IPV6)) {
            dp_packet_pull(packet, ETH_HEADER_LEN);
            packet->packet_type = htonl(eth_type == htons(ETH_TYPE_IP)
                                        ? PT_IPV4 : PT_IPV6);
        }
    }
    *hlen = 0;
    size = dp_packet_size(packet);
    ver = size ? *(const uint8_t *) dp_packet_data(packet) >> 4 : 0;
    if (packet->packet_type == htonl(PT_IPV4)) {
        return size >= IP_HEADER_LEN && ver == 4;
    }
    return (packet->packet_type == htonl(PT_IPV6)
            && size >= IPV6_HEADER_LEN && ver == 6);
}

/* vport_tunnel_ops 'outer_proto' for ipip: 41 for an IPv6 packet (as sit
 * and ip6tnl send it), 4 for IPv4. */
static uint8_t
ipip_outer_proto(const struct dp_packet *packet)
{
    return (packet->packet_type == htonl(PT_IPV6)
            ? IPPROTO_IPV6_ : IPPROTO_IPIP_);
}

/* vport_tunnel_ops 'push' for ipip: nothing between the headers. */
static void
ipip_push(struct dp_packet *packet OVS_UNUSED,
          const struct flow_tnl *tnl OVS_UNUSED, ovs_be16 udp_port OVS_UNUSED,
          uint32_t exts OVS_UNUSED)
{
}

/* vport_tunnel_ops 'count' for ipip: the netdev's own per-thread slots. */
static void
ipip_count(struct netdev *netdev, unsigned int thread, int counter,
           uint64_t n)
{
    netdev_ipip_count(netdev, thread, counter, n);
}

/* The ipip type (vport-ipip.h). */
const struct vport_tunnel_ops vport_ipip_ops = {
    .type = "ipip",
    .ip_proto = IPPROTO_IPIP_,
    .by_udp_port = false,
    .inner_ipv4_only = true,
    .ipv6_underlay = true,
    .ipv6_only = false,
    .endpoint = ipip_endpoint,
    .add_endpoints = ipip_add_endpoints,
    .outer_proto = ipip_outer_proto,
    .claims = NULL,
    .gro_enabled = ipip_gro_enabled,
    .decapsulate = ipip_decapsulate,
    .prepare = ipip_prepare,
    .push = ipip_push,
    .count = ipip_count,
};

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

#include <config.h>
#include "vport-ipip.h"

#include <netinet/in.h>

#include "dp-packet.h"
#include "netdev-ipip.h"
#include "packets.h"
#include "vport-tunnel.h"

/* IP protocol number of IPv4-in-IPv4 (RFC 2003). */
#define IPPROTO_IPIP_ 4

/* Strips the outer header of 'packet', whose outer IPv4 header 'outer'
 * passed vport_tunnel_check_outer() and is not a fragment, and fills in its
 * tunnel metadata as received on vport 'port_no' (having come in on port
 * 'rx_port').  Returns 0, or the counter to drop it with; the packet may
 * then have been modified (its inner ECN field) but is still the caller's
 * to free. */
enum vport_tunnel_counter
vport_ipip_decapsulate(struct dp_packet *packet, const struct ip_header *outer,
                       odp_port_t port_no, odp_port_t rx_port)
{
    size_t ihl = IP_IHL(outer->ip_ihl_ver) * 4;
    size_t inner_len = ntohs(outer->ip_tot_len) - ihl;
    struct ip_header *inner = (struct ip_header *) ((char *) outer + ihl);
    struct flow_tnl *tnl;

    if (inner_len < IP_HEADER_LEN) {
        return inner_len ? VPORT_TNL_DROP_TRUNCATED : VPORT_TNL_DROP_NOT_IPV4;
    }
    if (IP_VER(inner->ip_ihl_ver) != 4) {
        return VPORT_TNL_DROP_NOT_IPV4;
    }
    if (!vport_tunnel_ecn_decapsulate(inner, outer->ip_tos)) {
        return VPORT_TNL_DROP_ECN;
    }

    vport_tunnel_init_metadata(packet, port_no, rx_port);
    tnl = &packet->md.tunnel;
    tnl->ip_src = get_16aligned_be32(&outer->ip_src);
    tnl->ip_dst = get_16aligned_be32(&outer->ip_dst);
    tnl->ip_tos = outer->ip_tos;
    tnl->ip_ttl = outer->ip_ttl;
    if (outer->ip_frag_off & htons(IP_DONT_FRAGMENT)) {
        tnl->flags |= FLOW_TNL_F_DONT_FRAGMENT;
    }

    /* The outer header's offload results (RSS hash, checksum status) do not
     * describe the inner packet. */
    dp_packet_reset_offload(packet);
    dp_packet_set_size(packet, ((char *) inner - (char *) dp_packet_data(packet))
                               + inner_len);
    dp_packet_pull(packet, (char *) inner - (char *) dp_packet_data(packet));
    packet->packet_type = htonl(PT_IPV4);
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

/* vport_tunnel_ops 'endpoint' for ipip: the port's local_ip and remote_ip
 * (0 for "flow"). */
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

/* vport_tunnel_ops 'gro_enabled' for ipip: options:gro. */
static bool
ipip_gro_enabled(const struct netdev *netdev)
{
    const struct netdev_ipip_config *cfg = netdev_ipip_get_config(netdev);

    return cfg && cfg->gro;
}

/* vport_tunnel_ops 'prepare' for ipip: the tunnel carries only an IPv4
 * packet; of an Ethernet frame a flow outputs, its IPv4 packet, as Linux's
 * ipip device would. */
static bool
ipip_prepare(struct dp_packet *packet, size_t *hlen,
             uint32_t exts OVS_UNUSED)
{
    if (packet->packet_type == htonl(PT_ETH)
        && dp_packet_size(packet) >= ETH_HEADER_LEN
        && ((struct eth_header *) dp_packet_data(packet))->eth_type
           == htons(ETH_TYPE_IP)) {
        dp_packet_pull(packet, ETH_HEADER_LEN);
        packet->packet_type = htonl(PT_IPV4);
    }
    *hlen = 0;
    return (packet->packet_type == htonl(PT_IPV4)
            && dp_packet_size(packet) >= IP_HEADER_LEN
            && IP_VER(((struct ip_header *) dp_packet_data(packet))
                      ->ip_ihl_ver) == 4);
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
    .ipv6_underlay = false,
    .ipv6_only = false,
    .endpoint = ipip_endpoint,
    .claims = NULL,
    .gro_enabled = ipip_gro_enabled,
    .decapsulate = ipip_decapsulate,
    .prepare = ipip_prepare,
    .push = ipip_push,
    .count = ipip_count,
};

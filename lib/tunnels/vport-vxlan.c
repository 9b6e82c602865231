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

/* The vxlan case of the tunnel vports (RFC 7348). */

#include <config.h>
#include "vport-vxlan.h"

#include <netinet/in.h>

#include "dp-packet.h"
#include "netdev.h"
#include "packets.h"
#include "vport-tunnel.h"

/* Bytes vxlan puts between the outer IPv4 header and the inner frame. */
#define VXLAN_TNL_HLEN (sizeof(struct udp_header) + sizeof(struct vxlanhdr))

/* vport_tunnel_ops 'endpoint' for vxlan: any remote, any local address,
 * the port's UDP destination port.  ofproto matches the packet's tunnel
 * metadata against each vxlan port's remote_ip, local_ip and key. */
static const void *
vxlan_endpoint(const struct netdev *netdev, ovs_be32 *local,
               ovs_be32 *remote, ovs_be16 *udp_port)
{
    const struct netdev_tunnel_config *cfg = netdev_get_tunnel_config(netdev);

    *local = 0;
    *remote = 0;
    *udp_port = cfg ? cfg->dst_port : 0;
    return cfg;
}

/* Returns the VXLAN-GPE next protocol for 'packet', or 0 if GPE cannot
 * carry it: as OVS's netdev_vxlan_build_header(), an Ethernet frame, or an
 * IPv4, IPv6, NSH or Ethernet packet of a legacy_l3 or packet-type-aware
 * flow. */
static uint8_t
vxlan_gpe_next_protocol(const struct dp_packet *packet)
{
    if (packet->packet_type == htonl(PT_ETH)) {
        return VXLAN_GPE_NP_ETHERNET;
    }
    if (pt_ns(packet->packet_type) != OFPHTN_ETHERTYPE) {
        return 0;
    }
    switch (pt_ns_type(packet->packet_type)) {
    case ETH_TYPE_IP:
        return VXLAN_GPE_NP_IPV4;
    case ETH_TYPE_IPV6:
        return VXLAN_GPE_NP_IPV6;
    case ETH_TYPE_NSH:
        return VXLAN_GPE_NP_NSH;
    case ETH_TYPE_TEB:
        return VXLAN_GPE_NP_ETHERNET;
    default:
        return 0;
    }
}

/* vport_tunnel_ops 'prepare' for vxlan: carries Ethernet frames, and with
 * the GPE extension (options:exts=gpe) also L3 packets
 * (vxlan_gpe_next_protocol()). */
static bool
vxlan_prepare(struct dp_packet *packet, size_t *hlen, uint32_t exts)
{
    *hlen = VXLAN_TNL_HLEN;
    if (exts & (1 << OVS_VXLAN_EXT_GPE)) {
        return vxlan_gpe_next_protocol(packet) != 0;
    }
    return packet->packet_type == htonl(PT_ETH);
}

/* vport_tunnel_ops 'push' for vxlan: the UDP header, its source port from
 * the inner flow's hash, and the VXLAN header with the VNI; with the GPE
 * extension, its flags and next protocol, as OVS's
 * netdev_vxlan_build_header() writes them.  vxlan_prepare() checked that
 * the packet has a next protocol. */
static void
vxlan_push(struct dp_packet *packet, const struct flow_tnl *tnl,
           ovs_be16 udp_port, uint32_t exts)
{
    uint8_t next_protocol = vxlan_gpe_next_protocol(packet);
    ovs_be16 src_port = vport_tunnel_udp_src_port(packet);
    struct udp_header *udp = dp_packet_push_uninit(packet, VXLAN_TNL_HLEN);
    struct vxlanhdr *vxh = (struct vxlanhdr *) (udp + 1);

    udp->udp_src = src_port;
    udp->udp_dst = udp_port;
    udp->udp_len = 0;
    udp->udp_csum = 0;
    if (exts & (1 << OVS_VXLAN_EXT_GPE)) {
        put_16aligned_be32(&vxh->vx_flags,
                           htonl(VXLAN_FLAGS | VXLAN_HF_GPE));
        vxh->vx_gpe.next_protocol = next_protocol;
    } else {
        put_16aligned_be32(&vxh->vx_flags, htonl(VXLAN_FLAGS));
    }
    put_16aligned_be32(&vxh->vx_vni, htonl(ntohll(tnl->tun_id) << 8));
}

/* The vxlan type (vport-vxlan.h). */
const struct vport_tunnel_ops vport_vxlan_ops = {
    .type = "vxlan",
    .ip_proto = IPPROTO_UDP,
    .by_udp_port = true,
    .inner_ipv4_only = false,
    .ipv6_underlay = true,
    .ipv6_only = false,
    .endpoint = vxlan_endpoint,
    .claims = NULL,
    .gro_enabled = NULL,
    .decapsulate = vport_tunnel_pop_netdev,
    .prepare = vxlan_prepare,
    .push = vxlan_push,
    .count = NULL,
};

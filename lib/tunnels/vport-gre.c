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

/* The gre case of the tunnel vports (RFC 2784/2890). */

#include <config.h>
#include "vport-gre.h"

#include <netinet/in.h>

#include "csum.h"
#include "dp-packet.h"
#include "netdev.h"
#include "packets.h"
#include "vport-tunnel.h"

/* Bytes of a GRE option word (checksum, key). */
#define GRE_OPT_LEN 4

/* vport_tunnel_ops 'endpoint' for gre: any remote, any local address.
 * ofproto matches the packet's tunnel metadata against each gre port's
 * remote_ip, local_ip and key. */
static const void *
gre_endpoint(const struct netdev *netdev, ovs_be32 *local, ovs_be32 *remote,
             ovs_be16 *udp_port)
{
    *local = 0;
    *remote = 0;
    *udp_port = 0;
    return netdev_get_tunnel_config(netdev);
}

/* vport_tunnel_ops 'claims' for gre: the GRE packets that OVS's
 * parse_gre_header() takes, version 0 with no flags but checksum, key and
 * sequence number, and a protocol that is an Ethertype, except ERSPAN's,
 * which OVS carries in ports of their own type.  Anything else to a local
 * address (PPTP's enhanced GRE, version 1; ERSPAN) reaches the local port
 * intact, as Linux's gre_demux hands each GRE version to its own
 * handler. */
static bool
gre_claims(const void *l4, size_t len)
{
    const struct gre_base_hdr *greh = l4;
    uint16_t protocol;

    if (len < sizeof *greh
        || greh->flags & ~htons(GRE_CSUM | GRE_KEY | GRE_SEQ)) {
        return false;
    }
    protocol = ntohs(greh->protocol);
    return (protocol >= ETH_TYPE_MIN
            && protocol != ETH_TYPE_ERSPAN1
            && protocol != ETH_TYPE_ERSPAN2);
}

/* vport_tunnel_ops 'prepare' for gre: an Ethernet frame, or an L3 packet
 * whose packet type is an Ethertype (legacy_l3); the header carries a
 * checksum and a key if the tunnel metadata asks for them. */
static bool
gre_prepare(struct dp_packet *packet, size_t *hlen, uint32_t exts OVS_UNUSED)
{
    const struct flow_tnl *tnl = &packet->md.tunnel;

    *hlen = sizeof(struct gre_base_hdr)
            + (tnl->flags & FLOW_TNL_F_CSUM ? GRE_OPT_LEN : 0)
            + (tnl->flags & FLOW_TNL_F_KEY ? GRE_OPT_LEN : 0);
    return (packet->packet_type == htonl(PT_ETH)
            || pt_ns(packet->packet_type) == OFPHTN_ETHERTYPE);
}

/* vport_tunnel_ops 'push' for gre: the base header, the checksum (over the
 * GRE header and the payload, RFC 2784) and the key (RFC 2890). */
static void
gre_push(struct dp_packet *packet, const struct flow_tnl *tnl,
         ovs_be16 udp_port OVS_UNUSED, uint32_t exts OVS_UNUSED)
{
    bool has_csum = tnl->flags & FLOW_TNL_F_CSUM;
    bool has_key = tnl->flags & FLOW_TNL_F_KEY;
    size_t hlen = sizeof(struct gre_base_hdr) + (has_csum ? GRE_OPT_LEN : 0)
                  + (has_key ? GRE_OPT_LEN : 0);
    ovs_be16 protocol = (packet->packet_type == htonl(PT_ETH)
                         ? htons(ETH_TYPE_TEB)
                         : pt_ns_type_be(packet->packet_type));
    struct gre_base_hdr *greh = dp_packet_push_uninit(packet, hlen);
    ovs_16aligned_be32 *opt = (ovs_16aligned_be32 *) (greh + 1);
    ovs_be16 *csum_field = NULL;

    greh->flags = 0;
    greh->protocol = protocol;
    if (has_csum) {
        greh->flags |= htons(GRE_CSUM);
        csum_field = (ovs_be16 *) opt;
        put_16aligned_be32(opt++, 0);
    }
    if (has_key) {
        greh->flags |= htons(GRE_KEY);
        put_16aligned_be32(opt++, be64_to_be32(tnl->tun_id));
    }
    if (csum_field) {
        *csum_field = csum(greh, dp_packet_size(packet));
    }
}

/* The gre type (vport-gre.h). */
const struct vport_tunnel_ops vport_gre_ops = {
    .type = "gre",
    .ip_proto = IPPROTO_GRE,
    .by_udp_port = false,
    .inner_ipv4_only = false,
    .ipv6_underlay = true,
    .ipv6_only = false,
    .endpoint = gre_endpoint,
    .claims = gre_claims,
    .gro_enabled = NULL,
    .decapsulate = vport_tunnel_pop_netdev,
    .prepare = gre_prepare,
    .push = gre_push,
    .count = NULL,
};

/* The ip6gre type (vport-gre.h): gre over IPv6 underlays only. */
const struct vport_tunnel_ops vport_ip6gre_ops = {
    .type = "ip6gre",
    .ip_proto = IPPROTO_GRE,
    .by_udp_port = false,
    .inner_ipv4_only = false,
    .ipv6_underlay = true,
    .ipv6_only = true,
    .endpoint = gre_endpoint,
    .claims = gre_claims,
    .gro_enabled = NULL,
    .decapsulate = vport_tunnel_pop_netdev,
    .prepare = gre_prepare,
    .push = gre_push,
    .count = NULL,
};

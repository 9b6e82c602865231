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

/* The geneve case of the tunnel vports (RFC 8926). */

#include <config.h>
#include "vport-geneve.h"

#include <netinet/in.h>

#include "dp-packet.h"
#include "netdev.h"
#include "packets.h"
#include "vport-tunnel.h"
#include "openvswitch/geneve.h"
#include "tun-metadata.h"

/* Bytes geneve puts between the outer IPv4 header and the inner frame,
 * before its options. */
#define GENEVE_TNL_BASE_HLEN (sizeof(struct udp_header) \
                              + sizeof(struct genevehdr))

/* vport_tunnel_ops 'endpoint' for geneve: any remote, any local address,
 * the port's UDP destination port. */
static const void *
geneve_endpoint(const struct netdev *netdev, ovs_be32 *local,
                ovs_be32 *remote, ovs_be16 *udp_port)
{
    const struct netdev_tunnel_config *cfg = netdev_get_tunnel_config(netdev);

    *local = 0;
    *remote = 0;
    *udp_port = cfg ? cfg->dst_port : 0;
    return cfg;
}

/* Returns the length of the Geneve options of tunnel metadata 'tnl'.
 * Options set by a datapath action arrive as raw bytes (UDPIF); otherwise
 * they are laid out to be measured. */
static size_t
geneve_opts_len(const struct flow_tnl *tnl)
{
    struct geneve_opt opts[TLV_TOT_OPT_SIZE / sizeof(struct geneve_opt)];
    bool crit;

    if (tnl->flags & FLOW_TNL_F_UDPIF) {
        return tnl->metadata.present.len;
    }
    return tun_metadata_to_geneve_header(tnl, opts, &crit);
}

/* Copies the 'len' bytes of raw Geneve options (UDPIF, as a set(tunnel())
 * datapath action gives them) of 'tnl' to 'opts', and sets '*crit' if one
 * of them is critical.  OVS's tun_metadata_to_geneve_header() takes only
 * options mapped through the TLV table. */
static void
geneve_copy_udpif(const struct flow_tnl *tnl, struct geneve_opt *opts,
                  size_t len, bool *crit)
{
    const struct geneve_opt *opt = tnl->metadata.opts.gnv;
    size_t ofs = 0;

    memcpy(opts, opt, len);
    *crit = false;
    while (ofs + sizeof *opt <= len) {
        opt = (const struct geneve_opt *)
              ((const uint8_t *) tnl->metadata.opts.gnv + ofs);
        *crit |= !!(opt->type & GENEVE_CRIT_OPT_TYPE);
        ofs += sizeof *opt + opt->length * 4;
    }
}

/* vport_tunnel_ops 'prepare' for geneve: carries Ethernet frames. */
static bool
geneve_prepare(struct dp_packet *packet, size_t *hlen,
               uint32_t exts OVS_UNUSED)
{
    *hlen = GENEVE_TNL_BASE_HLEN + geneve_opts_len(&packet->md.tunnel);
    return packet->packet_type == htonl(PT_ETH);
}

/* vport_tunnel_ops 'push' for geneve: the UDP header, its source port from
 * the inner flow's hash, and the Geneve header with the VNI and the TLV
 * options, laid out by OVS's tun_metadata_to_geneve_header(). */
static void
geneve_push(struct dp_packet *packet, const struct flow_tnl *tnl,
            ovs_be16 udp_port, uint32_t exts OVS_UNUSED)
{
    ovs_be16 src_port = vport_tunnel_udp_src_port(packet);
    size_t opts_len = geneve_opts_len(tnl);
    struct udp_header *udp;
    struct genevehdr *gnh;
    struct genevehdr hdr;
    bool crit = false;

    udp = dp_packet_push_uninit(packet, GENEVE_TNL_BASE_HLEN + opts_len);
    gnh = (struct genevehdr *) (udp + 1);
    udp->udp_src = src_port;
    udp->udp_dst = udp_port;
    udp->udp_len = 0;
    udp->udp_csum = 0;
    if (tnl->flags & FLOW_TNL_F_UDPIF) {
        geneve_copy_udpif(tnl, gnh->options, opts_len, &crit);
    } else {
        tun_metadata_to_geneve_header(tnl, gnh->options, &crit);
    }
    /* The fixed header is built aside and stored whole: setting its bit
     * fields in place reads the packet's headroom, a line the push has
     * only written so far, and waited for it (98% of this function's
     * samples in the udp64 profile, performance.md). */
    memset(&hdr, 0, sizeof hdr);
    hdr.ver = 0;
    hdr.opt_len = opts_len / 4;
    hdr.oam = !!(tnl->flags & FLOW_TNL_F_OAM);
    hdr.critical = crit;
    hdr.proto_type = htons(ETH_TYPE_TEB);
    put_16aligned_be32(&hdr.vni, htonl(ntohll(tnl->tun_id) << 8));
    memcpy(gnh, &hdr, sizeof hdr);
}

/* The geneve type (vport-geneve.h). */
const struct vport_tunnel_ops vport_geneve_ops = {
    .type = "geneve",
    .ip_proto = IPPROTO_UDP,
    .by_udp_port = true,
    .inner_ipv4_only = false,
    .ipv6_underlay = true,
    .ipv6_only = false,
    .endpoint = geneve_endpoint,
    .claims = NULL,
    .gro_enabled = NULL,
    .decapsulate = vport_tunnel_pop_netdev,
    .prepare = geneve_prepare,
    .push = geneve_push,
    .count = NULL,
};

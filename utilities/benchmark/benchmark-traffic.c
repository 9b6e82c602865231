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

/* What the benchmark sends, and its flows' upcall answers. */

#include <config.h>
#include "benchmark-traffic.h"

#include <errno.h>
#include <string.h>

#include "benchmark-netdev.h"
#include "csum.h"
#include "dp-packet.h"
#include "flow.h"
#include "hash.h"
#include "netdev.h"
#include "netlink.h"
#include "odp-netlink.h"
#include "odp-util.h"
#include "openvswitch/ofpbuf.h"
#include "ovs-atomic.h"
#include "packets.h"
#include "pcap-file.h"
#include "random.h"
#include "util.h"

/* The generated frames: Ethernet, IPv4, UDP, padded to 60 bytes (64 on the
 * wire with the FCS), or with an 802.1Q tag, 64 bytes; or Ethernet, IPv6,
 * UDP, 62 bytes (66 on the wire), the shortest such frame. */
#define FRAME_LEN 60
#define TAGGED_FRAME_LEN (FRAME_LEN + VLAN_HEADER_LEN)
#define IPV6_FRAME_LEN (ETH_HEADER_LEN + IPV6_HEADER_LEN + UDP_HEADER_LEN)

/* A BENCHMARK_GENEVE frame: Ethernet, IPv4, UDP, the Geneve header and
 * OVN's option (4 bytes of header, 4 of data), then a FRAME_LEN frame. */
#define GENEVE_HEADER_LEN 8
#define GENEVE_OPT_LEN 8
#define GENEVE_OUTER_LEN (ETH_HEADER_LEN + IP_HEADER_LEN + UDP_HEADER_LEN \
                          + GENEVE_HEADER_LEN + GENEVE_OPT_LEN)
#define GENEVE_FRAME_LEN (GENEVE_OUTER_LEN + FRAME_LEN)
#define GENEVE_UDP_PORT 6081

/* Linux's range of UDP source ports for tunnels (udp_flow_src_port()):
 * a sender hashes the inner flow into it, so each inner flow has an outer
 * flow of its own. */
#define GENEVE_SRC_PORT_MIN 32768
#define GENEVE_SRC_PORT_N 28232

/* The VLAN of tagged frames. */
#define FRAME_VID 10

/* Longest frame a pcap file may give. */
#define PCAP_FRAME_MAX 2048

static odp_port_t upcall_out_port;
static int upcall_n_masks = 1;
static atomic_ullong n_upcalls = 0;

/* The tunnel scenarios' settings (benchmark_upcall_configure_tunnel()):
 * 'upcall_tunnel' is NULL outside them. */
static const struct netdev *upcall_tunnel;
static odp_port_t upcall_tunnel_port;
static odp_port_t upcall_underlay_port;
static bool upcall_native;
static struct eth_addr upcall_nh_mac;

/* The Geneve input scenario's settings
 * (benchmark_upcall_configure_geneve()): 'upcall_geneve' is false outside
 * it. */
static bool upcall_geneve;
static odp_port_t upcall_local_port;

/* The tunnel key (VNI) of the tunnel scenarios. */
#define TUNNEL_KEY 42

/* Returns the length of a generated frame of 'shape'. */
static size_t
frame_len(enum benchmark_frame_shape shape)
{
    return (shape == BENCHMARK_IPV4 ? FRAME_LEN
            : shape == BENCHMARK_IPV4_TAGGED ? TAGGED_FRAME_LEN
            : shape == BENCHMARK_GENEVE ? GENEVE_FRAME_LEN
            : IPV6_FRAME_LEN);
}

/* Builds the Ethernet header of a frame of 'shape' into 'frame' and returns
 * its length. */
static size_t
frame_build_eth(uint8_t *frame, enum benchmark_frame_shape shape)
{
    struct eth_header *eth = (struct eth_header *) frame;

    eth->eth_dst = (struct eth_addr) ETH_ADDR_C(02, 00, 00, 00, 00, 02);
    eth->eth_src = (struct eth_addr) ETH_ADDR_C(02, 00, 00, 00, 00, 01);
    if (shape == BENCHMARK_IPV4_TAGGED) {
        struct vlan_eth_header *veth = (struct vlan_eth_header *) frame;

        veth->veth_type = htons(ETH_TYPE_VLAN_8021Q);
        veth->veth_tci = htons(FRAME_VID);
        veth->veth_next_type = htons(ETH_TYPE_IP);
        return VLAN_ETH_HEADER_LEN;
    }
    eth->eth_type = htons(shape == BENCHMARK_IPV6 ? ETH_TYPE_IPV6
                          : ETH_TYPE_IP);
    return ETH_HEADER_LEN;
}

/* Builds an IPv4 header from 192.168.0.1 to 10.0.0.0 + 'flow_index' into
 * 'ip', for an IPv4 packet of 'ip_len' bytes of UDP, and returns its
 * length. */
static size_t
frame_build_ipv4(struct ip_header *ip, size_t ip_len, uint32_t flow_index)
{
    ip->ip_ihl_ver = IP_IHL_VER(5, IP_VERSION);
    ip->ip_tot_len = htons(ip_len);
    ip->ip_ttl = 64;
    ip->ip_proto = IPPROTO_UDP;
    put_16aligned_be32(&ip->ip_src, htonl(0xc0a80001));       /* 192.168.0.1 */
    put_16aligned_be32(&ip->ip_dst, htonl(0x0a000000 + flow_index));
    ip->ip_csum = csum(ip, IP_HEADER_LEN);
    return IP_HEADER_LEN;
}

/* Builds an IPv6 header from fd00::1 to fd00::1:0:0 + 'flow_index' into
 * 'ip6', for an IPv6 packet of 'ip_len' bytes of UDP, and returns its
 * length. */
static size_t
frame_build_ipv6(struct ovs_16aligned_ip6_hdr *ip6, size_t ip_len,
                 uint32_t flow_index)
{
    struct in6_addr src = { .s6_addr = { 0xfd, [15] = 1 } };
    struct in6_addr dst = { .s6_addr = { 0xfd, [11] = 1 } };
    ovs_be32 index = htonl(flow_index);

    memcpy(&dst.s6_addr[12], &index, sizeof index);
    put_16aligned_be32(&ip6->ip6_flow, htonl(6 << 28));
    ip6->ip6_plen = htons(ip_len - IPV6_HEADER_LEN);
    ip6->ip6_nxt = IPPROTO_UDP;
    ip6->ip6_hlim = 64;
    memcpy(&ip6->ip6_src, &src, sizeof src);
    memcpy(&ip6->ip6_dst, &dst, sizeof dst);
    return IPV6_HEADER_LEN;
}

static void frame_build(uint8_t *frame, size_t len, uint32_t flow_index,
                        enum benchmark_frame_shape shape);

/* Builds the BENCHMARK_GENEVE frame of flow 'flow_index' into 'frame':
 * the outer headers, then the IPv4 frame of that flow. */
static void
frame_build_geneve(uint8_t *frame, uint32_t flow_index)
{
    static const uint8_t geneve[GENEVE_HEADER_LEN + GENEVE_OPT_LEN] = {
        GENEVE_OPT_LEN / 4,             /* Version 0, options' length. */
        0,                              /* No flags. */
        0x65, 0x58,                     /* Transparent Ethernet bridging. */
        0, 0, TUNNEL_KEY, 0,            /* VNI, reserved. */
        BENCHMARK_GENEVE_OPT_CLASS >> 8, BENCHMARK_GENEVE_OPT_CLASS & 0xff,
        BENCHMARK_GENEVE_OPT_TYPE,
        (GENEVE_OPT_LEN - 4) / 4,       /* The option's data length. */
        (BENCHMARK_GENEVE_OPT_DATA >> 24) & 0xff,
        (BENCHMARK_GENEVE_OPT_DATA >> 16) & 0xff,
        (BENCHMARK_GENEVE_OPT_DATA >> 8) & 0xff,
        BENCHMARK_GENEVE_OPT_DATA & 0xff,
    };
    struct eth_header *eth = (struct eth_header *) frame;
    struct ip_header *ip = (struct ip_header *) (eth + 1);
    struct udp_header *udp = (struct udp_header *) (ip + 1);
    uint32_t hash = hash_int(flow_index, 0);

    memset(frame, 0, GENEVE_OUTER_LEN);
    eth->eth_dst = (struct eth_addr) ETH_ADDR_C(02, 00, 00, 00, 00, 02);
    eth->eth_src = (struct eth_addr) ETH_ADDR_C(02, 00, 00, 00, 00, 0b);
    eth->eth_type = htons(ETH_TYPE_IP);
    ip->ip_ihl_ver = IP_IHL_VER(5, IP_VERSION);
    ip->ip_tot_len = htons(GENEVE_FRAME_LEN - ETH_HEADER_LEN);
    ip->ip_frag_off = htons(IP_DONT_FRAGMENT);
    ip->ip_ttl = 64;
    ip->ip_proto = IPPROTO_UDP;
    put_16aligned_be32(&ip->ip_src, htonl(BENCHMARK_GENEVE_REMOTE));
    put_16aligned_be32(&ip->ip_dst, htonl(BENCHMARK_GENEVE_LOCAL));
    ip->ip_csum = csum(ip, IP_HEADER_LEN);
    udp->udp_src = htons(GENEVE_SRC_PORT_MIN + hash % GENEVE_SRC_PORT_N);
    udp->udp_dst = htons(GENEVE_UDP_PORT);
    udp->udp_len = htons(GENEVE_FRAME_LEN - ETH_HEADER_LEN - IP_HEADER_LEN);
    memcpy(udp + 1, geneve, sizeof geneve);
    frame_build(frame + GENEVE_OUTER_LEN, FRAME_LEN, flow_index,
                BENCHMARK_IPV4);
}

/* Builds the frame of flow 'flow_index' into 'frame', 'len' bytes long, of
 * 'shape'. */
static void
frame_build(uint8_t *frame, size_t len, uint32_t flow_index,
            enum benchmark_frame_shape shape)
{
    size_t l2_len, l3_len;
    struct udp_header *udp;

    if (shape == BENCHMARK_GENEVE) {
        frame_build_geneve(frame, flow_index);
        return;
    }
    memset(frame, 0, len);
    l2_len = frame_build_eth(frame, shape);
    l3_len = (shape == BENCHMARK_IPV6
              ? frame_build_ipv6((void *) (frame + l2_len), len - l2_len,
                                 flow_index)
              : frame_build_ipv4((void *) (frame + l2_len), len - l2_len,
                                 flow_index));
    udp = (struct udp_header *) (frame + l2_len + l3_len);
    udp->udp_src = htons(1024);
    udp->udp_dst = htons(4789 + 1);
    udp->udp_len = htons(len - l2_len - l3_len);
}

void
benchmark_frames_build(struct benchmark_frames *frames, size_t n_flows,
                       enum benchmark_frame_shape shape)
{
    size_t len = frame_len(shape);
    uint32_t *order = xmalloc(n_flows * sizeof *order);

    /* A Fisher-Yates shuffle with a fixed seed: the same order every run. */
    for (size_t i = 0; i < n_flows; i++) {
        order[i] = i;
    }
    random_set_seed(0x5eed);
    for (size_t i = n_flows; i > 1; i--) {
        size_t j = random_range(i);
        uint32_t tmp = order[i - 1];

        order[i - 1] = order[j];
        order[j] = tmp;
    }

    frames->n = n_flows;
    frames->stride = len;
    frames->data = xmalloc(n_flows * len);
    frames->lens = xmalloc(n_flows * sizeof *frames->lens);
    for (size_t i = 0; i < n_flows; i++) {
        frame_build(frames->data + i * len, len, order[i], shape);
        frames->lens[i] = len;
    }
    free(order);
}

int
benchmark_frames_read_pcap(struct benchmark_frames *frames,
                           const char *file_name)
{
    struct pcap_file *pcap = ovs_pcap_open(file_name, "rb");
    size_t allocated = 0;
    int error;

    if (!pcap) {
        return errno;
    }
    memset(frames, 0, sizeof *frames);
    frames->stride = PCAP_FRAME_MAX;
    for (;;) {
        struct dp_packet *packet;
        size_t len;

        error = ovs_pcap_read(pcap, &packet, NULL);
        if (error) {
            break;
        }
        if (frames->n == allocated) {
            allocated = allocated ? 2 * allocated : 1024;
            frames->data = xrealloc(frames->data,
                                    allocated * PCAP_FRAME_MAX);
            frames->lens = xrealloc(frames->lens,
                                    allocated * sizeof *frames->lens);
        }
        len = MIN(dp_packet_size(packet), PCAP_FRAME_MAX);
        memcpy(frames->data + frames->n * PCAP_FRAME_MAX,
               dp_packet_data(packet), len);
        frames->lens[frames->n++] = len;
        dp_packet_delete(packet);
    }
    ovs_pcap_close(pcap);
    if (error != EOF) {
        benchmark_frames_destroy(frames);
        return error;
    }
    return frames->n ? 0 : EINVAL;
}

void
benchmark_frames_destroy(struct benchmark_frames *frames)
{
    free(frames->data);
    free(frames->lens);
    memset(frames, 0, sizeof *frames);
}

void
benchmark_upcall_configure(odp_port_t out_port, int n_masks)
{
    upcall_out_port = out_port;
    upcall_n_masks = n_masks;
    upcall_tunnel = NULL;
    upcall_geneve = false;
}

void
benchmark_upcall_configure_geneve(odp_port_t tunnel_port,
                                  odp_port_t local_port,
                                  odp_port_t out_port, bool native)
{
    benchmark_upcall_configure(out_port, 1);
    upcall_geneve = true;
    upcall_tunnel_port = tunnel_port;
    upcall_local_port = local_port;
    upcall_native = native;
}

void
benchmark_upcall_configure_tunnel(const struct netdev *tunnel,
                                  odp_port_t tunnel_port,
                                  odp_port_t underlay_port,
                                  odp_port_t out_port, bool native,
                                  struct eth_addr nh_mac)
{
    benchmark_upcall_configure(out_port, 1);
    upcall_tunnel = tunnel;
    upcall_tunnel_port = tunnel_port;
    upcall_underlay_port = underlay_port;
    upcall_native = native;
    upcall_nh_mac = nh_mac;
}

/* Puts in 'actions' what ofproto would for a packet of 'flow' output to the
 * tunnel port: see benchmark-traffic.h.  Returns 0, or an errno if OVS
 * cannot build the header. */
static int
tunnel_actions_build(const struct flow *flow, struct ofpbuf *actions)
{
    uint32_t index = ntohl(flow->nw_dst) % BENCHMARK_TUNNEL_N_DSTS;
    struct netdev_tnl_build_header_params params;
    struct ovs_action_push_tnl data;
    struct flow tnl_flow;
    struct in6_addr src;
    struct eth_addr smac;
    ovs_be32 addr;
    int error;
    int plen;

    benchmark_underlay_address(&addr, &plen, &smac);
    memset(&tnl_flow, 0, sizeof tnl_flow);
    tnl_flow.packet_type = htonl(PT_ETH);
    tnl_flow.tunnel.ip_src = addr;
    tnl_flow.tunnel.ip_dst = htonl(BENCHMARK_TUNNEL_DST + index);
    tnl_flow.tunnel.tun_id = htonll(TUNNEL_KEY);
    tnl_flow.tunnel.ip_ttl = 64;
    tnl_flow.tunnel.tp_dst = htons(4789);
    tnl_flow.tunnel.flags = FLOW_TNL_F_KEY | FLOW_TNL_F_DONT_FRAGMENT;
    if (!upcall_native) {
        odp_put_tunnel_action(&tnl_flow.tunnel, actions, "vxlan");
        nl_msg_put_odp_port(actions, OVS_ACTION_ATTR_OUTPUT,
                            upcall_tunnel_port);
        return 0;
    }

    in6_addr_set_mapped_ipv4(&src, addr);
    memset(&data, 0, sizeof data);
    netdev_init_tnl_build_header_params(&params, &tnl_flow, &src,
                                        upcall_nh_mac, smac);
    error = netdev_build_header(upcall_tunnel, &data, &params);
    if (error) {
        return error;
    }
    data.tnl_port = upcall_tunnel_port;
    data.out_port = upcall_out_port;
    odp_put_tnl_push_action(actions, &data);
    /* Then the underlay bridge's output, as ofproto's translation goes
     * on there: tnl_push() itself outputs nothing. */
    nl_msg_put_odp_port(actions, OVS_ACTION_ATTR_OUTPUT, upcall_out_port);
    return 0;
}

/* Un-wildcards what every megaflow matches, as ofproto would: the input
 * port, the recirculation id, the VLAN tag (of a tagged frame), the
 * Ethernet type and the destination address (IPv4 or IPv6).  With 8 masks,
 * the low three bits of the address choose which of the source address,
 * the protocol with the source port, and the protocol with the destination
 * port are matched too. */
static void
megaflow_mask_build(const struct flow *flow, struct flow_wildcards *wc)
{
    bool ipv6 = flow->dl_type == htons(ETH_TYPE_IPV6);
    uint8_t dst_low = (ipv6 ? flow->ipv6_dst.s6_addr[15]
                       : ntohl(flow->nw_dst) & 0xff);
    int choice = upcall_n_masks > 1 ? dst_low & 7 : 0;

    wc->masks.in_port.odp_port = u32_to_odp(UINT32_MAX);
    wc->masks.recirc_id = UINT32_MAX;
    wc->masks.dl_type = OVS_BE16_MAX;
    if (flow->vlans[0].tci & htons(VLAN_CFI)) {
        wc->masks.vlans[0].tci = OVS_BE16_MAX;
    }
    if (ipv6) {
        wc->masks.ipv6_dst = in6addr_exact;
    } else {
        wc->masks.nw_dst = OVS_BE32_MAX;
    }
    if (choice & 1) {
        if (ipv6) {
            wc->masks.ipv6_src = in6addr_exact;
        } else {
            wc->masks.nw_src = OVS_BE32_MAX;
        }
    }
    if (choice & 2) {
        wc->masks.nw_proto = UINT8_MAX;
        wc->masks.tp_src = OVS_BE16_MAX;
    }
    if (choice & 4) {
        wc->masks.nw_proto = UINT8_MAX;
        wc->masks.tp_dst = OVS_BE16_MAX;
    }
}

/* Un-wildcards, for a packet of 'flow' that the geneve port decapsulated,
 * what ofproto's would: the tunnel's addresses, ID, flags and ToS
 * (tnl_wc_init() in OVS's ofproto/tunnel.c), and, as the flow matches the
 * option, the option whole, in the datapath's form (undecoded, its header
 * matched exactly as tun_metadata_to_geneve_mask__() in OVS's
 * lib/tun-metadata.c leaves it, with the options' length). */
static void
geneve_mask_build(const struct flow *flow, struct flow_wildcards *wc)
{
    struct flow_tnl *mask = &wc->masks.tunnel;
    const struct flow_tnl *tnl = &flow->tunnel;
    uint8_t len = tnl->metadata.present.len;
    size_t ofs = 0;

    mask->tun_id = OVS_BE64_MAX;
    mask->ip_src = OVS_BE32_MAX;
    mask->ip_dst = OVS_BE32_MAX;
    mask->flags = (FLOW_TNL_F_DONT_FRAGMENT | FLOW_TNL_F_CSUM | FLOW_TNL_F_KEY
                   | FLOW_TNL_F_UDPIF);
    mask->ip_tos = UINT8_MAX;
    mask->metadata.present.len = 0xff;
    mask->metadata.tab = NULL;
    BUILD_ASSERT(UINT8_MAX <= sizeof mask->metadata.opts.u8);
    memset(mask->metadata.opts.u8, 0xff, len);
    while (ofs + sizeof(struct geneve_opt) <= len) {
        const struct geneve_opt *opt
            = (const struct geneve_opt *) (tnl->metadata.opts.u8 + ofs);
        struct geneve_opt *opt_mask
            = (struct geneve_opt *) (mask->metadata.opts.u8 + ofs);

        opt_mask->r1 = opt_mask->r2 = opt_mask->r3 = 0;
        ofs += sizeof *opt + opt->length * 4;
    }
}

/* Puts in 'actions' what ofproto would for a packet of 'flow' in the Geneve
 * input scenario: see benchmark-traffic.h. */
static void
geneve_actions_build(const struct flow *flow, struct flow_wildcards *wc,
                     struct ofpbuf *actions)
{
    if (flow_tnl_dst_is_set(&flow->tunnel)) {
        if (wc) {
            geneve_mask_build(flow, wc);
        }
        nl_msg_put_odp_port(actions, OVS_ACTION_ATTR_OUTPUT,
                            upcall_out_port);
        return;
    }
    /* The outer frame, to the tunnel's address: what ofproto matches to
     * tell it from other traffic. */
    if (wc) {
        wc->masks.nw_proto = UINT8_MAX;
        wc->masks.nw_frag = FLOW_NW_FRAG_MASK;
        wc->masks.tp_dst = OVS_BE16_MAX;
    }
    if (upcall_native) {
        nl_msg_put_odp_port(actions, OVS_ACTION_ATTR_TUNNEL_POP,
                            upcall_tunnel_port);
    } else {
        nl_msg_put_odp_port(actions, OVS_ACTION_ATTR_OUTPUT,
                            upcall_local_port);
    }
}

int
benchmark_upcall(const struct dp_packet *packet OVS_UNUSED,
                 const struct flow *flow, ovs_u128 *ufid OVS_UNUSED,
                 unsigned pmd_id OVS_UNUSED, enum dpif_upcall_type type,
                 const struct nlattr *userdata OVS_UNUSED,
                 struct ofpbuf *actions, struct flow_wildcards *wc,
                 struct ofpbuf *put_actions OVS_UNUSED, void *aux OVS_UNUSED)
{
    unsigned long long orig;

    if (type != DPIF_UC_MISS) {
        return 0;
    }
    atomic_add_relaxed(&n_upcalls, 1, &orig);
    if (wc) {
        megaflow_mask_build(flow, wc);
    }
    if (upcall_geneve) {
        geneve_actions_build(flow, wc, actions);
        return 0;
    }
    if (upcall_tunnel && flow->in_port.odp_port != upcall_underlay_port) {
        return tunnel_actions_build(flow, actions);
    }
    nl_msg_put_odp_port(actions, OVS_ACTION_ATTR_OUTPUT, upcall_out_port);
    return 0;
}

uint64_t
benchmark_upcalls(void)
{
    unsigned long long n;

    atomic_read_relaxed(&n_upcalls, &n);
    return n;
}

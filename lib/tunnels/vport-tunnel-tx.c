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

/* The transmit side of the tunnel layer: software segmentation, the outer
 * IPv4 or IPv6 header, the route, the neighbour cache, outer fragmentation,
 * ICMP "fragmentation needed" and the hand-off to the underlay bridge. */

#include <config.h>
#include "vport-tunnel.h"

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip6.h>

#include "csum.h"
#include "datapath.h"
#include "dp-input.h"
#include "dp-gso.h"
#include "dp-packet.h"
#include "dp-port.h"
#include "flow.h"
#include "gso.h"
#include "ip-fragment.h"
#include "netdev.h"
#include "netdev-ipip.h"
#include "netdev-native-tnl.h"
#include "net-hdrs.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "pmd.h"
#include "tso-segsz.h"
#include "tunnel-neigh.h"
#include "tunnel-neigh-queue.h"
#include "tunnel-nexthop.h"
#include "util.h"
#include "vport-tunnel-private.h"

VLOG_DEFINE_THIS_MODULE(vport_tunnel_tx);

/* Default outer TTL when the tunnel metadata carries none, as Linux's
 * ip_tunnel uses the route's hop limit (64 by default). */
#define TUNNEL_DEFAULT_TTL 64

/* Linux's defaults for ICMP errors (net.ipv4.icmp_msgs_per_sec and
 * icmp_msgs_burst): a thread sends at most this many "fragmentation
 * needed" a second, after a burst of ICMP_BURST. */
#define ICMP_RATE_PER_SEC 1000
#define ICMP_BURST 50

/* The smallest path MTU an ICMP "fragmentation needed" over an IPv6
 * underlay advertises for an inner IPv4 packet: IPv4's minimum, as Linux's
 * ip6_tnl_xmit() floors it (IPV4_MIN_MTU). */
#define IPV6_UNDERLAY_MIN_MTU4 68

/* Rate limit of the error logs of the forwarding threads. */
static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

/* Returns the outer UDP source port for 'packet', an inner packet about to
 * be encapsulated: from its RSS hash, or else a hash of its 5-tuple, mapped
 * into OVS's tunnel source port range (ovs-appctl tnl/egress_port_range), so
 * that the underlay's ECMP and the receiver's RSS spread the inner flows as
 * Linux's udp_flow_src_port() does. */
ovs_be16
vport_tunnel_udp_src_port(struct dp_packet *packet)
{
    if (!dp_packet_rss_valid(packet)) {
        struct flow flow;

        flow_extract(packet, &flow);
        dp_packet_set_rss_hash(packet, flow_hash_5tuple(&flow, 0));
    }
    return netdev_tnl_get_src_port(packet);
}

/* Where an encapsulated packet leaves: the underlay bridge's local port,
 * its MAC and MTU, the next hop's MAC and the outer source address. */
struct underlay {
    struct in6_addr dst;            /* Tunnel destination it was found for,
                                     * IPv4-mapped for IPv4. */
    struct in6_addr src;            /* Source address from the route, the
                                     * same way. */
    struct dp_port *port;           /* Underlay bridge's local port. */
    struct eth_addr port_mac;       /* That port's MAC: the outer source. */
    int mtu;                        /* That port's MTU. */
    struct eth_addr nh_mac;         /* Next hop's MAC, if not
                                     * 'unresolved'. */
    struct tunnel_route route;      /* The route: device, next hop, port. */
    bool unresolved;                /* Next hop's MAC not known yet: the
                                     * frames wait in the thread's queue
                                     * for it (tunnel-neigh-queue.h). */
};

/* Returns the tunnel destination of 'tnl', IPv4-mapped for IPv4, in
 * '*dst', and true if it has one. */
static bool
tunnel_dst(const struct flow_tnl *tnl, struct in6_addr *dst)
{
    if (tnl->ip_dst) {
        in6_addr_set_mapped_ipv4(dst, tnl->ip_dst);
        return true;
    }
    *dst = tnl->ipv6_dst;
    return ipv6_addr_is_set(dst);
}

/* Resolves how 't' reaches tunnel destination 'dst' (IPv6, or IPv4-mapped)
 * with packet mark 'mark' into 'u'.  Returns 0, or the counter to drop the
 * packet with.  The route, its port and the next hop come from 't''s own
 * caches (tunnel-nexthop.h), which read OVS's route table and neighbour
 * cache only when those changed or their copy is old, and the datapath's
 * ports only when those changed; the port stays valid until 't'
 * quiesces.  A next hop not known yet is asked for, and 'u->unresolved'
 * set if 't' can hold the frames meanwhile (tunnel-neigh-queue.h). */
static enum vport_tunnel_counter
resolve_underlay(struct pmd_thread *t, const struct in6_addr *dst,
                 uint32_t mark, struct underlay *u)
{
    struct tunnel_route route;
    bool is_ipv4 = IN6_IS_ADDR_V4MAPPED(dst);
    int error;

    u->dst = *dst;
    if (!tunnel_route_lookup(t, dst, mark, &route)) {
        return VPORT_TNL_DROP_NO_ROUTE;
    }
    if (ipv6_addr_is_set(&route.src)
        && IN6_IS_ADDR_V4MAPPED(&route.src) != is_ipv4) {
        /* A route of the other family (::/0 for an IPv4 destination). */
        return VPORT_TNL_DROP_NO_ROUTE;
    }
    u->src = route.src;
    u->port = route.port;
    u->route = route;
    u->unresolved = false;
    if (!u->port) {
        return VPORT_TNL_DROP_NO_UNDERLAY;
    }
    dp_port_get_link(u->port, &u->port_mac, &u->mtu);

    error = tunnel_nexthop_lookup(t, &route, &u->nh_mac);
    if (error) {
        /* Unknown, or to be confirmed (EAGAIN: '*u' is good meanwhile):
         * an ARP request, or an IPv6 Neighbor Solicitation, from the
         * route's source address on the port that owns it. */
        tunnel_neigh_request(t, u->port, u->port_mac, &u->src, &route.nh);
        if (error != EAGAIN) {
            if (!tunnel_neigh_queue_has_room(t, &route)) {
                return VPORT_TNL_DROP_NO_NEIGH;
            }
            u->unresolved = true;
            u->nh_mac = eth_addr_zero;
        }
    }
    return 0;
}

/* Drops 'packet', output to 'vport' by 't', for 'reason'. */
static void
tx_drop(struct pmd_thread *t, struct vport_tunnel *vport,
        struct dp_packet *packet, enum vport_tunnel_counter reason)
{
    vport_tunnel_drop(t, vport, packet, reason, NETDEV_IPIP_TX_DROPPED);
}

/* Makes '*u' the underlay for 'packet''s tunnel destination, reusing it if
 * the previous packet of the batch had the same ('*have_u').  Returns
 * false, having dropped 'packet', if there is none.  If the next hop is
 * resolved and 't' holds frames for it, appends them to 'underlay' first:
 * the frames queued while it resolved go before this packet's. */
static bool
get_underlay(struct pmd_thread *t, struct vport_tunnel *vport,
             struct dp_packet *packet, struct underlay *u, bool *have_u,
             struct dp_packet_batch *underlay)
{
    const struct flow_tnl *tnl = &packet->md.tunnel;
    enum vport_tunnel_counter drop;
    struct in6_addr dst;

    tunnel_dst(tnl, &dst);
    if (*have_u && ipv6_addr_equals(&u->dst, &dst)) {
        return true;
    }
    drop = resolve_underlay(t, &dst, packet->md.pkt_mark, u);
    *have_u = !drop;
    if (drop) {
        if (drop != VPORT_TNL_DROP_NO_NEIGH) {
            char buf[INET6_ADDRSTRLEN];

            /* INFO, not WARN: as with the kernel's vports (and OVS's native
             * tunnels), a missing route is the network's state, not an
             * error of ours; BFD and CFM over a tunnel hit it by design
             * until a route exists.  The drop counter says how often. */
            ipv6_string_mapped(buf, &dst);
            VLOG_INFO_RL(&rl, "%s: cannot send to %s: %s",
                         netdev_get_name(vport->port->netdev), buf,
                         drop == VPORT_TNL_DROP_NO_ROUTE
                         ? "no route"
                         : "the route's device is not a bridge port");
        }
        tx_drop(t, vport, packet, drop);
    } else if (!u->unresolved && tunnel_neigh_queue_busy(t)) {
        tunnel_neigh_queue_release(t, &u->route, u->nh_mac, underlay);
    }
    return *have_u;
}

/* Returns true if 't' may send an ICMP error now, taking a token from its
 * bucket, as Linux's icmp_global_allow() does with icmp_msgs_per_sec and
 * icmp_msgs_burst.  A thread's bucket bounds what a flood of too-big
 * packets costs it, whoever sends them.  (Linux also limits each
 * destination, net.ipv4.icmp_ratelimit, with a table of peers; a thread
 * here has none, and one sender's traffic can only use up its own
 * thread's tokens.) */
static bool
icmp_allowed(struct pmd_thread *t)
{
    struct vport_tunnel_thread *tt = vport_tunnel_thread_state(t);
    long long int elapsed = t->now - tt->icmp_stamp;

    if (!tt->icmp_stamp || elapsed * ICMP_RATE_PER_SEC >= 1000 * ICMP_BURST
        || elapsed < 0) {
        tt->icmp_credit = ICMP_BURST;
        tt->icmp_stamp = t->now ? t->now : 1;
    } else if (elapsed * ICMP_RATE_PER_SEC >= 1000) {
        uint32_t tokens = elapsed * ICMP_RATE_PER_SEC / 1000;

        tt->icmp_credit = MIN(ICMP_BURST, tt->icmp_credit + tokens);
        tt->icmp_stamp += tokens * 1000 / ICMP_RATE_PER_SEC;
    }
    if (!tt->icmp_credit) {
        return false;
    }
    tt->icmp_credit--;
    return true;
}

/* Hands 'icmp', an ICMP error (an L3 packet, or NULL for none) answering
 * 'packet', output to 'vport', to the flows as received back on 'vport'
 * from the tunnel's far end (the destination in 'packet''s tunnel
 * metadata) to 'local' (IPv4-mapped for an IPv4 tunnel), with the
 * tunnel's key, so that the flows that deliver the tunnel's traffic take
 * it to the sender; counts it as 'sent'.  Does not free 'packet'. */
static void
icmp_receive_back(struct pmd_thread *t, struct vport_tunnel *vport,
                  const struct dp_packet *packet, struct dp_packet *icmp,
                  const struct in6_addr *local,
                  enum vport_tunnel_counter sent)
{
    const struct flow_tnl *tnl = &packet->md.tunnel;
    struct flow_tnl *rtnl;

    if (!icmp || !vport_tunnel_rx_nesting_ok(t, vport, icmp)) {
        return;
    }
    vport_tunnel_init_metadata(icmp, vport->port->port_no,
                               packet->md.in_port.odp_port);
    rtnl = &icmp->md.tunnel;
    if (IN6_IS_ADDR_V4MAPPED(local)) {
        rtnl->ip_src = tnl->ip_dst;
        rtnl->ip_dst = in6_addr_get_mapped_ipv4(local);
    } else {
        rtnl->ipv6_src = tnl->ipv6_dst;
        rtnl->ipv6_dst = *local;
    }
    rtnl->ip_ttl = TUNNEL_DEFAULT_TTL;
    rtnl->tun_id = tnl->tun_id;
    rtnl->flags = tnl->flags & FLOW_TNL_F_KEY;
    rtnl->tp_dst = vport->udp_port;
    vport_tunnel_count__(t, sent, 1);
    vport_tunnel_rx_enqueue(t, vport, icmp);
}

/* Answers 'packet', too big for the tunnel's path MTU 'mtu' with DF set,
 * with an ICMP "fragmentation needed", received back on 'vport' as if from
 * the tunnel's far end, so that the flows that deliver the tunnel's traffic
 * take it to the sender, unless 't' is over its ICMP rate limit.  Frees
 * 'packet'. */
static void
send_frag_needed(struct pmd_thread *t, struct vport_tunnel *vport,
                 struct dp_packet *packet, ovs_be32 local, int mtu)
{
    struct dp_packet *icmp = NULL;
    struct in6_addr local6;

    if (icmp_allowed(t)) {
        icmp = ip_icmp_frag_needed(packet, local, mtu);
    } else {
        vport_tunnel_count__(t, VPORT_TNL_ICMP_SUPPRESSED, 1);
    }
    in6_addr_set_mapped_ipv4(&local6, local);
    icmp_receive_back(t, vport, packet, icmp, &local6,
                      VPORT_TNL_TX_ICMP_FRAG_NEEDED);
    tx_drop(t, vport, packet, VPORT_TNL_DROP_TOO_BIG);
}

/* Puts in front of 'icmp', an L3 ICMP error answering Ethernet frame
 * 'orig' whose IP header starts 'l2_len' bytes in, 'orig''s L2 header
 * (VLAN tags included) with its Ethernet addresses swapped, so that the
 * error goes back to the frame's sender from the frame's destination, as
 * Linux's bridged tunnels send it (iptunnel_pmtud_build_icmp()). */
static void
icmp_put_l2(struct dp_packet *icmp, const struct dp_packet *orig,
            size_t l2_len)
{
    struct eth_header *eth;
    struct eth_addr mac;

    eth = dp_packet_push(icmp, dp_packet_data(orig), l2_len);
    mac = eth->eth_src;
    eth->eth_src = eth->eth_dst;
    eth->eth_dst = mac;
    icmp->packet_type = htonl(PT_ETH);
    icmp->l3_ofs = l2_len;
    icmp->l4_ofs += l2_len;
}

/* Over an IPv6 underlay, answers 'packet', output to 'vport' (whose
 * header is 'hlen' bytes) via 'u' from outer source 'local', if it is too
 * big for the tunnel's path MTU: the underlay MTU minus the outer IPv6
 * header, the tunnel's header and the inner L2 header, but at least 1280
 * for an inner IPv6 datagram and 68 for an inner IPv4 one, as Linux's
 * ip6_tnl_xmit() floors it.  An inner IPv6 datagram over that MTU gets an
 * ICMPv6 "packet too big", an inner IPv4 one with DF an ICMP
 * "fragmentation needed" (one without DF is sent as outer fragments, as
 * Linux's vxlan and geneve do), from the inner packet's destination, as
 * Linux's bridged tunnels send them (skb_tunnel_check_pmtu()), received
 * back on 'vport' and within 't''s ICMP rate limit, which both families
 * share; the packet is dropped ("drop too big").  An inner IPv6 datagram
 * within the floor of 1280 that the path cannot carry whole is sent as
 * outer fragments, as Linux's ip6 tunnels fragment it.
 *
 * Returns true if it dropped 'packet', false if 'packet' is the caller's
 * to send. */
static bool
ipv6_underlay_too_big(struct pmd_thread *t, struct vport_tunnel *vport,
                      struct dp_packet *packet, size_t hlen,
                      const struct underlay *u, const struct in6_addr *local)
{
    enum vport_tunnel_counter sent, suppressed;
    struct dp_packet *icmp = NULL;
    const uint8_t *l3;
    size_t dgram_len;
    struct net_hdrs h;
    int path_mtu, mtu;

    if (dp_packet_size(packet) + hlen + IPV6_HEADER_LEN <= u->mtu
        || net_hdrs_parse(packet, &h)) {
        return false;
    }
    l3 = (const uint8_t *) dp_packet_data(packet) + h.l3_ofs;
    dgram_len = h.end_ofs - h.l3_ofs;
    path_mtu = u->mtu - IPV6_HEADER_LEN - (int) hlen - h.l3_ofs;
    if (h.is_ipv6) {
        mtu = MAX(path_mtu, IP6_MIN_MTU);
        sent = VPORT_TNL_TX_ICMP6_TOO_BIG;
        suppressed = VPORT_TNL_ICMP6_SUPPRESSED;
    } else {
        const struct ip_header *ip = (const struct ip_header *) l3;

        if (!(ip->ip_frag_off & htons(IP_DONT_FRAGMENT))) {
            return false;
        }
        mtu = MAX(path_mtu, IPV6_UNDERLAY_MIN_MTU4);
        sent = VPORT_TNL_TX_ICMP_FRAG_NEEDED;
        suppressed = VPORT_TNL_ICMP_SUPPRESSED;
    }
    if (dgram_len <= mtu) {
        return false;
    }

    if (!icmp_allowed(t)) {
        vport_tunnel_count__(t, suppressed, 1);
    } else if (h.is_ipv6) {
        const struct ovs_16aligned_ip6_hdr *ip6 = (const void *) l3;
        struct in6_addr dst;

        memcpy(&dst, &ip6->ip6_dst, sizeof dst);
        /* A multicast destination may get an error (RFC 4443, section
         * 2.4 (e.3)), but cannot be its source. */
        if (!ipv6_addr_is_multicast(&dst)) {
            icmp = ip6_icmp_packet_too_big(packet, &dst, mtu);
        }
    } else {
        const struct ip_header *ip = (const struct ip_header *) l3;

        icmp = ip_icmp_frag_needed(packet, get_16aligned_be32(&ip->ip_dst),
                                   mtu);
    }
    if (icmp && h.l3_ofs) {
        icmp_put_l2(icmp, packet, h.l3_ofs);
    }
    icmp_receive_back(t, vport, packet, icmp, local, sent);
    tx_drop(t, vport, packet, VPORT_TNL_DROP_TOO_BIG);
    return true;
}

/* The outer header fields that encapsulation takes from the tunnel
 * metadata, saved before the metadata is reset for the underlay. */
struct outer_fields {
    struct in6_addr src;            /* Outer source address... */
    struct in6_addr dst;            /* ...and destination, both IPv6 or both
                                     * IPv4-mapped. */
    bool is_ipv6;                   /* Is the outer header IPv6? */
    uint8_t tos;                    /* DSCP and ECN (IPv6: traffic
                                     * class). */
    uint8_t ttl;                    /* 0: the default. */
    bool df;                        /* Set DF (IPv4 only). */
    bool udp_csum;                  /* Compute the outer UDP checksum (over
                                     * IPv6, always). */
};

/* Returns the length of the outer IP header that 'f' asks for. */
static size_t
outer_l3_len(const struct outer_fields *f)
{
    return f->is_ipv6 ? IPV6_HEADER_LEN : IP_HEADER_LEN;
}

/* Pushes the outer IPv6 header of next header 'proto' on 'packet', whose
 * tunnel header is already pushed, with 'f''s addresses, traffic class and
 * hop limit, and flow label 0, as OVS's own IPv6 tunnels send (OVS 3.1 has
 * no flow label option for them).  Completes a UDP header's length and
 * checksum: RFC 8200 requires it over IPv6, and OVS's userspace tunnels
 * always compute it (udp_build_header()), whatever 'csum' says. */
static struct ovs_16aligned_ip6_hdr *
push_outer6(struct dp_packet *packet, uint8_t proto,
            const struct outer_fields *f)
{
    size_t l4_len = dp_packet_size(packet);
    struct ovs_16aligned_ip6_hdr *ip6;

    ip6 = dp_packet_push_uninit(packet, IPV6_HEADER_LEN);
    put_16aligned_be32(&ip6->ip6_flow, htonl((6u << 28) | (f->tos << 20)));
    ip6->ip6_plen = htons(l4_len);
    ip6->ip6_nxt = proto;
    ip6->ip6_hlim = f->ttl ? f->ttl : TUNNEL_DEFAULT_TTL;
    memcpy(&ip6->ip6_src, &f->src, sizeof ip6->ip6_src);
    memcpy(&ip6->ip6_dst, &f->dst, sizeof ip6->ip6_dst);

    if (proto == IPPROTO_UDP) {
        struct udp_header *udp = (struct udp_header *) (ip6 + 1);
        uint32_t partial = packet_csum_pseudoheader6(ip6);

        udp->udp_len = htons(l4_len);
        udp->udp_csum = 0;
        udp->udp_csum = csum_finish(csum_continue(partial, udp, l4_len));
        if (!udp->udp_csum) {
            udp->udp_csum = htons(0xffff);
        }
    }
    return ip6;
}

/* Returns the header checksum of 'ip', an IPv4 header without options
 * built on the stack, summed from its fields: inlined, the header stays in
 * registers, where csum() would read it back from memory, behind the stores
 * to the packet's headroom still waiting for their line. */
static inline ovs_be16
outer_ipv4_csum(const struct ip_header *ip)
{
    uint32_t sum = 0;

    sum = csum_add16(sum, htons(ip->ip_ihl_ver << 8 | ip->ip_tos));
    sum = csum_add16(sum, ip->ip_tot_len);
    sum = csum_add16(sum, ip->ip_id);
    sum = csum_add16(sum, ip->ip_frag_off);
    sum = csum_add16(sum, htons(ip->ip_ttl << 8 | ip->ip_proto));
    sum = csum_add32(sum, get_16aligned_be32(&ip->ip_src));
    sum = csum_add32(sum, get_16aligned_be32(&ip->ip_dst));
    return csum_finish(sum);
}

/* Puts the outer IPv4 (or IPv6) header of protocol 'proto' and the
 * Ethernet header on 'packet', whose tunnel header is already pushed, to go
 * via 'u'; completes a UDP header's length and checksum. */
static void
push_outer(struct pmd_thread *t, struct dp_packet *packet, uint8_t proto,
           const struct outer_fields *f, const struct underlay *u)
{
    size_t l4_len = dp_packet_size(packet);
    struct eth_header *eth;
    struct ip_header *ip;
    struct ip_header hdr;
    void *l3;

    if (f->is_ipv6) {
        l3 = push_outer6(packet, proto, f);
        goto eth;
    }
    /* Built aside, summed from its fields and then stored whole: summing
     * it in place would read back the packet's headroom, a line only
     * written so far, and wait for it. */
    hdr.ip_ihl_ver = IP_IHL_VER(5, 4);
    hdr.ip_tos = f->tos;
    hdr.ip_tot_len = htons(l4_len + IP_HEADER_LEN);
    if (f->df) {
        /* As Linux does for a DF packet with no socket. */
        hdr.ip_id = 0;
        hdr.ip_frag_off = htons(IP_DONT_FRAGMENT);
    } else {
        hdr.ip_id = vport_tunnel_ip_id(t, in6_addr_get_mapped_ipv4(&f->src),
                                       in6_addr_get_mapped_ipv4(&f->dst),
                                       proto);
        hdr.ip_frag_off = 0;
    }
    hdr.ip_ttl = f->ttl ? f->ttl : TUNNEL_DEFAULT_TTL;
    hdr.ip_proto = proto;
    put_16aligned_be32(&hdr.ip_src, in6_addr_get_mapped_ipv4(&f->src));
    put_16aligned_be32(&hdr.ip_dst, in6_addr_get_mapped_ipv4(&f->dst));
    hdr.ip_csum = outer_ipv4_csum(&hdr);
    ip = dp_packet_push_uninit(packet, IP_HEADER_LEN);
    memcpy(ip, &hdr, sizeof hdr);
    l3 = ip;

    if (proto == IPPROTO_UDP) {
        struct udp_header *udp = (struct udp_header *) (ip + 1);

        udp->udp_len = htons(l4_len);
        udp->udp_csum = 0;
        if (f->udp_csum) {
            uint32_t partial = packet_csum_pseudoheader(ip);

            udp->udp_csum = csum_finish(csum_continue(partial, udp, l4_len));
            if (!udp->udp_csum) {
                udp->udp_csum = htons(0xffff);
            }
        }
    }

eth:
    eth = dp_packet_push_uninit(packet, ETH_HEADER_LEN);
    eth->eth_dst = u->nh_mac;
    eth->eth_src = u->port_mac;
    eth->eth_type = htons(f->is_ipv6 ? ETH_TYPE_IPV6 : ETH_TYPE_IP);

    packet->packet_type = htonl(PT_ETH);
    dp_packet_reset_offsets(packet);
    dp_packet_set_l3(packet, l3);
}

/* Clears 'packet''s metadata for its trip through the underlay bridge from
 * local port 'port', keeping the packet mark, as the kernel keeps skb->mark
 * across a tunnel. */
static void
set_underlay_metadata(struct dp_packet *packet, const struct dp_port *port)
{
    uint32_t mark = packet->md.pkt_mark;
    uint32_t priority = packet->md.skb_priority;

    pkt_metadata_init(&packet->md, port->port_no);
    packet->md.pkt_mark = mark;
    packet->md.skb_priority = priority;
}

/* Sink for the outer fragments of one packet: the underlay batch. */
static void
flush_underlay(struct dp_packet_batch *batch, void *t_)
{
    struct pmd_thread *t = t_;
    struct dp_packet_batch full = *batch;

    dp_packet_batch_init(batch);
    dp_input_inject(t, &full);
}

/* Appends 'packet' to 'underlay', sending the batch first if it is full. */
static void
underlay_add(struct pmd_thread *t, struct dp_packet_batch *underlay,
             struct dp_packet *packet)
{
    if (dp_packet_batch_is_full(underlay)) {
        flush_underlay(underlay, t);
    }
    dp_packet_batch_add(underlay, packet);
}


/* Where the frames of one packet go while its next hop is unresolved:
 * the thread's queue for that next hop. */
struct queue_sink {
    struct pmd_thread *t;           /* The thread that holds them. */
    const struct underlay *u;       /* Their underlay, 'unresolved'. */
};

/* gso_output callback: hands each frame of 'batch' (outer fragments) to
 * the queue that 'sink_' (a struct queue_sink) names, and empties the
 * batch. */
static void
queue_frames(struct dp_packet_batch *batch, void *sink_)
{
    struct queue_sink *sink = sink_;
    struct dp_packet *frame;

    DP_PACKET_BATCH_FOR_EACH (i, frame, batch) {
        tunnel_neigh_queue_add(sink->t, &sink->u->route, frame);
    }
    dp_packet_batch_init(batch);
}

/* Makes room in front of 'packet' for 'push' bytes of headers, so that
 * pushing them reallocates nothing.  Returns the packet to push them on (a
 * copy, the original freed, if its buffer could not grow in place), or
 * NULL, leaving 'packet' to the caller, if the frame would exceed what a
 * dp_packet holds: an IPv4 datagram has at most 65535 bytes, and OVS 3.1
 * records a packet's allocation in 16 bits, which a larger one wraps
 * (dp_packet_resize()), so the whole frame must fit in them. */
static struct dp_packet *
make_headroom(struct dp_packet *packet, size_t push)
{
    size_t size = dp_packet_size(packet);
    struct dp_packet *copy;

    if (size + push > UINT16_MAX) {
        return NULL;
    }
    if (dp_packet_headroom(packet) >= push) {
        return packet;
    }
    if ((packet->source == DPBUF_MALLOC || packet->source == DPBUF_STUB)
        && dp_packet_tailroom(packet) <= UINT16_MAX - size - push) {
        dp_packet_resize(packet, push, dp_packet_tailroom(packet));
        return packet;
    }
    /* A DPDK or AF_XDP buffer cannot grow (dp_packet_resize() aborts on
     * it), and a buffer with much tailroom would not fit 16 bits: a copy
     * with exactly the room needed. */
    copy = dp_packet_clone_with_headroom(packet, push);
    dp_packet_delete(packet);
    return copy;
}

/* Returns the ECN field of 'packet', an inner packet about to be
 * encapsulated whose IPv4 header vport_tunnel_inner_ipv4() found at 'ip'
 * (NULL if none): that header's, or a bare IPv6 packet's (ipip), or 0. */
static uint8_t
inner_ecn(const struct dp_packet *packet, const struct ip_header *ip)
{
    if (ip) {
        return ip->ip_tos & IP_ECN_MASK;
    }
    if (packet->packet_type == htonl(PT_IPV6)
        && dp_packet_size(packet) >= IPV6_HEADER_LEN) {
        const struct ovs_16aligned_ip6_hdr *ip6 = dp_packet_data(packet);

        return (ntohl(get_16aligned_be32(&ip6->ip6_flow)) >> 20)
               & IP_ECN_MASK;
    }
    return 0;
}

/* Encapsulates one packet (no TSO mark), output to 'vport', whose tunnel
 * header is 'hlen' bytes, and adds the result, one frame or its fragments,
 * to 'underlay'.  '*u' caches the underlay of the previous packet of the
 * batch. */
static void
encapsulate_one(struct pmd_thread *t, struct vport_tunnel *vport,
                struct dp_packet *packet, size_t hlen, struct underlay *u,
                bool *have_u, struct dp_packet_batch *underlay)
{
    const struct flow_tnl *tnl = &packet->md.tunnel;
    uint8_t proto = (vport->ops->outer_proto
                     ? vport->ops->outer_proto(packet)
                     : vport->ops->ip_proto);
    const struct ip_header *inner;
    struct dp_packet *roomy;
    struct outer_fields f;
    size_t inner_len;

    if (!get_underlay(t, vport, packet, u, have_u, underlay)) {
        return;
    }

    f.is_ipv6 = !IN6_IS_ADDR_V4MAPPED(&u->dst);
    f.dst = u->dst;
    if (f.is_ipv6) {
        f.src = ipv6_addr_is_set(&tnl->ipv6_src) ? tnl->ipv6_src : u->src;
    } else if (tnl->ip_src) {
        in6_addr_set_mapped_ipv4(&f.src, tnl->ip_src);
    } else {
        f.src = u->src;
    }
    f.ttl = tnl->ip_ttl;
    f.df = tnl->flags & FLOW_TNL_F_DONT_FRAGMENT;
    f.udp_csum = tnl->flags & FLOW_TNL_F_CSUM;
    f.tos = tnl->ip_tos;
    inner = vport_tunnel_inner_ipv4(packet);
    inner_len = dp_packet_size(packet);
    /* RFC 6040 normal mode, as Linux's INET_ECN_encapsulate(): the outer
     * header copies the inner ECN field, a CE mark becoming ECT(0). */
    if (!(f.tos & IP_ECN_MASK)) {
        uint8_t ecn = inner_ecn(packet, inner);

        f.tos |= ecn == IP_ECN_CE ? IP_ECN_ECT_0 : ecn;
    }
    if (f.is_ipv6
        && ipv6_underlay_too_big(t, vport, packet, hlen, u, &f.src)) {
        return;
    }
    if (inner_len + hlen + outer_l3_len(&f) > u->mtu) {
        if (vport->ops->inner_ipv4_only && !f.is_ipv6 && inner
            && inner->ip_frag_off & htons(IP_DONT_FRAGMENT)) {
            send_frag_needed(t, vport, packet,
                             in6_addr_get_mapped_ipv4(&f.src),
                             u->mtu - IP_HEADER_LEN - hlen);
            return;
        }
        /* The outer packet is fragmented, whatever df_default says, as
         * Linux's ip_tunnel clears DF for an inner packet without it. */
        f.df = false;
    }

    roomy = make_headroom(packet, ETH_HEADER_LEN + outer_l3_len(&f) + hlen);
    if (!roomy) {
        VLOG_DBG_RL(&rl, "%s: dropped a %"PRIuSIZE"-byte packet: "
                    "encapsulated, it would exceed 65535 bytes",
                    netdev_get_name(vport->port->netdev), inner_len);
        tx_drop(t, vport, packet, VPORT_TNL_DROP_TOO_LONG);
        return;
    }
    packet = roomy;
    tnl = &packet->md.tunnel;

    vport_tunnel_port_count(t, vport, NETDEV_IPIP_TX_PACKETS, 1);
    vport_tunnel_port_count(t, vport, NETDEV_IPIP_TX_BYTES, inner_len);
    vport_tunnel_count__(t, VPORT_TNL_TX_ENCAP, 1);

    vport->ops->push(packet, tnl, vport->udp_port,
                     vport_tunnel_exts(vport));
    set_underlay_metadata(packet, u->port);
    push_outer(t, packet, proto, &f, u);
    if (dp_packet_size(packet) - ETH_HEADER_LEN > u->mtu) {
        struct gso_output out = {
            .batch = underlay, .flush = flush_underlay, .aux = t,
        };
        struct queue_sink sink = { .t = t, .u = u };
        struct dp_packet_batch fragments;

        if (u->unresolved) {
            dp_packet_batch_init(&fragments);
            out.batch = &fragments;
            out.flush = queue_frames;
            out.aux = &sink;
        }

        vport_tunnel_count__(t, VPORT_TNL_TX_FRAGMENTED, 1);
        if (f.is_ipv6) {
            /* The source may fragment an IPv6 datagram, as Linux's ip6
             * tunnels do for an inner packet that leaves them no other
             * way.  On failure it has freed the packet. */
            if (ip_fragment_v6(packet, u->mtu, vport_tunnel_ip6_id(t),
                               &out)) {
                vport_tunnel_count__(t, VPORT_TNL_DROP_TOO_BIG, 1);
                vport_tunnel_port_count(t, vport, NETDEV_IPIP_TX_DROPPED, 1);
            }
        } else if (ip_fragment_v4(packet, u->mtu, &out)) {
            /* Not EMSGSIZE, since DF is clear: it has freed the packet. */
            vport_tunnel_count__(t, VPORT_TNL_DROP_TOO_BIG, 1);
            vport_tunnel_port_count(t, vport, NETDEV_IPIP_TX_DROPPED, 1);
        }
        if (u->unresolved) {
            queue_frames(&fragments, &sink);
        }
        return;
    }
    if (u->unresolved) {
        tunnel_neigh_queue_add(t, &u->route, packet);
    } else {
        underlay_add(t, underlay, packet);
    }
}

/* Sink for the segments of a TSO packet: each is encapsulated. */
struct segment_sink {
    struct pmd_thread *t;           /* The thread that outputs them. */
    struct vport_tunnel *vport;     /* The tunnel they are output to. */
    size_t hlen;                    /* Its header length for them. */
    struct underlay *u;             /* The batch's cached underlay. */
    bool *have_u;                   /* Is '*u' valid? */
    struct dp_packet_batch *underlay; /* Where the frames go. */
};

/* gso_output callback: encapsulates each segment of 'segments' as
 * 'sink_' (a struct segment_sink) says, and empties the batch. */
static void
encapsulate_segments(struct dp_packet_batch *segments, void *sink_)
{
    struct segment_sink *sink = sink_;
    struct dp_packet *segment;

    DP_PACKET_BATCH_FOR_EACH (i, segment, segments) {
        encapsulate_one(sink->t, sink->vport, segment, sink->hlen, sink->u,
                        sink->have_u, sink->underlay);
    }
    dp_packet_batch_init(segments);
}

/* Encapsulates each packet of 'batch', output to tunnel port 'port' by 't',
 * and sends the frames into the underlay bridge.  Takes ownership of the
 * packets.  A packet marked for TCP segmentation is segmented first, and
 * each segment encapsulated: the underlay sees ordinary tunnel packets,
 * which any receiver and any netdev take. */
void
vport_tunnel_send(struct pmd_thread *t, struct dp_port *port,
                  struct dp_packet_batch *batch)
{
    struct vport_tunnel *vport = port->tunnel;
    struct dp_packet_batch underlay;
    struct dp_packet *packet;
    struct underlay u;
    bool have_u = false;

    dp_packet_batch_init(&underlay);
    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        const struct flow_tnl *tnl = &packet->md.tunnel;
        struct in6_addr dst;
        size_t hlen;

        if (!vport->ops->prepare(packet, &hlen, vport_tunnel_exts(vport))
            || !tunnel_dst(tnl, &dst)
            || (IN6_IS_ADDR_V4MAPPED(&dst)
                ? vport->ops->ipv6_only : !vport->ops->ipv6_underlay)) {
            tx_drop(t, vport, packet, VPORT_TNL_DROP_TX_INVALID);
            continue;
        }
        if (dp_packet_hwol_is_tso(packet)) {
            struct segment_sink sink = {
                .t = t, .vport = vport, .hlen = hlen, .u = &u,
                .have_u = &have_u, .underlay = &underlay,
            };
            struct dp_packet_batch segments;
            struct gso_output out = {
                .batch = &segments, .flush = encapsulate_segments,
                .aux = &sink,
            };
            const struct ip_header *inner;
            size_t inner_l2;
            uint16_t segsz;

            if (!get_underlay(t, vport, packet, &u, &have_u, &underlay)) {
                continue;
            }
            inner = vport_tunnel_inner_ipv4(packet);
            inner_l2 = inner ? (const char *) inner
                               - (const char *) dp_packet_data(packet) : 0;
            /* Segments no larger than the sender's, as GRO recorded them,
             * and small enough for the tunnel's path MTU once inside the
             * inner Ethernet, tunnel and outer IPv4 headers. */
            segsz = gso_segsz_for_mtu(packet,
                                      u.mtu - hlen - inner_l2
                                      - (IN6_IS_ADDR_V4MAPPED(&u.dst)
                                         ? IP_HEADER_LEN : IPV6_HEADER_LEN));
            if (tso_segsz_get(packet)) {
                segsz = MIN(segsz, tso_segsz_get(packet));
            }
            dp_packet_batch_init(&segments);
            if (!gso_segment(packet, segsz, &out,
                             dp_gso_thread_stats(t->dp->gso, t->index))) {
                encapsulate_segments(&segments, &sink);
            }
            continue;
        }
        /* A partial checksum (from a tap's vnet header) cannot be left to
         * the underlay once the packet is inside another header. */
        if (dp_packet_hwol_l4_mask(packet)
            && !gso_complete_csum_or_drop(
                   packet, dp_gso_thread_stats(t->dp->gso, t->index))) {
            continue;
        }
        encapsulate_one(t, vport, packet, hlen, &u, &have_u, &underlay);
    }
    dp_packet_batch_init(batch);
    if (!dp_packet_batch_is_empty(&underlay)) {
        dp_input_inject(t, &underlay);
    }
}

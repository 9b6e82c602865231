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

/* The receive side of the tunnel layer: decapsulation of the tunnel
 * packets output to a port that holds their address, outer reassembly, the
 * per-thread receive cells and their flush at the end of a round. */

#include <config.h>
#include "vport-tunnel.h"

#include <netinet/in.h>
#include <netinet/ip6.h>

#include "csum.h"
#include "datapath.h"
#include "dp-input.h"
#include "dp-ipf.h"
#include "dp-packet.h"
#include "dp-port.h"
#include "gro-cell.h"
#include "ipf-cpu.h"
#include "netdev.h"
#include "netdev-ipip.h"
#include "openvswitch/vlog.h"
#include "ovs-rcu.h"
#include "packets.h"
#include "pmd.h"
#include "util.h"
#include "vport-tunnel-private.h"

VLOG_DEFINE_THIS_MODULE(vport_tunnel_rx);

/* Packets a thread's GRO cell may hold, held and ready together, before it
 * drops: a round receives at most a batch per queue, so this is reached
 * only if the lookup falls far behind. */
#define TUNNEL_GRO_BACKLOG 256

/* Rate limit of the error logs of the forwarding threads. */
static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

/* Drops 'packet', received on 'vport' by 't', for 'reason'. */
static void
rx_drop(struct pmd_thread *t, struct vport_tunnel *vport,
        struct dp_packet *packet, enum vport_tunnel_counter reason)
{
    vport_tunnel_drop(t, vport, packet, reason, NETDEV_IPIP_RX_ERRORS);
}

/* Destination options Linux's IPv6 stack walks in one header
 * (net.ipv6.max_dst_opts_number's default), padding aside. */
#define IPIP6_MAX_DST_OPTS 8

/* Checks the destination options header at 'hdr', with the 'plen' bytes of
 * the outer payload from there (all present), as the one header Linux's
 * ip6tnl puts before the inner packet of ipip over IPv6 by default: its
 * tunnel encapsulation limit (RFC 2473 section 5.1, option type 4, with a
 * PadN).  Its next header must be 4 or 41 (else VPORT_TNL_DROP_IPV6_EXT:
 * any chain before UDP or GRE, a second header), its length within the
 * payload (VPORT_TNL_DROP_TRUNCATED).  Its options are walked as Linux's
 * receive walks them: Pad1 and PadN of at most 7 bytes in a row, PadN
 * bytes zero, every option within the header, at most IPIP6_MAX_DST_OPTS
 * others (else VPORT_TNL_DROP_BAD_HEADER); an option whose two high bits,
 * its action (RFC 8200 section 4.2), are 00 is skipped, the encapsulation
 * limit among them (it limits what a tunnel entry point adds, not what an
 * exit point takes); any other action drops the packet
 * (VPORT_TNL_DROP_IPV6_OPTION), without the ICMPv6 parameter problem that
 * actions 10 and 11 ask for. */
static enum vport_tunnel_counter
check_ipip6_dstopts(const uint8_t *hdr, size_t plen)
{
    size_t len, pad = 0;
    int n_opts = 0;

    if (plen < 8) {
        return VPORT_TNL_DROP_TRUNCATED;
    }
    if (hdr[0] != IPPROTO_IPIP && hdr[0] != IPPROTO_IPV6) {
        return VPORT_TNL_DROP_IPV6_EXT;
    }
    len = (hdr[1] + 1) * 8;
    if (len > plen) {
        return VPORT_TNL_DROP_TRUNCATED;
    }
    for (size_t i = 2; i < len;) {
        uint8_t type = hdr[i];
        size_t olen;

        if (type == IP6OPT_PAD1) {
            if (++pad > 7) {
                return VPORT_TNL_DROP_BAD_HEADER;
            }
            i++;
            continue;
        }
        if (len - i < 2 || hdr[i + 1] > len - i - 2) {
            return VPORT_TNL_DROP_BAD_HEADER;
        }
        olen = hdr[i + 1];
        if (type == IP6OPT_PADN) {
            pad += olen + 2;
            if (pad > 7) {
                return VPORT_TNL_DROP_BAD_HEADER;
            }
            for (size_t j = 0; j < olen; j++) {
                if (hdr[i + 2 + j]) {
                    return VPORT_TNL_DROP_BAD_HEADER;
                }
            }
        } else {
            pad = 0;
            if (++n_opts > IPIP6_MAX_DST_OPTS) {
                return VPORT_TNL_DROP_BAD_HEADER;
            }
            if (type & 0xc0) {
                return VPORT_TNL_DROP_IPV6_OPTION;
            }
        }
        i += 2 + olen;
    }
    return 0;
}

/* Checks 'ip6', the outer IPv6 header of 'packet' (IPV6_HEADER_LEN bytes
 * of it present): payload length against the bytes present (0, a jumbo
 * payload, is not carried: OVS's parsers take none), and no extension
 * header before the tunnel's own but, for ipip, the one destination
 * options header Linux's ip6tnl sends (check_ipip6_dstopts()).  OVS's
 * parsers would take hop-by-hop or destination options before UDP or GRE,
 * but compute the UDP checksum's pseudo-header over the whole payload
 * length, extension headers included, so that such a packet would fail as
 * a bad checksum: it is refused and counted here. */
static enum vport_tunnel_counter
check_outer6(const struct dp_packet *packet,
             const struct ovs_16aligned_ip6_hdr *ip6)
{
    size_t avail = (const char *) dp_packet_tail(packet) - (const char *) ip6;
    size_t plen = ntohs(ip6->ip6_plen);

    if (!plen) {
        return VPORT_TNL_DROP_BAD_HEADER;
    }
    if (plen > avail - IPV6_HEADER_LEN) {
        return VPORT_TNL_DROP_TRUNCATED;
    }
    if (ip6->ip6_nxt == IPPROTO_DSTOPTS) {
        return check_ipip6_dstopts((const uint8_t *) ip6 + IPV6_HEADER_LEN,
                                   plen);
    }
    if (ip6->ip6_nxt != IPPROTO_UDP && ip6->ip6_nxt != IPPROTO_GRE
        && ip6->ip6_nxt != IPPROTO_IPIP && ip6->ip6_nxt != IPPROTO_IPV6
        && ip6->ip6_nxt != IPPROTO_FRAGMENT) {
        /* (A fragment header goes to reassembly, whose datagram has
         * none.) */
        return VPORT_TNL_DROP_IPV6_EXT;
    }
    return 0;
}

/* Checks 'outer', the outer IPv4 header of 'packet', an Ethernet frame:
 * version, header and total lengths against the bytes present, header
 * checksum; or, in a frame of Ethertype IPv6, an outer IPv6 header (version
 * 6, at least IPV6_HEADER_LEN bytes) as check_outer6() does.  Returns 0 if
 * it is sound, else the counter to drop the packet with. */
enum vport_tunnel_counter
vport_tunnel_check_outer(const struct dp_packet *packet, const void *outer)
{
    const struct eth_header *eth = dp_packet_data(packet);
    const struct ip_header *ip = outer;
    size_t avail = (const char *) dp_packet_tail(packet) - (const char *) ip;
    size_t ihl = IP_IHL(ip->ip_ihl_ver) * 4;
    size_t tot_len = ntohs(ip->ip_tot_len);

    if (eth->eth_type == htons(ETH_TYPE_IPV6)) {
        return (IP_VER(ip->ip_ihl_ver) == 6 && avail >= IPV6_HEADER_LEN
                ? check_outer6(packet, outer)
                : VPORT_TNL_DROP_BAD_HEADER);
    }
    if (IP_VER(ip->ip_ihl_ver) != 4 || ihl < IP_HEADER_LEN) {
        return VPORT_TNL_DROP_BAD_HEADER;
    }
    if (avail < ihl || tot_len > avail) {
        return VPORT_TNL_DROP_TRUNCATED;
    }
    if (tot_len < ihl) {
        return VPORT_TNL_DROP_BAD_HEADER;
    }
    if (!(*dp_packet_ol_flags_ptr(packet) & DP_PACKET_OL_RX_IP_CKSUM_GOOD)
        && csum(ip, ihl)) {
        return VPORT_TNL_DROP_BAD_CSUM;
    }
    return 0;
}

/* Applies RFC 6040 decapsulation to 'inner', whose outer header had TOS
 * 'outer_tos': a congestion mark on the outer header is copied to an
 * ECN-capable inner one.  Returns false if the packet must be dropped: CE
 * outside, not-ECT inside. */
bool
vport_tunnel_ecn_decapsulate(struct ip_header *inner, uint8_t outer_tos)
{
    uint8_t tos = inner->ip_tos;

    if ((outer_tos & IP_ECN_MASK) != IP_ECN_CE
        || (tos & IP_ECN_MASK) == IP_ECN_CE) {
        return true;
    }
    if (!(tos & IP_ECN_MASK)) {
        return false;
    }
    inner->ip_csum = recalc_csum16(inner->ip_csum, htons(tos),
                                   htons(tos | IP_ECN_CE));
    inner->ip_tos = tos | IP_ECN_CE;
    return true;
}

/* Returns the IPv4 header of 'packet', a bare IPv4 packet or an untagged
 * Ethernet frame carrying IPv4, if IP_HEADER_LEN bytes of it are there;
 * else NULL. */
struct ip_header *
vport_tunnel_inner_ipv4(struct dp_packet *packet)
{
    uint8_t *data = dp_packet_data(packet);
    size_t size = dp_packet_size(packet);

    if (packet->packet_type == htonl(PT_IPV4)) {
        return size >= IP_HEADER_LEN ? (struct ip_header *) data : NULL;
    }
    if (packet->packet_type == htonl(PT_ETH)
        && size >= ETH_HEADER_LEN + IP_HEADER_LEN
        && ((struct eth_header *) data)->eth_type == htons(ETH_TYPE_IP)) {
        return (struct ip_header *) (data + ETH_HEADER_LEN);
    }
    return NULL;
}

/* Initializes the metadata of 'packet' for a packet received on tunnel port
 * 'port_no', with every tunnel field zero, for the caller to fill in.
 * (pkt_metadata_init() zeroes only the tunnel destination, which marks a
 * packet as not from a tunnel.) */
void
vport_tunnel_init_metadata(struct dp_packet *packet, odp_port_t port_no,
                           odp_port_t orig_in_port)
{
    struct pkt_metadata *md = &packet->md;

    memset(md, 0, offsetof(struct pkt_metadata, tunnel.metadata.opts));
    md->in_port.odp_port = port_no;
    md->orig_in_port = orig_in_port;
}

/* Decapsulates 'packet' with the pop_header function of OVS's netdev-vport
 * class of 'netdev' (netdev_pop_header()), which parses the UDP, VXLAN,
 * Geneve or GRE header and fills in the tunnel metadata (tun_src and
 * tun_dst, or tun_ipv6_src and tun_ipv6_dst), then applies RFC 6040 to an
 * inner IPv4 header and sets the input port.  'outer' is the sound,
 * unfragmented outer IPv4 header, or an outer IPv6 header with no
 * extension header (vport_tunnel_check_outer()).  Returns the inner packet,
 * or NULL having freed 'packet' and set '*drop'.  Touches nothing but the
 * packet.  As OVS's parsers, takes a zero UDP checksum over IPv6 (RFC 6935,
 * as Linux's vxlan and geneve ports that OVS creates do). */
struct dp_packet *
vport_tunnel_pop_netdev(struct netdev *netdev, struct dp_packet *packet,
                        const void *outer_, odp_port_t port_no,
                        odp_port_t rx_port, enum vport_tunnel_counter *drop)
{
    const struct ip_header *outer = outer_;
    bool is_ipv6 = IP_VER(outer->ip_ihl_ver) == 6;
    size_t ihl, tot_len;
    uint8_t outer_tos;
    struct dp_packet_batch batch;
    struct ip_header *inner;

    if (is_ipv6) {
        const struct ovs_16aligned_ip6_hdr *ip6 = outer_;

        ihl = IPV6_HEADER_LEN;
        tot_len = IPV6_HEADER_LEN + ntohs(ip6->ip6_plen);
        outer_tos = ntohl(get_16aligned_be32(&ip6->ip6_flow)) >> 20;
    } else {
        ihl = IP_IHL(outer->ip_ihl_ver) * 4;
        tot_len = ntohs(outer->ip_tot_len);
        outer_tos = outer->ip_tos;
    }
    if (!is_ipv6 && ihl != IP_HEADER_LEN) {
        /* OVS's parsers take no IP options (and log each such packet). */
        *drop = VPORT_TNL_DROP_BAD_HEADER;
        goto drop;
    }
    if ((const char *) outer - (const char *) dp_packet_data(packet)
        != ETH_HEADER_LEN) {
        /* The parsers expect an untagged frame. */
        eth_pop_vlan(packet);
    }
    /* Ethernet padding is not part of the datagram (nor of its UDP
     * checksum). */
    dp_packet_set_size(packet, ETH_HEADER_LEN + tot_len);
    dp_packet_set_l3(packet, (char *) dp_packet_data(packet) + ETH_HEADER_LEN);
    dp_packet_set_l4(packet, (char *) dp_packet_l3(packet) + ihl);
    packet->md.in_port.odp_port = rx_port;
    if (dp_packet_hwol_l4_mask(packet)) {
        /* A local sender (a veth peer, a tap) left its UDP or GRE checksum
         * partial, as Linux's vxlan does with udpcsum over a veth: the
         * field holds the pseudo-header sum.  Like Linux with
         * CHECKSUM_PARTIAL, trust it rather than verify it. */
        *dp_packet_ol_flags_ptr(packet) |= DP_PACKET_OL_RX_L4_CKSUM_GOOD;
    }

    dp_packet_batch_init_packet(&batch, packet);
    netdev_pop_header(netdev, &batch);
    if (dp_packet_batch_is_empty(&batch)) {
        *drop = VPORT_TNL_DROP_BAD_HEADER;
        return NULL;
    }
    packet = batch.packets[0];
    packet->md.in_port.odp_port = port_no;
    packet->md.orig_in_port = rx_port;

    inner = vport_tunnel_inner_ipv4(packet);
    if (inner && IP_VER(inner->ip_ihl_ver) == 4
        && !vport_tunnel_ecn_decapsulate(inner, outer_tos)) {
        *drop = VPORT_TNL_DROP_ECN;
        goto drop;
    }
    return packet;

drop:
    dp_packet_delete(packet);
    return NULL;
}

/* Returns 't''s receive cell for 'vport', on the thread's active list.  The
 * list has no bound (a thread may fill the cells of every tunnel port in
 * one round) and is only ever pushed and popped at its head, so that a
 * cell filled again while the list is flushed is simply flushed again. */
static struct vport_tunnel_rx *
rx_cell(struct pmd_thread *t, struct vport_tunnel *vport)
{
    struct vport_tunnel_rx *rx = &vport->rx[t->index % vport->n_threads];

    if (!rx->active) {
        struct vport_tunnel_thread *tt = vport_tunnel_thread_state(t);

        rx->active = true;
        rx->next_active = tt->active;
        tt->active = rx;
        tt->n_active++;
    }
    return rx;
}

/* Forwards 'batch', packets from 't''s receive cell 'rx', at the nesting
 * level of the cell. */
static void
rx_deliver(struct pmd_thread *t, struct vport_tunnel_rx *rx,
           struct dp_packet_batch *batch)
{
    struct vport_tunnel_thread *tt = vport_tunnel_thread_state(t);
    unsigned int outer = tt->nesting;

    tt->nesting = rx->level;
    dp_input_tunnel(t, batch);
    tt->nesting = outer;
}

/* Returns true if 't' may receive one more packet on 'vport' from the
 * packets it is forwarding: not if they were decapsulated
 * VPORT_TUNNEL_MAX_NESTING times in a row already.  Otherwise drops
 * 'packet' and counts it. */
bool
vport_tunnel_rx_nesting_ok(struct pmd_thread *t, struct vport_tunnel *vport,
                           struct dp_packet *packet)
{
    unsigned int nesting = vport_tunnel_thread_state(t)->nesting;

    if (OVS_LIKELY(nesting < VPORT_TUNNEL_MAX_NESTING)) {
        return true;
    }
    VLOG_DBG_RL(&rl, "%s: dropped a packet decapsulated %u times in a row",
                netdev_get_name(vport->port->netdev), nesting + 1);
    vport_tunnel_drop(t, vport, packet, VPORT_TNL_DROP_NESTING,
                      NETDEV_IPIP_RX_DROPPED);
    return false;
}

/* Hands decapsulated 'packet' to 't''s receive cell of 'vport'.  The caller
 * checked vport_tunnel_rx_nesting_ok(). */
void
vport_tunnel_rx_enqueue(struct pmd_thread *t, struct vport_tunnel *vport,
                        struct dp_packet *packet)
{
    struct vport_tunnel_rx *rx = rx_cell(t, vport);

    rx->level = MAX(rx->level, vport_tunnel_thread_state(t)->nesting + 1);
    if (!vport->ops->gro_enabled
        || vport->ops->gro_enabled(vport->port->netdev)) {
        struct gro_cell *gro = ovsrcu_get(struct gro_cell *, &rx->gro);

        if (!gro) {
            gro = gro_cell_create(TUNNEL_GRO_BACKLOG);
            ovsrcu_set(&rx->gro, gro);
        }
        if (gro_cell_backlog(gro) >= TUNNEL_GRO_BACKLOG) {
            vport_tunnel_count__(t, VPORT_TNL_DROP_GRO_BACKLOG, 1);
        }
        gro_cell_receive(gro, packet);
    } else {
        if (dp_packet_batch_is_full(&rx->plain)) {
            struct dp_packet_batch full = rx->plain;

            dp_packet_batch_init(&rx->plain);
            rx_deliver(t, rx, &full);
        }
        dp_packet_batch_add(&rx->plain, packet);
    }
}

/* Decapsulates 'packet', a tunnel packet of 'vport' whose outer IPv4 or
 * IPv6 header is 'ip' and which came in on port 'rx_port', into 't''s
 * receive cell, or drops and counts it. */
static void
rx_decapsulate(struct pmd_thread *t, struct vport_tunnel *vport,
               struct dp_packet *packet, const void *ip,
               odp_port_t rx_port)
{
    enum vport_tunnel_counter drop;

    if (!vport_tunnel_rx_nesting_ok(t, vport, packet)) {
        return;
    }
    drop = vport_tunnel_check_outer(packet, ip);
    if (drop) {
        VLOG_DBG_RL(&rl, "%s: dropped malformed %s packet",
                    netdev_get_name(vport->port->netdev), vport->ops->type);
        rx_drop(t, vport, packet, drop);
        return;
    }
    packet = vport->ops->decapsulate(vport->port->netdev, packet, ip,
                                     vport->port->port_no, rx_port, &drop);
    if (!packet) {
        vport_tunnel_count__(t, drop, 1);
        vport_tunnel_port_count(t, vport, NETDEV_IPIP_RX_ERRORS, 1);
        return;
    }
    vport_tunnel_count__(t, VPORT_TNL_RX_DECAP, 1);
    vport_tunnel_port_count(t, vport, NETDEV_IPIP_RX_PACKETS, 1);
    vport_tunnel_port_count(t, vport, NETDEV_IPIP_RX_BYTES,
                            dp_packet_size(packet));
    vport_tunnel_rx_enqueue(t, vport, packet);
}

/* Gives 'packet', an outer fragment of a tunnel datagram (of 'vport', if
 * known) that came in on 'rx_port', to 't''s reassembly table, and
 * decapsulates the datagram it completes.  Returns NULL, or a datagram it
 * completed that turns out to be no tunnel's, whole, for the caller to
 * deliver. */
static struct dp_packet *
rx_fragment(struct pmd_thread *t, const struct vport_tunnel_endpoints *eps,
            struct vport_tunnel *vport, struct dp_packet *packet,
            odp_port_t rx_port)
{
    const struct ip_header *ip = dp_packet_l3(packet);
    enum vport_tunnel_counter drop = vport_tunnel_check_outer(packet, ip);
    const uint8_t *l4;
    size_t l4_len;

    if (drop) {
        if (vport) {
            rx_drop(t, vport, packet, drop);
        } else {
            vport_tunnel_count__(t, drop, 1);
            dp_packet_delete(packet);
        }
        return NULL;
    }
    vport_tunnel_count__(t, VPORT_TNL_RX_FRAGMENTS, 1);
    packet = ipf_cpu_reassemble(dp_ipf_thread_table(t), packet, t->now);
    if (!packet) {
        return NULL;
    }
    vport_tunnel_count__(t, VPORT_TNL_RX_REASSEMBLED, 1);
    ip = dp_packet_l3(packet);
    if (IP_VER(ip->ip_ihl_ver) == 6) {
        vport = vport_tunnel_find_endpoint6(eps, packet);
    } else {
        l4 = vport_tunnel_outer_l4(packet, ip, &l4_len);
        vport = vport_tunnel_find_endpoint(eps, ip->ip_proto, l4, l4_len,
                                           get_16aligned_be32(&ip->ip_src),
                                           get_16aligned_be32(&ip->ip_dst));
    }
    if (!vport) {
        /* Only a first fragment that is a tunnel's is ever held, so this
         * takes a table that changed meanwhile. */
        return packet;
    }
    rx_decapsulate(t, vport, packet, ip, rx_port);
    return NULL;
}

/* Takes 'packet', which the flows output to the port numbered 'port_no'
 * with MAC 'port_mac', if it is a tunnel packet for that port: decapsulates
 * it into 't''s receive cell of its vport, or holds it for reassembly, or
 * drops and counts it.  Returns the packet to deliver to the port (the one
 * given, or a datagram reassembled for nothing), or NULL. */
static struct dp_packet *
terminate_one(struct pmd_thread *t, const struct vport_tunnel_endpoints *eps,
              odp_port_t port_no, struct eth_addr port_mac,
              struct dp_packet *packet)
{
    odp_port_t rx_port = packet->md.in_port.odp_port;
    struct vport_tunnel *vport;
    struct dp_packet *copy;

    switch (vport_tunnel_classify(eps, port_no, port_mac,
                                  vport_tunnel_thread_state(t), t->now,
                                  packet, &vport)) {
    case VPORT_TUNNEL_OURS:
        rx_decapsulate(t, vport, packet, dp_packet_l3(packet), rx_port);
        return NULL;

    case VPORT_TUNNEL_FRAGMENT:
        return rx_fragment(t, eps, vport, packet, rx_port);

    case VPORT_TUNNEL_FRAGMENT_UNKNOWN:
        /* Delivered at once, whatever it is.  If its datagram is a
         * tunnel's after all (its first fragment comes later), the copy
         * lets it complete here; if not, the copy ages out of the table,
         * and the host, which got every fragment, reassembles it. */
        if (!vport_tunnel_check_outer(packet, dp_packet_l3(packet))) {
            vport_tunnel_count__(t, VPORT_TNL_RX_FRAGMENTS_COPIED, 1);
            copy = rx_fragment(t, eps, NULL, dp_packet_clone(packet),
                               rx_port);
            dp_packet_delete(copy);
        }
        return packet;

    case VPORT_TUNNEL_NOT_OURS:
    default:
        return packet;
    }
}

/* Takes out of 'batch', which the flows of 't' output to 'port', the tunnel
 * packets addressed to one of 'port''s addresses: each is decapsulated
 * into 't''s receive cell of its vport (or held for reassembly, or dropped
 * and counted), as the kernel's IP stack hands them to its tunnel sockets.
 * Everything else stays in 'batch', intact, to be delivered to the port.
 * Called only for a port with dp_port_terminates_tunnels().
 *
 * May forward packets before it returns (a full receive batch of a vport
 * with gro=false), and so flush 't''s output queues. */
void
vport_tunnel_terminate(struct pmd_thread *t, struct dp_port *port,
                       struct dp_packet_batch *batch)
{
    const struct vport_tunnel_endpoints *eps;
    size_t i, size = dp_packet_batch_size(batch);
    struct dp_packet *packet;
    struct eth_addr mac;
    int mtu;

    eps = ovsrcu_get(struct vport_tunnel_endpoints *,
                     &t->dp->tunnel->endpoints);
    if (!eps) {
        return;
    }
    dp_port_get_link(port, &mac, &mtu);
    DP_PACKET_BATCH_REFILL_FOR_EACH (i, size, packet, batch) {
        packet = terminate_one(t, eps, port->port_no, mac, packet);
        if (packet) {
            dp_packet_batch_refill(batch, packet, i);
        }
    }
}

/* Ends 't''s round for its tunnel receive cells: everything they hold goes
 * through the flow lookup as received on its vport.  A cell that this
 * refills (a tunnel whose packets come back into it, or into another
 * tunnel) is flushed again, its packets one nesting level deeper each
 * time, so that the loop ends at VPORT_TUNNEL_MAX_NESTING. */
void
vport_tunnel_flush(struct pmd_thread *t)
{
    struct vport_tunnel_thread *tt = vport_tunnel_thread_state(t);

    while (tt->active) {
        struct vport_tunnel_rx *rx = tt->active;
        struct gro_cell *gro = ovsrcu_get(struct gro_cell *, &rx->gro);

        tt->active = rx->next_active;
        tt->n_active--;
        rx->next_active = NULL;
        rx->active = false;

        if (gro) {
            struct dp_packet_batch batch;

            gro_cell_flush(gro);
            for (;;) {
                dp_packet_batch_init(&batch);
                if (!gro_cell_pop(gro, &batch)) {
                    break;
                }
                rx_deliver(t, rx, &batch);
            }
        }
        if (!dp_packet_batch_is_empty(&rx->plain)) {
            struct dp_packet_batch batch = rx->plain;

            dp_packet_batch_init(&rx->plain);
            rx_deliver(t, rx, &batch);
        }
        if (!rx->active) {
            /* Nothing came back into it: it is empty. */
            rx->level = 0;
        }
    }
}

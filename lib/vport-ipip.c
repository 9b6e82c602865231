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

#include <errno.h>
#include <netinet/in.h>

#include "csum.h"
#include "datapath.h"
#include "dp-input.h"
#include "dp-ipf.h"
#include "dp-packet.h"
#include "dp-port.h"
#include "gro-cell.h"
#include "gso.h"
#include "ip-fragment.h"
#include "ipf-cpu.h"
#include <net/if.h>

#include "netdev.h"
#include "netdev-ipip.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "ovs-router.h"
#include "tnl-neigh-cache.h"
#include "packets.h"
#include "pmd.h"
#include "tso-segsz.h"
#include "tunnel-neigh.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(vport_ipip);

/* IP protocol number of IPv4-in-IPv4 (RFC 2003). */
#define IPPROTO_IPIP_ 4

/* Length of the outer IPv4 header this datapath adds (no options). */
#define IPIP_HLEN IP_HEADER_LEN

/* Default outer TTL when the tunnel metadata carries none, as Linux's
 * ip_tunnel uses the route's hop limit (64 by default). */
#define IPIP_DEFAULT_TTL 64

/* Packets a thread's GRO cell may hold, held and ready together, before it
 * drops: a round receives at most a batch per queue, so this is reached
 * only if the lookup falls far behind. */
#define IPIP_GRO_BACKLOG 256

/* One thread's receive state for one vport.  Written only by the thread
 * whose index it has; padded to whole cache lines so that threads do not
 * share a line. */
struct vport_ipip_rx {
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        struct vport_ipip *vport;   /* Owner. */

        /* Created by the owning thread at its first GRO packet; NULL until
         * then.  Read by the main thread for its counters. */
        OVSRCU_TYPE(struct gro_cell *) gro;

        struct dp_packet_batch plain; /* Decapsulated, not for GRO. */
        bool active;                /* In the thread's 'active_tunnels'. */
    );
};

/* The datapath side of one ipip port. */
struct vport_ipip {
    struct dp_port *port;           /* The port; its netdev is an ipip. */
    size_t n_threads;               /* Elements in 'rx'. */
    struct vport_ipip_rx *rx;       /* One per forwarding thread. */
    const void *config_seen;        /* Main thread: the netdev config the
                                     * endpoint table was built from. */
};

/* One way in: packets from 'remote' (0: any, remote_ip=flow) to 'local'
 * (0: any local address) are received on 'vport'. */
struct ipip_endpoint {
    ovs_be32 local;
    ovs_be32 remote;
    struct vport_ipip *vport;
};

/* Every way into the datapath's ipip vports, as the forwarding threads see
 * it.  Immutable once published; replaced whole by the main thread. */
struct ipip_endpoints {
    size_t n;                       /* Elements in 'e'. */
    struct ipip_endpoint *e;
    size_t n_local;                 /* Elements in 'local_addrs'. */
    ovs_be32 *local_addrs;          /* Addresses of the datapath's internal
                                     * ports, for vports with no local_ip. */
};

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

/* Creates the datapath side of ipip port 'port', for 'n_threads'
 * forwarding threads. */
struct vport_ipip *
vport_ipip_create(struct dp_port *port, size_t n_threads)
{
    struct vport_ipip *vport = xzalloc(sizeof *vport);

    vport->port = port;
    vport->n_threads = n_threads;
    vport->rx = xzalloc_cacheline(n_threads * sizeof *vport->rx);
    for (size_t i = 0; i < n_threads; i++) {
        vport->rx[i].vport = vport;
        dp_packet_batch_init(&vport->rx[i].plain);
    }
    return vport;
}

/* Frees 'vport', once no forwarding thread can see it (after an RCU grace
 * period).  Accepts NULL. */
void
vport_ipip_destroy(struct vport_ipip *vport)
{
    if (!vport) {
        return;
    }
    for (size_t i = 0; i < vport->n_threads; i++) {
        gro_cell_destroy(ovsrcu_get_protected(struct gro_cell *,
                                              &vport->rx[i].gro));
        dp_packet_delete_batch(&vport->rx[i].plain, true);
    }
    free_cacheline(vport->rx);
    free(vport);
}

static void
ipip_endpoints_free(struct ipip_endpoints *eps)
{
    if (eps) {
        free(eps->e);
        free(eps->local_addrs);
        free(eps);
    }
}

/* Appends the IPv4 addresses of 'port''s netdev to 'eps'. */
static void
add_local_addrs(struct ipip_endpoints *eps, size_t *allocated,
                const struct dp_port *port)
{
    struct in6_addr *addrs, *masks;
    int n_addrs;

    if (netdev_get_addr_list(port->netdev, &addrs, &masks, &n_addrs)) {
        return;
    }
    for (int i = 0; i < n_addrs; i++) {
        ovs_be32 ip = in6_addr_get_mapped_ipv4(&addrs[i]);

        if (ip) {
            if (eps->n_local == *allocated) {
                eps->local_addrs = x2nrealloc(eps->local_addrs, allocated,
                                              sizeof *eps->local_addrs);
            }
            eps->local_addrs[eps->n_local++] = ip;
        }
    }
    free(addrs);
    free(masks);
}

static bool
ipip_endpoints_equal(const struct ipip_endpoints *a,
                     const struct ipip_endpoints *b)
{
    return a && b && a->n == b->n && a->n_local == b->n_local
           && !memcmp(a->e, b->e, a->n * sizeof *a->e)
           && !memcmp(a->local_addrs, b->local_addrs,
                      a->n_local * sizeof *a->local_addrs);
}

/* Rebuilds the endpoint table of 'dp' from its ipip ports' options and its
 * internal ports' addresses, and publishes it if it changed.  Main thread,
 * under 'dp->reconfig_mutex'. */
void
vport_ipip_publish_endpoints(struct datapath *dp)
{
    struct ipip_endpoints *old = ovsrcu_get_protected(struct ipip_endpoints *,
                                                      &dp->ipip_endpoints);
    struct ipip_endpoints *eps = xzalloc(sizeof *eps);
    size_t allocated = 0, allocated_local = 0;
    bool need_local = false;
    struct dp_port *port;

    CMAP_FOR_EACH (port, node, &dp->ports) {
        const struct netdev_ipip_config *cfg;
        struct ipip_endpoint *e;

        if (!port->ipip) {
            continue;
        }
        cfg = netdev_ipip_get_config(port->netdev);
        port->ipip->config_seen = cfg;
        if (!cfg) {
            continue;
        }
        if (eps->n == allocated) {
            eps->e = x2nrealloc(eps->e, &allocated, sizeof *eps->e);
        }
        e = &eps->e[eps->n++];
        memset(e, 0, sizeof *e);
        e->local = cfg->local_ip_flow ? 0 : cfg->local_ip;
        e->remote = cfg->remote_ip_flow ? 0 : cfg->remote_ip;
        e->vport = port->ipip;
        need_local |= !e->local;
    }
    if (need_local) {
        CMAP_FOR_EACH (port, node, &dp->ports) {
            if (port->is_internal) {
                add_local_addrs(eps, &allocated_local, port);
            }
        }
    }

    if (!eps->n) {
        ipip_endpoints_free(eps);
        eps = NULL;
    } else if (ipip_endpoints_equal(old, eps)) {
        ipip_endpoints_free(eps);
        return;
    }
    ovsrcu_set(&dp->ipip_endpoints, eps);
    ovsrcu_postpone(ipip_endpoints_free, old);
}

/* Main thread: republishes the endpoint table when an ipip port's options
 * changed (the netdev replaces its config on every change) and, once a
 * second, in case a local address changed. */
void
vport_ipip_run(struct datapath *dp)
{
    static long long int next_refresh;
    long long int now = time_msec();
    bool changed = now >= next_refresh;
    struct dp_port *port;

    CMAP_FOR_EACH (port, node, &dp->ports) {
        if (port->ipip
            && port->ipip->config_seen
               != netdev_ipip_get_config(port->netdev)) {
            changed = true;
        }
    }
    if (changed) {
        next_refresh = now + 1000;
        vport_ipip_publish_endpoints(dp);
    }
}

static bool
is_local_addr(const struct ipip_endpoints *eps, ovs_be32 ip)
{
    for (size_t i = 0; i < eps->n_local; i++) {
        if (eps->local_addrs[i] == ip) {
            return true;
        }
    }
    return false;
}

/* Returns the vport that receives IPIP packets from 'src' to 'dst', or NULL
 * if 'dst' is not a local tunnel endpoint.  As the kernel's ip_tunnel
 * lookup, an exact (local, remote) match wins over remote_ip=flow, which
 * wins over a vport with no local_ip. */
static struct vport_ipip *
find_endpoint(const struct ipip_endpoints *eps, ovs_be32 src, ovs_be32 dst)
{
    struct vport_ipip *best = NULL;
    int best_score = 0;

    for (size_t i = 0; i < eps->n; i++) {
        const struct ipip_endpoint *e = &eps->e[i];
        int score;

        if (e->remote && e->remote != src) {
            continue;
        }
        if (e->local) {
            if (e->local != dst) {
                continue;
            }
            score = e->remote ? 4 : 3;
        } else {
            if (!is_local_addr(eps, dst)) {
                continue;
            }
            score = e->remote ? 2 : 1;
        }
        if (score > best_score) {
            best = e->vport;
            best_score = score;
        }
    }
    return best;
}

/* Returns the outer IPv4 header of 'packet' if it is an Ethernet frame
 * (untagged or with one 802.1Q tag) carrying IPv4 of protocol 4, and sets
 * its l3_ofs; else returns NULL.  Guarantees only that IP_HEADER_LEN bytes
 * follow the returned header: vport_ipip_check_outer() checks the rest.
 * Looks only at bytes, before any key extraction: it runs on every packet
 * when the datapath has ipip ports. */
struct ip_header *
vport_ipip_outer_header(struct dp_packet *packet)
{
    const uint8_t *data = dp_packet_data(packet);
    size_t size = dp_packet_size(packet);
    size_t l3 = ETH_HEADER_LEN;
    ovs_be16 type;

    if (packet->packet_type != htonl(PT_ETH)
        || size < l3 + IP_HEADER_LEN) {
        return NULL;
    }
    type = ((const struct eth_header *) data)->eth_type;
    if (type == htons(ETH_TYPE_VLAN_8021Q)) {
        l3 += VLAN_HEADER_LEN;
        if (size < l3 + IP_HEADER_LEN) {
            return NULL;
        }
        type = ((const struct vlan_eth_header *) data)->veth_next_type;
    }
    if (type != htons(ETH_TYPE_IP) || data[l3 + 9] != IPPROTO_IPIP_) {
        return NULL;
    }
    dp_packet_set_l3(packet, (uint8_t *) data + l3);
    return dp_packet_l3(packet);
}

/* Drops 'packet', which 't' received on or output to 'vport', counting it
 * in 't''s counter 'reason' and in the port's counter 'port_counter'. */
static void
drop_packet(struct pmd_thread *t, struct vport_ipip *vport,
            struct dp_packet *packet, enum pmd_counter reason,
            enum netdev_ipip_counter port_counter)
{
    pmd_counter_add(t, reason, 1);
    netdev_ipip_count(vport->port->netdev, t->index, port_counter, 1);
    dp_packet_delete(packet);
}

/* Drops 'packet', received on 'vport' by 't', for 'reason'. */
static void
rx_drop(struct pmd_thread *t, struct vport_ipip *vport,
        struct dp_packet *packet, enum pmd_counter reason)
{
    drop_packet(t, vport, packet, reason, NETDEV_IPIP_RX_ERRORS);
}

/* Checks 'ip', the outer IPv4 header of 'packet' that
 * vport_ipip_outer_header() returned: version, header and total lengths
 * against the bytes present, header checksum.  Returns 0 if it is sound,
 * else the counter to drop the packet with. */
enum pmd_counter
vport_ipip_check_outer(const struct dp_packet *packet,
                       const struct ip_header *ip)
{
    size_t avail = (const char *) dp_packet_tail(packet) - (const char *) ip;
    size_t ihl = IP_IHL(ip->ip_ihl_ver) * 4;
    size_t tot_len = ntohs(ip->ip_tot_len);

    if (IP_VER(ip->ip_ihl_ver) != 4 || ihl < IP_HEADER_LEN) {
        return PMD_TNL_DROP_BAD_HEADER;
    }
    if (avail < ihl || tot_len > avail) {
        return PMD_TNL_DROP_TRUNCATED;
    }
    if (tot_len < ihl) {
        return PMD_TNL_DROP_BAD_HEADER;
    }
    if (!(*dp_packet_ol_flags_ptr(packet) & DP_PACKET_OL_RX_IP_CKSUM_GOOD)
        && csum(ip, ihl)) {
        return PMD_TNL_DROP_BAD_CSUM;
    }
    return 0;
}

/* Applies RFC 6040 decapsulation to 'inner', whose outer header had TOS
 * 'outer_tos': a congestion mark on the outer header is copied to an
 * ECN-capable inner one.  Returns false if the packet must be dropped: CE
 * outside, not-ECT inside. */
static bool
ecn_decapsulate(struct ip_header *inner, uint8_t outer_tos)
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

/* Returns 't''s receive cell for 'vport', on the thread's active list. */
static struct vport_ipip_rx *
rx_cell(struct pmd_thread *t, struct vport_ipip *vport)
{
    struct vport_ipip_rx *rx = &vport->rx[t->index % vport->n_threads];

    if (!rx->active) {
        if (t->n_active_tunnels == PMD_MAX_ACTIVE_TUNNELS) {
            vport_ipip_flush(t);
        }
        rx->active = true;
        t->active_tunnels[t->n_active_tunnels++] = rx;
    }
    return rx;
}

/* Hands decapsulated 'packet' to 't''s receive cell of 'vport'. */
static void
rx_enqueue(struct pmd_thread *t, struct vport_ipip *vport,
           struct dp_packet *packet)
{
    const struct netdev_ipip_config *cfg;
    struct vport_ipip_rx *rx = rx_cell(t, vport);

    cfg = netdev_ipip_get_config(vport->port->netdev);
    if (cfg && cfg->gro) {
        struct gro_cell *gro = ovsrcu_get(struct gro_cell *, &rx->gro);

        if (!gro) {
            gro = gro_cell_create(IPIP_GRO_BACKLOG);
            ovsrcu_set(&rx->gro, gro);
        }
        if (gro_cell_backlog(gro) >= IPIP_GRO_BACKLOG) {
            pmd_counter_add(t, PMD_TNL_DROP_GRO_BACKLOG, 1);
        }
        gro_cell_receive(gro, packet);
    } else {
        if (dp_packet_batch_is_full(&rx->plain)) {
            struct dp_packet_batch full = rx->plain;

            dp_packet_batch_init(&rx->plain);
            dp_input_tunnel(t, &full);
        }
        dp_packet_batch_add(&rx->plain, packet);
    }
}

/* Initializes 'md' for a packet received on tunnel port 'port_no', with
 * every tunnel field zero, for the caller to fill in.  (pkt_metadata_init()
 * zeroes only the tunnel destination, which marks a packet as not from a
 * tunnel.) */
static void
set_tunnel_metadata(struct pkt_metadata *md, odp_port_t port_no,
                    odp_port_t orig_in_port)
{
    memset(md, 0, offsetof(struct pkt_metadata, tunnel.metadata.opts));
    md->in_port.odp_port = port_no;
    md->orig_in_port = orig_in_port;
}

/* Strips the outer header of 'packet', whose outer IPv4 header 'outer'
 * passed vport_ipip_check_outer() and is not a fragment, and fills in its
 * tunnel metadata as received on vport 'port_no' (having come in on port
 * 'rx_port').  Returns 0, or the counter to drop it with; the packet may
 * then have been modified (its inner ECN field) but is still the caller's
 * to free. */
enum pmd_counter
vport_ipip_decapsulate(struct dp_packet *packet, const struct ip_header *outer,
                       odp_port_t port_no, odp_port_t rx_port)
{
    size_t ihl = IP_IHL(outer->ip_ihl_ver) * 4;
    size_t inner_len = ntohs(outer->ip_tot_len) - ihl;
    struct ip_header *inner = (struct ip_header *) ((char *) outer + ihl);
    struct flow_tnl *tnl;

    if (inner_len < IP_HEADER_LEN) {
        return inner_len ? PMD_TNL_DROP_TRUNCATED : PMD_TNL_DROP_NOT_IPV4;
    }
    if (IP_VER(inner->ip_ihl_ver) != 4) {
        return PMD_TNL_DROP_NOT_IPV4;
    }
    if (!ecn_decapsulate(inner, outer->ip_tos)) {
        return PMD_TNL_DROP_ECN;
    }

    set_tunnel_metadata(&packet->md, port_no, rx_port);
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

/* If 'packet', received on port 'rx_port', is an IPIP packet addressed to a
 * local endpoint in 'eps', takes it: decapsulates it into 't''s receive cell of its vport, or drops
 * and counts it.  Returns false, leaving 'packet' alone, otherwise. */
bool
vport_ipip_catch(struct pmd_thread *t, const struct ipip_endpoints *eps,
                 struct dp_packet *packet, odp_port_t rx_port)
{
    struct ip_header *ip = vport_ipip_outer_header(packet);
    struct vport_ipip *vport;
    enum pmd_counter drop;

    if (!ip) {
        return false;
    }
    vport = find_endpoint(eps, get_16aligned_be32(&ip->ip_src),
                          get_16aligned_be32(&ip->ip_dst));
    if (!vport) {
        return false;
    }

    drop = vport_ipip_check_outer(packet, ip);
    if (drop) {
        VLOG_DBG_RL(&rl, "%s: dropped malformed IPIP packet",
                    netdev_get_name(vport->port->netdev));
        rx_drop(t, vport, packet, drop);
        return true;
    }
    if (IP_IS_FRAGMENT(ip->ip_frag_off)) {
        pmd_counter_add(t, PMD_TNL_RX_FRAGMENTS, 1);
        packet = ipf_cpu_reassemble(dp_ipf_thread_table(t), packet, t->now);
        if (!packet) {
            return true;
        }
        pmd_counter_add(t, PMD_TNL_RX_REASSEMBLED, 1);
        ip = dp_packet_l3(packet);
    }

    drop = vport_ipip_decapsulate(packet, ip, vport->port->port_no, rx_port);
    if (drop) {
        rx_drop(t, vport, packet, drop);
        return true;
    }
    pmd_counter_add(t, PMD_TNL_RX_DECAP, 1);
    netdev_ipip_count(vport->port->netdev, t->index, NETDEV_IPIP_RX_PACKETS,
                      1);
    netdev_ipip_count(vport->port->netdev, t->index, NETDEV_IPIP_RX_BYTES,
                      dp_packet_size(packet));
    rx_enqueue(t, vport, packet);
    return true;
}

/* Ends 't''s round for its tunnel receive cells: everything they hold goes
 * through the flow lookup as received on its vport. */
void
vport_ipip_flush(struct pmd_thread *t)
{
    for (size_t i = 0; i < t->n_active_tunnels; i++) {
        struct vport_ipip_rx *rx = t->active_tunnels[i];
        struct gro_cell *gro = ovsrcu_get(struct gro_cell *, &rx->gro);

        if (gro) {
            struct dp_packet_batch batch;

            gro_cell_flush(gro);
            for (;;) {
                dp_packet_batch_init(&batch);
                if (!gro_cell_pop(gro, &batch)) {
                    break;
                }
                dp_input_tunnel(t, &batch);
            }
        }
        if (!dp_packet_batch_is_empty(&rx->plain)) {
            struct dp_packet_batch batch = rx->plain;

            dp_packet_batch_init(&rx->plain);
            dp_input_tunnel(t, &batch);
        }
        rx->active = false;
    }
    t->n_active_tunnels = 0;
}

/* Where an encapsulated packet leaves: the underlay bridge's local port,
 * its MAC and MTU, the next hop's MAC and the outer source address. */
struct underlay {
    ovs_be32 dst;                   /* Tunnel destination it was found for. */
    ovs_be32 src;                   /* Source address from the route. */
    struct dp_port *port;           /* Underlay bridge's local port. */
    struct eth_addr port_mac;
    int mtu;                        /* That port's MTU. */
    struct eth_addr nh_mac;         /* Next hop's MAC. */
};

/* Resolves how 't' reaches tunnel destination 'dst' with packet mark
 * 'mark' into 'u'.  Returns 0, or the counter to drop the packet with.  All
 * lookups are lock-free and take no reference: the router's classifier and
 * the neighbour cache are RCU-protected, and the port stays valid until 't'
 * quiesces. */
static enum pmd_counter
resolve_underlay(struct pmd_thread *t, ovs_be32 dst, uint32_t mark,
                 struct underlay *u)
{
    char out_dev[IFNAMSIZ];
    struct in6_addr dst6, src6 = in6addr_any, gw6, nh6;
    ovs_be32 nh;

    u->dst = dst;
    in6_addr_set_mapped_ipv4(&dst6, dst);
    if (!ovs_router_lookup(mark, &dst6, out_dev, &src6, &gw6)) {
        return PMD_TNL_DROP_NO_ROUTE;
    }
    u->src = in6_addr_get_mapped_ipv4(&src6);
    u->port = datapath_find_port_by_name(t->dp, out_dev);
    if (!u->port) {
        return PMD_TNL_DROP_NO_UNDERLAY;
    }
    dp_port_get_link(u->port, &u->port_mac, &u->mtu);

    nh = ipv6_addr_is_set(&gw6) ? in6_addr_get_mapped_ipv4(&gw6) : dst;
    in6_addr_set_mapped_ipv4(&nh6, nh);
    if (tnl_neigh_lookup(out_dev, &nh6, &u->nh_mac)) {
        tunnel_neigh_request(t, u->port, u->port_mac, u->src, nh);
        return PMD_TNL_DROP_NO_NEIGH;
    }
    return 0;
}

/* Drops 'packet', output to 'vport' by 't', for 'reason'. */
static void
tx_drop(struct pmd_thread *t, struct vport_ipip *vport,
        struct dp_packet *packet, enum pmd_counter reason)
{
    drop_packet(t, vport, packet, reason, NETDEV_IPIP_TX_DROPPED);
}

/* Makes '*u' the underlay for 'packet''s tunnel destination, reusing it if
 * the previous packet of the batch had the same ('*have_u').  Returns
 * false, having dropped 'packet', if there is none. */
static bool
get_underlay(struct pmd_thread *t, struct vport_ipip *vport,
             struct dp_packet *packet, struct underlay *u, bool *have_u)
{
    const struct flow_tnl *tnl = &packet->md.tunnel;
    enum pmd_counter drop;

    if (*have_u && u->dst == tnl->ip_dst) {
        return true;
    }
    drop = resolve_underlay(t, tnl->ip_dst, packet->md.pkt_mark, u);
    *have_u = !drop;
    if (drop) {
        if (drop != PMD_TNL_DROP_NO_NEIGH) {
            VLOG_WARN_RL(&rl, "%s: cannot send to "IP_FMT": %s",
                         netdev_get_name(vport->port->netdev),
                         IP_ARGS(tnl->ip_dst),
                         drop == PMD_TNL_DROP_NO_ROUTE
                         ? "no route"
                         : "the route's device is not a bridge port");
        }
        tx_drop(t, vport, packet, drop);
    }
    return *have_u;
}

/* Answers 'packet', too big for the tunnel's path MTU 'mtu' with DF set,
 * with an ICMP "fragmentation needed", received back on 'vport' as if from
 * the tunnel's far end, so that the flows that deliver the tunnel's traffic
 * take it to the sender.  Frees 'packet'. */
static void
send_frag_needed(struct pmd_thread *t, struct vport_ipip *vport,
                 struct dp_packet *packet, ovs_be32 local, int mtu)
{
    const struct flow_tnl *tnl = &packet->md.tunnel;
    struct dp_packet *icmp;

    icmp = ip_icmp_frag_needed(packet, local, mtu);
    if (icmp) {
        struct flow_tnl *rtnl;

        set_tunnel_metadata(&icmp->md, vport->port->port_no,
                            packet->md.in_port.odp_port);
        rtnl = &icmp->md.tunnel;
        rtnl->ip_src = tnl->ip_dst;
        rtnl->ip_dst = local;
        rtnl->ip_ttl = IPIP_DEFAULT_TTL;
        pmd_counter_add(t, PMD_TNL_TX_ICMP_FRAG_NEEDED, 1);
        rx_enqueue(t, vport, icmp);
    }
    tx_drop(t, vport, packet, PMD_TNL_DROP_TOO_BIG);
}

/* Puts the outer IPv4 and Ethernet headers on 'packet', an IPv4 packet with
 * tunnel metadata 'tnl', to go from 'src' via 'u'.  'df' sets DF. */
static void
push_headers(struct pmd_thread *t, struct dp_packet *packet,
             const struct flow_tnl *tnl, ovs_be32 src, bool df,
             const struct underlay *u)
{
    const struct ip_header *inner = dp_packet_data(packet);
    size_t inner_len = dp_packet_size(packet);
    struct eth_header *eth;
    struct ip_header *ip;
    uint8_t tos = tnl->ip_tos;

    /* RFC 6040 normal mode, as Linux's INET_ECN_encapsulate(): the outer
     * header copies the inner ECN field, a CE mark becoming ECT(0). */
    if (!(tos & IP_ECN_MASK)) {
        uint8_t ecn = inner->ip_tos & IP_ECN_MASK;

        tos |= ecn == IP_ECN_CE ? IP_ECN_ECT_0 : ecn;
    }

    ip = dp_packet_push_uninit(packet, IPIP_HLEN);
    ip->ip_ihl_ver = IP_IHL_VER(5, 4);
    ip->ip_tos = tos;
    ip->ip_tot_len = htons(inner_len + IPIP_HLEN);
    if (df) {
        /* As Linux does for a DF packet with no socket. */
        ip->ip_id = 0;
        ip->ip_frag_off = htons(IP_DONT_FRAGMENT);
    } else {
        ip->ip_id = htons(t->ip_id_next++);
        ip->ip_frag_off = 0;
    }
    ip->ip_ttl = tnl->ip_ttl ? tnl->ip_ttl : IPIP_DEFAULT_TTL;
    ip->ip_proto = IPPROTO_IPIP_;
    put_16aligned_be32(&ip->ip_src, src);
    put_16aligned_be32(&ip->ip_dst, tnl->ip_dst);
    ip->ip_csum = 0;
    ip->ip_csum = csum(ip, IPIP_HLEN);

    eth = dp_packet_push_uninit(packet, ETH_HEADER_LEN);
    eth->eth_dst = u->nh_mac;
    eth->eth_src = u->port_mac;
    eth->eth_type = htons(ETH_TYPE_IP);

    packet->packet_type = htonl(PT_ETH);
    dp_packet_reset_offsets(packet);
    dp_packet_set_l3(packet, ip);
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

/* Encapsulates one IPv4 packet (no TSO mark) output to 'vport' and adds the
 * result, one frame or its fragments, to 'underlay'.  '*u' caches the
 * underlay of the previous packet of the batch. */
static void
encapsulate_one(struct pmd_thread *t, struct vport_ipip *vport,
                struct dp_packet *packet, struct underlay *u, bool *have_u,
                struct dp_packet_batch *underlay)
{
    const struct flow_tnl *tnl = &packet->md.tunnel;
    struct flow_tnl tnl_copy;
    const struct ip_header *inner;
    size_t inner_len;
    ovs_be32 src;
    bool df;

    if (!get_underlay(t, vport, packet, u, have_u)) {
        return;
    }

    src = tnl->ip_src ? tnl->ip_src : u->src;
    inner = dp_packet_data(packet);
    inner_len = dp_packet_size(packet);
    df = tnl->flags & FLOW_TNL_F_DONT_FRAGMENT;
    if (inner_len + IPIP_HLEN > u->mtu) {
        if (inner->ip_frag_off & htons(IP_DONT_FRAGMENT)) {
            send_frag_needed(t, vport, packet, src, u->mtu - IPIP_HLEN);
            return;
        }
        /* The inner sender allows fragmentation: the outer packet is
         * fragmented, whatever df_default says, as Linux's ip_tunnel
         * clears DF for an inner packet without it. */
        df = false;
    }

    netdev_ipip_count(vport->port->netdev, t->index, NETDEV_IPIP_TX_PACKETS,
                      1);
    netdev_ipip_count(vport->port->netdev, t->index, NETDEV_IPIP_TX_BYTES,
                      inner_len);
    pmd_counter_add(t, PMD_TNL_TX_ENCAP, 1);

    tnl_copy = *tnl;
    set_underlay_metadata(packet, u->port);
    push_headers(t, packet, &tnl_copy, src, df, u);
    if (dp_packet_size(packet) - ETH_HEADER_LEN > u->mtu) {
        struct gso_output out = {
            .batch = underlay, .flush = flush_underlay, .aux = t,
        };

        pmd_counter_add(t, PMD_TNL_TX_FRAGMENTED, 1);
        if (ip_fragment_v4(packet, u->mtu, &out)) {
            tx_drop(t, vport, packet, PMD_TNL_DROP_TOO_BIG);
        }
        return;
    }
    underlay_add(t, underlay, packet);
}

/* Sink for the segments of a TSO packet: each is encapsulated. */
struct segment_sink {
    struct pmd_thread *t;
    struct vport_ipip *vport;
    struct underlay *u;
    bool *have_u;
    struct dp_packet_batch *underlay;
};

static void
encapsulate_segments(struct dp_packet_batch *segments, void *sink_)
{
    struct segment_sink *sink = sink_;
    struct dp_packet *segment;

    DP_PACKET_BATCH_FOR_EACH (i, segment, segments) {
        encapsulate_one(sink->t, sink->vport, segment, sink->u, sink->have_u,
                        sink->underlay);
    }
    dp_packet_batch_init(segments);
}

/* Encapsulates each packet of 'batch', output to ipip port 'port' by 't',
 * and sends the frames into the underlay bridge.  Takes ownership of the
 * packets.  A packet marked for TCP segmentation is segmented first, and
 * each segment encapsulated: the underlay sees ordinary IPIP packets, which
 * any receiver and any netdev take. */
void
vport_ipip_send(struct pmd_thread *t, struct dp_port *port,
                struct dp_packet_batch *batch)
{
    struct vport_ipip *vport = port->ipip;
    struct dp_packet_batch underlay;
    struct dp_packet *packet;
    struct underlay u;
    bool have_u = false;

    dp_packet_batch_init(&underlay);
    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        const struct flow_tnl *tnl = &packet->md.tunnel;

        if (packet->packet_type == htonl(PT_ETH)
            && dp_packet_size(packet) >= ETH_HEADER_LEN
            && ((struct eth_header *) dp_packet_data(packet))->eth_type
               == htons(ETH_TYPE_IP)) {
            /* An Ethernet frame, if a flow outputs one: the tunnel carries
             * only its IPv4 packet, as Linux's ipip device would. */
            dp_packet_pull(packet, ETH_HEADER_LEN);
            packet->packet_type = htonl(PT_IPV4);
        }
        if (packet->packet_type != htonl(PT_IPV4)
            || dp_packet_size(packet) < IP_HEADER_LEN
            || IP_VER(((struct ip_header *) dp_packet_data(packet))
                      ->ip_ihl_ver) != 4
            || !tnl->ip_dst) {
            tx_drop(t, vport, packet, PMD_TNL_DROP_TX_INVALID);
            continue;
        }
        if (dp_packet_hwol_is_tso(packet)) {
            struct segment_sink sink = {
                .t = t, .vport = vport, .u = &u, .have_u = &have_u,
                .underlay = &underlay,
            };
            struct dp_packet_batch segments;
            struct gso_output out = {
                .batch = &segments, .flush = encapsulate_segments,
                .aux = &sink,
            };
            uint16_t segsz;

            if (!get_underlay(t, vport, packet, &u, &have_u)) {
                continue;
            }
            /* Segments no larger than the sender's, as GRO recorded them,
             * and small enough for the tunnel's path MTU. */
            segsz = gso_segsz_for_mtu(packet, u.mtu - IPIP_HLEN);
            if (tso_segsz_get(packet)) {
                segsz = MIN(segsz, tso_segsz_get(packet));
            }
            dp_packet_batch_init(&segments);
            if (!gso_segment(packet, segsz, &out, &t->gso_stats)) {
                encapsulate_segments(&segments, &sink);
            }
            continue;
        }
        /* A partial checksum (from a tap's vnet header) cannot be left to
         * the underlay once the packet is inside another header. */
        if (dp_packet_hwol_l4_mask(packet)
            && !gso_complete_csum_or_drop(packet, &t->gso_stats)) {
            continue;
        }
        encapsulate_one(t, vport, packet, &u, &have_u, &underlay);
    }
    dp_packet_batch_init(batch);
    if (!dp_packet_batch_is_empty(&underlay)) {
        dp_input_inject(t, &underlay);
    }
}

/* Formats the GRO counters of ipip port 'port_name' (every ipip port if
 * NULL) of 'dp' into 's': per thread, then in total. */
void
vport_ipip_format_gro_stats(struct ds *s, const struct datapath *dp,
                            const char *port_name)
{
    static const char *reasons[GRO_N_FLUSH_REASONS] = {
        [GRO_FLUSH_ROUND] = "round",
        [GRO_FLUSH_PSH] = "psh",
        [GRO_FLUSH_FIN] = "fin",
        [GRO_FLUSH_RST] = "rst",
        [GRO_FLUSH_URG] = "urg",
        [GRO_FLUSH_GAP] = "gap",
        [GRO_FLUSH_OPTIONS] = "options",
        [GRO_FLUSH_SIZE] = "size",
        [GRO_FLUSH_FLOWS] = "flows",
    };
    struct dp_port *port;

    CMAP_FOR_EACH (port, node, &dp->ports) {
        const char *name = netdev_get_name(port->netdev);
        struct gro_cell_stats total;
        struct vport_ipip *vport = port->ipip;

        if (!vport || (port_name && strcmp(name, port_name))) {
            continue;
        }
        memset(&total, 0, sizeof total);
        ds_put_format(s, "%s:\n", name);
        for (size_t i = 0; i < vport->n_threads; i++) {
            const struct gro_cell *gro;
            struct gro_cell_stats st;

            gro = ovsrcu_get(struct gro_cell *, &vport->rx[i].gro);
            if (!gro) {
                continue;
            }
            gro_cell_get_stats(gro, &st);
            ds_put_format(s, "  thread %"PRIuSIZE": ", i);
            ds_put_format(s, "segments %"PRIu64", merged %"PRIu64
                          ", packets out %"PRIu64", backlog drops %"PRIu64
                          "\n", st.segments_in, st.segments_merged,
                          st.packets_out, st.backlog_drops);
            total.segments_in += st.segments_in;
            total.segments_merged += st.segments_merged;
            total.packets_out += st.packets_out;
            total.backlog_drops += st.backlog_drops;
            ds_put_cstr(s, "    flushes:");
            for (int r = 0; r < GRO_N_FLUSH_REASONS; r++) {
                ds_put_format(s, " %s %"PRIu64, reasons[r], st.flushes[r]);
                total.flushes[r] += st.flushes[r];
            }
            ds_put_char(s, '\n');
        }
        ds_put_format(s, "  total: segments %"PRIu64", merged %"PRIu64
                      ", packets out %"PRIu64", backlog drops %"PRIu64"\n",
                      total.segments_in, total.segments_merged,
                      total.packets_out, total.backlog_drops);
        ds_put_cstr(s, "    flushes:");
        for (int r = 0; r < GRO_N_FLUSH_REASONS; r++) {
            ds_put_format(s, " %s %"PRIu64, reasons[r], total.flushes[r]);
        }
        ds_put_char(s, '\n');
    }
}

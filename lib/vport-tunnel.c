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
#include "vport-tunnel.h"

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>

#include "csum.h"
#include "datapath.h"
#include "dp-input.h"
#include "dp-ipf.h"
#include "dp-packet.h"
#include "dp-port.h"
#include "flow.h"
#include "gro-cell.h"
#include "gso.h"
#include "hash.h"
#include "ip-fragment.h"
#include "ipf-cpu.h"
#include "netdev.h"
#include "netdev-ipip.h"
#include "netdev-native-tnl.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "ovs-router.h"
#include "packets.h"
#include "pmd.h"
#include "tso-segsz.h"
#include "tunnel-neigh.h"
#include "tunnel-nexthop.h"
#include "util.h"
#include "vport-geneve.h"
#include "vport-gre.h"
#include "vport-ipip.h"
#include "vport-vxlan.h"

VLOG_DEFINE_THIS_MODULE(vport_tunnel);

/* Default outer TTL when the tunnel metadata carries none, as Linux's
 * ip_tunnel uses the route's hop limit (64 by default). */
#define TUNNEL_DEFAULT_TTL 64

/* Packets a thread's GRO cell may hold, held and ready together, before it
 * drops: a round receives at most a batch per queue, so this is reached
 * only if the lookup falls far behind. */
#define TUNNEL_GRO_BACKLOG 256

/* Bytes of a UDP header. */
#define TUNNEL_UDP_HLEN 8

/* One thread's receive state for one vport.  Written only by the thread
 * whose index it has; padded to whole cache lines so that threads do not
 * share a line. */
struct vport_tunnel_rx {
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        struct vport_tunnel *vport; /* Owner. */

        /* Created by the owning thread at its first GRO packet; NULL until
         * then.  Read by the main thread for its counters. */
        OVSRCU_TYPE(struct gro_cell *) gro;

        struct dp_packet_batch plain; /* Decapsulated, not for GRO. */
        bool active;                /* In the thread's 'active_tunnels'. */
        struct vport_tunnel_rx *next_active; /* Next in that list. */
        unsigned int level;         /* How many times the packets it holds
                                     * were decapsulated in a row, at most:
                                     * the thread forwards them at this
                                     * 'tunnel_nesting'.  0 while empty. */
    );
};

/* The datapath side of one tunnel port. */
struct vport_tunnel {
    struct dp_port *port;           /* The port; its netdev is a tunnel. */
    const struct vport_tunnel_ops *ops; /* Its type. */
    ovs_be16 udp_port;              /* UDP destination port, for the UDP
                                     * types; set by the main thread before
                                     * the port is published. */
    size_t n_threads;               /* Elements in 'rx'. */
    struct vport_tunnel_rx *rx;     /* One per forwarding thread. */
    const void *config_seen;        /* Main thread: the netdev config the
                                     * endpoint table was built from. */
};

/* One way in: packets of IP protocol 'proto' (and, if 'udp_port' is
 * nonzero, of that UDP destination port; if 'claims' is nonnull, that it
 * claims) from 'remote' (0: any) to 'local' (0: any address of the port
 * they are delivered to) are received on 'vport'. */
struct vport_tunnel_endpoint {
    ovs_be32 local;                 /* Outer destination, 0: any local. */
    ovs_be32 remote;                /* Outer source, 0: any. */
    ovs_be16 udp_port;              /* UDP destination port, 0: not UDP. */
    uint8_t proto;                  /* Outer IP protocol. */
    bool (*claims)(const void *l4, size_t len); /* The type's, or NULL. */
    struct vport_tunnel *vport;     /* Where such packets are received. */
};

/* An IPv4 address of a port that terminates tunnels. */
struct vport_tunnel_local {
    odp_port_t port_no;             /* The port (a bridge's local port). */
    ovs_be32 addr;                  /* One of its addresses. */
};

/* Every way into the datapath's tunnel vports, as the forwarding threads
 * see it.  Immutable once published; replaced whole by the main thread. */
struct vport_tunnel_endpoints {
    size_t n;                       /* Elements in 'e'. */
    size_t allocated;               /* Allocated elements of 'e'. */
    struct vport_tunnel_endpoint *e; /* The ways in. */
    size_t n_local;                 /* Elements in 'local'. */
    size_t allocated_local;         /* Allocated elements of 'local'. */
    struct vport_tunnel_local *local; /* The addresses of the ports that
                                     * terminate tunnels: a packet is
                                     * decapsulated only when it is
                                     * delivered to the port that holds its
                                     * destination. */
    bool protos[UINT8_MAX + 1];     /* IP protocols some endpoint takes: the
                                     * cheap first test on every frame. */
    bool l4_decides[UINT8_MAX + 1]; /* Protocols for which some endpoint
                                     * looks past the IP header (UDP port,
                                     * 'claims'): only a datagram's first
                                     * fragment says whether it is ours. */
};

/* Slots in a thread's table of fragment verdicts: a power of two.  A
 * thread has this many UDP or GRE datagrams to local addresses in flight
 * at once, fragmented, before a verdict is lost, which costs only a copy
 * of a later fragment. */
#define FRAG_VERDICTS 64

/* How long a verdict lasts, in ms: as the reassembly table remembers
 * finished datagrams (IPF_CPU_RECENT_MS), short, because a sender may reuse
 * an IP ID soon. */
#define FRAG_VERDICT_MS 1000

/* What the first fragment of a UDP or GRE datagram to a local address said:
 * whether the datagram is a tunnel's, so that its later fragments, which
 * carry no UDP or GRE header, are held for reassembly or delivered at
 * once. */
struct frag_verdict {
    ovs_be32 src;                   /* Outer source. */
    ovs_be32 dst;                   /* Outer destination. */
    ovs_be16 id;                    /* IP ID. */
    uint8_t proto;                  /* IP protocol. */
    bool ours;                      /* A tunnel's? */
    long long int expires;          /* When it lapses, in ms; 0: unused. */
};

/* Linux's defaults for ICMP errors (net.ipv4.icmp_msgs_per_sec and
 * icmp_msgs_burst): a thread sends at most this many "fragmentation
 * needed" a second, after a burst of ICMP_BURST. */
#define ICMP_RATE_PER_SEC 1000
#define ICMP_BURST 50

/* A forwarding thread's own state of the tunnel layer.  Written only by
 * that thread. */
struct vport_tunnel_thread {
    struct frag_verdict verdicts[FRAG_VERDICTS];

    /* ICMP "fragmentation needed" token bucket, as Linux's
     * icmp_global_allow(): 'icmp_credit' messages may be sent now; it
     * grows by ICMP_RATE_PER_SEC a second up to ICMP_BURST. */
    uint32_t icmp_credit;
    long long int icmp_stamp;       /* When last refilled, in ms; 0: never,
                                     * the bucket starts full. */
};

/* Rate limit of the error logs of the forwarding threads. */
static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

static void rx_enqueue(struct pmd_thread *, struct vport_tunnel *,
                       struct dp_packet *);

/* Returns the ops of tunnel netdev 'netdev''s type, or NULL if this
 * datapath does not carry it. */
const struct vport_tunnel_ops *
vport_tunnel_ops_find(const struct netdev *netdev)
{
    static const struct vport_tunnel_ops *const all[] = {
        &vport_ipip_ops, &vport_vxlan_ops, &vport_gre_ops, &vport_geneve_ops,
    };
    const char *type = netdev_get_type(netdev);

    for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
        if (!strcmp(type, all[i]->type)) {
            return all[i];
        }
    }
    return NULL;
}

/* Creates the datapath side of tunnel port 'port', of type 'ops', for
 * 'n_threads' forwarding threads. */
struct vport_tunnel *
vport_tunnel_create(struct dp_port *port, const struct vport_tunnel_ops *ops,
                    size_t n_threads)
{
    struct vport_tunnel *vport = xzalloc(sizeof *vport);
    ovs_be32 local, remote;

    vport->port = port;
    vport->ops = ops;
    vport->n_threads = n_threads;
    vport->rx = xzalloc_cacheline(n_threads * sizeof *vport->rx);
    for (size_t i = 0; i < n_threads; i++) {
        vport->rx[i].vport = vport;
        dp_packet_batch_init(&vport->rx[i].plain);
    }
    ops->endpoint(port->netdev, &local, &remote, &vport->udp_port);
    return vport;
}

/* Frees 'vport', once no forwarding thread can see it (after an RCU grace
 * period).  Accepts NULL. */
void
vport_tunnel_destroy(struct vport_tunnel *vport)
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

/* Returns a new, empty endpoint table. */
struct vport_tunnel_endpoints *
vport_tunnel_endpoints_create(void)
{
    return xzalloc(sizeof(struct vport_tunnel_endpoints));
}

/* Frees 'eps', an endpoint table no thread can see any more.  Accepts
 * NULL. */
void
vport_tunnel_endpoints_destroy(struct vport_tunnel_endpoints *eps)
{
    if (eps) {
        free(eps->e);
        free(eps->local);
        free(eps);
    }
}

/* Adds to 'eps' a way into 'vport', of type 'ops': packets from 'remote'
 * (0: any) to 'local' (0: any address of the port they are delivered to),
 * of the type's IP protocol and, for a UDP type, of destination port
 * 'udp_port'. */
void
vport_tunnel_endpoints_add(struct vport_tunnel_endpoints *eps,
                           const struct vport_tunnel_ops *ops,
                           ovs_be32 local, ovs_be32 remote,
                           ovs_be16 udp_port, struct vport_tunnel *vport)
{
    struct vport_tunnel_endpoint *e;

    if (eps->n == eps->allocated) {
        eps->e = x2nrealloc(eps->e, &eps->allocated, sizeof *eps->e);
    }
    e = &eps->e[eps->n++];
    memset(e, 0, sizeof *e);    /* endpoints_equal() compares the bytes. */
    e->local = local;
    e->remote = remote;
    e->udp_port = ops->by_udp_port ? udp_port : 0;
    e->proto = ops->ip_proto;
    e->claims = ops->claims;
    e->vport = vport;
    eps->protos[e->proto] = true;
    if (e->udp_port || e->claims) {
        eps->l4_decides[e->proto] = true;
    }
}

/* Adds to 'eps' address 'addr' of port 'port_no': tunnel packets to 'addr'
 * that the flows output to that port are decapsulated. */
void
vport_tunnel_endpoints_add_local(struct vport_tunnel_endpoints *eps,
                                 odp_port_t port_no, ovs_be32 addr)
{
    struct vport_tunnel_local *l;

    if (eps->n_local == eps->allocated_local) {
        eps->local = x2nrealloc(eps->local, &eps->allocated_local,
                                sizeof *eps->local);
    }
    l = &eps->local[eps->n_local++];
    memset(l, 0, sizeof *l);
    l->port_no = port_no;
    l->addr = addr;
}

/* Returns true if 'eps' (nonnull) has ways in and some address of port
 * 'port_no'. */
bool
vport_tunnel_endpoints_has_local(const struct vport_tunnel_endpoints *eps,
                                 odp_port_t port_no)
{
    if (eps->n) {
        for (size_t i = 0; i < eps->n_local; i++) {
            if (eps->local[i].port_no == port_no) {
                return true;
            }
        }
    }
    return false;
}

/* Returns true if output to 'port' may terminate tunnels, if it holds their
 * address: a bridge's local port (an internal port), which hands what it
 * receives to the host's IP stack, where the kernel's tunnel sockets take
 * their packets.  (OVS's own userspace datapath takes any port that has an
 * address, xport_has_ip(); only this function would change for that.) */
static bool
port_may_terminate(const struct dp_port *port)
{
    return port->is_internal;
}

/* Appends the IPv4 addresses of 'port''s netdev to 'eps'. */
static void
add_local_addrs(struct vport_tunnel_endpoints *eps, const struct dp_port *port)
{
    struct in6_addr *addrs, *masks;
    int n_addrs;

    if (netdev_get_addr_list(port->netdev, &addrs, &masks, &n_addrs)) {
        return;
    }
    for (int i = 0; i < n_addrs; i++) {
        ovs_be32 ip = in6_addr_get_mapped_ipv4(&addrs[i]);

        if (ip) {
            vport_tunnel_endpoints_add_local(eps, port->port_no, ip);
        }
    }
    free(addrs);
    free(masks);
}

/* Returns true if 'a' and 'b' are both nonnull and hold the same ways in
 * and local addresses, so that 'b' need not replace 'a'. */
static bool
endpoints_equal(const struct vport_tunnel_endpoints *a,
                const struct vport_tunnel_endpoints *b)
{
    return a && b && a->n == b->n && a->n_local == b->n_local
           && !memcmp(a->e, b->e, a->n * sizeof *a->e)
           && !memcmp(a->local, b->local, a->n_local * sizeof *a->local);
}

/* Rebuilds the endpoint table of 'dp' from its tunnel ports' options and
 * the addresses of the ports that may terminate tunnels, publishes it if it
 * changed, and sets each port's 'terminates_tunnels' from it.  Main thread,
 * under 'dp->reconfig_mutex'. */
void
vport_tunnel_publish_endpoints(struct datapath *dp)
{
    struct vport_tunnel_endpoints *old, *cur;
    struct vport_tunnel_endpoints *eps = vport_tunnel_endpoints_create();
    struct dp_port *port;

    old = ovsrcu_get_protected(struct vport_tunnel_endpoints *,
                               &dp->tunnel_endpoints);
    CMAP_FOR_EACH (port, node, &dp->ports) {
        struct vport_tunnel *vport = port->tunnel;
        ovs_be32 local, remote;
        ovs_be16 udp_port;

        if (!vport) {
            continue;
        }
        vport->config_seen = vport->ops->endpoint(port->netdev, &local,
                                                  &remote, &udp_port);
        if (vport->config_seen) {
            vport_tunnel_endpoints_add(eps, vport->ops, local, remote,
                                       udp_port, vport);
        }
    }
    if (eps->n) {
        CMAP_FOR_EACH (port, node, &dp->ports) {
            if (port_may_terminate(port)) {
                add_local_addrs(eps, port);
            }
        }
    }

    if (!eps->n) {
        vport_tunnel_endpoints_destroy(eps);
        cur = NULL;
    } else if (endpoints_equal(old, eps)) {
        vport_tunnel_endpoints_destroy(eps);
        cur = old;
    } else {
        cur = eps;
    }
    if (cur != old) {
        ovsrcu_set(&dp->tunnel_endpoints, cur);
        ovsrcu_postpone(vport_tunnel_endpoints_destroy, old);
    }

    /* After the table, so that a thread that sees a port's flag set finds
     * the port's addresses (a port added with the same addresses as one
     * deleted leaves the table as it was, and needs its flag all the
     * same).  A thread that still sees a flag that was cleared finds no
     * address of the port, and delivers. */
    CMAP_FOR_EACH (port, node, &dp->ports) {
        atomic_store_relaxed(&port->terminates_tunnels,
                             cur && vport_tunnel_endpoints_has_local(
                                        cur, port->port_no));
    }
}

/* Main thread: republishes the endpoint table when a tunnel port's options
 * changed (its netdev replaces its config on every change), when an
 * internal port's netdev changed (its addresses may have), and once a
 * second in any case. */
void
vport_tunnel_run(struct datapath *dp)
{
    long long int now = time_msec();
    bool changed = now >= dp->tunnel_next_refresh;
    uint64_t local_seq = 0;
    struct dp_port *port;

    CMAP_FOR_EACH (port, node, &dp->ports) {
        struct vport_tunnel *vport = port->tunnel;
        ovs_be32 local, remote;
        ovs_be16 udp_port;

        if (vport
            && vport->config_seen
               != vport->ops->endpoint(port->netdev, &local, &remote,
                                       &udp_port)) {
            changed = true;
        }
        if (port_may_terminate(port)) {
            local_seq += netdev_get_change_seq(port->netdev);
        }
    }
    if (local_seq != dp->tunnel_local_seq) {
        dp->tunnel_local_seq = local_seq;
        changed = true;
    }
    if (changed) {
        dp->tunnel_next_refresh = now + 1000;
        vport_tunnel_publish_endpoints(dp);
    }
}

/* Returns true if 'ip' is an address of port 'port_no', as 'eps' recorded
 * the addresses. */
static bool
port_owns(const struct vport_tunnel_endpoints *eps, odp_port_t port_no,
          ovs_be32 ip)
{
    for (size_t i = 0; i < eps->n_local; i++) {
        if (eps->local[i].addr == ip && eps->local[i].port_no == port_no) {
            return true;
        }
    }
    return false;
}

/* Returns the vport that receives packets of IP protocol 'proto' from 'src'
 * to 'dst', an address of the port they are delivered to, whose IP payload
 * starts with the 'l4_len' bytes at 'l4' (NULL for a fragment other than
 * the first, which only a type that looks at nothing past the IP header
 * takes), or NULL if there is none.  As the kernel's ip_tunnel lookup, an
 * exact (local, remote) match wins over remote_ip=flow, which wins over a
 * vport with no local_ip. */
static struct vport_tunnel *
find_endpoint(const struct vport_tunnel_endpoints *eps, uint8_t proto,
              const uint8_t *l4, size_t l4_len, ovs_be32 src, ovs_be32 dst)
{
    struct vport_tunnel *best = NULL;
    int best_score = 0;

    for (size_t i = 0; i < eps->n; i++) {
        const struct vport_tunnel_endpoint *e = &eps->e[i];
        int score;

        if (e->proto != proto
            || (e->remote && e->remote != src)
            || (e->local && e->local != dst)) {
            continue;
        }
        if (e->udp_port
            && (!l4 || l4_len < TUNNEL_UDP_HLEN
                || ((const struct udp_header *) l4)->udp_dst
                   != e->udp_port)) {
            continue;
        }
        if (e->claims && (!l4 || !e->claims(l4, l4_len))) {
            continue;
        }
        score = e->local ? (e->remote ? 4 : 3) : (e->remote ? 2 : 1);
        if (score > best_score) {
            best = e->vport;
            best_score = score;
        }
    }
    return best;
}

/* Returns the outer IPv4 header of 'packet' if it is an untagged Ethernet
 * frame carrying IPv4 of a protocol in 'protos', and sets its l3_ofs; else
 * returns NULL.  Guarantees only that IP_HEADER_LEN bytes follow the
 * returned header.  A tagged frame delivered to a bridge's local port is
 * for a VLAN device on top of it, whose addresses are not the port's: the
 * kernel would not hand it to the port's tunnels either, nor does OVS's
 * tunnel port map (tnl-ports.c matches untagged frames only). */
static struct ip_header *
outer_header(struct dp_packet *packet, const bool protos[UINT8_MAX + 1])
{
    const uint8_t *data = dp_packet_data(packet);
    size_t size = dp_packet_size(packet);

    if (packet->packet_type != htonl(PT_ETH)
        || size < ETH_HEADER_LEN + IP_HEADER_LEN
        || ((const struct eth_header *) data)->eth_type != htons(ETH_TYPE_IP)
        || !protos[data[ETH_HEADER_LEN + 9]]) {
        return NULL;
    }
    dp_packet_set_l3(packet, (uint8_t *) data + ETH_HEADER_LEN);
    return dp_packet_l3(packet);
}

/* Returns the IP payload of 'packet', whose outer IPv4 header is 'ip', and
 * stores in '*len' how many of its bytes are present (up to the total
 * length, at most to the packet's end).  Returns NULL if the header length
 * is impossible or the bytes are not there.  For the types' lookups, which
 * read at most a UDP or GRE header from it. */
const uint8_t *
vport_tunnel_outer_l4(const struct dp_packet *packet,
                      const struct ip_header *ip, size_t *len)
{
    size_t avail = (const char *) dp_packet_tail(packet) - (const char *) ip;
    size_t ihl = IP_IHL(ip->ip_ihl_ver) * 4;
    size_t tot_len = ntohs(ip->ip_tot_len);

    if (ihl < IP_HEADER_LEN || ihl > avail || tot_len < ihl) {
        *len = 0;
        return NULL;
    }
    *len = MIN(avail, tot_len) - ihl;
    return (const uint8_t *) ip + ihl;
}

/* Looks up what 'tt' recorded for the datagram whose later fragment has
 * outer header 'ip': 1 a tunnel's, 0 not, -1 unknown. */
static int
frag_verdict_get(struct vport_tunnel_thread *tt, const struct ip_header *ip,
                 long long int now)
{
    ovs_be32 src = get_16aligned_be32(&ip->ip_src);
    ovs_be32 dst = get_16aligned_be32(&ip->ip_dst);
    uint32_t hash = hash_3words((OVS_FORCE uint32_t) src,
                                (OVS_FORCE uint32_t) dst,
                                (ntohs(ip->ip_id) << 8) | ip->ip_proto);
    struct frag_verdict *v = &tt->verdicts[hash & (FRAG_VERDICTS - 1)];

    if (v->expires > now && v->src == src && v->dst == dst
        && v->id == ip->ip_id && v->proto == ip->ip_proto) {
        return v->ours;
    }
    return -1;
}

/* Records in 'tt' whether the datagram whose first fragment has outer
 * header 'ip' is a tunnel's ('ours'). */
static void
frag_verdict_set(struct vport_tunnel_thread *tt, const struct ip_header *ip,
                 bool ours, long long int now)
{
    ovs_be32 src = get_16aligned_be32(&ip->ip_src);
    ovs_be32 dst = get_16aligned_be32(&ip->ip_dst);
    uint32_t hash = hash_3words((OVS_FORCE uint32_t) src,
                                (OVS_FORCE uint32_t) dst,
                                (ntohs(ip->ip_id) << 8) | ip->ip_proto);
    struct frag_verdict *v = &tt->verdicts[hash & (FRAG_VERDICTS - 1)];

    v->src = src;
    v->dst = dst;
    v->id = ip->ip_id;
    v->proto = ip->ip_proto;
    v->ours = ours;
    v->expires = now + FRAG_VERDICT_MS;
}

/* Says what 'packet', which the flows output to port 'port_no' (MAC
 * 'port_mac'), is to the tunnel vports of 'eps', and for VPORT_TUNNEL_OURS
 * and the first fragment of a tunnel datagram stores the vport in
 * '*vportp' (else NULL).  A tunnel packet is an untagged IPv4 frame to
 * 'port_mac' (or a multicast MAC, which the kernel's IP stack takes too),
 * to an address of the port, of the protocol, UDP port and header of a
 * vport whose endpoints match.  'tt' is the calling thread's, for the
 * verdicts on fragmented UDP and GRE datagrams; 'now_ms' the time.
 *
 * Reads untrusted bytes: every length is checked before use.  A packet it
 * does not take is left byte for byte as it was (only its l3_ofs may be
 * set); the caller checks the outer header of one it takes
 * (vport_tunnel_check_outer()).  Any thread, on a packet it owns. */
enum vport_tunnel_class
vport_tunnel_classify(const struct vport_tunnel_endpoints *eps,
                      odp_port_t port_no, struct eth_addr port_mac,
                      struct vport_tunnel_thread *tt, long long int now_ms,
                      struct dp_packet *packet, struct vport_tunnel **vportp)
{
    const struct eth_header *eth = dp_packet_data(packet);
    struct ip_header *ip = outer_header(packet, eps->protos);
    const uint8_t *l4;
    ovs_be32 src, dst;
    size_t l4_len;
    uint8_t proto;

    *vportp = NULL;
    if (!ip
        || (!eth_addr_equals(eth->eth_dst, port_mac)
            && !eth_addr_is_multicast(eth->eth_dst))) {
        return VPORT_TUNNEL_NOT_OURS;
    }
    dst = get_16aligned_be32(&ip->ip_dst);
    if (!port_owns(eps, port_no, dst)) {
        return VPORT_TUNNEL_NOT_OURS;
    }
    src = get_16aligned_be32(&ip->ip_src);
    proto = ip->ip_proto;

    if (ip->ip_frag_off & htons(IP_FRAG_OFF_MASK)) {
        /* A later fragment: only the addresses and protocol are known. */
        if (!eps->l4_decides[proto]) {
            *vportp = find_endpoint(eps, proto, NULL, 0, src, dst);
            return *vportp ? VPORT_TUNNEL_FRAGMENT : VPORT_TUNNEL_NOT_OURS;
        }
        switch (frag_verdict_get(tt, ip, now_ms)) {
        case 1:
            return VPORT_TUNNEL_FRAGMENT;
        case 0:
            return VPORT_TUNNEL_NOT_OURS;
        default:
            return VPORT_TUNNEL_FRAGMENT_UNKNOWN;
        }
    }

    l4 = vport_tunnel_outer_l4(packet, ip, &l4_len);
    *vportp = find_endpoint(eps, proto, l4, l4_len, src, dst);
    if (ip->ip_frag_off & htons(IP_MORE_FRAGMENTS)) {
        /* The first fragment decides for the later ones. */
        if (eps->l4_decides[proto]) {
            frag_verdict_set(tt, ip, *vportp != NULL, now_ms);
        }
        return *vportp ? VPORT_TUNNEL_FRAGMENT : VPORT_TUNNEL_NOT_OURS;
    }
    return *vportp ? VPORT_TUNNEL_OURS : VPORT_TUNNEL_NOT_OURS;
}

/* Drops 'packet', which 't' received on or output to 'vport', counting it
 * in 't''s counter 'reason' and in the port's counter 'port_counter'. */
static void
drop_packet(struct pmd_thread *t, struct vport_tunnel *vport,
            struct dp_packet *packet, enum pmd_counter reason,
            enum netdev_ipip_counter port_counter)
{
    pmd_counter_add(t, reason, 1);
    if (vport->ops->count) {
        vport->ops->count(vport->port->netdev, t->index, port_counter, 1);
    }
    dp_packet_delete(packet);
}

/* Drops 'packet', received on 'vport' by 't', for 'reason'. */
static void
rx_drop(struct pmd_thread *t, struct vport_tunnel *vport,
        struct dp_packet *packet, enum pmd_counter reason)
{
    drop_packet(t, vport, packet, reason, NETDEV_IPIP_RX_ERRORS);
}

/* Adds 'n' to 'vport''s port counter 'counter' for thread 't'. */
static void
port_count(struct pmd_thread *t, struct vport_tunnel *vport,
           enum netdev_ipip_counter counter, uint64_t n)
{
    if (vport->ops->count) {
        vport->ops->count(vport->port->netdev, t->index, counter, n);
    }
}

/* Checks 'ip', the outer IPv4 header of 'packet': version, header and total
 * lengths against the bytes present, header checksum.  Returns 0 if it is
 * sound, else the counter to drop the packet with. */
enum pmd_counter
vport_tunnel_check_outer(const struct dp_packet *packet,
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
 * Geneve or GRE header and fills in the tunnel metadata, then applies
 * RFC 6040 to an inner IPv4 header and sets the input port.  'outer' is the
 * sound, unfragmented outer IPv4 header.  Returns the inner packet, or NULL
 * having freed 'packet' and set '*drop'.  Touches nothing but the packet. */
struct dp_packet *
vport_tunnel_pop_netdev(struct netdev *netdev, struct dp_packet *packet,
                        const struct ip_header *outer, odp_port_t port_no,
                        odp_port_t rx_port, enum pmd_counter *drop)
{
    size_t ihl = IP_IHL(outer->ip_ihl_ver) * 4;
    size_t tot_len = ntohs(outer->ip_tot_len);
    uint8_t outer_tos = outer->ip_tos;
    struct dp_packet_batch batch;
    struct ip_header *inner;

    if (ihl != IP_HEADER_LEN) {
        /* OVS's parsers take no IP options (and log each such packet). */
        *drop = PMD_TNL_DROP_BAD_HEADER;
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
    dp_packet_set_l4(packet, (char *) dp_packet_l3(packet) + IP_HEADER_LEN);
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
        *drop = PMD_TNL_DROP_BAD_HEADER;
        return NULL;
    }
    packet = batch.packets[0];
    packet->md.in_port.odp_port = port_no;
    packet->md.orig_in_port = rx_port;

    inner = vport_tunnel_inner_ipv4(packet);
    if (inner && IP_VER(inner->ip_ihl_ver) == 4
        && !vport_tunnel_ecn_decapsulate(inner, outer_tos)) {
        *drop = PMD_TNL_DROP_ECN;
        goto drop;
    }
    return packet;

drop:
    dp_packet_delete(packet);
    return NULL;
}

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

/* Returns a new state for a forwarding thread's tunnel layer. */
struct vport_tunnel_thread *
vport_tunnel_thread_create(void)
{
    return xzalloc(sizeof(struct vport_tunnel_thread));
}

/* Frees 'tt'.  Accepts NULL. */
void
vport_tunnel_thread_destroy(struct vport_tunnel_thread *tt)
{
    free(tt);
}

/* Returns 't''s state of the tunnel layer, creating it at first use. */
static struct vport_tunnel_thread *
thread_state(struct pmd_thread *t)
{
    if (OVS_UNLIKELY(!t->tunnel)) {
        t->tunnel = vport_tunnel_thread_create();
    }
    return t->tunnel;
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
        rx->active = true;
        rx->next_active = t->active_tunnels;
        t->active_tunnels = rx;
        t->n_active_tunnels++;
    }
    return rx;
}

/* Forwards 'batch', packets from 't''s receive cell 'rx', at the nesting
 * level of the cell. */
static void
rx_deliver(struct pmd_thread *t, struct vport_tunnel_rx *rx,
           struct dp_packet_batch *batch)
{
    unsigned int outer = t->tunnel_nesting;

    t->tunnel_nesting = rx->level;
    dp_input_tunnel(t, batch);
    t->tunnel_nesting = outer;
}

/* Returns true if 't' may receive one more packet on 'vport' from the
 * packets it is forwarding: not if they were decapsulated
 * VPORT_TUNNEL_MAX_NESTING times in a row already.  Otherwise drops
 * 'packet' and counts it. */
static bool
rx_nesting_ok(struct pmd_thread *t, struct vport_tunnel *vport,
              struct dp_packet *packet)
{
    if (OVS_LIKELY(t->tunnel_nesting < VPORT_TUNNEL_MAX_NESTING)) {
        return true;
    }
    VLOG_DBG_RL(&rl, "%s: dropped a packet decapsulated %u times in a row",
                netdev_get_name(vport->port->netdev), t->tunnel_nesting + 1);
    drop_packet(t, vport, packet, PMD_TNL_DROP_NESTING,
                NETDEV_IPIP_RX_DROPPED);
    return false;
}

/* Hands decapsulated 'packet' to 't''s receive cell of 'vport'.  The caller
 * checked rx_nesting_ok(). */
static void
rx_enqueue(struct pmd_thread *t, struct vport_tunnel *vport,
           struct dp_packet *packet)
{
    struct vport_tunnel_rx *rx = rx_cell(t, vport);

    rx->level = MAX(rx->level, t->tunnel_nesting + 1);
    if (!vport->ops->gro_enabled
        || vport->ops->gro_enabled(vport->port->netdev)) {
        struct gro_cell *gro = ovsrcu_get(struct gro_cell *, &rx->gro);

        if (!gro) {
            gro = gro_cell_create(TUNNEL_GRO_BACKLOG);
            ovsrcu_set(&rx->gro, gro);
        }
        if (gro_cell_backlog(gro) >= TUNNEL_GRO_BACKLOG) {
            pmd_counter_add(t, PMD_TNL_DROP_GRO_BACKLOG, 1);
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

/* Decapsulates 'packet', a tunnel packet of 'vport' whose outer IPv4
 * header is 'ip' and which came in on port 'rx_port', into 't''s receive
 * cell, or drops and counts it. */
static void
rx_decapsulate(struct pmd_thread *t, struct vport_tunnel *vport,
               struct dp_packet *packet, const struct ip_header *ip,
               odp_port_t rx_port)
{
    enum pmd_counter drop;

    if (!rx_nesting_ok(t, vport, packet)) {
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
        pmd_counter_add(t, drop, 1);
        port_count(t, vport, NETDEV_IPIP_RX_ERRORS, 1);
        return;
    }
    pmd_counter_add(t, PMD_TNL_RX_DECAP, 1);
    port_count(t, vport, NETDEV_IPIP_RX_PACKETS, 1);
    port_count(t, vport, NETDEV_IPIP_RX_BYTES, dp_packet_size(packet));
    rx_enqueue(t, vport, packet);
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
    enum pmd_counter drop = vport_tunnel_check_outer(packet, ip);
    const uint8_t *l4;
    size_t l4_len;

    if (drop) {
        if (vport) {
            rx_drop(t, vport, packet, drop);
        } else {
            pmd_counter_add(t, drop, 1);
            dp_packet_delete(packet);
        }
        return NULL;
    }
    pmd_counter_add(t, PMD_TNL_RX_FRAGMENTS, 1);
    packet = ipf_cpu_reassemble(dp_ipf_thread_table(t), packet, t->now);
    if (!packet) {
        return NULL;
    }
    pmd_counter_add(t, PMD_TNL_RX_REASSEMBLED, 1);
    ip = dp_packet_l3(packet);
    l4 = vport_tunnel_outer_l4(packet, ip, &l4_len);
    vport = find_endpoint(eps, ip->ip_proto, l4, l4_len,
                          get_16aligned_be32(&ip->ip_src),
                          get_16aligned_be32(&ip->ip_dst));
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

    switch (vport_tunnel_classify(eps, port_no, port_mac, thread_state(t),
                                  t->now, packet, &vport)) {
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
            pmd_counter_add(t, PMD_TNL_RX_FRAGMENTS_COPIED, 1);
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
                     &t->dp->tunnel_endpoints);
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
    while (t->active_tunnels) {
        struct vport_tunnel_rx *rx = t->active_tunnels;
        struct gro_cell *gro = ovsrcu_get(struct gro_cell *, &rx->gro);

        t->active_tunnels = rx->next_active;
        t->n_active_tunnels--;
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

/* Where an encapsulated packet leaves: the underlay bridge's local port,
 * its MAC and MTU, the next hop's MAC and the outer source address. */
struct underlay {
    ovs_be32 dst;                   /* Tunnel destination it was found for. */
    ovs_be32 src;                   /* Source address from the route. */
    struct dp_port *port;           /* Underlay bridge's local port. */
    struct eth_addr port_mac;       /* That port's MAC: the outer source. */
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
    struct in6_addr dst6, src6 = in6addr_any, gw6;
    ovs_be32 nh;
    int error;

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
    error = tunnel_nexthop_lookup(t, out_dev, nh, &u->nh_mac);
    if (error) {
        /* Unknown, or to be confirmed (EAGAIN: '*u' is good meanwhile). */
        tunnel_neigh_request(t, u->port, u->port_mac, u->src, nh);
        if (error != EAGAIN) {
            return PMD_TNL_DROP_NO_NEIGH;
        }
    }
    return 0;
}

/* Drops 'packet', output to 'vport' by 't', for 'reason'. */
static void
tx_drop(struct pmd_thread *t, struct vport_tunnel *vport,
        struct dp_packet *packet, enum pmd_counter reason)
{
    drop_packet(t, vport, packet, reason, NETDEV_IPIP_TX_DROPPED);
}

/* Makes '*u' the underlay for 'packet''s tunnel destination, reusing it if
 * the previous packet of the batch had the same ('*have_u').  Returns
 * false, having dropped 'packet', if there is none. */
static bool
get_underlay(struct pmd_thread *t, struct vport_tunnel *vport,
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
            /* INFO, not WARN: as with the kernel's vports (and OVS's native
             * tunnels), a missing route is the network's state, not an
             * error of ours; BFD and CFM over a tunnel hit it by design
             * until a route exists.  The drop counter says how often. */
            VLOG_INFO_RL(&rl, "%s: cannot send to "IP_FMT": %s",
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
    struct vport_tunnel_thread *tt = thread_state(t);
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

/* Answers 'packet', too big for the tunnel's path MTU 'mtu' with DF set,
 * with an ICMP "fragmentation needed", received back on 'vport' as if from
 * the tunnel's far end, so that the flows that deliver the tunnel's traffic
 * take it to the sender, unless 't' is over its ICMP rate limit.  Frees
 * 'packet'. */
static void
send_frag_needed(struct pmd_thread *t, struct vport_tunnel *vport,
                 struct dp_packet *packet, ovs_be32 local, int mtu)
{
    const struct flow_tnl *tnl = &packet->md.tunnel;
    struct dp_packet *icmp = NULL;

    if (icmp_allowed(t)) {
        icmp = ip_icmp_frag_needed(packet, local, mtu);
    } else {
        pmd_counter_add(t, PMD_TNL_ICMP_SUPPRESSED, 1);
    }
    if (icmp && rx_nesting_ok(t, vport, icmp)) {
        struct flow_tnl *rtnl;

        vport_tunnel_init_metadata(icmp, vport->port->port_no,
                                   packet->md.in_port.odp_port);
        rtnl = &icmp->md.tunnel;
        rtnl->ip_src = tnl->ip_dst;
        rtnl->ip_dst = local;
        rtnl->ip_ttl = TUNNEL_DEFAULT_TTL;
        pmd_counter_add(t, PMD_TNL_TX_ICMP_FRAG_NEEDED, 1);
        rx_enqueue(t, vport, icmp);
    }
    tx_drop(t, vport, packet, PMD_TNL_DROP_TOO_BIG);
}

/* The outer header fields that encapsulation takes from the tunnel
 * metadata, saved before the metadata is reset for the underlay. */
struct outer_fields {
    ovs_be32 src;                   /* Outer source address. */
    ovs_be32 dst;                   /* Outer destination address. */
    uint8_t tos;                    /* DSCP and ECN. */
    uint8_t ttl;                    /* 0: the default. */
    bool df;                        /* Set DF. */
    bool udp_csum;                  /* Compute the outer UDP checksum. */
};

/* Puts the outer IPv4 header of protocol 'proto' and the Ethernet header on
 * 'packet', whose tunnel header is already pushed, to go via 'u'; completes
 * a UDP header's length and checksum. */
static void
push_outer(struct pmd_thread *t, struct dp_packet *packet, uint8_t proto,
           const struct outer_fields *f, const struct underlay *u)
{
    size_t l4_len = dp_packet_size(packet);
    struct eth_header *eth;
    struct ip_header *ip;

    ip = dp_packet_push_uninit(packet, IP_HEADER_LEN);
    ip->ip_ihl_ver = IP_IHL_VER(5, 4);
    ip->ip_tos = f->tos;
    ip->ip_tot_len = htons(l4_len + IP_HEADER_LEN);
    if (f->df) {
        /* As Linux does for a DF packet with no socket. */
        ip->ip_id = 0;
        ip->ip_frag_off = htons(IP_DONT_FRAGMENT);
    } else {
        ip->ip_id = htons(t->ip_id_next++);
        ip->ip_frag_off = 0;
    }
    ip->ip_ttl = f->ttl ? f->ttl : TUNNEL_DEFAULT_TTL;
    ip->ip_proto = proto;
    put_16aligned_be32(&ip->ip_src, f->src);
    put_16aligned_be32(&ip->ip_dst, f->dst);
    ip->ip_csum = 0;
    ip->ip_csum = csum(ip, IP_HEADER_LEN);

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

/* Bytes of the Ethernet and outer IPv4 headers that encapsulation puts in
 * front of a tunnel's own header. */
#define TUNNEL_OUTER_HLEN (ETH_HEADER_LEN + IP_HEADER_LEN)

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
    const struct ip_header *inner;
    struct dp_packet *roomy;
    struct outer_fields f;
    size_t inner_len;

    if (!get_underlay(t, vport, packet, u, have_u)) {
        return;
    }

    f.src = tnl->ip_src ? tnl->ip_src : u->src;
    f.dst = tnl->ip_dst;
    f.ttl = tnl->ip_ttl;
    f.df = tnl->flags & FLOW_TNL_F_DONT_FRAGMENT;
    f.udp_csum = tnl->flags & FLOW_TNL_F_CSUM;
    f.tos = tnl->ip_tos;
    inner = vport_tunnel_inner_ipv4(packet);
    inner_len = dp_packet_size(packet);
    /* RFC 6040 normal mode, as Linux's INET_ECN_encapsulate(): the outer
     * header copies the inner ECN field, a CE mark becoming ECT(0). */
    if (inner && !(f.tos & IP_ECN_MASK)) {
        uint8_t ecn = inner->ip_tos & IP_ECN_MASK;

        f.tos |= ecn == IP_ECN_CE ? IP_ECN_ECT_0 : ecn;
    }
    if (inner_len + hlen + IP_HEADER_LEN > u->mtu) {
        if (vport->ops->inner_ipv4_only
            && inner->ip_frag_off & htons(IP_DONT_FRAGMENT)) {
            send_frag_needed(t, vport, packet, f.src,
                             u->mtu - IP_HEADER_LEN - hlen);
            return;
        }
        /* The outer packet is fragmented, whatever df_default says, as
         * Linux's ip_tunnel clears DF for an inner packet without it. */
        f.df = false;
    }

    roomy = make_headroom(packet, TUNNEL_OUTER_HLEN + hlen);
    if (!roomy) {
        VLOG_DBG_RL(&rl, "%s: dropped a %"PRIuSIZE"-byte packet: "
                    "encapsulated, it would exceed 65535 bytes",
                    netdev_get_name(vport->port->netdev), inner_len);
        tx_drop(t, vport, packet, PMD_TNL_DROP_TOO_LONG);
        return;
    }
    packet = roomy;
    tnl = &packet->md.tunnel;

    port_count(t, vport, NETDEV_IPIP_TX_PACKETS, 1);
    port_count(t, vport, NETDEV_IPIP_TX_BYTES, inner_len);
    pmd_counter_add(t, PMD_TNL_TX_ENCAP, 1);

    vport->ops->push(packet, tnl, vport->udp_port);
    set_underlay_metadata(packet, u->port);
    push_outer(t, packet, vport->ops->ip_proto, &f, u);
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
        size_t hlen;

        if (!vport->ops->prepare(packet, &hlen) || !tnl->ip_dst) {
            tx_drop(t, vport, packet, PMD_TNL_DROP_TX_INVALID);
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

            if (!get_underlay(t, vport, packet, &u, &have_u)) {
                continue;
            }
            inner = vport_tunnel_inner_ipv4(packet);
            inner_l2 = inner ? (const char *) inner
                               - (const char *) dp_packet_data(packet) : 0;
            /* Segments no larger than the sender's, as GRO recorded them,
             * and small enough for the tunnel's path MTU once inside the
             * inner Ethernet, tunnel and outer IPv4 headers. */
            segsz = gso_segsz_for_mtu(packet, u.mtu - IP_HEADER_LEN - hlen
                                              - inner_l2);
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
        encapsulate_one(t, vport, packet, hlen, &u, &have_u, &underlay);
    }
    dp_packet_batch_init(batch);
    if (!dp_packet_batch_is_empty(&underlay)) {
        dp_input_inject(t, &underlay);
    }
}

/* Formats the GRO counters of tunnel port 'port_name' (every tunnel port
 * if NULL) of 'dp' into 's': per thread, then in total. */
void
vport_tunnel_format_gro_stats(struct ds *s, const struct datapath *dp,
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
        struct vport_tunnel *vport = port->tunnel;

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

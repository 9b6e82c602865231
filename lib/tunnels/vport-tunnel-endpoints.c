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

/* The endpoint table of the tunnel layer: which packets delivered to which
 * port are a tunnel vport's.  Built by the main thread, read by the
 * forwarding threads under RCU. */

#include <config.h>
#include "vport-tunnel.h"

#include <netinet/in.h>
#include <netinet/ip6.h>

#include "datapath.h"
#include "dp-packet.h"
#include "dp-port.h"
#include "hash.h"
#include "netdev.h"
#include "ovs-rcu.h"
#include "packets.h"
#include "timeval.h"
#include "util.h"
#include "vport-tunnel-private.h"

/* Bytes of a UDP header. */
#define TUNNEL_UDP_HLEN 8

/* Most IPv6 extension headers walked before an outer UDP or GRE header:
 * more than any sender needs (RFC 8504 lets a host limit them), few enough
 * that a chain costs a thread nothing much. */
#define TUNNEL_MAX_EXT_HDRS 8

/* One way in: packets of IP protocol 'proto' (and, if 'udp_port' is
 * nonzero, of that UDP destination port; if 'claims' is nonnull, that it
 * claims) from 'remote' (0: any) to 'local' (0: any address of the port
 * they are delivered to) are received on 'vport'. */
struct vport_tunnel_endpoint {
    ovs_be32 local;                 /* Outer destination, 0: any local. */
    ovs_be32 remote;                /* Outer source, 0: any. */
    ovs_be16 udp_port;              /* UDP destination port, 0: not UDP. */
    uint8_t proto;                  /* Outer IP protocol. */
    bool ipv4;                      /* Taken over IPv4. */
    bool ipv6;                      /* Taken over IPv6, from 'remote6' to
                                     * 'local6'. */
    struct in6_addr local6;         /* Outer IPv6 destination, all-zero:
                                     * any local. */
    struct in6_addr remote6;        /* Outer IPv6 source, all-zero: any. */
    bool ipv6_first;                /* Over IPv6, before one that is
                                     * not (ip6gre before gre). */
    bool (*claims)(const void *l4, size_t len); /* The type's, or NULL. */
    struct vport_tunnel *vport;     /* Where such packets are received. */
};

/* An address of a port that terminates tunnels. */
struct vport_tunnel_local {
    odp_port_t port_no;             /* The port (a bridge's local port). */
    struct in6_addr addr;           /* One of its addresses, IPv4-mapped for
                                     * IPv4. */
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
    bool protos6[UINT8_MAX + 1];    /* The same as 'protos', over IPv6. */
};

/* How long a verdict lasts, in ms: as the reassembly table remembers
 * finished datagrams (IPF_CPU_RECENT_MS), short, because a sender may reuse
 * an IP ID soon. */
#define FRAG_VERDICT_MS 1000

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
    e->ipv4 = !ops->ipv6_only;
    e->ipv6 = ops->ipv6_underlay && !local && !remote;
    e->ipv6_first = ops->ipv6_only;
    e->claims = ops->claims;
    e->vport = vport;
    eps->protos[e->proto] |= e->ipv4;
    eps->protos6[e->proto] |= e->ipv6;
    if (e->ipv4 && (e->udp_port || e->claims)) {
        eps->l4_decides[e->proto] = true;
    }
}

/* Adds to 'eps' a way into 'vport' for packets of IP protocol (IPv6: next
 * header) 'proto' from 'remote' to 'local' (IPv4-mapped over IPv4, IPv6
 * over IPv6; all-zero: any), over IPv4 if 'ipv4', over IPv6 if 'ipv6'.  An
 * address of the other family than the one it is matched on means any.
 * For a type whose ways in the port's own addresses say (ipip), with no
 * UDP port and nothing claimed past the IP header. */
void
vport_tunnel_endpoints_add_ip(struct vport_tunnel_endpoints *eps,
                              uint8_t proto, bool ipv4, bool ipv6,
                              const struct in6_addr *local,
                              const struct in6_addr *remote,
                              struct vport_tunnel *vport)
{
    struct vport_tunnel_endpoint *e;

    if (eps->n == eps->allocated) {
        eps->e = x2nrealloc(eps->e, &eps->allocated, sizeof *eps->e);
    }
    e = &eps->e[eps->n++];
    memset(e, 0, sizeof *e);    /* endpoints_equal() compares the bytes. */
    if (IN6_IS_ADDR_V4MAPPED(local)) {
        e->local = in6_addr_get_mapped_ipv4(local);
    } else {
        e->local6 = *local;
    }
    if (IN6_IS_ADDR_V4MAPPED(remote)) {
        e->remote = in6_addr_get_mapped_ipv4(remote);
    } else {
        e->remote6 = *remote;
    }
    e->proto = proto;
    e->ipv4 = ipv4;
    e->ipv6 = ipv6;
    e->vport = vport;
    eps->protos[proto] |= ipv4;
    eps->protos6[proto] |= ipv6;
}

/* Adds to 'eps' IPv4 address 'addr' of port 'port_no': tunnel packets to
 * 'addr' that the flows output to that port are decapsulated. */
void
vport_tunnel_endpoints_add_local(struct vport_tunnel_endpoints *eps,
                                 odp_port_t port_no, ovs_be32 addr)
{
    struct in6_addr addr6;

    in6_addr_set_mapped_ipv4(&addr6, addr);
    vport_tunnel_endpoints_add_local6(eps, port_no, &addr6);
}

/* Adds to 'eps' address 'addr' (IPv6, or IPv4-mapped) of port 'port_no'. */
void
vport_tunnel_endpoints_add_local6(struct vport_tunnel_endpoints *eps,
                                  odp_port_t port_no,
                                  const struct in6_addr *addr)
{
    struct vport_tunnel_local *l;

    if (eps->n_local == eps->allocated_local) {
        eps->local = x2nrealloc(eps->local, &eps->allocated_local,
                                sizeof *eps->local);
    }
    l = &eps->local[eps->n_local++];
    memset(l, 0, sizeof *l);
    l->port_no = port_no;
    l->addr = *addr;
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

/* Appends the IPv4 and IPv6 addresses of 'port''s netdev to 'eps'.  An
 * IPv6 link-local address is one too: Linux's tunnels take packets to it,
 * and a route with a link-local source is the host's to choose. */
static void
add_local_addrs(struct vport_tunnel_endpoints *eps, const struct dp_port *port)
{
    struct in6_addr *addrs, *masks;
    int n_addrs;

    if (netdev_get_addr_list(port->netdev, &addrs, &masks, &n_addrs)) {
        return;
    }
    for (int i = 0; i < n_addrs; i++) {
        if (ipv6_addr_is_set(&addrs[i])) {
            vport_tunnel_endpoints_add_local6(eps, port->port_no, &addrs[i]);
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
    OVS_REQUIRES(dp->reconfig_mutex)
{
    struct vport_tunnel_endpoints *old, *cur;
    struct vport_tunnel_endpoints *eps = vport_tunnel_endpoints_create();
    struct dp_port *port;

    old = ovsrcu_get_protected(struct vport_tunnel_endpoints *,
                               &dp->tunnel->endpoints);
    CMAP_FOR_EACH (port, node, &dp->ports) {
        struct vport_tunnel *vport = port->tunnel;
        ovs_be32 local, remote;
        ovs_be16 udp_port;

        if (!vport) {
            continue;
        }
        vport->config_seen = vport->ops->endpoint(port->netdev, &local,
                                                  &remote, &udp_port);
        if (vport->config_seen && vport->ops->add_endpoints) {
            vport->ops->add_endpoints(port->netdev, eps, vport);
        } else if (vport->config_seen) {
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
        ovsrcu_set(&dp->tunnel->endpoints, cur);
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

/* Main thread, under 'dp->reconfig_mutex': republishes the endpoint table
 * when a tunnel port's options changed (its netdev replaces its config on
 * every change), when an internal port's netdev changed (its addresses may
 * have), and once a second in any case. */
void
vport_tunnel_run(struct datapath *dp)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    long long int now = time_msec();
    bool changed = now >= dp->tunnel->next_refresh;
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
    if (local_seq != dp->tunnel->local_seq) {
        dp->tunnel->local_seq = local_seq;
        changed = true;
    }
    if (changed) {
        dp->tunnel->next_refresh = now + 1000;
        vport_tunnel_publish_endpoints(dp);
    }
}

/* Returns true if 'ip' (IPv6, or IPv4-mapped) is an address of port
 * 'port_no', as 'eps' recorded the addresses. */
static bool
port_owns6(const struct vport_tunnel_endpoints *eps, odp_port_t port_no,
           const struct in6_addr *ip)
{
    for (size_t i = 0; i < eps->n_local; i++) {
        if (eps->local[i].port_no == port_no
            && ipv6_addr_equals(&eps->local[i].addr, ip)) {
            return true;
        }
    }
    return false;
}

/* Returns true if IPv4 address 'ip' is an address of port 'port_no'. */
static bool
port_owns(const struct vport_tunnel_endpoints *eps, odp_port_t port_no,
          ovs_be32 ip)
{
    struct in6_addr ip6;

    in6_addr_set_mapped_ipv4(&ip6, ip);
    return port_owns6(eps, port_no, &ip6);
}

/* Returns the vport that receives packets of IP protocol 'proto' from 'src'
 * to 'dst', an address of the port they are delivered to, whose IP payload
 * starts with the 'l4_len' bytes at 'l4' (NULL for a fragment other than
 * the first, which only a type that looks at nothing past the IP header
 * takes), or NULL if there is none.  As the kernel's ip_tunnel lookup, an
 * exact (local, remote) match wins over remote_ip=flow, which wins over a
 * vport with no local_ip. */
struct vport_tunnel *
vport_tunnel_find_endpoint(const struct vport_tunnel_endpoints *eps,
                           uint8_t proto, const uint8_t *l4, size_t l4_len,
                           ovs_be32 src, ovs_be32 dst)
{
    struct vport_tunnel *best = NULL;
    int best_score = 0;

    for (size_t i = 0; i < eps->n; i++) {
        const struct vport_tunnel_endpoint *e = &eps->e[i];
        int score;

        if (e->proto != proto || !e->ipv4
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

/* Returns the vport that receives IPv6 packets of next header 'proto' from
 * 'src' to 'dst' whose payload starts with the 'l4_len' bytes at 'l4', or
 * NULL if there is none.  An IPv6-only type (ip6gre) comes first; then, as
 * over IPv4, an exact (local, remote) match wins over one on remote only,
 * which wins over one on local only, then any (ipip's own addresses; the
 * other types take any local and remote address, and ofproto matches the
 * packet's tun_ipv6_src and tun_ipv6_dst against each port's remote_ip and
 * local_ip); the first of equals wins. */
static struct vport_tunnel *
find_endpoint6(const struct vport_tunnel_endpoints *eps, uint8_t proto,
               const uint8_t *l4, size_t l4_len, const struct in6_addr *src,
               const struct in6_addr *dst)
{
    struct vport_tunnel *best = NULL;
    int best_score = 0;

    for (size_t i = 0; i < eps->n; i++) {
        const struct vport_tunnel_endpoint *e = &eps->e[i];
        bool has_local = ipv6_addr_is_set(&e->local6);
        bool has_remote = ipv6_addr_is_set(&e->remote6);
        int score;

        if (!e->ipv6 || e->proto != proto
            || (has_local && !ipv6_addr_equals(&e->local6, dst))
            || (has_remote && !ipv6_addr_equals(&e->remote6, src))) {
            continue;
        }
        if (e->udp_port
            && (l4_len < TUNNEL_UDP_HLEN
                || ((const struct udp_header *) l4)->udp_dst
                   != e->udp_port)) {
            continue;
        }
        if (e->claims && !e->claims(l4, l4_len)) {
            continue;
        }
        if (e->ipv6_first) {
            return e->vport;
        }
        score = has_local ? (has_remote ? 4 : 3) : (has_remote ? 2 : 1);
        if (score > best_score) {
            best = e->vport;
            best_score = score;
        }
    }
    return best;
}

/* Walks the extension headers of the IPv6 datagram whose header 'ip6' has
 * the 'avail' bytes of the datagram present after it (the payload length,
 * at most to the packet's end).  Returns the first header that is not
 * hop-by-hop options, destination options or a routing header whose
 * segments are all done, and stores its offset from 'ip6' in '*ofs': the
 * header the datagram is for, at this address, or a fragment header.
 * Returns -1 (not a tunnel's) for a routing header with segments left (the
 * datagram is for another address), a chain cut short by the end of the
 * datagram, or one longer than TUNNEL_MAX_EXT_HDRS. */
static int
ipv6_upper_proto(const struct ovs_16aligned_ip6_hdr *ip6, size_t avail,
                 size_t *ofs)
{
    const uint8_t *base = (const uint8_t *) ip6;
    uint8_t nxt = ip6->ip6_nxt;
    size_t pos = IPV6_HEADER_LEN;

    for (int i = 0; i <= TUNNEL_MAX_EXT_HDRS; i++) {
        const struct ip6_ext *ext = (const struct ip6_ext *) (base + pos);
        size_t len;

        if (nxt != IPPROTO_HOPOPTS && nxt != IPPROTO_DSTOPTS
            && nxt != IPPROTO_ROUTING) {
            *ofs = pos;
            return nxt;
        }
        if (i == TUNNEL_MAX_EXT_HDRS
            || avail - (pos - IPV6_HEADER_LEN) < 8) {
            return -1;
        }
        len = (ext->ip6e_len + 1) * 8;
        if (nxt == IPPROTO_ROUTING
            && ((const struct ip6_rthdr *) ext)->ip6r_segleft) {
            return -1;
        }
        if (avail - (pos - IPV6_HEADER_LEN) < len) {
            return -1;
        }
        nxt = ext->ip6e_nxt;
        pos += len;
    }
    return -1;
}

/* vport_tunnel_classify() for an IPv6 frame 'packet', whose outer header
 * is 'ip6' (l3_ofs set) and at least IPV6_HEADER_LEN bytes: its
 * destination is an address of 'port_no' (else it is no tunnel's), and its
 * next header a vport's.  A tunnel packet behind extension headers is one
 * too, for vport_tunnel_check_outer() to refuse and count. */
static enum vport_tunnel_class classify6_fragment(
    const struct vport_tunnel_endpoints *, struct vport_tunnel_thread *,
    long long int now_ms, const struct ovs_16aligned_ip6_hdr *,
    const uint8_t *frag, size_t avail, struct vport_tunnel **);

static enum vport_tunnel_class
classify6(const struct vport_tunnel_endpoints *eps, odp_port_t port_no,
          struct vport_tunnel_thread *tt, long long int now_ms,
          struct dp_packet *packet, struct vport_tunnel **vportp)
{
    const struct ovs_16aligned_ip6_hdr *ip6 = dp_packet_l3(packet);
    size_t avail = (const char *) dp_packet_tail(packet) - (const char *) ip6
                   - IPV6_HEADER_LEN;
    struct in6_addr src, dst;
    int proto;
    size_t ofs;

    memcpy(&src, &ip6->ip6_src, sizeof src);
    memcpy(&dst, &ip6->ip6_dst, sizeof dst);
    if (!port_owns6(eps, port_no, &dst)) {
        return VPORT_TUNNEL_NOT_OURS;
    }
    avail = MIN(avail, ntohs(ip6->ip6_plen));
    proto = ipv6_upper_proto(ip6, avail, &ofs);
    if (proto == IPPROTO_FRAGMENT) {
        return classify6_fragment(eps, tt, now_ms, ip6,
                                  (const uint8_t *) ip6 + ofs,
                                  avail - (ofs - IPV6_HEADER_LEN), vportp);
    }
    if (proto < 0 || !eps->protos6[proto]) {
        return VPORT_TUNNEL_NOT_OURS;
    }
    *vportp = find_endpoint6(eps, proto, (const uint8_t *) ip6 + ofs,
                             avail - (ofs - IPV6_HEADER_LEN), &src, &dst);
    return *vportp ? VPORT_TUNNEL_OURS : VPORT_TUNNEL_NOT_OURS;
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

/* What identifies a fragmented datagram for the verdict table: its outer
 * addresses (IPv4-mapped for IPv4), identification and protocol. */
struct frag_key {
    struct in6_addr src, dst;
    uint32_t id;
    uint8_t proto;
};

/* Fills 'key' for the datagram with outer IPv4 header 'ip'. */
static void
frag_key4(struct frag_key *key, const struct ip_header *ip)
{
    in6_addr_set_mapped_ipv4(&key->src, get_16aligned_be32(&ip->ip_src));
    in6_addr_set_mapped_ipv4(&key->dst, get_16aligned_be32(&ip->ip_dst));
    key->id = ntohs(ip->ip_id);
    key->proto = ip->ip_proto;
}

/* Returns the slot of 'tt''s fragment verdicts for the datagram 'key'. */
static struct frag_verdict *
frag_verdict_slot(struct vport_tunnel_thread *tt, const struct frag_key *key)
{
    uint32_t hash = hash_bytes(&key->src, sizeof key->src,
                               hash_bytes(&key->dst, sizeof key->dst,
                                          hash_2words(key->id, key->proto)));

    return &tt->verdicts[hash & (FRAG_VERDICTS - 1)];
}

/* Returns the class of a later fragment of the datagram 'key' from what
 * 'tt' recorded when its first fragment came: VPORT_TUNNEL_FRAGMENT for a
 * tunnel's, VPORT_TUNNEL_NOT_OURS for another's, and
 * VPORT_TUNNEL_FRAGMENT_UNKNOWN when nothing (or only an expired or
 * overwritten record) is known. */
static enum vport_tunnel_class
frag_verdict_class(struct vport_tunnel_thread *tt, const struct frag_key *key,
                   long long int now)
{
    const struct frag_verdict *v = frag_verdict_slot(tt, key);

    if (v->expires > now && ipv6_addr_equals(&v->src, &key->src)
        && ipv6_addr_equals(&v->dst, &key->dst)
        && v->id == key->id && v->proto == key->proto) {
        return v->ours ? VPORT_TUNNEL_FRAGMENT : VPORT_TUNNEL_NOT_OURS;
    }
    return VPORT_TUNNEL_FRAGMENT_UNKNOWN;
}

/* Records in 'tt' whether the datagram 'key', whose first fragment came,
 * is a tunnel's ('ours'). */
static void
frag_verdict_set(struct vport_tunnel_thread *tt, const struct frag_key *key,
                 bool ours, long long int now)
{
    struct frag_verdict *v = frag_verdict_slot(tt, key);

    v->src = key->src;
    v->dst = key->dst;
    v->id = key->id;
    v->proto = key->proto;
    v->ours = ours;
    v->expires = now + FRAG_VERDICT_MS;
}

/* classify6() for an outer IPv6 fragment to an address of ours, whose
 * fragment header is at 'frag', with 'avail' bytes of the datagram from
 * there: as for IPv4, the first fragment (offset 0) says, from the UDP or
 * GRE header right after the fragment header, whether the datagram is a
 * tunnel's (ipip over IPv6: from the addresses alone), and leaves its
 * verdict for the later ones.  An atomic fragment (offset
 * 0, no more fragments) is no tunnel's.  A fragment header cut short
 * is taken (VPORT_TUNNEL_FRAGMENT with no vport), for reassembly to refuse
 * and count, as Linux drops it. */
static enum vport_tunnel_class
classify6_fragment(const struct vport_tunnel_endpoints *eps,
                   struct vport_tunnel_thread *tt, long long int now_ms,
                   const struct ovs_16aligned_ip6_hdr *ip6,
                   const uint8_t *frag, size_t avail,
                   struct vport_tunnel **vportp)
{
    const struct ovs_16aligned_ip6_frag *fh = (const void *) frag;
    struct frag_key key;

    if (avail < sizeof *fh) {
        return VPORT_TUNNEL_FRAGMENT;
    }
    if (!eps->protos6[fh->ip6f_nxt]) {
        return VPORT_TUNNEL_NOT_OURS;
    }
    memcpy(&key.src, &ip6->ip6_src, sizeof key.src);
    memcpy(&key.dst, &ip6->ip6_dst, sizeof key.dst);
    key.id = ntohl(get_16aligned_be32(&fh->ip6f_ident));
    key.proto = fh->ip6f_nxt;

    if (fh->ip6f_offlg & IP6F_OFF_MASK) {
        return frag_verdict_class(tt, &key, now_ms);
    }
    if (!(fh->ip6f_offlg & IP6F_MORE_FRAG)) {
        /* An atomic fragment (RFC 6946): no tunnel's, as a tunnel packet
         * behind any other extension header is none, delivered as it
         * came. */
        return VPORT_TUNNEL_NOT_OURS;
    }
    *vportp = find_endpoint6(eps, fh->ip6f_nxt, frag + sizeof *fh,
                             avail - sizeof *fh, &key.src, &key.dst);
    frag_verdict_set(tt, &key, *vportp != NULL, now_ms);
    return *vportp ? VPORT_TUNNEL_FRAGMENT : VPORT_TUNNEL_NOT_OURS;
}

/* Returns the vport that takes 'packet', a reassembled IPv6 datagram (l3
 * set, its outer header sound), or NULL. */
struct vport_tunnel *
vport_tunnel_find_endpoint6(const struct vport_tunnel_endpoints *eps,
                            const struct dp_packet *packet)
{
    const struct ovs_16aligned_ip6_hdr *ip6 = dp_packet_l3(packet);
    size_t avail = (const char *) dp_packet_tail(packet) - (const char *) ip6;
    struct in6_addr src, dst;
    size_t ofs;
    int proto;

    if (avail < IPV6_HEADER_LEN) {
        return NULL;
    }
    avail = MIN(avail - IPV6_HEADER_LEN, ntohs(ip6->ip6_plen));
    proto = ipv6_upper_proto(ip6, avail, &ofs);
    if (proto < 0 || proto == IPPROTO_FRAGMENT) {
        return NULL;
    }
    memcpy(&src, &ip6->ip6_src, sizeof src);
    memcpy(&dst, &ip6->ip6_dst, sizeof dst);
    return find_endpoint6(eps, proto, (const uint8_t *) ip6 + ofs,
                          avail - (ofs - IPV6_HEADER_LEN), &src, &dst);
}

/* Says what 'packet', which the flows output to port 'port_no' (MAC
 * 'port_mac'), is to the tunnel vports of 'eps', and for VPORT_TUNNEL_OURS
 * and the first fragment of a tunnel datagram stores the vport in
 * '*vportp' (else NULL).  A tunnel packet is an untagged IPv4 or IPv6
 * frame to 'port_mac' (or a multicast MAC, which the kernel's IP stack
 * takes too), to an address of the port, of the protocol (IPv6: the next
 * header past any hop-by-hop, destination or finished routing headers),
 * UDP port and header of a vport whose endpoints match (IPv6: of a type
 * that carries IPv6 underlays).  An IPv6 fragment is told apart as an IPv4
 * one is (classify6_fragment()).  'tt' is the calling thread's, for the
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
    if (packet->packet_type != htonl(PT_ETH)
        || dp_packet_size(packet) < ETH_HEADER_LEN
        || (!eth_addr_equals(eth->eth_dst, port_mac)
            && !eth_addr_is_multicast(eth->eth_dst))) {
        return VPORT_TUNNEL_NOT_OURS;
    }
    if (!ip) {
        if (dp_packet_size(packet) >= ETH_HEADER_LEN + IPV6_HEADER_LEN
            && eth->eth_type == htons(ETH_TYPE_IPV6)) {
            dp_packet_set_l3(packet, (uint8_t *) eth + ETH_HEADER_LEN);
            return classify6(eps, port_no, tt, now_ms, packet, vportp);
        }
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
            *vportp = vport_tunnel_find_endpoint(eps, proto, NULL, 0, src,
                                                 dst);
            return *vportp ? VPORT_TUNNEL_FRAGMENT : VPORT_TUNNEL_NOT_OURS;
        }
        struct frag_key key;

        frag_key4(&key, ip);
        return frag_verdict_class(tt, &key, now_ms);
    }

    l4 = vport_tunnel_outer_l4(packet, ip, &l4_len);
    *vportp = vport_tunnel_find_endpoint(eps, proto, l4, l4_len, src, dst);
    if (ip->ip_frag_off & htons(IP_MORE_FRAGMENTS)) {
        /* The first fragment decides for the later ones. */
        if (eps->l4_decides[proto]) {
            struct frag_key key;

            frag_key4(&key, ip);
            frag_verdict_set(tt, &key, *vportp != NULL, now_ms);
        }
        return *vportp ? VPORT_TUNNEL_FRAGMENT : VPORT_TUNNEL_NOT_OURS;
    }
    return *vportp ? VPORT_TUNNEL_OURS : VPORT_TUNNEL_NOT_OURS;
}

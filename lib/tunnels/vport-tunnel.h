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

#ifndef VPORT_TUNNEL_H
#define VPORT_TUNNEL_H 1

/* The datapath side of tunnel ports (ipip, vxlan, gre, geneve), kernel-style:
 * ofproto emits set(tunnel(...)) and output to the tunnel's datapath port,
 * and expects decapsulated packets back on that port with their tunnel
 * metadata, as the Linux kernel's OVS datapath does for its vports.
 *
 * Where packets are decapsulated: where the Linux kernel's datapath hands
 * them to its IP stack, whose tunnel sockets take them.  That is when the
 * flows of a bridge output a packet to a port that holds the packet's
 * destination address (the bridge's local port, an internal port): output
 * to such a port first calls vport_tunnel_terminate(), which takes the
 * tunnel packets out of the batch and leaves everything else to be
 * delivered intact.  So the underlay bridge's OpenFlow rules see every
 * tunnel packet, no other port can inject into a tunnel, and a packet
 * carried inside a tunnel is decapsulated again only if the overlay's flows
 * deliver it to a local port of its own (at most VPORT_TUNNEL_MAX_NESTING
 * times in a row).
 *
 * What every type shares lives here: the endpoint table that says which
 * packets delivered to which port are a vport's (by the port's addresses,
 * outer IP protocol, UDP destination port for the UDP types, a look at the
 * GRE header for gre), outer fragment reassembly, the per-thread receive
 * cells (GRO cells or plain batches) flushed at the end of a round, and on
 * transmit software segmentation, the outer IPv4 header, the route
 * (ovs_router_lookup()), the neighbour cache, outer fragmentation and the
 * hand-off to the underlay bridge.  What differs per type is a small
 * 'struct vport_tunnel_ops': how to decapsulate, and which header to push
 * between the outer IPv4 header and the inner packet (vport-ipip.c,
 * vport-vxlan.c, vport-gre.c, vport-geneve.c).
 *
 * One job per file: the endpoint table and classification in
 * vport-tunnel-endpoints.c, receive in vport-tunnel-rx.c, transmit in
 * vport-tunnel-tx.c, the GRO counters' formatter in vport-tunnel-format.c;
 * vport-tunnel.c holds the types' ops, a vport's life and the helpers they
 * share (vport-tunnel-private.h).
 *
 * Who owns what: the endpoint table is built by the main thread and read by
 * the forwarding threads under RCU, taking no reference; each thread owns
 * its receive cell of each vport, its reassembly table, its fragment
 * verdicts, its ICMP rate limit, its counters and its generator of outer
 * IP identifications (ip-ident.h), which gives it a part of the space of
 * its own by its rank among the threads that exist
 * (vport_tunnel_set_ranks()). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "openvswitch/types.h"
#include "packets.h"

struct datapath;
struct dp_packet;
struct dp_packet_batch;
struct dp_port;
struct ds;
struct flow_tnl;
struct ip_header;
struct netdev;
struct pmd_thread;
struct thread_counters;
struct vport_tunnel;
struct vport_tunnel_endpoints;
struct vport_tunnel_table;
struct vport_tunnel_thread;

/* The tunnel layer's counters of each forwarding thread (vport-tunnel.c,
 * vport-tunnel-rx.c, vport-tunnel-tx.c, and the next hops' in
 * tunnel-neigh.c and tunnel-nexthop.c), and the names tunnel-stats-show
 * prints them by, in that order.  VPORT_TNL_NONE is no counter (never
 * printed), so that a function returns 0 or the counter to drop with. */
#define VPORT_TUNNEL_COUNTERS                                               \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_NONE, NULL)                              \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_RX_DECAP, "decapsulated")                \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_RX_FRAGMENTS, "outer fragments received") \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_RX_REASSEMBLED,                          \
                         "outer datagrams reassembled")                     \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_TX_ENCAP, "encapsulated")                \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_TX_FRAGMENTED,                           \
                         "outer packets fragmented")                        \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_TX_ICMP_FRAG_NEEDED,                     \
                         "icmp fragmentation needed sent")                  \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_TX_ARP_REQUESTS, "arp requests sent")    \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ARP_REQUESTS_OVER_RATE,                  \
                         "arp requests over rate")                          \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_BAD_HEADER, "drop bad outer header") \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_TRUNCATED, "drop truncated")        \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_BAD_CSUM, "drop bad outer checksum") \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_NOT_IPV4, "drop inner not ipv4")    \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_ECN, "drop ecn")                    \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_GRO_BACKLOG, "drop gro backlog")    \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_NO_ROUTE, "drop no route")          \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_NO_UNDERLAY,                        \
                         "drop route not to a bridge")                      \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_NO_NEIGH,                           \
                         "drop next hop unresolved")                        \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_TX_INVALID,                         \
                         "drop not ipv4 or no destination")                 \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_TOO_BIG, "drop too big")            \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_RX_FRAGMENTS_COPIED,                     \
                         "outer fragments copied")                          \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_NESTING, "drop tunnel nesting")     \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_TOO_LONG, "drop outer too long")    \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ICMP_SUPPRESSED,                         \
                         "icmp fragmentation needed suppressed")            \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ARP_LEARNED, "arp learned")              \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ARP_CONFIRMED, "arp confirmed")          \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ARP_CANDIDATES, "arp other answers held") \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ARP_REFUSED_GARP,                        \
                         "arp refused gratuitous")                          \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ARP_REFUSED_NOT_OURS,                    \
                         "arp refused not for us")                          \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ARP_REFUSED_UNSOLICITED,                 \
                         "arp refused unsolicited")                         \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ARP_REFUSED_MALFORMED,                   \
                         "arp refused malformed")                           \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ARP_REFUSED_RATE,                        \
                         "arp refused over rate")                           \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ARP_REFUSED_FULL,                        \
                         "arp refused table full")                          \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_NH_REFRESHES, "next hop cache refreshes") \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ROUTE_REFRESHES, "route cache refreshes") \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_IPV6_EXT,                          \
                         "drop outer ipv6 extension headers")              \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_IPV6_OPTION,                       \
                         "drop outer ipv6 destination option")             \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_TX_ND_REQUESTS,                          \
                         "nd solicitations sent")                           \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ND_REQUESTS_OVER_RATE,                   \
                         "nd solicitations over rate")                      \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ND_LEARNED,                              \
                         "nd learned")                                      \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ND_CONFIRMED,                            \
                         "nd confirmed")                                    \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ND_CANDIDATES,                           \
                         "nd other answers held")                           \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ND_REFUSED_UNSOLICITED,                  \
                         "nd refused unsolicited")                          \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ND_REFUSED_WRONG_PORT,                   \
                         "nd refused wrong port")                           \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ND_REFUSED_OPTION,                       \
                         "nd refused bad option")                           \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ND_REFUSED_HOP_LIMIT,                    \
                         "nd refused hop limit")                            \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ND_REFUSED_CHECKSUM,                     \
                         "nd refused checksum")                             \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ND_REFUSED_MALFORMED,                    \
                         "nd refused malformed")                            \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ND_REFUSED_RATE,                         \
                         "nd refused over rate")                            \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ND_REFUSED_FULL,                         \
                         "nd refused table full")                           \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_NOT_IPV6, "drop inner not ipv6")    \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_INNER_TOO_LONG,                     \
                         "drop inner longer than outer")                    \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_TX_ICMP6_TOO_BIG,                        \
                         "icmpv6 packet too big sent")                      \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ICMP6_SUPPRESSED,                        \
                         "icmpv6 packet too big suppressed")                \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_ROUTE_PORT_LOOKUPS,                      \
                         "route cache port lookups")                        \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_NH_QUEUED, "next hop queued")            \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_NH_QUEUE_SENT, "next hop queue sent")    \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_NH_QUEUE_OVERFLOW,                  \
                         "drop next hop queue overflow")                    \
    VPORT_TUNNEL_COUNTER(VPORT_TNL_DROP_NH_QUEUE_TIMEOUT,                   \
                         "drop next hop queue timeout")

enum vport_tunnel_counter {
#define VPORT_TUNNEL_COUNTER(ENUM, NAME) ENUM,
    VPORT_TUNNEL_COUNTERS
#undef VPORT_TUNNEL_COUNTER
    VPORT_TNL_N_COUNTERS
};

/* How many times in a row a packet may be decapsulated: a tunnel in a
 * tunnel is carried, a tunnel whose remote is one of our own addresses
 * with a flow back into it ends, its packets counted as "drop tunnel
 * nesting" (each loop is one more decapsulation, and GRO cells would
 * otherwise let it run forever, since they start every round afresh). */
#define VPORT_TUNNEL_MAX_NESTING 4

/* What one tunnel type does differently.  The functions marked "forwarding
 * threads" run on the per-packet path: they touch only the packet. */
struct vport_tunnel_ops {
    const char *type;               /* Netdev type, e.g. "vxlan". */
    uint8_t ip_proto;               /* Outer IP protocol of its packets. */
    bool by_udp_port;               /* Caught by UDP destination port too. */
    bool inner_ipv4_only;           /* Carries bare IP packets (ipip): a
                                     * too-big DF IPv4 packet is answered
                                     * with an ICMP "fragmentation needed"
                                     * rather than sent as outer
                                     * fragments. */
    bool ipv6_underlay;             /* Also carried over IPv6: its
                                     * 'decapsulate' takes an outer IPv6
                                     * header and its 'push' works for
                                     * either family. */
    bool ipv6_only;                 /* Carried over IPv6 only (ip6gre):
                                     * over IPv6, taken before a type that
                                     * carries both. */

    /* Main thread: fills in '*local', '*remote' (0: any) and '*udp_port'
     * (network order) of the packets 'netdev' receives, and returns the
     * netdev configuration they came from (compared by address to notice a
     * change), or NULL if the port is not configured. */
    const void *(*endpoint)(const struct netdev *, ovs_be32 *local,
                            ovs_be32 *remote, ovs_be16 *udp_port);

    /* Main thread, NULL to add the one way in that endpoint() describes:
     * adds to 'eps' every way into 'vport', whose netdev 'netdev' endpoint()
     * returned a configuration for (ipip: two inner families, over IPv4,
     * IPv6 or both, with its IPv6 addresses). */
    void (*add_endpoints)(const struct netdev *,
                          struct vport_tunnel_endpoints *,
                          struct vport_tunnel *);

    /* Forwarding threads, NULL if the outer IP protocol (and the UDP
     * destination port) alone say that a packet is the type's: returns
     * true if a packet whose outer IPv4 payload starts with the 'len'
     * bytes at 'l4' (possibly fewer than a header) is one it takes.
     * Anything else to a local address reaches the local port intact. */
    bool (*claims)(const void *l4, size_t len);

    /* Main thread and forwarding threads: should received TCP be merged in
     * the GRO cells?  NULL: yes. */
    bool (*gro_enabled)(const struct netdev *);

    /* Forwarding threads: strips the outer headers of 'packet', whose outer
     * IPv4 header 'outer' (l3 offset set; an IPv6 header if the type has
     * 'ipv6_underlay', with no extension header) is sound and not a
     * fragment, and fills in its tunnel metadata as received on 'port_no'
     * from 'rx_port'.  Returns the inner packet, or NULL having freed
     * 'packet' and set '*drop' to the counter to count it in. */
    struct dp_packet *(*decapsulate)(struct netdev *, struct dp_packet *,
                                     const void *outer,
                                     odp_port_t port_no, odp_port_t rx_port,
                                     enum vport_tunnel_counter *drop);

    /* Forwarding threads: checks that 'packet', output to the tunnel, is
     * something it carries (adjusting it if needed, e.g. ipip strips an
     * Ethernet header), sets '*hlen' to the length of the header push()
     * will add, and returns true; returns false if it cannot be carried.
     * 'exts' is the port's `exts` option (OVS_VXLAN_EXT_* bits, as
     * struct netdev_tunnel_config has them). */
    bool (*prepare)(struct dp_packet *, size_t *hlen, uint32_t exts);

    /* Forwarding threads, NULL if it is always 'ip_proto': the outer IP
     * protocol (IPv6: next header) of 'packet', which prepare() accepted
     * (ipip: 4 for IPv4 inside, 41 for IPv6). */
    uint8_t (*outer_proto)(const struct dp_packet *);

    /* Forwarding threads: pushes the tunnel's own header (UDP and VXLAN,
     * GRE, ...) in front of 'packet' from its tunnel metadata 'tnl'
     * ('udp_port': the vport's UDP destination port; 'exts': as for
     * prepare()).  A UDP header's length and checksum are left for the
     * caller, which knows the outer addresses. */
    void (*push)(struct dp_packet *, const struct flow_tnl *tnl,
                 ovs_be16 udp_port, uint32_t exts);

    /* Forwarding threads, NULL if the type has no per-port counters of its
     * own: adds 'n' to counter 'counter' (an enum netdev_ipip_counter) of
     * 'netdev' for thread 'thread'. */
    void (*count)(struct netdev *, unsigned int thread, int counter,
                  uint64_t n);
};

/* Main thread. */
void vport_tunnel_set_exts(struct vport_tunnel *, uint32_t exts);
const struct vport_tunnel_ops *vport_tunnel_ops_find(const struct netdev *);
struct vport_tunnel *vport_tunnel_create(struct dp_port *,
                                         const struct vport_tunnel_ops *,
                                         size_t n_threads);
void vport_tunnel_destroy(struct vport_tunnel *);
void vport_tunnel_publish_endpoints(struct datapath *);
void vport_tunnel_run(struct datapath *);
void vport_tunnel_format_gro_stats(struct ds *, const struct datapath *,
                                   const char *port_name);

/* Forwarding threads. */
void vport_tunnel_terminate(struct pmd_thread *, struct dp_port *,
                            struct dp_packet_batch *);
void vport_tunnel_flush(struct pmd_thread *);
void vport_tunnel_send(struct pmd_thread *, struct dp_port *,
                       struct dp_packet_batch *);

/* The endpoint table, built by the main thread (and by tests): ways in,
 * and the addresses of the ports that terminate tunnels. */
struct vport_tunnel_endpoints *vport_tunnel_endpoints_create(void);
void vport_tunnel_endpoints_add(struct vport_tunnel_endpoints *,
                                const struct vport_tunnel_ops *,
                                ovs_be32 local, ovs_be32 remote,
                                ovs_be16 udp_port, struct vport_tunnel *);
void vport_tunnel_endpoints_add_ip(struct vport_tunnel_endpoints *,
                                   uint8_t proto, bool ipv4, bool ipv6,
                                   const struct in6_addr *local,
                                   const struct in6_addr *remote,
                                   struct vport_tunnel *);
void vport_tunnel_endpoints_add_local(struct vport_tunnel_endpoints *,
                                      odp_port_t, ovs_be32 addr);
void vport_tunnel_endpoints_add_local6(struct vport_tunnel_endpoints *,
                                       odp_port_t,
                                       const struct in6_addr *addr);
bool vport_tunnel_endpoints_has_local(const struct vport_tunnel_endpoints *,
                                      odp_port_t);
void vport_tunnel_endpoints_destroy(struct vport_tunnel_endpoints *);

/* A forwarding thread's own state of the tunnel layer.  Used only by that
 * thread. */
struct vport_tunnel_thread *vport_tunnel_thread_create(void);
void vport_tunnel_thread_destroy(struct vport_tunnel_thread *);

/* What vport_tunnel_classify() makes of a packet output to a port. */
enum vport_tunnel_class {
    VPORT_TUNNEL_NOT_OURS,      /* Not a tunnel's: deliver it intact. */
    VPORT_TUNNEL_OURS,          /* A whole tunnel packet of the vport. */
    VPORT_TUNNEL_FRAGMENT,      /* An outer fragment of a tunnel datagram,
                                 * for reassembly (the vport is unknown for
                                 * a later fragment of a UDP or GRE
                                 * datagram). */
    VPORT_TUNNEL_FRAGMENT_UNKNOWN, /* A later fragment of a UDP or GRE
                                 * datagram whose first fragment this thread
                                 * has not seen: deliver it, and give a copy
                                 * to reassembly in case the datagram turns
                                 * out to be a tunnel's. */
};

enum vport_tunnel_class vport_tunnel_classify(
    const struct vport_tunnel_endpoints *, odp_port_t port_no,
    struct eth_addr port_mac, struct vport_tunnel_thread *,
    long long int now_ms, struct dp_packet *, struct vport_tunnel **vportp);
const uint8_t *vport_tunnel_outer_l4(const struct dp_packet *,
                                     const struct ip_header *,
                                     size_t *len);

/* The datapath's tunnel layer: its forwarding threads' counters.  Created
 * and destroyed with the datapath by the main thread. */
struct vport_tunnel_table *vport_tunnel_table_create(size_t n_threads);
void vport_tunnel_table_destroy(struct vport_tunnel_table *);
struct thread_counters *vport_tunnel_counters(
    const struct vport_tunnel_table *);
void vport_tunnel_count(struct pmd_thread *, enum vport_tunnel_counter,
                        uint64_t n);
void vport_tunnel_thread_stopped(struct vport_tunnel_table *, size_t index);
void vport_tunnel_set_ranks(struct vport_tunnel_table *,
                            const unsigned int *ranks, unsigned int n_ranks);
bool vport_tunnel_has_active(const struct pmd_thread *);

/* Helpers for the types' ops, any thread, on packets the caller owns. */
enum vport_tunnel_counter vport_tunnel_check_outer(const struct dp_packet *,
                                                   const void *outer);
bool vport_tunnel_ecn_decapsulate(struct ip_header *inner, uint8_t outer_tos);
struct ip_header *vport_tunnel_inner_ipv4(struct dp_packet *);
void vport_tunnel_init_metadata(struct dp_packet *, odp_port_t port_no,
                                odp_port_t orig_in_port);
struct dp_packet *vport_tunnel_pop_netdev(struct netdev *, struct dp_packet *,
                                          const void *outer,
                                          odp_port_t port_no,
                                          odp_port_t rx_port,
                                          enum vport_tunnel_counter *drop);
ovs_be16 vport_tunnel_udp_src_port(struct dp_packet *);

#endif /* vport-tunnel.h */

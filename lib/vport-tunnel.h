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
 * What every type shares lives here: the endpoint table that says which
 * underlay packets are a vport's (by outer IP protocol, and by UDP
 * destination port for the UDP types), outer fragment reassembly, the
 * per-thread receive cells (GRO cells or plain batches) flushed at the end
 * of a round, and on transmit software segmentation, the outer IPv4 header,
 * the route (ovs_router_lookup()), the neighbour cache, outer
 * fragmentation and the hand-off to the underlay bridge.  What differs per
 * type is a small 'struct vport_tunnel_ops': how to decapsulate, and which
 * header to push between the outer IPv4 header and the inner packet
 * (vport-ipip.c, vport-vxlan.c, vport-gre.c, vport-geneve.c).
 *
 * Who owns what: the endpoint table is built by the main thread and read by
 * the forwarding threads under RCU, taking no reference; each thread owns
 * its receive cell of each vport, its reassembly table and its counters. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "openvswitch/types.h"
#include "pmd.h"

struct datapath;
struct dp_packet;
struct dp_packet_batch;
struct dp_port;
struct ds;
struct flow_tnl;
struct ip_header;
struct netdev;
struct vport_tunnel;
struct vport_tunnel_endpoints;

/* What one tunnel type does differently.  The functions marked "forwarding
 * threads" run on the per-packet path: they touch only the packet. */
struct vport_tunnel_ops {
    const char *type;               /* Netdev type, e.g. "vxlan". */
    uint8_t ip_proto;               /* Outer IP protocol of its packets. */
    bool by_udp_port;               /* Caught by UDP destination port too. */
    bool inner_ipv4_only;           /* Carries bare IPv4 packets (ipip): a
                                     * too-big DF packet is answered with an
                                     * ICMP "fragmentation needed" rather
                                     * than sent as outer fragments. */

    /* Main thread: fills in '*local', '*remote' (0: any) and '*udp_port'
     * (network order) of the packets 'netdev' receives, and returns the
     * netdev configuration they came from (compared by address to notice a
     * change), or NULL if the port is not configured. */
    const void *(*endpoint)(const struct netdev *, ovs_be32 *local,
                            ovs_be32 *remote, ovs_be16 *udp_port);

    /* Main thread and forwarding threads: should received TCP be merged in
     * the GRO cells?  NULL: yes. */
    bool (*gro_enabled)(const struct netdev *);

    /* Forwarding threads: strips the outer headers of 'packet', whose outer
     * IPv4 header 'outer' (l3 offset set) is sound and not a fragment, and
     * fills in its tunnel metadata as received on 'port_no' from 'rx_port'.
     * Returns the inner packet, or NULL having freed 'packet' and set
     * '*drop' to the counter to count it in. */
    struct dp_packet *(*decapsulate)(struct netdev *, struct dp_packet *,
                                     const struct ip_header *outer,
                                     odp_port_t port_no, odp_port_t rx_port,
                                     enum pmd_counter *drop);

    /* Forwarding threads: checks that 'packet', output to the tunnel, is
     * something it carries (adjusting it if needed, e.g. ipip strips an
     * Ethernet header), sets '*hlen' to the length of the header push()
     * will add, and returns true; returns false if it cannot be carried. */
    bool (*prepare)(struct dp_packet *, size_t *hlen);

    /* Forwarding threads: pushes the tunnel's own header (UDP and VXLAN,
     * GRE, ...) in front of 'packet' from its tunnel metadata 'tnl'
     * ('udp_port': the vport's UDP destination port).  A UDP header's
     * length and checksum are left for the caller, which knows the outer
     * addresses. */
    void (*push)(struct dp_packet *, const struct flow_tnl *tnl,
                 ovs_be16 udp_port);

    /* Forwarding threads, NULL if the type has no per-port counters of its
     * own: adds 'n' to counter 'counter' (an enum netdev_ipip_counter) of
     * 'netdev' for thread 'thread'. */
    void (*count)(struct netdev *, unsigned int thread, int counter,
                  uint64_t n);
};

/* Main thread. */
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
bool vport_tunnel_catch(struct pmd_thread *,
                        const struct vport_tunnel_endpoints *,
                        struct dp_packet *, odp_port_t rx_port);
void vport_tunnel_flush(struct pmd_thread *);
void vport_tunnel_send(struct pmd_thread *, struct dp_port *,
                       struct dp_packet_batch *);

/* Helpers for the types' ops, any thread, on packets the caller owns. */
enum pmd_counter vport_tunnel_check_outer(const struct dp_packet *,
                                          const struct ip_header *outer);
bool vport_tunnel_ecn_decapsulate(struct ip_header *inner, uint8_t outer_tos);
struct ip_header *vport_tunnel_inner_ipv4(struct dp_packet *);
void vport_tunnel_init_metadata(struct dp_packet *, odp_port_t port_no,
                                odp_port_t orig_in_port);
struct dp_packet *vport_tunnel_pop_netdev(struct netdev *, struct dp_packet *,
                                          const struct ip_header *outer,
                                          odp_port_t port_no,
                                          odp_port_t rx_port,
                                          enum pmd_counter *drop);
ovs_be16 vport_tunnel_udp_src_port(struct dp_packet *);

#endif /* vport-tunnel.h */

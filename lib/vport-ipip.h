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

#ifndef VPORT_IPIP_H
#define VPORT_IPIP_H 1

/* The datapath side of an "ipip" port (netdev-ipip.h holds its options and
 * counters): IPv4-in-IPv4 encapsulation and decapsulation inside the
 * datapath, as the Linux kernel's OVS datapath does for its tunnel vports.
 *
 * Receive: a forwarding thread catches, before the flow lookup, an IPv4
 * frame of protocol 4 addressed to a local tunnel endpoint
 * (vport_ipip_catch()).  It reassembles outer fragments in its own
 * reassembly table, strips the outer header, fills in the tunnel metadata
 * and puts the inner packet into its own receive cell for the vport: a GRO
 * cell, or a plain batch with options:gro=false.  At the end of the round
 * (vport_ipip_flush()) the cells' packets go through the flow lookup as
 * received on the ipip port.
 *
 * Transmit: output to an ipip port (vport_ipip_send()) adds the outer IPv4
 * header from the packet's tunnel metadata, routes it with
 * ovs_router_lookup(), finds the next hop's MAC in the neighbour cache
 * (sending an ARP request if it is missing), and hands the frame to the
 * underlay bridge as if it came from that bridge's local port.
 *
 * Who owns what: the endpoint table is built by the main thread and read by
 * the forwarding threads under RCU, taking no reference; each thread owns
 * its receive cell of each vport ('rx[thread index]'), its reassembly table
 * and its counters. */

#include <stdbool.h>
#include <stddef.h>

#include "openvswitch/types.h"
#include "pmd.h"

struct datapath;
struct dp_packet;
struct dp_packet_batch;
struct dp_port;
struct ds;
struct ip_header;
struct ipip_endpoints;
struct pmd_thread;

/* Main thread. */
struct vport_ipip *vport_ipip_create(struct dp_port *, size_t n_threads);
void vport_ipip_destroy(struct vport_ipip *);
void vport_ipip_publish_endpoints(struct datapath *);
void vport_ipip_run(struct datapath *);
void vport_ipip_format_gro_stats(struct ds *, const struct datapath *,
                                 const char *port_name);

/* Forwarding threads. */
bool vport_ipip_catch(struct pmd_thread *, const struct ipip_endpoints *,
                      struct dp_packet *, odp_port_t rx_port);
void vport_ipip_flush(struct pmd_thread *);
void vport_ipip_send(struct pmd_thread *, struct dp_port *,
                     struct dp_packet_batch *);

/* The receive path's steps on one packet's bytes, which vport_ipip_catch()
 * takes in this order: find the outer header, check it, reassemble it if it
 * is a fragment (ipf_cpu_reassemble()), strip it.  Exposed so that the unit
 * tests and the fuzz target (tests/fuzz/fuzz-ipip.c) drive exactly the code
 * the datapath runs, without a datapath.  Any thread, on packets it owns;
 * they touch nothing but the packet. */
struct ip_header *vport_ipip_outer_header(struct dp_packet *);
enum pmd_counter vport_ipip_check_outer(const struct dp_packet *,
                                        const struct ip_header *outer);
enum pmd_counter vport_ipip_decapsulate(struct dp_packet *,
                                        const struct ip_header *outer,
                                        odp_port_t port_no,
                                        odp_port_t rx_port);

#endif /* vport-ipip.h */

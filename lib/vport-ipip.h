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

/* The ipip case of the tunnel vports (vport-tunnel.h; netdev-ipip.h holds
 * its options and counters): IPv4 in IPv4 (RFC 2003), IP protocol 4, with
 * the endpoints taken from the port's own options.
 *
 * The receive path's steps on one packet's bytes, which
 * vport_tunnel_terminate() takes in this order for an ipip packet, are
 * exposed so that the unit tests and the fuzz targets
 * (tests/fuzz/fuzz-ipip.c, fuzz-tunnel-rx.c) drive the code the datapath
 * runs, without a datapath: find the outer header (the datapath itself
 * takes only untagged frames, vport_tunnel_classify(); this one also
 * takes an 802.1Q tag), check it, reassemble it if it is a fragment
 * (ipf_cpu_reassemble()), strip it.  Any thread, on packets it owns; they
 * touch nothing but the packet. */

#include "openvswitch/types.h"
#include "vport-tunnel.h"

struct dp_packet;
struct ip_header;

/* The ipip type, for vport_tunnel_ops_find(). */
extern const struct vport_tunnel_ops vport_ipip_ops;

struct ip_header *vport_ipip_outer_header(struct dp_packet *);
enum vport_tunnel_counter vport_ipip_check_outer(const struct dp_packet *,
                                        const struct ip_header *outer);
enum vport_tunnel_counter vport_ipip_decapsulate(struct dp_packet *,
                                        const struct ip_header *outer,
                                        odp_port_t port_no,
                                        odp_port_t rx_port);

#endif /* vport-ipip.h */

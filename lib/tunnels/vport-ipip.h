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
 * its options and counters): IPv4 (IP protocol 4, RFC 2003) or IPv6 (41,
 * RFC 4213 and RFC 2473) inside IPv4 or IPv6, as Linux's ipip, sit and
 * ip6tnl devices, with the endpoints taken from the port's own options.
 *
 * Its decapsulation, vport_ipip_decapsulate(), is exposed so that the
 * fuzz targets (tests/fuzz/fuzz-tunnel-rx.c) drive it without a datapath;
 * the steps before it are the tunnel layer's (vport_tunnel_classify(),
 * vport_tunnel_check_outer(), ipf_cpu_reassemble()).  Any thread, on
 * packets it owns; it touches nothing but the packet. */

#include "openvswitch/types.h"
#include "vport-tunnel.h"

struct dp_packet;
struct ip_header;

/* The ipip type, for vport_tunnel_ops_find(). */
extern const struct vport_tunnel_ops vport_ipip_ops;

enum vport_tunnel_counter vport_ipip_decapsulate(
    struct dp_packet *, const struct ip_header *outer, odp_port_t port_no,
    odp_port_t rx_port);

#endif /* vport-ipip.h */

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

#ifndef TUNNEL_NEIGH_H
#define TUNNEL_NEIGH_H 1

/* Next-hop resolution for tunnel encapsulation, filling OVS's neighbour
 * cache (tnl-neigh-cache.h, the one `tnl/arp/set` and `tnl/neigh/show`
 * use).
 *
 * ofproto snoops ARP into that cache only when native tunnelling is on,
 * which OVS allows for dpif-netdev alone (ofproto-dpif-xlate.c), so with
 * this datapath the cache is ours to fill:
 *   - ARP replies and gratuitous ARPs delivered to a bridge's local port are
 *     snooped into the cache under that port's name, which is the device
 *     name routes give;
 *   - a tunnel packet whose next hop is not in the cache makes its thread
 *     send an ARP request from the underlay bridge's local port, at most
 *     once a second per next hop per thread.
 * Snooping writes the shared cache (under its own mutex), but only for ARP
 * packets, never for the traffic being forwarded. */

#include "openvswitch/types.h"
#include "packets.h"

struct dp_packet_batch;
struct dp_port;
struct pmd_thread;

void tunnel_neigh_request(struct pmd_thread *, struct dp_port *local_port,
                          struct eth_addr local_mac, ovs_be32 src,
                          ovs_be32 next_hop);
void tunnel_neigh_snoop(const struct dp_port *, struct dp_packet_batch *);

#endif /* tunnel-neigh.h */

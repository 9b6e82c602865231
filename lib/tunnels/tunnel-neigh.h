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
 * cache (tnl-neigh-cache.h, the one `tnl/arp/set`, `tnl/neigh/show` and
 * `tnl/neigh/flush` use).
 *
 * ofproto snoops ARP into that cache only when native tunnelling is on,
 * which OVS allows for dpif-netdev alone (ofproto-dpif-xlate.c), so with
 * this datapath the cache is ours to fill, and ours to age: the datapath's
 * run calls OVS's tnl_neigh_cache_run(), as dpif-netdev's does, so that an
 * entry unused for `tnl/neigh/aging` (15 minutes by default) goes.
 *
 * Requests
 * ========
 *
 * A tunnel packet whose next hop is not in the cache makes its thread send
 * an ARP request from the underlay bridge's local port, at most once a
 * second per next hop per thread (the thread's own history) and at most
 * TUNNEL_NEIGH_REQUEST_BURST at once and TUNNEL_NEIGH_REQUEST_RATE a
 * second in all per thread (a burst to many unresolved next hops must not
 * turn into a broadcast storm on the underlay), and remember that it
 * asked: at most TUNNEL_NEIGH_MAX_PENDING (port, address) pairs, each for
 * TUNNEL_NEIGH_PENDING_MS, the oldest forgotten first.
 *
 * What is learned
 * ===============
 *
 * As stock OVS (is_neighbor_reply_correct() in ofproto-dpif-xlate.c), only
 * from ARP delivered to a port that holds IPv4 addresses, the underlay
 * bridge's local port, and only replies whose target is one of that port's
 * addresses.  Stricter than stock: an ARP reply creates an entry, or changes
 * an entry's MAC, only if it answers a request of ours from that port,
 * within TUNNEL_NEIGH_PENDING_MS.  One request takes up to
 * TUNNEL_NEIGH_MAX_ANSWERS answers, and the last one wins, as in stock
 * OVS: a Linux host answers a request once from each interface that
 * receives it (its weak host model; arp_ignore 0), so a remote switch of
 * the userspace datapath answers first from its underlay port's device,
 * whose MAC its datapath does not decapsulate for, and then from its
 * bridge's local port, which holds the address.  When a next hop already
 * learned is asked for again, an answer that repeats its MAC confirms it
 * and ends the request, and an answer with another MAC is only held: it
 * replaces the known MAC (in tunnel_neigh_lookup()) if that has not
 * answered by the end of the request's TUNNEL_NEIGH_PENDING_MS, so that
 * such a host does not make it flap.  So:
 *   - gratuitous ARP (request or reply, sender and target the same) is
 *     never learned, nor an ARP reply to anyone else, nor one delivered to
 *     a VM's tap or an overlay bridge's local port (no address), nor an
 *     unsolicited reply from anyone on the underlay: a flood of them costs
 *     no memory and moves no next hop;
 *   - a reply that repeats the MAC the cache has refreshes the entry;
 *   - an unsolicited reply or a gratuitous ARP that claims another MAC for
 *     a next hop learned here marks that next hop for verification, as does
 *     the passing of TUNNEL_NEIGH_REVERIFY_MS since it was last confirmed:
 *     the next thread to read it from the cache (tunnel_neigh_lookup()
 *     answers EAGAIN) asks again, and the owner's answer, solicited,
 *     confirms it, or moves it once the old MAC has stayed silent for
 *     TUNNEL_NEIGH_PENDING_MS.  A next hop that changes its MAC (a router
 *     replaced) is followed within seconds of its gratuitous ARP, or
 *     within TUNNEL_NEIGH_REVERIFY_MS without one.
 * Entries set by hand (`tnl/arp/set`) are never verified.
 *
 * Neighbour discovery
 * ===================
 *
 * IPv6 next hops use the same tables and rules, keyed by IPv6 address (the
 * IPv4 ones mapped): the request is a Neighbor Solicitation to the next
 * hop's solicited-node multicast address, with the source link-layer
 * option, from the route's source address (not sent without one); the
 * answer is a Neighbor Advertisement output to the local port it was asked
 * from, learned only if it is ICMPv6 right after the fixed header, code 0,
 * within the frame, hop limit 255, solicited, with a correct checksum, a
 * unicast target, well-formed options and exactly one target link-layer
 * option holding a unicast MAC.  Each refusal is counted ("nd refused
 * ...").  Advertisements take a snooping budget of their own, as large as
 * ARP's; requests of both families share one request budget.
 *
 * Bounds
 * ======
 *
 *   - at most TUNNEL_NEIGH_MAX_ENTRIES entries learned from ARP at once, as
 *     Linux's neighbour table's gc_thresh3; a learned entry is counted until
 *     it has gone unused (no reply, no thread reading it) for the default
 *     `tnl/neigh/aging` or a thread finds it gone from OVS's cache; beyond,
 *     solicited replies are refused;
 *   - each thread looks at most TUNNEL_NEIGH_SNOOP_BURST ARP packets in a
 *     burst and TUNNEL_NEIGH_SNOOP_RATE a second (replies to one of our
 *     addresses, and gratuitous ARP) any further than their headers;
 *   - every refusal is counted per thread ("arp refused ...", shown by
 *     dpif-percpu/tunnel-stats-show).
 *
 * Threads
 * =======
 *
 * tunnel_neigh_create(), _destroy(), _run(), _wait() and _format() are
 * the main thread's.  The forwarding threads call tunnel_neigh_request(),
 * tunnel_neigh_snoop() and tunnel_neigh_lookup(): they read the port
 * addresses lock-free under RCU, write their own budget and counters, and
 * take this module's mutex (and OVS's cache's) only for what passed the
 * cheap checks and the budget, or at the bounded rate of requests and of
 * tunnel-nexthop.h's refreshes: never once per forwarded packet. */

#include <net/if.h>
#include <netinet/in.h>

#include "openvswitch/types.h"
#include "packets.h"

struct datapath;
struct dp_packet_batch;
struct dp_port;
struct ds;
struct pmd_thread;
struct tunnel_neigh;

/* Most entries learned from ARP at once (Linux's gc_thresh3 default). */
#define TUNNEL_NEIGH_MAX_ENTRIES 1024

/* Most requests remembered while their answers are awaited, and for how
 * long, in ms (Linux retransmits a request after 1 s, 3 times). */
#define TUNNEL_NEIGH_MAX_PENDING 256
#define TUNNEL_NEIGH_PENDING_MS 3000

/* Most answers one request takes; the last one wins (see above). */
#define TUNNEL_NEIGH_MAX_ANSWERS 4

/* Time after which a learned next hop in use is asked for again, in ms
 * (Linux's base_reachable_time is 30 s). */
#define TUNNEL_NEIGH_REVERIFY_MS 30000

/* ARP packets one thread may examine past their headers: a burst of this
 * many, then this many a second. */
#define TUNNEL_NEIGH_SNOOP_BURST 1000
#define TUNNEL_NEIGH_SNOOP_RATE 1000

/* ARP requests one thread may send: a burst of this many, then this many a
 * second. */
#define TUNNEL_NEIGH_REQUEST_BURST 1000
#define TUNNEL_NEIGH_REQUEST_RATE 1000

/* Main thread. */
struct tunnel_neigh *tunnel_neigh_create(size_t n_threads);
void tunnel_neigh_destroy(struct tunnel_neigh *);
void tunnel_neigh_thread_stopped(struct tunnel_neigh *, size_t index);
void tunnel_neigh_run(struct datapath *);
void tunnel_neigh_wait(struct datapath *);
void tunnel_neigh_format(struct ds *, const struct datapath *);

/* Forwarding threads. */
void tunnel_neigh_request(struct pmd_thread *, struct dp_port *local_port,
                          struct eth_addr local_mac,
                          const struct in6_addr *src,
                          const struct in6_addr *next_hop);
void tunnel_neigh_snoop(struct pmd_thread *, const struct dp_port *,
                        const struct dp_packet_batch *);
int tunnel_neigh_lookup(struct pmd_thread *, const char dev[IFNAMSIZ],
                        const struct in6_addr *ip, struct eth_addr *mac);
bool tunnel_neigh_request_admit(struct pmd_thread *, odp_port_t port_no,
                                const struct in6_addr *next_hop);

/* Tests only (tests/fuzz/fuzz-tunnel-neigh.c), main thread: publishes
 * the address table the forwarding threads read, as if 'port_nos[i]' held
 * 'addrs[i]'. */
void tunnel_neigh_set_addrs(struct tunnel_neigh *, const odp_port_t port_nos[],
                            const ovs_be32 addrs[], size_t n);

#endif /* tunnel-neigh.h */

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

#ifndef TUNNEL_NEXTHOP_H
#define TUNNEL_NEXTHOP_H 1

/* Each forwarding thread's own copy of the tunnel routes and next hops it
 * sends to.
 *
 * Routes
 * ======
 *
 * OVS 3.1's ovs_router_lookup() walks the route classifier (one subtable
 * per prefix length and mark, tries for the prefixes): lock-free and
 * without a reference, but its cost grows with the routes (`ovs/route/add`,
 * the host's routes), and it would be paid for every transmit batch.  So
 * each thread keeps its own copy of the routes it used, per destination
 * (IPv4 mapped, or IPv6) and packet mark: the route's device, the source
 * address and the next hop (the gateway, or else the destination), or that
 * there was no route.  A copy is good until the generation changes (OVS's
 * 'tnl_conf_seq' moves on every `ovs/route/add` and `ovs/route/del` and
 * every reload of the system routes), or TUNNEL_NEXTHOP_REFRESH_MS passed.
 *
 * A copy also holds the datapath's port named as the route's device (the
 * underlay bridge's local port), or that there is none, so that a
 * transmit batch finds its port without a lookup by name.  The port is
 * looked up again whenever the datapath's ports changed since (the main
 * thread calls tunnel_nexthops_ports_changed() as it adds or unlinks one):
 * a deleted port is freed only once every thread has reloaded after the
 * change (datapath_del_port()), and a thread that reloaded sees the new
 * port generation, so it never uses a port it copied before.
 *
 * Next hops
 * =========
 *
 * OVS 3.1's tnl_neigh_lookup() stores a new expiry into the shared entry
 * on every hit (tnl-neigh-cache.c): called per encapsulated packet, it
 * would be a write to shared memory on the per-packet path.  So each thread
 * keeps, in memory of its own (one cache per thread index, as vport-tunnel's
 * receive cells), the MACs of the next hops it used, and reads OVS's cache
 * (through tunnel_neigh_lookup(), which renews the entry there, as stock
 * does on use) at most once every TUNNEL_NEXTHOP_REFRESH_MS per next hop,
 * and whenever OVS's cache changed: an entry set, replaced, flushed
 * (`tnl/neigh/flush`, `tnl/arp/flush`) or aged out changes OVS's
 * 'tnl_conf_seq', which the main thread turns into a new generation that
 * every thread's entries are checked against.  ('tnl_conf_seq' also
 * changes with OVS's routes, which OVS flushes and reloads whenever the
 * host's routes change, even with --disable-system-route: each such
 * change costs every thread one more read per next hop it uses.)  A next
 * hop that is not in the cache is remembered as such, until the generation
 * changes or the refresh time passes, so that a burst to an unresolved next
 * hop reads nothing shared either.
 *
 * For the benchmark only (utilities/benchmark/route-cache-benchmark.sh),
 * other_config:tunnel-route-cache=false turns both copies off: every
 * transmit batch then looks its route up in OVS's table and its next hop
 * in OVS's cache (through tunnel_neigh_lookup(), its mutex and the write
 * of the entry's expiry), as it did before these caches.
 *
 * Threads: tunnel_nexthops_create(), _destroy(), _run(), _wait(),
 * _format(), _set_config() and _ports_changed() are the main thread's;
 * tunnel_route_lookup() and tunnel_nexthop_lookup() are a forwarding
 * thread's, on its own cache only, reading the generation and the switch
 * with relaxed atomic loads. */

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "openvswitch/types.h"
#include "packets.h"

struct dp_port;
struct ds;
struct pmd_thread;
struct smap;
struct tunnel_nexthops;

/* Next hops one thread keeps: TUNNEL_NEXTHOP_WAYS per set, the oldest of a
 * set replaced. */
#define TUNNEL_NEXTHOP_SETS 64
#define TUNNEL_NEXTHOP_WAYS 4

/* Longest a thread uses its copy of a next hop before reading OVS's cache
 * again, in ms. */
#define TUNNEL_NEXTHOP_REFRESH_MS 1000

/* Routes one thread keeps: TUNNEL_ROUTE_WAYS per set, the oldest of a set
 * replaced. */
#define TUNNEL_ROUTE_SETS 64
#define TUNNEL_ROUTE_WAYS 4

/* A route, as tunnel_route_lookup() gives it. */
struct tunnel_route {
    char dev[IFNAMSIZ];         /* The route's device (a bridge's name). */
    struct in6_addr src;        /* Source address (IPv4 mapped, for IPv4). */
    struct in6_addr nh;         /* Next hop: the gateway, or else the
                                 * destination itself. */
    struct dp_port *port;       /* The datapath's port named 'dev', or NULL
                                 * if there is none; the caller may use it
                                 * until it quiesces. */
    uint32_t nh_hash;           /* For tunnel_nexthop_lookup(): the hash
                                 * of ('dev', 'nh'), computed once. */
};

/* Main thread. */
struct tunnel_nexthops *tunnel_nexthops_create(size_t n_threads);
void tunnel_nexthops_destroy(struct tunnel_nexthops *);
void tunnel_nexthops_run(struct tunnel_nexthops *);
void tunnel_nexthops_wait(struct tunnel_nexthops *);
void tunnel_nexthops_format(struct ds *, const struct tunnel_nexthops *);
void tunnel_nexthops_set_config(struct tunnel_nexthops *, const char *dp_name,
                                const struct smap *other_config);
void tunnel_nexthops_ports_changed(struct tunnel_nexthops *);

/* Any thread. */
uint64_t tunnel_nexthops_generation(const struct tunnel_nexthops *);

/* Forwarding threads. */
int tunnel_nexthop_lookup(struct pmd_thread *, const struct tunnel_route *,
                          struct eth_addr *mac);
bool tunnel_route_lookup(struct pmd_thread *, const struct in6_addr *dst,
                         uint32_t mark, struct tunnel_route *);

#endif /* tunnel-nexthop.h */

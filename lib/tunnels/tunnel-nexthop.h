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

/* Each forwarding thread's own copy of the tunnel next hops it sends to.
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
 * change costs every thread one more read per next hop it uses.)  A next hop that is not in
 * the cache is remembered as such, until the generation changes or the
 * refresh time passes, so that a burst to an unresolved next hop reads
 * nothing shared either.
 *
 * Threads: tunnel_nexthops_create(), _destroy(), _run() and _wait() are
 * the main thread's; tunnel_nexthop_lookup() is a forwarding thread's, on
 * its own cache only, reading the generation with a relaxed atomic load. */

#include <net/if.h>
#include <netinet/in.h>
#include <stddef.h>

#include "openvswitch/types.h"
#include "packets.h"

struct ds;
struct pmd_thread;
struct tunnel_nexthops;

/* Next hops one thread keeps: TUNNEL_NEXTHOP_WAYS per set, the oldest of a
 * set replaced. */
#define TUNNEL_NEXTHOP_SETS 64
#define TUNNEL_NEXTHOP_WAYS 4

/* Longest a thread uses its copy of a next hop before reading OVS's cache
 * again, in ms. */
#define TUNNEL_NEXTHOP_REFRESH_MS 1000

/* Main thread. */
struct tunnel_nexthops *tunnel_nexthops_create(size_t n_threads);
void tunnel_nexthops_destroy(struct tunnel_nexthops *);
void tunnel_nexthops_run(struct tunnel_nexthops *);
void tunnel_nexthops_wait(struct tunnel_nexthops *);
void tunnel_nexthops_format(struct ds *, const struct tunnel_nexthops *);

/* Forwarding threads. */
int tunnel_nexthop_lookup(struct pmd_thread *, const char dev[IFNAMSIZ],
                          const struct in6_addr *ip, struct eth_addr *mac);

#endif /* tunnel-nexthop.h */

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

/* Each thread's copy of the tunnel routes and next hops it sends to. */

#include <config.h>
#include "tunnel-nexthop.h"

#include <errno.h>
#include <string.h>

#include "datapath.h"
#include "hash.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "ovs-router.h"
#include "netdev.h"
#include "ovs-atomic.h"
#include "pmd.h"
#include "seq.h"
#include "smap.h"
#include "tunnel-neigh.h"
#include "util.h"
#include "vport-tunnel.h"

VLOG_DEFINE_THIS_MODULE(tunnel_nexthop);

BUILD_ASSERT_DECL(IS_POW2(TUNNEL_NEXTHOP_SETS));
BUILD_ASSERT_DECL(IS_POW2(TUNNEL_ROUTE_SETS));

/* One route as a thread last read it from OVS's route table. */
struct route {
    struct in6_addr dst;        /* The destination (the cache's key)... */
    uint32_t mark;              /* ...and the packet mark. */
    bool used;                  /* Does this slot hold a route? */
    bool found;                 /* Did OVS's table have one? */
    uint64_t generation;        /* The generation it was read in. */
    long long int refresh_at;   /* When to read it again, in ms. */
    uint64_t port_generation;   /* The port generation 'r.port' was looked
                                 * up in. */
    struct tunnel_route r;      /* The route, if 'found'. */
};

/* One thread's routes.  Written only by the thread whose index it has;
 * a whole number of cache lines, so that threads share none. */
struct route_cache {
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        struct route e[TUNNEL_ROUTE_SETS][TUNNEL_ROUTE_WAYS];
    );
};

/* One next hop as a thread last read it from OVS's cache. */
struct nexthop {
    char dev[IFNAMSIZ];         /* The route's device (the cache's key)... */
    struct in6_addr ip;         /* ...and the next hop's address (IPv4
                                 * mapped, for IPv4). */
    struct eth_addr mac;        /* Its MAC, if 'resolved'. */
    bool used;                  /* Does this slot hold a next hop? */
    bool resolved;              /* Was it in OVS's cache? */
    uint64_t generation;        /* The generation it was read in. */
    long long int refresh_at;   /* When to read it again, in ms. */
};

/* One thread's next hops.  Written only by the thread whose index it has;
 * a whole number of cache lines, so that threads share none. */
struct nexthop_cache {
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        struct nexthop e[TUNNEL_NEXTHOP_SETS][TUNNEL_NEXTHOP_WAYS];
    );
};

/* A datapath's next-hop caches. */
struct tunnel_nexthops {
    atomic_uint64_t generation;     /* Written by the main thread, read by
                                     * all: changes when OVS's cache did. */
    uint64_t last_seq;              /* Main thread: 'tnl_conf_seq' when the
                                     * generation was last set. */
    atomic_bool enabled;            /* Written by the main thread, read by
                                     * all: other_config:tunnel-route-cache
                                     * (benchmark only). */
    atomic_uint64_t port_generation; /* Written by the main thread, read by
                                      * all: changes when the datapath's
                                      * ports do. */
    size_t n_threads;               /* Elements in 'caches', 'routes'. */
    struct nexthop_cache *caches;   /* Cache i: thread i's. */
    struct route_cache *routes;     /* Cache i: thread i's. */
};

/* Creates the next-hop caches of a datapath with 'n_threads' forwarding
 * threads. */
struct tunnel_nexthops *
tunnel_nexthops_create(size_t n_threads)
{
    struct tunnel_nexthops *nh = xzalloc(sizeof *nh);

    atomic_init(&nh->generation, 1);
    nh->last_seq = tnl_conf_seq ? seq_read(tnl_conf_seq) : 0;
    atomic_init(&nh->enabled, true);
    atomic_init(&nh->port_generation, 1);
    nh->n_threads = n_threads;
    nh->caches = xzalloc_cacheline(n_threads * sizeof *nh->caches);
    nh->routes = xzalloc_cacheline(n_threads * sizeof *nh->routes);
    return nh;
}

/* Frees 'nh', once no forwarding thread can use it.  Accepts NULL. */
void
tunnel_nexthops_destroy(struct tunnel_nexthops *nh)
{
    if (nh) {
        free_cacheline(nh->caches);
        free_cacheline(nh->routes);
        free(nh);
    }
}

/* Main thread: starts a new generation if OVS's neighbour cache (or
 * anything else 'tnl_conf_seq' follows: routes, tunnel ports) changed, so
 * that every thread reads its next hops again. */
void
tunnel_nexthops_run(struct tunnel_nexthops *nh)
{
    uint64_t seq = tnl_conf_seq ? seq_read(tnl_conf_seq) : 0;

    if (seq != nh->last_seq) {
        uint64_t generation;

        nh->last_seq = seq;
        atomic_read_relaxed(&nh->generation, &generation);
        atomic_store_relaxed(&nh->generation, generation + 1);
    }
}

/* Arranges for poll_block() to wake when tunnel_nexthops_run() has work. */
void
tunnel_nexthops_wait(struct tunnel_nexthops *nh)
{
    if (tnl_conf_seq) {
        seq_wait(tnl_conf_seq, nh->last_seq);
    }
}

/* Formats the generation of 'nh' (how often OVS's cache changed) and
 * whether the caches are on. */
void
tunnel_nexthops_format(struct ds *s, const struct tunnel_nexthops *nh_)
{
    struct tunnel_nexthops *nh = CONST_CAST(struct tunnel_nexthops *, nh_);
    uint64_t generation;
    bool enabled;

    atomic_read_relaxed(&nh->generation, &generation);
    atomic_read_relaxed(&nh->enabled, &enabled);
    ds_put_format(s, "next hop generation: %"PRIu64"\n", generation);
    ds_put_format(s, "route and next hop caches: %s\n",
                  enabled ? "on" : "off");
}

/* Applies other_config:tunnel-route-cache (true by default; false, for the
 * benchmark only, makes every transmit batch read OVS's route table and
 * neighbour cache). */
void
tunnel_nexthops_set_config(struct tunnel_nexthops *nh, const char *dp_name,
                           const struct smap *other_config)
{
    bool enabled = smap_get_bool(other_config, "tunnel-route-cache", true);
    bool was;

    atomic_read_relaxed(&nh->enabled, &was);
    if (enabled != was) {
        VLOG_INFO("%s: tunnel route and next hop caches %s", dp_name,
                  enabled ? "on" : "off (benchmark only)");
        atomic_store_relaxed(&nh->enabled, enabled);
    }
}

/* Main thread, under the datapath's 'reconfig_mutex': the datapath's ports
 * changed (one added, or unlinked), so every thread looks the ports of
 * its routes up again before it uses them.  Called before the threads
 * reload, so that none of them uses a deleted port after it. */
void
tunnel_nexthops_ports_changed(struct tunnel_nexthops *nh)
{
    uint64_t generation;

    atomic_read_relaxed(&nh->port_generation, &generation);
    atomic_store_relaxed(&nh->port_generation, generation + 1);
}

/* Returns the generation of 'nh': it moves whenever OVS's neighbour cache
 * (or its routes) changed.  Any thread, a relaxed load. */
uint64_t
tunnel_nexthops_generation(const struct tunnel_nexthops *nh_)
{
    struct tunnel_nexthops *nh = CONST_CAST(struct tunnel_nexthops *, nh_);
    uint64_t generation;

    atomic_read_relaxed(&nh->generation, &generation);
    return generation;
}

/* Finds in 'set' the slot of 'dst' with 'mark', or else the slot to
 * replace: a free one, or the one read longest ago.  Sets '*hit' to
 * whether it holds that route. */
static struct route *
route_slot(struct route set[TUNNEL_ROUTE_WAYS], const struct in6_addr *dst,
           uint32_t mark, bool *hit)
{
    struct route *victim = &set[0];

    for (size_t i = 0; i < TUNNEL_ROUTE_WAYS; i++) {
        struct route *e = &set[i];

        if (e->used && e->mark == mark && ipv6_addr_equals(&e->dst, dst)) {
            *hit = true;
            return e;
        }
        if (victim->used
            && (!e->used || e->refresh_at < victim->refresh_at)) {
            victim = e;
        }
    }
    *hit = false;
    return victim;
}

/* Returns the hash of next hop 'ip' on device 'dev' in a thread's next-hop
 * cache. */
static uint32_t
nexthop_hash(const char dev[IFNAMSIZ], const struct in6_addr *ip)
{
    return hash_string(dev, hash_bytes(ip, sizeof *ip, 0));
}

/* Looks up OVS's route table for 'dst' with packet 'mark' into '*r'.
 * Returns true if there is a route. */
static bool
route_read(const struct in6_addr *dst, uint32_t mark, struct tunnel_route *r)
{
    struct in6_addr gw;

    r->src = in6addr_any;
    if (!ovs_router_lookup(mark, dst, r->dev, &r->src, &gw)) {
        return false;
    }
    r->nh = ipv6_addr_is_set(&gw) ? gw : *dst;
    r->nh_hash = nexthop_hash(r->dev, &r->nh);
    return true;
}

/* Sets '*r' to the route to 'dst' (IPv4 mapped, for IPv4) for packets with
 * 'mark', as 't''s own cache has it, reading OVS's route table if its copy
 * is older than TUNNEL_NEXTHOP_REFRESH_MS or from before the table last
 * changed, and the route's port from the datapath if its ports changed
 * since.  Returns true if there is a route, false if there is none. */
bool
tunnel_route_lookup(struct pmd_thread *t, const struct in6_addr *dst,
                    uint32_t mark, struct tunnel_route *r)
{
    struct tunnel_nexthops *nh = t->dp->tunnel_nexthops;
    struct route_cache *cache = &nh->routes[t->index];
    uint32_t hash = hash_bytes(dst, sizeof *dst, mark);
    uint64_t generation, port_generation;
    struct route *e;
    bool enabled;
    bool hit;

    atomic_read_relaxed(&nh->enabled, &enabled);
    if (!enabled) {
        if (!route_read(dst, mark, r)) {
            return false;
        }
        r->port = datapath_find_port_by_name(t->dp, r->dev);
        return true;
    }
    atomic_read_relaxed(&nh->generation, &generation);
    atomic_read_relaxed(&nh->port_generation, &port_generation);
    e = route_slot(cache->e[hash & (TUNNEL_ROUTE_SETS - 1)], dst, mark,
                   &hit);
    if (!hit || e->generation != generation || t->now >= e->refresh_at) {
        vport_tunnel_count(t, VPORT_TNL_ROUTE_REFRESHES, 1);
        e->found = route_read(dst, mark, &e->r);
        e->dst = *dst;
        e->mark = mark;
        e->used = true;
        e->generation = generation;
        e->refresh_at = t->now + TUNNEL_NEXTHOP_REFRESH_MS;
        e->port_generation = 0;
    }
    if (!e->found) {
        return false;
    }
    if (OVS_UNLIKELY(e->port_generation != port_generation)) {
        vport_tunnel_count(t, VPORT_TNL_ROUTE_PORT_LOOKUPS, 1);
        e->r.port = datapath_find_port_by_name(t->dp, e->r.dev);
        e->port_generation = port_generation;
    }
    *r = e->r;
    return true;
}

/* Finds in 'set' the slot of 'ip' on 'dev', or else the slot to replace:
 * a free one, or the one read longest ago.  Sets '*hit' to whether it
 * holds that next hop. */
static struct nexthop *
nexthop_slot(struct nexthop set[TUNNEL_NEXTHOP_WAYS],
             const char dev[IFNAMSIZ], const struct in6_addr *ip, bool *hit)
{
    struct nexthop *victim = &set[0];

    for (size_t i = 0; i < TUNNEL_NEXTHOP_WAYS; i++) {
        struct nexthop *e = &set[i];

        if (e->used && ipv6_addr_equals(&e->ip, ip)
            && !strncmp(e->dev, dev, IFNAMSIZ)) {
            *hit = true;
            return e;
        }
        if (victim->used
            && (!e->used || e->refresh_at < victim->refresh_at)) {
            victim = e;
        }
    }
    *hit = false;
    return victim;
}

/* Sets '*mac' to the MAC of the next hop of route 'r' (from
 * tunnel_route_lookup(): 'r->nh', IPv4 mapped for IPv4, on route device
 * 'r->dev'), as 't''s own cache has it, reading OVS's cache if its copy is
 * older than TUNNEL_NEXTHOP_REFRESH_MS or from before OVS's cache last
 * changed.  Returns 0; or EAGAIN, '*mac' set, when this read of OVS's cache
 * found that the next hop should be asked for again
 * (tunnel_neigh_lookup()); or ENOENT if OVS's cache has no entry for
 * it. */
int
tunnel_nexthop_lookup(struct pmd_thread *t, const struct tunnel_route *r,
                      struct eth_addr *mac)
{
    struct tunnel_nexthops *nh = t->dp->tunnel_nexthops;
    struct nexthop_cache *cache = &nh->caches[t->index];
    const struct in6_addr *ip = &r->nh;
    const char *dev = r->dev;
    uint32_t hash = r->nh_hash;
    struct nexthop *e;
    uint64_t generation;
    bool enabled;
    bool hit;
    int error;

    atomic_read_relaxed(&nh->enabled, &enabled);
    if (!enabled) {
        return tunnel_neigh_lookup(t, dev, ip, mac);
    }
    atomic_read_relaxed(&nh->generation, &generation);
    e = nexthop_slot(cache->e[hash & (TUNNEL_NEXTHOP_SETS - 1)], dev, ip,
                     &hit);
    if (hit && e->generation == generation && t->now < e->refresh_at) {
        if (!e->resolved) {
            return ENOENT;
        }
        *mac = e->mac;
        return 0;
    }

    vport_tunnel_count(t, VPORT_TNL_NH_REFRESHES, 1);
    error = tunnel_neigh_lookup(t, dev, ip, mac);
    ovs_strlcpy(e->dev, dev, sizeof e->dev);
    e->ip = *ip;
    e->used = true;
    e->resolved = error != ENOENT;
    e->mac = e->resolved ? *mac : eth_addr_zero;
    e->generation = generation;
    e->refresh_at = t->now + TUNNEL_NEXTHOP_REFRESH_MS;
    return error;
}

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

/* Next-hop resolution for tunnel encapsulation: ARP, ND, snooping. */

#include <config.h>
#include "tunnel-neigh.h"

#include <errno.h>
#include <string.h>

#include "datapath.h"
#include "dp-input.h"
#include "dp-packet.h"
#include "dp-port.h"
#include "hash.h"
#include "netdev.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/poll-loop.h"
#include "ovs-rcu.h"
#include "ovs-thread.h"
#include "pmd.h"
#include "timeval.h"
#include "tnl-neigh-cache.h"
#include "util.h"
#include "vport-tunnel.h"

/* Least time between two ARP requests of one thread for one next hop. */
#define TUNNEL_NEIGH_REQUEST_INTERVAL_MS 1000

/* OVS's default `tnl/neigh/aging` (NEIGH_ENTRY_DEFAULT_IDLE_TIME_MS in
 * tnl-neigh-cache.c, which OVS does not export): how long a learned entry
 * that nobody reads or confirms is counted. */
#define TUNNEL_NEIGH_AGING_MS (15 * 60 * 1000)

/* How often the main thread ages OVS's cache and the learned entries, and
 * reads the local ports' addresses again even if no port changed, in ms. */
#define TUNNEL_NEIGH_RUN_INTERVAL_MS 1000

/* One address of a port that holds IPv4 addresses. */
struct port_addr {
    odp_port_t port_no;         /* The port. */
    ovs_be32 addr;              /* One of its addresses. */
};

/* The addresses of the datapath's internal ports that have any, as the
 * forwarding threads see them.  Immutable once published; replaced whole
 * by the main thread. */
struct port_addrs {
    size_t n;                   /* Elements in 'e'. */
    struct port_addr e[];       /* Ports and addresses. */
};

/* An entry of OVS's cache that ARP taught, counted against
 * TUNNEL_NEIGH_MAX_ENTRIES. */
struct learned {
    struct hmap_node node;      /* In 'tunnel_neigh''s 'learned'. */
    char dev[IFNAMSIZ];         /* The cache's device name: the port's. */
    struct in6_addr ip;         /* The next hop (IPv4 mapped, for ARP's). */
    struct eth_addr mac;        /* The MAC learned. */
    long long int confirmed;    /* Last solicited answer, in ms. */
    bool disputed;              /* Someone claimed another MAC since. */
    long long int expires;      /* When to stop counting it, in ms. */
    struct eth_addr candidate;  /* Another MAC that answered us... */
    long long int candidate_due;/* ...taken from this time on, unless 'mac'
                                 * answers first; 0: none. */
};

/* A request of ours awaiting its answer. */
struct pending {
    odp_port_t port_no;         /* Sent from this port... */
    struct in6_addr ip;         /* ...for this address (IPv4 mapped, for an
                                 * ARP request)... */
    long long int sent;         /* ...at this time, in ms; 0: free slot. */
    unsigned int answers;       /* Answers taken so far. */
    bool reverify;              /* Its first answer found a learned entry:
                                 * other MACs are only candidates. */
};

/* A token bucket. */
struct bucket {
    uint32_t tokens;            /* What may still be done. */
    long long int refilled;     /* When 'tokens' was last refilled, ms. */
};

/* How many next hops a thread remembers its last ARP request for. */
#define TUNNEL_NEIGH_ARP_HISTORY 8

/* When a thread last sent an ARP request for a next hop, so that a burst of
 * packets to an unresolved next hop sends one request a second, not one per
 * packet. */
struct arp_sent {
    struct in6_addr ip;         /* The next hop (IPv4 mapped, for IPv4). */
    long long int sent;         /* Time sent, in ms; 0: never. */
};

/* One thread's budgets and request history.  Written only by the thread
 * whose index it has; padded so that threads share no line. */
struct thread_budget {
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        struct bucket snoop;    /* ARP packets to examine. */
        struct bucket nd_snoop; /* Neighbor Advertisements to examine. */
        struct bucket request;  /* ARP requests and solicitations. */
        struct arp_sent history[TUNNEL_NEIGH_ARP_HISTORY];
    );
};

/* A datapath's tunnel neighbour state. */
struct tunnel_neigh {
    OVSRCU_TYPE(struct port_addrs *) addrs; /* Under RCU, main thread. */

    struct ovs_mutex mutex;
    struct hmap learned OVS_GUARDED;        /* Contains "struct learned". */
    struct pending pending[TUNNEL_NEIGH_MAX_PENDING] OVS_GUARDED;

    size_t n_threads;               /* Elements in 'budgets'. */
    struct thread_budget *budgets;  /* Budget i: thread i's. */

    /* Main thread only. */
    uint64_t local_seq;             /* Internal ports' change seqs, summed
                                     * when 'addrs' was built. */
    long long int next_run;         /* When to age and refresh, in ms. */
};

/* Creates the tunnel neighbour state of a datapath with 'n_threads'
 * forwarding threads. */
struct tunnel_neigh *
tunnel_neigh_create(size_t n_threads)
{
    struct tunnel_neigh *tn = xzalloc(sizeof *tn);

    ovsrcu_set_hidden(&tn->addrs, NULL);
    ovs_mutex_init(&tn->mutex);
    hmap_init(&tn->learned);
    tn->n_threads = n_threads;
    tn->budgets = xzalloc_cacheline(n_threads * sizeof *tn->budgets);
    for (size_t i = 0; i < n_threads; i++) {
        tn->budgets[i].snoop.tokens = TUNNEL_NEIGH_SNOOP_BURST;
        tn->budgets[i].nd_snoop.tokens = TUNNEL_NEIGH_SNOOP_BURST;
        tn->budgets[i].request.tokens = TUNNEL_NEIGH_REQUEST_BURST;
    }
    return tn;
}

/* Forgets the ARP request history of thread index 'index', whose thread
 * has stopped, so that a thread that takes the index starts with none, as
 * a new thread did when the history was part of its 'struct pmd_thread'.
 * The budgets stay, as they always have.  Main thread. */
void
tunnel_neigh_thread_stopped(struct tunnel_neigh *tn, size_t index)
{
    memset(tn->budgets[index].history, 0,
           sizeof tn->budgets[index].history);
}

/* Frees 'tn', once no forwarding thread can use it.  Accepts NULL. */
void
tunnel_neigh_destroy(struct tunnel_neigh *tn)
{
    struct learned *l;

    if (!tn) {
        return;
    }
    HMAP_FOR_EACH_POP (l, node, &tn->learned) {
        free(l);
    }
    hmap_destroy(&tn->learned);
    ovs_mutex_destroy(&tn->mutex);
    free(ovsrcu_get_protected(struct port_addrs *, &tn->addrs));
    free_cacheline(tn->budgets);
    free(tn);
}

/* Returns the hash of the learned entry for 'ip' on 'dev'. */
static uint32_t
learned_hash(const char dev[IFNAMSIZ], const struct in6_addr *ip)
{
    return hash_string(dev, hash_bytes(ip, sizeof *ip, 0));
}

/* Returns the learned entry for 'ip' on 'dev', or NULL. */
static struct learned *
learned_find(struct tunnel_neigh *tn, const char dev[IFNAMSIZ],
             const struct in6_addr *ip)
    OVS_REQUIRES(tn->mutex)
{
    struct learned *l;

    HMAP_FOR_EACH_WITH_HASH (l, node, learned_hash(dev, ip), &tn->learned) {
        if (ipv6_addr_equals(&l->ip, ip) && !strncmp(l->dev, dev, IFNAMSIZ)) {
            return l;
        }
    }
    return NULL;
}

/* Returns a port's addresses table for 'dp''s internal ports that hold
 * IPv4 addresses. */
static struct port_addrs *
port_addrs_build(struct datapath *dp)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    struct port_addrs *pa = xzalloc(sizeof *pa);
    size_t allocated = 0;
    struct dp_port *port;

    CMAP_FOR_EACH (port, node, &dp->ports) {
        struct in6_addr *addrs, *masks;
        int n_addrs;

        if (!port->is_internal
            || netdev_get_addr_list(port->netdev, &addrs, &masks,
                                    &n_addrs)) {
            continue;
        }
        for (int i = 0; i < n_addrs; i++) {
            ovs_be32 ip = in6_addr_get_mapped_ipv4(&addrs[i]);

            if (!ip) {
                continue;
            }
            if (pa->n == allocated) {
                allocated = allocated ? 2 * allocated : 8;
                pa = xrealloc(pa, sizeof *pa + allocated * sizeof pa->e[0]);
            }
            pa->e[pa->n].port_no = port->port_no;
            pa->e[pa->n].addr = ip;
            pa->n++;
        }
        free(addrs);
        free(masks);
    }
    return pa;
}

/* Main thread: publishes the local ports' addresses again if a port
 * changed, or a second passed. */
static void
refresh_addrs(struct datapath *dp, bool force)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    struct tunnel_neigh *tn = dp->tunnel_neigh;
    struct port_addrs *old, *new;
    uint64_t local_seq = 0;
    struct dp_port *port;

    CMAP_FOR_EACH (port, node, &dp->ports) {
        if (port->is_internal) {
            local_seq += netdev_get_change_seq(port->netdev);
        }
    }
    if (!force && local_seq == tn->local_seq) {
        return;
    }
    tn->local_seq = local_seq;

    old = ovsrcu_get_protected(struct port_addrs *, &tn->addrs);
    new = port_addrs_build(dp);
    if (old && old->n == new->n
        && !memcmp(old->e, new->e, new->n * sizeof new->e[0])) {
        free(new);
        return;
    }
    ovsrcu_set(&tn->addrs, new);
    ovsrcu_postpone(free, old);
}

/* Main thread, tests only (tests/fuzz/fuzz-tunnel-neigh.c): publishes, as
 * refresh_addrs() does, an address table for the forwarding threads, in
 * which port 'port_nos[i]' holds 'addrs[i]', for i < 'n', instead of the
 * one read from the datapath's ports, which a test without netdevs that
 * hold addresses cannot build.  The next tunnel_neigh_run() replaces it. */
void
tunnel_neigh_set_addrs(struct tunnel_neigh *tn, const odp_port_t port_nos[],
                       const ovs_be32 addrs[], size_t n)
{
    struct port_addrs *old, *new;

    new = xzalloc(sizeof *new + n * sizeof new->e[0]);
    new->n = n;
    for (size_t i = 0; i < n; i++) {
        new->e[i].port_no = port_nos[i];
        new->e[i].addr = addrs[i];
    }
    old = ovsrcu_get_protected(struct port_addrs *, &tn->addrs);
    ovsrcu_set(&tn->addrs, new);
    ovsrcu_postpone(free, old);
}

/* Main thread: stops counting the learned entries nobody used for the
 * aging time. */
static void
expire_learned(struct tunnel_neigh *tn, long long int now)
{
    struct learned *l;

    ovs_mutex_lock(&tn->mutex);
    HMAP_FOR_EACH_SAFE (l, node, &tn->learned) {
        if (l->expires <= now) {
            hmap_remove(&tn->learned, &l->node);
            free(l);
        }
    }
    ovs_mutex_unlock(&tn->mutex);
}

/* The main thread's periodic work for 'dp': publishes its local ports'
 * addresses when they change, and once a second ages OVS's neighbour cache
 * (which nothing else does for this datapath) and the learned entries'
 * account.  Under 'dp->reconfig_mutex'. */
void
tunnel_neigh_run(struct datapath *dp)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    struct tunnel_neigh *tn = dp->tunnel_neigh;
    long long int now = time_msec();
    bool tick = now >= tn->next_run;

    refresh_addrs(dp, tick);
    if (tick) {
        tn->next_run = now + TUNNEL_NEIGH_RUN_INTERVAL_MS;
        tnl_neigh_cache_run();
        expire_learned(tn, now);
    }
}

/* Arranges for poll_block() to wake when tunnel_neigh_run() has work. */
void
tunnel_neigh_wait(struct datapath *dp)
{
    poll_timer_wait_until(dp->tunnel_neigh->next_run);
}

/* Formats 'dp''s learned-entry account, by what taught each entry (ARP
 * for an IPv4-mapped next hop, neighbour discovery for an IPv6 one; both
 * count against one bound), and its awaited requests. */
void
tunnel_neigh_format(struct ds *s, const struct datapath *dp)
{
    struct tunnel_neigh *tn = dp->tunnel_neigh;
    size_t n_pending = 0, n_arp = 0;
    long long int now = time_msec();
    const struct learned *l;

    ovs_mutex_lock(&tn->mutex);
    for (size_t i = 0; i < TUNNEL_NEIGH_MAX_PENDING; i++) {
        if (tn->pending[i].sent && !tn->pending[i].answers
            && now - tn->pending[i].sent < TUNNEL_NEIGH_PENDING_MS) {
            n_pending++;
        }
    }
    HMAP_FOR_EACH (l, node, &tn->learned) {
        n_arp += IN6_IS_ADDR_V4MAPPED(&l->ip);
    }
    ds_put_format(s, "neighbours learned: %"PRIuSIZE" (from arp %"PRIuSIZE
                  ", from nd %"PRIuSIZE"; at most %d), "
                  "requests awaiting an answer: %"PRIuSIZE"\n",
                  hmap_count(&tn->learned), n_arp,
                  hmap_count(&tn->learned) - n_arp,
                  TUNNEL_NEIGH_MAX_ENTRIES, n_pending);
    ovs_mutex_unlock(&tn->mutex);
}

/* Remembers that a request for 'ip' went out of 'port_no' at 'now'. */
static void
pending_add(struct tunnel_neigh *tn, odp_port_t port_no,
            const struct in6_addr *ip, long long int now)
{
    struct pending *slot = NULL;

    ovs_mutex_lock(&tn->mutex);
    for (size_t i = 0; i < TUNNEL_NEIGH_MAX_PENDING; i++) {
        struct pending *p = &tn->pending[i];

        if (p->sent && p->port_no == port_no
            && ipv6_addr_equals(&p->ip, ip)) {
            slot = p;
            break;
        }
        if (!slot || p->sent < slot->sent) {
            slot = p;
        }
    }
    slot->port_no = port_no;
    slot->ip = *ip;
    slot->sent = now ? now : 1;
    slot->answers = 0;
    /* A slot that held a request whose answers were candidates (or this
     * next hop's previous request) must not make this one's answers
     * candidates: its first answer decides. */
    slot->reverify = false;
    ovs_mutex_unlock(&tn->mutex);
}

/* Returns the request for 'ip' sent out of 'port_no' less than
 * TUNNEL_NEIGH_PENDING_MS before 'now' and answered fewer than
 * TUNNEL_NEIGH_MAX_ANSWERS times, if there is one, or NULL. */
static struct pending *
pending_find(struct tunnel_neigh *tn, odp_port_t port_no,
             const struct in6_addr *ip, long long int now)
    OVS_REQUIRES(tn->mutex)
{
    for (size_t i = 0; i < TUNNEL_NEIGH_MAX_PENDING; i++) {
        struct pending *p = &tn->pending[i];

        if (p->sent && p->port_no == port_no
            && ipv6_addr_equals(&p->ip, ip)) {
            if (now - p->sent >= TUNNEL_NEIGH_PENDING_MS
                || p->answers >= TUNNEL_NEIGH_MAX_ANSWERS) {
                p->sent = 0;
                return NULL;
            }
            return p;
        }
    }
    return NULL;
}

/* Returns true if a request for 'ip' went out of a port other than
 * 'port_no' less than TUNNEL_NEIGH_PENDING_MS before 'now' and still
 * takes answers. */
static bool
pending_elsewhere(struct tunnel_neigh *tn, odp_port_t port_no,
                  const struct in6_addr *ip, long long int now)
    OVS_REQUIRES(tn->mutex)
{
    for (size_t i = 0; i < TUNNEL_NEIGH_MAX_PENDING; i++) {
        const struct pending *p = &tn->pending[i];

        if (p->sent && p->port_no != port_no
            && ipv6_addr_equals(&p->ip, ip)
            && now - p->sent < TUNNEL_NEIGH_PENDING_MS
            && p->answers < TUNNEL_NEIGH_MAX_ANSWERS) {
            return true;
        }
    }
    return false;
}

/* Counts an answer to request 'p'; 'closes' ends it at once (no further
 * answer is taken). */
static void
pending_answer(struct pending *p, bool closes)
{
    p->answers++;
    if (closes || p->answers >= TUNNEL_NEIGH_MAX_ANSWERS) {
        p->sent = 0;
    }
}

/* Takes one token from bucket 'b', which gains 'rate' a second up to
 * 'burst', at time 'now' (ms), and returns true, or returns false if none
 * is left. */
static bool
bucket_take(struct bucket *b, uint32_t rate, uint32_t burst,
            long long int now)
{
    if (now > b->refilled) {
        uint64_t tokens = b->tokens
                          + (uint64_t) (now - b->refilled) * rate / 1000;

        if (tokens > b->tokens) {
            b->tokens = MIN(tokens, burst);
            b->refilled = now;
        }
    }
    if (!b->tokens) {
        return false;
    }
    b->tokens--;
    return true;
}

/* Takes one token from 't''s snooping budget, and returns true, or returns
 * false if none is left. */
static bool
budget_take(struct pmd_thread *t)
{
    return bucket_take(&t->dp->tunnel_neigh->budgets[t->index].snoop,
                       TUNNEL_NEIGH_SNOOP_RATE, TUNNEL_NEIGH_SNOOP_BURST,
                       t->now);
}

/* Returns true if 't' may send an ARP request for 'ip' now, and records
 * that it does.  The history is the thread's own. */
static bool
request_allowed(struct pmd_thread *t, const struct in6_addr *ip)
{
    struct arp_sent *history = t->dp->tunnel_neigh->budgets[t->index].history;
    size_t oldest = 0;

    for (size_t i = 0; i < TUNNEL_NEIGH_ARP_HISTORY; i++) {
        if (ipv6_addr_equals(&history[i].ip, ip)) {
            if (t->now - history[i].sent < TUNNEL_NEIGH_REQUEST_INTERVAL_MS
                && history[i].sent) {
                return false;
            }
            oldest = i;
            break;
        }
        if (history[i].sent < history[oldest].sent) {
            oldest = i;
        }
    }
    history[oldest].ip = *ip;
    history[oldest].sent = t->now ? t->now : 1;
    return true;
}

/* Sends, from bridge local port 'local_port' with MAC 'local_mac', a
 * request for 'next_hop' from address 'src' (both IPv4 mapped for an ARP
 * request; else an IPv6 Neighbor Solicitation to 'next_hop''s
 * solicited-node multicast address, with the source link-layer address
 * option), unless 't' sent one for it less than a second ago or is over
 * its request budget, and remembers it, so that the answer is learned.
 * The request goes through the underlay bridge's flows as if the host had
 * sent it. */
void
tunnel_neigh_request(struct pmd_thread *t, struct dp_port *local_port,
                     struct eth_addr local_mac, const struct in6_addr *src,
                     const struct in6_addr *next_hop)
{
    struct dp_packet_batch batch;
    struct dp_packet *packet;

    if (!IN6_IS_ADDR_V4MAPPED(next_hop) && !ipv6_addr_is_set(src)) {
        /* A solicitation from :: is duplicate address detection's. */
        return;
    }
    if (!tunnel_neigh_request_admit(t, local_port->port_no, next_hop)) {
        return;
    }
    if (IN6_IS_ADDR_V4MAPPED(next_hop)) {
        packet = dp_packet_new(ETH_HEADER_LEN + ARP_ETH_HEADER_LEN);
        compose_arp(packet, ARP_OP_REQUEST, local_mac, eth_addr_zero, true,
                    in6_addr_get_mapped_ipv4(src),
                    in6_addr_get_mapped_ipv4(next_hop));
    } else {
        packet = dp_packet_new(ETH_HEADER_LEN + IPV6_HEADER_LEN
                               + ND_MSG_LEN + ND_LLA_OPT_LEN);
        compose_nd_ns(packet, local_mac, src, next_hop);
    }
    pkt_metadata_init(&packet->md, local_port->port_no);
    dp_packet_batch_init_packet(&batch, packet);
    dp_input_inject(t, &batch);
}

/* The decision of tunnel_neigh_request(), without the packet: returns
 * true, having counted the request and remembered it as awaiting its
 * answers, if 't' may send a request for 'next_hop' (IPv4 mapped, for
 * ARP) out of 'port_no' now; false (counted if over the budget) if not.
 * Also called by tests/fuzz/fuzz-tunnel-neigh.c, which cannot inject
 * packets. */
bool
tunnel_neigh_request_admit(struct pmd_thread *t, odp_port_t port_no,
                           const struct in6_addr *next_hop)
{
    bool is_arp = IN6_IS_ADDR_V4MAPPED(next_hop);

    if (!request_allowed(t, next_hop)) {
        return false;
    }
    if (!bucket_take(&t->dp->tunnel_neigh->budgets[t->index].request,
                     TUNNEL_NEIGH_REQUEST_RATE, TUNNEL_NEIGH_REQUEST_BURST,
                     t->now)) {
        vport_tunnel_count(t, is_arp ? VPORT_TNL_ARP_REQUESTS_OVER_RATE
                                     : VPORT_TNL_ND_REQUESTS_OVER_RATE, 1);
        return false;
    }
    pending_add(t->dp->tunnel_neigh, port_no, next_hop, t->now);
    vport_tunnel_count(t, is_arp ? VPORT_TNL_TX_ARP_REQUESTS
                                 : VPORT_TNL_TX_ND_REQUESTS, 1);
    return true;
}

/* Returns true if 'addrs' lists 'ip' for 'port_no' or, if 'ip' is 0, any
 * address for it. */
static bool
port_has_addr(const struct port_addrs *addrs, odp_port_t port_no,
              ovs_be32 ip)
{
    for (size_t i = 0; addrs && i < addrs->n; i++) {
        if (addrs->e[i].port_no == port_no
            && (!ip || addrs->e[i].addr == ip)) {
            return true;
        }
    }
    return false;
}

/* A gratuitous ARP from 'ip' claiming 'mac', delivered to 'dev': never
 * learned, but if it contradicts a learned next hop, that next hop is
 * verified by the next thread that reads it. */
static void
snoop_gratuitous(struct pmd_thread *t, const char *dev, ovs_be32 ip,
                 struct eth_addr mac)
{
    struct tunnel_neigh *tn = t->dp->tunnel_neigh;

    vport_tunnel_count(t, VPORT_TNL_ARP_REFUSED_GARP, 1);
    if (budget_take(t)) {
        struct in6_addr ip6;
        struct learned *l;

        in6_addr_set_mapped_ipv4(&ip6, ip);
        ovs_mutex_lock(&tn->mutex);
        l = learned_find(tn, dev, &ip6);
        if (l && !eth_addr_equals(l->mac, mac)) {
            l->disputed = true;
        }
        ovs_mutex_unlock(&tn->mutex);
    }
}

/* Returns the neighbour discovery counterpart of ARP snooping verdict
 * 'arp'. */
static enum vport_tunnel_counter
nd_verdict(enum vport_tunnel_counter arp)
{
    return (arp == VPORT_TNL_ARP_LEARNED ? VPORT_TNL_ND_LEARNED
            : arp == VPORT_TNL_ARP_CONFIRMED ? VPORT_TNL_ND_CONFIRMED
            : arp == VPORT_TNL_ARP_CANDIDATES ? VPORT_TNL_ND_CANDIDATES
            : arp == VPORT_TNL_ARP_REFUSED_FULL ? VPORT_TNL_ND_REFUSED_FULL
            : VPORT_TNL_ND_REFUSED_UNSOLICITED);
}

/* An answer from 'ip' (IPv4 mapped, for an ARP reply; else the target of
 * a solicited Neighbor Advertisement) at 'mac', delivered to 'port', named
 * 'dev': learned if it answers a request of ours from 'port' (see
 * tunnel-neigh.h).  The caller took the snooping budget. */
static void
snoop_reply(struct pmd_thread *t, const struct dp_port *port,
            const char *dev, const struct in6_addr *ip, struct eth_addr mac)
{
    struct tunnel_neigh *tn = t->dp->tunnel_neigh;
    bool is_arp = IN6_IS_ADDR_V4MAPPED(ip);
    enum vport_tunnel_counter verdict;
    struct pending *p;
    struct learned *l;

    ovs_mutex_lock(&tn->mutex);
    l = learned_find(tn, dev, ip);
    p = pending_find(tn, port->port_no, ip, t->now);
    if (!p) {
        if (l && !eth_addr_equals(l->mac, mac)) {
            l->disputed = true;
        }
        verdict = VPORT_TNL_ARP_REFUSED_UNSOLICITED;
        if (!is_arp && pending_elsewhere(tn, port->port_no, ip, t->now)) {
            verdict = VPORT_TNL_ND_REFUSED_WRONG_PORT;
        }
    } else if (l && eth_addr_equals(l->mac, mac)) {
        struct eth_addr cached;

        /* Puts the entry back if it aged out of OVS's cache meanwhile. */
        if (tnl_neigh_lookup(dev, ip, &cached)
            || !eth_addr_equals(cached, mac)) {
            tnl_neigh_set(dev, ip, mac);
        }
        l->confirmed = t->now;
        l->disputed = false;
        l->expires = t->now + TUNNEL_NEIGH_AGING_MS;
        l->candidate_due = 0;
        /* The next hop we know answered: later answers move nothing. */
        pending_answer(p, true);
        verdict = VPORT_TNL_ARP_CONFIRMED;
    } else if (!l && hmap_count(&tn->learned) >= TUNNEL_NEIGH_MAX_ENTRIES) {
        verdict = VPORT_TNL_ARP_REFUSED_FULL;
    } else if (l && (p->reverify || !p->answers)) {
        /* Asked again about a next hop we know, another MAC answers: it
         * replaces the known one only if that does not answer within the
         * request's time (tunnel_neigh_lookup() moves it), so that a host
         * that answers from two interfaces does not flap it. */
        p->reverify = true;
        pending_answer(p, false);
        l->candidate = mac;
        if (!l->candidate_due) {
            /* Requests asked again meanwhile do not put it off. */
            l->candidate_due = p->sent + TUNNEL_NEIGH_PENDING_MS;
        }
        l->disputed = true;
        verdict = VPORT_TNL_ARP_CANDIDATES;
    } else {
        pending_answer(p, false);
        if (!l) {
            l = xzalloc(sizeof *l);
            ovs_strlcpy(l->dev, dev, sizeof l->dev);
            l->ip = *ip;
            hmap_insert(&tn->learned, &l->node, learned_hash(l->dev, ip));
        }
        l->mac = mac;
        l->confirmed = t->now;
        l->disputed = false;
        l->expires = t->now + TUNNEL_NEIGH_AGING_MS;
        l->candidate_due = 0;
        tnl_neigh_set(dev, ip, mac);
        verdict = VPORT_TNL_ARP_LEARNED;
    }
    ovs_mutex_unlock(&tn->mutex);
    if (!is_arp && verdict != VPORT_TNL_ND_REFUSED_WRONG_PORT) {
        verdict = nd_verdict(verdict);
    }
    vport_tunnel_count(t, verdict, 1);
}

/* Examines 'packet', about to be output to 'port', which holds IPv4
 * addresses 'addrs' lists: ARP replies to us and gratuitous ARP go on to
 * snoop_reply() and snoop_gratuitous(), requests are not ours to learn
 * from, and anything else that claims to be ARP is counted malformed. */
static void
snoop_arp(struct pmd_thread *t, const struct dp_port *port,
          const struct port_addrs *addrs, const struct dp_packet *packet)
{
    const struct eth_header *eth = dp_packet_data(packet);
    struct arp_eth_header arp;
    ovs_be32 spa, tpa;
    uint16_t op;

    if (dp_packet_size(packet) < ETH_HEADER_LEN + ARP_ETH_HEADER_LEN) {
        vport_tunnel_count(t, VPORT_TNL_ARP_REFUSED_MALFORMED, 1);
        return;
    }
    memcpy(&arp, (const char *) eth + ETH_HEADER_LEN, sizeof arp);
    op = ntohs(arp.ar_op);
    spa = get_16aligned_be32(&arp.ar_spa);
    tpa = get_16aligned_be32(&arp.ar_tpa);
    if (arp.ar_hrd != htons(ARP_HRD_ETHERNET)
        || arp.ar_pro != htons(ARP_PRO_IP)
        || arp.ar_hln != ETH_ADDR_LEN || arp.ar_pln != sizeof(ovs_be32)
        || (op != ARP_OP_REQUEST && op != ARP_OP_REPLY)) {
        vport_tunnel_count(t, VPORT_TNL_ARP_REFUSED_MALFORMED, 1);
        return;
    }
    if (op == ARP_OP_REQUEST && spa != tpa) {
        /* Someone asking, perhaps for us: the host answers. */
        return;
    }
    if (eth_addr_is_zero(arp.ar_sha) || eth_addr_is_multicast(arp.ar_sha)
        || !spa || spa == htonl(INADDR_BROADCAST) || ip_is_multicast(spa)
        || port_has_addr(addrs, port->port_no, spa)) {
        vport_tunnel_count(t, VPORT_TNL_ARP_REFUSED_MALFORMED, 1);
        return;
    }
    if (spa == tpa) {
        snoop_gratuitous(t, netdev_get_name(port->netdev), spa, arp.ar_sha);
    } else if (!port_has_addr(addrs, port->port_no, tpa)) {
        vport_tunnel_count(t, VPORT_TNL_ARP_REFUSED_NOT_OURS, 1);
    } else if (!budget_take(t)) {
        vport_tunnel_count(t, VPORT_TNL_ARP_REFUSED_RATE, 1);
    } else {
        struct in6_addr ip6;

        in6_addr_set_mapped_ipv4(&ip6, spa);
        snoop_reply(t, port, netdev_get_name(port->netdev), &ip6,
                    arp.ar_sha);
    }
}

/* Examines IPv6 'packet', about to be output to 'port': a Neighbor
 * Advertisement (ICMPv6 right after the fixed header) goes on to
 * snoop_reply() if it is well formed, solicited, came from on-link (hop
 * limit 255), has a correct checksum and one well-formed target
 * link-layer address option; other IPv6 is not ours to look at, and an
 * advertisement refused is counted for why. */
static void
snoop_na(struct pmd_thread *t, const struct dp_port *port,
         const struct dp_packet *packet)
{
    const char *l3 = (const char *) dp_packet_data(packet) + ETH_HEADER_LEN;
    size_t size = dp_packet_size(packet) - ETH_HEADER_LEN;
    const struct ovs_16aligned_ip6_hdr *ip6;
    const struct ovs_nd_msg *na;
    struct eth_addr tll = eth_addr_zero;
    bool have_tll = false;
    struct in6_addr target;
    size_t plen, off;

    if (size < IPV6_HEADER_LEN + sizeof(struct icmp6_header)) {
        return;
    }
    ip6 = (const struct ovs_16aligned_ip6_hdr *) l3;
    na = (const struct ovs_nd_msg *) (l3 + IPV6_HEADER_LEN);
    if (ip6->ip6_ctlun.ip6_un1.ip6_un1_nxt != IPPROTO_ICMPV6
        || na->icmph.icmp6_type != ND_NEIGHBOR_ADVERT) {
        return;
    }
    plen = ntohs(ip6->ip6_ctlun.ip6_un1.ip6_un1_plen);
    if (plen > size - IPV6_HEADER_LEN || plen < ND_MSG_LEN
        || na->icmph.icmp6_code != 0) {
        vport_tunnel_count(t, VPORT_TNL_ND_REFUSED_MALFORMED, 1);
        return;
    }
    if (ip6->ip6_ctlun.ip6_un1.ip6_un1_hlim != 255) {
        /* Not on-link (RFC 4861 7.1.2): someone routed it to us. */
        vport_tunnel_count(t, VPORT_TNL_ND_REFUSED_HOP_LIMIT, 1);
        return;
    }
    if (!(get_16aligned_be32(&na->rso_flags) & htonl(ND_RSO_SOLICITED))) {
        vport_tunnel_count(t, VPORT_TNL_ND_REFUSED_UNSOLICITED, 1);
        return;
    }
    if (!bucket_take(&t->dp->tunnel_neigh->budgets[t->index].nd_snoop,
                     TUNNEL_NEIGH_SNOOP_RATE, TUNNEL_NEIGH_SNOOP_BURST,
                     t->now)) {
        vport_tunnel_count(t, VPORT_TNL_ND_REFUSED_RATE, 1);
        return;
    }
    if (packet_csum_upperlayer6(ip6, na, IPPROTO_ICMPV6, plen)) {
        vport_tunnel_count(t, VPORT_TNL_ND_REFUSED_CHECKSUM, 1);
        return;
    }
    memcpy(&target, &na->target, sizeof target);
    if (ipv6_addr_is_multicast(&target) || !ipv6_addr_is_set(&target)
        || IN6_IS_ADDR_V4MAPPED(&target)) {
        vport_tunnel_count(t, VPORT_TNL_ND_REFUSED_MALFORMED, 1);
        return;
    }
    /* The options (RFC 4861 4.6): each a type, a length in units of 8
     * bytes (never 0) and its data, within 'plen'. */
    for (off = ND_MSG_LEN; off < plen;) {
        const uint8_t *opt = (const uint8_t *) na + off;
        size_t opt_len;

        if (plen - off < 2 || !opt[1] || opt[1] * 8 > plen - off) {
            vport_tunnel_count(t, VPORT_TNL_ND_REFUSED_OPTION, 1);
            return;
        }
        opt_len = opt[1] * 8;
        if (opt[0] == ND_OPT_TARGET_LINKADDR) {
            if (have_tll || opt_len != ND_LLA_OPT_LEN) {
                vport_tunnel_count(t, VPORT_TNL_ND_REFUSED_OPTION, 1);
                return;
            }
            memcpy(&tll, opt + 2, sizeof tll);
            have_tll = true;
        }
        off += opt_len;
    }
    if (!have_tll || eth_addr_is_zero(tll) || eth_addr_is_multicast(tll)) {
        vport_tunnel_count(t, VPORT_TNL_ND_REFUSED_OPTION, 1);
        return;
    }
    snoop_reply(t, port, netdev_get_name(port->netdev), &target, tll);
}

/* Learns, as tunnel-neigh.h describes, from the ARP packets and the IPv6
 * Neighbor Advertisements in 'batch', about to be output by 't' to
 * 'port', if 'port' is a local port (for ARP, one that holds IPv4
 * addresses). */
void
tunnel_neigh_snoop(struct pmd_thread *t, const struct dp_port *port,
                   const struct dp_packet_batch *batch)
{
    const struct port_addrs *addrs;
    struct dp_packet *packet;
    bool has_ipv4;

    if (!port->is_internal) {
        return;
    }
    addrs = ovsrcu_get(struct port_addrs *, &t->dp->tunnel_neigh->addrs);
    has_ipv4 = port_has_addr(addrs, port->port_no, 0);
    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        const struct eth_header *eth = dp_packet_data(packet);

        if (packet->packet_type != htonl(PT_ETH)
            || dp_packet_size(packet) < ETH_HEADER_LEN) {
            continue;
        }
        if (eth->eth_type == htons(ETH_TYPE_ARP)) {
            if (has_ipv4) {
                snoop_arp(t, port, addrs, packet);
            }
        } else if (eth->eth_type == htons(ETH_TYPE_IPV6)) {
            snoop_na(t, port, packet);
        }
    }
}

/* Reads the MAC of next hop 'ip6' (IPv4 mapped, for IPv4, as OVS's
 * tnl-neigh-cache keys it) on device 'dev' from OVS's cache into '*mac',
 * for 't''s next-hop cache (tunnel-nexthop.h), which calls this at a
 * bounded rate: OVS's lookup renews the entry's expiry, a write to shared
 * memory.  Returns 0; or EAGAIN, with '*mac' set, if that next hop is to be
 * asked for again (it was learned from ARP or neighbour discovery and not
 * confirmed for TUNNEL_NEIGH_REVERIFY_MS, or someone claimed another MAC
 * for it); or ENOENT if the cache has no entry for it. */
int
tunnel_neigh_lookup(struct pmd_thread *t, const char dev[IFNAMSIZ],
                    const struct in6_addr *ip6, struct eth_addr *mac)
{
    struct tunnel_neigh *tn = t->dp->tunnel_neigh;
    struct learned *l;
    int error;

    ovs_mutex_lock(&tn->mutex);
    l = learned_find(tn, dev, ip6);
    if (l && l->candidate_due && t->now >= l->candidate_due) {
        /* The known MAC did not answer in time; the other one did. */
        l->mac = l->candidate;
        l->confirmed = t->now;
        l->disputed = false;
        l->candidate_due = 0;
        tnl_neigh_set(dev, ip6, l->mac);
        vport_tunnel_count(t, IN6_IS_ADDR_V4MAPPED(ip6)
                              ? VPORT_TNL_ARP_LEARNED : VPORT_TNL_ND_LEARNED,
                           1);
    }
    error = tnl_neigh_lookup(dev, ip6, mac) ? ENOENT : 0;
    if (l) {
        if (error || !eth_addr_equals(l->mac, *mac)) {
            /* Gone from OVS's cache (aged, or flushed), or set by hand
             * since: no longer ours to count or verify. */
            hmap_remove(&tn->learned, &l->node);
            free(l);
        } else {
            l->expires = t->now + TUNNEL_NEIGH_AGING_MS;
            if (l->disputed
                || t->now - l->confirmed >= TUNNEL_NEIGH_REVERIFY_MS) {
                error = EAGAIN;
            }
        }
    }
    ovs_mutex_unlock(&tn->mutex);
    return error;
}

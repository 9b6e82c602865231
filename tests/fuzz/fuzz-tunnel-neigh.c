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

/* Fuzz target: the tunnel neighbour cache's ARP and Neighbor Advertisement
 * snooping (lib/tunnels/tunnel-neigh.c:
 * tunnel_neigh_snoop(), which runs snoop_packet(), snoop_reply() and
 * snoop_gratuitous() on every packet a forwarding thread outputs to a
 * bridge's local port), with the requests that make replies solicited
 * (tunnel_neigh_request_admit(), the decision of tunnel_neigh_request())
 * and the threads' lookups (tunnel_neigh_lookup()), against one
 * datapath's tunnel_neigh state and OVS's own neighbour cache, as
 * tunnel-neigh.h describes them.
 *
 * Set-up: the real code on minimal objects.  The datapath is a zeroed
 * 'struct datapath' with only its 'tunnel_neigh' (tunnel_neigh_create() for
 * two threads); the two threads are zeroed 'struct pmd_thread's with their
 * datapath, index and clock, all those functions read of them; four ports
 * are 'struct dp_port's on dummy netdevs (their names are the cache's
 * device names): "br-under" and "br-under2" (two underlay bridges' local
 * ports), "br-int" (an overlay bridge's local port) are internal, "eth0"
 * (a NIC) is not.  Two hooks of tunnel-neigh.c stand in for what needs a
 * whole datapath: tunnel_neigh_set_addrs() publishes the ports' addresses
 * under RCU as the main thread does from the netdevs (dummy netdevs hold
 * none that port_addrs_build() could read), and
 * tunnel_neigh_request_admit() is tunnel_neigh_request() without the ARP
 * packet it would inject into the flow tables.  OVS's cache needs
 * tnl_neigh_cache_init() (its aging time) and 'tnl_conf_seq', both done
 * once per process; it is flushed, and RCU quiesced, after each input, so
 * that every input starts afresh and LeakSanitizer sees nothing left.
 *
 * Input: records (fuzz-common.h).  The control byte's low 3 bits are the
 * operation; for operations 0, 1, 2, 4, 6 and 7, bits 3-4 choose the port
 * (br-under, br-under2, br-int, eth0) and bit 5 the thread:
 *   0: the record is a frame, delivered alone to the port (bit 6: as an L3
 *      packet, PT_IPV4, rather than Ethernet);
 *   1: the record is a batch: frames, each a 16-bit big-endian length and
 *      its bytes, at most NETDEV_MAX_BURST, delivered together;
 *   2: the record is next hops, 4 bytes each (bit 6: IPv6 next hops, 16
 *      bytes each, but IPv4-mapped ones): the thread asks for each from
 *      the port (tunnel_neigh_request_admit());
 *   3: the clock advances by the record's first 16 bits (big-endian), in
 *      ms, or in units of 100 ms if bit 3 is set (TUNNEL_NEIGH_PENDING_MS,
 *      TUNNEL_NEIGH_REVERIFY_MS and the budgets' refill are in reach);
 *   4: the record is next hops, 4 bytes each, that the thread looks up on
 *      the port's device;
 *   5: the published addresses become those of bits 3-7: 192.0.2.2 and
 *      192.0.2.3 of br-under, 198.51.100.2 of br-under2, 203.0.113.9 of
 *      br-int, 203.0.113.10 of eth0 (which the datapath never publishes,
 *      and the snooping must ignore); at first, the first three;
 *   6: a solicited flood: the record is a base next hop (4 bytes), a count
 *      (16 bits, at most 2,048) and a base MAC (6 bytes): for each i, the
 *      thread asks for base + i, and an ARP reply from it, at the base MAC
 *      plus i, to the port's first address (192.0.2.2 if it has none) is
 *      delivered; this reaches the table's bound and the budgets in a few
 *      bytes;
 *   7: the rest of the input, of any length (past 64 KiB too: a packet
 *      over the input's bytes themselves), is one frame delivered to the
 *      port, and the input ends.
 * Missing bytes read as 0.
 *
 * Checks, after every frame delivered alone, from a model of the rules of
 * tunnel-neigh.h (the classification of a frame by its bytes and the
 * port's addresses, and the history of this input's requests and
 * verdicts):
 *   - an IPv6 frame to an internal port (neighbour discovery's input:
 *     Neighbor Advertisements) moves no ARP counter and at most one of
 *     its own thread's "nd" counters, by one; "nd learned", "confirmed"
 *     or "other answers held" only for a target the input asked for from
 *     that port (operation 2, bit 6) less than TUNNEL_NEIGH_PENDING_MS
 *     ago, and only "nd learned" adds an entry;
 *   - a frame to a port that is not internal, or holds no address, or
 *     that is not ARP, or an ARP request that is not gratuitous, moves no
 *     ARP counter (nor any, if it is not IPv6); any other moves exactly
 *     one of the snooping counters of its own thread by one, and the one
 *     its class says: malformed (short, bad header, bad sender),
 *     gratuitous, not for us, or, for a reply to one
 *     of the port's addresses, over rate, unsolicited, table full,
 *     learned, confirmed or candidate;
 *   - learned, confirmed and candidate only for a reply from a next hop
 *     asked for from that port less than TUNNEL_NEIGH_PENDING_MS ago, not
 *     after TUNNEL_NEIGH_MAX_ANSWERS answers to that request nor after an
 *     answer that confirmed; a candidate only for the request's first
 *     answer or after another candidate (after a learned answer, the last
 *     one wins); after learned or confirmed, OVS's cache has the reply's
 *     MAC for it;
 *   - table full only at TUNNEL_NEIGH_MAX_ENTRIES learned entries; over
 *     rate only once the thread has examined TUNNEL_NEIGH_SNOOP_BURST
 *     packets; a thread never examines more than TUNNEL_NEIGH_SNOOP_BURST
 *     plus TUNNEL_NEIGH_SNOOP_RATE a second nor admits more requests than
 *     TUNNEL_NEIGH_REQUEST_BURST plus TUNNEL_NEIGH_REQUEST_RATE a second;
 * after a batch, the same in sum; after every operation, at most
 * TUNNEL_NEIGH_MAX_ENTRIES entries learned (tunnel_neigh_format()) and no
 * more than learned answers taught, at most TUNNEL_NEIGH_MAX_PENDING
 * requests awaited; a lookup answers 0, EAGAIN or ENOENT, with a MAC that a
 * solicited reply gave for that next hop on that device (nothing else
 * fills the cache here: no spoofed MAC ever), and moves no counter but
 * learned, when a candidate replaces the known MAC, with that candidate's
 * MAC. */

#include <config.h>
#include "fuzz-common.h"

#include <errno.h>
#include <string.h>

#include "datapath.h"
#include "dp-packet.h"
#include "dp-port.h"
#include "dummy.h"
#include "hash.h"
#include "netdev.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "ovs-rcu.h"
#include "packets.h"
#include "pmd.h"
#include "seq.h"
#include "thread-counters.h"
#include "tnl-neigh-cache.h"
#include "tunnel-neigh.h"
#include "util.h"
#include "vport-tunnel.h"

#define FUZZ_N_THREADS 2
#define FUZZ_N_PORTS 4
#define FUZZ_N_ADDRS 5

/* Most next hops one solicited flood (operation 6) asks for. */
#define FUZZ_MAX_FLOOD 2048

/* Where each input's clock starts, in ms (a forwarding thread's is
 * time_msec(), never 0). */
#define FUZZ_START_MS 1000000

/* The ports. */
static const struct {
    char name[IFNAMSIZ];        /* Its dummy netdev's, the cache's device. */
    uint32_t port_no;           /* Datapath port number. */
    bool internal;              /* A bridge's local port? */
} fuzz_ports[FUZZ_N_PORTS] = {
    { "br-under", 1, true },
    { "br-under2", 2, true },
    { "br-int", 3, true },
    { "eth0", 4, false },
};

/* The addresses operation 5 may publish, by bit. */
static const struct {
    int port;                   /* Index in fuzz_ports[]. */
    uint32_t addr;              /* IPv4 address, host order. */
} fuzz_addrs[FUZZ_N_ADDRS] = {
    { 0, 0xc0000202 },          /* 192.0.2.2 */
    { 0, 0xc0000203 },          /* 192.0.2.3 */
    { 1, 0xc6336402 },          /* 198.51.100.2 */
    { 2, 0xcb007109 },          /* 203.0.113.9 */
    { 3, 0xcb00710a },          /* 203.0.113.10 */
};
#define FUZZ_INITIAL_ADDRS 0x7

/* The ports' MAC, the destination of the replies operation 6 builds. */
static const struct eth_addr port_mac = ETH_ADDR_C(02, 00, 00, 00, 00, 02);

/* The verdict counters of snooping, and their number. */
static const enum vport_tunnel_counter snoop_counters[] = {
    VPORT_TNL_ARP_LEARNED, VPORT_TNL_ARP_CONFIRMED, VPORT_TNL_ARP_CANDIDATES,
    VPORT_TNL_ARP_REFUSED_GARP, VPORT_TNL_ARP_REFUSED_NOT_OURS,
    VPORT_TNL_ARP_REFUSED_UNSOLICITED, VPORT_TNL_ARP_REFUSED_MALFORMED,
    VPORT_TNL_ARP_REFUSED_RATE, VPORT_TNL_ARP_REFUSED_FULL,
};
#define N_SNOOP_COUNTERS ARRAY_SIZE(snoop_counters)

/* Indexes in snoop_counters[]. */
enum {
    SC_LEARNED, SC_CONFIRMED, SC_CANDIDATES, SC_GARP, SC_NOT_OURS,
    SC_UNSOLICITED, SC_MALFORMED, SC_RATE, SC_FULL,
};

/* What the rules say of a frame delivered to a port, from its bytes and the
 * port's addresses. */
enum frame_class {
    FRAME_IGNORED,              /* Moves no counter. */
    FRAME_MALFORMED,            /* "arp refused malformed". */
    FRAME_GRATUITOUS,           /* "arp refused gratuitous". */
    FRAME_NOT_OURS,             /* "arp refused not for us". */
    FRAME_REPLY,                /* A reply to one of the port's addresses. */
    FRAME_ND,                   /* IPv6 to a local port: at most one "nd"
                                 * verdict. */
};

/* The neighbour discovery verdict counters of snooping, and their
 * number. */
static const enum vport_tunnel_counter nd_counters[] = {
    VPORT_TNL_ND_LEARNED, VPORT_TNL_ND_CONFIRMED, VPORT_TNL_ND_CANDIDATES,
    VPORT_TNL_ND_REFUSED_UNSOLICITED, VPORT_TNL_ND_REFUSED_WRONG_PORT,
    VPORT_TNL_ND_REFUSED_OPTION, VPORT_TNL_ND_REFUSED_HOP_LIMIT,
    VPORT_TNL_ND_REFUSED_CHECKSUM, VPORT_TNL_ND_REFUSED_MALFORMED,
    VPORT_TNL_ND_REFUSED_RATE, VPORT_TNL_ND_REFUSED_FULL,
};
#define N_ND_COUNTERS ARRAY_SIZE(nd_counters)

/* How many IPv6 solicitations an input remembers (the latest). */
#define FUZZ_N_ND_ASKED 64

/* An IPv6 next hop an input's thread asked for. */
struct nd_asked {
    int port;                   /* Index in fuzz_ports[]. */
    struct in6_addr ip;         /* The next hop. */
    long long int sent;         /* When, in ms; 0: free. */
};

/* What this input did about one next hop on one port. */
struct hop {
    struct hmap_node node;      /* In 'fuzz_state''s 'hops'. */
    int port;                   /* Index in fuzz_ports[]. */
    ovs_be32 ip;                /* The next hop. */

    /* The last request for it from the port, if 'requested'. */
    bool requested;
    long long int sent;         /* When, in ms. */
    unsigned int answers;       /* Solicited verdicts since. */
    bool candidates;            /* One of them a candidate? */
    bool closed;                /* One of them confirmed? */
    bool uncertain;             /* Answered in a batch: not known which
                                 * verdict each frame had. */

    /* MACs the solicited replies gave; whether a candidate may be held
     * for it (past its request: a request asked again does not drop it),
     * and which, if known. */
    struct eth_addr *macs;
    size_t n_macs;
    bool candidate_held;
    bool candidate_known;
    struct eth_addr candidate;
};

/* One input's world. */
struct fuzz_state {
    struct datapath dp;
    struct pmd_thread threads[FUZZ_N_THREADS];
    struct dp_port ports[FUZZ_N_PORTS];
    unsigned int addr_mask;     /* Published addresses, by fuzz_addrs[]
                                 * bit. */
    struct hmap hops;           /* Contains "struct hop". */
    uint64_t learned_answers;   /* Learned verdicts of snooping. */
    uint64_t nd_learned_answers;/* Those of them that were NAs. */

    /* Per thread. */
    uint64_t examined[FUZZ_N_THREADS];  /* Frames of classes that take the
                                         * snooping budget. */
    uint64_t admitted[FUZZ_N_THREADS];  /* Requests admitted. */

    struct nd_asked nd_asked[FUZZ_N_ND_ASKED]; /* IPv6 requests admitted. */
    size_t nd_next;             /* Slot of 'nd_asked' to fill next. */
};

/* The ports' netdevs, opened once per process. */
static struct netdev *fuzz_netdevs[FUZZ_N_PORTS];

/* Once per process: dummy netdevs for the ports, OVS's neighbour cache's
 * aging time, and the sequence number it changes. */
static void
fuzz_neigh_init(void)
{
    if (fuzz_netdevs[0]) {
        return;
    }
    fuzz_init();
    netdev_dummy_register(DUMMY_OVERRIDE_NONE);
    tnl_neigh_cache_init();
    if (!tnl_conf_seq) {
        tnl_conf_seq = seq_create();
    }
    for (size_t i = 0; i < FUZZ_N_PORTS; i++) {
        int error = netdev_open(fuzz_ports[i].name, "dummy",
                                &fuzz_netdevs[i]);

        fuzz_check(!error, "netdev_open %s: %s", fuzz_ports[i].name,
                   ovs_strerror(error));
    }
}

/* Returns the hash of next hop 'ip' on port 'port'. */
static uint32_t
hop_hash(int port, ovs_be32 ip)
{
    return hash_int((OVS_FORCE uint32_t) ip, port);
}

/* Returns what this input did about 'ip' on 'port', created if 'create',
 * else NULL if nothing. */
static struct hop *
hop_get(struct fuzz_state *s, int port, ovs_be32 ip, bool create)
{
    struct hop *h;

    HMAP_FOR_EACH_WITH_HASH (h, node, hop_hash(port, ip), &s->hops) {
        if (h->port == port && h->ip == ip) {
            return h;
        }
    }
    if (!create) {
        return NULL;
    }
    h = xzalloc(sizeof *h);
    h->port = port;
    h->ip = ip;
    hmap_insert(&s->hops, &h->node, hop_hash(port, ip));
    return h;
}

/* Remembers that a solicited reply gave 'mac' for 'h'. */
static void
hop_add_mac(struct hop *h, struct eth_addr mac)
{
    for (size_t i = 0; i < h->n_macs; i++) {
        if (eth_addr_equals(h->macs[i], mac)) {
            return;
        }
    }
    h->macs = xrealloc(h->macs, (h->n_macs + 1) * sizeof *h->macs);
    h->macs[h->n_macs++] = mac;
}

/* Returns true if a solicited reply gave 'mac' for 'h'. */
static bool
hop_has_mac(const struct hop *h, struct eth_addr mac)
{
    for (size_t i = 0; i < h->n_macs; i++) {
        if (eth_addr_equals(h->macs[i], mac)) {
            return true;
        }
    }
    return false;
}

/* Returns true if port 'port' holds 'ip' among the published addresses or,
 * if 'ip' is 0, any address. */
static bool
port_has(const struct fuzz_state *s, int port, ovs_be32 ip)
{
    for (size_t i = 0; i < FUZZ_N_ADDRS; i++) {
        if (s->addr_mask & (1u << i) && fuzz_addrs[i].port == port
            && (!ip || htonl(fuzz_addrs[i].addr) == ip)) {
            return true;
        }
    }
    return false;
}

/* Publishes the addresses of 'mask' (bits of fuzz_addrs[]). */
static void
publish_addrs(struct fuzz_state *s, unsigned int mask)
{
    odp_port_t port_nos[FUZZ_N_ADDRS];
    ovs_be32 addrs[FUZZ_N_ADDRS];
    size_t n = 0;

    for (size_t i = 0; i < FUZZ_N_ADDRS; i++) {
        if (mask & (1u << i)) {
            port_nos[n] = u32_to_odp(fuzz_ports[fuzz_addrs[i].port].port_no);
            addrs[n] = htonl(fuzz_addrs[i].addr);
            n++;
        }
    }
    s->addr_mask = mask;
    tunnel_neigh_set_addrs(s->dp.tunnel_neigh, port_nos, addrs, n);
}

/* Classifies 'len' bytes at 'data', of type 'packet_type', delivered to
 * 'port', as tunnel-neigh.h's rules do, and stores the ARP sender's address
 * and MAC in '*spa' and '*sha' (for FRAME_REPLY and FRAME_GRATUITOUS). */
static enum frame_class
classify(const struct fuzz_state *s, int port, ovs_be32 packet_type,
         const uint8_t *data, size_t len, ovs_be32 *spa,
         struct eth_addr *sha)
{
    ovs_be32 tpa;
    uint16_t op;

    if (fuzz_ports[port].internal && packet_type == htonl(PT_ETH)
        && len >= 14 && data[12] == 0x86 && data[13] == 0xdd) {
        return FRAME_ND;
    }
    if (!fuzz_ports[port].internal || !port_has(s, port, 0)
        || packet_type != htonl(PT_ETH) || len < 14
        || data[12] != 0x08 || data[13] != 0x06) {
        return FRAME_IGNORED;
    }
    if (len < 14 + 28) {
        return FRAME_MALFORMED;
    }
    data += 14;
    op = (data[6] << 8) | data[7];
    if (data[0] != 0 || data[1] != 1 || data[2] != 0x08 || data[3] != 0
        || data[4] != 6 || data[5] != 4 || (op != 1 && op != 2)) {
        return FRAME_MALFORMED;
    }
    memcpy(sha, &data[8], ETH_ADDR_LEN);
    memcpy(spa, &data[14], 4);
    memcpy(&tpa, &data[24], 4);
    if (op == 1 && *spa != tpa) {
        return FRAME_IGNORED;
    }
    if (eth_addr_is_zero(*sha) || eth_addr_is_multicast(*sha) || !*spa
        || *spa == htonl(INADDR_BROADCAST) || ip_is_multicast(*spa)
        || port_has(s, port, *spa)) {
        return FRAME_MALFORMED;
    }
    if (*spa == tpa) {
        return FRAME_GRATUITOUS;
    }
    return port_has(s, port, tpa) ? FRAME_REPLY : FRAME_NOT_OURS;
}

/* Reads one tunnel counter of thread 't'. */
static uint64_t
read_counter(const struct fuzz_state *s, int t, enum vport_tunnel_counter c)
{
    uint64_t values[VPORT_TNL_N_COUNTERS];

    thread_counters_read(vport_tunnel_counters(s->dp.tunnel), t, values);
    return values[c];
}

/* Reads the snooping counters of every thread into 'c'. */
static void
read_counters(const struct fuzz_state *s,
              uint64_t c[FUZZ_N_THREADS][N_SNOOP_COUNTERS])
{
    for (size_t t = 0; t < FUZZ_N_THREADS; t++) {
        for (size_t i = 0; i < N_SNOOP_COUNTERS; i++) {
            c[t][i] = read_counter(s, t, snoop_counters[i]);
        }
    }
}

/* Returns how many entries are learned, how many of them by neighbour
 * discovery (in '*n_nd', if nonnull), and how many requests awaited, as
 * tunnel_neigh_format() reports them, checking that the entries learned
 * from ARP and from ND add up to the total. */
static void
read_state__(struct fuzz_state *s, size_t *n_learned, size_t *n_nd,
             size_t *n_pending)
{
    struct ds ds = DS_EMPTY_INITIALIZER;
    size_t n_arp, nd;
    int max;

    tunnel_neigh_format(&ds, &s->dp);
    fuzz_check(sscanf(ds_cstr(&ds), "neighbours learned: %"PRIuSIZE
                      " (from arp %"PRIuSIZE", from nd %"PRIuSIZE
                      "; at most %d), requests awaiting an answer: %"
                      PRIuSIZE, n_learned, &n_arp, &nd, &max,
                      n_pending) == 5
               && max == TUNNEL_NEIGH_MAX_ENTRIES
               && n_arp + nd == *n_learned,
               "tunnel_neigh_format: %s", ds_cstr(&ds));
    ds_destroy(&ds);
    if (n_nd) {
        *n_nd = nd;
    }
}

/* read_state__() without the ND share. */
static void
read_state(struct fuzz_state *s, size_t *n_learned, size_t *n_pending)
{
    read_state__(s, n_learned, NULL, n_pending);
}

/* The checks that hold after every operation. */
static void
check_state(struct fuzz_state *s)
{
    size_t n_learned, n_nd, n_pending;

    read_state__(s, &n_learned, &n_nd, &n_pending);
    fuzz_check(n_learned <= TUNNEL_NEIGH_MAX_ENTRIES,
               "%"PRIuSIZE" entries learned", n_learned);
    fuzz_check(n_learned <= s->learned_answers,
               "%"PRIuSIZE" entries learned from %"PRIu64" answers",
               n_learned, s->learned_answers);
    /* Each family's entries come only from its own answers: an NA never
     * teaches an IPv4 next hop, nor ARP an IPv6 one. */
    fuzz_check(n_nd <= s->nd_learned_answers
               && n_learned - n_nd <= s->learned_answers
                                      - s->nd_learned_answers,
               "%"PRIuSIZE" of %"PRIuSIZE" entries from nd, after %"PRIu64
               " nd and %"PRIu64" answers in all", n_nd, n_learned,
               s->nd_learned_answers, s->learned_answers);
    fuzz_check(n_pending <= TUNNEL_NEIGH_MAX_PENDING,
               "%"PRIuSIZE" requests awaited", n_pending);
}

/* Returns the most a token bucket of 'burst' and 'rate' a second can give
 * from the input's start to 'now'. */
static uint64_t
bucket_max(uint32_t burst, uint32_t rate, long long int now)
{
    return burst + (uint64_t) (now - FUZZ_START_MS) * rate / 1000;
}

/* Reads the neighbour discovery counters of every thread into 'c'. */
static void
read_nd_counters(const struct fuzz_state *s,
                 uint64_t c[FUZZ_N_THREADS][N_ND_COUNTERS])
{
    for (size_t t = 0; t < FUZZ_N_THREADS; t++) {
        for (size_t i = 0; i < N_ND_COUNTERS; i++) {
            c[t][i] = read_counter(s, t, nd_counters[i]);
        }
    }
}

/* Returns true if the input asked for 'ip' from 'port' less than
 * TUNNEL_NEIGH_PENDING_MS before 'now'. */
static bool
nd_was_asked(const struct fuzz_state *s, int port, const struct in6_addr *ip,
             long long int now)
{
    for (size_t i = 0; i < FUZZ_N_ND_ASKED; i++) {
        const struct nd_asked *a = &s->nd_asked[i];

        if (a->sent && a->port == port && ipv6_addr_equals(&a->ip, ip)
            && now - a->sent < TUNNEL_NEIGH_PENDING_MS) {
            return true;
        }
    }
    return false;
}

/* Checks what IPv6 frame 'p' (FRAME_ND), delivered alone to 'port' by
 * thread 't', did to the counters between 'before' and 'after' and to the
 * learned entries, 'n_before' and 'n_after': no ARP counter, at most one
 * of 't''s own "nd" counters by one, a solicited verdict only for a target
 * asked for from that port within TUNNEL_NEIGH_PENDING_MS (when the input
 * asked for at most FUZZ_N_ND_ASKED next hops), and a new entry only with
 * "nd learned". */
static void
check_nd(struct fuzz_state *s, int port, int t, const struct dp_packet *p,
         uint64_t before[FUZZ_N_THREADS][N_ND_COUNTERS],
         uint64_t after[FUZZ_N_THREADS][N_ND_COUNTERS],
         size_t n_before, size_t n_after)
{
    const uint8_t *data = dp_packet_data(p);
    int moved = -1;

    for (size_t u = 0; u < FUZZ_N_THREADS; u++) {
        for (size_t i = 0; i < N_ND_COUNTERS; i++) {
            uint64_t d = after[u][i] - before[u][i];

            if (!d) {
                continue;
            }
            fuzz_check(u == (size_t) t && d == 1 && moved < 0,
                       "nd frame moved thread %"PRIuSIZE"'s counter %"
                       PRIuSIZE" by %"PRIu64, u, i, d);
            moved = i;
        }
    }
    if (moved >= 0 && nd_counters[moved] == VPORT_TNL_ND_LEARNED) {
        s->learned_answers++;
        s->nd_learned_answers++;
        fuzz_check(n_after <= n_before + 1, "nd learned: %"PRIuSIZE" to %"
                   PRIuSIZE" entries", n_before, n_after);
    } else {
        fuzz_check(n_after == n_before, "nd verdict %d: %"PRIuSIZE" to %"
                   PRIuSIZE" entries", moved, n_before, n_after);
    }
    if (moved >= 0 && (nd_counters[moved] == VPORT_TNL_ND_LEARNED
                       || nd_counters[moved] == VPORT_TNL_ND_CONFIRMED
                       || nd_counters[moved] == VPORT_TNL_ND_CANDIDATES)) {
        struct in6_addr target;

        fuzz_check(dp_packet_size(p) >= 14 + 40 + 24,
                   "solicited nd verdict for a %"PRIu32"-byte frame",
                   dp_packet_size(p));
        memcpy(&target, data + 14 + 40 + 8, sizeof target);
        fuzz_check(s->nd_next > FUZZ_N_ND_ASKED
                   || nd_was_asked(s, port, &target, s->threads[t].now),
                   "solicited nd verdict for a target not asked for");
    }
}

/* Returns the index of the counter that moved between 'before' and 'after'
 * for thread 't', checking that exactly one moved, by one, and that no other
 * thread's moved; or -1 if none moved. */
static int
moved_counter(uint64_t before[FUZZ_N_THREADS][N_SNOOP_COUNTERS],
              uint64_t after[FUZZ_N_THREADS][N_SNOOP_COUNTERS], int t)
{
    int moved = -1;

    for (size_t u = 0; u < FUZZ_N_THREADS; u++) {
        for (size_t i = 0; i < N_SNOOP_COUNTERS; i++) {
            uint64_t delta = after[u][i] - before[u][i];

            if (!delta) {
                continue;
            }
            fuzz_check(u == t, "thread %"PRIuSIZE"'s counter %"PRIuSIZE
                       " moved for thread %d", u, i, t);
            fuzz_check(delta == 1 && moved < 0,
                       "counter %"PRIuSIZE" moved by %"PRIu64" (and %d)",
                       i, delta, moved);
            moved = i;
        }
    }
    return moved;
}

/* Checks a solicited verdict 'c' (learned, confirmed or candidate) of a
 * reply from 'spa' at 'sha' delivered to 'port' at 'now', and records it. */
static void
check_solicited(struct fuzz_state *s, int port, ovs_be32 spa,
                struct eth_addr sha, enum vport_tunnel_counter c,
                long long int now)
{
    struct hop *h = hop_get(s, port, spa, false);
    struct in6_addr ip6;
    struct eth_addr mac;

    fuzz_check(h && h->requested, "solicited verdict for a next hop never "
               "asked for");
    fuzz_check(now - h->sent < TUNNEL_NEIGH_PENDING_MS,
               "solicited verdict %lld ms after the request", now - h->sent);
    if (!h->uncertain) {
        fuzz_check(!h->closed, "solicited verdict after a confirmation");
        fuzz_check(h->answers < TUNNEL_NEIGH_MAX_ANSWERS,
                   "answer %u to one request", h->answers + 1);
        fuzz_check(c != VPORT_TNL_ARP_CANDIDATES
                   || !h->answers || h->candidates,
                   "a candidate as answer %u after a learned one",
                   h->answers + 1);
    }
    h->answers++;
    if (c == VPORT_TNL_ARP_CANDIDATES) {
        h->candidates = true;
        h->candidate_held = true;
        h->candidate_known = true;
        h->candidate = sha;
    } else {
        /* Learned or confirmed: the candidate, if any, is dropped. */
        h->candidate_held = false;
        h->candidate_known = false;
        if (c == VPORT_TNL_ARP_CONFIRMED) {
            h->closed = true;
        } else {
            s->learned_answers++;
        }
        in6_addr_set_mapped_ipv4(&ip6, spa);
        fuzz_check(!tnl_neigh_lookup(fuzz_ports[port].name, &ip6, &mac)
                   && eth_addr_equals(mac, sha),
                   "OVS's cache does not have the MAC just learned");
    }
    hop_add_mac(h, sha);
}

/* Delivers the frame in 'p' alone to 'port' by thread 't', and checks what
 * it did.  Does not free 'p'. */
static void
deliver_one(struct fuzz_state *s, int port, int t, struct dp_packet *p)
{
    uint64_t before[FUZZ_N_THREADS][N_SNOOP_COUNTERS];
    uint64_t after[FUZZ_N_THREADS][N_SNOOP_COUNTERS];
    uint64_t nd_before[FUZZ_N_THREADS][N_ND_COUNTERS];
    uint64_t nd_after[FUZZ_N_THREADS][N_ND_COUNTERS];
    struct pmd_thread *thread = &s->threads[t];
    size_t n_before, n_after, pending;
    struct dp_packet_batch batch;
    enum frame_class class;
    struct eth_addr sha;
    enum vport_tunnel_counter c;
    ovs_be32 spa;
    int moved;

    class = classify(s, port, p->packet_type, dp_packet_data(p),
                     dp_packet_size(p), &spa, &sha);
    read_counters(s, before);
    read_nd_counters(s, nd_before);
    read_state(s, &n_before, &pending);
    dp_packet_batch_init_packet(&batch, p);
    tunnel_neigh_snoop(thread, &s->ports[port], &batch);
    read_counters(s, after);
    read_nd_counters(s, nd_after);
    read_state(s, &n_after, &pending);

    moved = moved_counter(before, after, t);
    if (class == FRAME_ND) {
        fuzz_check(moved < 0, "nd frame moved arp counter %d", moved);
        check_nd(s, port, t, p, nd_before, nd_after, n_before, n_after);
        return;
    }
    fuzz_check(!memcmp(nd_after, nd_before, sizeof nd_after),
               "frame of class %d moved an nd counter", class);
    if (class == FRAME_IGNORED) {
        fuzz_check(moved < 0, "ignored frame moved counter %d", moved);
        fuzz_check(n_after == n_before, "ignored frame learned");
        return;
    }
    fuzz_check(moved >= 0, "frame of class %d moved no counter", class);
    if (class == FRAME_GRATUITOUS || class == FRAME_REPLY) {
        s->examined[t]++;
    }
    c = snoop_counters[moved];
    switch (class) {
    case FRAME_MALFORMED:
        fuzz_check(c == VPORT_TNL_ARP_REFUSED_MALFORMED, "malformed: %d", c);
        break;
    case FRAME_GRATUITOUS:
        fuzz_check(c == VPORT_TNL_ARP_REFUSED_GARP, "gratuitous: %d", c);
        break;
    case FRAME_NOT_OURS:
        fuzz_check(c == VPORT_TNL_ARP_REFUSED_NOT_OURS, "not ours: %d", c);
        break;
    case FRAME_REPLY:
        fuzz_check(c != VPORT_TNL_ARP_REFUSED_MALFORMED
                   && c != VPORT_TNL_ARP_REFUSED_GARP
                   && c != VPORT_TNL_ARP_REFUSED_NOT_OURS, "reply: %d", c);
        if (c == VPORT_TNL_ARP_REFUSED_RATE) {
            fuzz_check(s->examined[t] > TUNNEL_NEIGH_SNOOP_BURST,
                       "over rate after %"PRIu64" packets", s->examined[t]);
        } else {
            /* The verdicts that took a token (gratuitous ARP may have
             * taken some too). */
            uint64_t taken = (after[t][SC_LEARNED] + after[t][SC_CONFIRMED]
                              + after[t][SC_CANDIDATES]
                              + after[t][SC_UNSOLICITED] + after[t][SC_FULL]);

            fuzz_check(taken <= bucket_max(TUNNEL_NEIGH_SNOOP_BURST,
                                           TUNNEL_NEIGH_SNOOP_RATE,
                                           thread->now),
                       "%"PRIu64" replies examined", taken);
        }
        if (c == VPORT_TNL_ARP_REFUSED_FULL) {
            fuzz_check(n_before == TUNNEL_NEIGH_MAX_ENTRIES,
                       "table full at %"PRIuSIZE" entries", n_before);
        }
        if (c == VPORT_TNL_ARP_LEARNED) {
            fuzz_check(n_after == n_before || n_after == n_before + 1,
                       "learned: %"PRIuSIZE" to %"PRIuSIZE" entries",
                       n_before, n_after);
        } else {
            fuzz_check(n_after == n_before, "verdict %d: %"PRIuSIZE" to %"
                       PRIuSIZE" entries", c, n_before, n_after);
        }
        if (c == VPORT_TNL_ARP_LEARNED || c == VPORT_TNL_ARP_CONFIRMED
            || c == VPORT_TNL_ARP_CANDIDATES) {
            check_solicited(s, port, spa, sha, c, thread->now);
        }
        break;
    case FRAME_IGNORED:
    case FRAME_ND:
    default:
        OVS_NOT_REACHED();
    }
    if (class != FRAME_REPLY) {
        fuzz_check(n_after == n_before, "class %d: %"PRIuSIZE" to %"PRIuSIZE
                   " entries", class, n_before, n_after);
    }
}

/* Delivers the frames of batch record 'r' together to 'port' by thread 't',
 * and checks the counters in sum. */
static void
deliver_batch(struct fuzz_state *s, int port, int t,
              const struct fuzz_record *r)
{
    uint64_t before[FUZZ_N_THREADS][N_SNOOP_COUNTERS];
    uint64_t after[FUZZ_N_THREADS][N_SNOOP_COUNTERS];
    struct fuzz_input in = { .data = r->bytes, .size = r->len };
    uint64_t nd_before[FUZZ_N_THREADS][N_ND_COUNTERS];
    uint64_t nd_after[FUZZ_N_THREADS][N_ND_COUNTERS];
    size_t n_counted = 0, n_solicitable = 0, n_nd = 0;
    struct dp_packet_batch batch;
    uint64_t solicited = 0;

    dp_packet_batch_init(&batch);
    while (in.size && dp_packet_batch_size(&batch) < NETDEV_MAX_BURST) {
        size_t len = fuzz_take_be16(&in);
        enum frame_class class;
        struct dp_packet *p;
        struct eth_addr sha;
        ovs_be32 spa;

        len = MIN(len, in.size);
        p = fuzz_packet(in.data, len, htonl(PT_ETH));
        in.data += len;
        in.size -= len;
        class = classify(s, port, p->packet_type, dp_packet_data(p),
                         dp_packet_size(p), &spa, &sha);
        n_counted += class != FRAME_IGNORED && class != FRAME_ND;
        n_nd += class == FRAME_ND;
        if (class == FRAME_GRATUITOUS || class == FRAME_REPLY) {
            s->examined[t]++;
        }
        if (class == FRAME_REPLY) {
            struct hop *h = hop_get(s, port, spa, false);

            if (h && h->requested) {
                /* Any of them may be learned: which, and in which order, is
                 * not known any more. */
                n_solicitable++;
                h->uncertain = true;
                h->candidates = true;
                h->candidate_held = true;
                h->candidate_known = false;
                hop_add_mac(h, sha);
            }
        }
        dp_packet_batch_add(&batch, p);
    }

    read_counters(s, before);
    read_nd_counters(s, nd_before);
    tunnel_neigh_snoop(&s->threads[t], &s->ports[port], &batch);
    read_counters(s, after);
    read_nd_counters(s, nd_after);
    dp_packet_delete_batch(&batch, true);

    for (size_t u = 0; u < FUZZ_N_THREADS; u++) {
        uint64_t sum = 0;

        for (size_t i = 0; i < N_ND_COUNTERS; i++) {
            sum += nd_after[u][i] - nd_before[u][i];
        }
        fuzz_check(sum <= (u == t ? n_nd : 0), "batch of %"PRIuSIZE
                   " IPv6 frames moved thread %"PRIuSIZE"'s nd counters by %"
                   PRIu64, n_nd, u, sum);
    }
    s->learned_answers += nd_after[t][0] - nd_before[t][0];
    s->nd_learned_answers += nd_after[t][0] - nd_before[t][0];

    for (size_t u = 0; u < FUZZ_N_THREADS; u++) {
        uint64_t sum = 0;

        for (size_t i = 0; i < N_SNOOP_COUNTERS; i++) {
            sum += after[u][i] - before[u][i];
        }
        fuzz_check(sum == (u == t ? n_counted : 0),
                   "batch of %"PRIuSIZE" counted frames moved thread %"
                   PRIuSIZE"'s counters by %"PRIu64, n_counted, u, sum);
    }
    for (size_t i = SC_LEARNED; i <= SC_CANDIDATES; i++) {
        solicited += after[t][i] - before[t][i];
    }
    fuzz_check(solicited <= n_solicitable, "%"PRIu64" solicited verdicts "
               "for %"PRIuSIZE" replies from next hops asked for",
               solicited, n_solicitable);
    s->learned_answers += after[t][SC_LEARNED] - before[t][SC_LEARNED];
}

/* Thread 't' asks for 'ip' from 'port'. */
static void
request(struct fuzz_state *s, int port, int t, ovs_be32 ip)
{
    struct pmd_thread *thread = &s->threads[t];
    uint64_t sent = read_counter(s, t, VPORT_TNL_TX_ARP_REQUESTS);
    struct in6_addr ip6;

    in6_addr_set_mapped_ipv4(&ip6, ip);
    if (tunnel_neigh_request_admit(thread,
                                   u32_to_odp(fuzz_ports[port].port_no),
                                   &ip6)) {
        struct hop *h = hop_get(s, port, ip, true);

        h->requested = true;
        h->sent = thread->now;
        h->answers = 0;
        h->candidates = false;
        h->closed = false;
        h->uncertain = false;
        s->admitted[t]++;
        fuzz_check(s->admitted[t]
                   <= bucket_max(TUNNEL_NEIGH_REQUEST_BURST,
                                 TUNNEL_NEIGH_REQUEST_RATE, thread->now),
                   "%"PRIu64" requests admitted", s->admitted[t]);
        fuzz_check(read_counter(s, t, VPORT_TNL_TX_ARP_REQUESTS) == sent + 1,
                   "admitted request not counted");
    } else {
        fuzz_check(read_counter(s, t, VPORT_TNL_TX_ARP_REQUESTS) == sent,
                   "refused request counted as sent");
    }
}

/* Thread 't' asks for IPv6 next hop 'ip' from 'port'. */
static void
request6(struct fuzz_state *s, int port, int t, const struct in6_addr *ip)
{
    struct pmd_thread *thread = &s->threads[t];
    uint64_t sent = read_counter(s, t, VPORT_TNL_TX_ND_REQUESTS);

    if (IN6_IS_ADDR_V4MAPPED(ip)) {
        /* An IPv4 next hop: operation 2 without bit 6 asks for those. */
        return;
    }
    if (tunnel_neigh_request_admit(thread,
                                   u32_to_odp(fuzz_ports[port].port_no),
                                   ip)) {
        struct nd_asked *a = &s->nd_asked[s->nd_next++ % FUZZ_N_ND_ASKED];

        a->port = port;
        a->ip = *ip;
        a->sent = thread->now;
        s->admitted[t]++;
        fuzz_check(s->admitted[t]
                   <= bucket_max(TUNNEL_NEIGH_REQUEST_BURST,
                                 TUNNEL_NEIGH_REQUEST_RATE, thread->now),
                   "%"PRIu64" requests admitted", s->admitted[t]);
        fuzz_check(read_counter(s, t, VPORT_TNL_TX_ND_REQUESTS) == sent + 1,
                   "admitted solicitation not counted");
    } else {
        fuzz_check(read_counter(s, t, VPORT_TNL_TX_ND_REQUESTS) == sent,
                   "refused solicitation counted as sent");
    }
}

/* Thread 't' looks 'ip' up on 'port''s device. */
static void
lookup(struct fuzz_state *s, int port, int t, ovs_be32 ip)
{
    uint64_t before[FUZZ_N_THREADS][N_SNOOP_COUNTERS];
    uint64_t after[FUZZ_N_THREADS][N_SNOOP_COUNTERS];
    size_t n_before, n_after, pending;
    struct hop *h = hop_get(s, port, ip, false);
    struct in6_addr ip6;
    struct eth_addr mac;
    int error, moved;

    read_counters(s, before);
    read_state(s, &n_before, &pending);
    in6_addr_set_mapped_ipv4(&ip6, ip);
    error = tunnel_neigh_lookup(&s->threads[t], fuzz_ports[port].name, &ip6,
                                &mac);
    read_counters(s, after);
    read_state(s, &n_after, &pending);

    fuzz_check(!error || error == EAGAIN || error == ENOENT,
               "lookup: %s", ovs_strerror(error));
    fuzz_check(n_after <= n_before, "lookup learned");
    if (error != ENOENT) {
        fuzz_check(h && hop_has_mac(h, mac),
                   "lookup gave a MAC no solicited reply gave");
    }
    moved = moved_counter(before, after, t);
    if (moved >= 0) {
        fuzz_check(snoop_counters[moved] == VPORT_TNL_ARP_LEARNED,
                   "lookup moved counter %d", snoop_counters[moved]);
        fuzz_check(h && h->candidate_held, "lookup took a candidate never "
                   "given");
        if (h->candidate_known) {
            fuzz_check(error != ENOENT && eth_addr_equals(mac, h->candidate),
                       "lookup took another MAC than the candidate");
        }
        h->candidate_held = false;
        h->candidate_known = false;
    }
}

/* A solicited flood (operation 6) from record 'r' on 'port' by 't'. */
static void
flood(struct fuzz_state *s, int port, int t, const struct fuzz_record *r)
{
    struct fuzz_input in = { .data = r->bytes, .size = r->len };
    uint32_t base = ((uint32_t) fuzz_take_be16(&in) << 16)
                    | fuzz_take_be16(&in);
    unsigned int count = fuzz_take_be16(&in);
    uint8_t mac_base[ETH_ADDR_LEN];
    ovs_be32 tpa = htonl(0xc0000202);

    count = MIN(count, FUZZ_MAX_FLOOD);
    for (size_t i = 0; i < ETH_ADDR_LEN; i++) {
        mac_base[i] = fuzz_take_u8(&in);
    }
    for (size_t i = 0; i < FUZZ_N_ADDRS; i++) {
        if (s->addr_mask & (1u << i) && fuzz_addrs[i].port == port) {
            tpa = htonl(fuzz_addrs[i].addr);
            break;
        }
    }
    for (unsigned int i = 0; i < count; i++) {
        ovs_be32 spa = htonl(base + i);
        struct eth_addr sha;
        struct dp_packet *p;
        uint32_t low;

        memcpy(&sha, mac_base, ETH_ADDR_LEN);
        low = ((uint32_t) sha.ea[3] << 16 | sha.ea[4] << 8 | sha.ea[5]) + i;
        sha.ea[3] = low >> 16;
        sha.ea[4] = low >> 8;
        sha.ea[5] = low;

        request(s, port, t, spa);
        p = dp_packet_new(ETH_HEADER_LEN + ARP_ETH_HEADER_LEN);
        compose_arp(p, ARP_OP_REPLY, sha, port_mac, false, spa, tpa);
        deliver_one(s, port, t, p);
        dp_packet_delete(p);
    }
}

/* Delivers the rest of the input, 'len' bytes at 'data', as one frame to
 * 'port' by 't': in a packet of its own length, however long. */
static void
deliver_rest(struct fuzz_state *s, int port, int t, const uint8_t *data,
             size_t len)
{
    uint8_t *copy = xmemdup(data, len);
    struct dp_packet p;

    dp_packet_use_const(&p, copy, len);
    p.packet_type = htonl(PT_ETH);
    deliver_one(s, port, t, &p);
    dp_packet_uninit(&p);
    free(copy);
}

/* Sets up an input's world in 's'. */
static void
state_init(struct fuzz_state *s)
{
    memset(s, 0, sizeof *s);
    s->dp.tunnel = vport_tunnel_table_create(FUZZ_N_THREADS);
    s->dp.tunnel_neigh = tunnel_neigh_create(FUZZ_N_THREADS);
    for (size_t t = 0; t < FUZZ_N_THREADS; t++) {
        s->threads[t].dp = &s->dp;
        s->threads[t].index = t;
        s->threads[t].now = FUZZ_START_MS;
    }
    for (size_t i = 0; i < FUZZ_N_PORTS; i++) {
        s->ports[i].port_no = u32_to_odp(fuzz_ports[i].port_no);
        s->ports[i].netdev = fuzz_netdevs[i];
        s->ports[i].is_internal = fuzz_ports[i].internal;
    }
    hmap_init(&s->hops);
    publish_addrs(s, FUZZ_INITIAL_ADDRS);
}

/* Frees what 's' holds, and empties OVS's cache of the ports' devices. */
static void
state_destroy(struct fuzz_state *s)
{
    struct hop *h;

    tunnel_neigh_destroy(s->dp.tunnel_neigh);
    vport_tunnel_table_destroy(s->dp.tunnel);
    HMAP_FOR_EACH_POP (h, node, &s->hops) {
        free(h->macs);
        free(h);
    }
    hmap_destroy(&s->hops);
    for (size_t i = 0; i < FUZZ_N_PORTS; i++) {
        tnl_neigh_flush(fuzz_ports[i].name);
    }
    ovsrcu_quiesce();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = { .data = data, .size = size };
    struct fuzz_state s;
    struct fuzz_record r;

    fuzz_neigh_init();
    state_init(&s);
    while (in.size) {
        uint8_t ctl = fuzz_take_u8(&in);
        int port = (ctl >> 3) & 3;
        int t = (ctl >> 5) & 1;

        if ((ctl & 7) == 7) {
            deliver_rest(&s, port, t, in.data, in.size);
            break;
        }
        /* The record's length and bytes, after the control byte. */
        r.ctl = ctl;
        r.len = fuzz_take_be16(&in);
        r.len = MIN(r.len, in.size);
        r.bytes = in.data;
        in.data += r.len;
        in.size -= r.len;

        switch (ctl & 7) {
        case 0: {
            struct dp_packet *p = fuzz_packet(r.bytes, r.len,
                                              htonl(ctl & 0x40
                                                    ? PT_IPV4 : PT_ETH));

            deliver_one(&s, port, t, p);
            dp_packet_delete(p);
            break;
        }
        case 1:
            deliver_batch(&s, port, t, &r);
            break;
        case 2:
            if (ctl & 0x40) {
                for (size_t i = 0; i + 16 <= r.len; i += 16) {
                    struct in6_addr ip6;

                    memcpy(&ip6, r.bytes + i, 16);
                    request6(&s, port, t, &ip6);
                }
                break;
            }
            /* fall through */
        case 4:
            for (size_t i = 0; i + 4 <= r.len; i += 4) {
                ovs_be32 ip;

                memcpy(&ip, r.bytes + i, 4);
                if ((ctl & 7) == 2) {
                    request(&s, port, t, ip);
                } else {
                    lookup(&s, port, t, ip);
                }
            }
            break;
        case 3: {
            struct fuzz_input rin = { .data = r.bytes, .size = r.len };
            long long int step = fuzz_take_be16(&rin) * (ctl & 8 ? 100 : 1);

            for (size_t i = 0; i < FUZZ_N_THREADS; i++) {
                s.threads[i].now += step;
            }
            break;
        }
        case 5:
            publish_addrs(&s, ctl >> 3);
            break;
        case 6:
            flood(&s, port, t, &r);
            break;
        }
        check_state(&s);
    }
    check_state(&s);
    state_destroy(&s);
    return 0;
}

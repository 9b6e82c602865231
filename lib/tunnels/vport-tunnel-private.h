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

#ifndef VPORT_TUNNEL_PRIVATE_H
#define VPORT_TUNNEL_PRIVATE_H 1

/* What the files of the tunnel layer (vport-tunnel.c, vport-tunnel-*.c)
 * share and nothing else sees: a vport's per-thread receive cells, a
 * forwarding thread's state of the layer, and the helpers that more than
 * one of those files calls.  vport-tunnel.h says who owns what. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "datapath.h"
#include "dp-packet.h"
#include "netdev-ipip.h"
#include "netdev.h"
#include "openvswitch/types.h"
#include "ovs-atomic.h"
#include "ovs-rcu.h"
#include "pmd.h"
#include "thread-counters.h"
#include "util.h"
#include "vport-tunnel.h"

struct gro_cell;
struct ip_ident;

/* One thread's receive state for one vport.  Written only by the thread
 * whose index it has; padded to whole cache lines so that threads do not
 * share a line. */
struct vport_tunnel_rx {
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        struct vport_tunnel *vport; /* Owner. */

        /* Created by the owning thread at its first GRO packet; NULL until
         * then.  Read by the main thread for its counters. */
        OVSRCU_TYPE(struct gro_cell *) gro;

        struct dp_packet_batch plain; /* Decapsulated, not for GRO. */
        bool active;                /* In the thread's 'active_tunnels'. */
        struct vport_tunnel_rx *next_active; /* Next in that list. */
        unsigned int level;         /* How many times the packets it holds
                                     * were decapsulated in a row, at most:
                                     * the thread forwards them at this
                                     * 'tunnel_nesting'.  0 while empty. */
    );
};

/* The datapath side of one tunnel port. */
struct vport_tunnel {
    struct dp_port *port;           /* The port; its netdev is a tunnel. */
    const struct vport_tunnel_ops *ops; /* Its type. */
    ovs_be16 udp_port;              /* UDP destination port, for the UDP
                                     * types; set by the main thread before
                                     * the port is published. */
    atomic_uint32_t exts;           /* The `exts` (OVS_VXLAN_EXT_*) of the
                                     * OpenFlow port the datapath port was
                                     * added for, as a kernel vport takes
                                     * them at creation: written by the
                                     * main thread, read by the forwarding
                                     * threads. */
    size_t n_threads;               /* Elements in 'rx'. */
    struct vport_tunnel_rx *rx;     /* One per forwarding thread. */
    const void *config_seen;        /* Main thread: the netdev config the
                                     * endpoint table was built from. */
};

/* Slots in a thread's table of fragment verdicts: a power of two.  A
 * thread has this many UDP or GRE datagrams to local addresses in flight
 * at once, fragmented, before a verdict is lost, which costs only a copy
 * of a later fragment. */
#define FRAG_VERDICTS 64

/* What the first fragment of a UDP or GRE datagram to a local address said:
 * whether the datagram is a tunnel's, so that its later fragments, which
 * carry no UDP or GRE header, are held for reassembly or delivered at
 * once. */
struct frag_verdict {
    struct in6_addr src;            /* Outer source (IPv4-mapped for
                                     * IPv4). */
    struct in6_addr dst;            /* Outer destination, the same way. */
    uint32_t id;                    /* IPv4 ID or IPv6 identification. */
    uint8_t proto;                  /* IP protocol. */
    bool ours;                      /* A tunnel's? */
    long long int expires;          /* When it lapses, in ms; 0: unused. */
};

/* A forwarding thread's own state of the tunnel layer.  Written only by
 * that thread. */
struct vport_tunnel_thread {
    /* The vports' receive cells (GRO cells and plain batches) that this
     * thread filled and has not flushed yet, a list linked through the
     * cells, flushed into the flow lookup at the round's end. */
    struct vport_tunnel_rx *active;
    size_t n_active;
    unsigned int nesting;       /* How many decapsulations deep the packets
                                 * the thread forwards are. */

    struct frag_verdict verdicts[FRAG_VERDICTS];

    /* ICMP "fragmentation needed" token bucket, as Linux's
     * icmp_global_allow(): 'icmp_credit' messages may be sent now; it
     * grows by ICMP_RATE_PER_SEC a second up to ICMP_BURST. */
    uint32_t icmp_credit;
    long long int icmp_stamp;       /* When last refilled, in ms; 0: never,
                                     * the bucket starts full. */
};

/* One thread's state, on cache lines of its own. */
struct vport_tunnel_thread_slot {
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        struct vport_tunnel_thread tt;  /* Written only by its thread. */
    );
};

/* The datapath's tunnel layer ('struct datapath''s 'tunnel'). */
struct vport_tunnel_table {
    /* Where tunnel packets addressed to this host are decapsulated: built
     * by the main thread under the datapath's 'reconfig_mutex' from the
     * tunnel ports, read by the forwarding threads under RCU.  NULL while
     * there is no tunnel port. */
    OVSRCU_TYPE(struct vport_tunnel_endpoints *) endpoints;
    long long int next_refresh; /* Main thread: when to rebuild the
                                 * endpoint table anyway. */
    uint64_t local_seq;         /* Main thread: sum of the internal ports'
                                 * netdev change sequences when the table
                                 * was last checked. */

    /* VPORT_TUNNEL_COUNTERS of each forwarding thread, by thread index:
     * row 'i' written only by thread 'i'. */
    struct thread_counters *counters;

    size_t n_threads;           /* Elements in 'threads', 'idents' and
                                 * 'ident_ranks'. */
    struct vport_tunnel_thread_slot *threads; /* By thread index. */

    /* The outer IPv4 IDs and IPv6 fragment identifications (ip-ident.h):
     * generator i is thread index i's, written only by it, kept across
     * the thread's stops and starts; 'ident_ranks[i]' is thread index i's
     * rank among the threads that exist, in the high 16 bits, and their
     * number, in the low 16, written by the main thread as threads start
     * and stop (vport_tunnel_set_ranks()), read by thread i. */
    struct ip_ident **idents;
    atomic_uint32_t *ident_ranks;
};

/* Adds 'n' to 't''s tunnel counter 'c': vport_tunnel_count(), inline for
 * the packet path of the layer's own files. */
static inline void
vport_tunnel_count__(struct pmd_thread *t, enum vport_tunnel_counter c,
                     uint64_t n)
{
    thread_counters_add(t->dp->tunnel->counters, t->index, c, n);
}

/* Returns 't''s state of the tunnel layer. */
static inline struct vport_tunnel_thread *
vport_tunnel_thread_state(struct pmd_thread *t)
{
    return &t->dp->tunnel->threads[t->index].tt;
}

/* vport-tunnel.c. */
/* Forwarding threads: 'vport''s `exts` option (OVS_VXLAN_EXT_* bits). */
static inline uint32_t
vport_tunnel_exts(struct vport_tunnel *vport)
{
    uint32_t exts;

    atomic_read_relaxed(&vport->exts, &exts);
    return exts;
}

ovs_be16 vport_tunnel_ip_id(struct pmd_thread *, ovs_be32 src, ovs_be32 dst,
                            uint8_t proto);
ovs_be32 vport_tunnel_ip6_id(struct pmd_thread *);
void vport_tunnel_drop(struct pmd_thread *, struct vport_tunnel *,
                       struct dp_packet *, enum vport_tunnel_counter reason,
                       enum netdev_ipip_counter port_counter);
void vport_tunnel_port_count(struct pmd_thread *, struct vport_tunnel *,
                             enum netdev_ipip_counter, uint64_t n);

/* vport-tunnel-endpoints.c. */
struct vport_tunnel *vport_tunnel_find_endpoint(
    const struct vport_tunnel_endpoints *, uint8_t proto, const uint8_t *l4,
    size_t l4_len, ovs_be32 src, ovs_be32 dst);
struct vport_tunnel *vport_tunnel_find_endpoint6(
    const struct vport_tunnel_endpoints *, const struct dp_packet *);

/* vport-tunnel-rx.c. */
bool vport_tunnel_rx_nesting_ok(struct pmd_thread *, struct vport_tunnel *,
                                struct dp_packet *);
void vport_tunnel_rx_enqueue(struct pmd_thread *, struct vport_tunnel *,
                             struct dp_packet *);

#endif /* vport-tunnel-private.h */

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

#ifndef DP_CONNTRACK_H
#define DP_CONNTRACK_H 1

/* The datapath's connection tracker: OVS's own userspace conntrack
 * (lib/conntrack.c), one per datapath, fed by the ct() and ct_clear
 * actions, and the reassembly of the fragments it needs.
 *
 * Threads
 * =======
 *
 * OVS's conntrack is one table per datapath with its own locks (a mutex
 * per zone-limit and expiry list, RCU for lookups), shared by every
 * forwarding thread, as in stock OVS.  It is the one accepted exception to
 * this datapath's rule that the per-packet path writes only memory its
 * thread owns: a connection is seen from both directions, which receive
 * hashing sends to different threads, so its state cannot belong to one.
 *
 * What stays per thread: the reassembly of fragments before conntrack
 * (each thread's ipf-cpu table, see dp-ipf.h; OVS's ipf.c, which takes
 * one global lock per fragment, is bypassed unless "ct-frag-reassembly"
 * asks for it), the parsing of the ct() action (on the thread's stack)
 * and the counters: 'struct dp_conntrack_stats' for one call, on the caller's
 * stack, added by the caller into this thread's row of the tracker's
 * counters (DP_CONNTRACK_COUNTERS, thread-counters.h).
 *
 * dp_conntrack_create(), _destroy() and _set_config() are for the main
 * thread; dp_conntrack_execute() and dp_conntrack_clear() for forwarding
 * threads; dp_conntrack_get() for anyone (OVS's conntrack_* calls do
 * their own locking).
 *
 * Fragments
 * =========
 *
 * With "per-thread" reassembly (the default), a fragment that reaches a
 * ct() action is given to the calling thread's ipf-cpu table and leaves
 * the batch: it is consumed until its datagram is complete, as Linux's
 * ct() does.  The whole datagram takes its place in the batch, goes through
 * conntrack and the rest of the actions (recirculation included) whole,
 * marked with the size of its largest fragment (frag-mru.h); output cuts it
 * again to that size (dp_conntrack_refragment()).  OVS's own ipf is then
 * disabled, so that conntrack_execute() takes none of its locks.
 *
 * With "ovs-ipf", fragments go to conntrack_execute() as they are and
 * OVS's ipf.c reassembles them under its global lock and forwards the
 * original fragments, as dpif-netdev does.  It is there to compare the two
 * (Documentation/conntrack.md). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "openvswitch/types.h"

struct conntrack;
struct dp_conntrack;
struct dp_packet;
struct dp_packet_batch;
struct gso_output;
struct ipf_cpu;
struct nlattr;
struct smap;
struct thread_counters;

/* What a thread's ct() actions did, counted by the caller's thread. */
struct dp_conntrack_stats {
    uint64_t packets;           /* Packets given to conntrack_execute(). */
    uint64_t fragments;         /* Fragments given to per-thread
                                 * reassembly. */
    uint64_t reassembled;       /* Datagrams they completed. */
};

/* The conntrack counters of each thread, and the names ct-frag-stats-show
 * prints them by, in that order. */
#define DP_CONNTRACK_COUNTERS                                               \
    DP_CONNTRACK_COUNTER(DP_CT_PACKETS, "packets through conntrack")        \
    DP_CONNTRACK_COUNTER(DP_CT_FRAGMENTS,                                   \
                         "fragments reassembled for conntrack")             \
    DP_CONNTRACK_COUNTER(DP_CT_REASSEMBLED, "datagrams reassembled")        \
    DP_CONNTRACK_COUNTER(DP_CT_REFRAGMENTED,                                \
                         "datagrams fragmented again on output")            \
    DP_CONNTRACK_COUNTER(DP_CT_DROP_REFRAGMENT,                             \
                         "drop could not fragment again")

enum dp_conntrack_counter {
#define DP_CONNTRACK_COUNTER(ENUM, NAME) ENUM,
    DP_CONNTRACK_COUNTERS
#undef DP_CONNTRACK_COUNTER
    DP_CT_N_COUNTERS
};

struct dp_conntrack *dp_conntrack_create(size_t n_threads);
void dp_conntrack_destroy(struct dp_conntrack *);
void dp_conntrack_set_config(struct dp_conntrack *, const char *dp_name,
                             const struct smap *other_config);
struct conntrack *dp_conntrack_get(const struct dp_conntrack *);
bool dp_conntrack_uses_ovs_ipf(const struct dp_conntrack *);
void dp_conntrack_count(struct dp_conntrack *, size_t thread_index,
                        enum dp_conntrack_counter, uint64_t n);
struct thread_counters *dp_conntrack_counters(const struct dp_conntrack *);

bool dp_conntrack_action_valid(const struct nlattr *ct_action);
void dp_conntrack_execute(struct dp_conntrack *, struct ipf_cpu *,
                          unsigned int ipf_families,
                          struct dp_packet_batch *,
                          const struct nlattr *ct_action,
                          ovs_be16 tp_src, ovs_be16 tp_dst,
                          long long int now_ms, struct dp_conntrack_stats *);
void dp_conntrack_clear(struct dp_packet_batch *);

int dp_conntrack_refragment(struct dp_packet *, uint16_t mru,
                            struct gso_output *, bool *cut);

#endif /* dp-conntrack.h */

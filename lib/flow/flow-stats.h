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

#ifndef FLOW_STATS_H
#define FLOW_STATS_H 1

/* Per-thread statistics of one megaflow.
 *
 * Every megaflow holds one 'struct flow_stats', in its own allocation: an
 * array with one slot per forwarding thread, indexed by the thread's dense
 * index.  The slot of the thread that installed the flow is taken with the
 * flow; any other slot is taken by its thread when it first hits the flow,
 * as the Linux kernel datapath does.  Each slot is a cache line from its
 * thread's pool (slot-pool.h), beside no line that another thread reads.  A
 * thread writes only its own slot, with plain stores and no atomic
 * read-modify-write, so that threads hitting the same megaflow never share
 * a written cache line.
 *
 * Slot 0 is the exception: it belongs to the non-PMD context and also takes
 * the updates of any thread whose own slot could not be allocated, so it is
 * written under a mutex.
 *
 * Readers (dumps, flow_get, the per-thread breakdown) sum the slots.  Clearing
 * never writes a slot: it bumps a generation number, and a slot stamped with
 * an older generation counts as zero until its owner next writes it.
 *
 * For benchmarks only, flow_stats_set_shared_locked() sends every thread's
 * updates to slot 0 under its lock: one shared, locked slot per flow, the
 * design that per-thread slots replace, to measure what they gain. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct dpif_flow_stats;
struct flow_stats;

/* One thread's share of a flow's statistics, as flow_stats_get_slot()
 * reports it. */
struct flow_stats_slot_info {
    uint64_t n_packets;         /* Packets this thread forwarded. */
    uint64_t n_bytes;           /* Bytes this thread forwarded. */
    long long int used;         /* Last hit by this thread, in ms, or 0. */
    uint16_t tcp_flags;         /* TCP flags seen by this thread. */
};

/* Room for one slot, a cache line, so that no two threads' slots share
 * one. */
#define FLOW_STATS_SLOT_SIZE CACHE_LINE_SIZE

size_t flow_stats_size(size_t n_slots);
struct slot_pools;
void flow_stats_init(struct flow_stats *, size_t n_slots, struct slot_pools *,
                     size_t owner);
void flow_stats_uninit(struct flow_stats *);

void flow_stats_prefetch(const struct flow_stats *, size_t slot);
void flow_stats_update(struct flow_stats *, size_t slot,
                       uint32_t n_packets, uint32_t n_bytes,
                       uint16_t tcp_flags, long long int now);

void flow_stats_get(const struct flow_stats *, struct dpif_flow_stats *);
void flow_stats_clear(struct flow_stats *);

void flow_stats_set_alloc_failure(bool fail);
void flow_stats_set_shared_locked(bool shared);
bool flow_stats_is_shared_locked(void);

size_t flow_stats_n_slots(const struct flow_stats *);
bool flow_stats_get_slot(const struct flow_stats *, size_t slot,
                         struct flow_stats_slot_info *);

/* The per-slot breakdown that 'ovs-appctl dpif-percpu/flow-stats-show'
 * prints, for the userspace datapath (slots of threads) and the kernel
 * one (slots of CPUs) alike:
 *     ufid:UFID
 *     total: STATS
 *     slot N (OWNER): STATS
 * with STATS as dpif_flow_stats_format() writes them. */
struct ds;
void flow_stats_format_total(struct ds *, const ovs_u128 *ufid,
                             const struct dpif_flow_stats *total);
void flow_stats_format_slot(struct ds *, size_t slot, const char *owner,
                            const struct flow_stats_slot_info *);

#endif /* flow-stats.h */

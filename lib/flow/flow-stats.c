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

/* Per-thread statistics of one megaflow. */

#include <config.h>
#include "flow-stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dpif.h"
#include "hash.h"
#include "odp-util.h"
#include "openvswitch/dynamic-string.h"
#include "ovs-atomic.h"
#include "ovs-rcu.h"
#include "ovs-thread.h"
#include "slot-pool.h"
#include "util.h"

/* One thread's counters for one flow.  Only the owning thread writes a slot
 * (slot 0: whoever holds the flow's slot0_lock_for()); readers load the
 * members with relaxed atomics so that they never see a torn value.  Each
 * slot fills whole cache lines of its own, so that two threads' slots never
 * share one. */
struct flow_stats_slot {
    atomic_uint32_t generation; /* flow_stats 'generation' when last zeroed. */
    atomic_uint16_t tcp_flags;  /* Bitwise-OR of TCP flags seen. */
    atomic_ullong n_packets;    /* Packets hit. */
    atomic_ullong n_bytes;      /* Bytes hit. */
    atomic_llong used;          /* Time of last hit, in ms; 0 if never. */
};
BUILD_ASSERT_DECL(sizeof(struct flow_stats_slot) <= FLOW_STATS_SLOT_SIZE);

struct flow_stats {
    /* Incremented by flow_stats_clear().  A slot whose 'generation' differs
     * counts as zero. */
    atomic_uint32_t generation;
    uint32_t n_slots;           /* Number of elements in 'slots'. */
    struct slot_pools *pools;   /* Where slots[i] comes from: pool i. */

    /* slots[i] belongs to the forwarding thread with index i.  The slot of
     * the thread that installed the flow is set by flow_stats_init(); the
     * others start NULL and are set, once, by their owner (slot 0 under
     * slot0_lock_for()). */
    OVSRCU_TYPE(struct flow_stats_slot *) slots[];
};

/* Serialize the writers of a flow's slot 0: thread 0, any thread whose own
 * slot could not be allocated, and, in the benchmark-only shared mode
 * (flow_stats_set_shared_locked()), every thread.  A flow's lock is one of
 * SLOT0_N_LOCKS, chosen by the address of its stats (slot0_lock_for()), each
 * on a cache line of its own: as good as a lock per flow for the shared
 * mode's comparison, without a mutex in every megaflow.  Adaptive mutexes,
 * which spin a while before they sleep, as the kernel's per-flow spinlock
 * did before its stats went per CPU. */
#define SLOT0_N_LOCKS 1024
BUILD_ASSERT_DECL(IS_POW2(SLOT0_N_LOCKS));
struct slot0_lock {
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        struct ovs_mutex mutex;     /* Protects the slot 0 of its flows. */
    );
};
static struct slot0_lock slot0_locks[SLOT0_N_LOCKS];

/* Returns the lock of the slot 0 of 'stats', initializing the locks on
 * first use. */
static struct ovs_mutex *
slot0_lock_for(const struct flow_stats *stats)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (ovsthread_once_start(&once)) {
        for (size_t i = 0; i < SLOT0_N_LOCKS; i++) {
            ovs_mutex_init_adaptive(&slot0_locks[i].mutex);
        }
        ovsthread_once_done(&once);
    }
    return &slot0_locks[hash_pointer(stats, 0) & (SLOT0_N_LOCKS - 1)].mutex;
}

static atomic_bool fail_slot_alloc = false;

/* Benchmark only: when true, every thread adds to a flow's one shared slot 0
 * under its lock, instead of to its own slot.  Process-wide, set from
 * other_config:benchmark-shared-flow-stats (datapath.c). */
static atomic_bool shared_locked = false;

/* Benchmark only: makes every flow_stats_update() from now on add to the
 * flow's shared slot 0 under a lock, as a datapath without per-thread slots
 * would, if 'shared' is true, or to the thread's own slot (the default) if
 * it is false.  Totals stay right across the change: readers sum every
 * slot. */
void
flow_stats_set_shared_locked(bool shared)
{
    atomic_store_relaxed(&shared_locked, shared);
}

/* Returns what flow_stats_set_shared_locked() last set. */
bool
flow_stats_is_shared_locked(void)
{
    bool shared;

    atomic_read_relaxed(&shared_locked, &shared);
    return shared;
}

/* For tests: makes the allocation of per-thread slots (all but slot 0) fail
 * while 'fail' is true. */
void
flow_stats_set_alloc_failure(bool fail)
{
    atomic_store_relaxed(&fail_slot_alloc, fail);
}

/* Returns a zeroed slot for thread 'slot_idx' of 'stats', from that
 * thread's pool, or NULL if memory is short. */
static struct flow_stats_slot *
slot_alloc(struct flow_stats *stats, size_t slot_idx)
{
    BUILD_ASSERT(FLOW_STATS_SLOT_SIZE == CACHE_LINE_SIZE);
    return slot_pools_alloc(stats->pools, slot_idx);
}

/* Bytes that flow_stats_init() needs for 'n_slots' slots (the slots
 * themselves come from the pools). */
size_t
flow_stats_size(size_t n_slots)
{
    return sizeof(struct flow_stats)
           + n_slots * sizeof ((struct flow_stats *) NULL)->slots[0];
}

/* Initializes 'stats', in flow_stats_size('n_slots') bytes of the caller's
 * memory, with 'n_slots' slots taken from 'pools' (which must have at least
 * 'n_slots' pools), and takes a reference to 'pools'.  If 'owner' is
 * nonzero, it is the index of the thread that installs the flow, usually
 * the only one that hits it: its slot is taken at once, as the Linux
 * kernel's pre-allocated stats[0] serves a flow's first writer, so that
 * its first update takes no lock.
 *
 * The slot comes from the thread's pool, not from the flow's own
 * allocation: there it lay beside lines that every thread hitting the flow
 * reads (slot-pool.h says what that cost). */
void
flow_stats_init(struct flow_stats *stats, size_t n_slots,
                struct slot_pools *pools, size_t owner)
{
    ovs_assert(n_slots > 0 && n_slots <= UINT32_MAX);
    atomic_init(&stats->generation, 0);
    stats->n_slots = n_slots;
    stats->pools = slot_pools_ref(pools);
    for (size_t i = 0; i < n_slots; i++) {
        ovsrcu_set_hidden(&stats->slots[i], NULL);
    }
    if (owner && owner < n_slots) {
        ovsrcu_set_hidden(&stats->slots[owner], slot_alloc(stats, owner));
    }
}

/* Gives the slots of 'stats' back to their pools and drops its reference to
 * them.  Called after a grace period, when no thread can write them. */
void
flow_stats_uninit(struct flow_stats *stats)
{
    for (size_t i = 0; i < stats->n_slots; i++) {
        slot_pools_free(stats->pools, i,
                        ovsrcu_get_protected(struct flow_stats_slot *,
                                             &stats->slots[i]));
    }
    slot_pools_unref(stats->pools);
}

static inline void
slot_add(struct flow_stats_slot *slot, uint32_t generation,
         uint32_t n_packets, uint32_t n_bytes, uint16_t tcp_flags,
         long long int now)
{
    unsigned long long packets, bytes;
    uint32_t slot_generation;
    uint16_t flags;

    atomic_read_relaxed(&slot->generation, &slot_generation);
    if (slot_generation != generation) {
        atomic_store_relaxed(&slot->n_packets, 0);
        atomic_store_relaxed(&slot->n_bytes, 0);
        atomic_store_relaxed(&slot->tcp_flags, 0);
        atomic_store_relaxed(&slot->used, 0);
        atomic_store_explicit(&slot->generation, generation,
                              memory_order_release);
    }
    atomic_read_relaxed(&slot->n_packets, &packets);
    atomic_store_relaxed(&slot->n_packets, packets + n_packets);
    atomic_read_relaxed(&slot->n_bytes, &bytes);
    atomic_store_relaxed(&slot->n_bytes, bytes + n_bytes);
    atomic_read_relaxed(&slot->tcp_flags, &flags);
    atomic_store_relaxed(&slot->tcp_flags, flags | tcp_flags);
    atomic_store_relaxed(&slot->used, now);
}

/* Adds to slot 0, which several threads may share, under its lock. */
static void
slot0_add(struct flow_stats *stats, uint32_t generation, uint32_t n_packets,
          uint32_t n_bytes, uint16_t tcp_flags, long long int now)
{
    struct ovs_mutex *lock = slot0_lock_for(stats);
    struct flow_stats_slot *slot0;

    ovs_mutex_lock(lock);
    slot0 = ovsrcu_get_protected(struct flow_stats_slot *, &stats->slots[0]);
    if (!slot0) {
        slot0 = slot_alloc(stats, 0);
        if (!slot0) {
            out_of_memory();
        }
        atomic_init(&slot0->generation, generation);
        ovsrcu_set(&stats->slots[0], slot0);
    }
    slot_add(slot0, generation, n_packets, n_bytes, tcp_flags, now);
    ovs_mutex_unlock(lock);
}

/* Keeps a slow path out of line: inlined, it makes its caller's usual path
 * save and restore registers and set up a stack frame that the usual path,
 * which ends in a tail call or a return, does not need. */
#define SLOW_PATH __attribute__((__noinline__))

/* flow_stats_update()'s slow path: the thread's first hit on the flow,
 * which allocates its slot, or an update that goes to slot 0. */
static SLOW_PATH void
flow_stats_update_slow(struct flow_stats *stats, size_t slot_idx,
                       uint32_t n_packets, uint32_t n_bytes,
                       uint16_t tcp_flags, long long int now)
{
    struct flow_stats_slot *slot = NULL;
    uint32_t generation;
    bool shared;

    atomic_read_relaxed(&stats->generation, &generation);
    atomic_read_relaxed(&shared_locked, &shared);
    if (slot_idx > 0 && slot_idx < stats->n_slots && !shared) {
        slot = ovsrcu_get(struct flow_stats_slot *, &stats->slots[slot_idx]);
        if (!slot) {
            bool fail;

            atomic_read_relaxed(&fail_slot_alloc, &fail);
            slot = fail ? NULL : slot_alloc(stats, slot_idx);
            if (slot) {
                atomic_init(&slot->generation, generation);
                ovsrcu_set(&stats->slots[slot_idx], slot);
            }
        }
    }
    if (slot) {
        slot_add(slot, generation, n_packets, n_bytes, tcp_flags, now);
    } else {
        slot0_add(stats, generation, n_packets, n_bytes, tcp_flags, now);
    }
}

/* Starts fetching, for writing, the slot of the forwarding thread
 * 'slot_idx' in 'stats', if it has one, so that a flow_stats_update() soon
 * after finds it in the cache.  Only that thread calls this with that
 * index. */
void
flow_stats_prefetch(const struct flow_stats *stats, size_t slot_idx)
{
    if (OVS_LIKELY(slot_idx > 0 && slot_idx < stats->n_slots)) {
        const struct flow_stats_slot *slot
            = ovsrcu_get(struct flow_stats_slot *, &stats->slots[slot_idx]);

        if (OVS_LIKELY(slot)) {
            OVS_PREFETCH_WRITE(slot);
        }
    }
}

/* Adds a batch's packets to the slot of the forwarding thread 'slot_idx',
 * allocating the slot on the thread's first hit.  Only that thread calls
 * this with that index.
 *
 * It runs for every megaflow a batch hits, as often as once a packet with
 * many megaflows, so the usual case (the thread's slot exists) is kept
 * apart from the rest, which it reaches by a tail call: it then needs no
 * stack frame. */
void
flow_stats_update(struct flow_stats *stats, size_t slot_idx,
                  uint32_t n_packets, uint32_t n_bytes, uint16_t tcp_flags,
                  long long int now)
{
    uint32_t generation;
    bool shared;

    atomic_read_relaxed(&stats->generation, &generation);
    atomic_read_relaxed(&shared_locked, &shared);
    if (OVS_LIKELY(slot_idx > 0 && slot_idx < stats->n_slots && !shared)) {
        struct flow_stats_slot *slot;

        slot = ovsrcu_get(struct flow_stats_slot *, &stats->slots[slot_idx]);
        if (OVS_LIKELY(slot)) {
            slot_add(slot, generation, n_packets, n_bytes, tcp_flags, now);
            return;
        }
    }
    flow_stats_update_slow(stats, slot_idx, n_packets, n_bytes, tcp_flags,
                           now);
}

static bool
slot_read(const struct flow_stats_slot *slot_, uint32_t generation,
          struct flow_stats_slot_info *info)
{
    struct flow_stats_slot *slot = CONST_CAST(struct flow_stats_slot *,
                                              slot_);
    unsigned long long packets, bytes;
    uint32_t slot_generation;
    long long int used;
    uint16_t flags;

    memset(info, 0, sizeof *info);
    atomic_read_explicit(&slot->generation, &slot_generation,
                         memory_order_acquire);
    if (slot_generation != generation) {
        return false;
    }
    atomic_read_relaxed(&slot->n_packets, &packets);
    atomic_read_relaxed(&slot->n_bytes, &bytes);
    atomic_read_relaxed(&slot->used, &used);
    atomic_read_relaxed(&slot->tcp_flags, &flags);
    info->n_packets = packets;
    info->n_bytes = bytes;
    info->used = used;
    info->tcp_flags = flags;
    return true;
}

/* Sums the slots of 'stats' into 'out'. */
void
flow_stats_get(const struct flow_stats *stats_, struct dpif_flow_stats *out)
{
    struct flow_stats *stats = CONST_CAST(struct flow_stats *, stats_);
    uint32_t generation;

    memset(out, 0, sizeof *out);
    atomic_read_relaxed(&stats->generation, &generation);
    for (size_t i = 0; i < stats->n_slots; i++) {
        const struct flow_stats_slot *slot;
        struct flow_stats_slot_info info;

        slot = ovsrcu_get(struct flow_stats_slot *, &stats->slots[i]);
        if (slot && slot_read(slot, generation, &info)) {
            out->n_packets += info.n_packets;
            out->n_bytes += info.n_bytes;
            out->used = MAX(out->used, info.used);
            out->tcp_flags |= info.tcp_flags;
        }
    }
}

/* Zeroes 'stats' as readers see them, without writing any thread's slot. */
void
flow_stats_clear(struct flow_stats *stats)
{
    uint32_t generation;

    atomic_read_relaxed(&stats->generation, &generation);
    atomic_store_explicit(&stats->generation, generation + 1,
                          memory_order_release);
}

/* Returns the number of slots in 'stats', i.e. the largest thread index plus
 * one. */
size_t
flow_stats_n_slots(const struct flow_stats *stats)
{
    return stats->n_slots;
}

/* Reads slot 'slot_idx' of 'stats' into 'info'.  Returns false, with 'info'
 * zeroed, if that thread's slot was never allocated. */
bool
flow_stats_get_slot(const struct flow_stats *stats_, size_t slot_idx,
                    struct flow_stats_slot_info *info)
{
    struct flow_stats *stats = CONST_CAST(struct flow_stats *, stats_);
    const struct flow_stats_slot *slot;
    uint32_t generation;

    memset(info, 0, sizeof *info);
    if (slot_idx >= stats->n_slots) {
        return false;
    }
    slot = ovsrcu_get(struct flow_stats_slot *, &stats->slots[slot_idx]);
    if (!slot) {
        return false;
    }
    atomic_read_relaxed(&stats->generation, &generation);
    slot_read(slot, generation, info);
    return true;
}

/* Writes the first two lines of the breakdown: the UFID and the total. */
void
flow_stats_format_total(struct ds *s, const ovs_u128 *ufid,
                        const struct dpif_flow_stats *total)
{
    odp_format_ufid(ufid, s);
    ds_put_cstr(s, "\ntotal: ");
    dpif_flow_stats_format(total, s);
    ds_put_char(s, '\n');
}

/* Writes the line of slot 'slot', owned by 'owner' (a thread's or a CPU's
 * name). */
void
flow_stats_format_slot(struct ds *s, size_t slot, const char *owner,
                       const struct flow_stats_slot_info *info)
{
    struct dpif_flow_stats stats = {
        .n_packets = info->n_packets,
        .n_bytes = info->n_bytes,
        .used = info->used,
        .tcp_flags = info->tcp_flags,
    };

    ds_put_format(s, "slot %"PRIuSIZE" (%s): ", slot, owner);
    dpif_flow_stats_format(&stats, s);
    ds_put_char(s, '\n');
}

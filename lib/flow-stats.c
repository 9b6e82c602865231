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

#include <config.h>
#include "flow-stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dpif.h"
#include "ovs-atomic.h"
#include "ovs-rcu.h"
#include "ovs-thread.h"
#include "util.h"

/* One thread's counters for one flow.  Only the owning thread writes a slot
 * (slot 0: whoever holds 'slot0_lock'); readers load the members with relaxed
 * atomics so that they never see a torn value.  Each slot fills whole cache
 * lines of its own, so that two threads' slots never share one. */
struct flow_stats_slot {
    atomic_uint32_t generation; /* flow_stats 'generation' when last zeroed. */
    atomic_uint16_t tcp_flags;  /* Bitwise-OR of TCP flags seen. */
    atomic_ullong n_packets;    /* Packets hit. */
    atomic_ullong n_bytes;      /* Bytes hit. */
    atomic_llong used;          /* Time of last hit, in ms; 0 if never. */
};

struct flow_stats {
    struct ovs_mutex slot0_lock; /* Serializes writers of slot 0. */

    /* Incremented by flow_stats_clear().  A slot whose 'generation' differs
     * counts as zero. */
    atomic_uint32_t generation;

    size_t n_slots;             /* Number of elements in 'slots'. */

    /* slots[i] belongs to the forwarding thread with index i.  slots[0] is
     * set at creation; the others start NULL and are set, once, by their
     * owner.  All are freed together by flow_stats_destroy(). */
    OVSRCU_TYPE(struct flow_stats_slot *) slots[];
};

/* When true, allocations of slots other than slot 0 fail, so that tests can
 * exercise the fallback to slot 0.  Set only by a test command. */
static atomic_bool fail_slot_alloc = false;

/* Makes later allocations of per-thread slots fail ('fail' true) or succeed
 * again, for testing the fallback to slot 0. */
void
flow_stats_set_alloc_failure(bool fail)
{
    atomic_store_relaxed(&fail_slot_alloc, fail);
}

/* Allocates a zeroed slot aligned to, and padded to, whole cache lines.
 * Returns NULL if memory is short: unlike xmalloc(), this never aborts,
 * because the caller has a fallback. */
static struct flow_stats_slot *
slot_alloc(void)
{
    size_t size = ROUND_UP(sizeof(struct flow_stats_slot), CACHE_LINE_SIZE);
    void *p;

    if (posix_memalign(&p, CACHE_LINE_SIZE, size)) {
        return NULL;
    }
    memset(p, 0, size);
    return p;
}

/* Creates the statistics of a new flow with room for 'n_slots' forwarding
 * threads, with slot 0 allocated. */
struct flow_stats *
flow_stats_create(size_t n_slots)
{
    struct flow_stats *stats;
    struct flow_stats_slot *slot0;

    ovs_assert(n_slots > 0);
    stats = xzalloc(sizeof *stats + n_slots * sizeof stats->slots[0]);
    ovs_mutex_init(&stats->slot0_lock);
    atomic_init(&stats->generation, 0);
    stats->n_slots = n_slots;

    slot0 = slot_alloc();
    if (!slot0) {
        out_of_memory();
    }
    ovsrcu_set_hidden(&stats->slots[0], slot0);
    return stats;
}

/* Frees 'stats' and all its slots.  The caller must ensure, normally with
 * ovsrcu_postpone(), that no thread still reads or writes it. */
void
flow_stats_destroy(struct flow_stats *stats)
{
    if (!stats) {
        return;
    }
    for (size_t i = 0; i < stats->n_slots; i++) {
        free(ovsrcu_get_protected(struct flow_stats_slot *,
                                  &stats->slots[i]));
    }
    ovs_mutex_destroy(&stats->slot0_lock);
    free(stats);
}

/* Adds a hit to 'slot'.  Only the slot's owner calls this, so the
 * load-add-store sequences need no atomic read-modify-write. */
static void
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

/* Records that the forwarding thread with index 'slot_idx' forwarded
 * 'n_packets' packets of 'n_bytes' bytes in total, with 'tcp_flags', at time
 * 'now' (in ms).  Must be called only by that thread.
 *
 * Allocates the thread's slot on its first hit.  If that allocation fails,
 * or 'slot_idx' is 0, the update goes to slot 0 under its lock. */
void
flow_stats_update(struct flow_stats *stats, size_t slot_idx,
                  uint32_t n_packets, uint32_t n_bytes, uint16_t tcp_flags,
                  long long int now)
{
    struct flow_stats_slot *slot = NULL;
    uint32_t generation;

    atomic_read_relaxed(&stats->generation, &generation);
    if (slot_idx > 0 && slot_idx < stats->n_slots) {
        slot = ovsrcu_get(struct flow_stats_slot *, &stats->slots[slot_idx]);
        if (OVS_UNLIKELY(!slot)) {
            bool fail;

            atomic_read_relaxed(&fail_slot_alloc, &fail);
            slot = fail ? NULL : slot_alloc();
            if (slot) {
                atomic_init(&slot->generation, generation);
                ovsrcu_set(&stats->slots[slot_idx], slot);
            }
        }
    }

    if (OVS_LIKELY(slot)) {
        slot_add(slot, generation, n_packets, n_bytes, tcp_flags, now);
    } else {
        struct flow_stats_slot *slot0;

        slot0 = ovsrcu_get(struct flow_stats_slot *, &stats->slots[0]);
        ovs_mutex_lock(&stats->slot0_lock);
        slot_add(slot0, generation, n_packets, n_bytes, tcp_flags, now);
        ovs_mutex_unlock(&stats->slot0_lock);
    }
}

/* Reads 'slot' into 'info', as zero if it was stamped with a generation
 * older than 'generation'.  Returns false in that case. */
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

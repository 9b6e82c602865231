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

/* The datapath's software segmentation accounts, one per thread. */

#include <config.h>
#include "dp-gso.h"

#include <inttypes.h>

#include "openvswitch/dynamic-string.h"
#include "util.h"

/* One thread's stats, on cache lines of its own. */
struct dp_gso_slot {
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        struct gso_stats stats;     /* Written only by its thread. */
    );
};

/* The datapath's accounts. */
struct dp_gso {
    size_t n_threads;                   /* Elements in each array. */
    struct dp_gso_slot *slots;          /* By thread index. */
    uint64_t (*base)[DP_GSO_N_COUNTERS]; /* What reads subtract, by thread
                                          * index.  Main thread. */
};

/* The names of DP_GSO_COUNTERS, by counter. */
static const char *const dp_gso_names[] = {
#define DP_GSO_COUNTER(ENUM, MEMBER, NAME) NAME,
    DP_GSO_COUNTERS
#undef DP_GSO_COUNTER
};

/* Creates the accounts of 'n_threads' thread indexes, all zero. */
struct dp_gso *
dp_gso_create(size_t n_threads)
{
    struct dp_gso *gso = xzalloc(sizeof *gso);

    gso->n_threads = n_threads;
    gso->slots = xzalloc_cacheline(n_threads * sizeof *gso->slots);
    gso->base = xcalloc(n_threads, sizeof *gso->base);
    return gso;
}

/* Frees 'gso', once no thread uses it.  Accepts NULL. */
void
dp_gso_destroy(struct dp_gso *gso)
{
    if (gso) {
        free_cacheline(gso->slots);
        free(gso->base);
        free(gso);
    }
}

/* Returns the stats of thread 'thread_index', for that thread's output. */
struct gso_stats *
dp_gso_thread_stats(struct dp_gso *gso, size_t thread_index)
{
    return &gso->slots[thread_index].stats;
}

/* Reads the counters of one thread's stats into 'values', by counter. */
static void
read_raw(const struct gso_stats *st, uint64_t values[DP_GSO_N_COUNTERS])
{
#define DP_GSO_COUNTER(ENUM, MEMBER, NAME) \
    values[ENUM] = gso_stats_get(&st->MEMBER);
    DP_GSO_COUNTERS
#undef DP_GSO_COUNTER
}

/* Stores in 'values' the counters of thread 'thread_index', less the base
 * its last clear recorded. */
void
dp_gso_read(const struct dp_gso *gso, size_t thread_index,
            uint64_t values[DP_GSO_N_COUNTERS])
{
    read_raw(&gso->slots[thread_index].stats, values);
    for (size_t i = 0; i < DP_GSO_N_COUNTERS; i++) {
        values[i] -= gso->base[thread_index][i];
    }
}

/* Zeroes the counters of thread 'thread_index' as dp_gso_read() reports
 * them, without writing memory the thread owns.  Main thread. */
void
dp_gso_clear(struct dp_gso *gso, size_t thread_index)
{
    read_raw(&gso->slots[thread_index].stats, gso->base[thread_index]);
}

/* Appends "  NAME: VALUE\n" for each of 'values', in DP_GSO_COUNTERS'
 * order. */
void
dp_gso_format(struct ds *s, const uint64_t values[DP_GSO_N_COUNTERS])
{
    for (size_t i = 0; i < DP_GSO_N_COUNTERS; i++) {
        ds_put_format(s, "  %s: %"PRIu64"\n", dp_gso_names[i], values[i]);
    }
}

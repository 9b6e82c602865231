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

/* One feature's per-thread counters, a row per forwarding thread. */

#include <config.h>
#include "thread-counters.h"

#include <inttypes.h>

#include "openvswitch/dynamic-string.h"
#include "util.h"

/* Creates 'n_counters' counters, named 'names' (which must outlive them),
 * for each of 'n_threads' thread indexes, all zero. */
struct thread_counters *
thread_counters_create(size_t n_threads, const char *const names[],
                       size_t n_counters)
{
    struct thread_counters *tc = xzalloc(sizeof *tc);
    size_t per_line = CACHE_LINE_SIZE / sizeof *tc->values;

    tc->n_threads = n_threads;
    tc->n_counters = n_counters;
    tc->stride = ROUND_UP(MAX(n_counters, 1), per_line);
    tc->names = names;
    tc->values = xzalloc_cacheline(n_threads * tc->stride
                                   * sizeof *tc->values);
    for (size_t i = 0; i < n_threads * tc->stride; i++) {
        atomic_init(&tc->values[i], 0);
    }
    tc->base = xcalloc(MAX(n_threads * n_counters, 1), sizeof *tc->base);
    return tc;
}

/* Frees 'tc'.  Accepts NULL. */
void
thread_counters_destroy(struct thread_counters *tc)
{
    if (tc) {
        free_cacheline(tc->values);
        free(tc->base);
        free(tc);
    }
}

/* Stores in 'values' (n_counters elements) thread 'thread''s counters, less
 * the base its last clear recorded. */
void
thread_counters_read(const struct thread_counters *tc_, size_t thread,
                     uint64_t *values)
{
    struct thread_counters *tc = CONST_CAST(struct thread_counters *, tc_);

    for (size_t i = 0; i < tc->n_counters; i++) {
        unsigned long long v;

        atomic_read_relaxed(&tc->values[thread * tc->stride + i], &v);
        values[i] = v - tc->base[thread * tc->n_counters + i];
    }
}

/* Zeroes thread 'thread''s counters as thread_counters_read() reports them,
 * without writing memory the thread owns: for pmd-stats-clear, and for a
 * thread that takes over the index of a stopped one.  Main thread. */
void
thread_counters_clear(struct thread_counters *tc, size_t thread)
{
    for (size_t i = 0; i < tc->n_counters; i++) {
        unsigned long long v;

        atomic_read_relaxed(&tc->values[thread * tc->stride + i], &v);
        tc->base[thread * tc->n_counters + i] = v;
    }
}

/* Appends "  NAME: VALUE\n" for each of 'values' (n_counters elements, as
 * thread_counters_read() gives them), in the order of the names, leaving
 * out the counters whose name is NULL. */
void
thread_counters_format(struct ds *s, const struct thread_counters *tc,
                       const uint64_t *values)
{
    for (size_t i = 0; i < tc->n_counters; i++) {
        if (tc->names[i]) {
            ds_put_format(s, "  %s: %"PRIu64"\n", tc->names[i], values[i]);
        }
    }
}

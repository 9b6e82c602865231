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

#ifndef THREAD_COUNTERS_H
#define THREAD_COUNTERS_H 1

/* One feature's per-thread counters: a row of counters for each forwarding
 * thread index, each row on cache lines of its own.
 *
 * A feature (tunnels, conntrack, ...) owns one 'struct thread_counters',
 * created with the datapath for its number of thread slots, and lists its
 * counters and the names its command prints them by in one X-macro list
 * beside its enum, for example:
 *
 *     #define FOO_COUNTERS                          \
 *         FOO_COUNTER(FOO_RX, "packets received")   \
 *         FOO_COUNTER(FOO_DROP, "drop bad header")
 *
 *     enum foo_counter {
 *     #define FOO_COUNTER(ENUM, NAME) ENUM,
 *         FOO_COUNTERS
 *     #undef FOO_COUNTER
 *         FOO_N_COUNTERS
 *     };
 *
 * and passes the names, in that order, to thread_counters_create().  A NULL
 * name is a counter never printed (e.g. a 0 that means "no counter").
 *
 * Who owns what: row 'i' is written only by the forwarding thread whose
 * index is 'i' (thread_counters_add(), relaxed atomics), and read by anyone.
 * The base that a clear records, and that reads subtract, is owned by the
 * main thread (under the datapath's 'reconfig_mutex'), so a clear writes no
 * memory a forwarding thread owns.  This is a leaf library: it includes
 * nothing else of lib/. */

#include <stddef.h>
#include <stdint.h>

#include "ovs-atomic.h"

struct ds;

/* The counters.  Members are public only so that thread_counters_add() can
 * be inlined; use the functions. */
struct thread_counters {
    size_t n_threads;           /* Rows. */
    size_t n_counters;          /* Counters per row. */
    size_t stride;              /* Elements from one row to the next: whole
                                 * cache lines. */
    const char *const *names;   /* 'n_counters' names, by counter. */
    atomic_ullong *values;      /* 'n_threads' rows of 'stride'. */
    uint64_t *base;             /* 'n_threads' rows of 'n_counters': what a
                                 * read subtracts.  Main thread. */
};

struct thread_counters *thread_counters_create(size_t n_threads,
                                               const char *const names[],
                                               size_t n_counters);
void thread_counters_destroy(struct thread_counters *);

/* Adds 'n' to counter 'c' of thread 'thread'.  Called only by that
 * thread. */
static inline void
thread_counters_add(struct thread_counters *tc, size_t thread, size_t c,
                    uint64_t n)
{
    atomic_ullong *value = &tc->values[thread * tc->stride + c];
    unsigned long long v;

    atomic_read_relaxed(value, &v);
    atomic_store_relaxed(value, v + n);
}

/* Returns how many counters each of 'tc''s rows has. */
static inline size_t
thread_counters_n(const struct thread_counters *tc)
{
    return tc->n_counters;
}

void thread_counters_read(const struct thread_counters *, size_t thread,
                          uint64_t *values);
void thread_counters_clear(struct thread_counters *, size_t thread);
void thread_counters_format(struct ds *, const struct thread_counters *,
                            const uint64_t *values);

#endif /* thread-counters.h */

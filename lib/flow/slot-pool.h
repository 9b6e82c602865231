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

#ifndef SLOT_POOL_H
#define SLOT_POOL_H 1

/* Cache lines for per-thread statistics slots, one pool per forwarding
 * thread index.
 *
 * A line that one thread writes for every packet must not lie beside a line
 * that another thread reads for every packet.  Sharing a line outright is
 * the known case; the other is the hardware prefetcher, which fetches the
 * lines beside those a core reads (AMD's L2 up/down prefetcher, Intel's
 * adjacent-line one).  The reading core then holds a copy of the written
 * line, and the writer has to take it back before each store: with the
 * writer's slot in the megaflow's last line, beside the lines the other
 * thread reads, two threads on the same 1k megaflows spent twice the cycles
 * per packet of one thread.  A pool hands out lines from chunks that hold
 * nothing but lines of its own index, so that a slot's neighbours are slots
 * that the same thread writes.
 *
 * Lines are taken when a thread first hits a flow (or installs it) and
 * given back by RCU callbacks when the flow is freed, never per packet, so
 * a pool is guarded by a mutex.  A line given back is kept for the same
 * pool's next allocation; chunks are freed with the pools, so that a pool
 * holds as many lines as its thread ever had at once (at most one per
 * megaflow the table can hold, FLOW_TABLE_MAX_FLOWS).
 *
 * The pools are reference counted: a table holds them, and so does every
 * flow's statistics, which may outlive the table in the threads' caches. */

#include <stddef.h>

struct slot_pools;

struct slot_pools *slot_pools_create(size_t n_pools);
struct slot_pools *slot_pools_ref(struct slot_pools *);
void slot_pools_unref(struct slot_pools *);

void *slot_pools_alloc(struct slot_pools *, size_t pool);
void slot_pools_free(struct slot_pools *, size_t pool, void *line);

size_t slot_pools_n_lines(const struct slot_pools *, size_t pool,
                          size_t *n_held);

#endif /* slot-pool.h */

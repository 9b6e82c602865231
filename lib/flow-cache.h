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

#ifndef FLOW_CACHE_H
#define FLOW_CACHE_H 1

/* A forwarding thread's exact-match cache (EMC) in front of the shared
 * megaflow table.
 *
 * Each thread owns one cache, and only that thread reads or writes it, so it
 * needs no lock.  An entry maps a packet's full key to a megaflow and holds a
 * reference to it, so that the megaflow outlives RCU grace periods while
 * cached.  A megaflow removed from the table is dropped from the cache the
 * next time a lookup or the incremental sweep meets it. */

#include <stddef.h>

struct flow_cache;
struct megaflow;
struct packet_key;

struct flow_cache *flow_cache_create(void);
void flow_cache_destroy(struct flow_cache *);

struct megaflow *flow_cache_lookup(struct flow_cache *,
                                   const struct packet_key *);
void flow_cache_insert(struct flow_cache *, const struct packet_key *,
                       struct megaflow *);
void flow_cache_sweep(struct flow_cache *);
void flow_cache_flush(struct flow_cache *);

#endif /* flow-cache.h */

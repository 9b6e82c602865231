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
#include "flow-cache.h"

#include "flow-table.h"
#include "packet-key.h"
#include "util.h"

/* Entries swept per flow_cache_sweep() call. */
#define FLOW_CACHE_SWEEP_BATCH 8

/* Creates an empty cache, for one thread's exclusive use. */
struct flow_cache *
flow_cache_create(void)
{
    struct flow_cache *cache = xzalloc_cacheline(sizeof *cache);

    return cache;
}

/* Empties entry 'e', dropping its reference. */
void
flow_cache_entry_clear(struct flow_cache_entry *e)
{
    megaflow_unref(e->flow);
    e->flow = NULL;
}

/* Drops every entry of 'cache' and the references they hold. */
void
flow_cache_flush(struct flow_cache *cache)
{
    for (size_t i = 0; i < FLOW_CACHE_ENTRIES; i++) {
        flow_cache_entry_clear(&cache->entries[i]);
    }
}

/* Frees 'cache'.  Accepts NULL. */
void
flow_cache_destroy(struct flow_cache *cache)
{
    if (cache) {
        flow_cache_flush(cache);
        free_cacheline(cache);
    }
}

/* Caches 'flow' for 'key', replacing an empty or dead entry if one of the two
 * candidates is, and otherwise the one whose hash is smaller (a cheap,
 * stateless choice of victim, as dpif-netdev makes). */
void
flow_cache_insert(struct flow_cache *cache, const struct packet_key *key,
                  struct megaflow *flow)
{
    struct flow_cache_entry *victim = NULL;

    for (int i = 0; i < 2; i++) {
        struct flow_cache_entry *e = flow_cache_candidate(cache, key->hash, i);

        if (!e->flow || megaflow_is_dead(e->flow)) {
            victim = e;
            break;
        }
        if (!victim || e->key.hash < victim->key.hash) {
            victim = e;
        }
    }

    if (!megaflow_try_ref(flow)) {
        return;
    }
    flow_cache_entry_clear(victim);
    victim->flow = flow;
    packet_key_copy(&victim->key, key);
}

/* Releases a few entries whose megaflow is dead, so that removed megaflows
 * are freed even if no packet looks them up again. */
void
flow_cache_sweep(struct flow_cache *cache)
{
    for (int i = 0; i < FLOW_CACHE_SWEEP_BATCH; i++) {
        struct flow_cache_entry *e = &cache->entries[cache->sweep_pos];

        if (e->flow && megaflow_is_dead(e->flow)) {
            flow_cache_entry_clear(e);
        }
        cache->sweep_pos = (cache->sweep_pos + 1) & FLOW_CACHE_MASK;
    }
}

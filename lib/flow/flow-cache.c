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

/* A forwarding thread's exact-match cache in front of the megaflow table. */

#include <config.h>
#include "flow-cache.h"

#include <string.h>

#include "flow-table.h"
#include "packet-key.h"
#include "util.h"

/* Entries swept per flow_cache_sweep() call. */
#define FLOW_CACHE_SWEEP_BATCH 8
BUILD_ASSERT_DECL(FLOW_CACHE_HEADER_ENTRIES % FLOW_CACHE_SWEEP_BATCH == 0);

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

/* Empties header entry 'e', dropping its reference. */
void
flow_cache_header_entry_clear(struct flow_cache_header_entry *e)
{
    megaflow_unref(e->flow);
    e->flow = NULL;
}

/* Empties the entries at position 'i' of each of the tables of 'cache' that
 * have one (the miniflow table's positions end before the header tables')
 * and hold a megaflow for which 'drop' returns true. */
static void
flow_cache_clear_position(struct flow_cache *cache, size_t i,
                          bool (*drop)(const struct megaflow *))
{
    struct flow_cache_header_entry *ipv4 = &cache->ipv4_entries[i].header;
    struct flow_cache_header_entry *ipv6 = &cache->ipv6_entries[i].header;
    struct flow_cache_header_entry *tnl = &cache->tnl_entries[i].header;
    struct flow_cache_header_entry *tnl6 = &cache->tnl6_entries[i].header;
    struct flow_cache_entry *e = (i < FLOW_CACHE_ENTRIES
                                  ? &cache->entries[i] : NULL);

    if (ipv4->flow && drop(ipv4->flow)) {
        flow_cache_header_entry_clear(ipv4);
    }
    if (ipv6->flow && drop(ipv6->flow)) {
        flow_cache_header_entry_clear(ipv6);
    }
    if (tnl->flow && drop(tnl->flow)) {
        flow_cache_header_entry_clear(tnl);
    }
    if (tnl6->flow && drop(tnl6->flow)) {
        flow_cache_header_entry_clear(tnl6);
    }
    if (e && e->flow && drop(e->flow)) {
        flow_cache_entry_clear(e);
    }
}

/* For flow_cache_clear_position(): every megaflow. */
static bool
flow_cache_drop_any(const struct megaflow *flow OVS_UNUSED)
{
    return true;
}

/* For flow_cache_clear_position(): removed megaflows. */
static bool
flow_cache_drop_dead(const struct megaflow *flow)
{
    return megaflow_is_dead(flow);
}

/* Drops every entry of 'cache' and the references they hold. */
void
flow_cache_flush(struct flow_cache *cache)
{
    for (size_t i = 0; i < FLOW_CACHE_HEADER_ENTRIES; i++) {
        flow_cache_clear_position(cache, i, flow_cache_drop_any);
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

/* Returns which of two candidate entries, holding 'flows' and 'hashes',
 * a new entry replaces: an empty or dead one if either is, and otherwise
 * the one whose hash is smaller (a cheap, stateless choice of victim, as
 * dpif-netdev makes). */
static int
flow_cache_victim(struct megaflow *const flows[2], const uint32_t hashes[2])
{
    for (int i = 0; i < 2; i++) {
        if (!flows[i] || megaflow_is_dead(flows[i])) {
            return i;
        }
    }
    return hashes[1] < hashes[0];
}

/* Takes a reference to 'flow' for a new cache entry and returns true, or
 * returns false if 'flow' has been removed: a sweep pass begun since its
 * removal would not look for it. */
static bool
flow_cache_ref(struct megaflow *flow)
{
    return !megaflow_is_dead(flow) && megaflow_try_ref(flow);
}

/* Caches 'flow' for the miniflow key 'key'. */
void
flow_cache_insert(struct flow_cache *cache, const struct packet_key *key,
                  struct megaflow *flow)
{
    struct flow_cache_entry *e[2] = {
        flow_cache_candidate(cache, key->hash, 0),
        flow_cache_candidate(cache, key->hash, 1),
    };
    struct megaflow *const flows[2] = { e[0]->flow, e[1]->flow };
    const uint32_t hashes[2] = { e[0]->key.hash, e[1]->key.hash };
    struct flow_cache_entry *victim = e[flow_cache_victim(flows, hashes)];

    if (flow_cache_ref(flow)) {
        flow_cache_entry_clear(victim);
        victim->flow = flow;
        packet_key_copy(&victim->key, key);
    }
}

/* Caches 'flow' for the header key 'key', in the table its 'n_words'
 * says. */
void
flow_cache_insert_header(struct flow_cache *cache,
                         const struct header_key *key, struct megaflow *flow)
{
    struct flow_cache_header_entry *e[2] = {
        flow_cache_header_candidate(cache, key, 0),
        flow_cache_header_candidate(cache, key, 1),
    };
    struct megaflow *const flows[2] = { e[0]->flow, e[1]->flow };
    const uint32_t hashes[2] = { e[0]->hash, e[1]->hash };
    struct flow_cache_header_entry *victim
        = e[flow_cache_victim(flows, hashes)];

    ovs_assert(key->n_words == HEADER_KEY_IPV4_WORDS
               || key->n_words == HEADER_KEY_IPV6_WORDS
               || key->n_words == HEADER_KEY_TNL_WORDS
               || key->n_words == HEADER_KEY_TNL6_WORDS);
    if (flow_cache_ref(flow)) {
        flow_cache_header_entry_clear(victim);
        victim->flow = flow;
        victim->hash = key->hash;
        victim->in_port = key->in_port;
        memcpy(CONST_CAST(uint64_t *, flow_cache_header_entry_words(victim)),
               key->words, key->n_words * sizeof key->words[0]);
    }
}

/* Releases a few entries whose megaflow is dead, so that removed megaflows
 * are freed even if no packet looks them up again.  'n_removed' is the
 * table's flow_table_n_removed(), read by the caller.
 *
 * A pass over the whole cache that began once the table's count read
 * 'n_removed' leaves no megaflow of those removals in the cache: it sees
 * each of them dead, and flow_cache_insert() takes no dead megaflow.  So
 * until the count moves, there is nothing to sweep, and this returns at
 * once: an idle forwarding thread's round does not walk the cache's 14 MB,
 * 8 cold entries at a time, for nothing. */
void
flow_cache_sweep(struct flow_cache *cache, uint64_t n_removed)
{
    if (!cache->sweep_pos) {
        if (n_removed == cache->swept_removed) {
            return;
        }
        cache->pass_removed = n_removed;
    }
    for (int i = 0; i < FLOW_CACHE_SWEEP_BATCH; i++) {
        flow_cache_clear_position(cache, cache->sweep_pos,
                                  flow_cache_drop_dead);
        cache->sweep_pos = (cache->sweep_pos + 1) & FLOW_CACHE_HEADER_MASK;
    }
    if (!cache->sweep_pos) {
        cache->swept_removed = cache->pass_removed;
    }
}

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
#include "flow-table.h"

#include <string.h>

#include "dpif.h"
#include "flow-stats.h"
#include "hash.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/match.h"
#include "openvswitch/vlog.h"
#include "ovs-thread.h"
#include "pvector.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(flow_table);

/* All the megaflows that share one mask. */
struct flow_subtable {
    struct cmap rules;          /* Megaflows, by hash of their masked key. */
    struct minimask *mask;      /* The mask; its map orders 'key_values'. */
    size_t n_values;            /* Number of 64-bit units in the mask. */
    size_t n_rules;             /* cmap_count(&rules), kept by writers. */
};

struct flow_table {
    struct ovs_mutex mutex;     /* Serializes all writers. */

    /* Subtables, searched in decreasing order of how many megaflows they
     * hold, a cheap proxy for how often they hit. */
    struct pvector subtables;

    struct cmap by_ufid;        /* All megaflows, by UFID. */
    size_t n_stats_slots;       /* Forwarding-thread slots per megaflow. */
};

static void megaflow_free(struct megaflow *);

static uint32_t
ufid_hash(const ovs_u128 *ufid)
{
    return ufid->u32[0];
}

/* Creates an empty table whose megaflows keep statistics for
 * 'n_stats_slots' forwarding threads. */
struct flow_table *
flow_table_create(size_t n_stats_slots)
{
    struct flow_table *table = xzalloc(sizeof *table);

    ovs_mutex_init(&table->mutex);
    pvector_init(&table->subtables);
    cmap_init(&table->by_ufid);
    table->n_stats_slots = n_stats_slots;
    return table;
}

/* Removes every megaflow from 'table' and frees it.  The caller ensures that
 * no thread can start a new lookup in it. */
void
flow_table_destroy(struct flow_table *table)
{
    if (!table) {
        return;
    }
    flow_table_flush(table);
    pvector_destroy(&table->subtables);
    cmap_destroy(&table->by_ufid);
    ovs_mutex_destroy(&table->mutex);
    free(table);
}

/* Computes into 'values' the bits of the packet key 'key' that 'subtable''s
 * mask selects, in the mask's order, and returns their hash. */
static uint32_t
subtable_mask_miniflow(const struct flow_subtable *subtable,
                       const struct miniflow *key, uint64_t *values)
{
    const uint64_t *mask = miniflow_get_values(&subtable->mask->masks);
    uint32_t hash = 0;
    uint64_t value;
    size_t i = 0;

    MINIFLOW_FOR_EACH_IN_FLOWMAP (value, key, subtable->mask->masks.map) {
        values[i] = value & mask[i];
        hash = hash_add64(hash, values[i]);
        i++;
    }
    return hash_finish(hash, i * 8);
}

/* Like subtable_mask_miniflow(), for a key held as a 'struct flow'. */
static uint32_t
subtable_mask_flow(const struct flow_subtable *subtable,
                   const struct flow *flow, uint64_t *values)
{
    const uint64_t *mask = miniflow_get_values(&subtable->mask->masks);
    const uint64_t *flow_u64 = (const uint64_t *) flow;
    uint32_t hash = 0;
    size_t idx, i = 0;

    FLOWMAP_FOR_EACH_INDEX (idx, subtable->mask->masks.map) {
        values[i] = flow_u64[idx] & mask[i];
        hash = hash_add64(hash, values[i]);
        i++;
    }
    return hash_finish(hash, i * 8);
}

/* Returns the megaflow in 'subtable' whose masked key is 'values', which
 * hash to 'hash', or NULL. */
static struct megaflow *
subtable_find(const struct flow_subtable *subtable, const uint64_t *values,
              uint32_t hash)
{
    struct megaflow *flow;

    CMAP_FOR_EACH_WITH_HASH (flow, node, hash, &subtable->rules) {
        if (!memcmp(flow->key_values, values,
                    subtable->n_values * sizeof *values)) {
            return flow;
        }
    }
    return NULL;
}

/* Returns the megaflow that matches the packet key 'key', or NULL.  Takes no
 * lock and no reference: the result stays valid until the calling thread
 * next quiesces. */
struct megaflow *
flow_table_lookup(const struct flow_table *table, const struct miniflow *key)
{
    uint64_t values[FLOW_U64S];
    struct flow_subtable *subtable;

    PVECTOR_FOR_EACH (subtable, &table->subtables) {
        uint32_t hash = subtable_mask_miniflow(subtable, key, values);
        struct megaflow *flow = subtable_find(subtable, values, hash);

        if (flow) {
            return flow;
        }
    }
    return NULL;
}

/* Returns the megaflow that matches 'flow', or NULL.  As
 * flow_table_lookup(), for a key held as a 'struct flow'. */
struct megaflow *
flow_table_lookup_flow(const struct flow_table *table, const struct flow *flow)
{
    uint64_t values[FLOW_U64S];
    struct flow_subtable *subtable;

    PVECTOR_FOR_EACH (subtable, &table->subtables) {
        uint32_t hash = subtable_mask_flow(subtable, flow, values);
        struct megaflow *megaflow = subtable_find(subtable, values, hash);

        if (megaflow) {
            return megaflow;
        }
    }
    return NULL;
}

/* Returns the megaflow with UFID 'ufid', or NULL. */
struct megaflow *
flow_table_find_ufid(const struct flow_table *table, const ovs_u128 *ufid)
{
    struct megaflow *flow;

    CMAP_FOR_EACH_WITH_HASH (flow, ufid_node, ufid_hash(ufid),
                             &table->by_ufid) {
        if (ovs_u128_equals(flow->ufid, *ufid)) {
            return flow;
        }
    }
    return NULL;
}

/* Returns the megaflow after the one 'pos' points to, advancing 'pos', or
 * NULL at the end.  Megaflows added or removed meanwhile may be missed or
 * returned, as with any cmap walk. */
struct megaflow *
flow_table_next(const struct flow_table *table, struct cmap_position *pos)
{
    struct cmap_node *node = cmap_next_position(&table->by_ufid, pos);

    return node ? CONTAINER_OF(node, struct megaflow, ufid_node) : NULL;
}

/* Returns the number of megaflows in 'table'. */
size_t
flow_table_count(const struct flow_table *table)
{
    return cmap_count(&table->by_ufid);
}

/* Returns the number of distinct masks, i.e. subtables, in 'table'. */
size_t
flow_table_n_masks(const struct flow_table *table)
{
    return pvector_count(&table->subtables);
}

void
flow_table_lock(struct flow_table *table)
    OVS_ACQUIRES(table->mutex)
{
    ovs_mutex_lock(&table->mutex);
}

void
flow_table_unlock(struct flow_table *table)
    OVS_RELEASES(table->mutex)
{
    ovs_mutex_unlock(&table->mutex);
}

/* Returns the subtable for 'wc', creating it if needed. */
static struct flow_subtable *
subtable_find_or_create(struct flow_table *table,
                        const struct flow_wildcards *wc)
    OVS_REQUIRES(table->mutex)
{
    struct minimask *mask = minimask_create(wc);
    struct flow_subtable *subtable;

    PVECTOR_FOR_EACH (subtable, &table->subtables) {
        if (minimask_equal(subtable->mask, mask)) {
            free(mask);
            return subtable;
        }
    }

    subtable = xzalloc(sizeof *subtable);
    cmap_init(&subtable->rules);
    subtable->mask = mask;
    subtable->n_values = miniflow_n_values(&mask->masks);
    pvector_insert(&table->subtables, subtable, 0);
    pvector_publish(&table->subtables);
    return subtable;
}

static void
subtable_free(struct flow_subtable *subtable)
{
    cmap_destroy(&subtable->rules);
    free(subtable->mask);
    free(subtable);
}

static struct megaflow_actions *
megaflow_actions_create(const struct nlattr *actions, size_t size)
{
    struct megaflow_actions *a = xmalloc(sizeof *a + size);

    a->size = size;
    memcpy(a->actions, actions, size);
    return a;
}

/* Describes the shape of 'subtable''s mask for 'dpctl/dump-flows -m', as
 * dpif-netdev does, so that users can compare the two. */
static char *
megaflow_format_extra_info(const struct flow_subtable *subtable)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    size_t unit;

    ds_put_cstr(&s, "miniflow_bits(");
    FLOWMAP_FOR_EACH_UNIT (unit) {
        if (unit) {
            ds_put_char(&s, ',');
        }
        ds_put_format(&s, "%d",
                      count_1bits(subtable->mask->masks.map.bits[unit]));
    }
    ds_put_char(&s, ')');
    return ds_steal_cstr(&s);
}

/* Installs a megaflow for 'match' with 'ufid' and 'actions'.  The caller has
 * checked, under the same hold of the mutex, that no megaflow matches
 * 'match->flow' already.  Returns the new megaflow, owned by the table. */
struct megaflow *
flow_table_insert(struct flow_table *table, const struct match *match,
                  const ovs_u128 *ufid, const struct nlattr *actions,
                  size_t actions_len)
    OVS_REQUIRES(table->mutex)
{
    struct flow_subtable *subtable;
    struct megaflow *flow;
    uint32_t hash;

    subtable = subtable_find_or_create(table, &match->wc);
    flow = xzalloc(sizeof *flow
                   + subtable->n_values * sizeof flow->key_values[0]);
    *CONST_CAST(ovs_u128 *, &flow->ufid) = *ufid;
    *CONST_CAST(struct flow *, &flow->flow) = match->flow;
    flow->subtable = subtable;
    flow->stats = flow_stats_create(table->n_stats_slots);
    ovs_refcount_init(&flow->ref_cnt);
    atomic_init(&flow->dead, false);
    ovsrcu_set_hidden(&flow->actions,
                      megaflow_actions_create(actions, actions_len));
    flow->extra_info = megaflow_format_extra_info(subtable);
    hash = subtable_mask_flow(subtable, &match->flow, flow->key_values);

    cmap_insert(&subtable->rules, &flow->node, hash);
    cmap_insert(&table->by_ufid, &flow->ufid_node, ufid_hash(ufid));
    subtable->n_rules++;
    pvector_change_priority(&table->subtables, subtable, subtable->n_rules);
    pvector_publish(&table->subtables);
    return flow;
}

/* Replaces 'flow''s actions.  Threads that already read the old actions
 * finish with them; they are freed after a grace period. */
void
flow_table_set_actions(struct flow_table *table OVS_UNUSED,
                       struct megaflow *flow,
                       const struct nlattr *actions, size_t actions_len)
    OVS_REQUIRES(table->mutex)
{
    const struct megaflow_actions *old = megaflow_get_actions(flow);

    ovsrcu_set(&flow->actions, megaflow_actions_create(actions, actions_len));
    ovsrcu_postpone(free, CONST_CAST(struct megaflow_actions *, old));
}

/* Removes 'flow' from 'table' and drops the table's reference to it. */
void
flow_table_remove(struct flow_table *table, struct megaflow *flow)
    OVS_REQUIRES(table->mutex)
{
    struct flow_subtable *subtable = flow->subtable;

    cmap_remove(&subtable->rules, &flow->node,
                subtable_mask_flow(subtable, &flow->flow,
                                   (uint64_t[FLOW_U64S]) { 0 }));
    cmap_remove(&table->by_ufid, &flow->ufid_node, ufid_hash(&flow->ufid));
    atomic_store_relaxed(&flow->dead, true);

    subtable->n_rules--;
    if (!subtable->n_rules) {
        pvector_remove(&table->subtables, subtable);
        ovsrcu_postpone(subtable_free, subtable);
    } else {
        pvector_change_priority(&table->subtables, subtable,
                                subtable->n_rules);
    }
    pvector_publish(&table->subtables);
    megaflow_unref(flow);
}

/* Removes every megaflow from 'table'. */
void
flow_table_flush(struct flow_table *table)
{
    struct megaflow *flow;

    ovs_mutex_lock(&table->mutex);
    CMAP_FOR_EACH (flow, ufid_node, &table->by_ufid) {
        flow_table_remove(table, flow);
    }
    ovs_mutex_unlock(&table->mutex);
}

/* Returns 'flow''s current actions, valid until the caller quiesces. */
const struct megaflow_actions *
megaflow_get_actions(const struct megaflow *flow)
{
    return ovsrcu_get(const struct megaflow_actions *, &flow->actions);
}

/* Returns true if 'flow' has been removed from its table, so that a cache
 * holding it should let it go. */
bool
megaflow_is_dead(const struct megaflow *flow_)
{
    struct megaflow *flow = CONST_CAST(struct megaflow *, flow_);
    bool dead;

    atomic_read_relaxed(&flow->dead, &dead);
    return dead;
}

/* Takes a reference to 'flow', for a cache that keeps it past the current
 * RCU grace period.  Fails if the flow is already being freed. */
bool
megaflow_try_ref(struct megaflow *flow)
{
    return ovs_refcount_try_ref_rcu(&flow->ref_cnt);
}

static void
megaflow_free(struct megaflow *flow)
{
    free(CONST_CAST(struct megaflow_actions *, megaflow_get_actions(flow)));
    flow_stats_destroy(flow->stats);
    free(flow->extra_info);
    free(flow);
}

/* Drops a reference to 'flow'; the last one frees it after a grace period.
 * Accepts NULL. */
void
megaflow_unref(struct megaflow *flow)
{
    if (flow && ovs_refcount_unref_relaxed(&flow->ref_cnt) == 1) {
        ovsrcu_postpone(megaflow_free, flow);
    }
}

/* Stores 'flow''s mask into 'wc'. */
void
megaflow_get_mask(const struct megaflow *flow, struct flow_wildcards *wc)
{
    minimask_expand(flow->subtable->mask, wc);
}

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

/* The megaflow table, shared by every thread: a tuple-space classifier. */

#include <config.h>
#include "flow-table.h"

#include <string.h>

#include "bitmap.h"
#include "dpif.h"
#include "flow-stats.h"
#include "hash.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/match.h"
#include "openvswitch/vlog.h"
#include "ovs-thread.h"
#include "pvector.h"
#include "slot-pool.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(flow_table);

/* All the megaflows that share one mask. */
struct flow_subtable {
    struct cmap rules;          /* Megaflows, by hash of their masked key. */
    struct minimask *mask;      /* The mask; its map orders the values. */
    size_t n_values;            /* Number of 64-bit units in the mask. */
    size_t values_ofs;          /* Offset of a megaflow's key values... */
    uint16_t ident_ofs;         /* ...and of its struct megaflow_ident. */
    size_t n_rules;             /* cmap_count(&rules), kept by writers. */
    char *extra_info;           /* For 'dpctl/dump-flows -m'. */
};

struct flow_table {
    struct ovs_mutex mutex;     /* Serializes all writers. */

    /* Subtables, in the order they were created.  The writers' view, and
     * the order a thread starts from before its own hit counts (struct
     * flow_table_ranking) take over.  Installing a flow does not reorder
     * it: republishing the vector on every install would cost an
     * allocation and a grace period per flow, and the threads' own
     * rankings order the search anyway. */
    struct pvector subtables;

    /* Incremented, after the pvector is published, whenever a subtable is
     * added or removed, so that threads know to rebuild their ranking. */
    atomic_uint64_t subtables_version;

    /* Megaflows removed so far, incremented (release) after each is marked
     * dead, so that a thread that reads a count (acquire) sees every
     * megaflow it counts as dead (flow_table_n_removed()). */
    atomic_uint64_t n_removed;

    struct cmap by_ufid;        /* All megaflows, by UFID. */
    size_t n_stats_slots;       /* Forwarding-thread slots per megaflow. */
    struct slot_pools *stats_pools; /* Their lines, one pool per thread. */
    size_t max_flows OVS_GUARDED; /* flow_table_install() refuses to go
                                   * beyond this many megaflows.  Under
                                   * 'mutex'. */
};

/* What dumps, flow_get and flow_del read of a megaflow, after its key
 * values, away from the lines a hit and a lookup read. */
struct megaflow_ident {
    ovs_u128 ufid;                  /* Unique flow identifier. */
    struct miniflow key;            /* The key it was installed with; its
                                     * values follow. */
};
BUILD_ASSERT_DECL(offsetof(struct megaflow_ident, key)
                  + sizeof(struct miniflow)
                  == sizeof(struct megaflow_ident));

/* A lookup prefetches a megaflow's first two lines (struct megaflow says
 * what they hold); a larger header would push key values out of them. */
BUILD_ASSERT_DECL(sizeof(struct megaflow) <= 48);

static void megaflow_free(struct megaflow *);

/* Returns the masked key values of 'flow', a megaflow of 'subtable', in the
 * mask's map order. */
static inline uint64_t *
megaflow_values(const struct flow_subtable *subtable,
                const struct megaflow *flow)
{
    return (uint64_t *) ((char *) flow + subtable->values_ofs);
}

static struct megaflow_ident *
megaflow_ident(const struct megaflow *flow)
{
    return (struct megaflow_ident *) ((char *) flow + flow->ident_ofs);
}

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
    atomic_init(&table->subtables_version, 0);
    atomic_init(&table->n_removed, 0);
    cmap_init(&table->by_ufid);
    table->n_stats_slots = n_stats_slots;
    table->stats_pools = slot_pools_create(n_stats_slots);
    ovs_mutex_lock(&table->mutex);
    table->max_flows = FLOW_TABLE_MAX_FLOWS;
    ovs_mutex_unlock(&table->mutex);
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
    slot_pools_unref(table->stats_pools);
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

/* Computes into 'values' the bits of 'flow' that 'mask' selects, in the
 * mask's order, and returns their hash, as subtable_mask_miniflow() computes
 * it for the subtable whose mask equals 'mask'. */
static uint32_t
mask_flow(const struct minimask *mask, const struct flow *flow,
          uint64_t *values)
{
    const uint64_t *mask_values = miniflow_get_values(&mask->masks);
    const uint64_t *flow_u64 = (const uint64_t *) flow;
    uint32_t hash = 0;
    size_t idx, i = 0;

    FLOWMAP_FOR_EACH_INDEX (idx, mask->masks.map) {
        values[i] = flow_u64[idx] & mask_values[i];
        hash = hash_add64(hash, values[i]);
        i++;
    }
    return hash_finish(hash, i * 8);
}

/* Returns the hash of the masked key 'values' of 'subtable', as
 * subtable_mask_miniflow() computes it. */
static uint32_t
subtable_hash_values(const struct flow_subtable *subtable,
                     const uint64_t *values)
{
    uint32_t hash = 0;

    for (size_t i = 0; i < subtable->n_values; i++) {
        hash = hash_add64(hash, values[i]);
    }
    return hash_finish(hash, subtable->n_values * 8);
}

/* Returns the megaflow in 'subtable' whose masked key is 'values', which
 * hash to 'hash', or NULL. */
static struct megaflow *
subtable_find(const struct flow_subtable *subtable, const uint64_t *values,
              uint32_t hash)
{
    struct megaflow *flow;

    CMAP_FOR_EACH_WITH_HASH (flow, node, hash, &subtable->rules) {
        if (!memcmp(megaflow_values(subtable, flow), values,
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
 * flow_table_lookup(), for a key held as a 'struct flow' (flow_put's),
 * which it turns into a miniflow first: a miniflow leaves out the zero
 * words of the flow, which subtable_mask_miniflow() reads as zeros, so the
 * masked values and their hash are those mask_flow() computes. */
struct megaflow *
flow_table_lookup_flow(const struct flow_table *table, const struct flow *flow)
{
    struct {
        struct miniflow mf;         /* The flow's nonzero words... */
        uint64_t buf[FLOW_U64S];    /* ...and the storage for them. */
    } key;

    miniflow_map_init(&key.mf, flow);
    miniflow_init(&key.mf, flow);
    return flow_table_lookup(table, &key.mf);
}

/* Returns the megaflow with UFID 'ufid', or NULL. */
struct megaflow *
flow_table_find_ufid(const struct flow_table *table, const ovs_u128 *ufid)
{
    struct megaflow *flow;

    CMAP_FOR_EACH_WITH_HASH (flow, ufid_node, ufid_hash(ufid),
                             &table->by_ufid) {
        if (ovs_u128_equals(*megaflow_ufid(flow), *ufid)) {
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

/* Tells threads that the set of subtables changed. */
static void
bump_subtables_version(struct flow_table *table)
    OVS_REQUIRES(table->mutex)
{
    uint64_t version;

    atomic_read_relaxed(&table->subtables_version, &version);
    atomic_store_explicit(&table->subtables_version, version + 1,
                          memory_order_release);
}

/* Describes the shape of 'subtable''s mask for 'dpctl/dump-flows -m', as
 * dpif-netdev does, so that users can compare the two. */
static char *
subtable_format_extra_info(const struct flow_subtable *subtable)
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

/* Offset, in a megaflow of 'table', of its masked key values: right after
 * its header and its statistics. */
static size_t
megaflow_values_ofs(const struct flow_table *table)
{
    return ROUND_UP(sizeof(struct megaflow)
                    + flow_stats_size(table->n_stats_slots),
                    sizeof(uint64_t));
}

/* Offset, in a megaflow of 'table' with 'n_values' masked key values, of its
 * struct megaflow_ident: right after the values. */
static uint16_t
megaflow_ident_ofs(const struct flow_table *table, size_t n_values)
{
    size_t ident_ofs = ROUND_UP(megaflow_values_ofs(table)
                                + n_values * sizeof(uint64_t),
                                sizeof(void *));

    ovs_assert(ident_ofs <= UINT16_MAX); /* Beyond 8,000 threads. */
    return ident_ofs;
}

/* Returns a copy of 'mask' that the caller must free(). */
static struct minimask *
minimask_copy(const struct minimask *mask)
{
    size_t n_values = miniflow_n_values(&mask->masks);
    struct minimask *copy = xmalloc(sizeof *copy
                                    + MINIFLOW_VALUES_SIZE(n_values));

    miniflow_clone(&copy->masks, &mask->masks, n_values);
    return copy;
}

/* Returns the subtable for 'mask', creating it, with a copy of 'mask', if
 * needed. */
static struct flow_subtable *
subtable_find_or_create(struct flow_table *table, const struct minimask *mask)
    OVS_REQUIRES(table->mutex)
{
    struct flow_subtable *subtable;

    PVECTOR_FOR_EACH (subtable, &table->subtables) {
        if (minimask_equal(subtable->mask, mask)) {
            return subtable;
        }
    }

    subtable = xzalloc(sizeof *subtable);
    cmap_init(&subtable->rules);
    subtable->mask = minimask_copy(mask);
    subtable->n_values = miniflow_n_values(&subtable->mask->masks);
    subtable->values_ofs = megaflow_values_ofs(table);
    subtable->ident_ofs = megaflow_ident_ofs(table, subtable->n_values);
    subtable->extra_info = subtable_format_extra_info(subtable);
    pvector_insert(&table->subtables, subtable, 0);
    pvector_publish(&table->subtables);
    bump_subtables_version(table);
    return subtable;
}

static void
subtable_free(struct flow_subtable *subtable)
{
    cmap_destroy(&subtable->rules);
    free(subtable->mask);
    free(subtable->extra_info);
    free(subtable);
}

/* Bytes that actions of 'size' bytes take: whole lines of their own.
 * Every thread that hits the flow reads them, and a line shared with memory
 * that a thread writes (a packet buffer reusing a freed chunk, say) would
 * be taken from the others at every write. */
static size_t
megaflow_actions_alloc_size(size_t size)
{
    return ROUND_UP(sizeof(struct megaflow_actions) + size, CACHE_LINE_SIZE);
}

/* Initializes 'a', which has megaflow_actions_alloc_size('size') bytes, to
 * hold 'actions'. */
static void
megaflow_actions_init(struct megaflow_actions *a,
                      const struct nlattr *actions, size_t size)
{
    const struct nlattr *attr;
    size_t left;

    dp_actions_needs_compute(actions, size, &a->needs);
    a->sets_tunnel = false;
    NL_ATTR_FOR_EACH (attr, left, actions, size) {
        a->sets_tunnel |= megaflow_action_sets_tunnel(attr);
    }
    a->size = size;
    nullable_memcpy(a->actions, actions, size); /* Drop: NULL, 0. */
}

static struct megaflow_actions *
megaflow_actions_create(const struct nlattr *actions, size_t size)
{
    struct megaflow_actions *a
        = xmalloc_cacheline(megaflow_actions_alloc_size(size));

    megaflow_actions_init(a, actions, size);
    return a;
}

/* Offset, in a megaflow whose UFID and key are at 'ident_ofs' and whose key
 * has 'key''s map, of the actions it is installed with: on lines of their
 * own after the key.  Computed, not kept: a field more in struct megaflow
 * would push the key values past the two lines a lookup prefetches. */
static size_t
megaflow_actions_ofs(size_t ident_ofs, const struct miniflow *key)
{
    return ROUND_UP(ident_ofs + sizeof(struct megaflow_ident)
                    + MINIFLOW_VALUES_SIZE(miniflow_n_values(key)),
                    CACHE_LINE_SIZE);
}

/* Returns the actions that 'flow' was installed with, in its own
 * allocation. */
static const struct megaflow_actions *
megaflow_first_actions(const struct megaflow *flow)
{
    return (const struct megaflow_actions *) (
        (const char *) flow
        + megaflow_actions_ofs(flow->ident_ofs, &megaflow_ident(flow)->key));
}

/* Frees 'a', actions of 'flow', unless they are those 'flow' was installed
 * with, which its own allocation holds. */
static void
megaflow_actions_free(const struct megaflow *flow,
                      const struct megaflow_actions *a)
{
    if (a != megaflow_first_actions(flow)) {
        free_cacheline(CONST_CAST(struct megaflow_actions *, a));
    }
}

/* Sets the most megaflows 'table' holds to 'max_flows', capped at
 * FLOW_TABLE_MAX_FLOWS.  Megaflows already beyond it stay until they are
 * removed (the revalidators remove idle flows quickly when the datapath is
 * over ofproto's limit); only new ones are refused.  Returns the limit
 * applied. */
size_t
flow_table_set_max(struct flow_table *table, size_t max_flows)
{
    max_flows = MIN(max_flows, FLOW_TABLE_MAX_FLOWS);
    ovs_mutex_lock(&table->mutex);
    table->max_flows = max_flows;
    ovs_mutex_unlock(&table->mutex);
    return max_flows;
}

/* Builds into 'draft' a megaflow of 'table' for 'match' with 'ufid' and
 * 'actions', whose statistics slot is taken at once for thread 'installer'
 * (if nonzero), ready for flow_table_install().  Takes no lock of the
 * table: the allocations and copies happen here, not while other writers
 * wait for the table's mutex.  The caller destroys 'draft' afterwards
 * (megaflow_draft_destroy()), installed or not. */
void
megaflow_draft_build(struct megaflow_draft *draft,
                     const struct flow_table *table, const struct match *match,
                     const ovs_u128 *ufid, const struct nlattr *actions,
                     size_t actions_len, size_t installer)
{
    struct miniflow key_map;
    size_t n_values, actions_ofs;
    struct megaflow_actions *first_actions;
    struct megaflow_ident *ident;
    struct megaflow *flow;
    uint16_t ident_ofs;

    BUILD_ASSERT_DECL(offsetof(struct megaflow_draft, mask_values)
                      == (offsetof(struct megaflow_draft, mask)
                          + sizeof(struct minimask)));
    miniflow_map_init(&draft->mask.masks, &match->wc.masks);
    minimask_init(&draft->mask, &match->wc);
    n_values = miniflow_n_values(&draft->mask.masks);
    ident_ofs = megaflow_ident_ofs(table, n_values);

    miniflow_map_init(&key_map, &match->flow);
    actions_ofs = megaflow_actions_ofs(ident_ofs, &key_map);

    /* One allocation of whole lines, laid out as struct megaflow says: one
     * call into the allocator per megaflow, not four. */
    flow = xzalloc_cacheline(actions_ofs
                             + megaflow_actions_alloc_size(actions_len));
    flow->ident_ofs = ident_ofs;
    ident = megaflow_ident(flow);
    ident->ufid = *ufid;
    ident->key.map = key_map.map;
    miniflow_init(&ident->key, &match->flow);
    flow->stats = (struct flow_stats *) (flow + 1);
    flow_stats_init(flow->stats, table->n_stats_slots, table->stats_pools,
                    installer);
    ovs_refcount_init(&flow->ref_cnt);
    atomic_init(&flow->dead, false);
    first_actions = (struct megaflow_actions *) ((char *) flow + actions_ofs);
    megaflow_actions_init(first_actions, actions, actions_len);
    ovsrcu_set_hidden(&flow->actions, first_actions);

    draft->flow = flow;
    draft->hash = mask_flow(&draft->mask, &match->flow,
                            (uint64_t *) ((char *) flow
                                          + megaflow_values_ofs(table)));
}

/* Frees what 'draft' still holds: its megaflow, unless flow_table_install()
 * installed it.  Accepts a draft that holds none ('flow' NULL). */
void
megaflow_draft_destroy(struct megaflow_draft *draft)
{
    if (draft->flow) {
        megaflow_free(draft->flow); /* Never published: no grace period. */
        draft->flow = NULL;
    }
}

/* Installs the megaflow that 'draft' holds (megaflow_draft_build(), for
 * this table).  The caller has checked, under the same hold of the mutex,
 * that no megaflow matches the draft's key already.  Returns the megaflow,
 * now owned by the table (the draft no longer holds it), or NULL,
 * installing nothing, if the table already holds its maximum
 * (flow_table_set_max()). */
struct megaflow *
flow_table_install(struct flow_table *table, struct megaflow_draft *draft)
    OVS_REQUIRES(table->mutex)
{
    struct megaflow *flow = draft->flow;
    struct flow_subtable *subtable;

    if (cmap_count(&table->by_ufid) >= table->max_flows) {
        return NULL;
    }

    subtable = subtable_find_or_create(table, &draft->mask);
    flow->subtable = subtable;
    cmap_insert(&subtable->rules, &flow->node, draft->hash);
    cmap_insert(&table->by_ufid, &flow->ufid_node,
                ufid_hash(&megaflow_ident(flow)->ufid));
    subtable->n_rules++;
    draft->flow = NULL;
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
    if (old != megaflow_first_actions(flow)) {
        /* The first actions live as long as 'flow'. */
        ovsrcu_postpone(free_cacheline,
                        CONST_CAST(struct megaflow_actions *, old));
    }
}

/* Counts a megaflow just marked dead in 'table''s 'n_removed'. */
static void
count_removal(struct flow_table *table)
    OVS_REQUIRES(table->mutex)
{
    uint64_t n;

    atomic_read_relaxed(&table->n_removed, &n);
    atomic_store_explicit(&table->n_removed, n + 1, memory_order_release);
}

/* Returns how many megaflows have been removed from 'table' so far.  Every
 * megaflow the count covers is seen dead (megaflow_is_dead()) by the
 * calling thread after this returns. */
uint64_t
flow_table_n_removed(const struct flow_table *table_)
{
    struct flow_table *table = CONST_CAST(struct flow_table *, table_);
    uint64_t n;

    atomic_read_explicit(&table->n_removed, &n, memory_order_acquire);
    return n;
}

/* Removes 'flow' from 'table' and drops the table's reference to it. */
void
flow_table_remove(struct flow_table *table, struct megaflow *flow)
    OVS_REQUIRES(table->mutex)
{
    struct flow_subtable *subtable = flow->subtable;

    cmap_remove(&subtable->rules, &flow->node,
                subtable_hash_values(subtable,
                                     megaflow_values(subtable, flow)));
    cmap_remove(&table->by_ufid, &flow->ufid_node,
                ufid_hash(megaflow_ufid(flow)));
    atomic_store_relaxed(&flow->dead, true);
    count_removal(table);

    subtable->n_rules--;
    if (!subtable->n_rules) {
        pvector_remove(&table->subtables, subtable);
        pvector_publish(&table->subtables);
        bump_subtables_version(table);
        /* A thread may still hold it in its ranking until it quiesces; it
         * rebuilds the ranking before its next lookup. */
        ovsrcu_postpone(subtable_free, subtable);
    }
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

/* Most 64-bit words a subtable's mask may have for its lookups to use a
 * key shape (struct key_shape); wider masks take subtable_mask_miniflow()'s
 * generic walk.  Sixteen is well above the usual megaflow's five to ten. */
#define KEY_SHAPE_MAX_VALUES 16

/* Key shapes remembered per subtable and thread: two, so that traffic of two
 * kinds (say TCP, whose keys carry TCP flags, and UDP) does not make a
 * thread relearn a shape at every packet. */
#define KEY_SHAPES 2

/* Where a subtable's mask finds its words in the keys of one shape, that
 * is, with one miniflow map.  subtable_mask_miniflow() walks the mask's map
 * and the key's together for every key, with a population count for each
 * unit of the map; the keys of a flow's traffic nearly all have the same
 * map, so a thread learns, once per map, where each masked word is among
 * the key's values, and then reads them directly (subtable_mask_shaped()).
 * The equivalent of dpif-netdev's lookup functions specialised for
 * miniflow shapes, learnt at run time.  Owned by one thread, in its
 * ranking. */
struct key_shape {
    struct flowmap map;         /* The key's map; empty when never learnt. */
    uint8_t pos[KEY_SHAPE_MAX_VALUES]; /* For the mask's word i, 1 + its
                                 * index among the key's values, or 0 if
                                 * keys of this map lack it (reads 0). */
};
BUILD_ASSERT_DECL(FLOW_U64S < UINT8_MAX);

/* One forwarding thread's order of search over a table's subtables, by the
 * hits that thread itself counted, as dpif-netdev ranks the subtables of a
 * PMD thread's classifier.  Only its owner reads or writes it. */
struct flow_table_ranking {
    uint64_t version;           /* Table 'subtables_version' it mirrors. */
    size_t n;                   /* Number of subtables. */
    size_t allocated;           /* Allocated elements of 'entries'. */
    struct ranked_subtable {
        struct flow_subtable *subtable;
        uint64_t hits;          /* Hits since the last sort, decayed. */
        struct key_shape shapes[KEY_SHAPES]; /* Learnt key shapes. */
        unsigned int next_shape; /* The one a new shape replaces. */
    } *entries;
};

/* Learns into 'shape' where the words of 'subtable''s mask are among the
 * values of a key with the map of 'key'. */
static void
key_shape_learn(struct key_shape *shape,
                const struct flow_subtable *subtable,
                const struct miniflow *key)
{
    size_t idx, i = 0;

    FLOWMAP_FOR_EACH_INDEX (idx, subtable->mask->masks.map) {
        size_t unit = idx / MAP_T_BITS;
        size_t before = 0;

        if (flowmap_is_set(&key->map, idx)) {
            for (size_t u = 0; u < unit; u++) {
                before += count_1bits(key->map.bits[u]);
            }
            before += count_1bits(key->map.bits[unit]
                                  & ((MAP_1 << (idx % MAP_T_BITS)) - 1));
            shape->pos[i] = before + 1;
        } else {
            shape->pos[i] = 0;
        }
        i++;
    }
    shape->map = key->map;
}

/* Returns the shape of 'rs' for the map of 'key', learning it if 'rs' does
 * not know it yet, or NULL if 'rs''s subtable is too wide for shapes. */
static inline const struct key_shape *
ranked_key_shape(struct ranked_subtable *rs, const struct miniflow *key)
{
    struct key_shape *shape;

    if (OVS_UNLIKELY(rs->subtable->n_values > KEY_SHAPE_MAX_VALUES)) {
        return NULL;
    }
    for (size_t i = 0; i < KEY_SHAPES; i++) {
        if (flowmap_equal(rs->shapes[i].map, key->map)
            && !flowmap_is_empty(key->map)) {
            return &rs->shapes[i];
        }
    }
    shape = &rs->shapes[rs->next_shape];
    rs->next_shape = (rs->next_shape + 1) % KEY_SHAPES;
    key_shape_learn(shape, rs->subtable, key);
    return shape;
}

/* As subtable_mask_miniflow(), for a key whose map is that of 'shape':
 * the same values and the same hash, without walking the maps. */
static inline uint32_t
subtable_mask_shaped(const struct flow_subtable *subtable,
                     const struct key_shape *shape,
                     const struct miniflow *key, uint64_t *values)
{
    const uint64_t *mask = miniflow_get_values(&subtable->mask->masks);
    const uint64_t *key_values = miniflow_get_values(key);
    size_t n = subtable->n_values;
    uint32_t hash = 0;

    for (size_t i = 0; i < n; i++) {
        uint8_t pos = shape->pos[i];
        uint64_t value = pos ? key_values[pos - 1] : 0;

        values[i] = value & mask[i];
        hash = hash_add64(hash, values[i]);
    }
    return hash_finish(hash, n * 8);
}

/* Creates an empty ranking for one thread's use. */
struct flow_table_ranking *
flow_table_ranking_create(void)
{
    struct flow_table_ranking *r = xzalloc(sizeof *r);

    r->version = UINT64_MAX;    /* Matches no table: rebuilt on first use. */
    return r;
}

/* Frees 'r'.  Accepts NULL. */
void
flow_table_ranking_destroy(struct flow_table_ranking *r)
{
    if (r) {
        free(r->entries);
        free(r);
    }
}

/* Makes 'r' list the subtables of 'table' afresh, in the table's order, if
 * the set of subtables changed since 'r' was built. */
static void
ranking_refresh(struct flow_table_ranking *r, const struct flow_table *table)
{
    struct flow_subtable *subtable;
    uint64_t version;

    atomic_read_explicit(&CONST_CAST(struct flow_table *, table)
                         ->subtables_version, &version, memory_order_acquire);
    if (OVS_LIKELY(version == r->version)) {
        return;
    }
    r->n = 0;
    PVECTOR_FOR_EACH (subtable, &table->subtables) {
        if (r->n >= r->allocated) {
            r->entries = x2nrealloc(r->entries, &r->allocated,
                                    sizeof *r->entries);
        }
        r->entries[r->n++] = (struct ranked_subtable) {
            .subtable = subtable,
        };
    }
    r->version = version;
}

/* Like flow_table_lookup(), searching the subtables in the order of the
 * calling thread's ranking 'r', and counting the hit there. */
struct megaflow *
flow_table_lookup_ranked(const struct flow_table *table,
                         struct flow_table_ranking *r,
                         const struct miniflow *key)
{
    uint64_t values[FLOW_U64S];

    ranking_refresh(r, table);
    for (size_t i = 0; i < r->n; i++) {
        struct flow_subtable *subtable = r->entries[i].subtable;
        uint32_t hash = subtable_mask_miniflow(subtable, key, values);
        struct megaflow *flow = subtable_find(subtable, values, hash);

        if (flow) {
            r->entries[i].hits++;
            return flow;
        }
    }
    return NULL;
}

/* Looks up, for each bit i set in '*map', the megaflow that matches the
 * packet key 'keys[i]', storing it in 'flows[i]' and clearing the bit.  The
 * bits of keys that nothing matches stay set.  The subtables are searched
 * in the calling thread's ranking 'r'.
 *
 * The whole batch goes through one subtable before the next, so that the
 * hash buckets of all its keys are fetched from memory together
 * (cmap_find_batch() prefetches them) and then the candidate flows
 * together, instead of one cache miss after another. */
void
flow_table_lookup_batch(const struct flow_table *table,
                        struct flow_table_ranking *r,
                        const struct miniflow *keys[], unsigned long *map,
                        struct megaflow *flows[])
{
    uint64_t values[FLOW_TABLE_MAX_BATCH][FLOW_U64S];
    const struct cmap_node *nodes[FLOW_TABLE_MAX_BATCH];
    uint32_t hashes[FLOW_TABLE_MAX_BATCH];

    ovs_assert(!(*map >> (FLOW_TABLE_MAX_BATCH - 1) >> 1));
    ranking_refresh(r, table);
    for (size_t i = 0; i < r->n && *map; i++) {
        struct ranked_subtable *rs = &r->entries[i];
        struct flow_subtable *subtable = rs->subtable;
        size_t values_size = subtable->n_values * sizeof values[0][0];
        unsigned long found;
        size_t j;

        ULLONG_FOR_EACH_1 (j, *map) {
            const struct key_shape *shape = ranked_key_shape(rs, keys[j]);

            hashes[j] = (OVS_LIKELY(shape)
                         ? subtable_mask_shaped(subtable, shape, keys[j],
                                                values[j])
                         : subtable_mask_miniflow(subtable, keys[j],
                                                  values[j]));
        }
        found = cmap_find_batch(&subtable->rules, *map, hashes, nodes);
        ULLONG_FOR_EACH_1 (j, found) {
            OVS_PREFETCH(nodes[j]);
            OVS_PREFETCH((const char *) nodes[j] + CACHE_LINE_SIZE);
        }
        ULLONG_FOR_EACH_1 (j, found) {
            struct megaflow *flow;

            CMAP_NODE_FOR_EACH (flow, node, nodes[j]) {
                if (OVS_LIKELY(!memcmp(megaflow_values(subtable, flow),
                                       values[j],
                                       values_size))) {
                    flows[j] = flow;
                    goto next;
                }
            }
            found &= ~(1UL << j);   /* Same hash, another key. */
        next:;
        }
        r->entries[i].hits += count_1bits(found);
        *map &= ~found;
    }
}

static int
compare_ranked_hits(const void *a_, const void *b_)
{
    const struct ranked_subtable *a = a_, *b = b_;

    return a->hits > b->hits ? -1 : a->hits < b->hits;
}

/* Reorders 'r' by decreasing hits and halves the hits, so that the order
 * follows recent traffic.  The owning thread calls it now and then. */
void
flow_table_ranking_sort(struct flow_table_ranking *r)
{
    qsort(r->entries, r->n, sizeof *r->entries, compare_ranked_hits);
    for (size_t i = 0; i < r->n; i++) {
        r->entries[i].hits /= 2;
    }
}

/* Returns 'flow''s current actions, valid until the caller quiesces. */
const struct megaflow_actions *
megaflow_get_actions(const struct megaflow *flow)
{
    return ovsrcu_get(const struct megaflow_actions *, &flow->actions);
}


/* Returns 'flow''s unique flow identifier. */
const ovs_u128 *
megaflow_ufid(const struct megaflow *flow)
{
    return &megaflow_ident(flow)->ufid;
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
    megaflow_actions_free(flow, megaflow_get_actions(flow));
    flow_stats_uninit(flow->stats);
    free_cacheline(flow);
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

/* Stores into 'key' the key 'flow' was installed with. */
void
megaflow_get_key(const struct megaflow *flow, struct flow *key)
{
    miniflow_expand(&megaflow_ident(flow)->key, key);
}

/* Describes 'flow''s mask as dpif-netdev's 'dp-extra-info' does.  Valid
 * until the caller quiesces. */
const char *
megaflow_extra_info(const struct megaflow *flow)
{
    return flow->subtable->extra_info;
}

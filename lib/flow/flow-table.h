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

#ifndef FLOW_TABLE_H
#define FLOW_TABLE_H 1

/* The megaflow table: one per datapath, shared by every forwarding thread.
 *
 * It is a tuple-space classifier: one subtable per distinct mask, each a
 * cmap of the megaflows with that mask, keyed by the hash of their masked
 * key.  Readers (the forwarding threads) look flows up lock-free under RCU
 * and take no reference.  Writers (upcalls, flow_put, flow_del, flush) hold
 * the table's mutex.  A removed megaflow is freed only after an RCU grace
 * period and after every exact-match cache has dropped its reference.
 *
 * Unlike OVS's dpif-netdev, which keeps one table per PMD thread, a megaflow
 * here exists once however many threads hit it: it is upcalled, installed,
 * revalidated and stored once.  What stays per thread is the order in which
 * a thread searches the subtables: each ranks them by its own hits. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmap.h"
#include "dp-actions-guard.h"
#include "flow.h"
#include "netlink.h"
#include "odp-netlink.h"
#include "openvswitch/types.h"
#include "ovs-atomic.h"
#include "ovs-rcu.h"
#include "util.h"

struct flow_stats;
struct flow_subtable;
struct flow_table;
struct match;
struct nlattr;

/* A megaflow's actions.  Replaced as a whole, under RCU, by a modify. */
struct megaflow_actions {
    struct dp_actions_needs needs; /* What a packet must hold for them. */
    bool sets_tunnel;           /* Has a top-level set(tunnel())? */
    unsigned int size;          /* Size of 'actions', in bytes. */
    struct nlattr actions[];    /* Datapath actions, as Netlink attributes. */
};

/* Returns true if 'a', an action of a list, is set(tunnel(...)), which
 * dp-actions executes itself, parsing it once for a batch where OVS's
 * odp_execute_actions() parses it for every packet. */
static inline bool
megaflow_action_sets_tunnel(const struct nlattr *a)
{
    return (nl_attr_type(a) == OVS_ACTION_ATTR_SET
            && nl_attr_get_size(a) >= NLA_HDRLEN
            && nl_attr_type(nl_attr_get(a)) == OVS_KEY_ATTR_TUNNEL);
}

/* One installed megaflow.  Everything but 'actions', 'dead' and the
 * reference count is fixed at creation.
 *
 * One cache-aligned allocation holds, in order: this header, the flow's
 * statistics ('stats': the slot pointers, not the slots), its masked key
 * values, its UFID and installed key, which only dumps, flow_get and
 * flow_del read (megaflow_ufid(), megaflow_get_key()), and, on lines of
 * their own, the actions it was installed with ('actions' points there
 * until flow_table_set_actions() replaces them).  A hit reads the
 * header and its thread's slot pointer, a lookup the header and the key
 * values: with up to 3 threads' slots and 5 key values (a 5-tuple's mask),
 * both fit the first two lines, which flow_table_lookup_batch()
 * prefetches. */
struct megaflow {
    struct cmap_node node;          /* In its subtable, by masked-key hash. */
    struct flow_subtable *subtable; /* Its mask's subtable. */
    OVSRCU_TYPE(const struct megaflow_actions *) actions;
    struct flow_stats *stats;       /* Per-thread statistics, right after
                                     * this header. */
    struct ovs_refcount ref_cnt;    /* The table's reference, and caches'. */
    atomic_bool dead;               /* Removed from the table? */
    uint16_t ident_ofs;             /* Offset of the UFID and key, kept here
                                     * because a flow can outlive its
                                     * subtable in the threads' caches. */
    struct cmap_node ufid_node;     /* In the table's UFID map. */
};

struct flow_table *flow_table_create(size_t n_stats_slots);
void flow_table_destroy(struct flow_table *);

/* Starts fetching the two lines of 'flow' that a hit reads (struct
 * megaflow says what they hold), without reading 'flow'. */
static inline void
megaflow_prefetch_hit(const struct megaflow *flow)
{
    OVS_PREFETCH(flow);
    OVS_PREFETCH((const char *) flow + CACHE_LINE_SIZE);
}

/* Readers: lock-free, under RCU. */
struct megaflow *flow_table_lookup(const struct flow_table *,
                                   const struct miniflow *key);
struct megaflow *flow_table_lookup_flow(const struct flow_table *,
                                        const struct flow *);
struct megaflow *flow_table_find_ufid(const struct flow_table *,
                                      const ovs_u128 *ufid);
struct megaflow *flow_table_next(const struct flow_table *,
                                 struct cmap_position *);
size_t flow_table_count(const struct flow_table *);
uint64_t flow_table_n_removed(const struct flow_table *);
size_t flow_table_n_masks(const struct flow_table *);

/* A forwarding thread's own search order over the subtables, by its own
 * hits.  Owned and used by one thread only. */
struct flow_table_ranking;
struct flow_table_ranking *flow_table_ranking_create(void);
void flow_table_ranking_destroy(struct flow_table_ranking *);
struct megaflow *flow_table_lookup_ranked(const struct flow_table *,
                                          struct flow_table_ranking *,
                                          const struct miniflow *key);
void flow_table_ranking_sort(struct flow_table_ranking *);

/* Most keys flow_table_lookup_batch() takes at once: a receive batch. */
#define FLOW_TABLE_MAX_BATCH 32
void flow_table_lookup_batch(const struct flow_table *,
                             struct flow_table_ranking *,
                             const struct miniflow *keys[],
                             unsigned long *map, struct megaflow *flows[]);

/* The most megaflows a table ever holds, whatever other_config:flow-limit
 * says: 2^20, 5.2 times OVS's default flow-limit of 200,000.  dpif-netdev
 * caps each PMD thread's table at 65,536 flows; ours is shared by every
 * thread, so one cap for the table plays that role. */
#define FLOW_TABLE_MAX_FLOWS ((size_t) 1 << 20)

/* A Netlink flow key cannot wildcard the presence of a VLAN tag: a key
 * without one matches only untagged packets.  Every megaflow installed
 * (an upcall's, flow_put's) has its mask set so, as dpif_netdev_flow_put()
 * does.  Any thread, on a mask it owns. */
static inline void
megaflow_mask_vlan_presence(struct flow_wildcards *wc)
{
    if (!wc->masks.vlans[0].tci) {
        wc->masks.vlans[0].tci = htons(VLAN_VID_MASK | VLAN_CFI);
    }
}

/* Writers. */
size_t flow_table_set_max(struct flow_table *, size_t max_flows);
void flow_table_lock(struct flow_table *);
void flow_table_unlock(struct flow_table *);

/* A megaflow built before the table's mutex is taken, so that two writers
 * installing at once wait for each other only while the megaflow is linked
 * in, not while it is allocated and filled. */
struct megaflow_draft {
    struct megaflow *flow;      /* In no table yet; NULL once installed. */
    uint32_t hash;              /* Of its masked key values. */

    /* Its mask, which a new subtable copies.  Kept here rather than
     * allocated: most drafts find their mask's subtable. */
    struct minimask mask;
    uint64_t mask_values[FLOW_U64S]; /* 'mask''s values: must follow it. */
};
void megaflow_draft_build(struct megaflow_draft *, const struct flow_table *,
                          const struct match *, const ovs_u128 *ufid,
                          const struct nlattr *actions, size_t actions_len,
                          size_t installer);
void megaflow_draft_destroy(struct megaflow_draft *);
struct megaflow *flow_table_install(struct flow_table *,
                                    struct megaflow_draft *);
void flow_table_set_actions(struct flow_table *, struct megaflow *,
                            const struct nlattr *actions, size_t actions_len);
void flow_table_remove(struct flow_table *, struct megaflow *);
void flow_table_flush(struct flow_table *);

/* Megaflows. */
const struct megaflow_actions *megaflow_get_actions(const struct megaflow *);
const ovs_u128 *megaflow_ufid(const struct megaflow *);
bool megaflow_try_ref(struct megaflow *);
void megaflow_unref(struct megaflow *);
void megaflow_get_mask(const struct megaflow *, struct flow_wildcards *);
void megaflow_get_key(const struct megaflow *, struct flow *);
const char *megaflow_extra_info(const struct megaflow *);

/* Returns true if 'flow' has been removed from its table, so that a cache
 * holding it should let it go.  Inline: every exact-match hit asks. */
static inline bool
megaflow_is_dead(const struct megaflow *flow_)
{
    struct megaflow *flow = CONST_CAST(struct megaflow *, flow_);
    bool dead;

    atomic_read_relaxed(&flow->dead, &dead);
    return dead;
}

#endif /* flow-table.h */

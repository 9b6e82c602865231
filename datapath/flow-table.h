/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A datapath's megaflow table: masks, a hash table per mask, a UFID table,
 * and an index of every flow for dumps and flushes.
 *
 * Contract:
 * - Writers (insert, remove, flush, mask-cache resize) hold ovsp_lock().
 * - The packet path calls ovsp_flow_table_lookup() under RCU in softirq
 *   (or with BHs off): it reads the masks array and the per-mask tables
 *   without locks and writes only this CPU's mask-cache entries.
 * - A flow removed from the table stays valid until an RCU grace period
 *   has passed; its memory, actions and stats are freed by call_rcu.
 * - Every flow has a dense 'index' in an xarray; dumps resume from the
 *   index after the last flow sent, so a dump needs no lock between
 *   messages and survives concurrent changes (a flow may then be missed or
 *   seen twice, as with the kernel's own datapath).
 * - Bounded: at most OVSP_FLOW_TABLE_MAX_FLOWS flows and
 *   OVSP_FLOW_TABLE_MAX_MASKS masks; an insert past either is refused
 *   with -E2BIG and counted (ovsp_flow_table_n_refused()).
 */
#ifndef OVSP_FLOW_TABLE_H
#define OVSP_FLOW_TABLE_H 1

#include <linux/rhashtable-types.h>
#include <linux/types.h>

#include "flow-actions.h"
#include "flow-key.h"

struct ovsp_flow_stats;
struct ovsp_flow_table;
struct ovsp_flow_mask;

/* Largest flow table, and most masks, one datapath holds. */
#define OVSP_FLOW_TABLE_MAX_FLOWS (1U << 20)
#define OVSP_FLOW_TABLE_MAX_MASKS 16384

/* Default entries of the per-CPU masks cache, as the kernel's, and the
 * largest accepted (the per-CPU allocator's unit bounds it).
 */
#define OVSP_MASK_CACHE_DEFAULT 256
#define OVSP_MASK_CACHE_MAX 4096

/* Longest UFID (OVS_FLOW_ATTR_UFID), in bytes. */
#define OVSP_UFID_MAX_LEN 16

/* A flow's unique identifier from userspace; len 0 means "none", and the
 * flow is then known by its key as it was put (its 'unmasked' key), as in
 * the kernel's datapath.
 */
struct ovsp_flow_ufid {
	u32 len;			/* 0..OVSP_UFID_MAX_LEN. */
	u8 id[OVSP_UFID_MAX_LEN];	/* Zero-padded after 'len'. */
};

/* One megaflow.  Immutable once inserted, but for 'acts' (replaced under
 * ovsp_lock, freed after RCU) and the stats (flow-stats.h).
 */
struct ovsp_flow {
	struct rhash_head mask_node;	/* In its mask's table. */
	struct rhash_head ufid_node;	/* In the UFID table, if it has one. */
	struct rcu_head rcu;		/* Deferred free. */
	u32 index;			/* In the table's flow index. */
	struct ovsp_flow_mask *mask;	/* Its (shared) mask. */
	struct ovsp_flow_ufid ufid;	/* Its identifier. */
	struct ovsp_actions __rcu *acts;	/* What to do with hits. */
	struct ovsp_flow_stats *stats;	/* Per-CPU hit counts. */
	struct ovsp_flow_key *unmasked;	/* Without a UFID: the key as put,
					 * its identifier; else NULL.
					 */
	struct ovsp_flow_key key;	/* Masked key; hashed over the mask's
					 * range.  Last: it is large.
					 */
};

/* Creates and destroys a table (process context).  Destroy frees every
 * flow after RCU.
 */
struct ovsp_flow_table *ovsp_flow_table_create(void);
void ovsp_flow_table_destroy(struct ovsp_flow_table *table);

/* Packet path: the flow that 'key' hits, or NULL.  Adds to '*n_mask_hit'
 * the masks probed, and sets '*cache_hit' if the masks cache found it.
 * 'skb_hash' (0: none) indexes the masks cache.
 */
struct ovsp_flow *ovsp_flow_table_lookup(struct ovsp_flow_table *table,
					 const struct ovsp_flow_key *key,
					 u32 skb_hash, u32 *n_mask_hit,
					 bool *cache_hit);

/* Control path (ovsp_lock): the flow with 'ufid'; the flow without a UFID
 * that was put with key 'unmasked' (whatever its mask, as the kernel's
 * exact lookup); or NULL.  Neither is a packet's lookup: a flow that
 * merely matches the key is not found.
 */
struct ovsp_flow *ovsp_flow_table_find_ufid(struct ovsp_flow_table *table,
					    const struct ovsp_flow_ufid *ufid);
struct ovsp_flow *
ovsp_flow_table_find_unmasked(struct ovsp_flow_table *table,
			      const struct ovsp_flow_key *unmasked);

/* True if a NEW with key 'unmasked', whose mask covers 'range', names
 * 'flow' as the kernel's ovs_flow_cmp() has it: a flow with a UFID if its
 * masked key is 'unmasked' over 'range', a flow without one if it was put
 * with 'unmasked'.
 */
bool ovsp_flow_named_by_key(const struct ovsp_flow *flow,
			    const struct ovsp_flow_key *unmasked,
			    const struct ovsp_key_range *range);

/* True if 'flow' has the masked key of 'match' (whatever the masks: the
 * key that actions are validated against).
 */
bool ovsp_flow_key_equal(const struct ovsp_flow *flow,
			 const struct ovsp_flow_match *match);

/* Allocates a flow for 'match' with 'ufid' (may be NULL) and 'acts' (which
 * it takes over), not yet in any table; without a UFID, 'unmasked' (the
 * key as put) becomes its identifier.  Returns NULL on allocation failure
 * (and frees 'acts').
 */
struct ovsp_flow *ovsp_flow_alloc(const struct ovsp_flow_match *match,
				  const struct ovsp_flow_key *unmasked,
				  const struct ovsp_flow_ufid *ufid,
				  struct ovsp_actions *acts);
/* Frees a flow that was never inserted. */
void ovsp_flow_free(struct ovsp_flow *flow);

/* Inserts 'flow' with the mask of 'match'.  Returns 0, -E2BIG if a limit
 * was reached, -EEXIST if a flow with the same mask and masked key or the
 * same UFID exists, or -ENOMEM.  On error the flow is not freed.
 */
int ovsp_flow_table_insert(struct ovsp_flow_table *table,
			   struct ovsp_flow *flow,
			   const struct ovsp_flow_match *match);

/* Removes 'flow' and frees it after RCU. */
void ovsp_flow_table_remove(struct ovsp_flow_table *table,
			    struct ovsp_flow *flow);

/* Removes every flow. */
void ovsp_flow_table_flush(struct ovsp_flow_table *table);

/* Replaces the actions of 'flow' with 'acts'; frees the old ones after
 * RCU.
 */
void ovsp_flow_set_actions(struct ovsp_flow *flow, struct ovsp_actions *acts);

/* For dumps, under RCU: the first flow whose index is at least '*index',
 * setting '*index' to its index, or NULL at the end.
 */
struct ovsp_flow *ovsp_flow_table_next(struct ovsp_flow_table *table,
				       unsigned long *index);

/* The mask of 'flow' (a key whose set bits are matched). */
const struct ovsp_flow_key *ovsp_flow_mask_key(const struct ovsp_flow *flow);

/* Counts. */
u32 ovsp_flow_table_n_flows(const struct ovsp_flow_table *table);
u32 ovsp_flow_table_n_masks(const struct ovsp_flow_table *table);
u64 ovsp_flow_table_n_refused(const struct ovsp_flow_table *table);

/* The masks cache: entries per CPU (0 turns it off).  Set returns 0,
 * -EINVAL for a size that is not a power of two, -ERANGE above
 * OVSP_MASK_CACHE_MAX, or -ENOMEM.
 */
u32 ovsp_flow_table_mask_cache_size(const struct ovsp_flow_table *table);
int ovsp_flow_table_set_mask_cache_size(struct ovsp_flow_table *table,
					u32 size);

/* Module init and exit (the flow cache). */
int ovsp_flow_table_init(void);
void ovsp_flow_table_exit(void);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * The megaflow table: see flow-table.h for the contract.
 *
 * Layout: an RCU-published array of masks; each mask owns an rhashtable of
 * the flows that use it, keyed by the bytes of the masked key inside the
 * mask's range.  A packet is looked up by masking its key with each mask
 * in turn (the per-CPU masks cache first tries the mask that last matched
 * a packet with the same skb hash on this CPU).  The UFID table is another
 * rhashtable; the xarray of all flows serves dumps and flushes.
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "flow-stats.h"
#include "flow-table.h"

/* One mask and the flows that use it. */
struct ovsp_flow_mask {
	u32 n_flows;			/* Flows using it (ovsp_lock). */
	u32 index;			/* Its slot in the masks array. */
	struct rhashtable flows;	/* Its flows, by masked key. */
	struct rhashtable_params params;	/* How 'flows' hashes. */
	struct rcu_work free_work;	/* Deferred destruction. */
	struct ovsp_key_range range;	/* Bytes of 'key' that may be
					 * non-zero.
					 */
	struct ovsp_flow_key key;	/* The mask itself. */
};

/* The masks, published by RCU; empty slots are NULL. */
struct mask_array {
	struct rcu_head rcu;		/* Deferred free after a resize. */
	u32 max;			/* Slots in 'masks'. */
	struct ovsp_flow_mask __rcu *masks[];
};

/* One entry of a CPU's masks cache: the mask that last matched a packet
 * with this skb hash.
 */
struct mask_cache_entry {
	u32 skb_hash;			/* 0: empty. */
	u32 mask_index;			/* In the masks array. */
};

/* The per-CPU masks cache; each CPU writes only its own entries. */
struct mask_cache {
	struct rcu_head rcu;		/* Deferred free after a resize. */
	u32 size;			/* Entries per CPU, a power of two. */
	struct mask_cache_entry __percpu *entries;
};

struct ovsp_flow_table {
	struct rcu_head rcu;		/* Deferred free. */
	struct mask_array __rcu *masks;	/* The masks. */
	struct mask_cache __rcu *cache;	/* NULL: cache off. */
	u32 cache_size;			/* Its size, also when off (0). */
	u32 n_masks;			/* Non-NULL entries in 'masks'. */
	u32 n_flows;			/* Flows in the table. */
	u64 n_refused;			/* Inserts refused for a limit. */
	u32 next_index;			/* For xa_alloc_cyclic(). */
	struct xarray flows;		/* Every flow, by 'index'. */
	struct rhashtable ufids;	/* Flows with a UFID, by UFID. */
};

static const struct rhashtable_params ufid_params = {
	.head_offset = offsetof(struct ovsp_flow, ufid_node),
	.key_offset = offsetof(struct ovsp_flow, ufid),
	.key_len = sizeof(struct ovsp_flow_ufid),
	.automatic_shrinking = true,
};

/* Where flows come from, and the queue that destroys masks. */
static struct kmem_cache *flow_cache;
static struct workqueue_struct *mask_wq;

int ovsp_flow_table_init(void)
{
	flow_cache = kmem_cache_create("ovsp_flow", sizeof(struct ovsp_flow),
				       0, 0, NULL);
	if (!flow_cache)
		return -ENOMEM;
	mask_wq = alloc_workqueue("ovsp_masks", 0, 0);
	if (!mask_wq) {
		kmem_cache_destroy(flow_cache);
		return -ENOMEM;
	}
	return 0;
}

void ovsp_flow_table_exit(void)
{
	rcu_barrier();
	destroy_workqueue(mask_wq);
	kmem_cache_destroy(flow_cache);
}

/* Masks cache. */

static struct mask_cache *mask_cache_alloc(u32 size)
{
	struct mask_cache *cache;

	if (!size)
		return NULL;
	cache = kzalloc(sizeof(*cache), GFP_KERNEL);
	if (!cache)
		return ERR_PTR(-ENOMEM);
	cache->size = size;
	cache->entries = __alloc_percpu(size * sizeof(struct mask_cache_entry),
					__alignof__(struct mask_cache_entry));
	if (!cache->entries) {
		kfree(cache);
		return ERR_PTR(-ENOMEM);
	}
	return cache;
}

static void mask_cache_free_rcu(struct rcu_head *rcu)
{
	struct mask_cache *cache = container_of(rcu, struct mask_cache, rcu);

	free_percpu(cache->entries);
	kfree(cache);
}

u32 ovsp_flow_table_mask_cache_size(const struct ovsp_flow_table *table)
{
	return table->cache_size;
}

int ovsp_flow_table_set_mask_cache_size(struct ovsp_flow_table *table,
					u32 size)
{
	struct mask_cache *new, *old;

	if (size > OVSP_MASK_CACHE_MAX)
		return -ERANGE;
	if (size && !is_power_of_2(size))
		return -EINVAL;
	if (size == table->cache_size)
		return 0;
	new = mask_cache_alloc(size);
	if (IS_ERR(new))
		return PTR_ERR(new);
	old = rcu_dereference_protected(table->cache, 1);
	rcu_assign_pointer(table->cache, new);
	table->cache_size = size;
	if (old)
		call_rcu(&old->rcu, mask_cache_free_rcu);
	return 0;
}

/* Table. */

struct ovsp_flow_table *ovsp_flow_table_create(void)
{
	struct ovsp_flow_table *table;

	table = kzalloc(sizeof(*table), GFP_KERNEL);
	if (!table)
		return NULL;
	xa_init_flags(&table->flows, XA_FLAGS_ALLOC);
	if (rhashtable_init(&table->ufids, &ufid_params))
		goto err;
	if (ovsp_flow_table_set_mask_cache_size(table,
						OVSP_MASK_CACHE_DEFAULT)) {
		rhashtable_destroy(&table->ufids);
		goto err;
	}
	return table;
err:
	kfree(table);
	return NULL;
}

void ovsp_flow_table_destroy(struct ovsp_flow_table *table)
{
	struct mask_array *ma;

	if (!table)
		return;
	ovsp_flow_table_flush(table);
	ovsp_flow_table_set_mask_cache_size(table, 0);
	rhashtable_destroy(&table->ufids);
	xa_destroy(&table->flows);
	ma = rcu_dereference_protected(table->masks, 1);
	if (ma)
		kfree_rcu(ma, rcu);
	kfree_rcu(table, rcu);
}

u32 ovsp_flow_table_n_flows(const struct ovsp_flow_table *table)
{
	return READ_ONCE(table->n_flows);
}

u32 ovsp_flow_table_n_masks(const struct ovsp_flow_table *table)
{
	return READ_ONCE(table->n_masks);
}

u64 ovsp_flow_table_n_refused(const struct ovsp_flow_table *table)
{
	return READ_ONCE(table->n_refused);
}

/* Lookup. */

/* The flow of 'mask' that 'key' hits, or NULL (under RCU). */
static struct ovsp_flow *mask_probe(struct ovsp_flow_mask *mask,
				    const struct ovsp_flow_key *key)
{
	struct ovsp_flow_key masked;

	ovsp_flow_key_mask(&masked, key, &mask->key, &mask->range, false);
	return rhashtable_lookup(&mask->flows,
				 (u8 *)&masked + mask->range.start,
				 mask->params);
}

/* Tries the mask that this CPU's cache entry for 'skb_hash' remembers. */
static struct ovsp_flow *cache_probe(struct mask_array *ma,
				     struct mask_cache_entry *e, u32 skb_hash,
				     const struct ovsp_flow_key *key,
				     u32 *n_mask_hit)
{
	struct ovsp_flow_mask *mask;

	if (e->skb_hash != skb_hash || e->mask_index >= ma->max)
		return NULL;
	mask = rcu_dereference(ma->masks[e->mask_index]);
	if (!mask)
		return NULL;
	(*n_mask_hit)++;
	return mask_probe(mask, key);
}

struct ovsp_flow *ovsp_flow_table_lookup(struct ovsp_flow_table *table,
					 const struct ovsp_flow_key *key,
					 u32 skb_hash, u32 *n_mask_hit,
					 bool *cache_hit)
{
	struct mask_cache_entry *e = NULL;
	struct mask_cache *cache;
	struct ovsp_flow *flow;
	struct mask_array *ma;
	u32 i;

	*cache_hit = false;
	ma = rcu_dereference(table->masks);
	if (!ma)
		return NULL;

	cache = rcu_dereference(table->cache);
	if (cache && skb_hash) {
		e = this_cpu_ptr(cache->entries) + (skb_hash & (cache->size - 1));
		flow = cache_probe(ma, e, skb_hash, key, n_mask_hit);
		if (flow) {
			*cache_hit = true;
			return flow;
		}
	}

	for (i = 0; i < ma->max; i++) {
		struct ovsp_flow_mask *mask = rcu_dereference(ma->masks[i]);

		if (!mask)
			continue;
		(*n_mask_hit)++;
		flow = mask_probe(mask, key);
		if (flow) {
			if (e) {
				e->skb_hash = skb_hash;
				e->mask_index = i;
			}
			return flow;
		}
	}
	return NULL;
}

struct ovsp_flow *ovsp_flow_table_find_ufid(struct ovsp_flow_table *table,
					    const struct ovsp_flow_ufid *ufid)
{
	struct ovsp_flow *flow;

	rcu_read_lock();
	flow = rhashtable_lookup(&table->ufids, ufid, ufid_params);
	rcu_read_unlock();
	return flow;
}

/* A mask's range, made non-empty: an all-wildcard mask still hashes one
 * (zero) long.
 */
static struct ovsp_key_range mask_range(const struct ovsp_key_range *r)
{
	struct ovsp_key_range range = *r;

	if (range.end <= range.start) {
		range.start = 0;
		range.end = sizeof(long);
	}
	return range;
}

static bool mask_equal(const struct ovsp_flow_mask *mask,
		       const struct ovsp_flow_match *m)
{
	struct ovsp_key_range range = mask_range(&m->range);

	return mask->range.start == range.start
		&& mask->range.end == range.end
		&& !memcmp((const u8 *)&mask->key + range.start,
			   (const u8 *)&m->mask + range.start,
			   range.end - range.start);
}

/* The existing mask equal to 'm''s (ovsp_lock), or NULL. */
static struct ovsp_flow_mask *mask_find(struct ovsp_flow_table *table,
					const struct ovsp_flow_match *m)
{
	struct mask_array *ma = rcu_dereference_protected(table->masks, 1);
	u32 i;

	for (i = 0; ma && i < ma->max; i++) {
		struct ovsp_flow_mask *mask;

		mask = rcu_dereference_protected(ma->masks[i], 1);
		if (mask && mask_equal(mask, m))
			return mask;
	}
	return NULL;
}

struct ovsp_flow *
ovsp_flow_table_find_unmasked(struct ovsp_flow_table *table,
			      const struct ovsp_flow_key *unmasked)
{
	struct mask_array *ma = rcu_dereference_protected(table->masks, 1);
	struct ovsp_flow *found = NULL;
	u32 i;

	rcu_read_lock();
	for (i = 0; ma && i < ma->max && !found; i++) {
		struct ovsp_flow_mask *mask;
		struct ovsp_flow *flow;

		mask = rcu_dereference_protected(ma->masks[i], 1);
		if (!mask)
			continue;
		flow = mask_probe(mask, unmasked);
		if (flow && flow->unmasked &&
		    !memcmp(flow->unmasked, unmasked, sizeof(*unmasked)))
			found = flow;
	}
	rcu_read_unlock();
	return found;
}

bool ovsp_flow_named_by_key(const struct ovsp_flow *flow,
			    const struct ovsp_flow_key *unmasked,
			    const struct ovsp_key_range *range)
{
	if (!flow->ufid.len)
		return !memcmp(flow->unmasked, unmasked, sizeof(*unmasked));
	return !memcmp((const u8 *)&flow->key + range->start,
		       (const u8 *)unmasked + range->start,
		       range->end - range->start);
}

bool ovsp_flow_key_equal(const struct ovsp_flow *flow,
			 const struct ovsp_flow_match *match)
{
	/* Both keys are masked: zero wherever their masks are. */
	return !memcmp(&flow->key, &match->key, sizeof(flow->key));
}

/* Masks. */

static void mask_free_work(struct work_struct *work)
{
	struct ovsp_flow_mask *mask;

	mask = container_of(to_rcu_work(work), struct ovsp_flow_mask,
			    free_work);
	rhashtable_destroy(&mask->flows);
	kfree(mask);
}

/* Puts 'mask' in a free slot of the masks array, growing it if needed. */
static int mask_array_add(struct ovsp_flow_table *table,
			  struct ovsp_flow_mask *mask)
{
	struct mask_array *ma = rcu_dereference_protected(table->masks, 1);
	struct mask_array *new;
	u32 i, max;

	for (i = 0; ma && i < ma->max; i++) {
		if (!rcu_access_pointer(ma->masks[i])) {
			mask->index = i;
			rcu_assign_pointer(ma->masks[i], mask);
			return 0;
		}
	}

	max = ma ? ma->max * 2 : 16;
	new = kzalloc(struct_size(new, masks, max), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	new->max = max;
	for (i = 0; ma && i < ma->max; i++)
		RCU_INIT_POINTER(new->masks[i],
				 rcu_dereference_protected(ma->masks[i], 1));
	i = ma ? ma->max : 0;
	mask->index = i;
	RCU_INIT_POINTER(new->masks[i], mask);
	rcu_assign_pointer(table->masks, new);
	if (ma)
		kfree_rcu(ma, rcu);
	return 0;
}

/* Creates a mask for 'm' and publishes it. */
static struct ovsp_flow_mask *mask_create(struct ovsp_flow_table *table,
					  const struct ovsp_flow_match *m)
{
	struct ovsp_flow_mask *mask;
	int err;

	if (table->n_masks >= OVSP_FLOW_TABLE_MAX_MASKS)
		return ERR_PTR(-E2BIG);
	mask = kzalloc(sizeof(*mask), GFP_KERNEL);
	if (!mask)
		return ERR_PTR(-ENOMEM);
	mask->range = mask_range(&m->range);
	memcpy((u8 *)&mask->key + mask->range.start,
	       (const u8 *)&m->mask + mask->range.start,
	       mask->range.end - mask->range.start);
	mask->params = (struct rhashtable_params) {
		.head_offset = offsetof(struct ovsp_flow, mask_node),
		.key_offset = offsetof(struct ovsp_flow, key)
			      + mask->range.start,
		.key_len = mask->range.end - mask->range.start,
		.automatic_shrinking = true,
	};
	INIT_RCU_WORK(&mask->free_work, mask_free_work);
	err = rhashtable_init(&mask->flows, &mask->params);
	if (err) {
		kfree(mask);
		return ERR_PTR(err);
	}
	err = mask_array_add(table, mask);
	if (err) {
		rhashtable_destroy(&mask->flows);
		kfree(mask);
		return ERR_PTR(err);
	}
	table->n_masks++;
	return mask;
}

/* Drops a flow's use of 'mask'; the last one unpublishes it. */
static void mask_put(struct ovsp_flow_table *table,
		     struct ovsp_flow_mask *mask)
{
	struct mask_array *ma;

	if (--mask->n_flows)
		return;
	ma = rcu_dereference_protected(table->masks, 1);
	RCU_INIT_POINTER(ma->masks[mask->index], NULL);
	table->n_masks--;
	queue_rcu_work(mask_wq, &mask->free_work);
}

/* Flows. */

const struct ovsp_flow_key *ovsp_flow_mask_key(const struct ovsp_flow *flow)
{
	return &flow->mask->key;
}

struct ovsp_flow *ovsp_flow_alloc(const struct ovsp_flow_match *match,
				  const struct ovsp_flow_key *unmasked,
				  const struct ovsp_flow_ufid *ufid,
				  struct ovsp_actions *acts)
{
	struct ovsp_flow *flow;

	flow = kmem_cache_zalloc(flow_cache, GFP_KERNEL);
	if (!flow)
		goto err;
	RCU_INIT_POINTER(flow->acts, acts);
	acts = NULL;
	flow->stats = ovsp_flow_stats_alloc();
	if (!flow->stats)
		goto err;
	flow->key = match->key;
	if (ufid && ufid->len) {
		flow->ufid = *ufid;
	} else {
		flow->unmasked = kmemdup(unmasked, sizeof(*unmasked),
					 GFP_KERNEL);
		if (!flow->unmasked)
			goto err;
	}
	return flow;
err:
	ovsp_actions_free(acts);
	ovsp_flow_free(flow);
	return NULL;
}

void ovsp_flow_free(struct ovsp_flow *flow)
{
	if (!flow)
		return;
	ovsp_actions_free(rcu_dereference_protected(flow->acts, 1));
	ovsp_flow_stats_free(flow->stats);
	kfree(flow->unmasked);
	kmem_cache_free(flow_cache, flow);
}

static void flow_free_rcu(struct rcu_head *rcu)
{
	ovsp_flow_free(container_of(rcu, struct ovsp_flow, rcu));
}

void ovsp_flow_set_actions(struct ovsp_flow *flow, struct ovsp_actions *acts)
{
	struct ovsp_actions *old = rcu_dereference_protected(flow->acts, 1);

	rcu_assign_pointer(flow->acts, acts);
	ovsp_actions_free_rcu(old);
}

int ovsp_flow_table_insert(struct ovsp_flow_table *table,
			   struct ovsp_flow *flow,
			   const struct ovsp_flow_match *match)
{
	struct ovsp_flow_mask *mask;
	int err;

	if (table->n_flows >= OVSP_FLOW_TABLE_MAX_FLOWS) {
		table->n_refused++;
		return -E2BIG;
	}
	mask = mask_find(table, match);
	if (!mask) {
		mask = mask_create(table, match);
		if (IS_ERR(mask)) {
			if (PTR_ERR(mask) == -E2BIG)
				table->n_refused++;
			return PTR_ERR(mask);
		}
	}
	mask->n_flows++;
	flow->mask = mask;

	err = rhashtable_lookup_insert_fast(&mask->flows, &flow->mask_node,
					    mask->params);
	if (err)
		goto err_mask;
	if (flow->ufid.len) {
		err = rhashtable_lookup_insert_fast(&table->ufids,
						    &flow->ufid_node,
						    ufid_params);
		if (err)
			goto err_remove;
	}
	err = xa_alloc_cyclic(&table->flows, &flow->index, flow, xa_limit_32b,
			      &table->next_index, GFP_KERNEL);
	if (err < 0)
		goto err_ufid;
	table->n_flows++;
	return 0;

err_ufid:
	if (flow->ufid.len)
		rhashtable_remove_fast(&table->ufids, &flow->ufid_node,
				       ufid_params);
err_remove:
	rhashtable_remove_fast(&mask->flows, &flow->mask_node, mask->params);
	/* The flow may have been seen by a lookup: the caller's free must
	 * then wait for RCU, which ovsp_flow_free() after synchronize_rcu()
	 * gives.
	 */
	synchronize_rcu();
err_mask:
	flow->mask = NULL;
	mask_put(table, mask);
	return err;
}

void ovsp_flow_table_remove(struct ovsp_flow_table *table,
			    struct ovsp_flow *flow)
{
	struct ovsp_flow_mask *mask = flow->mask;

	rhashtable_remove_fast(&mask->flows, &flow->mask_node, mask->params);
	if (flow->ufid.len)
		rhashtable_remove_fast(&table->ufids, &flow->ufid_node,
				       ufid_params);
	xa_erase(&table->flows, flow->index);
	table->n_flows--;
	mask_put(table, mask);
	call_rcu(&flow->rcu, flow_free_rcu);
}

void ovsp_flow_table_flush(struct ovsp_flow_table *table)
{
	struct ovsp_flow *flow;
	unsigned long index;

	xa_for_each(&table->flows, index, flow)
		ovsp_flow_table_remove(table, flow);
}

struct ovsp_flow *ovsp_flow_table_next(struct ovsp_flow_table *table,
				       unsigned long *index)
{
	return xa_find(&table->flows, index, ULONG_MAX, XA_PRESENT);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Conntrack zone limits: the per-namespace table of limits, the counting
 * of committed connections through nf_conncount, and the admission check
 * of ct(commit) (the contract is in ct-limit.h; the ovs_ct_limit family is
 * ct-limit-family.c).
 *
 * The table.  A zone's entry is one u64: its limit in the low 32 bits and
 * OVSP_CT_ZONE_SET when the zone has a limit of its own, so that a reader
 * sees a zone's whole state in one load, without a lock.  Entries live in
 * chunks of OVSP_CT_LIMIT_PER_CHUNK zones, published by RCU when their
 * first zone is set and freed after a grace period when their last is
 * removed, so that a namespace that limits a few zones pays a few KiB,
 * and one that limits them all 512 KiB.  Writers hold the namespace's
 * mutex; the packet path and GET's counts read under RCU.
 *
 * The counting is nf_conncount's: one list of connections per zone (the
 * key is the zone number), which nf_conncount_count_skb() walks, garbage
 * collects and appends to under the list's spinlock.  That list is
 * shared by every CPU that commits a connection in the zone; a per-CPU
 * count would need to see connections die, and Linux 6.1 gives a module
 * no way to (its one conntrack event notifier per namespace belongs to
 * ctnetlink).  Only commits of unconfirmed connections in zones with a
 * limit reach it: packets of established connections never do.
 */
#include <linux/bits.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/u64_stats_sync.h>
#include <net/netfilter/nf_conntrack_count.h>
#include <net/netns/generic.h>

#include "ct-limit.h"

/* An entry's flag: the zone has a limit of its own. */
#define OVSP_CT_ZONE_SET BIT_ULL(32)

/* nf_conncount's key: the zone, one u32. */
#define OVSP_CT_LIMIT_KEYLEN sizeof(u32)

/* One chunk of zones' entries (OVSP_CT_ZONE_SET | limit, or 0). */
struct ovsp_ct_limit_chunk {
	u64 entries[OVSP_CT_LIMIT_PER_CHUNK];
};

/* One CPU's counters; written only by that CPU, on the packet path. */
struct ovsp_ct_limit_pcpu {
	u64_stats_t refused;		/* Commits refused. */
	u64_stats_t uncounted;		/* Commits nf_conncount did not
					 * count.
					 */
	struct u64_stats_sync syncp;	/* For 32-bit readers. */
};

/* A namespace's zone limits (net_generic()). */
struct ovsp_ct_limit_net {
	/* Serialises writers of every member below. */
	struct mutex mutex;
	u32 default_limit;		/* Read by READ_ONCE() anywhere. */
	u16 chunk_used[OVSP_CT_LIMIT_CHUNKS];	/* Zones set in each chunk
						 * (mutex).
						 */
	u32 n_zones;			/* Zones with limits of their own
					 * (mutex).
					 */
	struct ovsp_ct_limit_chunk __rcu *chunks[OVSP_CT_LIMIT_CHUNKS];
					/* By zone / OVSP_CT_LIMIT_PER_CHUNK,
					 * NULL if no zone in it is set.
					 */
	struct nf_conncount_data __rcu *data;	/* Made by the first SET,
						 * never changed after.
						 */
	struct ovsp_ct_limit_pcpu __percpu *pcpu;	/* Counters. */
};

static unsigned int ct_limit_net_id __read_mostly;

static struct ovsp_ct_limit_net *ct_limit_net(struct net *net)
{
	return net_generic(net, ct_limit_net_id);
}

/* Zone 'zone''s entry, under RCU or the mutex. */
static u64 zone_entry(const struct ovsp_ct_limit_net *cl, u16 zone)
{
	const struct ovsp_ct_limit_chunk *chunk;

	chunk = rcu_dereference_check(cl->chunks[zone / OVSP_CT_LIMIT_PER_CHUNK],
				      lockdep_is_held(&cl->mutex));
	return chunk ? READ_ONCE(chunk->entries[zone % OVSP_CT_LIMIT_PER_CHUNK])
		     : 0;
}

/* Zone 'zone''s limit, its own or the default, under RCU or the mutex. */
static u32 zone_limit(const struct ovsp_ct_limit_net *cl, u16 zone)
{
	u64 entry = zone_entry(cl, zone);

	return entry & OVSP_CT_ZONE_SET ? (u32)entry
					: READ_ONCE(cl->default_limit);
}

/* Makes nf_conncount's state for 'net', if it is not there yet, before a
 * limit of 'limit' is set (mutex): only a limit that is not 0 counts, so
 * a namespace that never sets one never takes conntrack's hooks.  Returns
 * 0 or a negative errno.
 */
static int ct_limit_start(struct net *net, struct ovsp_ct_limit_net *cl,
			  u32 limit)
{
	struct nf_conncount_data *data;

	lockdep_assert_held(&cl->mutex);
	if (limit == OVSP_CT_LIMIT_UNLIMITED || rcu_access_pointer(cl->data))
		return 0;
	/* Takes conntrack's hooks for IPv4 and IPv6 in 'net', as Linux's
	 * openvswitch.ko does for every namespace when it loads.
	 */
	data = nf_conncount_init(net, NFPROTO_INET, OVSP_CT_LIMIT_KEYLEN);
	if (IS_ERR(data))
		return PTR_ERR(data);
	rcu_assign_pointer(cl->data, data);
	return 0;
}

int ovsp_ct_limit_set_default(struct net *net, u32 limit)
{
	struct ovsp_ct_limit_net *cl = ct_limit_net(net);
	int err;

	mutex_lock(&cl->mutex);
	err = ct_limit_start(net, cl, limit);
	if (!err)
		WRITE_ONCE(cl->default_limit, limit);
	mutex_unlock(&cl->mutex);
	return err;
}

int ovsp_ct_limit_set_zone(struct net *net, u16 zone, u32 limit)
{
	struct ovsp_ct_limit_net *cl = ct_limit_net(net);
	unsigned int i = zone / OVSP_CT_LIMIT_PER_CHUNK;
	unsigned int j = zone % OVSP_CT_LIMIT_PER_CHUNK;
	struct ovsp_ct_limit_chunk *chunk;
	int err;

	mutex_lock(&cl->mutex);
	err = ct_limit_start(net, cl, limit);
	if (err)
		goto out;
	chunk = rcu_dereference_protected(cl->chunks[i],
					  lockdep_is_held(&cl->mutex));
	if (!chunk) {
		/* Charged to the memory cgroup of the process that asks. */
		chunk = kzalloc(sizeof(*chunk), GFP_KERNEL_ACCOUNT);
		if (!chunk) {
			err = -ENOMEM;
			goto out;
		}
		rcu_assign_pointer(cl->chunks[i], chunk);
	}
	if (!(chunk->entries[j] & OVSP_CT_ZONE_SET)) {
		cl->chunk_used[i]++;
		cl->n_zones++;
	}
	WRITE_ONCE(chunk->entries[j], OVSP_CT_ZONE_SET | limit);
out:
	mutex_unlock(&cl->mutex);
	return err;
}

void ovsp_ct_limit_del_zone(struct net *net, u16 zone)
{
	struct ovsp_ct_limit_net *cl = ct_limit_net(net);
	unsigned int i = zone / OVSP_CT_LIMIT_PER_CHUNK;
	unsigned int j = zone % OVSP_CT_LIMIT_PER_CHUNK;
	struct ovsp_ct_limit_chunk *chunk;

	mutex_lock(&cl->mutex);
	chunk = rcu_dereference_protected(cl->chunks[i],
					  lockdep_is_held(&cl->mutex));
	if (chunk && chunk->entries[j] & OVSP_CT_ZONE_SET) {
		WRITE_ONCE(chunk->entries[j], 0);
		cl->n_zones--;
		if (!--cl->chunk_used[i]) {
			RCU_INIT_POINTER(cl->chunks[i], NULL);
			kfree_rcu_mightsleep(chunk);
		}
	}
	mutex_unlock(&cl->mutex);
}

u32 ovsp_ct_limit_get_default(struct net *net)
{
	return READ_ONCE(ct_limit_net(net)->default_limit);
}

/* The number of connections nf_conncount holds for zone 'zone' (after
 * collecting the dead ones), under RCU with BHs off: the list's lock is
 * taken by the packet path in softirq.
 */
static u32 zone_count(struct net *net, const struct ovsp_ct_limit_net *cl,
		      u16 zone)
{
	struct nf_conncount_data *data;
	u32 key = zone;
	u32 count = 0;

	local_bh_disable();
	rcu_read_lock();
	data = rcu_dereference(cl->data);
	if (data)
		count = nf_conncount_count_skb(net, NULL, 0, data, &key);
	rcu_read_unlock();
	local_bh_enable();
	return count;
}

void ovsp_ct_limit_get_zone(struct net *net, u16 zone,
			    struct ovsp_ct_zone_limit *out)
{
	struct ovsp_ct_limit_net *cl = ct_limit_net(net);

	rcu_read_lock();
	out->limit = zone_limit(cl, zone);
	rcu_read_unlock();
	out->zone = zone;
	out->count = zone_count(net, cl, zone);
}

int ovsp_ct_limit_walk_zones(struct net *net, ovsp_ct_zone_limit_cb_t *cb,
				void *aux)
{
	struct ovsp_ct_limit_net *cl = ct_limit_net(net);
	struct ovsp_ct_limit_chunk *chunk;
	struct ovsp_ct_zone_limit zl;
	unsigned int i, j;
	int err = 0;

	/* Under the mutex, so that the set of zones is one moment's. */
	mutex_lock(&cl->mutex);
	for (i = 0; i < OVSP_CT_LIMIT_CHUNKS && !err; i++) {
		chunk = rcu_dereference_protected(cl->chunks[i],
						  lockdep_is_held(&cl->mutex));
		for (j = 0; chunk && j < OVSP_CT_LIMIT_PER_CHUNK && !err; j++) {
			u64 entry = chunk->entries[j];

			if (!(entry & OVSP_CT_ZONE_SET))
				continue;
			zl.zone = i * OVSP_CT_LIMIT_PER_CHUNK + j;
			zl.limit = (u32)entry;
			zl.count = zone_count(net, cl, zl.zone);
			err = cb(&zl, aux);
		}
	}
	mutex_unlock(&cl->mutex);
	return err;
}

int ovsp_ct_limit_admit(struct net *net, const struct sk_buff *skb,
			u16 l3num, u16 zone)
{
	struct ovsp_ct_limit_net *cl = ct_limit_net(net);
	struct nf_conncount_data *data;
	struct ovsp_ct_limit_pcpu *s;
	u32 limit, key = zone;
	unsigned int count;

	limit = zone_limit(cl, zone);
	if (limit == OVSP_CT_LIMIT_UNLIMITED)
		return 0;
	/* A limit that is not 0 is only ever set after 'data' is made. */
	data = rcu_dereference(cl->data);
	if (unlikely(!data))
		return 0;
	/* Adds the connection to the zone's list, if it is not there yet,
	 * and returns the list's length; 0 when it could not.
	 */
	count = nf_conncount_count_skb(net, skb, l3num, data, &key);
	if (count && count <= limit)
		return 0;

	s = this_cpu_ptr(cl->pcpu);
	u64_stats_update_begin(&s->syncp);
	if (count)
		u64_stats_inc(&s->refused);
	else
		u64_stats_inc(&s->uncounted);
	u64_stats_update_end(&s->syncp);
	if (!count)
		return 0;	/* As Linux: not counted is not refused. */
	net_warn_ratelimited("ovs_percpu: zone %u exceeds its conntrack limit of %u\n",
			     zone, limit);
	return -ENOMEM;
}

void ovsp_ct_limit_get_stats(struct net *net, unsigned int cpu,
			     struct ovsp_ct_limit_stats *stats)
{
	const struct ovsp_ct_limit_pcpu *s;
	unsigned int start;

	s = per_cpu_ptr(ct_limit_net(net)->pcpu, cpu);
	do {
		start = u64_stats_fetch_begin(&s->syncp);
		stats->refused = u64_stats_read(&s->refused);
		stats->uncounted = u64_stats_read(&s->uncounted);
	} while (u64_stats_fetch_retry(&s->syncp, start));
}

static int __net_init ct_limit_net_init(struct net *net)
{
	struct ovsp_ct_limit_net *cl = ct_limit_net(net);
	int cpu;

	mutex_init(&cl->mutex);
	cl->pcpu = alloc_percpu_gfp(struct ovsp_ct_limit_pcpu,
				    GFP_KERNEL_ACCOUNT);
	if (!cl->pcpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(cl->pcpu, cpu)->syncp);
	return 0;
}

static void __net_exit ct_limit_net_exit(struct net *net)
{
	struct ovsp_ct_limit_net *cl = ct_limit_net(net);
	struct nf_conncount_data *data;
	int i;

	data = rcu_dereference_protected(cl->data, true);
	RCU_INIT_POINTER(cl->data, NULL);
	for (i = 0; i < OVSP_CT_LIMIT_CHUNKS; i++) {
		struct ovsp_ct_limit_chunk *chunk;

		chunk = rcu_dereference_protected(cl->chunks[i], true);
		RCU_INIT_POINTER(cl->chunks[i], NULL);
		kfree_rcu_mightsleep(chunk);
	}
	if (data) {
		/* Packets of the namespace's datapaths (destroyed before
		 * this: ours is a subsys, theirs a device) may still be
		 * counting.
		 */
		synchronize_rcu();
		nf_conncount_destroy(net, NFPROTO_INET, data);
	}
	free_percpu(cl->pcpu);
}

static struct pernet_operations ct_limit_net_ops = {
	.init = ct_limit_net_init,
	.exit = ct_limit_net_exit,
	.id = &ct_limit_net_id,
	.size = sizeof(struct ovsp_ct_limit_net),
};

int ovsp_ct_limit_init(void)
{
	return register_pernet_subsys(&ct_limit_net_ops);
}

void ovsp_ct_limit_exit(void)
{
	unregister_pernet_subsys(&ct_limit_net_ops);
}

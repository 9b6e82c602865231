// SPDX-License-Identifier: GPL-2.0
/*
 * A datapath's meters: the table, the token buckets and their statistics
 * (the contract is in meter.h; the ovs_meter family is meter-family.c).
 *
 * The per-packet rule.  A meter polices the sum of every CPU's packets,
 * so its buckets cannot be split per CPU without letting a meter pass
 * less than its rate when its traffic arrives unevenly (a flow's packets
 * come in on one CPU).  What can be per CPU is: each meter has a
 * statistics slot per CPU (packets and bytes in, and each band's
 * exceeded packets and bytes, and the time of the last packet), written
 * only by that CPU and summed by readers.  What cannot is one 64-bit word
 * per band, and it is kept cheap to share:
 *
 * - A band's bucket is kept in virtual time (GCRA): 'tat' is the value
 *   of the band's clock at which the bucket is empty.  The band's clock
 *   counts bucket units (bits for kbps meters, thousandths of a packet
 *   for packets per second, as Linux's buckets count them): 'rate' units
 *   per millisecond since boot.  At clock C the bucket holds
 *   min(burst, C - tat) units; taking 'cost' units moves 'tat' to
 *   max(tat, C - burst) + cost.  The whole state is one word, so one
 *   compare-and-swap updates it, and no lock is needed.
 * - A packet that the band cannot pay for writes nothing shared: above
 *   the rate, a meter costs a read of one cache line per packet.
 * - The word is read before the clock, so that no other CPU's update can
 *   put 'tat' ahead of the clock this CPU compares it with (the clock is
 *   monotonic across CPUs); after a failed swap both are read again.
 * - The result is that of one bucket under a lock, whatever the
 *   interleaving: every update is one atomic step from one consistent
 *   state to the next.
 *
 * Clocks wrap (they are u64 counts of units: at the highest rate, 2^32
 * kbps, every 50 days), so 'tat' is compared with the clock by signed
 * difference.  A bucket idle for longer than half a wrap would read as
 * far ahead of the clock: a 'tat' more than a second ahead
 * (OVSP_METER_MAX_LEAD_MS, far more than any CPU's clock can lag another
 * between two reads) is read as a bucket idle that long, hence full.
 *
 * The band's clock is now_ns * rate / 10^6, computed as a 64x64-bit
 * product with the factor rate * 2^40 / 10^6 in fixed point (error under
 * one millionth of the rate); costs and the bucket's size are exact, as
 * in Linux, whose buckets refill in whole milliseconds instead.
 */
#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/cache.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>

#include "meter.h"

/* Bucket units per packet (pktps) and per kilobit (kbps; a unit is then
 * a bit): with these, a rate of R earns R units per millisecond, as in
 * Linux's meters.
 */
#define OVSP_METER_UNITS_PER_PACKET 1000
#define OVSP_METER_UNITS_PER_KBIT 1000

/* Fixed-point shift of a band's units per nanosecond ('clock_factor'):
 * rate * 2^40 / 10^6 < 2^53 for a 32-bit rate, and its truncation costs
 * under 10^6 / 2^40 (1e-6) of the rate.
 */
#define OVSP_METER_CLOCK_SHIFT 40

/* How far ahead of the clock a band's 'tat' may be before it is read as
 * a wrapped clock (a bucket idle for most of a wrap): one second.
 */
#define OVSP_METER_MAX_LEAD_MS 1000

/* One band: its configuration, then the one word every CPU shares, on a
 * cache line of its own so that packets of other meters, and readers of
 * this meter's configuration, do not share its line.
 */
struct ovsp_meter_band {
	u32 type;			/* OVS_METER_BAND_TYPE_*. */
	u32 rate;			/* kbps or packets/s. */
	u64 burst;			/* Bucket size, in units. */
	u64 max_lead;			/* OVSP_METER_MAX_LEAD_MS, in units. */
	u64 clock_factor;		/* Units per ns, fixed point
					 * (OVSP_METER_CLOCK_SHIFT).
					 */
	atomic64_t tat;			/* Clock value (units, u64) at which
					 * the bucket is empty; written by
					 * any CPU, by compare-and-swap.
					 */
} ____cacheline_aligned_in_smp;

/* One CPU's statistics of one meter; written only by that CPU, on the
 * packet path; read by the summing readers.
 */
struct ovsp_meter_pcpu {
	u64 packets;			/* Packets that reached the meter. */
	u64 bytes;			/* Their bytes. */
	u64 band_packets[OVSP_METER_MAX_BANDS];	/* Packets each band
						 * counted as exceeding.
						 */
	u64 band_bytes[OVSP_METER_MAX_BANDS];	/* Their bytes. */
	u64 used_ns;			/* ktime_get_ns() of the last packet,
					 * 0 for none.
					 */
	struct u64_stats_sync syncp;	/* For 32-bit readers. */
};

/* A meter.  Immutable but for its bands' 'tat' and its per-CPU slots. */
struct ovsp_meter {
	struct rhash_head node;		/* In its table, by 'id'. */
	u32 id;
	bool kbps;			/* Rates in kbps, else packets/s. */
	bool keep_stats;		/* SET without OVS_METER_ATTR_CLEAR. */
	u16 n_bands;			/* Used in 'bands'. */
	u64 created_ns;			/* ktime_get_ns() when made. */
	struct ovs_flow_stats base;	/* Statistics it started with. */
	struct ovsp_meter_pcpu __percpu *pcpu;	/* Per-CPU statistics. */
	struct rcu_head rcu;		/* Deferred free. */
	struct ovsp_meter_band bands[];
};

/* A datapath's meters. */
struct ovsp_meter_table {
	struct rhashtable meters;	/* By id: read under RCU, changed
					 * under ovsp_lock().
					 */
	u32 n_meters;			/* Meters in 'meters' (ovsp_lock). */
	u32 max_meters;			/* Most it may hold. */
	struct rcu_work free_work;	/* Destruction after the packets
					 * that may see it are done.
					 */
};

static const struct rhashtable_params meter_params = {
	.head_offset = offsetof(struct ovsp_meter, node),
	.key_offset = offsetof(struct ovsp_meter, id),
	.key_len = sizeof(u32),
	.automatic_shrinking = true,
};

/* The queue that destroys tables, drained at module exit. */
static struct workqueue_struct *meter_wq;

int ovsp_meters_init(void)
{
	meter_wq = alloc_workqueue("ovsp_meters", 0, 0);
	return meter_wq ? 0 : -ENOMEM;
}

void ovsp_meters_exit(void)
{
	/* Destroyed tables' work is queued by RCU callbacks. */
	rcu_barrier();
	destroy_workqueue(meter_wq);
}

/* Bytes a meter costs: itself, its per-CPU slots and its share of the
 * table's buckets (two pointers' worth: rhashtable keeps the table at
 * most about twice its size).
 */
static size_t meter_bytes(void)
{
	struct ovsp_meter *meter;

	return struct_size(meter, bands, OVSP_METER_MAX_BANDS)
	       + nr_cpu_ids * sizeof(struct ovsp_meter_pcpu)
	       + 2 * sizeof(void *);
}

struct ovsp_meter_table *ovsp_meter_table_create(void)
{
	struct ovsp_meter_table *table;
	unsigned long budget;

	table = kzalloc(sizeof(*table), GFP_KERNEL);
	if (!table)
		return NULL;
	/* Linux's bound: meters may take about 1/32 of the memory free
	 * when the datapath is made, and no more than
	 * OVSP_METER_MAX_METERS.
	 */
	budget = nr_free_buffer_pages() * (PAGE_SIZE / 32);
	table->max_meters = min_t(unsigned long, budget / meter_bytes(),
				  OVSP_METER_MAX_METERS);
	if (!table->max_meters || rhashtable_init(&table->meters,
						  &meter_params)) {
		kfree(table);
		return NULL;
	}
	return table;
}

static void meter_free(struct ovsp_meter *meter)
{
	free_percpu(meter->pcpu);
	kfree(meter);
}

static void meter_free_rcu(struct rcu_head *rcu)
{
	meter_free(container_of(rcu, struct ovsp_meter, rcu));
}

static void meter_free_in_table(void *ptr, void *arg)
{
	meter_free(ptr);
}

static void table_free_work(struct work_struct *work)
{
	struct ovsp_meter_table *table;

	table = container_of(to_rcu_work(work), struct ovsp_meter_table,
			     free_work);
	rhashtable_free_and_destroy(&table->meters, meter_free_in_table,
				    NULL);
	kfree(table);
}

void ovsp_meter_table_destroy(struct ovsp_meter_table *table)
{
	if (!table)
		return;
	/* Packets may still be reading it: its buckets and meters go after
	 * a grace period, from a work item (rhashtable_free_and_destroy()
	 * sleeps).
	 */
	INIT_RCU_WORK(&table->free_work, table_free_work);
	queue_rcu_work(meter_wq, &table->free_work);
}

u32 ovsp_meter_table_max(const struct ovsp_meter_table *table)
{
	return table->max_meters;
}

/* rate * 2^OVSP_METER_CLOCK_SHIFT / NSEC_PER_MSEC, in two steps of 20 bits
 * so that no intermediate overflows 64 bits.
 */
static u64 band_clock_factor(u32 rate)
{
	u64 hi = (u64)rate << 20;
	u64 q = div_u64(hi, NSEC_PER_MSEC);
	u64 r = hi - q * NSEC_PER_MSEC;

	return (q << 20) + div_u64(r << 20, NSEC_PER_MSEC);
}

/* Band 'band''s clock, in units, at 'now_ns'; wraps. */
static u64 band_clock(const struct ovsp_meter_band *band, u64 now_ns)
{
	return mul_u64_u64_shr(now_ns, band->clock_factor,
			       OVSP_METER_CLOCK_SHIFT);
}

static struct ovsp_meter *meter_create(const struct ovsp_meter_config *cfg)
{
	struct ovsp_meter *meter;
	u64 now_ns;
	int i;

	meter = kzalloc(struct_size(meter, bands, cfg->n_bands),
			GFP_KERNEL_ACCOUNT);
	if (!meter)
		return NULL;
	meter->pcpu = alloc_percpu_gfp(struct ovsp_meter_pcpu,
				       GFP_KERNEL_ACCOUNT);
	if (!meter->pcpu) {
		kfree(meter);
		return NULL;
	}
	meter->id = cfg->id;
	meter->kbps = cfg->kbps;
	meter->keep_stats = cfg->keep_stats;
	meter->base = cfg->stats;
	meter->n_bands = cfg->n_bands;
	now_ns = ktime_get_ns();
	meter->created_ns = now_ns;
	for (i = 0; i < cfg->n_bands; i++) {
		struct ovsp_meter_band *band = &meter->bands[i];
		u32 per_unit = cfg->kbps ? OVSP_METER_UNITS_PER_KBIT
					 : OVSP_METER_UNITS_PER_PACKET;

		band->type = cfg->bands[i].type;
		band->rate = cfg->bands[i].rate;
		band->burst = (u64)cfg->bands[i].burst * per_unit;
		band->max_lead = (u64)band->rate * OVSP_METER_MAX_LEAD_MS;
		band->clock_factor = band_clock_factor(band->rate);
		/* It starts full. */
		atomic64_set(&band->tat,
			     band_clock(band, now_ns) - band->burst);
	}
	return meter;
}

/* Sums 'meter''s statistics into '*stats'. */
static void meter_read(const struct ovsp_meter *meter,
		       struct ovsp_meter_stats *stats)
{
	u64 used_ns = meter->created_ns;
	int cpu, i;

	memset(stats, 0, sizeof(*stats));
	stats->stats = meter->base;
	stats->n_bands = meter->n_bands;
	for_each_possible_cpu(cpu) {
		const struct ovsp_meter_pcpu *s = per_cpu_ptr(meter->pcpu, cpu);
		struct ovsp_meter_pcpu c;
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			c.packets = s->packets;
			c.bytes = s->bytes;
			for (i = 0; i < meter->n_bands; i++) {
				c.band_packets[i] = s->band_packets[i];
				c.band_bytes[i] = s->band_bytes[i];
			}
			c.used_ns = s->used_ns;
		} while (u64_stats_fetch_retry(&s->syncp, start));
		stats->stats.n_packets += c.packets;
		stats->stats.n_bytes += c.bytes;
		for (i = 0; i < meter->n_bands; i++) {
			stats->bands[i].n_packets += c.band_packets[i];
			stats->bands[i].n_bytes += c.band_bytes[i];
		}
		used_ns = max(used_ns, c.used_ns);
	}
	stats->used = div_u64(used_ns, NSEC_PER_MSEC);
}

int ovsp_meter_set(struct ovsp_meter_table *table,
		   const struct ovsp_meter_config *config,
		   struct ovsp_meter_stats *old_stats)
{
	struct ovsp_meter *meter, *old;
	int err, ret = 0;

	old = rhashtable_lookup_fast(&table->meters, &config->id,
				     meter_params);
	if (!old && table->n_meters >= table->max_meters)
		return -EFBIG;
	meter = meter_create(config);
	if (!meter)
		return -ENOMEM;
	if (old) {
		/* In place: packets see the old meter or the new one,
		 * never none.
		 */
		err = rhashtable_replace_fast(&table->meters, &old->node,
					      &meter->node, meter_params);
		if (err)
			goto err_free;
		if (old->keep_stats) {
			meter_read(old, old_stats);
			ret = 1;
		}
		call_rcu(&old->rcu, meter_free_rcu);
		return ret;
	}
	err = rhashtable_lookup_insert_fast(&table->meters, &meter->node,
					    meter_params);
	if (err)
		goto err_free;
	table->n_meters++;
	return 0;

err_free:
	meter_free(meter);
	return err;
}

int ovsp_meter_get(struct ovsp_meter_table *table, u32 id,
		   struct ovsp_meter_stats *stats)
{
	struct ovsp_meter *meter;

	meter = rhashtable_lookup_fast(&table->meters, &id, meter_params);
	if (!meter)
		return -ENOENT;
	meter_read(meter, stats);
	return 0;
}

int ovsp_meter_del(struct ovsp_meter_table *table, u32 id,
		   struct ovsp_meter_stats *stats)
{
	struct ovsp_meter *meter;

	meter = rhashtable_lookup_fast(&table->meters, &id, meter_params);
	if (!meter)
		return 0;
	rhashtable_remove_fast(&table->meters, &meter->node, meter_params);
	table->n_meters--;
	meter_read(meter, stats);
	call_rcu(&meter->rcu, meter_free_rcu);
	return 1;
}

/* Takes 'cost' units from 'band' if it holds them.  Returns true if it
 * did, false if the packet exceeds the band; '*now_ns' is the time the
 * decision was made at.
 */
static bool band_take(struct ovsp_meter_band *band, u64 cost, u64 *now_ns)
{
	s64 old = atomic64_read(&band->tat);

	for (;;) {
		u64 clock, base, next;
		s64 elapsed;

		/* After the read of 'tat' (see the top of this file). */
		*now_ns = ktime_get_ns();
		clock = band_clock(band, *now_ns);
		elapsed = (s64)(clock - (u64)old);
		if (elapsed > (s64)band->burst ||
		    elapsed < -(s64)band->max_lead)
			base = clock - band->burst;	/* Full. */
		else
			base = old;
		next = base + cost;
		if ((s64)(clock - next) < 0)
			return false;
		if (atomic64_try_cmpxchg(&band->tat, &old, next))
			return true;
		/* Another CPU took tokens: 'old' is its 'tat'. */
	}
}

bool ovsp_meter_execute(struct ovsp_meter_table *table,
			const struct sk_buff *skb, u32 id)
{
	struct ovsp_meter_pcpu *s;
	struct ovsp_meter *meter;
	u32 exceeded_rate = 0;
	int i, exceeded = -1;
	u64 cost, now_ns = 0;

	meter = rhashtable_lookup_fast(&table->meters, &id, meter_params);
	if (!meter)
		return false;
	/* Bits, or a packet in thousandths. */
	cost = meter->kbps ? (u64)skb->len * BITS_PER_BYTE
			   : OVSP_METER_UNITS_PER_PACKET;
	/* Every band that holds the cost pays it; of those that do not,
	 * the one of highest rate counts the packet.
	 */
	for (i = 0; i < meter->n_bands; i++) {
		struct ovsp_meter_band *band = &meter->bands[i];

		if (!band_take(band, cost, &now_ns) &&
		    band->rate > exceeded_rate) {
			exceeded_rate = band->rate;
			exceeded = i;
		}
	}
	if (!meter->n_bands)
		now_ns = ktime_get_ns();

	s = this_cpu_ptr(meter->pcpu);
	u64_stats_update_begin(&s->syncp);
	s->packets++;
	s->bytes += skb->len;
	s->used_ns = now_ns;
	if (exceeded >= 0) {
		s->band_packets[exceeded]++;
		s->band_bytes[exceeded] += skb->len;
	}
	u64_stats_update_end(&s->syncp);

	return exceeded >= 0 &&
	       meter->bands[exceeded].type == OVS_METER_BAND_TYPE_DROP;
}

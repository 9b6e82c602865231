/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A datapath's meters (OVS_ACTION_ATTR_METER and the ovs_meter family):
 * token buckets that police the packets of the flows that name them.
 *
 * Contract:
 * - A meter is a set of bands (at most OVSP_METER_MAX_BANDS, as Linux's
 *   DP_MAX_BANDS), each a token bucket of 'rate' kilobits or packets per
 *   second that holds at most 'burst' kilobits or packets and starts
 *   full.  A packet takes its cost (its length in bits, or one packet)
 *   from every band that holds enough; the exceeded band of highest rate
 *   counts it, and if that band is a drop band the packet is dropped.
 *   These are openvswitch.ko's rules.
 * - The packet path (ovsp_meter_execute()) runs under RCU in softirq or
 *   with BHs off.  Per packet it writes this CPU's statistics slot of
 *   the meter and, for each band the packet conforms to, the band's one
 *   shared word, by compare-and-swap; a packet that exceeds a band
 *   writes nothing shared for it.  No lock.
 * - A meter's configuration is immutable: SET replaces the whole meter
 *   (its buckets start full again), DEL removes it, and a meter is freed
 *   only after an RCU grace period.
 * - The table is bounded: ovsp_meter_table_max() meters per datapath,
 *   derived from the memory free when the table was made, as Linux's
 *   max_meters_allowed (at most OVSP_METER_MAX_METERS).
 * - Control operations (set, get, del, destroy) run under ovsp_lock().
 */
#ifndef OVSP_METER_H
#define OVSP_METER_H 1

#include <linux/openvswitch.h>
#include <linux/skbuff.h>
#include <linux/types.h>

struct ovsp_meter_table;

/* Bands per meter, as Linux's DP_MAX_BANDS: FEATURES says so, and SET
 * refuses more.
 */
#define OVSP_METER_MAX_BANDS 1

/* Most meters a datapath holds whatever its memory, as Linux's
 * DP_METER_NUM_MAX.
 */
#define OVSP_METER_MAX_METERS 200000

/* A band as OVS_METER_CMD_SET gives it. */
struct ovsp_meter_band_config {
	u32 type;			/* OVS_METER_BAND_TYPE_DROP or other,
					 * unchecked as in Linux: only DROP
					 * drops.
					 */
	u32 rate;			/* kbps or packets/s, not 0. */
	u32 burst;			/* kilobits or packets. */
};

/* A meter as OVS_METER_CMD_SET gives it. */
struct ovsp_meter_config {
	u32 id;
	bool kbps;			/* Rates in kbps, else packets/s. */
	bool keep_stats;		/* No OVS_METER_ATTR_CLEAR. */
	struct ovs_flow_stats stats;	/* Starting statistics (zero unless
					 * the request gave them).
					 */
	u16 n_bands;
	struct ovsp_meter_band_config bands[OVSP_METER_MAX_BANDS];
};

/* A meter's statistics, as replies carry them. */
struct ovsp_meter_stats {
	struct ovs_flow_stats stats;	/* Every packet that reached it. */
	u64 used;			/* ms (monotonic) of its last packet,
					 * or of its creation.
					 */
	u16 n_bands;
	struct ovs_flow_stats bands[OVSP_METER_MAX_BANDS];
					/* Packets each band counted as
					 * exceeding it.
					 */
};

/* Module init and exit (the queue that frees destroyed tables). */
int ovsp_meters_init(void);
void ovsp_meters_exit(void);

/* A datapath's table, empty, or NULL (out of memory); and its
 * destruction (NULL is fine), which frees its meters after an RCU grace
 * period.
 */
struct ovsp_meter_table *ovsp_meter_table_create(void);
void ovsp_meter_table_destroy(struct ovsp_meter_table *table);

/* Most meters 'table' may hold. */
u32 ovsp_meter_table_max(const struct ovsp_meter_table *table);

/* Puts a new meter made from 'config' in 'table', replacing the meter of
 * that id if there is one.  Returns 1 with the old meter's statistics in
 * '*old' if it had one that kept them (no OVS_METER_ATTR_CLEAR when it
 * was set), 0 if not, or a negative errno: -EFBIG if the table is full,
 * -ENOMEM.
 */
int ovsp_meter_set(struct ovsp_meter_table *table,
		   const struct ovsp_meter_config *config,
		   struct ovsp_meter_stats *old);

/* Reads meter 'id''s statistics into '*stats'.  Returns 0 or -ENOENT. */
int ovsp_meter_get(struct ovsp_meter_table *table, u32 id,
		   struct ovsp_meter_stats *stats);

/* Deletes meter 'id'.  Returns 1 with its statistics in '*stats', or 0 if
 * there is no such meter.
 */
int ovsp_meter_del(struct ovsp_meter_table *table, u32 id,
		   struct ovsp_meter_stats *stats);

/* Runs 'skb' through meter 'id' of 'table'.  Returns true if a drop band
 * refuses it (the caller frees it); a meter that does not exist lets it
 * through, as in Linux.
 */
bool ovsp_meter_execute(struct ovsp_meter_table *table,
			const struct sk_buff *skb, u32 id);

#endif

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

/* OpenFlow meters in the datapath: token buckets, per-thread statistics. */

#include <config.h>
#include "dp-meter.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "cmap.h"
#include "coverage.h"
#include "dp-packet.h"
#include "hash.h"
#include "netdev.h"
#include "openflow/openflow-1.3.h"
#include "openvswitch/ofp-meter.h"
#include "ovs-atomic.h"
#include "ovs-rcu.h"
#include "ovs-thread.h"
#include "util.h"

/* Meter flags and band types this datapath supports, as dpif-netdev. */
#define DP_METER_FLAGS (OFPMF13_KBPS | OFPMF13_PKTPS | OFPMF13_BURST \
                        | OFPMF13_STATS)
#define DP_METER_BAND_TYPES (1u << OFPMBT13_DROP)

/* A bucket's tokens are bits for a kbps meter and packets for a pktps
 * meter.  A band of rate R earns one token every SCALE / R nanoseconds:
 * 1 kbps is 1000 bits in 1e9 ns, one bit per 1e6 ns; 1 packet per second is
 * one packet per 1e9 ns. */
#define NS_PER_BIT_AT_1KBPS 1000000ULL
#define NS_PER_PACKET_AT_1PKTPS 1000000000ULL

/* Bits in a kilobit, for a kbps band's burst size. */
#define BITS_PER_KBIT 1000ULL

/* One band's configuration.  Immutable once the meter is published.
 *
 * Every product below stays within 64 bits: the fill time of a bucket,
 * 'burst_ns', is burst_size * 1e9 / rate ns at most (burst_size is 32 bits,
 * so below 4.3e18), and tokens * scale and elapsed_ns * rate are bounded by
 * the same burst_size * 1e9. */
struct meter_band {
    uint32_t rate;              /* kbps or packets per second, nonzero. */
    uint64_t scale;             /* NS_PER_BIT_AT_1KBPS or
                                 * NS_PER_PACKET_AT_1PKTPS. */
    long long int burst_ns;     /* Time to fill the bucket from empty. */
};

/* The shared token buckets of one meter, one cache line, apart from the
 * read-only configuration.
 *
 * A bucket is kept as the time, in ns, at which it would be empty (the
 * "theoretical arrival time" of GCRA, RFC 2697's token bucket in virtual
 * time): at time 'now' it holds the tokens earned from
 * MAX(empty_at, now - burst_ns) to 'now'.  Taking tokens moves 'empty_at'
 * forward by their cost in time, so one word holds the whole state and one
 * compare-and-swap updates it: there is no separate "last refill" time to
 * keep consistent.  LLONG_MIN means full. */
struct meter_buckets {
    atomic_llong empty_at[DP_METER_MAX_BANDS];
};
BUILD_ASSERT_DECL(sizeof(struct meter_buckets) <= CACHE_LINE_SIZE);

/* One band's counters in one thread's slot. */
struct meter_band_counters {
    atomic_ullong packets;      /* Packets this band dropped. */
    atomic_ullong bytes;        /* Their bytes. */
};

/* One thread's statistics of one meter.  Written only by that thread, with
 * relaxed loads and stores (no read-modify-write); read by dp_meter_get()
 * with relaxed loads, so that it never sees a torn value. */
struct meter_slot {
    atomic_ullong packets_in;   /* Packets that reached the meter. */
    atomic_ullong bytes_in;     /* Their bytes. */
    struct meter_band_counters bands[]; /* 'n_bands' elements. */
};

struct dp_meter {
    struct cmap_node node;      /* In dp_meter_table 'meters', by id. */
    uint32_t id;                /* ofproto's datapath meter id. */
    uint16_t flags;             /* OFPMF13_*. */
    uint16_t n_bands;           /* Elements in 'bands'. */
    struct meter_band bands[DP_METER_MAX_BANDS];

    struct meter_buckets *buckets; /* Shared by all threads; see above. */

    /* Statistics: 'n_slots' slots of 'slot_size' bytes, each on cache lines
     * of its own; the slot at index i belongs to the thread with dense
     * index i. */
    size_t n_slots;
    size_t slot_size;
    char *slots;
};

struct dp_meter_table {
    /* Serialises the writers: dp_meter_set() and dp_meter_del(), which
     * ofproto calls from the main thread and from the RCU thread. */
    struct ovs_mutex mutex;
    struct cmap meters;         /* Contains "struct dp_meter"s, by id.
                                 * Readers need no lock, under RCU. */
    size_t n_threads;           /* Statistics slots per meter. */
};

/* OVS's dpif-netdev defines the coverage counter "datapath_drop_meter",
 * which operators and OVS's own tests read for meter drops.  That object is
 * linked into ovs-vswitchd (lib/dpif.c names its class), so a second counter
 * of that name would not link; and dpif-netdev never runs here, so its
 * counter would stay at zero.  Instead our drops are kept in a per-thread
 * counter of our own, and the shared counter's collection callback, which
 * coverage.c calls in each thread to move that thread's count into the
 * total, is pointed at a function that returns ours plus dpif-netdev's.  It
 * is set by a constructor, before any thread exists. */
extern struct coverage_counter counter_datapath_drop_meter;
DEFINE_STATIC_PER_THREAD_DATA(unsigned int, dp_meter_drops, 0);
static unsigned int (*netdev_drop_meter_count)(void);

/* The collection callback of "datapath_drop_meter": returns and zeroes the
 * calling thread's count of meter drops, ours and dpif-netdev's. */
static unsigned int
drop_meter_count(void)
{
    unsigned int *countp = dp_meter_drops_get();
    unsigned int count = *countp;

    *countp = 0;
    return count + netdev_drop_meter_count();
}

OVS_CONSTRUCTOR(dp_meter_init_coverage)
{
    /* 'count' is declared const because coverage.c never changes it; the
     * object itself is writable data, and nothing reads it yet. */
    unsigned int (**countp)(void)
        = CONST_CAST(unsigned int (**)(void),
                     &counter_datapath_drop_meter.count);

    netdev_drop_meter_count = *countp;
    *countp = drop_meter_count;
}

/* Relaxed add to a counter that only the calling thread writes. */
static inline void
counter_add(atomic_ullong *counter, uint64_t n)
{
    unsigned long long v;

    atomic_read_relaxed(counter, &v);
    atomic_store_relaxed(counter, v + n);
}

/* Relaxed read of a counter that another thread may be writing. */
static inline uint64_t
counter_read(const atomic_ullong *counter)
{
    unsigned long long v;

    atomic_read_relaxed(CONST_CAST(atomic_ullong *, counter), &v);
    return v;
}

/* The hash of 'meter_id' in a table's 'meters'. */
static uint32_t
meter_hash(uint32_t meter_id)
{
    return hash_int(meter_id, 0);
}

/* The statistics slot of the thread with dense index 'index'. */
static struct meter_slot *
meter_slot(const struct dp_meter *meter, size_t index)
{
    return ALIGNED_CAST(struct meter_slot *,
                        meter->slots + index * meter->slot_size);
}

/* Returns the meter with id 'meter_id' in 'table', or NULL.  Under RCU. */
static struct dp_meter *
meter_lookup(const struct dp_meter_table *table, uint32_t meter_id)
{
    struct dp_meter *meter;

    CMAP_FOR_EACH_WITH_HASH (meter, node, meter_hash(meter_id),
                             &table->meters) {
        if (meter->id == meter_id) {
            return meter;
        }
    }
    return NULL;
}

/* Frees 'meter', which no thread can reach any more.  Accepts NULL. */
static void
meter_free(struct dp_meter *meter)
{
    if (meter) {
        free_cacheline(meter->buckets);
        free_cacheline(meter->slots);
        free(meter);
    }
}

/* Creates a meter table for a datapath whose forwarding threads have dense
 * indexes below 'n_threads'. */
struct dp_meter_table *
dp_meter_table_create(size_t n_threads)
{
    struct dp_meter_table *table = xmalloc(sizeof *table);

    ovs_assert(n_threads > 0);
    ovs_mutex_init(&table->mutex);
    cmap_init(&table->meters);
    table->n_threads = n_threads;
    return table;
}

/* Frees 'table' and, after a grace period, its meters.  No forwarding thread
 * may run a meter of 'table' any more.  Accepts NULL. */
void
dp_meter_table_destroy(struct dp_meter_table *table)
{
    struct dp_meter *meter;

    if (!table) {
        return;
    }
    ovs_mutex_lock(&table->mutex);
    CMAP_FOR_EACH (meter, node, &table->meters) {
        cmap_remove(&table->meters, &meter->node, meter_hash(meter->id));
        ovsrcu_postpone(meter_free, meter);
    }
    ovs_mutex_unlock(&table->mutex);
    cmap_destroy(&table->meters);
    ovs_mutex_destroy(&table->mutex);
    free(table);
}

/* Reports what meters this datapath supports: what dpif-netdev does. */
void
dp_meter_get_features(struct ofputil_meter_features *features)
{
    features->max_meters = DP_METER_MAX_METERS;
    features->band_types = DP_METER_BAND_TYPES;
    features->capabilities = DP_METER_FLAGS;
    features->max_bands = DP_METER_MAX_BANDS;
    features->max_color = 0;
}

/* Adds meter 'meter_id' with 'config', or replaces it: a replaced meter
 * starts again with full buckets and zero statistics, as in dpif-netdev.
 * A band without a burst size gets its rate as burst size (one second's
 * worth), written back into 'config' as dpif-netdev does, so that ofproto
 * reports the burst size in use.
 *
 * Returns 0, or the errno values ofproto-dpif translates into OpenFlow
 * errors: EFBIG if 'meter_id' is out of range, EBADF for unsupported flags,
 * EINVAL for too many bands, ENODEV for an unsupported band type, EDOM for
 * a zero rate. */
int
dp_meter_set(struct dp_meter_table *table, uint32_t meter_id,
             struct ofputil_meter_config *config)
    OVS_EXCLUDED(table->mutex)
{
    bool pktps = config->flags & OFPMF13_PKTPS;
    struct dp_meter *meter, *old;

    if (meter_id >= DP_METER_MAX_METERS) {
        return EFBIG;
    }
    if (config->flags & ~DP_METER_FLAGS) {
        return EBADF;
    }
    if (config->n_bands > DP_METER_MAX_BANDS) {
        return EINVAL;
    }
    for (size_t i = 0; i < config->n_bands; i++) {
        if (config->bands[i].type != OFPMBT13_DROP) {
            return ENODEV;
        }
        if (!config->bands[i].rate) {
            return EDOM;
        }
    }

    meter = xzalloc(sizeof *meter);
    meter->id = meter_id;
    meter->flags = config->flags;
    meter->n_bands = config->n_bands;
    meter->buckets = xzalloc_cacheline(sizeof *meter->buckets);
    for (size_t i = 0; i < config->n_bands; i++) {
        struct ofputil_meter_band *cfg = &config->bands[i];
        struct meter_band *band = &meter->bands[i];
        uint64_t burst_tokens;

        if (!cfg->burst_size) {
            cfg->burst_size = cfg->rate;
        }
        band->rate = cfg->rate;
        band->scale = pktps ? NS_PER_PACKET_AT_1PKTPS : NS_PER_BIT_AT_1KBPS;
        burst_tokens = pktps ? cfg->burst_size
                             : cfg->burst_size * BITS_PER_KBIT;
        band->burst_ns = burst_tokens * band->scale / band->rate;
        atomic_init(&meter->buckets->empty_at[i], LLONG_MIN);
    }

    meter->n_slots = table->n_threads;
    meter->slot_size = ROUND_UP(sizeof(struct meter_slot)
                                + meter->n_bands
                                  * sizeof(struct meter_band_counters),
                                CACHE_LINE_SIZE);
    meter->slots = xzalloc_cacheline(meter->n_slots * meter->slot_size);

    ovs_mutex_lock(&table->mutex);
    old = meter_lookup(table, meter_id);
    if (old) {
        cmap_replace(&table->meters, &old->node, &meter->node,
                     meter_hash(meter_id));
        ovsrcu_postpone(meter_free, old);
    } else {
        cmap_insert(&table->meters, &meter->node, meter_hash(meter_id));
    }
    ovs_mutex_unlock(&table->mutex);
    return 0;
}

/* Sums the threads' statistics of 'meter' into 'stats', for at most
 * 'n_bands' bands. */
static void
meter_get_stats(const struct dp_meter *meter,
                struct ofputil_meter_stats *stats, uint16_t n_bands)
{
    size_t n = MIN(n_bands, meter->n_bands);

    stats->packet_in_count = 0;
    stats->byte_in_count = 0;
    for (size_t b = 0; b < n; b++) {
        stats->bands[b].packet_count = 0;
        stats->bands[b].byte_count = 0;
    }
    for (size_t i = 0; i < meter->n_slots; i++) {
        const struct meter_slot *slot = meter_slot(meter, i);

        stats->packet_in_count += counter_read(&slot->packets_in);
        stats->byte_in_count += counter_read(&slot->bytes_in);
        for (size_t b = 0; b < n; b++) {
            stats->bands[b].packet_count
                += counter_read(&slot->bands[b].packets);
            stats->bands[b].byte_count += counter_read(&slot->bands[b].bytes);
        }
    }
    stats->n_bands = n;
}

/* Stores the statistics of meter 'meter_id', summed over the threads, in
 * 'stats' (if nonnull), for at most 'n_bands' bands; 'stats->bands' must
 * have room for them.  Returns 0, EFBIG if 'meter_id' is out of range or
 * ENOENT if there is no such meter. */
int
dp_meter_get(const struct dp_meter_table *table, uint32_t meter_id,
             struct ofputil_meter_stats *stats, uint16_t n_bands)
{
    const struct dp_meter *meter;

    if (meter_id >= DP_METER_MAX_METERS) {
        return EFBIG;
    }
    meter = meter_lookup(table, meter_id);
    if (!meter) {
        return ENOENT;
    }
    if (stats) {
        meter_get_stats(meter, stats, n_bands);
    }
    return 0;
}

/* Deletes meter 'meter_id', first storing its statistics as dp_meter_get()
 * does.  Threads that still run the meter may do so until they quiesce; it
 * is freed after a grace period.  Returns 0, EFBIG or ENOENT. */
int
dp_meter_del(struct dp_meter_table *table, uint32_t meter_id,
             struct ofputil_meter_stats *stats, uint16_t n_bands)
    OVS_EXCLUDED(table->mutex)
{
    struct dp_meter *meter;
    int error = 0;

    if (meter_id >= DP_METER_MAX_METERS) {
        return EFBIG;
    }
    ovs_mutex_lock(&table->mutex);
    meter = meter_lookup(table, meter_id);
    if (meter) {
        if (stats) {
            meter_get_stats(meter, stats, n_bands);
        }
        cmap_remove(&table->meters, &meter->node, meter_hash(meter_id));
        ovsrcu_postpone(meter_free, meter);
    } else {
        error = ENOENT;
    }
    ovs_mutex_unlock(&table->mutex);
    return error;
}

/* Polices 'n' packets of sizes 'sizes', 'volume' tokens in all (packets
 * or bits), with band 'b' of 'meter' at time 'now'.  Takes the tokens of the
 * packets that conform from the band's shared bucket with one
 * compare-and-swap, and returns true if some packet exceeds the band, in
 * which case over[i] tells whether packet i does.  A packet that exceeds the
 * band takes no tokens, so a later, smaller one may still conform, as in
 * dpif-netdev.
 *
 * Whatever can be computed before reading the bucket is, so that the window
 * in which another thread's update makes the compare-and-swap fail and
 * retry stays short: when the bucket holds enough for the whole batch, as
 * it does below the rate, that window is a few instructions. */
static bool
band_police(const struct dp_meter *meter, size_t b, const uint32_t sizes[],
            size_t n, uint64_t volume, long long int now, bool over[])
{
    const struct meter_band *band = &meter->bands[b];
    atomic_llong *bucket = &meter->buckets->empty_at[b];
    bool pktps = meter->flags & OFPMF13_PKTPS;
    long long int floor_ns = now - band->burst_ns;
    long long int old, new;
    bool some_over;

    atomic_read_relaxed(bucket, &old);
    for (;;) {
        long long int base = MAX(old, floor_ns);
        uint64_t tokens = 0;
        uint64_t taken = 0;

        if (base < now) {
            tokens = (uint64_t) (now - base) * band->rate / band->scale;
        }
        if (OVS_LIKELY(tokens >= volume)) {
            /* The whole batch conforms. */
            taken = volume;
            some_over = false;
        } else if (pktps) {
            taken = tokens;
            for (size_t i = 0; i < n; i++) {
                over[i] = i >= taken;
            }
            some_over = true;
        } else {
            for (size_t i = 0; i < n; i++) {
                uint64_t bits = (uint64_t) sizes[i] * 8;

                over[i] = bits > tokens - taken;
                if (!over[i]) {
                    taken += bits;
                }
            }
            some_over = true;
        }
        if (!taken) {
            /* Every packet exceeds the band: nothing shared to write. */
            return some_over;
        }
        /* Round the cost up, so that rounding never lends tokens. */
        new = base + DIV_ROUND_UP(taken * band->scale, band->rate);
        if (atomic_compare_exchange_weak_explicit(bucket, &old, new,
                                                  memory_order_relaxed,
                                                  memory_order_relaxed)) {
            return some_over;
        }
        /* Another thread took tokens first: 'old' now holds its value. */
    }
}

/* Runs the packets of 'batch' through meter 'meter_id' at time 'now_ns' (a
 * monotonic time in nanoseconds, e.g. time_usec() * 1000), for the
 * forwarding thread with dense index 'thread_index'.  The packets that
 * exceed a band are removed from 'batch' and freed: the caller must own
 * them, even when it would otherwise keep its packets (as dpif-netdev, the
 * meter action always drops in place).  Packets pass untouched if there is
 * no such meter.  Returns the number of packets dropped.
 *
 * Writes only the thread's own statistics slot, plus one compare-and-swap
 * per band on the meter's shared buckets while they hold tokens. */
size_t
dp_meter_run(const struct dp_meter_table *table, uint32_t meter_id,
             size_t thread_index, struct dp_packet_batch *batch,
             long long int now_ns)
{
    size_t n = dp_packet_batch_size(batch);
    uint64_t band_packets[DP_METER_MAX_BANDS];
    uint64_t band_bytes[DP_METER_MAX_BANDS];
    uint32_t exceeded_rate[NETDEV_MAX_BURST];
    int8_t exceeded_band[NETDEV_MAX_BURST];
    uint32_t sizes[NETDEV_MAX_BURST];
    const struct dp_meter *meter;
    struct dp_packet *packet;
    struct meter_slot *slot;
    bool some_over = false;
    size_t n_dropped = 0;
    uint64_t volume;
    uint64_t bytes = 0;
    size_t i;

    if (!n || meter_id >= DP_METER_MAX_METERS) {
        return 0;
    }
    meter = meter_lookup(table, meter_id);
    if (!meter) {
        return 0;
    }
    ovs_assert(thread_index < meter->n_slots);

    DP_PACKET_BATCH_FOR_EACH (j, packet, batch) {
        sizes[j] = dp_packet_size(packet);
        bytes += sizes[j];
    }
    volume = meter->flags & OFPMF13_PKTPS ? n : bytes * 8;

    /* Each band takes the tokens of the packets that conform to it; a
     * packet that exceeds any band is dropped, and counted by the exceeded
     * band with the highest rate. */
    for (size_t b = 0; b < meter->n_bands; b++) {
        bool over[NETDEV_MAX_BURST];

        if (!band_police(meter, b, sizes, n, volume, now_ns, over)) {
            continue;
        }
        if (!some_over) {
            some_over = true;
            memset(exceeded_band, -1, sizeof exceeded_band);
            memset(exceeded_rate, 0, sizeof exceeded_rate);
            memset(band_packets, 0, sizeof band_packets);
            memset(band_bytes, 0, sizeof band_bytes);
        }
        for (size_t j = 0; j < n; j++) {
            if (over[j] && meter->bands[b].rate > exceeded_rate[j]) {
                exceeded_rate[j] = meter->bands[b].rate;
                exceeded_band[j] = b;
            }
        }
    }

    if (some_over) {
        DP_PACKET_BATCH_REFILL_FOR_EACH (i, n, packet, batch) {
            if (exceeded_band[i] >= 0) {
                band_packets[exceeded_band[i]]++;
                band_bytes[exceeded_band[i]] += sizes[i];
                dp_packet_delete(packet);
                n_dropped++;
            } else {
                dp_packet_batch_refill(batch, packet, i);
            }
        }
    }

    slot = meter_slot(meter, thread_index);
    counter_add(&slot->packets_in, n);
    counter_add(&slot->bytes_in, bytes);
    if (n_dropped) {
        for (size_t b = 0; b < meter->n_bands; b++) {
            if (band_packets[b]) {
                counter_add(&slot->bands[b].packets, band_packets[b]);
                counter_add(&slot->bands[b].bytes, band_bytes[b]);
            }
        }
        *dp_meter_drops_get() += n_dropped;
    }
    return n_dropped;
}

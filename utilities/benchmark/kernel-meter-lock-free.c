/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel-meter-benchmark's lock-free variant: the module's own meters,
 * datapath/meter.c compiled unchanged against kernel-shim-meter.h, driven
 * through meter.h as meter-family.c and the meter action drive them.
 */
#include "kernel-meter-variant.h"
#include "meter.h"

#define LOCK_FREE_METER_ID 7

static struct ovsp_meter_table *table;

static int
lock_free_create(u32 rate, u32 burst)
{
    struct ovsp_meter_config cfg = {
        .id = LOCK_FREE_METER_ID,
        .kbps = false,
        .keep_stats = true,
        .n_bands = 1,
        .bands = { { OVS_METER_BAND_TYPE_DROP, rate, burst } },
    };
    struct ovsp_meter_stats old;

    if (ovsp_meters_init()) {
        return -ENOMEM;
    }
    table = ovsp_meter_table_create();
    if (!table) {
        return -ENOMEM;
    }
    return ovsp_meter_set(table, &cfg, &old);
}

static bool
lock_free_execute(const struct sk_buff *skb)
{
    return ovsp_meter_execute(table, skb, LOCK_FREE_METER_ID);
}

static void
lock_free_read(u64 *packets, u64 *exceeded)
{
    struct ovsp_meter_stats stats;

    if (ovsp_meter_get(table, LOCK_FREE_METER_ID, &stats)) {
        *packets = *exceeded = 0;
        return;
    }
    *packets = stats.stats.n_packets;
    *exceeded = stats.bands[0].n_packets;
}

static void
lock_free_destroy(void)
{
    struct ovsp_meter_stats stats;

    ovsp_meter_del(table, LOCK_FREE_METER_ID, &stats);
    ovsp_meter_table_destroy(table);
    ovsp_meters_exit();
}

const struct kmb_variant kmb_lock_free = {
    "lock-free", lock_free_create, lock_free_execute, lock_free_read,
    lock_free_destroy,
};

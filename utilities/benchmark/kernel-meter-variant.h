/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One meter implementation as kernel-meter-benchmark runs it: one meter
 * with one drop band, made before the threads start and read after they
 * stop.
 */
#ifndef KERNEL_METER_VARIANT_H
#define KERNEL_METER_VARIANT_H 1

#include "kernel-shim-meter.h"

struct kmb_variant {
    const char *name;
    /* Makes the meter: 'rate' packets per second, 'burst' packets. */
    int (*create)(u32 rate, u32 burst);
    /* Runs one packet through it; true if it is dropped. */
    bool (*execute)(const struct sk_buff *);
    /* Packets it saw and packets its band counted as exceeding. */
    void (*read)(u64 *packets, u64 *exceeded);
    void (*destroy)(void);
};

extern const struct kmb_variant kmb_lock_free;   /* datapath/meter.c */
extern const struct kmb_variant kmb_locked;      /* kernel-meter-locked.c */

#endif /* kernel-meter-variant.h */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel-meter-benchmark's locked variant: the per-packet design of Linux
 * 6.1's openvswitch.ko meters, written here from its description (one
 * spinlock per meter, taken for every packet; under it the time of the
 * last packet, the meter's statistics, every band's bucket, refilled by
 * whole milliseconds and capped at the burst, and the exceeding band's
 * statistics, all in memory every CPU writes).  It is the baseline the
 * module's meters (datapath/meter.c) are measured against.  It finds its
 * meter as Linux does, in an array of slots indexed by the id modulo the
 * array's size (a size known only at run time, as Linux's table grows,
 * so the modulo is a division), with one compare of the id.
 *
 * The lock hands itself to waiters in the order they came, as the
 * kernel's queued spinlock does under contention (a ticket lock, which
 * x86 kernels used before it): a test-and-set lock would let its holder
 * take it again while the line is still in its cache, and run one CPU's
 * packets in long streaks that flatter the locked design.
 *
 * As in Linux, the clock is read before the lock is taken, and the time
 * of the last packet is set to it even when another CPU, holding the
 * lock first, set a later one: the meter's time then goes back, and the
 * same milliseconds refill the bucket again.  So on several CPUs the
 * design lets more packets through than the band allows; the benchmark
 * measures how many more.
 */
#include "kernel-meter-variant.h"

/* Bucket units per packet, as Linux's packets-per-second meters. */
#define LOCKED_UNITS_PER_PACKET 1000

struct locked_band {
    u32 rate;                   /* Packets per second. */
    u64 burst;                  /* Bucket size, in units. */
    u64 bucket;                 /* Units held. */
    u64 packets, bytes;         /* Exceeding the band. */
};

/* A ticket lock. */
struct ticket_lock {
    u32 next;                   /* The ticket the next taker gets. */
    u32 owner;                  /* The ticket that holds the lock. */
};

struct locked_meter {
    u32 id;
    struct ticket_lock lock;
    u64 used_ms;                /* Time of the last packet. */
    u32 max_delta_ms;           /* Refill time that fills every band. */
    u64 packets, bytes;         /* Every packet. */
    struct locked_band band;
};

/* The meter's id, and the slots of the table it is found in. */
#define LOCKED_METER_ID 7
#define LOCKED_TABLE_SLOTS 1024

static struct locked_meter *slots[LOCKED_TABLE_SLOTS];
static u32 n_slots = LOCKED_TABLE_SLOTS;  /* Read at run time. */
static struct locked_meter *meter;

static void
ticket_lock(struct ticket_lock *lock)
{
    u32 ticket = __atomic_fetch_add(&lock->next, 1, __ATOMIC_RELAXED);

    while (__atomic_load_n(&lock->owner, __ATOMIC_ACQUIRE) != ticket) {
        cpu_relax();
    }
}

static void
ticket_unlock(struct ticket_lock *lock)
{
    __atomic_store_n(&lock->owner, lock->owner + 1, __ATOMIC_RELEASE);
}

static int
locked_create(u32 rate, u32 burst)
{
    meter = kzalloc(sizeof *meter, GFP_KERNEL);
    if (!meter) {
        return -ENOMEM;
    }
    meter->band.rate = rate;
    meter->band.burst = (u64) burst * LOCKED_UNITS_PER_PACKET;
    meter->band.bucket = meter->band.burst;
    meter->max_delta_ms = (meter->band.burst + rate - 1) / rate;
    meter->id = LOCKED_METER_ID;
    meter->used_ms = div_u64(ktime_get_ns(), NSEC_PER_MSEC);
    __atomic_store_n(&slots[LOCKED_METER_ID % LOCKED_TABLE_SLOTS], meter,
                     __ATOMIC_RELEASE);
    return 0;
}

/* The meter of 'id', or NULL. */
static struct locked_meter *
locked_lookup(u32 id)
{
    struct locked_meter *m;

    m = __atomic_load_n(&slots[id % READ_ONCE(n_slots)], __ATOMIC_ACQUIRE);
    return m && m->id == id ? m : NULL;
}

static bool
locked_execute(const struct sk_buff *skb)
{
    u64 now_ms = div_u64(ktime_get_ns(), NSEC_PER_MSEC);
    struct locked_meter *meter = locked_lookup(LOCKED_METER_ID);
    struct locked_band *band;
    s64 elapsed_ms;
    u32 delta_ms;
    bool exceeded;

    if (!meter) {
        return false;
    }
    band = &meter->band;

    ticket_lock(&meter->lock);
    elapsed_ms = now_ms - meter->used_ms;
    if (elapsed_ms < 0) {
        elapsed_ms = 0;
    }
    delta_ms = elapsed_ms > meter->max_delta_ms ? meter->max_delta_ms
                                                : (u32) elapsed_ms;
    meter->used_ms = now_ms;
    meter->packets++;
    meter->bytes += skb->len;

    band->bucket += (u64) delta_ms * band->rate;
    if (band->bucket > band->burst) {
        band->bucket = band->burst;
    }
    exceeded = band->bucket < LOCKED_UNITS_PER_PACKET;
    if (exceeded) {
        band->packets++;
        band->bytes += skb->len;
    } else {
        band->bucket -= LOCKED_UNITS_PER_PACKET;
    }
    ticket_unlock(&meter->lock);
    return exceeded;
}

static void
locked_read(u64 *packets, u64 *exceeded)
{
    ticket_lock(&meter->lock);
    *packets = meter->packets;
    *exceeded = meter->band.packets;
    ticket_unlock(&meter->lock);
}

static void
locked_destroy(void)
{
    __atomic_store_n(&slots[LOCKED_METER_ID % LOCKED_TABLE_SLOTS], NULL,
                     __ATOMIC_RELEASE);
    kfree(meter);
    meter = NULL;
}

const struct kmb_variant kmb_locked = {
    "locked", locked_create, locked_execute, locked_read, locked_destroy,
};

/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/*
 * The reader of the two flow-statistics stress tests: test-flow-stats
 * (lib/flow/flow-stats.c, Apache-2.0, linked with OVS) and
 * test-kernel-flow-stats (datapath/flow-stats.c against the kernel shim,
 * GPL-2.0).  Dual-licensed so that both can include it; plain C and libc
 * only, as the shim's programs are built without OVS.
 *
 * While writer threads hit one flow, the reader reads the flow's total
 * and its slots over and over (or clears the flow and reads it again) and
 * checks every read: no count lower than the read before it, none above
 * the hits made, no slot with another writer's TCP flags and, where asked
 * ('whole'), bytes exactly 'hit_len' times packets.  A test describes its
 * flow and writers with a struct fsr_reader; the reader fails through the
 * test's own 'fail', which does not return.
 */
#ifndef FLOW_STATS_READER_H
#define FLOW_STATS_READER_H 1

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The most slots a reader reads. */
#define FSR_MAX_SLOTS 32

/* The most writers a reader tracks. */
#define FSR_MAX_WRITERS 32

/* One read of a flow's total or of one of its slots. */
struct fsr_read {
    uint64_t n_packets;
    uint64_t n_bytes;
    uint16_t tcp_flags;
};

/* What the reader needs of a test. */
struct fsr_reader {
    unsigned int n_writers;     /* At most FSR_MAX_WRITERS. */
    unsigned int n_slots;       /* Slots 0 to n_slots - 1 are read; at
                                 * most FSR_MAX_SLOTS. */
    uint64_t hit_len;           /* Bytes of every hit. */
    bool whole;                 /* Every read has 'hit_len' bytes a packet. */

    void (*read_total)(struct fsr_read *);
    void (*read_slot)(unsigned int slot, struct fsr_read *);
    void (*clear)(void);
    unsigned int (*slot_of)(unsigned int writer);   /* Where it counts. */
    uint16_t (*flag_of)(unsigned int writer);       /* Its hits' flags. */
    unsigned long long (*done)(unsigned int writer); /* Its hits so far. */
    void (*fail)(const char *message);              /* Does not return. */

    unsigned long long *rounds; /* Moved on after each pass, which the
                                 * writers wait for to keep pace. */
};

static inline void __attribute__((__format__(printf, 2, 3)))
fsr_fail(const struct fsr_reader *r, const char *format, ...)
{
    char message[256];
    va_list args;

    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    r->fail(message);
}

/* Hits the writers have made so far. */
static inline unsigned long long
fsr_all_done(const struct fsr_reader *r)
{
    unsigned long long sum = 0;

    for (unsigned int w = 0; w < r->n_writers; w++) {
        sum += r->done(w);
    }
    return sum;
}

/* Whether the writers, to make 'hits' each, still run. */
static inline bool
fsr_writers_running(const struct fsr_reader *r, unsigned long long hits)
{
    return fsr_all_done(r) < r->n_writers * hits;
}

/* Checks one read 'cur' of 'what' against the read before it, 'prev'
 * (which it then becomes), against 'max_hits' hits made since it can have
 * started counting, and its TCP flags against 'flags'. */
static inline void
fsr_check(const struct fsr_reader *r, const char *what,
          const struct fsr_read *cur, struct fsr_read *prev,
          unsigned long long max_hits, uint16_t flags)
{
    if (cur->n_packets < prev->n_packets || cur->n_bytes < prev->n_bytes) {
        fsr_fail(r, "%s went down: %llu packets, %llu bytes after %llu, "
                 "%llu", what, (unsigned long long) cur->n_packets,
                 (unsigned long long) cur->n_bytes,
                 (unsigned long long) prev->n_packets,
                 (unsigned long long) prev->n_bytes);
    }
    if (cur->n_packets > max_hits || cur->n_bytes > max_hits * r->hit_len) {
        fsr_fail(r, "%s above the hits: %llu packets, %llu bytes, at most "
                 "%llu hits made", what, (unsigned long long) cur->n_packets,
                 (unsigned long long) cur->n_bytes, max_hits);
    }
    if (cur->tcp_flags & ~flags) {
        fsr_fail(r, "%s has TCP flags %#x, only %#x were counted there",
                 what, cur->tcp_flags, flags);
    }
    if (r->whole && cur->n_bytes != cur->n_packets * r->hit_len) {
        fsr_fail(r, "%s torn: %llu packets but %llu bytes", what,
                 (unsigned long long) cur->n_packets,
                 (unsigned long long) cur->n_bytes);
    }
    *prev = *cur;
}

/* The TCP flags of the writers that count in slot 'slot'. */
static inline uint16_t
fsr_flags_of_slot(const struct fsr_reader *r, unsigned int slot)
{
    uint16_t flags = 0;

    for (unsigned int w = 0; w < r->n_writers; w++) {
        if (r->slot_of(w) == slot) {
            flags |= r->flag_of(w);
        }
    }
    return flags;
}

/* The TCP flags of every writer. */
static inline uint16_t
fsr_all_flags(const struct fsr_reader *r)
{
    uint16_t flags = 0;

    for (unsigned int w = 0; w < r->n_writers; w++) {
        flags |= r->flag_of(w);
    }
    return flags;
}

/* Reads the total and every slot until the writers have made 'hits' each,
 * checking each read.  Returns the number of reads of the total. */
static inline unsigned long long
fsr_read_while_writing(const struct fsr_reader *r, unsigned long long hits)
{
    struct fsr_read prev_total = { 0, 0, 0 };
    struct fsr_read prev_slot[FSR_MAX_SLOTS];
    unsigned long long reads = 0;

    for (unsigned int slot = 0; slot < FSR_MAX_SLOTS; slot++) {
        prev_slot[slot] = prev_total;
    }
    while (fsr_writers_running(r, hits)) {
        struct fsr_read cur;
        char what[32];

        r->read_total(&cur);
        /* A hit is counted before its writer's 'done' says so: one each
         * may be in flight. */
        fsr_check(r, "the total", &cur, &prev_total,
                  fsr_all_done(r) + r->n_writers, fsr_all_flags(r));
        reads++;

        for (unsigned int slot = 0; slot < r->n_slots; slot++) {
            unsigned long long max = 0;

            r->read_slot(slot, &cur);
            for (unsigned int w = 0; w < r->n_writers; w++) {
                if (r->slot_of(w) == slot) {
                    max += r->done(w) + 1;
                }
            }
            snprintf(what, sizeof what, "slot %u", slot);
            fsr_check(r, what, &cur, &prev_slot[slot], max,
                      fsr_flags_of_slot(r, slot));
        }
        __atomic_fetch_add(r->rounds, 1, __ATOMIC_RELAXED);
    }
    return reads;
}

/* The reads of the total and of a slot after each clear. */
#define FSR_READS_PER_CLEAR 2

/* Clears the flow over and over until the writers have made 'hits' each,
 * and after each clear reads the total and a writer's slot (each writer's
 * in turn), checking that nothing counted before the clear shows after
 * it.  Returns the number of clears. */
static inline unsigned long long
fsr_clear_while_writing(const struct fsr_reader *r, unsigned long long hits)
{
    unsigned long long clears = 0;

    while (fsr_writers_running(r, hits)) {
        struct fsr_read prev_total = { 0, 0, 0 };
        unsigned long long before[FSR_MAX_WRITERS], sum_before = 0;

        /* Hits made before the clear began must not be counted after it;
         * one hit per writer may be made but not yet in 'done'. */
        for (unsigned int w = 0; w < r->n_writers; w++) {
            before[w] = r->done(w);
            sum_before += before[w];
        }
        r->clear();
        clears++;
        for (int i = 0; i < FSR_READS_PER_CLEAR; i++) {
            struct fsr_read cur, prev_slot = { 0, 0, 0 };
            unsigned int w = (clears + i) % r->n_writers;
            unsigned int slot = r->slot_of(w);
            char what[64];

            r->read_total(&cur);
            fsr_check(r, "the total since the clear", &cur, &prev_total,
                      fsr_all_done(r) - sum_before + r->n_writers,
                      fsr_all_flags(r));
            r->read_slot(slot, &cur);
            snprintf(what, sizeof what, "slot %u since the clear", slot);
            fsr_check(r, what, &cur, &prev_slot,
                      r->done(w) - before[w] + 1, r->flag_of(w));
        }
        __atomic_fetch_add(r->rounds, 1, __ATOMIC_RELAXED);
    }
    return clears;
}

#endif /* flow-stats-reader.h */

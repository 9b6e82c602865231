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

#ifndef PMD_H
#define PMD_H 1

/* Forwarding threads: the PMD threads and the main thread's non-PMD context.
 *
 * Every forwarding thread has a small dense index, and that index is "the
 * CPU" of every per-CPU structure: its flow-stats slot, its exact-match cache
 * and its counters.  Index 0 is the non-PMD context, which the main thread
 * uses to poll non-PMD ports and which any other thread borrows, under
 * 'non_pmd_mutex', to execute packets.  PMD threads take indexes from 1.
 *
 * A thread's poll list, cache, counters and scratch buffers are owned by that
 * thread.  The main thread replaces a poll list only through the reload
 * handshake in pmd_thread_reload(), and reads counters with relaxed
 * atomics. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dp-packet.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/thread.h"
#include "openvswitch/types.h"
#include "ovs-atomic.h"
#include "ovs-rcu.h"

struct datapath;
struct dp_port;
struct ds;
struct seq;
struct flow_cache;
struct flow_table_ranking;
struct netdev_rxq;

/* Per-thread counters, in the spirit of dpif-netdev/pmd-stats-show. */
enum pmd_counter {
    PMD_RX_PACKETS,             /* Packets received from ports. */
    PMD_RECIRC_PACKETS,         /* Packets recirculated. */
    PMD_EMC_HITS,               /* Hits in the exact-match cache. */
    PMD_MEGAFLOW_HITS,          /* Hits in the shared megaflow table. */
    PMD_MISSES,                 /* Missed both. */
    PMD_UPCALLS,                /* Misses the upcall handled. */
    PMD_LOST,                   /* Misses dropped: upcall failed or off. */
    PMD_NOT_INSTALLED,          /* Upcalls executed but not installed: at
                                 * ofproto's flow limit (ENOSPC) or the
                                 * table's (flow_table_set_max()). */
    PMD_DROP_SHORT,             /* Dropped: shorter than an Ethernet header. */
    PMD_DROP_RECIRC_DEPTH,      /* Dropped: recirculated too deeply. */
    PMD_DROP_NO_PORT,           /* Dropped: output to a missing port. */
    PMD_DROP_UNSUPPORTED,       /* Dropped: action this datapath lacks. */
    PMD_DROP_TUNNEL,            /* Dropped: output to a tunnel port of a
                                 * type this datapath lacks. */
    PMD_DROP_METER,             /* Dropped by a meter band. */
    PMD_DROP_ACTION_SHORT,      /* Dropped: shorter than a header its
                                 * actions write (dp-actions-guard.h). */

    PMD_BUSY_CYCLES,            /* TSC cycles in rounds that got packets. */
    PMD_IDLE_CYCLES,            /* TSC cycles in rounds that got none. */
    PMD_BUSY_ROUNDS,            /* Poll rounds that got packets... */
    PMD_IDLE_ROUNDS,            /* ...and that got none. */
    PMD_SENT_PACKETS,           /* Packets handed to netdev sends... */
    PMD_SENT_BATCHES,           /* ...in this many output batches. */
    PMD_SLEEPS,                 /* Idle sleeps... */
    PMD_SLEEP_CYCLES,           /* ...and the cycles they lasted. */
    PMD_N_COUNTERS
};

/* One entry of a thread's poll list. */
struct pmd_poll {
    struct dp_port *port;       /* Owner of 'rxq'. */
    struct netdev_rxq *rxq;     /* The queue polled. */
    int qid;                    /* Its index in 'port'. */
    atomic_ullong cycles;       /* Cycles spent receiving and forwarding
                                 * this queue's batches since the list was
                                 * installed.  Written by the polling thread
                                 * only, read by the main thread. */
};

/* Most ports one thread queues output for at once; more flush early. */
#define PMD_MAX_TX_QUEUES 16

/* Packets a thread has queued for output on one port. */
struct pmd_tx_queue {
    struct dp_port *port;
    struct dp_packet_batch batch;
};

struct pmd_thread {
    struct datapath *dp;        /* Owning datapath. */
    unsigned index;             /* Dense index: stats slot, tx queue. */
    unsigned core_id;           /* CPU core, or NON_PMD_CORE_ID. */
    pthread_t thread;           /* PMD threads only. */

    /* Owned by the thread itself. */
    struct flow_cache *cache;   /* Exact-match cache. */
    struct flow_table_ranking *ranking; /* Subtable order, by own hits. */
    long long int next_ranking_sort;    /* When to re-sort it, in ms. */
    struct pmd_poll *polls;     /* Queues this thread polls... */
    size_t n_polls;             /* ...and how many. */
    bool polls_can_wait;        /* Every queue in 'polls' can wake the
                                 * thread (netdev_rxq_wait()), so an idle
                                 * thread sleeps in poll_block() instead of
                                 * a fixed sleep. */
    uint32_t recirc_depth;      /* Current recirculation nesting. */
    /* What the running actions were chosen for: the megaflow hit, or the
     * whole key of an upcalled or executed packet ('exec_key' wins), or
     * neither.  Their transport ports name a ct() helper's control port,
     * as in dpif-netdev. */
    const struct megaflow *exec_flow;
    const struct flow *exec_key;
    uint32_t sweep_countdown;   /* Rounds, for the cache sweep's pace. */

    /* The exact-match cache's recent hit rate, measured over windows of
     * lookups.  While it hits too rarely to pay for its lookups (a working
     * set far larger than the cache), lookups stop for a while. */
    uint32_t emc_window_lookups;
    uint32_t emc_window_hits;
    uint32_t emc_skip_batches;  /* Batches left to forward without it. */
    bool emc_wide;              /* The last window missed often enough that
                                 * the thread's flows outnumber its cache,
                                 * and likely the CPU's: cache lookups by
                                 * header key are then made for the whole
                                 * batch at once (dp-input.c). */
    struct pmd_tx_queue tx_queues[PMD_MAX_TX_QUEUES]; /* Pending output. */
    size_t n_tx_queues;         /* Elements of 'tx_queues' in use. */

    long long int now;          /* Time of the current round, in ms. */
    atomic_ullong counters[PMD_N_COUNTERS]; /* Written by this thread only. */

    /* Owned by the main thread: the base that pmd-stats-clear subtracts,
     * and when it was recorded (time_msec()), for pmd-perf-show's
     * measurement duration. */
    uint64_t counters_base[PMD_N_COUNTERS];
    long long int counters_base_ms;

    /* Owned by the main thread, set as it assigns queues: the thread polls
     * queues pinned to it by pmd-rxq-affinity while pmd-rxq-isolate is
     * true, so no other queue is given to it. */
    bool isolated;

    /* Written by the thread when it installs a poll list: its busy, idle
     * and sleep cycles then, and the time (time_msec()), so that a queue's
     * 'cycles' can be read as a share of the thread's cycles since. */
    atomic_ullong polls_base_busy;
    atomic_ullong polls_base_idle;
    atomic_ullong polls_base_sleep;
    atomic_llong polls_base_ms;

    /* Reload handshake.  The main thread fills 'next_polls' and sets
     * 'reload'; the thread installs them and clears 'reload'. */
    struct pmd_poll *next_polls;
    size_t n_next_polls;
    atomic_bool reload;
    atomic_bool exit;           /* Set with 'reload' to stop the thread. */
    struct seq *wake_seq;       /* Changed after 'reload' is set, to wake
                                 * the thread from poll_block(). */
    atomic_int max_sleep_us;    /* Longest idle sleep, from pmd-maxsleep. */
};

struct pmd_thread *pmd_thread_create_non_pmd(struct datapath *);
struct pmd_thread *pmd_thread_start(struct datapath *, unsigned index,
                                    unsigned core_id, int max_sleep_us);
void pmd_thread_stop(struct pmd_thread *);
void pmd_thread_destroy(struct pmd_thread *);
void pmd_thread_reload(struct pmd_thread *, struct pmd_poll *, size_t n);

void pmd_thread_poll_once(struct pmd_thread *);
struct pmd_thread *pmd_thread_self(const struct datapath *);

/* Counters. */
static inline void
pmd_counter_add(struct pmd_thread *t, enum pmd_counter c, uint64_t n)
{
    unsigned long long v;

    atomic_read_relaxed(&t->counters[c], &v);
    atomic_store_relaxed(&t->counters[c], v + n);
}

void pmd_thread_format_name(struct ds *, const struct pmd_thread *);
void pmd_thread_read_counters(const struct pmd_thread *,
                              uint64_t counters[PMD_N_COUNTERS]);
void pmd_thread_clear_counters(struct pmd_thread *);
void pmd_thread_read_poll_cycles(const struct pmd_thread *, uint64_t *cycles,
                                 uint64_t *busy, uint64_t *idle,
                                 uint64_t *sleep, long long int *age_ms);
uint64_t pmd_cycles_hz(void);

#endif /* pmd.h */

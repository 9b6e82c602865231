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

/* Forwarding threads: the PMD threads and the non-PMD context. */

#include <config.h>
#include "pmd.h"

#include <string.h>

#include "coverage.h"
#include "datapath.h"
#include "dp-input.h"
#include "dp-ipf.h"
#include "dp-packet.h"
#include "dp-port.h"
#include "dpif-netdev.h"
#include "flow-cache.h"
#include "flow-table.h"
#include "ipf-cpu.h"
#include "netdev.h"
#include "netdev-provider.h"
#include "openvswitch/poll-loop.h"
#include "dpdk.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "ovs-numa.h"
#include "ovs-rcu.h"
#include "seq.h"
#include "timeval.h"
#include "tso-segsz.h"
#include "tunnel-neigh-queue.h"
#include "util.h"
#include "vport-tunnel.h"

VLOG_DEFINE_THIS_MODULE(pmd);

/* Poll rounds between two RCU quiescent states of a busy PMD thread.
 * Quiescing writes shared memory, so a busy thread does it rarely, as
 * dpif-netdev does. */
#define PMD_QUIESCE_INTERVAL 1024

/* How often a busy thread re-sorts its subtable ranking, in ms: often
 * enough to follow traffic, rarely enough to cost nothing per packet.  As
 * dpif-netdev's DPCLS_OPTIMIZATION_INTERVAL. */
#define PMD_RANKING_SORT_INTERVAL_MS 1000

/* Empty rounds before an idle PMD thread starts to sleep, and its first
 * sleep, in microseconds; each further empty round doubles the sleep up to
 * the thread's 'max_sleep_us'.  When every queue it polls can wake it, the
 * thread sleeps in poll_block() instead, woken by the first packet, for at
 * least 1 ms (poll_block()'s resolution): the ramp then only bounds how
 * often it wakes with nothing to do. */
#define PMD_IDLE_ROUNDS_BEFORE_SLEEP 64
#define PMD_FIRST_SLEEP_US 8

/* A busy thread sweeps its exact-match cache for dead megaflows once every
 * this many rounds; an idle one, every round.  Sweeping reads flows that
 * are likely out of cache, so a busy thread does little of it. */
#define PMD_BUSY_SWEEP_INTERVAL 64

/* Returns a cycle count for the busy and idle counters: the TSC where there
 * is one, otherwise nanoseconds. */
static inline uint64_t
pmd_cycles_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
    uint32_t high, low;

    asm volatile("rdtsc" : "=a" (low), "=d" (high));
    return ((uint64_t) high << 32) | low;
#else
    return time_usec() * 1000;
#endif
}

static struct pmd_thread *
pmd_thread_alloc(struct datapath *dp, unsigned index, unsigned core_id,
                 int max_sleep_us)
{
    struct pmd_thread *t = xzalloc_cacheline(sizeof *t);

    t->dp = dp;
    t->index = index;
    t->core_id = core_id;
    t->cache = flow_cache_create();
    t->ranking = flow_table_ranking_create();
    for (int i = 0; i < PMD_N_COUNTERS; i++) {
        atomic_init(&t->counters[i], 0);
    }
    t->counters_base_ms = time_msec();
    atomic_init(&t->polls_base_busy, 0);
    atomic_init(&t->polls_base_idle, 0);
    atomic_init(&t->polls_base_sleep, 0);
    atomic_init(&t->polls_base_ms, t->counters_base_ms);
    atomic_init(&t->reload, false);
    atomic_init(&t->exit, false);
    atomic_init(&t->max_sleep_us, max_sleep_us);
    t->wake_seq = seq_create();
    t->now = time_msec();
    return t;
}

/* Creates the non-PMD context, index 0, which has no thread of its own. */
struct pmd_thread *
pmd_thread_create_non_pmd(struct datapath *dp)
{
    return pmd_thread_alloc(dp, 0, NON_PMD_CORE_ID, 0);
}

/* Frees 't', which must be stopped (or be the non-PMD context).  Accepts
 * NULL. */
void
pmd_thread_destroy(struct pmd_thread *t)
{
    if (!t) {
        return;
    }
    flow_cache_destroy(t->cache);
    flow_table_ranking_destroy(t->ranking);
    free(t->polls);
    free(t->next_polls);
    seq_destroy(t->wake_seq);
    free_cacheline(t);
}

/* Clears the stale segment size of every packet of 'batch' marked for TCP
 * segmentation, received from a netdev that keeps none. */
static void
forget_tso_segsz(struct dp_packet_batch *batch)
{
    struct dp_packet *packet;

    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        if (dp_packet_hwol_is_tso(packet)) {
            tso_segsz_forget(packet);
        }
    }
}

/* Receives one batch from each queue in 't''s poll list and forwards it.
 * Returns the number of packets received. */
static int
poll_round(struct pmd_thread *t)
{
    uint64_t start = pmd_cycles_now();
    int n_packets = 0;

    uint64_t queue_start = start;

    for (size_t i = 0; i < t->n_polls; i++) {
        struct pmd_poll *poll = &t->polls[i];
        struct dp_packet_batch batch;

        dp_packet_batch_init(&batch);
        if (!netdev_rxq_recv(poll->rxq, &batch, NULL)) {
            int n = dp_packet_batch_size(&batch);
            unsigned long long cycles;
            uint64_t queue_end;

            n_packets += n;
            t->now = time_msec();
            pmd_counter_add(t, PMD_RX_PACKETS, n);
            if (poll->port->rx_segsz_unknown) {
                forget_tso_segsz(&batch);
            }
            dp_input_batch(t, &batch, poll->port->port_no);

            /* The queue's share, as dpif-netdev measures it per rxq for
             * pmd-rxq-show and cycles-based assignment: from the end of
             * the previous busy queue (or the round's start) to now. */
            queue_end = pmd_cycles_now();
            atomic_read_relaxed(&poll->cycles, &cycles);
            atomic_store_relaxed(&poll->cycles,
                                 cycles + (queue_end - queue_start));
            queue_start = queue_end;
        }
    }
    if (OVS_UNLIKELY(tunnel_neigh_queue_busy(t))) {
        /* Frames waiting for a next hop that may have resolved. */
        tunnel_neigh_queue_run(t);
    }
    if (vport_tunnel_has_active(t)) {
        /* The end of the round for the tunnels' GRO cells. */
        dp_input_finish_round(t);
    }
    /* Time out the datagrams that will not complete, under load too. */
    dp_ipf_thread_run(t, n_packets != 0);
    if (!n_packets || !(++t->sweep_countdown % PMD_BUSY_SWEEP_INTERVAL)) {
        flow_cache_sweep(t->cache, flow_table_n_removed(t->dp->table));
    }
    if (n_packets && t->now >= t->next_ranking_sort) {
        flow_table_ranking_sort(t->ranking);
        t->next_ranking_sort = t->now + PMD_RANKING_SORT_INTERVAL_MS;
    }
    pmd_counter_add(t, n_packets ? PMD_BUSY_CYCLES : PMD_IDLE_CYCLES,
                    pmd_cycles_now() - start);
    pmd_counter_add(t, n_packets ? PMD_BUSY_ROUNDS : PMD_IDLE_ROUNDS, 1);
    return n_packets;
}

/* Polls the non-PMD context's queues once.  The caller holds the datapath's
 * 'non_pmd_mutex'. */
void
pmd_thread_poll_once(struct pmd_thread *t)
    OVS_REQUIRES(t->dp->non_pmd_mutex)
{
    poll_round(t);
}

/* Returns true if every queue of 'polls' (n of them) can wake a thread
 * sleeping in poll_block(): their netdev class has an rxq_wait (DPDK's and
 * AF_XDP's have none). */
static bool
pmd_polls_can_wait(const struct pmd_poll *polls, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!polls[i].rxq->netdev->netdev_class->rxq_wait) {
            return false;
        }
    }
    return true;
}

/* Sleeps up to 'sleep_us' microseconds, or, if every queue of 't' can wake
 * it, until one has packets, for up to 'sleep_us' rounded up to a
 * millisecond.  The thread is quiescent meanwhile. */
static void
pmd_thread_idle_sleep(struct pmd_thread *t, int sleep_us)
{
    if (t->polls_can_wait) {
        /* A reload must wake the thread even where time does not pass
         * (the test suite's time/stop).  The seq is read before 'reload',
         * which the main thread sets before changing the seq. */
        uint64_t wake_seqno = seq_read(t->wake_seq);
        bool reload;

        atomic_read_explicit(&t->reload, &reload, memory_order_acquire);
        if (reload) {
            return;
        }
        seq_wait(t->wake_seq, wake_seqno);
        for (size_t i = 0; i < t->n_polls; i++) {
            netdev_rxq_wait(t->polls[i].rxq);
        }
        poll_timer_wait(DIV_ROUND_UP(sleep_us, 1000));
        poll_block();           /* Quiesces while it waits. */
    } else {
        ovsrcu_quiesce_start();
        xnanosleep(sleep_us * 1000LL);
        ovsrcu_quiesce_end();
    }
}

/* Records, in memory 't' owns, its cycles and the time now, the base
 * from which its new poll list's per-queue cycles are measured.  Called by
 * the thread that polls the list (the main thread for the non-PMD
 * context). */
static void
pmd_thread_mark_polls_installed(struct pmd_thread *t)
{
    unsigned long long busy, idle, sleep;

    atomic_read_relaxed(&t->counters[PMD_BUSY_CYCLES], &busy);
    atomic_read_relaxed(&t->counters[PMD_IDLE_CYCLES], &idle);
    atomic_read_relaxed(&t->counters[PMD_SLEEP_CYCLES], &sleep);
    atomic_store_relaxed(&t->polls_base_busy, busy);
    atomic_store_relaxed(&t->polls_base_idle, idle);
    atomic_store_relaxed(&t->polls_base_sleep, sleep);
    atomic_store_relaxed(&t->polls_base_ms, time_msec());
}

/* Installs the poll list the main thread handed over, if any.  Returns false
 * if the thread must exit. */
static bool
pmd_thread_take_reload(struct pmd_thread *t)
{
    bool reload, exit;

    atomic_read_explicit(&t->reload, &reload, memory_order_acquire);
    if (!reload) {
        return true;
    }
    free(t->polls);
    t->polls = t->next_polls;
    t->n_polls = t->n_next_polls;
    t->next_polls = NULL;
    t->n_next_polls = 0;
    t->polls_can_wait = pmd_polls_can_wait(t->polls, t->n_polls);
    pmd_thread_mark_polls_installed(t);
    atomic_read_relaxed(&t->exit, &exit);
    atomic_store_explicit(&t->reload, false, memory_order_release);
    return !exit;
}

static void *
pmd_thread_main(void *t_)
{
    struct pmd_thread *t = t_;
    unsigned int idle_rounds = 0;
    unsigned int sleep_us = 0;
    unsigned int rounds = 0;
    int error;

    ovsthread_setspecific(t->dp->self_key, t);
    error = ovs_numa_thread_setaffinity_core(t->core_id);
    if (error) {
        VLOG_INFO("pmd thread %u: cannot pin to core %u (%s); running "
                  "unpinned", t->index, t->core_id, ovs_strerror(error));
    }
    VLOG_INFO("pmd thread %u started on core %u", t->index, t->core_id);

    /* With DPDK initialized, the thread gets an lcore of its own, so that
     * DPDK's per-lcore mempool caches serve it without locks, as for
     * dpif-netdev's PMD threads.  Without DPDK this does nothing. */
    dpdk_attach_thread(t->core_id);

    while (pmd_thread_take_reload(t)) {
        if (poll_round(t)) {
            idle_rounds = 0;
            sleep_us = 0;
        } else if (++idle_rounds > PMD_IDLE_ROUNDS_BEFORE_SLEEP) {
            uint64_t sleep_start;
            int max_sleep_us;

            atomic_read_relaxed(&t->max_sleep_us, &max_sleep_us);
            if (max_sleep_us > 0) {
                sleep_us = MIN(MAX(sleep_us * 2, PMD_FIRST_SLEEP_US),
                               max_sleep_us);
                coverage_try_clear();
                sleep_start = pmd_cycles_now();
                pmd_thread_idle_sleep(t, sleep_us);
                pmd_counter_add(t, PMD_SLEEPS, 1);
                pmd_counter_add(t, PMD_SLEEP_CYCLES,
                                pmd_cycles_now() - sleep_start);
                rounds = 0;
                continue;
            }
        }
        if (++rounds >= PMD_QUIESCE_INTERVAL) {
            rounds = 0;
            ovsrcu_quiesce();
            /* Move this thread's coverage counts (meter drops, upcall
             * collisions) into the totals, as dpif-netdev's PMD threads do;
             * it does so at most once a second. */
            coverage_try_clear();
        }
    }

    flow_cache_flush(t->cache);
    dpdk_detach_thread();
    VLOG_INFO("pmd thread %u on core %u exits", t->index, t->core_id);
    return NULL;
}

/* Starts a PMD thread with index 'index' pinned to 'core_id', with an empty
 * poll list. */
struct pmd_thread *
pmd_thread_start(struct datapath *dp, unsigned index, unsigned core_id,
                 int max_sleep_us)
{
    struct pmd_thread *t = pmd_thread_alloc(dp, index, core_id,
                                            max_sleep_us);

    t->thread = ovs_thread_create("pmd", pmd_thread_main, t);
    return t;
}

/* Waits until 't' has taken the handed-over poll list. */
static void
pmd_thread_wait_reload(struct pmd_thread *t)
{
    for (;;) {
        bool reload;

        atomic_read_explicit(&t->reload, &reload, memory_order_acquire);
        if (!reload) {
            return;
        }
        /* The thread sleeps at most its max_sleep_us between checks (or,
         * in poll_block(), until pmd_thread_reload() changes its seq). */
        xnanosleep(10 * 1000);
    }
}

/* Hands 'polls' (n elements, ownership passed) to PMD thread 't' and waits
 * until it polls them and no longer touches its old queues. */
void
pmd_thread_reload(struct pmd_thread *t, struct pmd_poll *polls, size_t n)
{
    if (t->index == 0) {
        /* The non-PMD context is polled by the caller's own thread. */
        free(t->polls);
        t->polls = polls;
        t->n_polls = n;
        pmd_thread_mark_polls_installed(t);
        return;
    }
    t->next_polls = polls;
    t->n_next_polls = n;
    atomic_store_explicit(&t->reload, true, memory_order_release);
    seq_change(t->wake_seq);
    pmd_thread_wait_reload(t);
}

/* Stops PMD thread 't' and joins it.  Its stats slots stay with the flows. */
void
pmd_thread_stop(struct pmd_thread *t)
{
    t->next_polls = NULL;
    t->n_next_polls = 0;
    atomic_store_relaxed(&t->exit, true);
    atomic_store_explicit(&t->reload, true, memory_order_release);
    seq_change(t->wake_seq);
    xpthread_join(t->thread, NULL);
}

/* Returns the PMD thread of 'dp' that is calling, or NULL if the caller is
 * not one. */
struct pmd_thread *
pmd_thread_self(const struct datapath *dp)
{
    return ovsthread_getspecific(dp->self_key);
}

/* Reads 't''s counters, less the base that the last clear recorded.  Called
 * by the main thread. */
void
pmd_thread_read_counters(const struct pmd_thread *t_,
                         uint64_t counters[PMD_N_COUNTERS])
{
    struct pmd_thread *t = CONST_CAST(struct pmd_thread *, t_);

    for (int i = 0; i < PMD_N_COUNTERS; i++) {
        unsigned long long v;

        atomic_read_relaxed(&t->counters[i], &v);
        counters[i] = v - t->counters_base[i];
    }
}

/* Zeroes 't''s counters as pmd_thread_read_counters() reports them, without
 * writing memory the thread owns. */
void
pmd_thread_clear_counters(struct pmd_thread *t)
{
    for (int i = 0; i < PMD_N_COUNTERS; i++) {
        unsigned long long v;

        atomic_read_relaxed(&t->counters[i], &v);
        t->counters_base[i] = v;
    }
    t->counters_base_ms = time_msec();
}

/* Reads, for the main thread, how many cycles 't' spent on each queue of
 * its poll list (in 'cycles', t->n_polls elements), busy, idle and asleep
 * in all (in '*busy', '*idle' and '*sleep') since the list was installed,
 * and how many ms
 * ago that was, in '*age_ms'.  The caller holds the datapath's
 * 'reconfig_mutex', so that the poll list stays put. */
void
pmd_thread_read_poll_cycles(const struct pmd_thread *t_, uint64_t *cycles,
                            uint64_t *busy, uint64_t *idle, uint64_t *sleep,
                            long long int *age_ms)
{
    struct pmd_thread *t = CONST_CAST(struct pmd_thread *, t_);
    unsigned long long now_busy, now_idle, base_busy, base_idle;
    unsigned long long now_sleep, base_sleep;
    long long int base_ms;

    for (size_t i = 0; i < t->n_polls; i++) {
        unsigned long long v;

        atomic_read_relaxed(&t->polls[i].cycles, &v);
        cycles[i] = v;
    }
    atomic_read_relaxed(&t->counters[PMD_BUSY_CYCLES], &now_busy);
    atomic_read_relaxed(&t->counters[PMD_IDLE_CYCLES], &now_idle);
    atomic_read_relaxed(&t->polls_base_busy, &base_busy);
    atomic_read_relaxed(&t->polls_base_idle, &base_idle);
    atomic_read_relaxed(&t->counters[PMD_SLEEP_CYCLES], &now_sleep);
    atomic_read_relaxed(&t->polls_base_sleep, &base_sleep);
    atomic_read_relaxed(&t->polls_base_ms, &base_ms);
    *busy = now_busy >= base_busy ? now_busy - base_busy : 0;
    *idle = now_idle >= base_idle ? now_idle - base_idle : 0;
    *sleep = now_sleep >= base_sleep ? now_sleep - base_sleep : 0;
    *age_ms = time_msec() - base_ms;
}

/* Returns how many of pmd_cycles_now()'s units pass in a second, measured
 * once, the first time it is called (that call sleeps 100 ms, as
 * dpif-netdev's pmd_perf_estimate_tsc_frequency() does at start-up). */
uint64_t
pmd_cycles_hz(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;
    static uint64_t hz = 1;

    if (ovsthread_once_start(&once)) {
        uint64_t start = pmd_cycles_now();

        xnanosleep(100 * 1000 * 1000);
        hz = MAX((pmd_cycles_now() - start) * 10, 1);
        ovsthread_once_done(&once);
    }
    return hz;
}
/* Names 't' as the commands' per-thread headers do: "main thread" or "pmd
 * thread index N core_id C". */
void
pmd_thread_format_name(struct ds *s, const struct pmd_thread *t)
{
    if (t->index == 0) {
        ds_put_cstr(s, "main thread");
    } else {
        ds_put_format(s, "pmd thread index %u core_id %u", t->index,
                      t->core_id);
    }
}

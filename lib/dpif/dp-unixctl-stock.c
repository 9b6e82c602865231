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

/* Stock OVS's dpif-netdev/... commands, answered from our counters. */

#include <config.h>
#include "dp-unixctl-stock.h"

#include <stdlib.h>
#include <string.h>

#include "datapath.h"
#include "dp-port.h"
#include "dp-unixctl.h"
#include "dpif-netdev.h"
#include "netdev.h"
#include "openvswitch/dynamic-string.h"
#include "ovs-numa.h"
#include "pmd.h"
#include "timeval.h"
#include "unixctl.h"
#include "util.h"

/* What a dpif-netdev/pmd-* command does with each thread it selects. */
enum stock_pmd_info {
    STOCK_PMD_SHOW_STATS,       /* pmd-stats-show. */
    STOCK_PMD_CLEAR_STATS,      /* pmd-stats-clear. */
    STOCK_PMD_SHOW_RXQ,         /* pmd-rxq-show. */
    STOCK_PMD_PERF_SHOW,        /* pmd-perf-show. */
};

/* The longest window pmd-rxq-show's -secs asks for in stock OVS 3.1
 * (PMD_INTERVAL_LEN times PMD_INTERVAL_MAX): 60 s. */
#define STOCK_RXQ_MAX_SECS 60

/* Prints 't''s header as stock's format_pmd_thread() does: "main thread:"
 * or "pmd thread numa_id N core_id C:". */
static void
format_stock_thread(struct ds *s, const struct pmd_thread *t)
{
    if (t->index == 0) {
        ds_put_cstr(s, "main thread");
    } else {
        int numa_id = ovs_numa_get_numa_id(t->core_id);

        ds_put_cstr(s, "pmd thread");
        if (numa_id != OVS_NUMA_UNSPEC) {
            ds_put_format(s, " numa_id %d", numa_id);
        }
        ds_put_format(s, " core_id %u", t->core_id);
    }
    ds_put_cstr(s, ":\n");
}

/* pmd-stats-show for one thread, line for line as stock's
 * pmd_info_show_stats().  The cache layers stock has and we do not
 * (partial hardware offload, optimized miniflow extraction, simple match,
 * SMC) hit nothing here; subtable lookups are not counted (0.00). */
static void
show_stock_stats(struct ds *s, const struct pmd_thread *t)
{
    uint64_t c[PMD_N_COUNTERS];
    uint64_t total_cycles, rx;

    pmd_thread_read_counters(t, c);
    total_cycles = c[PMD_IDLE_CYCLES] + c[PMD_BUSY_CYCLES];
    rx = c[PMD_RX_PACKETS];

    format_stock_thread(s, t);
    ds_put_format(s,
                  "  packets received: %"PRIu64"\n"
                  "  packet recirculations: %"PRIu64"\n"
                  "  avg. datapath passes per packet: %.02f\n"
                  "  phwol hits: %d\n"
                  "  mfex opt hits: %d\n"
                  "  simple match hits: %d\n"
                  "  emc hits: %"PRIu64"\n"
                  "  smc hits: %d\n"
                  "  megaflow hits: %"PRIu64"\n"
                  "  avg. subtable lookups per megaflow hit: %.02f\n"
                  "  miss with success upcall: %"PRIu64"\n"
                  "  miss with failed upcall: %"PRIu64"\n"
                  "  avg. packets per output batch: %.02f\n",
                  rx, c[PMD_RECIRC_PACKETS],
                  rx ? (rx + c[PMD_RECIRC_PACKETS]) / (double) rx : 0,
                  0, 0, 0, c[PMD_EMC_HITS], 0, c[PMD_MEGAFLOW_HITS], 0.0,
                  c[PMD_UPCALLS], c[PMD_LOST],
                  c[PMD_SENT_BATCHES]
                  ? c[PMD_SENT_PACKETS] / (double) c[PMD_SENT_BATCHES] : 0);
    if (!total_cycles) {
        return;
    }
    ds_put_format(s,
                  "  idle cycles: %"PRIu64" (%.02f%%)\n"
                  "  processing cycles: %"PRIu64" (%.02f%%)\n",
                  c[PMD_IDLE_CYCLES],
                  c[PMD_IDLE_CYCLES] / (double) total_cycles * 100,
                  c[PMD_BUSY_CYCLES],
                  c[PMD_BUSY_CYCLES] / (double) total_cycles * 100);
    if (!rx) {
        return;
    }
    ds_put_format(s,
                  "  avg cycles per packet: %.02f (%"PRIu64"/%"PRIu64")\n",
                  total_cycles / (double) rx, total_cycles, rx);
    ds_put_format(s,
                  "  avg processing cycles per packet: "
                  "%.02f (%"PRIu64"/%"PRIu64")\n",
                  c[PMD_BUSY_CYCLES] / (double) rx, c[PMD_BUSY_CYCLES], rx);
}

/* pmd-perf-show for one PMD thread: stock's overall statistics
 * (pmd_perf_format_overall_stats()), since the last clear.  We keep no
 * histograms, iteration or millisecond history, nor upcall cycles. */
static void
show_stock_perf(struct ds *s, const struct pmd_thread *t)
{
    uint64_t c[PMD_N_COUNTERS];
    uint64_t tot_cycles, rx, passes, iters, hz;
    double duration, us_per_cycle;
    char *time_str;

    if (t->index == 0) {
        return;
    }
    hz = pmd_cycles_hz();
    us_per_cycle = 1000000.0 / hz;
    pmd_thread_read_counters(t, c);
    duration = (time_msec() - t->counters_base_ms) / 1000.0;
    time_str = xastrftime_msec("%H:%M:%S.###", time_wall_msec(), true);
    ds_put_format(s, "\nTime: %s\nMeasurement duration: %.3f s\n\n",
                  time_str, duration);
    free(time_str);
    format_stock_thread(s, t);
    ds_put_cstr(s, "\n");
    if (duration == 0) {
        return;
    }

    tot_cycles = c[PMD_IDLE_CYCLES] + c[PMD_BUSY_CYCLES];
    iters = c[PMD_IDLE_ROUNDS] + c[PMD_BUSY_ROUNDS];
    rx = c[PMD_RX_PACKETS];
    passes = rx + c[PMD_RECIRC_PACKETS];
    ds_put_format(s,
        "  Iterations:         %12"PRIu64"  (%.2f us/it)\n"
        "  - Used TSC cycles:  %12"PRIu64"  (%5.1f %% of total cycles)\n"
        "  - idle iterations:  %12"PRIu64"  (%5.1f %% of used cycles)\n"
        "  - busy iterations:  %12"PRIu64"  (%5.1f %% of used cycles)\n"
        "  - sleep iterations: %12"PRIu64"  (%5.1f %% of iterations)\n"
        "  Sleep time (us):    %12.0f  (%3.0f us/iteration avg.)\n",
        iters,
        iters ? (tot_cycles + c[PMD_SLEEP_CYCLES]) * us_per_cycle / iters : 0,
        tot_cycles, 100.0 * (tot_cycles / duration) / hz,
        c[PMD_IDLE_ROUNDS],
        tot_cycles ? 100.0 * c[PMD_IDLE_CYCLES] / tot_cycles : 0,
        c[PMD_BUSY_ROUNDS],
        tot_cycles ? 100.0 * c[PMD_BUSY_CYCLES] / tot_cycles : 0,
        c[PMD_SLEEPS], iters ? 100.0 * c[PMD_SLEEPS] / iters : 0,
        c[PMD_SLEEP_CYCLES] * us_per_cycle,
        c[PMD_SLEEPS] ? c[PMD_SLEEP_CYCLES] * us_per_cycle / c[PMD_SLEEPS]
                      : 0);
    if (rx) {
        ds_put_format(s,
            "  Rx packets:         %12"PRIu64"  (%.0f Kpps, %.0f cycles/pkt)\n"
            "  Datapath passes:    %12"PRIu64"  (%.2f passes/pkt)\n"
            "  - PHWOL hits:       %12d  (%5.1f %%)\n"
            "  - MFEX Opt hits:    %12d  (%5.1f %%)\n"
            "  - Simple Match hits:%12d  (%5.1f %%)\n"
            "  - EMC hits:         %12"PRIu64"  (%5.1f %%)\n"
            "  - SMC hits:         %12d  (%5.1f %%)\n"
            "  - Megaflow hits:    %12"PRIu64"  (%5.1f %%, %.2f "
                                               "subtbl lookups/hit)\n"
            "  - Upcalls:          %12"PRIu64"  (%5.1f %%, %.1f us/upcall)\n"
            "  - Lost upcalls:     %12"PRIu64"  (%5.1f %%)\n",
            rx, (rx / duration) / 1000,
            1.0 * c[PMD_BUSY_CYCLES] / rx,
            passes, 1.0 * passes / rx,
            0, 0.0, 0, 0.0, 0, 0.0,
            c[PMD_EMC_HITS], 100.0 * c[PMD_EMC_HITS] / passes,
            0, 0.0,
            c[PMD_MEGAFLOW_HITS], 100.0 * c[PMD_MEGAFLOW_HITS] / passes, 0.0,
            c[PMD_UPCALLS], 100.0 * c[PMD_UPCALLS] / passes, 0.0,
            c[PMD_LOST], 100.0 * c[PMD_LOST] / passes);
    } else {
        ds_put_format(s, "  Rx packets:         %12d\n", 0);
    }
    if (c[PMD_SENT_PACKETS]) {
        ds_put_format(s,
            "  Tx packets:         %12"PRIu64"  (%.0f Kpps)\n"
            "  Tx batches:         %12"PRIu64"  (%.2f pkts/batch)\n",
            c[PMD_SENT_PACKETS], (c[PMD_SENT_PACKETS] / duration) / 1000,
            c[PMD_SENT_BATCHES],
            1.0 * c[PMD_SENT_PACKETS] / c[PMD_SENT_BATCHES]);
    } else {
        ds_put_format(s, "  Tx packets:         %12d\n\n", 0);
    }
}

/* One entry of a PMD thread's poll list, as pmd-rxq-show sorts it. */
struct stock_rxq {
    const struct pmd_poll *poll;
    uint64_t cycles;            /* Spent on it since the list was
                                 * installed. */
};

/* Orders poll list entries by queue name, then queue id, as stock's
 * compare_poll_list(). */
static int
compare_stock_rxq(const void *a_, const void *b_)
{
    const struct stock_rxq *a = a_;
    const struct stock_rxq *b = b_;
    int cmp = strcmp(netdev_rxq_get_name(a->poll->rxq),
                     netdev_rxq_get_name(b->poll->rxq));

    return cmp ? cmp : a->poll->qid - b->poll->qid;
}

/* pmd-rxq-show for one PMD thread, in stock's format: each queue's share
 * of the thread's cycles, and the overhead (busy cycles outside any
 * queue).  The thread's cycles are all that passed, its pmd-maxsleep
 * sleeps included, as stock's interval cycles are TSC time from one
 * interval to the next.  Ours are measured since the queues were last
 * assigned, not over stock's last 'secs' seconds. */
static void
show_stock_rxq(struct ds *s, const struct pmd_thread *t)
{
    struct stock_rxq *rxqs;
    uint64_t *cycles, busy, idle, sleep, total, sum = 0;
    long long int age_ms;

    if (t->index == 0) {
        return;
    }
    ds_put_format(s, "pmd thread numa_id %d core_id %u:\n  isolated : %s\n",
                  ovs_numa_get_numa_id(t->core_id), t->core_id,
                  t->isolated ? "true" : "false");

    cycles = xcalloc(MAX(t->n_polls, 1), sizeof *cycles);
    rxqs = xcalloc(MAX(t->n_polls, 1), sizeof *rxqs);
    pmd_thread_read_poll_cycles(t, cycles, &busy, &idle, &sleep, &age_ms);
    total = busy + idle + sleep;
    for (size_t i = 0; i < t->n_polls; i++) {
        rxqs[i].poll = &t->polls[i];
        rxqs[i].cycles = cycles[i];
    }
    qsort(rxqs, t->n_polls, sizeof *rxqs, compare_stock_rxq);

    for (size_t i = 0; i < t->n_polls; i++) {
        struct netdev_rxq *rxq = rxqs[i].poll->rxq;

        sum += rxqs[i].cycles;
        ds_put_format(s, "  port: %-16s  queue-id: %2d",
                      netdev_rxq_get_name(rxq), rxqs[i].poll->qid);
        ds_put_format(s, " %s", netdev_rxq_enabled(rxq)
                                ? "(enabled) " : "(disabled)");
        ds_put_cstr(s, "  pmd usage: ");
        if (total) {
            ds_put_format(s, "%2"PRIu64" %%",
                          MIN(rxqs[i].cycles, total) * 100 / total);
        } else {
            ds_put_cstr(s, "NOT AVAIL");
        }
        ds_put_cstr(s, "\n");
    }
    if (t->n_polls) {
        ds_put_cstr(s, "  overhead: ");
        if (total) {
            ds_put_format(s, "%2"PRIu64" %%",
                          (busy > sum ? busy - sum : 0) * 100 / total);
        } else {
            ds_put_cstr(s, "NOT AVAIL");
        }
        ds_put_cstr(s, "\n");
    }
    free(rxqs);
    free(cycles);
}

/* Orders threads by core, the main thread (NON_PMD_CORE_ID) last, as
 * stock's sorted_poll_thread_list(). */
static int
compare_stock_thread(const void *a_, const void *b_)
{
    const struct pmd_thread *const *a = a_;
    const struct pmd_thread *const *b = b_;

    return (*a)->core_id < (*b)->core_id ? -1 : (*a)->core_id > (*b)->core_id;
}

/* The common part of stock's pmd-stats-show, pmd-stats-clear,
 * pmd-rxq-show and pmd-perf-show (dpif_netdev_pmd_info()): parses
 * "[-pmd CORE] [-secs SECS] [DP]" from 'argv' and does 'type' for each
 * selected thread, in core order, the main thread last. */
static void
stock_pmd_info(struct unixctl_conn *conn, int argc, const char *argv[],
               enum stock_pmd_info type)
{
    struct ds reply = DS_EMPTY_INITIALIZER;
    const char *dp_name = NULL;
    bool filter_on_pmd = false;
    struct pmd_thread **threads;
    unsigned int core_id = 0;
    struct datapath *dp;
    size_t n = 0;

    while (argc > 1) {
        if (!strcmp(argv[1], "-pmd") && argc > 2) {
            if (str_to_uint(argv[2], 10, &core_id)) {
                filter_on_pmd = true;
            }
            argc -= 2;
            argv += 2;
        } else if (type == STOCK_PMD_SHOW_RXQ && !strcmp(argv[1], "-secs")
                   && argc > 2) {
            /* Accepted as stock does; our figures cover the time since the
             * queues were assigned, which the header says. */
            argc -= 2;
            argv += 2;
        } else {
            dp_name = argv[1];
            argc -= 1;
            argv += 1;
        }
    }
    /* As stock's dpif_netdev_pmd_info(): an argument that names no
     * datapath still selects the only one there is. */
    dp = dp_name ? datapath_find(dp_name) : NULL;
    if (!dp) {
        dp = dp_unixctl_find_datapath(conn, NULL, NULL);
        if (!dp) {
            return;
        }
    }

    ovs_mutex_lock(&dp->reconfig_mutex);
    threads = xcalloc(dp->n_thread_slots, sizeof *threads);
    for (size_t i = 0; i < dp->n_thread_slots; i++) {
        if (datapath_thread(dp, i)) {
            threads[n++] = datapath_thread(dp, i);
        }
    }
    qsort(threads, n, sizeof *threads, compare_stock_thread);

    if (type == STOCK_PMD_SHOW_RXQ) {
        long long int age_ms = 0;

        for (size_t i = 0; i < n; i++) {
            if (threads[i]->index) {
                long long int base_ms;

                atomic_read_relaxed(&threads[i]->polls_base_ms, &base_ms);
                age_ms = MAX(age_ms, time_msec() - base_ms);
            }
        }
        ds_put_format(&reply, "Displaying last %lld seconds pmd usage %%\n",
                      (age_ms + 500) / 1000);
    }
    for (size_t i = 0; i < n; i++) {
        struct pmd_thread *t = threads[i];

        if (filter_on_pmd && t->core_id != core_id) {
            continue;
        }
        switch (type) {
        case STOCK_PMD_SHOW_STATS:
            show_stock_stats(&reply, t);
            break;
        case STOCK_PMD_CLEAR_STATS:
            datapath_clear_thread_counters(dp, t->index);
            break;
        case STOCK_PMD_SHOW_RXQ:
            show_stock_rxq(&reply, t);
            break;
        case STOCK_PMD_PERF_SHOW:
            show_stock_perf(&reply, t);
            break;
        }
    }
    free(threads);
    ovs_mutex_unlock(&dp->reconfig_mutex);

    unixctl_command_reply(conn, ds_cstr(&reply));
    ds_destroy(&reply);
}

/* dpif-netdev/pmd-stats-show [-pmd CORE] [DP]. */
static void
stock_pmd_stats_show(struct unixctl_conn *conn, int argc, const char *argv[],
                     void *aux OVS_UNUSED)
{
    stock_pmd_info(conn, argc, argv, STOCK_PMD_SHOW_STATS);
}

/* dpif-netdev/pmd-stats-clear [-pmd CORE] [DP]. */
static void
stock_pmd_stats_clear(struct unixctl_conn *conn, int argc, const char *argv[],
                      void *aux OVS_UNUSED)
{
    stock_pmd_info(conn, argc, argv, STOCK_PMD_CLEAR_STATS);
}

/* dpif-netdev/pmd-rxq-show [-pmd CORE] [-secs SECS] [DP]. */
static void
stock_pmd_rxq_show(struct unixctl_conn *conn, int argc, const char *argv[],
                   void *aux OVS_UNUSED)
{
    stock_pmd_info(conn, argc, argv, STOCK_PMD_SHOW_RXQ);
}

/* dpif-netdev/pmd-perf-show [-nh] [-it LEN] [-ms LEN] [-pmd CORE] [DP]:
 * the histogram and history options are accepted, as stock parses them,
 * and show nothing more: we keep no histograms. */
static void
stock_pmd_perf_show(struct unixctl_conn *conn, int argc, const char *argv[],
                    void *aux OVS_UNUSED)
{
    while (argc > 1) {
        if (!strcmp(argv[1], "-nh")) {
            argc -= 1;
            argv += 1;
        } else if ((!strcmp(argv[1], "-it") || !strcmp(argv[1], "-ms"))
                   && argc > 2) {
            argc -= 2;
            argv += 2;
        } else {
            break;
        }
    }
    stock_pmd_info(conn, argc, argv, STOCK_PMD_PERF_SHOW);
}

/* dpif-netdev/pmd-rxq-rebalance [DP]: assigns the receive queues again,
 * as pmd-rxq-assign says, from the cycles measured so far. */
static void
stock_pmd_rxq_rebalance(struct unixctl_conn *conn, int argc,
                        const char *argv[], void *aux OVS_UNUSED)
{
    struct datapath *dp = dp_unixctl_find_datapath(conn,
                                                   argc > 1 ? argv[1] : NULL,
                                                   NULL);

    if (!dp) {
        return;
    }
    datapath_request_reconfigure(dp);
    unixctl_command_reply(conn, "pmd rxq rebalance requested.\n");
}

/* dpif-netdev/bond-show [DP]: stock lists the bonds it balances in the
 * datapath (lb-output-action), which OVS enables only for its own
 * dpif-netdev; ofproto balances ours (hash and recirculation), so there is
 * none to list, and stock prints nothing then either. */
static void
stock_bond_show(struct unixctl_conn *conn, int argc, const char *argv[],
                void *aux OVS_UNUSED)
{
    struct datapath *dp = dp_unixctl_find_datapath(conn,
                                                   argc > 1 ? argv[1] : NULL,
                                                   NULL);

    if (!dp) {
        return;
    }
    unixctl_command_reply(conn, "");
}

/* A stock command about an internal of dpif-netdev we do not have: its
 * name and why, in one line.  'aux' is the reason.  Commands that would
 * change something reply with an error, those that only show reply
 * successfully. */
struct stock_internal {
    const char *name;           /* "dpif-netdev/..." */
    const char *usage;          /* As stock registers it. */
    int min_args, max_args;     /* As stock registers them. */
    bool changes;               /* A "set" command: replies an error. */
    const char *reason;         /* What we have instead. */
};

#define STOCK_NO_LOOKUP_IMPLS \
    "this datapath (ovs-percpu) has one megaflow lookup implementation, " \
    "shared by all threads; there is nothing to choose"
#define STOCK_NO_DPIF_IMPLS \
    "this datapath (ovs-percpu) has one packet-processing implementation; " \
    "there is nothing to choose"
#define STOCK_NO_MFEX \
    "this datapath (ovs-percpu) extracts keys with OVS's miniflow_extract() " \
    "only; there is nothing to choose"
#define STOCK_NO_PERF_LOG \
    "this datapath (ovs-percpu) keeps no per-iteration history to log; " \
    "see dpif-netdev/pmd-perf-show"

static const struct stock_internal stock_internals[] = {
    { "dpif-netdev/subtable-lookup-prio-set", "[lookup_func] [prio]", 2, 2,
      true, STOCK_NO_LOOKUP_IMPLS },
    { "dpif-netdev/subtable-lookup-info-get", "", 0, 0, false,
      STOCK_NO_LOOKUP_IMPLS },
    { "dpif-netdev/subtable-lookup-prio-get", NULL, 0, 0, false,
      STOCK_NO_LOOKUP_IMPLS },
    { "dpif-netdev/dpif-impl-set", "dpif_implementation_name", 1, 1, true,
      STOCK_NO_DPIF_IMPLS },
    { "dpif-netdev/dpif-impl-get", "", 0, 0, false, STOCK_NO_DPIF_IMPLS },
    { "dpif-netdev/miniflow-parser-set",
      "[-pmd core] miniflow_implementation_name [study_pkt_cnt]", 1, 5, true,
      STOCK_NO_MFEX },
    { "dpif-netdev/miniflow-parser-get", "", 0, 0, false, STOCK_NO_MFEX },
    { "dpif-netdev/pmd-perf-log-set",
      "on|off [-b before] [-a after] [-e|-ne] [-us usec] [-q qlen]", 0, 10,
      true, STOCK_NO_PERF_LOG },
};

/* Replies to a command of 'stock_internals', 'aux'. */
static void
stock_internal_reply(struct unixctl_conn *conn, int argc OVS_UNUSED,
                     const char *argv[] OVS_UNUSED, void *aux)
{
    const struct stock_internal *cmd = aux;
    char *reply = xasprintf("%s: not supported: %s\n", cmd->name,
                            cmd->reason);

    if (cmd->changes) {
        unixctl_command_reply_error(conn, reply);
    } else {
        unixctl_command_reply(conn, reply);
    }
    free(reply);
}

/* Registers the dpif-netdev/ commands, once. */
void
dp_unixctl_stock_register(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (!ovsthread_once_start(&once)) {
        return;
    }
    unixctl_command_register("dpif-netdev/pmd-stats-show", "[-pmd core] [dp]",
                             0, 3, stock_pmd_stats_show, NULL);
    unixctl_command_register("dpif-netdev/pmd-stats-clear",
                             "[-pmd core] [dp]", 0, 3, stock_pmd_stats_clear,
                             NULL);
    unixctl_command_register("dpif-netdev/pmd-rxq-show",
                             "[-pmd core] [-secs secs] [dp]", 0, 5,
                             stock_pmd_rxq_show, NULL);
    unixctl_command_register("dpif-netdev/pmd-perf-show",
                             "[-nh] [-it iter-history-len]"
                             " [-ms ms-history-len] [-pmd core] [dp]",
                             0, 8, stock_pmd_perf_show, NULL);
    unixctl_command_register("dpif-netdev/pmd-rxq-rebalance", "[dp]",
                             0, 1, stock_pmd_rxq_rebalance, NULL);
    unixctl_command_register("dpif-netdev/bond-show", "[dp]",
                             0, 1, stock_bond_show, NULL);
    for (size_t i = 0; i < ARRAY_SIZE(stock_internals); i++) {
        const struct stock_internal *cmd = &stock_internals[i];

        unixctl_command_register(cmd->name, cmd->usage, cmd->min_args,
                                 cmd->max_args, stock_internal_reply,
                                 CONST_CAST(struct stock_internal *, cmd));
    }
    ovsthread_once_done(&once);
}

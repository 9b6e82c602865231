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

#ifndef PMD_SCHED_H
#define PMD_SCHED_H 1

/* Placement of receive queues on PMD threads, as stock OVS 3.1 documents
 * it (Documentation/topics/dpdk/pmd.rst):
 *
 *   Interface other_config:pmd-rxq-affinity="Q:CORE,..."
 *       pins queue Q to the PMD thread of CORE; a core without one is
 *       logged (stock's message) and the queue placed as any other.
 *   Open_vSwitch other_config:pmd-rxq-assign=roundrobin|cycles|group
 *       how the other queues are dealt: in turn (each port starting one
 *       thread further), by measured cycles, busiest first, over the
 *       threads up then down (cycles), or each to the least loaded
 *       thread (group).  Default cycles, as stock; with no cycles
 *       measured yet, cycles deals in turn.
 *   pmd-rxq-isolate=true|false
 *       whether a thread with pinned queues gets no others (true, the
 *       default); false only with group.
 *
 * The cycles are those each queue cost its thread (pmd_poll's 'cycles')
 * since the previous assignment, collected by the main thread before it
 * takes the queues back.
 *
 * pmd-auto-lb and its thresholds and interval are read here, with stock's
 * messages and bounds; pmd-alb.h runs the balancer, which reassigns with
 * pmd_sched_assign() too.  tx-flush-interval and smc-enable are read and
 * logged with stock's messages, and a line saying what this datapath does
 * with them (see Documentation/commands.md).
 *
 * Main thread only. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmd_thread;
struct smap;

/* A queue's cycles measured over less than this, in ms, add to its
 * previous measurement rather than replace it (stock measures over
 * intervals of 10 s). */
#define PMD_SCHED_INTERVAL_MS 10000

/* pmd-rxq-assign. */
enum pmd_sched_algo {
    PMD_SCHED_ROUNDROBIN,
    PMD_SCHED_CYCLES,
    PMD_SCHED_GROUP,
};

/* The datapath-wide placement settings and the stock settings we log. */
struct pmd_sched_config {
    enum pmd_sched_algo algo;   /* pmd-rxq-assign. */
    bool isolate;               /* pmd-rxq-isolate. */

    /* The auto load balancer's, which pmd-alb.h runs. */
    bool auto_lb;               /* pmd-auto-lb. */
    unsigned int alb_interval_min; /* pmd-auto-lb-rebal-interval. */
    unsigned int alb_improve;   /* pmd-auto-lb-improvement-threshold, %. */
    unsigned int alb_load;      /* pmd-auto-lb-load-threshold, %. */

    /* Read and logged only. */
    unsigned int tx_flush_us;   /* tx-flush-interval. */
    bool smc;                   /* smc-enable. */
    bool logged;                /* The first settings were logged. */
};

void pmd_sched_config_init(struct pmd_sched_config *);
bool pmd_sched_set_config(struct pmd_sched_config *,
                          const struct smap *other_config);

/* Core ids of a port's queues from pmd-rxq-affinity. */
#define PMD_SCHED_UNPINNED (-1)
int pmd_sched_parse_affinity(const char *list, int *cores, int n_rxq);

/* One receive queue to place. */
struct pmd_sched_rxq {
    const char *name;           /* Its netdev's name, for the log. */
    unsigned int port_index;    /* Its port's rank among the PMD ports,
                                 * by port number (roundrobin's start). */
    int qid;                    /* Its queue id. */
    int pinned_core;            /* PMD_SCHED_UNPINNED, or a core. */
    uint64_t cycles;            /* Measured since the last assignment. */
    struct pmd_thread *pmd;     /* Output: its thread, or NULL if none
                                 * could take it. */
};

void pmd_sched_assign(const struct pmd_sched_config *,
                      struct pmd_thread **pmds, size_t n_pmds,
                      struct pmd_sched_rxq *rxqs, size_t n_rxqs,
                      bool dry_run);

#endif /* pmd-sched.h */

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

#ifndef PMD_ALB_H
#define PMD_ALB_H 1

/* The PMD auto load balancer, other_config:pmd-auto-lb, as stock OVS 3.1's
 * dpif-netdev runs it (Documentation/topics/dpdk/pmd.rst):
 *
 *   - every PMD_ALB_SAMPLE_MS the main thread reads each PMD thread's busy,
 *     idle and sleep cycles (counters the thread writes in its own memory)
 *     and counts, per thread, the consecutive samples in which a
 *     non-isolated thread was busy at least pmd-auto-lb-load-threshold
 *     percent of its cycles;
 *   - every pmd-auto-lb-rebal-interval minutes, if a thread was overloaded
 *     for the last PMD_ALB_N_SAMPLES samples, the assignment is not
 *     roundrobin, and at least two non-isolated threads poll, one of them
 *     more than one queue, a dry run of pmd-sched's assignment estimates
 *     the busy percentages of the threads with the queues' measured cycles
 *     (pmd_poll's 'cycles');
 *   - if the variance of those percentages improves on the current one by
 *     pmd-auto-lb-improvement-threshold percent, the caller reassigns the
 *     queues the way pmd-rxq-rebalance does.
 *
 * Stock's decisions are logged with stock's messages (at DBG, and the
 * request itself at INFO).  Stock computes per NUMA node; pmd-sched places
 * queues over all PMD threads whatever their node, so the variance here is
 * over all non-isolated PMD threads, logged as the first one's node.  The
 * busy percentages are not rounded to whole percents, and are taken of the
 * threads' mean cycles since the reassignment (see mean_cycles()).
 *
 * Main thread only, under the datapath's 'reconfig_mutex'. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmd_sched_config;
struct pmd_sched_rxq;
struct pmd_thread;

/* How often a thread's load is sampled, in ms, and how many consecutive
 * overloaded samples make it overloaded (stock's PMD_INTERVAL_LEN, 10 s,
 * and PMD_INTERVAL_MAX, 6). */
#define PMD_ALB_SAMPLE_MS 10000
#define PMD_ALB_N_SAMPLES 6

struct pmd_alb *pmd_alb_create(size_t n_thread_slots);
void pmd_alb_destroy(struct pmd_alb *);

void pmd_alb_reconfigured(struct pmd_alb *);
bool pmd_alb_run(struct pmd_alb *, const struct pmd_sched_config *,
                 struct pmd_thread **pmds, size_t n_pmds);
void pmd_alb_wait(const struct pmd_alb *, const struct pmd_sched_config *);

bool pmd_alb_dry_run(const struct pmd_sched_config *,
                     struct pmd_thread **pmds, size_t n_pmds,
                     const uint64_t *pmd_cycles,
                     struct pmd_sched_rxq *rxqs, size_t n_rxqs);

#endif /* pmd-alb.h */

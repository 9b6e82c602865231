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

/* The PMD auto load balancer (other_config:pmd-auto-lb). */

#include <config.h>
#include "pmd-alb.h"

#include <string.h>

#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "ovs-numa.h"
#include "pmd-sched.h"
#include "pmd.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(pmd_alb);

/* Milliseconds in a minute, for pmd-auto-lb-rebal-interval. */
#define PMD_ALB_MIN_TO_MS (60 * 1000)

/* What the balancer last read of one thread slot's counters. */
struct alb_thread {
    const struct pmd_thread *pmd; /* The thread sampled, or NULL. */
    uint64_t busy, idle, sleep;   /* Its cycle counters then. */
    unsigned int overloaded;      /* Consecutive overloaded samples, at
                                   * most PMD_ALB_N_SAMPLES. */
};

/* The balancer's state, owned by the main thread. */
struct pmd_alb {
    struct alb_thread *threads; /* Indexed by thread index. */
    size_t n_threads;           /* Elements of 'threads'. */
    long long int next_sample;  /* When to sample next (time_msec()), or 0
                                 * while disabled. */
    long long int poll_timer;   /* Start of the current rebalance interval,
                                 * or 0 while disabled (stock's
                                 * rebalance_poll_timer). */
    bool recheck_config;        /* Reconfigured since the last check. */
    bool do_dry_run;            /* The last check's result. */
};

/* Returns a balancer for a datapath with 'n_thread_slots' thread indexes. */
struct pmd_alb *
pmd_alb_create(size_t n_thread_slots)
{
    struct pmd_alb *alb = xzalloc(sizeof *alb);

    alb->threads = xcalloc(MAX(n_thread_slots, 1), sizeof *alb->threads);
    alb->n_threads = n_thread_slots;
    alb->recheck_config = true;
    return alb;
}

/* Frees 'alb'.  NULL is accepted. */
void
pmd_alb_destroy(struct pmd_alb *alb)
{
    if (alb) {
        free(alb->threads);
        free(alb);
    }
}

/* Notes that the queues were assigned again, so that the next check looks
 * at the threads and the assignment type again (stock's recheck_config). */
void
pmd_alb_reconfigured(struct pmd_alb *alb)
{
    alb->recheck_config = true;
}

/* Reads the load of each of 'pmds' since the previous sample and updates
 * its count of consecutive overloaded samples. */
static void
sample_threads(struct pmd_alb *alb, const struct pmd_sched_config *cfg,
               struct pmd_thread **pmds, size_t n_pmds)
{
    for (size_t i = 0; i < n_pmds; i++) {
        const struct pmd_thread *t = pmds[i];
        uint64_t c[PMD_N_COUNTERS];
        uint64_t busy, idle, sleep;
        struct alb_thread *at;

        if (t->index >= alb->n_threads) {
            continue;
        }
        at = &alb->threads[t->index];
        pmd_thread_read_counters(t, c);
        if (at->pmd == t && c[PMD_BUSY_CYCLES] >= at->busy
            && c[PMD_IDLE_CYCLES] >= at->idle
            && c[PMD_SLEEP_CYCLES] >= at->sleep && !t->isolated) {
            unsigned int load = 0;

            busy = c[PMD_BUSY_CYCLES] - at->busy;
            idle = c[PMD_IDLE_CYCLES] - at->idle;
            sleep = c[PMD_SLEEP_CYCLES] - at->sleep;
            if (busy) {
                load = busy * 100 / (busy + idle + sleep);
            }
            if (load >= cfg->alb_load) {
                at->overloaded = MIN(at->overloaded + 1, PMD_ALB_N_SAMPLES);
            } else {
                at->overloaded = 0;
            }
        } else {
            /* A new thread in the slot, or an isolated one: no sample. */
            at->overloaded = 0;
        }
        at->pmd = t;
        at->busy = c[PMD_BUSY_CYCLES];
        at->idle = c[PMD_IDLE_CYCLES];
        at->sleep = c[PMD_SLEEP_CYCLES];
    }
}

/* Stock's pmd_rebalance_dry_run_needed(): whether a rebalance could help
 * at all, rechecked only after a reconfiguration. */
static bool
dry_run_needed(struct pmd_alb *alb, const struct pmd_sched_config *cfg,
               struct pmd_thread **pmds, size_t n_pmds)
{
    unsigned int cnt = 0;
    bool multi_rxq = false;

    if (!alb->recheck_config) {
        if (!alb->do_dry_run) {
            VLOG_DBG("PMD auto load balance nothing to do, "
                     "no configuration changes since last check.");
            return false;
        }
        return true;
    }
    alb->recheck_config = false;

    if (cfg->algo == PMD_SCHED_ROUNDROBIN) {
        VLOG_DBG("PMD auto load balance nothing to do, "
                 "pmd-rxq-assign=roundrobin assignment type configured.");
        return alb->do_dry_run = false;
    }
    for (size_t i = 0; i < n_pmds; i++) {
        if (pmds[i]->isolated) {
            continue;
        }
        if (pmds[i]->n_polls > 1) {
            multi_rxq = true;
        }
        if (cnt && multi_rxq) {
            return alb->do_dry_run = true;
        }
        cnt++;
    }
    VLOG_DBG("PMD auto load balance nothing to do, "
             "not enough non-isolated PMDs or RxQs.");
    return alb->do_dry_run = false;
}

/* Called from every run of the main thread: samples the threads' load
 * when it is time, and returns true when, at the end of a rebalance
 * interval, a thread has been overloaded long enough and a dry run could
 * help: the caller then calls pmd_alb_dry_run().  'pmds' are the PMD
 * threads (n_pmds of them). */
bool
pmd_alb_run(struct pmd_alb *alb, const struct pmd_sched_config *cfg,
            struct pmd_thread **pmds, size_t n_pmds)
{
    long long int now = time_msec();
    bool overloaded = false;

    if (!cfg->auto_lb) {
        if (alb->poll_timer) {
            alb->poll_timer = 0;
            alb->next_sample = 0;
            for (size_t i = 0; i < alb->n_threads; i++) {
                alb->threads[i].pmd = NULL;
                alb->threads[i].overloaded = 0;
            }
        }
        return false;
    }
    if (!alb->poll_timer) {
        alb->poll_timer = now;
        alb->next_sample = now + PMD_ALB_SAMPLE_MS;
        sample_threads(alb, cfg, pmds, n_pmds);
        return false;
    }
    if (now >= alb->next_sample) {
        alb->next_sample = now + PMD_ALB_SAMPLE_MS;
        sample_threads(alb, cfg, pmds, n_pmds);
    }
    if (alb->poll_timer
        + (long long int) cfg->alb_interval_min * PMD_ALB_MIN_TO_MS >= now) {
        return false;
    }
    alb->poll_timer = now;
    for (size_t i = 0; i < n_pmds; i++) {
        if (pmds[i]->index < alb->n_threads
            && alb->threads[pmds[i]->index].overloaded
               >= PMD_ALB_N_SAMPLES) {
            overloaded = true;
            break;
        }
    }
    return overloaded && dry_run_needed(alb, cfg, pmds, n_pmds);
}

/* Wakes the main thread for the next sample or rebalance interval. */
void
pmd_alb_wait(const struct pmd_alb *alb, const struct pmd_sched_config *cfg)
{
    if (cfg->auto_lb && alb->poll_timer) {
        poll_timer_wait_until(MIN(alb->next_sample,
                                  alb->poll_timer + 1
                                  + (long long int) cfg->alb_interval_min
                                    * PMD_ALB_MIN_TO_MS));
    } else if (cfg->auto_lb) {
        poll_immediate_wake();
    }
}

/* Returns the variance of the busy percentages of the non-isolated threads
 * among 'pmds' (n_pmds of them), each thread's busy cycles being those of
 * the queues of 'rxqs' (n_rxqs) whose 'pmd' it is, out of 'total' cycles.
 * In percent squared, as stock's sched_numa_variance(), but not rounded to
 * whole percents, so that light loads (as in the tests) compare too. */
static double
busy_variance(struct pmd_thread **pmds, size_t n_pmds, double total,
              const struct pmd_sched_rxq *rxqs, size_t n_rxqs)
{
    double *busy = xcalloc(MAX(n_pmds, 1), sizeof *busy);
    double mean = 0, var = 0;
    size_t n = 0;

    for (size_t i = 0; i < n_pmds; i++) {
        uint64_t cycles = 0;

        if (pmds[i]->isolated) {
            continue;
        }
        for (size_t j = 0; j < n_rxqs; j++) {
            if (rxqs[j].pmd == pmds[i]) {
                cycles += rxqs[j].cycles;
            }
        }
        busy[n++] = total ? cycles * 100.0 / total : 0;
    }
    for (size_t i = 0; i < n; i++) {
        mean += busy[i];
    }
    mean = n ? mean / n : 0;
    for (size_t i = 0; i < n; i++) {
        var += (busy[i] - mean) * (busy[i] - mean);
    }
    free(busy);
    return n ? var / n : 0;
}

/* The mean of 'pmd_cycles' over the non-isolated threads of 'pmds'.  All
 * of them measured from the same reassignment, over the same time; their
 * cycle counts differ only by what each thread's accounting misses, and a
 * common total keeps that noise from passing for imbalance (stock divides
 * by each thread's own interval cycles). */
static double
mean_cycles(struct pmd_thread **pmds, size_t n_pmds,
            const uint64_t *pmd_cycles)
{
    double sum = 0;
    size_t n = 0;

    for (size_t i = 0; i < n_pmds; i++) {
        if (!pmds[i]->isolated) {
            sum += pmd_cycles[i];
            n++;
        }
    }
    return n ? sum / n : 0;
}

/* Stock's pmd_rebalance_dry_run(): estimates, with a dry run of pmd-sched's
 * assignment, how the queues 'rxqs' (n_rxqs, in port then queue order,
 * their 'pmd' the thread that polls them now and their 'cycles' what they
 * cost it since) would spread over 'pmds' (n_pmds, in core order,
 * 'pmd_cycles[i]' being pmds[i]'s cycles over the same time), and returns
 * true if that improves the variance of the threads' busy percentages by
 * the improvement threshold.  'rxqs' is left as it was. */
bool
pmd_alb_dry_run(const struct pmd_sched_config *cfg,
                struct pmd_thread **pmds, size_t n_pmds,
                const uint64_t *pmd_cycles,
                struct pmd_sched_rxq *rxqs, size_t n_rxqs)
{
    struct pmd_sched_rxq *est = xmemdup(rxqs, MAX(n_rxqs, 1) * sizeof *est);
    double total = mean_cycles(pmds, n_pmds, pmd_cycles);
    double current_var, estimate_var;
    uint64_t improvement = 0;
    bool thresh_met;

    VLOG_DBG("PMD auto load balance performing dry run.");
    pmd_sched_assign(cfg, pmds, n_pmds, est, n_rxqs, true);

    current_var = busy_variance(pmds, n_pmds, total, rxqs, n_rxqs);
    estimate_var = busy_variance(pmds, n_pmds, total, est, n_rxqs);
    if (estimate_var < current_var) {
        improvement = (current_var - estimate_var) * 100 / current_var;
    }
    VLOG_DBG("Numa node %d. Current variance %.4f Estimated variance %.4f. "
             "Variance improvement %"PRIu64"%%.",
             n_pmds ? ovs_numa_get_numa_id(pmds[0]->core_id) : 0,
             current_var, estimate_var, improvement);
    thresh_met = improvement >= cfg->alb_improve;
    VLOG_DBG("PMD load variance improvement threshold %u%% is %s.",
             cfg->alb_improve, thresh_met ? "met" : "not met");
    free(est);
    return thresh_met;
}

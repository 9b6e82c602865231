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

/* Placement of receive queues on PMD threads. */

#include <config.h>
#include "pmd-sched.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "openvswitch/ofp-parse.h"
#include "openvswitch/vlog.h"
#include "ovs-numa.h"
#include "pmd.h"
#include "smap.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(pmd_sched);

/* Stock OVS 3.1's defaults and bounds for the auto load balancer
 * (dpif-netdev.c's ALB_*), in minutes and percent. */
#define PMD_SCHED_ALB_INTERVAL_MIN 1
#define PMD_SCHED_ALB_MAX_INTERVAL_MIN 20000
#define PMD_SCHED_ALB_IMPROVE 25
#define PMD_SCHED_ALB_LOAD 95

/* Stock's default tx-flush-interval, in microseconds. */
#define PMD_SCHED_TX_FLUSH_DEFAULT 0

/* Fills 'cfg' with stock's defaults. */
void
pmd_sched_config_init(struct pmd_sched_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->algo = PMD_SCHED_CYCLES;
    cfg->isolate = true;
    cfg->alb_interval_min = PMD_SCHED_ALB_INTERVAL_MIN;
    cfg->alb_improve = PMD_SCHED_ALB_IMPROVE;
    cfg->alb_load = PMD_SCHED_ALB_LOAD;
    cfg->tx_flush_us = PMD_SCHED_TX_FLUSH_DEFAULT;
}

static const char *
algo_name(enum pmd_sched_algo algo)
{
    return (algo == PMD_SCHED_ROUNDROBIN ? "roundrobin"
            : algo == PMD_SCHED_CYCLES ? "cycles" : "group");
}

/* One of the auto load balancer's numeric settings, read as stock reads
 * it. */
struct alb_setting {
    const char *key;            /* Its other_config key. */
    unsigned int def;           /* Its default, and what a value over 'max'
                                 * (or that does not parse) becomes. */
    unsigned int min;           /* A value under this becomes this. */
    unsigned int max;           /* The largest value taken. */
    size_t offset;              /* Its member of struct pmd_sched_config, an
                                 * unsigned int. */
    const char *what, *unit;    /* For stock's "... set to" message. */
};

static const struct alb_setting alb_settings[] = {
    { "pmd-auto-lb-rebal-interval", PMD_SCHED_ALB_INTERVAL_MIN, 1,
      PMD_SCHED_ALB_MAX_INTERVAL_MIN,
      offsetof(struct pmd_sched_config, alb_interval_min),
      "interval", " mins" },
    { "pmd-auto-lb-improvement-threshold", PMD_SCHED_ALB_IMPROVE, 0, 100,
      offsetof(struct pmd_sched_config, alb_improve),
      "improvement threshold", "%" },
    { "pmd-auto-lb-load-threshold", PMD_SCHED_ALB_LOAD, 0, 100,
      offsetof(struct pmd_sched_config, alb_load),
      "load threshold", "%" },
};

/* Reads 'setting' from 'other_config' into 'cfg', logging a change with
 * stock's message.  Returns true if it changed. */
static bool
set_alb_setting(struct pmd_sched_config *cfg,
                const struct alb_setting *setting,
                const struct smap *other_config)
{
    unsigned int *member = (unsigned int *) ((char *) cfg + setting->offset);
    unsigned long long value = smap_get_ullong(other_config, setting->key,
                                               setting->def);

    if (value > setting->max) {
        value = setting->def;
    }
    value = MAX(value, setting->min);
    if (value == *member) {
        return false;
    }
    *member = value;
    VLOG_INFO("PMD auto load balance %s set to %llu%s", setting->what, value,
              setting->unit);
    return true;
}

/* Reads the auto load balancer's settings (pmd-alb.h runs it), and the
 * stock settings that only log, tx-flush-interval and smc-enable, with
 * stock's messages (and bounds) and a line saying what ours does with the
 * latter. */
static void
set_logged_settings(struct pmd_sched_config *cfg,
                    const struct smap *other_config)
{
    bool log_alb = !cfg->logged, auto_lb, smc;
    unsigned int tx_flush;

    tx_flush = smap_get_int(other_config, "tx-flush-interval",
                            PMD_SCHED_TX_FLUSH_DEFAULT);
    if (tx_flush != cfg->tx_flush_us) {
        cfg->tx_flush_us = tx_flush;
        VLOG_INFO("Flushing interval for tx queues set to %u us", tx_flush);
        VLOG_INFO("ovs-percpu: each thread sends its output batches at the "
                  "end of every received batch, as stock does with "
                  "tx-flush-interval=0; other values are not applied, so "
                  "that no packet waits for a later batch");
    }

    smc = smap_get_bool(other_config, "smc-enable", false);
    if (smc != cfg->smc) {
        cfg->smc = smc;
        VLOG_INFO("SMC cache is %s", smc ? "enabled" : "disabled");
        VLOG_INFO("ovs-percpu: smc-enable maps to each thread's exact-match "
                  "cache in front of the shared megaflow table "
                  "(emc-insert-inv-prob); it changes nothing");
    }

    for (size_t i = 0; i < ARRAY_SIZE(alb_settings); i++) {
        log_alb |= set_alb_setting(cfg, &alb_settings[i], other_config);
    }

    auto_lb = smap_get_bool(other_config, "pmd-auto-lb", false);
    if (auto_lb != cfg->auto_lb || log_alb) {
        cfg->auto_lb = auto_lb;
        if (auto_lb) {
            VLOG_INFO("PMD auto load balance is enabled, interval %u mins, "
                      "pmd load threshold %u%%, improvement threshold %u%%.",
                      cfg->alb_interval_min, cfg->alb_load,
                      cfg->alb_improve);
        } else {
            VLOG_INFO("PMD auto load balance is disabled.");
        }
    }
    cfg->logged = true;
}

/* Applies pmd-rxq-assign, pmd-rxq-isolate and the logged settings from
 * 'other_config' to 'cfg'.  Bad values get stock's messages and stock's
 * fallbacks.  Returns true if the queues must be assigned again. */
bool
pmd_sched_set_config(struct pmd_sched_config *cfg,
                     const struct smap *other_config)
{
    const char *assign = smap_get_def(other_config, "pmd-rxq-assign",
                                      "cycles");
    enum pmd_sched_algo algo;
    bool changed = false;
    bool isolate;

    if (!strcmp(assign, "roundrobin")) {
        algo = PMD_SCHED_ROUNDROBIN;
    } else if (!strcmp(assign, "cycles")) {
        algo = PMD_SCHED_CYCLES;
    } else if (!strcmp(assign, "group")) {
        algo = PMD_SCHED_GROUP;
    } else {
        VLOG_WARN("Unsupported rx queue to PMD assignment mode in "
                  "pmd-rxq-assign. Defaulting to 'cycles'.");
        algo = PMD_SCHED_CYCLES;
    }
    if (algo != cfg->algo) {
        cfg->algo = algo;
        VLOG_INFO("Rxq to PMD assignment mode changed to: '%s'.",
                  algo_name(algo));
        changed = true;
    }

    isolate = smap_get_bool(other_config, "pmd-rxq-isolate", true);
    if (algo != PMD_SCHED_GROUP && !isolate) {
        VLOG_WARN("pmd-rxq-isolate can only be set false "
                  "when using pmd-rxq-assign=group");
        isolate = true;
    }
    if (isolate != cfg->isolate) {
        cfg->isolate = isolate;
        VLOG_INFO(isolate ? "pmd-rxq-affinity isolates PMD core"
                          : "pmd-rxq-affinity does not isolate PMD core");
        changed = true;
    }

    set_logged_settings(cfg, other_config);
    return changed;
}

/* Parses pmd-rxq-affinity 'list' ("Q:CORE,Q:CORE,...", as stock's
 * parse_affinity_list()) into 'cores', one element per queue of 'n_rxq'
 * (PMD_SCHED_UNPINNED for a queue the list does not name; entries for
 * queues beyond 'n_rxq' are ignored, as stock ignores them).  Returns 0, or
 * EINVAL if an entry is not two non-negative integers. */
int
pmd_sched_parse_affinity(const char *list, int *cores, int n_rxq)
{
    char *copy, *rest, *key, *value;
    int error = 0;

    for (int i = 0; i < n_rxq; i++) {
        cores[i] = PMD_SCHED_UNPINNED;
    }
    if (!list) {
        return 0;
    }
    rest = copy = xstrdup(list);
    while (ofputil_parse_key_value(&rest, &key, &value)) {
        int qid, core;

        if (!str_to_int(key, 0, &qid) || qid < 0
            || !str_to_int(value, 0, &core) || core < 0) {
            error = EINVAL;
            break;
        }
        if (qid < n_rxq) {
            cores[qid] = core;
        }
    }
    free(copy);
    return error;
}

/* A thread as the assignment sees it. */
struct sched_pmd {
    struct pmd_thread *pmd;
    bool isolated;              /* Has pinned queues, takes no others. */
    uint64_t cycles;            /* Of the queues given to it so far. */
    size_t n_rxqs;              /* Queues given to it so far. */
};

/* Orders queues busiest first; equal ones keep their order (port number,
 * then queue id), which the index tie-break keeps stable. */
static int
compare_rxq_cycles(const void *a_, const void *b_)
{
    const struct pmd_sched_rxq *const *a = a_;
    const struct pmd_sched_rxq *const *b = b_;

    if ((*a)->cycles != (*b)->cycles) {
        return (*a)->cycles > (*b)->cycles ? -1 : 1;
    }
    return *a < *b ? -1 : *a > *b;
}

static void
give(struct sched_pmd *sp, struct pmd_sched_rxq *rxq)
{
    rxq->pmd = sp->pmd;
    sp->cycles += rxq->cycles;
    sp->n_rxqs++;
}

/* Logs that 'rxq' went to 'sp', in stock's words: the cycles are named
 * unless the assignment is roundrobin. */
static void
log_assigned(const struct pmd_sched_config *cfg, enum vlog_level level,
             const struct sched_pmd *sp, const struct pmd_sched_rxq *rxq)
{
    char cycles[64] = "";

    if (cfg->algo != PMD_SCHED_ROUNDROBIN) {
        snprintf(cycles, sizeof cycles,
                 " (measured processing cycles %"PRIu64")", rxq->cycles);
    }
    VLOG(level, "Core %2u on numa node %d assigned port '%s' rx queue %d%s.",
         sp->pmd->core_id, ovs_numa_get_numa_id(sp->pmd->core_id),
         rxq->name, rxq->qid, cycles);
}

/* The least loaded of 'cands' (n of them): fewest cycles, then fewest
 * queues, then the lowest core, as stock's group assignment picks. */
static struct sched_pmd *
least_loaded(struct sched_pmd **cands, size_t n)
{
    struct sched_pmd *best = NULL;

    for (size_t i = 0; i < n; i++) {
        struct sched_pmd *sp = cands[i];

        if (!best || sp->cycles < best->cycles
            || (sp->cycles == best->cycles && sp->n_rxqs < best->n_rxqs)) {
            best = sp;
        }
    }
    return best;
}

/* Places 'rxqs' (n_rxqs, in port-number then queue order) on 'pmds'
 * (n_pmds, in core order) as 'cfg' says, setting each queue's 'pmd' and
 * each thread's 'isolated', and logs the assignment as stock does.  A
 * 'dry_run' (pmd-alb's estimate) sets only the queues' 'pmd' and logs at
 * DBG, as stock's dry run does. */
void
pmd_sched_assign(const struct pmd_sched_config *cfg,
                 struct pmd_thread **pmds, size_t n_pmds,
                 struct pmd_sched_rxq *rxqs, size_t n_rxqs, bool dry_run)
{
    enum vlog_level level = dry_run ? VLL_DBG : VLL_INFO;
    enum vlog_level warn = dry_run ? VLL_DBG : VLL_WARN;
    struct sched_pmd *sps = xcalloc(MAX(n_pmds, 1), sizeof *sps);
    struct sched_pmd **cands = xcalloc(MAX(n_pmds, 1), sizeof *cands);
    struct pmd_sched_rxq **rest = xcalloc(MAX(n_rxqs, 1), sizeof *rest);
    size_t n_cands = 0, n_rest = 0;
    enum pmd_sched_algo algo = cfg->algo;
    bool any_cycles = false;

    for (size_t i = 0; i < n_pmds; i++) {
        sps[i].pmd = pmds[i];
    }

    /* Pinned queues first. */
    for (size_t i = 0; i < n_rxqs; i++) {
        struct pmd_sched_rxq *rxq = &rxqs[i];
        struct sched_pmd *sp = NULL;

        rxq->pmd = NULL;
        if (rxq->pinned_core != PMD_SCHED_UNPINNED) {
            for (size_t j = 0; j < n_pmds; j++) {
                if (sps[j].pmd->core_id == rxq->pinned_core) {
                    sp = &sps[j];
                }
            }
            if (!sp) {
                VLOG(warn, "Core %2u cannot be pinned with port '%s' rx "
                     "queue %d. Use pmd-cpu-mask to enable a pmd on "
                     "core %u. An alternative core will be assigned.",
                     rxq->pinned_core, rxq->name, rxq->qid,
                     rxq->pinned_core);
            } else {
                give(sp, rxq);
                sp->isolated = cfg->isolate;
                log_assigned(cfg, level, sp, rxq);
                continue;
            }
        }
        rest[n_rest++] = rxq;
        any_cycles |= rxq->cycles != 0;
    }
    for (size_t i = 0; i < n_pmds; i++) {
        if (!dry_run) {
            sps[i].pmd->isolated = sps[i].isolated;
        }
        if (!sps[i].isolated) {
            cands[n_cands++] = &sps[i];
        }
    }

    /* Then the others. */
    if (algo != PMD_SCHED_ROUNDROBIN) {
        qsort(rest, n_rest, sizeof *rest, compare_rxq_cycles);
    }
    if (algo == PMD_SCHED_CYCLES && !any_cycles) {
        /* Nothing measured yet: stock deals these in turn too. */
        algo = PMD_SCHED_ROUNDROBIN;
    }
    if (n_rest && n_pmds) {
        VLOG(level, "Performing pmd to rx queue assignment using %s "
             "algorithm.", algo_name(cfg->algo));
    }
    for (size_t i = 0; i < n_rest && n_cands; i++) {
        struct pmd_sched_rxq *rxq = rest[i];
        struct sched_pmd *sp;

        if (algo == PMD_SCHED_ROUNDROBIN) {
            /* Each port starts one thread further on, so that the first
             * queues, the busiest as a rule, of different ports land on
             * different threads. */
            sp = cands[(rxq->port_index + rxq->qid) % n_cands];
        } else if (algo == PMD_SCHED_CYCLES) {
            /* Up then down over the threads, busiest queues first. */
            size_t round = i / n_cands, pos = i % n_cands;

            sp = cands[round % 2 ? n_cands - 1 - pos : pos];
        } else {
            sp = least_loaded(cands, n_cands);
        }
        give(sp, rxq);
        log_assigned(cfg, level, sp, rxq);
    }
    if (n_rest && n_pmds && !n_cands) {
        for (size_t i = 0; i < n_rest; i++) {
            VLOG(warn, "No non-isolated pmd on any numa available for port "
                 "'%s' rx queue %d (measured processing cycles "
                 "%"PRIu64"). This rx queue will not be polled.",
                 rest[i]->name, rest[i]->qid, rest[i]->cycles);
        }
    }
    free(rest);
    free(cands);
    free(sps);
}

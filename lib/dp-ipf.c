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


#include <config.h>
#include "dp-ipf.h"

#include <errno.h>

#include "datapath.h"
#include "dpif-provider.h"
#include "ipf-cpu.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "ovs-rcu.h"
#include "pmd.h"
#include "smap.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dp_ipf);

/* Most datagrams a thread times out at the end of a round that forwarded
 * packets.  A busy thread runs thousands of rounds a second, so this keeps
 * up with any rate of expiries its memory limit allows, while a round
 * never frees a whole table at once. */
#define DP_IPF_BUSY_EXPIRE 8

/* OVS's ipf.c bounds, which dpctl/ipf-set-min-frag and ipf-set-max-nfrags
 * keep: the smallest minimum fragment size, and the largest maximum number
 * of fragments held.  And its default maximum. */
#define DP_IPF_MIN_FRAG_LBOUND 400
#define DP_IPF_NFRAG_UBOUND 5000
#define DP_IPF_NFRAG_DEFAULT 1000

/* The limits the threads apply, replaced whole on each change. */
struct dp_ipf_config {
    struct ipf_cpu_config limits; /* Per thread; min_frag and max_frags
                                   * from the dpctl/ipf-* settings below. */
    uint64_t generation;        /* Increases with each change. */

    /* What dpctl/ipf-* set. */
    bool ct_enabled[2];         /* Reassemble for ct(), by family (0 IPv4,
                                 * 1 IPv6); else fragments go to conntrack
                                 * as they are. */
    uint32_t max_nfrags;        /* Most fragments held by all threads:
                                 * each thread may hold
                                 * max_nfrags / n_threads. */
};

/* One thread's reassembly: written only by the thread whose index it has;
 * padded so that threads share no line. */
struct dp_ipf_thread {
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        /* Created by the thread at first use, then read by the main thread
         * for its counters; freed by the main thread once the thread has
         * stopped (dp_ipf_thread_stopped()). */
        OVSRCU_TYPE(struct ipf_cpu *) table;
        uint64_t generation;    /* The limits' generation applied to it. */
    );
};

/* A datapath's fragment reassembly ('struct datapath''s 'ipf'). */
struct dp_ipf {
    /* Set by the main thread under 'reconfig_mutex', read by the threads
     * under RCU. */
    OVSRCU_TYPE(struct dp_ipf_config *) config;
    char *rejected;             /* Main thread: the last invalid setting,
                                 * logged once. */
    size_t n_threads;           /* Elements in 'threads'. */
    struct dp_ipf_thread *threads; /* By thread index. */
};

/* Gives 'dp' its reassembly, for 'dp->n_thread_slots' threads, and
 * publishes the default limits, generation 1. */
void
dp_ipf_init(struct datapath *dp)
{
    struct dp_ipf_config *cfg = xzalloc(sizeof *cfg);
    struct dp_ipf *ipf = xzalloc(sizeof *ipf);

    ipf->n_threads = dp->n_thread_slots;
    ipf_cpu_config_default(&cfg->limits);
    cfg->generation = 1;
    cfg->ct_enabled[0] = cfg->ct_enabled[1] = true;
    cfg->max_nfrags = DP_IPF_NFRAG_DEFAULT;
    cfg->limits.max_frags = cfg->max_nfrags / ipf->n_threads;
    ovsrcu_set_hidden(&ipf->config, cfg);
    ipf->rejected = NULL;
    ipf->threads = xzalloc_cacheline(ipf->n_threads * sizeof *ipf->threads);
    for (size_t i = 0; i < ipf->n_threads; i++) {
        ovsrcu_set_hidden(&ipf->threads[i].table, NULL);
    }
    dp->ipf = ipf;
}

/* Frees what dp_ipf_init(), dp_ipf_set_config() and the threads allocated,
 * once no thread can run. */
void
dp_ipf_destroy(struct datapath *dp)
{
    struct dp_ipf *ipf = dp->ipf;

    if (!ipf) {
        return;
    }
    for (size_t i = 0; i < ipf->n_threads; i++) {
        ipf_cpu_destroy(ovsrcu_get_protected(struct ipf_cpu *,
                                             &ipf->threads[i].table));
    }
    free_cacheline(ipf->threads);
    free(ovsrcu_get_protected(struct dp_ipf_config *, &ipf->config));
    free(ipf->rejected);
    free(ipf);
    dp->ipf = NULL;
}

/* ovsrcu_postpone__() callback: frees 'table', a 'struct ipf_cpu'. */
static void
free_table(void *table)
{
    ipf_cpu_destroy(table);
}

/* Frees the table of thread index 'index', whose thread has stopped, so
 * that a thread that takes the index starts with none, as a new thread
 * does.  Main thread, under 'dp->reconfig_mutex'. */
void
dp_ipf_thread_stopped(struct datapath *dp, size_t index)
{
    struct dp_ipf_thread *slot = &dp->ipf->threads[index];
    struct ipf_cpu *table = ovsrcu_get_protected(struct ipf_cpu *,
                                                 &slot->table);

    if (table) {
        ovsrcu_set(&slot->table, NULL);
        ovsrcu_postpone__(free_table, table);
    }
}

/* Returns a copy of 'ipf''s current configuration, for the caller to
 * change and give to dp_ipf_config_publish().  Under 'reconfig_mutex'. */
static struct dp_ipf_config *
dp_ipf_config_copy(const struct dp_ipf *ipf)
{
    const struct dp_ipf_config *old;

    old = ovsrcu_get_protected(struct dp_ipf_config *, &ipf->config);
    return xmemdup(old, sizeof *old);
}

/* Publishes 'cfg', a changed copy from dp_ipf_config_copy(), with the next
 * generation, for the threads to apply.  Under 'reconfig_mutex'. */
static void
dp_ipf_config_publish(struct dp_ipf *ipf, struct dp_ipf_config *cfg)
{
    struct dp_ipf_config *old;

    old = ovsrcu_get_protected(struct dp_ipf_config *, &ipf->config);
    cfg->generation = old->generation + 1;
    ovsrcu_set(&ipf->config, cfg);
    ovsrcu_postpone(free, old);
}

/* Parses other_config key 'key' into '*value' (unchanged if the key is
 * absent), scaled by 'scale'.  Returns false, with a message in 'error', if
 * it is not a positive integer. */
static bool
parse_limit(const struct smap *other_config, const char *key,
            unsigned long long scale, unsigned long long max,
            unsigned long long *value, struct ds *error)
{
    const char *s = smap_get(other_config, key);
    unsigned long long v;

    if (!s) {
        return true;
    }
    if (!str_to_ullong(s, 10, &v) || !v || v > max / scale) {
        ds_put_format(error, "%s \"%s\" is not an integer from 1 to %llu%s",
                      key, s, max / scale, scale == 1000 ? " (seconds)"
                                                         : " (bytes)");
        return false;
    }
    *value = v * scale;
    return true;
}

/* Applies ipf-high-thresh, ipf-low-thresh and ipf-timeout from
 * 'other_config'.  Absent keys take their defaults, and the low threshold
 * follows a high threshold given alone, as in the kernel's defaults.
 * Under 'dp->reconfig_mutex'. */
void
dp_ipf_set_config(struct datapath *dp, const struct smap *other_config)
{
    struct dp_ipf *ipf = dp->ipf;
    struct dp_ipf_config *old = ovsrcu_get_protected(struct dp_ipf_config *,
                                                     &ipf->config);
    struct ipf_cpu_config defaults, limits;
    unsigned long long high, low, timeout_ms;
    struct ds error = DS_EMPTY_INITIALIZER;
    char *problem;

    ipf_cpu_config_default(&defaults);
    high = defaults.high_thresh;
    timeout_ms = defaults.timeout_ms;
    low = 0;
    if (parse_limit(other_config, "ipf-high-thresh", 1, SIZE_MAX, &high,
                    &error)
        && parse_limit(other_config, "ipf-low-thresh", 1, SIZE_MAX, &low,
                       &error)
        && parse_limit(other_config, "ipf-timeout", 1000,
                       IPF_CPU_MAX_TIMEOUT_MS, &timeout_ms, &error)) {
        limits.high_thresh = high;
        limits.low_thresh = (low ? low
                             : high > defaults.high_thresh
                                      - defaults.low_thresh
                             ? high - (defaults.high_thresh
                                       - defaults.low_thresh)
                             : high / 2);
        limits.timeout_ms = timeout_ms;
        problem = ipf_cpu_config_check(&limits);
        if (problem) {
            ds_put_cstr(&error, problem);
            free(problem);
        }
    }

    if (error.length) {
        /* Reported once per distinct rejected setting, not at every
         * reconfiguration. */
        if (!ipf->rejected || strcmp(ipf->rejected, ds_cstr(&error))) {
            VLOG_WARN("%s: invalid fragment reassembly limits: %s; keeping "
                      "high %"PRIuSIZE", low %"PRIuSIZE", timeout %lld s",
                      dp->name, ds_cstr(&error), old->limits.high_thresh,
                      old->limits.low_thresh,
                      old->limits.timeout_ms / 1000);
            free(ipf->rejected);
            ipf->rejected = ds_steal_cstr(&error);
        }
        ds_destroy(&error);
        return;
    }
    free(ipf->rejected);
    ipf->rejected = NULL;
    ds_destroy(&error);

    if (limits.high_thresh != old->limits.high_thresh
        || limits.low_thresh != old->limits.low_thresh
        || limits.timeout_ms != old->limits.timeout_ms) {
        struct dp_ipf_config *cfg = dp_ipf_config_copy(ipf);

        cfg->limits.high_thresh = limits.high_thresh;
        cfg->limits.low_thresh = limits.low_thresh;
        cfg->limits.timeout_ms = limits.timeout_ms;
        dp_ipf_config_publish(ipf, cfg);
        VLOG_INFO("%s: fragment reassembly limits: high %"PRIuSIZE
                  " bytes, low %"PRIuSIZE" bytes, timeout %lld s per "
                  "thread", dp->name, limits.high_thresh, limits.low_thresh,
                  limits.timeout_ms / 1000);
    }
}

/* Returns 't''s reassembly table, creating it at first use and applying
 * the datapath's latest limits to it.  Called by 't' only. */
struct ipf_cpu *
dp_ipf_thread_table(struct pmd_thread *t)
{
    struct dp_ipf *ipf = t->dp->ipf;
    struct dp_ipf_thread *slot = &ipf->threads[t->index];
    const struct dp_ipf_config *cfg;
    struct ipf_cpu *table;

    cfg = ovsrcu_get(struct dp_ipf_config *, &ipf->config);
    table = ovsrcu_get(struct ipf_cpu *, &slot->table);
    if (!table) {
        table = ipf_cpu_create(&cfg->limits);
        slot->generation = cfg->generation;
        ovsrcu_set(&slot->table, table);
    } else if (OVS_UNLIKELY(slot->generation != cfg->generation)) {
        ipf_cpu_set_config(table, &cfg->limits);
        slot->generation = cfg->generation;
    }
    return table;
}

/* Times out 't''s datagrams that will not complete, at the end of one of
 * its polling rounds: all of them if the round was idle, at most
 * DP_IPF_BUSY_EXPIRE if it was 'busy'.  Does nothing before 't' first
 * reassembles.  Called by 't' only. */
void
dp_ipf_thread_run(struct pmd_thread *t, bool busy)
{
    struct ipf_cpu *ipf = ovsrcu_get(struct ipf_cpu *,
                                     &t->dp->ipf->threads[t->index].table);

    if (OVS_UNLIKELY(ipf)) {
        if (busy) {
            ipf_cpu_expire(ipf, t->now, DP_IPF_BUSY_EXPIRE);
        } else {
            ipf_cpu_run(ipf, time_msec());
        }
    }
}

static void
format_stats(struct ds *s, const struct ipf_cpu_stats *st)
{
    ds_put_format(s, "  bytes held: %"PRIu64", datagrams being "
                  "reassembled: %"PRIu64"\n", st->bytes_held, st->queues);
    ds_put_format(s, "  fragments: %"PRIu64", reassembled: %"PRIu64
                  ", evicted: %"PRIu64", timed out: %"PRIu64
                  ", discarded: %"PRIu64"\n", st->fragments_in,
                  st->reassembled, st->evicted, st->timed_out,
                  st->discarded);
    ds_put_cstr(s, "  drops:");
    for (int i = 0; i < IPF_N_DROP_REASONS; i++) {
        ds_put_format(s, " %s %"PRIu64, ipf_cpu_drop_reason_to_string(i),
                      st->drops[i]);
    }
    ds_put_char(s, '\n');
}

/* Formats into 's' the limits, then each thread's reassembly counters and
 * their total.  Under 'dp->reconfig_mutex'. */
void
dp_ipf_format_stats(struct ds *s, const struct datapath *dp)
{
    const struct dp_ipf_config *cfg;
    struct ipf_cpu_stats total;

    cfg = ovsrcu_get(struct dp_ipf_config *, &dp->ipf->config);
    ds_put_format(s, "limits per thread: high %"PRIuSIZE" bytes, low %"
                  PRIuSIZE" bytes, timeout %lld s\n",
                  cfg->limits.high_thresh, cfg->limits.low_thresh,
                  cfg->limits.timeout_ms / 1000);
    ds_put_format(s, "fragments held per thread: at most %"PRIuSIZE
                  " (ipf-set-max-nfrags %"PRIu32" over %"PRIuSIZE
                  " threads)\n", cfg->limits.max_frags, cfg->max_nfrags,
                  dp->ipf->n_threads);
    memset(&total, 0, sizeof total);
    for (size_t i = 1; i <= dp->n_thread_slots; i++) {
        const struct pmd_thread *t = datapath_thread(dp,
                                                     i % dp->n_thread_slots);
        const struct ipf_cpu *table;
        struct ipf_cpu_stats st;

        table = (t ? ovsrcu_get(struct ipf_cpu *,
                                &dp->ipf->threads[t->index].table)
                 : NULL);
        if (!table) {
            continue;
        }
        ipf_cpu_get_stats(table, &st);
        pmd_thread_format_name(s, t);
        ds_put_cstr(s, ":\n");
        format_stats(s, &st);
        total.bytes_held += st.bytes_held;
        total.queues += st.queues;
        total.fragments_in += st.fragments_in;
        total.reassembled += st.reassembled;
        total.evicted += st.evicted;
        total.timed_out += st.timed_out;
        total.discarded += st.discarded;
        for (int r = 0; r < IPF_N_DROP_REASONS; r++) {
            total.drops[r] += st.drops[r];
        }
    }
    ds_put_cstr(s, "total:\n");
    format_stats(s, &total);
}

/* dpctl/ipf-set-enabled and ipf-set-disabled: whether ct() reassembles
 * fragments of IPv6 ('v6') or IPv4 per thread.  Disabled, fragments go to
 * conntrack as they are, as with OVS's ipf.c disabled.  Returns 0.  Under
 * 'dp->reconfig_mutex'. */
int
dp_ipf_set_enabled(struct datapath *dp, bool v6, bool enabled)
{
    struct dp_ipf_config *cfg = dp_ipf_config_copy(dp->ipf);

    cfg->ct_enabled[v6] = enabled;
    dp_ipf_config_publish(dp->ipf, cfg);
    return 0;
}

/* dpctl/ipf-set-min-frag: the fewest IP bytes a fragment other than the
 * last of IPv6 ('v6') or IPv4 may have.  Returns EINVAL, changing nothing,
 * below ipf.c's bound of 400.  Under 'dp->reconfig_mutex'. */
int
dp_ipf_set_min_frag(struct datapath *dp, bool v6, uint32_t min_frag)
{
    struct dp_ipf_config *cfg;

    if (min_frag < DP_IPF_MIN_FRAG_LBOUND) {
        return EINVAL;
    }
    cfg = dp_ipf_config_copy(dp->ipf);
    cfg->limits.min_frag[v6] = min_frag;
    dp_ipf_config_publish(dp->ipf, cfg);
    return 0;
}

/* dpctl/ipf-set-max-nfrags: the most fragments all threads hold, split
 * evenly between the thread indexes (rounded down) so that each thread
 * counts against its own share only.  Returns EINVAL, changing nothing,
 * above ipf.c's bound of 5000.  Under 'dp->reconfig_mutex'. */
int
dp_ipf_set_max_nfrags(struct datapath *dp, uint32_t max_nfrags)
{
    struct dp_ipf_config *cfg;

    if (max_nfrags > DP_IPF_NFRAG_UBOUND) {
        return EINVAL;
    }
    cfg = dp_ipf_config_copy(dp->ipf);
    cfg->max_nfrags = max_nfrags;
    cfg->limits.max_frags = max_nfrags / dp->ipf->n_threads;
    dp_ipf_config_publish(dp->ipf, cfg);
    return 0;
}

/* Returns a bit mask of the families whose fragments ct() reassembles per
 * thread: DP_IPF_CT_V4, DP_IPF_CT_V6.  Any thread; reads only. */
unsigned int
dp_ipf_ct_families(const struct datapath *dp)
{
    const struct dp_ipf_config *cfg;

    cfg = ovsrcu_get(struct dp_ipf_config *, &dp->ipf->config);
    return ((cfg->ct_enabled[0] ? DP_IPF_CT_V4 : 0)
            | (cfg->ct_enabled[1] ? DP_IPF_CT_V6 : 0));
}

/* Fills 'st' for dpctl/ipf-get-status, in the terms of OVS's ipf.c: the
 * settings, the fragments held and the counters, summed over the threads'
 * own counters (each written by its thread only).  The mapping of our
 * counters to ipf.c's is in Documentation/fragments.md.  Under
 * 'dp->reconfig_mutex'. */
void
dp_ipf_get_status(const struct datapath *dp, struct dpif_ipf_status *st)
{
    const struct dp_ipf_config *cfg;
    uint64_t nfrag = 0;

    cfg = ovsrcu_get(struct dp_ipf_config *, &dp->ipf->config);
    memset(st, 0, sizeof *st);
    for (size_t i = 0; i < dp->ipf->n_threads; i++) {
        const struct ipf_cpu *table;
        struct ipf_cpu_stats ts;

        table = ovsrcu_get(struct ipf_cpu *, &dp->ipf->threads[i].table);
        if (!table) {
            continue;
        }
        ipf_cpu_get_stats(table, &ts);
        nfrag += ts.frags_held;
        for (int f = 0; f < 2; f++) {
            struct dpif_ipf_proto_status *ps = f ? &st->v6 : &st->v4;
            const struct ipf_cpu_family_stats *fs = &ts.family[f];

            ps->nfrag_accepted += fs->accepted;
            ps->nfrag_completed_sent += fs->completed;
            ps->nfrag_expired_sent += fs->expired;
            ps->nfrag_too_small += fs->too_small;
            ps->nfrag_overlap += fs->overlap;
            ps->nfrag_purged += fs->purged;
        }
    }
    st->nfrag = MIN(nfrag, UINT_MAX);
    st->nfrag_max = cfg->max_nfrags;
    st->v4.enabled = cfg->ct_enabled[0];
    st->v6.enabled = cfg->ct_enabled[1];
    st->v4.min_frag_size = cfg->limits.min_frag[0];
    st->v6.min_frag_size = cfg->limits.min_frag[1];
}

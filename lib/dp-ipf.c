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


/* The datapath's IP fragment reassembly: one table per thread, limits. */

#include <config.h>
#include "dp-ipf.h"

#include <errno.h>

#include "bitmap.h"
#include "datapath.h"
#include "dpif-provider.h"
#include "ipf-cpu.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/thread.h"
#include "ovs-thread.h"
#include "packets.h"
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
 * of fragments held.  And its defaults, which apply to ct() as in stock:
 * the minimum fragment sizes for IPv4 and IPv6 and the maximum number of
 * fragments held. */
#define DP_IPF_MIN_FRAG_LBOUND 400
#define DP_IPF_NFRAG_UBOUND 5000
#define DP_IPF_V4_MIN_FRAG_DEFAULT 1200
#define DP_IPF_V6_MIN_FRAG_DEFAULT 1280
#define DP_IPF_NFRAG_DEFAULT 1000

/* dpctl/ipf-get-status -m: the most datagrams one thread lists (ipf.c's
 * bound on fragments held, each datagram holding one at least), and how
 * long the main thread waits for the threads' lists, in ms. */
#define DP_IPF_DUMP_MAX DP_IPF_NFRAG_UBOUND
#define DP_IPF_DUMP_WAIT_MS 1000

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
    size_t n_threads;           /* Threads that exist: the non-PMD context
                                 * and the PMD threads (set by
                                 * dp_ipf_threads_changed()). */
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

        /* The thread's answer to the main thread's last request for the
         * list of what it holds (dp_ipf_dump_start()).  'dump_seen' is
         * the thread's own; the rest is written by the thread when it
         * answers, and taken by the main thread, under 'dump_mutex',
         * never on the per-packet path. */
        uint64_t dump_seen;     /* The last request the thread answered. */
        struct ovs_mutex dump_mutex;
        uint64_t dump_answered OVS_GUARDED; /* Request 'dump' answers. */
        struct ipf_cpu_held *dump OVS_GUARDED; /* malloc'd, or NULL. */
        size_t dump_n OVS_GUARDED;          /* Elements in 'dump'. */
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

    /* Requests for the threads' lists: increased by the main thread,
     * read by each thread once a polling round. */
    atomic_uint64_t dump_request;
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
    /* A new datapath has its non-PMD context only; its PMD threads, which
     * come with its first PMD port, are counted as they start. */
    cfg->n_threads = 1;
    cfg->limits.max_frags = cfg->max_nfrags / cfg->n_threads;
    cfg->limits.min_frag[0] = DP_IPF_V4_MIN_FRAG_DEFAULT;
    cfg->limits.min_frag[1] = DP_IPF_V6_MIN_FRAG_DEFAULT;
    ovsrcu_set_hidden(&ipf->config, cfg);
    ipf->rejected = NULL;
    ipf->threads = xzalloc_cacheline(ipf->n_threads * sizeof *ipf->threads);
    for (size_t i = 0; i < ipf->n_threads; i++) {
        ovsrcu_set_hidden(&ipf->threads[i].table, NULL);
        ovs_mutex_init(&ipf->threads[i].dump_mutex);
    }
    atomic_init(&ipf->dump_request, 0);
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
        struct dp_ipf_thread *slot = &ipf->threads[i];

        ipf_cpu_destroy(ovsrcu_get_protected(struct ipf_cpu *,
                                             &slot->table));
        ovs_mutex_lock(&slot->dump_mutex);
        free(slot->dump);
        ovs_mutex_unlock(&slot->dump_mutex);
        ovs_mutex_destroy(&slot->dump_mutex);
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

/* Tells 'dp''s reassembly that 'n_threads' threads exist now (the non-PMD
 * context and the PMD threads), so that each may hold its share of
 * dpctl/ipf-set-max-nfrags: publishes the share if it changed.  A thread
 * that holds more than a smaller new share keeps what it holds and takes
 * no more until under it.  Main thread, under 'dp->reconfig_mutex', as
 * threads are started and stopped. */
void
dp_ipf_threads_changed(struct datapath *dp, size_t n_threads)
{
    const struct dp_ipf_config *old;
    struct dp_ipf_config *cfg;

    old = ovsrcu_get_protected(struct dp_ipf_config *, &dp->ipf->config);
    n_threads = MAX(n_threads, 1);
    if (n_threads == old->n_threads) {
        return;
    }
    cfg = dp_ipf_config_copy(dp->ipf);
    cfg->n_threads = n_threads;
    cfg->limits.max_frags = cfg->max_nfrags / n_threads;
    dp_ipf_config_publish(dp->ipf, cfg);
    VLOG_INFO("%s: fragments held for ct() per thread: at most %"PRIuSIZE
              " (ipf-set-max-nfrags %"PRIu32" over %"PRIuSIZE" thread%s)",
              dp->name, cfg->limits.max_frags, cfg->max_nfrags, n_threads,
              n_threads == 1 ? "" : "s");
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

/* Answers the main thread's request 'request' for the list of what 'ipf',
 * the table of 'slot''s thread, holds for ct(): a bounded snapshot, built by
 * the table's own thread and handed over under the slot's 'dump_mutex'.
 * An answer the main thread did not take (it stopped waiting) is freed.
 * Called by the slot's thread only, at the end of a polling round. */
static void
dp_ipf_thread_answer(struct dp_ipf_thread *slot, const struct ipf_cpu *ipf,
                     uint64_t request)
{
    struct ipf_cpu_held *held = xmalloc(DP_IPF_DUMP_MAX * sizeof *held);
    size_t n = ipf_cpu_snapshot(ipf, held, DP_IPF_DUMP_MAX);
    struct ipf_cpu_held *old;

    ovs_mutex_lock(&slot->dump_mutex);
    old = slot->dump;
    slot->dump = n ? xrealloc(held, n * sizeof *held) : NULL;
    slot->dump_n = n;
    slot->dump_answered = request;
    ovs_mutex_unlock(&slot->dump_mutex);
    if (!n) {
        free(held);
    }
    free(old);
    slot->dump_seen = request;
}

/* Times out 't''s datagrams that will not complete, at the end of one of
 * its polling rounds: all of them if the round was idle, at most
 * DP_IPF_BUSY_EXPIRE if it was 'busy'.  Does nothing before 't' first
 * reassembles.  Called by 't' only. */
void
dp_ipf_thread_run(struct pmd_thread *t, bool busy)
{
    struct dp_ipf_thread *slot = &t->dp->ipf->threads[t->index];
    struct ipf_cpu *ipf = ovsrcu_get(struct ipf_cpu *, &slot->table);

    if (OVS_UNLIKELY(ipf)) {
        uint64_t request;

        if (busy) {
            ipf_cpu_expire(ipf, t->now, DP_IPF_BUSY_EXPIRE);
        } else {
            ipf_cpu_run(ipf, time_msec());
        }
        atomic_read_relaxed(&t->dp->ipf->dump_request, &request);
        if (OVS_UNLIKELY(request != slot->dump_seen) && t->index) {
            dp_ipf_thread_answer(slot, ipf, request);
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
                  " thread%s)\n", cfg->limits.max_frags, cfg->max_nfrags,
                  cfg->n_threads, cfg->n_threads == 1 ? "" : "s");
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
 * evenly between the threads that exist (rounded down) so that each thread
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
    cfg->limits.max_frags = max_nfrags / cfg->n_threads;
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

/* A dpctl/ipf-get-status -m listing of what the threads hold for ct(). */
struct dp_ipf_dump {
    struct ipf_cpu_held *held;  /* Every thread's answer, in one array. */
    size_t n;                   /* Elements in 'held'. */
    size_t next;                /* Next element dp_ipf_dump_next() gives. */
    struct ds missing;          /* Thread indexes that did not answer in
                                 * time, as " 1 2 ...", or empty. */
    bool missing_done;          /* dp_ipf_dump_next() gave 'missing'. */
};

/* Appends 'n' elements of 'held' to 'dump'. */
static void
dump_append(struct dp_ipf_dump *dump, const struct ipf_cpu_held *held,
            size_t n)
{
    if (n) {
        dump->held = xrealloc(dump->held,
                              (dump->n + n) * sizeof *dump->held);
        memcpy(&dump->held[dump->n], held, n * sizeof *held);
        dump->n += n;
    }
}

/* Starts listing what every thread of 'dp' holds for ct(), as OVS's ipf.c's
 * ipf_dump_start(): the main thread takes the non-PMD context's table
 * itself, under 'non_pmd_mutex', and asks each PMD thread that has a table
 * for a snapshot of its own, which the thread takes at the end of its next
 * polling round (dp_ipf_thread_run()); it waits for the answers up to
 * DP_IPF_DUMP_WAIT_MS, and a thread that has not answered by then is named
 * in the listing instead.  Each thread lists DP_IPF_DUMP_MAX datagrams at
 * most.  Returns 0, with '*dumpp' for dp_ipf_dump_next().  Main thread. */
int
dp_ipf_dump_start(struct datapath *dp, struct dp_ipf_dump **dumpp)
    OVS_EXCLUDED(dp->non_pmd_mutex)
{
    struct dp_ipf *ipf = dp->ipf;
    struct dp_ipf_dump *dump = xzalloc(sizeof *dump);
    unsigned long *waiting = bitmap_allocate(ipf->n_threads);
    long long int deadline;
    uint64_t request;
    size_t n_waiting = 0;

    ds_init(&dump->missing);

    /* Ask first, so that the threads answer while the main thread lists
     * its own. */
    atomic_read_relaxed(&ipf->dump_request, &request);
    request++;
    atomic_store_relaxed(&ipf->dump_request, request);
    for (size_t i = 1; i < ipf->n_threads; i++) {
        if (ovsrcu_get(struct ipf_cpu *, &ipf->threads[i].table)) {
            bitmap_set1(waiting, i);
            n_waiting++;
        }
    }

    ovs_mutex_lock(&dp->non_pmd_mutex);
    const struct ipf_cpu *table0 = ovsrcu_get(struct ipf_cpu *,
                                              &ipf->threads[0].table);
    if (table0) {
        struct ipf_cpu_held *held = xmalloc(DP_IPF_DUMP_MAX * sizeof *held);

        dump_append(dump, held,
                    ipf_cpu_snapshot(table0, held, DP_IPF_DUMP_MAX));
        free(held);
    }
    ovs_mutex_unlock(&dp->non_pmd_mutex);

    deadline = time_msec() + DP_IPF_DUMP_WAIT_MS;
    for (;;) {
        for (size_t i = 1; i < ipf->n_threads; i++) {
            struct dp_ipf_thread *slot = &ipf->threads[i];

            if (!bitmap_is_set(waiting, i)) {
                continue;
            }
            ovs_mutex_lock(&slot->dump_mutex);
            if (slot->dump_answered == request) {
                dump_append(dump, slot->dump, slot->dump_n);
                free(slot->dump);
                slot->dump = NULL;
                slot->dump_n = 0;
                bitmap_set0(waiting, i);
                n_waiting--;
            }
            ovs_mutex_unlock(&slot->dump_mutex);
        }
        if (!n_waiting || time_msec() >= deadline) {
            break;
        }
        xnanosleep(1000 * 1000);
    }
    for (size_t i = 1; i < ipf->n_threads; i++) {
        if (bitmap_is_set(waiting, i)) {
            ds_put_format(&dump->missing, " %"PRIuSIZE, i);
        }
    }
    bitmap_free(waiting);
    *dumpp = dump;
    return 0;
}

/* Puts in '*s' a malloc'd line for the next datagram of 'dump', in ipf.c's
 * format, and returns 0; after the last, a line that names the threads that
 * did not answer, if any; then returns EOF. */
int
dp_ipf_dump_next(struct dp_ipf_dump *dump, char **s)
{
    static const char *state_names[2][2] = {
        /* [first_in][last_in], as ipf.c's state names. */
        { "other frag", "last frag" }, { "first frag", "first/last frag" },
    };
    struct ds ds = DS_EMPTY_INITIALIZER;
    const struct ipf_cpu_held *h;

    if (dump->next >= dump->n) {
        if (dump->missing.length && !dump->missing_done) {
            dump->missing_done = true;
            *s = xasprintf("(not listed: pmd thread index%s did not answer "
                           "within %d ms)", ds_cstr(&dump->missing),
                           DP_IPF_DUMP_WAIT_MS);
            return 0;
        }
        return EOF;
    }
    h = &dump->held[dump->next++];
    ds_put_cstr(&ds, "(src=");
    ipv6_format_mapped(&h->src, &ds);
    ds_put_cstr(&ds, ",dst=");
    ipv6_format_mapped(&h->dst, &ds);
    ds_put_format(&ds, ",recirc_id=%"PRIu32",ip_id=%"PRIu32",dl_type=0x%x,"
                  "zone=%"PRIu16",nw_proto=%u,num_fragments=%"PRIu32
                  ",state=%s)", h->recirc_id, h->id,
                  h->is_ipv6 ? ETH_TYPE_IPV6 : ETH_TYPE_IP, h->zone,
                  h->proto, h->n_frags,
                  state_names[h->first_in][h->last_in]);
    *s = ds_steal_cstr(&ds);
    return 0;
}

/* Frees 'dump'.  Accepts NULL. */
void
dp_ipf_dump_done(struct dp_ipf_dump *dump)
{
    if (dump) {
        free(dump->held);
        ds_destroy(&dump->missing);
        free(dump);
    }
}

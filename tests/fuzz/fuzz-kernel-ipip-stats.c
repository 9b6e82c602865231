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

/* Fuzz target: what tunnel-stats-show makes of a kernel ovs_ipip device's
 * ethtool counters (lib/tunnels/kernel-ipip.c: kernel_ipip_stats_parse() and
 * kernel_ipip_format_stats()), i.e. of the kernel's ETHTOOL_GSTRINGS and
 * ETHTOOL_GSTATS answers.
 *
 * Input: counters of 40 bytes each, a 32-byte name (NUL-padded or not)
 * then its 64-bit value in host order; a trailing partial counter is
 * ignored.  The names decide everything: a total of the contract, a
 * "cpu<N>_<name>" counter (CPUs must come in increasing order), or a name
 * to ignore.
 *
 * Beyond not crashing, every answer is checked against the promises of
 * kernel-ipip.h and datapath/ovsp-ipip-uapi.h, computed here by a model
 * that reads the same counters independently:
 * - the parse fails (EPROTO) exactly when a CPU's counters come after a
 *   higher CPU's, or a 8,193rd CPU appears; otherwise it succeeds;
 * - on success, every total of the contract is present exactly when a
 *   counter of that name is, with the last such counter's value;
 * - the CPUs are those named by "cpu<N>_<stat>" counters with N of 1 to 5
 *   decimal digits and at most 65,535, in increasing order, each with the
 *   last value of each of its four counters (0 if absent);
 * - the formatted text has one line per CPU with its four values, a total
 *   line with their sums (modulo 2^64), and one line per present total
 *   beyond the four cell counters, in the contract's order. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"
#include "kernel-ipip.h"
#include "openvswitch/dynamic-string.h"
#include "util.h"

/* One input counter's size. */
#define RECORD_LEN (KERNEL_IPIP_NAME_LEN + sizeof(uint64_t))

/* The contract's names, from the uapi header (not from the parser). */
static const char *const model_total_names[] = {
#define MODEL_NAME_(ID, NAME) NAME,
    OVSP_IPIP_TOTALS(MODEL_NAME_)
};
static const char *const model_cpu_names[] = {
    OVSP_IPIP_CPU_STATS(MODEL_NAME_)
#undef MODEL_NAME_
};

/* What the model expects. */
struct model {
    bool malformed;                     /* EPROTO expected. */
    uint64_t totals[OVSP_IPIP_N_TOTALS];
    bool have_total[OVSP_IPIP_N_TOTALS];
    struct kernel_ipip_cpu_stats *cpus; /* In increasing CPU order. */
    size_t n_cpus;
};

static void
model_fail(const char *what)
{
    ovs_abort(0, "fuzz-kernel-ipip-stats: %s", what);
}

/* If 'name' is "cpu" then 1 to 5 decimal digits making at most 65535,
 * '_', then one of the four per-CPU names, sets '*cpu' and '*stat' and
 * returns true. */
static bool
model_cpu_counter(const char *name, unsigned int *cpu, size_t *stat)
{
    size_t digits = 0;
    unsigned long n = 0;

    if (strncmp(name, "cpu", 3)) {
        return false;
    }
    while (name[3 + digits] >= '0' && name[3 + digits] <= '9') {
        if (digits == 5) {
            return false;
        }
        n = n * 10 + (name[3 + digits] - '0');
        digits++;
    }
    if (!digits || name[3 + digits] != '_' || n > 65535) {
        return false;
    }
    for (size_t i = 0; i < OVSP_IPIP_N_CPU_STATS; i++) {
        if (!strcmp(name + 4 + digits, model_cpu_names[i])) {
            *cpu = n;
            *stat = i;
            return true;
        }
    }
    return false;
}

static void
model_set_cpu_stat(struct kernel_ipip_cpu_stats *c, size_t stat,
                   uint64_t value)
{
    uint64_t *fields[] = { &c->queued, &c->polled, &c->backlog_drops,
                           &c->down_drops };

    *fields[stat] = value;
}

/* Reads the 'n' counters of 'names' and 'values' into 'm'. */
static void
model_read(struct model *m, const char *names, const uint64_t *values,
           size_t n)
{
    memset(m, 0, sizeof *m);
    m->cpus = xcalloc(n + 1, sizeof *m->cpus);
    for (size_t i = 0; i < n && !m->malformed; i++) {
        char name[KERNEL_IPIP_NAME_LEN + 1];
        unsigned int cpu;
        size_t stat, t;

        memcpy(name, names + i * KERNEL_IPIP_NAME_LEN, KERNEL_IPIP_NAME_LEN);
        name[KERNEL_IPIP_NAME_LEN] = '\0';
        for (t = 0; t < OVSP_IPIP_N_TOTALS; t++) {
            if (!strcmp(name, model_total_names[t])) {
                m->totals[t] = values[i];
                m->have_total[t] = true;
                break;
            }
        }
        if (t < OVSP_IPIP_N_TOTALS || !model_cpu_counter(name, &cpu, &stat)) {
            continue;
        }
        if (!m->n_cpus || m->cpus[m->n_cpus - 1].cpu < cpu) {
            if (m->n_cpus == KERNEL_IPIP_MAX_CPUS) {
                m->malformed = true;
                break;
            }
            m->cpus[m->n_cpus++].cpu = cpu;
        } else if (m->cpus[m->n_cpus - 1].cpu > cpu) {
            m->malformed = true;
            break;
        }
        model_set_cpu_stat(&m->cpus[m->n_cpus - 1], stat, values[i]);
    }
}

/* The text kernel_ipip_format_stats() must give for 'm'. */
static void
model_format(const struct model *m, struct ds *s)
{
    uint64_t sum[4] = { 0, 0, 0, 0 };

    ds_put_cstr(s, "t0:\n");
    for (size_t i = 0; i < m->n_cpus; i++) {
        const struct kernel_ipip_cpu_stats *c = &m->cpus[i];

        ds_put_format(s, "  cpu %u: segments %"PRIu64", packets out %"PRIu64
                      ", backlog drops %"PRIu64", down drops %"PRIu64"\n",
                      c->cpu, c->queued, c->polled, c->backlog_drops,
                      c->down_drops);
        sum[0] += c->queued;
        sum[1] += c->polled;
        sum[2] += c->backlog_drops;
        sum[3] += c->down_drops;
    }
    ds_put_format(s, "  total: segments %"PRIu64", packets out %"PRIu64
                  ", backlog drops %"PRIu64", down drops %"PRIu64"\n",
                  sum[0], sum[1], sum[2], sum[3]);
    for (size_t t = OVSP_IPIP_STAT_DOWN_DROPS + 1; t < OVSP_IPIP_N_TOTALS;
         t++) {
        if (m->have_total[t]) {
            ds_put_format(s, "  %s: %"PRIu64"\n", model_total_names[t],
                          m->totals[t]);
        }
    }
}

/* Checks the parser's answer 'error', 'stats' and its text 's' against
 * the model 'm'. */
static void
model_check(const struct model *m, int error,
            const struct kernel_ipip_stats *stats, const struct ds *s)
{
    struct ds expected;

    if (m->malformed) {
        if (error != EPROTO) {
            model_fail("a CPU out of order or too many CPUs not refused");
        }
        return;
    }
    if (error) {
        model_fail("well-formed counters refused");
    }
    if (memcmp(stats->have_total, m->have_total, sizeof m->have_total)) {
        model_fail("totals present differ from the counters given");
    }
    for (size_t t = 0; t < OVSP_IPIP_N_TOTALS; t++) {
        if (m->have_total[t] && stats->totals[t] != m->totals[t]) {
            model_fail("a total's value differs from its last counter");
        }
    }
    if (stats->n_cpus != m->n_cpus
        || (m->n_cpus && memcmp(stats->cpus, m->cpus,
                                m->n_cpus * sizeof *m->cpus))) {
        model_fail("per-CPU counters differ from those given");
    }
    ds_init(&expected);
    model_format(m, &expected);
    if (strcmp(ds_cstr_ro(s), ds_cstr_ro(&expected))) {
        model_fail("formatted text differs from the counters");
    }
    ds_destroy(&expected);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n = size / RECORD_LEN;
    struct kernel_ipip_stats stats;
    struct model model;
    uint64_t *values;
    char *names;
    struct ds s;
    int error;

    names = xmalloc(n * KERNEL_IPIP_NAME_LEN + 1);
    values = xmalloc(n * sizeof *values + 1);
    for (size_t i = 0; i < n; i++) {
        const uint8_t *r = data + i * RECORD_LEN;

        memcpy(names + i * KERNEL_IPIP_NAME_LEN, r, KERNEL_IPIP_NAME_LEN);
        memcpy(&values[i], r + KERNEL_IPIP_NAME_LEN, sizeof values[i]);
    }

    memset(&stats, 0, sizeof stats);
    ds_init(&s);
    error = kernel_ipip_stats_parse(names, values, n, &stats);
    if (!error) {
        kernel_ipip_format_stats(&s, "t0", &stats);
    }
    model_read(&model, names, values, n);
    model_check(&model, error, &stats, &s);
    free(model.cpus);
    kernel_ipip_stats_destroy(&stats);
    ds_destroy(&s);
    free(names);
    free(values);
    return 0;
}

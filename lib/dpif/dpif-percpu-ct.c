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

/* The conntrack members of our dpif class, on the datapath's conntrack. */

#include <config.h>
#include "dpif-percpu-ct.h"

#include <errno.h>

#include "conntrack.h"
#include "conntrack-tp.h"
#include "ct-dpif.h"
#include "datapath.h"
#include "dp-conntrack.h"
#include "dp-ipf.h"
#include "dpif-percpu.h"
#include "dpif-provider.h"
#include "ipf.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/list.h"
#include "util.h"

/* Returns the conntrack of the datapath behind 'dpif'. */
static struct conntrack *
get_ct(const struct dpif *dpif)
{
    return dp_conntrack_get(dpif_percpu_get_datapath(dpif)->conntrack);
}

/* A conntrack dump in progress. */
struct percpu_ct_dump {
    struct ct_dpif_dump_state up;   /* What ct-dpif sees. */
    struct conntrack_dump dump;     /* OVS's cursor. */
};

int
dpif_percpu_ct_dump_start(struct dpif *dpif,
                          struct ct_dpif_dump_state **dump_,
                          const uint16_t *zone, int *n_buckets)
{
    struct percpu_ct_dump *dump = xzalloc(sizeof *dump);

    conntrack_dump_start(get_ct(dpif), &dump->dump, zone, n_buckets);
    *dump_ = &dump->up;
    return 0;
}

int
dpif_percpu_ct_dump_next(struct dpif *dpif OVS_UNUSED,
                         struct ct_dpif_dump_state *dump_,
                         struct ct_dpif_entry *entry)
{
    struct percpu_ct_dump *dump = CONTAINER_OF(dump_, struct percpu_ct_dump,
                                               up);

    return conntrack_dump_next(&dump->dump, entry);
}

int
dpif_percpu_ct_dump_done(struct dpif *dpif OVS_UNUSED,
                         struct ct_dpif_dump_state *dump_)
{
    struct percpu_ct_dump *dump = CONTAINER_OF(dump_, struct percpu_ct_dump,
                                               up);
    int error = conntrack_dump_done(&dump->dump);

    free(dump);
    return error;
}

int
dpif_percpu_ct_flush(struct dpif *dpif, const uint16_t *zone,
                     const struct ct_dpif_tuple *tuple)
{
    return (tuple
            ? conntrack_flush_tuple(get_ct(dpif), tuple, zone ? *zone : 0)
            : conntrack_flush(get_ct(dpif), zone));
}

int
dpif_percpu_ct_set_maxconns(struct dpif *dpif, uint32_t maxconns)
{
    return conntrack_set_maxconns(get_ct(dpif), maxconns);
}

int
dpif_percpu_ct_get_maxconns(struct dpif *dpif, uint32_t *maxconns)
{
    return conntrack_get_maxconns(get_ct(dpif), maxconns);
}

int
dpif_percpu_ct_get_nconns(struct dpif *dpif, uint32_t *nconns)
{
    return conntrack_get_nconns(get_ct(dpif), nconns);
}

int
dpif_percpu_ct_set_tcp_seq_chk(struct dpif *dpif, bool enabled)
{
    return conntrack_set_tcp_seq_chk(get_ct(dpif), enabled);
}

int
dpif_percpu_ct_get_tcp_seq_chk(struct dpif *dpif, bool *enabled)
{
    *enabled = conntrack_get_tcp_seq_chk(get_ct(dpif));
    return 0;
}

int
dpif_percpu_ct_set_limits(struct dpif *dpif, const uint32_t *default_limit,
                          const struct ovs_list *zone_limits)
{
    struct conntrack *ct = get_ct(dpif);
    struct ct_dpif_zone_limit *zl;
    int error;

    if (default_limit) {
        error = zone_limit_update(ct, DEFAULT_ZONE, *default_limit);
        if (error) {
            return error;
        }
    }
    LIST_FOR_EACH (zl, node, zone_limits) {
        error = zone_limit_update(ct, zl->zone, zl->limit);
        if (error) {
            return error;
        }
    }
    return 0;
}

int
dpif_percpu_ct_get_limits(struct dpif *dpif, uint32_t *default_limit,
                          const struct ovs_list *zone_limits_in,
                          struct ovs_list *zone_limits_out)
{
    struct conntrack *ct = get_ct(dpif);
    struct conntrack_zone_limit czl;

    czl = zone_limit_get(ct, DEFAULT_ZONE);
    if (czl.zone != DEFAULT_ZONE) {
        return EINVAL;
    }
    *default_limit = czl.limit;

    if (!ovs_list_is_empty(zone_limits_in)) {
        const struct ct_dpif_zone_limit *zl;

        /* A zone without a limit of its own reports the default. */
        LIST_FOR_EACH (zl, node, zone_limits_in) {
            czl = zone_limit_get(ct, zl->zone);
            if (czl.zone != zl->zone && czl.zone != DEFAULT_ZONE) {
                return EINVAL;
            }
            ct_dpif_push_zone_limit(zone_limits_out, zl->zone, czl.limit,
                                    atomic_count_get(&czl.count));
        }
    } else {
        for (int zone = MIN_ZONE; zone <= MAX_ZONE; zone++) {
            czl = zone_limit_get(ct, zone);
            if (czl.zone == zone) {
                ct_dpif_push_zone_limit(zone_limits_out, zone, czl.limit,
                                        atomic_count_get(&czl.count));
            }
        }
    }
    return 0;
}

int
dpif_percpu_ct_del_limits(struct dpif *dpif,
                          const struct ovs_list *zone_limits)
{
    struct conntrack *ct = get_ct(dpif);
    struct ct_dpif_zone_limit *zl;

    LIST_FOR_EACH (zl, node, zone_limits) {
        int error = zone_limit_delete(ct, zl->zone);

        if (error) {
            return error;
        }
    }
    return 0;
}

int
dpif_percpu_ct_set_timeout_policy(struct dpif *dpif,
                                  const struct ct_dpif_timeout_policy *dtp)
{
    struct timeout_policy tp;

    memset(&tp, 0, sizeof tp);
    tp.policy = *dtp;
    return timeout_policy_update(get_ct(dpif), &tp);
}

int
dpif_percpu_ct_get_timeout_policy(struct dpif *dpif, uint32_t tp_id,
                                  struct ct_dpif_timeout_policy *dtp)
{
    struct timeout_policy *tp = timeout_policy_get(get_ct(dpif), tp_id);

    if (!tp) {
        return ENOENT;
    }
    *dtp = tp->policy;
    return 0;
}

int
dpif_percpu_ct_del_timeout_policy(struct dpif *dpif, uint32_t tp_id)
{
    return timeout_policy_delete(get_ct(dpif), tp_id);
}

/* A policy is named by its id, which the ct() action's timeout attribute
 * then carries back (dp-conntrack.c parses it). */
int
dpif_percpu_ct_get_timeout_policy_name(struct dpif *dpif OVS_UNUSED,
                                       uint32_t tp_id,
                                       uint16_t dl_type OVS_UNUSED,
                                       uint8_t nw_proto OVS_UNUSED,
                                       char **tp_name, bool *is_generic)
{
    *tp_name = xasprintf("%"PRIu32, tp_id);
    *is_generic = true;
    return 0;
}

/* OVS's userspace conntrack can SNAT to the all-zero address (keep the
 * address, resolve port clashes). */
int
dpif_percpu_ct_get_features(struct dpif *dpif OVS_UNUSED,
                            enum ct_features *features)
{
    if (features) {
        *features = CONNTRACK_F_ZERO_SNAT;
    }
    return 0;
}

/* The ipf callbacks (dpctl/ipf-*) configure and show the per-thread
 * reassembly (dp-ipf.h), or OVS's ipf.c when
 * other_config:ct-frag-reassembly=ovs-ipf selects it. */

/* Returns true if OVS's ipf.c reassembles for the datapath behind 'dpif'. */
static bool
uses_ovs_ipf(const struct dpif *dpif)
{
    return dp_conntrack_uses_ovs_ipf(
        dpif_percpu_get_datapath(dpif)->conntrack);
}

int
dpif_percpu_ipf_set_enabled(struct dpif *dpif, bool v6, bool enabled)
{
    struct datapath *dp = dpif_percpu_get_datapath(dpif);
    int error;

    if (uses_ovs_ipf(dpif)) {
        return ipf_set_enabled(conntrack_ipf_ctx(get_ct(dpif)), v6, enabled);
    }
    ovs_mutex_lock(&dp->reconfig_mutex);
    error = dp_ipf_set_enabled(dp, v6, enabled);
    ovs_mutex_unlock(&dp->reconfig_mutex);
    return error;
}

int
dpif_percpu_ipf_set_min_frag(struct dpif *dpif, bool v6, uint32_t min_frag)
{
    struct datapath *dp = dpif_percpu_get_datapath(dpif);
    int error;

    if (uses_ovs_ipf(dpif)) {
        return ipf_set_min_frag(conntrack_ipf_ctx(get_ct(dpif)), v6,
                                min_frag);
    }
    ovs_mutex_lock(&dp->reconfig_mutex);
    error = dp_ipf_set_min_frag(dp, v6, min_frag);
    ovs_mutex_unlock(&dp->reconfig_mutex);
    return error;
}

int
dpif_percpu_ipf_set_max_nfrags(struct dpif *dpif, uint32_t max_nfrags)
{
    struct datapath *dp = dpif_percpu_get_datapath(dpif);
    int error;

    if (uses_ovs_ipf(dpif)) {
        return ipf_set_max_nfrags(conntrack_ipf_ctx(get_ct(dpif)),
                                  max_nfrags);
    }
    ovs_mutex_lock(&dp->reconfig_mutex);
    error = dp_ipf_set_max_nfrags(dp, max_nfrags);
    ovs_mutex_unlock(&dp->reconfig_mutex);
    return error;
}

int
dpif_percpu_ipf_get_status(struct dpif *dpif, struct dpif_ipf_status *status)
{
    struct datapath *dp = dpif_percpu_get_datapath(dpif);

    /* struct dpif_ipf_status and struct ipf_status have the same layout,
     * as dpif-netdev assumes too. */
    BUILD_ASSERT_DECL(sizeof(struct dpif_ipf_status)
                      == sizeof(struct ipf_status));
    if (uses_ovs_ipf(dpif)) {
        ipf_get_status(conntrack_ipf_ctx(get_ct(dpif)),
                       (struct ipf_status *) status);
        return 0;
    }
    ovs_mutex_lock(&dp->reconfig_mutex);
    dp_ipf_get_status(dp, status);
    ovs_mutex_unlock(&dp->reconfig_mutex);
    return 0;
}

/* ipf-get-status -m lists what is held: with the per-thread reassembly, a
 * snapshot each thread takes of its own table at the main thread's request
 * (dp_ipf_dump_start()); with OVS's ipf.c, ipf.c's lists. */

/* A dump of either. */
struct percpu_ipf_dump {
    struct ipf_dump_ctx *ovs;   /* OVS's ipf.c's, or NULL. */
    struct dp_ipf_dump *ours;   /* The threads', or NULL. */
};

int
dpif_percpu_ipf_dump_start(struct dpif *dpif, struct ipf_dump_ctx **ctx)
{
    struct percpu_ipf_dump *dump = xzalloc(sizeof *dump);
    int error;

    if (uses_ovs_ipf(dpif)) {
        error = ipf_dump_start(&dump->ovs);
    } else {
        error = dp_ipf_dump_start(dpif_percpu_get_datapath(dpif),
                                  &dump->ours);
    }
    if (error) {
        free(dump);
        *ctx = NULL;
        return error;
    }
    *ctx = (struct ipf_dump_ctx *) dump;
    return 0;
}

int
dpif_percpu_ipf_dump_next(struct dpif *dpif, void *ctx, char **dump_line)
{
    struct percpu_ipf_dump *dump = ctx;

    if (dump->ours) {
        return dp_ipf_dump_next(dump->ours, dump_line);
    }
    return ipf_dump_next(conntrack_ipf_ctx(get_ct(dpif)), dump->ovs,
                         dump_line);
}

int
dpif_percpu_ipf_dump_done(struct dpif *dpif OVS_UNUSED, void *ctx)
{
    struct percpu_ipf_dump *dump = ctx;

    if (dump) {
        dp_ipf_dump_done(dump->ours);
        if (dump->ovs) {
            ipf_dump_done(dump->ovs);
        }
        free(dump);
    }
    return 0;
}

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

#ifndef DPIF_PERCPU_CT_H
#define DPIF_PERCPU_CT_H 1

/* The conntrack and conntrack-fragment members of our dpif_class: dumps,
 * flushes, connection limits, zone limits, timeout policies, TCP sequence
 * checking, features and OVS's ipf settings, on the datapath's conntrack
 * (dp-conntrack.h).  They are what `ovs-appctl dpctl/dump-conntrack`,
 * `flush-conntrack`, `ct-stats-show`, `ct-set-maxconns`, `ct-set-limits`
 * and friends, and ofproto's zone and timeout policy configuration, call.
 * Each implements the contract lib/dpif-provider.h documents for it.
 *
 * Threads: the main thread and the handlers call these; OVS's conntrack
 * does its own locking. */

#include "dpif-provider.h"

/* Fills the conntrack members of a 'struct dpif_class' initializer. */
#define DPIF_PERCPU_CT_MEMBERS                                          \
        .ct_dump_start = dpif_percpu_ct_dump_start,                     \
        .ct_dump_next = dpif_percpu_ct_dump_next,                       \
        .ct_dump_done = dpif_percpu_ct_dump_done,                       \
        .ct_flush = dpif_percpu_ct_flush,                               \
        .ct_set_maxconns = dpif_percpu_ct_set_maxconns,                 \
        .ct_get_maxconns = dpif_percpu_ct_get_maxconns,                 \
        .ct_get_nconns = dpif_percpu_ct_get_nconns,                     \
        .ct_set_tcp_seq_chk = dpif_percpu_ct_set_tcp_seq_chk,           \
        .ct_get_tcp_seq_chk = dpif_percpu_ct_get_tcp_seq_chk,           \
        .ct_set_limits = dpif_percpu_ct_set_limits,                     \
        .ct_get_limits = dpif_percpu_ct_get_limits,                     \
        .ct_del_limits = dpif_percpu_ct_del_limits,                     \
        .ct_set_timeout_policy = dpif_percpu_ct_set_timeout_policy,     \
        .ct_get_timeout_policy = dpif_percpu_ct_get_timeout_policy,     \
        .ct_del_timeout_policy = dpif_percpu_ct_del_timeout_policy,     \
        .ct_get_timeout_policy_name = dpif_percpu_ct_get_timeout_policy_name, \
        .ct_get_features = dpif_percpu_ct_get_features,                 \
        .ipf_set_enabled = dpif_percpu_ipf_set_enabled,                 \
        .ipf_set_min_frag = dpif_percpu_ipf_set_min_frag,               \
        .ipf_set_max_nfrags = dpif_percpu_ipf_set_max_nfrags,           \
        .ipf_get_status = dpif_percpu_ipf_get_status,                   \
        .ipf_dump_start = dpif_percpu_ipf_dump_start,                   \
        .ipf_dump_next = dpif_percpu_ipf_dump_next,                     \
        .ipf_dump_done = dpif_percpu_ipf_dump_done

int dpif_percpu_ct_dump_start(struct dpif *, struct ct_dpif_dump_state **,
                              const uint16_t *zone, int *n_buckets);
int dpif_percpu_ct_dump_next(struct dpif *, struct ct_dpif_dump_state *,
                             struct ct_dpif_entry *);
int dpif_percpu_ct_dump_done(struct dpif *, struct ct_dpif_dump_state *);
int dpif_percpu_ct_flush(struct dpif *, const uint16_t *zone,
                         const struct ct_dpif_tuple *);
int dpif_percpu_ct_set_maxconns(struct dpif *, uint32_t maxconns);
int dpif_percpu_ct_get_maxconns(struct dpif *, uint32_t *maxconns);
int dpif_percpu_ct_get_nconns(struct dpif *, uint32_t *nconns);
int dpif_percpu_ct_set_tcp_seq_chk(struct dpif *, bool enabled);
int dpif_percpu_ct_get_tcp_seq_chk(struct dpif *, bool *enabled);
int dpif_percpu_ct_set_limits(struct dpif *, const uint32_t *default_limit,
                              const struct ovs_list *zone_limits);
int dpif_percpu_ct_get_limits(struct dpif *, uint32_t *default_limit,
                              const struct ovs_list *zone_limits_in,
                              struct ovs_list *zone_limits_out);
int dpif_percpu_ct_del_limits(struct dpif *,
                              const struct ovs_list *zone_limits);
int dpif_percpu_ct_set_timeout_policy(struct dpif *,
                                      const struct ct_dpif_timeout_policy *);
int dpif_percpu_ct_get_timeout_policy(struct dpif *, uint32_t tp_id,
                                      struct ct_dpif_timeout_policy *);
int dpif_percpu_ct_del_timeout_policy(struct dpif *, uint32_t tp_id);
int dpif_percpu_ct_get_timeout_policy_name(struct dpif *, uint32_t tp_id,
                                           uint16_t dl_type,
                                           uint8_t nw_proto, char **tp_name,
                                           bool *is_generic);
int dpif_percpu_ct_get_features(struct dpif *, enum ct_features *);
int dpif_percpu_ipf_set_enabled(struct dpif *, bool v6, bool enabled);
int dpif_percpu_ipf_set_min_frag(struct dpif *, bool v6, uint32_t min_frag);
int dpif_percpu_ipf_set_max_nfrags(struct dpif *, uint32_t max_nfrags);
int dpif_percpu_ipf_get_status(struct dpif *, struct dpif_ipf_status *);
int dpif_percpu_ipf_dump_start(struct dpif *, struct ipf_dump_ctx **);
int dpif_percpu_ipf_dump_next(struct dpif *, void *ipf_dump_ctx,
                              char **dump);
int dpif_percpu_ipf_dump_done(struct dpif *, void *ipf_dump_ctx);

#endif /* dpif-percpu-ct.h */

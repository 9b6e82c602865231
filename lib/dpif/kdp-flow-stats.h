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

#ifndef KDP_FLOW_STATS_H
#define KDP_FLOW_STATS_H 1

/* The per-CPU statistics of one megaflow of a kernel datapath (our module,
 * datapath/ovs_percpu.ko), read through the module's own generic-netlink
 * family ovsp_percpu (datapath/ovsp-genl.h), for
 * 'ovs-appctl dpif-percpu/flow-stats-show' on a system datapath.
 *
 * Runs in the caller's thread (the main thread, for unixctl): one
 * blocking Netlink transaction per call, nothing kept between calls. */

#include <stdbool.h>

#include "openvswitch/types.h"

struct ds;

bool kdp_flow_stats_has_datapath(const char *dp_name);
const char *kdp_flow_stats_format(const char *dp_name, const ovs_u128 *ufid,
                                  struct ds *);

/* Appends to the ds the kernel module's per-CPU ct() counters of this
 * process's network namespace ('ovs-appctl dpif-percpu/ct-stats-show').
 * Returns NULL, or the error message for the user. */
const char *kdp_ct_stats_format(struct ds *);

#endif /* kdp-flow-stats.h */

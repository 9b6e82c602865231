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

#ifndef DP_LOG_H
#define DP_LOG_H 1

/* Debug logging of upcalls and megaflow changes.
 *
 * The lines have dpif-netdev's format and go to dpif-netdev's log module,
 * "dpif_netdev", since this datapath takes dpif-netdev's place for the
 * types "netdev" and "dummy": 'ovs-appctl vlog/set dpif_netdev:dbg', and
 * the scripts and OVS tests that read those lines, keep working.  The
 * lines are only written when that module logs at DBG. */

#include <stddef.h>

#include "dpif.h"
#include "odp-util.h"

struct dp_packet;
struct flow;
struct flow_wildcards;
struct match;
struct megaflow;
struct megaflow_actions;
struct nlattr;

/* What the flow keys this datapath logs and reports may hold: the same as
 * dpif-netdev's, so that logs and dumps (dpif-percpu.c) read the same. */
extern const struct odp_support dp_log_odp_support;

void dp_log_upcall(const char *dp_name, const struct dp_packet *,
                   const struct flow *, enum dpif_upcall_type);
void dp_log_flow_change(const struct megaflow *, const struct match *,
                        const struct megaflow_actions *old_actions,
                        const struct nlattr *actions, size_t actions_len);

#endif /* dp-log.h */

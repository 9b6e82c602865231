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

#ifndef DP_ACTIONS_H
#define DP_ACTIONS_H 1

/* Executes datapath actions with OVS's odp_execute_actions(), handling the
 * actions that need the datapath: output, recirculation, userspace and
 * meter and conntrack (ct, ct_clear). */

#include <stdbool.h>
#include <stddef.h>

struct dp_packet_batch;
struct flow;
struct megaflow_actions;
struct nlattr;
struct pmd_thread;

void dp_actions_execute(struct pmd_thread *, struct dp_packet_batch *,
                        bool steal, const struct megaflow_actions *);
void dp_actions_execute_for(struct pmd_thread *, struct dp_packet_batch *,
                            bool steal, const struct flow *key,
                            const struct nlattr *actions,
                            size_t actions_len);

void dp_actions_flush(struct pmd_thread *);

#endif /* dp-actions.h */

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

#ifndef DP_INPUT_H
#define DP_INPUT_H 1

/* The per-packet path: classify a batch (exact-match cache, then the shared
 * megaflow table, then an upcall), account it in the calling thread's stats
 * slots and counters, and execute the actions.  Runs in a forwarding thread
 * and writes only memory that thread owns, apart from installing a megaflow
 * after an upcall. */

#include "openvswitch/types.h"

struct dp_packet_batch;
struct pmd_thread;

void dp_input_batch(struct pmd_thread *, struct dp_packet_batch *,
                    odp_port_t in_port);
void dp_input_recirculate(struct pmd_thread *, struct dp_packet_batch *);
void dp_input_tunnel(struct pmd_thread *, struct dp_packet_batch *);
void dp_input_inject(struct pmd_thread *, struct dp_packet_batch *);
void dp_input_finish_round(struct pmd_thread *);

/* Deepest nesting of recirculations and tunnel re-entries allowed, as in
 * dpif-netdev: a loop must end. */
#define DP_MAX_RECIRC_DEPTH 6

#endif /* dp-input.h */

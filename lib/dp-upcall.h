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

#ifndef DP_UPCALL_H
#define DP_UPCALL_H 1

/* Upcalls into ofproto-dpif-upcall through the callback it registered with
 * register_upcall_cb().  The callback runs in the thread that missed, which
 * then installs the megaflow in the shared table.  Threads that miss the
 * same packet key at once take turns (dp_upcall_miss()), so that the second
 * finds the first one's megaflow instead of upcalling again; if two packets
 * of one new megaflow with different keys race, the second to take the
 * table's mutex finds the first one's flow and installs nothing. */

#include <stdbool.h>
#include <stddef.h>

#include "dpif.h"

struct dp_packet;
struct flow;
struct header_key;
struct megaflow;
struct nlattr;
struct ofpbuf;
struct packet_key;
struct pmd_thread;

size_t dp_upcall_turn(const struct packet_key *);
struct megaflow *dp_upcall_miss(struct pmd_thread *, struct dp_packet *,
                                const struct packet_key *,
                                const struct header_key *);
bool dp_upcall_try_miss(struct pmd_thread *, struct dp_packet *,
                        const struct packet_key *, const struct header_key *,
                        struct megaflow **flowp);
void dp_upcall_set_busy_turns_for_test(unsigned int n);
bool dp_upcall_hold_for_test(unsigned int n);
int dp_upcall_action(struct pmd_thread *, struct dp_packet *,
                     const struct flow *, const struct nlattr *userdata,
                     struct ofpbuf *actions);

#endif /* dp-upcall.h */

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

#ifndef DP_UNIXCTL_H
#define DP_UNIXCTL_H 1

/* ovs-appctl commands of the ovs-percpu datapath:
 *
 *   dpif-percpu/flow-stats-show [DP] UFID
 *       One megaflow's statistics, per forwarding thread and summed.
 *   dpif-percpu/pmd-stats-show [DP]
 *   dpif-percpu/pmd-stats-clear [DP]
 *       Per-thread counters, as dpif-netdev/pmd-stats-show does for OVS.
 *   dpif-percpu/pmd-rxq-show [DP]
 *       Which thread polls which receive queue.
 *
 * DP may be left out when there is exactly one datapath.
 *
 * With --enable-dummy, for tests only:
 *
 *   dpif-percpu/flow-stats-fail-alloc on|off
 *       Makes the allocation of per-thread flow-stats slots fail, so that
 *       threads fall back to slot 0.
 *   dpif-percpu/upcall-turns-busy N
 *       Makes the next N upcall turns a thread tries without waiting look
 *       held by another thread, so that the misses are put aside until the
 *       end of their batch.
 *   dpif-percpu/upcall-hold N
 *       Makes the next N threads that miss at once meet before any of them
 *       installs its megaflow: each waits, after its upcall, until all N
 *       have upcalled or found their turn busy, then they install in the
 *       order they came (dp_upcall_hold_for_test()). */

struct datapath;
struct unixctl_conn;

void dp_unixctl_register(void);
void dp_unixctl_register_test_commands(void);

/* For the commands of both files. */
struct datapath *dp_unixctl_find_datapath(struct unixctl_conn *,
                                          const char *name,
                                          const char *unknown);

#endif /* dp-unixctl.h */

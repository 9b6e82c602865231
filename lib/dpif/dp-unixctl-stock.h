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

#ifndef DP_UNIXCTL_STOCK_H
#define DP_UNIXCTL_STOCK_H 1

/* Stock OVS 3.1's "dpif-netdev/..." ovs-appctl commands, answered by our
 * datapath with stock's syntax and output format, from the counters our
 * threads already keep (pmd.h):
 *
 *   dpif-netdev/pmd-stats-show [-pmd CORE] [DP]
 *   dpif-netdev/pmd-stats-clear [-pmd CORE] [DP]
 *   dpif-netdev/pmd-rxq-show [-pmd CORE] [-secs SECS] [DP]
 *   dpif-netdev/pmd-perf-show [-nh] [-it LEN] [-ms LEN] [-pmd CORE] [DP]
 *   dpif-netdev/pmd-rxq-rebalance [DP]
 *   dpif-netdev/bond-show [DP]
 *
 * and a one-line reply for the commands about stock internals we do not
 * have (subtable lookup implementations, miniflow parsers, dpif
 * implementations, the perf log).  Documentation/commands.md has the
 * table.
 *
 * Registered by our ovs-vswitchd only: a process that also initializes
 * OVS's own dpif-netdev (the benchmark) gets stock's commands from it. */

void dp_unixctl_stock_register(void);

#endif /* dp-unixctl-stock.h */

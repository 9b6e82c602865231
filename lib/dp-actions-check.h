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

#ifndef DP_ACTIONS_CHECK_H
#define DP_ACTIONS_CHECK_H 1

/* The check of a datapath action list before this datapath takes it: a
 * flow put (ofproto, `dpctl/add-flow`), an execute (packet-out, BFD,
 * feature probes).
 *
 * The forwarding threads run actions with OVS's odp_execute_actions() and
 * our callbacks (dp-actions.c), which trust the encoding as dpif-netdev
 * does: OVS's nl_attr_get_*() assert the lengths they read, odp-execute
 * aborts on an attribute it does not expect (OVS_NOT_REACHED()) inside
 * sample(), check_pkt_len() and set(), and follows nested lengths as they
 * are.  The Linux datapath checks every action, at every depth, before it
 * installs a flow (ovs_nla_copy_actions()); so does this, so that no
 * producer of actions can take a forwarding thread down:
 *
 *   - every action, at every depth, is of a type this datapath runs (not
 *     tnl_push, tnl_pop or lb_output, which are dpif-netdev's), with a
 *     payload of the length its type has, and the list is not truncated;
 *   - clone(), sample() and check_pkt_len() hold exactly the attributes
 *     odp-execute reads, and their nested lists are checked the same way,
 *     at most DP_ACTIONS_MAX_DEPTH lists deep;
 *   - ct() passes dp_conntrack_action_valid(), wherever it is;
 *   - set() and set_masked() hold one key attribute, of a field
 *     odp-execute can set, of its length (twice it, masked), tunnel keys
 *     attribute by attribute (OVS's parser does not check them all) and
 *     then as that parser accepts them, NSH keys as OVS's parser accepts
 *     them; hash() names an
 *     algorithm odp-execute has; userspace() holds only the attributes
 *     OVS defines, of their lengths; push_nsh() a header OVS can build.
 *
 * What it does not check, as dpif-netdev does not either: that an action
 * suits the packets the flow matches (the Linux datapath refuses, e.g.,
 * set(ipv4()) in a flow that does not match IPv4); ofproto always encodes
 * those prerequisites.
 *
 * Any thread; reads only the actions. */

#include <stddef.h>

struct nlattr;

/* Most action lists nested one in another (clone, sample, check_pkt_len),
 * the outer list not counted: the Linux datapath's
 * OVS_COPY_ACTIONS_MAX_DEPTH. */
#define DP_ACTIONS_MAX_DEPTH 16

int dp_actions_check(const struct nlattr *actions, size_t actions_len);

#endif /* dp-actions-check.h */

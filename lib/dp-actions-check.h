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
 * dp_actions_check_key() also checks the actions against the packets the
 * flow's key matches, as the Linux datapath does and dpif-netdev does not,
 * tracking along the list what push and pop actions do to the packet:
 *
 *   - set() and set_masked() of a header only where the key guarantees it:
 *     Ethernet on an Ethernet frame; IPv4, IPv6, ARP/RARP, MPLS and NSH
 *     where the Ethertype is exactly that; TCP, UDP, SCTP, ICMP, ICMPv6 and
 *     ND where the IP protocol is also exactly that; never the fields
 *     IPv4 and IPv6 do not let one write (protocol, fragment type, the
 *     flow label's upper bits); metadata anywhere;
 *   - pop_eth, push_vlan and pop_vlan only on an Ethernet frame, push_eth
 *     only on an L3 packet (OVS's push_eth() and pop_eth() assert it),
 *     where the key's packet type is an exact match: ofproto's keys always
 *     hold it; a hand-written key without packet_type() matches both;
 *   - pop_mpls only on an MPLS packet, after which only a further label
 *     is known (as the kernel: ofproto recirculates before it reads what
 *     follows); push_mpls and add_mpls only of an MPLS Ethertype;
 *   - push_nsh only on an Ethernet, IPv4, IPv6 or NSH packet (OVS's
 *     push_nsh() aborts on any other); pop_nsh only on NSH, after which no
 *     action may read or write the packet's headers (OVS resets the layer
 *     offsets: the packet must be recirculated);
 *   - trunc() to at least an Ethernet header.
 *
 * A packet that the key matches may still be shorter than the header an
 * action writes (a truncated IPv4 header still has Ethertype 0x0800):
 * dp-actions-guard.h drops those at run time.
 *
 * Any thread; reads only the actions. */

#include <stddef.h>

struct flow;
struct flow_wildcards;
struct nlattr;

/* Most action lists nested one in another (clone, sample, check_pkt_len),
 * the outer list not counted: the Linux datapath's
 * OVS_COPY_ACTIONS_MAX_DEPTH. */
#define DP_ACTIONS_MAX_DEPTH 16

int dp_actions_check(const struct nlattr *actions, size_t actions_len);
int dp_actions_check_key(const struct flow *, const struct flow_wildcards *,
                         const struct nlattr *actions, size_t actions_len);

#endif /* dp-actions-check.h */

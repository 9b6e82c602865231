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

#ifndef DP_ACTIONS_GUARD_H
#define DP_ACTIONS_GUARD_H 1

/* The run-time half of the check of datapath actions against packets.
 *
 * dp-actions-check.h makes sure that a flow's set() actions write only
 * headers its key guarantees; but a packet may match the key and still be
 * shorter than the header: a frame with Ethertype 0x0800 and 6 bytes after
 * the Ethernet header, an MPLS Ethertype and no label, ICMPv6 cut inside
 * its ND message.  OVS's odp-execute writes set(ipv4), set(ipv6),
 * set(arp), set(mpls), set(nsh), set_masked(nd_ext) and reads pop_mpls's
 * label at the layer offsets without comparing them with the packet's size
 * (its TCP, UDP, SCTP, ICMP and ND setters do check), which would read and
 * write past the packet's end, past its buffer for a packet received into
 * a buffer of its size.  The Linux datapath drops such a packet
 * (skb_ensure_writable() fails).  So does this: each action list's needs
 * are summed once (for a megaflow, when it is installed), and a packet
 * that lacks them is dropped, and counted, before its actions run.
 *
 * The needs are measured from the layer offsets the packet has when its
 * actions start.  OVS's push and pop of Ethernet, VLAN and MPLS headers
 * move those offsets with the bytes, so a header at l3 stays the same bytes
 * along the list; headers the actions push are whole; what pop_nsh leaves
 * dp-actions-check refuses to touch. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dp_packet;
struct nlattr;

/* What a packet must hold for an action list, from its layer offsets as
 * they are when the list starts.  All zero: nothing. */
struct dp_actions_needs {
    uint16_t l2_5;              /* Bytes at l2_5_ofs, if the packet has MPLS
                                 * labels (none: pop_mpls and set(mpls) do
                                 * nothing). */
    uint16_t l3;                /* Bytes at l3_ofs. */
    uint16_t l4;                /* Bytes at l4_ofs. */
    bool nsh;                   /* A whole NSH header at l3_ofs. */
};

void dp_actions_needs_compute(const struct nlattr *actions, size_t len,
                              struct dp_actions_needs *);

/* Returns true if 'needs' asks nothing of a packet: inline, as every batch
 * asks. */
static inline bool
dp_actions_needs_none(const struct dp_actions_needs *needs)
{
    return !(needs->l2_5 | needs->l3 | needs->l4 | needs->nsh);
}

bool dp_actions_packet_ok(const struct dp_packet *,
                          const struct dp_actions_needs *);

#endif /* dp-actions-guard.h */

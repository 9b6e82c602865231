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

#ifndef TSO_SEGSZ_H
#define TSO_SEGSZ_H 1

/* The segment size of a packet marked for TCP segmentation.
 *
 * OVS 3.1 marks a packet for segmentation with dp_packet_hwol_set_tcp_seg()
 * but keeps no segment size: the tap path derives it from the MTU.  GRO
 * must remember the size of the segments it merged, so that GSO cuts the
 * packet back into segments no larger than the sender's, whatever the
 * egress MTU.  With DPDK the mbuf has a field for it; otherwise the packet's
 * 'flow_mark' holds it, a field only hardware flow offload uses, which this
 * datapath never enables (the DP_PACKET_OL_FLOW_MARK flag stays clear, so
 * nothing reads it as a mark).
 *
 * A clone made with dp_packet_clone() loses the size; GSO then falls back
 * to the egress MTU, as OVS does. */

#include <stdint.h>

#include "dp-packet.h"

/* Marks 'p' for TCP segmentation into segments of 'segsz' payload bytes. */
static inline void
tso_segsz_set(struct dp_packet *p, uint16_t segsz)
{
    dp_packet_hwol_set_tcp_seg(p);
#ifdef DPDK_NETDEV
    p->mbuf.tso_segsz = segsz;
#else
    *dp_packet_ol_flags_ptr(p) &= ~DP_PACKET_OL_FLOW_MARK;
    p->flow_mark = segsz;
#endif
}

/* Returns the segment payload size 'p' was marked with, or 0 if it has
 * none (not marked for segmentation, or marked by someone else). */
static inline uint16_t
tso_segsz_get(const struct dp_packet *p)
{
    if (!dp_packet_hwol_is_tso(p)) {
        return 0;
    }
#ifdef DPDK_NETDEV
    return p->mbuf.tso_segsz;
#else
    if (*dp_packet_ol_flags_ptr(p) & DP_PACKET_OL_FLOW_MARK) {
        return 0;
    }
    return p->flow_mark;
#endif
}

/* Forgets the segment size 'p' seems to carry.  For packets from a netdev
 * that marks packets for TCP segmentation but keeps no segment size (OVS
 * 3.1's netdev-linux: taps and system ports with a vnet header), whose
 * field holds whatever the buffer held before: the egress MTU then decides
 * (gso_segsz_for_mtu()). */
static inline void
tso_segsz_forget(struct dp_packet *p)
{
#ifdef DPDK_NETDEV
    p->mbuf.tso_segsz = 0;
#else
    if (!(*dp_packet_ol_flags_ptr(p) & DP_PACKET_OL_FLOW_MARK)) {
        p->flow_mark = 0;
    }
#endif
}

#endif /* tso-segsz.h */

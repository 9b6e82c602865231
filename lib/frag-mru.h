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

#ifndef FRAG_MRU_H
#define FRAG_MRU_H 1

/* The "maximum receive unit" of a datagram reassembled for conntrack: the
 * largest fragment it was made of, in IP bytes.  Linux keeps it in
 * OVS_CB(skb)->mru, and the output path cuts the datagram again to that
 * size, so that a stateful datapath never sends a packet larger than the
 * sender did (which could exceed the egress MTU, and would turn a
 * fragmented datagram into a single one the receiver did not ask for).
 *
 * OVS 3.1's dp_packet has no field for it.  It is kept in the packet's
 * flow mark, with DP_PACKET_OL_FLOW_MARK set and FRAG_MRU_TAG in the upper
 * 16 bits: the flow mark is used only by hardware flow offload, which this
 * datapath never enables, and, unlike the TSO segment size (tso-segsz.h,
 * which keeps the flag clear and so never collides with this), a flow mark
 * survives dp_packet_clone(), so clones made by the clone action or by an
 * output that is not the last action keep their MRU.
 *
 * Threads: these work on one packet, owned by the caller. */

#include <stdint.h>

#include "dp-packet.h"

/* Upper 16 bits of a flow mark that holds an MRU ("MR"). */
#define FRAG_MRU_TAG 0x4d520000u

/* Mask of the tag bits in a flow mark. */
#define FRAG_MRU_TAG_MASK 0xffff0000u

/* Records that 'p' was reassembled from fragments of at most 'mru' IP
 * bytes. */
static inline void
frag_mru_set(struct dp_packet *p, uint16_t mru)
{
    dp_packet_set_flow_mark(p, FRAG_MRU_TAG | mru);
}

/* Returns the MRU 'p' was marked with, or 0 if it was not reassembled. */
static inline uint16_t
frag_mru_get(const struct dp_packet *p)
{
    uint32_t mark;

    if (OVS_LIKELY(!dp_packet_has_flow_mark(p, &mark))
        || (mark & FRAG_MRU_TAG_MASK) != FRAG_MRU_TAG) {
        return 0;
    }
    return mark & ~FRAG_MRU_TAG_MASK;
}

/* Forgets the MRU of 'p', if any. */
static inline void
frag_mru_clear(struct dp_packet *p)
{
    if (frag_mru_get(p)) {
        *dp_packet_ol_flags_ptr(p) &= ~DP_PACKET_OL_FLOW_MARK;
    }
}

#endif /* frag-mru.h */

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

#ifndef GRO_FRAGLIST_H
#define GRO_FRAGLIST_H 1

/* The original segments of a packet GRO merged, kept so that a merged
 * packet that must be cut again in software goes out as the very segments
 * that came in, after Linux's SKB_GSO_FRAGLIST (net/core/gro.c,
 * skb_segment_list()).
 *
 * A merged packet (gro-cell.h) is sent whole to a port with TSO.  Towards a
 * port without, gso_segment() used to cut it into new segments, computing
 * every segment's TCP checksum again, and the segments it made were not
 * those the sender sent: each got the last segment's window.  Instead, GRO
 * keeps what made each original segment different from the others: its
 * TCP window, flags and checksum (everything else, sequence number, IP ID,
 * lengths, follows from the first segment, the segment size and the merge
 * rules, which accept only full-size segments but the last, the same
 * options, the same IP header but its ID).  Cutting the merged packet along
 * the original boundaries and putting those fields back gives byte for byte
 * the original segments, with their checksums as the sender computed them, so
 * no payload byte is summed again.
 *
 * What the actions may have done to the merged packet in the meantime:
 *   - anything before the IP header (Ethernet addresses, VLAN tags pushed or
 *     popped, and the encapsulation of a tunnel output, which happens after
 *     segmentation): every segment gets the merged packet's L2 header as it
 *     is;
 *   - the IPv4 TOS and TTL (set_field, dec_ttl): copied into every segment,
 *     whose IPv4 header checksum is recomputed (the TCP checksum does not
 *     cover them).
 * Any other change to the IPv4 or TCP header (addresses, ports: NAT), or a
 * port whose MTU cannot carry the original segments, and the merged packet
 * is cut by gso_segment() as before, counted as "original segments not
 * usable".
 *
 * Memory: the per-segment fields live in the GRO cell's held item while it
 * merges (bounded by GRO_CELL_MAX_FLOWS), then, when the item is finished,
 * in a ring of GRO_FRAGLIST_ENTRIES entries owned by the calling thread.
 * An entry names its merged packet by address and is only compared, never
 * dereferenced: before it is used, the packet's buffer, datagram length and
 * whole IPv4 and TCP headers (sequence and acknowledgment numbers, IP ID
 * included) must equal those recorded, so that an entry of a packet freed
 * since (dropped, or sent whole) whose address was reused never applies to
 * another.  A packet that merged more than GRO_FRAGLIST_MAX_SEGS segments
 * keeps none (segments smaller than about 1000 bytes), and an entry
 * overwritten by newer ones before its packet is sent is lost: either way
 * the packet is cut by gso_segment().
 *
 * Merging a flow whose merged packets are all cut again gains nothing and
 * costs every segment's checksum and two copies of its payload: an egress
 * without TSO, the usual veth or AF_XDP port.  So when this cuts a merged
 * packet (into its original segments or, if they are not usable, by
 * gso_segment()), the thread remembers its flow, and its GRO cells pass
 * that flow's next GRO_FRAGLIST_CUT_SEGMENTS segments through unmerged and
 * unverified (gro_fraglist_skip_merge()), as they would leave anyway.  Then
 * one merged packet tries the egress again: should the flow's path have
 * changed to an egress with TSO, it is merged from then on.
 *
 * Threads: each thread has its own ring, which only it reads and writes; no
 * lock, no atomic operation.  The thread that merges a packet is the thread
 * that outputs it (run to completion); a packet output by another thread
 * finds no entry there and is cut by gso_segment(). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "openvswitch/types.h"

struct dp_packet;
struct gso_output;
struct gso_stats;
struct net_hdrs;

/* The most segments whose fields a merged packet keeps: 45 segments of
 * 1448 bytes fill GRO_CELL_MAX_LEN, 46 of 1398 (vxlan in a 1500-byte
 * underlay). */
#define GRO_FRAGLIST_MAX_SEGS 64

/* The merged packets whose segments each thread keeps at once. */
#define GRO_FRAGLIST_ENTRIES 64

/* What made one original segment different from the others. */
struct gro_fraglist_seg {
    ovs_be16 ctl;               /* TCP data offset and flags. */
    ovs_be16 window;            /* TCP window. */
    ovs_be16 csum;              /* TCP checksum, as the sender computed it. */
};

/* Flows whose merged packets were cut again: each thread remembers up to
 * GRO_FRAGLIST_CUT_FLOWS (a table indexed by a hash of the flow, a newer
 * flow taking an older one's place), each for its next
 * GRO_FRAGLIST_CUT_SEGMENTS segments. */
#define GRO_FRAGLIST_CUT_FLOWS 64
#define GRO_FRAGLIST_CUT_SEGMENTS 4096

void gro_fraglist_seg_init(struct gro_fraglist_seg *, const void *tcp);
bool gro_fraglist_skip_merge(ovs_be32 ip_src, ovs_be32 ip_dst,
                             ovs_be16 tp_src, ovs_be16 tp_dst);
void gro_fraglist_keep(const struct dp_packet *, size_t l3_ofs,
                       uint16_t mss, bool fixed_id,
                       const struct gro_fraglist_seg *, size_t n_segs);
int gro_fraglist_segment(struct dp_packet *, const struct net_hdrs *,
                         uint16_t hdr_len, uint16_t segsz,
                         struct gso_output *, size_t *n_segs);

#endif /* gro-fraglist.h */

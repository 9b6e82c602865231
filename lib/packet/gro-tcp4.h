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

#ifndef GRO_TCP4_H
#define GRO_TCP4_H 1

/* TCP/IPv4 merging for GRO cells (gro-cell.h): what a segment is, whether it
 * continues a held packet, and how it is appended.  The cell keeps the table
 * of held packets and the queue of ready ones; this file knows the protocol,
 * as DPDK's lib/gro/gro_tcp4.c does.  Another encapsulation or protocol
 * (IPv6) would get a file of its own with the same shape.  Both a bare
 * IPv4 packet (ipip) and an untagged Ethernet frame carrying one (vxlan,
 * geneve) are taken: only the offset of the IPv4 header differs.
 *
 * Everything here works on packets and items owned by the calling thread's
 * cell, and writes nothing else. */

#include <stdbool.h>
#include <stdint.h>

#include "gro-cell.h"
#include "gro-fraglist.h"
#include "openvswitch/types.h"
#include "packets.h"

struct dp_packet;
struct flow_tnl;

/* The identity of a TCP/IPv4 flow in a cell: a segment merges only onto a
 * held packet with the same key and the same tunnel.  Besides the inner
 * addresses and ports, the outer (tunnel) addresses, tunnel ID and input
 * port take part, so that the same inner flow through two tunnels never
 * merges; and so does the rest of the tunnel metadata (outer UDP ports,
 * Geneve options whole, as Linux's geneve_gro_receive() compares the
 * whole Geneve header, and every other field of struct flow_tnl), compared
 * with the held packet's by gro_tcp4_item_matches(): OVN tells logical
 * ports apart by Geneve options.  The tunnel's TOS, TTL and flags are not
 * part of it: when they change, the held packet of the flow is flushed
 * (GRO_FLUSH_OPTIONS), as Linux flushes when an outer header's TOS or TTL
 * changes. */
struct gro_tcp4_key {
    ovs_be32 ip_src;            /* Inner IPv4 source. */
    ovs_be32 ip_dst;            /* Inner IPv4 destination. */
    ovs_be32 tun_src;           /* md.tunnel.ip_src. */
    ovs_be32 tun_dst;           /* md.tunnel.ip_dst. */
    ovs_be64 tun_id;            /* md.tunnel.tun_id (0 for ipip). */
    odp_port_t in_port;         /* md.in_port.odp_port. */
    ovs_be16 tp_src;            /* TCP source port. */
    ovs_be16 tp_dst;            /* TCP destination port. */
    struct eth_addr eth_src;    /* Inner Ethernet source, for a frame (vxlan,
                                 * geneve); zero for a bare IPv4 packet. */
    struct eth_addr eth_dst;    /* Inner Ethernet destination, likewise. */
};

/* What gro_tcp4_parse() makes of a packet. */
enum gro_tcp4_kind {
    GRO_TCP4_OTHER,          /* Not a TCP/IPv4 packet whose flow is known
                              * (another protocol, malformed, a wrong
                              * checksum): passed through, flushing
                              * nothing. */
    GRO_TCP4_UNMERGEABLE,    /* A TCP/IPv4 packet of a known flow that cannot
                              * merge: the flow's held packet is flushed first
                              * (for 'reason'), then it is passed through. */
    GRO_TCP4_CANDIDATE,      /* A segment that may merge, or start a held
                              * packet, if its TCP checksum, not verified
                              * yet, is right (gro_tcp4_csum_ok()). */
};

/* A parsed packet.  For GRO_TCP4_OTHER only 'kind' and 'bad_csum' are
 * meaningful. */
struct gro_tcp4_seg {
    enum gro_tcp4_kind kind;
    bool bad_csum;              /* OTHER because of a wrong IPv4 header
                                 * checksum. */
    bool has_ports;             /* Are key.tp_src and key.tp_dst known?  Not
                                 * for a fragment other than the first. */
    enum gro_flush_reason reason; /* UNMERGEABLE: why the flow's held packet
                                   * is flushed. */
    struct gro_tcp4_key key;    /* The flow (ports zero unless 'has_ports'). */
    const struct flow_tnl *tnl; /* The packet's tunnel metadata, or NULL if
                                 * it has none (no tunnel destination). */
    uint16_t hdr_len;           /* CANDIDATE: IPv4 + TCP header bytes. */
    uint16_t payload_len;       /* CANDIDATE: TCP payload bytes, > 0. */
    uint16_t tcp_flags;         /* CANDIDATE: TCP_FLAGS() of the segment. */
    uint32_t seq;               /* CANDIDATE: sequence number, host order. */
};

/* How a held packet's IP IDs progress, decided by its second segment, as
 * Linux's inet_gro_receive() does. */
enum gro_tcp4_id_mode {
    GRO_TCP4_ID_UNDECIDED,      /* One segment so far. */
    GRO_TCP4_ID_INCREMENTING,   /* Segment i has ID first_id + i. */
    GRO_TCP4_ID_FIXED,          /* Every segment has first_id (DF set). */
};

/* A held packet: the first segment of a flow, with the payload of the
 * segments merged onto it appended.  Owned by one cell. */
struct gro_tcp4_item {
    struct dp_packet *pkt;      /* The held packet (data at the IPv4
                                 * header). */
    struct gro_tcp4_key key;    /* Its flow. */
    uint32_t next_seq;          /* Sequence number the next segment must
                                 * have, host order. */
    uint16_t mss;               /* Payload length of the first segment. */
    uint16_t hdr_len;           /* IPv4 + TCP header bytes. */
    uint16_t n_segs;            /* Segments in the packet, 1 if none was
                                 * merged. */
    uint16_t first_id;          /* IP ID of the first segment, host order. */
    enum gro_tcp4_id_mode id_mode;  /* How the IP IDs progress. */
    bool has_room;              /* Has 'pkt' been given room to grow to
                                 * GRO_CELL_MAX_LEN? */
    struct gro_fraglist_seg segs[GRO_FRAGLIST_MAX_SEGS]; /* What each of
                                 * the first 'n_segs' segments had of its
                                 * own (gro-fraglist.h). */
};

/* The outcome of gro_tcp4_merge(). */
enum gro_tcp4_verdict {
    GRO_TCP4_MERGED,            /* Appended; the packet stays held. */
    GRO_TCP4_MERGED_FLUSH,      /* Appended; the packet must be flushed now,
                                 * for the reason given. */
    GRO_TCP4_NOT_MERGED,        /* Not appended: the held packet must be
                                 * flushed, for the reason given, and the
                                 * segment starts afresh. */
};

void gro_tcp4_parse(const struct dp_packet *, struct gro_tcp4_seg *);
bool gro_tcp4_csum_ok(const struct dp_packet *, const struct gro_tcp4_seg *);
bool gro_tcp4_item_matches(const struct gro_tcp4_item *,
                           const struct gro_tcp4_seg *);
void gro_tcp4_item_init(struct gro_tcp4_item *, struct dp_packet *,
                        const struct gro_tcp4_seg *);
bool gro_tcp4_seg_ends_flow(const struct gro_tcp4_seg *);
enum gro_tcp4_verdict gro_tcp4_merge(struct gro_tcp4_item *,
                                     struct dp_packet *,
                                     const struct gro_tcp4_seg *,
                                     enum gro_flush_reason *);
struct dp_packet *gro_tcp4_item_finish(struct gro_tcp4_item *);

#endif /* gro-tcp4.h */

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

#ifndef GRO_CELL_H
#define GRO_CELL_H 1

/* GRO cells: generic receive offload for the packets a tunnel vport
 * decapsulates, one cell per forwarding thread per vport, after Linux's
 * net/core/gro_cells.c.
 *
 * The datapath hands each inner packet it decapsulates to the cell of the
 * receiving thread with gro_cell_receive().  The cell merges in-order TCP/IPv4
 * segments of one flow into one large packet marked for TCP segmentation
 * (tso-segsz.h), as Linux's tcp_gro_receive() does, and holds it until the
 * flow's stream breaks (PSH, FIN, RST, URG, a gap, a change of options or
 * flags, a full packet) or the poll round ends (gro_cell_flush()).  Anything
 * else becomes ready at once, after the held packet of its own TCP flow, if
 * any, so that the order within a flow is kept; packets of different flows
 * may be reordered relative to each other, as in Linux.  gro_cell_pop()
 * hands the ready packets back, oldest first, for the flow lookup.
 *
 * What a cell hands back:
 *   - A packet that was not merged with any other comes back exactly as it
 *     was offered, byte for byte, with its metadata and offload flags
 *     untouched.
 *   - A merged packet is one IPv4 packet (no Ethernet header, data starting
 *     at the IPv4 header, packet_type PT_IPV4), or one untagged Ethernet
 *     frame carrying IPv4 (PT_ETH, as vxlan and geneve deliver; segments
 *     merge only with the same Ethernet addresses), with the metadata of
 *     its first segment.  Its payload is the concatenation of the
 *     segments' payloads; IPv4 total length is updated and the IPv4 header
 *     checksum is complete and valid; IP ID, sequence and acknowledgment
 *     numbers and options are the first segment's, the window the last
 *     one's, and the flags those of the first segment ORed with the PSH and
 *     FIN of the others.  l3_ofs and l4_ofs are set.  It is marked with
 *     tso_segsz_set(p, mss), where 'mss' is the payload length of the first
 *     segment, and for TCP checksum offload (dp_packet_hwol_set_tx_ipv4(),
 *     dp_packet_hwol_set_csum_tcp()).  Its TCP checksum field holds the
 *     pseudo-header sum, not complemented: the one's-complement sum of source
 *     and destination address, protocol (6) and TCP length (header plus merged
 *     payload), folded to 16 bits, in network byte order, which is what Linux
 *     stores for CHECKSUM_PARTIAL (~tcp_v4_check(len, saddr, daddr, 0)).
 *     Summing the TCP header and payload over that value and complementing the
 *     result gives the TCP checksum.
 *
 * Every segment a cell merges has had its IPv4 header checksum and its TCP
 * checksum verified, so that merging never turns a corrupted segment into a
 * packet with a valid checksum; a segment with a wrong checksum is passed
 * through unmerged, as Linux does.
 *
 * Thread safety: a cell belongs to one thread, which alone calls every
 * function here but gro_cell_get_stats(), which any thread may call at any
 * time.  The per-packet functions write only the cell's own memory, with no
 * locks and no atomic read-modify-write. */

#include <stddef.h>
#include <stdint.h>

struct dp_packet;
struct dp_packet_batch;

/* The most TCP flows a cell holds a packet for at once, as Linux's
 * MAX_GRO_SKBS: a new flow beyond these pushes out the oldest. */
#define GRO_CELL_MAX_FLOWS 8

/* Headroom a merged packet keeps in front of its IPv4 header for the
 * headers the datapath may push on the way out: Ethernet with two VLAN tags
 * (22 bytes), an outer IPv4 and Ethernet header when it is encapsulated
 * again (34), a virtio-net header for a tap (12), with room to spare. */
#define GRO_CELL_HEADROOM 128

/* The largest IPv4 total length of a merged packet.  Linux allows 65535;
 * here the packet and its headroom must fit in one dp_packet, whose
 * allocation size is 16 bits in OVS 3.1 (dp_packet 'allocated_', the mbuf's
 * 'buf_len'), as OVS's own TSO receive path assumes
 * (LINUX_RXQ_TSO_MAX_LEN). */
#define GRO_CELL_MAX_LEN (UINT16_MAX - GRO_CELL_HEADROOM)

/* Why a held packet became ready. */
enum gro_flush_reason {
    GRO_FLUSH_ROUND,     /* End of the poll round (gro_cell_flush()). */
    GRO_FLUSH_PSH,       /* The last segment merged had PSH. */
    GRO_FLUSH_FIN,       /* The last segment merged had FIN (FIN wins over
                          * PSH when both are set). */
    GRO_FLUSH_RST,       /* A segment of the flow with RST arrived. */
    GRO_FLUSH_URG,       /* A segment of the flow with URG arrived. */
    GRO_FLUSH_GAP,       /* Sequence gap, out of order, acknowledgment or
                          * IP ID mismatch, or a segment of the flow without
                          * payload (a pure ACK or window update). */
    GRO_FLUSH_OPTIONS,   /* TCP options or header length, other TCP flags
                          * (SYN, CWR, ECE...), IP TOS, TTL or DF, or tunnel
                          * TOS, TTL or flags changed; or a packet of the flow
                          * that cannot merge at all arrived (IP options, a
                          * fragment, bytes after the IP total length). */
    GRO_FLUSH_SIZE,      /* The merged packet would exceed GRO_CELL_MAX_LEN,
                          * or a segment was longer than the first, or a
                          * segment shorter than the first ended it. */
    GRO_FLUSH_FLOWS,     /* A new flow arrived with GRO_CELL_MAX_FLOWS
                          * held: the oldest was pushed out. */
    GRO_FLUSH_CUT,       /* The thread cut a merged packet of the flow again
                          * on output since it was held: the flow's
                          * segments pass unmerged (gro-fraglist.h). */
    GRO_N_FLUSH_REASONS
};

/* A cell's counters, as gro_cell_get_stats() reports them.  Each counts
 * from the cell's creation. */
struct gro_cell_stats {
    uint64_t segments_in;        /* TCP segments offered that were
                                  * candidates for merging: TCP/IPv4, no IP
                                  * options, not fragments, with payload,
                                  * without SYN, RST or URG, valid
                                  * checksums. */
    uint64_t segments_merged;    /* Segments appended to a held packet (and
                                  * freed). */
    uint64_t packets_out;        /* Packets handed back by gro_cell_pop(),
                                  * merged or not. */
    uint64_t flushes[GRO_N_FLUSH_REASONS]; /* Held packets made ready, by
                                            * reason. */
    uint64_t backlog_drops;      /* Packets dropped because the backlog was
                                  * full. */
    uint64_t csum_errors;        /* TCP/IPv4 packets passed through unmerged
                                  * because their IPv4 header or TCP checksum
                                  * was wrong. */
    uint64_t segments_cut_flow;  /* TCP segments passed through unmerged,
                                  * their checksum unverified, because the
                                  * thread cut their flow's last merged
                                  * packet again on output (an egress
                                  * without TSO; gro-fraglist.h). */
};

struct gro_cell *gro_cell_create(size_t max_backlog);
void gro_cell_destroy(struct gro_cell *);

void gro_cell_receive(struct gro_cell *, struct dp_packet *);
void gro_cell_flush(struct gro_cell *);
size_t gro_cell_pop(struct gro_cell *, struct dp_packet_batch *out);
size_t gro_cell_backlog(const struct gro_cell *);

void gro_cell_get_stats(const struct gro_cell *, struct gro_cell_stats *);
const char *gro_flush_reason_to_string(enum gro_flush_reason);

#endif /* gro-cell.h */

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

#ifndef GSO_H
#define GSO_H 1

/* Software segmentation offload (GSO) and checksum completion.
 *
 * A packet marked for TCP segmentation (dp_packet_hwol_is_tso()) goes out
 * whole to a netdev that offers TSO.  For any other netdev the datapath
 * calls gso_segment() just before netdev_send(): it cuts the packet into
 * segments of at most 'segsz' TCP payload bytes, each a complete packet
 * with its own headers and valid checksums, as the NIC would have.  A packet
 * that was only left with partial checksums (DP_PACKET_OL_TX_*_CKSUM) gets
 * them completed by gso_complete_csum().
 *
 * Input: an Ethernet frame, optionally with one or two VLAN tags, or an L3
 * packet (PT_IPV4 / PT_IPV6) whose data starts at the IP header, carrying
 * TCP over IPv4 or IPv6 (IPv6 hop-by-hop and destination options headers
 * are copied into every segment; a routing, fragment or AH header is
 * refused as malformed).  The headers are parsed from the bytes, not from
 * the packet's layer offsets, and every length is checked: the packet may
 * come from a tap's vnet header or from GRO.
 *
 * The per-protocol case lives in its own file, as DPDK's lib/gso does:
 * gso-tcp.c segments TCP over IPv4 and IPv6.
 *
 * Threads: every function here works on packets the calling thread owns
 * and on a 'struct gso_stats' owned by that thread; nothing is shared, no
 * lock is taken. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ovs-atomic.h"
#include "util.h"

struct dp_packet;
struct dp_packet_batch;

/* The most segments one packet may be cut into.  The largest packet is
 * 64 KiB and Linux never advertises an MSS under 88 bytes (TCP_MIN_MSS),
 * which gives 745 segments; anything beyond 1024 comes from a bogus segment
 * size, which would otherwise make one packet cost thousands of
 * allocations. */
#define GSO_MAX_SEGS 1024

/* Why gso_segment() dropped a packet. */
enum gso_drop_reason {
    GSO_DROP_NOT_TCP,           /* Not IP, or IP but not TCP. */
    GSO_DROP_MALFORMED,         /* Truncated or inconsistent headers, an
                                 * IP fragment, an IPv6 extension header
                                 * that cannot be copied, or segsz 0. */
    GSO_DROP_TOO_MANY_SEGS,     /* Would need more than GSO_MAX_SEGS. */
    GSO_DROP_BAD_CSUM_REQUEST,  /* Asks for a checksum gso_complete_csum()
                                 * cannot complete (counted by
                                 * gso_complete_csum_or_drop()). */
    GSO_N_DROP_REASONS
};

/* Counters of one thread's segmentation.  Owned by one thread, which
 * updates them with relaxed atomic loads and stores (gso_stats_add()), so
 * that other threads may read them as they are (dp-gso.h): they are held
 * once, with no copy to publish them. */
struct gso_stats {
    atomic_uint64_t packets_segmented; /* Packets gso_segment() accepted,
                                        * cut into segments or sent as
                                        * one. */
    atomic_uint64_t segments_out;      /* Packets it handed to the output. */
    atomic_uint64_t csums_completed;   /* Packets whose partial checksums
                                        * gso_complete_csum_or_drop()
                                        * completed. */
    atomic_uint64_t drops[GSO_N_DROP_REASONS]; /* Packets it dropped, by
                                                * reason. */
    atomic_uint64_t fraglist_packets;  /* Packets merged by GRO that
                                        * gso_segment() sent as their
                                        * original segments
                                        * (gro-fraglist.h), not counted in
                                        * 'packets_segmented'. */
    atomic_uint64_t fraglist_segments; /* The original segments it sent,
                                        * not counted in 'segments_out'. */
    atomic_uint64_t fraglist_unusable; /* Packets whose original segments
                                        * were kept but could not be used
                                        * (headers rewritten, or a smaller
                                        * segment size): cut as any other,
                                        * counted in 'packets_segmented'
                                        * too. */
    atomic_uint64_t tso_sent_whole;    /* Packets marked for segmentation
                                        * sent whole to a netdev with TSO
                                        * (dp_port_send()). */
};

/* Adds 'n' to 'counter', a member of a 'struct gso_stats' that the calling
 * thread owns. */
static inline void
gso_stats_add(atomic_uint64_t *counter, uint64_t n)
{
    uint64_t v;

    atomic_read_relaxed(counter, &v);
    atomic_store_relaxed(counter, v + n);
}

/* Returns 'counter', a member of a 'struct gso_stats', as any thread may
 * read it. */
static inline uint64_t
gso_stats_get(const atomic_uint64_t *counter)
{
    uint64_t v;

    atomic_read_relaxed(CONST_CAST(atomic_uint64_t *, counter), &v);
    return v;
}

/* Where segments go.  gso_output_put() appends a packet to 'batch'; when
 * the batch is full it first calls 'flush(batch, aux)', which must send the
 * packets (or free them) and leave the batch empty, e.g. with
 * dp_packet_batch_init().  After the call that produced the segments, the
 * caller flushes what is left in 'batch' itself. */
struct gso_output {
    struct dp_packet_batch *batch;  /* Segments waiting to be sent. */
    void (*flush)(struct dp_packet_batch *, void *aux); /* Empties it. */
    void *aux;                      /* Passed to 'flush'. */
};

void gso_output_put(struct gso_output *, struct dp_packet *);

int gso_segment(struct dp_packet *, uint16_t segsz, struct gso_output *,
                struct gso_stats *);
uint16_t gso_segsz_for_mtu(const struct dp_packet *, int mtu);
int gso_complete_csum(struct dp_packet *);
bool gso_complete_csum_or_drop(struct dp_packet *, struct gso_stats *);

/* Building blocks of segments, shared with ip-fragment.c. */
struct dp_packet *gso_pkt_new(const struct dp_packet *orig, const void *hdrs,
                              size_t hdr_len, const void *payload,
                              size_t len);
void gso_pkt_reuse_tail(struct dp_packet *, const void *hdrs, size_t hdr_len,
                        size_t tail_ofs, size_t len);

#endif /* gso.h */

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

/* Fuzz target: GRO cells (lib/packet/gro-cell.c, lib/packet/gro-tcp4.c),
 * which merge the TCP/IPv4 segments an ipip port decapsulates.
 *
 * Input: records (fuzz-common.h), each an inner IPv4 packet (data at its
 * IPv4 header, PT_IPV4, as vport_ipip_decapsulate() leaves it) offered to
 * one cell in turn.  Control byte:
 *   bit 0    fix its IPv4 header and TCP/UDP checksums first (a fuzzer
 *            cannot guess them, and a cell merges only segments whose
 *            checksums are right);
 *   bit 1    end the poll round after it (gro_cell_flush());
 *   bit 2    pop the ready packets after it (gro_cell_pop());
 *   bit 3    give it tunnel metadata (outer addresses from bits 4-5);
 *   bits 6-7 its in_port.
 *
 * Checks, on every packet the cell hands back: a merged packet (one marked
 * for segmentation) is a well-formed IPv4 TCP packet whose total length is
 * its size, whose header checksum is right and whose TCP checksum field
 * holds the pseudo-header sum gro-cell.h describes, so that the TCP
 * checksum completed from it matches the one OVS's csum() computes over its
 * bytes; and no packet is lost or invented: every packet offered comes back,
 * was merged into another, or was dropped for the backlog. */

#include <config.h>
#include "fuzz-common.h"

#include <netinet/in.h>

#include "csum.h"
#include "dp-packet.h"
#include "gro-cell.h"
#include "gso.h"
#include "packets.h"
#include "tso-segsz.h"
#include "util.h"

/* The cell's backlog, as the ipip vport's (IPIP_GRO_BACKLOG). */
#define FUZZ_GRO_BACKLOG 256

/* Checks a merged packet 'p' against gro-cell.h. */
static void
check_merged(const struct dp_packet *p)
{
    const struct ip_header *ip = dp_packet_data(p);
    size_t size = dp_packet_size(p);
    const struct tcp_header *tcp;
    size_t ihl, tot_len, l4_len;
    uint16_t want, got;
    uint8_t *copy;

    fuzz_check(p->packet_type == htonl(PT_IPV4) && size >= IP_HEADER_LEN
               && IP_VER(ip->ip_ihl_ver) == 4 && ip->ip_proto == IPPROTO_TCP,
               "merged packet is not TCP/IPv4");
    ihl = IP_IHL(ip->ip_ihl_ver) * 4;
    tot_len = ntohs(ip->ip_tot_len);
    fuzz_check(tot_len == size, "merged tot_len %"PRIuSIZE", size %"PRIuSIZE,
               tot_len, size);
    fuzz_check(ihl >= IP_HEADER_LEN && ihl + TCP_HEADER_LEN <= size,
               "merged header lengths");
    fuzz_check(!csum(ip, ihl), "merged IPv4 header checksum");
    fuzz_check(!IP_IS_FRAGMENT(ip->ip_frag_off), "merged fragment");
    fuzz_check(p->l3_ofs == 0 && p->l4_ofs == ihl, "merged offsets %u %u",
               p->l3_ofs, p->l4_ofs);

    tcp = (const struct tcp_header *) ((const char *) ip + ihl);
    l4_len = size - ihl;
    fuzz_check(TCP_OFFSET(tcp->tcp_ctl) * 4 >= TCP_HEADER_LEN
               && TCP_OFFSET(tcp->tcp_ctl) * 4 < l4_len,
               "merged TCP header length");

    /* The field holds the pseudo-header sum: completing the checksum from
     * it (summing the TCP bytes over it) must give what OVS's csum() gives
     * over the pseudo-header and the TCP bytes with a zero field, modulo
     * one's-complement's two zeros. */
    got = ntohs(csum_finish(csum_continue(0, tcp, l4_len)));
    copy = xmemdup(tcp, l4_len);
    ((struct tcp_header *) copy)->tcp_csum = 0;
    want = ntohs(csum_finish(csum_continue(packet_csum_pseudoheader(ip),
                                           copy, l4_len)));
    free(copy);
    fuzz_check(got % 0xffff == want % 0xffff, "merged TCP checksum field "
               "completes to %#x, the segment's checksum is %#x", got, want);
}

/* Checks that every packet of 'batch', segments of a merged packet, is
 * TCP/IPv4 with valid IPv4 and TCP checksums, as the original segments GRO
 * merged had (gro-fraglist.h), or as gso_segment() computes them; frees
 * them. */
static void
check_segments(struct dp_packet_batch *batch, void *aux OVS_UNUSED)
{
    struct dp_packet *p;

    DP_PACKET_BATCH_FOR_EACH (i, p, batch) {
        const struct ip_header *ip = dp_packet_data(p);
        size_t size = dp_packet_size(p);
        size_t ihl;

        fuzz_check(size >= IP_HEADER_LEN, "segment too short");
        ihl = IP_IHL(ip->ip_ihl_ver) * 4;
        fuzz_check(ihl >= IP_HEADER_LEN && ihl <= size
                   && ntohs(ip->ip_tot_len) == size, "segment lengths");
        fuzz_check(!csum(ip, ihl), "segment IPv4 header checksum");
        fuzz_check(!csum_finish(csum_continue(packet_csum_pseudoheader(ip),
                                              (const char *) ip + ihl,
                                              size - ihl)),
                   "segment TCP checksum");
        dp_packet_delete(p);
    }
    dp_packet_batch_init(batch);
}

/* Sends the merged packet 'p' through gso_segment() as a port without TSO
 * would, which gives back its original segments, and checks them. */
static void
segment_merged(struct dp_packet *p)
{
    static struct gso_stats stats;
    struct dp_packet_batch out;
    struct gso_output output = {
        .batch = &out, .flush = check_segments, .aux = NULL,
    };

    dp_packet_batch_init(&out);
    gso_segment(p, tso_segsz_get(p), &output, &stats);
    check_segments(&out, NULL);
}

/* Pops everything ready in 'cell', checks it and frees it.  Returns how
 * many packets came out. */
static size_t
drain(struct gro_cell *cell)
{
    struct dp_packet_batch batch;
    struct dp_packet *p;
    size_t n = 0;

    for (;;) {
        dp_packet_batch_init(&batch);
        if (!gro_cell_pop(cell, &batch)) {
            return n;
        }
        DP_PACKET_BATCH_FOR_EACH (i, p, &batch) {
            if (tso_segsz_get(p)) {
                check_merged(p);
                segment_merged(p);
            } else {
                dp_packet_delete(p);
            }
            n++;
        }
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = { .data = data, .size = size };
    struct gro_cell *cell;
    struct gro_cell_stats st;
    struct fuzz_record r;
    size_t n_in = 0, n_out = 0;

    fuzz_init();
    cell = gro_cell_create(FUZZ_GRO_BACKLOG);
    while (fuzz_take_record(&in, &r)) {
        struct dp_packet *p = fuzz_packet(r.bytes, r.len, htonl(PT_IPV4));

        p->l3_ofs = 0;
        if (r.ctl & 1) {
            fuzz_fix_ipv4_csums(p);
        }
        if (r.ctl & 8) {
            /* As decapsulation leaves it: zeroed up to the options. */
            memset(&p->md.tunnel, 0, offsetof(struct flow_tnl, metadata.opts));
            p->md.tunnel.ip_src = htonl(0xc0000201 + ((r.ctl >> 4) & 1));
            p->md.tunnel.ip_dst = htonl(0xc0000202 + ((r.ctl >> 5) & 1));
            p->md.tunnel.ip_ttl = 64;
        }
        p->md.in_port.odp_port = u32_to_odp(1 + (r.ctl >> 6));
        gro_cell_receive(cell, p);
        n_in++;
        if (r.ctl & 2) {
            gro_cell_flush(cell);
        }
        if (r.ctl & 4) {
            n_out += drain(cell);
        }
    }
    gro_cell_flush(cell);
    n_out += drain(cell);

    gro_cell_get_stats(cell, &st);
    fuzz_check(n_in == n_out + st.segments_merged + st.backlog_drops,
               "%"PRIuSIZE" packets in, %"PRIuSIZE" out, %"PRIu64" merged, "
               "%"PRIu64" dropped", n_in, n_out, st.segments_merged,
               st.backlog_drops);
    fuzz_check(st.packets_out == n_out, "packets_out %"PRIu64", popped "
               "%"PRIuSIZE, st.packets_out, n_out);
    gro_cell_destroy(cell);
    return 0;
}

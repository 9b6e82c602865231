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

/* The original segments of a merged packet, to cut it again as it came. */

#include <config.h>
#include "gro-fraglist.h"

#include <errno.h>
#include <string.h>

#include "csum.h"
#include "dp-packet.h"
#include "gso.h"
#include "hash.h"
#include "net-hdrs.h"
#include "ovs-thread.h"
#include "packets.h"
#include "util.h"

/* The IPv4 and TCP header of a merged packet: no IP options (GRO merges
 * none), TCP options up to 40 bytes. */
#define GRO_FRAGLIST_MAX_HDR (IP_HEADER_LEN + TCP_HEADER_LEN + 40)

/* One merged packet's original segments. */
struct gro_fraglist_entry {
    const struct dp_packet *pkt; /* The merged packet, compared only, never
                                  * dereferenced; NULL if the entry is
                                  * free. */
    const void *base;           /* Its buffer, dp_packet_base(). */
    uint16_t ip_len;            /* Its IPv4 total length. */
    uint16_t hdr_len;           /* IPv4 + TCP header bytes. */
    uint16_t mss;               /* Payload of every segment but the last. */
    uint16_t n_segs;            /* Number of segments, 2 or more. */
    bool fixed_id;              /* Do all segments have the first's IP ID,
                                 * rather than one more each? */
    uint8_t hdr[GRO_FRAGLIST_MAX_HDR]; /* Its IPv4 and TCP header. */
    struct gro_fraglist_seg segs[GRO_FRAGLIST_MAX_SEGS]; /* By segment. */
};

/* A flow whose merged packets were cut again (gro-fraglist.h). */
struct gro_fraglist_cut_flow {
    ovs_be32 ip_src;            /* Inner IPv4 source. */
    ovs_be32 ip_dst;            /* Inner IPv4 destination. */
    ovs_be16 tp_src;            /* TCP source port. */
    ovs_be16 tp_dst;            /* TCP destination port. */
    uint32_t segments_left;     /* Segments still to pass unmerged; 0: the
                                 * slot is free. */
};

/* One thread's entries, a ring overwritten oldest first, and the flows
 * whose merged packets it cut. */
struct gro_fraglist_ring {
    struct gro_fraglist_entry entries[GRO_FRAGLIST_ENTRIES];
    size_t next;                /* The entry the next packet takes. */
    struct gro_fraglist_cut_flow cut_flows[GRO_FRAGLIST_CUT_FLOWS];
};

DEFINE_PER_THREAD_MALLOCED_DATA(struct gro_fraglist_ring *, gro_fraglist);

/* Returns the calling thread's ring, creating it on first use. */
static struct gro_fraglist_ring *
gro_fraglist_ring(void)
{
    struct gro_fraglist_ring *ring = gro_fraglist_get();

    if (OVS_UNLIKELY(!ring)) {
        ring = xzalloc(sizeof *ring);
        gro_fraglist_set_unsafe(ring);
    }
    return ring;
}

/* Records in 'seg' the fields of the segment whose TCP header is at
 * 'tcp_'. */
void
gro_fraglist_seg_init(struct gro_fraglist_seg *seg, const void *tcp_)
{
    const struct tcp_header *tcp = tcp_;

    seg->ctl = tcp->tcp_ctl;
    seg->window = tcp->tcp_winsz;
    seg->csum = tcp->tcp_csum;
}

/* Returns the slot of the calling thread's cut flows for the flow with
 * these addresses and ports, in 'ring'. */
static struct gro_fraglist_cut_flow *
gro_fraglist_cut_slot(struct gro_fraglist_ring *ring, ovs_be32 ip_src,
                      ovs_be32 ip_dst, ovs_be16 tp_src, ovs_be16 tp_dst)
{
    uint32_t hash;

    BUILD_ASSERT_DECL(IS_POW2(GRO_FRAGLIST_CUT_FLOWS));
    hash = hash_3words((OVS_FORCE uint32_t) ip_src,
                       (OVS_FORCE uint32_t) ip_dst,
                       ((uint32_t) ntohs(tp_src) << 16) | ntohs(tp_dst));
    return &ring->cut_flows[hash & (GRO_FRAGLIST_CUT_FLOWS - 1)];
}

/* Remembers that the calling thread cut the merged packet of 'e' again. */
static void
gro_fraglist_note_cut(struct gro_fraglist_ring *ring,
                      const struct gro_fraglist_entry *e)
{
    const struct ip_header *ip = ALIGNED_CAST(const struct ip_header *,
                                              e->hdr);
    const struct tcp_header *tcp = ALIGNED_CAST(const struct tcp_header *,
                                                e->hdr + IP_HEADER_LEN);
    struct gro_fraglist_cut_flow *f;
    ovs_be32 ip_src = get_16aligned_be32(&ip->ip_src);
    ovs_be32 ip_dst = get_16aligned_be32(&ip->ip_dst);

    f = gro_fraglist_cut_slot(ring, ip_src, ip_dst, tcp->tcp_src,
                              tcp->tcp_dst);
    f->ip_src = ip_src;
    f->ip_dst = ip_dst;
    f->tp_src = tcp->tcp_src;
    f->tp_dst = tcp->tcp_dst;
    f->segments_left = GRO_FRAGLIST_CUT_SEGMENTS;
}

/* Returns true if a GRO cell of the calling thread should pass a TCP/IPv4
 * segment of the flow with these addresses and ports through unmerged,
 * because the thread cut the flow's last merged packet again, and counts
 * the segment against the flow's GRO_FRAGLIST_CUT_SEGMENTS. */
bool
gro_fraglist_skip_merge(ovs_be32 ip_src, ovs_be32 ip_dst, ovs_be16 tp_src,
                        ovs_be16 tp_dst)
{
    struct gro_fraglist_ring *ring = gro_fraglist_get();
    struct gro_fraglist_cut_flow *f;

    if (!ring) {
        return false;
    }
    f = gro_fraglist_cut_slot(ring, ip_src, ip_dst, tp_src, tp_dst);
    if (!f->segments_left
        || f->ip_src != ip_src || f->ip_dst != ip_dst
        || f->tp_src != tp_src || f->tp_dst != tp_dst) {
        return false;
    }
    f->segments_left--;
    return true;
}

/* Keeps, in the calling thread's ring, the 'n_segs' segments 'segs' of 'p',
 * a merged packet just finished (gro-cell.h) whose IPv4 header is at
 * 'l3_ofs', merged from segments of 'mss' payload bytes but the last, with
 * fixed IP IDs if 'fixed_id'.  Does nothing for more than
 * GRO_FRAGLIST_MAX_SEGS segments. */
void
gro_fraglist_keep(const struct dp_packet *p, size_t l3_ofs, uint16_t mss,
                  bool fixed_id, const struct gro_fraglist_seg *segs,
                  size_t n_segs)
{
    const uint8_t *ip = (const uint8_t *) dp_packet_data(p) + l3_ofs;
    const struct tcp_header *tcp = ALIGNED_CAST(const struct tcp_header *,
                                                ip + IP_HEADER_LEN);
    size_t hdr_len = IP_HEADER_LEN + TCP_OFFSET(tcp->tcp_ctl) * 4;
    struct gro_fraglist_ring *ring;
    struct gro_fraglist_entry *e;

    if (n_segs < 2 || n_segs > GRO_FRAGLIST_MAX_SEGS
        || hdr_len > GRO_FRAGLIST_MAX_HDR) {
        return;
    }
    ring = gro_fraglist_ring();
    e = &ring->entries[ring->next];
    ring->next = (ring->next + 1) % GRO_FRAGLIST_ENTRIES;

    e->pkt = p;
    e->base = dp_packet_base(p);
    e->ip_len = dp_packet_size(p) - l3_ofs;
    e->hdr_len = hdr_len;
    e->mss = mss;
    e->n_segs = n_segs;
    e->fixed_id = fixed_id;
    memcpy(e->hdr, ip, hdr_len);
    memcpy(e->segs, segs, n_segs * sizeof *segs);
}

/* Returns true if the IPv4 and TCP headers 'a' and 'b', 'len' bytes each,
 * are equal but for the TOS, TTL and IPv4 header checksum, which the
 * actions may change for every segment alike. */
static bool
gro_fraglist_same_hdr(const uint8_t *a, const uint8_t *b, size_t len)
{
    return (a[0] == b[0]
            && !memcmp(a + 2, b + 2, 6)     /* Total length, ID, flags. */
            && a[9] == b[9]                 /* Protocol. */
            && !memcmp(a + 12, b + 12, len - 12));
}

/* Returns the calling thread's entry for the packet at 'p', or NULL if it
 * has none. */
static struct gro_fraglist_entry *
gro_fraglist_find(const struct dp_packet *p)
{
    struct gro_fraglist_ring *ring = gro_fraglist_get();

    if (ring) {
        for (size_t i = 0; i < GRO_FRAGLIST_ENTRIES; i++) {
            if (ring->entries[i].pkt == p) {
                return &ring->entries[i];
            }
        }
    }
    return NULL;
}

/* Returns true if 'e' describes 'p', whose headers 'h' say it is IP with
 * 'hdr_len' bytes of headers, L2 to TCP options, as it is now: the same
 * buffer, length and IPv4 and TCP headers but for TOS and TTL.  False for
 * another packet at the address of one freed, or the same with its
 * addresses or ports rewritten. */
static bool
gro_fraglist_entry_matches(const struct gro_fraglist_entry *e,
                           const struct dp_packet *p,
                           const struct net_hdrs *h, uint16_t hdr_len)
{
    const uint8_t *ip = (const uint8_t *) dp_packet_data(p) + h->l3_ofs;

    return (!h->is_ipv6
            && e->base == dp_packet_base(p)
            && h->end_ofs - h->l3_ofs == e->ip_len
            && hdr_len - h->l3_ofs == e->hdr_len
            && net_hdrs_l3_len(h) == IP_HEADER_LEN
            && gro_fraglist_same_hdr(ip, e->hdr, e->hdr_len));
}

/* Gives 'seg', holding a copy of the headers of the merged packet of 'e'
 * laid out as 'h' says and 'len' bytes of its payload, the headers of
 * original segment 'idx', which starts 'offset' bytes into the payload that
 * begins at sequence number 'seq'. */
static void
gro_fraglist_fix(struct dp_packet *seg, const struct net_hdrs *h,
                 const struct gro_fraglist_entry *e, size_t idx,
                 uint32_t seq, uint32_t offset, uint16_t len)
{
    uint8_t *data = dp_packet_data(seg);
    struct ip_header *ip = ALIGNED_CAST(struct ip_header *,
                                        data + h->l3_ofs);
    struct tcp_header *tcp = ALIGNED_CAST(struct tcp_header *,
                                          data + h->l4_ofs);
    const struct gro_fraglist_seg *s = &e->segs[idx];

    ip->ip_tot_len = htons(e->hdr_len + len);
    if (!e->fixed_id) {
        ip->ip_id = htons(ntohs(ip->ip_id) + idx);
    }
    ip->ip_csum = 0;
    ip->ip_csum = csum(ip, IP_HEADER_LEN);

    put_16aligned_be32(&tcp->tcp_seq, htonl(seq + offset));
    tcp->tcp_ctl = s->ctl;
    tcp->tcp_winsz = s->window;
    tcp->tcp_csum = s->csum;

    seg->l3_ofs = h->l3_ofs;
    seg->l4_ofs = h->l4_ofs;
}

/* If the calling thread kept the original segments of 'p', TCP over IPv4
 * laid out as 'h' with 'hdr_len' bytes of headers, L2 to TCP options, and
 * they are usable on a port that takes segments of up to 'segsz' payload
 * bytes, hands them to 'out' in place of 'p' (the last one reuses 'p'),
 * stores their number in '*n_segs' and returns 0.  Otherwise leaves 'p'
 * untouched and returns ENOENT if it kept none, or EINVAL if they are not
 * usable: the IPv4 or TCP header changed beyond TOS and TTL, or 'segsz' is
 * smaller than theirs (or the entry was that of a packet freed since, whose
 * address 'p' took). */
int
gro_fraglist_segment(struct dp_packet *p, const struct net_hdrs *h,
                     uint16_t hdr_len, uint16_t segsz,
                     struct gso_output *out, size_t *n_segs)
{
    struct gro_fraglist_entry *e = gro_fraglist_find(p);
    const uint8_t *data = dp_packet_data(p);
    const struct tcp_header *tcp;
    uint32_t payload_len, offset, seq;
    size_t idx;

    if (!e) {
        return ENOENT;
    }
    e->pkt = NULL;
    if (e->base == dp_packet_base(p)) {
        /* 'p' itself, not another packet at a freed one's address. */
        gro_fraglist_note_cut(gro_fraglist_get(), e);
    }

    /* Every segment but the last is full, the last is not empty. */
    payload_len = h->end_ofs - hdr_len;
    if (!gro_fraglist_entry_matches(e, p, h, hdr_len)
        || segsz < e->mss
        || payload_len <= (uint32_t) (e->n_segs - 1) * e->mss
        || payload_len > (uint32_t) e->n_segs * e->mss) {
        return EINVAL;
    }

    tcp = ALIGNED_CAST(const struct tcp_header *, data + h->l4_ofs);
    seq = ntohl(get_16aligned_be32(&tcp->tcp_seq));
    for (idx = 0, offset = 0; idx + 1 < e->n_segs;
         idx++, offset += e->mss) {
        struct dp_packet *seg;

        seg = gso_pkt_new(p, data, hdr_len, data + hdr_len + offset,
                          e->mss);
        gro_fraglist_fix(seg, h, e, idx, seq, offset, e->mss);
        gso_output_put(out, seg);
    }
    gso_pkt_reuse_tail(p, data, hdr_len, hdr_len + offset,
                       payload_len - offset);
    gro_fraglist_fix(p, h, e, idx, seq, offset, payload_len - offset);
    gso_output_put(out, p);

    *n_segs = e->n_segs;
    return 0;
}

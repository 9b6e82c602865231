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

/* TCP/IPv4 merging for GRO cells. */

#include <config.h>
#include "gro-tcp4.h"

#include <string.h>

#include "csum.h"
#include "dp-packet.h"
#include "packets.h"
#include "tso-segsz.h"
#include "util.h"

/* TCP flags that may differ between segments that merge: PSH and FIN end
 * the merge (the packet is flushed right after), CWR starts a new one, as in
 * Linux's tcp_gro_receive(). */
#define GRO_TCP4_FLAGS_MAY_DIFFER (TCP_PSH | TCP_FIN | TCP_CWR)

/* Returns the bytes in front of the IPv4 header of 'p': 0 for a bare IPv4
 * packet (ipip), ETH_HEADER_LEN for an untagged Ethernet frame carrying
 * IPv4 (vxlan, geneve), or -1 for anything else. */
static int
gro_tcp4_l2_len(const struct dp_packet *p)
{
    if (p->packet_type == htonl(PT_IPV4)) {
        return 0;
    }
    if (p->packet_type == htonl(PT_ETH)
        && dp_packet_size(p) >= ETH_HEADER_LEN
        && ((const struct eth_header *) dp_packet_data(p))->eth_type
           == htons(ETH_TYPE_IP)) {
        return ETH_HEADER_LEN;
    }
    return -1;
}

/* Returns the IPv4 header of 'p', which gro_tcp4_parse() accepted. */
static struct ip_header *
gro_tcp4_ip(const struct dp_packet *p)
{
    return (struct ip_header *) ((char *) dp_packet_data(p)
                                 + gro_tcp4_l2_len(p));
}

/* Fills 'seg' with what 'p', a packet offered to a GRO cell, is.  'p' is
 * untrusted bytes from the network: every length is checked before use, and
 * anything that does not parse is GRO_TCP4_OTHER. */
void
gro_tcp4_parse(const struct dp_packet *p, struct gro_tcp4_seg *seg)
{
    const struct ip_header *ip;
    const struct tcp_header *tcp;
    size_t size = dp_packet_size(p);
    size_t ihl, ip_len, l4_len, tcp_len;
    uint16_t flags;

    int l2 = gro_tcp4_l2_len(p);

    memset(seg, 0, sizeof *seg);
    seg->kind = GRO_TCP4_OTHER;

    if (l2 < 0 || size < l2 + IP_HEADER_LEN) {
        return;
    }
    if (l2) {
        const struct eth_header *eth = dp_packet_data(p);

        seg->key.eth_src = eth->eth_src;
        seg->key.eth_dst = eth->eth_dst;
    }
    ip = gro_tcp4_ip(p);
    size -= l2;
    ihl = IP_IHL(ip->ip_ihl_ver) * 4;
    ip_len = ntohs(ip->ip_tot_len);
    if (IP_VER(ip->ip_ihl_ver) != IP_VERSION || ihl < IP_HEADER_LEN
        || ip_len < ihl || ip_len > size || ip->ip_proto != IPPROTO_TCP) {
        return;
    }
    if (csum(ip, ihl)) {
        seg->bad_csum = true;
        return;
    }

    seg->key.ip_src = get_16aligned_be32(&ip->ip_src);
    seg->key.ip_dst = get_16aligned_be32(&ip->ip_dst);
    if (flow_tnl_dst_is_set(&p->md.tunnel)) {
        /* Without it, the rest of 'tunnel' may be uninitialized. */
        seg->key.tun_src = p->md.tunnel.ip_src;
        seg->key.tun_dst = p->md.tunnel.ip_dst;
        seg->key.tun_id = p->md.tunnel.tun_id;
        seg->tnl = &p->md.tunnel;
    }
    seg->key.in_port = p->md.in_port.odp_port;

    l4_len = ip_len - ihl;
    tcp = (const struct tcp_header *) ((const char *) ip + ihl);
    if (IP_IS_FRAGMENT(ip->ip_frag_off)) {
        /* Of the flow, but never merged.  Only the first fragment carries
         * the ports; for the others, every held packet between the same
         * addresses is flushed. */
        seg->kind = GRO_TCP4_UNMERGEABLE;
        seg->reason = GRO_FLUSH_OPTIONS;
        if (!(ip->ip_frag_off & htons(IP_FRAG_OFF_MASK))
            && l4_len >= 2 * sizeof(ovs_be16)) {
            seg->has_ports = true;
            seg->key.tp_src = tcp->tcp_src;
            seg->key.tp_dst = tcp->tcp_dst;
        }
        return;
    }

    if (l4_len < TCP_HEADER_LEN) {
        return;
    }
    tcp_len = TCP_OFFSET(tcp->tcp_ctl) * 4;
    if (tcp_len < TCP_HEADER_LEN || tcp_len > l4_len) {
        return;
    }
    seg->has_ports = true;
    seg->key.tp_src = tcp->tcp_src;
    seg->key.tp_dst = tcp->tcp_dst;

    seg->kind = GRO_TCP4_UNMERGEABLE;
    flags = TCP_FLAGS(tcp->tcp_ctl);
    if (flags & TCP_RST) {
        seg->reason = GRO_FLUSH_RST;
    } else if (flags & TCP_URG) {
        seg->reason = GRO_FLUSH_URG;
    } else if (flags & TCP_SYN
               || ihl != IP_HEADER_LEN || ip_len != size) {
        seg->reason = GRO_FLUSH_OPTIONS;
    } else if (l4_len == tcp_len) {
        /* A pure ACK or window update does not continue the byte stream:
         * it ends the held packet as an out-of-sequence segment would. */
        seg->reason = GRO_FLUSH_GAP;
    } else {
        seg->kind = GRO_TCP4_CANDIDATE;
        seg->hdr_len = ihl + tcp_len;
        seg->payload_len = l4_len - tcp_len;
        seg->tcp_flags = flags;
        seg->seq = ntohl(get_16aligned_be32(&tcp->tcp_seq));
    }
}

/* Returns true if the TCP checksum of 'p', parsed into 'seg' as a
 * GRO_TCP4_CANDIDATE, is right. */
bool
gro_tcp4_csum_ok(const struct dp_packet *p, const struct gro_tcp4_seg *seg)
{
    const struct ip_header *ip = gro_tcp4_ip(p);
    uint32_t partial = packet_csum_pseudoheader(ip);

    /* A candidate's IPv4 header is IP_HEADER_LEN bytes, without options. */
    partial = csum_continue(partial, (const char *) ip + IP_HEADER_LEN,
                            seg->hdr_len - IP_HEADER_LEN + seg->payload_len);
    return !csum_finish(partial);
}

/* Returns true if 'a' and 'b', tunnel metadata with a tunnel destination
 * each, describe the same tunnel for GRO: every field of struct flow_tnl,
 * Geneve options included, as far as flow_tnl_size() says it is
 * meaningful, but the outer TOS, TTL and flags, whose change flushes
 * instead (gro_tcp4_merge()).  Decapsulation zeroes the metadata up to the
 * options before filling it in (pkt_metadata_init_tnl(),
 * vport_tunnel_init_metadata()), so padding compares equal. */
static bool
gro_tcp4_same_tunnel(const struct flow_tnl *a, const struct flow_tnl *b)
{
    size_t size = flow_tnl_size(a);

    BUILD_ASSERT_DECL(offsetof(struct flow_tnl, flags)
                      < offsetof(struct flow_tnl, tp_src));
    return (size == flow_tnl_size(b)
            && !memcmp(a, b, offsetof(struct flow_tnl, flags))
            && !memcmp(&a->tp_src, &b->tp_src,
                       size - offsetof(struct flow_tnl, tp_src)));
}

/* Returns true if the packet parsed into 'seg' (GRO_TCP4_UNMERGEABLE or
 * GRO_TCP4_CANDIDATE) belongs to the flow of 'item'.  Without ports, every
 * item between the same addresses matches. */
bool
gro_tcp4_item_matches(const struct gro_tcp4_item *item,
                      const struct gro_tcp4_seg *seg)
{
    const struct gro_tcp4_key *a = &item->key;
    const struct gro_tcp4_key *b = &seg->key;

    if (seg->tnl
        && !gro_tcp4_same_tunnel(&item->pkt->md.tunnel, seg->tnl)) {
        return false;
    }
    return (a->ip_src == b->ip_src
            && a->ip_dst == b->ip_dst
            && a->tun_src == b->tun_src
            && a->tun_dst == b->tun_dst
            && a->tun_id == b->tun_id
            && odp_to_u32(a->in_port) == odp_to_u32(b->in_port)
            && eth_addr_equals(a->eth_src, b->eth_src)
            && eth_addr_equals(a->eth_dst, b->eth_dst)
            && (!seg->has_ports
                || (a->tp_src == b->tp_src && a->tp_dst == b->tp_dst)));
}

/* Makes 'item' hold 'p', a GRO_TCP4_CANDIDATE parsed into 'seg', as the
 * first segment of a new packet.  The packet is left as it is, so that it
 * goes out unchanged if nothing merges onto it. */
void
gro_tcp4_item_init(struct gro_tcp4_item *item, struct dp_packet *p,
                   const struct gro_tcp4_seg *seg)
{
    const struct ip_header *ip = gro_tcp4_ip(p);

    item->pkt = p;
    item->key = seg->key;
    item->next_seq = seg->seq + seg->payload_len;
    item->mss = seg->payload_len;
    item->hdr_len = seg->hdr_len;
    item->n_segs = 1;
    item->first_id = ntohs(ip->ip_id);
    item->id_mode = GRO_TCP4_ID_UNDECIDED;
    item->has_room = false;
    gro_fraglist_seg_init(&item->segs[0], (const char *) ip + IP_HEADER_LEN);
}

/* Returns true if the candidate 'seg' ends its packet as soon as it is in it
 * (PSH or FIN), so that a segment that starts a packet with them is passed
 * through instead of held, as Linux does. */
bool
gro_tcp4_seg_ends_flow(const struct gro_tcp4_seg *seg)
{
    return (seg->tcp_flags & (TCP_PSH | TCP_FIN)) != 0;
}

/* Gives 'item''s packet room to grow to GRO_CELL_MAX_LEN, with
 * GRO_CELL_HEADROOM in front, once, when a first segment merges onto it: a
 * lone segment never pays for it.  A packet in memory that cannot be resized
 * (DPDK or AF_XDP buffers) is copied into memory of our own first. */
static void
gro_tcp4_item_make_room(struct gro_tcp4_item *item)
{
    struct dp_packet *p = item->pkt;

    if (p->source != DPBUF_MALLOC && p->source != DPBUF_STUB) {
        struct dp_packet *copy;

        copy = dp_packet_clone_with_headroom(p, GRO_CELL_HEADROOM);
        dp_packet_delete(p);
        item->pkt = p = copy;
    }
    dp_packet_resize(p, GRO_CELL_HEADROOM,
                     GRO_CELL_MAX_LEN - dp_packet_size(p));
    item->has_room = true;
}

/* Checks whether the IP ID of a segment continues 'item': segment i must
 * have first_id + i, or, with DF set, first_id for every segment, as
 * Linux's inet_gro_receive() accepts.  The second segment decides which.
 * Stores in '*mode' the mode 'item' has if the segment merges. */
static bool
gro_tcp4_id_ok(const struct gro_tcp4_item *item, const struct ip_header *ip,
               enum gro_tcp4_id_mode *mode)
{
    uint16_t delta = ntohs(ip->ip_id) - item->first_id;
    bool df = (ip->ip_frag_off & htons(IP_DONT_FRAGMENT)) != 0;

    *mode = item->id_mode;
    switch (item->id_mode) {
    case GRO_TCP4_ID_UNDECIDED:
        if (delta == 1) {
            *mode = GRO_TCP4_ID_INCREMENTING;
            return true;
        } else if (delta == 0 && df) {
            *mode = GRO_TCP4_ID_FIXED;
            return true;
        }
        return false;

    case GRO_TCP4_ID_INCREMENTING:
        return delta == item->n_segs;

    case GRO_TCP4_ID_FIXED:
        return delta == 0;
    }
    OVS_NOT_REACHED();
}

/* Tries to append the candidate 'p', parsed into 'seg', of the flow of
 * 'item', to 'item''s packet, following Linux's tcp_gro_receive() and
 * inet_gro_receive().  On GRO_TCP4_MERGED and GRO_TCP4_MERGED_FLUSH, 'p' has
 * been freed; on GRO_TCP4_NOT_MERGED, 'p' is untouched and still the
 * caller's.  Stores in '*reason' why the held packet must be flushed, for
 * the two verdicts that say so. */
enum gro_tcp4_verdict
gro_tcp4_merge(struct gro_tcp4_item *item, struct dp_packet *p,
               const struct gro_tcp4_seg *seg, enum gro_flush_reason *reason)
{
    const struct ip_header *ip = gro_tcp4_ip(p);
    const struct tcp_header *tcp = (const struct tcp_header *) (ip + 1);
    const struct flow_tnl *tnl = &p->md.tunnel;
    const struct ip_header *hip = gro_tcp4_ip(item->pkt);
    const struct tcp_header *htcp = (const struct tcp_header *) (hip + 1);
    const struct flow_tnl *htnl = &item->pkt->md.tunnel;
    uint16_t hflags = TCP_FLAGS(htcp->tcp_ctl);
    enum gro_tcp4_id_mode id_mode;
    struct ip_header *mip;
    struct tcp_header *mtcp;

    /* Same flags, header length and options (timestamps included), same IP
     * TOS, TTL and DF, same tunnel TOS, TTL and flags.  The keys match, so
     * both packets have a tunnel or neither has. */
    if (seg->tcp_flags & TCP_CWR
        || (seg->tcp_flags ^ hflags) & ~GRO_TCP4_FLAGS_MAY_DIFFER
        || seg->hdr_len != item->hdr_len
        || memcmp(tcp + 1, htcp + 1, item->hdr_len - IP_HEADER_LEN
                                     - TCP_HEADER_LEN)
        || ip->ip_tos != hip->ip_tos
        || ip->ip_ttl != hip->ip_ttl
        || (ip->ip_frag_off ^ hip->ip_frag_off) & htons(IP_DONT_FRAGMENT)
        || (tnl->ip_dst
            && (tnl->ip_tos != htnl->ip_tos
                || tnl->ip_ttl != htnl->ip_ttl
                || tnl->flags != htnl->flags))) {
        *reason = GRO_FLUSH_OPTIONS;
        return GRO_TCP4_NOT_MERGED;
    }

    /* The next bytes of the stream, acknowledging the same. */
    if (seg->seq != item->next_seq
        || get_16aligned_be32(&tcp->tcp_ack)
           != get_16aligned_be32(&htcp->tcp_ack)
        || !gro_tcp4_id_ok(item, ip, &id_mode)) {
        *reason = GRO_FLUSH_GAP;
        return GRO_TCP4_NOT_MERGED;
    }

    /* No longer than the first segment, and room left in the packet. */
    if (seg->payload_len > item->mss
        || dp_packet_size(item->pkt) + seg->payload_len > GRO_CELL_MAX_LEN) {
        *reason = GRO_FLUSH_SIZE;
        return GRO_TCP4_NOT_MERGED;
    }

    if (item->n_segs < GRO_FRAGLIST_MAX_SEGS) {
        gro_fraglist_seg_init(&item->segs[item->n_segs], tcp);
    }
    if (!item->has_room) {
        gro_tcp4_item_make_room(item);
    }
    dp_packet_put(item->pkt, (const char *) ip + seg->hdr_len,
                  seg->payload_len);

    mip = gro_tcp4_ip(item->pkt);
    mtcp = (struct tcp_header *) (mip + 1);
    mtcp->tcp_winsz = tcp->tcp_winsz;
    mtcp->tcp_ctl |= htons(seg->tcp_flags & (TCP_PSH | TCP_FIN));
    item->n_segs++;
    item->next_seq += seg->payload_len;
    item->id_mode = id_mode;

    if (seg->tcp_flags & TCP_FIN) {
        *reason = GRO_FLUSH_FIN;
    } else if (seg->tcp_flags & TCP_PSH) {
        *reason = GRO_FLUSH_PSH;
    } else if (seg->payload_len < item->mss) {
        *reason = GRO_FLUSH_SIZE;
    } else {
        dp_packet_delete(p);
        return GRO_TCP4_MERGED;
    }
    dp_packet_delete(p);
    return GRO_TCP4_MERGED_FLUSH;
}

/* Ends 'item': returns its packet, ready to go, and leaves 'item' empty.  A
 * lone segment is returned exactly as it came; a merged packet gets its
 * headers completed and its offload marks, as gro-cell.h describes. */
struct dp_packet *
gro_tcp4_item_finish(struct gro_tcp4_item *item)
{
    struct dp_packet *p = item->pkt;

    item->pkt = NULL;
    if (item->n_segs > 1) {
        int l2 = gro_tcp4_l2_len(p);
        struct ip_header *ip = gro_tcp4_ip(p);
        struct tcp_header *tcp = (struct tcp_header *) (ip + 1);

        ip->ip_tot_len = htons(dp_packet_size(p) - l2);
        ip->ip_csum = 0;
        ip->ip_csum = csum(ip, IP_HEADER_LEN);

        /* packet_csum_pseudoheader() takes the TCP length from the total
         * length just set; the complement of csum_finish() is the folded,
         * uncomplemented sum. */
        tcp->tcp_csum = ~csum_finish(packet_csum_pseudoheader(ip));

        dp_packet_set_l3(p, ip);
        dp_packet_set_l4(p, tcp);
        dp_packet_hwol_set_tx_ipv4(p);
        dp_packet_hwol_set_csum_tcp(p);
        tso_segsz_set(p, item->mss);
        gro_fraglist_keep(p, l2, item->mss,
                          item->id_mode == GRO_TCP4_ID_FIXED,
                          item->segs, item->n_segs);
    }
    return p;
}

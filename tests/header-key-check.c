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

/* The check of header-key.h's claim against OVS's miniflow_extract(). */

#include <config.h>
#include "header-key-check.h"

#include "dp-packet.h"
#include "flow.h"
#include "header-key.h"
#include "openvswitch/dynamic-string.h"
#include "util.h"

/* Headroom of the packets built here, as a netdev leaves (DP_NETDEV_HEADROOM
 * in OVS). */
#define CHECK_HEADROOM 128

/* A frame's miniflow, with room for every value. */
struct check_miniflow {
    struct miniflow mf;
    uint64_t buf[FLOW_U64S];
};

/* Returns a packet holding 'len' bytes of 'frame', just received on
 * 'in_port': metadata initialized, an Ethernet packet type, no RSS hash.
 * With 'tnl' nonnull, it is a packet decapsulated by a tunnel vport whose
 * port is 'in_port', and its tunnel metadata is '*tnl', all of it, as
 * vport_tunnel_init_metadata() and a tunnel's parser leave it (the former
 * zeroes every field but the options, whose bytes beyond their length are
 * whatever the packet's metadata held, which 'tnl' stands for). */
static struct dp_packet *
check_packet(const uint8_t *frame, size_t len, const struct flow_tnl *tnl,
             odp_port_t in_port)
{
    struct dp_packet *p = dp_packet_clone_data_with_headroom(frame, len,
                                                             CHECK_HEADROOM);

    pkt_metadata_init(&p->md, in_port);
    if (tnl) {
        memset(&p->md, 0, offsetof(struct pkt_metadata, tunnel));
        p->md.in_port.odp_port = in_port;
        p->md.tunnel = *tnl;
    }
    p->packet_type = htonl(PT_ETH);
    return p;
}

/* Extracts the miniflow of 'len' bytes of 'frame' received on 'in_port'
 * into 'mf' with miniflow_extract(), and returns the packet it extracted it
 * from, for its offsets and hash. */
static struct dp_packet *
check_miniflow_extract(const uint8_t *frame, size_t len,
                       const struct flow_tnl *tnl, odp_port_t in_port,
                       struct check_miniflow *mf)
{
    struct dp_packet *p = check_packet(frame, len, tnl, in_port);

    miniflow_extract(p, &mf->mf);
    return p;
}

/* Gets the header key of 'len' bytes of 'frame' received on 'in_port' into
 * 'key' and returns true, or returns false if the frame has none: its
 * tunnel header key, with tunnel metadata '*tnl', if 'tnl' is nonnull.
 * Checks
 * what it does to the packet against miniflow_extract() on a copy; on a
 * mismatch stores a message in '*errorp' (if it is still NULL), which the
 * caller frees. */
static bool
check_header_key(const uint8_t *frame, size_t len,
                 const struct flow_tnl *tnl, odp_port_t in_port,
                 struct header_key *key, struct check_miniflow *mf,
                 char **errorp)
{
    struct dp_packet *p = check_packet(frame, len, tnl, in_port);
    struct dp_packet *q = check_miniflow_extract(frame, len, tnl, in_port,
                                                 mf);
    uint16_t tcp_flags;
    bool has_key;

    has_key = (tnl
               ? header_key_extract_tunnel(key, p, &tcp_flags)
               : header_key_extract(key, p, in_port, &tcp_flags));
    if (!has_key) {
        if (p->l3_ofs != UINT16_MAX || dp_packet_rss_valid(p)) {
            *errorp = xasprintf("no header key, but the packet changed");
        }
    } else if (p->l2_5_ofs != q->l2_5_ofs || p->l3_ofs != q->l3_ofs
               || p->l4_ofs != q->l4_ofs
               || dp_packet_l2_pad_size(p) != dp_packet_l2_pad_size(q)) {
        *errorp = xasprintf("offsets %u %u %u pad %u, miniflow_extract()'s "
                            "%u %u %u pad %u", p->l2_5_ofs, p->l3_ofs,
                            p->l4_ofs, dp_packet_l2_pad_size(p),
                            q->l2_5_ofs, q->l3_ofs, q->l4_ofs,
                            dp_packet_l2_pad_size(q));
    } else if (!dp_packet_rss_valid(p) || !dp_packet_rss_valid(q)
               || dp_packet_get_rss_hash(p) != dp_packet_get_rss_hash(q)
               || key->hash != dp_packet_get_rss_hash(q)) {
        *errorp = xasprintf("hash %#"PRIx32", miniflow_extract()'s %#"PRIx32,
                            key->hash, dp_packet_get_rss_hash(q));
    } else if (tcp_flags != miniflow_get_tcp_flags(&mf->mf)) {
        *errorp = xasprintf("TCP flags %#x, the miniflow's %#x", tcp_flags,
                            miniflow_get_tcp_flags(&mf->mf));
    } else if (key->in_port != odp_to_u32(in_port)) {
        *errorp = xasprintf("port %"PRIu32", received on %"PRIu32,
                            key->in_port, odp_to_u32(in_port));
    }
    dp_packet_delete(p);
    dp_packet_delete(q);
    return has_key;
}

/* Checks the header key of 'len' bytes of 'frame', received on 'in_port',
 * against miniflow_extract(), as header-key-check.h says.  Returns true if
 * the frame has a header key.  On a failed check stores a message in
 * '*errorp', which the caller frees. */
bool
header_key_check_frame(const uint8_t *frame, size_t len, odp_port_t in_port,
                       char **errorp)
{
    struct check_miniflow mf;
    struct header_key key;

    *errorp = NULL;
    return check_header_key(frame, len, NULL, in_port, &key, &mf, errorp);
}

/* header_key_check_frame() for a tunnel header key, with tunnel metadata
 * '*tnl'. */
bool
header_key_check_tunnel_frame(const uint8_t *frame, size_t len,
                              const struct flow_tnl *tnl, odp_port_t in_port,
                              char **errorp)
{
    struct check_miniflow mf;
    struct header_key key;

    *errorp = NULL;
    return check_header_key(frame, len, tnl, in_port, &key, &mf, errorp);
}

/* Checks frames 'a' and 'b', received on 'in_port', each as
 * header_key_check_frame() does and together: equal header keys must mean
 * equal miniflows.  Returns what it found; on a failed check stores a
 * message in '*errorp', which the caller frees. */
enum header_key_pair
header_key_check_pair(const uint8_t *a, size_t a_len,
                      const uint8_t *b, size_t b_len, odp_port_t in_port,
                      char **errorp)
{
    return header_key_check_tunnel_pair(a, a_len, NULL, b, b_len, NULL,
                                        in_port, errorp);
}

/* header_key_check_pair() for tunnel header keys, with tunnel metadata
 * '*a_tnl' and '*b_tnl', or for header keys if both are null. */
enum header_key_pair
header_key_check_tunnel_pair(const uint8_t *a, size_t a_len,
                             const struct flow_tnl *a_tnl,
                             const uint8_t *b, size_t b_len,
                             const struct flow_tnl *b_tnl,
                             odp_port_t in_port, char **errorp)
{
    struct check_miniflow a_mf, b_mf;
    struct header_key a_key, b_key;
    bool a_has, b_has;

    *errorp = NULL;
    a_has = check_header_key(a, a_len, a_tnl, in_port, &a_key, &a_mf,
                             errorp);
    if (*errorp) {
        return HEADER_KEY_PAIR_NONE;
    }
    b_has = check_header_key(b, b_len, b_tnl, in_port, &b_key, &b_mf,
                             errorp);
    if (*errorp) {
        return HEADER_KEY_PAIR_NONE;
    }
    if (!a_has || !b_has) {
        return a_has || b_has ? HEADER_KEY_PAIR_ONE : HEADER_KEY_PAIR_NONE;
    }
    if (!header_key_equal(&a_key, &b_key)) {
        return HEADER_KEY_PAIR_DIFFERENT;
    }
    if (!miniflow_equal(&a_mf.mf, &b_mf.mf)) {
        *errorp = xstrdup("equal header keys, different miniflows");
    }
    return HEADER_KEY_PAIR_SAME;
}

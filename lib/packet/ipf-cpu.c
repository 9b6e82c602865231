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

/* IPv4 and IPv6 fragment reassembly, one table per forwarding thread. */

#include <config.h>
#include "ipf-cpu.h"

#include <netinet/in.h>
#include <netinet/ip6.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "dp-packet.h"
#include "dpif-netdev.h"
#include "flow.h"
#include "hash.h"
#include "openvswitch/hmap.h"
#include "openvswitch/list.h"
#include "openvswitch/util.h"
#include "ovs-atomic.h"
#include "packets.h"
#include "util.h"

/* Largest IPv4 datagram (header included) and IPv6 payload (extension
 * headers included), from their 16-bit length fields. */
#define IPF_MAX_DATAGRAM 65535

/* Largest buffer a dp_packet can describe: OVS 3.1 records the allocation
 * in a 16-bit field. */
#define IPF_MAX_BUFFER UINT16_MAX

/* Non-last fragments carry a multiple of this many bytes, the unit of the
 * fragment offset field. */
#define IPF_FRAG_UNIT 8

/* The IPv6 fragment header's offset and more-fragments bits, in host byte
 * order (<netinet/ip6.h>'s IP6F_* are in network byte order). */
#define IPF_IP6F_OFF_MASK 0xfff8
#define IPF_IP6F_MORE 0x0001

/* Fragment array slots a new queue starts with; the array doubles from
 * there up to IPF_CPU_MAX_FRAGS.  Most fragmented datagrams have 2 to 4
 * fragments (a 1500-byte MTU and a 9000-byte or smaller datagram). */
#define IPF_INITIAL_FRAG_SLOTS 4

/* Identifies one datagram being reassembled; see "Queue key" in
 * ipf-cpu.h.  Compared and hashed as bytes, so every instance is zeroed
 * first. */
struct ipf_cpu_key {
    struct in6_addr src;        /* IP source (IPv4: v4-mapped). */
    struct in6_addr dst;        /* IP destination (IPv4: v4-mapped). */
    struct in6_addr tun_src;    /* Tunnel outer source, or all-zeros. */
    struct in6_addr tun_dst;    /* Tunnel outer destination, or all-zeros. */
    ovs_be64 tun_id;            /* Tunnel ID, or 0. */
    ovs_be32 id;                /* IP identification (IPv4: 16 bits). */
    uint32_t in_port;           /* md.in_port.odp_port. */
    uint32_t recirc_id;         /* For ct(): md.recirc_id; else 0. */
    uint16_t zone;              /* For ct(): its conntrack zone; else 0. */
    uint8_t proto;              /* IPv4 protocol; 0 for IPv6. */
    uint8_t is_ipv6;            /* 1 for IPv6, 0 for IPv4. */
    uint8_t ct;                 /* 1 if held for ct(), 0 for any other use
                                 * (a tunnel's outer fragments). */
    uint8_t pad[7];             /* Zero. */
};
BUILD_ASSERT_DECL(sizeof(struct ipf_cpu_key) == 96);

/* What ipf_parse() learns about a fragment. */
struct ipf_cpu_frag_info {
    struct ipf_cpu_key key;         /* Its datagram. */
    uint32_t start;             /* Offset of its data in the datagram. */
    uint32_t end;               /* 'start' plus its data's length. */
    bool more;                  /* More fragments follow (MF set). */
    uint8_t proto;              /* IPv4 protocol, or the IPv6 fragment
                                 * header's next header. */
    uint16_t data_ofs;          /* Its data, from dp_packet_data(). */
    uint16_t hdr_end;           /* End of the headers a reassembled packet
                                 * keeps from it (L2, IPv4 header or IPv6
                                 * header and unfragmentable part), from
                                 * dp_packet_data(). */
    uint16_t nh_ofs;            /* IPv6: the next-header byte that names the
                                 * fragment header, from dp_packet_data(). */
};

/* One held fragment. */
struct ipf_cpu_frag {
    struct dp_packet *pkt;      /* The fragment, owned by the queue. */
    uint32_t start;             /* Offset of its data in the datagram. */
    uint32_t end;               /* 'start' plus its data's length. */
    uint16_t data_ofs;          /* As in struct ipf_cpu_frag_info. */
    uint16_t hdr_end;           /* As in struct ipf_cpu_frag_info. */
    uint16_t nh_ofs;            /* As in struct ipf_cpu_frag_info. */
    uint8_t proto;              /* As in struct ipf_cpu_frag_info. */
};

/* One datagram being reassembled. */
struct ipf_cpu_queue {
    struct hmap_node node;      /* In ipf_cpu's 'queues', by key hash. */
    struct ovs_list lru_node;   /* In ipf_cpu's 'lru'. */
    struct ovs_list age_node;   /* In ipf_cpu's 'age'. */
    struct ipf_cpu_key key;         /* Its datagram. */
    long long int created;      /* When its first fragment came, in ms. */

    /* Held fragments, sorted by 'start', never overlapping. */
    struct ipf_cpu_frag *frags;     /* 'n_slots' elements, 'n_frags' in use. */
    size_t n_frags;             /* Fragments held. */
    size_t n_slots;             /* Allocated elements of 'frags'. */

    uint32_t held_len;          /* Sum of the held fragments' lengths. */
    uint32_t max_end;           /* Largest 'end' of a held fragment. */
    bool last_in;               /* The last fragment (MF clear) is held, so
                                 * 'max_end' is the datagram's length. */
    bool first_in;              /* The first fragment (offset 0) is held. */
    size_t mem;                 /* This queue's share of the account. */
};

/* A recently completed or discarded datagram; see "Recently finished
 * datagrams" in ipf-cpu.h. */
struct ipf_cpu_recent {
    struct hmap_node node;      /* In ipf_cpu's 'recent_map', if 'in_use'. */
    struct ipf_cpu_key key;         /* The datagram. */
    long long int when;         /* When it finished, in ms. */
    enum ipf_cpu_drop_reason reason; /* Why its late fragments drop. */
    bool in_use;                /* False until first filled. */
};

/* Counters, written by the owner with relaxed atomic stores (never a
 * read-modify-write), read by anyone with relaxed atomic loads. */
struct ipf_cpu_counters {
    atomic_uint64_t bytes_held;
    atomic_uint64_t queues;
    atomic_uint64_t fragments_in;
    atomic_uint64_t reassembled;
    atomic_uint64_t evicted;
    atomic_uint64_t timed_out;
    atomic_uint64_t discarded;
    atomic_uint64_t drops[IPF_N_DROP_REASONS];
    atomic_uint64_t frags_held;
    /* By family (0 IPv4, 1 IPv6), as struct ipf_cpu_family_stats. */
    atomic_uint64_t accepted[2];
    atomic_uint64_t completed[2];
    atomic_uint64_t expired[2];
    atomic_uint64_t too_small[2];
    atomic_uint64_t overlap[2];
    atomic_uint64_t purged[2];
};

/* One forwarding thread's reassembly table.  Everything here but
 * 'counters' is read and written by the owning thread only. */
struct ipf_cpu {
    struct ipf_cpu_config cfg;  /* Current limits. */
    struct hmap queues;         /* Contains "struct ipf_cpu_queue"s. */
    struct ovs_list lru;        /* Queues, least recently used first. */
    struct ovs_list age;        /* Queues, oldest first. */
    size_t mem;                 /* The memory account, in bytes. */
    size_t n_frags;             /* Fragments held in all queues. */
    size_t n_ct_frags;          /* Those held in queues for ct(). */

    /* Recently finished datagrams: a ring, the oldest at 'recent_next',
     * indexed by 'recent_map'. */
    struct ipf_cpu_recent recent[IPF_CPU_RECENT_MAX];
    size_t recent_next;
    struct hmap recent_map;     /* Contains the in-use 'recent' entries. */

    struct ipf_cpu_counters counters;   /* Published to ipf_cpu_get_stats(). */

    /* The largest fragment, in IP bytes (header included), of the datagram
     * ipf_cpu_reassemble() last returned whole; see ipf_cpu_last_mru(). */
    uint16_t last_mru;
};

/* Outcome of ipf_parse(). */
enum ipf_parse_result {
    IPF_NOT_FRAG,               /* Not a fragment: pass it through. */
    IPF_FRAG,                   /* A fragment, fully parsed. */
    IPF_BAD_FRAG,               /* A fragment to drop for the given reason. */
};

/* Fills 'cfg' with the defaults. */
void
ipf_cpu_config_default(struct ipf_cpu_config *cfg)
{
    cfg->high_thresh = IPF_CPU_DEFAULT_HIGH_THRESH;
    cfg->low_thresh = IPF_CPU_DEFAULT_LOW_THRESH;
    cfg->timeout_ms = IPF_CPU_DEFAULT_TIMEOUT_MS;
    cfg->min_frag[0] = cfg->min_frag[1] = 0;
    cfg->max_frags = SIZE_MAX;
}

/* Returns NULL if 'cfg' is usable, otherwise a malloc'd message that says
 * what is wrong with it, which the caller must free. */
char *
ipf_cpu_config_check(const struct ipf_cpu_config *cfg)
{
    if (!cfg->high_thresh) {
        return xstrdup("fragment memory high threshold must be positive");
    }
    if (cfg->low_thresh >= cfg->high_thresh) {
        return xasprintf("fragment memory low threshold (%"PRIuSIZE") must "
                         "be below the high threshold (%"PRIuSIZE")",
                         cfg->low_thresh, cfg->high_thresh);
    }
    if (cfg->timeout_ms <= 0) {
        return xasprintf("fragment timeout (%lld ms) must be positive",
                         cfg->timeout_ms);
    }
    if (cfg->timeout_ms > IPF_CPU_MAX_TIMEOUT_MS) {
        return xasprintf("fragment timeout (%lld ms) exceeds the maximum "
                         "of %d ms", cfg->timeout_ms, IPF_CPU_MAX_TIMEOUT_MS);
    }
    return NULL;
}

/* Returns a short name for 'reason', for logs and tests. */
const char *
ipf_cpu_drop_reason_to_string(enum ipf_cpu_drop_reason reason)
{
    switch (reason) {
    case IPF_DROP_OVERLAP: return "overlap";
    case IPF_DROP_DUPLICATE: return "duplicate";
    case IPF_DROP_TINY: return "tiny";
    case IPF_DROP_OVERSIZE: return "oversize";
    case IPF_DROP_TOO_MANY: return "too-many";
    case IPF_DROP_COMPLETE: return "complete";
    case IPF_DROP_MALFORMED: return "malformed";
    case IPF_DROP_MEMORY: return "memory";
    case IPF_DROP_MIN_FRAG: return "min-frag";
    case IPF_DROP_MAX_FRAGS: return "max-frags";
    case IPF_N_DROP_REASONS:
    default:
        return "<invalid>";
    }
}

/* Counters. */

/* Adds 'n' to the owner-written counter 'c'.  Only the owner writes it, so
 * a relaxed load and store, not an atomic add, suffice. */
static void
ipf_counter_add(atomic_uint64_t *c, uint64_t n)
{
    uint64_t value;

    atomic_read_relaxed(c, &value);
    atomic_store_relaxed(c, value + n);
}

/* Adds 'n' to the family counter 'c' (an array by family) for the family
 * 'is_ipv6', if it counts for ct() ('ct'): OVS's ipf.c counts what
 * conntrack reassembles only. */
static void
ipf_family_add(atomic_uint64_t c[2], bool ct, bool is_ipv6, uint64_t n)
{
    if (ct) {
        ipf_counter_add(&c[is_ipv6], n);
    }
}

/* Publishes the gauges of 'ipf'. */
static void
ipf_publish_gauges(struct ipf_cpu *ipf)
{
    atomic_store_relaxed(&ipf->counters.bytes_held, ipf->mem);
    atomic_store_relaxed(&ipf->counters.queues, hmap_count(&ipf->queues));
    atomic_store_relaxed(&ipf->counters.frags_held, ipf->n_ct_frags);
}

/* Frees fragment 'p', dropped on arrival for 'reason'. */
static void
ipf_drop(struct ipf_cpu *ipf, struct dp_packet *p,
         enum ipf_cpu_drop_reason reason)
{
    ipf_counter_add(&ipf->counters.drops[reason], 1);
    dp_packet_delete(p);
}

/* Creation and configuration. */

/* Creates a table with the limits in 'cfg' (which ipf_cpu_config_check()
 * must accept), or with the defaults if 'cfg' is NULL.  The caller gives it
 * to one forwarding thread. */
struct ipf_cpu *
ipf_cpu_create(const struct ipf_cpu_config *cfg)
{
    struct ipf_cpu *ipf = xzalloc(sizeof *ipf);

    if (cfg) {
        ovs_assert(cfg->low_thresh < cfg->high_thresh);
        ipf->cfg = *cfg;
    } else {
        ipf_cpu_config_default(&ipf->cfg);
    }
    hmap_init(&ipf->queues);
    ovs_list_init(&ipf->lru);
    ovs_list_init(&ipf->age);
    hmap_init(&ipf->recent_map);

    atomic_init(&ipf->counters.bytes_held, 0);
    atomic_init(&ipf->counters.queues, 0);
    atomic_init(&ipf->counters.fragments_in, 0);
    atomic_init(&ipf->counters.reassembled, 0);
    atomic_init(&ipf->counters.evicted, 0);
    atomic_init(&ipf->counters.timed_out, 0);
    atomic_init(&ipf->counters.discarded, 0);
    for (size_t i = 0; i < IPF_N_DROP_REASONS; i++) {
        atomic_init(&ipf->counters.drops[i], 0);
    }
    atomic_init(&ipf->counters.frags_held, 0);
    for (size_t i = 0; i < 2; i++) {
        atomic_init(&ipf->counters.accepted[i], 0);
        atomic_init(&ipf->counters.completed[i], 0);
        atomic_init(&ipf->counters.expired[i], 0);
        atomic_init(&ipf->counters.too_small[i], 0);
        atomic_init(&ipf->counters.overlap[i], 0);
        atomic_init(&ipf->counters.purged[i], 0);
    }
    return ipf;
}

/* Frees the queue 'q', its fragments, and its share of the account. */
static void
ipf_queue_destroy(struct ipf_cpu *ipf, struct ipf_cpu_queue *q)
{
    for (size_t i = 0; i < q->n_frags; i++) {
        dp_packet_delete(q->frags[i].pkt);
    }
    free(q->frags);
    ovs_assert(ipf->n_frags >= q->n_frags);
    ipf->n_frags -= q->n_frags;
    if (q->key.ct) {
        ovs_assert(ipf->n_ct_frags >= q->n_frags);
        ipf->n_ct_frags -= q->n_frags;
    }
    hmap_remove(&ipf->queues, &q->node);
    ovs_list_remove(&q->lru_node);
    ovs_list_remove(&q->age_node);
    ovs_assert(ipf->mem >= q->mem);
    ipf->mem -= q->mem;
    free(q);
}

/* Frees 'ipf' and everything it holds.  The owner must no longer use it;
 * no thread may be reading its stats.  Accepts NULL. */
void
ipf_cpu_destroy(struct ipf_cpu *ipf)
{
    struct ipf_cpu_queue *q;

    if (!ipf) {
        return;
    }
    HMAP_FOR_EACH_SAFE (q, node, &ipf->queues) {
        ipf_queue_destroy(ipf, q);
    }
    hmap_destroy(&ipf->queues);
    hmap_destroy(&ipf->recent_map);
    free(ipf);
}

/* Evicts least-recently-used queues other than 'keep' (which may be NULL)
 * while the account is above the low threshold or 'need' more bytes would
 * take it above the high threshold.  Returns true if 'need' bytes then
 * fit under the high threshold. */
static bool
ipf_make_room(struct ipf_cpu *ipf, size_t need,
              const struct ipf_cpu_queue *keep)
{
    struct ipf_cpu_queue *q;

    if (ipf->mem + need <= ipf->cfg.high_thresh) {
        return true;
    }
    LIST_FOR_EACH_SAFE (q, lru_node, &ipf->lru) {
        if (ipf->mem <= ipf->cfg.low_thresh
            && ipf->mem + need <= ipf->cfg.high_thresh) {
            break;
        }
        if (q != keep) {
            ipf_family_add(ipf->counters.purged, q->key.ct, q->key.is_ipv6,
                           q->n_frags);
            ipf_queue_destroy(ipf, q);
            ipf_counter_add(&ipf->counters.evicted, 1);
        }
    }
    return ipf->mem + need <= ipf->cfg.high_thresh;
}

/* Gives 'ipf' the limits in 'cfg', which ipf_cpu_config_check() must
 * accept.  Called by the owner between packets.  If the account exceeds the
 * new high threshold, evicts queues down to the new low threshold. */
void
ipf_cpu_set_config(struct ipf_cpu *ipf, const struct ipf_cpu_config *cfg)
{
    ovs_assert(cfg->low_thresh < cfg->high_thresh);
    ipf->cfg = *cfg;
    if (ipf->mem > ipf->cfg.high_thresh) {
        ipf_make_room(ipf, 0, NULL);
        /* With nothing needed, eviction stops at the low threshold. */
        ovs_assert(ipf->mem <= ipf->cfg.low_thresh);
    }
    ipf_publish_gauges(ipf);
}

/* Parsing. */

/* Fills the key members of 'key' that come from the packet metadata of
 * 'p'. */
static void
ipf_key_set_md(struct ipf_cpu_key *key, const struct dp_packet *p)
{
    const struct flow_tnl *tnl = &p->md.tunnel;

    key->in_port = odp_to_u32(p->md.in_port.odp_port);
    if (flow_tnl_dst_is_set(tnl)) {
        if (tnl->ip_dst) {
            in6_addr_set_mapped_ipv4(&key->tun_src, tnl->ip_src);
            in6_addr_set_mapped_ipv4(&key->tun_dst, tnl->ip_dst);
        } else {
            key->tun_src = tnl->ipv6_src;
            key->tun_dst = tnl->ipv6_dst;
        }
        key->tun_id = tnl->tun_id;
    }
}

/* Checks the lengths of a fragment whose data is 'len' bytes long and goes
 * to 'start', which the fragment's 'more' flag follows; 'hdr_len' bytes of
 * header precede the fragmentable part in the reassembled datagram.
 * Fills in 'fi' and returns IPF_FRAG, or sets '*reason' and returns
 * IPF_BAD_FRAG. */
static enum ipf_parse_result
ipf_check_lengths(struct ipf_cpu_frag_info *fi, uint32_t start, uint32_t len,
                  size_t hdr_len, enum ipf_cpu_drop_reason *reason)
{
    if (!len || (fi->more && len % IPF_FRAG_UNIT)) {
        *reason = IPF_DROP_MALFORMED;
        return IPF_BAD_FRAG;
    }
    fi->start = start;
    fi->end = start + len;
    if (hdr_len + fi->end > IPF_MAX_DATAGRAM) {
        *reason = IPF_DROP_OVERSIZE;
        return IPF_BAD_FRAG;
    }
    return IPF_FRAG;
}

/* Parses 'p', whose L3 header is IPv4 and at least IP_HEADER_LEN bytes
 * long. */
static enum ipf_parse_result
ipf_parse_ipv4(const struct dp_packet *p, struct ipf_cpu_frag_info *fi,
               enum ipf_cpu_drop_reason *reason)
{
    const struct ip_header *ip = dp_packet_l3(p);
    size_t l3_size = dp_packet_l3_size(p);
    uint16_t frag_off = ntohs(ip->ip_frag_off);
    size_t hdr_len, tot_len;

    if (!(frag_off & (IP_MORE_FRAGMENTS | IP_FRAG_OFF_MASK))) {
        return IPF_NOT_FRAG;
    }

    *reason = IPF_DROP_MALFORMED;
    hdr_len = IP_IHL(ip->ip_ihl_ver) * 4;
    tot_len = ntohs(ip->ip_tot_len);
    if (hdr_len < IP_HEADER_LEN || hdr_len > l3_size
        || tot_len < hdr_len || tot_len > l3_size) {
        return IPF_BAD_FRAG;
    }
    if (dp_packet_ip_checksum_bad(p)
        || (!dp_packet_ip_checksum_valid(p) && csum(ip, hdr_len))) {
        return IPF_BAD_FRAG;
    }

    in6_addr_set_mapped_ipv4(&fi->key.src, get_16aligned_be32(&ip->ip_src));
    in6_addr_set_mapped_ipv4(&fi->key.dst, get_16aligned_be32(&ip->ip_dst));
    fi->key.id = htonl(ntohs(ip->ip_id));
    fi->key.proto = ip->ip_proto;
    fi->more = (frag_off & IP_MORE_FRAGMENTS) != 0;
    fi->proto = ip->ip_proto;
    fi->data_ofs = p->l3_ofs + hdr_len;
    fi->hdr_end = fi->data_ofs;
    fi->nh_ofs = 0;
    return ipf_check_lengths(fi, (frag_off & IP_FRAG_OFF_MASK) * IPF_FRAG_UNIT,
                             tot_len - hdr_len, hdr_len, reason);
}

/* Parses 'p', whose L3 header is IPv6 and at least IPV6_HEADER_LEN bytes
 * long.  The fragment header is found after any hop-by-hop, destination
 * options and routing headers; a packet whose chain of those runs out of
 * its bytes is no fragment this module can see, and passes through. */
static enum ipf_parse_result
ipf_parse_ipv6(const struct dp_packet *p, struct ipf_cpu_frag_info *fi,
               enum ipf_cpu_drop_reason *reason)
{
    const struct ovs_16aligned_ip6_hdr *ip6 = dp_packet_l3(p);
    const uint8_t *l3 = dp_packet_l3(p);
    const struct ovs_16aligned_ip6_frag *frag;
    size_t l3_size = dp_packet_l3_size(p);
    size_t plen = ntohs(ip6->ip6_plen);
    size_t limit = MIN(l3_size, IPV6_HEADER_LEN + plen);
    size_t ofs = IPV6_HEADER_LEN;
    size_t nh_ofs = offsetof(struct ovs_16aligned_ip6_hdr, ip6_nxt);
    uint8_t nxt = ip6->ip6_nxt;
    uint16_t offlg;

    while (nxt == IPPROTO_HOPOPTS || nxt == IPPROTO_ROUTING
           || nxt == IPPROTO_DSTOPTS) {
        if (ofs + 2 > limit) {
            return IPF_NOT_FRAG;
        }
        nh_ofs = ofs;
        nxt = l3[ofs];
        ofs += (l3[ofs + 1] + 1) * 8;
    }
    if (nxt != IPPROTO_FRAGMENT) {
        return IPF_NOT_FRAG;
    }
    if (ofs + sizeof *frag > limit) {
        /* A fragment header cut short: a fragment, but an unreadable one. */
        *reason = IPF_DROP_MALFORMED;
        return IPF_BAD_FRAG;
    }
    frag = ALIGNED_CAST(const struct ovs_16aligned_ip6_frag *, l3 + ofs);
    offlg = ntohs(frag->ip6f_offlg);
    if (!(offlg & (IPF_IP6F_OFF_MASK | IPF_IP6F_MORE))) {
        /* An atomic fragment (RFC 6946): a whole datagram. */
        return IPF_NOT_FRAG;
    }
    if (IPV6_HEADER_LEN + plen > l3_size) {
        *reason = IPF_DROP_MALFORMED;
        return IPF_BAD_FRAG;
    }

    memcpy(&fi->key.src, &ip6->ip6_src, sizeof fi->key.src);
    memcpy(&fi->key.dst, &ip6->ip6_dst, sizeof fi->key.dst);
    fi->key.id = get_16aligned_be32(&frag->ip6f_ident);
    fi->key.is_ipv6 = 1;
    fi->more = (offlg & IPF_IP6F_MORE) != 0;
    fi->proto = frag->ip6f_nxt;
    fi->hdr_end = p->l3_ofs + ofs;
    fi->data_ofs = fi->hdr_end + sizeof *frag;
    fi->nh_ofs = p->l3_ofs + nh_ofs;
    return ipf_check_lengths(fi, offlg & IPF_IP6F_OFF_MASK,
                             IPV6_HEADER_LEN + plen - ofs - sizeof *frag,
                             ofs - IPV6_HEADER_LEN, reason);
}

/* Returns the least a first fragment must carry of a transport header of
 * protocol 'proto' (RFC 1858, RFC 7112); see IPF_DROP_TINY in ipf-cpu.h. */
static size_t
ipf_l4_min_len(uint8_t proto)
{
    switch (proto) {
    case IPPROTO_TCP:
        return TCP_HEADER_LEN;
    case IPPROTO_SCTP:
        return SCTP_HEADER_LEN;
    case IPPROTO_UDP:
    case IPPROTO_ICMP:
    case IPPROTO_ICMPV6:
    case IPPROTO_ESP:
        return UDP_HEADER_LEN;
    default:
        return 1;
    }
}

/* Returns true if fragment 'p', described by 'fi', is one IPF_DROP_TINY
 * covers. */
static bool
ipf_is_tiny(const struct dp_packet *p, const struct ipf_cpu_frag_info *fi)
{
    const uint8_t *data = (const uint8_t *) dp_packet_data(p) + fi->data_ofs;
    size_t len = fi->end - fi->start;
    uint8_t proto = fi->proto;
    size_t ofs = 0;

    if (fi->start == IPF_FRAG_UNIT && proto == IPPROTO_TCP) {
        return true;
    }
    if (fi->start) {
        return false;
    }

    /* The first fragment: walk the extension headers of the fragmentable
     * part, then require the transport header's fixed part. */
    for (;;) {
        size_t hdr_len;

        if (proto == IPPROTO_AH) {
            if (ofs + 2 > len) {
                return true;
            }
            hdr_len = (data[ofs + 1] + 2) * 4;
        } else if (fi->key.is_ipv6
                   && (proto == IPPROTO_HOPOPTS || proto == IPPROTO_ROUTING
                       || proto == IPPROTO_DSTOPTS)) {
            if (ofs + 2 > len) {
                return true;
            }
            hdr_len = (data[ofs + 1] + 1) * 8;
        } else {
            break;
        }
        proto = data[ofs];
        ofs += hdr_len;
    }
    return ofs + ipf_l4_min_len(proto) > len;
}

/* Parses 'p'.  Returns IPF_NOT_FRAG if it is not a fragment (or not IP),
 * IPF_FRAG with 'fi' filled in if it is a fragment to process, and
 * IPF_BAD_FRAG with '*reason' set if it is a fragment to drop. */
static enum ipf_parse_result
ipf_parse(const struct dp_packet *p, struct ipf_cpu_frag_info *fi,
          enum ipf_cpu_drop_reason *reason)
{
    const uint8_t *l3 = dp_packet_l3(p);
    size_t l3_size = dp_packet_l3_size(p);
    enum ipf_parse_result r;

    if (!l3) {
        return IPF_NOT_FRAG;
    }
    memset(&fi->key, 0, sizeof fi->key);
    if (l3_size >= IP_HEADER_LEN && (l3[0] >> 4) == 4) {
        r = ipf_parse_ipv4(p, fi, reason);
    } else if (l3_size >= IPV6_HEADER_LEN && (l3[0] >> 4) == 6) {
        r = ipf_parse_ipv6(p, fi, reason);
    } else {
        return IPF_NOT_FRAG;
    }
    if (r == IPF_FRAG) {
        if (ipf_is_tiny(p, fi)) {
            *reason = IPF_DROP_TINY;
            return IPF_BAD_FRAG;
        }
        ipf_key_set_md(&fi->key, p);
    }
    return r;
}

/* Recently finished datagrams. */

/* Returns how long a finished datagram is remembered, in ms. */
static long long int
ipf_recent_window(const struct ipf_cpu *ipf)
{
    return MIN(IPF_CPU_RECENT_MS, ipf->cfg.timeout_ms);
}

/* Remembers that the datagram 'key' (with hash 'hash') finished at 'now',
 * so that its late fragments drop for 'reason'. */
static void
ipf_recent_add(struct ipf_cpu *ipf, const struct ipf_cpu_key *key,
               uint32_t hash, enum ipf_cpu_drop_reason reason,
               long long int now)
{
    struct ipf_cpu_recent *r = &ipf->recent[ipf->recent_next];

    if (r->in_use) {
        hmap_remove(&ipf->recent_map, &r->node);
    }
    r->key = *key;
    r->when = now;
    r->reason = reason;
    r->in_use = true;
    hmap_insert(&ipf->recent_map, &r->node, hash);
    ipf->recent_next = (ipf->recent_next + 1) % IPF_CPU_RECENT_MAX;
}

/* Returns the record of datagram 'key' if it finished recently, else
 * NULL. */
static const struct ipf_cpu_recent *
ipf_recent_find(const struct ipf_cpu *ipf, const struct ipf_cpu_key *key,
                uint32_t hash, long long int now)
{
    const struct ipf_cpu_recent *r;

    HMAP_FOR_EACH_WITH_HASH (r, node, hash, &ipf->recent_map) {
        if (!memcmp(&r->key, key, sizeof *key)
            && now - r->when < ipf_recent_window(ipf)) {
            return r;
        }
    }
    return NULL;
}

/* Queues. */

/* Returns the bytes that holding 'p' costs: its buffer and its struct. */
static size_t
ipf_frag_cost(const struct dp_packet *p)
{
    return dp_packet_get_allocated(p) + sizeof *p;
}

/* Returns the queue for 'key', or NULL. */
static struct ipf_cpu_queue *
ipf_queue_find(const struct ipf_cpu *ipf, const struct ipf_cpu_key *key,
               uint32_t hash)
{
    struct ipf_cpu_queue *q;

    HMAP_FOR_EACH_WITH_HASH (q, node, hash, &ipf->queues) {
        if (!memcmp(&q->key, key, sizeof *key)) {
            return q;
        }
    }
    return NULL;
}

/* Returns true if 'q' has outlived the timeout at 'now'. */
static bool
ipf_queue_expired(const struct ipf_cpu *ipf, const struct ipf_cpu_queue *q,
                  long long int now)
{
    return now - q->created >= ipf->cfg.timeout_ms;
}

/* Discards the datagram of queue 'q' because of fragment 'p', which is
 * dropped for 'reason', and remembers the datagram so that its later
 * fragments drop too. */
static void
ipf_queue_discard(struct ipf_cpu *ipf, struct ipf_cpu_queue *q,
                  struct dp_packet *p, enum ipf_cpu_drop_reason reason,
                  long long int now)
{
    ipf_recent_add(ipf, &q->key, q->node.hash, reason, now);
    ipf_family_add(ipf->counters.purged, q->key.ct, q->key.is_ipv6,
                   q->n_frags);
    if (reason == IPF_DROP_OVERLAP) {
        ipf_family_add(ipf->counters.overlap, q->key.ct, q->key.is_ipv6, 1);
    }
    ipf_queue_destroy(ipf, q);
    ipf_counter_add(&ipf->counters.discarded, 1);
    ipf_drop(ipf, p, reason);
}

/* Inserts fragment 'p', described by 'fi', into 'q' at index 'pos', which
 * keeps 'q->frags' sorted.  The caller has accounted for 'cost' bytes,
 * which include any growth of 'q->frags'. */
static void
ipf_queue_insert(struct ipf_cpu *ipf, struct ipf_cpu_queue *q, size_t pos,
                 struct dp_packet *p, const struct ipf_cpu_frag_info *fi,
                 size_t cost)
{
    struct ipf_cpu_frag *f;

    if (q->n_frags == q->n_slots) {
        q->n_slots = q->n_slots ? 2 * q->n_slots : IPF_INITIAL_FRAG_SLOTS;
        q->frags = xrealloc(q->frags, q->n_slots * sizeof *q->frags);
    }
    memmove(&q->frags[pos + 1], &q->frags[pos],
            (q->n_frags - pos) * sizeof *q->frags);
    q->n_frags++;
    ipf->n_frags++;
    ipf->n_ct_frags += q->key.ct;
    ipf_family_add(ipf->counters.accepted, q->key.ct, fi->key.is_ipv6, 1);

    f = &q->frags[pos];
    f->pkt = p;
    f->start = fi->start;
    f->end = fi->end;
    f->data_ofs = fi->data_ofs;
    f->hdr_end = fi->hdr_end;
    f->nh_ofs = fi->nh_ofs;
    f->proto = fi->proto;

    q->held_len += fi->end - fi->start;
    q->max_end = MAX(q->max_end, fi->end);
    q->last_in |= !fi->more;
    q->first_in |= fi->start == 0;
    q->mem += cost;
    ipf->mem += cost;

    ovs_list_remove(&q->lru_node);
    ovs_list_push_back(&ipf->lru, &q->lru_node);
}

/* Returns the extra bytes 'q->frags' needs to take one more fragment. */
static size_t
ipf_queue_growth(const struct ipf_cpu_queue *q)
{
    if (q->n_frags < q->n_slots) {
        return 0;
    }
    return (q->n_slots ? q->n_slots : IPF_INITIAL_FRAG_SLOTS)
           * sizeof *q->frags;
}

/* Starts a queue for fragment 'p', described by 'fi', unless memory is
 * short or, for ct() ('fi->key.ct'), 'max_frags' are held.  Returns NULL:
 * a datagram's first-seen fragment never completes it. */
static struct dp_packet *
ipf_queue_start(struct ipf_cpu *ipf, struct dp_packet *p,
                const struct ipf_cpu_frag_info *fi, uint32_t hash,
                long long int now)
{
    size_t cost = sizeof(struct ipf_cpu_queue) + ipf_frag_cost(p)
                  + IPF_INITIAL_FRAG_SLOTS * sizeof(struct ipf_cpu_frag);
    struct ipf_cpu_queue *q;

    if (fi->key.ct && ipf->n_ct_frags >= ipf->cfg.max_frags) {
        ipf_drop(ipf, p, IPF_DROP_MAX_FRAGS);
        return NULL;
    }
    if (cost > ipf->cfg.high_thresh || !ipf_make_room(ipf, cost, NULL)) {
        ipf_drop(ipf, p, IPF_DROP_MEMORY);
        return NULL;
    }

    q = xzalloc(sizeof *q);
    q->key = fi->key;
    q->created = now;
    hmap_insert(&ipf->queues, &q->node, hash);
    ovs_list_push_back(&ipf->lru, &q->lru_node);
    ovs_list_push_back(&ipf->age, &q->age_node);

    /* The queue struct is accounted here, the array with the fragment. */
    q->mem = sizeof *q;
    ipf->mem += sizeof *q;
    ipf_queue_insert(ipf, q, 0, p, fi, cost - sizeof *q);
    return NULL;
}

/* Builds the datagram that 'q' and the completing fragment 'p' (described
 * by 'fi') make, and frees neither.  Returns NULL if it is too big. */
static struct dp_packet *
ipf_queue_build(const struct ipf_cpu_queue *q, const struct dp_packet *p,
                const struct ipf_cpu_frag_info *fi, uint16_t *mru)
{
    const struct dp_packet *first_pkt;
    struct ipf_cpu_frag first;
    struct dp_packet *out;
    size_t payload_len = q->last_in ? q->max_end : fi->end;
    size_t size;
    uint8_t *data;

    if (fi->start == 0) {
        first_pkt = p;
        first.hdr_end = fi->hdr_end;
        first.nh_ofs = fi->nh_ofs;
        first.proto = fi->proto;
    } else {
        first = q->frags[0];
        first_pkt = first.pkt;
    }
    ovs_assert(first_pkt == p || first.start == 0);

    size = first.hdr_end + payload_len;
    if (size > IPF_MAX_BUFFER
        || first.hdr_end - first_pkt->l3_ofs + payload_len
           > IPF_MAX_DATAGRAM + (fi->key.is_ipv6 ? IPV6_HEADER_LEN : 0)) {
        return NULL;
    }

    /* The usual headroom for pushing headers, where it fits. */
    out = dp_packet_new_with_headroom(size, MIN(DP_NETDEV_HEADROOM,
                                                IPF_MAX_BUFFER - size));
    data = dp_packet_put_uninit(out, size);
    memcpy(data, dp_packet_data(first_pkt), first.hdr_end);
    for (size_t i = 0; i < q->n_frags; i++) {
        const struct ipf_cpu_frag *f = &q->frags[i];

        memcpy(data + first.hdr_end + f->start,
               (const uint8_t *) dp_packet_data(f->pkt) + f->data_ofs,
               f->end - f->start);
    }
    memcpy(data + first.hdr_end + fi->start,
           (const uint8_t *) dp_packet_data(p) + fi->data_ofs,
           fi->end - fi->start);

    *mru = fi->data_ofs - p->l3_ofs + (fi->end - fi->start);
    for (size_t i = 0; i < q->n_frags; i++) {
        const struct ipf_cpu_frag *f = &q->frags[i];

        *mru = MAX(*mru, f->data_ofs - f->pkt->l3_ofs + (f->end - f->start));
    }

    out->md = first_pkt->md;
    out->packet_type = first_pkt->packet_type;
    out->l2_5_ofs = first_pkt->l2_5_ofs;
    out->l3_ofs = first_pkt->l3_ofs;

    if (!fi->key.is_ipv6) {
        struct ip_header *ip = dp_packet_l3(out);
        size_t hdr_len = IP_IHL(ip->ip_ihl_ver) * 4;

        ip->ip_frag_off &= ~htons(IP_MORE_FRAGMENTS | IP_FRAG_OFF_MASK);
        ip->ip_tot_len = htons(hdr_len + payload_len);
        ip->ip_csum = 0;
        ip->ip_csum = csum(ip, hdr_len);
    } else {
        struct ovs_16aligned_ip6_hdr *ip6 = dp_packet_l3(out);
        size_t unfrag_len = first.hdr_end - out->l3_ofs - IPV6_HEADER_LEN;

        ip6->ip6_plen = htons(unfrag_len + payload_len);
        data[first.nh_ofs] = first.proto;
    }
    return out;
}

/* Offers fragment 'p', described by 'fi', to its datagram's queue 'q'.
 * Returns the reassembled datagram if 'p' completes it, else NULL. */
static struct dp_packet *
ipf_queue_add(struct ipf_cpu *ipf, struct ipf_cpu_queue *q,
              struct dp_packet *p, const struct ipf_cpu_frag_info *fi,
              long long int now)
{
    size_t lo, hi, cost;
    struct dp_packet *out;

    /* A fragment that contradicts the datagram's known end: Linux's
     * ip_frag_queue() discards the datagram. */
    if (!fi->more
        ? fi->end < q->max_end || (q->last_in && fi->end != q->max_end)
        : q->last_in && fi->end > q->max_end) {
        ipf_queue_discard(ipf, q, p, IPF_DROP_MALFORMED, now);
        return NULL;
    }

    /* frags[lo, hi) are the held fragments that overlap 'p'.  Fragments
     * mostly arrive in order, so the search starts from the end. */
    lo = q->n_frags;
    while (lo > 0 && q->frags[lo - 1].end > fi->start) {
        lo--;
    }
    hi = lo;
    while (hi < q->n_frags && q->frags[hi].start < fi->end) {
        hi++;
    }
    if (lo < hi) {
        bool covered = (q->frags[lo].start <= fi->start
                        && q->frags[hi - 1].end >= fi->end);

        for (size_t i = lo; covered && i + 1 < hi; i++) {
            covered = q->frags[i].end == q->frags[i + 1].start;
        }
        if (covered) {
            ipf_family_add(ipf->counters.overlap, q->key.ct,
                           fi->key.is_ipv6, 1);
            ipf_drop(ipf, p, IPF_DROP_DUPLICATE);
        } else {
            ipf_queue_discard(ipf, q, p, IPF_DROP_OVERLAP, now);
        }
        return NULL;
    }

    if (q->n_frags >= IPF_CPU_MAX_FRAGS) {
        ipf_queue_discard(ipf, q, p, IPF_DROP_TOO_MANY, now);
        return NULL;
    }

    /* Complete?  With no overlaps, the bytes held plus 'p' cover the
     * datagram exactly when they add up to its length. */
    if ((q->last_in || !fi->more)
        && q->held_len + (fi->end - fi->start)
           == (q->last_in ? q->max_end : fi->end)) {
        out = ipf_queue_build(q, p, fi, &ipf->last_mru);
        if (!out) {
            ipf_queue_discard(ipf, q, p, IPF_DROP_OVERSIZE, now);
            return NULL;
        }
        ipf_recent_add(ipf, &q->key, q->node.hash, IPF_DROP_COMPLETE, now);
        ipf_family_add(ipf->counters.accepted, q->key.ct, fi->key.is_ipv6, 1);
        ipf_family_add(ipf->counters.completed, q->key.ct, fi->key.is_ipv6,
                       q->n_frags + 1);
        ipf_queue_destroy(ipf, q);
        dp_packet_delete(p);
        ipf_counter_add(&ipf->counters.reassembled, 1);
        return out;
    }

    if (q->key.ct && ipf->n_ct_frags >= ipf->cfg.max_frags) {
        ipf_drop(ipf, p, IPF_DROP_MAX_FRAGS);
        return NULL;
    }
    cost = ipf_frag_cost(p) + ipf_queue_growth(q);
    if (q->mem + cost > ipf->cfg.high_thresh
        || !ipf_make_room(ipf, cost, q)) {
        ipf_drop(ipf, p, IPF_DROP_MEMORY);
        return NULL;
    }
    ipf_queue_insert(ipf, q, lo, p, fi, cost);
    return NULL;
}

/* ipf_cpu_reassemble() and, with 'ct' and 'zone', ipf_cpu_reassemble_ct(). */
static struct dp_packet *ipf_reassemble(struct ipf_cpu *, struct dp_packet *,
                                        long long int now_ms, bool ct,
                                        uint16_t zone);

/* Offers packet 'p' to 'ipf', taking ownership of it.  Called by the owner
 * only.  'p' is an Ethernet frame or an L3 packet whose l3_ofs points to
 * its IPv4 or IPv6 header; 'now_ms' is the current time in ms, as
 * time_msec() returns it.
 *
 * Returns 'p' itself if it is not a fragment.  Returns a new packet if 'p'
 * completes a datagram: the first fragment's bytes up to its IP header
 * (IPv6: up to its fragment header) and its metadata, then the datagram's
 * data; IPv4 with MF and offset cleared, total length set and header
 * checksum recomputed; IPv6 without the fragment header, with payload
 * length and next header fixed; l3_ofs set, l4_ofs not.  Returns NULL
 * otherwise: 'p' is held, or dropped and counted.
 *
 * OVS's ipf.c's limits ('min_frag', 'max_frags') and its per-family counters
 * are for ct() only (ipf_cpu_reassemble_ct()), as ipf.c's are for conntrack
 * only: here they do not apply, as to a tunnel's outer fragments. */
struct dp_packet *
ipf_cpu_reassemble(struct ipf_cpu *ipf, struct dp_packet *p,
                   long long int now_ms)
{
    return ipf_reassemble(ipf, p, now_ms, false, 0);
}

static struct dp_packet *
ipf_reassemble(struct ipf_cpu *ipf, struct dp_packet *p, long long int now_ms,
               bool ct, uint16_t zone)
{
    enum ipf_cpu_drop_reason reason = IPF_DROP_MALFORMED;
    const struct ipf_cpu_recent *recent;
    struct dp_packet *out = NULL;
    struct ipf_cpu_frag_info fi;
    struct ipf_cpu_queue *q;
    uint32_t hash;

    switch (ipf_parse(p, &fi, &reason)) {
    case IPF_NOT_FRAG:
        return p;
    case IPF_BAD_FRAG:
        ipf_counter_add(&ipf->counters.fragments_in, 1);
        ipf_drop(ipf, p, reason);
        return NULL;
    case IPF_FRAG:
    default:
        break;
    }
    ipf_counter_add(&ipf->counters.fragments_in, 1);
    if (ct) {
        /* As OVS's ipf.c keys its lists: a datagram's fragments in
         * another zone, or at another recirculation, are another
         * datagram's.  And never a tunnel's: the two uses keep apart
         * (see "Queue key" in ipf-cpu.h). */
        fi.key.ct = 1;
        fi.key.zone = zone;
        fi.key.recirc_id = p->md.recirc_id;
    }

    /* ipf.c's minimum fragment size, for ct(): IP bytes, headers
     * included. */
    if (ct && fi.more && ipf->cfg.min_frag[fi.key.is_ipv6]
        && fi.data_ofs - p->l3_ofs + (fi.end - fi.start)
           < ipf->cfg.min_frag[fi.key.is_ipv6]) {
        ipf_counter_add(&ipf->counters.too_small[fi.key.is_ipv6], 1);
        ipf_drop(ipf, p, IPF_DROP_MIN_FRAG);
        ipf_publish_gauges(ipf);
        return NULL;
    }

    hash = hash_bytes(&fi.key, sizeof fi.key, 0);
    q = ipf_queue_find(ipf, &fi.key, hash);
    if (q && ipf_queue_expired(ipf, q, now_ms)) {
        /* ipf_cpu_run() has not run since this queue expired. */
        ipf_family_add(ipf->counters.expired, q->key.ct, q->key.is_ipv6,
                       q->n_frags);
        ipf_queue_destroy(ipf, q);
        ipf_counter_add(&ipf->counters.timed_out, 1);
        q = NULL;
    }
    if (q) {
        out = ipf_queue_add(ipf, q, p, &fi, now_ms);
    } else {
        recent = ipf_recent_find(ipf, &fi.key, hash, now_ms);
        if (recent) {
            ipf_drop(ipf, p, recent->reason);
        } else {
            out = ipf_queue_start(ipf, p, &fi, hash, now_ms);
        }
    }
    ipf_publish_gauges(ipf);
    return out;
}

/* Offers packet 'p' to 'ipf', taking ownership of it, as ipf_cpu_reassemble()
 * does, for ct() in conntrack zone 'zone': OVS's ipf.c's limits apply,
 * 'min_frag' and 'max_frags', and its per-family counters count (struct
 * ipf_cpu_family_stats).  Its datagram is keyed by 'zone' and
 * 'p->md.recirc_id' too, as ipf.c keys it, and never joins one held for
 * the other use (a tunnel's), so that each use's fragments count against
 * its own limits only. */
struct dp_packet *
ipf_cpu_reassemble_ct(struct ipf_cpu *ipf, struct dp_packet *p,
                      long long int now_ms, uint16_t zone)
{
    return ipf_reassemble(ipf, p, now_ms, true, zone);
}

/* Frees the queues that have outlived the timeout at 'now_ms', oldest
 * first, at most 'max' of them, and returns how many it freed.  Called by
 * the owner; looks only at the oldest queues, so it costs one comparison
 * when nothing expires, and at most 'max' queue frees when much does: a
 * busy thread calls it every round with a small 'max', so that datagrams
 * time out under load too without a round paying for a whole table. */
size_t
ipf_cpu_expire(struct ipf_cpu *ipf, long long int now_ms, size_t max)
{
    struct ipf_cpu_queue *q;
    size_t n = 0;

    LIST_FOR_EACH_SAFE (q, age_node, &ipf->age) {
        if (n >= max || !ipf_queue_expired(ipf, q, now_ms)) {
            break;
        }
        ipf_family_add(ipf->counters.expired, q->key.ct, q->key.is_ipv6,
                       q->n_frags);
        ipf_queue_destroy(ipf, q);
        ipf_counter_add(&ipf->counters.timed_out, 1);
        n++;
    }
    if (n) {
        ipf_publish_gauges(ipf);
    }
    return n;
}

/* Frees every queue that has outlived the timeout at 'now_ms'.  Called by
 * the owner. */
void
ipf_cpu_run(struct ipf_cpu *ipf, long long int now_ms)
{
    ipf_cpu_expire(ipf, now_ms, SIZE_MAX);
}

/* Returns the size of the largest fragment, in IP bytes (its IP header
 * included; for IPv6 its fixed header and extension headers), of the
 * datagram that the last call of ipf_cpu_reassemble() on 'ipf' returned
 * whole, as Linux's frag_max_size.  A datapath that forwards the datagram
 * whole cuts it again to this size on output, so that it never sends a
 * packet larger than the sender did.  Called by the owner only, right
 * after that call. */
uint16_t
ipf_cpu_last_mru(const struct ipf_cpu *ipf)
{
    return ipf->last_mru;
}

/* Reads the counters of 'ipf' into 'stats'.  Any thread may call it. */
void
ipf_cpu_get_stats(const struct ipf_cpu *ipf_, struct ipf_cpu_stats *stats)
{
    struct ipf_cpu *ipf = CONST_CAST(struct ipf_cpu *, ipf_);
    struct ipf_cpu_counters *c = &ipf->counters;

    atomic_read_relaxed(&c->bytes_held, &stats->bytes_held);
    atomic_read_relaxed(&c->queues, &stats->queues);
    atomic_read_relaxed(&c->fragments_in, &stats->fragments_in);
    atomic_read_relaxed(&c->reassembled, &stats->reassembled);
    atomic_read_relaxed(&c->evicted, &stats->evicted);
    atomic_read_relaxed(&c->timed_out, &stats->timed_out);
    atomic_read_relaxed(&c->discarded, &stats->discarded);
    for (size_t i = 0; i < IPF_N_DROP_REASONS; i++) {
        atomic_read_relaxed(&c->drops[i], &stats->drops[i]);
    }
    atomic_read_relaxed(&c->frags_held, &stats->frags_held);
    for (size_t i = 0; i < 2; i++) {
        struct ipf_cpu_family_stats *f = &stats->family[i];

        atomic_read_relaxed(&c->accepted[i], &f->accepted);
        atomic_read_relaxed(&c->completed[i], &f->completed);
        atomic_read_relaxed(&c->expired[i], &f->expired);
        atomic_read_relaxed(&c->too_small[i], &f->too_small);
        atomic_read_relaxed(&c->overlap[i], &f->overlap);
        atomic_read_relaxed(&c->purged[i], &f->purged);
    }
}

/* Fills 'held' with up to 'max' of the datagrams 'ipf' holds for ct(), in
 * no particular order, and returns how many it filled.  Called by the owner
 * only (the queues are its own); see dp-ipf.c's dp_ipf_thread_run() for how
 * the main thread gets a table's list. */
size_t
ipf_cpu_snapshot(const struct ipf_cpu *ipf, struct ipf_cpu_held *held,
                 size_t max)
{
    const struct ipf_cpu_queue *q;
    size_t n = 0;

    HMAP_FOR_EACH (q, node, &ipf->queues) {
        struct ipf_cpu_held *h;

        if (n >= max) {
            break;
        }
        if (!q->key.ct) {
            continue;
        }
        h = &held[n++];
        h->src = q->key.src;
        h->dst = q->key.dst;
        h->id = ntohl(q->key.id);
        h->recirc_id = q->key.recirc_id;
        h->zone = q->key.zone;
        h->is_ipv6 = q->key.is_ipv6;
        h->proto = q->key.is_ipv6 ? q->frags[0].proto : q->key.proto;
        h->n_frags = q->n_frags;
        h->first_in = q->first_in;
        h->last_in = q->last_in;
    }
    return n;
}

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

#ifndef IPF_CPU_H
#define IPF_CPU_H 1

/* IPv4 and IPv6 fragment reassembly, one table per forwarding thread.
 *
 * Ownership
 * =========
 *
 * A 'struct ipf_cpu' belongs to one forwarding thread, its owner: its
 * reassembly queues, their LRU and age lists, its memory account and its
 * counters.  Only the owner calls ipf_cpu_reassemble(), ipf_cpu_run(),
 * ipf_cpu_expire() and ipf_cpu_set_config(), and those take no lock and do
 * no atomic read-modify-write.  Any thread may call ipf_cpu_get_stats():
 * the owner publishes its counters with relaxed atomic stores, readers load
 * them with relaxed atomic loads, so a reader sees each counter whole but
 * the set of counters is not a snapshot.  ipf_cpu_create() and
 * ipf_cpu_destroy() are called by whoever sets up and tears down the owner,
 * while the owner is not using the table.
 *
 * Fragments of one datagram that arrive on different threads go into
 * different tables and are never joined: each thread's partial queue times
 * out (or is evicted).  So the datapath must bring a datagram's fragments
 * to one thread.  Receive-side scaling does when the NIC hashes IP fragments
 * on their addresses alone, as NICs commonly do since only the first
 * fragment carries L4 ports; a receive queue hashed otherwise, or a port
 * whose packets are spread in software, needs steering by (source,
 * destination) for fragments before they reach this module.
 *
 * The model is Linux's net/ipv4/inet_fragment.c, ip_fragment.c and
 * net/ipv6/reassembly.c, with these choices:
 *
 * Queue key
 * ---------
 *
 * A datagram is identified by (IP version, source, destination, IP ID, and
 * for IPv4 the protocol), as in Linux, plus the packet metadata that keeps
 * distinct networks apart: md.in_port and, when the packet came out of a
 * tunnel (flow_tnl_dst_is_set()), the tunnel's outer source and destination
 * (IPv4 or IPv6) and tunnel ID.  Two tenants on one pair of tunnel endpoints,
 * or two ports, never mix fragments.
 *
 * And by its use: a fragment offered for ct() (ipf_cpu_reassemble_ct())
 * is keyed by its conntrack zone and md.recirc_id too, as OVS's ipf.c keys
 * its lists, so that one datagram seen in two zones, or at two
 * recirculations, is reassembled once in each; and it never joins a
 * datagram held for the other use (ipf_cpu_reassemble(): a tunnel's outer
 * fragments, keyed without zone or recirc_id), nor the other way round, so
 * that ct()'s limits and counters see all of ct()'s fragments and none of
 * a tunnel's.  Both uses share the table's memory account and its LRU.
 *
 * Overlaps (RFC 5722, Linux since the CVE-2018-5391 hardening)
 * -------------------------------------------------------------
 *
 * A fragment whose bytes are all already held, with no gap (an exact
 * duplicate, or a fragment inside held ones), is a duplicate: it alone is
 * dropped (IPF_DROP_DUPLICATE) and the queue lives on, as Linux returns
 * IPFRAG_DUP.  Any other overlap discards the whole datagram, for IPv4 as for
 * IPv6 (IPF_DROP_OVERLAP), as Linux's IPFRAG_OVERLAP does.  Linux calls a
 * fragment a duplicate only when it lies within one "run" of fragments that
 * arrived contiguously, which depends on arrival order; this module uses the
 * order-independent rule above, which agrees with Linux whenever the held
 * fragments that cover the duplicate arrived in order.
 *
 * A datagram discarded whole (overlap, too many fragments, contradictory
 * lengths, oversize) is remembered for a short while, like a completed one
 * (see "Recently finished datagrams" below), so that its remaining fragments
 * are dropped on arrival, with the same reason, instead of starting a new
 * queue that could only time out.  (Linux unhashes the queue, so there a
 * later fragment starts a new queue.)  RFC 5722 asks for exactly this: "the
 * entire datagram (and any constituent fragments) MUST be silently
 * discarded".
 *
 * Drop reasons
 * ------------
 *
 * - IPF_DROP_TINY: RFC 1858 and RFC 7112.  The first fragment (offset 0) must
 *   hold the whole IPv6 extension header chain and the transport header's
 *   fixed part: 20 bytes for TCP, 12 for SCTP, 8 for UDP, ICMP, ICMPv6 and
 *   ESP (the smallest non-last fragment holds 8 bytes anyway).  A TCP
 *   fragment at offset 8 (RFC 1858's "fragment offset of 1") is tiny too.
 *   Only the fragment is dropped; the queue, if any, ages out.
 * - IPF_DROP_OVERSIZE: the fragment ends beyond 65535 bytes of IPv4 datagram
 *   (header included) or of IPv6 payload (headers after the fixed one
 *   included), or the reassembled frame, L2 header included, would exceed
 *   65535 bytes: OVS 3.1's dp_packet records its allocation in 16 bits.  (So
 *   an IPv4 datagram in an Ethernet frame reassembles up to 65521 bytes.)
 * - IPF_DROP_TOO_MANY: a datagram may be made of at most IPF_CPU_MAX_FRAGS
 *   fragments; the next one discards it.
 * - IPF_DROP_MALFORMED: a bad header (IPv4 IHL, lengths, header checksum;
 *   IPv6 payload length, truncated fragment header), an empty fragment, a
 *   non-last fragment whose length is not a multiple of 8 (Linux trims IPv4
 *   ones instead; RFC 8200 requires the drop for IPv6), dropped alone; or a
 *   fragment that contradicts the datagram's known end (data beyond the last
 *   fragment, or two different last fragments), which discards the datagram
 *   as Linux does.
 * - IPF_DROP_MIN_FRAG: for ct() (ipf_cpu_reassemble_ct()), a fragment
 *   other than the last with fewer IP bytes (headers included) than the
 *   family's 'min_frag', as OVS's ipf.c's minimum fragment size
 *   (dpctl/ipf-set-min-frag); dropped alone.
 * - IPF_DROP_MAX_FRAGS: for ct(), a fragment to be held while 'max_frags'
 *   are held in queues for ct() (the thread's share of
 *   dpctl/ipf-set-max-nfrags); dropped alone.  ipf.c's limits are for
 *   conntrack only: neither applies to other fragments (a tunnel's outer
 *   ones), which only memory bounds.  A fragment that completes its
 *   datagram is not held, and never refused for it.
 *
 * Memory
 * ------
 *
 * The account holds the true size of what is held: for each fragment its
 * buffer (dp_packet_get_allocated()) plus its struct dp_packet, and for each
 * queue its own struct and its fragment array.  (The table's fixed part,
 * about 8 KiB, is not counted.)  Before a fragment is held, if
 * the account would exceed the high threshold, least-recently-used queues
 * (whole datagrams; a queue is "used" when it gains a fragment) other than
 * the fragment's own are evicted until the account is at most the low
 * threshold; if the fragment still does not fit, it is dropped
 * (IPF_DROP_MEMORY).  The account never exceeds the high threshold.  A
 * fragment that completes its datagram is never refused for memory: it is
 * not held, and the datagram's memory is released at once.
 *
 * Timeout
 * -------
 *
 * A queue lives at most the timeout after its first fragment, as in Linux.
 * The owner frees expired queues with ipf_cpu_run() (all of them) or
 * ipf_cpu_expire() (at most a given number, oldest first: what a busy
 * thread can afford in one polling round); a fragment that finds its
 * queue expired frees it too.
 *
 * Recently finished datagrams
 * ---------------------------
 *
 * The table remembers the keys of the last IPF_CPU_RECENT_MAX datagrams it
 * completed or discarded, for at most IPF_CPU_RECENT_MS (or the timeout, if
 * shorter).  A fragment of one of them that arrives in that window is dropped
 * (IPF_DROP_COMPLETE for a completed datagram, the discarding reason
 * otherwise).  The window is kept short because a sender that picks IPv4 IDs
 * at random can legitimately reuse one soon: with sequential IDs, a flow
 * needs 65536 datagrams between two uses of an ID, which overwrite this
 * small record long before. */

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dp_packet;
struct ipf_cpu;

/* Default memory thresholds, in bytes, from DESIGN.md section 6: high
 * 2 MiB per thread, and a low threshold 128 KiB below it, so that one
 * eviction round frees room for dozens of fragments before the next.  (Linux's
 * per-netns defaults, ipfrag_high_thresh and ipfrag_low_thresh, are 4 MiB
 * and 3 MiB.) */
#define IPF_CPU_DEFAULT_HIGH_THRESH (2 * 1024 * 1024)
#define IPF_CPU_DEFAULT_LOW_THRESH (IPF_CPU_DEFAULT_HIGH_THRESH - 128 * 1024)

/* Default lifetime of a reassembly queue, in ms: Linux's ipfrag_time. */
#define IPF_CPU_DEFAULT_TIMEOUT_MS (30 * 1000)

/* Largest timeout ipf_cpu_config_check() accepts, in ms: RFC 791 suggests
 * 15 s, Linux 30 s; beyond 10 minutes, held fragments only waste memory. */
#define IPF_CPU_MAX_TIMEOUT_MS (10 * 60 * 1000)

/* Most fragments one datagram may have.  A 64 KiB datagram over IPv6's
 * minimum MTU of 1280 bytes needs 52; senders fragmenting smaller than that
 * are on rare links or attacking with tiny fragments, which cost a held
 * dp_packet each.  Linux has no such limit but bounds memory only. */
#define IPF_CPU_MAX_FRAGS 64

/* How many recently completed or discarded datagrams a table remembers, and
 * for how long at most, in ms.  See "Recently finished datagrams" above. */
#define IPF_CPU_RECENT_MAX 64
#define IPF_CPU_RECENT_MS 1000

/* A table's limits. */
struct ipf_cpu_config {
    size_t high_thresh;         /* Most bytes held, see "Memory" above. */
    size_t low_thresh;          /* Evict down to this; below high_thresh. */
    long long int timeout_ms;   /* A queue's lifetime after its first
                                 * fragment, in ms. */
    uint32_t min_frag[2];       /* By family (0 IPv4, 1 IPv6): a fragment
                                 * other than the last with fewer IP bytes
                                 * (headers included) is dropped for ct()
                                 * (IPF_DROP_MIN_FRAG); 0 for no minimum. */
    size_t max_frags;           /* Most fragments held in queues for
                                 * ct(); one more is dropped
                                 * (IPF_DROP_MAX_FRAGS).  SIZE_MAX: no
                                 * limit but memory. */
};

char *ipf_cpu_config_check(const struct ipf_cpu_config *);
void ipf_cpu_config_default(struct ipf_cpu_config *);

/* Why a fragment was dropped.  Each counts fragments, in
 * ipf_cpu_stats.drops[]. */
enum ipf_cpu_drop_reason {
    IPF_DROP_OVERLAP,       /* Overlaps held bytes: datagram discarded. */
    IPF_DROP_DUPLICATE,     /* All its bytes are already held. */
    IPF_DROP_TINY,          /* First fragment without the L4 header. */
    IPF_DROP_OVERSIZE,      /* Datagram would exceed 65535 bytes. */
    IPF_DROP_TOO_MANY,      /* More than IPF_CPU_MAX_FRAGS fragments. */
    IPF_DROP_COMPLETE,      /* Its datagram was reassembled recently. */
    IPF_DROP_MALFORMED,     /* Bad header or contradictory lengths. */
    IPF_DROP_MEMORY,        /* No room even after eviction. */
    IPF_DROP_MIN_FRAG,      /* Not last and under min_frag bytes. */
    IPF_DROP_MAX_FRAGS,     /* max_frags fragments already held. */
    IPF_N_DROP_REASONS
};

const char *ipf_cpu_drop_reason_to_string(enum ipf_cpu_drop_reason);

/* Counters of one address family, in fragments, with the meaning of
 * OVS's ipf.c counters of the same names (dpctl/ipf-get-status): of the
 * datagrams reassembled for ct() only. */
struct ipf_cpu_family_stats {
    uint64_t accepted;          /* Fragments taken into a datagram (held,
                                 * or completing it). */
    uint64_t completed;         /* Fragments of reassembled datagrams. */
    uint64_t expired;           /* Fragments of datagrams timed out. */
    uint64_t too_small;         /* Dropped for min_frag. */
    uint64_t overlap;           /* Dropped as overlapping held data
                                 * (overlaps and duplicates). */
    uint64_t purged;            /* Held fragments freed otherwise: their
                                 * datagram evicted or discarded. */
};

/* A table's counters, as ipf_cpu_get_stats() reads them. */
struct ipf_cpu_stats {
    /* Gauges. */
    uint64_t bytes_held;        /* The memory account, in bytes. */
    uint64_t queues;            /* Datagrams being reassembled. */
    uint64_t frags_held;        /* Fragments held in queues for ct(). */

    /* Counters since creation. */
    uint64_t fragments_in;      /* Fragments offered. */
    uint64_t reassembled;       /* Datagrams completed and returned. */
    uint64_t evicted;           /* Datagrams evicted for memory. */
    uint64_t timed_out;         /* Datagrams that timed out. */
    uint64_t discarded;         /* Datagrams discarded whole because of a
                                 * bad fragment (overlap, too many, ...). */
    uint64_t drops[IPF_N_DROP_REASONS]; /* Fragments dropped on arrival. */
    struct ipf_cpu_family_stats family[2]; /* By family: 0 IPv4, 1 IPv6. */
};

struct ipf_cpu *ipf_cpu_create(const struct ipf_cpu_config *);
void ipf_cpu_destroy(struct ipf_cpu *);
void ipf_cpu_set_config(struct ipf_cpu *, const struct ipf_cpu_config *);

struct dp_packet *ipf_cpu_reassemble(struct ipf_cpu *, struct dp_packet *,
                                     long long int now_ms);
struct dp_packet *ipf_cpu_reassemble_ct(struct ipf_cpu *, struct dp_packet *,
                                        long long int now_ms, uint16_t zone);
void ipf_cpu_run(struct ipf_cpu *, long long int now_ms);
size_t ipf_cpu_expire(struct ipf_cpu *, long long int now_ms, size_t max);
uint16_t ipf_cpu_last_mru(const struct ipf_cpu *);

void ipf_cpu_get_stats(const struct ipf_cpu *, struct ipf_cpu_stats *);

/* One datagram held for ct(), as ipf_cpu_snapshot() lists it (what OVS's
 * ipf.c's dpctl/ipf-get-status -m shows of a fragment list). */
struct ipf_cpu_held {
    struct in6_addr src;        /* IP source (IPv4: v4-mapped). */
    struct in6_addr dst;        /* IP destination (IPv4: v4-mapped). */
    uint32_t id;                /* IP identification. */
    uint32_t recirc_id;         /* Its fragments' md.recirc_id. */
    uint16_t zone;              /* The ct() zone it was held for. */
    uint8_t is_ipv6;            /* 1 for IPv6, 0 for IPv4. */
    uint8_t proto;              /* IPv4 protocol, or the IPv6 fragment
                                 * header's next header. */
    uint32_t n_frags;           /* Fragments held. */
    bool first_in;              /* The first fragment is held. */
    bool last_in;               /* The last fragment is held. */
};

size_t ipf_cpu_snapshot(const struct ipf_cpu *, struct ipf_cpu_held *,
                        size_t max);

#endif /* ipf-cpu.h */

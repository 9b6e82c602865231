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

#ifndef IP_IDENT_H
#define IP_IDENT_H 1

/* The identification of the IPv4 and IPv6 datagrams a forwarding thread
 * originates (a tunnel's outer headers), chosen so that no two threads of
 * a datapath give one destination the same identification, and so that
 * none can be guessed from outside.
 *
 * The threads' spaces
 * ===================
 *
 * A datapath's threads that exist are ranked 0 to N - 1 (the caller says
 * which rank a thread has, and N, and may change them as threads start and
 * stop).  A thread of rank R gives IPv4 datagrams IDs in its own part of
 * the 16-bit space, [R * S, R * S + S) with S = 65536 / N, and IPv6
 * datagrams identifications that are the images, under one keyed
 * permutation of the 32-bit space shared by the datapath's threads, of
 * numbers that are R modulo N: the threads' identifications never meet.
 * Linux's CPUs share one counter per destination instead, with an atomic
 * add on every datagram, which the per-packet path here does not do.
 *
 * IPv4, as Linux's ip_select_ident() (net/ipv4/route.c)
 * ====================================================
 *
 * A keyed hash (SipHash-2-4 with the datapath's random 128-bit key, as
 * Linux keys it per network namespace) of the destination, the source and
 * the protocol picks one of IP_IDENT_BUCKETS counters of the thread, each
 * starting at a random value.  A datagram takes its counter's value,
 * within the thread's part of the space, and moves it on by one; a counter
 * unused for a while first moves on by a random number below the
 * milliseconds it was idle (Linux's perturbation, by jiffies), so that
 * one destination's IDs say little about how much was sent to another
 * that shares the bucket.  One destination sees consecutive IDs, as RFC
 * 6864 and Linux give it, for S datagrams before they repeat.
 *
 * IPv6, as Linux's ipv6_select_ident() (net/ipv6/output_core.c)
 * ============================================================
 *
 * Linux draws a random non-zero 32-bit identification for each fragmented
 * datagram.  Here the thread's counter, from a random start, taken to a
 * number that is its rank modulo N, goes through a four-round Feistel
 * permutation of 32 bits whose round function is SipHash with the
 * datapath's key: as unpredictable, non-zero too, never the same from two
 * threads, and from one thread only after 2^32 / N datagrams.
 *
 * Threads: ip_ident_key_init() and ip_ident_create() are called by
 * whoever sets up the threads; a 'struct ip_ident' is then its thread's
 * own, and ip_ident_v4() and ip_ident_v6() write only it. */

#include <netinet/in.h>
#include <stdint.h>

#include "openvswitch/types.h"

/* Counters one thread keeps for IPv4 destinations: a power of two. */
#define IP_IDENT_BUCKETS 1024

/* A datapath's key, shared by its threads' generators. */
struct ip_ident_key {
    uint64_t k[2];
};

struct ip_ident;

void ip_ident_key_init(struct ip_ident_key *);
struct ip_ident *ip_ident_create(const struct ip_ident_key *);
void ip_ident_destroy(struct ip_ident *);

ovs_be16 ip_ident_v4(struct ip_ident *, unsigned int rank,
                     unsigned int n_ranks, ovs_be32 src, ovs_be32 dst,
                     uint8_t proto, long long int now_ms);
ovs_be32 ip_ident_v6(struct ip_ident *, unsigned int rank,
                     unsigned int n_ranks);

uint64_t ip_ident_siphash(const struct ip_ident_key *, const void *,
                          size_t);

#endif /* ip-ident.h */

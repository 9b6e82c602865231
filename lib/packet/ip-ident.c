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

/* The IP identifications a forwarding thread chooses for its datagrams. */

#include <config.h>
#include "ip-ident.h"

#include <string.h>

#include "entropy.h"
#include "openvswitch/util.h"
#include "random.h"
#include "util.h"

BUILD_ASSERT_DECL(IS_POW2(IP_IDENT_BUCKETS));

/* The IPv4 ID space, and the IPv6 one. */
#define IP_IDENT_V4_SPACE 65536u
#define IP_IDENT_V6_SPACE (UINT64_C(1) << 32)

/* Rounds of the IPv6 identification's Feistel permutation: four make a
 * strong pseudo-random permutation of a PRF (Luby and Rackoff). */
#define IP_IDENT_FEISTEL_ROUNDS 4

/* One IPv4 counter. */
struct ip_ident_bucket {
    uint32_t next;              /* The next ID's offset in the thread's
                                 * part of the space (taken modulo its
                                 * size, which may have shrunk). */
    uint32_t stamp;             /* When last used, in ms (wrapping). */
};

/* One thread's generator.  Written only by its thread. */
struct ip_ident {
    struct ip_ident_key key;    /* The datapath's key. */
    uint32_t v6_next;           /* The thread's IPv6 counter. */
    struct ip_ident_bucket buckets[IP_IDENT_BUCKETS];
};

/* SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
 * 2012), written from the paper: a keyed function whose outputs cannot be
 * told from random ones, nor its key found, from any number of chosen
 * inputs and their outputs. */

static inline uint64_t
rotl64(uint64_t x, int n)
{
    return (x << n) | (x >> (64 - n));
}

/* Reads 'n' (at most 8) bytes at 'p' as a little-endian number. */
static inline uint64_t
load_le(const uint8_t *p, size_t n)
{
    uint64_t x = 0;

    for (size_t i = 0; i < n; i++) {
        x |= (uint64_t) p[i] << (8 * i);
    }
    return x;
}

/* One SipRound on the state 'v'. */
static inline void
sip_round(uint64_t v[4])
{
    v[0] += v[1];
    v[1] = rotl64(v[1], 13);
    v[1] ^= v[0];
    v[0] = rotl64(v[0], 32);
    v[2] += v[3];
    v[3] = rotl64(v[3], 16);
    v[3] ^= v[2];
    v[0] += v[3];
    v[3] = rotl64(v[3], 21);
    v[3] ^= v[0];
    v[2] += v[1];
    v[1] = rotl64(v[1], 17);
    v[1] ^= v[2];
    v[2] = rotl64(v[2], 32);
}

/* Returns SipHash-2-4 of the 'n' bytes at 'data' under 'key' (its k[0] the
 * key's first 8 bytes read little-endian, k[1] the next 8). */
uint64_t
ip_ident_siphash(const struct ip_ident_key *key, const void *data, size_t n)
{
    const uint8_t *p = data;
    uint64_t v[4] = {
        key->k[0] ^ UINT64_C(0x736f6d6570736575),
        key->k[1] ^ UINT64_C(0x646f72616e646f6d),
        key->k[0] ^ UINT64_C(0x6c7967656e657261),
        key->k[1] ^ UINT64_C(0x7465646279746573),
    };
    size_t left = n;
    uint64_t m;

    for (; left >= 8; p += 8, left -= 8) {
        m = load_le(p, 8);
        v[3] ^= m;
        sip_round(v);
        sip_round(v);
        v[0] ^= m;
    }
    m = load_le(p, left) | ((uint64_t) (n & 0xff) << 56);
    v[3] ^= m;
    sip_round(v);
    sip_round(v);
    v[0] ^= m;
    v[2] ^= 0xff;
    for (int i = 0; i < 4; i++) {
        sip_round(v);
    }
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* Fills 'key' with random bytes from the system's entropy source. */
void
ip_ident_key_init(struct ip_ident_key *key)
{
    get_entropy_or_die(key, sizeof *key);
}

/* Returns a new generator for one thread with the datapath's 'key', its
 * counters at random starting points.  The caller gives it to one thread,
 * which alone uses it from then on. */
struct ip_ident *
ip_ident_create(const struct ip_ident_key *key)
{
    struct ip_ident *ident = xzalloc(sizeof *ident);
    uint16_t starts[IP_IDENT_BUCKETS];

    ident->key = *key;
    get_entropy_or_die(starts, sizeof starts);
    for (size_t i = 0; i < IP_IDENT_BUCKETS; i++) {
        ident->buckets[i].next = starts[i];
    }
    get_entropy_or_die(&ident->v6_next, sizeof ident->v6_next);
    return ident;
}

/* Frees 'ident'.  Accepts NULL. */
void
ip_ident_destroy(struct ip_ident *ident)
{
    free(ident);
}

/* Makes 'n_ranks' at least 1 and at most the IPv4 space, whose every
 * part must hold an ID, and 'rank' below it. */
static void
ip_ident_check_rank(unsigned int *rank, unsigned int *n_ranks)
{
    *n_ranks = MAX(1, MIN(*n_ranks, IP_IDENT_V4_SPACE));
    *rank %= *n_ranks;
}

/* Returns the ID, in network byte order, of the next IPv4 datagram the
 * thread of rank 'rank' among 'n_ranks' sends from 'src' to 'dst' with
 * protocol 'proto', at 'now_ms'; see "IPv4" above.  Its thread only. */
ovs_be16
ip_ident_v4(struct ip_ident *ident, unsigned int rank, unsigned int n_ranks,
            ovs_be32 src, ovs_be32 dst, uint8_t proto, long long int now_ms)
{
    uint32_t words[3] = { dst, src, proto };
    uint32_t now = now_ms;
    struct ip_ident_bucket *b;
    uint32_t span, offset;

    ip_ident_check_rank(&rank, &n_ranks);
    span = IP_IDENT_V4_SPACE / n_ranks;
    b = &ident->buckets[ip_ident_siphash(&ident->key, words, sizeof words)
                        & (IP_IDENT_BUCKETS - 1)];
    offset = b->next;
    if (b->stamp != now) {
        uint32_t idle = now - b->stamp;

        /* Idle: move on by a random number below the milliseconds it
         * was idle, at most the whole part. */
        offset += random_range(MIN(idle, span));
        b->stamp = now;
    }
    offset %= span;
    b->next = offset + 1;
    return htons(rank * span + offset);
}

/* The four-round Feistel permutation of 32 bits, keyed with 'key'. */
static uint32_t
ip_ident_permute(const struct ip_ident_key *key, uint32_t x)
{
    uint16_t l = x >> 16, r = x;

    for (uint32_t round = 0; round < IP_IDENT_FEISTEL_ROUNDS; round++) {
        uint32_t in = (round << 16) | r;
        uint16_t f = ip_ident_siphash(key, &in, sizeof in);
        uint16_t next_r = l ^ f;

        l = r;
        r = next_r;
    }
    return ((uint32_t) l << 16) | r;
}

/* Returns the identification, in network byte order, of the next IPv6
 * datagram the thread of rank 'rank' among 'n_ranks' fragments; see "IPv6"
 * above.  Never 0, as Linux's.  Its thread only. */
ovs_be32
ip_ident_v6(struct ip_ident *ident, unsigned int rank, unsigned int n_ranks)
{
    uint64_t per_rank;
    uint32_t id;

    ip_ident_check_rank(&rank, &n_ranks);
    per_rank = IP_IDENT_V6_SPACE / n_ranks;
    do {
        uint64_t x = ident->v6_next++ % per_rank;

        /* Below 2^32: the rank's own numbers, never another's. */
        id = ip_ident_permute(&ident->key, x * n_ranks + rank);
    } while (!id);
    return htonl(id);
}

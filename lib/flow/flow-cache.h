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

#ifndef FLOW_CACHE_H
#define FLOW_CACHE_H 1

/* A forwarding thread's exact-match cache (EMC) in front of the shared
 * megaflow table.
 *
 * It has five tables.  A packet of the commonest shapes (header-key.h),
 * straight from a port, is looked up by its header key: an IPv4 one in a
 * table of 64 bytes an entry (the 48 bytes of headers it is compared on,
 * the megaflow, the hash and port), an IPv6 one in a table of 128 bytes an
 * entry (64 bytes of headers).  A packet a tunnel vport decapsulated, whose
 * inner frame has one of those shapes and whose tunnel metadata a tunnel
 * header key covers (header_key_fill_tunnel()), is looked up by that key:
 * with IPv4 outer addresses in a third table of 128 bytes an entry (112
 * bytes of headers and metadata), with IPv6 ones in a fourth of 192 bytes
 * an entry (136 bytes).  Any other packet (recirculated, with IPv6
 * extension headers, with Geneve options beyond the key's bound, ...) is
 * looked up by its miniflow, as in dpif-netdev, at about 700 bytes an
 * entry, once its miniflow is extracted.
 *
 * Each thread owns one cache, and only that thread reads or writes it, so it
 * needs no lock.  An entry maps a packet's full key to a megaflow and holds a
 * reference to it, so that the megaflow outlives RCU grace periods while
 * cached.  A megaflow removed from the table is dropped from the cache the
 * next time a lookup or the incremental sweep meets it; the sweep runs only
 * while the table has removed megaflows its last pass has not seen. */

#include <stddef.h>

#include "flow-table.h"
#include "header-key.h"
#include "packet-key.h"
#include "util.h"

/* Number of entries of the miniflow table: a power of two.  8192 entries
 * of about 700 bytes each is what OVS's dpif-netdev uses per PMD thread. */
#define FLOW_CACHE_ENTRIES (1u << 13)
#define FLOW_CACHE_MASK (FLOW_CACHE_ENTRIES - 1)

/* Bits of the key hash consumed by each of the two candidate positions in
 * the miniflow table. */
#define FLOW_CACHE_SHIFT 13

/* Number of entries of each header-key table: a power of two, at least
 * FLOW_CACHE_ENTRIES.  A header entry is 64 to 192 bytes against a
 * miniflow entry's 704, so the IPv4 table holds twice the miniflow table's
 * entries in less than a fifth of its memory.  Twice is where a
 * decapsulated OVN flow's two keys (the outer frame's and the inner one's,
 * in two tables) stop falling out of the cache once a thread sees more
 * than 8192 flows (the benchmark's Geneve input scenario). */
#define FLOW_CACHE_HEADER_ENTRIES (1u << 14)
#define FLOW_CACHE_HEADER_MASK (FLOW_CACHE_HEADER_ENTRIES - 1)
#define FLOW_CACHE_HEADER_SHIFT 14
BUILD_ASSERT_DECL(FLOW_CACHE_HEADER_ENTRIES >= FLOW_CACHE_ENTRIES);

struct flow_cache_entry {
    struct megaflow *flow;      /* Referenced megaflow, or NULL if empty. */
    struct packet_key key;      /* Key of the packet that installed it. */
};

/* The part of a header key's entry that comes before the key's words, and
 * that the code common to both header tables works on.  The words follow
 * it (flow_cache_header_entry_words()). */
struct flow_cache_header_entry {
    struct megaflow *flow;      /* Referenced megaflow, or NULL if empty. */
    uint32_t hash;              /* Header key of the packet that installed */
    uint32_t in_port;           /* it: its hash, port and (below) words. */
};

/* One 64-byte line: what an IPv4 packet of header-key.h's shapes is
 * compared on, and the megaflow it hit. */
struct flow_cache_ipv4_entry {
    struct flow_cache_header_entry header;
    uint64_t words[HEADER_KEY_IPV4_WORDS];
};
BUILD_ASSERT_DECL(sizeof(struct flow_cache_ipv4_entry) == 64);

/* Two 64-byte lines: the same for an IPv6 packet. */
struct flow_cache_ipv6_entry {
    struct flow_cache_header_entry header;
    uint64_t words[HEADER_KEY_IPV6_WORDS];
    uint8_t pad[48];            /* To two whole lines. */
};
BUILD_ASSERT_DECL(sizeof(struct flow_cache_ipv6_entry) == 128);

/* Two 64-byte lines: the same for a decapsulated packet's tunnel header
 * key. */
struct flow_cache_tnl_entry {
    struct flow_cache_header_entry header;
    uint64_t words[HEADER_KEY_TNL_WORDS];
};
BUILD_ASSERT_DECL(sizeof(struct flow_cache_tnl_entry) == 128);

/* Three 64-byte lines: the same for a tunnel header key with IPv6 outer
 * addresses. */
struct flow_cache_tnl6_entry {
    struct flow_cache_header_entry header;
    uint64_t words[HEADER_KEY_TNL6_WORDS];
    uint8_t pad[40];            /* To three whole lines. */
};
BUILD_ASSERT_DECL(sizeof(struct flow_cache_tnl6_entry) == 192);
BUILD_ASSERT_DECL(offsetof(struct flow_cache_tnl6_entry, words)
                  == sizeof(struct flow_cache_header_entry));
BUILD_ASSERT_DECL(offsetof(struct flow_cache_tnl_entry, words)
                  == sizeof(struct flow_cache_header_entry));
BUILD_ASSERT_DECL(offsetof(struct flow_cache_ipv4_entry, words)
                  == sizeof(struct flow_cache_header_entry));
BUILD_ASSERT_DECL(offsetof(struct flow_cache_ipv6_entry, words)
                  == sizeof(struct flow_cache_header_entry));

struct flow_cache {
    struct flow_cache_ipv4_entry ipv4_entries[FLOW_CACHE_HEADER_ENTRIES];
    struct flow_cache_ipv6_entry ipv6_entries[FLOW_CACHE_HEADER_ENTRIES];
    struct flow_cache_tnl_entry tnl_entries[FLOW_CACHE_HEADER_ENTRIES];
    struct flow_cache_tnl6_entry tnl6_entries[FLOW_CACHE_HEADER_ENTRIES];
    struct flow_cache_entry entries[FLOW_CACHE_ENTRIES];
    size_t sweep_pos;           /* Next position flow_cache_sweep() checks,
                                 * in every table that has it. */
    uint64_t pass_removed;      /* The table's flow_table_n_removed() when
                                 * the current sweep pass began. */
    uint64_t swept_removed;     /* ...when the last whole pass began. */
};

void flow_cache_entry_clear(struct flow_cache_entry *);
void flow_cache_header_entry_clear(struct flow_cache_header_entry *);

/* Returns candidate position 'i' (0 or 1) of 'hash' in 'cache'. */
static inline struct flow_cache_entry *
flow_cache_candidate(struct flow_cache *cache, uint32_t hash, int i)
{
    return &cache->entries[(hash >> (i * FLOW_CACHE_SHIFT)) & FLOW_CACHE_MASK];
}

/* Returns the megaflow cached for 'key', or NULL.  Inline, because it runs
 * for every packet. */
static inline struct megaflow *
flow_cache_lookup(struct flow_cache *cache, const struct packet_key *key)
{
    for (int i = 0; i < 2; i++) {
        struct flow_cache_entry *e = flow_cache_candidate(cache, key->hash,
                                                          i);

        if (e->key.hash == key->hash && e->flow
            && packet_key_equal(&e->key, key)) {
            if (OVS_UNLIKELY(megaflow_is_dead(e->flow))) {
                flow_cache_entry_clear(e);
                return NULL;
            }
            return e->flow;
        }
    }
    return NULL;
}

/* Returns the key words that follow header entry 'e'. */
static inline const uint64_t *
flow_cache_header_entry_words(const struct flow_cache_header_entry *e)
{
    return (const uint64_t *) (e + 1);
}

/* Returns candidate position 'i' (0 or 1) of 'hash' in the table of
 * 'cache' for header keys of 'n_words'.  Inlined with 'n_words' a
 * constant. */
static inline ALWAYS_INLINE struct flow_cache_header_entry *
flow_cache_header_candidate__(struct flow_cache *cache, uint32_t hash, int i,
                              const uint32_t n_words)
{
    size_t index = ((hash >> (i * FLOW_CACHE_HEADER_SHIFT))
                    & FLOW_CACHE_HEADER_MASK);

    return (n_words == HEADER_KEY_IPV4_WORDS
            ? &cache->ipv4_entries[index].header
            : n_words == HEADER_KEY_IPV6_WORDS
            ? &cache->ipv6_entries[index].header
            : n_words == HEADER_KEY_TNL_WORDS
            ? &cache->tnl_entries[index].header
            : &cache->tnl6_entries[index].header);
}

/* Returns candidate position 'i' (0 or 1) of header key 'key' in 'cache',
 * in the table its 'n_words' says. */
static inline struct flow_cache_header_entry *
flow_cache_header_candidate(struct flow_cache *cache,
                            const struct header_key *key, int i)
{
    return flow_cache_header_candidate__(cache, key->hash, i, key->n_words);
}

/* Prefetches the lines where header key 'key' may be cached, for a
 * flow_cache_find_header() a little later. */
static inline void
flow_cache_prefetch_header(struct flow_cache *cache,
                           const struct header_key *key)
{
    for (int i = 0; i < 2; i++) {
        const struct flow_cache_header_entry *e
            = flow_cache_header_candidate(cache, key, i);

        const uint8_t *end
            = (const uint8_t *) (flow_cache_header_entry_words(e)
                                 + key->n_words);

        /* Every line the entry's key reaches into. */
        for (const uint8_t *line = (const uint8_t *) e; line < end;
             line += CACHE_LINE_SIZE) {
            OVS_PREFETCH(line);
        }
    }
}

/* Returns true if header entry 'e', of a table of 'n_words' keys, holds
 * the header key 'key'.  Inlined with 'n_words' a constant. */
static inline ALWAYS_INLINE bool
flow_cache_header_entry_matches(const struct flow_cache_header_entry *e,
                                const struct header_key *key,
                                const uint32_t n_words)
{
    const uint64_t *words = flow_cache_header_entry_words(e);
    uint64_t diff = ((uint64_t) e->hash ^ key->hash)
                    | ((uint64_t) e->in_port ^ key->in_port);

    for (int i = 0; i < n_words; i++) {
        diff |= words[i] ^ key->words[i];
    }
    return !diff;
}

/* flow_cache_find_header() for a key of 'n_words', a constant. */
static inline ALWAYS_INLINE struct flow_cache_header_entry *
flow_cache_find_header__(struct flow_cache *cache,
                         const struct header_key *key,
                         const uint32_t n_words)
{
    for (int i = 0; i < 2; i++) {
        struct flow_cache_header_entry *e
            = flow_cache_header_candidate__(cache, key->hash, i, n_words);

        if (flow_cache_header_entry_matches(e, key, n_words) && e->flow) {
            return e;
        }
    }
    return NULL;
}

/* Returns the entry of 'cache' that holds the header key 'key' and a
 * megaflow, or NULL.  Reads only the entries, not the megaflow, which the
 * caller may prefetch before flow_cache_header_entry_flow() reads it. */
static inline struct flow_cache_header_entry *
flow_cache_find_header(struct flow_cache *cache, const struct header_key *key)
{
    return (OVS_LIKELY(key->n_words == HEADER_KEY_IPV4_WORDS)
            ? flow_cache_find_header__(cache, key, HEADER_KEY_IPV4_WORDS)
            : key->n_words == HEADER_KEY_IPV6_WORDS
            ? flow_cache_find_header__(cache, key, HEADER_KEY_IPV6_WORDS)
            : key->n_words == HEADER_KEY_TNL_WORDS
            ? flow_cache_find_header__(cache, key, HEADER_KEY_TNL_WORDS)
            : flow_cache_find_header__(cache, key, HEADER_KEY_TNL6_WORDS));
}

/* Returns the megaflow of 'e', an entry flow_cache_find_header() found, or
 * NULL: if that megaflow has been removed (then 'e' is emptied), or if 'e'
 * was emptied since (by this call for another packet with the same key). */
static inline struct megaflow *
flow_cache_header_entry_flow(struct flow_cache_header_entry *e)
{
    struct megaflow *flow = e->flow;

    if (OVS_UNLIKELY(!flow)) {
        return NULL;            /* Emptied since it was found. */
    }
    if (OVS_UNLIKELY(megaflow_is_dead(flow))) {
        flow_cache_header_entry_clear(e);
        return NULL;
    }
    return flow;
}

/* Returns the megaflow cached for the header key 'key', or NULL. */
static inline struct megaflow *
flow_cache_lookup_header(struct flow_cache *cache,
                         const struct header_key *key)
{
    struct flow_cache_header_entry *e = flow_cache_find_header(cache, key);

    return e ? flow_cache_header_entry_flow(e) : NULL;
}

struct flow_cache *flow_cache_create(void);
void flow_cache_destroy(struct flow_cache *);

void flow_cache_insert(struct flow_cache *, const struct packet_key *,
                       struct megaflow *);
void flow_cache_insert_header(struct flow_cache *, const struct header_key *,
                              struct megaflow *);
void flow_cache_sweep(struct flow_cache *, uint64_t n_removed);
void flow_cache_flush(struct flow_cache *);

#endif /* flow-cache.h */

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

#ifndef PACKET_KEY_H
#define PACKET_KEY_H 1

/* The key of one received packet: its miniflow, as miniflow_extract() fills
 * it, with the buffer the miniflow's values live in.
 *
 * A packet key lives on the stack of the forwarding thread that received the
 * packet, or inside that thread's exact-match cache; it is never shared. */

#include <stdint.h>
#include <string.h>
#include "dp-packet.h"
#include "flow.h"
#include "hash.h"

struct packet_key {
    uint32_t hash;              /* Exact-match hash; see packet_key_init(). */
    uint32_t len;               /* Bytes of 'mf' in use, values included:
                                 * set in a cached copy (packet_key_copy()),
                                 * not in a received packet's key. */
    struct miniflow mf;         /* The packet's fields... */
    uint64_t buf[FLOW_U64S];    /* ...and the storage for their values. */
};

/* Extracts 'packet''s key into 'key', whose hash then covers the packet's
 * 5-tuple (the RSS hash, when the netdev supplied one) and its recirculation
 * depth 'recirc_depth', so that a recirculated packet gets its own entry in
 * the exact-match cache.  Leaves 'key->len' unset: counting the miniflow's
 * values costs two population counts per packet (software ones, in a
 * generic x86-64 build), and only a key copied into the cache needs it, as
 * dpif-netdev's EMC also computes it only then. */
static inline void
packet_key_init(struct packet_key *key, struct dp_packet *packet,
                uint32_t recirc_depth)
{
    uint32_t hash;

    miniflow_extract(packet, &key->mf);
    if (dp_packet_rss_valid(packet)) {
        hash = dp_packet_get_rss_hash(packet);
    } else {
        hash = miniflow_hash_5tuple(&key->mf, 0);
        dp_packet_set_rss_hash(packet, hash);
    }
    key->hash = recirc_depth ? hash_finish(hash, recirc_depth) : hash;
}

/* Returns true if the cached key 'cached' (packet_key_copy()'s, with its
 * 'len') and the packet's key 'key' (packet_key_init()'s) hold the same
 * fields with the same values.  Comparing 'cached->len' bytes is enough:
 * the maps come first, and two keys with equal maps have as many values.
 * It never reads beyond 'key', whose buffer has room for every value. */
static inline bool
packet_key_equal(const struct packet_key *cached,
                 const struct packet_key *key)
{
    return cached->hash == key->hash
           && !memcmp(&cached->mf, &key->mf, cached->len);
}

/* Copies the used part of the packet's key 'src' into the cached key
 * 'dst', with its length. */
static inline void
packet_key_copy(struct packet_key *dst, const struct packet_key *src)
{
    dst->hash = src->hash;
    dst->len = sizeof src->mf + 8 * miniflow_n_values(&src->mf);
    memcpy(&dst->mf, &src->mf, dst->len);
}

#endif /* packet-key.h */

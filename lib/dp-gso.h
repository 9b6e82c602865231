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

#ifndef DP_GSO_H
#define DP_GSO_H 1

/* The datapath's software segmentation accounts: one 'struct gso_stats'
 * (gso.h) per forwarding thread index, each on cache lines of its own, and
 * what gso-stats-show prints of them.
 *
 * Who owns what: thread 'i' alone writes its stats (passed to gso_segment()
 * and gso_complete_csum_or_drop() on output), with relaxed atomics; the
 * main thread reads them where they are, and owns the base a clear records
 * (under the datapath's 'reconfig_mutex'). */

#include <stddef.h>
#include <stdint.h>

#include "gso.h"

struct ds;
struct dp_gso;

/* The counters gso-stats-show prints, in that order: the name of each, and
 * the member of 'struct gso_stats' it reads. */
#define DP_GSO_COUNTERS                                                     \
    DP_GSO_COUNTER(DP_GSO_PACKETS, packets_segmented, "packets segmented")  \
    DP_GSO_COUNTER(DP_GSO_SEGMENTS, segments_out, "segments sent")          \
    DP_GSO_COUNTER(DP_GSO_CSUMS_COMPLETED, csums_completed,                 \
                   "checksums completed")                                   \
    DP_GSO_COUNTER(DP_GSO_DROP_NOT_TCP, drops[GSO_DROP_NOT_TCP],            \
                   "drop not tcp")                                          \
    DP_GSO_COUNTER(DP_GSO_DROP_MALFORMED, drops[GSO_DROP_MALFORMED],        \
                   "drop malformed")                                        \
    DP_GSO_COUNTER(DP_GSO_DROP_TOO_MANY, drops[GSO_DROP_TOO_MANY_SEGS],     \
                   "drop too many segments")                                \
    DP_GSO_COUNTER(DP_GSO_DROP_BAD_CSUM, drops[GSO_DROP_BAD_CSUM_REQUEST],  \
                   "drop checksum not completable")                         \
    DP_GSO_COUNTER(DP_GSO_TSO_WHOLE, tso_sent_whole,                        \
                   "tso packets sent whole")                                \
    DP_GSO_COUNTER(DP_GSO_FRAGLIST_PACKETS, fraglist_packets,               \
                   "gro packets sent as original segments")                 \
    DP_GSO_COUNTER(DP_GSO_FRAGLIST_SEGMENTS, fraglist_segments,             \
                   "original segments sent")                                \
    DP_GSO_COUNTER(DP_GSO_FRAGLIST_UNUSABLE, fraglist_unusable,             \
                   "original segments not usable")

enum dp_gso_counter {
#define DP_GSO_COUNTER(ENUM, MEMBER, NAME) ENUM,
    DP_GSO_COUNTERS
#undef DP_GSO_COUNTER
    DP_GSO_N_COUNTERS
};

struct dp_gso *dp_gso_create(size_t n_threads);
void dp_gso_destroy(struct dp_gso *);
struct gso_stats *dp_gso_thread_stats(struct dp_gso *, size_t thread_index);
void dp_gso_read(const struct dp_gso *, size_t thread_index,
                 uint64_t values[DP_GSO_N_COUNTERS]);
void dp_gso_clear(struct dp_gso *, size_t thread_index);
void dp_gso_format(struct ds *, const uint64_t values[DP_GSO_N_COUNTERS]);

#endif /* dp-gso.h */

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

#ifndef DP_METER_H
#define DP_METER_H 1

/* OpenFlow meters in the datapath: the meter action polices packets with
 * token buckets, as dpif-netdev's meters do (rates in kbps or packets per
 * second, a burst size, band type drop; a packet that exceeds several bands
 * is counted by the exceeded band with the highest rate).
 *
 * Who owns what (Documentation/meters.md explains the choice):
 *   - A meter's configuration is immutable.  The table publishes meters
 *     under RCU; dp_meter_set() replaces a meter with a new one (fresh
 *     buckets and statistics, as dpif-netdev does) and dp_meter_del()
 *     unpublishes it, and the old one is freed after a grace period.
 *   - Statistics are per thread: each meter has one cache-line aligned slot
 *     per forwarding thread, written only by its thread with plain (relaxed)
 *     stores, summed by dp_meter_get().
 *   - The token buckets cannot be per thread, since a meter polices the sum
 *     of all threads' traffic.  Each band's bucket is one shared 64-bit word,
 *     the time at which the bucket would be empty (a virtual-time token
 *     bucket, GCRA).  A thread running a batch through a meter computes
 *     locally which packets conform and takes their tokens with one
 *     compare-and-swap per band per batch; it writes nothing shared when the
 *     bucket is empty.  No lock is taken, so a preempted thread never holds
 *     up the others.
 *
 * Thread safety: dp_meter_run() may be called by any forwarding thread at
 * any time, each with its own dense thread index (index 0 by whoever holds
 * the datapath's 'non_pmd_mutex').  dp_meter_set(), dp_meter_get() and
 * dp_meter_del() may be called from any non-forwarding thread (ofproto calls
 * them from the main thread, and dp_meter_del() also from the RCU thread);
 * they serialise among themselves. */

#include <stddef.h>
#include <stdint.h>

struct dp_packet_batch;
struct ofputil_meter_config;
struct ofputil_meter_features;
struct ofputil_meter_stats;

/* Meter ids are below this, as in dpif-netdev.  ofproto allocates them
 * densely from 0, one per OpenFlow meter. */
#define DP_METER_MAX_METERS (1u << 18)

/* Most bands one meter may have, as in dpif-netdev. */
#define DP_METER_MAX_BANDS 8

struct dp_meter_table *dp_meter_table_create(size_t n_threads);
void dp_meter_table_destroy(struct dp_meter_table *);

void dp_meter_get_features(struct ofputil_meter_features *);
int dp_meter_set(struct dp_meter_table *, uint32_t meter_id,
                 struct ofputil_meter_config *);
int dp_meter_get(const struct dp_meter_table *, uint32_t meter_id,
                 struct ofputil_meter_stats *, uint16_t n_bands);
int dp_meter_del(struct dp_meter_table *, uint32_t meter_id,
                 struct ofputil_meter_stats *, uint16_t n_bands);

/* The per-packet path. */
size_t dp_meter_run(const struct dp_meter_table *, uint32_t meter_id,
                    size_t thread_index, struct dp_packet_batch *,
                    long long int now_ns);

#endif /* dp-meter.h */

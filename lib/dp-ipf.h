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


#ifndef DP_IPF_H
#define DP_IPF_H 1

/* The datapath's IP fragment reassembly: one ipf-cpu table per forwarding
 * thread (ipf-cpu.h), its limits from other_config, and their display.
 *
 * other_config keys, as Linux's net.ipv4.ipfrag_* sysctls, which are also
 * per-CPU-accounted limits:
 *   ipf-high-thresh   bytes a thread may hold (default 2 MiB);
 *   ipf-low-thresh    bytes eviction brings it back to (default high minus
 *                     128 KiB);
 *   ipf-timeout       seconds a datagram may take to arrive (default 30).
 * A bad combination is logged once, with the reason, and the old limits
 * stay.
 *
 * Timeouts: each thread frees its own datagrams that outlived ipf-timeout
 * at the end of every polling round (dp_ipf_thread_run()): all of them in
 * an idle round, at most DP_IPF_BUSY_EXPIRE in a busy one, so that under
 * steady load they expire on time too, at a bounded cost per round.
 *
 * The main thread publishes the limits under RCU with a generation number;
 * a thread applies a new generation to its own table the next time it
 * reassembles, so no thread ever writes another's table.
 *
 * dpctl/ipf-* (OVS's ipf.c's commands) set, for ct() only as in stock, the
 * minimum fragment size (default 1200 IPv4, 1280 IPv6) and the most
 * fragments held (default 1000, split evenly between the threads that
 * exist: the non-PMD context and the PMD threads, republished by
 * dp_ipf_threads_changed() as threads start and stop);
 * tunnels' outer fragments are bounded by memory only.  ipf-get-status -m
 * asks each thread for a snapshot of its own table: the main thread bumps
 * a request number, each thread answers at the end of its next polling
 * round under a mutex of its own slot, and the main thread waits a bounded
 * time (dp_ipf_dump_start()).
 *
 * Fragments of one datagram must reach one thread, because a thread joins
 * only the fragments it holds.  No hand-off is done: receive-side hashing
 * (RSS, or a veth's queue choice) of a datagram's fragments uses its
 * addresses only, since only the first fragment has ports, so they land on
 * one queue, and one queue is polled by one thread.  A datagram whose
 * fragments were spread anyway is never completed: each thread's part
 * times out (counted) and the sender retransmits.  A hand-off by fragment
 * key to an owning thread would cost a cross-thread queue on every
 * fragment, for a case that receive hashing already avoids. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct datapath;
struct dpif_ipf_status;
struct ds;
struct ipf_cpu;
struct pmd_thread;
struct smap;

void dp_ipf_init(struct datapath *);
void dp_ipf_destroy(struct datapath *);
void dp_ipf_set_config(struct datapath *, const struct smap *other_config);
void dp_ipf_threads_changed(struct datapath *, size_t n_threads);
void dp_ipf_thread_stopped(struct datapath *, size_t index);
struct ipf_cpu *dp_ipf_thread_table(struct pmd_thread *);
void dp_ipf_thread_run(struct pmd_thread *, bool busy);
void dp_ipf_format_stats(struct ds *, const struct datapath *);

/* dpctl/ipf-* for the per-thread reassembly (OVS's ipf.c's settings and
 * status, kept in the datapath's RCU-published configuration; the status is
 * summed from counters each thread writes in its own table). */
#define DP_IPF_CT_V4 (1u << 0)
#define DP_IPF_CT_V6 (1u << 1)
int dp_ipf_set_enabled(struct datapath *, bool v6, bool enabled);
int dp_ipf_set_min_frag(struct datapath *, bool v6, uint32_t min_frag);
int dp_ipf_set_max_nfrags(struct datapath *, uint32_t max_nfrags);
unsigned int dp_ipf_ct_families(const struct datapath *);
void dp_ipf_get_status(const struct datapath *, struct dpif_ipf_status *);

/* dpctl/ipf-get-status -m: what the threads hold for ct(), each thread's
 * list a snapshot it takes itself at the main thread's request. */
struct dp_ipf_dump;
int dp_ipf_dump_start(struct datapath *, struct dp_ipf_dump **);
int dp_ipf_dump_next(struct dp_ipf_dump *, char **);
void dp_ipf_dump_done(struct dp_ipf_dump *);

#endif /* dp-ipf.h */

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

#ifndef TUNNEL_NEIGH_QUEUE_H
#define TUNNEL_NEIGH_QUEUE_H 1

/* Each forwarding thread's encapsulated frames waiting for their next hop.
 *
 * A tunnel packet whose next hop's MAC is not known yet (tunnel-neigh.h
 * sends the ARP request or Neighbor Solicitation) is encapsulated as usual
 * and its frame, or its outer fragments, held by the thread that sent it,
 * in a queue of that thread's for that next hop (route device and
 * next-hop address, IPv4 mapped for ARP), instead of being dropped.  When
 * the next hop resolves, the thread writes the MAC into each frame and
 * sends them, oldest first, before any later frame to that next hop: the
 * first packets of a flow are not lost to resolution, and arrive in order.
 *
 * Linux keeps one such queue per unresolved neighbour, shared by every CPU
 * (`unres_qlen_bytes`, 212,992 bytes of socket-buffer truesize by default,
 * purged when the neighbour fails after its 3 probes).  Here each thread
 * keeps its own, so that the per-packet path writes only memory it owns:
 * a next hop that two threads send to has two queues, and each thread
 * sends its own frames when it sees the answer.  The bounds, per thread:
 *
 *   - at most TUNNEL_NEIGH_QUEUE_HOPS next hops with frames waiting; a
 *     frame to yet another unresolved next hop is dropped ("drop next hop
 *     unresolved"), as Linux drops one when its neighbour table is full;
 *   - per next hop, at most TUNNEL_NEIGH_QUEUE_FRAMES frames and
 *     TUNNEL_NEIGH_QUEUE_BYTES bytes of frames: beyond either, the oldest
 *     are dropped ("drop next hop queue overflow"), as Linux does;
 *   - a frame waits at most TUNNEL_NEIGH_QUEUE_MS, then is dropped ("drop
 *     next hop queue timeout"), the time within which an answer to a
 *     request is learned (TUNNEL_NEIGH_PENDING_MS).
 * Frames that leave the queue for their next hop count as "next hop queue
 * sent"; every frame queued, as "next hop queued"
 * (dpif-percpu/tunnel-stats-show).  A queued frame never holds a netdev's
 * buffer (a DPDK mbuf, an AF_XDP frame): one that is not in memory of our
 * own is copied.
 *
 * How a thread sees the answer: whoever learns it (tunnel-neigh.c) puts it
 * in OVS's neighbour cache, which moves the next-hop generation
 * (tunnel-nexthop.h).  A thread with frames waiting looks at the
 * generation once a round (tunnel_neigh_queue_run(), a load and a compare
 * when nothing changed); when it moved, or a deadline came (a frame's
 * timeout, or a second since it last asked), it looks its queued next hops
 * up in its own next-hop cache, sends the frames of those resolved, drops
 * those timed out, and asks again for the others (tunnel_neigh_request(),
 * one request a second per next hop at most, as Linux's probes).  A frame
 * sent to a next hop with frames waiting takes them along first
 * (tunnel_neigh_queue_release()), so none is overtaken.
 *
 * Threads: tunnel_neigh_queues_create(), _destroy() and _thread_stopped()
 * are the main thread's; the rest are a forwarding thread's, on its own
 * queues only (the non-PMD context's under its mutex, as all its state). */

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

#include "openvswitch/types.h"
#include "packets.h"

struct datapath;
struct dp_packet;
struct dp_packet_batch;
struct pmd_thread;
struct tunnel_neigh_queues;
struct tunnel_route;

/* Next hops one thread may hold frames for at once. */
#define TUNNEL_NEIGH_QUEUE_HOPS 16

/* Frames, and bytes of frames, one thread holds for one next hop (Linux's
 * unres_qlen_bytes is 212,992 of truesize, about 101 full frames, shared
 * by the CPUs).  The bytes hold the largest frame (65,535 bytes). */
#define TUNNEL_NEIGH_QUEUE_FRAMES 64
#define TUNNEL_NEIGH_QUEUE_BYTES 65536

/* Longest a frame waits for its next hop, in ms. */
#define TUNNEL_NEIGH_QUEUE_MS 3000

/* Main thread. */
struct tunnel_neigh_queues *tunnel_neigh_queues_create(size_t n_threads);
void tunnel_neigh_queues_destroy(struct tunnel_neigh_queues *);
void tunnel_neigh_queues_thread_stopped(struct datapath *, size_t index);

/* Forwarding threads. */
bool tunnel_neigh_queue_has_room(struct pmd_thread *,
                                 const struct tunnel_route *);
void tunnel_neigh_queue_add(struct pmd_thread *, const struct tunnel_route *,
                            struct dp_packet *);
void tunnel_neigh_queue_release(struct pmd_thread *,
                                const struct tunnel_route *,
                                struct eth_addr mac,
                                struct dp_packet_batch *);
bool tunnel_neigh_queue_busy(const struct pmd_thread *);
void tunnel_neigh_queue_run(struct pmd_thread *);
void tunnel_neigh_queue_wait(struct pmd_thread *);

#endif /* tunnel-neigh-queue.h */

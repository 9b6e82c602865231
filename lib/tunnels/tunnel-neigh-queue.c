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

/* Each thread's encapsulated frames waiting for their next hop. */

#include <config.h>
#include "tunnel-neigh-queue.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "datapath.h"
#include "dp-actions.h"
#include "dp-input.h"
#include "dp-packet.h"
#include "dp-port.h"
#include "openvswitch/poll-loop.h"
#include "pmd.h"
#include "thread-counters.h"
#include "timeval.h"
#include "tunnel-neigh.h"
#include "tunnel-nexthop.h"
#include "util.h"
#include "vport-tunnel.h"

BUILD_ASSERT_DECL(TUNNEL_NEIGH_QUEUE_BYTES > UINT16_MAX);

/* How often a thread with frames waiting looks up their next hops again
 * even if OVS's cache did not change, and asks for them again, in ms: as
 * Linux's retrans_time (a probe a second). */
#define TUNNEL_NEIGH_QUEUE_RETRY_MS 1000

/* The frames one thread holds for one next hop: a ring, oldest at
 * 'head'. */
struct hop_queue {
    struct tunnel_route route;  /* The next hop ('dev', 'nh', 'nh_hash'),
                                 * the source to ask from ('src'); 'port'
                                 * is not kept (NULL). */
    odp_port_t port_no;         /* The route's port when the frames were
                                 * queued: their input port. */
    long long int asked;        /* When the next hop was last asked for
                                 * (by the packet that queued the first
                                 * frame, then here), in ms. */
    size_t head;                /* Index of the oldest frame. */
    size_t n;                   /* Frames held; 0: the slot is free. */
    size_t bytes;               /* Their bytes. */
    struct dp_packet *frames[TUNNEL_NEIGH_QUEUE_FRAMES];
    long long int queued_at[TUNNEL_NEIGH_QUEUE_FRAMES]; /* In ms. */
};

/* One thread's queues.  Written only by the thread whose index it has
 * (and by the main thread once that thread has stopped); padded so that
 * threads share no line. */
struct thread_queues {
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        size_t n_frames;        /* Frames held in 'hops', all together. */
        uint64_t generation;    /* Next-hop generation last looked at. */
        long long int next_check; /* When to look again anyway, in ms. */
        struct hop_queue hops[TUNNEL_NEIGH_QUEUE_HOPS];
    );
};

/* A datapath's queues: one set per thread index. */
struct tunnel_neigh_queues {
    size_t n_threads;               /* Elements in 'threads'. */
    struct thread_queues *threads;  /* Set i: thread index i's. */
};

/* Creates the queues of a datapath with 'n_threads' thread indexes. */
struct tunnel_neigh_queues *
tunnel_neigh_queues_create(size_t n_threads)
{
    struct tunnel_neigh_queues *q = xzalloc(sizeof *q);

    q->n_threads = n_threads;
    q->threads = xzalloc_cacheline(n_threads * sizeof *q->threads);
    return q;
}

/* Frees the frames of 'tq' and returns how many there were. */
static size_t
thread_queues_clear(struct thread_queues *tq)
{
    size_t n = tq->n_frames;

    for (size_t i = 0; i < TUNNEL_NEIGH_QUEUE_HOPS; i++) {
        struct hop_queue *hop = &tq->hops[i];

        for (size_t j = 0; j < hop->n; j++) {
            dp_packet_delete(hop->frames[(hop->head + j)
                                         % TUNNEL_NEIGH_QUEUE_FRAMES]);
        }
        hop->n = 0;
        hop->bytes = 0;
    }
    tq->n_frames = 0;
    return n;
}

/* Frees 'q' and the frames it holds, once no forwarding thread can use it.
 * Accepts NULL. */
void
tunnel_neigh_queues_destroy(struct tunnel_neigh_queues *q)
{
    if (q) {
        for (size_t i = 0; i < q->n_threads; i++) {
            thread_queues_clear(&q->threads[i]);
        }
        free_cacheline(q->threads);
        free(q);
    }
}

/* Drops the frames of thread index 'index' of 'dp', whose thread has
 * stopped, counting them as timed out in that index's counters.  Main
 * thread. */
void
tunnel_neigh_queues_thread_stopped(struct datapath *dp, size_t index)
{
    size_t n = thread_queues_clear(&dp->tunnel_neigh_queues->threads[index]);

    if (n) {
        thread_counters_add(vport_tunnel_counters(dp->tunnel), index,
                            VPORT_TNL_DROP_NH_QUEUE_TIMEOUT, n);
    }
}

/* Returns 't''s own queues. */
static struct thread_queues *
thread_queues(const struct pmd_thread *t)
{
    return &t->dp->tunnel_neigh_queues->threads[t->index];
}

/* Returns true if 't' holds frames waiting for a next hop. */
bool
tunnel_neigh_queue_busy(const struct pmd_thread *t)
{
    return thread_queues(t)->n_frames != 0;
}

/* Returns the queue of 'tq' that holds frames for the next hop of 'r', or
 * NULL. */
static struct hop_queue *
hop_find(struct thread_queues *tq, const struct tunnel_route *r)
{
    for (size_t i = 0; i < TUNNEL_NEIGH_QUEUE_HOPS; i++) {
        struct hop_queue *hop = &tq->hops[i];

        if (hop->n && hop->route.nh_hash == r->nh_hash
            && ipv6_addr_equals(&hop->route.nh, &r->nh)
            && !strncmp(hop->route.dev, r->dev, IFNAMSIZ)) {
            return hop;
        }
    }
    return NULL;
}

/* Returns a free queue of 'tq', or NULL if there is none. */
static struct hop_queue *
hop_free_slot(struct thread_queues *tq)
{
    for (size_t i = 0; i < TUNNEL_NEIGH_QUEUE_HOPS; i++) {
        if (!tq->hops[i].n) {
            return &tq->hops[i];
        }
    }
    return NULL;
}

/* Returns true if 't' can hold a frame for the next hop of route 'r' (it
 * holds some for it already, or has a free queue). */
bool
tunnel_neigh_queue_has_room(struct pmd_thread *t,
                            const struct tunnel_route *r)
{
    struct thread_queues *tq = thread_queues(t);

    return hop_find(tq, r) || hop_free_slot(tq);
}

/* Takes the oldest frame out of 'hop', one of 'tq''s, and returns it. */
static struct dp_packet *
hop_pop(struct thread_queues *tq, struct hop_queue *hop)
{
    struct dp_packet *frame = hop->frames[hop->head];

    hop->head = (hop->head + 1) % TUNNEL_NEIGH_QUEUE_FRAMES;
    hop->n--;
    hop->bytes -= dp_packet_size(frame);
    tq->n_frames--;
    return frame;
}

/* Drops the oldest frame of 'hop', one of 't''s, counting it in 'reason'. */
static void
hop_drop_oldest(struct pmd_thread *t, struct hop_queue *hop,
                enum vport_tunnel_counter reason)
{
    dp_packet_delete(hop_pop(thread_queues(t), hop));
    vport_tunnel_count(t, reason, 1);
}

/* Holds 'frame', an encapsulated frame (or an outer fragment) for the next
 * hop of route 'r', whose MAC is unknown, until it resolves, dropping the
 * oldest frames held for that next hop if the queue would exceed its
 * bounds.  'frame''s Ethernet destination is written when it is sent.
 * Drops 'frame' ("drop next hop unresolved") if 't' holds frames for
 * TUNNEL_NEIGH_QUEUE_HOPS other next hops (tunnel_neigh_queue_has_room()
 * says so beforehand).  Takes ownership of 'frame'. */
void
tunnel_neigh_queue_add(struct pmd_thread *t, const struct tunnel_route *r,
                       struct dp_packet *frame)
{
    struct thread_queues *tq = thread_queues(t);
    struct hop_queue *hop = hop_find(tq, r);
    size_t size, tail;

    if (!hop) {
        hop = hop_free_slot(tq);
        if (!hop) {
            dp_packet_delete(frame);
            vport_tunnel_count(t, VPORT_TNL_DROP_NO_NEIGH, 1);
            return;
        }
        hop->route = *r;
        hop->route.port = NULL;
        hop->port_no = frame->md.in_port.odp_port;
        hop->asked = t->now;
        hop->head = 0;
        hop->bytes = 0;
    }
    if (frame->source != DPBUF_MALLOC) {
        /* Not ours to hold for seconds: a netdev's buffer (DPDK, AF_XDP)
         * or a caller's stub. */
        struct dp_packet *copy = dp_packet_clone(frame);

        dp_packet_delete(frame);
        frame = copy;
    }
    size = dp_packet_size(frame);
    while (hop->n && (hop->n >= TUNNEL_NEIGH_QUEUE_FRAMES
                      || hop->bytes + size > TUNNEL_NEIGH_QUEUE_BYTES)) {
        hop_drop_oldest(t, hop, VPORT_TNL_DROP_NH_QUEUE_OVERFLOW);
    }
    tail = (hop->head + hop->n) % TUNNEL_NEIGH_QUEUE_FRAMES;
    hop->frames[tail] = frame;
    hop->queued_at[tail] = t->now;
    hop->n++;
    hop->bytes += size;
    tq->n_frames++;
    vport_tunnel_count(t, VPORT_TNL_NH_QUEUED, 1);
    tq->next_check = MIN(tq->next_check, hop->asked
                                         + TUNNEL_NEIGH_QUEUE_RETRY_MS);
}

/* Appends 'frame' to 'batch', forwarding the batch first, from 't', if it
 * is full. */
static void
batch_add(struct pmd_thread *t, struct dp_packet_batch *batch,
          struct dp_packet *frame)
{
    if (dp_packet_batch_is_full(batch)) {
        struct dp_packet_batch full = *batch;

        dp_packet_batch_init(batch);
        dp_input_inject(t, &full);
    }
    dp_packet_batch_add(batch, frame);
}

/* Sends every frame of 'hop', one of 't''s, oldest first, to 'mac',
 * appending them to 'batch' (which is forwarded whenever it is full), if
 * 'port' is the port they were queued for; drops them ("drop route not to
 * a bridge") if that port is gone. */
static void
hop_send(struct pmd_thread *t, struct hop_queue *hop,
         const struct dp_port *port, struct eth_addr mac,
         struct dp_packet_batch *batch)
{
    struct thread_queues *tq = thread_queues(t);

    if (!port || port->port_no != hop->port_no) {
        while (hop->n) {
            hop_drop_oldest(t, hop, VPORT_TNL_DROP_NO_UNDERLAY);
        }
        return;
    }
    while (hop->n) {
        struct dp_packet *frame = hop_pop(tq, hop);
        struct eth_header *eth = dp_packet_data(frame);

        eth->eth_dst = mac;
        batch_add(t, batch, frame);
        vport_tunnel_count(t, VPORT_TNL_NH_QUEUE_SENT, 1);
    }
}

/* Called by 't' as it sends to the next hop of route 'r' (its port in
 * 'r->port'), now resolved to 'mac': appends the frames it holds for that
 * next hop to 'batch', oldest first, before the caller appends the new
 * one, so that none is overtaken.  Forwards 'batch' whenever it is
 * full. */
void
tunnel_neigh_queue_release(struct pmd_thread *t, const struct tunnel_route *r,
                           struct eth_addr mac, struct dp_packet_batch *batch)
{
    struct thread_queues *tq = thread_queues(t);
    struct hop_queue *hop;

    if (!tq->n_frames) {
        return;
    }
    hop = hop_find(tq, r);
    if (hop) {
        hop_send(t, hop, r->port, mac, batch);
    }
}

/* Drops the frames of 'hop', one of 't''s, that waited
 * TUNNEL_NEIGH_QUEUE_MS by 'now'. */
static void
hop_expire(struct pmd_thread *t, struct hop_queue *hop, long long int now)
{
    while (hop->n
           && now - hop->queued_at[hop->head] >= TUNNEL_NEIGH_QUEUE_MS) {
        hop_drop_oldest(t, hop, VPORT_TNL_DROP_NH_QUEUE_TIMEOUT);
    }
}

/* Once a round of 't', if it holds frames: when the next-hop generation
 * moved (OVS's neighbour cache changed) or a deadline came, sends the
 * frames of the next hops that resolved, drops those that waited too long,
 * and asks again for the next hops still unknown (at most once a second
 * each). */
void
tunnel_neigh_queue_run(struct pmd_thread *t)
{
    struct thread_queues *tq = thread_queues(t);
    struct dp_packet_batch batch;
    uint64_t generation;
    long long int now;

    if (!tq->n_frames) {
        return;
    }
    generation = tunnel_nexthops_generation(t->dp->tunnel_nexthops);
    now = time_msec();
    if (generation == tq->generation && now < tq->next_check) {
        return;
    }
    t->now = now;
    tq->generation = generation;
    tq->next_check = LLONG_MAX;

    dp_packet_batch_init(&batch);
    for (size_t i = 0; i < TUNNEL_NEIGH_QUEUE_HOPS; i++) {
        struct hop_queue *hop = &tq->hops[i];
        struct eth_addr mac;
        struct dp_port *port;
        int error;

        hop_expire(t, hop, now);
        if (!hop->n) {
            continue;
        }
        port = datapath_find_port_by_name(t->dp, hop->route.dev);
        error = tunnel_nexthop_lookup(t, &hop->route, &mac);
        if (!error || error == EAGAIN) {
            hop_send(t, hop, port, mac, &batch);
            continue;
        }
        if (port && now - hop->asked >= TUNNEL_NEIGH_QUEUE_RETRY_MS) {
            int mtu;

            hop->asked = now;
            dp_port_get_link(port, &mac, &mtu);
            tunnel_neigh_request(t, port, mac, &hop->route.src,
                                 &hop->route.nh);
        }
        tq->next_check = MIN(tq->next_check,
                             MIN(hop->queued_at[hop->head]
                                 + TUNNEL_NEIGH_QUEUE_MS,
                                 hop->asked + TUNNEL_NEIGH_QUEUE_RETRY_MS));
    }
    if (!dp_packet_batch_is_empty(&batch)) {
        dp_input_inject(t, &batch);
    }
    dp_actions_flush(t);
}

/* Arranges for poll_block() to wake when tunnel_neigh_queue_run() has
 * work for 't': for the non-PMD context, whose rounds the main thread
 * runs only when it wakes.  (A change of OVS's neighbour cache wakes it
 * through tunnel_nexthops_wait().) */
void
tunnel_neigh_queue_wait(struct pmd_thread *t)
{
    struct thread_queues *tq = thread_queues(t);

    if (tq->n_frames) {
        poll_timer_wait_until(tq->next_check);
    }
}

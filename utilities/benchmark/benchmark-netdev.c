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

/* The benchmark's in-memory netdevs: the generator, the sinks. */

#include <config.h>
#include "benchmark-netdev.h"

#include <errno.h>
#include <string.h>

#include "dp-packet.h"
#include "dpif-netdev.h"
#include "netdev-provider.h"
#include "openvswitch/util.h"
#include "ovs-atomic.h"
#include "ovs-thread.h"
#include "packets.h"
#include "smap.h"
#include "util.h"

/* Most queues a generator may have. */
#define GENERATOR_MAX_RXQ 16

/* Transmit queues of a sink: more than there are threads, so that no
 * datapath has to share one between threads. */
#define SINK_N_TXQ 16

/* Buffers a thread keeps for reuse, at most. */
#define POOL_MAX 2048

/* Room for the largest frame the generator replays. */
#define BUFFER_SIZE 2048

/* Most headroom a generator's packets may have: as much as a DPDK mbuf's
 * (RTE_PKTMBUF_HEADROOM) and our afpacket port's give. */
#define GENERATOR_MAX_HEADROOM 128

/* The underlay port's address and prefix length (192.0.2.1/24, TEST-NET-1),
 * and its MAC, for the tunnel scenarios. */
#define UNDERLAY_ADDR 0xc0000201
#define UNDERLAY_PLEN 24
static const struct eth_addr underlay_mac
    = ETH_ADDR_C(02, 00, 00, 00, 00, 0a);

/* Frames for generator queues opened from now on. */
static const struct benchmark_frames *generator_frames;
static atomic_bool generator_running = false;

/* Headroom in front of each frame the generators replay. */
static atomic_size_t generator_headroom = DP_NETDEV_HEADROOM;

/* Packets sent to sinks, one counter per transmit queue, each written by
 * the thread that owns the queue (or atomically, when shared). */
struct sink_counter {
    atomic_ullong n_packets;
    uint8_t pad[CACHE_LINE_SIZE - sizeof(atomic_ullong)];
};
static struct sink_counter sink_counters[SINK_N_TXQ]
    __attribute__((aligned(CACHE_LINE_SIZE)));

/* Buffers that sinks took back, for the generator queues polled by the
 * same thread.  The thread's sink and generator are the only users, so no
 * lock is needed; the buffers are freed when the thread exits. */
struct packet_pool {
    size_t n;
    struct dp_packet *packets[POOL_MAX];
};
static pthread_key_t pool_key;

static void
packet_pool_destroy(void *pool_)
{
    struct packet_pool *pool = pool_;

    for (size_t i = 0; i < pool->n; i++) {
        dp_packet_delete(pool->packets[i]);
    }
    free_cacheline(pool);
}

static struct packet_pool *
packet_pool_get(void)
{
    struct packet_pool *pool = pthread_getspecific(pool_key);

    if (!pool) {
        pool = xzalloc_cacheline(sizeof *pool);
        xpthread_setspecific(pool_key, pool);
    }
    return pool;
}

/* Returns a buffer holding a copy of 'frame', reset as a newly received
 * packet is. */
static struct dp_packet *
packet_pool_load(struct packet_pool *pool, const uint8_t *frame, size_t len)
{
    struct dp_packet *packet;
    size_t headroom;

    atomic_read_relaxed(&generator_headroom, &headroom);
    packet = (pool->n
              ? pool->packets[--pool->n]
              : dp_packet_new(BUFFER_SIZE + GENERATOR_MAX_HEADROOM));
    dp_packet_use(packet, dp_packet_base(packet),
                  dp_packet_get_allocated(packet));
    dp_packet_reserve(packet, headroom);
    dp_packet_put(packet, frame, len);
    return packet;
}

static void
packet_pool_recycle(struct packet_pool *pool, struct dp_packet *packet)
{
    if (pool->n < POOL_MAX && packet->source == DPBUF_MALLOC
        && dp_packet_get_allocated(packet)
           >= BUFFER_SIZE + GENERATOR_MAX_HEADROOM) {
        pool->packets[pool->n++] = packet;
    } else {
        dp_packet_delete(packet);
    }
}

/* A generator or a sink: neither has anything but flags of its own. */
struct benchmark_netdev {
    struct netdev up;
    enum netdev_flags flags;
    int requested_n_rxq;
};

/* Each queue has cache lines of its own: queues polled by different threads
 * must not share a written line, or the generator itself would limit how
 * well a datapath scales. */
struct generator_rxq {
    struct netdev_rxq up;
    const struct benchmark_frames *frames;
    size_t next;                /* Index of the next frame to replay. */
} __attribute__((aligned(CACHE_LINE_SIZE)));

static struct benchmark_netdev *
benchmark_netdev_cast(const struct netdev *netdev)
{
    return CONTAINER_OF(netdev, struct benchmark_netdev, up);
}

static struct generator_rxq *
generator_rxq_cast(const struct netdev_rxq *rxq)
{
    return CONTAINER_OF(rxq, struct generator_rxq, up);
}

static struct netdev *
benchmark_netdev_alloc(void)
{
    struct benchmark_netdev *dev = xzalloc(sizeof *dev);

    return &dev->up;
}

static int
benchmark_netdev_construct(struct netdev *netdev)
{
    struct benchmark_netdev *dev = benchmark_netdev_cast(netdev);

    dev->flags = NETDEV_UP;
    dev->requested_n_rxq = 1;
    netdev->n_rxq = 1;
    netdev->n_txq = SINK_N_TXQ;
    return 0;
}

/* A sink has no receive queue, so that no thread spends time polling it and
 * the generator's queues are the only ones to spread over threads. */
static int
sink_construct(struct netdev *netdev)
{
    benchmark_netdev_construct(netdev);
    benchmark_netdev_cast(netdev)->requested_n_rxq = 0;
    netdev->n_rxq = 0;
    return 0;
}

static void
benchmark_netdev_destruct(struct netdev *netdev OVS_UNUSED)
{
}

static void
benchmark_netdev_dealloc(struct netdev *netdev)
{
    free(benchmark_netdev_cast(netdev));
}

static int
benchmark_netdev_get_config(const struct netdev *netdev, struct smap *args)
{
    smap_add_format(args, "n_rxq", "%d", netdev_n_rxq(netdev));
    return 0;
}

static int
benchmark_netdev_set_config(struct netdev *netdev, const struct smap *args,
                            char **errp)
{
    struct benchmark_netdev *dev = benchmark_netdev_cast(netdev);
    int n_rxq = smap_get_int(args, "n_rxq", 1);

    if (n_rxq < 1 || n_rxq > GENERATOR_MAX_RXQ) {
        *errp = xasprintf("%s: n_rxq must be between 1 and %d",
                          netdev_get_name(netdev), GENERATOR_MAX_RXQ);
        return EINVAL;
    }
    if (n_rxq != dev->requested_n_rxq) {
        dev->requested_n_rxq = n_rxq;
        netdev_request_reconfigure(netdev);
    }
    return 0;
}

static int
benchmark_netdev_reconfigure(struct netdev *netdev)
{
    netdev->n_rxq = benchmark_netdev_cast(netdev)->requested_n_rxq;
    return 0;
}

static int
benchmark_netdev_get_etheraddr(const struct netdev *netdev OVS_UNUSED,
                               struct eth_addr *mac)
{
    *mac = eth_addr_zero;
    return 0;
}

/* The underlay's MAC: a tunnel's outer frames leave from it. */
static int
underlay_get_etheraddr(const struct netdev *netdev OVS_UNUSED,
                       struct eth_addr *mac)
{
    *mac = underlay_mac;
    return 0;
}

/* The underlay's one address, which OVS's route table needs to accept a
 * route through it and takes as the routes' source. */
static int
underlay_get_addr_list(const struct netdev *netdev OVS_UNUSED,
                       struct in6_addr **addr, struct in6_addr **mask,
                       int *n_addr)
{
    *addr = xmalloc(sizeof **addr);
    *mask = xmalloc(sizeof **mask);
    in6_addr_set_mapped_ipv4(*addr, htonl(UNDERLAY_ADDR));
    **mask = ipv6_create_mask(96 + UNDERLAY_PLEN);
    *n_addr = 1;
    return 0;
}

static int
benchmark_netdev_get_mtu(const struct netdev *netdev OVS_UNUSED, int *mtu)
{
    *mtu = ETH_PAYLOAD_MAX;
    return 0;
}

static int
benchmark_netdev_update_flags(struct netdev *netdev, enum netdev_flags off,
                              enum netdev_flags on,
                              enum netdev_flags *old_flags)
{
    struct benchmark_netdev *dev = benchmark_netdev_cast(netdev);

    *old_flags = dev->flags;
    dev->flags = (dev->flags & ~off) | on;
    return 0;
}

static struct netdev_rxq *
generator_rxq_alloc(void)
{
    struct generator_rxq *rxq = xzalloc_cacheline(sizeof *rxq);

    return &rxq->up;
}

static int
generator_rxq_construct(struct netdev_rxq *rxq_)
{
    struct generator_rxq *rxq = generator_rxq_cast(rxq_);

    rxq->frames = generator_frames;
    rxq->next = 0;
    return 0;
}

static void
generator_rxq_destruct(struct netdev_rxq *rxq OVS_UNUSED)
{
}

static void
generator_rxq_dealloc(struct netdev_rxq *rxq)
{
    free_cacheline(generator_rxq_cast(rxq));
}

/* Fills 'batch' with the next frames of the set, round and round. */
static int
generator_rxq_recv(struct netdev_rxq *rxq_, struct dp_packet_batch *batch,
                   int *qfill)
{
    struct generator_rxq *rxq = generator_rxq_cast(rxq_);
    const struct benchmark_frames *frames = rxq->frames;
    struct packet_pool *pool;
    bool running;

    atomic_read_relaxed(&generator_running, &running);
    if (!running || !frames || !frames->n) {
        return EAGAIN;
    }

    pool = packet_pool_get();
    dp_packet_batch_init(batch);
    for (int i = 0; i < NETDEV_MAX_BURST; i++) {
        const uint8_t *frame = frames->data + rxq->next * frames->stride;

        dp_packet_batch_add(batch, packet_pool_load(pool, frame,
                                                    frames->lens[rxq->next]));
        if (++rxq->next == frames->n) {
            rxq->next = 0;
        }
    }
    if (qfill) {
        *qfill = 0;
    }
    return 0;
}

static void
generator_rxq_wait(struct netdev_rxq *rxq OVS_UNUSED)
{
}

static int
sink_send(struct netdev *netdev OVS_UNUSED, int qid,
          struct dp_packet_batch *batch, bool concurrent_txq OVS_UNUSED)
{
    struct sink_counter *counter = &sink_counters[qid % SINK_N_TXQ];
    struct packet_pool *pool = packet_pool_get();
    struct dp_packet *packet;
    unsigned long long orig;

    atomic_add_relaxed(&counter->n_packets, dp_packet_batch_size(batch),
                       &orig);
    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        packet_pool_recycle(pool, packet);
    }
    return 0;
}

#define BENCHMARK_NETDEV_CLASS_COMMON                           \
    .is_pmd = true,                                             \
    .alloc = benchmark_netdev_alloc,                            \
    .destruct = benchmark_netdev_destruct,                      \
    .dealloc = benchmark_netdev_dealloc,                        \
    .get_config = benchmark_netdev_get_config,                  \
    .set_config = benchmark_netdev_set_config,                  \
    .reconfigure = benchmark_netdev_reconfigure,                \
    .get_mtu = benchmark_netdev_get_mtu,                        \
    .update_flags = benchmark_netdev_update_flags,              \
    .rxq_alloc = generator_rxq_alloc,                           \
    .rxq_construct = generator_rxq_construct,                   \
    .rxq_destruct = generator_rxq_destruct,                     \
    .rxq_dealloc = generator_rxq_dealloc,                       \
    .rxq_wait = generator_rxq_wait

static const struct netdev_class generator_class = {
    .type = "benchmark-generator",
    BENCHMARK_NETDEV_CLASS_COMMON,
    .construct = benchmark_netdev_construct,
    .get_etheraddr = benchmark_netdev_get_etheraddr,
    .rxq_recv = generator_rxq_recv,
};

static const struct netdev_class sink_class = {
    .type = "benchmark-sink",
    BENCHMARK_NETDEV_CLASS_COMMON,
    .construct = sink_construct,
    .get_etheraddr = benchmark_netdev_get_etheraddr,
    .send = sink_send,
};

/* A sink with an address and a MAC: the port a tunnel's routes go
 * through. */
static const struct netdev_class underlay_class = {
    .type = "benchmark-underlay",
    BENCHMARK_NETDEV_CLASS_COMMON,
    .construct = sink_construct,
    .send = sink_send,
    .get_etheraddr = underlay_get_etheraddr,
    .get_addr_list = underlay_get_addr_list,
};

void
benchmark_netdev_register(void)
{
    xpthread_key_create(&pool_key, packet_pool_destroy);
    netdev_register_provider(&generator_class);
    netdev_register_provider(&sink_class);
    netdev_register_provider(&underlay_class);
}

void
benchmark_underlay_address(ovs_be32 *addr, int *plen, struct eth_addr *mac)
{
    *addr = htonl(UNDERLAY_ADDR);
    *plen = UNDERLAY_PLEN;
    *mac = underlay_mac;
}

void
benchmark_generator_set_frames(const struct benchmark_frames *frames)
{
    generator_frames = frames;
}

void
benchmark_generator_set_headroom(size_t headroom)
{
    atomic_store_relaxed(&generator_headroom,
                         MIN(headroom, GENERATOR_MAX_HEADROOM));
}

void
benchmark_generator_start(void)
{
    atomic_store_relaxed(&generator_running, true);
}

void
benchmark_generator_stop(void)
{
    atomic_store_relaxed(&generator_running, false);
}

uint64_t
benchmark_sink_packets(void)
{
    uint64_t total = 0;

    for (int i = 0; i < SINK_N_TXQ; i++) {
        unsigned long long n;

        atomic_read_relaxed(&sink_counters[i].n_packets, &n);
        total += n;
    }
    return total;
}

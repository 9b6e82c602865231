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

/* The "afpacket" netdev type: a Linux interface read with AF_PACKET. */

#include <config.h>
#include "netdev-afpacket.h"

#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "afpacket-ring.h"
#include "dp-packet.h"
/* OVS's 'struct netdev_linux', which our port extends.  The header also
 * defines two static casts that only netdev-linux.c uses. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "netdev-linux-private.h"
#pragma GCC diagnostic pop
#include "netdev-provider.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "ovs-thread.h"
#include "packets.h"
#include "smap.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_afpacket);

/* Option limits and defaults; see netdev-afpacket.h. */
#define AFPACKET_DEFAULT_N_RXQ 1
#define AFPACKET_MIN_BLOCK_SIZE (128 * 1024)   /* A 64 KiB frame fits. */
#define AFPACKET_MAX_BLOCK_SIZE (4 * 1024 * 1024)
#define AFPACKET_DEFAULT_BLOCK_SIZE (256 * 1024)
#define AFPACKET_MIN_RING_BLOCKS 2              /* One to read while Linux
                                                 * fills the other. */
#define AFPACKET_MAX_RING_SIZE (256 * 1024 * 1024)
#define AFPACKET_DEFAULT_RING_SIZE (4 * 1024 * 1024)
#define AFPACKET_DEFAULT_RX_MODE AFPACKET_RX_SOCKET
/* Socket mode's default batch wait, in us: none.  On the loaded 2-core
 * machine it was measured on, a PMD thread that loses its CPU already reads
 * 16 to 20 frames per recvmmsg() at 15 kpps without waiting, a wait of 50
 * us took 200 us (timer slack, scheduling), and no wait gained lossless
 * rate or CPU (Documentation/afpacket.md). */
#define AFPACKET_DEFAULT_BATCH_WAIT_US 0

/* The names of the receive modes, option rx_mode. */
static const char *const afpacket_rx_mode_names[] = {
    [AFPACKET_RX_RING] = "ring",
    [AFPACKET_RX_SOCKET] = "socket",
};

/* Most transmit queues: the datapath asks for one per forwarding thread. */
#define AFPACKET_MAX_TXQ 1024

/* One transmit queue.  Used by one thread at a time: the one the datapath
 * gives it to, or any under 'lock' when threads share queues. */
struct afpacket_txq {
    struct afpacket_tx *tx;     /* Its socket. */
    struct ovs_mutex lock;      /* Taken only for concurrent senders. */
};

/* An afpacket port. */
struct netdev_afpacket {
    struct netdev_linux base;   /* Must be first: netdev-linux's callbacks
                                 * take the port for one of theirs. */

    /* Requested configuration: written by set_config and set_tx_multiq,
     * guarded by 'base.mutex', applied by reconfigure. */
    int requested_n_rxq OVS_GUARDED;
    struct afpacket_ring_config requested_ring OVS_GUARDED;
    int requested_n_txq OVS_GUARDED;

    /* Applied configuration and the sockets.  Replaced only by reconfigure,
     * in the main thread while no thread polls or sends on the port, under
     * 'base.mutex'.  The rings and sockets themselves belong to the
     * threads that poll and send on them (see afpacket-ring.h). */
    struct afpacket_ring_config ring;
    int bound_ifindex;          /* Interface they are bound to, or 0 if it
                                 * was missing: then there are no rings and
                                 * the transmit sockets refuse every frame,
                                 * counting errors. */
    int mtu;                    /* The interface's MTU, for TSO frames with
                                 * no segment size. */
    int fanout_id;              /* Fanout group of the rings, or -1. */
    struct afpacket_rx **rxs;   /* 'n_rxs' rings, by queue id... */
    int n_rxs;
    struct afpacket_txq *txqs;  /* ...and 'n_txqs' transmit queues. */
    int n_txqs;
};

/* A receive queue: one ring of the port's. */
struct netdev_rxq_afpacket {
    struct netdev_rxq up;
    struct afpacket_rx *rx;     /* Owned by the port; NULL if its interface
                                 * was missing. */
};

/* The class: OVS's "system" class with our overrides, filled in by
 * netdev_afpacket_register(). */
static struct netdev_class afpacket_class;

bool
netdev_is_afpacket(const struct netdev *netdev)
{
    return netdev_get_class(netdev) == &afpacket_class;
}

/* Returns the afpacket port that 'netdev' is, asserting that it is one. */
static struct netdev_afpacket *
netdev_afpacket_cast(const struct netdev *netdev)
{
    ovs_assert(netdev_is_afpacket(netdev));
    return CONTAINER_OF(netdev, struct netdev_afpacket, base.up);
}

/* Returns the afpacket receive queue that 'rxq' is. */
static struct netdev_rxq_afpacket *
netdev_rxq_afpacket_cast(const struct netdev_rxq *rxq)
{
    return CONTAINER_OF(rxq, struct netdev_rxq_afpacket, up);
}

/* The class's alloc: room for netdev-linux's part and ours. */
static struct netdev *
afpacket_alloc(void)
{
    struct netdev_afpacket *dev = xzalloc(sizeof *dev);

    return &dev->base.up;
}

/* The class's construct: netdev-linux's, which refuses an interface that
 * does not exist (ENODEV), then our defaults.  The sockets are opened by
 * the first reconfigure. */
static int
afpacket_construct(struct netdev *netdev)
{
    struct netdev_afpacket *dev = netdev_afpacket_cast(netdev);
    int error = netdev_linux_construct(netdev);

    if (error) {
        return error;
    }
    ovs_mutex_lock(&dev->base.mutex);
    dev->requested_n_rxq = AFPACKET_DEFAULT_N_RXQ;
    dev->requested_ring.mode = AFPACKET_DEFAULT_RX_MODE;
    dev->requested_ring.block_size = AFPACKET_DEFAULT_BLOCK_SIZE;
    dev->requested_ring.n_blocks = (AFPACKET_DEFAULT_RING_SIZE
                                    / AFPACKET_DEFAULT_BLOCK_SIZE);
    dev->requested_ring.batch_wait_us = AFPACKET_DEFAULT_BATCH_WAIT_US;
    dev->requested_n_txq = 1;
    ovs_mutex_unlock(&dev->base.mutex);
    dev->fanout_id = -1;
    netdev->n_rxq = 0;
    netdev->n_txq = 0;
    /* What the virtio-net header lets Linux do for us.  SCTP's CRC32c and
     * IPv4 header checksums it would not compute. */
    netdev->ol_flags = (NETDEV_TX_OFFLOAD_TCP_TSO
                        | NETDEV_TX_OFFLOAD_TCP_CKSUM
                        | NETDEV_TX_OFFLOAD_UDP_CKSUM);
    netdev_request_reconfigure(netdev);
    return 0;
}

/* Closes the rings and sockets of 'dev'. */
static void
close_queues(struct netdev_afpacket *dev)
{
    for (int i = 0; i < dev->n_rxs; i++) {
        afpacket_rx_close(dev->rxs[i]);
    }
    free(dev->rxs);
    dev->rxs = NULL;
    dev->n_rxs = 0;

    for (int i = 0; i < dev->n_txqs; i++) {
        afpacket_tx_close(dev->txqs[i].tx);
        ovs_mutex_destroy(&dev->txqs[i].lock);
    }
    free(dev->txqs);
    dev->txqs = NULL;
    dev->n_txqs = 0;
    dev->fanout_id = -1;
}

/* The class's destruct: our sockets, then netdev-linux's part. */
static void
afpacket_destruct(struct netdev *netdev)
{
    struct netdev_afpacket *dev = netdev_afpacket_cast(netdev);

    close_queues(dev);
    netdev_linux_class.destruct(netdev);
}

/* The class's dealloc. */
static void
afpacket_dealloc(struct netdev *netdev)
{
    free(netdev_afpacket_cast(netdev));
}

/* Parses option 'key' of 'args' as an unsigned integer into '*value'.
 * Leaves '*value' alone if the option is absent or malformed; reports a
 * malformed value in 'errors'. */
static void
parse_uint_option(const char *name, const struct smap *args, const char *key,
                  unsigned int *value, struct ds *errors)
{
    const char *s = smap_get(args, key);
    unsigned int parsed;

    if (!s) {
        return;
    } else if (str_to_uint(s, 10, &parsed)) {
        *value = parsed;
    } else {
        ds_put_format(errors, "%s: invalid %s \"%s\" (expected a "
                      "non-negative integer)\n", name, key, s);
    }
}

/* Parses option rx_mode of 'args' into '*mode'.  Leaves '*mode' alone if
 * the option is absent or unknown; reports an unknown one in 'errors'. */
static void
parse_rx_mode(const char *name, const struct smap *args,
              enum afpacket_rx_mode *mode, struct ds *errors)
{
    const char *s = smap_get(args, "rx_mode");

    if (!s) {
        return;
    }
    for (int i = 0; i < ARRAY_SIZE(afpacket_rx_mode_names); i++) {
        if (!strcmp(s, afpacket_rx_mode_names[i])) {
            *mode = i;
            return;
        }
    }
    ds_put_format(errors, "%s: invalid rx_mode \"%s\" (expected ring or "
                  "socket)\n", name, s);
}

/* The class's set_config.  All or nothing: on any problem the port keeps
 * its previous configuration, and every problem goes, one per line, to
 * '*errp' (and the log). */
static int
afpacket_set_config(struct netdev *netdev, const struct smap *args,
                    char **errp)
{
    struct netdev_afpacket *dev = netdev_afpacket_cast(netdev);
    const char *name = netdev_get_name(netdev);
    unsigned int n_rxq = AFPACKET_DEFAULT_N_RXQ;
    unsigned int block_size = AFPACKET_DEFAULT_BLOCK_SIZE;
    unsigned int ring_size = AFPACKET_DEFAULT_RING_SIZE;
    unsigned int batch_wait_us = AFPACKET_DEFAULT_BATCH_WAIT_US;
    enum afpacket_rx_mode mode = AFPACKET_DEFAULT_RX_MODE;
    struct ds errors = DS_EMPTY_INITIALIZER;
    struct smap_node *node;

    SMAP_FOR_EACH (node, args) {
        if (strcmp(node->key, "n_rxq") && strcmp(node->key, "block_size")
            && strcmp(node->key, "ring_size")
            && strcmp(node->key, "rx_mode")
            && strcmp(node->key, "rx_batch_wait_us")) {
            ds_put_format(&errors, "%s: unknown afpacket option '%s' "
                          "(expected n_rxq, rx_mode, rx_batch_wait_us, "
                          "block_size or ring_size)\n", name, node->key);
        }
    }
    parse_uint_option(name, args, "n_rxq", &n_rxq, &errors);
    parse_rx_mode(name, args, &mode, &errors);
    parse_uint_option(name, args, "block_size", &block_size, &errors);
    parse_uint_option(name, args, "ring_size", &ring_size, &errors);
    parse_uint_option(name, args, "rx_batch_wait_us", &batch_wait_us,
                      &errors);
    if (batch_wait_us > AFPACKET_RX_MAX_BATCH_WAIT_US) {
        ds_put_format(&errors, "%s: rx_batch_wait_us %u out of range "
                      "(0..%d)\n", name, batch_wait_us,
                      AFPACKET_RX_MAX_BATCH_WAIT_US);
    }
    if (n_rxq < 1 || n_rxq > NETDEV_AFPACKET_MAX_RXQ) {
        ds_put_format(&errors, "%s: n_rxq %u out of range (1..%d)\n", name,
                      n_rxq, NETDEV_AFPACKET_MAX_RXQ);
    }
    if (!is_pow2(block_size) || block_size < AFPACKET_MIN_BLOCK_SIZE
        || block_size > AFPACKET_MAX_BLOCK_SIZE) {
        ds_put_format(&errors, "%s: block_size %u is not a power of two "
                      "from %d to %d bytes\n", name, block_size,
                      AFPACKET_MIN_BLOCK_SIZE, AFPACKET_MAX_BLOCK_SIZE);
    } else if (ring_size % block_size
               || ring_size / block_size < AFPACKET_MIN_RING_BLOCKS
               || ring_size > AFPACKET_MAX_RING_SIZE) {
        ds_put_format(&errors, "%s: ring_size %u is not a multiple of "
                      "block_size %u from %d blocks to %d bytes\n", name,
                      ring_size, block_size, AFPACKET_MIN_RING_BLOCKS,
                      AFPACKET_MAX_RING_SIZE);
    }
    if (errors.length) {
        ds_chomp(&errors, '\n');
        VLOG_WARN("%s", ds_cstr(&errors));
        *errp = ds_steal_cstr(&errors);
        return EINVAL;
    }
    ds_destroy(&errors);

    ovs_mutex_lock(&dev->base.mutex);
    if (n_rxq != dev->requested_n_rxq
        || mode != dev->requested_ring.mode
        || block_size != dev->requested_ring.block_size
        || ring_size / block_size != dev->requested_ring.n_blocks
        || batch_wait_us != dev->requested_ring.batch_wait_us) {
        dev->requested_n_rxq = n_rxq;
        dev->requested_ring.batch_wait_us = batch_wait_us;
        dev->requested_ring.mode = mode;
        dev->requested_ring.block_size = block_size;
        dev->requested_ring.n_blocks = ring_size / block_size;
        netdev_request_reconfigure(netdev);
    }
    ovs_mutex_unlock(&dev->base.mutex);
    return 0;
}

/* The class's get_config: the options in effect once reconfigured. */
static int
afpacket_get_config(const struct netdev *netdev, struct smap *args)
{
    struct netdev_afpacket *dev = netdev_afpacket_cast(netdev);

    ovs_mutex_lock(&dev->base.mutex);
    smap_add_format(args, "n_rxq", "%d", dev->requested_n_rxq);
    smap_add(args, "rx_mode",
             afpacket_rx_mode_names[dev->requested_ring.mode]);
    smap_add_format(args, "rx_batch_wait_us", "%"PRIu32,
                    dev->requested_ring.batch_wait_us);
    smap_add_format(args, "block_size", "%"PRIu32,
                    dev->requested_ring.block_size);
    smap_add_format(args, "ring_size", "%"PRIu64,
                    ((uint64_t) dev->requested_ring.block_size
                     * dev->requested_ring.n_blocks));
    ovs_mutex_unlock(&dev->base.mutex);
    return 0;
}

/* The class's set_tx_multiq: one socket per transmit queue asked for. */
static int
afpacket_set_tx_multiq(struct netdev *netdev, unsigned int n_txq)
{
    struct netdev_afpacket *dev = netdev_afpacket_cast(netdev);

    n_txq = MIN(MAX(n_txq, 1), AFPACKET_MAX_TXQ);
    ovs_mutex_lock(&dev->base.mutex);
    if (n_txq != dev->requested_n_txq) {
        dev->requested_n_txq = n_txq;
        netdev_request_reconfigure(netdev);
    }
    ovs_mutex_unlock(&dev->base.mutex);
    return 0;
}

/* Opens 'dev''s rings and transmit sockets on interface 'ifindex', or, if
 * it is 0 (the interface is missing), only unbound transmit sockets. */
static int
open_queues(struct netdev_afpacket *dev, int ifindex)
    OVS_REQUIRES(dev->base.mutex)
{
    int n_rxq = dev->requested_n_rxq;
    int n_txq = dev->requested_n_txq;
    int error = 0;

    dev->ring = dev->requested_ring;
    dev->bound_ifindex = ifindex;
    dev->rxs = xcalloc(n_rxq, sizeof *dev->rxs);
    dev->n_rxs = n_rxq;
    for (int i = 0; ifindex && !error && i < n_rxq; i++) {
        error = afpacket_rx_open(ifindex, &dev->ring,
                                 n_rxq > 1 ? &dev->fanout_id : NULL,
                                 &dev->rxs[i]);
    }
    dev->txqs = xcalloc(n_txq, sizeof *dev->txqs);
    for (int i = 0; !error && i < n_txq; i++) {
        ovs_mutex_init(&dev->txqs[i].lock);
        dev->n_txqs++;
        error = afpacket_tx_open(ifindex, &dev->txqs[i].tx);
    }
    return error;
}

/* The class's reconfigure: reopens the rings and sockets with the requested
 * configuration, on the interface that has the port's name now (it may
 * have been deleted and created again).  Called by the datapath while no
 * thread polls or sends on the port. */
static int
afpacket_reconfigure(struct netdev *netdev)
{
    struct netdev_afpacket *dev = netdev_afpacket_cast(netdev);
    int ifindex = if_nametoindex(netdev_get_name(netdev));
    int mtu, error;

    if (netdev_linux_class.get_mtu(netdev, &mtu) || mtu <= 0) {
        mtu = ETH_PAYLOAD_MAX;
    }

    ovs_mutex_lock(&dev->base.mutex);
    close_queues(dev);
    dev->mtu = mtu;
    error = open_queues(dev, ifindex);
    if (error) {
        VLOG_ERR("%s: cannot open AF_PACKET sockets (%s)",
                 netdev_get_name(netdev), ovs_strerror(error));
        close_queues(dev);
        netdev->n_rxq = 0;
        netdev->n_txq = 0;
    } else {
        if (!ifindex) {
            /* Worded as stock OVS's bridge words a port whose device is
             * gone ("could not open network device"), which scripts and
             * OVS's own tests filter from the log. */
            VLOG_WARN("could not open network device %s (%s): no packet "
                      "is received, and every packet sent is dropped, "
                      "until it comes back", netdev_get_name(netdev),
                      ovs_strerror(ENODEV));
        }
        netdev->n_rxq = dev->n_rxs;
        netdev->n_txq = dev->n_txqs;
    }
    ovs_mutex_unlock(&dev->base.mutex);
    netdev_change_seq_changed(netdev);
    return error;
}

/* The class's send.  The calling thread's queue 'qid' is its own unless
 * 'concurrent_txq', when its lock serializes the threads sharing it. */
static int
afpacket_send(struct netdev *netdev, int qid, struct dp_packet_batch *batch,
              bool concurrent_txq)
{
    struct netdev_afpacket *dev = netdev_afpacket_cast(netdev);
    struct afpacket_txq *txq;

    if (OVS_UNLIKELY(!dev->n_txqs)) {
        dp_packet_delete_batch(batch, true);
        return 0;
    }
    txq = &dev->txqs[qid % dev->n_txqs];
    if (OVS_UNLIKELY(concurrent_txq)) {
        ovs_mutex_lock(&txq->lock);
        afpacket_tx_send(txq->tx, batch, dev->mtu);
        ovs_mutex_unlock(&txq->lock);
    } else {
        afpacket_tx_send(txq->tx, batch, dev->mtu);
    }
    return 0;
}

/* The class's rxq_alloc. */
static struct netdev_rxq *
afpacket_rxq_alloc(void)
{
    struct netdev_rxq_afpacket *rxq = xzalloc(sizeof *rxq);

    return &rxq->up;
}

/* The class's rxq_construct: the queue reads the port's ring of its id. */
static int
afpacket_rxq_construct(struct netdev_rxq *rxq_)
{
    struct netdev_rxq_afpacket *rxq = netdev_rxq_afpacket_cast(rxq_);
    struct netdev_afpacket *dev = netdev_afpacket_cast(rxq_->netdev);
    int error = 0;

    ovs_mutex_lock(&dev->base.mutex);
    if (rxq_->queue_id < dev->n_rxs) {
        rxq->rx = dev->rxs[rxq_->queue_id];
    } else {
        error = EINVAL;
    }
    ovs_mutex_unlock(&dev->base.mutex);
    return error;
}

/* The class's rxq_destruct: the ring belongs to the port, which closes it
 * on reconfigure or destruct. */
static void
afpacket_rxq_destruct(struct netdev_rxq *rxq OVS_UNUSED)
{
}

/* The class's rxq_dealloc. */
static void
afpacket_rxq_dealloc(struct netdev_rxq *rxq)
{
    free(netdev_rxq_afpacket_cast(rxq));
}

/* The class's rxq_recv, for the thread polling the queue. */
static int
afpacket_rxq_recv(struct netdev_rxq *rxq_, struct dp_packet_batch *batch,
                  int *qfill)
{
    struct netdev_rxq_afpacket *rxq = netdev_rxq_afpacket_cast(rxq_);

    if (qfill) {
        *qfill = -ENOTSUP;
    }
    return rxq->rx ? afpacket_rx_recv(rxq->rx, batch) : EAGAIN;
}

/* The class's rxq_wait, for a thread that blocks in poll_block(). */
static void
afpacket_rxq_wait(struct netdev_rxq *rxq_)
{
    struct netdev_rxq_afpacket *rxq = netdev_rxq_afpacket_cast(rxq_);

    if (rxq->rx) {
        afpacket_rx_wait(rxq->rx);
    }
}

/* Appends counter 'name' with 'value' to 'custom', whose array has room
 * for '*allocated' counters. */
static void
add_counter(struct netdev_custom_stats *custom, size_t *allocated,
            uint64_t value, const char *format, int qid)
{
    struct netdev_custom_counter *c;

    if (custom->size >= *allocated) {
        custom->counters = x2nrealloc(custom->counters, allocated,
                                      sizeof *custom->counters);
    }
    c = &custom->counters[custom->size++];
    c->value = value;
    snprintf(c->name, sizeof c->name, format, qid);
}

/* Collects the counters of 'dev''s rings and sockets, since they were last
 * opened: their drops added to 'totals', if nonnull, and each queue's
 * counters appended to 'custom', if nonnull, which must be empty. */
static void
collect_queue_stats(struct netdev_afpacket *dev, struct netdev_stats *totals,
                    struct netdev_custom_stats *custom)
    OVS_REQUIRES(dev->base.mutex)
{
    size_t allocated = 0;

    for (int i = 0; i < dev->n_rxs; i++) {
        struct afpacket_rx_stats s;

        if (!dev->rxs[i]) {
            continue;
        }
        afpacket_rx_get_stats(dev->rxs[i], &s);
        if (totals) {
            totals->rx_dropped += (s.kernel_dropped + s.dropped_truncated
                                   + s.dropped_vnet + s.dropped_too_long
                                   + s.dropped_tiny_gso);
        }
        if (custom) {
            add_counter(custom, &allocated, s.packets, "rx_q%d_packets", i);
            add_counter(custom, &allocated, s.bytes, "rx_q%d_bytes", i);
            add_counter(custom, &allocated, s.kernel_dropped,
                        "rx_q%d_ring_full_drops", i);
            add_counter(custom, &allocated, s.dropped_truncated,
                        "rx_q%d_truncated_drops", i);
            add_counter(custom, &allocated, s.dropped_vnet,
                        "rx_q%d_offload_drops", i);
            add_counter(custom, &allocated, s.dropped_too_long,
                        "rx_q%d_too_long_drops", i);
            add_counter(custom, &allocated, s.dropped_tiny_gso,
                        "rx_q%d_tiny_gso_drops", i);
            add_counter(custom, &allocated, s.reads, "rx_q%d_reads", i);
            add_counter(custom, &allocated, s.batch_waits,
                        "rx_q%d_batch_waits", i);
            add_counter(custom, &allocated, s.batch_wait_us,
                        "rx_q%d_batch_wait_us", i);
        }
    }
    for (int i = 0; i < dev->n_txqs; i++) {
        struct afpacket_tx_stats s;

        afpacket_tx_get_stats(dev->txqs[i].tx, &s);
        if (totals) {
            totals->tx_errors += s.errors;
            totals->tx_dropped += s.dropped;
        }
        if (custom) {
            add_counter(custom, &allocated, s.packets, "tx_q%d_packets", i);
            add_counter(custom, &allocated, s.bytes, "tx_q%d_bytes", i);
            add_counter(custom, &allocated, s.errors, "tx_q%d_errors", i);
            add_counter(custom, &allocated, s.dropped, "tx_q%d_dropped", i);
        }
    }
}

/* The class's get_stats: the interface's own counters, from Linux as for a
 * "system" port, plus the frames the rings and sockets dropped, which
 * Linux does not count against the interface. */
static int
afpacket_get_stats(const struct netdev *netdev, struct netdev_stats *stats)
{
    struct netdev_afpacket *dev = netdev_afpacket_cast(netdev);
    int error = netdev_linux_class.get_stats(netdev, stats);

    if (error) {
        return error;
    }
    ovs_mutex_lock(&dev->base.mutex);
    collect_queue_stats(dev, stats, NULL);
    ovs_mutex_unlock(&dev->base.mutex);
    return 0;
}

/* The class's get_custom_stats: each ring's and each socket's counters,
 * since the queues were last reopened. */
static int
afpacket_get_custom_stats(const struct netdev *netdev,
                          struct netdev_custom_stats *custom)
{
    struct netdev_afpacket *dev = netdev_afpacket_cast(netdev);

    custom->counters = NULL;
    custom->size = 0;
    ovs_mutex_lock(&dev->base.mutex);
    collect_queue_stats(dev, NULL, custom);
    ovs_mutex_unlock(&dev->base.mutex);
    return 0;
}

/* The class's get_status: netdev-linux's (driver and so on), then the
 * queues.  The bridge calls it whenever the interface changes; if the
 * interface with the port's name is not the one the sockets are bound to
 * (it was deleted, or deleted and created again), this asks for a
 * reconfigure to rebind them. */
static int
afpacket_get_status(const struct netdev *netdev_, struct smap *smap)
{
    struct netdev *netdev = CONST_CAST(struct netdev *, netdev_);
    struct netdev_afpacket *dev = netdev_afpacket_cast(netdev);
    int ifindex = if_nametoindex(netdev_get_name(netdev));

    netdev_linux_class.get_status(netdev, smap);

    ovs_mutex_lock(&dev->base.mutex);
    if (ifindex != dev->bound_ifindex && dev->n_txqs) {
        netdev_request_reconfigure(netdev);
    }
    smap_add_format(smap, "n_rxq", "%d", dev->n_rxs);
    smap_add_format(smap, "n_txq", "%d", dev->n_txqs);
    smap_add(smap, "rx_mode", afpacket_rx_mode_names[dev->ring.mode]);
    smap_add_format(smap, "ring_blocks", "%"PRIu32, dev->ring.n_blocks);
    smap_add_format(smap, "block_size", "%"PRIu32, dev->ring.block_size);
    smap_add(smap, "afpacket_link", (!dev->n_txqs ? "not yet open"
                                     : !dev->bound_ifindex
                                     ? "interface missing" : "bound"));
    ovs_mutex_unlock(&dev->base.mutex);
    return 0;
}

void
netdev_afpacket_register(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (ovsthread_once_start(&once)) {
        /* Everything but the packets and the configuration is OVS's "system"
         * class: the copy keeps its 'run', by which netdev-linux recognizes
         * its devices and keeps their cached MTU, flags and carrier up to
         * date from rtnetlink. */
        afpacket_class = netdev_linux_class;
        afpacket_class.type = "afpacket";
        afpacket_class.is_pmd = true;
        afpacket_class.alloc = afpacket_alloc;
        afpacket_class.construct = afpacket_construct;
        afpacket_class.destruct = afpacket_destruct;
        afpacket_class.dealloc = afpacket_dealloc;
        afpacket_class.get_config = afpacket_get_config;
        afpacket_class.set_config = afpacket_set_config;
        afpacket_class.set_tx_multiq = afpacket_set_tx_multiq;
        afpacket_class.reconfigure = afpacket_reconfigure;
        afpacket_class.send = afpacket_send;
        afpacket_class.send_wait = NULL;
        afpacket_class.get_stats = afpacket_get_stats;
        afpacket_class.get_custom_stats = afpacket_get_custom_stats;
        afpacket_class.get_status = afpacket_get_status;
        afpacket_class.rxq_alloc = afpacket_rxq_alloc;
        afpacket_class.rxq_construct = afpacket_rxq_construct;
        afpacket_class.rxq_destruct = afpacket_rxq_destruct;
        afpacket_class.rxq_dealloc = afpacket_rxq_dealloc;
        afpacket_class.rxq_recv = afpacket_rxq_recv;
        afpacket_class.rxq_wait = afpacket_rxq_wait;
        afpacket_class.rxq_drain = NULL;
        netdev_register_provider(&afpacket_class);
        ovsthread_once_done(&once);
    }
}

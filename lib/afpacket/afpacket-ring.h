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

#ifndef AFPACKET_RING_H
#define AFPACKET_RING_H 1

/* AF_PACKET sockets of one Linux interface: receive rings and transmit
 * sockets, for netdev-afpacket.
 *
 * Receive, in one of two modes (enum afpacket_rx_mode).
 *
 * AFPACKET_RX_RING: a TPACKET_V3 ring mapped into our memory.  Linux fills
 * it block by block with whole frames, each preceded by a virtio-net
 * header (PACKET_VNET_HDR, see afpacket-vnet.h), so that a 64 KiB GSO
 * packet arrives as one frame with its segment size.  A block is handed
 * over when it is full or when it has held a frame for
 * AFPACKET_RX_BLOCK_TIMEOUT_MS.
 *
 * AFPACKET_RX_SOCKET: the same socket options without a ring.  Linux
 * queues each frame on the socket, where it is readable at once (a ring
 * hands a block over only when it is full or its timeout expires); a batch
 * of up to NETDEV_MAX_BURST frames, each with its virtio-net header, is
 * read with one recvmmsg() into per-queue buffers large enough for a 64
 * KiB GSO frame, then copied into packets.  The frames queued on the
 * socket are bounded by its receive buffer, a few times the ring size
 * (Linux charges a small frame much more there than in a ring).
 *
 * In both modes, several queues of one interface can share its traffic in
 * a fanout group (PACKET_FANOUT_HASH: all packets of a flow go to the same
 * queue), and a queue ignores the interface's outgoing frames
 * (PACKET_IGNORE_OUTGOING), so it never sees what the switch itself sends.
 *
 * Transmit: a plain AF_PACKET socket with PACKET_VNET_HDR, bound to the
 * interface and receiving nothing; a batch goes out with one sendmmsg().
 *
 * Threads: an 'afpacket_rx' is polled by one thread at a time (the PMD
 * thread its queue is assigned to) and an 'afpacket_tx' used by one thread
 * at a time; its counters are written only by that thread, with relaxed
 * atomic stores and no read-modify-write, and read by any thread with
 * afpacket_rx_get_stats() / afpacket_tx_get_stats().  Open and close happen
 * in the main thread while no other thread uses the object. */

#include <stdbool.h>
#include <stdint.h>

struct dp_packet_batch;

/* How long Linux may hold a block that has frames before handing it over,
 * in ms, the smallest it takes: the added latency of a lone packet. */
#define AFPACKET_RX_BLOCK_TIMEOUT_MS 1

/* In socket mode, the longest batch wait a queue may be given, in us: the
 * block timeout of ring mode, which waits that long for every lone frame.
 * A port that can afford more latency than that is better in ring mode. */
#define AFPACKET_RX_MAX_BATCH_WAIT_US 1000

/* In socket mode, the room for one frame and its virtio-net header: as much
 * as the smallest ring block, so that both modes take the same frames (a
 * 64 KiB GSO frame with room to spare).  Only the bytes a frame fills are
 * ever touched, so the pages of a batch of these stay unused with small
 * frames. */
#define AFPACKET_RX_SOCK_BUF_SIZE (128 * 1024)

/* How a receive queue gets its frames from Linux. */
enum afpacket_rx_mode {
    AFPACKET_RX_RING,           /* TPACKET_V3 ring: no system call per
                                 * batch, but a lone frame waits for its
                                 * block's timeout. */
    AFPACKET_RX_SOCKET,         /* recvmmsg(): one system call per batch,
                                 * each frame readable as it arrives. */
};

/* The mode and size of a receive queue. */
struct afpacket_ring_config {
    enum afpacket_rx_mode mode; /* Ring or socket. */
    uint32_t block_size;        /* Bytes per block: a power of two, a
                                 * multiple of the page size, large enough
                                 * for the largest frame. */
    uint32_t n_blocks;          /* Blocks in the ring, at least 1.  In
                                 * socket mode, block_size * n_blocks sets
                                 * the socket's receive buffer. */
    uint32_t batch_wait_us;     /* Socket mode: while frames come faster
                                 * than one per this many us, read the
                                 * socket at most once per this many us, so
                                 * that each recvmmsg() takes a batch
                                 * (afpacket_rx_recv()).  0: never wait.
                                 * At most AFPACKET_RX_MAX_BATCH_WAIT_US. */
};

/* The counters of a receive ring. */
struct afpacket_rx_stats {
    uint64_t packets;           /* Frames received. */
    uint64_t bytes;             /* Their bytes, as received. */
    uint64_t dropped_truncated; /* Frames not whole: larger than a block
                                 * (or, in socket mode,
                                 * AFPACKET_RX_SOCK_BUF_SIZE), or whose ring
                                 * header does not fit its block. */
    uint64_t dropped_vnet;      /* Frames with a GSO type we cannot
                                 * segment or a bad virtio-net header. */
    uint64_t dropped_too_long;  /* Frames longer than a dp_packet can hold
                                 * that could not be cut (afpacket-frame.h). */
    uint64_t dropped_tiny_gso;  /* GSO frames with a segment size under
                                 * AFPACKET_VNET_MIN_GSO_SIZE. */
    uint64_t kernel_dropped;    /* Frames Linux dropped: ring or receive
                                 * buffer full. */
    uint64_t reads;             /* Reads that brought frames: recvmmsg()
                                 * calls in socket mode, blocks in ring
                                 * mode ('packets' / 'reads' is the mean
                                 * batch Linux gives). */
    uint64_t batch_waits;       /* Socket mode: waits for a batch to gather
                                 * before a read... */
    uint64_t batch_wait_us;     /* ...and the time they took, in us, as
                                 * measured (the timer's slack included). */
};

/* The counters of a transmit socket. */
struct afpacket_tx_stats {
    uint64_t packets;           /* Frames Linux accepted. */
    uint64_t bytes;             /* Their bytes. */
    uint64_t errors;            /* Frames refused: offload flags that
                                 * contradict their bytes, too large,
                                 * device gone... */
    uint64_t dropped;           /* Frames dropped for lack of buffer. */
};

struct afpacket_rx;
struct afpacket_tx;

/* Opens a receive ring of 'cfg''s mode and size on the interface with index
 * 'ifindex'.  If 'fanout_id' is nonnull, the ring joins a hash fanout
 * group: group '*fanout_id' if it is 0 or more, otherwise a new group whose
 * id is stored in '*fanout_id' for the next rings.  Stores the ring in
 * '*rxp' and returns 0, or returns a positive errno and stores NULL.  Main
 * thread. */
int afpacket_rx_open(int ifindex, const struct afpacket_ring_config *cfg,
                     int *fanout_id, struct afpacket_rx **rxp);

/* For tests and fuzz targets: makes in '*rxp' a receive queue in ring mode
 * that reads 'n_blocks' blocks of 'block_size' bytes at 'ring' (8-byte
 * aligned, a multiple of 8 bytes each), which the caller fills and hands
 * over as Linux would (TP_STATUS_USER in a block's status), with no
 * socket.  Returns 0, or EINVAL for a bad size or alignment.  The ring
 * stays the caller's. */
int afpacket_rx_open_memory(void *ring, uint32_t block_size,
                            uint32_t n_blocks, struct afpacket_rx **rxp);

/* Closes 'rx' and unmaps its ring.  Accepts NULL. */
void afpacket_rx_close(struct afpacket_rx *rx);

/* Moves received frames into 'batch', which it initializes, as up to
 * NETDEV_MAX_BURST new packets owned by the caller, each with its offload
 * flags from its virtio-net header and its RSS hash from Linux.  A frame
 * longer than a dp_packet can hold is dropped, or cut into several packets
 * (afpacket-frame.h); either way every packet fits its buffer.  Returns 0
 * if it got any, otherwise EAGAIN.  The polling thread only.
 *
 * Socket mode with a batch wait ('batch_wait_us' of the configuration): a
 * queue is "streaming" from the moment two reads in a row bring frames
 * less than 'batch_wait_us' apart until a read brings none.  While it
 * streams, a read that brought less than a full batch makes the next call
 * sleep (the calling thread, without a system call if the time is already
 * past) until 'batch_wait_us' after that read, so that frames gather on
 * the socket and the next recvmmsg() takes them together, as a ring block
 * would, instead of one per call.  The frames already read are returned
 * first, never held.  A lone frame, or frames sparser than one per
 * 'batch_wait_us' (ping, request/response), never waits; a frame that
 * does waits at most 'batch_wait_us' (plus the timer's slack). */
int afpacket_rx_recv(struct afpacket_rx *rx, struct dp_packet_batch *batch);

/* Arranges for poll_block() to wake up when 'rx' has frames to read: a
 * block, in ring mode, or a single frame, in socket mode. */
void afpacket_rx_wait(struct afpacket_rx *rx);

/* Stores the counters of 'rx' in '*stats'.  Also collects the count of
 * frames Linux dropped (which reading resets in Linux), so only one thread
 * may call it: the main thread. */
void afpacket_rx_get_stats(struct afpacket_rx *rx,
                           struct afpacket_rx_stats *stats);

/* Opens a transmit socket on the interface with index 'ifindex', or, if it
 * is 0, on none: then every frame sent is refused (ENXIO) and counted as an
 * error.  Stores it in '*txp' and returns 0, or returns a positive errno and
 * stores NULL.  Main thread. */
int afpacket_tx_open(int ifindex, struct afpacket_tx **txp);

/* Closes 'tx'.  Accepts NULL. */
void afpacket_tx_close(struct afpacket_tx *tx);

/* Sends the packets of 'batch' on 'tx' and frees them.  Packets marked for
 * TCP segmentation or with partial checksums go out as such, with a
 * virtio-net header (see afpacket_vnet_from_packet(); 'mtu' is the
 * interface's MTU, for a TSO packet that has no segment size).  The one
 * thread using 'tx'. */
void afpacket_tx_send(struct afpacket_tx *tx, struct dp_packet_batch *batch,
                      int mtu);

/* Stores the counters of 'tx' in '*stats'.  Any thread. */
void afpacket_tx_get_stats(const struct afpacket_tx *tx,
                           struct afpacket_tx_stats *stats);

#endif /* afpacket-ring.h */

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

/* AF_PACKET sockets of one interface: receive rings, transmit sockets. */

#include <config.h>
#include "afpacket-ring.h"

#include <errno.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "afpacket-frame.h"
#include "afpacket-vnet.h"
#include "dp-packet.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "packets.h"
#include "socket-util.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(afpacket_ring);

/* TPACKET_V3 still wants a frame size, though frames are packed at their
 * own lengths in a block; only its consistency with the block size is
 * checked.  This one divides every valid block size. */
#define AFPACKET_RX_FRAME_SIZE 2048

/* A socket-mode queue's receive buffer, in ring sizes.  Linux charges
 * each queued frame its buffer's whole truesize, about 1 KiB for a 64-byte
 * frame that takes some 128 bytes of a ring, so a buffer of the ring's
 * size would hold 8 times fewer small frames; with a 64-byte UDP flood the
 * socket then overflowed whenever the PMD thread lost its CPU for a few
 * milliseconds (15,177 drops in 4 s), and did not at 4 times.  Only the
 * frames queued take memory. */
#define AFPACKET_RX_SOCK_RCVBUF_FACTOR 4

/* Room in each socket-mode message for the PACKET_AUXDATA control message,
 * which carries the VLAN tag Linux took out of the frame. */
#define AFPACKET_RX_CMSG_SPACE CMSG_SPACE(sizeof(struct tpacket_auxdata))

/* The send buffer of a transmit socket: a full batch of 64 KiB GSO packets
 * must fit, or sendmmsg() would refuse the end of the batch. */
#define AFPACKET_TX_SNDBUF (4 * 1024 * 1024)

/* The PACKET_FANOUT argument: the group id in the low 16 bits, the mode
 * and its flags in the high 16. */
#define AFPACKET_FANOUT_ID_MASK 0xffff
#define AFPACKET_FANOUT_ARG(MODE_FLAGS, ID) (((MODE_FLAGS) << 16) | (ID))

/* The counters of a receive ring, by index into its array. */
enum afpacket_rx_counter {
    AFPACKET_RX_PACKETS,
    AFPACKET_RX_BYTES,
    AFPACKET_RX_DROPPED_TRUNCATED,
    AFPACKET_RX_DROPPED_VNET,
    AFPACKET_RX_DROPPED_TOO_LONG,
    AFPACKET_RX_DROPPED_TINY_GSO,
    AFPACKET_RX_READS,
    AFPACKET_RX_BATCH_WAITS,
    AFPACKET_RX_BATCH_WAIT_US,
    AFPACKET_RX_N_COUNTERS
};

/* The counters of a transmit socket, by index into its array. */
enum afpacket_tx_counter {
    AFPACKET_TX_PACKETS,
    AFPACKET_TX_BYTES,
    AFPACKET_TX_ERRORS,
    AFPACKET_TX_DROPPED,
    AFPACKET_TX_N_COUNTERS
};

/* Scratch space for one recvmmsg() of a batch, in socket mode. */
struct afpacket_rx_msgs {
    struct mmsghdr msgs[NETDEV_MAX_BURST];
    struct iovec iovs[NETDEV_MAX_BURST];
    union {
        struct cmsghdr align;   /* For the alignment of a cmsghdr. */
        uint8_t space[AFPACKET_RX_CMSG_SPACE];
    } cmsgs[NETDEV_MAX_BURST];  /* Their control messages. */
    uint8_t *bufs;              /* NETDEV_MAX_BURST buffers of
                                 * AFPACKET_RX_SOCK_BUF_SIZE bytes. */
    int n_msgs;                 /* Messages the last recvmmsg() read... */
    int next_msg;               /* ...and the first not yet turned into
                                 * packets (a batch may fill first: a frame
                                 * can become several packets). */
};

struct afpacket_rx {
    /* Fixed from open to close. */
    int fd;                     /* The AF_PACKET socket. */
    enum afpacket_rx_mode mode; /* Ring or socket. */
    struct afpacket_rx_msgs *msgs;  /* Socket mode: the scratch space,
                                     * owned by the polling thread. */
    uint8_t *ring;              /* Ring mode: its mapped ring (or, from
                                 * afpacket_rx_open_memory(), the
                                 * caller's)... */
    size_t ring_size;           /* ...of this many bytes... */
    uint32_t block_size;        /* ...in blocks of this size... */
    uint32_t n_blocks;          /* ...and this many. */

    /* Owned by the polling thread: where reading stands. */
    uint32_t block;             /* Index of the block to read next. */
    bool block_open;            /* 'block' is ours (Linux handed it over). */
    uint32_t next_ofs;          /* Offset in 'block' of the next frame. */
    uint32_t frames_left;       /* Frames left to read in an open block. */

    /* Socket mode: the batch wait (see afpacket_rx_recv() in the header).
     * 'batch_wait_us' is fixed from open to close; the rest is owned by the
     * polling thread. */
    uint32_t batch_wait_us;     /* The configuration's; 0: never wait. */
    long long int last_read_us; /* When the last read that brought frames
                                 * began (CLOCK_MONOTONIC), or 0. */
    bool streaming;             /* Reads bring frames less than
                                 * 'batch_wait_us' apart. */
    bool wait_next;             /* The next read waits for a batch until
                                 * 'last_read_us' + 'batch_wait_us'. */

    /* Written by the polling thread, read by any. */
    atomic_uint64_t counters[AFPACKET_RX_N_COUNTERS];

    /* Owned by the main thread: Linux's drop count, summed over reads
     * (reading it resets it in Linux). */
    uint64_t kernel_dropped;
};

/* Scratch space for one sendmmsg() of a batch. */
struct afpacket_tx_msgs {
    struct mmsghdr msgs[NETDEV_MAX_BURST];
    struct iovec iovs[NETDEV_MAX_BURST][2];
    struct virtio_net_hdr vnets[NETDEV_MAX_BURST];
};

struct afpacket_tx {
    int fd;                     /* The AF_PACKET socket, fixed. */
    struct afpacket_tx_msgs scratch;    /* Owned by the sending thread. */

    /* Written by the sending thread, read by any. */
    atomic_uint64_t counters[AFPACKET_TX_N_COUNTERS];
};

/* Adds 'n' to counter 'c' of 'counters', which only the calling thread
 * writes. */
static inline void
counter_add(atomic_uint64_t *counters, int c, uint64_t n)
{
    uint64_t v;

    atomic_read_relaxed(&counters[c], &v);
    atomic_store_relaxed(&counters[c], v + n);
}

/* Reads counter 'c' of 'counters'. */
static inline uint64_t
counter_get(const atomic_uint64_t *counters, int c)
{
    uint64_t v;

    atomic_read_relaxed(CONST_CAST(atomic_uint64_t *, &counters[c]), &v);
    return v;
}

/* Sets integer socket option 'opt' of level 'level' on 'fd' to 'value'.
 * Returns 0 or a positive errno, and logs the failure, naming it 'what'. */
static int
set_sockopt_int(int fd, int level, int opt, int value, const char *what)
{
    if (setsockopt(fd, level, opt, &value, sizeof value) < 0) {
        int error = errno;

        VLOG_WARN("AF_PACKET socket: cannot set %s (%s)", what,
                  ovs_strerror(error));
        return error;
    }
    return 0;
}

/* Binds 'fd' to interface 'ifindex' for frames of Ethertype 'protocol' (0:
 * none, so that a transmit socket receives nothing). */
static int
bind_to_ifindex(int fd, int ifindex, uint16_t protocol)
{
    struct sockaddr_ll sll = {
        .sll_family = AF_PACKET,
        .sll_protocol = htons(protocol),
        .sll_ifindex = ifindex,
    };

    if (bind(fd, (struct sockaddr *) &sll, sizeof sll) < 0) {
        int error = errno;

        VLOG_WARN("AF_PACKET socket: cannot bind to ifindex %d (%s)",
                  ifindex, ovs_strerror(error));
        return error;
    }
    return 0;
}

/* Attaches to 'fd' a classic BPF filter that drops the frames the
 * interface sends.  PACKET_IGNORE_OUTGOING does that for a lone socket, but
 * a fanout group receives through a hook of its own that ignores the option
 * (Linux 6.10 added a fanout flag for it, which older kernels refuse), so
 * the rings of a group would see every frame the switch sends and forward
 * it again. */
static int
attach_ignore_outgoing_filter(int fd)
{
    static struct sock_filter code[] = {
        /* A = skb->pkt_type. */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE),
        /* If A == PACKET_OUTGOING, drop, else take the whole frame. */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, 0),
        BPF_STMT(BPF_RET | BPF_K, UINT32_MAX),
    };
    struct sock_fprog prog = { .len = ARRAY_SIZE(code), .filter = code };

    if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog)) {
        int error = errno;

        VLOG_WARN("AF_PACKET socket: cannot attach a filter (%s)",
                  ovs_strerror(error));
        return error;
    }
    return 0;
}

/* Makes 'rx' join hash fanout group '*fanout_id', or a new group if it is
 * negative, storing the new group's id. */
static int
join_fanout(struct afpacket_rx *rx, int *fanout_id)
{
    int arg;

    if (*fanout_id < 0) {
        /* Linux picks an id no other group of this namespace uses. */
        socklen_t len = sizeof arg;
        int error;

        error = set_sockopt_int(rx->fd, SOL_PACKET, PACKET_FANOUT,
                                AFPACKET_FANOUT_ARG(PACKET_FANOUT_HASH
                                                | PACKET_FANOUT_FLAG_UNIQUEID,
                                                0),
                                "a new fanout group");
        if (error) {
            return error;
        }
        if (getsockopt(rx->fd, SOL_PACKET, PACKET_FANOUT, &arg, &len) < 0) {
            return errno;
        }
        *fanout_id = arg & AFPACKET_FANOUT_ID_MASK;
        return 0;
    }
    return set_sockopt_int(rx->fd, SOL_PACKET, PACKET_FANOUT,
                           AFPACKET_FANOUT_ARG(PACKET_FANOUT_HASH,
                                               *fanout_id),
                           "the fanout group");
}

/* Sets up the TPACKET_V3 ring of 'rx' with 'cfg''s size and maps it. */
static int
rx_setup_ring(struct afpacket_rx *rx, const struct afpacket_ring_config *cfg)
{
    struct tpacket_req3 req = {
        .tp_block_size = cfg->block_size,
        .tp_block_nr = cfg->n_blocks,
        .tp_frame_size = AFPACKET_RX_FRAME_SIZE,
        .tp_frame_nr = (cfg->block_size / AFPACKET_RX_FRAME_SIZE
                        * cfg->n_blocks),
        .tp_retire_blk_tov = AFPACKET_RX_BLOCK_TIMEOUT_MS,
        .tp_feature_req_word = TP_FT_REQ_FILL_RXHASH,
    };
    int error;
    void *ring;

    error = set_sockopt_int(rx->fd, SOL_PACKET, PACKET_VERSION, TPACKET_V3,
                            "TPACKET_V3");
    if (error) {
        return error;
    }
    if (setsockopt(rx->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof req)) {
        error = errno;
        VLOG_WARN("AF_PACKET socket: cannot set up a receive ring of %"
                  PRIu32" blocks of %"PRIu32" bytes (%s)", cfg->n_blocks,
                  cfg->block_size, ovs_strerror(error));
        return error;
    }
    rx->ring_size = (size_t) cfg->block_size * cfg->n_blocks;
    ring = mmap(NULL, rx->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
                rx->fd, 0);
    if (ring == MAP_FAILED) {
        error = errno;
        VLOG_WARN("AF_PACKET socket: cannot map its receive ring (%s)",
                  ovs_strerror(error));
        return error;
    }
    rx->ring = ring;
    rx->block_size = cfg->block_size;
    rx->n_blocks = cfg->n_blocks;
    return 0;
}

/* Sets up socket mode for 'rx': a receive buffer of
 * AFPACKET_RX_SOCK_RCVBUF_FACTOR times 'cfg''s ring size,
 * the VLAN tags Linux takes out of frames as control messages, and the
 * scratch space of a batch. */
static int
rx_setup_socket(struct afpacket_rx *rx, const struct afpacket_ring_config *cfg)
{
    uint64_t rcvbuf = ((uint64_t) cfg->block_size * cfg->n_blocks
                       * AFPACKET_RX_SOCK_RCVBUF_FACTOR);
    struct afpacket_rx_msgs *m;
    int error;

    error = set_sockopt_int(rx->fd, SOL_PACKET, PACKET_AUXDATA, 1,
                            "PACKET_AUXDATA");
    if (error) {
        return error;
    }
    rcvbuf = MIN(rcvbuf, INT_MAX / 2);  /* Linux doubles it. */
    if (set_sockopt_int(rx->fd, SOL_SOCKET, SO_RCVBUFFORCE, rcvbuf,
                        "SO_RCVBUFFORCE")) {
        /* Not root: the ordinary limit will do, with more drops. */
        set_sockopt_int(rx->fd, SOL_SOCKET, SO_RCVBUF, rcvbuf, "SO_RCVBUF");
    }

    m = rx->msgs = xzalloc(sizeof *rx->msgs);
    m->bufs = xmalloc((size_t) NETDEV_MAX_BURST * AFPACKET_RX_SOCK_BUF_SIZE);
    for (int i = 0; i < NETDEV_MAX_BURST; i++) {
        m->iovs[i].iov_base = m->bufs + (size_t) i * AFPACKET_RX_SOCK_BUF_SIZE;
        m->iovs[i].iov_len = AFPACKET_RX_SOCK_BUF_SIZE;
    }
    rx->batch_wait_us = MIN(cfg->batch_wait_us,
                            AFPACKET_RX_MAX_BATCH_WAIT_US);
    return 0;
}

int
afpacket_rx_open(int ifindex, const struct afpacket_ring_config *cfg,
                 int *fanout_id, struct afpacket_rx **rxp)
{
    struct afpacket_rx *rx;
    int error;

    *rxp = NULL;
    rx = xzalloc_cacheline(sizeof *rx);
    rx->mode = cfg->mode;
    rx->fd = socket(AF_PACKET, SOCK_RAW, 0);
    if (rx->fd < 0) {
        error = errno;
        VLOG_WARN("cannot create AF_PACKET socket (%s)", ovs_strerror(error));
        free_cacheline(rx);
        return error;
    }
    error = set_sockopt_int(rx->fd, SOL_PACKET, PACKET_VNET_HDR, 1,
                            "PACKET_VNET_HDR");
    error = error ? error : set_sockopt_int(rx->fd, SOL_PACKET,
                                            PACKET_IGNORE_OUTGOING, 1,
                                            "PACKET_IGNORE_OUTGOING");
    if (!error) {
        error = (cfg->mode == AFPACKET_RX_RING
                 ? rx_setup_ring(rx, cfg)
                 : rx_setup_socket(rx, cfg));
    }
    if (!error && fanout_id) {
        error = attach_ignore_outgoing_filter(rx->fd);
    }
    error = error ? error : bind_to_ifindex(rx->fd, ifindex, ETH_P_ALL);
    if (!error && fanout_id) {
        error = join_fanout(rx, fanout_id);
    }
    if (error) {
        afpacket_rx_close(rx);
        return error;
    }
    *rxp = rx;
    return 0;
}

int
afpacket_rx_open_memory(void *ring, uint32_t block_size, uint32_t n_blocks,
                        struct afpacket_rx **rxp)
{
    struct afpacket_rx *rx;

    *rxp = NULL;
    if (!block_size || !n_blocks || (uintptr_t) ring % sizeof(uint64_t)
        || block_size % sizeof(uint64_t)) {
        return EINVAL;
    }
    rx = xzalloc_cacheline(sizeof *rx);
    rx->fd = -1;
    rx->mode = AFPACKET_RX_RING;
    rx->ring = ring;
    rx->block_size = block_size;
    rx->n_blocks = n_blocks;
    *rxp = rx;
    return 0;
}

void
afpacket_rx_close(struct afpacket_rx *rx)
{
    if (!rx) {
        return;
    }
    if (rx->fd < 0) {
        /* From afpacket_rx_open_memory(): nothing of ours but 'rx'. */
        free_cacheline(rx);
        return;
    }
    if (rx->ring) {
        munmap(rx->ring, rx->ring_size);
    }
    if (rx->msgs) {
        free(rx->msgs->bufs);
        free(rx->msgs);
    }
    close(rx->fd);
    free_cacheline(rx);
}

/* Returns block 'i' of 'rx''s ring. */
static struct tpacket_block_desc *
rx_block(const struct afpacket_rx *rx, uint32_t i)
{
    return ALIGNED_CAST(struct tpacket_block_desc *,
                        rx->ring + (size_t) i * rx->block_size);
}

/* Opens the next block of 'rx' if Linux has handed it over.  Returns true
 * if a block is open. */
static bool
rx_open_block(struct afpacket_rx *rx)
{
    struct tpacket_block_desc *bd = rx_block(rx, rx->block);
    uint32_t status = *(volatile uint32_t *) &bd->hdr.bh1.block_status;

    if (!(status & TP_STATUS_USER)) {
        return false;
    }
    /* Read the frames only after seeing the status that publishes them. */
    atomic_thread_fence(memory_order_acquire);
    rx->block_open = true;
    if (afpacket_v3_block_open((const uint8_t *) bd, rx->block_size,
                               &rx->next_ofs, &rx->frames_left)) {
        counter_add(rx->counters, AFPACKET_RX_DROPPED_TRUNCATED, 1);
    } else if (rx->frames_left) {
        counter_add(rx->counters, AFPACKET_RX_READS, 1);
    }
    return true;
}

/* Gives the open block of 'rx' back to Linux and moves to the next. */
static void
rx_release_block(struct afpacket_rx *rx)
{
    struct tpacket_block_desc *bd = rx_block(rx, rx->block);

    /* Finish reading the block before Linux may overwrite it. */
    atomic_thread_fence(memory_order_release);
    *(volatile uint32_t *) &bd->hdr.bh1.block_status = TP_STATUS_KERNEL;
    rx->block_open = false;
    rx->frames_left = 0;
    rx->block = rx->block + 1 < rx->n_blocks ? rx->block + 1 : 0;
}

/* Turns the 'len' bytes of 'frame', received with virtio-net header 'vnet'
 * and VLAN tag 'info', into packets added to 'batch', which must have room
 * for afpacket_frame_n_slots() more, each with RSS hash 'rxhash' if
 * nonzero.  Counts the frame if it is dropped. */
static void
rx_frame_to_batch(struct afpacket_rx *rx, const uint8_t *frame, uint32_t len,
                  const struct virtio_net_hdr *vnet,
                  const struct afpacket_frame_info *info, uint32_t rxhash,
                  struct dp_packet_batch *batch)
{
    size_t first = dp_packet_batch_size(batch);

    switch (afpacket_frame_to_packets(frame, len, vnet, info, batch)) {
    case AFPACKET_FRAME_OK:
        if (rxhash) {
            for (size_t i = first; i < dp_packet_batch_size(batch); i++) {
                dp_packet_set_rss_hash(batch->packets[i], rxhash);
            }
        }
        break;
    case AFPACKET_FRAME_TOO_LONG:
        counter_add(rx->counters, AFPACKET_RX_DROPPED_TOO_LONG, 1);
        break;
    case AFPACKET_FRAME_BAD_VNET:
        counter_add(rx->counters, AFPACKET_RX_DROPPED_VNET, 1);
        break;
    case AFPACKET_FRAME_TINY_GSO:
        counter_add(rx->counters, AFPACKET_RX_DROPPED_TINY_GSO, 1);
        break;
    case AFPACKET_FRAME_MALFORMED:
    default:
        counter_add(rx->counters, AFPACKET_RX_DROPPED_TRUNCATED, 1);
        break;
    }
}

/* Returns the room left in 'batch'. */
static size_t
batch_room(const struct dp_packet_batch *batch)
{
    return NETDEV_MAX_BURST - dp_packet_batch_size(batch);
}

/* Ring mode of afpacket_rx_recv(): reads the frames of the blocks Linux
 * has handed over into 'batch', which is initialized and empty, and stops
 * before a frame the batch has no room left for. */
static void
rx_recv_ring(struct afpacket_rx *rx, struct dp_packet_batch *batch)
{
    while (!dp_packet_batch_is_full(batch)) {
        const uint8_t *block;
        struct afpacket_v3_frame f;
        uint32_t next_ofs;
        int error;

        if (!rx->block_open && !rx_open_block(rx)) {
            break;
        }
        if (!rx->frames_left) {
            rx_release_block(rx);
            continue;
        }
        block = (const uint8_t *) rx_block(rx, rx->block);
        error = afpacket_v3_frame_parse(block, rx->block_size, rx->next_ofs,
                                        &f, &next_ofs);
        if (error == EINVAL) {
            /* The rest of the block cannot be found. */
            counter_add(rx->counters, AFPACKET_RX_DROPPED_TRUNCATED, 1);
            rx_release_block(rx);
            continue;
        } else if (error) {
            counter_add(rx->counters, AFPACKET_RX_DROPPED_TRUNCATED, 1);
        } else if (batch_room(batch) < afpacket_frame_n_slots(f.len,
                                                              &f.info)) {
            /* Next time, with an empty batch. */
            break;
        } else {
            rx_frame_to_batch(rx, f.frame, f.len, f.vnet, &f.info, f.rxhash,
                              batch);
        }
        rx->next_ofs = next_ofs;
        if (!--rx->frames_left) {
            rx_release_block(rx);
        }
    }
}

/* Reads the VLAN tag of a socket-mode message 'msg' from its PACKET_AUXDATA
 * control message into 'info'. */
static void
rx_msg_info(const struct msghdr *msg, struct afpacket_frame_info *info)
{
    const struct cmsghdr *cmsg;

    memset(info, 0, sizeof *info);
    for (cmsg = CMSG_FIRSTHDR(msg); cmsg;
         cmsg = CMSG_NXTHDR(CONST_CAST(struct msghdr *, msg),
                            CONST_CAST(struct cmsghdr *, cmsg))) {
        const struct tpacket_auxdata *aux;

        if (cmsg->cmsg_level != SOL_PACKET
            || cmsg->cmsg_type != PACKET_AUXDATA
            || cmsg->cmsg_len < CMSG_LEN(sizeof *aux)) {
            continue;
        }
        aux = ALIGNED_CAST(const struct tpacket_auxdata *, CMSG_DATA(cmsg));
        if (aux->tp_status & TP_STATUS_VLAN_VALID) {
            info->vlan_valid = true;
            info->vlan_tpid = (aux->tp_status & TP_STATUS_VLAN_TPID_VALID
                               ? aux->tp_vlan_tpid : ETH_TYPE_VLAN_8021Q);
            info->vlan_tci = aux->tp_vlan_tci;
        }
    }
}

/* Returns the time now on CLOCK_MONOTONIC, in us: the real time, which the
 * test suite's time/warp does not move (a batch wait is a real sleep). */
static long long int
rx_now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* Sleeps the calling thread until CLOCK_MONOTONIC says 'until_us'.  Not
 * quiescent: the wait is short, inside the thread's poll of a queue. */
static void
rx_sleep_until(long long int until_us)
{
    struct timespec ts = {
        .tv_sec = until_us / 1000000,
        .tv_nsec = until_us % 1000000 * 1000,
    };

    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)
           == EINTR) {
        continue;
    }
}

/* Socket mode: if the last read of 'rx' asked for it, waits for frames to
 * gather until 'batch_wait_us' after that read, and counts the wait.
 * Returns the time now, in us, or 0 if 'rx' never waits (no clock read). */
static long long int
rx_socket_batch_wait(struct afpacket_rx *rx)
{
    long long int now;

    if (!rx->batch_wait_us) {
        return 0;
    }
    now = rx_now_us();
    if (rx->wait_next) {
        long long int until = rx->last_read_us + rx->batch_wait_us;

        rx->wait_next = false;
        if (now < until) {
            long long int start = now;

            rx_sleep_until(until);
            now = rx_now_us();
            counter_add(rx->counters, AFPACKET_RX_BATCH_WAITS, 1);
            counter_add(rx->counters, AFPACKET_RX_BATCH_WAIT_US, now - start);
        }
    }
    return now;
}

/* Socket mode: notes that a read of 'rx' that began at 'now' (in us)
 * brought 'n' frames, and decides whether the next read waits for a batch
 * (see afpacket_rx_recv() in the header). */
static void
rx_socket_note_read(struct afpacket_rx *rx, long long int now, int n)
{
    if (!rx->batch_wait_us) {
        return;
    }
    if (!n) {
        rx->streaming = false;
        return;
    }
    if (!rx->streaming && rx->last_read_us
        && now - rx->last_read_us < rx->batch_wait_us) {
        rx->streaming = true;
    }
    rx->last_read_us = now;
    /* After a full batch more frames are likely queued already. */
    rx->wait_next = rx->streaming && n < NETDEV_MAX_BURST;
}

/* Reads up to a batch of the frames queued on the socket of 'rx' with one
 * recvmmsg(), into its scratch space, after a batch wait if the last read
 * asked for one.  Returns the number read. */
static int
rx_socket_read(struct afpacket_rx *rx)
{
    struct afpacket_rx_msgs *m = rx->msgs;
    long long int now = rx_socket_batch_wait(rx);
    int n;

    for (int i = 0; i < NETDEV_MAX_BURST; i++) {
        m->msgs[i].msg_hdr = (struct msghdr) {
            .msg_iov = &m->iovs[i],
            .msg_iovlen = 1,
            .msg_control = m->cmsgs[i].space,
            .msg_controllen = sizeof m->cmsgs[i].space,
        };
    }
    do {
        n = recvmmsg(rx->fd, m->msgs, NETDEV_MAX_BURST, MSG_DONTWAIT, NULL);
    } while (n < 0 && errno == EINTR);
    n = MAX(n, 0);
    if (n) {
        counter_add(rx->counters, AFPACKET_RX_READS, 1);
    }
    rx_socket_note_read(rx, now, n);
    return n;
}

/* Socket mode of afpacket_rx_recv(): turns the frames read from the socket
 * and not yet taken, or if there are none, the next ones, into packets in
 * 'batch', which is initialized and empty, until the batch has no room for
 * the next frame. */
static void
rx_recv_socket(struct afpacket_rx *rx, struct dp_packet_batch *batch)
{
    struct afpacket_rx_msgs *m = rx->msgs;

    if (m->next_msg >= m->n_msgs) {
        m->n_msgs = rx_socket_read(rx);
        m->next_msg = 0;
    }
    for (; m->next_msg < m->n_msgs; m->next_msg++) {
        const struct msghdr *msg = &m->msgs[m->next_msg].msg_hdr;
        const uint8_t *buf = m->iovs[m->next_msg].iov_base;
        uint32_t len = m->msgs[m->next_msg].msg_len;
        struct afpacket_frame_info info;

        if (OVS_UNLIKELY(msg->msg_flags & MSG_TRUNC
                         || len < sizeof(struct virtio_net_hdr)
                         || len > AFPACKET_RX_SOCK_BUF_SIZE)) {
            counter_add(rx->counters, AFPACKET_RX_DROPPED_TRUNCATED, 1);
            continue;
        }
        len -= sizeof(struct virtio_net_hdr);
        rx_msg_info(msg, &info);
        if (batch_room(batch) < afpacket_frame_n_slots(len, &info)) {
            /* Next time, with an empty batch. */
            break;
        }
        rx_frame_to_batch(rx, buf + sizeof(struct virtio_net_hdr), len,
                          ALIGNED_CAST(const struct virtio_net_hdr *, buf),
                          &info, 0, batch);
    }
}

int
afpacket_rx_recv(struct afpacket_rx *rx, struct dp_packet_batch *batch)
{
    uint64_t bytes = 0;
    struct dp_packet *p;

    dp_packet_batch_init(batch);
    if (rx->mode == AFPACKET_RX_RING) {
        rx_recv_ring(rx, batch);
    } else {
        rx_recv_socket(rx, batch);
    }
    if (dp_packet_batch_is_empty(batch)) {
        return EAGAIN;
    }
    DP_PACKET_BATCH_FOR_EACH (i, p, batch) {
        bytes += dp_packet_size(p);
    }
    counter_add(rx->counters, AFPACKET_RX_PACKETS,
                dp_packet_batch_size(batch));
    counter_add(rx->counters, AFPACKET_RX_BYTES, bytes);
    return 0;
}

void
afpacket_rx_wait(struct afpacket_rx *rx)
{
    if (rx->msgs && rx->msgs->next_msg < rx->msgs->n_msgs) {
        /* Frames already read wait for a batch with room. */
        poll_immediate_wake();
    } else {
        poll_fd_wait(rx->fd, POLLIN);
    }
}

void
afpacket_rx_get_stats(struct afpacket_rx *rx, struct afpacket_rx_stats *stats)
{
    struct tpacket_stats_v3 kstats;
    socklen_t len = sizeof kstats;

    if (rx->fd >= 0
        && !getsockopt(rx->fd, SOL_PACKET, PACKET_STATISTICS, &kstats,
                       &len)) {
        rx->kernel_dropped += kstats.tp_drops;
    }
    stats->packets = counter_get(rx->counters, AFPACKET_RX_PACKETS);
    stats->bytes = counter_get(rx->counters, AFPACKET_RX_BYTES);
    stats->dropped_truncated = counter_get(rx->counters,
                                           AFPACKET_RX_DROPPED_TRUNCATED);
    stats->dropped_vnet = counter_get(rx->counters, AFPACKET_RX_DROPPED_VNET);
    stats->dropped_too_long = counter_get(rx->counters,
                                          AFPACKET_RX_DROPPED_TOO_LONG);
    stats->dropped_tiny_gso = counter_get(rx->counters,
                                          AFPACKET_RX_DROPPED_TINY_GSO);
    stats->kernel_dropped = rx->kernel_dropped;
    stats->reads = counter_get(rx->counters, AFPACKET_RX_READS);
    stats->batch_waits = counter_get(rx->counters, AFPACKET_RX_BATCH_WAITS);
    stats->batch_wait_us = counter_get(rx->counters,
                                       AFPACKET_RX_BATCH_WAIT_US);
}

int
afpacket_tx_open(int ifindex, struct afpacket_tx **txp)
{
    struct afpacket_tx *tx;
    int error;

    *txp = NULL;
    tx = xzalloc_cacheline(sizeof *tx);
    tx->fd = socket(AF_PACKET, SOCK_RAW, 0);
    if (tx->fd < 0) {
        error = errno;
        VLOG_WARN("cannot create AF_PACKET socket (%s)", ovs_strerror(error));
        free_cacheline(tx);
        return error;
    }
    error = set_sockopt_int(tx->fd, SOL_PACKET, PACKET_VNET_HDR, 1,
                            "PACKET_VNET_HDR");
    if (!error && set_sockopt_int(tx->fd, SOL_SOCKET, SO_SNDBUFFORCE,
                                  AFPACKET_TX_SNDBUF, "SO_SNDBUFFORCE")) {
        /* Not root: the ordinary limit will do, with more drops. */
        set_sockopt_int(tx->fd, SOL_SOCKET, SO_SNDBUF, AFPACKET_TX_SNDBUF,
                        "SO_SNDBUF");
    }
    error = error ? error : bind_to_ifindex(tx->fd, ifindex, 0);
    if (error) {
        afpacket_tx_close(tx);
        return error;
    }
    *txp = tx;
    return 0;
}

void
afpacket_tx_close(struct afpacket_tx *tx)
{
    if (tx) {
        close(tx->fd);
        free_cacheline(tx);
    }
}

void
afpacket_tx_send(struct afpacket_tx *tx, struct dp_packet_batch *batch,
                 int mtu)
{
    struct afpacket_tx_msgs *m = &tx->scratch;
    uint64_t sent = 0, errors = 0, dropped = 0, bytes = 0;
    struct dp_packet *p;
    int n = 0, i = 0;

    DP_PACKET_BATCH_FOR_EACH (j, p, batch) {
        struct virtio_net_hdr *vnet = &m->vnets[n];

        if (OVS_UNLIKELY(afpacket_vnet_from_packet(p, vnet, mtu))) {
            errors++;
            continue;
        }
        m->iovs[n][0].iov_base = vnet;
        m->iovs[n][0].iov_len = sizeof *vnet;
        m->iovs[n][1].iov_base = dp_packet_data(p);
        m->iovs[n][1].iov_len = dp_packet_size(p);
        m->msgs[n].msg_hdr = (struct msghdr) {
            .msg_iov = m->iovs[n],
            .msg_iovlen = 2,
        };
        n++;
    }

    while (i < n) {
        int retval = sendmmsg(tx->fd, &m->msgs[i], n - i, MSG_DONTWAIT);

        if (retval > 0) {
            for (int k = i; k < i + retval; k++) {
                bytes += m->iovs[k][1].iov_len;
            }
            i += retval;
            sent += retval;
        } else if (retval < 0 && errno == EINTR) {
            continue;
        } else if (retval < 0 && (errno == EAGAIN || errno == ENOBUFS)) {
            /* Linux is out of buffers for now: drop the rest. */
            dropped += n - i;
            break;
        } else {
            /* The first remaining frame was refused (too large, device
             * down or gone...): skip it. */
            errors++;
            i++;
        }
    }

    counter_add(tx->counters, AFPACKET_TX_PACKETS, sent);
    counter_add(tx->counters, AFPACKET_TX_BYTES, bytes);
    counter_add(tx->counters, AFPACKET_TX_ERRORS, errors);
    counter_add(tx->counters, AFPACKET_TX_DROPPED, dropped);
    dp_packet_delete_batch(batch, true);
}

void
afpacket_tx_get_stats(const struct afpacket_tx *tx,
                      struct afpacket_tx_stats *stats)
{
    stats->packets = counter_get(tx->counters, AFPACKET_TX_PACKETS);
    stats->bytes = counter_get(tx->counters, AFPACKET_TX_BYTES);
    stats->errors = counter_get(tx->counters, AFPACKET_TX_ERRORS);
    stats->dropped = counter_get(tx->counters, AFPACKET_TX_DROPPED);
}

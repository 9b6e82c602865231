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
#include <unistd.h>

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

/* Room left in front of each received packet: enough to push a VLAN tag or
 * an ipip tunnel's outer headers without moving the data (dpif-netdev's
 * DP_NETDEV_HEADROOM only fits a VLAN tag), plus 2 bytes so that the IP
 * header behind a 14-byte Ethernet header is 4-byte aligned. */
#define AFPACKET_RX_HEADROOM (128 + 2)

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
};

struct afpacket_rx {
    /* Fixed from open to close. */
    int fd;                     /* The AF_PACKET socket. */
    enum afpacket_rx_mode mode; /* Ring or socket. */
    struct afpacket_rx_msgs *msgs;  /* Socket mode: the scratch space,
                                     * owned by the polling thread. */
    uint8_t *ring;              /* Ring mode: its mapped ring... */
    size_t ring_size;           /* ...of this many bytes... */
    uint32_t block_size;        /* ...in blocks of this size... */
    uint32_t n_blocks;          /* ...and this many. */

    /* Owned by the polling thread: where reading stands. */
    uint32_t block;             /* Index of the block to read next. */
    const uint8_t *next;        /* Next frame in 'block', or NULL if that
                                 * block is not yet open (still Linux's). */
    uint32_t frames_left;       /* Frames left to read in an open block. */

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

void
afpacket_rx_close(struct afpacket_rx *rx)
{
    if (!rx) {
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
    rx->next = (const uint8_t *) bd + bd->hdr.bh1.offset_to_first_pkt;
    rx->frames_left = bd->hdr.bh1.num_pkts;
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
    rx->next = NULL;
    rx->frames_left = 0;
    rx->block = rx->block + 1 < rx->n_blocks ? rx->block + 1 : 0;
}

/* What Linux says of a received frame besides its bytes. */
struct rx_frame_info {
    bool vlan_valid;            /* Linux took a VLAN tag out of the frame: */
    uint16_t vlan_tpid;         /* ...its TPID... */
    uint16_t vlan_tci;          /* ...and TCI. */
};

/* Copies the 'len' bytes of 'frame', preceded in memory by the virtio-net
 * header 'vnet', into a new packet, with its VLAN tag back in place and its
 * offload metadata.  Returns NULL, counting why, if it must be dropped. */
static struct dp_packet *
rx_make_packet(struct afpacket_rx *rx, const uint8_t *frame, uint32_t len,
               const struct virtio_net_hdr *vnet,
               const struct rx_frame_info *info)
{
    struct dp_packet *p;
    int vlan_shift = 0;

    p = dp_packet_new_with_headroom(len, AFPACKET_RX_HEADROOM);
    memcpy(dp_packet_data(p), frame, len);
    dp_packet_set_size(p, len);

    if (info->vlan_valid) {
        /* Linux took the tag out of the frame (VLAN acceleration). */
        eth_push_vlan(p, htons(info->vlan_tpid), htons(info->vlan_tci));
        vlan_shift = VLAN_HEADER_LEN;
    }
    if (OVS_UNLIKELY(afpacket_vnet_to_packet(p, vnet, vlan_shift))) {
        counter_add(rx->counters, AFPACKET_RX_DROPPED_VNET, 1);
        dp_packet_delete(p);
        return NULL;
    }
    return p;
}

/* Copies the ring frame whose header is 'hdr' into a new packet.  Returns
 * NULL, counting why, if it must be dropped. */
static struct dp_packet *
rx_frame_to_packet(struct afpacket_rx *rx, const struct tpacket3_hdr *hdr)
{
    const uint8_t *frame = (const uint8_t *) hdr + hdr->tp_mac;
    struct rx_frame_info info = {
        .vlan_valid = (hdr->tp_status & TP_STATUS_VLAN_VALID) != 0,
        .vlan_tpid = (hdr->tp_status & TP_STATUS_VLAN_TPID_VALID
                      ? hdr->hv1.tp_vlan_tpid : ETH_TYPE_VLAN_8021Q),
        .vlan_tci = hdr->hv1.tp_vlan_tci,
    };
    struct dp_packet *p;

    if (OVS_UNLIKELY(hdr->tp_snaplen < hdr->tp_len
                     || hdr->tp_mac < sizeof(struct virtio_net_hdr))) {
        counter_add(rx->counters, AFPACKET_RX_DROPPED_TRUNCATED, 1);
        return NULL;
    }
    p = rx_make_packet(rx, frame, hdr->tp_snaplen,
                       ALIGNED_CAST(const struct virtio_net_hdr *,
                                    frame - sizeof(struct virtio_net_hdr)),
                       &info);
    if (p) {
        dp_packet_set_rss_hash(p, hdr->hv1.tp_rxhash);
    }
    return p;
}

/* Ring mode of afpacket_rx_recv(): reads the frames of the blocks Linux
 * has handed over into 'batch', which is initialized and empty. */
static void
rx_recv_ring(struct afpacket_rx *rx, struct dp_packet_batch *batch)
{
    while (!dp_packet_batch_is_full(batch)) {
        const struct tpacket3_hdr *hdr;
        struct dp_packet *p;

        if (!rx->next && !rx_open_block(rx)) {
            break;
        }
        if (!rx->frames_left) {
            rx_release_block(rx);
            continue;
        }
        hdr = ALIGNED_CAST(const struct tpacket3_hdr *, rx->next);
        p = rx_frame_to_packet(rx, hdr);
        if (p) {
            dp_packet_batch_add(batch, p);
        }
        rx->next += hdr->tp_next_offset;
        if (!--rx->frames_left) {
            rx_release_block(rx);
        }
    }
}

/* Reads the VLAN tag of a socket-mode message 'msg' from its PACKET_AUXDATA
 * control message into 'info'. */
static void
rx_msg_info(const struct msghdr *msg, struct rx_frame_info *info)
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

/* Socket mode of afpacket_rx_recv(): reads the frames queued on the socket,
 * up to a batch, with one recvmmsg(), into 'batch', which is initialized
 * and empty. */
static void
rx_recv_socket(struct afpacket_rx *rx, struct dp_packet_batch *batch)
{
    struct afpacket_rx_msgs *m = rx->msgs;
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

    for (int i = 0; i < n; i++) {
        const struct msghdr *msg = &m->msgs[i].msg_hdr;
        const uint8_t *buf = m->iovs[i].iov_base;
        uint32_t len = m->msgs[i].msg_len;
        struct rx_frame_info info;
        struct dp_packet *p;

        if (OVS_UNLIKELY(msg->msg_flags & MSG_TRUNC
                         || len < sizeof(struct virtio_net_hdr))) {
            counter_add(rx->counters, AFPACKET_RX_DROPPED_TRUNCATED, 1);
            continue;
        }
        rx_msg_info(msg, &info);
        p = rx_make_packet(rx, buf + sizeof(struct virtio_net_hdr),
                           len - sizeof(struct virtio_net_hdr),
                           ALIGNED_CAST(const struct virtio_net_hdr *, buf),
                           &info);
        if (p) {
            dp_packet_batch_add(batch, p);
        }
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
    poll_fd_wait(rx->fd, POLLIN);
}

void
afpacket_rx_get_stats(struct afpacket_rx *rx, struct afpacket_rx_stats *stats)
{
    struct tpacket_stats_v3 kstats;
    socklen_t len = sizeof kstats;

    if (!getsockopt(rx->fd, SOL_PACKET, PACKET_STATISTICS, &kstats, &len)) {
        rx->kernel_dropped += kstats.tp_drops;
    }
    stats->packets = counter_get(rx->counters, AFPACKET_RX_PACKETS);
    stats->bytes = counter_get(rx->counters, AFPACKET_RX_BYTES);
    stats->dropped_truncated = counter_get(rx->counters,
                                           AFPACKET_RX_DROPPED_TRUNCATED);
    stats->dropped_vnet = counter_get(rx->counters, AFPACKET_RX_DROPPED_VNET);
    stats->kernel_dropped = rx->kernel_dropped;
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

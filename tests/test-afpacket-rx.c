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

/* System test of the receive modes of lib/afpacket/afpacket-ring.c, on a real
 * interface: frames sent one at a time into the peer of a veth pair, each
 * with a virtio-net header, through an AF_PACKET socket of the test's own,
 * must come out of an afpacket_rx on the other end, each on its own (the
 * test sends nothing more until it has it), whole, with their bytes, their
 * VLAN tag and their offload metadata.
 *
 * Usage: test-afpacket-rx ring|socket TX_IFACE RX_IFACE.  Must run as root
 * (in a namespace of the test's).  Prints one line per frame, then the
 * ring's counters; exits 1 on the first frame that does not arrive within
 * 10 s or arrives changed.  Socket mode runs with a batch wait
 * (TR_LONE_BATCH_WAIT_US): frames sent one at a time must still arrive each
 * on its own.
 *
 * test-afpacket-rx socket-batch TX_IFACE RX_IFACE: the batch wait of socket
 * mode.  A child process sends TR_BATCH_FRAMES 64-byte frames, sleeping
 * TR_BATCH_GAP_US after each (never catching up with a burst), to a socket
 * mode queue with a batch wait of AFPACKET_RX_MAX_BATCH_WAIT_US, which
 * reads them as they come.  Without the wait nearly every recvmmsg() takes
 * one frame (the reader blocks until the next one comes); with it, the
 * queue sleeps while frames gather, so the test requires at least
 * TR_BATCH_MIN_PER_READ frames per read that brought any, and batch waits
 * counted with their time.  Prints what it checked; exits 1 if a frame is
 * missing after 10 s or a check fails. */

#include <config.h>

#include <errno.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "afpacket-ring.h"
#include "csum.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/poll-loop.h"
#include "packets.h"
#include "test-pkt.h"
#include "timeval.h"
#include "tso-segsz.h"

/* How long a frame may take to arrive before the test fails: far longer
 * than any block timeout, so that only a frame that never comes fails. */
#define TR_DEADLINE_MS 10000

/* The ring of the test: 4 blocks of 256 KiB. */
#define TR_BLOCK_SIZE (256 * 1024)
#define TR_N_BLOCKS 4

/* The payload of the GSO frame: far more than an MTU, under 64 KiB. */
#define TR_GSO_PAYLOAD 20000
#define TR_GSO_SIZE 1448

/* The batch wait of the lone-frame tests in socket mode (the port's default
 * is none): frames sent one at a time must come each on its own with a
 * wait too, never held for a batch. */
#define TR_LONE_BATCH_WAIT_US 200

/* The batch test: frames sent, the sender's sleep after each (far under
 * the batch wait, far over the time a reader takes for a frame), and the
 * fewest frames per read required (a wait of 1000 us gathers about 6 at
 * 150 us apart, the sleep and the timer's slack). */
#define TR_BATCH_FRAMES 200
#define TR_BATCH_GAP_US 100
#define TR_BATCH_MIN_PER_READ 2

/* Writes the Ethernet header (with a VLAN tag of 'vid' if nonzero) and an
 * IPv4 header for 'l4_len' transport bytes of 'proto' at 'p'.  Returns the
 * offset of the transport header. */
static size_t
tr_put_headers(uint8_t *p, uint16_t vid, uint8_t proto, size_t l4_len)
{
    static const uint8_t macs[12] = {
        0x02, 0, 0, 0, 0, 0x02,     /* Destination. */
        0x02, 0, 0, 0, 0, 0x01,     /* Source. */
    };
    struct ip_header *ip;
    size_t ofs = 0;

    memcpy(p, macs, sizeof macs);
    ofs += sizeof macs;
    if (vid) {
        test_put16(p + ofs, ETH_TYPE_VLAN_8021Q);
        test_put16(p + ofs + 2, vid);
        ofs += VLAN_HEADER_LEN;
    }
    test_put16(p + ofs, ETH_TYPE_IP);
    ofs += 2;

    ip = ALIGNED_CAST(struct ip_header *, p + ofs);
    memset(ip, 0, sizeof *ip);
    ip->ip_ihl_ver = IP_IHL_VER(5, 4);
    ip->ip_tot_len = htons(IP_HEADER_LEN + l4_len);
    ip->ip_ttl = 64;
    ip->ip_proto = proto;
    put_16aligned_be32(&ip->ip_src, htonl(0x0a010101));
    put_16aligned_be32(&ip->ip_dst, htonl(0x0a010102));
    ip->ip_csum = csum(ip, IP_HEADER_LEN);
    return ofs + IP_HEADER_LEN;
}

/* Builds a UDP frame with 'payload' bytes into 'p', tagged with VLAN 'vid'
 * if nonzero.  Returns its length. */
static size_t
tr_build_udp(uint8_t *p, uint16_t vid, size_t payload)
{
    size_t l4_len = UDP_HEADER_LEN + payload;
    size_t l4 = tr_put_headers(p, vid, IPPROTO_UDP, l4_len);
    struct udp_header *udp = ALIGNED_CAST(struct udp_header *, p + l4);

    udp->udp_src = htons(5000);
    udp->udp_dst = htons(5001);
    udp->udp_len = htons(l4_len);
    udp->udp_csum = 0;          /* None, as IPv4 allows. */
    for (size_t i = 0; i < payload; i++) {
        p[l4 + UDP_HEADER_LEN + i] = i;
    }
    return l4 + l4_len;
}

/* Builds a TCP frame with 'payload' bytes into 'p', its checksum field
 * holding the pseudo-header sum, as for a partial checksum, and fills
 * 'vnet' to ask for TCP segmentation in TR_GSO_SIZE segments.  Returns its
 * length. */
static size_t
tr_build_gso_tcp(uint8_t *p, size_t payload, struct virtio_net_hdr *vnet)
{
    size_t l4_len = TCP_HEADER_LEN + payload;
    size_t l4 = tr_put_headers(p, 0, IPPROTO_TCP, l4_len);
    struct tcp_header *tcp = ALIGNED_CAST(struct tcp_header *, p + l4);
    const struct ip_header *ip = ALIGNED_CAST(const struct ip_header *,
                                              p + l4 - IP_HEADER_LEN);

    memset(tcp, 0, TCP_HEADER_LEN);
    tcp->tcp_src = htons(5000);
    tcp->tcp_dst = htons(5001);
    put_16aligned_be32(&tcp->tcp_seq, htonl(1));
    tcp->tcp_ctl = TCP_CTL(TCP_ACK, TCP_HEADER_LEN / 4);
    tcp->tcp_winsz = htons(1024);
    for (size_t i = 0; i < payload; i++) {
        p[l4 + TCP_HEADER_LEN + i] = i;
    }
    /* A partial checksum: the pseudo-header's sum, folded, not inverted. */
    tcp->tcp_csum = ~csum_finish(packet_csum_pseudoheader(ip));

    *vnet = (struct virtio_net_hdr) {
        .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
        .gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
        .hdr_len = l4 + TCP_HEADER_LEN,
        .gso_size = TR_GSO_SIZE,
        .csum_start = l4,
        .csum_offset = offsetof(struct tcp_header, tcp_csum),
    };
    return l4 + l4_len;
}

/* Opens an AF_PACKET socket that sends frames with a virtio-net header on
 * interface 'ifindex'. */
static int
tr_open_sender(int ifindex)
{
    struct sockaddr_ll sll = {
        .sll_family = AF_PACKET,
        .sll_ifindex = ifindex,
    };
    int one = 1;
    int fd;

    fd = socket(AF_PACKET, SOCK_RAW, 0);
    if (fd < 0
        || setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof one)
        || bind(fd, (struct sockaddr *) &sll, sizeof sll)) {
        test_fail("cannot open a sending AF_PACKET socket (%s)",
                  ovs_strerror(errno));
    }
    return fd;
}

/* Appends the names of the offload flags of 'p' to 's'. */
static void
tr_format_flags(struct ds *s, struct dp_packet *p)
{
    static const struct test_flag_name names[] = {
        { DP_PACKET_OL_TX_IPV4, "ipv4" },
        { DP_PACKET_OL_TX_IPV6, "ipv6" },
        { DP_PACKET_OL_TX_TCP_CKSUM, "tcp_csum" },
        { DP_PACKET_OL_TX_UDP_CKSUM, "udp_csum" },
        { DP_PACKET_OL_TX_TCP_SEG, "tcp_seg" },
    };

    test_format_flags(s, *dp_packet_ol_flags_ptr(p), names,
                      ARRAY_SIZE(names));
}

/* Sends the 'len' bytes of 'frame' with virtio-net header 'vnet' on 'fd',
 * then waits for frames on 'rx' until one comes, or fails after
 * TR_DEADLINE_MS.  Prints what came, named 'name', compared with what was
 * sent. */
static void
tr_send_and_receive(const char *mode, const char *name, int fd,
                    struct afpacket_rx *rx, const uint8_t *frame, size_t len,
                    struct virtio_net_hdr *vnet)
{
    long long int deadline;
    struct iovec iov[2] = {
        { .iov_base = vnet, .iov_len = sizeof *vnet },
        { .iov_base = CONST_CAST(uint8_t *, frame), .iov_len = len },
    };
    struct dp_packet_batch batch;
    struct dp_packet *p = NULL;
    struct ds s = DS_EMPTY_INITIALIZER;

    if (writev(fd, iov, 2) != sizeof *vnet + len) {
        test_fail("%s: cannot send the frame (%s)", name,
                  ovs_strerror(errno));
    }

    /* Waits for the frame, skipping any other (IPv6 neighbour discovery,
     * say) by its source MAC, which only the test's frames have. */
    deadline = time_msec() + TR_DEADLINE_MS;
    for (;;) {
        struct dp_packet *q;

        if (afpacket_rx_recv(rx, &batch) == EAGAIN) {
            if (time_msec() >= deadline) {
                test_fail("%s %s: nothing received in %d ms", mode, name,
                          TR_DEADLINE_MS);
            }
            afpacket_rx_wait(rx);
            poll_timer_wait_until(deadline);
            poll_block();
            continue;
        }
        DP_PACKET_BATCH_FOR_EACH (i, q, &batch) {
            if (dp_packet_size(q) >= ETH_HEADER_LEN
                && !memcmp((const uint8_t *) dp_packet_data(q) + ETH_ADDR_LEN,
                           frame + ETH_ADDR_LEN, ETH_ADDR_LEN)) {
                ovs_assert(!p);
                p = q;
                batch.packets[i] = NULL;
            }
        }
        DP_PACKET_BATCH_FOR_EACH (i, q, &batch) {
            dp_packet_delete(q);
        }
        if (p) {
            break;
        }
    }

    ds_put_format(&s, "%s %s: %"PRIu32" bytes, %s, flags=", mode, name,
                  dp_packet_size(p),
                  (dp_packet_size(p) == len
                   && !memcmp(dp_packet_data(p), frame, len)
                   ? "same bytes" : "DIFFERENT BYTES"));
    tr_format_flags(&s, p);
    if (tso_segsz_get(p)) {
        ds_put_format(&s, " segsz=%u", tso_segsz_get(p));
    }
    puts(ds_cstr(&s));
    if (dp_packet_size(p) != len || memcmp(dp_packet_data(p), frame, len)) {
        test_fail("%s %s: expected %"PRIuSIZE" bytes, the bytes sent", mode,
                  name, len);
    }
    dp_packet_delete(p);
    ds_destroy(&s);
}

/* Child process of the batch test: sends TR_BATCH_FRAMES copies of the
 * 'len' bytes of 'frame' on 'fd', TR_BATCH_GAP_US apart, and exits. */
static void OVS_NO_RETURN
tr_batch_sender(int fd, const uint8_t *frame, size_t len)
{
    struct virtio_net_hdr vnet = { .flags = 0 };
    struct iovec iov[2] = {
        { .iov_base = &vnet, .iov_len = sizeof vnet },
        { .iov_base = CONST_CAST(uint8_t *, frame), .iov_len = len },
    };
    struct timespec gap = { .tv_nsec = TR_BATCH_GAP_US * 1000 };

    for (int i = 0; i < TR_BATCH_FRAMES; i++) {
        if (writev(fd, iov, 2) != sizeof vnet + len) {
            fprintf(stderr, "batch sender: frame %d: %s\n", i,
                    ovs_strerror(errno));
            _exit(1);
        }
        nanosleep(&gap, NULL);
    }
    _exit(0);
}

/* The batch test (see the top of the file), receiving on 'rx' what a child
 * sends on 'fd'. */
static void
tr_batch_test(int fd, struct afpacket_rx *rx)
{
    static uint8_t frame[64];
    struct afpacket_rx_stats stats;
    long long int deadline;
    int received = 0;
    size_t len;
    pid_t pid;
    int status;

    len = tr_build_udp(frame, 0, sizeof frame - ETH_HEADER_LEN
                       - IP_HEADER_LEN - UDP_HEADER_LEN);
    fflush(stdout);
    pid = fork();
    if (pid < 0) {
        test_fail("fork: %s", ovs_strerror(errno));
    } else if (!pid) {
        tr_batch_sender(fd, frame, len);
    }

    deadline = time_msec() + TR_DEADLINE_MS;
    while (received < TR_BATCH_FRAMES) {
        struct dp_packet_batch batch;
        struct dp_packet *q;

        if (afpacket_rx_recv(rx, &batch) == EAGAIN) {
            if (time_msec() >= deadline) {
                test_fail("socket-batch: %d frames of %d received in %d ms",
                          received, TR_BATCH_FRAMES, TR_DEADLINE_MS);
            }
            afpacket_rx_wait(rx);
            poll_timer_wait_until(deadline);
            poll_block();
            continue;
        }
        DP_PACKET_BATCH_FOR_EACH (i, q, &batch) {
            /* Only the test's frames have its source MAC. */
            if (dp_packet_size(q) == len
                && !memcmp(dp_packet_data(q), frame, len)) {
                received++;
            }
        }
        dp_packet_delete_batch(&batch, true);
    }
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)
        || WEXITSTATUS(status)) {
        test_fail("socket-batch: the sender failed");
    }

    afpacket_rx_get_stats(rx, &stats);
    fprintf(stderr, "socket-batch: packets=%"PRIu64" reads=%"PRIu64
            " batch_waits=%"PRIu64" batch_wait_us=%"PRIu64"\n",
            stats.packets, stats.reads, stats.batch_waits,
            stats.batch_wait_us);
    printf("socket-batch: %d frames received\n", received);
    printf("socket-batch: at least %d frames per read: %s\n",
           TR_BATCH_MIN_PER_READ,
           (stats.reads && stats.packets / stats.reads
            >= TR_BATCH_MIN_PER_READ ? "yes" : "no"));
    printf("socket-batch: batch waits counted with their time: %s\n",
           stats.batch_waits && stats.batch_wait_us ? "yes" : "no");
    if (!stats.reads || stats.packets / stats.reads < TR_BATCH_MIN_PER_READ
        || !stats.batch_waits || !stats.batch_wait_us) {
        test_fail("socket-batch: frames did not gather into batches");
    }
}

int
main(int argc, char *argv[])
{
    struct afpacket_ring_config cfg = {
        .block_size = TR_BLOCK_SIZE,
        .n_blocks = TR_N_BLOCKS,
        .batch_wait_us = TR_LONE_BATCH_WAIT_US,
    };
    static uint8_t frame[TR_GSO_PAYLOAD + 128];
    struct afpacket_rx_stats stats;
    struct virtio_net_hdr vnet;
    struct afpacket_rx *rx;
    int tx_ifindex, rx_ifindex;
    const char *mode;
    size_t len;
    int error, fd;

    set_program_name(argv[0]);
    if (argc != 4 || (strcmp(argv[1], "ring") && strcmp(argv[1], "socket")
                      && strcmp(argv[1], "socket-batch"))) {
        fprintf(stderr, "usage: %s ring|socket|socket-batch TX_IFACE "
                "RX_IFACE\n", argv[0]);
        return 2;
    }
    mode = argv[1];
    cfg.mode = !strcmp(mode, "ring") ? AFPACKET_RX_RING : AFPACKET_RX_SOCKET;
    if (!strcmp(mode, "socket-batch")) {
        cfg.batch_wait_us = AFPACKET_RX_MAX_BATCH_WAIT_US;
    }
    tx_ifindex = if_nametoindex(argv[2]);
    rx_ifindex = if_nametoindex(argv[3]);
    if (!tx_ifindex || !rx_ifindex) {
        test_fail("no interface %s or %s", argv[2], argv[3]);
    }

    error = afpacket_rx_open(rx_ifindex, &cfg, NULL, &rx);
    if (error) {
        test_fail("afpacket_rx_open: %s", ovs_strerror(error));
    }
    fd = tr_open_sender(tx_ifindex);
    if (!strcmp(mode, "socket-batch")) {
        tr_batch_test(fd, rx);
        afpacket_rx_close(rx);
        close(fd);
        return 0;
    }

    /* A lone 64-byte frame. */
    len = tr_build_udp(frame, 0, 64 - ETH_HEADER_LEN - IP_HEADER_LEN
                       - UDP_HEADER_LEN);
    vnet = (struct virtio_net_hdr) { .flags = 0 };
    tr_send_and_receive(mode, "udp4", fd, rx, frame, len, &vnet);

    /* A VLAN-tagged one: Linux takes the tag out, afpacket puts it back. */
    len = tr_build_udp(frame, 100, 64 - ETH_HEADER_LEN - IP_HEADER_LEN
                       - UDP_HEADER_LEN);
    vnet = (struct virtio_net_hdr) { .flags = 0 };
    tr_send_and_receive(mode, "vlan100-udp4", fd, rx, frame, len, &vnet);

    /* A GSO frame, far larger than the MTU: it must come whole, with its
     * segment size. */
    len = tr_build_gso_tcp(frame, TR_GSO_PAYLOAD, &vnet);
    tr_send_and_receive(mode, "gso-tcp4", fd, rx, frame, len, &vnet);

    afpacket_rx_get_stats(rx, &stats);
    printf("%s: packets=%"PRIu64" truncated=%"PRIu64" offload_drops=%"PRIu64
           " kernel_drops=%"PRIu64"\n", mode, stats.packets,
           stats.dropped_truncated, stats.dropped_vnet,
           stats.kernel_dropped);
    afpacket_rx_close(rx);
    close(fd);
    return 0;
}

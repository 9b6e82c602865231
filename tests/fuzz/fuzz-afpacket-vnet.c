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

/* Fuzz target: the virtio-net header translation of afpacket ports, both
 * ways, on frames of any length: a frame and its virtio-net header as
 * Linux hands them over (either receive mode) into packets
 * (afpacket_frame_to_packets(), lib/afpacket/afpacket-frame.c, which cuts TCP
 * frames longer than a dp_packet can hold, and afpacket_vnet_to_packet(),
 * lib/afpacket/afpacket-vnet.c), then each packet back into a header for
 * transmit (afpacket_vnet_from_packet()) and, if asked, through software
 * GSO or checksum completion, as for a port that offloads nothing.
 *
 * Input: a flags byte, a 16-bit VLAN TCI and a 16-bit MTU (big-endian),
 * the 10 bytes of a 'struct virtio_net_hdr' (host byte order, as Linux
 * writes it), then the frame, of any length up to the fuzzer's -max_len
 * (256 KiB in run-fuzz.sh: fuzz-common.h's cap on packet length does not
 * apply to afpacket, whose sockets take frames up to 128 KiB).  Flags:
 *   bit 0    Linux took a VLAN tag out of the frame (TP_STATUS_VLAN_VALID)
 *   bit 1    ...with TPID 802.1ad
 *   bit 2    segment TSO packets with gso_segment() (or complete their
 *            checksums) after the transmit header
 *   bit 3    fix the pseudo-header sum of a partial TCP checksum in the
 *            frame first, at the header's csum_start (a fuzzer cannot
 *            guess it; the cut of a long frame then keeps it valid)
 *
 * Checks, on every packet: it fits its buffer, whose allocated size
 * (headroom included) fits in 16 bits, and is no longer than
 * AFPACKET_FRAME_MAX_PACKET; a frame becomes at most
 * AFPACKET_FRAME_MAX_PKTS packets, and none if it is dropped; a packet
 * marked for TCP segmentation has a segment size of at least
 * AFPACKET_VNET_MIN_GSO_SIZE.  A transmit header asks for a checksum
 * field and a header length inside the packet, and a segment size that
 * fits the MTU. */

#include <config.h>
#include "fuzz-common.h"

#include <errno.h>
#include <linux/virtio_net.h>
#include <string.h>

#include "afpacket-frame.h"
#include "afpacket-vnet.h"
#include "csum.h"
#include "dp-packet.h"
#include "gso.h"
#include "packets.h"
#include "tso-segsz.h"
#include "util.h"

/* The flags byte. */
#define FUZZ_AV_VLAN 0x01
#define FUZZ_AV_QINQ 0x02
#define FUZZ_AV_SEGMENT 0x04
#define FUZZ_AV_FIX_PSEUDO 0x08

/* Frees the segments software GSO hands over. */
static void
free_segments(struct dp_packet_batch *batch, void *aux OVS_UNUSED)
{
    dp_packet_delete_batch(batch, true);
    dp_packet_batch_init(batch);
}

/* Stores in the TCP checksum field of 'frame' ('len' bytes) that 'vnet'
 * points at the pseudo-header sum over the rest of the frame, if the frame
 * has an IPv4 or IPv6 header right after a 14-byte Ethernet header. */
static void
fix_pseudo(uint8_t *frame, size_t len, const struct virtio_net_hdr *vnet)
{
    size_t start = vnet->csum_start, field = start + vnet->csum_offset;
    size_t l3 = ETH_HEADER_LEN;
    uint32_t sum;
    ovs_be16 fold;

    if (!(vnet->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) || field + 2 > len
        || start < l3 + IP_HEADER_LEN || len - start > UINT16_MAX) {
        return;
    }
    if (frame[l3] >> 4 == 6 && start >= l3 + IPV6_HEADER_LEN) {
        sum = csum_continue(0, frame + l3 + 8, 32);
    } else if (frame[l3] >> 4 == 4) {
        sum = csum_continue(0, frame + l3 + 12, 8);
    } else {
        return;
    }
    sum = csum_add16(sum, htons(IPPROTO_TCP));
    sum = csum_add16(sum, htons(len - start));
    fold = ~csum_finish(sum);
    memcpy(frame + field, &fold, sizeof fold);
}

/* Checks packet 'p', one of those a frame became. */
static void
check_packet(const struct dp_packet *p)
{
    size_t headroom = dp_packet_headroom(p);
    size_t size = dp_packet_size(p);

    fuzz_check(dp_packet_get_allocated(p)
               == headroom + size + dp_packet_tailroom(p),
               "packet of %"PRIuSIZE" bytes does not fit its buffer", size);
    fuzz_check(headroom + size <= UINT16_MAX,
               "headroom %"PRIuSIZE" + size %"PRIuSIZE" over 16 bits",
               headroom, size);
    fuzz_check(size <= AFPACKET_FRAME_MAX_PACKET, "packet of %"PRIuSIZE
               " bytes", size);
    if (dp_packet_hwol_is_tso(p)) {
        fuzz_check(tso_segsz_get(p) >= AFPACKET_VNET_MIN_GSO_SIZE,
                   "segment size %u", tso_segsz_get(p));
    }
}

/* Sends 'p' as afpacket_tx_send() would, with MTU 'mtu', checks the header
 * it gets, then segments it if 'segment'.  Frees 'p'. */
static void
transmit(struct dp_packet *p, int mtu, bool segment)
{
    struct virtio_net_hdr vnet;
    struct dp_packet_batch out_batch;
    struct gso_output out = {
        .batch = &out_batch, .flush = free_segments, .aux = NULL,
    };
    struct gso_stats stats;

    if (afpacket_vnet_from_packet(p, &vnet, mtu)) {
        dp_packet_delete(p);
        return;
    }
    if (vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
        fuzz_check((size_t) vnet.csum_start + vnet.csum_offset + 2
                   <= dp_packet_size(p), "checksum field %u+%u beyond %"
                   PRIu32, vnet.csum_start, vnet.csum_offset,
                   dp_packet_size(p));
    }
    if (vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE) {
        fuzz_check(vnet.hdr_len <= dp_packet_size(p), "hdr_len %u beyond %"
                   PRIu32, vnet.hdr_len, dp_packet_size(p));
        fuzz_check(vnet.gso_size > 0 && vnet.gso_size <= mtu,
                   "gso_size %u for MTU %d", vnet.gso_size, mtu);
    }
    if (!segment) {
        dp_packet_delete(p);
        return;
    }
    memset(&stats, 0, sizeof stats);
    dp_packet_batch_init(&out_batch);
    if (dp_packet_hwol_is_tso(p)) {
        gso_segment(p, gso_segsz_for_mtu(p, mtu), &out, &stats);
    } else if (gso_complete_csum_or_drop(p, &stats)) {
        gso_output_put(&out, p);
    }
    free_segments(&out_batch, NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = { .data = data, .size = size };
    struct afpacket_frame_info info;
    enum afpacket_frame_verdict v;
    struct virtio_net_hdr vnet;
    struct dp_packet_batch batch;
    struct dp_packet *p;
    uint8_t flags, *frame;
    size_t len;
    int mtu;

    fuzz_init();
    flags = fuzz_take_u8(&in);
    info.vlan_tci = fuzz_take_be16(&in);
    mtu = fuzz_take_be16(&in);
    info.vlan_valid = (flags & FUZZ_AV_VLAN) != 0;
    info.vlan_tpid = (flags & FUZZ_AV_QINQ ? ETH_TYPE_VLAN_8021AD
                      : ETH_TYPE_VLAN_8021Q);
    if (in.size < sizeof vnet) {
        return 0;
    }
    memcpy(&vnet, in.data, sizeof vnet);
    in.data += sizeof vnet;
    in.size -= sizeof vnet;

    /* A buffer of the frame's own length, so that a read past its end is
     * caught. */
    len = in.size;
    frame = xmemdup(in.data, len);
    if (flags & FUZZ_AV_FIX_PSEUDO) {
        fix_pseudo(frame, len, &vnet);
    }

    dp_packet_batch_init(&batch);
    v = afpacket_frame_to_packets(frame, len, &vnet, &info, &batch);
    fuzz_check(dp_packet_batch_size(&batch) <= AFPACKET_FRAME_MAX_PKTS,
               "%"PRIuSIZE" packets of one frame",
               dp_packet_batch_size(&batch));
    fuzz_check(v == AFPACKET_FRAME_OK || dp_packet_batch_is_empty(&batch),
               "frame dropped (%d) with packets made", v);
    fuzz_check(v != AFPACKET_FRAME_OK || !dp_packet_batch_is_empty(&batch),
               "frame taken without a packet");
    DP_PACKET_BATCH_FOR_EACH (i, p, &batch) {
        check_packet(p);
        transmit(p, mtu, (flags & FUZZ_AV_SEGMENT) != 0);
    }
    free(frame);
    return 0;
}

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

/* Fuzz target: the receive path of an afpacket port in ring mode, from a
 * TPACKET_V3 block as Linux fills it to the packets the datapath gets:
 * afpacket_rx_recv() (lib/afpacket/afpacket-ring.c) over a ring in memory
 * (afpacket_rx_open_memory()), which walks the block and its frame
 * headers (afpacket_v3_block_open(), afpacket_v3_frame_parse()), and
 * turns each frame, with its virtio-net header and VLAN tag, into packets
 * (afpacket_frame_to_packets(), lib/afpacket/afpacket-frame.c, and
 * afpacket_vnet_to_packet(), lib/afpacket/afpacket-vnet.c), cutting TCP frames
 * longer than a dp_packet can hold.
 *
 * Input: the block itself, up to the fuzzer's -max_len (run-fuzz.sh
 * allows 256 KiB, so frames go past 64 KiB: fuzz-common.h's cap on
 * packet length does not apply here), laid out as Linux lays it out: a
 * 'struct tpacket_block_desc' (its offset_to_first_pkt and num_pkts), then
 * frames, each a 'struct tpacket3_hdr' (tp_next_offset, tp_snaplen,
 * tp_len, tp_status with TP_STATUS_VLAN_VALID, tp_mac, the VLAN tag), the
 * virtio-net header just before tp_mac, and the frame.  The block is
 * copied into an 8-byte aligned buffer of its own length (rounded down to
 * a multiple of 8), marked as handed over (TP_STATUS_USER), and read until
 * the ring says EAGAIN.
 *
 * Checks, on every packet: it fits its buffer, whose allocated size
 * (headroom included) fits in the dp_packet's 16 bits; it is no longer
 * than AFPACKET_FRAME_MAX_PACKET; a batch never holds more than
 * NETDEV_MAX_BURST; a packet marked for TCP segmentation carries a segment
 * size of at least AFPACKET_VNET_MIN_GSO_SIZE.  The counters account for
 * every frame the ring reports. */

#include <config.h>
#include "fuzz-common.h"

#include <errno.h>
#include <linux/if_packet.h>
#include <string.h>

#include "afpacket-frame.h"
#include "afpacket-ring.h"
#include "afpacket-vnet.h"
#include "dp-packet.h"
#include "tso-segsz.h"
#include "util.h"

/* Checks one packet the ring produced. */
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

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t block_size = size / sizeof(uint64_t) * sizeof(uint64_t);
    struct tpacket_block_desc *bd;
    struct afpacket_rx_stats stats;
    struct dp_packet_batch batch;
    struct afpacket_rx *rx;
    uint64_t n_packets = 0;
    uint8_t *block;

    fuzz_init();
    if (block_size < sizeof *bd || block_size > UINT32_MAX) {
        return 0;
    }
    block = xmalloc(block_size);
    memcpy(block, data, block_size);
    bd = ALIGNED_CAST(struct tpacket_block_desc *, block);
    bd->hdr.bh1.block_status = TP_STATUS_USER;

    fuzz_check(!afpacket_rx_open_memory(block, block_size, 1, &rx),
               "afpacket_rx_open_memory");
    while (!afpacket_rx_recv(rx, &batch)) {
        struct dp_packet *p;

        fuzz_check(dp_packet_batch_size(&batch) <= NETDEV_MAX_BURST,
                   "batch of %"PRIuSIZE, dp_packet_batch_size(&batch));
        DP_PACKET_BATCH_FOR_EACH (i, p, &batch) {
            check_packet(p);
        }
        n_packets += dp_packet_batch_size(&batch);
        dp_packet_delete_batch(&batch, true);
    }
    fuzz_check(bd->hdr.bh1.block_status == TP_STATUS_KERNEL,
               "block not given back");

    afpacket_rx_get_stats(rx, &stats);
    fuzz_check(stats.packets == n_packets, "counted %"PRIu64" packets of %"
               PRIu64, stats.packets, n_packets);
    afpacket_rx_close(rx);
    free(block);
    return 0;
}

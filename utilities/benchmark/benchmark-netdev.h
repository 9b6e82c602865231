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

#ifndef BENCHMARK_NETDEV_H
#define BENCHMARK_NETDEV_H 1

/* The benchmark's two in-memory netdevs, both polled by PMD threads:
 *
 *   - "benchmark-generator" replays a set of prebuilt frames as fast as its
 *     receive queues are polled.  Every queue replays the whole set from the
 *     first frame, so with two queues two threads see the same flows.
 *     options:n_rxq sets the number of queues.
 *
 *   - "benchmark-sink" counts the packets sent to it, one counter per
 *     transmit queue, and hands the buffers back to the generator of the
 *     same thread, so that the steady state allocates nothing.
 *
 *   - "benchmark-underlay" is a sink with an IPv4 address and a MAC
 *     (benchmark_underlay_address()), for the tunnel scenarios: OVS's
 *     route table takes a route through a device only if the device has
 *     an address for it.
 *
 * Both datapaths under test get exactly the same netdevs, so that what the
 * generator and sink cost is the same on both sides of every ratio. */

#include <stddef.h>
#include <stdint.h>

#include "openvswitch/types.h"
#include "packets.h"

/* Frames for the generator: frame i is 'lens[i]' bytes long and starts at
 * 'data + i * stride'. */
struct benchmark_frames {
    uint8_t *data;
    uint16_t *lens;
    size_t n;
    size_t stride;
};

void benchmark_netdev_register(void);

/* The frames that generator queues opened afterwards replay.  'frames' must
 * outlive them. */
void benchmark_generator_set_frames(const struct benchmark_frames *frames);

/* Headroom in front of the frames the generators replay: by default
 * DP_NETDEV_HEADROOM, what OVS's own netdevs leave (room for a VLAN tag);
 * at most 128, what a DPDK mbuf and our afpacket port leave (room for a
 * tunnel's outer headers). */
void benchmark_generator_set_headroom(size_t headroom);

/* Generator queues return nothing until started. */
void benchmark_generator_start(void);
void benchmark_generator_stop(void);

/* Packets that have reached any sink since the program started. */
uint64_t benchmark_sink_packets(void);

/* The address, prefix length and MAC of every "benchmark-underlay". */
void benchmark_underlay_address(ovs_be32 *addr, int *plen,
                                struct eth_addr *mac);

#endif /* benchmark-netdev.h */

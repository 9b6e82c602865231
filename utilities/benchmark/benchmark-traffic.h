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

#ifndef BENCHMARK_TRAFFIC_H
#define BENCHMARK_TRAFFIC_H 1

/* What the benchmark sends and how its flows are set up.
 *
 * Flow i is a 64-byte UDP/IPv4 frame to 10.0.0.0 + i, untagged or in
 * VLAN 10, or a 66-byte UDP/IPv6 frame to fd00::i.  The upcall callback
 * plays the part of ofproto: it answers every miss with "output to the
 * sink" and a megaflow mask that matches the destination address exactly,
 * plus, over 8 masks, a choice of other fields picked by the address's low
 * three bits, so that flows spread evenly over 8 subtables.
 *
 * In the tunnel scenarios (benchmark_upcall_configure_tunnel()) it plays
 * ofproto with a vxlan port instead: flow i goes into the tunnel to
 * BENCHMARK_TUNNEL_DST + i % BENCHMARK_TUNNEL_N_DSTS, as ofproto's
 * translation gives it for each kind of datapath: for ours (kernel
 * style), set(tunnel(...)) and output to the tunnel port, and the outer
 * frames the datapath hands back on the underlay port go to the sink; for
 * stock's (native tunnelling), tnl_push() with the header OVS's own
 * netdev_build_header() builds, then output to the sink.
 *
 * In the Geneve input scenario (benchmark_upcall_configure_geneve()), flow
 * i is the same IPv4 frame received in Geneve (BENCHMARK_GENEVE frames),
 * with OVN's option, and the callback plays ofproto with a geneve port: the
 * outer frames go where the tunnel's address is, which for ours (kernel
 * style) is output to the local port that holds it, where the datapath
 * decapsulates them, and for stock's (native tunnelling) is tnl_pop() on
 * the geneve port; the decapsulated packets, back on the geneve port with
 * their tunnel metadata, go to the sink by a megaflow that matches the
 * tunnel ID and the option, as ofproto's would (the outer addresses, flags
 * and ToS besides), and the inner destination. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dpif.h"
#include "openvswitch/types.h"
#include "packets.h"

struct benchmark_frames;
struct netdev;

/* Tunnel destinations: BENCHMARK_TUNNEL_N_DSTS addresses from 192.0.2.101,
 * on the underlay's network (benchmark-netdev.h), so each its own next
 * hop. */
#define BENCHMARK_TUNNEL_DST 0xc0000265
#define BENCHMARK_TUNNEL_N_DSTS 32

/* The Geneve input scenario's outer addresses: from 192.0.2.101 (a remote
 * chassis) to 192.0.2.200, the local port's address (a /32). */
#define BENCHMARK_GENEVE_REMOTE 0xc0000265
#define BENCHMARK_GENEVE_LOCAL 0xc00002c8

/* The Geneve input scenario's option, as OVN sets it: class 0x0102, type
 * 0x80, 4 bytes of data (OVN's logical ingress and egress ports). */
#define BENCHMARK_GENEVE_OPT_CLASS 0x0102
#define BENCHMARK_GENEVE_OPT_TYPE 0x80
#define BENCHMARK_GENEVE_OPT_DATA 0x00010002

/* What the generated frames carry. */
enum benchmark_frame_shape {
    BENCHMARK_IPV4,             /* UDP/IPv4. */
    BENCHMARK_IPV4_TAGGED,      /* UDP/IPv4 with an 802.1Q tag. */
    BENCHMARK_IPV6,             /* UDP/IPv6. */
    BENCHMARK_GENEVE,           /* UDP/IPv4 in Geneve (VNI 42, OVN's
                                 * option) over IPv4, from
                                 * BENCHMARK_GENEVE_REMOTE to
                                 * BENCHMARK_GENEVE_LOCAL, the outer UDP
                                 * source port a hash of the flow, as
                                 * senders pick it. */
};

/* Fills 'frames' with 'n_flows' frames of 'shape', one per flow, in an
 * order shuffled with a fixed seed, so that consecutive packets do not walk
 * memory in address order.  benchmark_frames_destroy() frees them. */
void benchmark_frames_build(struct benchmark_frames *frames, size_t n_flows,
                            enum benchmark_frame_shape shape);

/* Builds a pcap file's packets into 'frames' instead: every packet is
 * padded or cut to the longest one's length.  Returns 0 or an errno. */
int benchmark_frames_read_pcap(struct benchmark_frames *frames,
                               const char *file_name);
void benchmark_frames_destroy(struct benchmark_frames *frames);

/* Sets what the upcall callback answers: output to 'out_port', with
 * megaflows spread over 'n_masks' masks (1 or 8). */
void benchmark_upcall_configure(odp_port_t out_port, int n_masks);

/* Sets the callback to answer as ofproto with vxlan port 'tunnel' (the
 * datapath's port 'tunnel_port'), whose outer frames come back on
 * 'underlay_port' (ours) or are built whole by tnl_push() ('native',
 * stock's), to leave by 'out_port'; with 1 mask.  The outer source is the
 * underlay's address and the next hops' MAC 'nh_mac'. */
void benchmark_upcall_configure_tunnel(const struct netdev *tunnel,
                                       odp_port_t tunnel_port,
                                       odp_port_t underlay_port,
                                       odp_port_t out_port, bool native,
                                       struct eth_addr nh_mac);

/* Sets the callback to answer as ofproto with geneve port 'tunnel_port'
 * for BENCHMARK_GENEVE frames: the outer frames are output to
 * 'local_port', the port that holds BENCHMARK_GENEVE_LOCAL (ours), or
 * popped by tnl_pop() on 'tunnel_port' ('native', stock's); the
 * decapsulated packets leave by 'out_port'.  With 1 mask. */
void benchmark_upcall_configure_geneve(odp_port_t tunnel_port,
                                       odp_port_t local_port,
                                       odp_port_t out_port, bool native);

/* The upcall callback given to both datapaths. */
upcall_callback benchmark_upcall;

/* Misses the callback has answered since the program started. */
uint64_t benchmark_upcalls(void);

#endif /* benchmark-traffic.h */

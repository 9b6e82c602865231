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

#ifndef NETDEV_AFPACKET_H
#define NETDEV_AFPACKET_H 1

/* The "afpacket" netdev type: a Linux interface (veth, tap, NIC...) read
 * through AF_PACKET sockets with recvmmsg() or TPACKET_V3 rings, and written
 * with sendmmsg(), polled by PMD threads:
 *
 *     ovs-vsctl add-port br0 eth1 -- set interface eth1 type=afpacket \
 *         options:n_rxq=2
 *
 * In a datapath_type=netdev bridge of ours, "system" ports (the default
 * type, as in "ovs-vsctl add-port br0 eth1") are opened as this type too:
 * see dpif-percpu.c and Documentation/afpacket.md.
 *
 * Each receive queue is a socket of its own; with n_rxq > 1 they form a
 * PACKET_FANOUT_HASH group, so that Linux spreads flows over them and the
 * datapath spreads the queues over its PMD threads.  Each transmit queue is
 * a socket of its own, and the datapath gives each forwarding thread its
 * own queue, so no lock is taken to send.
 *
 * Offloads: every socket has a virtio-net header (afpacket-vnet.h).  Frames
 * with partial checksums and 64 KiB TCP GSO frames, as a veth peer with its
 * default offloads sends them, are received whole with their offload
 * metadata, and sent whole to the interface, which completes or segments
 * them; the datapath completes and segments in software only for an egress
 * without these offloads.
 *
 * Options (anything else, or a malformed value, is refused with a message
 * in Interface.error; the port then keeps its previous configuration):
 *
 *   n_rxq       Receive queues, 1..NETDEV_AFPACKET_MAX_RXQ.  Default 1.
 *   rx_mode     "socket": a batch of frames read with one recvmmsg(), each
 *               frame readable as soon as it arrives (and waking a PMD
 *               thread that sleeps), or "ring": TPACKET_V3 rings, read with
 *               no system call, but a frame is handed over only with a full
 *               block or after the block timeout (1 ms or more), which adds
 *               milliseconds to every round trip at low rates.  Default
 *               "socket"; see Documentation/afpacket.md for the figures.
 *   rx_batch_wait_us  Socket mode: while a queue's frames come faster
 *               than one per this many us, it is read at most once per
 *               this many us, so that a recvmmsg() takes a batch rather
 *               than a frame or two; 0..1000, 0 never waits.  Default 0:
 *               on this loaded 2-core machine no wait gained anything
 *               (Documentation/afpacket.md).  Only checked in ring mode.
 *   block_size  Bytes per ring block: a power of two from 128 KiB (a 64 KiB
 *               GSO frame must fit) to 4 MiB.  Default 256 KiB.
 *   ring_size   Bytes per receive ring: a multiple of block_size, from two
 *               blocks to 256 MiB.  Default 4 MiB.  In socket mode, it
 *               sets the socket's receive buffer, 4 times as large
 *               (block_size is then only checked).
 *
 * Everything else (MAC, MTU, flags, carrier, kernel statistics, QoS...) is
 * OVS's netdev-linux: the class is a copy of OVS's "system" class with the
 * receive and transmit paths and the configuration replaced.
 *
 * Threads: configuration and status run in the main thread.  A receive
 * queue is polled by one thread at a time; a transmit queue is used by the
 * thread the datapath gives it to (or, if threads must share queues, under
 * that queue's lock). */

#include <stdbool.h>

struct netdev;

/* Most receive queues (and fanout rings) per port. */
#define NETDEV_AFPACKET_MAX_RXQ 16

/* Registers the netdev class "afpacket".  Call before bridge_init().
 * Calling it again does nothing. */
void netdev_afpacket_register(void);

/* Returns true if 'netdev' is of type "afpacket". */
bool netdev_is_afpacket(const struct netdev *);

#endif /* netdev-afpacket.h */

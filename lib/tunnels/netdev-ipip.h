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

#ifndef NETDEV_IPIP_H
#define NETDEV_IPIP_H 1

/* The "ipip" netdev type: an IP-in-IP tunnel port, as Linux's ipip, sit and
 * ip6tnl devices together: IPv4 (IP protocol 4) or IPv6 (41) inside IPv4 or
 * IPv6, the outer family from the addresses, configured with
 *
 *     ovs-vsctl add-port br0 t0 -- set interface t0 type=ipip \
 *         options:remote_ip=192.0.2.1 options:local_ip=192.0.2.2
 *
 * This module holds only the port's configuration, status and counters.  It
 * does not move packets: the datapath encapsulates packets output to the
 * port and decapsulates those received for it, reading the configuration
 * with netdev_ipip_get_config() and counting with netdev_ipip_count().
 *
 * Options (anything else, or a malformed value, is refused with a message
 * in Interface.error):
 *
 *   remote_ip   IPv4 or IPv6 address of the far end, or "flow" (taken
 *               from the flow's tun_dst or tun_ipv6_dst).  Required.
 *   local_ip    IPv4 or IPv6 source address, of remote_ip's family, or
 *               "flow" (then remote_ip must be "flow" too).  Optional:
 *               unset means "from the route".
 *   tos         Outer DSCP, 0..252 with the two ECN bits clear (ECN is
 *               always copied from the inner packet), or "inherit".
 *               Default 0.
 *   ttl         Outer TTL (IPv6: hop limit), 1..255, or "inherit".
 *               Default 64.
 *   df_default  true or false: set DF in the outer header.  Default true.
 *   gro         true or false: merge decapsulated TCP segments.  Default
 *               true.
 *
 * It is a layer-3 tunnel (packet_type legacy_l3): ofproto pops the Ethernet
 * header before output to it and pushes one on packets received from it.
 *
 * Threads: configuration (set_config, get_config, get_status, the class's
 * run) happens in the main thread; forwarding threads only call
 * netdev_ipip_get_config() and netdev_ipip_count(), which take no lock. */

#include <stdbool.h>
#include <stdint.h>

#include <netinet/in.h>

#include "openvswitch/types.h"

struct netdev;

/* Registers the netdev class "ipip".  Call before bridge_init().  Calling it
 * again does nothing. */
void netdev_ipip_register(void);

/* Returns true if 'netdev' is of type "ipip". */
bool netdev_is_ipip(const struct netdev *);

/* The parsed options of an ipip port.  Immutable once published: a change
 * of options publishes a new copy. */
struct netdev_ipip_config {
    ovs_be32 local_ip;          /* Outer source address, or 0 if unset or
                                 * IPv6. */
    bool local_ip_flow;         /* Source taken from the flow's tun_src. */
    ovs_be32 remote_ip;         /* Outer destination, 0 if 'remote_ip_flow'
                                 * or IPv6. */
    bool ipv6;                  /* 'remote_ip' (and 'local_ip', if set) are
                                 * IPv6: they are in 'remote_ip6' and
                                 * 'local_ip6'. */
    struct in6_addr local_ip6;  /* IPv6 outer source, all-zero if unset. */
    struct in6_addr remote_ip6; /* IPv6 outer destination. */
    bool remote_ip_flow;        /* Destination from the flow's tun_dst. */
    uint8_t tos;                /* Outer DSCP (ECN bits always clear). */
    bool tos_inherit;           /* Outer DSCP copied from the inner header. */
    uint8_t ttl;                /* Outer TTL, 1..255. */
    bool ttl_inherit;           /* Outer TTL copied from the inner header. */
    bool df_default;            /* Set DF in the outer header. */
    bool gro;                   /* Merge decapsulated TCP segments. */
};

/* Returns the options of ipip port 'netdev' (which must be of type "ipip"),
 * without any lock: the snapshot stays valid until the calling thread next
 * quiesces (RCU).  Never NULL: before the first successful configuration it
 * holds the defaults with remote_ip 0. */
const struct netdev_ipip_config *netdev_ipip_get_config(
    const struct netdev *);

/* The counters of an ipip port, as the datapath reports them. */
enum netdev_ipip_counter {
    NETDEV_IPIP_RX_PACKETS,     /* Packets decapsulated and received. */
    NETDEV_IPIP_RX_BYTES,       /* Their bytes, inner packets. */
    NETDEV_IPIP_RX_ERRORS,      /* Malformed encapsulated packets. */
    NETDEV_IPIP_RX_DROPPED,     /* Received but dropped (e.g. GRO backlog). */
    NETDEV_IPIP_TX_PACKETS,     /* Packets encapsulated and sent. */
    NETDEV_IPIP_TX_BYTES,       /* Their bytes, inner packets. */
    NETDEV_IPIP_TX_ERRORS,      /* Encapsulation failures (no route...). */
    NETDEV_IPIP_TX_DROPPED,     /* Output dropped (e.g. no neighbour yet). */
    NETDEV_IPIP_N_COUNTERS
};

/* Adds 'n' to 'counter' of ipip port 'netdev' (which must be of type
 * "ipip") on behalf of the forwarding thread with index 'thread_index'.
 *
 * Each port has one cache-line-aligned slot of counters per forwarding
 * thread: ovs_numa_get_n_cores() + 1 slots (at least 2), as many as the
 * datapath has thread indexes.  This function writes only slot
 * 'thread_index', with a relaxed atomic load and store and no
 * read-modify-write, so at most one thread may write a given slot at a time:
 * the thread that owns the index (for index 0, the non-PMD context, whoever
 * holds the datapath's non-PMD mutex).  An index past the last slot wraps
 * around modulo the number of slots; it then shares a slot with another
 * thread, whose concurrent updates may be lost (never torn). */
void netdev_ipip_count(struct netdev *, unsigned int thread_index,
                       enum netdev_ipip_counter, uint64_t n);

/* Returns the number of counter slots of 'netdev', which must be of type
 * "ipip". */
unsigned int netdev_ipip_n_slots(const struct netdev *);

#endif /* netdev-ipip.h */

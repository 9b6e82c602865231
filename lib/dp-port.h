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

#ifndef DP_PORT_H
#define DP_PORT_H 1

/* A port of the datapath: one netdev, its receive queues, and how forwarding
 * threads transmit on it.
 *
 * Ports live in the datapath's 'ports' cmap, by number, and in its
 * 'ports_by_name', by name.  Forwarding threads find them there under RCU,
 * taking no reference; a deleted port is freed after a grace
 * period.  Everything below is written only under the datapath's
 * 'reconfig_mutex', while no forwarding thread polls the port. */

#include <stdbool.h>

#include "cmap.h"
#include "openvswitch/types.h"
#include "ovs-atomic.h"
#include "packets.h"
#include "util.h"

struct dp_packet_batch;
struct gso_stats;
struct netdev;
struct netdev_rxq;
struct netdev_saved_flags;
struct smap;
struct vport_tunnel;

struct dp_port {
    struct cmap_node node;          /* In datapath 'ports', by port number. */
    struct cmap_node name_node;     /* In datapath 'ports_by_name', by
                                     * hash_string() of the netdev's
                                     * name. */
    odp_port_t port_no;             /* Datapath port number. */
    struct netdev *netdev;          /* The device; the port holds a ref. */
    char *type;                     /* Port type, as dpif_port reports it. */
    struct netdev_saved_flags *sf;  /* Flags to restore on deletion. */
    bool is_pmd;                    /* Polled by PMD threads? */
    bool is_tunnel;                 /* A tunnel port of a type this datapath
                                     * does not carry (lisp, stt...)? */
    bool is_internal;               /* A bridge's local port? */
    bool tx_offloads_untrusted;     /* Does the netdev claim transmit
                                     * offloads it does not perform? */
    bool rx_segsz_unknown;          /* May the netdev mark received packets
                                     * for TCP segmentation without giving
                                     * their segment size (tso-segsz.h)? */
    struct vport_tunnel *tunnel;    /* If a tunnel port of a type this
                                     * datapath carries (ipip, vxlan, gre,
                                     * geneve), its datapath side; see
                                     * vport-tunnel.h. */

    /* The netdev's MAC and MTU, as the main thread last read them, for the
     * forwarding threads that send tunnel packets out of this port: read
     * with dp_port_get_link(). */
    atomic_uint64_t link_mac;
    atomic_int link_mtu;

    /* Does the port hold an address that tunnel vports receive on?  Then
     * output to it first takes the tunnel packets the flows deliver there
     * (vport_tunnel_terminate()).  Set by the main thread with the tunnel
     * endpoint table; read by the forwarding threads with
     * dp_port_terminates_tunnels(). */
    atomic_bool terminates_tunnels;
    bool need_reconfigure;          /* Must reopen its queues. */
    int n_rxq;                      /* Number of elements in 'rxqs'. */
    struct netdev_rxq **rxqs;       /* Open receive queues. */
    int n_txq;                      /* Transmit queues the netdev offers. */
    int n_tx_threads;               /* Threads that may transmit on it. */

    /* Transmit-queue steering (other_config:tx-steering): by thread, the
     * default, or by packet hash.  'requested_tx_hash' is set by the main
     * thread and copied to 'tx_hash' while no thread forwards. */
    bool tx_hash;
    bool requested_tx_hash;

    /* Receive-queue placement (pmd-sched.h), main thread only: the
     * interface's other_config:pmd-rxq-affinity as last accepted, and the
     * cycles each queue cost its thread before the last assignment
     * ('n_rxq_cycles' elements, by queue id). */
    char *rxq_affinity;
    uint64_t *rxq_cycles;
    int n_rxq_cycles;
};

int dp_port_create(const char *name, const char *type, odp_port_t,
                   struct dp_port **);
void dp_port_destroy(struct dp_port *);
int dp_port_reconfigure(struct dp_port *, int n_tx_threads);
bool dp_port_needs_reconfigure(const struct dp_port *);
void dp_port_send(struct dp_port *, unsigned thread_index,
                  struct dp_packet_batch *, struct gso_stats *);
void dp_port_set_config(struct dp_port *, const struct smap *cfg,
                        bool *changed, bool *reassign);
void dp_port_refresh_link(struct dp_port *);
void dp_port_get_link(const struct dp_port *, struct eth_addr *mac,
                      int *mtu);

/* Returns true if output to 'port' must look for tunnel packets to
 * decapsulate (see 'terminates_tunnels').  Any thread: one relaxed load, the
 * only cost on the output path to every other port. */
static inline bool
dp_port_terminates_tunnels(const struct dp_port *port)
{
    bool terminates;

    atomic_read_relaxed(&CONST_CAST(struct dp_port *, port)
                         ->terminates_tunnels, &terminates);
    return terminates;
}

#endif /* dp-port.h */

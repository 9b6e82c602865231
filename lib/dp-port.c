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

/* A port of the datapath: its netdev, receive queues and transmit queues. */

#include <config.h>
#include "dp-port.h"

#include <errno.h>

#include "dp-packet.h"
#include "flow.h"
#include "gso.h"
#include "netdev.h"
#include "netdev-afpacket.h"
#include "netdev-ipip.h"
#include "netdev-provider.h"
#include "openvswitch/vlog.h"
#include "pmd-sched.h"
#include "smap.h"
#include "util.h"
#include "vport-tunnel.h"

VLOG_DEFINE_THIS_MODULE(dp_port);

/* Opens netdev 'name' of 'type' as port 'port_no'.  On success stores the new
 * port, not yet reconfigured and with no queue open, in '*portp'. */
int
dp_port_create(const char *name, const char *type, odp_port_t port_no,
               struct dp_port **portp)
{
    enum netdev_flags flags;
    struct netdev *netdev;
    struct dp_port *port;
    int error;

    *portp = NULL;
    error = netdev_open(name, type, &netdev);
    if (error) {
        return error;
    }

    netdev_get_flags(netdev, &flags);
    if (flags & NETDEV_LOOPBACK) {
        VLOG_ERR("%s: cannot add a loopback device", name);
        netdev_close(netdev);
        return EINVAL;
    }

    port = xzalloc(sizeof *port);
    port->port_no = port_no;
    port->netdev = netdev;
    port->type = xstrdup(type);
    port->is_pmd = netdev_is_pmd(netdev);
    port->is_internal = !strcmp(type, "tap") || !strcmp(type, "internal")
                        || !strcmp(type, "dummy-internal");
    /* OVS 3.1's AF_XDP netdev claims TSO and checksum offload once
     * userspace-tso-enable is on, then transmits 64 kB frames and partial
     * checksums as they are: TCP through it never connects.  Its frames get
     * segmented and checksummed here instead. */
    port->tx_offloads_untrusted = (!strcmp(netdev_get_type(netdev), "afxdp")
                                   || !strcmp(netdev_get_type(netdev),
                                              "afxdp-nonpmd"));
    /* netdev-linux marks TSO from a vnet header but drops its gso_size;
     * our afpacket netdev and DPDK keep it. */
    port->rx_segsz_unknown = (!netdev_is_afpacket(netdev)
                              && strcmp(netdev_get_type(netdev), "dpdk")
                              && strcmp(netdev_get_type(netdev),
                                        "dpdkvhostuserclient"));
    port->is_tunnel = (netdev_get_tunnel_config(netdev) != NULL
                       && !vport_tunnel_ops_find(netdev));
    dp_port_refresh_link(port);
    if (port->is_tunnel) {
        VLOG_INFO("%s: tunnel port of type %s: ovs-percpu carries only "
                  "ipip, vxlan, gre, ip6gre and geneve tunnels, so packets "
                  "output to it are dropped and counted", name, type);
    }
    port->need_reconfigure = true;
    *portp = port;
    return 0;
}

static void
close_rxqs(struct dp_port *port)
{
    for (int i = 0; i < port->n_rxq; i++) {
        netdev_rxq_close(port->rxqs[i]);
    }
    free(port->rxqs);
    port->rxqs = NULL;
    port->n_rxq = 0;
}

/* Closes 'port' and restores its netdev's flags.  Accepts NULL. */
void
dp_port_destroy(struct dp_port *port)
{
    if (!port) {
        return;
    }
    close_rxqs(port);
    vport_tunnel_destroy(port->tunnel);
    netdev_restore_flags(port->sf);
    netdev_close(port->netdev);
    free(port->type);
    free(port->rxq_affinity);
    free(port->rxq_cycles);
    free(port);
}

/* Returns true if 'port' must be reconfigured before it is polled again. */
bool
dp_port_needs_reconfigure(const struct dp_port *port)
{
    return port->need_reconfigure || netdev_is_reconf_required(port->netdev);
}

/* Applies pending netdev configuration to 'port' and reopens its receive
 * queues, asking for one transmit queue per each of 'n_tx_threads' threads.
 * No thread may poll or transmit on 'port' meanwhile. */
int
dp_port_reconfigure(struct dp_port *port, int n_tx_threads)
{
    struct netdev *netdev = port->netdev;
    int error;

    close_rxqs(port);
    netdev_set_tx_multiq(netdev, n_tx_threads);
    if (netdev_is_reconf_required(netdev)) {
        error = netdev_reconfigure(netdev);
        if (error && error != EOPNOTSUPP) {
            VLOG_ERR("%s: cannot reconfigure: %s", netdev_get_name(netdev),
                     ovs_strerror(error));
            return error;
        }
    }

    port->rxqs = xcalloc(MAX(netdev_n_rxq(netdev), 1), sizeof *port->rxqs);
    for (int i = 0; i < netdev_n_rxq(netdev); i++) {
        error = netdev_rxq_open(netdev, &port->rxqs[i], i);
        if (error) {
            VLOG_ERR("%s: cannot receive packets on this network device "
                     "(%s)", netdev_get_name(netdev), ovs_strerror(error));
            close_rxqs(port);
            return error;
        }
        port->n_rxq++;
    }
    port->n_txq = MAX(netdev_n_txq(netdev), 1);
    port->n_tx_threads = n_tx_threads;
    port->need_reconfigure = false;
    port->tx_hash = port->requested_tx_hash;
    return 0;
}

/* Most transmit queues that hash steering spreads packets over; a netdev
 * with more uses only these. */
#define DP_PORT_MAX_HASH_TXQS 64

/* Sends 'batch' on 'port', spread over its transmit queues by each packet's
 * 5-tuple hash, as dpif-netdev's tx-steering=hash does.  Queues are shared
 * by threads in this mode, so the netdev serializes them. */
static void
send_by_hash(struct dp_port *port, struct dp_packet_batch *batch)
{
    int n_txq = MIN(port->n_txq, DP_PORT_MAX_HASH_TXQS);
    struct dp_packet_batch queues[DP_PORT_MAX_HASH_TXQS];
    struct dp_packet *packet;

    for (int i = 0; i < n_txq; i++) {
        dp_packet_batch_init(&queues[i]);
    }
    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        uint32_t hash;

        if (dp_packet_rss_valid(packet)) {
            hash = dp_packet_get_rss_hash(packet);
        } else {
            struct flow flow;

            flow_extract(packet, &flow);
            hash = flow_hash_5tuple(&flow, 0);
        }
        dp_packet_batch_add(&queues[hash % n_txq], packet);
    }
    for (int i = 0; i < n_txq; i++) {
        if (!dp_packet_batch_is_empty(&queues[i])) {
            netdev_send(port->netdev, i, &queues[i], true);
        }
    }
}

/* Transmits 'batch', whose packets 'port''s netdev can all take as they
 * are, on 'port'.  Each forwarding thread uses its own transmit queue when
 * the netdev has enough; otherwise threads share queues and the netdev
 * serializes them. */
static void
send_batch(struct dp_port *port, unsigned thread_index,
           struct dp_packet_batch *batch)
{
    if (port->tx_hash) {
        send_by_hash(port, batch);
    } else {
        bool concurrent = port->n_txq < port->n_tx_threads;

        netdev_send(port->netdev, thread_index % port->n_txq, batch,
                    concurrent);
    }
}

/* Returns the checksum offload flag 'port''s netdev needs for 'packet''s
 * partial L4 checksum, or 0 if it has none. */
static uint64_t
csum_offload_needed(const struct dp_packet *packet_)
{
    /* OVS 3.1's dp_packet_hwol_l4_is_udp() takes a non-const packet. */
    struct dp_packet *packet = CONST_CAST(struct dp_packet *, packet_);

    if (!dp_packet_hwol_l4_mask(packet)) {
        return 0;
    }
    return (dp_packet_hwol_l4_is_tcp(packet) ? NETDEV_TX_OFFLOAD_TCP_CKSUM
            : dp_packet_hwol_l4_is_udp(packet) ? NETDEV_TX_OFFLOAD_UDP_CKSUM
            : NETDEV_TX_OFFLOAD_SCTP_CKSUM);
}

/* Returns true if some packet of 'batch' needs an offload, segmentation or a
 * checksum, that the netdev with offload flags 'ol_flags' lacks. */
static bool
needs_software_offload(const struct dp_packet_batch *batch,
                       uint64_t ol_flags)
{
    const struct dp_packet *packet;

    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        uint64_t csum = csum_offload_needed(packet);

        if ((dp_packet_hwol_is_tso(packet)
             && !(ol_flags & NETDEV_TX_OFFLOAD_TCP_TSO))
            || (csum && !(ol_flags & csum))) {
            return true;
        }
    }
    return false;
}

/* Counts in 'stats' the packets of 'batch', bound for a netdev with TSO,
 * that are marked for segmentation: they go out whole. */
static void
count_tso_whole(const struct dp_packet_batch *batch, struct gso_stats *stats)
{
    const struct dp_packet *packet;
    size_t n = 0;

    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        n += dp_packet_hwol_is_tso(packet);
    }
    if (n) {
        gso_stats_add(&stats->tso_sent_whole, n);
    }
}

/* Where software segmentation sends: one port, from one thread. */
struct port_sink {
    struct dp_port *port;
    unsigned thread_index;
};

static void
send_segments(struct dp_packet_batch *batch, void *sink_)
{
    struct port_sink *sink = sink_;

    send_batch(sink->port, sink->thread_index, batch);
    dp_packet_batch_init(batch);
}

/* Sends 'batch' on 'port' after doing in software what its netdev cannot:
 * segmenting TSO packets (which OVS 3.1's netdev_send() would drop with "No
 * TSO support") and completing partial checksums.  Segments are no larger
 * than the size GRO recorded, nor than the port's MTU allows. */
static void
send_with_software_offload(struct dp_port *port, unsigned thread_index,
                           struct dp_packet_batch *batch,
                           struct gso_stats *stats, uint64_t ol_flags)
{
    struct port_sink sink = { port, thread_index };
    struct dp_packet_batch out;
    struct gso_output output = {
        .batch = &out, .flush = send_segments, .aux = &sink,
    };
    struct dp_packet *packet;
    struct eth_addr mac;
    int mtu;

    dp_port_get_link(port, &mac, &mtu);
    dp_packet_batch_init(&out);
    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        uint64_t csum = csum_offload_needed(packet);

        if (dp_packet_hwol_is_tso(packet)
            && !(ol_flags & NETDEV_TX_OFFLOAD_TCP_TSO)) {
            gso_segment(packet, gso_segsz_for_mtu(packet, mtu), &output,
                        stats);
            continue;
        }
        if (csum && !(ol_flags & csum)
            && !gso_complete_csum_or_drop(packet, stats)) {
            continue;
        }
        gso_output_put(&output, packet);
    }
    dp_packet_batch_init(batch);
    if (!dp_packet_batch_is_empty(&out)) {
        send_batch(port, thread_index, &out);
    }
}

/* Transmits 'batch' on 'port' and takes ownership of its packets.  What the
 * netdev cannot offload is done in software first; 'stats' is the calling
 * thread's account of it. */
void
dp_port_send(struct dp_port *port, unsigned thread_index,
             struct dp_packet_batch *batch, struct gso_stats *stats)
{
    uint64_t ol_flags = (port->tx_offloads_untrusted
                         ? 0 : port->netdev->ol_flags);

    dp_packet_batch_apply_cutlen(batch);
    if (ol_flags & NETDEV_TX_OFFLOAD_TCP_TSO) {
        count_tso_whole(batch, stats);
    }
    if (OVS_UNLIKELY(needs_software_offload(batch, ol_flags))) {
        send_with_software_offload(port, thread_index, batch, stats,
                                   ol_flags);
    } else {
        send_batch(port, thread_index, batch);
    }
}

/* Applies the per-interface other_config 'cfg' of 'port': tx-steering.
 * Sets '*changed' if the datapath must reconfigure to apply it. */
void
dp_port_set_config(struct dp_port *port, const struct smap *cfg,
                   bool *changed, bool *reassign)
{
    const char *affinity = smap_get(cfg, "pmd-rxq-affinity");

    const char *steering = smap_get_def(cfg, "tx-steering", "thread");
    bool hash;

    if (!strcmp(steering, "hash")) {
        hash = true;
    } else if (!strcmp(steering, "thread")) {
        hash = false;
    } else {
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);

        VLOG_WARN_RL(&rl, "%s: unknown tx-steering \"%s\" (expected "
                     "\"thread\" or \"hash\"); using \"thread\"",
                     netdev_get_name(port->netdev), steering);
        hash = false;
    }
    if (hash != port->requested_tx_hash) {
        port->requested_tx_hash = hash;
        VLOG_INFO("%s: Tx packet steering mode has been set to '%s'.",
                  netdev_get_name(port->netdev), hash ? "hash" : "thread");
        *changed = true;
    }

    /* Queue pinning, for PMD ports as in stock (other ports are polled by
     * the main thread).  A list that does not parse is refused, the old
     * one kept. */
    if (port->is_pmd
        && !nullable_string_is_equal(affinity, port->rxq_affinity)) {
        int core;

        if (affinity && pmd_sched_parse_affinity(affinity, &core, 0)) {
            static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);

            VLOG_WARN_RL(&rl, "%s: invalid pmd-rxq-affinity \"%s\" "
                         "(expected QUEUE:CORE,...); keeping \"%s\"",
                         netdev_get_name(port->netdev), affinity,
                         port->rxq_affinity ? port->rxq_affinity : "");
        } else {
            free(port->rxq_affinity);
            port->rxq_affinity = nullable_xstrdup(affinity);
            *reassign = true;
        }
    }
}

/* Reads 'port''s MAC and MTU from its netdev, for dp_port_get_link().
 * Main thread. */
void
dp_port_refresh_link(struct dp_port *port)
{
    struct eth_addr mac = eth_addr_zero;
    int mtu = ETH_PAYLOAD_MAX;

    netdev_get_etheraddr(port->netdev, &mac);
    if (netdev_get_mtu(port->netdev, &mtu) || mtu <= 0) {
        /* A tap moved to another namespace cannot be asked; its frames
         * are still sent, so assume Ethernet's MTU rather than none. */
        mtu = ETH_PAYLOAD_MAX;
    }
    atomic_store_relaxed(&port->link_mac, eth_addr_to_uint64(mac));
    atomic_store_relaxed(&port->link_mtu, mtu);
}

/* Returns in '*mac' and '*mtu' 'port''s MAC and MTU as the main thread last
 * read them.  Any thread; takes no lock, unlike the netdev's own getters. */
void
dp_port_get_link(const struct dp_port *port, struct eth_addr *mac, int *mtu)
{
    uint64_t mac64;

    atomic_read_relaxed(&CONST_CAST(struct dp_port *, port)->link_mac,
                        &mac64);
    eth_addr_from_uint64(mac64, mac);
    atomic_read_relaxed(&CONST_CAST(struct dp_port *, port)->link_mtu, mtu);
}

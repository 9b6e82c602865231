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
#include "tunnel-neigh.h"

#include "dp-input.h"
#include "dp-packet.h"
#include "dp-port.h"
#include "flow.h"
#include "netdev.h"
#include "pmd.h"
#include "tnl-neigh-cache.h"

/* Least time between two ARP requests of one thread for one next hop. */
#define TUNNEL_NEIGH_REQUEST_INTERVAL_MS 1000

/* Returns true if 't' may send an ARP request for 'ip' now, and records
 * that it does.  The history is the thread's own. */
static bool
request_allowed(struct pmd_thread *t, ovs_be32 ip)
{
    size_t oldest = 0;

    for (size_t i = 0; i < PMD_ARP_HISTORY; i++) {
        if (t->arp_history[i].ip == ip) {
            if (t->now - t->arp_history[i].sent
                < TUNNEL_NEIGH_REQUEST_INTERVAL_MS
                && t->arp_history[i].sent) {
                return false;
            }
            oldest = i;
            break;
        }
        if (t->arp_history[i].sent < t->arp_history[oldest].sent) {
            oldest = i;
        }
    }
    t->arp_history[oldest].ip = ip;
    t->arp_history[oldest].sent = t->now ? t->now : 1;
    return true;
}

/* Sends, from bridge local port 'local_port' with MAC 'local_mac', an ARP
 * request for 'next_hop' from address 'src', unless 't' sent one for it
 * less than a second ago.  The request goes through the underlay bridge's
 * flows as if the host had sent it. */
void
tunnel_neigh_request(struct pmd_thread *t, struct dp_port *local_port,
                     struct eth_addr local_mac, ovs_be32 src,
                     ovs_be32 next_hop)
{
    struct dp_packet_batch batch;
    struct dp_packet *packet;

    if (!request_allowed(t, next_hop)) {
        return;
    }
    packet = dp_packet_new(ETH_HEADER_LEN + ARP_ETH_HEADER_LEN);
    compose_arp(packet, ARP_OP_REQUEST, local_mac, eth_addr_zero, true,
                src, next_hop);
    pkt_metadata_init(&packet->md, local_port->port_no);
    pmd_counter_add(t, PMD_TNL_TX_ARP_REQUESTS, 1);
    dp_packet_batch_init_packet(&batch, packet);
    dp_input_inject(t, &batch);
}

/* Learns the neighbours that ARP packets in 'batch', about to be output to
 * 'port', announce, if 'port' is a bridge's local port. */
void
tunnel_neigh_snoop(const struct dp_port *port, struct dp_packet_batch *batch)
{
    struct dp_packet *packet;

    if (!port->is_internal) {
        return;
    }
    DP_PACKET_BATCH_FOR_EACH (i, packet, batch) {
        const struct eth_header *eth = dp_packet_data(packet);

        if (packet->packet_type == htonl(PT_ETH)
            && dp_packet_size(packet) >= ETH_HEADER_LEN + ARP_ETH_HEADER_LEN
            && eth->eth_type == htons(ETH_TYPE_ARP)) {
            struct flow_wildcards wc;
            struct flow flow;

            flow_extract(packet, &flow);
            flow_wildcards_init_catchall(&wc);
            tnl_neigh_snoop(&flow, &wc, netdev_get_name(port->netdev), true);
        }
    }
}

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

/* The tunnel layer: what every tunnel vport shares, a vport's life. */

#include <config.h>
#include "vport-tunnel.h"

#include <string.h>

#include "dp-packet.h"
#include "dp-port.h"
#include "gro-cell.h"
#include "ip-ident.h"
#include "netdev.h"
#include "netdev-ipip.h"
#include "ovs-rcu.h"
#include "pmd.h"
#include "util.h"
#include "vport-geneve.h"
#include "vport-gre.h"
#include "vport-ipip.h"
#include "vport-tunnel-private.h"
#include "vport-vxlan.h"

/* What the tunnel layer's files share: the types' ops, a vport's life and
 * a thread's state of the layer, and the drop and port counters.  The
 * endpoint table is in vport-tunnel-endpoints.c, receive in
 * vport-tunnel-rx.c, transmit in vport-tunnel-tx.c and the GRO counters'
 * formatter in vport-tunnel-format.c. */

/* Returns the ops of tunnel netdev 'netdev''s type, or NULL if this
 * datapath does not carry it. */
const struct vport_tunnel_ops *
vport_tunnel_ops_find(const struct netdev *netdev)
{
    static const struct vport_tunnel_ops *const all[] = {
        &vport_ipip_ops, &vport_vxlan_ops, &vport_gre_ops, &vport_geneve_ops,
        &vport_ip6gre_ops,
    };
    const char *type = netdev_get_type(netdev);

    for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
        if (!strcmp(type, all[i]->type)) {
            return all[i];
        }
    }
    return NULL;
}

/* Creates the datapath side of tunnel port 'port', of type 'ops', for
 * 'n_threads' forwarding threads. */
struct vport_tunnel *
vport_tunnel_create(struct dp_port *port, const struct vport_tunnel_ops *ops,
                    size_t n_threads)
{
    struct vport_tunnel *vport = xzalloc(sizeof *vport);
    ovs_be32 local, remote;

    vport->port = port;
    vport->ops = ops;
    vport->n_threads = n_threads;
    vport->rx = xzalloc_cacheline(n_threads * sizeof *vport->rx);
    for (size_t i = 0; i < n_threads; i++) {
        vport->rx[i].vport = vport;
        dp_packet_batch_init(&vport->rx[i].plain);
    }
    ops->endpoint(port->netdev, &local, &remote, &vport->udp_port);
    atomic_init(&vport->exts, 0);
    return vport;
}

/* Sets the `exts` option (OVS_VXLAN_EXT_* bits) 'vport''s packets are sent
 * with.  The datapath port's own netdev, opened by its datapath name
 * (vxlan_sys_4789), has no options: the dpif passes those of the OpenFlow
 * port it adds the datapath port for, as dpif-netlink gives them to the
 * kernel's vport, where the first port of a UDP port sets them. */
void
vport_tunnel_set_exts(struct vport_tunnel *vport, uint32_t exts)
{
    atomic_store_relaxed(&vport->exts, exts);
}

/* Frees 'vport', once no forwarding thread can see it (after an RCU grace
 * period).  Accepts NULL. */
void
vport_tunnel_destroy(struct vport_tunnel *vport)
{
    if (!vport) {
        return;
    }
    for (size_t i = 0; i < vport->n_threads; i++) {
        gro_cell_destroy(ovsrcu_get_protected(struct gro_cell *,
                                              &vport->rx[i].gro));
        dp_packet_delete_batch(&vport->rx[i].plain, true);
    }
    free_cacheline(vport->rx);
    free(vport);
}

/* The names of VPORT_TUNNEL_COUNTERS, by counter. */
static const char *const vport_tunnel_counter_names[] = {
#define VPORT_TUNNEL_COUNTER(ENUM, NAME) NAME,
    VPORT_TUNNEL_COUNTERS
#undef VPORT_TUNNEL_COUNTER
};

/* Creates a datapath's tunnel layer, for 'n_threads' thread indexes. */
struct vport_tunnel_table *
vport_tunnel_table_create(size_t n_threads)
{
    struct vport_tunnel_table *table = xzalloc(sizeof *table);
    struct ip_ident_key key;

    table->counters = thread_counters_create(n_threads,
                                             vport_tunnel_counter_names,
                                             VPORT_TNL_N_COUNTERS);
    table->n_threads = n_threads;
    table->threads = xzalloc_cacheline(n_threads * sizeof *table->threads);
    ovsrcu_set_hidden(&table->endpoints, NULL);

    /* Until the main thread ranks the threads that exist, each index is
     * its own rank among all of them: spaces smaller than need be, but
     * apart. */
    ovs_assert(n_threads <= UINT16_MAX); /* 'ident_ranks' packs 16 bits. */
    ip_ident_key_init(&key);
    table->idents = xcalloc(n_threads, sizeof *table->idents);
    table->ident_ranks = xcalloc(n_threads, sizeof *table->ident_ranks);
    for (size_t i = 0; i < n_threads; i++) {
        table->idents[i] = ip_ident_create(&key);
        atomic_init(&table->ident_ranks[i], (i << 16) | n_threads);
    }
    return table;
}

/* Gives each thread index 'i' of 'table' its rank 'ranks[i]' among the
 * 'n_ranks' threads that exist, which chooses its part of the outer IP
 * identifications (ip-ident.h): ranks 0 to 'n_ranks' - 1, each once, for
 * the indexes of threads that exist; any for the others.  Main thread, as
 * threads start and stop, before they forward again. */
void
vport_tunnel_set_ranks(struct vport_tunnel_table *table,
                       const unsigned int *ranks, unsigned int n_ranks)
{
    n_ranks = MAX(n_ranks, 1);
    for (size_t i = 0; i < table->n_threads; i++) {
        atomic_store_relaxed(&table->ident_ranks[i],
                             ((ranks[i] % n_ranks) << 16) | n_ranks);
    }
}

/* Returns the outer IPv4 ID of the next datagram 't' sends from 'src' to
 * 'dst' with protocol 'proto', in 't''s own part of the space. */
ovs_be16
vport_tunnel_ip_id(struct pmd_thread *t, ovs_be32 src, ovs_be32 dst,
                   uint8_t proto)
{
    struct vport_tunnel_table *table = t->dp->tunnel;
    uint32_t ranks;

    atomic_read_relaxed(&table->ident_ranks[t->index], &ranks);
    return ip_ident_v4(table->idents[t->index], ranks >> 16, ranks & 0xffff,
                       src, dst, proto, t->now);
}

/* Returns the fragment identification of the next outer IPv6 datagram 't'
 * fragments, in 't''s own part of the space. */
ovs_be32
vport_tunnel_ip6_id(struct pmd_thread *t)
{
    struct vport_tunnel_table *table = t->dp->tunnel;
    uint32_t ranks;

    atomic_read_relaxed(&table->ident_ranks[t->index], &ranks);
    return ip_ident_v6(table->idents[t->index], ranks >> 16, ranks & 0xffff);
}

/* Frees 'table', once no thread can use it.  Accepts NULL. */
void
vport_tunnel_table_destroy(struct vport_tunnel_table *table)
{
    if (table) {
        vport_tunnel_endpoints_destroy(
            ovsrcu_get_protected(struct vport_tunnel_endpoints *,
                                 &table->endpoints));
        thread_counters_destroy(table->counters);
        free_cacheline(table->threads);
        for (size_t i = 0; i < table->n_threads; i++) {
            ip_ident_destroy(table->idents[i]);
        }
        free(table->idents);
        free(table->ident_ranks);
        free(table);
    }
}

/* Returns the threads' tunnel counters in 'table', for the commands that
 * print and clear them. */
struct thread_counters *
vport_tunnel_counters(const struct vport_tunnel_table *table)
{
    return table->counters;
}

/* Adds 'n' to 't''s tunnel counter 'c'.  Called only by 't'. */
void
vport_tunnel_count(struct pmd_thread *t, enum vport_tunnel_counter c,
                   uint64_t n)
{
    vport_tunnel_count__(t, c, n);
}

/* Returns a new state for a forwarding thread's tunnel layer. */
struct vport_tunnel_thread *
vport_tunnel_thread_create(void)
{
    return xzalloc(sizeof(struct vport_tunnel_thread));
}

/* Frees 'tt'.  Accepts NULL. */
void
vport_tunnel_thread_destroy(struct vport_tunnel_thread *tt)
{
    free(tt);
}

/* Forgets the state of thread index 'index', whose thread has stopped, so
 * that a thread that takes the index starts afresh, as a new thread does.
 * Main thread. */
void
vport_tunnel_thread_stopped(struct vport_tunnel_table *table, size_t index)
{
    memset(&table->threads[index].tt, 0, sizeof table->threads[index].tt);
}

/* Returns true if 't' holds decapsulated packets in receive cells, which
 * the end of its round (vport_tunnel_flush()) must forward. */
bool
vport_tunnel_has_active(const struct pmd_thread *t)
{
    return t->dp->tunnel->threads[t->index].tt.n_active != 0;
}

/* Drops 'packet', which 't' received on or output to 'vport', counting it
 * in 't''s counter 'reason' and in the port's counter 'port_counter'. */
void
vport_tunnel_drop(struct pmd_thread *t, struct vport_tunnel *vport,
                  struct dp_packet *packet, enum vport_tunnel_counter reason,
                  enum netdev_ipip_counter port_counter)
{
    vport_tunnel_count__(t, reason, 1);
    if (vport->ops->count) {
        vport->ops->count(vport->port->netdev, t->index, port_counter, 1);
    }
    dp_packet_delete(packet);
}

/* Adds 'n' to 'vport''s port counter 'counter' for thread 't'. */
void
vport_tunnel_port_count(struct pmd_thread *t, struct vport_tunnel *vport,
                        enum netdev_ipip_counter counter, uint64_t n)
{
    if (vport->ops->count) {
        vport->ops->count(vport->port->netdev, t->index, counter, n);
    }
}

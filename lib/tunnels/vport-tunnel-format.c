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

/* The tunnel layer's formatter: the GRO counters of its receive cells, for
 * dpif-percpu/tunnel-stats-show (dp-unixctl.c). */

#include <config.h>
#include "vport-tunnel.h"

#include "datapath.h"
#include "dp-port.h"
#include "gro-cell.h"
#include "netdev.h"
#include "openvswitch/dynamic-string.h"
#include "ovs-rcu.h"
#include "vport-tunnel-private.h"

/* Formats the GRO counters of tunnel port 'port_name' (every tunnel port
 * if NULL) of 'dp' into 's': per thread, then in total. */
void
vport_tunnel_format_gro_stats(struct ds *s, const struct datapath *dp,
                              const char *port_name)
{
    struct dp_port *port;

    CMAP_FOR_EACH (port, node, &dp->ports) {
        const char *name = netdev_get_name(port->netdev);
        struct gro_cell_stats total;
        struct vport_tunnel *vport = port->tunnel;

        if (!vport || (port_name && strcmp(name, port_name))) {
            continue;
        }
        memset(&total, 0, sizeof total);
        ds_put_format(s, "%s:\n", name);
        for (size_t i = 0; i < vport->n_threads; i++) {
            const struct gro_cell *gro;
            struct gro_cell_stats st;

            gro = ovsrcu_get(struct gro_cell *, &vport->rx[i].gro);
            if (!gro) {
                continue;
            }
            gro_cell_get_stats(gro, &st);
            ds_put_format(s, "  thread %"PRIuSIZE": ", i);
            ds_put_format(s, "segments %"PRIu64", merged %"PRIu64
                          ", packets out %"PRIu64", backlog drops %"PRIu64
                          ", passed as cut on output %"PRIu64"\n",
                          st.segments_in, st.segments_merged,
                          st.packets_out, st.backlog_drops,
                          st.segments_cut_flow);
            total.segments_in += st.segments_in;
            total.segments_merged += st.segments_merged;
            total.packets_out += st.packets_out;
            total.backlog_drops += st.backlog_drops;
            total.segments_cut_flow += st.segments_cut_flow;
            ds_put_cstr(s, "    flushes:");
            for (int r = 0; r < GRO_N_FLUSH_REASONS; r++) {
                ds_put_format(s, " %s %"PRIu64,
                              gro_flush_reason_to_string(r), st.flushes[r]);
                total.flushes[r] += st.flushes[r];
            }
            ds_put_char(s, '\n');
        }
        ds_put_format(s, "  total: segments %"PRIu64", merged %"PRIu64
                      ", packets out %"PRIu64", backlog drops %"PRIu64
                      ", passed as cut on output %"PRIu64"\n",
                      total.segments_in, total.segments_merged,
                      total.packets_out, total.backlog_drops,
                      total.segments_cut_flow);
        ds_put_cstr(s, "    flushes:");
        for (int r = 0; r < GRO_N_FLUSH_REASONS; r++) {
            ds_put_format(s, " %s %"PRIu64,
                          gro_flush_reason_to_string(r), total.flushes[r]);
        }
        ds_put_char(s, '\n');
    }
}

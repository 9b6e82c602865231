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
#include "dp-unixctl.h"

#include "datapath.h"
#include "dp-input.h"
#include "dp-conntrack.h"
#include "dp-gso.h"
#include "dp-ipf.h"
#include "dp-packet.h"
#include "dp-port.h"
#include "dp-upcall.h"
#include "dpif-netdev.h"
#include "dpif.h"
#include "flow-stats.h"
#include "flow-table.h"
#include "kdp-flow-stats.h"
#include "kernel-ipip.h"
#include "flow.h"
#include "netdev.h"
#include "netdev-provider.h"
#include "odp-util.h"
#include "packets.h"
#include "openvswitch/dynamic-string.h"
#include "ovs-thread.h"
#include "pmd.h"
#include "thread-counters.h"
#include "timeval.h"
#include "tso-segsz.h"
#include "unixctl.h"
#include "util.h"
#include "tunnel-neigh.h"
#include "tunnel-nexthop.h"
#include "vport-tunnel.h"

/* Finds, for a command, the datapath that its argument 'name' names, or
 * the only one if 'name' is NULL.  If there is none, replies to 'conn' with
 * an error and returns NULL: 'unknown' if both it and 'name' are nonnull,
 * otherwise stock's "please specify an existing datapath".  For our
 * commands and the stock ones (dp-unixctl-stock.c). */
struct datapath *
dp_unixctl_find_datapath(struct unixctl_conn *conn, const char *name,
                         const char *unknown)
{
    struct datapath *dp = datapath_find(name);

    if (!dp) {
        unixctl_command_reply_error(conn, name && unknown
                                    ? unknown
                                    : "please specify an existing datapath");
    }
    return dp;
}

/* Finds the datapath named by the optional first argument of one of our
 * commands, which takes 'n_args_without_dp' arguments without it, or
 * replies with an error and returns NULL. */
static struct datapath *
find_datapath(struct unixctl_conn *conn, int argc, const char *argv[],
              int n_args_without_dp)
{
    return dp_unixctl_find_datapath(conn,
                                    argc > n_args_without_dp ? argv[1] : NULL,
                                    "no such datapath");
}


/* Replies to flow-stats-show for a kernel datapath: 'name' is the one the
 * user gave, or NULL (then the kernel's "ovs-system"). */
static void
flow_stats_show_kernel(struct unixctl_conn *conn, const char *name,
                       const ovs_u128 *ufid)
{
    const char *error;
    struct ds s;

    ds_init(&s);
    error = kdp_flow_stats_format(name ? name : "ovs-system", ufid, &s);
    if (error) {
        unixctl_command_reply_error(conn, error);
    } else {
        unixctl_command_reply(conn, ds_cstr(&s));
    }
    ds_destroy(&s);
}

/* dpif-percpu/ct-stats-show: the kernel module's per-CPU ct() counters
 * of this namespace (conntrack is per namespace, not per datapath). */
static void
ct_stats_show(struct unixctl_conn *conn, int argc OVS_UNUSED,
              const char *argv[] OVS_UNUSED, void *aux OVS_UNUSED)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    const char *error = kdp_ct_stats_format(&s);

    if (error) {
        unixctl_command_reply_error(conn, error);
    } else {
        unixctl_command_reply(conn, ds_cstr(&s));
    }
    ds_destroy(&s);
}

/* dpif-percpu/flow-stats-show [DP] UFID: the per-thread slots of one
 * megaflow of our userspace datapath DP, or the per-CPU slots of one
 * megaflow of a kernel datapath (DP "system@NAME", or a name that is not
 * one of ours while the kernel has it). */
static void
flow_stats_show(struct unixctl_conn *conn, int argc, const char *argv[],
                void *aux OVS_UNUSED)
{
    const char *name = argc > 2 ? argv[1] : NULL;
    const char *ufid_string = argv[argc - 1];
    struct dpif_flow_stats total;
    struct megaflow *flow;
    struct datapath *dp;
    ovs_u128 ufid;
    struct ds s;

    if (odp_ufid_from_string(ufid_string, &ufid) <= 0) {
        unixctl_command_reply_error(conn, "invalid UFID (expected "
                                    "ufid:xxxxxxxx-xxxx-xxxx-xxxx-"
                                    "xxxxxxxxxxxx)");
        return;
    }
    if (name && !strncmp(name, "system@", 7)) {
        flow_stats_show_kernel(conn, name + 7, &ufid);
        return;
    }
    dp = datapath_find(name);
    if (!dp) {
        if (kdp_flow_stats_has_datapath(name ? name : "ovs-system")) {
            flow_stats_show_kernel(conn, name, &ufid);
        } else {
            unixctl_command_reply_error(conn, name
                                        ? "no such datapath"
                                        : "please specify an existing "
                                          "datapath");
        }
        return;
    }
    flow = flow_table_find_ufid(dp->table, &ufid);
    if (!flow) {
        unixctl_command_reply_error(conn, "no flow with this UFID");
        return;
    }

    ds_init(&s);
    flow_stats_get(flow->stats, &total);
    flow_stats_format_total(&s, megaflow_ufid(flow), &total);

    ovs_mutex_lock(&dp->reconfig_mutex);
    for (size_t i = 0; i < flow_stats_n_slots(flow->stats); i++) {
        struct flow_stats_slot_info info;
        struct ds owner = DS_EMPTY_INITIALIZER;

        if (!flow_stats_get_slot(flow->stats, i, &info)) {
            continue;
        }
        if (datapath_thread(dp, i)) {
            pmd_thread_format_name(&owner, datapath_thread(dp, i));
        } else {
            ds_put_cstr(&owner, "thread gone");
        }
        flow_stats_format_slot(&s, i, ds_cstr(&owner), &info);
        ds_destroy(&owner);
    }
    ovs_mutex_unlock(&dp->reconfig_mutex);

    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

static void
format_counters(struct ds *s, const struct pmd_thread *t)
{
    uint64_t c[PMD_N_COUNTERS];
    uint64_t cycles;

    pmd_thread_read_counters(t, c);
    pmd_thread_format_name(s, t);
    ds_put_cstr(s, ":\n");
    ds_put_format(s, "  packets received: %"PRIu64"\n", c[PMD_RX_PACKETS]);
    ds_put_format(s, "  packet recirculations: %"PRIu64"\n",
                  c[PMD_RECIRC_PACKETS]);
    ds_put_format(s, "  exact match hits: %"PRIu64"\n", c[PMD_EMC_HITS]);
    ds_put_format(s, "  megaflow hits: %"PRIu64"\n", c[PMD_MEGAFLOW_HITS]);
    ds_put_format(s, "  miss with success upcall: %"PRIu64"\n",
                  c[PMD_UPCALLS]);
    ds_put_format(s, "  miss with failed upcall: %"PRIu64"\n", c[PMD_LOST]);
    ds_put_format(s, "  miss executed, not installed (flow limit): %"PRIu64
                  "\n", c[PMD_NOT_INSTALLED]);
    ds_put_format(s, "  drops: short %"PRIu64", recirc-depth %"PRIu64
                  ", no-port %"PRIu64", unsupported %"PRIu64
                  ", tunnel %"PRIu64"\n",
                  c[PMD_DROP_SHORT], c[PMD_DROP_RECIRC_DEPTH],
                  c[PMD_DROP_NO_PORT], c[PMD_DROP_UNSUPPORTED],
                  c[PMD_DROP_TUNNEL]);
    ds_put_format(s, "  dropped by meters: %"PRIu64"\n", c[PMD_DROP_METER]);
    ds_put_format(s, "  dropped, shorter than a header its actions write: "
                  "%"PRIu64"\n", c[PMD_DROP_ACTION_SHORT]);
    cycles = c[PMD_BUSY_CYCLES] + c[PMD_IDLE_CYCLES];
    if (cycles) {
        uint64_t packets = c[PMD_RX_PACKETS] + c[PMD_RECIRC_PACKETS];

        ds_put_format(s, "  idle cycles: %"PRIu64" (%.02f%%)\n",
                      c[PMD_IDLE_CYCLES],
                      100.0 * c[PMD_IDLE_CYCLES] / cycles);
        ds_put_format(s, "  processing cycles: %"PRIu64" (%.02f%%)\n",
                      c[PMD_BUSY_CYCLES],
                      100.0 * c[PMD_BUSY_CYCLES] / cycles);
        if (packets) {
            ds_put_format(s, "  avg cycles per packet: %.02f\n",
                          (double) c[PMD_BUSY_CYCLES] / packets);
        }
    }
}

/* dpif-percpu/pmd-stats-show: each thread's counters, PMD threads first,
 * then the main thread, as OVS prints them. */
static void
format_pmd_stats(struct ds *s, const struct datapath *dp)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    for (size_t i = 1; i <= dp->n_thread_slots; i++) {
        const struct pmd_thread *t = datapath_thread(dp, i % dp->n_thread_slots);

        if (t) {
            format_counters(s, t);
        }
    }
}

static void
pmd_stats_clear(struct unixctl_conn *conn, int argc, const char *argv[],
                void *aux OVS_UNUSED)
{
    struct datapath *dp = find_datapath(conn, argc, argv, 1);

    if (!dp) {
        return;
    }
    ovs_mutex_lock(&dp->reconfig_mutex);
    for (size_t i = 0; i < dp->n_thread_slots; i++) {
        if (datapath_thread(dp, i)) {
            datapath_clear_thread_counters(dp, i);
        }
    }
    ovs_mutex_unlock(&dp->reconfig_mutex);
    unixctl_command_reply(conn, "");
}

/* dpif-percpu/pmd-rxq-show: the receive queues each thread polls. */
static void
format_pmd_rxqs(struct ds *s, const struct datapath *dp)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    ovs_mutex_lock(&dp->non_pmd_mutex);
    for (size_t i = 1; i <= dp->n_thread_slots; i++) {
        const struct pmd_thread *t = datapath_thread(dp, i % dp->n_thread_slots);

        if (!t) {
            continue;
        }
        pmd_thread_format_name(s, t);
        ds_put_cstr(s, ":\n");
        /* The poll list only changes under 'reconfig_mutex', which we
         * hold, so reading another thread's list here is safe. */
        for (size_t j = 0; j < t->n_polls; j++) {
            ds_put_format(s, "  port: %-16s queue-id: %2d\n",
                          netdev_get_name(t->polls[j].port->netdev),
                          t->polls[j].qid);
        }
    }
    ovs_mutex_unlock(&dp->non_pmd_mutex);
}

/* Prints the counters 'tc' of each of 'dp''s threads, main thread last,
 * then their total. */
static void
format_thread_counters(struct ds *s, const struct datapath *dp,
                       const struct thread_counters *tc)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    size_t n = thread_counters_n(tc);
    uint64_t *total = xcalloc(n, sizeof *total);
    uint64_t *c = xcalloc(n, sizeof *c);

    for (size_t i = 1; i <= dp->n_thread_slots; i++) {
        const struct pmd_thread *t = datapath_thread(dp,
                                                     i % dp->n_thread_slots);

        if (!t) {
            continue;
        }
        thread_counters_read(tc, t->index, c);
        pmd_thread_format_name(s, t);
        ds_put_cstr(s, ":\n");
        thread_counters_format(s, tc, c);
        for (size_t j = 0; j < n; j++) {
            total[j] += c[j];
        }
    }
    ds_put_cstr(s, "total:\n");
    thread_counters_format(s, tc, total);
    free(c);
    free(total);
}

/* dpif-percpu/tunnel-stats-show: the neighbour entries learned from ARP,
 * the tunnel vports' counters per thread and in total, then each tunnel
 * port's GRO cells. */
static void
format_tunnel_stats(struct ds *s, const struct datapath *dp)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    tunnel_neigh_format(s, dp);
    tunnel_nexthops_format(s, dp->tunnel_nexthops);
    format_thread_counters(s, dp, vport_tunnel_counters(dp->tunnel));
    ds_put_cstr(s, "gro:\n");
    vport_tunnel_format_gro_stats(s, dp, NULL);
}

/* dpif-percpu/gso-stats-show: what each thread did in software for egress
 * netdevs that lack an offload, and the total. */
static void
format_gso_stats(struct ds *s, const struct datapath *dp)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    uint64_t total[DP_GSO_N_COUNTERS] = { 0 };

    for (size_t i = 1; i <= dp->n_thread_slots; i++) {
        const struct pmd_thread *t = datapath_thread(dp,
                                                     i % dp->n_thread_slots);
        uint64_t c[DP_GSO_N_COUNTERS];

        if (!t) {
            continue;
        }
        dp_gso_read(dp->gso, t->index, c);
        pmd_thread_format_name(s, t);
        ds_put_cstr(s, ":\n");
        dp_gso_format(s, c);
        for (size_t j = 0; j < DP_GSO_N_COUNTERS; j++) {
            total[j] += c[j];
        }
    }
    ds_put_cstr(s, "total:\n");
    dp_gso_format(s, total);
}


/* dpif-percpu/ct-frag-stats-show: who reassembles fragments for conntrack,
 * then the ct() counters of each thread and their total. */
static void
format_ct_frag_stats(struct ds *s, const struct datapath *dp)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    ds_put_format(s, "fragment reassembly: %s\n",
                  dp_conntrack_uses_ovs_ipf(dp->conntrack)
                  ? "ovs-ipf" : "per-thread");
    format_thread_counters(s, dp, dp_conntrack_counters(dp->conntrack));
}

/* tunnel-stats-show for kernel datapath 'dp_name': the GRO cells of each
 * of its ipip ports (the module's ovs_ipip devices), per CPU and in total,
 * then the device's decapsulation and encapsulation counters.  Returns an
 * error message, or NULL. */
static const char *
format_kernel_tunnel_stats(struct ds *s, const char *dp_name)
{
    struct dpif_port_dump dump;
    struct dpif_port port;
    struct dpif *dpif;

    if (dpif_open(dp_name, "system", &dpif)) {
        return "no such datapath";
    }
    ds_put_cstr(s, "gro:\n");
    DPIF_PORT_FOR_EACH (&port, &dump, dpif) {
        struct kernel_ipip_stats stats;
        int error;

        if (strcmp(port.type, "ipip") && !kernel_ipip_is_ours(port.name)) {
            continue;
        }
        error = kernel_ipip_get_stats(port.name, &stats);
        if (error) {
            ds_put_format(s, "%s: counters not readable (%s)\n", port.name,
                          ovs_strerror(error));
        } else {
            kernel_ipip_format_stats(s, port.name, &stats);
        }
        kernel_ipip_stats_destroy(&stats);
    }
    dpif_close(dpif);
    return NULL;
}

/* dpif-percpu/tunnel-stats-show [DP]: for one of our userspace datapaths,
 * its tunnel report; for a kernel datapath (DP "system@NAME", or a name
 * that is not one of ours while the kernel has it; without DP, the
 * kernel's "ovs-system" when we have no userspace datapath), its ipip
 * ports' cells. */
static void
tunnel_stats_show(struct unixctl_conn *conn, int argc, const char *argv[],
                  void *aux OVS_UNUSED)
{
    const char *name = argc > 1 ? argv[1] : NULL;
    const char *kernel_name = NULL;
    struct datapath *dp = NULL;
    struct ds s = DS_EMPTY_INITIALIZER;

    if (name && !strncmp(name, "system@", 7)) {
        kernel_name = name + 7;
    } else {
        dp = datapath_find(name);
        if (!dp && kdp_flow_stats_has_datapath(name ? name : "ovs-system")) {
            kernel_name = name ? name : "ovs-system";
        }
    }
    if (dp) {
        ovs_mutex_lock(&dp->reconfig_mutex);
        format_tunnel_stats(&s, dp);
        ovs_mutex_unlock(&dp->reconfig_mutex);
    } else if (kernel_name) {
        const char *error = format_kernel_tunnel_stats(&s, kernel_name);

        if (error) {
            unixctl_command_reply_error(conn, error);
            ds_destroy(&s);
            return;
        }
    } else {
        unixctl_command_reply_error(conn, name
                                    ? "no such datapath"
                                    : "please specify an existing datapath");
        return;
    }
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

/* A "show" command: what it prints about one datapath, with the datapath's
 * 'reconfig_mutex' held so that its threads and ports stay put. */
struct datapath_report {
    void (*format)(struct ds *, const struct datapath *);
};

static const struct datapath_report pmd_stats_report = { format_pmd_stats };
static const struct datapath_report pmd_rxq_report = { format_pmd_rxqs };
static const struct datapath_report gso_stats_report = { format_gso_stats };
/* dpif-percpu/ipf-stats-show: the fragment reassembly limits, then each
 * thread's tables and their total. */
static const struct datapath_report ipf_stats_report = {
    dp_ipf_format_stats
};
static const struct datapath_report ct_frag_stats_report = {
    format_ct_frag_stats
};

/* Replies to a "show" command with the report 'report_' (a struct
 * datapath_report) on the datapath named by its optional argument. */
static void
show_datapath_report(struct unixctl_conn *conn, int argc, const char *argv[],
                     void *report_)
{
    const struct datapath_report *report = report_;
    struct datapath *dp = find_datapath(conn, argc, argv, 1);
    struct ds s = DS_EMPTY_INITIALIZER;

    if (!dp) {
        return;
    }
    ovs_mutex_lock(&dp->reconfig_mutex);
    report->format(&s, dp);
    ovs_mutex_unlock(&dp->reconfig_mutex);
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

static void
flow_stats_fail_alloc(struct unixctl_conn *conn, int argc OVS_UNUSED,
                      const char *argv[], void *aux OVS_UNUSED)
{
    if (!strcmp(argv[1], "on")) {
        flow_stats_set_alloc_failure(true);
    } else if (!strcmp(argv[1], "off")) {
        flow_stats_set_alloc_failure(false);
    } else {
        unixctl_command_reply_error(conn, "expected \"on\" or \"off\"");
        return;
    }
    unixctl_command_reply(conn, NULL);
}

/* dpif-percpu/upcall-turns-busy N: the next N upcall turns that a thread
 * tries without waiting it finds busy, as if another thread held them, so
 * that tests see a miss put aside until the end of its batch. */
static void
upcall_turns_busy(struct unixctl_conn *conn, int argc OVS_UNUSED,
                  const char *argv[], void *aux OVS_UNUSED)
{
    unsigned int n;

    if (!str_to_uint(argv[1], 10, &n)) {
        unixctl_command_reply_error(conn, "expected a number of turns");
        return;
    }
    dp_upcall_set_busy_turns_for_test(n);
    unixctl_command_reply(conn, NULL);
}

/* How receive-batch marks the packets it injects, as a tap with a vnet
 * header would hand them over. */
struct injected_offload {
    bool csum;                  /* TCP checksum left partial. */
    bool tso;                   /* And marked for TCP segmentation... */
    uint16_t segsz;             /* ...into segments of this size (0: the
                                 * egress MTU decides). */
};

/* Marks 'packet', an Ethernet frame carrying TCP over IPv4 or IPv6, as
 * 'offload' says.  Returns an error message, or NULL. */
static const char *
mark_offload(struct dp_packet *packet, const struct injected_offload *offload)
{
    struct flow flow;

    flow_extract(packet, &flow);
    if (flow.nw_proto != IPPROTO_TCP
        || (flow.dl_type != htons(ETH_TYPE_IP)
            && flow.dl_type != htons(ETH_TYPE_IPV6))) {
        return "--csum and --tso need TCP over IPv4 or IPv6";
    }
    if (flow.dl_type == htons(ETH_TYPE_IP)) {
        dp_packet_hwol_set_tx_ipv4(packet);
    } else {
        dp_packet_hwol_set_tx_ipv6(packet);
    }
    dp_packet_hwol_set_csum_tcp(packet);
    if (offload->tso) {
        tso_segsz_set(packet, offload->segsz);
    }
    return NULL;
}

/* Parses the packets in hex of receive-batch's arguments 'argv[0...argc-1]'
 * into 'batch', marked as 'offload' says.  Returns an error message, or
 * NULL with the packets in 'batch'. */
static const char *
parse_batch(int argc, const char *argv[],
            const struct injected_offload *offload,
            struct dp_packet_batch *batch)
{
    dp_packet_batch_init(batch);
    for (int i = 0; i < argc; i++) {
        struct dp_packet *packet;
        const char *error = eth_from_hex(argv[i], &packet);

        if (!error && offload->csum) {
            error = mark_offload(packet, offload);
            if (error) {
                dp_packet_delete(packet);
            }
        }
        if (error) {
            dp_packet_delete_batch(batch, true);
            return error;
        }
        dp_packet_batch_add(batch, packet);
    }
    return NULL;
}

/* Parses receive-batch's option 'arg' into 'offload'.  Returns an error
 * message, or NULL. */
static const char *
parse_offload_option(const char *arg, struct injected_offload *offload)
{
    unsigned int segsz;

    if (!strcmp(arg, "--csum")) {
        offload->csum = true;
    } else if (!strncmp(arg, "--tso=", 6)) {
        if (!str_to_uint(arg + 6, 10, &segsz) || segsz > UINT16_MAX) {
            return "--tso=SEGSZ: SEGSZ must be a segment size from 0 to "
                   "65535";
        }
        offload->csum = offload->tso = true;
        offload->segsz = segsz;
    } else {
        return "unknown option (expected --csum or --tso=SEGSZ)";
    }
    return NULL;
}

/* dpif-percpu/receive-batch DP PORT [--csum|--tso=SEGSZ] HEX...: forwards
 * the packets given in hex as one batch received on PORT by the main
 * thread's context, then ends the round.  netdev-dummy/receive hands a
 * thread one packet per round, which cannot show what a thread does with a
 * batch (GRO merges within a round).  With --csum or --tso, the packets
 * arrive as from a tap with a vnet header: TCP checksum partial, and with
 * --tso marked for segmentation. */
static void
receive_batch(struct unixctl_conn *conn, int argc, const char *argv[],
              void *aux OVS_UNUSED)
{
    struct datapath *dp = datapath_find(argv[1]);
    struct injected_offload offload = { .csum = false };
    struct dp_packet_batch batch;
    int first_packet = 3;
    struct pmd_thread *t;
    struct dp_port *port;
    const char *error;

    if (!dp) {
        unixctl_command_reply_error(conn, "no such datapath");
        return;
    }
    for (; first_packet < argc && !strncmp(argv[first_packet], "--", 2);
         first_packet++) {
        error = parse_offload_option(argv[first_packet], &offload);
        if (error) {
            unixctl_command_reply_error(conn, error);
            return;
        }
    }
    if (argc - first_packet > NETDEV_MAX_BURST) {
        unixctl_command_reply_error(conn, "too many packets for a batch");
        return;
    }
    error = parse_batch(argc - first_packet, argv + first_packet, &offload,
                        &batch);
    if (error) {
        unixctl_command_reply_error(conn, error);
        return;
    }

    /* Ports are deleted only by the main thread, which this is. */
    port = datapath_find_port_by_name(dp, argv[2]);
    if (!port) {
        dp_packet_delete_batch(&batch, true);
        unixctl_command_reply_error(conn, "no such port");
        return;
    }
    ovs_mutex_lock(&dp->non_pmd_mutex);
    t = datapath_thread(dp, 0);
    t->now = time_msec();
    pmd_counter_add(t, PMD_RX_PACKETS, dp_packet_batch_size(&batch));
    dp_input_batch(t, &batch, port->port_no);
    dp_input_finish_round(t);
    ovs_mutex_unlock(&dp->non_pmd_mutex);
    unixctl_command_reply(conn, NULL);
}

/* The transmit offloads "dpif-percpu/set-tx-tso" gives a dummy port. */
#define TEST_TSO_OFFLOADS (NETDEV_TX_OFFLOAD_TCP_TSO                       \
                           | NETDEV_TX_OFFLOAD_TCP_CKSUM                   \
                           | NETDEV_TX_OFFLOAD_IPV4_CKSUM)

/* dpif-percpu/set-tx-tso DP PORT on|off: makes the dummy port PORT claim
 * TSO and TCP and IPv4 checksum offload, or none, as a NIC would, so that
 * tests see what goes out whole to a port with TSO; netdev-dummy in OVS 3.1
 * claims none.  Only before traffic: the threads read the flags without
 * synchronisation. */
static void
set_tx_tso(struct unixctl_conn *conn, int argc OVS_UNUSED,
           const char *argv[], void *aux OVS_UNUSED)
{
    struct datapath *dp = datapath_find(argv[1]);
    struct dp_port *port;
    bool on;

    if (!strcmp(argv[3], "on")) {
        on = true;
    } else if (!strcmp(argv[3], "off")) {
        on = false;
    } else {
        unixctl_command_reply_error(conn, "expected \"on\" or \"off\"");
        return;
    }
    if (!dp) {
        unixctl_command_reply_error(conn, "no such datapath");
        return;
    }
    /* Ports are deleted only by the main thread, which this is. */
    port = datapath_find_port_by_name(dp, argv[2]);
    if (!port) {
        unixctl_command_reply_error(conn, "no such port");
        return;
    }
    if (strcmp(netdev_get_type(port->netdev), "dummy")) {
        unixctl_command_reply_error(conn, "not a dummy port");
        return;
    }
    if (on) {
        port->netdev->ol_flags |= TEST_TSO_OFFLOADS;
    } else {
        port->netdev->ol_flags &= ~TEST_TSO_OFFLOADS;
    }
    unixctl_command_reply(conn, NULL);
}

/* Opens, in '*dpif', the datapath that 'name' names as dpctl does
 * ("[TYPE@]NAME").  Returns 0 or a positive errno value. */
static int
open_dpif(const char *name, struct dpif **dpif)
{
    char *dp_name, *dp_type;
    int error;

    dp_parse_name(name, &dp_name, &dp_type);
    error = dpif_open(dp_name, dp_type, dpif);
    free(dp_name);
    free(dp_type);
    return error;
}

/* Replies to 'conn' with 'error' (a positive errno value) or success. */
static void
reply_errno(struct unixctl_conn *conn, int error)
{
    if (error) {
        unixctl_command_reply_error(conn, ovs_strerror(error));
    } else {
        unixctl_command_reply(conn, NULL);
    }
}

/* dpif-percpu/put-flow-hex DP KEY ACTIONS: installs, through
 * dpif_flow_put() as any dpif client would, a flow with the key (and mask)
 * KEY in dpctl's syntax and the datapath actions ACTIONS in hex (netlink
 * attributes).  OVS 3.1's parser of dpctl/add-flow's actions cannot write
 * push_eth, pop_eth, push_mpls and pop_mpls, and no action list that is
 * malformed on purpose; tests of the action check need both. */
static void
put_flow_hex(struct unixctl_conn *conn, int argc OVS_UNUSED,
             const char *argv[], void *aux OVS_UNUSED)
{
    struct ofpbuf key, mask, actions;
    struct dpif *dpif;
    char *s = NULL;
    int error;

    ofpbuf_init(&key, 0);
    ofpbuf_init(&mask, 0);
    ofpbuf_init(&actions, 0);
    if (odp_flow_from_string(argv[2], NULL, &key, &mask, &s)) {
        unixctl_command_reply_error(conn, s ? s : "bad flow key");
        free(s);
        goto out;
    }
    if (*ofpbuf_put_hex(&actions, argv[3], NULL)) {
        unixctl_command_reply_error(conn, "bad hex actions");
        goto out;
    }
    error = open_dpif(argv[1], &dpif);
    if (!error) {
        error = dpif_flow_put(dpif, DPIF_FP_CREATE, key.data, key.size,
                              mask.size ? mask.data : NULL, mask.size,
                              actions.data, actions.size, NULL, PMD_ID_NULL,
                              NULL);
        dpif_close(dpif);
    }
    reply_errno(conn, error);
out:
    ofpbuf_uninit(&key);
    ofpbuf_uninit(&mask);
    ofpbuf_uninit(&actions);
}

/* dpif-percpu/execute-hex DP IN_PORT PACKET ACTIONS: executes the datapath
 * actions ACTIONS (netlink attributes in hex) on the Ethernet frame PACKET
 * (hex) received on datapath port IN_PORT, through dpif_execute() as any
 * dpif client would (a packet-out, BFD).  See put-flow-hex. */
static void
execute_hex(struct unixctl_conn *conn, int argc OVS_UNUSED,
            const char *argv[], void *aux OVS_UNUSED)
{
    struct dp_packet *packet = NULL;
    struct ofpbuf actions;
    unsigned int in_port;
    struct dpif *dpif;
    struct flow flow;
    const char *end;
    int error;

    ofpbuf_init(&actions, 0);
    if (!str_to_uint(argv[2], 10, &in_port)) {
        unixctl_command_reply_error(conn, "bad in_port");
        goto out;
    }
    end = eth_from_hex(argv[3], &packet);
    if (end) {
        unixctl_command_reply_error(conn, end);
        goto out;
    }
    if (*ofpbuf_put_hex(&actions, argv[4], NULL)) {
        unixctl_command_reply_error(conn, "bad hex actions");
        goto out;
    }
    pkt_metadata_init(&packet->md, u32_to_odp(in_port));
    flow_extract(packet, &flow);
    error = open_dpif(argv[1], &dpif);
    if (!error) {
        struct dpif_execute execute = {
            .actions = actions.data,
            .actions_len = actions.size,
            .packet = packet,
            .flow = &flow,
        };

        error = dpif_execute(dpif, &execute);
        dpif_close(dpif);
    }
    reply_errno(conn, error);
out:
    dp_packet_delete(packet);
    ofpbuf_uninit(&actions);
}

/* Registers the commands that only tests need. */
void
dp_unixctl_register_test_commands(void)
{
    unixctl_command_register("dpif-percpu/flow-stats-fail-alloc", "on|off",
                             1, 1, flow_stats_fail_alloc, NULL);
    unixctl_command_register("dpif-percpu/receive-batch",
                             "dp port [--csum|--tso=segsz] packet...", 3, INT_MAX,
                             receive_batch, NULL);
    unixctl_command_register("dpif-percpu/set-tx-tso", "dp port on|off",
                             3, 3, set_tx_tso, NULL);
    unixctl_command_register("dpif-percpu/put-flow-hex", "dp key actions",
                             3, 3, put_flow_hex, NULL);
    unixctl_command_register("dpif-percpu/execute-hex",
                             "dp in_port packet actions", 4, 4, execute_hex,
                             NULL);
    unixctl_command_register("dpif-percpu/upcall-turns-busy", "n", 1, 1,
                             upcall_turns_busy, NULL);
}

/* Registers the commands, once however many classes call it. */
void
dp_unixctl_register(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (!ovsthread_once_start(&once)) {
        return;
    }
    unixctl_command_register("dpif-percpu/flow-stats-show", "[dp] ufid",
                             1, 2, flow_stats_show, NULL);
    unixctl_command_register("dpif-percpu/ct-stats-show", "",
                             0, 0, ct_stats_show, NULL);
    unixctl_command_register("dpif-percpu/pmd-stats-show", "[dp]",
                             0, 1, show_datapath_report,
                             CONST_CAST(struct datapath_report *,
                                        &pmd_stats_report));
    unixctl_command_register("dpif-percpu/pmd-stats-clear", "[dp]",
                             0, 1, pmd_stats_clear, NULL);
    unixctl_command_register("dpif-percpu/pmd-rxq-show", "[dp]",
                             0, 1, show_datapath_report,
                             CONST_CAST(struct datapath_report *,
                                        &pmd_rxq_report));
    unixctl_command_register("dpif-percpu/tunnel-stats-show", "[dp]",
                             0, 1, tunnel_stats_show, NULL);
    unixctl_command_register("dpif-percpu/gso-stats-show", "[dp]",
                             0, 1, show_datapath_report,
                             CONST_CAST(struct datapath_report *,
                                        &gso_stats_report));
    unixctl_command_register("dpif-percpu/ipf-stats-show", "[dp]",
                             0, 1, show_datapath_report,
                             CONST_CAST(struct datapath_report *,
                                        &ipf_stats_report));
    unixctl_command_register("dpif-percpu/ct-frag-stats-show", "[dp]",
                             0, 1, show_datapath_report,
                             CONST_CAST(struct datapath_report *,
                                        &ct_frag_stats_report));
    ovsthread_once_done(&once);
}

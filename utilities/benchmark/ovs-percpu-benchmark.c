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

/* ovs-percpu-benchmark: our datapath and OVS 3.1's stock dpif-netdev, side
 * by side in one process, fed the same packets by the same in-memory
 * generator netdev and counted at the same sink netdev.
 *
 * Our class is registered under the type "percpu" and a copy of OVS's
 * dpif_netdev_class under "stock-netdev"; nothing else differs.  Each
 * scenario runs on each datapath in turn, 'rounds' times, alternating, and
 * the medians are reported. */

#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#ifdef __x86_64__
#include <x86intrin.h>
#endif
#ifdef HAVE_VALGRIND_VALGRIND_H
#include <valgrind/callgrind.h>
#endif

#include "benchmark-median.h"
#include "benchmark-netdev.h"
#include "benchmark-traffic.h"
#include "dpif-percpu.h"
#include "flow-table.h"
#include "dpif-provider.h"
#include "dpif.h"
#include "dpif-netdev.h"
#include "dummy.h"
#include "fatal-signal.h"
#include "jsonrpc.h"
#include "netdev.h"
#include "odp-util.h"
#include "openvswitch/json.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "ovs-numa.h"
#include "ovs-rcu.h"
#include "ovs-router.h"
#include "smap.h"
#include "tnl-neigh-cache.h"
#include "unixctl.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(ovs_percpu_benchmark);

#define OURS_TYPE "percpu"
#define STOCK_TYPE "stock-netdev"

/* What a scenario compares.  Ours comes first, then its baseline. */
struct datapath_variant {
    const char *type;
    const char *label;
    bool shared_stats;          /* other_config:benchmark-shared-flow-stats. */
};

/* Ours against stock, in most scenarios. */
static const struct datapath_variant datapaths[2] = {
    { OURS_TYPE, "ovs-percpu", false },
    { STOCK_TYPE, "stock dpif-netdev", false },
};

/* Ours against itself with one shared, locked stats slot per flow, in the
 * STATS_MODES scenarios. */
static const struct datapath_variant stats_modes[2] = {
    { OURS_TYPE, "ovs-percpu", false },
    { OURS_TYPE, "ovs-percpu with shared locked stats", true },
};

/* Command-line settings. */
static int rounds = 3;
static double seconds = 2.0;
static const char *output_file;
static const char *commit = "unknown";
static const char *command_line;
static const char *pcap_file;
static bool quick;              /* --quick: every scenario, briefly. */
static int only_datapath = -1;  /* --datapath: index in 'datapaths'. */
static size_t flow_limit = FLOW_TABLE_MAX_FLOWS; /* other_config:flow-limit;
                                                  * --flow-limit, to check
                                                  * that a refusal fails. */

enum scenario_kind {
    FORWARDING,                 /* Mpps once every flow is installed. */
    FLOW_SETUP,                 /* Megaflows set up per second. */
    STATS_MODES,                /* FORWARDING, ours with per-thread stats
                                 * slots against ours with a shared, locked
                                 * one ('stats_modes'). */
    TUNNEL_OUTPUT,              /* FORWARDING into a vxlan tunnel, to
                                 * BENCHMARK_TUNNEL_N_DSTS destinations
                                 * (benchmark-traffic.h). */
    TUNNEL_INPUT,               /* FORWARDING of BENCHMARK_GENEVE frames,
                                 * decapsulated on the way. */
};

struct scenario {
    const char *name;
    enum scenario_kind kind;
    size_t n_flows;             /* 0 for the pcap file's packets. */
    int n_masks;
    int n_threads;
    enum benchmark_frame_shape shape; /* What the frames carry. */
    int n_ports;                /* TUNNEL_OUTPUT: ports on the datapath, its
                                 * local port included, padded with idle
                                 * ones up to this many. */
};

/* What one run of one scenario on one datapath measured. */
struct measurement {
    double mpps;                /* FORWARDING: packets per second / 1e6. */
    double cycles_per_packet;   /* FORWARDING: TSC cycles of all threads. */
    double cpu_ns_per_packet;   /* FORWARDING: CPU time the process used,
                                 * per packet: unlike the TSC, not counting
                                 * time other processes took from it. */
    double setup_per_sec;       /* FLOW_SETUP: megaflows per second. */
    double upcalls_per_flow;    /* FLOW_SETUP: upcalls / distinct flows. */
    double flows_held;          /* FLOW_SETUP: n_flows the datapath holds. */
    double bytes_per_flow;      /* FLOW_SETUP: heap growth / distinct flows. */
};

/* --quick's defaults: one round of this many seconds per datapath, unless
 * --rounds or --seconds say otherwise.  Enough for every scenario to set
 * up its flows and print a ratio, not for figures worth keeping. */
#define QUICK_ROUNDS 1
#define QUICK_SECONDS 0.2

/* How long a scenario's flows may take to be set up before the benchmark
 * gives up on it. */
#define SETUP_TIMEOUT_MS (120 * 1000)

/* A datapath that refuses megaflows (its flow limit, a full table) upcalls
 * the same flows again and again: more upcalls than this many per flow and
 * thread means that the scenario cannot reach its flow count. */
#define MAX_UPCALLS_PER_FLOW 4

/* The ports of a TUNNEL_OUTPUT scenario before any padding: the local
 * port, the generator, the sink, the tunnel and the underlay. */
#define TUNNEL_BASE_PORTS 5

/* The next hops' MAC in the TUNNEL_OUTPUT scenarios. */
static const struct eth_addr tunnel_nh_mac
    = ETH_ADDR_C(02, 00, 00, 00, 00, 0b);

/* The local port's MAC in the TUNNEL_INPUT scenario, which the Geneve
 * frames are sent to (benchmark-traffic.c). */
static const struct eth_addr benchmark_geneve_local_mac
    = ETH_ADDR_C(02, 00, 00, 00, 00, 02);

/* One datapath set up for a scenario. */
struct testbed {
    struct dpif *dpif;
    const char *label;          /* The datapath's name in messages. */
    struct netdev *generator;
    struct netdev *sink;
    odp_port_t generator_port;
    odp_port_t sink_port;

    /* TUNNEL_OUTPUT only. */
    struct netdev *tunnel;      /* The vxlan port, "vxlan_sys_4789". */
    struct netdev *underlay;    /* Where its routes go. */
    odp_port_t tunnel_port;
    odp_port_t underlay_port;
    struct netdev **pads;       /* Idle ports, 'n_pads' of them. */
    odp_port_t *pad_ports;
    size_t n_pads;

    /* TUNNEL_INPUT only. */
    struct netdev *geneve;      /* The geneve port, "genev_sys_6081". */
    odp_port_t geneve_port;
};

static uint64_t
monotonic_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* CPU time used by every thread of this process, in ns. */
static uint64_t
process_cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t
tsc_read(void)
{
#ifdef __x86_64__
    return __rdtsc();
#else
    return 0;
#endif
}

/* Heap bytes in use, over every malloc arena. */
static uint64_t
heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();

    return mi.uordblks + mi.hblkhd;
}

static uint64_t
datapath_n_flows(const struct testbed *tb)
{
    struct dpif_dp_stats stats;

    return dpif_get_dp_stats(tb->dpif, &stats) ? 0 : stats.n_flows;
}

/* Sleeps for 'ms' milliseconds while letting the datapath's main-thread
 * work run, as ovs-vswitchd's main loop would. */
static void
testbed_idle(const struct testbed *tb, int ms)
{
    for (int i = 0; i < ms; i++) {
        dpif_run(tb->dpif);
        xnanosleep(1000 * 1000);
    }
}

static char *
cpu_mask_for(int n_threads)
{
    /* One thread runs on core 1, leaving core 0 to the main thread; two
     * run on cores 0 and 1. */
    return xstrdup(n_threads == 1 ? "0x2" : "0x3");
}

/* The megaflows a scenario needs our datapath to hold: every flow once,
 * however many threads hit it. */
static size_t
flows_needed(const struct scenario *sc, const struct benchmark_frames *frames)
{
    /* TUNNEL_INPUT: the inner flows' and one for the outer frames. */
    return (!sc->n_flows ? frames->n
            : sc->kind == TUNNEL_INPUT ? sc->n_flows + 1
            : sc->n_flows);
}

/* Fails, naming the scenario, if our datapath cannot hold the scenario's
 * flows at all (FLOW_TABLE_MAX_FLOWS is the table's own bound, which no
 * other_config:flow-limit raises). */
static void
check_scenario_fits(const struct scenario *sc,
                    const struct benchmark_frames *frames)
{
    if (flows_needed(sc, frames) > FLOW_TABLE_MAX_FLOWS) {
        ovs_fatal(0, "%s: %"PRIuSIZE" flows is more than the %"PRIuSIZE
                  " megaflows our table can hold (FLOW_TABLE_MAX_FLOWS)",
                  sc->name, flows_needed(sc, frames), FLOW_TABLE_MAX_FLOWS);
    }
}

/* Adds netdev 'name' of 'type' to 'tb''s datapath, storing the netdev in
 * '*netdevp' and its port number in '*port'; exits on failure. */
static void
testbed_add(struct testbed *tb, const char *name, const char *type,
            struct netdev **netdevp, odp_port_t *port)
{
    int error;

    *port = ODPP_NONE;
    error = netdev_open(name, type, netdevp);
    if (!error) {
        error = dpif_port_add(tb->dpif, *netdevp, port);
    }
    if (error) {
        ovs_fatal(error, "%s: cannot add port %s", tb->label, name);
    }
}

/* Adds to 'tb' a tunnel port 'name' of 'type' whose remote address and key
 * come from the flow ("remote_ip" and "key" "flow", as ofproto's tunnel
 * ports are), into '*netdevp' and '*portp'; fatal if it cannot. */
static void
testbed_add_flow_tunnel(struct testbed *tb, const char *name,
                        const char *type, struct netdev **netdevp,
                        odp_port_t *portp)
{
    struct smap options = SMAP_INITIALIZER(&options);
    char *error_msg = NULL;
    int error;

    *portp = ODPP_NONE;
    error = netdev_open(name, type, netdevp);
    if (!error) {
        smap_add(&options, "remote_ip", "flow");
        smap_add(&options, "key", "flow");
        error = netdev_set_config(*netdevp, &options, &error_msg);
    }
    if (!error) {
        error = dpif_port_add(tb->dpif, *netdevp, portp);
    }
    if (error) {
        ovs_fatal(error, "%s: cannot add the %s port: %s", tb->label, type,
                  error_msg ? error_msg : "");
    }
    smap_destroy(&options);
    free(error_msg);
}

/* Gives 'tb' what a TUNNEL_OUTPUT scenario adds to the sink (already there):
 * the underlay port, its route to the tunnel destinations with their next hops
 * in OVS's neighbour cache, the vxlan port, and idle ports up to 'n_ports'
 * ports in all; 'native' for stock's datapath, which tunnels with tnl_push()
 * (benchmark-traffic.h).  The route and the neighbours stay in OVS's tables
 * between runs; setting them again changes nothing. */
static void
testbed_add_tunnel(struct testbed *tb, const struct scenario *sc,
                   bool native)
{
    static const char ul_name[IFNAMSIZ] = "ul0";
    struct in6_addr prefix, gw = in6addr_any;
    struct eth_addr ul_mac;
    ovs_be32 ul_addr;
    int ul_plen;

    /* Idle ports first, while no PMD thread has to reload for each. */
    tb->n_pads = sc->n_ports > TUNNEL_BASE_PORTS
                 ? sc->n_ports - TUNNEL_BASE_PORTS : 0;
    tb->pads = xcalloc(tb->n_pads, sizeof *tb->pads);
    tb->pad_ports = xcalloc(tb->n_pads, sizeof *tb->pad_ports);
    for (size_t i = 0; i < tb->n_pads; i++) {
        char name[IFNAMSIZ];

        snprintf(name, sizeof name, "pad%u", (unsigned int) i % 100000);
        testbed_add(tb, name, "benchmark-sink", &tb->pads[i],
                    &tb->pad_ports[i]);
    }

    testbed_add(tb, ul_name, "benchmark-underlay", &tb->underlay,
                &tb->underlay_port);
    benchmark_underlay_address(&ul_addr, &ul_plen, &ul_mac);
    in6_addr_set_mapped_ipv4(&prefix,
                             ul_addr & htonl(~0u << (32 - ul_plen)));
    ovs_router_insert(0, &prefix, 96 + ul_plen, false, ul_name, &gw);
    for (int i = 0; i < BENCHMARK_TUNNEL_N_DSTS; i++) {
        struct in6_addr nh;

        in6_addr_set_mapped_ipv4(&nh, htonl(BENCHMARK_TUNNEL_DST + i));
        tnl_neigh_set(ul_name, &nh, tunnel_nh_mac);
    }

    testbed_add_flow_tunnel(tb, "vxlan_sys_4789", "vxlan", &tb->tunnel,
                            &tb->tunnel_port);
    benchmark_upcall_configure_tunnel(tb->tunnel, tb->tunnel_port,
                                      tb->underlay_port, tb->sink_port,
                                      native, tunnel_nh_mac);
}

/* Runs OVS's own unixctl command 'command' with the 'argc' arguments
 * 'argv' in this process, as ovs-appctl would against ovs-vswitchd,
 * through a unixctl server of its own that it answers itself; exits on an
 * error.  (The benchmark sets a dummy port's address so, with the command
 * that OVS's netdev-dummy registers for that, which its API offers no
 * other way to.) */
static void
benchmark_appctl(const char *command, int argc, const char *argv[])
{
    static struct unixctl_server *server;
    struct jsonrpc_msg *reply = NULL;
    struct jsonrpc *client;
    struct json **args;
    int error;

    if (!server) {
        char *path = xasprintf("/tmp/ovs-percpu-benchmark.%ld.ctl",
                               (long int) getpid());

        error = unixctl_server_create(path, &server);
        free(path);
        if (error) {
            ovs_fatal(error, "cannot create a unixctl server");
        }
    }
    error = unixctl_client_create(unixctl_server_get_path(server), &client);
    if (error) {
        ovs_fatal(error, "cannot connect to the benchmark's unixctl server");
    }
    args = xmalloc(argc * sizeof *args);
    for (int i = 0; i < argc; i++) {
        args[i] = json_string_create(argv[i]);
    }
    error = jsonrpc_send(client, jsonrpc_create_request(
                             command, json_array_create(args, argc), NULL));
    while (!error) {
        unixctl_server_run(server);
        jsonrpc_run(client);
        error = jsonrpc_recv(client, &reply);
        if (error != EAGAIN) {
            break;
        }
        error = 0;
        xnanosleep(1000 * 1000);
    }
    if (error || reply->error) {
        ovs_fatal(error, "%s failed", command);
    }
    jsonrpc_msg_destroy(reply);
    jsonrpc_close(client);
}

/* Gives 'tb' what a TUNNEL_INPUT scenario adds to the sink (already
 * there): the tunnel's address, BENCHMARK_GENEVE_LOCAL, on the datapath's
 * local port (a dummy internal port, as the benchmark's datapaths have),
 * which is where our datapath decapsulates, and the geneve port; 'native'
 * for stock's datapath, which decapsulates with tnl_pop()
 * (benchmark-traffic.h) and has the address all the same. */
static void
testbed_add_geneve(struct testbed *tb, bool native)
{
    struct dpif_port local;
    char *addr;
    int error;

    error = dpif_port_query_by_number(tb->dpif, ODPP_LOCAL, &local);
    if (!error) {
        struct netdev *netdev;

        /* The frames' destination, so that the host takes them. */
        error = netdev_open(local.name, local.type, &netdev);
        if (!error) {
            error = netdev_set_etheraddr(netdev, benchmark_geneve_local_mac);
            netdev_close(netdev);
        }
    }
    if (error) {
        ovs_fatal(error, "%s: cannot set the local port's MAC", tb->label);
    }
    addr = xasprintf(IP_FMT "/32", IP_ARGS(htonl(BENCHMARK_GENEVE_LOCAL)));
    benchmark_appctl("netdev-dummy/ip4addr", 2,
                     (const char *[]) { local.name, addr });
    free(addr);
    dpif_port_destroy(&local);

    testbed_add_flow_tunnel(tb, "genev_sys_6081", "geneve", &tb->geneve,
                            &tb->geneve_port);
    benchmark_upcall_configure_geneve(tb->geneve_port, ODPP_LOCAL,
                                      tb->sink_port, native);
}

/* Opens datapath 'type' ('label' in messages) with the generator and the
 * sink for scenario 'sc'.  Sets what the scenario needs that a default
 * configuration would refuse: other_config:flow-limit (ofproto's default,
 * 200000, is below the 1M-flow scenarios), to the table's maximum unless
 * --flow-limit says otherwise. */
static void
testbed_open(struct testbed *tb, const struct datapath_variant *dv,
             const struct scenario *sc, const struct benchmark_frames *frames)
{
    const char *type = dv->type;
    struct smap config = SMAP_INITIALIZER(&config);
    struct smap options = SMAP_INITIALIZER(&options);
    char *mask = cpu_mask_for(sc->n_threads);
    char *error_msg = NULL;
    int error;

    memset(tb, 0, sizeof *tb);
    tb->label = dv->label;
    tb->sink_port = tb->generator_port = ODPP_NONE;
    error = dpif_create_and_open("benchmark", type, &tb->dpif);
    if (error) {
        ovs_fatal(error, "%s: cannot create datapath", type);
    }
    dpif_register_upcall_cb(tb->dpif, benchmark_upcall, NULL);
    dpif_enable_upcall(tb->dpif);
    smap_add(&config, "pmd-cpu-mask", mask);
    smap_add_format(&config, "flow-limit", "%"PRIuSIZE, flow_limit);
    smap_add(&config, "benchmark-shared-flow-stats",
             dv->shared_stats ? "true" : "false");
    check_scenario_fits(sc, frames);
    dpif_set_config(tb->dpif, &config);
    dpif_run(tb->dpif);

    error = netdev_open("sink", "benchmark-sink", &tb->sink);
    if (!error) {
        error = dpif_port_add(tb->dpif, tb->sink, &tb->sink_port);
    }
    if (error) {
        ovs_fatal(error, "%s: cannot add the sink port", type);
    }
    benchmark_upcall_configure(tb->sink_port, sc->n_masks);
    if (sc->kind == TUNNEL_OUTPUT) {
        testbed_add_tunnel(tb, sc, !strcmp(type, STOCK_TYPE));
    } else if (sc->kind == TUNNEL_INPUT) {
        testbed_add_geneve(tb, !strcmp(type, STOCK_TYPE));
    }

    benchmark_generator_set_frames(frames);
    /* A tunnel's outer headers fit in front of the frames, as with a DPDK
     * port or ours, so that neither datapath reallocates every packet
     * (OVS's own netdevs leave room for a VLAN tag only). */
    benchmark_generator_set_headroom(sc->kind == TUNNEL_OUTPUT
                                     ? 128 : DP_NETDEV_HEADROOM);
    smap_add_format(&options, "n_rxq", "%d", sc->n_threads);
    error = netdev_open("generator", "benchmark-generator", &tb->generator);
    if (!error) {
        error = netdev_set_config(tb->generator, &options, &error_msg);
    }
    if (!error) {
        error = dpif_port_add(tb->dpif, tb->generator, &tb->generator_port);
    }
    if (error) {
        ovs_fatal(error, "%s: cannot add the generator port: %s", type,
                  error_msg ? error_msg : "");
    }
    testbed_idle(tb, 100);

    smap_destroy(&config);
    smap_destroy(&options);
    free(mask);
}

static void
testbed_close(struct testbed *tb)
{
    benchmark_generator_stop();
    testbed_idle(tb, 10);

    /* Remove the ports, and with them the PMD threads, before disabling
     * upcalls: dpif-netdev wants upcalls disabled when it is destroyed, but
     * a thread that exits meanwhile waits for the upcall lock. */
    dpif_port_del(tb->dpif, tb->generator_port, false);
    dpif_port_del(tb->dpif, tb->sink_port, false);
    if (tb->tunnel) {
        dpif_port_del(tb->dpif, tb->tunnel_port, false);
        dpif_port_del(tb->dpif, tb->underlay_port, false);
    }
    for (size_t i = 0; i < tb->n_pads; i++) {
        dpif_port_del(tb->dpif, tb->pad_ports[i], false);
    }
    if (tb->geneve) {
        dpif_port_del(tb->dpif, tb->geneve_port, false);
    }
    testbed_idle(tb, 10);
    dpif_disable_upcall(tb->dpif);
    dpif_delete(tb->dpif);
    dpif_close(tb->dpif);
    netdev_close(tb->generator);
    netdev_close(tb->sink);
    netdev_close(tb->tunnel);
    netdev_close(tb->underlay);
    netdev_close(tb->geneve);
    for (size_t i = 0; i < tb->n_pads; i++) {
        netdev_close(tb->pads[i]);
    }
    free(tb->pads);
    free(tb->pad_ports);

    /* Let every postponed free run now, so that the next run's memory
     * figures start from a quiet heap. */
    ovsrcu_barrier();
}

/* Waits until upcalls have stopped for 'quiet_ms' milliseconds and the
 * datapath holds at least 'min_flows' flows (of at most 'max_flows'), that is,
 * until every flow is installed where each thread looks for it.  (A datapath
 * may pause its upcalls for a while, growing a big hash table: the flow count
 * keeps such a pause from passing for the end.)  Returns the time of the last
 * upcall seen, in ns.
 *
 * Exits with a message naming scenario 'sc' and the datapath, rather than
 * measuring a scenario that did not set up: on SETUP_TIMEOUT_MS, and as
 * soon as the upcalls show that the datapath refuses flows (more than
 * MAX_UPCALLS_PER_FLOW per flow and thread, 'max_flows' flows counted). */
static uint64_t
wait_for_upcalls_to_stop(const struct testbed *tb, const struct scenario *sc,
                         int quiet_ms, uint64_t min_flows, uint64_t max_flows)
{
    uint64_t first = benchmark_upcalls();
    uint64_t last = first;
    uint64_t last_change = monotonic_ns();
    uint64_t deadline = last_change + SETUP_TIMEOUT_MS * 1000000ULL;
    uint64_t max_upcalls = (max_flows * sc->n_threads + 1000)
                           * MAX_UPCALLS_PER_FLOW;

    for (;;) {
        uint64_t now, n;

        testbed_idle(tb, 1);
        now = monotonic_ns();
        n = benchmark_upcalls();
        if (n != last) {
            last = n;
            last_change = now;
        } else if (now - last_change >= quiet_ms * 1000000ULL
                   && datapath_n_flows(tb) >= min_flows) {
            return last_change;
        }
        if (n - first > max_upcalls) {
            ovs_fatal(0, "%s: %s refuses flows: %"PRIu64" upcalls for %"
                      PRIu64" flows, and it holds %"PRIu64" (flow limit? "
                      "see the log above)", sc->name, tb->label, n - first,
                      max_flows, datapath_n_flows(tb));
        }
        if (now > deadline) {
            ovs_fatal(0, "%s: %s: flows still being set up after %d s "
                      "(%"PRIu64" of %"PRIu64" flows held, %"PRIu64
                      " upcalls)", sc->name, tb->label,
                      SETUP_TIMEOUT_MS / 1000, datapath_n_flows(tb),
                      min_flows, n - first);
        }
    }
}

/* Under callgrind (valgrind --tool=callgrind), the forwarding window of
 * each run is what it counts: the counts are zeroed as the window starts
 * and dumped as it ends, named after the scenario, the datapath and the
 * packets forwarded meanwhile (which are printed too), so that
 * instructions (and, with
 * --cache-sim=yes, simulated cache misses) per packet can be read off
 * without the flow setup before.  Threads run one at a time under
 * valgrind, so the window's packets are what its counts cost.  Does
 * nothing outside valgrind. */
static void
callgrind_window_start(void)
{
#ifdef HAVE_VALGRIND_VALGRIND_H
    CALLGRIND_ZERO_STATS;
#endif
}

static void
callgrind_window_end(const struct scenario *sc OVS_UNUSED,
                     const struct testbed *tb OVS_UNUSED,
                     uint64_t packets OVS_UNUSED)
{
#ifdef HAVE_VALGRIND_VALGRIND_H
    if (RUNNING_ON_VALGRIND) {
        char *name = xasprintf("%s: %s: %"PRIu64" packets", sc->name,
                               tb->label, packets);

        CALLGRIND_DUMP_STATS_AT(name);
        fprintf(stderr, "callgrind window: %s\n", name);
        free(name);
    }
#endif
}

static void
measure_forwarding(const struct testbed *tb, const struct scenario *sc,
                   const struct benchmark_frames *frames,
                   struct measurement *m)
{
    uint64_t ns0, ns1, tsc0, tsc1, pkts0, pkts1, cpu0, cpu1;

    benchmark_generator_start();
    /* A pcap file's packets set up between one megaflow and one each. */
    wait_for_upcalls_to_stop(tb, sc, 300, sc->n_flows ? sc->n_flows : 1,
                             flows_needed(sc, frames));

    callgrind_window_start();
    pkts0 = benchmark_sink_packets();
    ns0 = monotonic_ns();
    tsc0 = tsc_read();
    cpu0 = process_cpu_ns();
    testbed_idle(tb, seconds * 1000);
    pkts1 = benchmark_sink_packets();
    ns1 = monotonic_ns();
    tsc1 = tsc_read();
    cpu1 = process_cpu_ns();
    callgrind_window_end(sc, tb, pkts1 - pkts0);

    if (pkts1 == pkts0) {
        ovs_fatal(0, "%s: %s forwarded no packets in %.1f s", sc->name,
                  tb->label, seconds);
    }
    m->mpps = (pkts1 - pkts0) * 1e3 / (ns1 - ns0);
    m->cycles_per_packet = (pkts1 > pkts0 && tsc1 > tsc0
                            ? (double) (tsc1 - tsc0) * sc->n_threads
                              / (pkts1 - pkts0)
                            : 0);
    m->cpu_ns_per_packet = (double) (cpu1 - cpu0) / (pkts1 - pkts0);
}

static void
measure_flow_setup(const struct testbed *tb, const struct scenario *sc,
                   const struct benchmark_frames *frames,
                   struct measurement *m)
{
    uint64_t heap0, upcalls0, start, end;

    /* Every round grows its heap from the same, trimmed start.  Otherwise
     * a round's new threads take over the malloc arenas that the previous
     * round's threads left, with the memory its flows freed still in
     * them, and a round whose flows fit into what the previous one left
     * skips most of its page faults (ours take about 500 bytes a flow,
     * stock's 1,600): ours were set up at 550 to 1,050 kflows/s, stock at
     * 150 and, once, 640, and the ratio swung between 1.6 and 6.6 from run
     * to run.  From a trimmed heap, every run gives about the same. */
    malloc_trim(0);
    heap0 = heap_in_use();
    upcalls0 = benchmark_upcalls();
    start = monotonic_ns();
    benchmark_generator_start();
    end = wait_for_upcalls_to_stop(tb, sc, 300, frames->n, frames->n);

    m->setup_per_sec = frames->n * 1e9 / (end - start);
    m->upcalls_per_flow = (double) (benchmark_upcalls() - upcalls0)
                          / frames->n;
    m->flows_held = datapath_n_flows(tb);
    uint64_t heap1 = heap_in_use();

    m->bytes_per_flow = (heap1 > heap0 ? heap1 - heap0 : 0) * 1.0
                        / frames->n;
}

static void
run_once(const struct scenario *sc, const struct datapath_variant *dv,
         const struct benchmark_frames *frames, struct measurement *m)
{
    struct testbed tb;

    memset(m, 0, sizeof *m);
    testbed_open(&tb, dv, sc, frames);
    if (sc->kind != FLOW_SETUP) {
        measure_forwarding(&tb, sc, frames, m);
    } else {
        measure_flow_setup(&tb, sc, frames, m);
    }
    testbed_close(&tb);
}

/* Medians over rounds, per datapath. */
struct result {
    const struct scenario *scenario;
    struct measurement dp[2];
};

#define MEDIAN_OF(FIELD)                                        \
    do {                                                        \
        double values[64];                                      \
        for (int r = 0; r < rounds; r++) {                      \
            values[r] = runs[r].FIELD;                          \
        }                                                       \
        out->FIELD = benchmark_median(values, rounds);                    \
    } while (0)

static void
summarize(const struct measurement runs[], struct measurement *out)
{
    MEDIAN_OF(mpps);
    MEDIAN_OF(cycles_per_packet);
    MEDIAN_OF(cpu_ns_per_packet);
    MEDIAN_OF(setup_per_sec);
    MEDIAN_OF(upcalls_per_flow);
    MEDIAN_OF(flows_held);
    MEDIAN_OF(bytes_per_flow);
}

static void
run_scenario(const struct scenario *sc, struct result *result)
{
    struct benchmark_frames frames;
    const struct datapath_variant *variants = (sc->kind == STATS_MODES
                                               ? stats_modes : datapaths);
    struct measurement runs[2][64];

    if (pcap_file && !sc->n_flows) {
        int error = benchmark_frames_read_pcap(&frames, pcap_file);

        if (error) {
            ovs_fatal(error, "%s: cannot read packets", pcap_file);
        }
    } else {
        benchmark_frames_build(&frames, sc->n_flows, sc->shape);
    }

    /* Alternate the datapaths, so that drift over time (temperature, other
     * load) falls on both alike. */
    for (int r = 0; r < rounds; r++) {
        for (int d = 0; d < 2; d++) {
            if (only_datapath < 0 || only_datapath == d) {
                run_once(sc, &variants[d], &frames, &runs[d][r]);
            } else {
                memset(&runs[d][r], 0, sizeof runs[d][r]);
            }
        }
    }
    result->scenario = sc;
    for (int d = 0; d < 2; d++) {
        summarize(runs[d], &result->dp[d]);
    }
    benchmark_frames_destroy(&frames);
}

static double
ratio(double ours, double stock)
{
    return stock > 0 ? ours / stock : 0;
}

static void
format_forwarding_row(struct ds *s, const struct result *r)
{
    const struct measurement *ours = &r->dp[0], *stock = &r->dp[1];

    ds_put_format(s, "| %s | %.2f | %.2f | %.2f | %.0f | %.0f "
                  "| %.0f | %.0f | %.2f |\n",
                  r->scenario->name, ours->mpps, stock->mpps,
                  ratio(ours->mpps, stock->mpps), ours->cycles_per_packet,
                  stock->cycles_per_packet, ours->cpu_ns_per_packet,
                  stock->cpu_ns_per_packet,
                  ratio(stock->cpu_ns_per_packet, ours->cpu_ns_per_packet));
}

/* The head of a table of format_forwarding_row() rows. */
#define FORWARDING_TABLE_HEAD \
    "| scenario | ours Mpps | stock Mpps | ratio " \
    "| ours cycles/pkt | stock cycles/pkt " \
    "| ours CPU ns/pkt | stock CPU ns/pkt | CPU ratio |\n" \
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"

/* Appends a format_forwarding_row() for each of the 'n' 'results' of
 * 'kind', then a blank line. */
static void
format_forwarding_rows(struct ds *s, const struct result *results, size_t n,
                       enum scenario_kind kind)
{
    for (size_t i = 0; i < n; i++) {
        if (results[i].scenario->kind == kind) {
            format_forwarding_row(s, &results[i]);
        }
    }
    ds_put_char(s, '\n');
}

static void
format_setup_row(struct ds *s, const struct result *r)
{
    const struct measurement *ours = &r->dp[0], *stock = &r->dp[1];

    ds_put_format(s, "| %s | %.0f | %.0f | %.2f | %.2f | %.2f "
                  "| %.0f | %.0f | %.0f | %.0f |\n",
                  r->scenario->name, ours->setup_per_sec / 1e3,
                  stock->setup_per_sec / 1e3,
                  ratio(ours->setup_per_sec, stock->setup_per_sec),
                  ours->upcalls_per_flow, stock->upcalls_per_flow,
                  ours->flows_held, stock->flows_held,
                  ours->bytes_per_flow, stock->bytes_per_flow);
}

static void
format_machine(struct ds *s)
{
    struct utsname u;
    char model[256] = "unknown CPU";
    FILE *cpuinfo = fopen("/proc/cpuinfo", "r");

    if (cpuinfo) {
        char line[512];

        while (fgets(line, sizeof line, cpuinfo)) {
            char *colon = strchr(line, ':');

            if (!strncmp(line, "model name", 10) && colon) {
                ovs_strlcpy(model, colon + 2, sizeof model);
                model[strcspn(model, "\n")] = '\0';
                break;
            }
        }
        fclose(cpuinfo);
    }
    uname(&u);
    ds_put_format(s, "- Machine: %s, %ld online cores, Linux %s %s\n",
                  model, sysconf(_SC_NPROCESSORS_ONLN), u.release,
                  u.machine);
}

static bool
has_kind(const struct result results[], size_t n, enum scenario_kind kind)
{
    for (size_t i = 0; i < n; i++) {
        if (results[i].scenario->kind == kind) {
            return true;
        }
    }
    return false;
}

static void
format_report(struct ds *s, const struct result results[], size_t n)
{
    time_t now = time(NULL);
    char date[64];

    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    ds_put_format(s, "- Date: %s\n- Commit: %s\n", date, commit);
    format_machine(s);
    ds_put_format(s, "- Command: `%s`\n", command_line);
    ds_put_format(s, "- Each figure is the median of %d rounds of %.1f s "
                  "per datapath, the two datapaths alternating.\n\n",
                  rounds, seconds);

    if (has_kind(results, n, FORWARDING)) {
        ds_put_cstr(s, "Forwarding, once every flow is installed (64-byte "
                    "UDP frames, 66 bytes for IPv6; cycles are TSC cycles "
                    "of all PMD threads per packet; CPU ns are the CPU time "
                    "the process used "
                    "per packet, which time taken by other processes does "
                    "not inflate, and their ratio is stock's over ours):"
                    "\n\n"
                    FORWARDING_TABLE_HEAD);
        format_forwarding_rows(s, results, n, FORWARDING);
    }
    if (has_kind(results, n, STATS_MODES)) {
        ds_put_cstr(s, "Flow stats, ours against ours: one slot per thread "
                    "(the default) against one shared slot per flow under "
                    "a lock (other_config:benchmark-shared-flow-stats, for "
                    "benchmarks only), both updated once per batch:\n\n"
                    "| scenario | per-thread Mpps | shared locked Mpps "
                    "| ratio | per-thread cycles/pkt "
                    "| shared locked cycles/pkt | per-thread CPU ns/pkt "
                    "| shared locked CPU ns/pkt | CPU ratio |\n"
                    "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (size_t i = 0; i < n; i++) {
            if (results[i].scenario->kind == STATS_MODES) {
                format_forwarding_row(s, &results[i]);
            }
        }
        ds_put_char(s, '\n');
    }
    if (has_kind(results, n, TUNNEL_OUTPUT)) {
        const struct result *few = NULL, *many = NULL;

        ds_put_cstr(s, "Tunnel output, once every flow is installed: "
                    "64-byte frames, each flow into a vxlan tunnel to one "
                    "of 32 destinations, the frames of a batch to all 32 "
                    "in turn, with the datapath's ports padded with idle "
                    "ones (ours: set(tunnel()) and output to the tunnel "
                    "port, the outer frame routed, handed back on the "
                    "underlay port and output by a flow there; stock: "
                    "tnl_push() with the header ofproto would build):\n\n"
                    FORWARDING_TABLE_HEAD);
        for (size_t i = 0; i < n; i++) {
            const struct scenario *sc = results[i].scenario;

            if (sc->kind == TUNNEL_OUTPUT) {
                format_forwarding_row(s, &results[i]);
                if (!few || sc->n_ports < few->scenario->n_ports) {
                    few = &results[i];
                }
                if (!many || sc->n_ports > many->scenario->n_ports) {
                    many = &results[i];
                }
            }
        }
        ds_put_char(s, '\n');
        if (few != many) {
            ds_put_format(s, "Rate with %d ports over the rate with %d: "
                          "ours %.2f, stock %.2f.\n\n",
                          many->scenario->n_ports, few->scenario->n_ports,
                          ratio(many->dp[0].mpps, few->dp[0].mpps),
                          ratio(many->dp[1].mpps, few->dp[1].mpps));
        }
    }
    if (has_kind(results, n, TUNNEL_INPUT)) {
        ds_put_cstr(s, "Tunnel input, once every flow is installed: "
                    "64-byte frames received in Geneve over IPv4 with "
                    "OVN's option (class 0x0102, type 0x80, 4 bytes), "
                    "decapsulated and output by a megaflow on the tunnel "
                    "ID, the option and the inner destination (ours: "
                    "output to the local port that holds the tunnel's "
                    "address, where the datapath decapsulates; stock: "
                    "tnl_pop() on the geneve port, then recirculation):"
                    "\n\n"
                    FORWARDING_TABLE_HEAD);
        format_forwarding_rows(s, results, n, TUNNEL_INPUT);
    }
    if (has_kind(results, n, FLOW_SETUP)) {
        ds_put_cstr(s, "Flow setup through the upcall path (every packet of "
                    "the set is a new megaflow until it is installed; "
                    "bytes are heap growth per distinct megaflow):\n\n"
                    "| scenario | ours kflows/s | stock kflows/s | ratio "
                    "| ours upcalls/flow | stock upcalls/flow "
                    "| ours flows held | stock flows held "
                    "| ours bytes/flow | stock bytes/flow |\n"
                    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (size_t i = 0; i < n; i++) {
            if (results[i].scenario->kind == FLOW_SETUP) {
                format_setup_row(s, &results[i]);
            }
        }
        ds_put_char(s, '\n');
    }
}

static const struct scenario all_scenarios[] = {
    { "one flow (exact-match cache hits)", FORWARDING, 1, 1, 1,
      BENCHMARK_IPV4, 0 },
    { "1k flows, 1 mask", FORWARDING, 1000, 1, 1, BENCHMARK_IPV4, 0 },
    { "1k flows, 8 masks", FORWARDING, 1000, 8, 1, BENCHMARK_IPV4, 0 },
    { "10k flows, 1 mask", FORWARDING, 10000, 1, 1, BENCHMARK_IPV4, 0 },
    /* Tagged frames take header keys (header-key.h) too. */
    { "10k flows, VLAN-tagged", FORWARDING, 10000, 1, 1,
      BENCHMARK_IPV4_TAGGED, 0 },
    /* So do IPv6 frames, by keys of two cache lines an entry. */
    { "10k flows, IPv6", FORWARDING, 10000, 1, 1, BENCHMARK_IPV6, 0 },
    { "10k flows, 8 masks", FORWARDING, 10000, 8, 1, BENCHMARK_IPV4, 0 },
    { "100k flows, 1 mask", FORWARDING, 100000, 1, 1, BENCHMARK_IPV4, 0 },
    { "100k flows, 8 masks", FORWARDING, 100000, 8, 1, BENCHMARK_IPV4, 0 },
    { "1M flows, 1 mask", FORWARDING, 1000000, 1, 1, BENCHMARK_IPV4, 0 },
    { "1M flows, 8 masks", FORWARDING, 1000000, 8, 1, BENCHMARK_IPV4, 0 },
    { "two threads, one megaflow", FORWARDING, 1, 1, 2, BENCHMARK_IPV4, 0 },
    /* Where one shared table should win: stock's threads each hold a copy
     * of every megaflow, so its working set is twice ours. */
    { "two threads, each all of 1k flows", FORWARDING, 1000, 1, 2,
      BENCHMARK_IPV4, 0 },
    { "two threads, each all of 10k flows", FORWARDING, 10000, 1, 2,
      BENCHMARK_IPV4, 0 },
    { "two threads, each all of 100k flows", FORWARDING, 100000, 1, 2,
      BENCHMARK_IPV4, 0 },
    { "two threads, each all of 1M flows", FORWARDING, 1000000, 1, 2,
      BENCHMARK_IPV4, 0 },
    { "stats slots, two threads, one megaflow", STATS_MODES, 1, 1, 2,
      BENCHMARK_IPV4, 0 },
    { "stats slots, two threads, 1k megaflows", STATS_MODES, 1000, 1, 2,
      BENCHMARK_IPV4, 0 },
    /* The tunnel's route, port and next hop, looked up per destination
     * change: with few ports and with many. */
    { "tunnel output, 32 destinations, 5 ports", TUNNEL_OUTPUT,
      BENCHMARK_TUNNEL_N_DSTS, 1, 1, BENCHMARK_IPV4, TUNNEL_BASE_PORTS },
    { "tunnel output, 32 destinations, 1000 ports", TUNNEL_OUTPUT,
      BENCHMARK_TUNNEL_N_DSTS, 1, 1, BENCHMARK_IPV4, 1000 },
    /* An OVN chassis's commonest input: Geneve with OVN's option,
     * decapsulated and matched on the tunnel ID and the option. */
    { "geneve input, OVN option, 10k inner flows", TUNNEL_INPUT, 10000, 1,
      1, BENCHMARK_GENEVE, 0 },
    { "flow setup, 100k flows, 1 thread", FLOW_SETUP, 100000, 1, 1,
      BENCHMARK_IPV4, 0 },
    { "flow setup, 100k flows, 2 threads", FLOW_SETUP, 100000, 1, 2,
      BENCHMARK_IPV4, 0 },
};

static bool
scenario_selected(const struct scenario *sc, const char *only)
{
    return !only || strstr(sc->name, only) != NULL;
}

static void
usage(void)
{
    printf("%s: ovs-percpu and stock dpif-netdev, side by side\n"
           "usage: %s [OPTIONS]\n"
           "  --rounds=N      runs per datapath and scenario (default 3)\n"
           "  --seconds=S     measuring time per run (default 2)\n"
           "  --only=TEXT     only scenarios whose name contains TEXT\n"
           "  --quick         every scenario, one short round (%d x %.1f s)\n"
           "  --pcap=FILE     also forward FILE's packets, replayed\n"
           "  --datapath=ours|stock  run one datapath only, to profile it\n"
           "  --flow-limit=N  our other_config:flow-limit (default the "
           "table's maximum),\n"
           "                  to check that a scenario beyond it fails\n"
           "  --output=FILE   write the results table to FILE\n"
           "  --commit=ID     the commit to name in the results\n"
           "  --command=TEXT  the command to name in the results\n",
           program_name, program_name, QUICK_ROUNDS, QUICK_SECONDS);
    exit(EXIT_SUCCESS);
}

static const char *
parse_options(int argc, char *argv[])
{
    static const struct option long_options[] = {
        {"rounds", required_argument, NULL, 'r'},
        {"seconds", required_argument, NULL, 's'},
        {"only", required_argument, NULL, 'o'},
        {"quick", no_argument, NULL, 'q'},
        {"pcap", required_argument, NULL, 'p'},
        {"datapath", required_argument, NULL, 'd'},
        {"flow-limit", required_argument, NULL, 'l'},
        {"output", required_argument, NULL, 'w'},
        {"commit", required_argument, NULL, 'c'},
        {"command", required_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *only = NULL;
    bool rounds_set = false, seconds_set = false;
    unsigned long long value;

    for (;;) {
        int c = getopt_long(argc, argv, "", long_options, NULL);

        if (c == -1) {
            break;
        }
        switch (c) {
        case 'r':
            rounds = atoi(optarg);
            rounds_set = true;
            if (rounds < 1 || rounds > 64) {
                ovs_fatal(0, "--rounds must be between 1 and 64");
            }
            break;
        case 's':
            seconds = atof(optarg);
            seconds_set = true;
            if (seconds < 0.1 || seconds > 600) {
                ovs_fatal(0, "--seconds must be between 0.1 and 600");
            }
            break;
        case 'o':
            only = optarg;
            break;
        case 'q':
            quick = true;
            break;
        case 'p':
            pcap_file = optarg;
            break;
        case 'd':
            if (!strcmp(optarg, "ours")) {
                only_datapath = 0;
            } else if (!strcmp(optarg, "stock")) {
                only_datapath = 1;
            } else {
                ovs_fatal(0, "--datapath must be \"ours\" or \"stock\"");
            }
            break;
        case 'l':
            if (!str_to_ullong(optarg, 10, &value) || !value
                || value > FLOW_TABLE_MAX_FLOWS) {
                ovs_fatal(0, "--flow-limit must be between 1 and %"PRIuSIZE,
                          FLOW_TABLE_MAX_FLOWS);
            }
            flow_limit = value;
            break;
        case 'w':
            output_file = optarg;
            break;
        case 'c':
            commit = optarg;
            break;
        case 'C':
            command_line = optarg;
            break;
        case 'h':
            usage();
            break;
        default:
            exit(EXIT_FAILURE);
        }
    }
    if (quick) {
        rounds = rounds_set ? rounds : QUICK_ROUNDS;
        seconds = seconds_set ? seconds : QUICK_SECONDS;
    }
    if (optind != argc) {
        ovs_fatal(0, "unexpected argument %s (use --help)", argv[optind]);
    }
    return only;
}

int
main(int argc, char *argv[])
{
    static const struct scenario pcap_scenario = {
        "packets of the pcap file", FORWARDING, 0, 1, 1, BENCHMARK_IPV4, 0
    };
    struct result results[ARRAY_SIZE(all_scenarios) + 1];
    struct dpif_class *stock;
    const char *only;
    struct ds report = DS_EMPTY_INITIALIZER;
    size_t n = 0;

    set_program_name(argv[0]);
    only = parse_options(argc, argv);
    if (!command_line) {
        command_line = program_name;
    }
    vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_WARN);
    fatal_ignore_sigpipe();
    ovs_numa_init();

    /* Both datapaths open their local port as "dummy-internal". */
    netdev_dummy_register(DUMMY_OVERRIDE_NONE);
    benchmark_netdev_register();
    dpif_percpu_register_as(OURS_TYPE);
    stock = xmemdup(&dpif_netdev_class, sizeof *stock);
    stock->type = STOCK_TYPE;
    dp_register_provider(stock);

    if (pcap_file) {
        run_scenario(&pcap_scenario, &results[n++]);
    }
    for (size_t i = 0; i < ARRAY_SIZE(all_scenarios); i++) {
        const struct scenario *sc = &all_scenarios[i];

        if (!scenario_selected(sc, only)) {
            continue;
        }
        fprintf(stderr, "running: %s\n", sc->name);
        run_scenario(sc, &results[n]);
        n++;
    }

    format_report(&report, results, n);
    fputs(ds_cstr(&report), stdout);
    if (output_file) {
        FILE *file = fopen(output_file, "w");

        if (!file) {
            ovs_fatal(errno, "%s: cannot write", output_file);
        }
        fputs(ds_cstr(&report), file);
        fclose(file);
    }
    ds_destroy(&report);
    return 0;
}

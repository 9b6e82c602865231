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

/* ovs-vswitchd for ovs-percpu.
 *
 * This is Open vSwitch's switch daemon, unchanged in its bridge logic (OVS's
 * own vswitchd/bridge.c is compiled from the OVS tree), with one difference:
 * the userspace datapath types "netdev" and "dummy" are served by the
 * ovs-percpu datapath instead of OVS's dpif-netdev. */

#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_MLOCKALL
#include <sys/mman.h>
#endif

#include "bridge.h"
#include "bridge-port-order.h"
#include "command-line.h"
#include "daemon.h"
#include "dirs.h"
#include "dns-resolve.h"
#include "dpif.h"
#include "dp-unixctl.h"
#include "dp-unixctl-stock.h"
#include "dpif-kernel.h"
#include "dpif-percpu.h"
#include "dummy.h"
#include "fatal-signal.h"
#include "memory.h"
#include "netdev.h"
#include "netdev-afpacket.h"
#include "netdev-ipip.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "ovs-numa.h"
#include "ovs-rcu.h"
#include "ovs-router.h"
#include "ovs-thread.h"
#include "simap.h"
#include "stream-ssl.h"
#include "stream.h"
#include "timeval.h"
#include "unixctl.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(vswitchd);

/* State the "exit" command changes. */
struct exit_request {
    bool exiting;               /* Leave the main loop. */
    bool cleanup;               /* Delete datapaths and ports on the way. */
};

/* Options that take effect after parsing. */
struct options {
    char *remote;               /* OVSDB server to connect to. */
    const char *unixctl_path;   /* Control socket, or NULL for default. */
    bool mlockall;              /* Lock all memory? */
    bool system_taken;          /* "system" is a dummy class or disabled,
                                 * so our kernel class stays out. */
};

/* Enables dummy devices for tests, as OVS's dummy_enable() does, except that
 * the dummy datapath is ours: OVS's dpif_dummy_register() would register its
 * dpif-netdev under the type "dummy".  'arg' is the dummy level: empty,
 * "system" or "override".  Returns true if the dummy datapath took the type
 * "system". */
static bool
enable_dummy(const char *arg)
{
    enum dummy_level level;

    if (!arg || !arg[0]) {
        level = DUMMY_OVERRIDE_NONE;
    } else if (!strcmp(arg, "system")) {
        level = DUMMY_OVERRIDE_SYSTEM;
    } else if (!strcmp(arg, "override")) {
        level = DUMMY_OVERRIDE_ALL;
    } else {
        ovs_fatal(0, "%s: unknown dummy level", arg);
    }

    netdev_dummy_register(level);
    if (level != DUMMY_OVERRIDE_NONE) {
        dpif_percpu_override_system();
    }
    timeval_dummy_register();
    ofpact_dummy_enable();
    dp_unixctl_register_test_commands();
    return level != DUMMY_OVERRIDE_NONE;
}

static void
print_version(void)
{
    printf("%s (ovs-percpu) %s\n", program_name, OVS_PERCPU_VERSION);
    printf("built against Open vSwitch %s\n", VERSION);
}

OVS_NO_RETURN static void
usage(void)
{
    printf("%s: Open vSwitch daemon with the ovs-percpu userspace datapath\n"
           "usage: %s [OPTIONS] [DATABASE]\n"
           "where DATABASE is a socket on which ovsdb-server is listening\n"
           "      (default: \"unix:%s/db.sock\").\n",
           program_name, program_name, ovs_rundir());
    stream_usage("DATABASE", true, false, true);
    daemon_usage();
    vlog_usage();
    printf("\nTesting options:\n"
           "  --enable-dummy[=LEVEL]    enable dummy devices "
           "(LEVEL: system, override)\n"
           "  --disable-system          disable the kernel datapath\n"
           "  --disable-system-route    do not read the system routes\n"
           "  --dummy-numa=CORES        fake NUMA topology\n"
           "\nOther options:\n"
           "  --mlockall                lock all memory\n"
           "  --unixctl=SOCKET          override default control socket "
           "name\n"
           "  -h, --help                display this help message\n"
           "  -V, --version             display version information\n");
    exit(EXIT_SUCCESS);
}

static void
parse_options(int argc, char *argv[], struct options *options)
{
    enum {
        OPT_PEER_CA_CERT = UCHAR_MAX + 1,
        OPT_MLOCKALL,
        OPT_UNIXCTL,
        VLOG_OPTION_ENUMS,
        OPT_BOOTSTRAP_CA_CERT,
        OPT_ENABLE_DUMMY,
        OPT_DISABLE_SYSTEM,
        OPT_DISABLE_SYSTEM_ROUTE,
        DAEMON_OPTION_ENUMS,
        OPT_DPDK,
        SSL_OPTION_ENUMS,
        OPT_DUMMY_NUMA,
    };
    static const struct option long_options[] = {
        {"help",        no_argument, NULL, 'h'},
        {"version",     no_argument, NULL, 'V'},
        {"mlockall",    no_argument, NULL, OPT_MLOCKALL},
        {"unixctl",     required_argument, NULL, OPT_UNIXCTL},
        DAEMON_LONG_OPTIONS,
        VLOG_LONG_OPTIONS,
        STREAM_SSL_LONG_OPTIONS,
        {"peer-ca-cert", required_argument, NULL, OPT_PEER_CA_CERT},
        {"bootstrap-ca-cert", required_argument, NULL, OPT_BOOTSTRAP_CA_CERT},
        {"enable-dummy", optional_argument, NULL, OPT_ENABLE_DUMMY},
        {"disable-system", no_argument, NULL, OPT_DISABLE_SYSTEM},
        {"disable-system-route", no_argument, NULL, OPT_DISABLE_SYSTEM_ROUTE},
        {"dpdk", optional_argument, NULL, OPT_DPDK},
        {"dummy-numa", required_argument, NULL, OPT_DUMMY_NUMA},
        {NULL, 0, NULL, 0},
    };
    char *short_options = ovs_cmdl_long_options_to_short_options(long_options);

    memset(options, 0, sizeof *options);
    for (;;) {
        int c = getopt_long(argc, argv, short_options, long_options, NULL);

        if (c == -1) {
            break;
        }
        switch (c) {
        case 'h':
            usage();

        case 'V':
            print_version();
            exit(EXIT_SUCCESS);

        case OPT_MLOCKALL:
            options->mlockall = true;
            break;

        case OPT_UNIXCTL:
            options->unixctl_path = optarg;
            break;

        VLOG_OPTION_HANDLERS
        DAEMON_OPTION_HANDLERS
        STREAM_SSL_OPTION_HANDLERS

        case OPT_PEER_CA_CERT:
            stream_ssl_set_peer_ca_cert_file(optarg);
            break;

        case OPT_BOOTSTRAP_CA_CERT:
            stream_ssl_set_ca_cert_file(optarg, true);
            break;

        case OPT_ENABLE_DUMMY:
            if (enable_dummy(optarg)) {
                options->system_taken = true;
            }
            break;

        case OPT_DISABLE_SYSTEM:
            dp_disallow_provider("system");
            options->system_taken = true;
            break;

        case OPT_DISABLE_SYSTEM_ROUTE:
            ovs_router_disable_system_routing_table();
            break;

        case OPT_DPDK:
            ovs_fatal(0, "Using --dpdk to configure DPDK is not supported.");

        case OPT_DUMMY_NUMA:
            ovs_numa_set_dummy(optarg);
            break;

        case '?':
            exit(EXIT_FAILURE);

        default:
            OVS_NOT_REACHED();
        }
    }
    free(short_options);

    argc -= optind;
    argv += optind;
    if (argc == 0) {
        options->remote = xasprintf("unix:%s/db.sock", ovs_rundir());
    } else if (argc == 1) {
        options->remote = xstrdup(argv[0]);
    } else {
        VLOG_FATAL("at most one non-option argument accepted; "
                   "use --help for usage");
    }
}

static void
lock_memory(void)
{
#ifdef HAVE_MLOCKALL
    if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
        VLOG_ERR("mlockall failed: %s", ovs_strerror(errno));
    } else {
        set_memory_locked();
    }
#else
    VLOG_ERR("mlockall not supported on this system");
#endif
}

static void
exit_command(struct unixctl_conn *conn, int argc, const char *argv[],
             void *request_)
{
    struct exit_request *request = request_;

    request->exiting = true;
    request->cleanup = argc == 2 && !strcmp(argv[1], "--cleanup");
    unixctl_command_reply(conn, NULL);
}

/* Reports memory use when the memory module asks for it. */
static void
report_memory(void)
{
    memory_run();
    if (memory_should_report()) {
        struct simap usage;

        simap_init(&usage);
        bridge_get_memory_usage(&usage);
        memory_report(&usage);
        simap_destroy(&usage);
    }
}

/* Runs the switch until "exit" or a stop request. */
static void
main_loop(struct unixctl_server *unixctl, struct exit_request *request)
{
    while (!request->exiting) {
        report_memory();
        bridge_run();
        bridge_port_order_flush();
        unixctl_server_run(unixctl);
        netdev_run();

        memory_wait();
        bridge_wait();
        unixctl_server_wait(unixctl);
        netdev_wait();
        if (request->exiting) {
            poll_immediate_wake();
        }
        poll_block();
        if (should_service_stop()) {
            request->exiting = true;
        }
    }
}

int
main(int argc, char *argv[])
{
    struct exit_request request = { false, false };
    struct unixctl_server *unixctl;
    struct options options;

    set_program_name(argv[0]);
    ovsthread_id_init();

    /* Before anything can open a datapath or list datapath types. */
    dpif_percpu_register();
    dp_unixctl_stock_register();
    /* The tunnel netdev types our datapath serves, before the bridge opens
     * any interface. */
    netdev_ipip_register();
    /* The netdev that opens "system" ports of our datapath. */
    netdev_afpacket_register();

    dns_resolve_init(true);
    ovs_cmdl_proctitle_init(argc, argv);
    service_start(&argc, &argv);
    parse_options(argc, argv, &options);
    /* The kernel datapath with our ipip ports, unless a dummy class took
     * its type; before anything opens a datapath. */
    if (!options.system_taken) {
        dpif_kernel_register();
    }
    fatal_ignore_sigpipe();

    daemonize_start(true);
    if (options.mlockall) {
        lock_memory();
    }

    if (unixctl_server_create(options.unixctl_path, &unixctl)) {
        exit(EXIT_FAILURE);
    }
    unixctl_command_register("exit", "[--cleanup]", 0, 1, exit_command,
                             &request);

    bridge_init(options.remote);
    free(options.remote);

    main_loop(unixctl, &request);

    bridge_exit(request.cleanup);
    unixctl_server_destroy(unixctl);
    service_stop();
    vlog_disable_async();
    ovsrcu_exit();
    dns_resolve_destroy();
    return 0;
}

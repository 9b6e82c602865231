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

/* Unit tests of the ipip netdev class (lib/tunnels/netdev-ipip.c), driven
 * through OVS's netdev API as the bridge and ofproto drive it, and through
 * the functions the datapath calls.
 *
 *   test-netdev-ipip config     parsed options, tunnel config, republishing
 *   test-netdev-ipip counters   per-thread counters and their sum */

#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netdev-ipip.h"
#include "netdev.h"
#include "openvswitch/dynamic-string.h"
#include "ovs-numa.h"
#include "ovs-thread.h"
#include "packets.h"
#include "smap.h"
#include "util.h"

/* Cores of the fake NUMA topology the tests run with, so that the number of
 * counter slots does not depend on the machine: 3 cores, hence 4 slots. */
#define TEST_DUMMY_NUMA "0,0,0"
#define TEST_N_SLOTS 4

/* Iterations of each counting thread. */
#define TEST_ITERATIONS 200000

static void
fail(const char *what, const char *expected, const char *got)
{
    fprintf(stderr, "FAIL: %s: expected %s, got %s\n", what, expected, got);
    exit(EXIT_FAILURE);
}

static void
check_u64(const char *what, uint64_t expected, uint64_t got)
{
    if (expected != got) {
        char e[32], g[32];

        snprintf(e, sizeof e, "%"PRIu64, expected);
        snprintf(g, sizeof g, "%"PRIu64, got);
        fail(what, e, g);
    }
    printf("%s: %"PRIu64"\n", what, got);
}

static void
check_str(const char *what, const char *expected, const char *got)
{
    if (strcmp(expected, got)) {
        fail(what, expected, got);
    }
    printf("%s: %s\n", what, got);
}

static void
check_true(const char *what, bool cond)
{
    if (!cond) {
        fail(what, "true", "false");
    }
    printf("%s: ok\n", what);
}

/* Returns 'ip' in dotted-quad form, in a static buffer. */
static const char *
ip_str(ovs_be32 ip)
{
    static char buf[INET_ADDRSTRLEN];

    snprintf(buf, sizeof buf, IP_FMT, IP_ARGS(ip));
    return buf;
}

static struct netdev *
open_ipip(const char *name)
{
    struct netdev *netdev;
    int error = netdev_open(name, "ipip", &netdev);

    if (error) {
        fail("netdev_open(ipip)", "0", ovs_strerror(error));
    }
    return netdev;
}

/* Applies the options in 'args' ("key=value key=value...") to 'netdev' and
 * returns set_config's result; the error message, if any, goes to '*errp'
 * (or is freed if 'errp' is NULL). */
static int
configure(struct netdev *netdev, const char *args, char **errp)
{
    struct smap options = SMAP_INITIALIZER(&options);
    char *copy = xstrdup(args);
    char *save_ptr = NULL;
    char *error = NULL;
    int retval;

    for (char *token = strtok_r(copy, " ", &save_ptr); token;
         token = strtok_r(NULL, " ", &save_ptr)) {
        char *eq = strchr(token, '=');

        ovs_assert(eq);
        *eq = '\0';
        smap_add(&options, token, eq + 1);
    }
    retval = netdev_set_config(netdev, &options, &error);
    if (errp) {
        *errp = error;
    } else {
        free(error);
    }
    smap_destroy(&options);
    free(copy);
    return retval;
}

/* Returns netdev_get_config() of 'netdev' as "k=v, k=v", sorted by key.  The
 * caller frees it. */
static char *
config_string(const struct netdev *netdev)
{
    struct smap args = SMAP_INITIALIZER(&args);
    struct ds ds = DS_EMPTY_INITIALIZER;

    ovs_assert(!netdev_get_config(netdev, &args));
    const struct smap_node **nodes = smap_sort(&args);
    for (size_t i = 0; i < smap_count(&args); i++) {
        ds_put_format(&ds, "%s%s=%s", i ? ", " : "", nodes[i]->key,
                      nodes[i]->value);
    }
    free(nodes);
    smap_destroy(&args);
    return ds_steal_cstr(&ds);
}

static void
check_config_string(const char *what, const struct netdev *netdev,
                    const char *expected)
{
    char *s = config_string(netdev);

    check_str(what, expected, s);
    free(s);
}

static void
check_mapped(const char *what, const struct in6_addr *addr, ovs_be32 expected)
{
    struct in6_addr want;

    if (expected) {
        in6_addr_set_mapped_ipv4(&want, expected);
    } else {
        want = in6addr_any;
    }
    if (!ipv6_addr_equals(addr, &want)) {
        char e[INET6_ADDRSTRLEN], g[INET6_ADDRSTRLEN];

        ipv6_string_mapped(e, &want);
        ipv6_string_mapped(g, addr);
        fail(what, e, g);
    }
    printf("%s: ok\n", what);
}

static void
test_config(void)
{
    const struct netdev_ipip_config *c, *c2;
    const struct netdev_tunnel_config *t;
    struct netdev *netdev = open_ipip("t0");
    struct netdev *patch;
    struct eth_addr mac;
    enum netdev_flags flags;
    uint64_t seq;
    char *err;

    ovs_assert(!netdev_open("p0", "patch", &patch));
    check_true("t0 is ipip", netdev_is_ipip(netdev));
    check_true("p0 is not ipip", !netdev_is_ipip(patch));
    netdev_close(patch);

    /* Defaults, before any configuration. */
    c = netdev_ipip_get_config(netdev);
    check_u64("default remote_ip", 0, ntohl(c->remote_ip));
    check_u64("default ttl", 64, c->ttl);
    check_true("default df_default and gro", c->df_default && c->gro);
    check_true("tunnel config exists before set_config",
               netdev_get_tunnel_config(netdev) != NULL);

    /* Every option. */
    check_u64("set_config all options", 0,
              configure(netdev, "remote_ip=192.0.2.1 local_ip=192.0.2.2 "
                        "tos=0x20 ttl=10 df_default=false gro=false", NULL));
    c = netdev_ipip_get_config(netdev);
    check_str("remote_ip", "192.0.2.1",
              ip_str(c->remote_ip));
    check_str("local_ip", "192.0.2.2",
              ip_str(c->local_ip));
    check_true("neither address from the flow",
               !c->remote_ip_flow && !c->local_ip_flow);
    check_u64("tos", 0x20, c->tos);
    check_u64("ttl", 10, c->ttl);
    check_true("no inherit", !c->tos_inherit && !c->ttl_inherit);
    check_true("df_default false", !c->df_default);
    check_true("gro false", !c->gro);
    check_config_string("get_config", netdev,
                        "df_default=false, gro=false, local_ip=192.0.2.2, "
                        "remote_ip=192.0.2.1, tos=0x20, ttl=10");

    /* What ofproto sees. */
    t = netdev_get_tunnel_config(netdev);
    check_mapped("tnl ipv6_dst", &t->ipv6_dst, htonl(0xc0000201));
    check_mapped("tnl ipv6_src", &t->ipv6_src, htonl(0xc0000202));
    check_true("tnl addresses not from the flow",
               !t->ip_dst_flow && !t->ip_src_flow);
    check_u64("tnl ttl", 10, t->ttl);
    check_u64("tnl tos", 0x20, t->tos);
    check_true("tnl dont_fragment false", !t->dont_fragment);
    check_true("tnl pt_mode legacy_l3", t->pt_mode == NETDEV_PT_LEGACY_L3);
    check_true("netdev_get_pt_mode legacy_l3",
               netdev_get_pt_mode(netdev) == NETDEV_PT_LEGACY_L3);
    check_true("no keys", !t->in_key_present && !t->out_key_present
               && !t->in_key_flow && !t->out_key_flow
               && !t->in_key && !t->out_key);
    check_u64("tnl dst_port", 0, ntohs(t->dst_port));

    /* The same options again publish nothing new and change nothing. */
    seq = netdev_get_change_seq(netdev);
    check_u64("set_config same options", 0,
              configure(netdev, "gro=false df_default=false ttl=10 "
                        "tos=0x20 local_ip=192.0.2.2 remote_ip=192.0.2.1",
                        NULL));
    check_true("same options keep the snapshot",
               netdev_ipip_get_config(netdev) == c);
    check_true("same options keep the change seq",
               netdev_get_change_seq(netdev) == seq);

    /* A bad option is refused as a whole: the old options stay. */
    check_u64("set_config with ttl=0", EINVAL,
              configure(netdev, "remote_ip=198.51.100.1 ttl=0", &err));
    check_str("error", "t0: invalid TTL 0 (expected 1..255 or inherit)",
              err ? err : "(none)");
    free(err);
    c2 = netdev_ipip_get_config(netdev);
    check_true("refused options keep the snapshot", c2 == c);
    check_str("remote_ip after refusal", "192.0.2.1",
              ip_str(c2->remote_ip));

    /* New options publish a new snapshot and tell the bridge. */
    check_u64("set_config flow addresses, inherit", 0,
              configure(netdev, "remote_ip=flow local_ip=flow tos=inherit "
                        "ttl=inherit", NULL));
    c2 = netdev_ipip_get_config(netdev);
    check_true("new options publish a new snapshot", c2 != c);
    check_true("new options change the change seq",
               netdev_get_change_seq(netdev) != seq);
    check_true("addresses from the flow",
               c2->remote_ip_flow && c2->local_ip_flow
               && !c2->remote_ip && !c2->local_ip);
    check_true("inherit", c2->tos_inherit && c2->ttl_inherit);
    check_true("unset options back to defaults", c2->df_default && c2->gro);
    t = netdev_get_tunnel_config(netdev);
    check_true("tnl addresses from the flow",
               t->ip_dst_flow && t->ip_src_flow);
    check_mapped("tnl ipv6_dst unset", &t->ipv6_dst, 0);
    check_mapped("tnl ipv6_src unset", &t->ipv6_src, 0);
    check_true("tnl inherit", t->tos_inherit && t->ttl_inherit);
    check_true("tnl dont_fragment true", t->dont_fragment);
    check_config_string("get_config", netdev,
                        "local_ip=flow, remote_ip=flow, tos=inherit, "
                        "ttl=inherit");

    /* A layer-3 port: no Ethernet address, no ifindex, always up. */
    check_u64("get_etheraddr", EOPNOTSUPP, netdev_get_etheraddr(netdev, &mac));
    check_true("get_ifindex fails", netdev_get_ifindex(netdev) < 0);
    check_u64("get_flags", 0, netdev_get_flags(netdev, &flags));
    check_u64("flags", NETDEV_UP | NETDEV_PROMISC, flags);
    check_u64("n_rxq", 0, netdev_n_rxq(netdev));

    netdev_close(netdev);
}

/* What one counting thread needs. */
struct counter_thread {
    struct netdev *netdev;      /* The port to count on. */
    unsigned int index;         /* The thread's index. */
};

/* Adds, TEST_ITERATIONS times, counter + 1 to every counter, on the
 * thread's own index. */
static void *
count_main(void *arg_)
{
    struct counter_thread *arg = arg_;

    for (int i = 0; i < TEST_ITERATIONS; i++) {
        for (int c = 0; c < NETDEV_IPIP_N_COUNTERS; c++) {
            netdev_ipip_count(arg->netdev, arg->index, c, c + 1);
        }
    }
    return NULL;
}

static void
test_counters(void)
{
    struct counter_thread args[TEST_N_SLOTS];
    pthread_t threads[TEST_N_SLOTS];
    struct netdev *netdev = open_ipip("t0");
    struct netdev_stats stats;
    uint64_t per_counter;

    ovs_assert(!configure(netdev, "remote_ip=192.0.2.1", NULL));
    check_u64("slots", TEST_N_SLOTS, netdev_ipip_n_slots(netdev));

    /* Nothing counted yet. */
    check_u64("get_stats", 0, netdev_get_stats(netdev, &stats));
    check_u64("rx_packets before", 0, stats.rx_packets);
    check_u64("tx_dropped before", 0, stats.tx_dropped);

    /* One thread per slot, all at once: each counts only on its own slot,
     * so no update may be lost. */
    for (int i = 0; i < TEST_N_SLOTS; i++) {
        args[i].netdev = netdev;
        args[i].index = i;
        threads[i] = ovs_thread_create("count", count_main, &args[i]);
    }
    for (int i = 0; i < TEST_N_SLOTS; i++) {
        xpthread_join(threads[i], NULL);
    }

    /* An index past the last slot wraps around: TEST_N_SLOTS + 1 is slot
     * 1, whose thread is done. */
    netdev_ipip_count(netdev, TEST_N_SLOTS + 1, NETDEV_IPIP_TX_DROPPED, 7);

    per_counter = (uint64_t) TEST_N_SLOTS * TEST_ITERATIONS;
    check_u64("get_stats", 0, netdev_get_stats(netdev, &stats));
    check_u64("rx_packets", per_counter * 1, stats.rx_packets);
    check_u64("rx_bytes", per_counter * 2, stats.rx_bytes);
    check_u64("rx_errors", per_counter * 3, stats.rx_errors);
    check_u64("rx_dropped", per_counter * 4, stats.rx_dropped);
    check_u64("tx_packets", per_counter * 5, stats.tx_packets);
    check_u64("tx_bytes", per_counter * 6, stats.tx_bytes);
    check_u64("tx_errors", per_counter * 7, stats.tx_errors);
    check_u64("tx_dropped", per_counter * 8 + 7, stats.tx_dropped);
    /* A counter the port does not keep stays "unsupported". */
    check_u64("collisions unsupported", UINT64_MAX, stats.collisions);

    /* Counters belong to the port: a new port starts from zero. */
    struct netdev *other = open_ipip("t1");
    check_u64("get_stats t1", 0, netdev_get_stats(other, &stats));
    check_u64("t1 tx_dropped", 0, stats.tx_dropped);
    netdev_close(other);

    netdev_close(netdev);
}

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    if (argc != 2) {
        ovs_fatal(0, "usage: %s config|counters", argv[0]);
    }

    ovs_numa_set_dummy(TEST_DUMMY_NUMA);
    netdev_ipip_register();
    netdev_ipip_register();     /* Idempotent: no "duplicate" warning. */

    if (!strcmp(argv[1], "config")) {
        test_config();
    } else if (!strcmp(argv[1], "counters")) {
        test_counters();
    } else {
        ovs_fatal(0, "%s: unknown test", argv[1]);
    }
    return 0;
}

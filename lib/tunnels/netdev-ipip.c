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

/* The "ipip" netdev type: options, status, per-thread counters. */

#include <config.h>
#include "netdev-ipip.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "connectivity.h"
#include "kernel-ipip.h"
#include "netdev-provider.h"
#include "netdev.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "ovs-numa.h"
#include "ovs-rcu.h"
#include "ovs-router.h"
#include "ovs-thread.h"
#include "packets.h"
#include "route-table.h"
#include "seq.h"
#include "smap.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_ipip);

/* The outer TTL when the "ttl" option is absent, as Linux and OVS's tunnel
 * vports use. */
#define IPIP_DEFAULT_TTL 64

/* Fewest counter slots: the non-PMD context plus one forwarding thread, as
 * the datapath has even when the number of cores is unknown. */
#define IPIP_MIN_SLOTS 2

/* Everything parsed from the options, in the two forms its readers want.
 * Published with ovsrcu_set() and never modified afterwards; a new
 * configuration replaces it whole and the old copy is freed after a grace
 * period, so that a forwarding thread (or an ofproto handler thread running
 * tnl_port_send()) can keep using the pointer it read until it quiesces. */
struct ipip_state {
    struct netdev_ipip_config ipip;     /* For the datapath. */
    struct netdev_tunnel_config tnl;    /* For ofproto, via
                                         * netdev_get_tunnel_config(). */
};

/* One forwarding thread's counters for one port, alone in its cache line(s)
 * so that two threads' writes never share a line.  Written only by the
 * thread that owns the slot; read by get_stats in the main thread. */
struct ipip_slot {
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        atomic_uint64_t counters[NETDEV_IPIP_N_COUNTERS]; /* By enum
                                                 * netdev_ipip_counter. */
    );
};

/* An ipip port. */
struct netdev_ipip {
    struct netdev up;           /* Must be first. */

    /* The configuration.  Written by the main thread (construct,
     * set_config); read by any thread without a lock. */
    OVSRCU_TYPE(struct ipip_state *) state;

    /* Per-thread counters: 'n_slots' of them, fixed at construction. */
    struct ipip_slot *slots;
    unsigned int n_slots;

    /* The route to 'remote_ip', as get_status reports it.  Written by the
     * main thread (set_config, the class's run); guarded by 'mutex' because
     * netdev functions may be called from other threads. */
    struct ovs_mutex mutex;
    char egress_iface[IFNAMSIZ] OVS_GUARDED;  /* "" if no route. */
    bool egress_carrier OVS_GUARDED;          /* Carrier of 'egress_iface'. */
};

static const struct netdev_class ipip_class;

/* The sequence numbers that last triggered a recheck of every ipip port's
 * route (see ipip_run()).  Main thread only. */
static uint64_t last_tnl_conf_seq;
static uint64_t last_route_table_seq;
static uint64_t last_connectivity_seq;

/* Returns the ipip port that 'netdev' is, asserting that it is one. */
static struct netdev_ipip *
netdev_ipip_cast(const struct netdev *netdev)
{
    ovs_assert(netdev_is_ipip(netdev));
    return CONTAINER_OF(netdev, struct netdev_ipip, up);
}

/* Returns the current configuration of 'dev'; any thread, valid until the
 * caller quiesces. */
static const struct ipip_state *
ipip_get_state(const struct netdev_ipip *dev)
{
    return ovsrcu_get(struct ipip_state *, &dev->state);
}

bool
netdev_is_ipip(const struct netdev *netdev)
{
    return netdev_get_class(netdev) == &ipip_class;
}

const struct netdev_ipip_config *
netdev_ipip_get_config(const struct netdev *netdev)
{
    return &ipip_get_state(netdev_ipip_cast(netdev))->ipip;
}

void
netdev_ipip_count(struct netdev *netdev, unsigned int thread_index,
                  enum netdev_ipip_counter counter, uint64_t n)
{
    struct netdev_ipip *dev = CONTAINER_OF(netdev, struct netdev_ipip, up);
    atomic_uint64_t *c;
    uint64_t value;

    ovs_assert(counter < NETDEV_IPIP_N_COUNTERS);
    c = &dev->slots[thread_index % dev->n_slots].counters[counter];
    atomic_read_relaxed(c, &value);
    atomic_store_relaxed(c, value + n);
}

unsigned int
netdev_ipip_n_slots(const struct netdev *netdev)
{
    return netdev_ipip_cast(netdev)->n_slots;
}

/* Fills in the netdev_tunnel_config that ofproto sees from the parsed
 * options in 'state->ipip'. */
static void
ipip_state_fill_tnl(struct ipip_state *state)
{
    const struct netdev_ipip_config *c = &state->ipip;
    struct netdev_tunnel_config *t = &state->tnl;

    memset(t, 0, sizeof *t);
    /* ipip has no key: in_key and out_key stay absent, and dst_port 0. */
    t->ip_src_flow = c->local_ip_flow;
    t->ip_dst_flow = c->remote_ip_flow;
    if (c->ipv6) {
        t->ipv6_src = c->local_ip6;
        t->ipv6_dst = c->remote_ip6;
    }
    if (c->local_ip) {
        in6_addr_set_mapped_ipv4(&t->ipv6_src, c->local_ip);
    }
    if (c->remote_ip) {
        in6_addr_set_mapped_ipv4(&t->ipv6_dst, c->remote_ip);
    }
    t->ttl = c->ttl;
    t->ttl_inherit = c->ttl_inherit;
    t->tos = c->tos;
    t->tos_inherit = c->tos_inherit;
    t->dont_fragment = c->df_default;
    t->pt_mode = NETDEV_PT_LEGACY_L3;
}

/* Returns a new state, zeroed (so that whole states compare with memcmp())
 * and holding the defaults of every option. */
static struct ipip_state *
ipip_state_create_default(void)
{
    struct ipip_state *state = xzalloc(sizeof *state);

    state->ipip.ttl = IPIP_DEFAULT_TTL;
    state->ipip.df_default = true;
    state->ipip.gro = true;
    ipip_state_fill_tnl(state);
    return state;
}

/* Looks up the route to 'dev''s remote_ip and the carrier of the interface
 * it leaves by, and records them for get_status.  Returns true if they
 * changed.  Main thread. */
static bool
ipip_refresh_egress(struct netdev_ipip *dev)
    OVS_EXCLUDED(dev->mutex)
{
    const struct ipip_state *state = ipip_get_state(dev);
    char iface[IFNAMSIZ] = "";
    bool carrier = false;
    bool changed;

    /* OVS's routing table exists once the dpif layer is initialized, which
     * is also when 'tnl_conf_seq' is created (dpif.c dp_initialize()); until
     * then there is no route to look up. */
    if ((state->ipip.remote_ip || ipv6_addr_is_set(&state->ipip.remote_ip6))
        && tnl_conf_seq) {
        struct in6_addr dst, gw;

        if (state->ipip.remote_ip) {
            in6_addr_set_mapped_ipv4(&dst, state->ipip.remote_ip);
        } else {
            dst = state->ipip.remote_ip6;
        }
        if (ovs_router_lookup(0, &dst, iface, NULL, &gw)) {
            /* Only an interface that already exists: opening one by name
             * here would create it. */
            struct netdev *egress = netdev_from_name(iface);

            if (egress) {
                carrier = netdev_get_carrier(egress);
                netdev_close(egress);
            }
        } else {
            iface[0] = '\0';
        }
    }

    ovs_mutex_lock(&dev->mutex);
    changed = (strcmp(dev->egress_iface, iface)
               || dev->egress_carrier != carrier);
    if (changed) {
        ovs_strlcpy_arrays(dev->egress_iface, iface);
        dev->egress_carrier = carrier;
    }
    ovs_mutex_unlock(&dev->mutex);
    return changed;
}

/* The class's run function: when a route or any device's state may have
 * changed, rechecks every ipip port's egress interface and carrier, and
 * tells the bridge (through the port's change sequence) about those that
 * changed, as OVS's tunnel vports do on route changes. */
static void
ipip_run(const struct netdev_class *class)
{
    uint64_t tnl_seq = tnl_conf_seq ? seq_read(tnl_conf_seq) : 0;
    uint64_t rt_seq = route_table_get_change_seq();
    uint64_t conn_seq = seq_read(connectivity_seq_get());
    struct shash_node *node;
    struct shash devices;

    if (tnl_seq == last_tnl_conf_seq && rt_seq == last_route_table_seq
        && conn_seq == last_connectivity_seq) {
        return;
    }
    last_tnl_conf_seq = tnl_seq;
    last_route_table_seq = rt_seq;
    last_connectivity_seq = conn_seq;

    shash_init(&devices);
    netdev_get_devices(class, &devices);
    SHASH_FOR_EACH (node, &devices) {
        struct netdev *netdev = node->data;

        if (ipip_refresh_egress(netdev_ipip_cast(netdev))) {
            netdev_change_seq_changed(netdev);
        }
        netdev_close(netdev);
    }
    shash_destroy(&devices);
}

/* The class's wait function, the counterpart of ipip_run(). */
static void
ipip_wait(const struct netdev_class *class OVS_UNUSED)
{
    if (route_table_get_change_seq() != last_route_table_seq) {
        poll_immediate_wake();
    }
    if (tnl_conf_seq) {
        seq_wait(tnl_conf_seq, last_tnl_conf_seq);
    }
    seq_wait(connectivity_seq_get(), last_connectivity_seq);
}

/* The class's alloc: a zeroed port. */
static struct netdev *
ipip_alloc(void)
{
    struct netdev_ipip *dev = xzalloc(sizeof *dev);

    return &dev->up;
}

/* The class's construct: the default configuration (no remote_ip yet, so
 * that a port is a tunnel for ofproto only once set_config accepted its
 * options) and zeroed counter slots.  Main thread. */
static int
ipip_construct(struct netdev *netdev)
{
    struct netdev_ipip *dev = CONTAINER_OF(netdev, struct netdev_ipip, up);
    int n_cores;

    /* As many slots as the datapath has thread indexes (datapath.c). */
    ovs_numa_init();
    n_cores = ovs_numa_get_n_cores();
    if (n_cores == OVS_CORE_UNSPEC || n_cores <= 0) {
        n_cores = 1;
    }
    dev->n_slots = MAX(n_cores + 1, IPIP_MIN_SLOTS);
    dev->slots = xzalloc_cacheline(dev->n_slots * sizeof *dev->slots);
    for (unsigned int i = 0; i < dev->n_slots; i++) {
        for (int j = 0; j < NETDEV_IPIP_N_COUNTERS; j++) {
            atomic_init(&dev->slots[i].counters[j], 0);
        }
    }

    ovsrcu_set(&dev->state, ipip_state_create_default());
    ovs_mutex_init(&dev->mutex);
    return 0;
}

/* The class's destruct, in whichever thread drops the last reference. */
static void
ipip_destruct(struct netdev *netdev)
{
    struct netdev_ipip *dev = netdev_ipip_cast(netdev);

    /* Nobody can count any more: whoever counts holds a reference. */
    free_cacheline(dev->slots);
    ovsrcu_postpone(free, ovsrcu_get_protected(struct ipip_state *,
                                               &dev->state));
    ovs_mutex_destroy(&dev->mutex);
}

/* The class's dealloc. */
static void
ipip_dealloc(struct netdev *netdev)
{
    free(CONTAINER_OF(netdev, struct netdev_ipip, up));
}

/* Parses 'value', the value of address option 'key' of port 'name', into
 * '*ip' (IPv4), '*ip6' (IPv6) or '*flow', and sets '*family' to AF_INET,
 * AF_INET6 or 0 ("flow" or an error).  On error appends a message to
 * 'errors'. */
static void
ipip_parse_addr(const char *name, const char *key, const char *value,
                ovs_be32 *ip, struct in6_addr *ip6, bool *flow, int *family,
                struct ds *errors)
{
    *ip = 0;
    memset(ip6, 0, sizeof *ip6);
    *flow = false;
    *family = 0;
    if (!strcmp(value, "flow")) {
        *flow = true;
    } else if (ip_parse(value, ip)) {
        *family = AF_INET;
        if (ip_is_multicast(*ip)) {
            ds_put_format(errors, "%s: multicast %s=%s not allowed\n",
                          name, key, value);
        } else if (!*ip || *ip == htonl(INADDR_BROADCAST)) {
            ds_put_format(errors, "%s: bad ipip '%s' (%s is not a unicast "
                          "address)\n", name, key, value);
        }
    } else if (ipv6_parse(value, ip6)) {
        *family = AF_INET6;
        if (ipv6_addr_is_multicast(ip6)) {
            ds_put_format(errors, "%s: multicast %s=%s not allowed\n",
                          name, key, value);
        } else if (!ipv6_addr_is_set(ip6) || IN6_IS_ADDR_V4MAPPED(ip6)) {
            /* An IPv4-mapped address would be taken for IPv4 by ofproto,
             * which keeps IPv4 tunnel addresses mapped. */
            ds_put_format(errors, "%s: bad ipip '%s' (%s is not a unicast "
                          "IPv6 address)\n", name, key, value);
        }
    } else {
        ds_put_format(errors, "%s: bad ipip '%s'\n", name, key);
    }
}

/* Parses a boolean option 'key' of port 'name' into '*b'.  On error appends
 * a message to 'errors'. */
static void
ipip_parse_bool(const char *name, const char *key, const char *value,
                bool *b, struct ds *errors)
{
    if (!strcmp(value, "true")) {
        *b = true;
    } else if (!strcmp(value, "false")) {
        *b = false;
    } else {
        ds_put_format(errors, "%s: invalid %s %s (expected true or false)\n",
                      name, key, value);
    }
}

/* Parses 'args' for port 'name' into 'c', which holds the defaults.  Appends
 * one line per problem to 'errors'. */
static void
ipip_parse_options(const char *name, const struct smap *args,
                   struct netdev_ipip_config *c, struct ds *errors)
{
    /* In the order of the keys, so that the messages come out in an order
     * that does not depend on hashing. */
    const struct smap_node **nodes = smap_sort(args);
    int local_family = 0, remote_family = 0;
    bool has_remote = false;

    for (size_t i = 0; i < smap_count(args); i++) {
        const char *key = nodes[i]->key;
        const char *value = nodes[i]->value;
        unsigned int u;

        if (!strcmp(key, "remote_ip")) {
            has_remote = true;
            ipip_parse_addr(name, key, value, &c->remote_ip,
                            &c->remote_ip6, &c->remote_ip_flow,
                            &remote_family, errors);
        } else if (!strcmp(key, "local_ip")) {
            ipip_parse_addr(name, key, value, &c->local_ip, &c->local_ip6,
                            &c->local_ip_flow, &local_family, errors);
        } else if (!strcmp(key, "tos")) {
            if (!strcmp(value, "inherit")) {
                c->tos_inherit = true;
            } else if (str_to_uint(value, 0, &u) && u <= UINT8_MAX
                       && !(u & IP_ECN_MASK)) {
                /* ofproto always copies ECN from the inner packet into the
                 * outer TOS, so the configured value is a DSCP only, as for
                 * OVS's own tunnels. */
                c->tos = u;
            } else {
                ds_put_format(errors, "%s: invalid TOS %s (expected a DSCP "
                              "value 0..252 with the 2 ECN bits clear, or "
                              "inherit)\n", name, value);
            }
        } else if (!strcmp(key, "ttl")) {
            if (!strcmp(value, "inherit")) {
                c->ttl_inherit = true;
            } else if (str_to_uint(value, 10, &u) && u >= 1
                       && u <= UINT8_MAX) {
                c->ttl = u;
            } else {
                ds_put_format(errors, "%s: invalid TTL %s (expected 1..255 "
                              "or inherit)\n", name, value);
            }
        } else if (!strcmp(key, "df_default")) {
            ipip_parse_bool(name, key, value, &c->df_default, errors);
        } else if (!strcmp(key, "gro")) {
            ipip_parse_bool(name, key, value, &c->gro, errors);
        } else {
            ds_put_format(errors, "%s: unknown ipip argument '%s'\n",
                          name, key);
        }
    }
    free(nodes);

    if (!has_remote) {
        ds_put_format(errors,
                      "%s: ipip type requires valid 'remote_ip' argument\n",
                      name);
    } else if (c->local_ip_flow && !c->remote_ip_flow) {
        ds_put_format(errors, "%s: ipip type requires 'remote_ip=flow' "
                      "with 'local_ip=flow'\n", name);
    } else if (local_family && remote_family
               && local_family != remote_family) {
        /* Linux's ip6tnl and sit devices take one family each; a tunnel
         * whose two ends differ in family has no outer header. */
        ds_put_format(errors, "%s: ipip 'local_ip' and 'remote_ip' must be "
                      "of one address family, IPv4 or IPv6\n", name);
    }
    /* With remote_ip=flow, a fixed local_ip still says the family. */
    c->ipv6 = (remote_family ? remote_family : local_family) == AF_INET6;
}

/* The class's set_config.  All or nothing: on any problem the port keeps its
 * previous configuration, and every problem goes, one per line, to '*errp'
 * (and the log). */
static int
ipip_set_config(struct netdev *netdev, const struct smap *args, char **errp)
{
    struct netdev_ipip *dev = netdev_ipip_cast(netdev);
    struct ipip_state *new = ipip_state_create_default();
    struct ds errors = DS_EMPTY_INITIALIZER;
    struct ipip_state *old;

    ipip_parse_options(netdev_get_name(netdev), args, &new->ipip, &errors);
    if (errors.length) {
        ds_chomp(&errors, '\n');
        VLOG_WARN("%s", ds_cstr(&errors));
        *errp = ds_steal_cstr(&errors);
        free(new);
        return EINVAL;
    }
    ds_destroy(&errors);

    ipip_state_fill_tnl(new);
    old = ovsrcu_get_protected(struct ipip_state *, &dev->state);
    if (!memcmp(old, new, sizeof *new)) {
        /* The bridge sets the same options at every reconfiguration. */
        free(new);
        return 0;
    }
    ovsrcu_set(&dev->state, new);
    ovsrcu_postpone(free, old);
    ipip_refresh_egress(dev);
    netdev_change_seq_changed(netdev);
    return 0;
}

/* Adds 'ip' (or 'ip6') or "flow" as option 'key' to 'args', if set. */
static void
ipip_put_addr(struct smap *args, const char *key, ovs_be32 ip,
              const struct in6_addr *ip6, bool flow)
{
    if (flow) {
        smap_add(args, key, "flow");
    } else if (ip) {
        smap_add_format(args, key, IP_FMT, IP_ARGS(ip));
    } else if (ipv6_addr_is_set(ip6)) {
        char buf[INET6_ADDRSTRLEN];

        smap_add(args, key, inet_ntop(AF_INET6, ip6, buf, sizeof buf));
    }
}

/* The class's get_config: the options that differ from the defaults, in the
 * form set_config accepts, as OVS's tunnel vports report them. */
static int
ipip_get_config(const struct netdev *netdev, struct smap *args)
{
    const struct netdev_ipip_config *c = netdev_ipip_get_config(netdev);

    ipip_put_addr(args, "remote_ip", c->remote_ip, &c->remote_ip6,
                  c->remote_ip_flow);
    ipip_put_addr(args, "local_ip", c->local_ip, &c->local_ip6,
                  c->local_ip_flow);
    if (c->ttl_inherit) {
        smap_add(args, "ttl", "inherit");
    } else if (c->ttl != IPIP_DEFAULT_TTL) {
        smap_add_format(args, "ttl", "%"PRIu8, c->ttl);
    }
    if (c->tos_inherit) {
        smap_add(args, "tos", "inherit");
    } else if (c->tos) {
        smap_add_format(args, "tos", "0x%"PRIx8, c->tos);
    }
    if (!c->df_default) {
        smap_add(args, "df_default", "false");
    }
    if (!c->gro) {
        smap_add(args, "gro", "false");
    }
    return 0;
}

/* The class's get_tunnel_config, through which ofproto treats the port as a
 * tunnel.  The result stays valid until the caller quiesces. */
static const struct netdev_tunnel_config *
ipip_get_tunnel_config(const struct netdev *netdev)
{
    return &ipip_get_state(netdev_ipip_cast(netdev))->tnl;
}

/* The class's get_pt_mode: ipip carries IP packets without an Ethernet
 * header, so ofproto pops one on output and pushes one on input. */
static enum netdev_pt_mode
ipip_get_pt_mode(const struct netdev *netdev OVS_UNUSED)
{
    return NETDEV_PT_LEGACY_L3;
}

/* The class's get_status: the egress interface of the route to remote_ip
 * and its carrier, as OVS's tunnel vports report them. */
static int
ipip_get_status(const struct netdev *netdev, struct smap *smap)
{
    struct netdev_ipip *dev = netdev_ipip_cast(netdev);

    ovs_mutex_lock(&dev->mutex);
    if (dev->egress_iface[0]) {
        smap_add(smap, "tunnel_egress_iface", dev->egress_iface);
        smap_add(smap, "tunnel_egress_iface_carrier",
                 dev->egress_carrier ? "up" : "down");
    }
    ovs_mutex_unlock(&dev->mutex);
    return 0;
}

/* The class's get_stats: the sum of every thread's slot.  A slot may be
 * written meanwhile, so the sums are a moment's view, not a snapshot.  A
 * port of the kernel datapath counts nothing here: the module's ovs_ipip
 * device of the same name does, so its counters are the port's. */
static int
ipip_get_stats(const struct netdev *netdev, struct netdev_stats *stats)
{
    struct netdev_ipip *dev = netdev_ipip_cast(netdev);
    uint64_t sum[NETDEV_IPIP_N_COUNTERS] = { 0 };
    const char *dpif_type = netdev_get_dpif_type(netdev);

    if (dpif_type && !strcmp(dpif_type, "system")) {
        return kernel_ipip_get_device_stats(netdev_get_name(netdev), stats);
    }

    for (unsigned int i = 0; i < dev->n_slots; i++) {
        for (int j = 0; j < NETDEV_IPIP_N_COUNTERS; j++) {
            uint64_t value;

            atomic_read_relaxed(&dev->slots[i].counters[j], &value);
            sum[j] += value;
        }
    }
    stats->rx_packets = sum[NETDEV_IPIP_RX_PACKETS];
    stats->rx_bytes = sum[NETDEV_IPIP_RX_BYTES];
    stats->rx_errors = sum[NETDEV_IPIP_RX_ERRORS];
    stats->rx_dropped = sum[NETDEV_IPIP_RX_DROPPED];
    stats->tx_packets = sum[NETDEV_IPIP_TX_PACKETS];
    stats->tx_bytes = sum[NETDEV_IPIP_TX_BYTES];
    stats->tx_errors = sum[NETDEV_IPIP_TX_ERRORS];
    stats->tx_dropped = sum[NETDEV_IPIP_TX_DROPPED];
    return 0;
}

/* A layer-3 device has no Ethernet address.  The bridge and ofproto take
 * this error quietly (no MAC in Interface.mac_in_use, none offered for the
 * bridge's own address); only STP, RSTP, LACP and CFM would need one, and
 * none of them runs on a tunnel. */
static int
ipip_get_etheraddr(const struct netdev *netdev OVS_UNUSED,
                   struct eth_addr *mac OVS_UNUSED)
{
    return EOPNOTSUPP;
}

/* The class's set_etheraddr: there is no Ethernet address to set. */
static int
ipip_set_etheraddr(struct netdev *netdev OVS_UNUSED,
                   const struct eth_addr mac OVS_UNUSED)
{
    return EOPNOTSUPP;
}

/* The port is always up and, since the datapath takes every packet for it,
 * promiscuous, as OVS's vports say; neither can be turned off. */
static int
ipip_update_flags(struct netdev *netdev OVS_UNUSED,
                  enum netdev_flags off, enum netdev_flags on OVS_UNUSED,
                  enum netdev_flags *old_flagsp)
{
    if (off & (NETDEV_UP | NETDEV_PROMISC)) {
        return EOPNOTSUPP;
    }
    *old_flagsp = NETDEV_UP | NETDEV_PROMISC;
    return 0;
}

/* No rxq or send: the datapath moves the port's packets itself.  No
 * get_ifindex either, as for OVS's vports in a userspace datapath. */
static const struct netdev_class ipip_class = {
    .type = "ipip",
    .is_pmd = false,
    .run = ipip_run,
    .wait = ipip_wait,
    .alloc = ipip_alloc,
    .construct = ipip_construct,
    .destruct = ipip_destruct,
    .dealloc = ipip_dealloc,
    .get_config = ipip_get_config,
    .set_config = ipip_set_config,
    .get_tunnel_config = ipip_get_tunnel_config,
    .get_pt_mode = ipip_get_pt_mode,
    .get_status = ipip_get_status,
    .get_stats = ipip_get_stats,
    .set_etheraddr = ipip_set_etheraddr,
    .get_etheraddr = ipip_get_etheraddr,
    .update_flags = ipip_update_flags,
};

void
netdev_ipip_register(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (ovsthread_once_start(&once)) {
        netdev_register_provider(&ipip_class);
        ovsthread_once_done(&once);
    }
}

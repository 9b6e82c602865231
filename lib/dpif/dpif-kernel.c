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

/* Our "system" dpif class: dpif-netlink plus ports of type "ipip". */

#include <config.h>
#include "dpif-kernel.h"

#include <errno.h>
#include <string.h>

#include "dpif-provider.h"
#include "kernel-ipip.h"
#include "netdev-ipip.h"
#include "netdev-provider.h"
#include "netdev.h"
#include "openvswitch/shash.h"
#include "openvswitch/thread.h"
#include "openvswitch/vlog.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dpif_kernel);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* An ipip port this dpif knows of, and what its device was last given. */
struct kernel_ipip_port {
    struct kernel_ipip_attrs attrs;     /* As last applied. */
    bool applied;                       /* False: 'attrs' unknown (a device
                                         * found, not created, by us). */
};

/* One of our dpifs: a dpif-netlink dpif, wrapped. */
struct dpif_kernel {
    struct dpif up;             /* Must be first.  Class dpif_kernel_class. */
    struct dpif *inner;         /* dpif-netlink's, of &dpif_netlink_class;
                                 * owned. */

    /* The ipip ports added or seen through this dpif, by name: struct
     * kernel_ipip_port.  Written by port_add, port_del and port dumps and
     * read by run, which may run in different threads. */
    struct ovs_mutex mutex;
    struct shash ipip_ports OVS_GUARDED;
};

static const struct dpif_class dpif_kernel_class;

/* The netdev class that a Linux device added to dpif-netlink pretends to
 * be (see add_ipip_vport()): only its type is read. */
static const struct netdev_class system_type_class = {
    .type = "system",
};

static struct dpif_kernel *
dpif_kernel_cast(const struct dpif *dpif)
{
    dpif_assert_class(dpif, &dpif_kernel_class);
    return CONTAINER_OF(dpif, struct dpif_kernel, up);
}

/* The dpif-netlink dpif that 'dpif' wraps. */
static struct dpif *
inner(const struct dpif *dpif)
{
    return dpif_kernel_cast(dpif)->inner;
}

/* The functions of dpif-netlink that the wrappers below call. */
#define NL (&dpif_netlink_class)

static int
dpif_kernel_enumerate(struct sset *all_dps,
                      const struct dpif_class *class OVS_UNUSED)
{
    return NL->enumerate(all_dps, NL);
}

static int
dpif_kernel_open(const struct dpif_class *class, const char *name,
                 bool create, struct dpif **dpifp)
{
    struct dpif_kernel *dpif;
    struct dpif *in;
    int error;

    error = NL->open(NL, name, create, &in);
    if (error) {
        return error;
    }
    dpif = xzalloc(sizeof *dpif);
    dpif_init(&dpif->up, class, in->base_name, in->netflow_engine_type,
              in->netflow_engine_id);
    dpif->inner = in;
    ovs_mutex_init(&dpif->mutex);
    shash_init(&dpif->ipip_ports);
    *dpifp = &dpif->up;
    return 0;
}

static void
dpif_kernel_close(struct dpif *dpif_)
{
    struct dpif_kernel *dpif = dpif_kernel_cast(dpif_);

    dpif_uninit(dpif->inner, true);
    ovs_mutex_lock(&dpif->mutex);
    shash_destroy_free_data(&dpif->ipip_ports);
    ovs_mutex_unlock(&dpif->mutex);
    ovs_mutex_destroy(&dpif->mutex);
    free(dpif);
}

static int
dpif_kernel_destroy(struct dpif *dpif)
{
    return NL->destroy(inner(dpif));
}

/* Records that ipip port 'name' has a device, with 'attrs' if not NULL
 * (else unknown, to be applied by the next run). */
static void
track_ipip_port(struct dpif_kernel *dpif, const char *name,
                const struct kernel_ipip_attrs *attrs)
    OVS_EXCLUDED(dpif->mutex)
{
    struct kernel_ipip_port *port;

    ovs_mutex_lock(&dpif->mutex);
    port = shash_find_data(&dpif->ipip_ports, name);
    if (!port) {
        port = xzalloc(sizeof *port);
        shash_add(&dpif->ipip_ports, name, port);
    }
    if (attrs) {
        port->attrs = *attrs;
        port->applied = true;
    }
    ovs_mutex_unlock(&dpif->mutex);
}

static void
untrack_ipip_port(struct dpif_kernel *dpif, const char *name)
    OVS_EXCLUDED(dpif->mutex)
{
    ovs_mutex_lock(&dpif->mutex);
    free(shash_find_and_delete(&dpif->ipip_ports, name));
    ovs_mutex_unlock(&dpif->mutex);
}

/* Gives each tracked ipip port's device the port's current options, where
 * they changed.  Main thread (it reads netdevs' configuration). */
static void
sync_ipip_ports(struct dpif_kernel *dpif)
    OVS_EXCLUDED(dpif->mutex)
{
    struct shash_node *node;

    ovs_mutex_lock(&dpif->mutex);
    SHASH_FOR_EACH (node, &dpif->ipip_ports) {
        struct kernel_ipip_port *port = node->data;
        struct kernel_ipip_attrs attrs;
        struct netdev *netdev;
        int error;

        netdev = netdev_from_name(node->name);
        if (!netdev) {
            continue;
        }
        if (netdev_is_ipip(netdev) && netdev_ipip_get_config(netdev)->ipv6) {
            /* Reconfigured to IPv6 addresses, which the device does not
             * carry: it keeps its IPv4 ones rather than take any. */
            VLOG_WARN_RL(&rl, "%s: ipip over IPv6 is carried by the "
                         "userspace datapath only; the kernel's device keeps "
                         "its previous options", node->name);
        } else if (netdev_is_ipip(netdev)) {
            kernel_ipip_attrs_from_config(netdev_ipip_get_config(netdev),
                                          &attrs);
            if (!port->applied || memcmp(&attrs, &port->attrs, sizeof attrs)) {
                error = kernel_ipip_change(node->name, &attrs);
                if (error) {
                    VLOG_WARN_RL(&rl, "%s: could not apply the ipip options "
                                 "to the kernel's device (%s)", node->name,
                                 ovs_strerror(error));
                }
                /* Not retried until the options change again. */
                port->attrs = attrs;
                port->applied = true;
            }
        }
        netdev_close(netdev);
    }
    ovs_mutex_unlock(&dpif->mutex);
}

static bool
dpif_kernel_run(struct dpif *dpif)
{
    sync_ipip_ports(dpif_kernel_cast(dpif));
    return NL->run(inner(dpif));
}

static int
dpif_kernel_get_stats(const struct dpif *dpif, struct dpif_dp_stats *stats)
{
    return NL->get_stats(inner(dpif), stats);
}

static int
dpif_kernel_set_features(struct dpif *dpif, uint32_t features)
{
    return NL->set_features(inner(dpif), features);
}

/* Adds the existing Linux device 'name' to 'in' as dpif-netlink adds a
 * "system" port: OVS_VPORT_TYPE_NETDEV, with upcall PIDs as the dispatch
 * mode wants.  dpif-netlink takes the vport type from the netdev's type
 * and reads nothing else of it but its name, so a netdev of type "system"
 * with that name stands in for the "ipip" one. */
static int
add_ipip_vport(struct dpif *in, const char *name, odp_port_t *port_nop)
{
    struct netdev stand_in;

    memset(&stand_in, 0, sizeof stand_in);
    stand_in.name = CONST_CAST(char *, name);
    stand_in.netdev_class = &system_type_class;
    return NL->port_add(in, &stand_in, port_nop);
}

/* port_add for a netdev of type "ipip": the kernel device, then the
 * vport. */
static int
port_add_ipip(struct dpif_kernel *dpif, struct netdev *netdev,
              odp_port_t *port_nop)
{
    const char *name = netdev_get_name(netdev);
    const struct netdev_ipip_config *c = netdev_ipip_get_config(netdev);
    struct kernel_ipip_attrs attrs;
    bool created = false;
    int error;

    if (c->ipv6) {
        /* The module's ovs_ipip device carries IPv4 outer headers only. */
        VLOG_WARN_RL(&rl, "%s: ipip over IPv6 is carried by the userspace "
                     "datapath only", name);
        return EOPNOTSUPP;
    }
    if (!c->remote_ip && !c->remote_ip_flow) {
        /* The netdev refused its options: bridge.c does not add it then,
         * but ofproto could be asked directly. */
        VLOG_WARN_RL(&rl, "%s: ipip port without a valid remote_ip", name);
        return EINVAL;
    }
    kernel_ipip_attrs_from_config(c, &attrs);
    error = kernel_ipip_create(name, &attrs);
    if (!error) {
        created = true;
    } else if (error == EEXIST && kernel_ipip_is_ours(name)) {
        /* Left over (a vswitchd that stopped without deleting its ports):
         * take it, with this port's options. */
        error = kernel_ipip_change(name, &attrs);
    } else if (error == EEXIST) {
        VLOG_WARN_RL(&rl, "%s: cannot create the kernel's ipip device: a "
                     "network device of that name exists, or another "
                     "ovs_ipip device has the same local_ip and remote_ip",
                     name);
        return EEXIST;
    } else if (error == EOPNOTSUPP) {
        VLOG_WARN_RL(&rl, "%s: cannot create the kernel's ipip device: the "
                     "kernel has no link kind \"%s\" (is the ovs_percpu "
                     "module loaded?)", name, OVSP_IPIP_KIND);
        return error;
    }
    if (error) {
        VLOG_WARN_RL(&rl, "%s: cannot create the kernel's ipip device (%s)",
                     name, ovs_strerror(error));
        return error;
    }

    error = add_ipip_vport(dpif->inner, name, port_nop);
    if (error) {
        if (created) {
            int error2 = kernel_ipip_destroy(name);

            if (error2) {
                VLOG_WARN_RL(&rl, "%s: could not delete the kernel's ipip "
                             "device after failing to add it (%s)", name,
                             ovs_strerror(error2));
            }
        }
        return error;
    }
    track_ipip_port(dpif, name, &attrs);
    return 0;
}

static int
dpif_kernel_port_add(struct dpif *dpif_, struct netdev *netdev,
                     odp_port_t *port_nop)
{
    struct dpif_kernel *dpif = dpif_kernel_cast(dpif_);

    if (netdev_is_ipip(netdev)) {
        return port_add_ipip(dpif, netdev, port_nop);
    }
    return NL->port_add(dpif->inner, netdev, port_nop);
}

static int
dpif_kernel_port_del(struct dpif *dpif_, odp_port_t port_no)
{
    struct dpif_kernel *dpif = dpif_kernel_cast(dpif_);
    struct dpif_port port;
    bool ipip;
    int error;

    error = NL->port_query_by_number(dpif->inner, port_no, &port);
    if (error) {
        return error;
    }
    ipip = kernel_ipip_is_ours(port.name);
    error = NL->port_del(dpif->inner, port_no);
    if (!error && ipip) {
        untrack_ipip_port(dpif, port.name);
        error = kernel_ipip_destroy(port.name);
        if (error) {
            VLOG_WARN_RL(&rl, "%s: could not delete the kernel's ipip "
                         "device (%s)", port.name, ovs_strerror(error));
        }
    }
    dpif_port_destroy(&port);
    return error;
}

/* Makes 'port' (just read from dpif-netlink, its type owned if 'owned')
 * say "ipip" if it is a netdev vport of one of our devices. */
static void
fix_port_type(const struct dpif *dpif, struct dpif_port *port, bool owned)
{
    if (!strcmp(port->type, "system") && kernel_ipip_is_ours(port->name)) {
        if (owned) {
            free(port->type);
            port->type = xstrdup("ipip");
        } else {
            port->type = CONST_CAST(char *, "ipip");
        }
        track_ipip_port(dpif_kernel_cast(dpif), port->name, NULL);
    }
}

static int
dpif_kernel_port_query_by_number(const struct dpif *dpif, odp_port_t port_no,
                                 struct dpif_port *port)
{
    int error = NL->port_query_by_number(inner(dpif), port_no, port);

    if (!error && port) {
        fix_port_type(dpif, port, true);
    }
    return error;
}

static int
dpif_kernel_port_query_by_name(const struct dpif *dpif, const char *devname,
                               struct dpif_port *port)
{
    int error = NL->port_query_by_name(inner(dpif), devname, port);

    if (!error && port) {
        fix_port_type(dpif, port, true);
    }
    return error;
}

static uint32_t
dpif_kernel_port_get_pid(const struct dpif *dpif, odp_port_t port_no)
{
    return NL->port_get_pid(inner(dpif), port_no);
}

static int
dpif_kernel_port_dump_start(const struct dpif *dpif, void **statep)
{
    return NL->port_dump_start(inner(dpif), statep);
}

static int
dpif_kernel_port_dump_next(const struct dpif *dpif, void *state,
                           struct dpif_port *port)
{
    int error = NL->port_dump_next(inner(dpif), state, port);

    if (!error) {
        fix_port_type(dpif, port, false);
    }
    return error;
}

static int
dpif_kernel_port_dump_done(const struct dpif *dpif, void *state)
{
    return NL->port_dump_done(inner(dpif), state);
}

static int
dpif_kernel_port_poll(const struct dpif *dpif, char **devnamep)
{
    return NL->port_poll(inner(dpif), devnamep);
}

static void
dpif_kernel_port_poll_wait(const struct dpif *dpif)
{
    NL->port_poll_wait(inner(dpif));
}

static int
dpif_kernel_flow_flush(struct dpif *dpif)
{
    return NL->flow_flush(inner(dpif));
}

/* The dump belongs to dpif-netlink's dpif ('dump->dpif' is the inner one),
 * so dpif.c sends its thread and next calls straight to dpif-netlink. */
static struct dpif_flow_dump *
dpif_kernel_flow_dump_create(const struct dpif *dpif, bool terse,
                             struct dpif_flow_dump_types *types)
{
    return NL->flow_dump_create(inner(dpif), terse, types);
}

static void
dpif_kernel_operate(struct dpif *dpif, struct dpif_op **ops, size_t n_ops,
                    enum dpif_offload_type offload_type)
{
    NL->operate(inner(dpif), ops, n_ops, offload_type);
}

static int
dpif_kernel_recv_set(struct dpif *dpif, bool enable)
{
    return NL->recv_set(inner(dpif), enable);
}

static int
dpif_kernel_handlers_set(struct dpif *dpif, uint32_t n_handlers)
{
    return NL->handlers_set(inner(dpif), n_handlers);
}

static bool
dpif_kernel_number_handlers_required(struct dpif *dpif, uint32_t *n)
{
    return NL->number_handlers_required(inner(dpif), n);
}

static int
dpif_kernel_queue_to_priority(const struct dpif *dpif, uint32_t queue_id,
                              uint32_t *priority)
{
    return NL->queue_to_priority(inner(dpif), queue_id, priority);
}

static int
dpif_kernel_recv(struct dpif *dpif, uint32_t handler_id,
                 struct dpif_upcall *upcall, struct ofpbuf *buf)
{
    return NL->recv(inner(dpif), handler_id, upcall, buf);
}

static void
dpif_kernel_recv_wait(struct dpif *dpif, uint32_t handler_id)
{
    NL->recv_wait(inner(dpif), handler_id);
}

static void
dpif_kernel_recv_purge(struct dpif *dpif)
{
    NL->recv_purge(inner(dpif));
}

static char *
dpif_kernel_get_datapath_version(void)
{
    return NL->get_datapath_version();
}

static int
dpif_kernel_ct_dump_start(struct dpif *dpif, struct ct_dpif_dump_state **st,
                          const uint16_t *zone, int *ptot_bkts)
{
    return NL->ct_dump_start(inner(dpif), st, zone, ptot_bkts);
}

static int
dpif_kernel_ct_dump_next(struct dpif *dpif, struct ct_dpif_dump_state *st,
                         struct ct_dpif_entry *entry)
{
    return NL->ct_dump_next(inner(dpif), st, entry);
}

static int
dpif_kernel_ct_dump_done(struct dpif *dpif, struct ct_dpif_dump_state *st)
{
    return NL->ct_dump_done(inner(dpif), st);
}

static int
dpif_kernel_ct_flush(struct dpif *dpif, const uint16_t *zone,
                     const struct ct_dpif_tuple *tuple)
{
    return NL->ct_flush(inner(dpif), zone, tuple);
}

static int
dpif_kernel_ct_set_limits(struct dpif *dpif, const uint32_t *default_limit,
                          const struct ovs_list *zone_limits)
{
    return NL->ct_set_limits(inner(dpif), default_limit, zone_limits);
}

static int
dpif_kernel_ct_get_limits(struct dpif *dpif, uint32_t *default_limit,
                          const struct ovs_list *in, struct ovs_list *out)
{
    return NL->ct_get_limits(inner(dpif), default_limit, in, out);
}

static int
dpif_kernel_ct_del_limits(struct dpif *dpif,
                          const struct ovs_list *zone_limits)
{
    return NL->ct_del_limits(inner(dpif), zone_limits);
}

static int
dpif_kernel_ct_set_timeout_policy(struct dpif *dpif,
                                  const struct ct_dpif_timeout_policy *tp)
{
    return NL->ct_set_timeout_policy(inner(dpif), tp);
}

static int
dpif_kernel_ct_get_timeout_policy(struct dpif *dpif, uint32_t tp_id,
                                  struct ct_dpif_timeout_policy *tp)
{
    return NL->ct_get_timeout_policy(inner(dpif), tp_id, tp);
}

static int
dpif_kernel_ct_del_timeout_policy(struct dpif *dpif, uint32_t tp_id)
{
    return NL->ct_del_timeout_policy(inner(dpif), tp_id);
}

static int
dpif_kernel_ct_timeout_policy_dump_start(struct dpif *dpif, void **statep)
{
    return NL->ct_timeout_policy_dump_start(inner(dpif), statep);
}

static int
dpif_kernel_ct_timeout_policy_dump_next(struct dpif *dpif, void *state,
                                        struct ct_dpif_timeout_policy *tp)
{
    return NL->ct_timeout_policy_dump_next(inner(dpif), state, tp);
}

static int
dpif_kernel_ct_timeout_policy_dump_done(struct dpif *dpif, void *state)
{
    return NL->ct_timeout_policy_dump_done(inner(dpif), state);
}

static int
dpif_kernel_ct_get_timeout_policy_name(struct dpif *dpif, uint32_t tp_id,
                                       uint16_t dl_type, uint8_t nw_proto,
                                       char **tp_name, bool *is_generic)
{
    return NL->ct_get_timeout_policy_name(inner(dpif), tp_id, dl_type,
                                          nw_proto, tp_name, is_generic);
}

static int
dpif_kernel_ct_get_features(struct dpif *dpif, enum ct_features *features)
{
    return NL->ct_get_features(inner(dpif), features);
}

static void
dpif_kernel_meter_get_features(const struct dpif *dpif,
                               struct ofputil_meter_features *features)
{
    NL->meter_get_features(inner(dpif), features);
}

static int
dpif_kernel_meter_set(struct dpif *dpif, ofproto_meter_id meter_id,
                      struct ofputil_meter_config *config)
{
    return NL->meter_set(inner(dpif), meter_id, config);
}

static int
dpif_kernel_meter_get(const struct dpif *dpif, ofproto_meter_id meter_id,
                      struct ofputil_meter_stats *stats, uint16_t n_bands)
{
    return NL->meter_get(inner(dpif), meter_id, stats, n_bands);
}

static int
dpif_kernel_meter_del(struct dpif *dpif, ofproto_meter_id meter_id,
                      struct ofputil_meter_stats *stats, uint16_t n_bands)
{
    return NL->meter_del(inner(dpif), meter_id, stats, n_bands);
}

static int
dpif_kernel_cache_get_supported_levels(struct dpif *dpif, uint32_t *levels)
{
    return NL->cache_get_supported_levels(inner(dpif), levels);
}

static int
dpif_kernel_cache_get_name(struct dpif *dpif, uint32_t level,
                           const char **name)
{
    return NL->cache_get_name(inner(dpif), level, name);
}

static int
dpif_kernel_cache_get_size(struct dpif *dpif, uint32_t level, uint32_t *size)
{
    return NL->cache_get_size(inner(dpif), level, size);
}

static int
dpif_kernel_cache_set_size(struct dpif *dpif, uint32_t level, uint32_t size)
{
    return NL->cache_set_size(inner(dpif), level, size);
}

/* The dump's own calls: dpif.c makes them through 'dump->dpif', the inner
 * dpif, so they reach dpif-netlink without these; they forward all the
 * same, should anything call them through our class. */
static int
dpif_kernel_flow_dump_destroy(struct dpif_flow_dump *dump)
{
    return NL->flow_dump_destroy(dump);
}

static struct dpif_flow_dump_thread *
dpif_kernel_flow_dump_thread_create(struct dpif_flow_dump *dump)
{
    return NL->flow_dump_thread_create(dump);
}

static void
dpif_kernel_flow_dump_thread_destroy(struct dpif_flow_dump_thread *thread)
{
    NL->flow_dump_thread_destroy(thread);
}

static int
dpif_kernel_flow_dump_next(struct dpif_flow_dump_thread *thread,
                           struct dpif_flow *flows, int max_flows)
{
    return NL->flow_dump_next(thread, flows, max_flows);
}

/* dpif_netlink_class's members one for one: a member it leaves NULL stays
 * NULL here. */
static const struct dpif_class dpif_kernel_class = {
    .type = "system",
    .cleanup_required = false,
    .enumerate = dpif_kernel_enumerate,
    .open = dpif_kernel_open,
    .close = dpif_kernel_close,
    .destroy = dpif_kernel_destroy,
    .run = dpif_kernel_run,
    .get_stats = dpif_kernel_get_stats,
    .set_features = dpif_kernel_set_features,
    .port_add = dpif_kernel_port_add,
    .port_del = dpif_kernel_port_del,
    .port_query_by_number = dpif_kernel_port_query_by_number,
    .port_query_by_name = dpif_kernel_port_query_by_name,
    .port_get_pid = dpif_kernel_port_get_pid,
    .port_dump_start = dpif_kernel_port_dump_start,
    .port_dump_next = dpif_kernel_port_dump_next,
    .port_dump_done = dpif_kernel_port_dump_done,
    .port_poll = dpif_kernel_port_poll,
    .port_poll_wait = dpif_kernel_port_poll_wait,
    .flow_flush = dpif_kernel_flow_flush,
    .flow_dump_create = dpif_kernel_flow_dump_create,
    .flow_dump_destroy = dpif_kernel_flow_dump_destroy,
    .flow_dump_thread_create = dpif_kernel_flow_dump_thread_create,
    .flow_dump_thread_destroy = dpif_kernel_flow_dump_thread_destroy,
    .flow_dump_next = dpif_kernel_flow_dump_next,
    .operate = dpif_kernel_operate,
    .recv_set = dpif_kernel_recv_set,
    .handlers_set = dpif_kernel_handlers_set,
    .number_handlers_required = dpif_kernel_number_handlers_required,
    .queue_to_priority = dpif_kernel_queue_to_priority,
    .recv = dpif_kernel_recv,
    .recv_wait = dpif_kernel_recv_wait,
    .recv_purge = dpif_kernel_recv_purge,
    .get_datapath_version = dpif_kernel_get_datapath_version,
    .ct_dump_start = dpif_kernel_ct_dump_start,
    .ct_dump_next = dpif_kernel_ct_dump_next,
    .ct_dump_done = dpif_kernel_ct_dump_done,
    .ct_flush = dpif_kernel_ct_flush,
    .ct_set_limits = dpif_kernel_ct_set_limits,
    .ct_get_limits = dpif_kernel_ct_get_limits,
    .ct_del_limits = dpif_kernel_ct_del_limits,
    .ct_set_timeout_policy = dpif_kernel_ct_set_timeout_policy,
    .ct_get_timeout_policy = dpif_kernel_ct_get_timeout_policy,
    .ct_del_timeout_policy = dpif_kernel_ct_del_timeout_policy,
    .ct_timeout_policy_dump_start = dpif_kernel_ct_timeout_policy_dump_start,
    .ct_timeout_policy_dump_next = dpif_kernel_ct_timeout_policy_dump_next,
    .ct_timeout_policy_dump_done = dpif_kernel_ct_timeout_policy_dump_done,
    .ct_get_timeout_policy_name = dpif_kernel_ct_get_timeout_policy_name,
    .ct_get_features = dpif_kernel_ct_get_features,
    .meter_get_features = dpif_kernel_meter_get_features,
    .meter_set = dpif_kernel_meter_set,
    .meter_get = dpif_kernel_meter_get,
    .meter_del = dpif_kernel_meter_del,
    .cache_get_supported_levels = dpif_kernel_cache_get_supported_levels,
    .cache_get_name = dpif_kernel_cache_get_name,
    .cache_get_size = dpif_kernel_cache_get_size,
    .cache_set_size = dpif_kernel_cache_set_size,
};

int
dpif_kernel_register(void)
{
    int error = dp_register_provider(&dpif_kernel_class);

    if (!error) {
        dp_disallow_provider("system");
    }
    return error;
}

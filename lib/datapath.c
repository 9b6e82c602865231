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

/* One userspace datapath instance: its ports, threads and reconfiguration. */

#include <config.h>
#include "datapath.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "dp-conntrack.h"
#include "dp-gso.h"
#include "dp-ipf.h"
#include "dp-meter.h"
#include "dp-port.h"
#include "dpif-provider.h"
#include "odp-util.h"
#include "ofproto/ofproto.h"
#include "dpif-netdev.h"
#include "flow-stats.h"
#include "flow-table.h"
#include "netdev.h"
#include "netdev-ipip.h"
#include "openvswitch/vlog.h"
#include "ovs-numa.h"
#include "ovs-rcu.h"
#include "pmd.h"
#include "pmd-alb.h"
#include "seq.h"
#include "openvswitch/shash.h"
#include "smap.h"
#include "sset.h"
#include "thread-counters.h"
#include "tunnel-neigh.h"
#include "tunnel-neigh-queue.h"
#include "tunnel-nexthop.h"
#include "util.h"
#include "vport-tunnel.h"

VLOG_DEFINE_THIS_MODULE(datapath);

static void datapath_reconfigure(struct datapath *dp)
    OVS_REQUIRES(dp->reconfig_mutex);

static uint32_t
hash_port_no(odp_port_t port_no)
{
    return hash_int(odp_to_u32(port_no), 0);
}

/* The hash of 'name' in 'ports_by_name'. */
static uint32_t
hash_port_name(const char *name)
{
    return hash_string(name, 0);
}

/* Creates datapath 'name' of 'class', with its local port (ODPP_LOCAL) of
 * type 'local_port_type'. */
int
datapath_create(const char *name, const struct dpif_class *class,
                const char *local_port_type, struct datapath **dpp)
{
    struct datapath *dp = xzalloc(sizeof *dp);
    int n_cores;
    int error;

    ovs_numa_init();
    n_cores = ovs_numa_get_n_cores();
    if (n_cores == OVS_CORE_UNSPEC || n_cores <= 0) {
        n_cores = 1;
    }

    dp->class = class;
    dp->name = xstrdup(name);
    ovs_refcount_init(&dp->ref_cnt);
    atomic_flag_clear(&dp->destroyed);
    ovs_mutex_init(&dp->reconfig_mutex);
    cmap_init(&dp->ports);
    cmap_init(&dp->ports_by_name);
    dp->port_seq = seq_create();

    /* One slot per possible PMD thread, plus the non-PMD context. */
    dp->n_thread_slots = n_cores + 1;
    dp->table = flow_table_create(dp->n_thread_slots);
    dp->meters = dp_meter_table_create(dp->n_thread_slots);

    fat_rwlock_init(&dp->upcall_rwlock);
    for (size_t i = 0; i < DP_UPCALL_LOCKS; i++) {
        ovs_mutex_init_adaptive(&dp->upcall_locks[i]);
    }

    dp->threads = xcalloc(dp->n_thread_slots, sizeof *dp->threads);
    ovs_mutex_init_recursive(&dp->non_pmd_mutex);
    ovsthread_key_create(&dp->self_key, NULL);
    ovsrcu_set(&dp->threads[0], pmd_thread_create_non_pmd(dp));

    ovs_mutex_lock(&dp->reconfig_mutex);
    dp->flow_limit = flow_table_set_max(dp->table,
                                        OFPROTO_FLOW_LIMIT_DEFAULT);
    dp->max_sleep_us = PMD_DEFAULT_MAX_SLEEP_US;
    dp->emc_insert_inv_prob = DEFAULT_EMC_INSERT_INV_PROB;
    pmd_sched_config_init(&dp->sched);
    dp->alb = pmd_alb_create(dp->n_thread_slots);
    ovs_mutex_unlock(&dp->reconfig_mutex);
    dp_ipf_init(dp);
    dp->tunnel = vport_tunnel_table_create(dp->n_thread_slots);
    dp->tunnel_neigh = tunnel_neigh_create(dp->n_thread_slots);
    dp->tunnel_nexthops = tunnel_nexthops_create(dp->n_thread_slots);
    dp->tunnel_neigh_queues = tunnel_neigh_queues_create(dp->n_thread_slots);
    dp->conntrack = dp_conntrack_create(dp->n_thread_slots);
    dp->gso = dp_gso_create(dp->n_thread_slots);
    atomic_init(&dp->emc_insert_min,
                UINT32_MAX / DEFAULT_EMC_INSERT_INV_PROB);

    /* Upcalls start disabled, from before the first port.  Not earlier: a
     * fat_rwlock's write lock holds the lock's internal mutex until it is
     * unlocked, and an exiting thread takes that mutex (to drop its slot)
     * while holding OVS's thread-key mutex, so creating a thread key
     * (ovsthread_key_create() above, and the threads conntrack starts)
     * with the write lock held would take the two mutexes in both orders
     * (a lock-order inversion ThreadSanitizer found). */
    datapath_disable_upcalls(dp);

    dp->reconfigure_seq = seq_create();
    dp->last_reconfigure_seq = seq_read(dp->reconfigure_seq);

    odp_port_t local = ODPP_LOCAL;
    error = datapath_add_port(dp, name, local_port_type, &local);
    if (error) {
        datapath_free(dp);
        return error;
    }
    *dpp = dp;
    return 0;
}

/* Upcalls are disabled while the main thread holds 'upcall_rwlock' for
 * writing, from one of these calls to the next.  The thread-safety analysis
 * cannot follow a lock held across calls, and not taken or released at
 * all when 'upcalls_disabled' already says so: hence
 * OVS_NO_THREAD_SAFETY_ANALYSIS on the two functions that hold that
 * knowledge, and nowhere else. */
void
datapath_disable_upcalls(struct datapath *dp)
    OVS_NO_THREAD_SAFETY_ANALYSIS
{
    if (!dp->upcalls_disabled) {
        fat_rwlock_wrlock(&dp->upcall_rwlock);
        dp->upcalls_disabled = true;
    }
}

void
datapath_enable_upcalls(struct datapath *dp)
    OVS_NO_THREAD_SAFETY_ANALYSIS
{
    if (dp->upcalls_disabled) {
        dp->upcalls_disabled = false;
        fat_rwlock_unlock(&dp->upcall_rwlock);
    }
}

/* All datapaths, by name.  Only the main thread creates and frees them. */
static struct ovs_mutex datapaths_mutex = OVS_MUTEX_INITIALIZER;
static struct shash datapaths OVS_GUARDED_BY(datapaths_mutex)
    = SHASH_INITIALIZER(&datapaths);

/* Returns the datapath called 'name', or if 'name' is NULL the only
 * datapath if there is one, or NULL.  For the main thread, which is the
 * only one that frees datapaths. */
struct datapath *
datapath_find(const char *name)
    OVS_EXCLUDED(datapaths_mutex)
{
    struct datapath *dp;

    ovs_mutex_lock(&datapaths_mutex);
    if (name) {
        dp = shash_find_data(&datapaths, name);
    } else {
        dp = shash_count(&datapaths) == 1 ? shash_first(&datapaths)->data
                                          : NULL;
    }
    ovs_mutex_unlock(&datapaths_mutex);
    return dp;
}

/* Adds to 'names' the name of every datapath of 'class'. */
void
datapath_enumerate(const struct dpif_class *class, struct sset *names)
    OVS_EXCLUDED(datapaths_mutex)
{
    struct shash_node *node;

    ovs_mutex_lock(&datapaths_mutex);
    SHASH_FOR_EACH (node, &datapaths) {
        struct datapath *dp = node->data;

        if (dp->class == class) {
            sset_add(names, node->name);
        }
    }
    ovs_mutex_unlock(&datapaths_mutex);
}

/* Takes a reference to the datapath called 'name' of 'class' and stores it
 * in '*dpp'.  If there is none and '*new_dp' is nonnull, that one (a new
 * datapath called 'name') is listed and taken, and '*new_dp' set to NULL;
 * the caller frees a '*new_dp' left.  Returns 0, ENODEV if there is no
 * such datapath, EINVAL if it is of another class, EEXIST if 'create'
 * asked for a new one and it existed. */
int
datapath_ref(const char *name, const struct dpif_class *class, bool create,
             struct datapath **new_dp, struct datapath **dpp)
    OVS_EXCLUDED(datapaths_mutex)
{
    struct datapath *dp;
    int error;

    ovs_mutex_lock(&datapaths_mutex);
    dp = shash_find_data(&datapaths, name);
    if (!dp && *new_dp) {
        dp = *new_dp;
        *new_dp = NULL;
        shash_add(&datapaths, name, dp);
        error = 0;
    } else if (!dp) {
        error = ENODEV;
    } else {
        error = dp->class != class ? EINVAL : create ? EEXIST : 0;
    }
    if (!error) {
        ovs_refcount_ref(&dp->ref_cnt);
        *dpp = dp;
    }
    ovs_mutex_unlock(&datapaths_mutex);
    return error;
}

/* Drops a reference to 'dp', taken by datapath_ref(), and frees it with
 * the last. */
void
datapath_unref(struct datapath *dp)
    OVS_EXCLUDED(datapaths_mutex)
{
    ovs_mutex_lock(&datapaths_mutex);
    if (ovs_refcount_unref(&dp->ref_cnt) == 1) {
        shash_find_and_delete(&datapaths, dp->name);
        ovs_mutex_unlock(&datapaths_mutex);
        datapath_free(dp);
        return;
    }
    ovs_mutex_unlock(&datapaths_mutex);
}

/* Removes 'port' from 'dp''s port maps.  The caller frees it once no thread
 * can reach it. */
static void
unlink_port(struct datapath *dp, struct dp_port *port)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    cmap_remove(&dp->ports, &port->node, hash_port_no(port->port_no));
    cmap_remove(&dp->ports_by_name, &port->name_node,
                hash_port_name(netdev_get_name(port->netdev)));
    tunnel_nexthops_ports_changed(dp->tunnel_nexthops);
    seq_change(dp->port_seq);
}

/* Frees 'dp', whose last dpif is closing: stops its threads, deletes its
 * ports and flows. */
void
datapath_free(struct datapath *dp)
{
    struct dp_port *port;

    if (!dp) {
        return;
    }

    /* A thread that exits drops its slot of 'upcall_rwlock', which it cannot
     * do while this thread holds the lock for writing. */
    datapath_enable_upcalls(dp);

    ovs_mutex_lock(&dp->reconfig_mutex);
    for (size_t i = 1; i < dp->n_thread_slots; i++) {
        struct pmd_thread *t = datapath_thread(dp, i);

        if (t) {
            pmd_thread_stop(t);
            ovsrcu_set(&dp->threads[i], NULL);
            pmd_thread_destroy(t);
        }
    }
    CMAP_FOR_EACH (port, node, &dp->ports) {
        unlink_port(dp, port);
        dp_port_destroy(port);
    }
    vport_tunnel_publish_endpoints(dp);
    free(dp->pmd_cmask);
    free(dp->rejected_cmask);
    pmd_alb_destroy(dp->alb);
    dp->alb = NULL;
    ovs_mutex_unlock(&dp->reconfig_mutex);

    flow_table_destroy(dp->table);
    dp_meter_table_destroy(dp->meters);
    pmd_thread_destroy(datapath_thread(dp, 0));
    dp_ipf_destroy(dp);
    vport_tunnel_table_destroy(dp->tunnel);
    tunnel_neigh_destroy(dp->tunnel_neigh);
    tunnel_nexthops_destroy(dp->tunnel_nexthops);
    tunnel_neigh_queues_destroy(dp->tunnel_neigh_queues);
    dp_conntrack_destroy(dp->conntrack);
    dp_gso_destroy(dp->gso);
    free(dp->threads);
    ovsthread_key_delete(dp->self_key);
    ovs_mutex_destroy(&dp->non_pmd_mutex);
    fat_rwlock_destroy(&dp->upcall_rwlock);
    for (size_t i = 0; i < DP_UPCALL_LOCKS; i++) {
        ovs_mutex_destroy(&dp->upcall_locks[i]);
    }
    cmap_destroy(&dp->ports);
    cmap_destroy(&dp->ports_by_name);
    seq_destroy(dp->port_seq);
    seq_destroy(dp->reconfigure_seq);
    ovs_mutex_destroy(&dp->reconfig_mutex);
    free(dp->name);
    free(dp);
}

/* Returns the port numbered 'port_no', or NULL.  Safe in any thread, under
 * RCU. */
struct dp_port *
datapath_lookup_port(const struct datapath *dp, odp_port_t port_no)
{
    struct dp_port *port;

    CMAP_FOR_EACH_WITH_HASH (port, node, hash_port_no(port_no), &dp->ports) {
        if (port->port_no == port_no) {
            return port;
        }
    }
    return NULL;
}

/* Returns the port whose netdev is named 'name', or NULL: a hash lookup,
 * whatever the number of ports.  Safe in any thread, under RCU. */
struct dp_port *
datapath_find_port_by_name(const struct datapath *dp, const char *name)
{
    struct dp_port *port;

    CMAP_FOR_EACH_WITH_HASH (port, name_node, hash_port_name(name),
                             &dp->ports_by_name) {
        if (!strcmp(netdev_get_name(port->netdev), name)) {
            return port;
        }
    }
    return NULL;
}

/* Picks an unused, non-zero port number for a port named 'name'.
 *
 * For the "dummy" datapath type used by tests, a number in the name is taken
 * as the port number (plus 100 for names starting with "br"), exactly as
 * dpif-netdev does, so that OVS's own tests see the numbers they expect. */
static odp_port_t
choose_port(const struct datapath *dp, const char *name)
{
    if (!strcmp(dp->class->type, "dummy")) {
        uint32_t start_no = !strncmp(name, "br", 2) ? 100 : 0;

        for (const char *p = name; *p; p++) {
            if (isdigit((unsigned char) *p)) {
                uint32_t port_no = start_no + strtol(p, NULL, 10);

                if (port_no > 0 && port_no != odp_to_u32(ODPP_NONE)
                    && !datapath_lookup_port(dp, u32_to_odp(port_no))) {
                    return u32_to_odp(port_no);
                }
                break;
            }
        }
    }

    for (uint32_t port_no = 1; port_no <= UINT16_MAX; port_no++) {
        if (!datapath_lookup_port(dp, u32_to_odp(port_no))) {
            return u32_to_odp(port_no);
        }
    }
    return ODPP_NONE;
}

/* Adds netdev 'name' of 'type' to 'dp'.  If '*port_nop' is ODPP_NONE, picks
 * the number and stores it there; otherwise uses '*port_nop', failing with
 * EBUSY if it is taken. */
int
datapath_add_port(struct datapath *dp, const char *name, const char *type,
                  odp_port_t *port_nop)
{
    struct netdev_saved_flags *sf;
    struct dp_port *port;
    odp_port_t port_no;
    int error;

    ovs_mutex_lock(&dp->reconfig_mutex);
    if (datapath_find_port_by_name(dp, name)) {
        error = EEXIST;
        goto out;
    }
    if (*port_nop != ODPP_NONE) {
        port_no = *port_nop;
        if (datapath_lookup_port(dp, port_no)) {
            error = EBUSY;
            goto out;
        }
    } else {
        port_no = choose_port(dp, name);
        if (port_no == ODPP_NONE) {
            error = EFBIG;
            goto out;
        }
    }

    error = dp_port_create(name, type, port_no, &port);
    if (error) {
        goto out;
    }
    {
        const struct vport_tunnel_ops *ops;

        ops = vport_tunnel_ops_find(port->netdev);
        if (ops) {
            port->tunnel = vport_tunnel_create(port, ops, dp->n_thread_slots);
        }
    }
    /* Nobody polls or sends on the port yet, so it can be set up here. */
    error = dp_port_reconfigure(port, dp->n_thread_slots);
    if (error) {
        dp_port_destroy(port);
        goto out;
    }
    error = netdev_turn_flags_on(port->netdev, NETDEV_PROMISC, &sf);
    if (error) {
        VLOG_ERR("%s: cannot set promisc flag", name);
        dp_port_destroy(port);
        goto out;
    }
    port->sf = sf;

    cmap_insert(&dp->ports, &port->node, hash_port_no(port_no));
    cmap_insert(&dp->ports_by_name, &port->name_node, hash_port_name(name));
    tunnel_nexthops_ports_changed(dp->tunnel_nexthops);
    vport_tunnel_publish_endpoints(dp);
    seq_change(dp->port_seq);
    datapath_reconfigure(dp);
    *port_nop = port_no;

out:
    ovs_mutex_unlock(&dp->reconfig_mutex);
    return error;
}

/* Deletes port 'port_no' from 'dp'.  The local port cannot be deleted. */
int
datapath_del_port(struct datapath *dp, odp_port_t port_no)
{
    struct dp_port *port;
    int error = 0;

    if (port_no == ODPP_LOCAL) {
        return EINVAL;
    }

    ovs_mutex_lock(&dp->reconfig_mutex);
    port = datapath_lookup_port(dp, port_no);
    if (port) {
        unlink_port(dp, port);
        vport_tunnel_publish_endpoints(dp);
        /* Once every thread has reloaded, none can reach 'port', nor the
         * endpoint table that led to it. */
        datapath_reconfigure(dp);
        dp_port_destroy(port);
    } else {
        error = port_no == ODPP_NONE ? EINVAL : ENODEV;
    }
    ovs_mutex_unlock(&dp->reconfig_mutex);
    return error;
}

/* Returns the CPU cores that 'cmask' selects, or every core if 'cmask' is
 * NULL. */
static struct ovs_numa_dump *
pmd_cores_dump(const char *cmask)
{
    if (cmask) {
        return ovs_numa_dump_cores_with_cmask(cmask);
    }
    return ovs_numa_dump_n_cores_per_numa(INT_MAX);
}

/* Checks that 'cmask' is a hexadecimal CPU mask that selects at least one
 * core of this machine.  Returns NULL if so, otherwise an error message the
 * caller must free. */
static char *
validate_pmd_cmask(const char *cmask)
{
    const char *digits = cmask;
    struct ovs_numa_dump *dump;
    size_t n;

    if (!strncasecmp(digits, "0x", 2)) {
        digits += 2;
    }
    if (!*digits || strspn(digits, "0123456789abcdefABCDEF")
                    != strlen(digits)) {
        return xasprintf("\"%s\" is not a hexadecimal CPU mask", cmask);
    }
    dump = ovs_numa_dump_cores_with_cmask(cmask);
    n = ovs_numa_dump_count(dump);
    ovs_numa_dump_destroy(dump);
    if (!n) {
        return xasprintf("\"%s\" selects no CPU core of this machine "
                         "(it has %d)", cmask, ovs_numa_get_n_cores());
    }
    return NULL;
}

/* Applies emc-insert-inv-prob as dpif-netdev does: 0 turns the exact-match
 * cache off, N inserts one hit in N, and a value over 65535 or not a number
 * is refused with a warning, keeping the current one. */
static void
set_emc_insert_inv_prob(struct datapath *dp, const struct smap *other_config)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    const char *value = smap_get(other_config, "emc-insert-inv-prob");
    unsigned int inv_prob = DEFAULT_EMC_INSERT_INV_PROB;

    if (value && (!str_to_uint(value, 10, &inv_prob)
                  || inv_prob > UINT16_MAX)) {
        VLOG_WARN("%s: invalid emc-insert-inv-prob \"%s\": must be an "
                  "integer from 0 to 65535; keeping %u", dp->name, value,
                  dp->emc_insert_inv_prob);
        return;
    }
    if (inv_prob != dp->emc_insert_inv_prob) {
        dp->emc_insert_inv_prob = inv_prob;
        atomic_store_relaxed(&dp->emc_insert_min,
                             inv_prob ? UINT32_MAX / inv_prob : 0);
        if (inv_prob) {
            VLOG_INFO("%s: EMC insertion probability changed to 1/%u "
                      "(~%.2f%%)", dp->name, inv_prob, 100.0 / inv_prob);
        } else {
            VLOG_INFO("%s: EMC insertion probability changed to zero",
                      dp->name);
        }
    }
}

/* Applies other_config:flow-limit, as OVS's bridge.c reads it for ofproto,
 * to 'dp''s megaflow table: ofproto's own limit (ofproto-dpif-upcall's
 * 'flow_limit', which it lowers when revalidation is slow) is checked
 * against a flow count it refreshes only every 100 ms, so a burst of misses
 * from several threads could overshoot it; the table's count is exact. */
static void
set_flow_limit(struct datapath *dp, const struct smap *other_config)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    unsigned int limit = smap_get_uint(other_config, "flow-limit",
                                       OFPROTO_FLOW_LIMIT_DEFAULT);
    size_t applied = flow_table_set_max(dp->table, limit);

    if (applied != dp->flow_limit) {
        VLOG_INFO("%s: megaflow limit set to %"PRIuSIZE"%s", dp->name,
                  applied, applied < limit ? " (the datapath's maximum)" : "");
        dp->flow_limit = applied;
    }
}

/* Applies other_config:benchmark-shared-flow-stats, for benchmarks only
 * (Documentation/performance.md): "true" makes every thread add its
 * batches to each flow's one shared slot under a lock, instead of to its
 * own slot, for every datapath of the process. */
static void
set_shared_flow_stats(struct datapath *dp, const struct smap *other_config)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    bool shared = smap_get_bool(other_config, "benchmark-shared-flow-stats",
                                false);

    if (shared != flow_stats_is_shared_locked()) {
        flow_stats_set_shared_locked(shared);
        if (shared) {
            VLOG_WARN("%s: benchmark-shared-flow-stats: every thread now "
                      "updates one shared, locked slot per flow (for "
                      "benchmarks only)", dp->name);
        } else {
            VLOG_INFO("%s: flow stats back to one slot per thread",
                      dp->name);
        }
    }
}

/* Applies the datapath keys of Open_vSwitch other_config: pmd-cpu-mask,
 * pmd-maxsleep, emc-insert-inv-prob, flow-limit, the fragment and
 * conntrack keys, tunnel-route-cache and, for benchmarks,
 * benchmark-shared-flow-stats.  A bad value is reported in the log and
 * the old one kept. */
int
datapath_set_config(struct datapath *dp, const struct smap *other_config)
{
    const char *cmask = smap_get(other_config, "pmd-cpu-mask");
    unsigned long long max_sleep;
    bool changed = false;

    if (cmask && !cmask[0]) {
        cmask = NULL;
    }

    ovs_mutex_lock(&dp->reconfig_mutex);
    if (!nullable_string_is_equal(cmask, dp->pmd_cmask)
        && !nullable_string_is_equal(cmask, dp->rejected_cmask)) {
        char *error = cmask ? validate_pmd_cmask(cmask) : NULL;

        if (error) {
            VLOG_WARN("%s: invalid pmd-cpu-mask: %s; keeping %s", dp->name,
                      error, dp->pmd_cmask ? dp->pmd_cmask : "the default");
            free(error);
            free(dp->rejected_cmask);
            dp->rejected_cmask = nullable_xstrdup(cmask);
        } else {
            free(dp->rejected_cmask);
            dp->rejected_cmask = NULL;
            VLOG_INFO("%s: pmd-cpu-mask set to %s", dp->name,
                      cmask ? cmask : "the default, one PMD per core");
            free(dp->pmd_cmask);
            dp->pmd_cmask = nullable_xstrdup(cmask);
            changed = true;
        }
    }

    max_sleep = smap_get_ullong(other_config, "pmd-maxsleep",
                                PMD_DEFAULT_MAX_SLEEP_US);
    if (max_sleep > PMD_MAX_MAX_SLEEP_US) {
        VLOG_WARN("%s: pmd-maxsleep %llu is over the limit; using %d us",
                  dp->name, max_sleep, PMD_MAX_MAX_SLEEP_US);
        max_sleep = PMD_MAX_MAX_SLEEP_US;
    }
    if (max_sleep != dp->max_sleep_us) {
        dp->max_sleep_us = max_sleep;
        VLOG_INFO("%s: PMD max sleep request is %d usecs.", dp->name,
                  dp->max_sleep_us);
        for (size_t i = 1; i < dp->n_thread_slots; i++) {
            if (datapath_thread(dp, i)) {
                atomic_store_relaxed(&datapath_thread(dp, i)->max_sleep_us,
                                     dp->max_sleep_us);
            }
        }
    }
    set_emc_insert_inv_prob(dp, other_config);
    if (pmd_sched_set_config(&dp->sched, other_config)) {
        changed = true;
    }
    set_flow_limit(dp, other_config);
    set_shared_flow_stats(dp, other_config);
    dp_ipf_set_config(dp, other_config);
    dp_conntrack_set_config(dp->conntrack, dp->name, other_config);
    tunnel_nexthops_set_config(dp->tunnel_nexthops, dp->name, other_config);
    ovs_mutex_unlock(&dp->reconfig_mutex);

    if (changed) {
        datapath_request_reconfigure(dp);
    }
    return 0;
}

/* Applies the per-interface other_config 'cfg' to port 'port_no'. */
int
datapath_set_port_config(struct datapath *dp, odp_port_t port_no,
                         const struct smap *cfg)
{
    bool changed = false, reassign = false;
    struct dp_port *port;

    ovs_mutex_lock(&dp->reconfig_mutex);
    port = datapath_lookup_port(dp, port_no);
    if (port) {
        dp_port_set_config(port, cfg, &changed, &reassign);
        if (changed) {
            /* Applied while no thread forwards. */
            port->need_reconfigure = true;
        }
    }
    ovs_mutex_unlock(&dp->reconfig_mutex);
    if (reassign) {
        datapath_request_reconfigure(dp);
    }
    return port ? 0 : ENODEV;
}

/* Zeroes, as the commands report them, the counters of thread index
 * 'index' of 'dp': the thread's own (if it exists) and every feature's
 * row for that index.  For pmd-stats-clear, and before a new thread takes
 * the index of a stopped one.  Writes only memory the main thread owns. */
void
datapath_clear_thread_counters(struct datapath *dp, size_t index)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    struct pmd_thread *t = datapath_thread(dp, index);

    if (t) {
        pmd_thread_clear_counters(t);
    }
    thread_counters_clear(dp_conntrack_counters(dp->conntrack), index);
    thread_counters_clear(vport_tunnel_counters(dp->tunnel), index);
    dp_gso_clear(dp->gso, index);
}

/* Asks the main thread to reconfigure 'dp' at its next datapath_run(). */
void
datapath_request_reconfigure(struct datapath *dp)
{
    seq_change(dp->reconfigure_seq);
}

static bool
has_pmd_port(const struct datapath *dp)
{
    struct dp_port *port;

    CMAP_FOR_EACH (port, node, &dp->ports) {
        if (port->is_pmd) {
            return true;
        }
    }
    return false;
}

/* Returns the lowest free thread index, or 0 if there is none. */
static unsigned
free_thread_index(const struct datapath *dp)
{
    for (size_t i = 1; i < dp->n_thread_slots; i++) {
        if (!datapath_thread(dp, i)) {
            return i;
        }
    }
    return 0;
}

/* Tells the features that share something out between the threads that
 * exist (the non-PMD context and the PMD threads) how many there are, and
 * each its rank among them, in index order: the fragments ct() may hold
 * (dp-ipf.h) and the outer IP identifications (vport-tunnel.h).  Called
 * after threads started or stopped, before they forward again. */
static void
rank_threads(struct datapath *dp)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    unsigned int *ranks = xcalloc(dp->n_thread_slots, sizeof *ranks);
    unsigned int n = 0;

    for (size_t i = 0; i < dp->n_thread_slots; i++) {
        if (datapath_thread(dp, i)) {
            ranks[i] = n++;
        }
    }
    dp_ipf_threads_changed(dp, n);
    vport_tunnel_set_ranks(dp->tunnel, ranks, n);
    free(ranks);
}

/* Stops PMD threads on cores no longer wanted and starts one on each wanted
 * core that lacks one.  PMD threads exist only while some port needs
 * them. */
static void
set_pmd_threads(struct datapath *dp)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    struct ovs_numa_dump *cores = NULL;
    struct ovs_numa_info_core *core;

    if (has_pmd_port(dp)) {
        cores = pmd_cores_dump(dp->pmd_cmask);
    }

    for (size_t i = 1; i < dp->n_thread_slots; i++) {
        struct pmd_thread *t = datapath_thread(dp, i);

        if (t && (!cores || !ovs_numa_dump_contains_core(
                                 cores, ovs_numa_get_numa_id(t->core_id),
                                 t->core_id))) {
            pmd_thread_stop(t);
            ovsrcu_set(&dp->threads[i], NULL);
            ovsrcu_postpone(pmd_thread_destroy, t);
            dp_ipf_thread_stopped(dp, i);
            vport_tunnel_thread_stopped(dp->tunnel, i);
            tunnel_neigh_thread_stopped(dp->tunnel_neigh, i);
            tunnel_neigh_queues_thread_stopped(dp, i);
        }
    }
    if (!cores) {
        return;
    }

    FOR_EACH_CORE_ON_DUMP (core, cores) {
        bool present = false;

        for (size_t i = 1; i < dp->n_thread_slots; i++) {
            if (datapath_thread(dp, i)
                && datapath_thread(dp, i)->core_id == core->core_id) {
                present = true;
            }
        }
        if (!present) {
            unsigned index = free_thread_index(dp);

            if (!index) {
                VLOG_ERR("%s: no thread slot left for core %u", dp->name,
                         core->core_id);
                break;
            }
            datapath_clear_thread_counters(dp, index);
            ovsrcu_set(&dp->threads[index],
                       pmd_thread_start(dp, index, core->core_id,
                                        dp->max_sleep_us));
        }
    }
    ovs_numa_dump_destroy(cores);
}

/* A poll list under construction. */
struct poll_list {
    struct pmd_poll *polls;
    size_t n, allocated;
};

static void
poll_list_add(struct poll_list *list, struct dp_port *port, int qid)
{
    if (list->n >= list->allocated) {
        list->polls = x2nrealloc(list->polls, &list->allocated,
                                 sizeof *list->polls);
    }
    struct pmd_poll *poll = &list->polls[list->n++];

    poll->port = port;
    poll->rxq = port->rxqs[qid];
    poll->qid = qid;
    atomic_init(&poll->cycles, 0);
}

/* Orders PMD threads by core, so that queues spread predictably. */
static int
compare_pmd_core(const void *a_, const void *b_)
{
    const struct pmd_thread *const *a = a_;
    const struct pmd_thread *const *b = b_;

    return (*a)->core_id < (*b)->core_id ? -1 : (*a)->core_id > (*b)->core_id;
}

/* Orders ports by port number, so that queues are dealt out the same way
 * whatever the order of the port map. */
static int
compare_port_no(const void *a_, const void *b_)
{
    const struct dp_port *const *a = a_;
    const struct dp_port *const *b = b_;
    uint32_t pa = odp_to_u32((*a)->port_no), pb = odp_to_u32((*b)->port_no);

    return pa < pb ? -1 : pa > pb;
}

/* Returns the ports of 'dp' in port-number order, in an array of
 * '*n_ports' elements that the caller must free. */
static struct dp_port **
sorted_ports(const struct datapath *dp, size_t *n_ports)
{
    size_t n = cmap_count(&dp->ports), i = 0;
    struct dp_port **ports = xcalloc(MAX(n, 1), sizeof *ports);
    struct dp_port *port;

    CMAP_FOR_EACH (port, node, &dp->ports) {
        if (i < n) {
            ports[i++] = port;
        }
    }
    qsort(ports, i, sizeof *ports, compare_port_no);
    *n_ports = i;
    return ports;
}

/* Records in each port the cycles each of its queues cost the thread
 * that polls it, since the queues were last assigned, for pmd-sched's
 * cycles and group assignments.  Called before the threads give their
 * queues back.  Ports deleted meanwhile are skipped. */
static void
collect_rxq_cycles(struct datapath *dp)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    for (size_t i = 1; i < dp->n_thread_slots; i++) {
        struct pmd_thread *t = datapath_thread(dp, i);
        uint64_t busy, idle, sleep, *cycles;
        long long int age_ms;

        if (!t || !t->n_polls) {
            continue;
        }
        cycles = xcalloc(t->n_polls, sizeof *cycles);
        pmd_thread_read_poll_cycles(t, cycles, &busy, &idle, &sleep,
                                    &age_ms);
        for (size_t j = 0; j < t->n_polls; j++) {
            struct dp_port *port = t->polls[j].port;
            int qid = t->polls[j].qid;

            if (datapath_lookup_port(dp, port->port_no) != port) {
                continue;
            }
            if (port->n_rxq_cycles != port->n_rxq) {
                port->rxq_cycles = xrealloc(port->rxq_cycles,
                                            MAX(port->n_rxq, 1)
                                            * sizeof *port->rxq_cycles);
                memset(port->rxq_cycles, 0,
                       MAX(port->n_rxq, 1) * sizeof *port->rxq_cycles);
                port->n_rxq_cycles = port->n_rxq;
            }
            if (qid < port->n_rxq_cycles) {
                /* A measurement over less than stock's 10-second interval
                 * (queues assigned again soon after, as when a thread is
                 * added) adds to the previous one instead of replacing
                 * it, so that a quick second assignment keeps what the
                 * first one knew. */
                port->rxq_cycles[qid] = (age_ms < PMD_SCHED_INTERVAL_MS
                                         ? port->rxq_cycles[qid] : 0)
                                        + cycles[j];
            }
        }
        free(cycles);
    }
}

/* Returns the PMD threads of 'dp' in core order, in an array of
 * '*n_pmds' elements that the caller must free. */
static struct pmd_thread **
sorted_pmds(const struct datapath *dp, size_t *n_pmds)
{
    struct pmd_thread **pmds = xcalloc(dp->n_thread_slots, sizeof *pmds);
    size_t n = 0;

    for (size_t i = 1; i < dp->n_thread_slots; i++) {
        if (datapath_thread(dp, i)) {
            pmds[n++] = datapath_thread(dp, i);
        }
    }
    qsort(pmds, n, sizeof *pmds, compare_pmd_core);
    *n_pmds = n;
    return pmds;
}

/* Returns the receive queues of the PMD ports among 'ports' (n_ports, in
 * port-number order) for pmd_sched_assign(), in port then queue order,
 * with their pinned cores and the cycles recorded by collect_rxq_cycles(),
 * in an array of '*n_rxqs' elements that the caller must free.  If
 * 'rxq_ports' is nonnull, it gets an array, to free too, of each queue's
 * port. */
static struct pmd_sched_rxq *
sched_rxqs(struct dp_port **ports, size_t n_ports,
           struct dp_port ***rxq_ports, size_t *n_rxqs)
{
    unsigned int port_index = 0;
    struct pmd_sched_rxq *rxqs;
    size_t n = 0;

    for (size_t p = 0; p < n_ports; p++) {
        n += ports[p]->is_pmd ? ports[p]->n_rxq : 0;
    }
    rxqs = xcalloc(MAX(n, 1), sizeof *rxqs);
    if (rxq_ports) {
        *rxq_ports = xcalloc(MAX(n, 1), sizeof **rxq_ports);
    }
    n = 0;
    for (size_t p = 0; p < n_ports; p++) {
        struct dp_port *port = ports[p];
        int *cores;

        if (!port->is_pmd) {
            continue;
        }
        cores = xcalloc(MAX(port->n_rxq, 1), sizeof *cores);
        pmd_sched_parse_affinity(port->rxq_affinity, cores, port->n_rxq);
        for (int q = 0; q < port->n_rxq; q++) {
            if (rxq_ports) {
                (*rxq_ports)[n] = port;
            }
            rxqs[n++] = (struct pmd_sched_rxq) {
                .name = netdev_get_name(port->netdev),
                .port_index = port_index,
                .qid = q,
                .pinned_core = cores[q],
                .cycles = q < port->n_rxq_cycles ? port->rxq_cycles[q] : 0,
            };
        }
        free(cores);
        port_index++;
    }
    *n_rxqs = n;
    return rxqs;
}

/* Rebuilds every thread's poll list: non-PMD ports go to the non-PMD
 * context, and the queues of PMD ports are placed on the PMD threads as
 * pmd-rxq-affinity and pmd-rxq-assign say (pmd-sched.h). */
static void
assign_rxqs(struct datapath *dp)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    struct poll_list *lists = xcalloc(dp->n_thread_slots, sizeof *lists);
    struct pmd_sched_rxq *rxqs;
    struct pmd_thread **pmds;
    size_t n_pmds, n_rxqs;
    struct dp_port **ports;
    size_t n_ports;

    pmds = sorted_pmds(dp, &n_pmds);
    ports = sorted_ports(dp, &n_ports);
    for (size_t p = 0; p < n_ports; p++) {
        if (!ports[p]->is_pmd) {
            for (int q = 0; q < ports[p]->n_rxq; q++) {
                poll_list_add(&lists[0], ports[p], q);
            }
        }
    }
    rxqs = sched_rxqs(ports, n_ports, NULL, &n_rxqs);
    pmd_sched_assign(&dp->sched, pmds, n_pmds, rxqs, n_rxqs, false);

    /* 'rxqs' was built in port order, so each port's queues are found
     * again in the same order. */
    for (size_t p = 0, r = 0; p < n_ports; p++) {
        struct dp_port *port = ports[p];

        if (!port->is_pmd) {
            continue;
        }
        for (int q = 0; q < port->n_rxq; q++, r++) {
            if (rxqs[r].pmd) {
                poll_list_add(&lists[rxqs[r].pmd->index], port, q);
            }
        }
    }

    for (size_t i = 0; i < dp->n_thread_slots; i++) {
        if (datapath_thread(dp, i)) {
            pmd_thread_reload(datapath_thread(dp, i), lists[i].polls,
                              lists[i].n);
        } else {
            free(lists[i].polls);
        }
    }
    free(rxqs);
    free(lists);
    free(pmds);
    free(ports);
}

/* Brings every thread in line with the ports and the PMD configuration:
 * pauses the PMD threads, reconfigures the ports that need it (a port that
 * fails is deleted, as dpif-netdev does), starts and stops PMD threads, and
 * hands out the receive queues again. */
static void
datapath_reconfigure(struct datapath *dp)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    struct dp_port *port;

    ovs_mutex_lock(&dp->non_pmd_mutex);
    collect_rxq_cycles(dp);
    for (size_t i = 0; i < dp->n_thread_slots; i++) {
        if (datapath_thread(dp, i)) {
            pmd_thread_reload(datapath_thread(dp, i), NULL, 0);
        }
    }

    CMAP_FOR_EACH (port, node, &dp->ports) {
        if (dp_port_needs_reconfigure(port)
            && dp_port_reconfigure(port, dp->n_thread_slots)) {
            VLOG_ERR("%s: port %s removed: reconfiguration failed", dp->name,
                     netdev_get_name(port->netdev));
            unlink_port(dp, port);
            ovsrcu_postpone(dp_port_destroy, port);
        }
    }

    set_pmd_threads(dp);
    rank_threads(dp);
    assign_rxqs(dp);
    pmd_alb_reconfigured(dp->alb);
    ovs_mutex_unlock(&dp->non_pmd_mutex);
}

/* pmd-auto-lb's dry run (pmd-alb.h) over 'pmds' (n_pmds, in core order):
 * each queue of a PMD port with the thread that polls it now and the
 * cycles it cost that thread since the queues were assigned, which the
 * thread wrote in its own poll list. */
static bool
alb_dry_run(struct datapath *dp, struct pmd_thread **pmds, size_t n_pmds)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    uint64_t *pmd_cycles = xcalloc(MAX(n_pmds, 1), sizeof *pmd_cycles);
    struct dp_port **ports, **rxq_ports;
    struct pmd_sched_rxq *rxqs;
    size_t n_ports, n_rxqs;
    bool improves;

    ports = sorted_ports(dp, &n_ports);
    rxqs = sched_rxqs(ports, n_ports, &rxq_ports, &n_rxqs);
    for (size_t r = 0; r < n_rxqs; r++) {
        rxqs[r].cycles = 0;
    }
    for (size_t i = 0; i < n_pmds; i++) {
        struct pmd_thread *t = pmds[i];
        uint64_t busy, idle, sleep, *cycles;
        long long int age_ms;

        cycles = xcalloc(MAX(t->n_polls, 1), sizeof *cycles);
        pmd_thread_read_poll_cycles(t, cycles, &busy, &idle, &sleep,
                                    &age_ms);
        pmd_cycles[i] = busy + idle + sleep;
        for (size_t j = 0; j < t->n_polls; j++) {
            for (size_t r = 0; r < n_rxqs; r++) {
                if (rxq_ports[r] == t->polls[j].port
                    && rxqs[r].qid == t->polls[j].qid) {
                    rxqs[r].pmd = t;
                    rxqs[r].cycles = cycles[j];
                    break;
                }
            }
        }
        free(cycles);
    }
    improves = pmd_alb_dry_run(&dp->sched, pmds, n_pmds, pmd_cycles,
                               rxqs, n_rxqs);
    free(rxq_ports);
    free(rxqs);
    free(ports);
    free(pmd_cycles);
    return improves;
}

static bool needs_reconfigure(struct datapath *dp)
    OVS_REQUIRES(dp->reconfig_mutex);

/* Runs pmd-auto-lb: when it finds, at the end of its interval, a thread
 * overloaded and an assignment that would improve the spread, asks for the
 * queues to be assigned again, as pmd-rxq-rebalance does. */
static void
run_auto_lb(struct datapath *dp)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    struct pmd_thread **pmds;
    size_t n_pmds;

    if (!dp->sched.auto_lb) {
        /* Only forgets what it sampled, once. */
        pmd_alb_run(dp->alb, &dp->sched, NULL, 0);
        return;
    }
    pmds = sorted_pmds(dp, &n_pmds);
    if (pmd_alb_run(dp->alb, &dp->sched, pmds, n_pmds)
        && !needs_reconfigure(dp) && alb_dry_run(dp, pmds, n_pmds)) {
        VLOG_INFO("PMD auto load balance dry run. "
                  "Requesting datapath reconfigure.");
        datapath_request_reconfigure(dp);
    }
    free(pmds);
}

static bool
needs_reconfigure(struct datapath *dp)
    OVS_REQUIRES(dp->reconfig_mutex)
{
    struct dp_port *port;

    if (seq_read(dp->reconfigure_seq) != dp->last_reconfigure_seq) {
        return true;
    }
    CMAP_FOR_EACH (port, node, &dp->ports) {
        if (dp_port_needs_reconfigure(port)) {
            return true;
        }
    }
    return false;
}

/* The main thread's periodic work: reconfigure if asked to, keep the
 * tunnels' endpoints and next hops current, then poll the non-PMD ports
 * once. */
void
datapath_run(struct datapath *dp)
{
    struct dp_port *port;

    ovs_mutex_lock(&dp->reconfig_mutex);
    if (needs_reconfigure(dp)) {
        dp->last_reconfigure_seq = seq_read(dp->reconfigure_seq);
        datapath_reconfigure(dp);
    }
    run_auto_lb(dp);
    CMAP_FOR_EACH (port, node, &dp->ports) {
        dp_port_refresh_link(port);
    }
    vport_tunnel_run(dp);
    tunnel_neigh_run(dp);
    tunnel_nexthops_run(dp->tunnel_nexthops);
    ovs_mutex_unlock(&dp->reconfig_mutex);

    ovs_mutex_lock(&dp->non_pmd_mutex);
    pmd_thread_poll_once(datapath_thread(dp, 0));
    ovs_mutex_unlock(&dp->non_pmd_mutex);
}

/* Arranges for poll_block() to wake when datapath_run() has work. */
void
datapath_wait(struct datapath *dp)
{
    struct pmd_thread *non_pmd = datapath_thread(dp, 0);
    struct dp_port *port;

    ovs_mutex_lock(&dp->non_pmd_mutex);
    for (size_t i = 0; i < non_pmd->n_polls; i++) {
        netdev_rxq_wait(non_pmd->polls[i].rxq);
    }
    tunnel_neigh_queue_wait(non_pmd);
    ovs_mutex_unlock(&dp->non_pmd_mutex);

    CMAP_FOR_EACH (port, node, &dp->ports) {
        netdev_wait_reconf_required(port->netdev);
    }
    seq_wait(dp->reconfigure_seq, dp->last_reconfigure_seq);
    ovs_mutex_lock(&dp->reconfig_mutex);
    pmd_alb_wait(dp->alb, &dp->sched);
    ovs_mutex_unlock(&dp->reconfig_mutex);
    tunnel_neigh_wait(dp);
    tunnel_nexthops_wait(dp->tunnel_nexthops);
}

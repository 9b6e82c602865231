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

#ifndef DATAPATH_H
#define DATAPATH_H 1

/* One userspace datapath instance ("ovs-netdev" or "ovs-dummy"), which holds
 * every bridge of its type: ports, the shared megaflow table, the upcall
 * hook and the forwarding threads.
 *
 * Who owns what:
 *   - 'ports' (with 'ports_by_name') and 'table' are shared and
 *     read-mostly: forwarding threads read them lock-free under RCU; writers
 *     hold 'reconfig_mutex' (ports) or the table's own mutex (megaflows).
 *   - 'threads' and the PMD configuration belong to the main thread, under
 *     'reconfig_mutex'.
 *   - Each forwarding thread owns its 'struct pmd_thread'; see pmd.h. */

#include <stdbool.h>
#include <stddef.h>

#include "cmap.h"
#include "dpif.h"
#include "fat-rwlock.h"
#include "openvswitch/thread.h"
#include "ovs-atomic.h"
#include "ovs-rcu.h"
#include "ovs-thread.h"
#include "pmd-sched.h"

struct dp_port;
struct flow_table;
struct vport_tunnel_table;
struct dp_gso;
struct dp_ipf;
struct dp_meter_table;
struct pmd_thread;
struct seq;
struct smap;
struct sset;
struct tunnel_neigh;
struct tunnel_nexthops;
struct tunnel_neigh_queues;

/* Default longest sleep of an idle PMD thread, in microseconds.  OVS 3.1
 * busy-polls by default (pmd-maxsleep=0); on small machines that starves
 * everything else, so an idle PMD thread here backs off up to this long. */
#define PMD_DEFAULT_MAX_SLEEP_US 1000

/* As in dpif-netdev: one megaflow hit in 100 is copied into the exact-match
 * cache, so that a working set larger than the cache does not spend its
 * time replacing entries. */
#define DEFAULT_EMC_INSERT_INV_PROB 100

/* The largest pmd-maxsleep OVS 3.1 accepts, in microseconds. */
#define PMD_MAX_MAX_SLEEP_US 10000

struct datapath {
    const struct dpif_class *class;
    char *name;
    struct ovs_refcount ref_cnt;
    atomic_flag destroyed;

    /* Ports, by port number and by their netdev's name: every port is in
     * both maps.  Written under 'reconfig_mutex'. */
    struct ovs_mutex reconfig_mutex;
    struct cmap ports;
    struct cmap ports_by_name;
    struct seq *port_seq;       /* Changes when a port is added or deleted. */

    struct flow_table *table;   /* The shared megaflow table. */
    struct dp_meter_table *meters; /* OpenFlow meters (dp-meter.h). */

    /* The tunnel layer (vport-tunnel.h): where tunnel packets addressed to
     * this host are decapsulated, each thread's state and counters.
     * Created and freed with the datapath. */
    struct vport_tunnel_table *tunnel;

    /* Tunnel next hops: what ARP may teach OVS's neighbour cache
     * (tunnel-neigh.h), and each thread's copy of the next hops it sends
     * to (tunnel-nexthop.h), and each thread's frames waiting for a next
     * hop (tunnel-neigh-queue.h).  Created and freed with the datapath. */
    struct tunnel_neigh *tunnel_neigh;
    struct tunnel_nexthops *tunnel_nexthops;
    struct tunnel_neigh_queues *tunnel_neigh_queues;

    /* Fragment reassembly (dp-ipf.h): its limits from other_config and each
     * thread's table.  Created and freed with the datapath. */
    struct dp_ipf *ipf;

    /* Each thread's software segmentation accounts (dp-gso.h): created and
     * destroyed with the datapath. */
    struct dp_gso *gso;

    /* The connection tracker (dp-conntrack.h): created and destroyed with
     * the datapath, used by every forwarding thread. */
    struct dp_conntrack *conntrack;

    /* Upcalls: readers are the forwarding threads that miss; the write lock
     * is held while upcalls are disabled (datapath_disable_upcalls()). */
    struct fat_rwlock upcall_rwlock;
    bool upcalls_disabled;      /* Main thread only: it holds the write
                                 * lock of 'upcall_rwlock'. */
    upcall_callback *upcall_cb;
    void *upcall_aux;

    /* Taken, by the hash of the packet key, around a miss's upcall and
     * install, so that threads that miss the same key take turns.
     * Adaptive: a thread that finds one taken spins a little before it
     * sleeps, because the turn it waits for (one upcall, about a
     * microsecond) is shorter than a sleep and a wake-up. */
#define DP_UPCALL_LOCKS 64
    struct ovs_mutex upcall_locks[DP_UPCALL_LOCKS];

    /* Forwarding threads, indexed by thread index; threads[0] is the non-PMD
     * context.  Changed only by the main thread under 'reconfig_mutex';
     * read by anyone under RCU (upcalls read the counters, through
     * dpif_get_dp_stats(), while the main thread may be waiting for them),
     * and a stopped thread is freed after a grace period. */
    size_t n_thread_slots;      /* Size of 'threads': cores + 1. */
    OVSRCU_TYPE(struct pmd_thread *) *threads;
    struct ovs_mutex non_pmd_mutex; /* Guards use of threads[0]. */
    ovsthread_key_t self_key;   /* The calling PMD thread, if any. */

    /* Configuration, from other_config, under 'reconfig_mutex'. */
    char *pmd_cmask OVS_GUARDED;      /* pmd-cpu-mask, or NULL: default. */
    char *rejected_cmask OVS_GUARDED; /* Last invalid pmd-cpu-mask, logged
                                       * once. */
    int max_sleep_us OVS_GUARDED;     /* pmd-maxsleep. */
    unsigned int emc_insert_inv_prob OVS_GUARDED; /* emc-insert-inv-prob. */
    size_t flow_limit OVS_GUARDED;    /* flow-limit, as the table applies
                                       * it. */
    struct pmd_sched_config sched OVS_GUARDED; /* pmd-rxq-assign, ... */
    struct pmd_alb *alb OVS_GUARDED;  /* pmd-auto-lb's state (pmd-alb.h),
                                       * created and freed with the
                                       * datapath. */

    /* A megaflow hit is copied into the thread's exact-match cache when a
     * random 32-bit number is at most this; 0 disables the cache.  Read by
     * every thread, written by the main thread. */
    atomic_uint32_t emc_insert_min;
    struct seq *reconfigure_seq;    /* Changed to request reconfigure. */
    uint64_t last_reconfigure_seq;
};

int datapath_create(const char *name, const struct dpif_class *,
                    const char *local_port_type, struct datapath **);
void datapath_free(struct datapath *);

/* The list of datapaths, by name (main thread). */
struct datapath *datapath_find(const char *name);
void datapath_enumerate(const struct dpif_class *, struct sset *names);
int datapath_ref(const char *name, const struct dpif_class *, bool create,
                 struct datapath **new_dp, struct datapath **dpp);
void datapath_unref(struct datapath *);

/* Returns the forwarding thread with index 'index', or NULL.  Under RCU. */
static inline struct pmd_thread *
datapath_thread(const struct datapath *dp, size_t index)
{
    return ovsrcu_get(struct pmd_thread *, &dp->threads[index]);
}

struct dp_port *datapath_lookup_port(const struct datapath *, odp_port_t);
struct dp_port *datapath_find_port_by_name(const struct datapath *,
                                           const char *name);

/* These take 'reconfig_mutex' themselves. */
int datapath_add_port(struct datapath *dp, const char *name,
                      const char *type, odp_port_t *)
    OVS_EXCLUDED(dp->reconfig_mutex);
int datapath_del_port(struct datapath *dp, odp_port_t)
    OVS_EXCLUDED(dp->reconfig_mutex);
int datapath_set_config(struct datapath *dp, const struct smap *)
    OVS_EXCLUDED(dp->reconfig_mutex);
int datapath_set_port_config(struct datapath *dp, odp_port_t,
                             const struct smap *)
    OVS_EXCLUDED(dp->reconfig_mutex);
void datapath_run(struct datapath *dp)
    OVS_EXCLUDED(dp->reconfig_mutex, dp->non_pmd_mutex);
void datapath_wait(struct datapath *dp) OVS_EXCLUDED(dp->non_pmd_mutex);

/* Any thread: asks the main thread to reconfigure at its next
 * datapath_run(). */
void datapath_request_reconfigure(struct datapath *);

/* The caller holds 'reconfig_mutex'. */
void datapath_clear_thread_counters(struct datapath *dp, size_t index)
    OVS_REQUIRES(dp->reconfig_mutex);

/* Main thread: upcalls are disabled by holding 'upcall_rwlock' for writing,
 * as in dpif-netdev.  Enabling or disabling twice in a row is harmless. */
void datapath_enable_upcalls(struct datapath *);
void datapath_disable_upcalls(struct datapath *);

#endif /* datapath.h */

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

#ifndef KERNEL_IPIP_H
#define KERNEL_IPIP_H 1

/* The kernel module's ipip device (rtnetlink link kind "ovs_ipip",
 * datapath/ovsp-ipip-uapi.h), seen from userspace: creating, changing and
 * deleting it with rtnetlink, recognising it (its ethtool driver name), and
 * reading its per-CPU GRO cell counters with the ETHTOOL_GSTATS ioctl.
 *
 * The "system" dpif class (dpif-kernel.c) makes one such device for each
 * port of type "ipip" on a kernel datapath; tunnel-stats-show prints the
 * counters.  Everything here is a blocking system call: main thread only
 * (or any thread that may block).  No function keeps state between calls.
 *
 * Every answer of the kernel is untrusted: the number of counters and
 * their names are bounded and checked, and a counter whose name is not in
 * the contract is ignored. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../datapath/ovsp-ipip-uapi.h"
#include "openvswitch/types.h"

struct ds;
struct netdev_ipip_config;
struct netdev_stats;

/* The IFLA_INFO_DATA attributes of one device (OVSP_IPIP_ATTR_*). */
struct kernel_ipip_attrs {
    ovs_be32 local;             /* Outer destination received for; 0 any. */
    ovs_be32 remote;            /* Outer source received from; 0 any. */
    bool gro;                   /* Through the per-CPU GRO cells. */
    bool shared_cell;           /* Every CPU feeds one cell (ablation). */
};

/* Fills 'attrs' from an ipip port's options 'c' ("flow" endpoints become
 * 0: any).  The ablation switch is off: no option sets it. */
void kernel_ipip_attrs_from_config(const struct netdev_ipip_config *c,
                                   struct kernel_ipip_attrs *attrs);

/* Creates device 'name' of kind "ovs_ipip" with 'attrs', up.  Returns 0,
 * EEXIST if a device of that name (or a device with the same endpoints)
 * exists, EOPNOTSUPP if the module is not loaded, or another errno. */
int kernel_ipip_create(const char *name, const struct kernel_ipip_attrs *);

/* Applies 'attrs' to the existing device 'name' (rtnetlink changelink).
 * Returns 0 or a positive errno. */
int kernel_ipip_change(const char *name, const struct kernel_ipip_attrs *);

/* Deletes the device 'name'.  Returns 0 or a positive errno. */
int kernel_ipip_destroy(const char *name);

/* True if the device 'name' exists and is one of the module's ovs_ipip
 * devices (ETHTOOL_GDRVINFO's driver name). */
bool kernel_ipip_is_ours(const char *name);

/* Reads the interface counters of device 'name' (packets, bytes, errors,
 * drops each way, from /sys/class/net/NAME/statistics) into 'stats',
 * leaving its other members alone.  Returns 0 or a positive errno (ENODEV:
 * no such device). */
int kernel_ipip_get_device_stats(const char *name, struct netdev_stats *);

/* One CPU's GRO cell counters (OVSP_IPIP_CPU_*). */
struct kernel_ipip_cpu_stats {
    unsigned int cpu;           /* The CPU, from the counter's name. */
    uint64_t queued;            /* Packets this CPU put into a cell. */
    uint64_t polled;            /* Packets its NAPI poll handed up. */
    uint64_t backlog_drops;     /* Dropped: the cell was full. */
    uint64_t down_drops;        /* Dropped: the device was down. */
};

/* Most CPUs read: more than the kernel's NR_CPUS limit of 8192. */
#define KERNEL_IPIP_MAX_CPUS 8192

/* All counters of one device. */
struct kernel_ipip_stats {
    uint64_t totals[OVSP_IPIP_N_TOTALS]; /* By enum ovsp_ipip_total. */
    bool have_total[OVSP_IPIP_N_TOTALS]; /* Which ones the device has. */
    struct kernel_ipip_cpu_stats *cpus; /* In increasing CPU number. */
    size_t n_cpus;              /* Elements in 'cpus'. */
};

/* Reads the counters of device 'name' into 'stats' (which the caller
 * frees with kernel_ipip_stats_destroy(), also on error).  Returns 0,
 * ENODEV if there is no such device, EPROTO if its answer is malformed
 * (too many counters, a count that changed between two calls), or another
 * errno. */
int kernel_ipip_get_stats(const char *name, struct kernel_ipip_stats *);
void kernel_ipip_stats_destroy(struct kernel_ipip_stats *);

/* Counter names per ETHTOOL_GSTRINGS entry (not necessarily
 * NUL-terminated within it). */
#define KERNEL_IPIP_NAME_LEN 32

/* The parsing half of kernel_ipip_get_stats(), for the fuzz target:
 * records the 'n' counters whose names are 'names' (n entries of
 * KERNEL_IPIP_NAME_LEN bytes each, as ETHTOOL_GSTRINGS returns them) and
 * whose values are 'values' into 'stats' (zeroed by the caller, freed with
 * kernel_ipip_stats_destroy() also on error).  Returns 0, or EPROTO if
 * there are too many or a CPU's counters come out of order. */
int kernel_ipip_stats_parse(const char *names, const uint64_t *values,
                            uint32_t n, struct kernel_ipip_stats *);

/* Appends 'stats' of device 'name' to 's' in tunnel-stats-show's format:
 *
 *     t0:
 *       cpu 0: segments 120, packets out 14, backlog drops 0, down drops 0
 *       cpu 1: ...
 *       total: segments 240, packets out 29, backlog drops 0, down drops 0
 *       rx_decapsulated: 240
 *       ...
 *
 * ("segments" are the packets queued to the cells, "packets out" those
 * handed up after GRO), then every other device total by its ethtool
 * name. */
void kernel_ipip_format_stats(struct ds *s, const char *name,
                              const struct kernel_ipip_stats *);

#endif /* kernel-ipip.h */

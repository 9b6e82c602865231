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

/* The kernel module's ovs_ipip device, seen from userspace. */

#include <config.h>
#include "kernel-ipip.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "netdev-ipip.h"
#include "netdev.h"
#include "netlink.h"
#include "netlink-socket.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/ofpbuf.h"
#include "socket-util.h"
#include "util.h"

/* Most counters accepted from a device: the totals, and one block per CPU
 * and one per CPU's cell for KERNEL_IPIP_MAX_CPUS CPUs (the cells' are
 * names outside what we read, and ignored). */
#define MAX_STATS (OVSP_IPIP_N_TOTALS                                   \
                   + KERNEL_IPIP_MAX_CPUS * (OVSP_IPIP_N_CPU_STATS      \
                                             + OVSP_IPIP_N_CELL_STATS))

void
kernel_ipip_attrs_from_config(const struct netdev_ipip_config *c,
                              struct kernel_ipip_attrs *attrs)
{
    memset(attrs, 0, sizeof *attrs);
    attrs->local = c->local_ip_flow ? 0 : c->local_ip;
    attrs->remote = c->remote_ip_flow ? 0 : c->remote_ip;
    attrs->gro = c->gro;
    attrs->shared_cell = false;
}

/* Sends RTM_NEWLINK for 'name' with 'flags' (NLM_F_*), kind "ovs_ipip" and
 * 'attrs', up. */
static int
newlink(const char *name, uint32_t flags, const struct kernel_ipip_attrs *a)
{
    size_t linkinfo_ofs, data_ofs;
    struct ifinfomsg *ifi;
    struct ofpbuf request;
    int error;

    ofpbuf_init(&request, 256);
    nl_msg_put_nlmsghdr(&request, 0, RTM_NEWLINK,
                        NLM_F_REQUEST | NLM_F_ACK | flags);
    ifi = ofpbuf_put_zeros(&request, sizeof *ifi);
    ifi->ifi_family = AF_UNSPEC;
    ifi->ifi_flags = ifi->ifi_change = IFF_UP;
    nl_msg_put_string(&request, IFLA_IFNAME, name);
    linkinfo_ofs = nl_msg_start_nested(&request, IFLA_LINKINFO);
    nl_msg_put_string(&request, IFLA_INFO_KIND, OVSP_IPIP_KIND);
    data_ofs = nl_msg_start_nested(&request, IFLA_INFO_DATA);
    nl_msg_put_u8(&request, OVSP_IPIP_ATTR_GRO, a->gro);
    nl_msg_put_u8(&request, OVSP_IPIP_ATTR_SHARED_CELL, a->shared_cell);
    nl_msg_put_be32(&request, OVSP_IPIP_ATTR_LOCAL, a->local);
    nl_msg_put_be32(&request, OVSP_IPIP_ATTR_REMOTE, a->remote);
    nl_msg_end_nested(&request, data_ofs);
    nl_msg_end_nested(&request, linkinfo_ofs);

    error = nl_transact(NETLINK_ROUTE, &request, NULL);
    ofpbuf_uninit(&request);
    return error;
}

int
kernel_ipip_create(const char *name, const struct kernel_ipip_attrs *attrs)
{
    return newlink(name, NLM_F_CREATE | NLM_F_EXCL, attrs);
}

int
kernel_ipip_change(const char *name, const struct kernel_ipip_attrs *attrs)
{
    return newlink(name, 0, attrs);
}

int
kernel_ipip_destroy(const char *name)
{
    struct ofpbuf request;
    int error;

    ofpbuf_init(&request, 64);
    nl_msg_put_nlmsghdr(&request, 0, RTM_DELLINK,
                        NLM_F_REQUEST | NLM_F_ACK);
    ofpbuf_put_zeros(&request, sizeof(struct ifinfomsg));
    nl_msg_put_string(&request, IFLA_IFNAME, name);
    error = nl_transact(NETLINK_ROUTE, &request, NULL);
    ofpbuf_uninit(&request);
    return error;
}

/* Runs ethtool command 'cmd' (whose buffer starts with the command number)
 * on device 'name'.  Returns 0 or a positive errno. */
static int
ethtool(const char *name, void *cmd)
{
    struct ifreq ifr;

    if (strlen(name) >= sizeof ifr.ifr_name) {
        return ENODEV;
    }
    memset(&ifr, 0, sizeof ifr);
    ovs_strlcpy(ifr.ifr_name, name, sizeof ifr.ifr_name);
    ifr.ifr_data = cmd;
    return af_inet_ioctl(SIOCETHTOOL, &ifr);
}

/* Reads the driver information of 'name' into 'info'. */
static int
get_drvinfo(const char *name, struct ethtool_drvinfo *info)
{
    int error;

    memset(info, 0, sizeof *info);
    info->cmd = ETHTOOL_GDRVINFO;
    error = ethtool(name, info);
    info->driver[sizeof info->driver - 1] = '\0';
    return error;
}

bool
kernel_ipip_is_ours(const char *name)
{
    struct ethtool_drvinfo info;

    return (!get_drvinfo(name, &info)
            && !strcmp(info.driver, OVSP_IPIP_KIND));
}

/* Reads the decimal counter /sys/class/net/'name'/statistics/'counter'
 * into '*value'. */
static int
read_sysfs_counter(const char *name, const char *counter, uint64_t *value)
{
    char path[128];
    FILE *file;
    int error;

    if (strlen(name) >= IFNAMSIZ || strchr(name, '/')) {
        return ENODEV;
    }
    snprintf(path, sizeof path, "/sys/class/net/%s/statistics/%s", name,
             counter);
    file = fopen(path, "r");
    if (!file) {
        return errno == ENOENT ? ENODEV : errno;
    }
    error = fscanf(file, "%"SCNu64, value) == 1 ? 0 : EPROTO;
    fclose(file);
    return error;
}

int
kernel_ipip_get_device_stats(const char *name, struct netdev_stats *stats)
{
    static const struct {
        const char *counter;
        size_t offset;
    } counters[] = {
#define C_(MEMBER) { #MEMBER, offsetof(struct netdev_stats, MEMBER) }
        C_(rx_packets), C_(rx_bytes), C_(rx_errors), C_(rx_dropped),
        C_(tx_packets), C_(tx_bytes), C_(tx_errors), C_(tx_dropped),
#undef C_
    };

    for (size_t i = 0; i < ARRAY_SIZE(counters); i++) {
        uint64_t *value = (uint64_t *) ((char *) stats
                                        + counters[i].offset);
        int error = read_sysfs_counter(name, counters[i].counter, value);

        if (error) {
            return error;
        }
    }
    return 0;
}

/* The totals' names, by enum ovsp_ipip_total. */
static const char *const total_names[] = {
#define TOTAL_NAME_(ID, NAME) NAME,
    OVSP_IPIP_TOTALS(TOTAL_NAME_)
#undef TOTAL_NAME_
};
BUILD_ASSERT_DECL(ARRAY_SIZE(total_names) == OVSP_IPIP_N_TOTALS);
BUILD_ASSERT_DECL(KERNEL_IPIP_NAME_LEN == ETH_GSTRING_LEN);

/* The per-CPU counters' names, by enum ovsp_ipip_cpu_stat. */
static const char *const cpu_names[] = {
#define CPU_NAME_(ID, NAME) NAME,
    OVSP_IPIP_CPU_STATS(CPU_NAME_)
#undef CPU_NAME_
};
BUILD_ASSERT_DECL(ARRAY_SIZE(cpu_names) == OVSP_IPIP_N_CPU_STATS);

/* Returns the slot of CPU 'cpu' in 'stats', appending one if the CPU is
 * new.  CPUs arrive in increasing order, so only the last one is
 * checked; NULL if a CPU arrives out of order or there are too many. */
static struct kernel_ipip_cpu_stats *
cpu_slot(struct kernel_ipip_stats *stats, unsigned int cpu)
{
    struct kernel_ipip_cpu_stats *slot;

    if (stats->n_cpus && stats->cpus[stats->n_cpus - 1].cpu == cpu) {
        return &stats->cpus[stats->n_cpus - 1];
    }
    if ((stats->n_cpus && stats->cpus[stats->n_cpus - 1].cpu > cpu)
        || stats->n_cpus >= KERNEL_IPIP_MAX_CPUS) {
        return NULL;
    }
    stats->cpus = xrealloc(stats->cpus,
                           (stats->n_cpus + 1) * sizeof *stats->cpus);
    slot = &stats->cpus[stats->n_cpus++];
    memset(slot, 0, sizeof *slot);
    slot->cpu = cpu;
    return slot;
}

/* If 'name' is "cpu<N>_<rest>" with N a decimal CPU number below 65536
 * (at most 5 digits), stores N in '*cpu' and returns <rest>; else NULL. */
static const char *
parse_cpu_name(const char *name, unsigned int *cpu)
{
    const char *p = name + 3;
    unsigned int n = 0;
    int digits = 0;

    if (strncmp(name, "cpu", 3)) {
        return NULL;
    }
    for (; *p >= '0' && *p <= '9'; p++) {
        if (++digits > 5) {
            return NULL;
        }
        n = n * 10 + (*p - '0');
    }
    if (!digits || *p != '_' || n > UINT16_MAX) {
        return NULL;
    }
    *cpu = n;
    return p + 1;
}

/* Records counter 'value' named 'name' (NUL-terminated) in 'stats'.
 * Names outside the contract are ignored.  Returns false if the answer is
 * malformed. */
static bool
record_counter(struct kernel_ipip_stats *stats, const char *name,
               uint64_t value)
{
    unsigned int cpu;
    const char *rest;

    for (size_t i = 0; i < OVSP_IPIP_N_TOTALS; i++) {
        if (!strcmp(name, total_names[i])) {
            stats->totals[i] = value;
            stats->have_total[i] = true;
            return true;
        }
    }
    rest = parse_cpu_name(name, &cpu);
    if (!rest) {
        return true;
    }
    for (size_t i = 0; i < OVSP_IPIP_N_CPU_STATS; i++) {
        struct kernel_ipip_cpu_stats *slot;

        if (strcmp(rest, cpu_names[i])) {
            continue;
        }
        slot = cpu_slot(stats, cpu);
        if (!slot) {
            return false;
        }
        switch ((enum ovsp_ipip_cpu_stat) i) {
        case OVSP_IPIP_CPU_QUEUED:
            slot->queued = value;
            break;
        case OVSP_IPIP_CPU_POLLED:
            slot->polled = value;
            break;
        case OVSP_IPIP_CPU_BACKLOG_DROPS:
            slot->backlog_drops = value;
            break;
        case OVSP_IPIP_CPU_DOWN_DROPS:
            slot->down_drops = value;
            break;
        case OVSP_IPIP_N_CPU_STATS:
        default:
            OVS_NOT_REACHED();
        }
        return true;
    }
    return true;
}

int
kernel_ipip_get_stats(const char *name, struct kernel_ipip_stats *stats)
{
    struct ethtool_gstrings *strings = NULL;
    struct ethtool_stats *values = NULL;
    struct ethtool_drvinfo info;
    uint32_t n;
    int error;

    memset(stats, 0, sizeof *stats);
    error = get_drvinfo(name, &info);
    if (error) {
        return error;
    }
    if (strcmp(info.driver, OVSP_IPIP_KIND)) {
        return ENODEV;
    }
    n = info.n_stats;
    if (n > MAX_STATS) {
        return EPROTO;
    }

    strings = xzalloc(sizeof *strings + (size_t) n * ETH_GSTRING_LEN);
    strings->cmd = ETHTOOL_GSTRINGS;
    strings->string_set = ETH_SS_STATS;
    strings->len = n;
    error = ethtool(name, strings);
    if (error) {
        goto out;
    }
    values = xzalloc(sizeof *values + (size_t) n * sizeof(uint64_t));
    values->cmd = ETHTOOL_GSTATS;
    values->n_stats = n;
    error = ethtool(name, values);
    if (error) {
        goto out;
    }
    /* The kernel writes back how many it filled: the counts must agree
     * (a device whose count changed between the calls is refused).  Linux
     * fills as many as the device has now, whatever 'len' asked for, so
     * this relies on the count being fixed for a device's life (it
     * follows the possible CPUs), and on the driver check above: another
     * driver's device renamed into place between the calls is a race
     * that ethtool(8) has too. */
    if (strings->len != n || values->n_stats != n) {
        error = EPROTO;
        goto out;
    }
    error = kernel_ipip_stats_parse((const char *) strings->data,
                                    (const uint64_t *) values->data, n,
                                    stats);

out:
    free(strings);
    free(values);
    return error;
}

int
kernel_ipip_stats_parse(const char *names, const uint64_t *values, uint32_t n,
                        struct kernel_ipip_stats *stats)
{
    if (n > MAX_STATS) {
        return EPROTO;
    }
    for (uint32_t i = 0; i < n; i++) {
        char counter[ETH_GSTRING_LEN + 1];

        memcpy(counter, &names[(size_t) i * ETH_GSTRING_LEN],
               ETH_GSTRING_LEN);
        counter[ETH_GSTRING_LEN] = '\0';
        if (!record_counter(stats, counter, values[i])) {
            return EPROTO;
        }
    }
    return 0;
}

void
kernel_ipip_stats_destroy(struct kernel_ipip_stats *stats)
{
    if (stats) {
        free(stats->cpus);
        stats->cpus = NULL;
        stats->n_cpus = 0;
    }
}

/* Appends one line of the four cell counters of 'c', named 'label'. */
static void
format_cell(struct ds *s, const char *label,
            const struct kernel_ipip_cpu_stats *c)
{
    ds_put_format(s, "  %s: segments %"PRIu64", packets out %"PRIu64
                  ", backlog drops %"PRIu64", down drops %"PRIu64"\n",
                  label, c->queued, c->polled, c->backlog_drops,
                  c->down_drops);
}

void
kernel_ipip_format_stats(struct ds *s, const char *name,
                         const struct kernel_ipip_stats *stats)
{
    struct kernel_ipip_cpu_stats total;

    memset(&total, 0, sizeof total);
    ds_put_format(s, "%s:\n", name);
    for (size_t i = 0; i < stats->n_cpus; i++) {
        const struct kernel_ipip_cpu_stats *c = &stats->cpus[i];
        char label[32];

        snprintf(label, sizeof label, "cpu %u", c->cpu);
        format_cell(s, label, c);
        total.queued += c->queued;
        total.polled += c->polled;
        total.backlog_drops += c->backlog_drops;
        total.down_drops += c->down_drops;
    }
    format_cell(s, "total", &total);
    for (size_t i = OVSP_IPIP_STAT_DOWN_DROPS + 1; i < OVSP_IPIP_N_TOTALS;
         i++) {
        if (stats->have_total[i]) {
            ds_put_format(s, "  %s: %"PRIu64"\n", total_names[i],
                          stats->totals[i]);
        }
    }
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One build of datapath/flow-stats.c in kernel-flow-stats-benchmark: the
 * benchmark links several (the work tree's and an older commit's), each
 * compiled with KSHIM_PREFIX set and flow-stats.h's functions renamed with
 * it (kernel-flow-stats-benchmark.sh passes the -D options), and reaches
 * each through the table that kernel-flow-stats-variant.c, compiled the
 * same way, fills.
 */
#ifndef KERNEL_FLOW_STATS_VARIANT_H
#define KERNEL_FLOW_STATS_VARIANT_H 1

#include <stdbool.h>
#include <stdint.h>

struct ovsp_flow_stats;
struct ovsp_flow_stats_info;

/* One build's entry points. */
struct kfs_variant {
    int (*init)(void);
    void (*exit)(void);
    struct ovsp_flow_stats *(*alloc)(void);
    void (*free)(struct ovsp_flow_stats *);
    void (*update)(struct ovsp_flow_stats *, uint16_t tcp_flags,
                   unsigned int len);
    void (*get)(const struct ovsp_flow_stats *,
                struct ovsp_flow_stats_info *);
    void (*set_one_slot)(bool);     /* The module parameter. */
};

#endif /* kernel-flow-stats-variant.h */

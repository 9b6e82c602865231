/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The entry points of one build of datapath/flow-stats.c, compiled with
 * that build's KSHIM_PREFIX and renames, and with its flow-stats.h first
 * in the include path (kernel-flow-stats-variant.h).
 */
#include "kernel-shim.h"
#include "flow-stats.h"
#include "kernel-flow-stats-variant.h"

/* module_param()'s setter, in that build. */
void KSHIM_SYM(kshim_set_param_flow_stats_one_slot)(bool);

const struct kfs_variant KSHIM_SYM(kfs_variant) = {
    .init = ovsp_flow_stats_init,
    .exit = ovsp_flow_stats_exit,
    .alloc = ovsp_flow_stats_alloc,
    .free = ovsp_flow_stats_free,
    .update = ovsp_flow_stats_update,
    .get = ovsp_flow_stats_get,
    .set_one_slot = KSHIM_SYM(kshim_set_param_flow_stats_one_slot),
};

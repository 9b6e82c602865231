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

/* Debug logging of upcalls and megaflow changes, in dpif-netdev's format. */

#include <config.h>
#include "dp-log.h"

#include "dp-packet.h"
#include "flow-table.h"
#include "odp-util.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/match.h"
#include "openvswitch/ofp-print.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/vlog.h"
#include "ovs-thread.h"

VLOG_DEFINE_THIS_MODULE(dp_log);

/* What the key of a logged or dumped flow may hold: the same as
 * dpif-netdev's, so that logs and dumps read the same. */
const struct odp_support dp_log_odp_support = {
    .max_vlan_headers = SIZE_MAX,
    .max_mpls_depth = SIZE_MAX,
    .recirc = true,
    .ct_state = true,
    .ct_zone = true,
    .ct_mark = true,
    .ct_label = true,
    .ct_state_nat = true,
    .ct_orig_tuple = true,
    .ct_orig_tuple6 = true,
};

/* As dpif-netdev's 'upcall_rl'. */
static struct vlog_rate_limit upcall_rl = VLOG_RATE_LIMIT_INIT(600, 600);

/* Returns the module the lines go to: "dpif_netdev", which libopenvswitch
 * always defines, or ours if it were ever missing. */
static struct vlog_module *
log_module(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;
    static struct vlog_module *module;

    if (ovsthread_once_start(&once)) {
        module = vlog_module_from_name("dpif_netdev");
        if (!module) {
            module = &this_module;
        }
        ovsthread_once_done(&once);
    }
    return module;
}

static bool
should_log(void)
{
    return !vlog_should_drop(log_module(), VLL_DBG, &upcall_rl);
}

/* Logs an upcall of 'type' for 'packet', whose flow is 'flow', as
 * dp_netdev_upcall() does. */
void
dp_log_upcall(const char *dp_name, const struct dp_packet *packet,
              const struct flow *flow, enum dpif_upcall_type type)
{
    struct odp_flow_key_parms parms = {
        .flow = flow,
        .support = dp_log_odp_support,
    };
    struct ds ds = DS_EMPTY_INITIALIZER;
    struct ofpbuf key;
    char *packet_str;

    if (!should_log()) {
        return;
    }
    ofpbuf_init(&key, 0);
    odp_flow_key_from_flow(&parms, &key);
    odp_flow_key_format(key.data, key.size, &ds);
    packet_str = ofp_dp_packet_to_string(packet);
    vlog(log_module(), VLL_DBG, "%s: %s upcall:\n%s\n%s", dp_name,
         dpif_upcall_type_to_string(type), ds_cstr(&ds), packet_str);
    free(packet_str);
    ofpbuf_uninit(&key);
    ds_destroy(&ds);
}

/* Computes the "mega UFID" of 'match': the hash of its masked flow, as
 * dpif-netdev's dp_netdev_get_mega_ufid() does. */
static void
get_mega_ufid(const struct match *match, ovs_u128 *mega_ufid)
{
    const uint8_t *flow = (const uint8_t *) &match->flow;
    const uint8_t *mask = (const uint8_t *) &match->wc;
    struct flow masked;
    uint8_t *out = (uint8_t *) &masked;

    for (size_t i = 0; i < sizeof masked; i++) {
        out[i] = flow[i] & mask[i];
    }
    odp_flow_key_hash(&masked, sizeof masked, mega_ufid);
}

/* Logs the installation of 'flow' for 'match' with 'actions' ("flow_add"),
 * or, if 'old_actions' is nonnull, the change of its actions from those
 * ("flow_mod"), as dpif-netdev's log_netdev_flow_change() does. */
void
dp_log_flow_change(const struct megaflow *flow, const struct match *match,
                   const struct megaflow_actions *old_actions,
                   const struct nlattr *actions, size_t actions_len)
{
    struct odp_flow_key_parms parms = {
        .flow = &match->flow,
        .mask = &match->wc.masks,
        .support = dp_log_odp_support,
    };
    struct ds ds = DS_EMPTY_INITIALIZER;
    struct ofpbuf key, mask;
    ovs_u128 mega_ufid;

    if (!should_log()) {
        return;
    }
    ofpbuf_init(&key, 0);
    ofpbuf_init(&mask, 0);
    odp_flow_key_from_flow(&parms, &key);
    parms.key_buf = &key;
    odp_flow_key_from_mask(&parms, &mask);

    ds_put_cstr(&ds, old_actions ? "flow_mod: " : "flow_add: ");
    odp_format_ufid(megaflow_ufid(flow), &ds);
    ds_put_cstr(&ds, " mega_");
    get_mega_ufid(match, &mega_ufid);
    odp_format_ufid(&mega_ufid, &ds);
    ds_put_char(&ds, ' ');
    odp_flow_format(key.data, key.size, mask.data, mask.size, NULL, &ds,
                    false);
    if (old_actions) {
        ds_put_cstr(&ds, ", old_actions:");
        format_odp_actions(&ds, old_actions->actions, old_actions->size,
                           NULL);
    }
    ds_put_cstr(&ds, ", actions:");
    format_odp_actions(&ds, actions, actions_len, NULL);
    vlog(log_module(), VLL_DBG, "%s", ds_cstr(&ds));

    ofpbuf_uninit(&key);
    ofpbuf_uninit(&mask);
    ds_destroy(&ds);
}

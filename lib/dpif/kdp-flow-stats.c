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

/* A kernel datapath megaflow's per-CPU statistics, read through netlink. */

#include <config.h>
#include "kdp-flow-stats.h"

#include <errno.h>
#include <net/if.h>
#include <string.h>

#include "../../datapath/ovsp-genl.h"
#include "dpif.h"
#include "flow-stats.h"
#include "netlink.h"
#include "netlink-socket.h"
#include "odp-netlink.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/ofpbuf.h"
#include "util.h"

/* The datapath's ifindex (its local port's), or 0. */
static int
dp_ifindex(const char *dp_name)
{
    return dp_name ? if_nametoindex(dp_name) : 0;
}

/* True if the kernel has our module's family and a datapath 'dp_name'
 * (whose local port is a device of that name). */
bool
kdp_flow_stats_has_datapath(const char *dp_name)
{
    int family = 0;    /* nl_lookup_genl_family() looks up only 0. */

    return (dp_ifindex(dp_name)
            && !nl_lookup_genl_family(OVSP_PCPU_FAMILY, &family));
}

/* Asks the module for the slots of flow 'ufid' in datapath 'ifindex'. */
static int
transact(int family, int ifindex, const ovs_u128 *ufid, struct ofpbuf **reply)
{
    struct ovs_header *hdr;
    struct ofpbuf request;
    int error;

    ofpbuf_init(&request, 128);
    nl_msg_put_genlmsghdr(&request, 0, family, NLM_F_REQUEST,
                          OVSP_PCPU_CMD_FLOW_GET, OVSP_PCPU_VERSION);
    hdr = ofpbuf_put_zeros(&request, sizeof *hdr);
    hdr->dp_ifindex = ifindex;
    nl_msg_put_unspec(&request, OVSP_PCPU_ATTR_UFID, ufid, sizeof *ufid);
    error = nl_transact(NETLINK_GENERIC, &request, reply);
    ofpbuf_uninit(&request);
    return error;
}

/* Parses one OVSP_PCPU_ATTR_SLOT into '*cpu' and 'info'; false if it is
 * malformed. */
static bool
parse_slot(const struct nlattr *nla, uint32_t *cpu,
           struct flow_stats_slot_info *info)
{
    static const struct nl_policy policy[] = {
        [OVSP_PCPU_SLOT_ATTR_CPU] = { .type = NL_A_U32 },
        [OVSP_PCPU_SLOT_ATTR_PACKETS] = { .type = NL_A_U64 },
        [OVSP_PCPU_SLOT_ATTR_BYTES] = { .type = NL_A_U64 },
        [OVSP_PCPU_SLOT_ATTR_USED] = { .type = NL_A_U64 },
        [OVSP_PCPU_SLOT_ATTR_TCP_FLAGS] = { .type = NL_A_U16 },
    };
    struct nlattr *a[ARRAY_SIZE(policy)];

    if (!nl_parse_nested(nla, policy, a, ARRAY_SIZE(policy))) {
        return false;
    }
    *cpu = nl_attr_get_u32(a[OVSP_PCPU_SLOT_ATTR_CPU]);
    *info = (struct flow_stats_slot_info) {
        .n_packets = nl_attr_get_u64(a[OVSP_PCPU_SLOT_ATTR_PACKETS]),
        .n_bytes = nl_attr_get_u64(a[OVSP_PCPU_SLOT_ATTR_BYTES]),
        .used = nl_attr_get_u64(a[OVSP_PCPU_SLOT_ATTR_USED]),
        .tcp_flags = nl_attr_get_u16(a[OVSP_PCPU_SLOT_ATTR_TCP_FLAGS]),
    };
    return true;
}

/* Formats the reply: the total, then each slot.  Returns an error message
 * or NULL. */
static const char *
format_reply(struct ofpbuf *reply, const ovs_u128 *ufid, struct ds *s)
{
    static const struct nl_policy policy[] = {
        [OVSP_PCPU_ATTR_N_CPUS] = { .type = NL_A_U32 },
        [OVSP_PCPU_ATTR_ONE_SLOT] = { .type = NL_A_FLAG, .optional = true },
        [OVSP_PCPU_ATTR_ALLOC_FAILURES] = { .type = NL_A_U64 },
    };
    struct nlattr *a[ARRAY_SIZE(policy)];
    struct dpif_flow_stats total = { 0 };
    struct ds slots = DS_EMPTY_INITIALIZER;
    const struct nlattr *nla;
    size_t left;

    if (!nl_msg_genlmsghdr(reply)
        || !ofpbuf_try_pull(reply, NLMSG_HDRLEN + GENL_HDRLEN
                                   + sizeof(struct ovs_header))
        || !nl_policy_parse(reply, 0, policy, a, ARRAY_SIZE(policy))) {
        return "malformed reply from the kernel datapath";
    }
    NL_ATTR_FOR_EACH (nla, left, reply->data, reply->size) {
        struct flow_stats_slot_info info;
        char owner[32];
        uint32_t cpu;

        if (nl_attr_type(nla) != OVSP_PCPU_ATTR_SLOT) {
            continue;
        }
        if (!parse_slot(nla, &cpu, &info)) {
            ds_destroy(&slots);
            return "malformed slot in the kernel datapath's reply";
        }
        snprintf(owner, sizeof owner, "cpu %"PRIu32, cpu);
        flow_stats_format_slot(&slots, cpu, owner, &info);
        total.n_packets += info.n_packets;
        total.n_bytes += info.n_bytes;
        total.used = MAX(total.used, info.used);
        total.tcp_flags |= info.tcp_flags;
    }
    flow_stats_format_total(s, ufid, &total);
    ds_put_buffer(s, slots.string ? slots.string : "", slots.length);
    ds_destroy(&slots);
    if (a[OVSP_PCPU_ATTR_ONE_SLOT]) {
        ds_put_cstr(s, "(flow_stats_one_slot is set: every CPU counts in "
                    "slot 0)\n");
    }
    if (nl_attr_get_u64(a[OVSP_PCPU_ATTR_ALLOC_FAILURES])) {
        ds_put_format(s, "slot allocation failures (all flows): %"PRIu64"\n",
                      nl_attr_get_u64(a[OVSP_PCPU_ATTR_ALLOC_FAILURES]));
    }
    return NULL;
}

/* The ct() counters of the reply, in the order they are printed. */
static const struct {
    int type;
    const char *name;
} ct_counters[] = {
    { OVSP_PCPU_CT_ATTR_NEW, "new" },
    { OVSP_PCPU_CT_ATTR_ESTABLISHED, "established" },
    { OVSP_PCPU_CT_ATTR_RELATED, "related" },
    { OVSP_PCPU_CT_ATTR_INVALID, "invalid" },
    { OVSP_PCPU_CT_ATTR_REFUSED, "refused" },
    { OVSP_PCPU_CT_ATTR_COMMIT_FAILED, "commit failed" },
    { OVSP_PCPU_CT_ATTR_NAT_FAILED, "nat failed" },
    { OVSP_PCPU_CT_ATTR_FRAG_QUEUED, "frag queued" },
    { OVSP_PCPU_CT_ATTR_REASSEMBLED, "reassembled" },
    { OVSP_PCPU_CT_ATTR_FRAG_DROPPED, "frag dropped" },
    { OVSP_PCPU_CT_ATTR_REFRAG_DROPPED, "refrag dropped" },
};

/* Appends "NAME N, ..." for 'values' to 's'. */
static void
format_ct_counters(struct ds *s, const uint64_t *values)
{
    for (size_t i = 0; i < ARRAY_SIZE(ct_counters); i++) {
        ds_put_format(s, "%s%s %"PRIu64, i ? ", " : "", ct_counters[i].name,
                      values[i]);
    }
    ds_put_char(s, '\n');
}

const char *
kdp_ct_stats_format(struct ds *s)
{
    static const struct nl_policy policy[] = {
        [OVSP_PCPU_CT_ATTR_CPU] = { .type = NL_A_U32 },
        [OVSP_PCPU_CT_ATTR_NEW] = { .type = NL_A_U64 },
        [OVSP_PCPU_CT_ATTR_ESTABLISHED] = { .type = NL_A_U64 },
        [OVSP_PCPU_CT_ATTR_RELATED] = { .type = NL_A_U64 },
        [OVSP_PCPU_CT_ATTR_INVALID] = { .type = NL_A_U64 },
        [OVSP_PCPU_CT_ATTR_REFUSED] = { .type = NL_A_U64 },
        [OVSP_PCPU_CT_ATTR_COMMIT_FAILED] = { .type = NL_A_U64 },
        [OVSP_PCPU_CT_ATTR_NAT_FAILED] = { .type = NL_A_U64 },
        /* Optional: a module older than the fragment counters. */
        [OVSP_PCPU_CT_ATTR_FRAG_QUEUED] = { .type = NL_A_U64,
                                            .optional = true },
        [OVSP_PCPU_CT_ATTR_REASSEMBLED] = { .type = NL_A_U64,
                                            .optional = true },
        [OVSP_PCPU_CT_ATTR_FRAG_DROPPED] = { .type = NL_A_U64,
                                             .optional = true },
        [OVSP_PCPU_CT_ATTR_REFRAG_DROPPED] = { .type = NL_A_U64,
                                               .optional = true },
    };
    uint64_t total[ARRAY_SIZE(ct_counters)] = { 0 };
    struct ds cpus = DS_EMPTY_INITIALIZER;
    const char *msg = NULL;
    const struct nlattr *nla;
    struct ovs_header *hdr;
    struct ofpbuf request;
    struct ofpbuf *reply;
    int family = 0;    /* nl_lookup_genl_family() looks up only 0. */
    size_t left;
    int error;

    if (nl_lookup_genl_family(OVSP_PCPU_FAMILY, &family)) {
        return "the ovs_percpu kernel module is not loaded";
    }
    ofpbuf_init(&request, 64);
    nl_msg_put_genlmsghdr(&request, 0, family, NLM_F_REQUEST,
                          OVSP_PCPU_CMD_CT_STATS_GET, OVSP_PCPU_VERSION);
    hdr = ofpbuf_put_zeros(&request, sizeof *hdr);
    error = nl_transact(NETLINK_GENERIC, &request, &reply);
    ofpbuf_uninit(&request);
    if (error) {
        return "the kernel datapath refused the request (a module without "
               "ct() counters?)";
    }
    if (!nl_msg_genlmsghdr(reply)
        || !ofpbuf_try_pull(reply, NLMSG_HDRLEN + GENL_HDRLEN
                                   + sizeof(struct ovs_header))) {
        msg = "malformed reply from the kernel datapath";
        goto out;
    }
    NL_ATTR_FOR_EACH (nla, left, reply->data, reply->size) {
        struct nlattr *a[ARRAY_SIZE(policy)];
        uint64_t values[ARRAY_SIZE(ct_counters)];

        if (nl_attr_type(nla) != OVSP_PCPU_ATTR_CT_SLOT) {
            continue;
        }
        if (!nl_parse_nested(nla, policy, a, ARRAY_SIZE(policy))) {
            msg = "malformed counters in the kernel datapath's reply";
            goto out;
        }
        for (size_t i = 0; i < ARRAY_SIZE(ct_counters); i++) {
            const struct nlattr *v = a[ct_counters[i].type];

            values[i] = v ? nl_attr_get_u64(v) : 0;
            total[i] += values[i];
        }
        ds_put_format(&cpus, "  cpu %"PRIu32": ",
                      nl_attr_get_u32(a[OVSP_PCPU_CT_ATTR_CPU]));
        format_ct_counters(&cpus, values);
    }
    ds_put_cstr(s, "ct() in the kernel datapath, this namespace:\n"
                "  total: ");
    format_ct_counters(s, total);
    ds_put_buffer(s, cpus.string ? cpus.string : "", cpus.length);
out:
    ds_destroy(&cpus);
    ofpbuf_delete(reply);
    return msg;
}

/* Appends to 's' the per-CPU breakdown of flow 'ufid' of kernel datapath
 * 'dp_name'.  Returns NULL, or the error message for the user. */
const char *
kdp_flow_stats_format(const char *dp_name, const ovs_u128 *ufid,
                      struct ds *s)
{
    int ifindex = dp_ifindex(dp_name);
    struct ofpbuf *reply;
    const char *msg;
    int family = 0;    /* nl_lookup_genl_family() looks up only 0. */
    int error;

    if (nl_lookup_genl_family(OVSP_PCPU_FAMILY, &family)) {
        return "no such datapath (the ovs_percpu kernel module is not "
               "loaded)";
    }
    if (!ifindex) {
        return "no such datapath";
    }
    error = transact(family, ifindex, ufid, &reply);
    if (error) {
        return (error == ENOENT ? "no flow with this UFID"
                : error == ENODEV ? "no such datapath"
                : "the kernel datapath refused the request");
    }
    msg = format_reply(reply, ufid, s);
    ofpbuf_delete(reply);
    return msg;
}

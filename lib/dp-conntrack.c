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

/* The datapath's connection tracker, OVS's conntrack, and its reassembly. */

#include <config.h>
#include "dp-conntrack.h"

#include <errno.h>
#include <string.h>

#include "conntrack.h"
#include "dp-ipf.h"
#include "dp-packet.h"
#include "flow.h"
#include "frag-mru.h"
#include "gso.h"
#include "ip-fragment.h"
#include "ipf.h"
#include "ipf-cpu.h"
#include "netlink.h"
#include "odp-netlink.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "packets.h"
#include "random.h"
#include "smap.h"
#include "thread-counters.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dp_conntrack);

/* other_config key that chooses who reassembles fragments for conntrack,
 * and its two values. */
#define CT_FRAG_KEY "ct-frag-reassembly"
#define CT_FRAG_PER_THREAD "per-thread"
#define CT_FRAG_OVS_IPF "ovs-ipf"

/* A datapath's connection tracker. */
struct dp_conntrack {
    struct conntrack *ct;       /* OVS's; thread-safe on its own. */

    /* True to let OVS's ipf.c reassemble fragments; false to reassemble
     * them per thread.  Written by the main thread, read by the forwarding
     * threads at each ct() action. */
    atomic_bool ovs_ipf;

    /* Each forwarding thread's counters, by thread index:
     * DP_CONNTRACK_COUNTERS. */
    struct thread_counters *counters;
};

/* The names of DP_CONNTRACK_COUNTERS, by counter. */
static const char *const dp_conntrack_counter_names[] = {
#define DP_CONNTRACK_COUNTER(ENUM, NAME) NAME,
    DP_CONNTRACK_COUNTERS
#undef DP_CONNTRACK_COUNTER
};

/* The arguments of one ct() action, parsed from its netlink attributes. */
struct ct_action_args {
    bool commit;                /* commit or force. */
    bool force;                 /* force: end a connection of the other
                                 * direction and commit anew. */
    uint16_t zone;              /* Conntrack zone. */
    uint32_t tp_id;             /* Timeout policy, 0 for the default. */
    const char *helper;         /* "ftp", "tftp", or NULL. */
    const uint32_t *setmark;    /* Mark value and mask, or NULL. */
    const struct ovs_key_ct_labels *setlabel; /* Label value and mask, or
                                               * NULL. */
    bool has_nat;               /* 'nat' holds a NAT request. */
    struct nat_action_info_t nat;
};

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

/* Creates a datapath's connection tracker, with per-thread fragment
 * reassembly and counters for 'n_threads' thread indexes.  Main thread. */
struct dp_conntrack *
dp_conntrack_create(size_t n_threads)
{
    struct dp_conntrack *dpct = xzalloc(sizeof *dpct);

    dpct->counters = thread_counters_create(n_threads,
                                            dp_conntrack_counter_names,
                                            DP_CT_N_COUNTERS);
    dpct->ct = conntrack_init();
    atomic_init(&dpct->ovs_ipf, false);
    ipf_set_enabled(conntrack_ipf_ctx(dpct->ct), false, false);
    ipf_set_enabled(conntrack_ipf_ctx(dpct->ct), true, false);
    return dpct;
}

/* Destroys 'dpct' once no forwarding thread can use it.  Main thread. */
void
dp_conntrack_destroy(struct dp_conntrack *dpct)
{
    if (dpct) {
        conntrack_destroy(dpct->ct);
        thread_counters_destroy(dpct->counters);
        free(dpct);
    }
}

/* Adds 'n' to counter 'c' of thread 'thread_index'.  Called only by that
 * thread. */
void
dp_conntrack_count(struct dp_conntrack *dpct, size_t thread_index,
                   enum dp_conntrack_counter c, uint64_t n)
{
    thread_counters_add(dpct->counters, thread_index, c, n);
}

/* Returns the threads' conntrack counters in 'dpct', for the commands that
 * print and clear them. */
struct thread_counters *
dp_conntrack_counters(const struct dp_conntrack *dpct)
{
    return dpct->counters;
}

/* Returns OVS's conntrack in 'dpct', for the ct_* dpif callbacks. */
struct conntrack *
dp_conntrack_get(const struct dp_conntrack *dpct)
{
    return dpct->ct;
}

/* Returns true if OVS's ipf.c reassembles fragments for 'dpct'. */
bool
dp_conntrack_uses_ovs_ipf(const struct dp_conntrack *dpct_)
{
    struct dp_conntrack *dpct = CONST_CAST(struct dp_conntrack *, dpct_);
    bool ovs_ipf;

    atomic_read_relaxed(&dpct->ovs_ipf, &ovs_ipf);
    return ovs_ipf;
}

/* Applies other_config:ct-frag-reassembly ("per-thread", the default, or
 * "ovs-ipf").  Main thread, under the datapath's reconfiguration mutex.
 * Switching leaves the fragments held by the other reassembler to time
 * out. */
void
dp_conntrack_set_config(struct dp_conntrack *dpct, const char *dp_name,
                        const struct smap *other_config)
{
    const char *mode = smap_get_def(other_config, CT_FRAG_KEY,
                                    CT_FRAG_PER_THREAD);
    bool ovs_ipf;

    if (!strcmp(mode, CT_FRAG_OVS_IPF)) {
        ovs_ipf = true;
    } else if (!strcmp(mode, CT_FRAG_PER_THREAD)) {
        ovs_ipf = false;
    } else {
        VLOG_WARN("%s: %s \"%s\" is not \"%s\" or \"%s\"; using \"%s\"",
                  dp_name, CT_FRAG_KEY, mode, CT_FRAG_PER_THREAD,
                  CT_FRAG_OVS_IPF, CT_FRAG_PER_THREAD);
        ovs_ipf = false;
    }
    if (ovs_ipf != dp_conntrack_uses_ovs_ipf(dpct)) {
        struct ipf *ipf = conntrack_ipf_ctx(dpct->ct);

        ipf_set_enabled(ipf, false, ovs_ipf);
        ipf_set_enabled(ipf, true, ovs_ipf);
        atomic_store_relaxed(&dpct->ovs_ipf, ovs_ipf);
        VLOG_INFO("%s: conntrack fragment reassembly: %s", dp_name,
                  ovs_ipf ? "OVS ipf (global lock)" : "per thread");
    }
}

/* Longest helper and timeout policy names, with their NUL, as the Linux
 * datapath accepts them (NF_CT_HELPER_NAME_LEN, CTNL_TIMEOUT_NAME_MAX). */
#define CT_HELPER_NAME_MAX 16
#define CT_TIMEOUT_NAME_MAX 32

/* The payload lengths an attribute may have: 'min' to 'max' bytes; a
 * string holds its NUL within them. */
struct ct_attr_len {
    size_t min, max;
    bool string;
};

/* The OVS_CT_ATTR_* attributes, as the kernel's ovs_ct_attr_lens.  A type
 * with max 0 and not listed as a flag is unknown. */
static const struct ct_attr_len ct_attr_lens[__OVS_CT_ATTR_MAX] = {
    [OVS_CT_ATTR_COMMIT] = { 0, 0, false },
    [OVS_CT_ATTR_FORCE_COMMIT] = { 0, 0, false },
    [OVS_CT_ATTR_ZONE] = { sizeof(uint16_t), sizeof(uint16_t), false },
    [OVS_CT_ATTR_MARK] = { 2 * sizeof(uint32_t), 2 * sizeof(uint32_t),
                           false },
    [OVS_CT_ATTR_LABELS] = { 2 * sizeof(struct ovs_key_ct_labels),
                             2 * sizeof(struct ovs_key_ct_labels), false },
    [OVS_CT_ATTR_HELPER] = { 1, CT_HELPER_NAME_MAX, true },
    [OVS_CT_ATTR_NAT] = { 0, SIZE_MAX, false },
    [OVS_CT_ATTR_EVENTMASK] = { sizeof(uint32_t), sizeof(uint32_t), false },
    [OVS_CT_ATTR_TIMEOUT] = { 1, CT_TIMEOUT_NAME_MAX, true },
};

/* The OVS_NAT_ATTR_* attributes, as the kernel's ovs_nat_attr_lens (an
 * address is IPv4 or IPv6, checked apart). */
static const struct ct_attr_len nat_attr_lens[__OVS_NAT_ATTR_MAX] = {
    [OVS_NAT_ATTR_SRC] = { 0, 0, false },
    [OVS_NAT_ATTR_DST] = { 0, 0, false },
    [OVS_NAT_ATTR_IP_MIN] = { sizeof(ovs_be32), sizeof(struct in6_addr),
                              false },
    [OVS_NAT_ATTR_IP_MAX] = { sizeof(ovs_be32), sizeof(struct in6_addr),
                              false },
    [OVS_NAT_ATTR_PROTO_MIN] = { sizeof(uint16_t), sizeof(uint16_t), false },
    [OVS_NAT_ATTR_PROTO_MAX] = { sizeof(uint16_t), sizeof(uint16_t), false },
    [OVS_NAT_ATTR_PERSISTENT] = { 0, 0, false },
    [OVS_NAT_ATTR_PROTO_HASH] = { 0, 0, false },
    [OVS_NAT_ATTR_PROTO_RANDOM] = { 0, 0, false },
};

/* Returns true if the attributes nested in 'a' are well-formed (each
 * within 'a', none truncated), each of a type 'lens' knows (its entries
 * past 'n_lens' or with max 0 and not 'flags' are unknown) and of a length
 * 'lens' allows, strings NUL-terminated. */
static bool
ct_attrs_valid(const struct nlattr *a, const struct ct_attr_len *lens,
               size_t n_lens, uint32_t flags)
{
    const struct nlattr *b;
    size_t left;

    NL_NESTED_FOR_EACH (b, left, a) {
        unsigned int type = nl_attr_type(b);
        size_t len = nl_attr_get_size(b);
        const struct ct_attr_len *l;

        if (type >= n_lens || (!lens[type].max && !(flags & (1u << type)))) {
            return false;
        }
        l = &lens[type];
        if (len < l->min || len > l->max
            || (l->string && !memchr(nl_attr_get(b), '\0', len))) {
            return false;
        }
    }
    return !left;
}

/* Returns true if the address and port ranges of 'nat', an OVS_CT_ATTR_NAT
 * attribute whose attributes ct_attrs_valid() accepted, are ranges: both
 * ends of an address range of one family, neither range's minimum above its
 * maximum.  OVS's conntrack divides by the range's size (max - min + 1),
 * which is 0 when max is min - 1, and picks addresses and ports outside a
 * range whose minimum is above its maximum.  ofproto never encodes such a
 * range (it refuses them in OpenFlow). */
static bool
nat_ranges_valid(const struct nlattr *nat)
{
    const struct nlattr *ip_min = NULL, *ip_max = NULL;
    int port_min = -1, port_max = -1;
    const struct nlattr *b;
    size_t left;

    NL_NESTED_FOR_EACH (b, left, nat) {
        switch (nl_attr_type(b)) {
        case OVS_NAT_ATTR_IP_MIN:
            ip_min = b;
            break;
        case OVS_NAT_ATTR_IP_MAX:
            ip_max = b;
            break;
        case OVS_NAT_ATTR_PROTO_MIN:
            port_min = nl_attr_get_u16(b);
            break;
        case OVS_NAT_ATTR_PROTO_MAX:
            port_max = nl_attr_get_u16(b);
            break;
        default:
            break;
        }
    }
    if (ip_min && ip_max) {
        size_t len = nl_attr_get_size(ip_min);

        /* Addresses in network byte order compare as byte strings. */
        if (len != nl_attr_get_size(ip_max)
            || memcmp(nl_attr_get(ip_min), nl_attr_get(ip_max), len) > 0) {
            return false;
        }
    }
    return port_min < 0 || port_max < 0 || port_min <= port_max;
}

/* Returns true if 'a', an OVS_ACTION_ATTR_CT action, is one that
 * dp_conntrack_execute() can parse: its attributes well-formed, known, of
 * the lengths the Linux datapath accepts, strings NUL-terminated, the NAT
 * attributes likewise, its NAT ranges ranges (nat_ranges_valid(): found by
 * tests/fuzz/fuzz-ct-action.c, an address range whose maximum was its
 * minimum minus one made OVS's conntrack divide by zero).  The parser
 * trusts all this, as dpif-netdev's does
 * (OVS's nl_attr_get_*() assert the lengths and the NUL, and the nested
 * loops follow the attributes' own lengths), so flow puts and executes
 * check it first (dp_actions_check()): whatever produced the actions,
 * a forwarding thread cannot crash on them.  Any thread. */
bool
dp_conntrack_action_valid(const struct nlattr *a)
{
    const uint32_t ct_flags = (1u << OVS_CT_ATTR_COMMIT)
                              | (1u << OVS_CT_ATTR_FORCE_COMMIT)
                              | (1u << OVS_CT_ATTR_NAT);
    const uint32_t nat_flags = (1u << OVS_NAT_ATTR_SRC)
                               | (1u << OVS_NAT_ATTR_DST)
                               | (1u << OVS_NAT_ATTR_PERSISTENT)
                               | (1u << OVS_NAT_ATTR_PROTO_HASH)
                               | (1u << OVS_NAT_ATTR_PROTO_RANDOM);
    const struct nlattr *b;
    size_t left;

    if (!ct_attrs_valid(a, ct_attr_lens, ARRAY_SIZE(ct_attr_lens),
                        ct_flags)) {
        return false;
    }
    NL_NESTED_FOR_EACH (b, left, a) {
        if (nl_attr_type(b) == OVS_CT_ATTR_NAT) {
            if (!ct_attrs_valid(b, nat_attr_lens, ARRAY_SIZE(nat_attr_lens),
                                nat_flags)
                || !nat_ranges_valid(b)) {
                return false;
            }
        }
    }
    return true;
}

/* Parses the OVS_NAT_ATTR_* attributes nested in 'a' into 'nat'. */
static void
parse_nat(const struct nlattr *a, struct nat_action_info_t *nat)
{
    bool ip_min = false, ip_max = false, port_min = false, port_max = false;
    const struct nlattr *b;
    unsigned int left;

    memset(nat, 0, sizeof *nat);
    NL_NESTED_FOR_EACH_UNSAFE (b, left, a) {
        enum ovs_nat_attr type = nl_attr_type(b);
        size_t len = nl_attr_get_size(b);

        switch (type) {
        case OVS_NAT_ATTR_SRC:
            nat->nat_action |= NAT_ACTION_SRC;
            break;
        case OVS_NAT_ATTR_DST:
            nat->nat_action |= NAT_ACTION_DST;
            break;
        case OVS_NAT_ATTR_IP_MIN:
            memcpy(&nat->min_addr, nl_attr_get(b),
                   MIN(len, sizeof nat->min_addr));
            ip_min = true;
            break;
        case OVS_NAT_ATTR_IP_MAX:
            memcpy(&nat->max_addr, nl_attr_get(b),
                   MIN(len, sizeof nat->max_addr));
            ip_max = true;
            break;
        case OVS_NAT_ATTR_PROTO_MIN:
            nat->min_port = nl_attr_get_u16(b);
            port_min = true;
            break;
        case OVS_NAT_ATTR_PROTO_MAX:
            nat->max_port = nl_attr_get_u16(b);
            port_max = true;
            break;
        case OVS_NAT_ATTR_PERSISTENT:
        case OVS_NAT_ATTR_PROTO_HASH:
        case OVS_NAT_ATTR_PROTO_RANDOM:
            /* OVS's userspace conntrack picks addresses and ports its own
             * way, as with dpif-netdev. */
            break;
        case OVS_NAT_ATTR_UNSPEC:
        case __OVS_NAT_ATTR_MAX:
        default:
            break;
        }
    }

    /* A range given by its minimum alone is that one value. */
    if (ip_min && !ip_max) {
        nat->max_addr = nat->min_addr;
    }
    if (port_min && !port_max) {
        nat->max_port = nat->min_port;
    }
    if (port_min || port_max) {
        if (nat->nat_action & NAT_ACTION_SRC) {
            nat->nat_action |= NAT_ACTION_SRC_PORT;
        } else if (nat->nat_action & NAT_ACTION_DST) {
            nat->nat_action |= NAT_ACTION_DST_PORT;
        }
    }
}

/* Parses the OVS_CT_ATTR_* attributes nested in ct() action 'a' into
 * 'args'.  Pointers in 'args' point into 'a'. */
static void
parse_ct_action(const struct nlattr *a, struct ct_action_args *args)
{
    const struct nlattr *b;
    unsigned int left;

    memset(args, 0, sizeof *args);
    NL_NESTED_FOR_EACH_UNSAFE (b, left, a) {
        enum ovs_ct_attr type = nl_attr_type(b);

        switch (type) {
        case OVS_CT_ATTR_FORCE_COMMIT:
            args->force = true;
            args->commit = true;
            break;
        case OVS_CT_ATTR_COMMIT:
            args->commit = true;
            break;
        case OVS_CT_ATTR_ZONE:
            args->zone = nl_attr_get_u16(b);
            break;
        case OVS_CT_ATTR_HELPER:
            args->helper = nl_attr_get_string(b);
            break;
        case OVS_CT_ATTR_MARK:
            args->setmark = nl_attr_get(b);
            break;
        case OVS_CT_ATTR_LABELS:
            args->setlabel = nl_attr_get(b);
            break;
        case OVS_CT_ATTR_EVENTMASK:
            /* No netlink events in userspace. */
            break;
        case OVS_CT_ATTR_TIMEOUT:
            /* ct_get_timeout_policy_name() named the policy by its id. */
            if (!str_to_uint(nl_attr_get_string(b), 10, &args->tp_id)) {
                VLOG_WARN_RL(&rl, "ct(): timeout policy \"%s\" is not a "
                             "policy id; using the default",
                             nl_attr_get_string(b));
                args->tp_id = 0;
            }
            break;
        case OVS_CT_ATTR_NAT:
            parse_nat(b, &args->nat);
            args->has_nat = true;
            break;
        case OVS_CT_ATTR_UNSPEC:
        case __OVS_CT_ATTR_MAX:
        default:
            break;
        }
    }
    if (args->has_nat && args->nat.nat_action && !args->commit) {
        VLOG_WARN_RL(&rl, "ct(): NAT specified without commit");
    }
}

/* Returns the Ethertype of the network header of 'p', whose l3_ofs is set,
 * or 0 if it has none. */
static ovs_be16
packet_dl_type(const struct dp_packet *p)
{
    ovs_be16 dl_type;

    if (p->packet_type != htonl(PT_ETH)) {
        return pt_ns_type_be(p->packet_type);
    }
    if (p->l3_ofs == UINT16_MAX || p->l3_ofs < ETH_HEADER_LEN) {
        return 0;
    }
    memcpy(&dl_type, (const uint8_t *) dp_packet_data(p) + p->l3_ofs
                     - sizeof dl_type, sizeof dl_type);
    return dl_type;
}

/* Returns true if 'p' may be an IP fragment of a family in 'families'
 * (DP_IPF_CT_V4, DP_IPF_CT_V6): IPv4 with MF or an offset, or any IPv6
 * packet (whose fragment header ipf_cpu_reassemble() finds among its
 * extension headers). */
static bool
maybe_fragment(const struct dp_packet *p, unsigned int families)
{
    ovs_be16 dl_type = packet_dl_type(p);

    if (dl_type == htons(ETH_TYPE_IP)) {
        const struct ip_header *ip = dp_packet_l3(p);

        return ((families & DP_IPF_CT_V4)
                && dp_packet_l3_size(p) >= IP_HEADER_LEN
                && IP_IS_FRAGMENT(ip->ip_frag_off));
    }
    return (families & DP_IPF_CT_V6) && dl_type == htons(ETH_TYPE_IPV6);
}

/* Gives the fragments in 'batch' to 't''s reassembly table 'ipf', for a
 * ct() in conntrack zone 'zone': they leave the batch, and each datagram
 * they complete takes the place of its last fragment, with its headers
 * parsed and its MRU recorded.  Fragments of a family not in 'families'
 * stay in the batch, as they are. */
static void
reassemble_batch(struct ipf_cpu *ipf, unsigned int families, uint16_t zone,
                 struct dp_packet_batch *batch,
                 long long int now_ms, struct dp_conntrack_stats *stats)
{
    size_t n_batch = dp_packet_batch_size(batch);
    struct dp_packet *p;
    size_t i;

    DP_PACKET_BATCH_REFILL_FOR_EACH (i, n_batch, p, batch) {
        struct dp_packet *out;

        if (!maybe_fragment(p, families)) {
            dp_packet_batch_refill(batch, p, i);
            continue;
        }
        out = ipf_cpu_reassemble_ct(ipf, p, now_ms, zone);
        if (out == p) {
            /* IPv6, not a fragment. */
            dp_packet_batch_refill(batch, p, i);
            continue;
        }
        stats->fragments++;
        if (out) {
            struct flow flow;

            stats->reassembled++;
            flow_extract(out, &flow);
            frag_mru_set(out, ipf_cpu_last_mru(ipf));
            dp_packet_batch_refill(batch, out, i);
        }
    }
}

/* Executes ct() action 'a' on 'batch', in place: each packet gets its
 * connection's state in its metadata, and NAT rewrites it.  With per-thread
 * reassembly, fragments are taken out of 'batch' and held in 'ipf' (the
 * calling thread's own table) if their family is in 'ipf_families'
 * (DP_IPF_CT_V4, DP_IPF_CT_V6: dpctl/ipf-set-enabled), and a datagram they
 * complete is put in;
 * with OVS's ipf, conntrack_execute() does the same on its own.
 * 'tp_src' and 'tp_dst' are the transport ports the megaflow matched, or 0:
 * with a helper, a non-zero one names the helper's control port, as in
 * dpif-netdev.  Counts into 'stats', which the caller's thread owns.
 *
 * Called by a forwarding thread, with packets it owns; the ct() actions of
 * one batch come from one megaflow, so its packets share their Ethertype. */
void
dp_conntrack_execute(struct dp_conntrack *dpct, struct ipf_cpu *ipf,
                     unsigned int ipf_families,
                     struct dp_packet_batch *batch,
                     const struct nlattr *a, ovs_be16 tp_src, ovs_be16 tp_dst,
                     long long int now_ms, struct dp_conntrack_stats *stats)
{
    struct ct_action_args args;

    parse_ct_action(a, &args);
    if (!dp_conntrack_uses_ovs_ipf(dpct)) {
        reassemble_batch(ipf, ipf_families, args.zone, batch, now_ms, stats);
    }
    if (dp_packet_batch_is_empty(batch)) {
        return;
    }

    stats->packets += dp_packet_batch_size(batch);
    conntrack_execute(dpct->ct, batch, packet_dl_type(batch->packets[0]),
                      args.force, args.commit, args.zone, args.setmark,
                      args.setlabel, tp_src, tp_dst, args.helper,
                      args.has_nat ? &args.nat : NULL, now_ms, args.tp_id);
}

/* Executes ct_clear on 'batch': its packets forget their connection. */
void
dp_conntrack_clear(struct dp_packet_batch *batch)
{
    struct dp_packet *p;

    DP_PACKET_BATCH_FOR_EACH (i, p, batch) {
        conntrack_clear(p);
    }
}

/* Cuts 'p', a datagram reassembled from fragments of at most 'mru' IP
 * bytes, into fragments of at most 'mru' bytes, handed to 'out' in order,
 * as Linux's ovs_fragment() does on output.  A datagram that fits goes to
 * 'out' whole.  Returns 0 on success, having taken ownership of 'p', with
 * '*cut' telling whether it was cut; otherwise a positive errno value,
 * having freed 'p': EMSGSIZE if 'p' has DF set, EINVAL if it is malformed.
 * For the thread that owns 'p'. */
int
dp_conntrack_refragment(struct dp_packet *p, uint16_t mru,
                        struct gso_output *out, bool *cut)
{
    ovs_be16 dl_type = packet_dl_type(p);
    int error;

    *cut = false;
    frag_mru_clear(p);
    if (p->l3_ofs == UINT16_MAX || dp_packet_l3_size(p) <= mru
        || (dl_type != htons(ETH_TYPE_IP)
            && dl_type != htons(ETH_TYPE_IPV6))) {
        gso_output_put(out, p);
        return 0;
    }
    error = (dl_type == htons(ETH_TYPE_IP)
             ? ip_fragment_v4(p, mru, out)
             /* The original identification is gone with the fragment
              * headers; a random one, as Linux picks for a datagram it
              * fragments, cannot collide with the sender's sequence. */
             : ip_fragment_v6(p, mru, htonl(random_uint32()), out));
    if (error == EMSGSIZE) {
        dp_packet_delete(p);
    }
    *cut = !error;
    return error;
}

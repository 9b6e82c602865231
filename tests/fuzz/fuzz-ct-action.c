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

/* Fuzz target: the ct() action's netlink attributes (lib/dp-conntrack.c),
 * nested OVS_CT_ATTR_* and OVS_NAT_ATTR_* attributes in a flow's actions,
 * at the top of the action list or nested in clone(), sample() and
 * check_pkt_len(), and the check of whole action lists
 * (lib/dp-actions-check.c).
 *
 * Input: one byte whose two low bits choose the packet the actions run on
 * (among fuzz_ct_packets[]: TCP SYN over IPv4, UDP over IPv6, ICMP echo, an
 * FTP PORT command) and whose next two bits choose the mode:
 *   0: the rest is the payload of one OVS_ACTION_ATTR_CT attribute, the
 *      whole action list [ct(...)];
 *   1: one byte N (taken modulo FUZZ_CT_MAX_NESTING), N bytes each naming
 *      a container (low two bits: clone(), sample() of probability 100%,
 *      check_pkt_len() whose "greater" branch the packet takes, or its
 *      "less or equal" branch), then the ct() payload, nested in the N
 *      containers, outermost first;
 *   2 and 3: the rest is a whole action list, as it is.
 * The list goes through dp_actions_check(), as a flow put or an execute
 * does; if the datapath accepts it, odp_execute_actions() runs it, as a
 * forwarding thread does, with a callback that runs ct() through
 * dp_conntrack_execute() and OVS's conntrack (whose connections are
 * flushed after each input) and drops what would leave.  In modes 2 and 3,
 * an accepted list is run only if it holds nothing but those actions,
 * containers and ct_clear: the other actions rewrite the packet in OVS's
 * own code and need the prerequisites that ofproto encodes and that
 * dp_actions_check() does not look for (dp-actions-check.h).
 *
 * Checks: nothing crashes or asserts (OVS's nl_attr_get_*() assert the
 * lengths the parser relies on, odp-execute aborts on attributes it does
 * not expect), under AddressSanitizer, whatever bytes the actions hold; in
 * mode 1, the verdict on the nested list is the one on [ct(...)] alone
 * while the nesting is within DP_ACTIONS_MAX_DEPTH, and EOVERFLOW
 * beyond. */

#include <config.h>
#include "fuzz-common.h"

#include <errno.h>

#include "conntrack.h"
#include "dp-actions-check.h"
#include "dp-conntrack.h"
#include "dp-ipf.h"
#include "dp-packet.h"
#include "flow.h"
#include "ipf-cpu.h"
#include "netlink.h"
#include "odp-execute.h"
#include "odp-netlink.h"
#include "openvswitch/ofpbuf.h"
#include "ovs-rcu.h"
#include "packets.h"
#include "util.h"

/* The packets an input may choose, as hex Ethernet frames (written by
 * scapy). */
static const char *const fuzz_ct_packets[] = {
    "02000000000202000000000108004500002800010000400666cd0a0000010a00"
    "000204d2005000000000000000005002200076be0000",
    "02000000000202000000000186dd60000000000d114020010db8000000000000"
    "00000000000120010db8000000000000000000000002003514e9000d4b6f6865"
    "6c6c6f",
    "02000000000202000000000108004500002000010000400166da0a0000010a00"
    "00020800192d0001000170696e67",
    "02000000000202000000000108004500003d00010000400666b80a0000010a00"
    "000207d0001500000001000000015018200043df0000504f52542031302c302c"
    "302c312c372c3230380d0a",
};

/* Returns the datapath's connection tracker and a reassembly table, made
 * once: conntrack starts a cleanup thread, too costly per input. */
static struct dp_conntrack *
fuzz_conntrack(struct ipf_cpu **ipfp)
{
    static struct dp_conntrack *dpct;
    static struct ipf_cpu *ipf;

    if (!dpct) {
        struct ipf_cpu_config cfg;

        dpct = dp_conntrack_create(1);
        ipf_cpu_config_default(&cfg);
        ipf = ipf_cpu_create(&cfg);
    }
    *ipfp = ipf;
    return dpct;
}

/* Containers mode 1 nests the ct() action in: at most this many, a few
 * more than dp_actions_check() accepts. */
#define FUZZ_CT_MAX_NESTING (DP_ACTIONS_MAX_DEPTH + 4)

/* What one odp_execute_actions() callback needs. */
struct fuzz_ct_exec {
    struct dp_conntrack *dpct;  /* The connection tracker. */
    struct ipf_cpu *ipf;        /* The reassembly table ct() uses. */
    ovs_be16 tp_src, tp_dst;    /* The packet's transport ports. */
};

/* The odp_execute_actions() callback: runs ct() as dp-actions.c does, in
 * place; drops the packets at any other action that needs a datapath
 * (output, userspace, recirculation, meters), when it may take them. */
static void
fuzz_ct_exec_cb(void *aux_, struct dp_packet_batch *batch,
                const struct nlattr *a, bool should_steal)
{
    struct fuzz_ct_exec *aux = aux_;

    if (nl_attr_type(a) == OVS_ACTION_ATTR_CT) {
        struct dp_conntrack_stats stats = { 0 };

        dp_conntrack_execute(aux->dpct, aux->ipf,
                             DP_IPF_CT_V4 | DP_IPF_CT_V6, batch, a,
                             aux->tp_src, aux->tp_dst, 1000, &stats);
    }
    if (should_steal) {
        dp_packet_delete_batch(batch, true);
    }
}

/* Appends to 'actions' the ct() action with payload 'ct' ('len' bytes),
 * nested in the 'n' containers 'kinds' name, outermost first (see mode 1
 * above). */
static void
fuzz_ct_put_nested(struct ofpbuf *actions, const uint8_t *kinds, size_t n,
                   const uint8_t *ct, size_t len)
{
    size_t ofs, inner;

    if (!n) {
        nl_msg_put_unspec(actions, OVS_ACTION_ATTR_CT, ct, len);
        return;
    }
    switch (kinds[0] & 3) {
    case 0:
        ofs = nl_msg_start_nested(actions, OVS_ACTION_ATTR_CLONE);
        fuzz_ct_put_nested(actions, kinds + 1, n - 1, ct, len);
        nl_msg_end_nested(actions, ofs);
        break;
    case 1:
        ofs = nl_msg_start_nested(actions, OVS_ACTION_ATTR_SAMPLE);
        nl_msg_put_u32(actions, OVS_SAMPLE_ATTR_PROBABILITY, UINT32_MAX);
        inner = nl_msg_start_nested(actions, OVS_SAMPLE_ATTR_ACTIONS);
        fuzz_ct_put_nested(actions, kinds + 1, n - 1, ct, len);
        nl_msg_end_nested(actions, inner);
        nl_msg_end_nested(actions, ofs);
        break;
    default: {
        bool greater = (kinds[0] & 3) == 2;

        ofs = nl_msg_start_nested(actions, OVS_ACTION_ATTR_CHECK_PKT_LEN);
        nl_msg_put_u16(actions, OVS_CHECK_PKT_LEN_ATTR_PKT_LEN,
                       greater ? 0 : UINT16_MAX);
        inner = nl_msg_start_nested(actions,
                                    OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_GREATER);
        if (greater) {
            fuzz_ct_put_nested(actions, kinds + 1, n - 1, ct, len);
        }
        nl_msg_end_nested(actions, inner);
        inner = nl_msg_start_nested(
            actions, OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_LESS_EQUAL);
        if (!greater) {
            fuzz_ct_put_nested(actions, kinds + 1, n - 1, ct, len);
        }
        nl_msg_end_nested(actions, inner);
        nl_msg_end_nested(actions, ofs);
        break;
    }
    }
}

/* Returns true if the action list 'actions' ('len' bytes), which
 * dp_actions_check() accepted, holds only actions that leave the packet's
 * headers to ct() and the datapath: containers, ct(), ct_clear, output,
 * userspace, recirculation, meters and truncation. */
static bool
fuzz_ct_only_datapath_actions(const struct nlattr *actions, size_t len)
{
    const struct nlattr *a, *b;
    size_t left, left2;

    NL_ATTR_FOR_EACH (a, left, actions, len) {
        switch (nl_attr_type(a)) {
        case OVS_ACTION_ATTR_CT:
        case OVS_ACTION_ATTR_CT_CLEAR:
        case OVS_ACTION_ATTR_OUTPUT:
        case OVS_ACTION_ATTR_USERSPACE:
        case OVS_ACTION_ATTR_RECIRC:
        case OVS_ACTION_ATTR_METER:
        case OVS_ACTION_ATTR_TRUNC:
            break;
        case OVS_ACTION_ATTR_CLONE:
            if (!fuzz_ct_only_datapath_actions(nl_attr_get(a),
                                               nl_attr_get_size(a))) {
                return false;
            }
            break;
        case OVS_ACTION_ATTR_SAMPLE:
        case OVS_ACTION_ATTR_CHECK_PKT_LEN:
            NL_NESTED_FOR_EACH (b, left2, a) {
                if (nl_attr_type(b) != OVS_SAMPLE_ATTR_PROBABILITY
                    && (nl_attr_type(a) == OVS_ACTION_ATTR_SAMPLE
                        || nl_attr_type(b) != OVS_CHECK_PKT_LEN_ATTR_PKT_LEN)
                    && !fuzz_ct_only_datapath_actions(nl_attr_get(b),
                                                      nl_attr_get_size(b))) {
                    return false;
                }
            }
            break;
        default:
            return false;
        }
    }
    return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = { .data = data, .size = size };
    uint8_t choice = fuzz_take_u8(&in);
    int mode = (choice >> 2) & 3;
    struct fuzz_ct_exec aux;
    struct dp_packet_batch batch;
    struct dp_packet *p;
    struct ofpbuf actions;
    struct flow flow;
    int error;

    fuzz_init();
    ofpbuf_init(&actions, 0);
    if (mode == 0) {
        if (in.size > UINT16_MAX - NLA_HDRLEN) {
            goto out;
        }
        nl_msg_put_unspec(&actions, OVS_ACTION_ATTR_CT, in.data, in.size);
        error = dp_actions_check(actions.data, actions.size);
    } else if (mode == 1) {
        size_t n = fuzz_take_u8(&in) % FUZZ_CT_MAX_NESTING;
        const uint8_t *kinds = in.data;
        struct ofpbuf alone;
        int alone_error;

        n = MIN(n, in.size);
        in.data += n;
        in.size -= n;
        /* Each container adds at most 20 bytes (check_pkt_len(): its own
         * header, the length's and two lists'), ct() its header. */
        if (in.size + 24 * (n + 1) > UINT16_MAX) {
            goto out;
        }
        fuzz_ct_put_nested(&actions, kinds, n, in.data, in.size);
        error = dp_actions_check(actions.data, actions.size);

        ofpbuf_init(&alone, 0);
        nl_msg_put_unspec(&alone, OVS_ACTION_ATTR_CT, in.data, in.size);
        alone_error = dp_actions_check(alone.data, alone.size);
        ofpbuf_uninit(&alone);
        if (n > DP_ACTIONS_MAX_DEPTH) {
            fuzz_check(error == EOVERFLOW, "ct() nested %"PRIuSIZE" deep: "
                       "%d, not EOVERFLOW", n, error);
        } else {
            fuzz_check(error == alone_error, "ct() nested %"PRIuSIZE
                       " deep: %d, alone: %d", n, error, alone_error);
        }
    } else {
        ofpbuf_put(&actions, in.data, in.size);
        error = dp_actions_check(actions.data, actions.size);
        if (!error && !fuzz_ct_only_datapath_actions(actions.data,
                                                     actions.size)) {
            goto out;
        }
    }
    if (error) {
        goto out;
    }

    aux.dpct = fuzz_conntrack(&aux.ipf);
    fuzz_check(!eth_from_hex(fuzz_ct_packets[choice
                                             % ARRAY_SIZE(fuzz_ct_packets)],
                             &p), "packet hex");
    pkt_metadata_init(&p->md, u32_to_odp(1));
    flow_extract(p, &flow);
    aux.tp_src = flow.tp_src;
    aux.tp_dst = flow.tp_dst;
    dp_packet_batch_init_packet(&batch, p);
    odp_execute_actions(&aux, &batch, true, actions.data, actions.size,
                        fuzz_ct_exec_cb);
    conntrack_flush(dp_conntrack_get(aux.dpct), NULL);

out:
    ofpbuf_uninit(&actions);
    /* Conntrack frees flushed connections after an RCU grace period, which
     * ends only once this thread quiesces too, as a forwarding thread does
     * between batches; without it, memory would only grow. */
    ovsrcu_quiesce();
    return 0;
}

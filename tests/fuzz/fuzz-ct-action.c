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
 * nested OVS_CT_ATTR_* and OVS_NAT_ATTR_* attributes in a flow's actions.
 *
 * Input: one byte choosing the packet the action runs on (among
 * fuzz_ct_packets[]: TCP SYN over IPv4, UDP over IPv6, ICMP echo, an FTP
 * PORT command), then the payload of one OVS_ACTION_ATTR_CT attribute.
 * The action list [ct(...)] goes through dp_actions_supported(), as a flow
 * put or an execute does; if the datapath accepts it, dp_conntrack_execute()
 * parses it and runs the packet through OVS's conntrack, whose connections
 * are flushed after each input.
 *
 * Checks: nothing crashes or asserts (OVS's nl_attr_get_*() assert the
 * lengths the parser relies on), under AddressSanitizer, whatever bytes the
 * action holds. */

#include <config.h>
#include "fuzz-common.h"

#include "conntrack.h"
#include "dp-actions.h"
#include "dp-conntrack.h"
#include "dp-packet.h"
#include "flow.h"
#include "ipf-cpu.h"
#include "netlink.h"
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

        dpct = dp_conntrack_create();
        ipf_cpu_config_default(&cfg);
        ipf = ipf_cpu_create(&cfg);
    }
    *ipfp = ipf;
    return dpct;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = { .data = data, .size = size };
    uint8_t choice = fuzz_take_u8(&in);
    struct dp_conntrack_stats stats = { 0 };
    struct dp_conntrack *dpct;
    struct dp_packet_batch batch;
    struct dp_packet *p;
    struct ipf_cpu *ipf;
    struct ofpbuf actions;
    struct flow flow;

    fuzz_init();
    if (in.size > UINT16_MAX - NLA_HDRLEN) {
        return 0;
    }
    ofpbuf_init(&actions, 0);
    nl_msg_put_unspec(&actions, OVS_ACTION_ATTR_CT, in.data, in.size);
    if (!dp_actions_supported(actions.data, actions.size)) {
        ofpbuf_uninit(&actions);
        return 0;
    }

    dpct = fuzz_conntrack(&ipf);
    fuzz_check(!eth_from_hex(fuzz_ct_packets[choice
                                             % ARRAY_SIZE(fuzz_ct_packets)],
                             &p), "packet hex");
    pkt_metadata_init(&p->md, u32_to_odp(1));
    flow_extract(p, &flow);
    dp_packet_batch_init_packet(&batch, p);
    dp_conntrack_execute(dpct, ipf, &batch, actions.data, flow.tp_src,
                         flow.tp_dst, 1000, &stats);
    dp_packet_delete_batch(&batch, true);
    conntrack_flush(dp_conntrack_get(dpct), NULL);
    ofpbuf_uninit(&actions);

    /* Conntrack frees flushed connections after an RCU grace period, which
     * ends only once this thread quiesces too, as a forwarding thread does
     * between batches; without it, memory would only grow. */
    ovsrcu_quiesce();
    return 0;
}

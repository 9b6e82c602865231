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

/* flow-put-benchmark: the rate at which a kernel datapath (ours or Linux's
 * openvswitch.ko, whichever owns the ovs_flow generic netlink family) takes
 * flow puts and flow deletes, with nothing else in the way: no parsing of
 * flow strings, one process start for all of it.
 *
 * Usage: flow-put-benchmark DATAPATH N
 *
 * Puts N distinct exact-match UDP flows (in_port 1, output to port 2) with
 * OVS_FLOW_CMD_NEW, then deletes them with OVS_FLOW_CMD_DEL, in three
 * ways, each request carrying NLM_F_ACK so that every one is confirmed:
 *
 *   key     one request per flow, identified by its key;
 *   ufid    one request per flow, with a UFID besides the key (deletes by
 *           UFID alone), as ovs-vswitchd does;
 *   batch   the UFID requests, FLOW_PUT_BATCH of them per
 *           nl_transact_multiple(), as dpif-netlink's operate batches
 *           ovs-vswitchd's puts and deletes.
 *
 * Prints one "put-MODE RATE" and one "del-MODE RATE" line per mode, in
 * operations per second.  Any request that fails (including a put whose
 * flow exists already) makes the program exit with status 1.
 *
 * This is a measurement, not a test: run by
 * utilities/benchmark/kernel-benchmark-guest.sh in the qemu guest. */

#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "netlink-socket.h"
#include "netlink.h"
#include "odp-netlink.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/types.h"
#include "openvswitch/util.h"
#include "util.h"

/* Requests per nl_transact_multiple() in batch mode: dpif-netlink's
 * OPERATE_MAX_OPS, the most ops ovs-vswitchd hands the kernel at once. */
#define FLOW_PUT_BATCH 50

/* The most flows one run takes: the UDP source port and the low 16 bits of
 * the IPv4 source address tell the flows apart. */
#define FLOW_PUT_MAX (1u << 24)

/* Generic netlink family ids, looked up at start. */
static int dp_family;
static int flow_family;

/* The datapath's ifindex, as every request's ovs_header carries it. */
static int dp_ifindex;

/* Failed requests in this run. */
static unsigned int n_errors;

static double
now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Looks up the datapath named 'name' and stores its ifindex. */
static void
lookup_datapath(const char *name)
{
    struct ofpbuf *request = ofpbuf_new(256);
    struct ofpbuf *reply;
    struct ovs_header *oh;
    int error;

    nl_msg_put_genlmsghdr(request, 0, dp_family, NLM_F_REQUEST | NLM_F_ECHO,
                          OVS_DP_CMD_GET, OVS_DATAPATH_VERSION);
    oh = ofpbuf_put_zeros(request, sizeof *oh);
    nl_msg_put_string(request, OVS_DP_ATTR_NAME, name);
    error = nl_transact(NETLINK_GENERIC, request, &reply);
    ofpbuf_delete(request);
    if (error) {
        ovs_fatal(error, "%s: datapath lookup failed", name);
    }
    oh = ofpbuf_at(reply, NLMSG_HDRLEN + GENL_HDRLEN, sizeof *oh);
    if (!oh) {
        ovs_fatal(0, "%s: short reply to the datapath lookup", name);
    }
    dp_ifindex = oh->dp_ifindex;
    ofpbuf_delete(reply);
}

/* The UFID of flow 'i': any value unique to the flow will do. */
static ovs_u128
flow_ufid(uint32_t i)
{
    ovs_u128 ufid;

    ufid.u32[0] = i;
    ufid.u32[1] = 0x6f767370;   /* Arbitrary, constant. */
    ufid.u32[2] = ~i;
    ufid.u32[3] = 0x62656e63;
    return ufid;
}

/* Appends the key of flow 'i' to 'msg': an exact-match UDP/IPv4 key of the
 * shape ovs-vswitchd sends for a microflow, unique to 'i'. */
static void
put_flow_key(struct ofpbuf *msg, uint32_t i)
{
    static const uint8_t src_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
    static const uint8_t dst_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
    struct ovs_key_ethernet eth;
    struct ovs_key_ipv4 ipv4;
    struct ovs_key_udp udp;
    size_t key_ofs;

    memset(&eth, 0, sizeof eth);
    memcpy(&eth.eth_src, src_mac, sizeof src_mac);
    memcpy(&eth.eth_dst, dst_mac, sizeof dst_mac);

    memset(&ipv4, 0, sizeof ipv4);
    ipv4.ipv4_src = htonl(0x0a030000 | (i >> 16));   /* 10.3.x.x */
    ipv4.ipv4_dst = htonl(0x0a020002);               /* 10.2.0.2 */
    ipv4.ipv4_proto = 17;
    ipv4.ipv4_ttl = 64;
    ipv4.ipv4_frag = OVS_FRAG_TYPE_NONE;

    memset(&udp, 0, sizeof udp);
    udp.udp_src = htons(i & 0xffff);
    udp.udp_dst = htons(2000);

    key_ofs = nl_msg_start_nested(msg, OVS_FLOW_ATTR_KEY);
    nl_msg_put_u32(msg, OVS_KEY_ATTR_PRIORITY, 0);
    nl_msg_put_u32(msg, OVS_KEY_ATTR_IN_PORT, 1);
    nl_msg_put_u32(msg, OVS_KEY_ATTR_SKB_MARK, 0);
    nl_msg_put_unspec(msg, OVS_KEY_ATTR_ETHERNET, &eth, sizeof eth);
    nl_msg_put_be16(msg, OVS_KEY_ATTR_ETHERTYPE, htons(0x0800));
    nl_msg_put_unspec(msg, OVS_KEY_ATTR_IPV4, &ipv4, sizeof ipv4);
    nl_msg_put_unspec(msg, OVS_KEY_ATTR_UDP, &udp, sizeof udp);
    nl_msg_end_nested(msg, key_ofs);
}

/* Returns a new request of 'cmd' for flow 'i', with a UFID if 'ufid'. */
static struct ofpbuf *
flow_request(uint8_t cmd, uint32_t i, bool ufid)
{
    struct ofpbuf *msg = ofpbuf_new(512);
    uint16_t flags = NLM_F_REQUEST | NLM_F_ACK;
    struct ovs_header *oh;

    if (cmd == OVS_FLOW_CMD_NEW) {
        flags |= NLM_F_CREATE | NLM_F_EXCL;
    }
    nl_msg_put_genlmsghdr(msg, 0, flow_family, flags, cmd, OVS_FLOW_VERSION);
    oh = ofpbuf_put_zeros(msg, sizeof *oh);
    oh->dp_ifindex = dp_ifindex;
    if (ufid) {
        nl_msg_put_u128(msg, OVS_FLOW_ATTR_UFID, flow_ufid(i));
        nl_msg_put_u32(msg, OVS_FLOW_ATTR_UFID_FLAGS,
                       OVS_UFID_F_OMIT_KEY | OVS_UFID_F_OMIT_MASK
                       | OVS_UFID_F_OMIT_ACTIONS);
    }
    if (cmd == OVS_FLOW_CMD_NEW || !ufid) {
        put_flow_key(msg, i);
    }
    if (cmd == OVS_FLOW_CMD_NEW) {
        size_t actions_ofs = nl_msg_start_nested(msg, OVS_FLOW_ATTR_ACTIONS);

        nl_msg_put_u32(msg, OVS_ACTION_ATTR_OUTPUT, 2);
        nl_msg_end_nested(msg, actions_ofs);
    }
    return msg;
}

static void
record_error(uint8_t cmd, uint32_t i, int error)
{
    if (error && !n_errors++) {
        fprintf(stderr, "flow-put-benchmark: flow %u: %s: %s\n", i,
                cmd == OVS_FLOW_CMD_NEW ? "put" : "delete",
                ovs_strerror(error));
    }
}

/* Sends 'cmd' for flows 0 to 'n' - 1, one transaction each, and returns the
 * seconds it took. */
static double
run_single(uint8_t cmd, uint32_t n, bool ufid)
{
    struct ofpbuf **requests = xmalloc(n * sizeof *requests);
    double start;
    uint32_t i;

    /* The requests are built before the clock starts: what is measured is
     * the kernel's side and the netlink round trip. */
    for (i = 0; i < n; i++) {
        requests[i] = flow_request(cmd, i, ufid);
    }
    start = now();
    for (i = 0; i < n; i++) {
        record_error(cmd, i, nl_transact(NETLINK_GENERIC, requests[i], NULL));
    }
    start = now() - start;
    for (i = 0; i < n; i++) {
        ofpbuf_delete(requests[i]);
    }
    free(requests);
    return start;
}

/* Sends 'cmd' with UFIDs for flows 0 to 'n' - 1, FLOW_PUT_BATCH per
 * nl_transact_multiple(), and returns the seconds it took. */
static double
run_batch(uint8_t cmd, uint32_t n)
{
    struct nl_transaction *txns = xcalloc(n, sizeof *txns);
    struct nl_transaction *txnp[FLOW_PUT_BATCH];
    double start;
    uint32_t i;

    for (i = 0; i < n; i++) {
        txns[i].request = flow_request(cmd, i, true);
    }
    start = now();
    for (i = 0; i < n; i += FLOW_PUT_BATCH) {
        uint32_t count = MIN(FLOW_PUT_BATCH, n - i);
        uint32_t j;

        for (j = 0; j < count; j++) {
            txnp[j] = &txns[i + j];
        }
        nl_transact_multiple(NETLINK_GENERIC, txnp, count);
        for (j = 0; j < count; j++) {
            record_error(cmd, i + j, txns[i + j].error);
        }
    }
    start = now() - start;
    for (i = 0; i < n; i++) {
        ofpbuf_delete(txns[i].request);
    }
    free(txns);
    return start;
}

static void
report(const char *mode, const char *what, uint32_t n, double seconds)
{
    printf("%s-%s %.0f\n", what, mode, seconds > 0 ? n / seconds : 0.0);
    fflush(stdout);
}

int
main(int argc, char *argv[])
{
    static const char *const modes[] = { "key", "ufid", "batch" };
    unsigned long n;
    char *end;
    int error;
    int m;

    set_program_name(argv[0]);
    if (argc != 3) {
        ovs_fatal(0, "usage: %s DATAPATH N", argv[0]);
    }
    n = strtoul(argv[2], &end, 10);
    if (*end || !n || n > FLOW_PUT_MAX) {
        ovs_fatal(0, "N must be a number from 1 to %u", FLOW_PUT_MAX);
    }

    error = nl_lookup_genl_family(OVS_DATAPATH_FAMILY, &dp_family);
    if (!error) {
        error = nl_lookup_genl_family(OVS_FLOW_FAMILY, &flow_family);
    }
    if (error) {
        ovs_fatal(error, "no kernel datapath (generic netlink families)");
    }
    lookup_datapath(argv[1]);

    for (m = 0; m < ARRAY_SIZE(modes); m++) {
        bool batch = m == 2;
        bool ufid = m > 0;
        double put, del;

        put = (batch ? run_batch(OVS_FLOW_CMD_NEW, n)
               : run_single(OVS_FLOW_CMD_NEW, n, ufid));
        del = (batch ? run_batch(OVS_FLOW_CMD_DEL, n)
               : run_single(OVS_FLOW_CMD_DEL, n, ufid));
        if (n_errors) {
            ovs_fatal(0, "%s: %u requests failed", modes[m], n_errors);
        }
        report(modes[m], "put", n, put);
        report(modes[m], "del", n, del);
    }
    return 0;
}

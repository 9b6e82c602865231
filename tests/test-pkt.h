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

#ifndef TEST_PKT_H
#define TEST_PKT_H 1

/* Helpers shared by the unit tests that build and cut packets (test-gso,
 * test-ip-fragment, test-gro, test-afpacket-rx, test-afpacket-vnet): a
 * sink that collects what a 'struct gso_output' emits, checksum checks
 * written independently of the code under test, from OVS's csum() over the
 * raw bytes, big-endian accessors for building packets byte by byte, and
 * the formatters of flags that the tests print. */

#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "csum.h"
#include "dp-packet.h"
#include "gso.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/util.h"
#include "packets.h"
#include "test-harness.h"
#include "util.h"

/* Collects packets in order.  The batch that the code under test fills is
 * flushed into 'pkts' by test_sink_flush(), which counts its calls. */
struct test_sink {
    struct dp_packet_batch batch;   /* The batch under test. */
    struct gso_output out;          /* Points to 'batch' and the callback. */
    struct dp_packet **pkts;        /* Packets collected so far, in order. */
    size_t n_pkts;                  /* Number of packets in 'pkts'. */
    size_t allocated;               /* Room in 'pkts'. */
    int n_flushes;                  /* Calls to test_sink_flush(). */
    size_t flush_sizes[8];          /* Batch sizes of the first flushes. */
};

/* Moves the packets of 'batch' to the end of 'sink'. */
static inline void
test_sink_take(struct test_sink *sink, struct dp_packet_batch *batch)
{
    struct dp_packet *pkt;

    DP_PACKET_BATCH_FOR_EACH (i, pkt, batch) {
        if (sink->n_pkts >= sink->allocated) {
            sink->pkts = x2nrealloc(sink->pkts, &sink->allocated,
                                    sizeof *sink->pkts);
        }
        sink->pkts[sink->n_pkts++] = pkt;
    }
    dp_packet_batch_init(batch);
}

/* The flush callback of 'struct gso_output'. */
static inline void
test_sink_flush(struct dp_packet_batch *batch, void *sink_)
{
    struct test_sink *sink = sink_;

    if (!dp_packet_batch_is_full(batch)) {
        test_fail("flush called on a batch of %"PRIuSIZE" packets, "
                  "expected a full batch of %d",
                  dp_packet_batch_size(batch), NETDEV_MAX_BURST);
    }
    if (sink->n_flushes < ARRAY_SIZE(sink->flush_sizes)) {
        sink->flush_sizes[sink->n_flushes] = dp_packet_batch_size(batch);
    }
    sink->n_flushes++;
    test_sink_take(sink, batch);
}

static inline void
test_sink_init(struct test_sink *sink)
{
    memset(sink, 0, sizeof *sink);
    dp_packet_batch_init(&sink->batch);
    sink->out.batch = &sink->batch;
    sink->out.flush = test_sink_flush;
    sink->out.aux = sink;
}

/* Moves what is left in the batch into 'sink->pkts', as the caller of
 * gso_segment() does after the call. */
static inline void
test_sink_drain(struct test_sink *sink)
{
    test_sink_take(sink, &sink->batch);
}

/* Frees the packets of 'sink' and forgets them. */
static inline void
test_sink_clear(struct test_sink *sink)
{
    for (size_t i = 0; i < sink->n_pkts; i++) {
        dp_packet_delete(sink->pkts[i]);
    }
    dp_packet_delete_batch(&sink->batch, true);
    dp_packet_batch_init(&sink->batch);
    sink->n_pkts = 0;
    sink->n_flushes = 0;
}

static inline void
test_sink_destroy(struct test_sink *sink)
{
    test_sink_clear(sink);
    free(sink->pkts);
}

/* Returns true if the IPv4 header 'ip' has a valid checksum. */
static inline bool
test_ipv4_csum_ok(const void *ip_)
{
    const uint8_t *ip = ip_;

    return csum(ip, (ip[0] & 0xf) * 4) == 0;
}

/* Returns OVS's csum() over the pseudo-header of the IPv4 or IPv6 header at
 * 'l3' followed by the 'l4_len' bytes at 'l4' of transport protocol
 * 'proto': 0 if their checksum is valid; their checksum if its field holds
 * 0.  The pseudo-header is laid out byte by byte here (RFC 793, RFC 8200
 * section 8.1), not taken from the library. */
static inline uint16_t
test_l4_csum(const uint8_t *l3, bool is_ipv6, const uint8_t *l4,
             size_t l4_len, uint8_t proto)
{
    uint8_t *buf = xmalloc(40 + l4_len);
    uint16_t sum;
    size_t n = 0;

    if (is_ipv6) {
        memcpy(buf, l3 + 8, 32);                 /* Source, destination. */
        buf[32] = l4_len >> 24;
        buf[33] = l4_len >> 16;
        buf[34] = l4_len >> 8;
        buf[35] = l4_len;
        buf[36] = buf[37] = buf[38] = 0;
        buf[39] = proto;
        n = 40;
    } else {
        memcpy(buf, l3 + 12, 8);                 /* Source, destination. */
        buf[8] = 0;
        buf[9] = proto;
        buf[10] = l4_len >> 8;
        buf[11] = l4_len;
        n = 12;
    }
    memcpy(buf + n, l4, l4_len);
    sum = ntohs(csum(buf, n + l4_len));
    free(buf);
    return sum;
}

/* Returns true if the 'l4_len' bytes at 'l4', transport protocol 'proto',
 * carried by the IPv4 or IPv6 header at 'l3', have a valid checksum. */
static inline bool
test_l4_csum_ok(const uint8_t *l3, bool is_ipv6, const uint8_t *l4,
                size_t l4_len, uint8_t proto)
{
    return test_l4_csum(l3, is_ipv6, l4, l4_len, proto) == 0;
}

/* Returns the symbolic name of errno value 'error', or 0. */
static inline const char *
test_errno_name(int error)
{
    switch (error) {
    case 0: return "0";
    case EINVAL: return "EINVAL";
    case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
    case E2BIG: return "E2BIG";
    case EMSGSIZE: return "EMSGSIZE";
    case ERANGE: return "ERANGE";
    default: return "other";
    }
}

/* Reads a big-endian 16-bit or 32-bit value at 'p'. */
static inline uint16_t
test_get16(const uint8_t *p)
{
    return (p[0] << 8) | p[1];
}

static inline uint32_t
test_get32(const uint8_t *p)
{
    return ((uint32_t) test_get16(p) << 16) | test_get16(p + 2);
}

/* Stores 'v' in network byte order at 'p', 16 or 32 bits. */
static inline void
test_put16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v;
}

static inline void
test_put32(uint8_t *p, uint32_t v)
{
    test_put16(p, v >> 16);
    test_put16(p + 2, v);
}

/* The name a test prints for one flag bit. */
struct test_flag_name {
    uint64_t flag;              /* The bit. */
    const char *name;           /* What to print when it is set. */
};

/* Appends to 's' the names of those of the 'n' flags of 'names' that
 * 'flags' has, in the table's order, separated by commas, or "none". */
static inline void
test_format_flags(struct ds *s, uint64_t flags,
                  const struct test_flag_name *names, size_t n)
{
    size_t start = s->length;

    for (size_t i = 0; i < n; i++) {
        if (flags & names[i].flag) {
            ds_put_format(s, "%s%s", s->length > start ? "," : "",
                          names[i].name);
        }
    }
    if (s->length == start) {
        ds_put_cstr(s, "none");
    }
}

/* Appends to 's' TCP flags 'flags' as "fin|psh|ack"..., or "none". */
static inline void
test_format_tcp_flags(struct ds *s, uint16_t flags)
{
    bool first = true;

    for (int bit = 0; bit < 12; bit++) {
        if (flags & (1 << bit)) {
            ds_put_format(s, "%s%s", first ? "" : "|",
                          packet_tcp_flag_to_string(1 << bit));
            first = false;
        }
    }
    if (first) {
        ds_put_cstr(s, "none");
    }
}

#endif /* test-pkt.h */

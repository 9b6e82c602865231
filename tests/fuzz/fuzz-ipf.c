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

/* Fuzz target: per-thread IPv4 and IPv6 fragment reassembly
 * (lib/packet/ipf-cpu.c), fed a sequence of fragments.
 *
 * Input: one byte of table limits, then records (fuzz-common.h), each a
 * packet offered to the table in turn.  Limits byte: bits 0-2 choose the
 * high memory threshold, (n + 1) * FUZZ_IPF_MEM_UNIT (the low threshold is
 * FUZZ_IPF_MEM_UNIT / 2 below), so that eviction happens; bits 3-4 the
 * timeout, from fuzz_ipf_timeouts[]; bit 5 set, each record's bytes start
 * with a use byte, and ct() may hold FUZZ_IPF_CT_MAX_FRAGS fragments.  Use
 * byte: bit 0 offers the packet for ct() (ipf_cpu_reassemble_ct()), else
 * as a tunnel's (ipf_cpu_reassemble()); bits 1-2 its zone, bit 3 its
 * md.recirc_id (0 or 1), both part of a ct() datagram's key.  Control byte
 * of a record:
 *   bit 0    an Ethernet frame (else an L3 packet, PT_IPV4 or PT_IPV6 by
 *            its first nibble), l3_ofs set as the datapath's key
 *            extraction would;
 *   bit 1    fix its IPv4 header checksum first;
 *   bit 2    give it tunnel metadata (part of the datagram's key);
 *   bit 3    run the table's timer before it, as a busy thread does:
 *            ipf_cpu_expire() with a budget of 1 to 4 (bits 4-5 + 1);
 *   bits 4-7 how far the clock advances before it, in units of
 *            FUZZ_IPF_TICK_MS.
 *
 * Checks, on every datagram reassembled: l3_ofs set; an IPv4 datagram with
 * MF and offset clear, a total length equal to its L3 size and a valid
 * header checksum; an IPv6 datagram whose payload length matches its L3
 * size; for the same use, zone and recirc_id as the fragment that completed
 * it (its first fragment's, whose metadata it takes: the target marks each
 * packet's with its use, in md.pkt_mark, which no key holds).  After every
 * fragment, the memory account is at most the high threshold and the
 * fragments held for ct() at most its limit; ipf_cpu_expire() frees at
 * most its budget, and counts what it frees as timed out; once every
 * timeout has passed, nothing is held. */

#include <config.h>
#include "fuzz-common.h"

#include <netinet/ip6.h>

#include "csum.h"
#include "dp-packet.h"
#include "ipf-cpu.h"
#include "packets.h"

/* Memory thresholds come in units of this many bytes. */
#define FUZZ_IPF_MEM_UNIT (16 * 1024)

/* One clock step of a record's control byte, in ms: 15 steps cover the
 * shortest timeout. */
#define FUZZ_IPF_TICK_MS 20

/* The timeouts a fuzz input may choose, in ms. */
static const long long int fuzz_ipf_timeouts[4] = { 100, 300, 1000, 30000 };

/* The most fragments ct() may hold, in inputs whose records have a use
 * byte: few, so that the limit is met. */
#define FUZZ_IPF_CT_MAX_FRAGS 8

/* Checks datagram 'p' that the table returned. */
static void
check_reassembled(const struct dp_packet *p)
{
    const uint8_t *l3 = dp_packet_l3(p);
    size_t l3_size;

    fuzz_check(l3 != NULL, "reassembled packet without l3_ofs");
    l3_size = dp_packet_l3_size(p);
    if ((l3[0] >> 4) == 4) {
        const struct ip_header *ip = (const struct ip_header *) l3;
        size_t ihl = IP_IHL(ip->ip_ihl_ver) * 4;

        fuzz_check(l3_size >= IP_HEADER_LEN && ihl >= IP_HEADER_LEN
                   && ihl <= l3_size, "reassembled IPv4 header length");
        fuzz_check(ntohs(ip->ip_tot_len) == l3_size, "reassembled IPv4 "
                   "total length %u, L3 size %"PRIuSIZE,
                   ntohs(ip->ip_tot_len), l3_size);
        fuzz_check(!IP_IS_FRAGMENT(ip->ip_frag_off),
                   "reassembled IPv4 is a fragment");
        fuzz_check(!csum(ip, ihl), "reassembled IPv4 header checksum");
    } else {
        const struct ovs_16aligned_ip6_hdr *ip6 = (const void *) l3;

        fuzz_check((l3[0] >> 4) == 6 && l3_size >= IPV6_HEADER_LEN,
                   "reassembled packet is neither IPv4 nor IPv6");
        fuzz_check(IPV6_HEADER_LEN + ntohs(ip6->ip6_plen) == l3_size,
                   "reassembled IPv6 payload length %u, L3 size %"PRIuSIZE,
                   ntohs(ip6->ip6_plen), l3_size);
    }
    fuzz_check(dp_packet_size(p) <= UINT16_MAX, "reassembled size");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = { .data = data, .size = size };
    uint8_t limits = fuzz_take_u8(&in);
    bool uses = limits & 0x20;
    struct ipf_cpu_config cfg;
    struct ipf_cpu_stats st;
    struct fuzz_record r;
    struct ipf_cpu *ipf;
    long long int now = 0;

    fuzz_init();
    ipf_cpu_config_default(&cfg);
    cfg.high_thresh = ((limits & 7) + 1) * FUZZ_IPF_MEM_UNIT;
    cfg.low_thresh = cfg.high_thresh - FUZZ_IPF_MEM_UNIT / 2;
    cfg.timeout_ms = fuzz_ipf_timeouts[(limits >> 3) & 3];
    if (uses) {
        cfg.max_frags = FUZZ_IPF_CT_MAX_FRAGS;
    }
    ipf = ipf_cpu_create(&cfg);

    while (fuzz_take_record(&in, &r)) {
        struct dp_packet *p, *out;
        uint32_t mark;
        uint8_t use = 0;
        ovs_be32 type;

        if (uses && r.len) {
            use = r.bytes[0];
            r.bytes++;
            r.len--;
        }
        if (r.ctl & 1) {
            type = htonl(PT_ETH);
        } else {
            type = htonl(r.len && (r.bytes[0] >> 4) == 6 ? PT_IPV6 : PT_IPV4);
        }
        p = fuzz_packet(r.bytes, r.len, type);
        p->md.recirc_id = (use >> 3) & 1;
        mark = use & 1 ? use & 0xf : 0;
        p->md.pkt_mark = mark;
        fuzz_set_l3_ofs(p);
        if (r.ctl & 2) {
            fuzz_fix_ipv4_csums(p);
        }
        if (r.ctl & 4) {
            p->md.tunnel.ip_src = htonl(0xc0000201);
            p->md.tunnel.ip_dst = htonl(0xc0000202);
        }
        now += (r.ctl >> 4) * FUZZ_IPF_TICK_MS;
        if (r.ctl & 8) {
            size_t budget = ((r.ctl >> 4) & 3) + 1;
            uint64_t timed_out;
            size_t n;

            ipf_cpu_get_stats(ipf, &st);
            timed_out = st.timed_out;
            n = ipf_cpu_expire(ipf, now, budget);
            ipf_cpu_get_stats(ipf, &st);
            fuzz_check(n <= budget && st.timed_out == timed_out + n,
                       "expired %"PRIuSIZE" with a budget of %"PRIuSIZE
                       ", timed out %"PRIu64" -> %"PRIu64, n, budget,
                       timed_out, st.timed_out);
        }

        out = (use & 1
               ? ipf_cpu_reassemble_ct(ipf, p, now, (use >> 1) & 3)
               : ipf_cpu_reassemble(ipf, p, now));
        if (out && out != p) {
            check_reassembled(out);
            /* One datagram's fragments share their use, and for ct()
             * their zone and recirc_id too. */
            fuzz_check(out->md.pkt_mark == mark,
                       "reassembled by a fragment marked 0x%"PRIx32" from "
                       "one marked 0x%"PRIx32, mark, out->md.pkt_mark);
        }
        dp_packet_delete(out);

        ipf_cpu_get_stats(ipf, &st);
        fuzz_check(st.bytes_held <= cfg.high_thresh, "%"PRIu64" bytes held, "
                   "high threshold %"PRIuSIZE, st.bytes_held,
                   cfg.high_thresh);
        fuzz_check(st.frags_held <= cfg.max_frags, "%"PRIu64" fragments held "
                   "for ct(), at most %"PRIuSIZE, st.frags_held,
                   cfg.max_frags);
    }
    ipf_cpu_run(ipf, now + cfg.timeout_ms + 1);
    ipf_cpu_get_stats(ipf, &st);
    fuzz_check(!st.queues && !st.bytes_held, "%"PRIu64" queues and %"PRIu64
               " bytes held after every timeout", st.queues, st.bytes_held);
    ipf_cpu_destroy(ipf);
    return 0;
}

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

#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H 1

/* What the fuzz targets in tests/fuzz/ share: the input reader, packet
 * construction and the check that turns a broken promise of the code under
 * test into a crash libFuzzer reports.
 *
 * Each target defines LLVMFuzzerTestOneInput().  Built with
 * --enable-fuzzing, libFuzzer supplies main(); otherwise fuzz-main.c does,
 * running the target once on each file named on the command line, which is
 * how the test suite replays the seed corpora and the crash regressions.
 *
 * Input format shared by the targets that take a sequence of packets: a
 * series of records, each one control byte (its meaning is the target's),
 * a 16-bit big-endian length, then that many bytes (fewer if the input
 * ends first).  tests/fuzz/make-corpus.py writes seeds in this format.
 *
 * Threads: single-threaded, as libFuzzer runs a target. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "openvswitch/compiler.h"
#include "openvswitch/types.h"

struct dp_packet;

/* The unread part of one fuzz input. */
struct fuzz_input {
    const uint8_t *data;        /* Next unread byte. */
    size_t size;                /* Bytes left. */
};

/* One record of a packet sequence, pointing into the input. */
struct fuzz_record {
    uint8_t ctl;                /* The control byte. */
    const uint8_t *bytes;       /* The record's bytes... */
    size_t len;                 /* ...and how many. */
};

/* Headroom in front of the packets the targets build, as a netdev leaves
 * (DP_NETDEV_HEADROOM in OVS is 128 bytes). */
#define FUZZ_HEADROOM 128

/* The longest packet the targets build: OVS 3.1 records a dp_packet's
 * allocation, headroom included, in 16 bits, so no packet of the datapath
 * is longer.  Longer inputs are cut to this.  A netdev can be handed
 * longer frames, though: the afpacket targets (fuzz-afpacket-rx.c,
 * fuzz-afpacket-vnet.c) take frames of any length, as Linux hands them
 * over, and check that what comes out fits. */
#define FUZZ_MAX_PACKET (UINT16_MAX - FUZZ_HEADROOM)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

void fuzz_init(void);
uint8_t fuzz_take_u8(struct fuzz_input *);
uint16_t fuzz_take_be16(struct fuzz_input *);
bool fuzz_take_record(struct fuzz_input *, struct fuzz_record *);
struct dp_packet *fuzz_packet(const uint8_t *bytes, size_t len,
                              ovs_be32 packet_type);
void fuzz_set_l3_ofs(struct dp_packet *);
void fuzz_fix_ipv4_csums(struct dp_packet *);
void fuzz_fix_outer_ipv4_csum(struct dp_packet *);
bool fuzz_l4_csum_ok(const struct dp_packet *, bool ip_hdr_too);
void fuzz_check(bool cond, const char *format, ...)
    OVS_PRINTF_FORMAT(2, 3);

#endif /* fuzz-common.h */

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

/* Fuzz target: header keys (lib/flow/header-key.h), which the exact-match
 * cache compares instead of miniflows for received frames of the commonest
 * shape.
 *
 * Input: records (fuzz-common.h).  The first is a frame, received on the
 * port its control byte names.  Each later one changes a copy of that
 * frame: its bytes are pairs (position, value XOR-ed into the byte at that
 * position modulo the copy's length), and its control byte, as a signed
 * number, is added to the copy's length (bytes beyond the frame are
 * zeros).
 *
 * If the first record's control byte has its top bit set, the frame is a
 * decapsulated packet's, received on the port the other 7 bits name, and
 * the next record is its tunnel metadata: the first FUZZ_TNL_BYTES bytes
 * of a 'struct flow_tnl' (the fields before the options, the IPv4 and the
 * IPv6 addresses among them, so that an input is an IPv4 tunnel's, an
 * IPv6 one's or neither's, the present word, the tunnel table pointer,
 * which nothing reads, and the first options), the rest zero.  Then a
 * later record whose control byte has its top bit set changes a copy of
 * that metadata instead, by its (position, XOR) pairs, each position
 * modulo FUZZ_TNL_BYTES; one whose top bit is clear changes a copy of the
 * frame as above, its control byte less 64 added to the copy's length.
 *
 * Checks (tests/header-key-check.h), against OVS's miniflow_extract(): a
 * frame with a header key (or, decapsulated, a tunnel header key) gets
 * miniflow_extract()'s layer offsets, padding, RSS hash and TCP flags; the
 * frame and each copy, if they have equal header keys, have equal
 * miniflows. */

#include <config.h>
#include "fuzz-common.h"

#include <stdlib.h>
#include <string.h>

#include "flow.h"
#include "header-key.h"
#include "header-key-check.h"
#include "util.h"

/* Longest copy: the frame's length plus the most a control byte adds. */
#define FUZZ_HEADER_KEY_MAX (FUZZ_MAX_PACKET + INT8_MAX)

/* The control byte bit that makes a decapsulated packet, or a record that
 * changes its tunnel metadata. */
#define FUZZ_TNL_BIT 0x80

/* Bytes of tunnel metadata an input sets and changes: every field a tunnel
 * header key reads (header_key_fill_tunnel()) and 8 bytes more. */
#define FUZZ_TNL_BYTES (offsetof(struct flow_tnl, metadata.opts) \
                        + HEADER_KEY_TNL_OPT_BYTES + 8)

/* Length change of a frame copy that control byte 'ctl' asks for. */
static int
fuzz_len_change(uint8_t ctl, bool tunnel)
{
    return tunnel ? ctl - 64 : (int8_t) ctl;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = { .data = data, .size = size };
    struct fuzz_record frame, r;
    struct flow_tnl tnl, tnl_copy;
    odp_port_t in_port;
    bool tunnel;
    uint8_t *copy;
    char *error;

    fuzz_init();
    if (!fuzz_take_record(&in, &frame)) {
        return 0;
    }
    frame.len = MIN(frame.len, FUZZ_MAX_PACKET);
    tunnel = frame.ctl & FUZZ_TNL_BIT;
    in_port = u32_to_odp(tunnel ? frame.ctl & ~FUZZ_TNL_BIT : frame.ctl);
    if (tunnel) {
        if (!fuzz_take_record(&in, &r)) {
            return 0;
        }
        memset(&tnl, 0, sizeof tnl);
        memcpy(&tnl, r.bytes, MIN(r.len, FUZZ_TNL_BYTES));
        header_key_check_tunnel_frame(frame.bytes, frame.len, &tnl, in_port,
                                      &error);
    } else {
        header_key_check_frame(frame.bytes, frame.len, in_port, &error);
    }
    fuzz_check(!error, "frame: %s", error ? error : "");

    copy = xmalloc(FUZZ_HEADER_KEY_MAX);
    while (fuzz_take_record(&in, &r)) {
        long long int len = frame.len;

        memset(copy, 0, FUZZ_HEADER_KEY_MAX);
        memcpy(copy, frame.bytes, frame.len);
        if (tunnel) {
            tnl_copy = tnl;
        }
        if (tunnel && r.ctl & FUZZ_TNL_BIT) {
            for (size_t i = 0; i + 1 < r.len; i += 2) {
                ((uint8_t *) &tnl_copy)[r.bytes[i] % FUZZ_TNL_BYTES]
                    ^= r.bytes[i + 1];
            }
        } else {
            len = MAX(len + fuzz_len_change(r.ctl, tunnel), 0);
            for (size_t i = 0; len && i + 1 < r.len; i += 2) {
                copy[r.bytes[i] % len] ^= r.bytes[i + 1];
            }
        }
        if (tunnel) {
            header_key_check_tunnel_pair(frame.bytes, frame.len, &tnl, copy,
                                         len, &tnl_copy, in_port, &error);
        } else {
            header_key_check_pair(frame.bytes, frame.len, copy, len, in_port,
                                  &error);
        }
        fuzz_check(!error, "copy of %lld bytes: %s", len, error ? error : "");
    }
    free(copy);
    return 0;
}

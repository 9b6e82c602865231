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
 * Checks (tests/header-key-check.h), against OVS's miniflow_extract(): a
 * frame with a header key gets miniflow_extract()'s layer offsets, padding,
 * RSS hash and TCP flags; the frame and each copy, if they have equal
 * header keys, have equal miniflows. */

#include <config.h>
#include "fuzz-common.h"

#include <stdlib.h>
#include <string.h>

#include "flow.h"
#include "header-key-check.h"
#include "util.h"

/* Longest copy: the frame's length plus the most a control byte adds. */
#define FUZZ_HEADER_KEY_MAX (FUZZ_MAX_PACKET + INT8_MAX)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = { .data = data, .size = size };
    struct fuzz_record frame, r;
    odp_port_t in_port;
    uint8_t *copy;
    char *error;

    fuzz_init();
    if (!fuzz_take_record(&in, &frame)) {
        return 0;
    }
    frame.len = MIN(frame.len, FUZZ_MAX_PACKET);
    in_port = u32_to_odp(frame.ctl);
    header_key_check_frame(frame.bytes, frame.len, in_port, &error);
    fuzz_check(!error, "frame: %s", error ? error : "");

    copy = xmalloc(FUZZ_HEADER_KEY_MAX);
    while (fuzz_take_record(&in, &r)) {
        long long int len = (long long int) frame.len + (int8_t) r.ctl;

        len = MAX(len, 0);
        memset(copy, 0, FUZZ_HEADER_KEY_MAX);
        memcpy(copy, frame.bytes, frame.len);
        for (size_t i = 0; len && i + 1 < r.len; i += 2) {
            copy[r.bytes[i] % len] ^= r.bytes[i + 1];
        }
        header_key_check_pair(frame.bytes, frame.len, copy, len, in_port,
                              &error);
        fuzz_check(!error, "copy of %lld bytes: %s", len, error ? error : "");
    }
    free(copy);
    return 0;
}

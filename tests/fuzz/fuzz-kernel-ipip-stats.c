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

/* Fuzz target: what tunnel-stats-show makes of a kernel ovs_ipip device's
 * ethtool counters (lib/tunnels/kernel-ipip.c: kernel_ipip_stats_parse() and
 * kernel_ipip_format_stats()), i.e. of the kernel's ETHTOOL_GSTRINGS and
 * ETHTOOL_GSTATS answers.
 *
 * Input: counters of 40 bytes each, a 32-byte name (NUL-padded or not)
 * then its 64-bit value in host order; a trailing partial counter is
 * ignored.  The names decide everything: a total of the contract, a
 * "cpu<N>_<name>" counter (CPUs must come in increasing order), or a name
 * to ignore. */

#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"
#include "kernel-ipip.h"
#include "openvswitch/dynamic-string.h"
#include "util.h"

/* One input counter's size. */
#define RECORD_LEN (KERNEL_IPIP_NAME_LEN + sizeof(uint64_t))

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n = size / RECORD_LEN;
    struct kernel_ipip_stats stats;
    uint64_t *values;
    char *names;
    struct ds s;

    names = xmalloc(n * KERNEL_IPIP_NAME_LEN + 1);
    values = xmalloc(n * sizeof *values + 1);
    for (size_t i = 0; i < n; i++) {
        const uint8_t *r = data + i * RECORD_LEN;

        memcpy(names + i * KERNEL_IPIP_NAME_LEN, r, KERNEL_IPIP_NAME_LEN);
        memcpy(&values[i], r + KERNEL_IPIP_NAME_LEN, sizeof values[i]);
    }

    memset(&stats, 0, sizeof stats);
    ds_init(&s);
    if (!kernel_ipip_stats_parse(names, values, n, &stats)) {
        kernel_ipip_format_stats(&s, "t0", &stats);
    }
    kernel_ipip_stats_destroy(&stats);
    ds_destroy(&s);
    free(names);
    free(values);
    return 0;
}

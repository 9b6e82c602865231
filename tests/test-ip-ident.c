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

/* Unit tests for lib/packet/ip-ident.c, run by tests/percpu-ip-ident.at.
 *
 * Each subcommand draws identifications from the generators of several
 * threads of one datapath (one key), as the threads would, and checks what
 * ip-ident.h promises: no identification from two threads, none repeated
 * by one thread before its space is used up, IPv4 IDs in the thread's own
 * part of the space and consecutive toward one destination, IPv6 ones
 * never 0, and neither counting from 0 nor the same from run to run.  It
 * prints what it checked; any failed check exits with status 1. */

#include <config.h>

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "ip-ident.h"
#include "openvswitch/util.h"
#include "test-harness.h"
#include "util.h"

/* The destination, source and protocol of the IPv4 datagrams. */
#define TEST_SRC 0xc0000201     /* 192.0.2.1 */
#define TEST_DST 0xc0000202     /* 192.0.2.2 */
#define TEST_PROTO 17

/* siphash: the test vector of the SipHash paper (appendix A): key 00 01
 * ... 0f, message 00 01 ... 0e, SipHash-2-4 a129ca6149be45e5; and the
 * first of its reference implementation's 64 vectors, the empty
 * message. */
static void
test_siphash(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct ip_ident_key key = {
        { UINT64_C(0x0706050403020100), UINT64_C(0x0f0e0d0c0b0a0908) }
    };
    uint8_t msg[15];
    uint64_t h;

    for (size_t i = 0; i < sizeof msg; i++) {
        msg[i] = i;
    }
    h = ip_ident_siphash(&key, msg, sizeof msg);
    if (h != UINT64_C(0xa129ca6149be45e5)) {
        test_fail("SipHash-2-4 of 15 bytes: %016"PRIx64", expected "
                  "a129ca6149be45e5", h);
    }
    printf("15 bytes: %016"PRIx64"\n", h);
    h = ip_ident_siphash(&key, msg, 0);
    if (h != UINT64_C(0x726fdb47dd0e0e31)) {
        test_fail("SipHash-2-4 of 0 bytes: %016"PRIx64", expected "
                  "726fdb47dd0e0e31", h);
    }
    printf("0 bytes: %016"PRIx64"\n", h);
}

/* Returns the value of the decimal argument 'i' of 'argv', or 'def'. */
static unsigned int
arg_uint(int argc, char *argv[], int i, unsigned int def)
{
    return argc > i ? strtoul(argv[i], NULL, 10) : def;
}

/* v4 N_RANKS COUNT: each of N_RANKS threads sends COUNT datagrams to one
 * destination, all in the same millisecond, as a burst does. */
static void
test_v4(int argc, char *argv[])
{
    unsigned int n_ranks = arg_uint(argc, argv, 2, 2);
    unsigned int count = arg_uint(argc, argv, 3, 1000);
    unsigned int span = 65536 / n_ranks;
    unsigned long *seen = bitmap_allocate(65536);
    struct ip_ident_key key;
    unsigned int n_at_base = 0;

    ip_ident_key_init(&key);
    for (unsigned int rank = 0; rank < n_ranks; rank++) {
        struct ip_ident *ident = ip_ident_create(&key);
        uint16_t first = 0, prev = 0;

        for (unsigned int i = 0; i < count; i++) {
            uint16_t id = ntohs(ip_ident_v4(ident, rank, n_ranks,
                                            htonl(TEST_SRC), htonl(TEST_DST),
                                            TEST_PROTO, 1000));

            if (id < rank * span || id >= rank * span + span) {
                test_fail("rank %u of %u: ID %u outside [%u, %u)", rank,
                          n_ranks, id, rank * span, rank * span + span);
            }
            if (bitmap_is_set(seen, id)) {
                test_fail("rank %u of %u: ID %u already given (datagram "
                          "%u)", rank, n_ranks, id, i);
            }
            bitmap_set1(seen, id);
            if (!i) {
                first = id;
            } else if (id != rank * span + (prev - rank * span + 1) % span) {
                test_fail("rank %u of %u: ID %u after %u, not the next",
                          rank, n_ranks, id, prev);
            }
            prev = id;
        }
        printf("rank %u of %u: %u IDs in [%u, %u), consecutive, none "
               "given before\n", rank, n_ranks, count, rank * span,
               rank * span + span);
        /* A random start is the part's first ID once in 'span' times. */
        n_at_base += first == rank * span;
        ip_ident_destroy(ident);
    }
    if (n_at_base == n_ranks) {
        test_fail("every thread counted from the start of its part: 0, 1, "
                  "2...");
    }
    printf("not 0, 1, 2...\n");
    bitmap_free(seen);
}

/* v4-spread: 1000 destinations from one thread: their first IDs are spread
 * over the space (not all from one start), and a second datapath (another
 * key) starts elsewhere. */
static void
test_v4_spread(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct ip_ident_key key1, key2;
    struct ip_ident *a, *b;
    size_t same = 0, distinct = 0;
    unsigned long *seen = bitmap_allocate(65536);

    ip_ident_key_init(&key1);
    ip_ident_key_init(&key2);
    a = ip_ident_create(&key1);
    b = ip_ident_create(&key2);
    for (uint32_t dst = 0; dst < 1000; dst++) {
        uint16_t ida = ntohs(ip_ident_v4(a, 0, 1, htonl(TEST_SRC),
                                         htonl(0x0a000000 + dst), TEST_PROTO,
                                         1000));
        uint16_t idb = ntohs(ip_ident_v4(b, 0, 1, htonl(TEST_SRC),
                                         htonl(0x0a000000 + dst), TEST_PROTO,
                                         1000));

        same += ida == idb;
        if (!bitmap_is_set(seen, ida)) {
            bitmap_set1(seen, ida);
            distinct++;
        }
    }
    /* 1000 destinations share 1024 buckets: some share a counter. */
    if (distinct < 500) {
        test_fail("1000 destinations' first IDs: only %"PRIuSIZE
                  " distinct", distinct);
    }
    if (same > 50) {
        test_fail("two keys gave %"PRIuSIZE" destinations of 1000 the same "
                  "first ID", same);
    }
    printf("first IDs of 1000 destinations: at least 500 distinct; two "
           "datapaths differ\n");
    ip_ident_destroy(a);
    ip_ident_destroy(b);
    bitmap_free(seen);
}

/* v4-ranks: a thread's rank and the number of threads change (3 threads,
 * then 2): its IDs follow its new part at once. */
static void
test_v4_ranks(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct ip_ident_key key;
    struct ip_ident *ident;

    ip_ident_key_init(&key);
    ident = ip_ident_create(&key);
    for (int i = 0; i < 100; i++) {
        uint16_t id3 = ntohs(ip_ident_v4(ident, 2, 3, htonl(TEST_SRC),
                                         htonl(TEST_DST), TEST_PROTO, 1000));
        uint16_t id2 = ntohs(ip_ident_v4(ident, 1, 2, htonl(TEST_SRC),
                                         htonl(TEST_DST), TEST_PROTO, 1000));

        if (id3 < 2 * 21845 || id3 >= 3 * 21845) {
            test_fail("rank 2 of 3: ID %u", id3);
        }
        if (id2 < 32768) {
            test_fail("rank 1 of 2: ID %u", id2);
        }
    }
    printf("rank 2 of 3 in [43690, 65535), then rank 1 of 2 in "
           "[32768, 65536)\n");
    ip_ident_destroy(ident);
}

/* v4-idle: a counter unused for a while moves on by a random amount below
 * the milliseconds it was idle: toward one destination, with 1 s between
 * datagrams, the IDs are not consecutive. */
static void
test_v4_idle(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct ip_ident_key key;
    struct ip_ident *ident;
    size_t consecutive = 0;
    uint16_t prev = 0;

    ip_ident_key_init(&key);
    ident = ip_ident_create(&key);
    for (int i = 0; i < 100; i++) {
        uint16_t id = ntohs(ip_ident_v4(ident, 0, 1, htonl(TEST_SRC),
                                        htonl(TEST_DST), TEST_PROTO,
                                        1000 * (i + 1)));

        consecutive += i && id == (uint16_t) (prev + 1);
        prev = id;
    }
    if (consecutive > 10) {
        test_fail("%"PRIuSIZE" of 99 IDs a second apart were the previous "
                  "plus one", consecutive);
    }
    printf("a second apart: not consecutive\n");
    ip_ident_destroy(ident);
}

/* Compares two uint32_t, for qsort(). */
static int
compare_u32(const void *a_, const void *b_)
{
    uint32_t a = *(const uint32_t *) a_, b = *(const uint32_t *) b_;

    return a < b ? -1 : a > b;
}

/* v6 N_RANKS COUNT: each of N_RANKS threads fragments COUNT datagrams. */
static void
test_v6(int argc, char *argv[])
{
    unsigned int n_ranks = arg_uint(argc, argv, 2, 2);
    unsigned int count = arg_uint(argc, argv, 3, 10000);
    uint32_t *ids = xmalloc((size_t) n_ranks * count * sizeof *ids);
    size_t n = 0, sequential = 0;
    struct ip_ident_key key;

    ip_ident_key_init(&key);
    for (unsigned int rank = 0; rank < n_ranks; rank++) {
        struct ip_ident *ident = ip_ident_create(&key);

        for (unsigned int i = 0; i < count; i++) {
            uint32_t id = ntohl(ip_ident_v6(ident, rank, n_ranks));

            if (!id) {
                test_fail("rank %u: identification 0", rank);
            }
            sequential += i && id == ids[n - 1] + 1;
            ids[n++] = id;
        }
        ip_ident_destroy(ident);
    }
    qsort(ids, n, sizeof *ids, compare_u32);
    for (size_t i = 1; i < n; i++) {
        if (ids[i] == ids[i - 1]) {
            test_fail("identification %"PRIu32" given twice", ids[i]);
        }
    }
    if (sequential > n / 100) {
        test_fail("%"PRIuSIZE" identifications were the previous plus one",
                  sequential);
    }
    printf("%u threads, %u identifications each: none twice, none 0, not "
           "sequential\n", n_ranks, count);
    free(ids);
}

int
main(int argc, char *argv[])
{
    static const struct test_command commands[] = {
        { "siphash", test_siphash },
        { "v4", test_v4 },
        { "v4-spread", test_v4_spread },
        { "v4-ranks", test_v4_ranks },
        { "v4-idle", test_v4_idle },
        { "v6", test_v6 },
    };

    return test_run_command(commands, ARRAY_SIZE(commands), argc, argv);
}

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

/* main() for a fuzz target built without libFuzzer: runs the target once on
 * each file named on the command line, as libFuzzer does when given files,
 * and prints one line per file.  The test suite uses it to replay the seed
 * corpora and every input that once crashed (tests/percpu-fuzz.at), so that
 * they run in every build, with or without sanitizers. */

#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"
#include "util.h"

/* Largest input replayed, as libFuzzer's default -max_len is far below. */
#define FUZZ_MAIN_MAX_INPUT (1024 * 1024)

int
main(int argc, char *argv[])
{
    uint8_t *buf = xmalloc(FUZZ_MAIN_MAX_INPUT);

    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE...\n", argv[0]);
        return EXIT_FAILURE;
    }
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        size_t n;
        uint8_t *input;

        if (!f) {
            fprintf(stderr, "%s: %s\n", argv[i], ovs_strerror(errno));
            return EXIT_FAILURE;
        }
        n = fread(buf, 1, FUZZ_MAIN_MAX_INPUT, f);
        fclose(f);
        /* An allocation of exactly the input's size, so that a read past
         * its end is caught under AddressSanitizer, as with libFuzzer. */
        input = xmemdup(buf, n);
        LLVMFuzzerTestOneInput(input, n);
        free(input);
        printf("%s: ok\n", strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1
                                                  : argv[i]);
    }
    free(buf);
    return EXIT_SUCCESS;
}

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

#ifndef TEST_HARNESS_H
#define TEST_HARNESS_H 1

/* What every unit-test program of ours shares: how a check fails, and how
 * a program runs the subcommand named by its first argument.  A program
 * prints what it checks on stdout; the first failed check prints "FAIL:"
 * and what was expected against what was found on stderr, and exits 1. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "openvswitch/compiler.h"
#include "util.h"

/* Prints a failure and exits with status 1.  stdout is flushed first, so
 * that the failure follows what the test printed before it. */
static inline void OVS_PRINTF_FORMAT(1, 2) OVS_NO_RETURN
test_fail(const char *format, ...)
{
    va_list args;

    fflush(stdout);
    va_start(args, format);
    fprintf(stderr, "FAIL: ");
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n");
    va_end(args);
    exit(1);
}

/* A subcommand of a test program: "test-NAME COMMAND [ARG...]" runs 'run'
 * with the program's whole argument list. */
struct test_command {
    const char *name;
    void (*run)(int argc, char *argv[]);
};

/* Runs the one of the 'n' 'commands' that argv[1] names, after
 * set_program_name(), and returns the program's exit status; fails the test
 * on a missing or unknown command. */
static inline int
test_run_command(const struct test_command *commands, size_t n,
                 int argc, char *argv[])
{
    set_program_name(argv[0]);
    if (argc < 2) {
        test_fail("usage: %s COMMAND [ARG...]", argv[0]);
    }
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(argv[1], commands[i].name)) {
            commands[i].run(argc, argv);
            return 0;
        }
    }
    test_fail("unknown command %s", argv[1]);
}

#endif /* test-harness.h */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmarks of the kernel module's code on the host's cores
 * (kernel-flow-stats-benchmark, kernel-meter-benchmark) share: their
 * clocks, the cores they may use and the pinning of a thread to one, and
 * the median they reduce their rounds to.  GPL-2.0, as the programs that
 * include it link the module's files; benchmark-median.h, Apache-2.0,
 * serves the other benchmarks.
 */
#ifndef KERNEL_BENCHMARK_COMMON_H
#define KERNEL_BENCHMARK_COMMON_H 1

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* 'clock' (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID) now, in seconds. */
static inline double
kbench_clock_seconds(clockid_t clock)
{
    struct timespec ts;

    clock_gettime(clock, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* qsort() comparison of two doubles, ascending. */
static inline int
kbench_compare_doubles(const void *a_, const void *b_)
{
    const double *a = a_, *b = b_;

    return *a < *b ? -1 : *a > *b;
}

/* The median of the 'n' values of 'values', which it sorts. */
static inline double
kbench_median(double *values, int n)
{
    qsort(values, n, sizeof *values, kbench_compare_doubles);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/* The cores this process may run on, at most 'max' of them, into 'cores';
 * returns how many.  Exits if the affinity cannot be read. */
static inline unsigned int
kbench_usable_cores(int *cores, unsigned int max)
{
    unsigned int n = 0;
    cpu_set_t set;

    if (sched_getaffinity(0, sizeof set, &set)) {
        fprintf(stderr, "sched_getaffinity: %s\n", strerror(errno));
        exit(1);
    }
    for (int core = 0; core < CPU_SETSIZE && n < max; core++) {
        if (CPU_ISSET(core, &set)) {
            cores[n++] = core;
        }
    }
    return n;
}

/* Pins the calling thread to 'core'; exits if it cannot. */
static inline void
kbench_pin(int core)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(core, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set)) {
        fprintf(stderr, "cannot pin a thread to core %d\n", core);
        exit(1);
    }
}

#endif /* kernel-benchmark-common.h */

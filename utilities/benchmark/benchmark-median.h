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

#ifndef BENCHMARK_MEDIAN_H
#define BENCHMARK_MEDIAN_H 1

/* The median the benchmarks report over their rounds: one definition for
 * ovs-percpu-benchmark and ipf-benchmark, so that they reduce their rounds
 * the same way. */

#include <stdlib.h>

/* qsort() comparison of two doubles, ascending. */
static inline int
benchmark_compare_doubles(const void *a_, const void *b_)
{
    const double *a = a_, *b = b_;

    return *a < *b ? -1 : *a > *b;
}

/* Returns the median of the 'n' (at least 1) values in 'values', which it
 * sorts: the middle one, or the mean of the middle two for an even 'n'. */
static inline double
benchmark_median(double *values, int n)
{
    qsort(values, n, sizeof *values, benchmark_compare_doubles);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

#endif /* benchmark-median.h */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The out-of-line parts of kernel-shim-meter.h's stand-ins.
 */
#include "kernel-shim-meter.h"

/* Each CPU's copy KSHIM_PERCPU_STRIDE bytes after the previous one, zeroed,
 * for nr_cpu_ids CPUs. */
void *
kshim_alloc_percpu(size_t size)
{
    size_t bytes = (size_t) nr_cpu_ids * KSHIM_PERCPU_STRIDE;
    void *p;

    if (size > KSHIM_PERCPU_STRIDE) {
        fprintf(stderr, "kernel-shim: per-CPU object of %zu bytes\n", size);
        abort();
    }
    p = aligned_alloc(KSHIM_PERCPU_STRIDE, bytes);
    if (p) {
        memset(p, 0, bytes);
    }
    return p;
}

void
kshim_free_percpu(void *p)
{
    free(p);
}

struct workqueue_struct *
kshim_alloc_workqueue(void)
{
    return calloc(1, sizeof(struct workqueue_struct));
}

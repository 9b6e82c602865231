/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state and the out-of-line parts of kernel-shim.h's stand-ins.
 */
#include "kernel-shim.h"

#include <stdio.h>

unsigned int kshim_nr_cpu_ids = 1;
__thread unsigned int kshim_cpu_id;
unsigned long kshim_jiffies = 1;

/* CPUs whose GFP_NOWAIT allocations fail (kshim_fail_nowait_alloc()). */
static bool fail_nowait[KSHIM_NR_CPUS];

/* A slab cache: the size and alignment of its objects. */
struct kmem_cache {
    size_t size;                /* Bytes per object, a multiple of 'align'. */
    size_t align;               /* Alignment of each object. */
};

/* Makes the calling thread CPU 'cpu', for smp_processor_id(). */
void
kshim_set_cpu(unsigned int cpu)
{
    if (cpu >= KSHIM_NR_CPUS) {
        fprintf(stderr, "kernel-shim: CPU %u past KSHIM_NR_CPUS\n", cpu);
        abort();
    }
    kshim_cpu_id = cpu;
}

/* Makes the GFP_NOWAIT allocations of CPU 'cpu' fail, if 'fail', or
 * succeed. */
void
kshim_fail_nowait_alloc(unsigned int cpu, bool fail)
{
    __atomic_store_n(&fail_nowait[cpu], fail, __ATOMIC_RELAXED);
}

struct kmem_cache *
kmem_cache_create(const char *name __attribute__((__unused__)),
                  unsigned int size, unsigned int align, unsigned int flags,
                  void (*ctor)(void *) __attribute__((__unused__)))
{
    struct kmem_cache *cache = malloc(sizeof *cache);

    if (!cache) {
        return NULL;
    }
    if (flags & SLAB_HWCACHE_ALIGN && align < KSHIM_CACHE_LINE) {
        align = KSHIM_CACHE_LINE;
    }
    if (align < sizeof(void *)) {
        align = sizeof(void *);
    }
    cache->align = align;
    cache->size = (size + align - 1) / align * align;
    return cache;
}

void
kmem_cache_destroy(struct kmem_cache *cache)
{
    free(cache);
}

void *
kmem_cache_alloc_node(struct kmem_cache *cache, gfp_t gfp,
                      int node __attribute__((__unused__)))
{
    void *p;

    if (!(gfp & ___GFP_DIRECT_RECLAIM)
        && __atomic_load_n(&fail_nowait[smp_processor_id()],
                           __ATOMIC_RELAXED)) {
        return NULL;
    }
    p = aligned_alloc(cache->align, cache->size);
    if (p && gfp & __GFP_ZERO) {
        memset(p, 0, cache->size);
    }
    return p;
}

void
kmem_cache_free(struct kmem_cache *cache __attribute__((__unused__)),
                void *p)
{
    free(p);
}

/* Cache-line aligned, as kmalloc()'s objects of a cache line or more. */
void *
kzalloc(size_t size, gfp_t gfp __attribute__((__unused__)))
{
    size_t bytes = (size + KSHIM_CACHE_LINE - 1) / KSHIM_CACHE_LINE
                   * KSHIM_CACHE_LINE;
    void *p = aligned_alloc(KSHIM_CACHE_LINE, bytes ? bytes
                                                    : KSHIM_CACHE_LINE);

    if (p) {
        memset(p, 0, bytes);
    }
    return p;
}

void
kfree(const void *p)
{
    free((void *) p);
}

void
ktime_get_ts64(struct timespec64 *ts)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    ts->tv_sec = now.tv_sec;
    ts->tv_nsec = now.tv_nsec;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the few kernel primitives that
 * datapath/flow-stats.c calls, so that the file itself, unchanged, can be
 * compiled into a program and run on the host's cores: the stress test
 * (tests/test-kernel-flow-stats.c) and the benchmark
 * (utilities/benchmark/kernel-flow-stats-benchmark.c).  GPL-2.0, as they
 * are linked with it.
 *
 * kernel-shim/linux/ holds the headers flow-stats.c includes, each of which
 * includes this one.  Each stand-in does what the kernel's does on x86_64,
 * and at a similar cost where a benchmark would see it:
 *
 * - A CPU is a thread: smp_processor_id() returns the calling thread's
 *   kshim_cpu_id (kshim_set_cpu()), which the program keeps to one thread
 *   per id, as the kernel runs one softirq at a time per CPU, and pins to
 *   a core.  nr_cpu_ids is kshim_nr_cpu_ids, at most KSHIM_NR_CPUS.
 * - READ_ONCE(), WRITE_ONCE(), the barriers and RCU's pointer accesses are
 *   GCC's __atomic built-ins with the matching order (relaxed, acquire,
 *   release), which compile to the same plain moves on x86_64 and let
 *   ThreadSanitizer follow them.  rcu_read_lock() is nothing: the programs
 *   free a flow's stats only after their threads are joined.
 * - spin_lock() is a test-and-test-and-set lock (one compare-and-exchange
 *   when free, as the kernel's queued spinlock's fast path; a release
 *   store to unlock); a waiter yields the CPU after a long spin, since in
 *   userspace, unlike in softirq, the holder can be preempted.
 * - u64_stats_sync is nothing, as on 64-bit kernels, or, with
 *   KSHIM_U64_STATS_SEQCOUNT defined, the seqcount of 32-bit kernels, so
 *   that its use by flow-stats.c can be tested on a 64-bit host.
 * - kmem_cache_alloc_node() returns cache-line-aligned memory from malloc
 *   (SLAB_HWCACHE_ALIGN); a GFP_NOWAIT allocation fails on a CPU for which
 *   kshim_fail_nowait_alloc() was set, to test the fallback.
 * - jiffies is kshim_jiffies, which the program advances (HZ is 250).
 * - module_param(NAME, ...) defines kshim_set_param_NAME(), with which the
 *   program sets the parameter, prefixed with KSHIM_PREFIX if it is
 *   defined (KSHIM_SYM()), so that several builds of flow-stats.c can live
 *   in one program.
 */
#ifndef KERNEL_SHIM_H
#define KERNEL_SHIM_H 1

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Types. */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
typedef uint16_t __be16;
typedef unsigned int gfp_t;
typedef s64 time64_t;

#define BITS_PER_LONG (__SIZEOF_LONG__ * 8)

/* Annotations and compiler helpers. */
#define __rcu
#define __percpu
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define noinline __attribute__((__noinline__))
#ifndef __always_inline         /* glibc's <sys/cdefs.h> has one. */
#define __always_inline inline __attribute__((__always_inline__))
#endif
#define KSHIM_CAT_(a, b) a##b
#define KSHIM_CAT(a, b) KSHIM_CAT_(a, b)
#ifndef KSHIM_PREFIX
#define KSHIM_PREFIX
#endif
#define KSHIM_SYM(name) KSHIM_CAT(KSHIM_PREFIX, name)

/* Shared memory accesses and barriers. */
#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, val) __atomic_store_n(&(x), (val), __ATOMIC_RELAXED)
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)

static inline void
cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* CPUs: one thread per id. */
#define KSHIM_NR_CPUS 64
extern unsigned int kshim_nr_cpu_ids;
extern __thread unsigned int kshim_cpu_id;
#define nr_cpu_ids kshim_nr_cpu_ids
#define smp_processor_id() (kshim_cpu_id)
#define for_each_possible_cpu(cpu) \
    for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)

void kshim_set_cpu(unsigned int cpu);

/* Per-CPU variables: an array indexed by CPU id, each element written only
 * by its CPU. */
#define DEFINE_PER_CPU(type, name) type name[KSHIM_NR_CPUS]
#define per_cpu(var, cpu) ((var)[cpu])
#define this_cpu_inc(var) \
    WRITE_ONCE((var)[smp_processor_id()], (var)[smp_processor_id()] + 1)

/* cpumask. */
struct cpumask {
    unsigned long bits[KSHIM_NR_CPUS / BITS_PER_LONG];
};

static inline unsigned int
cpumask_size(void)
{
    return sizeof(struct cpumask);
}

/* As the kernel's set_bit(): an atomic read-modify-write. */
static inline void
cpumask_set_cpu(unsigned int cpu, struct cpumask *mask)
{
    __atomic_fetch_or(&mask->bits[cpu / BITS_PER_LONG],
                      1UL << (cpu % BITS_PER_LONG), __ATOMIC_RELAXED);
}

/* The first CPU of 'mask' from 'cpu' on, or nr_cpu_ids. */
static inline unsigned int
kshim_cpumask_next(unsigned int cpu, const struct cpumask *mask)
{
    for (; cpu < nr_cpu_ids; cpu++) {
        unsigned long word = __atomic_load_n(&mask->bits[cpu / BITS_PER_LONG],
                                             __ATOMIC_RELAXED);
        if (word & (1UL << (cpu % BITS_PER_LONG))) {
            return cpu;
        }
    }
    return nr_cpu_ids;
}

#define for_each_cpu(cpu, mask)                               \
    for ((cpu) = kshim_cpumask_next(0, (mask));               \
         (cpu) < nr_cpu_ids;                                  \
         (cpu) = kshim_cpumask_next((cpu) + 1, (mask)))

/* NUMA: one node. */
#define NUMA_NO_NODE (-1)
#define node_online(node) ((node) == 0)
#define numa_node_id() 0

/* RCU. */
#define rcu_read_lock() ((void) 0)
#define rcu_read_unlock() ((void) 0)
#define rcu_dereference(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define rcu_dereference_protected(p, c) __atomic_load_n(&(p), __ATOMIC_RELAXED)
#define rcu_access_pointer(p) __atomic_load_n(&(p), __ATOMIC_RELAXED)
#define rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define RCU_INIT_POINTER(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELAXED)

/* Spinlocks.  The spins before a waiter yields: some tens of
 * microseconds, far longer than any holder keeps the lock unless it was
 * preempted. */
#define KSHIM_SPINS_BEFORE_YIELD 4096

typedef struct {
    int locked;                 /* 1 while held. */
} spinlock_t;

static inline void
spin_lock_init(spinlock_t *lock)
{
    __atomic_store_n(&lock->locked, 0, __ATOMIC_RELAXED);
}

static inline void
spin_lock(spinlock_t *lock)
{
    for (;;) {
        int unlocked = 0;
        unsigned int spins = 0;

        if (__atomic_compare_exchange_n(&lock->locked, &unlocked, 1, false,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            return;
        }
        while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED)) {
            if (++spins % KSHIM_SPINS_BEFORE_YIELD) {
                cpu_relax();
            } else {
                sched_yield();
            }
        }
    }
}

static inline void
spin_unlock(spinlock_t *lock)
{
    __atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
}

#define spin_lock_bh(lock) spin_lock(lock)
#define spin_unlock_bh(lock) spin_unlock(lock)

/* u64_stats_sync. */
#ifdef KSHIM_U64_STATS_SEQCOUNT
struct u64_stats_sync {
    unsigned int seq;           /* Odd while a writer writes. */
};

static inline void
u64_stats_init(struct u64_stats_sync *syncp)
{
    __atomic_store_n(&syncp->seq, 0, __ATOMIC_RELAXED);
}

static inline void
u64_stats_update_begin(struct u64_stats_sync *syncp)
{
    __atomic_store_n(&syncp->seq, syncp->seq + 1, __ATOMIC_RELAXED);
    smp_wmb();
}

static inline void
u64_stats_update_end(struct u64_stats_sync *syncp)
{
    smp_wmb();
    __atomic_store_n(&syncp->seq, syncp->seq + 1, __ATOMIC_RELAXED);
}

static inline unsigned int
u64_stats_fetch_begin(const struct u64_stats_sync *syncp)
{
    unsigned int seq;

    while ((seq = __atomic_load_n(&syncp->seq, __ATOMIC_RELAXED)) & 1) {
        cpu_relax();
    }
    smp_rmb();
    return seq;
}

static inline bool
u64_stats_fetch_retry(const struct u64_stats_sync *syncp, unsigned int start)
{
    smp_rmb();
    return __atomic_load_n(&syncp->seq, __ATOMIC_RELAXED) != start;
}
#else
struct u64_stats_sync {
};

static inline void u64_stats_init(struct u64_stats_sync *syncp
                                  __attribute__((__unused__))) { }
static inline void u64_stats_update_begin(struct u64_stats_sync *syncp
                                          __attribute__((__unused__))) { }
static inline void u64_stats_update_end(struct u64_stats_sync *syncp
                                        __attribute__((__unused__))) { }

static inline unsigned int
u64_stats_fetch_begin(const struct u64_stats_sync *syncp
                      __attribute__((__unused__)))
{
    return 0;
}

static inline bool
u64_stats_fetch_retry(const struct u64_stats_sync *syncp
                      __attribute__((__unused__)),
                      unsigned int start __attribute__((__unused__)))
{
    return false;
}
#endif

/* Allocation. */
#define ___GFP_DIRECT_RECLAIM 0x1u
#define ___GFP_KSWAPD_RECLAIM 0x2u
#define __GFP_ZERO 0x4u
#define __GFP_THISNODE 0x8u
#define __GFP_NOWARN 0x10u
#define __GFP_NOMEMALLOC 0x20u
#define GFP_KERNEL (___GFP_DIRECT_RECLAIM | ___GFP_KSWAPD_RECLAIM)
#define GFP_NOWAIT (___GFP_KSWAPD_RECLAIM)
#define SLAB_HWCACHE_ALIGN 0x1u

/* x86_64's cache line: SLAB_HWCACHE_ALIGN's alignment. */
#define KSHIM_CACHE_LINE 64

struct kmem_cache;
struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
                                     unsigned int align, unsigned int flags,
                                     void (*ctor)(void *));
void kmem_cache_destroy(struct kmem_cache *);
void *kmem_cache_alloc_node(struct kmem_cache *, gfp_t, int node);
void kmem_cache_free(struct kmem_cache *, void *);
void *kzalloc(size_t size, gfp_t);
void kfree(const void *);

void kshim_fail_nowait_alloc(unsigned int cpu, bool fail);

/* Time. */
#define HZ 250
#define MSEC_PER_SEC 1000L
#define NSEC_PER_MSEC 1000000L
extern unsigned long kshim_jiffies;
#define jiffies __atomic_load_n(&kshim_jiffies, __ATOMIC_RELAXED)
#define time_after(a, b) ((long) ((b) - (a)) < 0)

static inline unsigned int
jiffies_to_msecs(unsigned long j)
{
    return j * (MSEC_PER_SEC / HZ);
}

struct timespec64 {
    time64_t tv_sec;
    long tv_nsec;
};

void ktime_get_ts64(struct timespec64 *);

/* Module parameters: module_param(NAME, TYPE, PERM) defines
 * kshim_set_param_NAME(TYPE), prefixed by KSHIM_PREFIX. */
#define module_param(name, type, perm)                                  \
    void KSHIM_SYM(kshim_set_param_##name)(type value);                 \
    void KSHIM_SYM(kshim_set_param_##name)(type value)                  \
    {                                                                   \
        WRITE_ONCE(name, value);                                        \
    }                                                                   \
    extern int kshim_module_param_##name
#define MODULE_PARM_DESC(name, desc) extern int kshim_module_parm_desc_##name

#endif /* kernel-shim.h */

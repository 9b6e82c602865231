/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the kernel primitives that datapath/meter.c
 * calls beyond those of kernel-shim.h, so that the file itself, unchanged,
 * can be compiled into utilities/benchmark/kernel-meter-benchmark and run
 * on the host's cores.  GPL-2.0, as they are linked with it.
 *
 * Each stand-in does what the kernel's does on x86_64 where the benchmark
 * would see the difference, and the least that works where it would not:
 *
 * - atomic64_try_cmpxchg() is GCC's sequentially consistent
 *   compare-and-exchange, a locked cmpxchg on x86_64 as the kernel's.
 * - ktime_get_ns() is clock_gettime(CLOCK_MONOTONIC), through the vDSO.
 * - Per-CPU memory (alloc_percpu_gfp()) gives each CPU a copy
 *   KSHIM_PERCPU_STRIDE bytes from the previous one, so that no two CPUs'
 *   copies share a cache line, as the kernel's per-CPU areas.
 * - The rhashtable is a fixed array of KSHIM_RHT_BUCKETS chains of the
 *   same layout (a 'next' pointer in the object), hashed with a 32-bit
 *   mix: its lookup costs what the kernel's costs for a table that small
 *   (one bucket read, one key compare).  Changes are made only while no
 *   thread runs packets, as the benchmark does.
 * - call_rcu() and queue_rcu_work() call their function at once, and
 *   rcu_barrier() is nothing: the program frees only after its threads
 *   are joined.
 */
#ifndef KERNEL_SHIM_METER_H
#define KERNEL_SHIM_METER_H 1

#include "kernel-shim.h"

#include <asm/types.h>
#include <stdio.h>

typedef __u32 __be32;
typedef __u64 __be64;
typedef __u64 __aligned_u64_shim;

/* Compiler and arithmetic helpers. */
#define ____cacheline_aligned_in_smp \
    __attribute__((__aligned__(KSHIM_CACHE_LINE)))
#define BITS_PER_BYTE 8
#define PAGE_SIZE 4096UL
#define container_of(ptr, type, member) \
    ((type *) ((char *) (ptr) - offsetof(type, member)))
#define struct_size(p, member, n) \
    (sizeof(*(p)) + (size_t) (n) * sizeof((p)->member[0]))
#define min_t(type, a, b) ((type) (a) < (type) (b) ? (type) (a) : (type) (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define GFP_KERNEL_ACCOUNT GFP_KERNEL

static inline u64
div_u64(u64 dividend, u32 divisor)
{
    return dividend / divisor;
}

static inline u64
mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
    return (u64) (((unsigned __int128) a * b) >> shift);
}

/* Memory the datapath may take: as a machine with 4 GiB free. */
static inline unsigned long
nr_free_buffer_pages(void)
{
    return 1UL << 20;
}

/* atomic64. */
typedef struct {
    s64 counter;
} atomic64_t;

static inline s64
atomic64_read(const atomic64_t *v)
{
    return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void
atomic64_set(atomic64_t *v, s64 i)
{
    __atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

static inline bool
atomic64_try_cmpxchg(atomic64_t *v, s64 *old, s64 new)
{
    return __atomic_compare_exchange_n(&v->counter, old, new, false,
                                       __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/* Time. */
static inline u64
ktime_get_ns(void)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (u64) now.tv_sec * 1000000000 + now.tv_nsec;
}

/* Per-CPU memory. */
#define KSHIM_PERCPU_STRIDE 4096
void *kshim_alloc_percpu(size_t size);
void kshim_free_percpu(void *);
#define alloc_percpu_gfp(type, gfp) ((type *) kshim_alloc_percpu(sizeof(type)))
#define free_percpu(p) kshim_free_percpu(p)
#define per_cpu_ptr(p, cpu) \
    ((__typeof__(p)) ((char *) (p) + (size_t) (cpu) * KSHIM_PERCPU_STRIDE))
#define this_cpu_ptr(p) per_cpu_ptr(p, smp_processor_id())

/* RCU callbacks and work. */
struct rcu_head {
    void (*func)(struct rcu_head *);
};

static inline void
call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *))
{
    func(head);
}

#define rcu_barrier() ((void) 0)

struct work_struct {
    void (*func)(struct work_struct *);
};
struct rcu_work {
    struct work_struct work;
};
struct workqueue_struct {
    int unused;
};

struct workqueue_struct *kshim_alloc_workqueue(void);
#define alloc_workqueue(name, flags, max) kshim_alloc_workqueue()
#define destroy_workqueue(wq) free(wq)
#define to_rcu_work(w) container_of(w, struct rcu_work, work)
#define INIT_RCU_WORK(rw, f) ((rw)->work.func = (f))

static inline bool
queue_rcu_work(struct workqueue_struct *wq __attribute__((__unused__)),
               struct rcu_work *rw)
{
    rw->work.func(&rw->work);
    return true;
}

/* rhashtable. */
#define KSHIM_RHT_BUCKETS 1024

struct rhash_head {
    struct rhash_head *next;
};

struct rhashtable_params {
    u16 head_offset;
    u16 key_offset;
    u16 key_len;
    bool automatic_shrinking;
};

struct rhashtable {
    struct rhash_head *buckets[KSHIM_RHT_BUCKETS];
};

static inline int
rhashtable_init(struct rhashtable *ht,
                const struct rhashtable_params *params
                __attribute__((__unused__)))
{
    memset(ht, 0, sizeof *ht);
    return 0;
}

static inline u32
kshim_rht_hash(const void *key, u16 key_len)
{
    u32 h = 0x9e3779b9;
    u16 i;

    for (i = 0; i < key_len; i++) {
        h = (h ^ ((const u8 *) key)[i]) * 0x01000193;
    }
    h ^= h >> 16;
    return h % KSHIM_RHT_BUCKETS;
}

#define kshim_rht_obj(he, p) ((char *) (he) - (p).head_offset)
#define kshim_rht_key(he, p) (kshim_rht_obj(he, p) + (p).key_offset)

static inline void *
rhashtable_lookup_fast(struct rhashtable *ht, const void *key,
                       const struct rhashtable_params params)
{
    struct rhash_head *he;

    he = __atomic_load_n(&ht->buckets[kshim_rht_hash(key, params.key_len)],
                         __ATOMIC_ACQUIRE);
    for (; he; he = __atomic_load_n(&he->next, __ATOMIC_ACQUIRE)) {
        if (!memcmp(kshim_rht_key(he, params), key, params.key_len)) {
            return kshim_rht_obj(he, params);
        }
    }
    return NULL;
}

static inline int
rhashtable_lookup_insert_fast(struct rhashtable *ht, struct rhash_head *obj,
                              const struct rhashtable_params params)
{
    const void *key = kshim_rht_key(obj, params);
    struct rhash_head **b = &ht->buckets[kshim_rht_hash(key,
                                                         params.key_len)];

    if (rhashtable_lookup_fast(ht, key, params)) {
        return -EEXIST;
    }
    obj->next = *b;
    __atomic_store_n(b, obj, __ATOMIC_RELEASE);
    return 0;
}

static inline struct rhash_head **
kshim_rht_link(struct rhashtable *ht, struct rhash_head *obj,
               const struct rhashtable_params params)
{
    const void *key = kshim_rht_key(obj, params);
    struct rhash_head **p = &ht->buckets[kshim_rht_hash(key,
                                                         params.key_len)];

    for (; *p; p = &(*p)->next) {
        if (*p == obj) {
            return p;
        }
    }
    return NULL;
}

static inline int
rhashtable_remove_fast(struct rhashtable *ht, struct rhash_head *obj,
                       const struct rhashtable_params params)
{
    struct rhash_head **p = kshim_rht_link(ht, obj, params);

    if (!p) {
        return -ENOENT;
    }
    __atomic_store_n(p, obj->next, __ATOMIC_RELEASE);
    return 0;
}

static inline int
rhashtable_replace_fast(struct rhashtable *ht, struct rhash_head *old,
                        struct rhash_head *new,
                        const struct rhashtable_params params)
{
    struct rhash_head **p = kshim_rht_link(ht, old, params);

    if (!p) {
        return -ENOENT;
    }
    new->next = old->next;
    __atomic_store_n(p, new, __ATOMIC_RELEASE);
    return 0;
}

static inline void
rhashtable_free_and_destroy(struct rhashtable *ht,
                            void (*free_fn)(void *ptr, void *arg), void *arg)
{
    /* The offset is not known here: the benchmark empties its tables
     * before destroying them. */
    int i;

    for (i = 0; i < KSHIM_RHT_BUCKETS; i++) {
        if (ht->buckets[i]) {
            fprintf(stderr, "kernel-shim: a table destroyed non-empty\n");
            abort();
        }
    }
    (void) free_fn;
    (void) arg;
}

/* Socket buffers: only the length. */
struct sk_buff {
    unsigned int len;
};

#endif /* kernel-shim-meter.h */

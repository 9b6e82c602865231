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

/* Cache lines for per-thread statistics slots, one pool per thread. */

#include <config.h>
#include "slot-pool.h"

#include <stdlib.h>
#include <string.h>

#include "ovs-atomic.h"
#include "ovs-thread.h"
#include "util.h"

/* Bytes per chunk: 1024 lines, so that a thread on a few thousand flows
 * takes a few chunks, and the two lines each chunk leaves unused (its
 * first and last, beside other allocations) are a small share of it. */
#define SLOT_POOL_CHUNK_SIZE (64 * 1024)
BUILD_ASSERT_DECL(SLOT_POOL_CHUNK_SIZE % CACHE_LINE_SIZE == 0);
#define SLOT_POOL_CHUNK_LINES (SLOT_POOL_CHUNK_SIZE / CACHE_LINE_SIZE)

/* A line given back, linked to the pool's next free line. */
struct slot_pool_free_line {
    struct slot_pool_free_line *next;
};

/* One thread index's lines.  Padded so that two pools' mutexes never share
 * a line. */
struct slot_pool {
    PADDED_MEMBERS(CACHE_LINE_SIZE,
        struct ovs_mutex mutex;     /* Protects all members below. */
        struct slot_pool_free_line *free_lines OVS_GUARDED;
        char *next_line OVS_GUARDED;  /* Unused part of the newest chunk... */
        size_t n_unused OVS_GUARDED;  /* ...and how many lines it has. */
        char **chunks OVS_GUARDED;    /* Every chunk, to free them. */
        size_t n_chunks OVS_GUARDED;
        size_t allocated_chunks OVS_GUARDED;
        size_t n_lines OVS_GUARDED;   /* Lines handed out, not given back. */
    );
};

struct slot_pools {
    struct ovs_refcount ref_cnt;
    size_t n_pools;
    struct slot_pool pools[];
};

/* Creates 'n_pools' empty pools, indexed 0 to 'n_pools' - 1, with one
 * reference.  Chunks are allocated on first use. */
struct slot_pools *
slot_pools_create(size_t n_pools)
{
    struct slot_pools *pools;

    pools = xzalloc_cacheline(sizeof *pools
                              + n_pools * sizeof pools->pools[0]);
    ovs_refcount_init(&pools->ref_cnt);
    pools->n_pools = n_pools;
    for (size_t i = 0; i < n_pools; i++) {
        ovs_mutex_init(&pools->pools[i].mutex);
    }
    return pools;
}

/* Takes a reference to 'pools' and returns it. */
struct slot_pools *
slot_pools_ref(struct slot_pools *pools)
{
    ovs_refcount_ref(&pools->ref_cnt);
    return pools;
}

/* Drops a reference; the last one frees every chunk.  Accepts NULL. */
void
slot_pools_unref(struct slot_pools *pools)
{
    if (!pools || ovs_refcount_unref(&pools->ref_cnt) != 1) {
        return;
    }
    for (size_t i = 0; i < pools->n_pools; i++) {
        struct slot_pool *pool = &pools->pools[i];

        ovs_mutex_lock(&pool->mutex);
        for (size_t j = 0; j < pool->n_chunks; j++) {
            free(pool->chunks[j]);
        }
        free(pool->chunks);
        ovs_mutex_unlock(&pool->mutex);
        ovs_mutex_destroy(&pool->mutex);
    }
    free_cacheline(pools);
}

/* Makes a new chunk the source of 'pool''s unused lines.  Returns false,
 * changing nothing, if memory is short. */
static bool
slot_pool_add_chunk(struct slot_pool *pool)
    OVS_REQUIRES(pool->mutex)
{
    void *chunk;

    if (posix_memalign(&chunk, CACHE_LINE_SIZE, SLOT_POOL_CHUNK_SIZE)) {
        return false;
    }
    if (pool->n_chunks >= pool->allocated_chunks) {
        pool->chunks = x2nrealloc(pool->chunks, &pool->allocated_chunks,
                                  sizeof *pool->chunks);
    }
    pool->chunks[pool->n_chunks++] = chunk;

    /* The chunk's first and last lines are left unused: they lie beside
     * other allocations. */
    pool->next_line = (char *) chunk + CACHE_LINE_SIZE;
    pool->n_unused = SLOT_POOL_CHUNK_LINES - 2;
    return true;
}

/* Returns a zeroed cache line of pool 'pool_idx', for the thread with that
 * index to write, or NULL if memory is short or there is no such pool. */
void *
slot_pools_alloc(struct slot_pools *pools, size_t pool_idx)
{
    struct slot_pool *pool;
    void *line = NULL;

    if (pool_idx >= pools->n_pools) {
        return NULL;
    }
    pool = &pools->pools[pool_idx];
    ovs_mutex_lock(&pool->mutex);
    if (pool->free_lines) {
        line = pool->free_lines;
        pool->free_lines = pool->free_lines->next;
    } else if (pool->n_unused || slot_pool_add_chunk(pool)) {
        line = pool->next_line;
        pool->next_line += CACHE_LINE_SIZE;
        pool->n_unused--;
    }
    if (line) {
        pool->n_lines++;
    }
    ovs_mutex_unlock(&pool->mutex);

    if (line) {
        memset(line, 0, CACHE_LINE_SIZE);
    }
    return line;
}

/* Gives 'line', from slot_pools_alloc('pools', 'pool_idx'), back to its
 * pool, once no thread can use it.  Accepts NULL. */
void
slot_pools_free(struct slot_pools *pools, size_t pool_idx, void *line)
{
    struct slot_pool_free_line *free_line = line;
    struct slot_pool *pool;

    if (!line) {
        return;
    }
    ovs_assert(pool_idx < pools->n_pools);
    pool = &pools->pools[pool_idx];
    ovs_mutex_lock(&pool->mutex);
    ovs_assert(pool->n_lines > 0);
    free_line->next = pool->free_lines;
    pool->free_lines = free_line;
    pool->n_lines--;
    ovs_mutex_unlock(&pool->mutex);
}

/* Returns the lines of pool 'pool_idx' handed out and not given back, and
 * stores in '*n_held' the lines its chunks hold in all. */
size_t
slot_pools_n_lines(const struct slot_pools *pools_, size_t pool_idx,
                   size_t *n_held)
{
    struct slot_pools *pools = CONST_CAST(struct slot_pools *, pools_);
    struct slot_pool *pool;
    size_t n_lines;

    ovs_assert(pool_idx < pools->n_pools);
    pool = &pools->pools[pool_idx];
    ovs_mutex_lock(&pool->mutex);
    n_lines = pool->n_lines;
    *n_held = pool->n_chunks * (SLOT_POOL_CHUNK_LINES - 2);
    ovs_mutex_unlock(&pool->mutex);
    return n_lines;
}

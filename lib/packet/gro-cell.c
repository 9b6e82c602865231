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

/* GRO cells: receive offload for decapsulated packets, one per thread. */

#include <config.h>
#include "gro-cell.h"

#include <string.h>

#include "dp-packet.h"
#include "gro-fraglist.h"
#include "gro-tcp4.h"
#include "ovs-atomic.h"
#include "util.h"

/* A cell's counters.  Only the owning thread writes them, with a relaxed
 * load and a relaxed store (no read-modify-write); gro_cell_get_stats() reads
 * them from any thread with relaxed loads, so that it never sees a torn
 * value. */
struct gro_cell_counters {
    atomic_uint64_t segments_in;
    atomic_uint64_t segments_merged;
    atomic_uint64_t packets_out;
    atomic_uint64_t flushes[GRO_N_FLUSH_REASONS];
    atomic_uint64_t backlog_drops;
    atomic_uint64_t csum_errors;
    atomic_uint64_t segments_cut_flow;
};

/* One thread's GRO state for one vport.  Everything but 'counters' is
 * touched only by the owning thread. */
struct gro_cell {
    /* Held packets, one per flow, oldest first: when a new flow finds them
     * all taken, items[0] is pushed out. */
    struct gro_tcp4_item items[GRO_CELL_MAX_FLOWS];
    size_t n_items;

    /* Ready packets, a ring of 'ring_size' slots: since held plus ready
     * never exceeds 'max_backlog', it never overflows. */
    struct dp_packet **ready;
    size_t ring_size;           /* MAX(max_backlog, 1). */
    size_t ready_head;          /* Index of the oldest ready packet. */
    size_t n_ready;             /* Number of ready packets. */
    size_t max_backlog;         /* Most packets held plus ready. */

    struct gro_cell_counters counters;
};

/* Adds 'n' to the counter 'c', which only the calling (owning) thread
 * writes. */
static void
gro_cell_count(atomic_uint64_t *c, uint64_t n)
{
    uint64_t value;

    atomic_read_relaxed(c, &value);
    atomic_store_relaxed(c, value + n);
}

/* Creates and returns a cell that holds at most 'max_backlog' packets, held
 * and ready together.  With 0, every packet offered is dropped.  The caller's
 * thread owns it. */
struct gro_cell *
gro_cell_create(size_t max_backlog)
{
    struct gro_cell *cell = xzalloc(sizeof *cell);

    cell->max_backlog = max_backlog;
    cell->ring_size = MAX(max_backlog, 1);
    cell->ready = xcalloc(cell->ring_size, sizeof *cell->ready);
    return cell;
}

/* Frees 'cell' and every packet it holds or has ready.  Accepts NULL. */
void
gro_cell_destroy(struct gro_cell *cell)
{
    if (!cell) {
        return;
    }
    for (size_t i = 0; i < cell->n_items; i++) {
        dp_packet_delete(cell->items[i].pkt);
    }
    for (size_t i = 0; i < cell->n_ready; i++) {
        dp_packet_delete(cell->ready[(cell->ready_head + i)
                                     % cell->ring_size]);
    }
    free(cell->ready);
    free(cell);
}

/* Returns the number of packets 'cell' holds or has ready. */
size_t
gro_cell_backlog(const struct gro_cell *cell)
{
    return cell->n_items + cell->n_ready;
}

/* Appends 'p' to the ready packets.  The caller has made sure that the
 * backlog has room for it. */
static void
gro_cell_ready(struct gro_cell *cell, struct dp_packet *p)
{
    size_t tail = (cell->ready_head + cell->n_ready) % cell->ring_size;

    cell->ready[tail] = p;
    cell->n_ready++;
}

/* Makes 'p', a packet not yet counted in the backlog, ready, or drops it if
 * the backlog is full. */
static void
gro_cell_pass(struct gro_cell *cell, struct dp_packet *p)
{
    if (gro_cell_backlog(cell) >= cell->max_backlog) {
        dp_packet_delete(p);
        gro_cell_count(&cell->counters.backlog_drops, 1);
        return;
    }
    gro_cell_ready(cell, p);
}

/* Makes the packet held in items[idx] ready, for 'reason', and forgets the
 * item.  The backlog does not change. */
static void
gro_cell_flush_item(struct gro_cell *cell, size_t idx,
                    enum gro_flush_reason reason)
{
    gro_cell_ready(cell, gro_tcp4_item_finish(&cell->items[idx]));
    gro_cell_count(&cell->counters.flushes[reason], 1);

    cell->n_items--;
    memmove(&cell->items[idx], &cell->items[idx + 1],
            (cell->n_items - idx) * sizeof cell->items[0]);
}

/* Returns the index of the item of the flow of 'seg', or -1 if none. */
static int
gro_cell_find(const struct gro_cell *cell, const struct gro_tcp4_seg *seg)
{
    for (size_t i = 0; i < cell->n_items; i++) {
        if (gro_tcp4_item_matches(&cell->items[i], seg)) {
            return i;
        }
    }
    return -1;
}

/* Flushes, for 'seg''s reason, every held packet of the flow of 'seg', an
 * unmergeable packet: one, or several when 'seg' has no ports. */
static void
gro_cell_flush_flow(struct gro_cell *cell, const struct gro_tcp4_seg *seg)
{
    size_t i = 0;

    while (i < cell->n_items) {
        if (gro_tcp4_item_matches(&cell->items[i], seg)) {
            gro_cell_flush_item(cell, i, seg->reason);
        } else {
            i++;
        }
    }
}

/* Starts a held packet with the candidate 'p', parsed into 'seg', whose
 * flow has none held.  A segment that would end its packet at once is passed
 * through instead. */
static void
gro_cell_hold(struct gro_cell *cell, struct dp_packet *p,
              const struct gro_tcp4_seg *seg)
{
    if (gro_tcp4_seg_ends_flow(seg)) {
        gro_cell_pass(cell, p);
        return;
    }
    if (gro_cell_backlog(cell) >= cell->max_backlog) {
        dp_packet_delete(p);
        gro_cell_count(&cell->counters.backlog_drops, 1);
        return;
    }
    if (cell->n_items >= GRO_CELL_MAX_FLOWS) {
        gro_cell_flush_item(cell, 0, GRO_FLUSH_FLOWS);
    }
    gro_tcp4_item_init(&cell->items[cell->n_items++], p, seg);
}

/* Offers 'p' to 'cell': merges it into a held packet, holds it, makes it
 * ready or drops it.  Takes ownership of 'p', an inner IPv4 packet as
 * gro-cell.h describes it.  Owning thread only. */
void
gro_cell_receive(struct gro_cell *cell, struct dp_packet *p)
{
    enum gro_tcp4_verdict verdict;
    enum gro_flush_reason reason;
    struct gro_tcp4_seg seg;
    int idx;

    gro_tcp4_parse(p, &seg);
    switch (seg.kind) {
    case GRO_TCP4_OTHER:
        if (seg.bad_csum) {
            gro_cell_count(&cell->counters.csum_errors, 1);
        }
        gro_cell_pass(cell, p);
        return;

    case GRO_TCP4_UNMERGEABLE:
        gro_cell_flush_flow(cell, &seg);
        gro_cell_pass(cell, p);
        return;

    case GRO_TCP4_CANDIDATE:
        break;

    default:
        OVS_NOT_REACHED();
    }

    if (gro_fraglist_skip_merge(seg.key.ip_src, seg.key.ip_dst,
                                seg.key.tp_src, seg.key.tp_dst)) {
        /* Its merged packets are cut again on the way out: passed through
         * as it will leave, its checksum left to the receiver. */
        idx = gro_cell_find(cell, &seg);
        if (idx >= 0) {
            gro_cell_flush_item(cell, idx, GRO_FLUSH_CUT);
        }
        gro_cell_count(&cell->counters.segments_cut_flow, 1);
        gro_cell_pass(cell, p);
        return;
    }
    if (!gro_tcp4_csum_ok(p, &seg)) {
        gro_cell_count(&cell->counters.csum_errors, 1);
        gro_cell_pass(cell, p);
        return;
    }

    gro_cell_count(&cell->counters.segments_in, 1);
    idx = gro_cell_find(cell, &seg);
    if (idx >= 0) {
        verdict = gro_tcp4_merge(&cell->items[idx], p, &seg, &reason);
        switch (verdict) {
        case GRO_TCP4_MERGED:
            gro_cell_count(&cell->counters.segments_merged, 1);
            return;

        case GRO_TCP4_MERGED_FLUSH:
            gro_cell_count(&cell->counters.segments_merged, 1);
            gro_cell_flush_item(cell, idx, reason);
            return;

        case GRO_TCP4_NOT_MERGED:
            gro_cell_flush_item(cell, idx, reason);
            break;

        default:
            OVS_NOT_REACHED();
        }
    }
    gro_cell_hold(cell, p, &seg);
}

/* Ends the poll round: every held packet becomes ready, oldest first.
 * Owning thread only. */
void
gro_cell_flush(struct gro_cell *cell)
{
    while (cell->n_items) {
        gro_cell_flush_item(cell, 0, GRO_FLUSH_ROUND);
    }
}

/* Moves ready packets, oldest first, into 'out', as many as it has room for
 * (up to NETDEV_MAX_BURST into an empty batch), and returns how many.  The
 * caller owns them from then on.  Owning thread only. */
size_t
gro_cell_pop(struct gro_cell *cell, struct dp_packet_batch *out)
{
    size_t n = 0;

    while (cell->n_ready && !dp_packet_batch_is_full(out)) {
        dp_packet_batch_add(out, cell->ready[cell->ready_head]);
        cell->ready_head = (cell->ready_head + 1) % cell->ring_size;
        cell->n_ready--;
        n++;
    }
    if (n) {
        gro_cell_count(&cell->counters.packets_out, n);
    }
    return n;
}

/* Stores 'cell''s counters in '*stats'.  Any thread may call it, at any
 * time; each counter is read atomically, but they are not a snapshot of one
 * instant. */
void
gro_cell_get_stats(const struct gro_cell *cell, struct gro_cell_stats *stats)
{
    struct gro_cell_counters *c = CONST_CAST(struct gro_cell_counters *,
                                             &cell->counters);

    memset(stats, 0, sizeof *stats);
    atomic_read_relaxed(&c->segments_in, &stats->segments_in);
    atomic_read_relaxed(&c->segments_merged, &stats->segments_merged);
    atomic_read_relaxed(&c->packets_out, &stats->packets_out);
    for (size_t i = 0; i < GRO_N_FLUSH_REASONS; i++) {
        atomic_read_relaxed(&c->flushes[i], &stats->flushes[i]);
    }
    atomic_read_relaxed(&c->backlog_drops, &stats->backlog_drops);
    atomic_read_relaxed(&c->segments_cut_flow, &stats->segments_cut_flow);
    atomic_read_relaxed(&c->csum_errors, &stats->csum_errors);
}

/* Returns a short lowercase name for 'reason', as tests and logs print it. */
const char *
gro_flush_reason_to_string(enum gro_flush_reason reason)
{
    switch (reason) {
    case GRO_FLUSH_ROUND:
        return "round";
    case GRO_FLUSH_PSH:
        return "psh";
    case GRO_FLUSH_FIN:
        return "fin";
    case GRO_FLUSH_RST:
        return "rst";
    case GRO_FLUSH_URG:
        return "urg";
    case GRO_FLUSH_GAP:
        return "gap";
    case GRO_FLUSH_OPTIONS:
        return "options";
    case GRO_FLUSH_SIZE:
        return "size";
    case GRO_FLUSH_FLOWS:
        return "flows";
    case GRO_FLUSH_CUT:
        return "cut";
    case GRO_N_FLUSH_REASONS:
    default:
        return "<unknown>";
    }
}

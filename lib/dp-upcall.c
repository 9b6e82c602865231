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

/* Upcalls into ofproto from the thread that missed, and install-once. */

#include <config.h>
#include "dp-upcall.h"

#include <errno.h>

#include "coverage.h"
#include "datapath.h"
#include "dp-actions.h"
#include "dp-log.h"
#include "dp-packet.h"
#include "flow-cache.h"
#include "flow-table.h"
#include "odp-util.h"
#include "openvswitch/match.h"
#include "openvswitch/ofpbuf.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "ovs-thread.h"
#include "packet-key.h"
#include "pmd.h"
#include "random.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(dp_upcall);

/* Stack space for the actions of one upcall; larger ones go to the heap.
 * Upcalls nest through recirculation, so each keeps its own buffers. */
#define DP_UPCALL_ACTIONS_STUB 512

COVERAGE_DEFINE(percpu_upcall_collision);
COVERAGE_DEFINE(percpu_flow_limit);

/* Rate of the warning that the megaflow table is full: as OVS's warning
 * that the datapath reached ofproto's flow limit. */
static struct vlog_rate_limit flow_limit_rl = VLOG_RATE_LIMIT_INIT(1, 5);

/* Calls the upcall callback of 't''s datapath.  Returns ENODEV if upcalls
 * are disabled or nobody registered, otherwise what the callback returns.
 *
 * Every flow lives in one shared table, so the upcall is made on behalf of
 * the datapath as a whole: 'pmd_id' is always NON_PMD_CORE_ID, and
 * 'dpctl/dump-flows' shows one "flow-dump from the main thread" section. */
static int
upcall(struct pmd_thread *t, const struct dp_packet *packet,
       const struct flow *flow, struct flow_wildcards *wc, ovs_u128 *ufid,
       enum dpif_upcall_type type, const struct nlattr *userdata,
       struct ofpbuf *actions, struct ofpbuf *put_actions)
{
    struct datapath *dp = t->dp;
    int error;

    if (fat_rwlock_tryrdlock(&dp->upcall_rwlock)) {
        return ENODEV;
    }
    dp_log_upcall(dp->name, packet, flow, type);
    error = (dp->upcall_cb
             ? dp->upcall_cb(packet, flow, ufid, NON_PMD_CORE_ID, type,
                             userdata, actions, wc, put_actions,
                             dp->upcall_aux)
             : ENODEV);
    fat_rwlock_unlock(&dp->upcall_rwlock);
    return error;
}

static bool install(struct pmd_thread *, const struct packet_key *,
                    const struct header_key *, const struct match *,
                    const ovs_u128 *ufid,
                    const struct ofpbuf *add_actions);
static bool upcall_hold_arrive(bool wait);
static void upcall_hold_installed(void);

/* Asks ofproto for the actions and megaflow of 'packet', with key 'key'
 * (and header key 'header_key', or NULL), installs the megaflow unless
 * ofproto said not to or another thread installed one first, releases
 * 'turn', and then executes the actions on the packet, taking ownership of
 * it.
 *
 * The actions run after 'turn' is released because they may recirculate the
 * packet into another miss, which takes a turn of its own: holding two
 * turns at once could deadlock two threads that take them in opposite
 * orders, or one thread with itself. */
static void
upcall_and_install(struct pmd_thread *t, struct dp_packet *packet,
                   const struct packet_key *key,
                   const struct header_key *header_key,
                   struct ovs_mutex *turn)
    OVS_RELEASES(turn)
{
    uint64_t actions_stub[DP_UPCALL_ACTIONS_STUB / 8];
    uint64_t put_actions_stub[DP_UPCALL_ACTIONS_STUB / 8];
    struct ofpbuf actions_buf, put_actions_buf;
    struct ofpbuf *actions = &actions_buf;
    struct ofpbuf *put_actions = &put_actions_buf;
    struct dp_packet_batch batch;
    struct match match;
    ovs_u128 ufid;
    bool held;
    int error;

    match.tun_md.valid = false;
    miniflow_expand(&key->mf, &match.flow);
    memset(&match.wc, 0, sizeof match.wc);
    ofpbuf_use_stub(actions, actions_stub, sizeof actions_stub);
    ofpbuf_use_stub(put_actions, put_actions_stub, sizeof put_actions_stub);

    /* The UFID is the hash of the key, as in dpif-netdev. */
    odp_flow_key_hash(&match.flow, sizeof match.flow, &ufid);
    error = upcall(t, packet, &match.flow, &match.wc, &ufid, DPIF_UC_MISS,
                   NULL, actions, put_actions);
    if (OVS_UNLIKELY(error && error != ENOSPC)) {
        ovs_mutex_unlock(turn);
        pmd_counter_add(t, PMD_LOST, 1);
        dp_packet_delete(packet);
        goto out;
    }
    pmd_counter_add(t, PMD_UPCALLS, 1);

    megaflow_mask_vlan_presence(&match.wc);

    /* A test may hold this thread here until another has missed too. */
    held = upcall_hold_arrive(true);

    /* ENOSPC: ofproto wants the actions executed but no megaflow, mostly
     * because the datapath is at its flow limit (should_install_flow()). */
    if (error == ENOSPC
        || !install(t, key, header_key, &match, &ufid,
                    put_actions->size ? put_actions : actions)) {
        pmd_counter_add(t, PMD_NOT_INSTALLED, 1);
        COVERAGE_INC(percpu_flow_limit);
    }
    if (held) {
        upcall_hold_installed();
    }
    ovs_mutex_unlock(turn);

    dp_packet_batch_init_packet(&batch, packet);
    dp_actions_execute_for(t, &batch, true, &match.flow, actions->data,
                           actions->size);

out:
    ofpbuf_uninit(actions);
    ofpbuf_uninit(put_actions);
}

/* Installs the megaflow 'match' with 'ufid' and 'add_actions', which an
 * upcall for a packet with key 'key' returned, unless another thread
 * installed one first, and caches it with the usual odds, for the packet's
 * header key 'header_key' if it has one (nonnull) and otherwise for 'key'.
 * Returns false if the table was full, so that nothing was installed. */
static bool
install(struct pmd_thread *t, const struct packet_key *key,
        const struct header_key *header_key, const struct match *match,
        const ovs_u128 *ufid, const struct ofpbuf *add_actions)
{
    struct flow_table *table = t->dp->table;
    struct megaflow_draft draft;
    struct megaflow *flow;
    uint32_t insert_min;

    /* Built before the mutex is taken: another thread installing another
     * megaflow waits only while this one is linked in. */
    megaflow_draft_build(&draft, table, match, ufid, add_actions->data,
                         add_actions->size, t->index);
    flow_table_lock(table);
    flow = flow_table_lookup(table, &key->mf);
    if (OVS_LIKELY(!flow)) {
        flow = flow_table_install(table, &draft);
        if (OVS_UNLIKELY(!flow)) {
            flow_table_unlock(table);
            megaflow_draft_destroy(&draft);
            VLOG_WARN_RL(&flow_limit_rl, "%s: megaflow table full (%"
                         PRIuSIZE" flows, other_config:flow-limit)",
                         t->dp->name, flow_table_count(table));
            return false;
        }
        dp_log_flow_change(flow, match, NULL, add_actions->data,
                           add_actions->size);
    } else {
        /* Another thread installed it while we were upcalling. */
        COVERAGE_INC(percpu_upcall_collision);
    }
    flow_table_unlock(table);
    megaflow_draft_destroy(&draft);

    /* Into the exact-match cache with the same odds as any megaflow hit. */
    atomic_read_relaxed(&t->dp->emc_insert_min, &insert_min);
    if (insert_min && random_uint32() <= insert_min) {
        if (header_key) {
            flow_cache_insert_header(t->cache, header_key, flow);
        } else {
            flow_cache_insert(t->cache, key, flow);
        }
    }
    return true;
}

/* Returns the index, in the datapath's 'upcall_locks', of the turn that a
 * packet with key 'key' takes when it misses. */
size_t
dp_upcall_turn(const struct packet_key *key)
{
    return key->hash % DP_UPCALL_LOCKS;
}

/* With 'turn' held: looks 'key' up once more, and returns the megaflow
 * that another thread installed meanwhile, leaving 'packet' to the caller,
 * or upcalls and installs for 'packet', taking ownership of it, and
 * returns NULL.  Releases 'turn' either way. */
static struct megaflow *
miss_in_turn(struct pmd_thread *t, struct dp_packet *packet,
             const struct packet_key *key, const struct header_key *header_key,
             struct ovs_mutex *turn)
    OVS_RELEASES(turn)
{
    struct megaflow *flow;

    flow = flow_table_lookup_ranked(t->dp->table, t->ranking, &key->mf);
    if (flow) {
        ovs_mutex_unlock(turn);
    } else {
        upcall_and_install(t, packet, key, header_key, turn);
    }
    return flow;
}

/* Handles 'packet', with key 'key' (and header key 'header_key', or NULL:
 * the megaflow an upcall installs is cached for it), which missed every
 * table.
 *
 * Threads that miss the same flow at once take turns, by a lock chosen by
 * the key's hash (dp_upcall_turn()), so that the megaflow costs one
 * upcall, not one per thread: the second thread finds the first one's
 * megaflow when its turn comes.  Threads that miss different flows rarely
 * share a lock, and never wait for each other's upcalls otherwise.
 *
 * Returns that megaflow, leaving 'packet' to the caller to forward with it.
 * Otherwise upcalls, executes the actions on the packet, taking ownership
 * of it, installs the megaflow if ofproto asks for one, and returns NULL. */
struct megaflow *
dp_upcall_miss(struct pmd_thread *t, struct dp_packet *packet,
               const struct packet_key *key,
               const struct header_key *header_key)
{
    struct ovs_mutex *turn = &t->dp->upcall_locks[dp_upcall_turn(key)];

    ovs_mutex_lock(turn);
    return miss_in_turn(t, packet, key, header_key, turn);
}

/* For tests (dpif-percpu/upcall-turns-busy): how many of the turns that
 * dp_upcall_try_miss() tries next it finds busy, as if another thread held
 * them. */
static atomic_uint busy_turns_for_test = 0;

/* Makes dp_upcall_try_miss() find the next 'n' turns it tries busy. */
void
dp_upcall_set_busy_turns_for_test(unsigned int n)
{
    atomic_store_relaxed(&busy_turns_for_test, n);
}

/* Returns true, using one up, if a test asked for busy turns. */
static bool
take_busy_turn_for_test(void)
{
    unsigned int n;

    atomic_read_relaxed(&busy_turns_for_test, &n);
    while (n) {
        if (atomic_compare_exchange_weak(&busy_turns_for_test, &n, n - 1)) {
            return true;
        }
    }
    return false;
}

/* For tests (dpif-percpu/upcall-hold): makes threads that miss at once
 * meet before either installs, so that the races of two threads missing
 * one new megaflow are forced instead of hoped for.
 *
 * Armed for 'hold_n' arrivals.  A thread arrives when its upcall has
 * returned, before it installs the megaflow, and waits there, its turn
 * held, until every arrival has come; or when it finds the turn of its
 * miss held by another thread (dp_upcall_try_miss() fails), and goes on
 * without waiting.  Once all have arrived, the threads that wait install
 * one at a time, in the order they arrived.  The hold then disarms.  So:
 *
 *   - two packets of one new megaflow with different keys, on two threads,
 *     hold 2: both upcall, then one installs and the other finds its
 *     megaflow under the table's mutex (percpu_upcall_collision), provided
 *     the keys' turns differ (with one turn, the second thread arrives
 *     at the busy turn instead, as below);
 *
 *   - two packets with the same key, hold 2: the first thread upcalls and
 *     waits, with its turn, until the second has missed and found the turn
 *     busy; the second then finds the first one's megaflow when its turn
 *     comes.
 *
 * A hold not met within UPCALL_HOLD_TIMEOUT_MS logs a warning, which fails
 * a test, and lets the threads go.  Waiting is by short sleeps counted,
 * not by the clock: tests stop OVS's clock (time/stop). */
#define UPCALL_HOLD_TIMEOUT_MS 10000
static atomic_bool hold_armed = false;  /* Read first, without the mutex. */
static struct ovs_mutex hold_mutex = OVS_MUTEX_INITIALIZER;
static unsigned int hold_n OVS_GUARDED_BY(hold_mutex);  /* 0: disarmed. */
static unsigned int hold_arrived OVS_GUARDED_BY(hold_mutex);
static unsigned int hold_waiters OVS_GUARDED_BY(hold_mutex);
static unsigned int hold_next OVS_GUARDED_BY(hold_mutex); /* Waiter to go. */
static bool hold_released OVS_GUARDED_BY(hold_mutex);

/* Arms the hold for the next 'n' arrivals, or disarms it if 'n' is 0.
 * Fails, changing nothing, if a hold is still in progress. */
bool
dp_upcall_hold_for_test(unsigned int n)
{
    bool ok;

    ovs_mutex_lock(&hold_mutex);
    ok = !hold_n || !hold_arrived;
    if (ok) {
        hold_n = n;
        hold_arrived = hold_waiters = hold_next = 0;
        hold_released = false;
        atomic_store_relaxed(&hold_armed, n > 0);
    }
    ovs_mutex_unlock(&hold_mutex);
    return ok;
}

/* Disarms the hold once its last waiter has installed. */
static void
upcall_hold_maybe_disarm(void)
    OVS_REQUIRES(hold_mutex)
{
    if (hold_released && hold_next >= hold_waiters) {
        hold_n = 0;
        hold_arrived = hold_waiters = hold_next = 0;
        atomic_store_relaxed(&hold_armed, false);
    }
}

/* Counts an arrival at the hold, if it is armed and waits for more; with
 * 'wait', waits for the others and for this thread's turn to install, and
 * returns true: the caller then calls upcall_hold_installed() once it has
 * installed.  Returns false if the hold took no part. */
static bool
upcall_hold_arrive(bool wait)
{
    unsigned int ticket;
    bool armed;

    atomic_read_relaxed(&hold_armed, &armed);
    if (OVS_LIKELY(!armed)) {
        return false;
    }
    ovs_mutex_lock(&hold_mutex);
    if (!hold_n || hold_arrived >= hold_n) {
        ovs_mutex_unlock(&hold_mutex);
        return false;
    }
    if (++hold_arrived == hold_n) {
        hold_released = true;
        VLOG_INFO("upcall hold: %u arrived, installs go in arrival order",
                  hold_n);
    }
    if (!wait) {
        upcall_hold_maybe_disarm();
        ovs_mutex_unlock(&hold_mutex);
        return false;
    }
    ticket = hold_waiters++;
    for (int ms = 0; !hold_released || hold_next != ticket; ms++) {
        if (ms >= UPCALL_HOLD_TIMEOUT_MS && !hold_released) {
            VLOG_WARN("upcall hold: %u of %u arrived in %d ms; going on",
                      hold_arrived, hold_n, UPCALL_HOLD_TIMEOUT_MS);
            hold_released = true;
        }
        ovs_mutex_unlock(&hold_mutex);
        /* Without quiescing: the thread still uses its batch's megaflows. */
        xnanosleep_no_quiesce(1000 * 1000);
        ovs_mutex_lock(&hold_mutex);
    }
    ovs_mutex_unlock(&hold_mutex);
    return true;
}

/* Lets the next waiter of the hold install. */
static void
upcall_hold_installed(void)
{
    ovs_mutex_lock(&hold_mutex);
    hold_next++;
    upcall_hold_maybe_disarm();
    ovs_mutex_unlock(&hold_mutex);
}

/* As dp_upcall_miss(), storing what it returns in '*flowp', if the turn of
 * 'key' is free; returns false, doing nothing, if another thread holds it
 * (most likely upcalling for the same flow, whose megaflow the caller
 * will then find if it waits its turn later). */
bool
dp_upcall_try_miss(struct pmd_thread *t, struct dp_packet *packet,
                   const struct packet_key *key,
                   const struct header_key *header_key,
                   struct megaflow **flowp)
{
    struct ovs_mutex *turn = &t->dp->upcall_locks[dp_upcall_turn(key)];

    if (OVS_UNLIKELY(take_busy_turn_for_test()) || ovs_mutex_trylock(turn)) {
        upcall_hold_arrive(false);
        return false;
    }
    *flowp = miss_in_turn(t, packet, key, header_key, turn);
    return true;
}

/* Makes a DPIF_UC_ACTION upcall for 'packet', whose flow is 'flow', with
 * 'userdata' from the userspace action, storing the actions ofproto wants
 * executed into 'actions'.  Returns 0 or ENOSPC if the actions are to be
 * executed, otherwise an errno. */
int
dp_upcall_action(struct pmd_thread *t, struct dp_packet *packet,
                 const struct flow *flow, const struct nlattr *userdata,
                 struct ofpbuf *actions)
{
    ovs_u128 ufid;

    odp_flow_key_hash(flow, sizeof *flow, &ufid);
    return upcall(t, packet, flow, NULL, &ufid, DPIF_UC_ACTION, userdata,
                  actions, NULL);
}

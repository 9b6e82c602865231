/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ct() and ct_clear actions through the kernel's nf_conntrack, and the
 * conntrack part of the flow key (OVS_KEY_ATTR_CT_*).
 *
 * Contract:
 * - A ct() action is parsed at flow-put time into a struct ovsp_ct_info
 *   (every attribute's type, length and value checked; refusals are
 *   -EINVAL and logged when asked), immutable once built and freed with
 *   the flow's actions after an RCU grace period.  What the action needs
 *   from nf_conntrack beyond the packet (a zone other than 0, a timeout
 *   policy) lives in templates allocated at flow-put time, one per
 *   possible CPU, so that the per-packet reference a template takes while
 *   nf_conntrack_in() runs is on this CPU's template.
 * - ovsp_ct_execute() runs on the CPU processing the packet (softirq or
 *   BHs off) under RCU: it recovers the confirmed connection that the
 *   key of a packet executed from userspace names (tracked, valid, in the
 *   action's zone; by the inverted tuple when NATed), else tracks the
 *   packet in the action's zone; it commits it when asked
 *   (ovsp_ct_commit(): mark, labels, event mask, then confirmation), and
 *   writes the packet's conntrack state into the flow key.  What it writes that another CPU may also write is the
 *   connection itself (nf_conntrack's own state, refcount, mark and
 *   labels on commit): see Documentation/kernel-datapath.md, "Conntrack".
 * - NAT (OVS_CT_ATTR_NAT, conntrack-nat.h) is parsed with the action
 *   (-ERANGE or -EINVAL, as Linux) and runs between the lookup and the
 *   commit: at most once per packet and zone, a new connection only when
 *   the action commits it.  The key then carries the translated
 *   addresses and ports and the SRC_NAT/DST_NAT bits, which keys and
 *   masks may match.  What NAT writes that other CPUs share is nf_nat's
 *   (a connection's NAT extension at set-up, the bysource hash for source
 *   NAT).
 * - An IP fragment is reassembled before it is tracked, as in Linux: in
 *   the namespace's fragment queues (ip_defrag(), nf_ct_frag6_gather(),
 *   shared with the host's own defragmentation), a queue per zone.  A
 *   fragment that completes no datagram is kept by the queue and the
 *   actions end there without an error; the one that completes it goes
 *   on as the whole datagram, its key extracted again and the size of
 *   its largest fragment kept as the skb's MRU (skb-cb.h), which output
 *   cuts it to again (vport.h, ovsp_vport_send_mru()).
 * - Not carried yet (refused with -EINVAL, so that ofproto-dpif's probes
 *   read "unsupported"): helpers.
 * - Per network namespace: conntrack labels are switched on
 *   (nf_connlabels_get()) while the module is loaded, and ct() counts its
 *   verdicts, drops and NAT failures per CPU (ovsp_ct_stats_get()).
 */
#ifndef OVSP_CONNTRACK_H
#define OVSP_CONNTRACK_H 1

#include <linux/skbuff.h>
#include <linux/types.h>
#include <net/netlink.h>

#include "flow-key.h"

struct net;
struct ovsp_ct_info;

/* The OVS_CS_F_* bits that keys may carry. */
#define OVSP_CT_STATE_SUPPORTED (OVS_CS_F_NEW | OVS_CS_F_ESTABLISHED | \
				 OVS_CS_F_RELATED | OVS_CS_F_REPLY_DIR | \
				 OVS_CS_F_INVALID | OVS_CS_F_TRACKED | \
				 OVS_CS_F_SRC_NAT | OVS_CS_F_DST_NAT)

/* Registers the per-namespace state.  Returns 0 or a negative errno. */
int ovsp_ct_init(void);
void ovsp_ct_exit(void);

/* Parses ct() action 'attr' into a new '*infop', for packets of
 * Ethertype 'eth_type' and IP protocol 'proto' (the flow's, where the
 * action runs).  May sleep.  Returns 0 or a negative errno.
 */
int ovsp_ct_info_from_nlattr(struct net *net, const struct nlattr *attr,
			     __be16 eth_type, u8 proto,
			     struct ovsp_ct_info **infop, bool log);

/* Frees 'info' (NULL is fine), once no packet can use it. */
void ovsp_ct_info_free(struct ovsp_ct_info *info);

/* Runs ct() 'info' on 'skb', whose up-to-date key is 'key'; skb->data is
 * at the packet's start and stays there.  Returns 0; -EINPROGRESS when a
 * fragment was queued for reassembly (not an error: the actions end
 * there); or another negative errno, the packet dropped.  Consumes 'skb'
 * whenever it returns an error.
 */
int ovsp_ct_execute(struct sk_buff *skb, struct ovsp_flow_key *key,
		    const struct ovsp_ct_info *info);

/* ct_clear: the packet becomes untracked, its key's conntrack part 0. */
void ovsp_ct_clear(struct sk_buff *skb, struct ovsp_flow_key *key);

/* One CPU's ct() counters in one namespace (ovsp-genl.h says what each
 * counts).  Written only by that CPU.
 */
struct ovsp_ct_stats {
	u64 new;
	u64 established;
	u64 related;
	u64 invalid;
	u64 refused;
	u64 commit_failed;
	u64 nat_failed;
	u64 frag_queued;
	u64 reassembled;
	u64 frag_dropped;
	u64 refrag_dropped;
};

/* Reads CPU 'cpu''s counters of 'net' into '*s' (a counter being written
 * may read torn on 32-bit machines only).
 */
void ovsp_ct_stats_get(struct net *net, unsigned int cpu,
		       struct ovsp_ct_stats *s);

/* Counts, on this CPU, a reassembled datagram of 'net' that output could
 * not cut to its MRU (dropped).
 */
void ovsp_ct_count_refrag_drop(struct net *net);

/* Fills the conntrack part of 'key' (extracted from 'skb', eth.type set)
 * from the connection 'skb' arrived with, if any.
 */
void ovsp_ct_key_fill(const struct sk_buff *skb, struct ovsp_flow_key *key);

#endif

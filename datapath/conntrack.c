// SPDX-License-Identifier: GPL-2.0
/*
 * ct() and ct_clear through nf_conntrack, and the conntrack part of the
 * flow key.
 *
 * Contract: see conntrack.h.  Written from the ABI (linux/openvswitch.h)
 * and the kernel's exported conntrack API.  The per-packet path writes
 * this CPU's template (its refcount, taken and dropped around
 * nf_conntrack_in()), the skb and the key; everything else it writes
 * belongs to nf_conntrack's connection entries, or, for an IP fragment,
 * to the namespace's fragment queues (ip_defrag(), nf_ct_frag6_gather()),
 * which the host's own defragmentation shares.
 */
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kernel.h>
#include <linux/net.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink_cttimeout.h>
#include <linux/openvswitch.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ipv6_frag.h>
#include <net/ndisc.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netfilter/nf_conntrack_core.h>
#include <net/netfilter/nf_conntrack_ecache.h>
#include <net/netfilter/nf_conntrack_labels.h>
#include <net/netfilter/nf_conntrack_timeout.h>
#include <net/netfilter/nf_conntrack_zones.h>
#include <net/netfilter/ipv6/nf_defrag_ipv6.h>

#include "conntrack.h"
#include "conntrack-nat.h"
#include "ct-limit.h"
#include "flow-key.h"
#include "skb-cb.h"

/* Logs a refusal of userspace input when 'log' is true, rate-limited. */
#define ovsp_ct_refuse(log, fmt, ...)					\
	do {								\
		if (log)						\
			net_info_ratelimited("ovs_percpu: ct: "		\
					     fmt "\n", ##__VA_ARGS__);	\
	} while (0)

/* The highest conntrack label bit: all 128 are used, as OVS's ct_label. */
#define OVSP_CT_LABEL_BITS (OVSP_CT_LABELS_LEN * BITS_PER_BYTE)

/* A parsed ct() action.  Immutable once built. */
struct ovsp_ct_info {
	possible_net_t net;		/* The flow's namespace. */
	u16 zone;			/* OVS_CT_ATTR_ZONE. */
	u8 family;			/* NFPROTO_IPV4 or NFPROTO_IPV6. */
	bool commit;			/* COMMIT or FORCE_COMMIT. */
	bool force;			/* FORCE_COMMIT. */
	bool have_eventmask;		/* EVENTMASK was given. */
	u32 eventmask;			/* 1 << IPCT_*. */
	u32 mark;			/* MARK value, within 'mark_mask'. */
	u32 mark_mask;			/* 0: no MARK. */
	bool have_labels;		/* LABELS was given (mask not 0). */
	u8 labels[OVSP_CT_LABELS_LEN];		/* Within 'labels_mask'. */
	u8 labels_mask[OVSP_CT_LABELS_LEN];
	struct ovsp_ct_nat nat;		/* OVS_CT_ATTR_NAT; flags 0 if none. */
	bool timeout_set;		/* The templates carry 'timeout'. */
	char timeout[CTNL_TIMEOUT_NAME_MAX];	/* TIMEOUT, or "". */
	struct nf_conn * __percpu *tmpl;	/* One template per possible
						 * CPU (zone, timeout), or
						 * NULL when the action needs
						 * none.
						 */
};

/* Per network namespace. */
struct ovsp_ct_net {
	bool labels;			/* nf_connlabels_get() succeeded. */
	struct ovsp_ct_stats __percpu *stats;	/* Slot i: CPU i's. */
};

static unsigned int ovsp_ct_net_id __read_mostly;

static int __net_init ovsp_ct_net_init(struct net *net)
{
	struct ovsp_ct_net *cn = net_generic(net, ovsp_ct_net_id);

	cn->stats = alloc_percpu(struct ovsp_ct_stats);
	if (!cn->stats)
		return -ENOMEM;
	/* Without labels in use, new connections get no labels extension
	 * and a commit that sets labels could not.
	 */
	cn->labels = !nf_connlabels_get(net, OVSP_CT_LABEL_BITS - 1);
	if (!cn->labels)
		pr_warn("ovs_percpu: conntrack labels unavailable in a namespace\n");
	return 0;
}

static void __net_exit ovsp_ct_net_exit(struct net *net)
{
	struct ovsp_ct_net *cn = net_generic(net, ovsp_ct_net_id);

	if (cn->labels)
		nf_connlabels_put(net);
	free_percpu(cn->stats);
}

void ovsp_ct_stats_get(struct net *net, unsigned int cpu,
		       struct ovsp_ct_stats *s)
{
	struct ovsp_ct_net *cn = net_generic(net, ovsp_ct_net_id);

	*s = *per_cpu_ptr(cn->stats, cpu);
}

/* This CPU's counters of 'net'. */
static struct ovsp_ct_stats *ovsp_ct_stats_cpu(struct net *net)
{
	struct ovsp_ct_net *cn = net_generic(net, ovsp_ct_net_id);

	return this_cpu_ptr(cn->stats);
}

/* Counts the verdict that 'key' holds after a ct(), on this CPU. */
static void ovsp_ct_count(struct net *net, const struct ovsp_flow_key *key)
{
	struct ovsp_ct_stats *s = ovsp_ct_stats_cpu(net);

	if (key->ct.state & OVS_CS_F_INVALID)
		s->invalid++;
	else if (key->ct.state & OVS_CS_F_RELATED)
		s->related++;
	else if (key->ct.state & OVS_CS_F_ESTABLISHED)
		s->established++;
	else
		s->new++;
}

static struct pernet_operations ovsp_ct_net_ops = {
	.init = ovsp_ct_net_init,
	.exit = ovsp_ct_net_exit,
	.id = &ovsp_ct_net_id,
	.size = sizeof(struct ovsp_ct_net),
};

int ovsp_ct_init(void)
{
	return register_pernet_subsys(&ovsp_ct_net_ops);
}

void ovsp_ct_exit(void)
{
	unregister_pernet_subsys(&ovsp_ct_net_ops);
}

/* Payload lengths of the OVS_CT_ATTR_* types: [min, max]; max 0 with
 * min 0 is a flag.  Types with max < 0 are not carried.
 */
static const struct {
	int min;
	int max;
} ovsp_ct_attr_lens[OVS_CT_ATTR_MAX + 1] = {
	[OVS_CT_ATTR_COMMIT] = { 0, 0 },
	[OVS_CT_ATTR_ZONE] = { sizeof(u16), sizeof(u16) },
	[OVS_CT_ATTR_MARK] = { 2 * sizeof(u32), 2 * sizeof(u32) },
	[OVS_CT_ATTR_LABELS] = { 2 * OVSP_CT_LABELS_LEN,
				 2 * OVSP_CT_LABELS_LEN },
	[OVS_CT_ATTR_HELPER] = { -1, -1 },	/* Not carried yet. */
	[OVS_CT_ATTR_NAT] = { 0, INT_MAX },	/* A nest: conntrack-nat.c. */
	[OVS_CT_ATTR_FORCE_COMMIT] = { 0, 0 },
	[OVS_CT_ATTR_EVENTMASK] = { sizeof(u32), sizeof(u32) },
	[OVS_CT_ATTR_TIMEOUT] = { 1, CTNL_TIMEOUT_NAME_MAX },
};

/* Parses the attributes of 'attr' into 'info'.  Returns 0 or -EINVAL
 * (-ERANGE for a NAT nest with both src and dst, as Linux).
 */
static int ovsp_ct_parse(const struct nlattr *attr, struct ovsp_ct_info *info,
			 bool log)
{
	const struct nlattr *a;
	u32 seen = 0;
	int rem, i, err;

	nla_for_each_nested(a, attr, rem) {
		u16 type = nla_type(a);
		int len = nla_len(a);

		if (!type || type > OVS_CT_ATTR_MAX ||
		    ovsp_ct_attr_lens[type].max < 0) {
			ovsp_ct_refuse(log, "attribute %u not supported", type);
			return -EINVAL;
		}
		if (len < ovsp_ct_attr_lens[type].min ||
		    len > ovsp_ct_attr_lens[type].max) {
			ovsp_ct_refuse(log, "attribute %u of %d bytes", type,
				       len);
			return -EINVAL;
		}
		if (seen & BIT(type)) {
			ovsp_ct_refuse(log, "duplicate attribute %u", type);
			return -EINVAL;
		}
		seen |= BIT(type);

		switch (type) {
		case OVS_CT_ATTR_FORCE_COMMIT:
			info->force = true;
			fallthrough;
		case OVS_CT_ATTR_COMMIT:
			info->commit = true;
			break;
		case OVS_CT_ATTR_ZONE:
			info->zone = nla_get_u16(a);
			break;
		case OVS_CT_ATTR_MARK: {
			const u32 *m = nla_data(a);

			if (!m[1]) {
				ovsp_ct_refuse(log, "mark with a zero mask");
				return -EINVAL;
			}
			info->mark = m[0] & m[1];
			info->mark_mask = m[1];
			break;
		}
		case OVS_CT_ATTR_LABELS: {
			const u8 *l = nla_data(a);

			if (!memchr_inv(l + OVSP_CT_LABELS_LEN, 0,
					OVSP_CT_LABELS_LEN)) {
				ovsp_ct_refuse(log, "labels with a zero mask");
				return -EINVAL;
			}
			for (i = 0; i < OVSP_CT_LABELS_LEN; i++) {
				info->labels_mask[i] = l[OVSP_CT_LABELS_LEN + i];
				info->labels[i] = l[i] & info->labels_mask[i];
			}
			info->have_labels = true;
			break;
		}
		case OVS_CT_ATTR_NAT:
			/* As in Linux, src and dst need a COMMIT given
			 * before the nest.
			 */
			err = ovsp_ct_nat_parse(a, info->family, info->commit,
						&info->nat, log);
			if (err)
				return err;
			break;
		case OVS_CT_ATTR_EVENTMASK:
			info->have_eventmask = true;
			info->eventmask = nla_get_u32(a);
			break;
		case OVS_CT_ATTR_TIMEOUT:
			if (!memchr(nla_data(a), '\0', len)) {
				ovsp_ct_refuse(log, "timeout name without NUL");
				return -EINVAL;
			}
			strscpy(info->timeout, nla_data(a),
				sizeof(info->timeout));
			break;
		}
	}
	if (rem) {
		ovsp_ct_refuse(log, "%d trailing bytes", rem);
		return -EINVAL;
	}
	if ((info->mark_mask || info->have_labels) && !info->commit) {
		ovsp_ct_refuse(log, "mark or labels without commit");
		return -EINVAL;
	}
	return 0;
}

/* Allocates 'info''s per-CPU templates for 'net', the flow's IP protocol
 * being 'proto'.  Returns 0 or -ENOMEM.
 */
static int ovsp_ct_alloc_templates(struct net *net, struct ovsp_ct_info *info,
				   u8 proto, bool log)
{
	struct nf_conntrack_zone zone;
	int cpu, err;

	info->tmpl = alloc_percpu(struct nf_conn *);
	if (!info->tmpl)
		return -ENOMEM;
	nf_ct_zone_init(&zone, info->zone, NF_CT_DEFAULT_ZONE_DIR, 0);
	info->timeout_set = info->timeout[0] != '\0';
	for_each_possible_cpu(cpu) {
		struct nf_conn *tmpl = nf_ct_tmpl_alloc(net, &zone, GFP_KERNEL);

		if (!tmpl)
			return -ENOMEM;
		*per_cpu_ptr(info->tmpl, cpu) = tmpl;
		if (info->timeout_set) {
			/* A policy that cannot be attached is only logged,
			 * as in Linux: OVS probes with a name that does not
			 * exist.
			 */
			err = nf_ct_set_timeout(net, tmpl, info->family, proto,
						info->timeout);
			if (err) {
				ovsp_ct_refuse(log,
					       "timeout policy %s not attached (%d)",
					       info->timeout, err);
				info->timeout_set = false;
			}
		}
		/* A confirmed template lets a new connection consume the
		 * expectation it matches.
		 */
		__set_bit(IPS_CONFIRMED_BIT, &tmpl->status);
	}
	return 0;
}

int ovsp_ct_info_from_nlattr(struct net *net, const struct nlattr *attr,
			     __be16 eth_type, u8 proto,
			     struct ovsp_ct_info **infop, bool log)
{
	struct ovsp_ct_info *info;
	int err;

	*infop = NULL;
	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	write_pnet(&info->net, net);
	if (eth_type == htons(ETH_P_IP)) {
		info->family = NFPROTO_IPV4;
	} else if (eth_type == htons(ETH_P_IPV6)) {
		info->family = NFPROTO_IPV6;
	} else {
		ovsp_ct_refuse(log, "ct family unspecified");
		err = -EINVAL;
		goto err;
	}
	err = ovsp_ct_parse(attr, info, log);
	if (err)
		goto err;
	if (info->zone || info->timeout[0]) {
		err = ovsp_ct_alloc_templates(net, info, proto, log);
		if (err)
			goto err;
	}
	*infop = info;
	return 0;

err:
	ovsp_ct_info_free(info);
	return err;
}

void ovsp_ct_info_free(struct ovsp_ct_info *info)
{
	int cpu;

	if (!info)
		return;
	if (info->tmpl) {
		for_each_possible_cpu(cpu) {
			struct nf_conn *tmpl = *per_cpu_ptr(info->tmpl, cpu);

			if (!tmpl)
				continue;
			if (info->timeout_set)
				nf_ct_destroy_timeout(tmpl);
			nf_ct_tmpl_free(tmpl);
		}
		free_percpu(info->tmpl);
	}
	kfree(info);
}

/* The OVS_CS_F_* state of connection 'ct' as packet info 'ctinfo' sees
 * it.
 */
static u8 ovsp_ct_state(const struct nf_conn *ct,
			enum ip_conntrack_info ctinfo)
{
	u8 state = OVS_CS_F_TRACKED;

	switch (ctinfo) {
	case IP_CT_ESTABLISHED_REPLY:
		state |= OVS_CS_F_REPLY_DIR;
		fallthrough;
	case IP_CT_ESTABLISHED:
		state |= OVS_CS_F_ESTABLISHED;
		break;
	case IP_CT_RELATED_REPLY:
		state |= OVS_CS_F_REPLY_DIR;
		fallthrough;
	case IP_CT_RELATED:
		state |= OVS_CS_F_RELATED;
		break;
	case IP_CT_NEW:
		state |= OVS_CS_F_NEW;
		break;
	default:
		break;
	}
	/* Until committed, a connection is new; a related one stays
	 * related for its life.
	 */
	if (!nf_ct_is_confirmed(ct))
		state |= OVS_CS_F_NEW;
	if (ct->master)
		state |= OVS_CS_F_RELATED;
	return state;
}

/* True if 'key' is an IPv6 Neighbor Discovery packet, whose key has no
 * room for an original tuple in Linux's layout (so none is reported, as
 * Linux does).
 */
static bool ovsp_ct_key_is_nd(const struct ovsp_flow_key *key)
{
	return key->eth.type == htons(ETH_P_IPV6) &&
	       key->ip.proto == IPPROTO_ICMPV6 &&
	       (key->tp.src == htons(NDISC_NEIGHBOUR_SOLICITATION) ||
		key->tp.src == htons(NDISC_NEIGHBOUR_ADVERTISEMENT));
}

/* Sets the original-direction tuple of 'ct' (of its master, for a related
 * connection) in 'key', when its family is the packet's.
 */
static void ovsp_ct_key_orig(struct ovsp_flow_key *key,
			     const struct nf_conn *ct)
{
	const struct nf_conn *m = ct->master ? ct->master : ct;
	const struct nf_conntrack_tuple *t = &m->tuplehash[IP_CT_DIR_ORIGINAL].tuple;

	if (key->eth.type == htons(ETH_P_IP) && nf_ct_l3num(m) == NFPROTO_IPV4) {
		key->ct.orig.ipv4.src = t->src.u3.ip;
		key->ct.orig.ipv4.dst = t->dst.u3.ip;
	} else if (key->eth.type == htons(ETH_P_IPV6) &&
		   nf_ct_l3num(m) == NFPROTO_IPV6 && !ovsp_ct_key_is_nd(key)) {
		key->ct.orig.ipv6.src = t->src.u3.in6;
		key->ct.orig.ipv6.dst = t->dst.u3.in6;
	} else {
		return;
	}
	key->ct.orig_proto = t->dst.protonum;
	if (t->dst.protonum == IPPROTO_ICMP ||
	    t->dst.protonum == IPPROTO_ICMPV6) {
		key->ct.orig_tp_src = htons(t->dst.u.icmp.type);
		key->ct.orig_tp_dst = htons(t->dst.u.icmp.code);
	} else {
		key->ct.orig_tp_src = t->src.u.all;
		key->ct.orig_tp_dst = t->dst.u.all;
	}
}

/* Sets the conntrack part of 'key' from 'ct' as 'ctinfo' sees it, with
 * NAT bits 'nat' (OVS_CS_F_SRC_NAT, OVS_CS_F_DST_NAT).
 */
static void ovsp_ct_key_set(struct ovsp_flow_key *key, const struct nf_conn *ct,
			    enum ip_conntrack_info ctinfo, u8 nat)
{
	const struct nf_conn_labels *cl = nf_ct_labels_find(ct);

	memset(&key->ct, 0, sizeof(key->ct));
	key->ct.state = ovsp_ct_state(ct, ctinfo) | nat;
	key->ct.zone = nf_ct_zone(ct)->id;
	key->ct.mark = READ_ONCE(ct->mark);
	if (cl)
		memcpy(key->ct.labels, cl->bits, OVSP_CT_LABELS_LEN);
	ovsp_ct_key_orig(key, ct);
}

/* The key of a packet that conntrack could not track in 'zone'. */
static void ovsp_ct_key_invalid(struct ovsp_flow_key *key, u16 zone)
{
	memset(&key->ct, 0, sizeof(key->ct));
	key->ct.state = OVS_CS_F_TRACKED | OVS_CS_F_INVALID;
	key->ct.zone = zone;
}

void ovsp_ct_key_fill(const struct sk_buff *skb, struct ovsp_flow_key *key)
{
	enum ip_conntrack_info ctinfo;
	const struct nf_conn *ct = nf_ct_get(skb, &ctinfo);
	unsigned long status;
	u8 nat = 0;

	if (!ct)
		return;
	/* A packet that arrives with a connection says how it was NATed. */
	status = READ_ONCE(ct->status);
	if (status & IPS_SRC_NAT)
		nat |= OVS_CS_F_SRC_NAT;
	if (status & IPS_DST_NAT)
		nat |= OVS_CS_F_DST_NAT;
	ovsp_ct_key_set(key, ct, ctinfo, nat);
}

/* True if the connection 'ct' that 'skb' carries already answers ct()
 * 'info': same namespace and zone, the original direction when 'info'
 * forces a commit, and not an unconfirmed connection that a clone shares
 * when 'info' commits it (each copy then gets its own).
 */
static bool ovsp_ct_cached(struct net *net, const struct ovsp_ct_info *info,
			   struct nf_conn *ct, enum ip_conntrack_info ctinfo)
{
	if (!ct || !net_eq(net, nf_ct_net(ct)) ||
	    nf_ct_zone(ct)->id != info->zone)
		return false;
	if (info->force && CTINFO2DIR(ctinfo) != IP_CT_DIR_ORIGINAL) {
		/* A forced commit starts the connection anew from this
		 * direction.
		 */
		if (nf_ct_is_confirmed(ct))
			nf_ct_delete(ct, 0, 0);
		return false;
	}
	if (info->commit && !nf_ct_is_confirmed(ct) &&
	    refcount_read(&ct->ct_general.use) > 1)
		return false;
	return true;
}

/* The packet info that nf_conntrack_in() would give a packet whose tuple
 * is direction 'h' of a confirmed connection.
 */
static enum ip_conntrack_info
ovsp_ct_info_of(const struct nf_conntrack_tuple_hash *h)
{
	const struct nf_conn *ct = nf_ct_tuplehash_to_ctrack(h);

	if (NF_CT_DIRECTION(h) == IP_CT_DIR_REPLY)
		return IP_CT_ESTABLISHED_REPLY;
	if (test_bit(IPS_SEEN_REPLY_BIT, &ct->status))
		return IP_CT_ESTABLISHED;
	if (test_bit(IPS_EXPECTED_BIT, &ct->status))
		return IP_CT_RELATED;
	return IP_CT_NEW;
}

/* Attaches to 'skb' (skb->data at its network header, no connection) the
 * confirmed connection that an earlier ct() in 'info''s zone found for
 * it, when 'key' says there was one: a packet that userspace executes
 * after an upcall carries that ct()'s state in its key, not its
 * connection.  A NATed packet's tuple is the inverse of the other
 * direction's, which no lookup by the packet would find.
 */
static void ovsp_ct_recover(struct net *net, struct sk_buff *skb,
			    const struct ovsp_flow_key *key,
			    const struct ovsp_ct_info *info)
{
	bool natted = key->ct.state & OVSP_CT_STATE_NAT;
	struct nf_conntrack_tuple_hash *h;
	struct nf_conntrack_tuple tuple;
	struct nf_conntrack_zone zone;
	struct nf_conn *ct;

	if ((key->ct.state & (OVS_CS_F_TRACKED | OVS_CS_F_INVALID)) !=
	    OVS_CS_F_TRACKED || key->ct.zone != info->zone)
		return;
	if (!nf_ct_get_tuplepr(skb, skb_network_offset(skb), info->family, net,
			       &tuple))
		return;
	if (natted) {
		struct nf_conntrack_tuple inverse;

		if (!nf_ct_invert_tuple(&inverse, &tuple))
			return;
		tuple = inverse;
	}
	nf_ct_zone_init(&zone, info->zone, NF_CT_DEFAULT_ZONE_DIR, 0);
	h = nf_conntrack_find_get(net, &zone, &tuple);
	if (!h)
		return;
	ct = nf_ct_tuplehash_to_ctrack(h);
	/* The inverse matched the other direction: the packet's is this. */
	if (natted)
		h = &ct->tuplehash[!h->tuple.dst.dir];
	nf_ct_set(skb, ct, ovsp_ct_info_of(h));
}

/* Tracks 'skb' (skb->data at its network header) in 'info''s zone unless
 * it already carries the answer (or 'key' names the confirmed connection
 * that does: ovsp_ct_recover()), and fills 'key'.  The key keeps its NAT
 * bits when the packet carried the answer (NAT was done in this zone),
 * and loses them otherwise.  Returns 0 or -ENOENT when conntrack refuses
 * the packet.
 */
static int ovsp_ct_lookup(struct net *net, struct sk_buff *skb,
			  struct ovsp_flow_key *key,
			  const struct ovsp_ct_info *info)
{
	enum ip_conntrack_info ctinfo;
	struct nf_conn *ct = nf_ct_get(skb, &ctinfo);
	u8 nat = key->ct.state & OVSP_CT_STATE_NAT;

	if (!ct) {
		ovsp_ct_recover(net, skb, key, info);
		ct = nf_ct_get(skb, &ctinfo);
	}
	if (!ovsp_ct_cached(net, info, ct, ctinfo)) {
		struct nf_hook_state state = {
			.hook = NF_INET_PRE_ROUTING,
			.pf = info->family,
			.net = net,
		};

		nat = 0;

		/* A stale connection or ct_clear's "untracked" would make
		 * nf_conntrack_in() return at once.
		 */
		nf_reset_ct(skb);
		if (info->tmpl) {
			/* This CPU's template: the reference that
			 * nf_conntrack_in() drops is taken on memory no
			 * other CPU writes.
			 */
			struct nf_conn *tmpl = *this_cpu_ptr(info->tmpl);

			nf_conntrack_get(&tmpl->ct_general);
			nf_ct_set(skb, tmpl, IP_CT_NEW);
		}
		if (nf_conntrack_in(skb, &state) != NF_ACCEPT)
			return -ENOENT;
		ct = nf_ct_get(skb, &ctinfo);
	}
	if (ct)
		ovsp_ct_key_set(key, ct, ctinfo, nat);
	else
		ovsp_ct_key_invalid(key, info->zone);
	return 0;
}

/* NATs 'skb' (skb->data at its network header) as ct() 'info' says, if
 * it has a connection.  Returns 0, or a negative errno after which the
 * packet is dropped; either way a failure is counted.
 */
static int ovsp_ct_nat(struct net *net, struct sk_buff *skb,
		       struct ovsp_flow_key *key,
		       const struct ovsp_ct_info *info)
{
	enum ip_conntrack_info ctinfo;
	struct nf_conn *ct = nf_ct_get(skb, &ctinfo);
	int err;

	if (!ct || !info->nat.flags)
		return 0;
	err = ovsp_ct_nat_execute(skb, key, &info->nat, info->commit,
				  info->family, ct, ctinfo);
	if (err)
		ovsp_ct_stats_cpu(net)->nat_failed++;
	/* No room for the NAT extension: the packet passes untranslated,
	 * as in Linux.
	 */
	return err == -ENOMEM ? 0 : err;
}

/* Writes 'info''s mark into 'ct' and 'key'. */
static void ovsp_ct_set_mark(struct nf_conn *ct, struct ovsp_flow_key *key,
			     const struct ovsp_ct_info *info)
{
	u32 old = READ_ONCE(ct->mark);
	u32 new = info->mark | (old & ~info->mark_mask);

	if (new != old) {
		WRITE_ONCE(ct->mark, new);
		if (nf_ct_is_confirmed(ct))
			nf_conntrack_event_cache(IPCT_MARK, ct);
	}
	key->ct.mark = new;
}

/* Writes 'info''s labels into 'ct' and 'key': an unconfirmed connection
 * gets its labels extension here, starting from its master's labels.
 * Returns 0 or -ENOSPC when the connection has no room for labels.
 */
static int ovsp_ct_set_labels(struct nf_conn *ct, struct ovsp_flow_key *key,
			      const struct ovsp_ct_info *info)
{
	struct nf_conn_labels *cl;
	int i, err;

	if (nf_ct_is_confirmed(ct)) {
		u32 val[OVSP_CT_LABELS_LEN / sizeof(u32)];
		u32 mask[OVSP_CT_LABELS_LEN / sizeof(u32)];

		memcpy(val, info->labels, sizeof(val));
		memcpy(mask, info->labels_mask, sizeof(mask));
		err = nf_connlabels_replace(ct, val, mask, ARRAY_SIZE(val));
		if (err)
			return err;
		cl = nf_ct_labels_find(ct);
	} else {
		cl = nf_ct_labels_find(ct);
		if (!cl)
			cl = nf_ct_labels_ext_add(ct);
		if (!cl)
			return -ENOSPC;
		if (ct->master) {
			const struct nf_conn_labels *mcl =
				nf_ct_labels_find(ct->master);

			if (mcl)
				memcpy(cl->bits, mcl->bits, sizeof(cl->bits));
		}
		for (i = 0; i < OVSP_CT_LABELS_LEN; i++) {
			u8 *b = (u8 *)cl->bits + i;

			*b = info->labels[i] | (*b & ~info->labels_mask[i]);
		}
	}
	if (cl)
		memcpy(key->ct.labels, cl->bits, OVSP_CT_LABELS_LEN);
	return 0;
}

/* The commit step: 'skb''s connection gets 'info''s event mask, mark and
 * labels, then is confirmed (inserted into the conntrack table).  An
 * invalid packet (no connection) commits nothing.  Returns 0 or a
 * negative errno, after which the packet is dropped: -EADDRNOTAVAIL when
 * the connection's NAT mapping clashed.
 */
static int ovsp_ct_commit(struct sk_buff *skb, struct ovsp_flow_key *key,
			  const struct ovsp_ct_info *info)
{
	enum ip_conntrack_info ctinfo;
	struct nf_conn *ct = nf_ct_get(skb, &ctinfo);
	bool nat;
	int err;

	if (!ct)
		return 0;
	/* A new connection counts in its zone, refused over the limit. */
	if (!nf_ct_is_confirmed(ct)) {
		err = ovsp_ct_limit_admit(read_pnet(&info->net), skb,
					  info->family, info->zone);
		if (err)
			return err;
	}
	if (info->have_eventmask) {
		struct nf_conntrack_ecache *cache = nf_ct_ecache_find(ct);

		if (cache)
			cache->ctmask = info->eventmask;
	}
	if (info->mark_mask)
		ovsp_ct_set_mark(ct, key, info);
	if (info->have_labels) {
		err = ovsp_ct_set_labels(ct, key, info);
		if (err)
			return err;
	}
	/* A new connection that nf_nat mapped is refused here when the
	 * range had no free tuple left: nf_nat then keeps one in use, whose
	 * reply direction clashes in the confirmation.
	 */
	nat = !nf_ct_is_confirmed(ct) && ct->status & IPS_NAT_MASK;
	if (nf_conntrack_confirm(skb) == NF_ACCEPT)
		return 0;
	return nat ? -EADDRNOTAVAIL : -EINVAL;
}

/* Cuts link-layer padding off 'skb' (skb->data at the network header):
 * conntrack checksums the IP length.  Returns 0 or -ENOMEM.
 */
static int ovsp_ct_trim(struct sk_buff *skb, u8 family)
{
	unsigned int len;

	if (family == NFPROTO_IPV4)
		len = ntohs(ip_hdr(skb)->tot_len);
	else
		len = sizeof(struct ipv6hdr) +
		      ntohs(ipv6_hdr(skb)->payload_len);
	if (len >= skb->len || len < skb_network_header_len(skb))
		return 0;
	return pskb_trim_rcsum(skb, len) ? -ENOMEM : 0;
}

void ovsp_ct_count_refrag_drop(struct net *net)
{
	ovsp_ct_stats_cpu(net)->refrag_dropped++;
}

/* Hands fragment 'skb' (skb->data at its network header, trimmed) to the
 * namespace's reassembly for 'info''s family, in a queue of 'info''s zone
 * (the defrag user: nf_conntrack's own for that zone, so that the host's
 * conntrack and ct() share the queue of a datagram, as in Linux).
 * Returns 0 when 'skb' is now the whole datagram, with its largest
 * fragment's size in '*mru'; -EINPROGRESS when the fragment was queued
 * (the queue owns it); any other negative errno after 'skb' was freed.
 * skb->cb is the reassembly's while it runs: the caller restores ours.
 */
static int ovsp_ct_defrag(struct net *net, struct sk_buff *skb,
			  const struct ovsp_ct_info *info, u16 *mru)
{
	int err;

	if (info->family == NFPROTO_IPV4) {
		memset(IPCB(skb), 0, sizeof(struct inet_skb_parm));
		/* Frees 'skb' on every error but -EINPROGRESS. */
		err = ip_defrag(net, skb, IP_DEFRAG_CONNTRACK_IN + info->zone);
		if (err)
			return err;
		*mru = IPCB(skb)->frag_max_size;
		return 0;
	}
	memset(IP6CB(skb), 0, sizeof(struct inet6_skb_parm));
	err = nf_ct_frag6_gather(net, skb,
				 IP6_DEFRAG_CONNTRACK_IN + info->zone);
	if (err) {
		/* Unlike ip_defrag(), it leaves a refused fragment to us. */
		if (err != -EINPROGRESS)
			kfree_skb(skb);
		return err;
	}
	*mru = IP6CB(skb)->frag_max_size;
	return 0;
}

/* Reassembles the datagram of fragment 'skb' (skb->data at its start),
 * whose key is 'key', before 'info' tracks it.  On success 'skb' is the
 * whole datagram, skb->data at its start, our cb as it was but for the
 * MRU (its largest fragment, which output cuts it to again), and 'key'
 * its key (layers 3 and 4 extracted again: no longer a fragment).
 * Returns 0, -EINPROGRESS when the fragment was queued, or another
 * negative errno after 'skb' was freed; each outcome is counted.
 */
static int ovsp_ct_reassemble(struct net *net, struct sk_buff *skb,
			      struct ovsp_flow_key *key,
			      const struct ovsp_ct_info *info)
{
	struct ovsp_ct_stats *s = ovsp_ct_stats_cpu(net);
	struct ovsp_skb_cb cb = *ovsp_skb_cb(skb);
	unsigned int nh = skb_network_offset(skb);
	u16 mru = 0;
	int err;

	skb_pull_rcsum(skb, nh);
	err = ovsp_ct_trim(skb, info->family);
	if (err)
		kfree_skb(skb);
	else
		err = ovsp_ct_defrag(net, skb, info, &mru);
	if (err == -EINPROGRESS) {
		s->frag_queued++;
		return err;
	}
	if (err) {
		s->frag_dropped++;
		return err;
	}
	/* The reassembly kept the first fragment's link-layer header in
	 * front of the network header, 'nh' bytes long.
	 */
	skb_push_rcsum(skb, nh);
	skb_clear_hash(skb);
	skb->ignore_df = 1;
	*ovsp_skb_cb(skb) = cb;
	ovsp_skb_cb(skb)->mru = mru;
	err = ovsp_flow_key_update(skb, key);
	if (err) {
		s->frag_dropped++;
		kfree_skb(skb);
		return err;
	}
	s->reassembled++;
	return 0;
}

int ovsp_ct_execute(struct sk_buff *skb, struct ovsp_flow_key *key,
		    const struct ovsp_ct_info *info)
{
	struct net *net = read_pnet(&info->net);
	__be16 type = info->family == NFPROTO_IPV4 ? htons(ETH_P_IP)
						   : htons(ETH_P_IPV6);
	unsigned int nh;
	int err;

	/* A fragment has no ports to track: the datagram is reassembled
	 * first, as in Linux.
	 */
	if (key->ip.frag != OVS_FRAG_TYPE_NONE && key->eth.type == type) {
		err = ovsp_ct_reassemble(net, skb, key, info);
		if (err)
			return err;
	}
	/* A packet whose key has no network layer of the action's family
	 * (an MPLS push before ct()) is not tracked.
	 */
	nh = skb_network_offset(skb);
	if (key->ip.frag != OVS_FRAG_TYPE_NONE || key->eth.type != type ||
	    skb_transport_offset(skb) <= nh) {
		nf_reset_ct(skb);
		ovsp_ct_key_invalid(key, info->zone);
		ovsp_ct_count(net, key);
		return 0;
	}

	skb_pull_rcsum(skb, nh);
	err = ovsp_ct_trim(skb, info->family);
	if (!err) {
		err = ovsp_ct_lookup(net, skb, key, info);
		if (err)
			ovsp_ct_stats_cpu(net)->refused++;
		else
			ovsp_ct_count(net, key);
	}
	/* NAT before the commit, so that the mapping is confirmed with
	 * the connection.
	 */
	if (!err)
		err = ovsp_ct_nat(net, skb, key, info);
	if (!err && info->commit) {
		err = ovsp_ct_commit(skb, key, info);
		if (err == -EADDRNOTAVAIL) {
			/* NAT's range exhausted; Linux's errno. */
			ovsp_ct_stats_cpu(net)->nat_failed++;
			err = -EINVAL;
		} else if (err) {
			ovsp_ct_stats_cpu(net)->commit_failed++;
		}
	}
	skb_push_rcsum(skb, nh);
	if (err)
		kfree_skb(skb);
	return err;
}

void ovsp_ct_clear(struct sk_buff *skb, struct ovsp_flow_key *key)
{
	nf_reset_ct(skb);
	nf_ct_set(skb, NULL, IP_CT_UNTRACKED);
	memset(&key->ct, 0, sizeof(key->ct));
}

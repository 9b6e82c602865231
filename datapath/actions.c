// SPDX-License-Identifier: GPL-2.0
/*
 * Executing a flow's actions (their executable form, actions-format.h) on
 * a packet.
 *
 * Contract (see actions.h):
 * - The packet's skb->data stays at its first byte (the Ethernet header,
 *   or the network header of a layer-3 packet) between actions.
 * - The flow key follows the packet: set actions write the fields they
 *   change, push and pop VLAN update the tag when it is the only one; any
 *   other change marks the key stale, and it is extracted again before it
 *   is needed (a recirculation or an upcall).
 * - Every output but the last sends a clone; sample, clone and
 *   check_pkt_len run their lists on a clone unless they are last.  A
 *   nested list runs one level deeper, on a copy of the key in this CPU's
 *   key slot for the level unless it is last or changes no key, while the
 *   level has a slot (up to OVSP_KEY_SLOTS); past that it is deferred to
 *   this CPU's FIFO, which the outermost level runs once its own actions
 *   are done.
 *   Recirculation takes a copy and re-enters the datapath the same way.
 *   So the C recursion is bounded by the level, not by how deep the lists
 *   nest (utilities/check-stack.py checks its stack use).  A full FIFO
 *   drops the packet, logged; recursion deeper than OVSP_RECURSION_LIMIT
 *   drops it, logged.
 *
 * Per CPU: the level, the key slots and the FIFO are this CPU's; the
 * caller has BHs disabled, so nothing else runs on the CPU meanwhile.
 * The meter action writes its meter's slot for this CPU and, when the
 * packet conforms, its bands' shared words (meter.h); ct() writes this
 * CPU's template and the packet's connection (conntrack.h).
 */
#include <linux/crc32.h>
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/kernel.h>
#include <linux/net.h>
#include <linux/openvswitch.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sctp.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/dsfield.h>
#include <net/dst.h>
#include <net/dst_metadata.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/mpls.h>

#include "actions-format.h"
#include "actions.h"
#include "conntrack.h"
#include "datapath.h"
#include "flow-actions.h"
#include "flow-key.h"
#include "meter.h"
#include "skb-cb.h"

/* Deferred actions a packet may queue on a CPU, as the kernel datapath. */
#define OVSP_DEFERRED_FIFO_SIZE 10

/* Nesting levels that copy the key into a slot instead of deferring. */
#define OVSP_KEY_SLOTS (OVSP_RECURSION_LIMIT - 2)

/* 'key' with what the masked set actions write: 'val' where 'mask' has
 * ones ('val' has no bits outside 'mask', as validation checked).
 */
#define OVSP_MASKED(old, val, mask) ((val) | ((old) & ~(mask)))

/* A flow key and whether it still describes its packet. */
struct ovsp_key_state {
	struct ovsp_flow_key *key;
	bool valid;		/* False once an action changed the packet in
				 * a way the key does not follow.
				 */
};

/* A list of executable actions and where it came from. */
struct ovsp_list_ref {
	const struct nlattr *actions;	/* Executable form. */
	int len;			/* Its bytes. */
	const u8 *orig;			/* The list as userspace sent it. */
	int orig_len;			/* Its bytes. */
};

/* What every action of one execution needs. */
struct ovsp_exec_ctx {
	struct ovsp_datapath *dp;	/* The datapath the packet is in. */
	const u8 *orig_base;		/* What userspace sent for the flow:
					 * nested lists' orig_off base.
					 */
};

/* A deferred list or recirculation. */
struct ovsp_deferred {
	struct sk_buff *skb;		/* Owned until run. */
	struct ovsp_exec_ctx ctx;	/* Of the actions that deferred it. */
	struct ovsp_list_ref list;	/* The list to run, unless 'recirc'. */
	bool recirc;			/* Send 'skb' back through the
					 * datapath with 'key' instead.
					 */
	bool key_valid;			/* 'key' describes 'skb'. */
	struct ovsp_flow_key key;	/* The packet's key. */
};

/* One CPU's execution state. */
struct ovsp_exec_cpu {
	int level;			/* Executions under way on this CPU:
					 * 1 for a packet's own actions.
					 */
	unsigned int head;		/* Next free entry of 'fifo'. */
	unsigned int tail;		/* Next entry of 'fifo' to run. */
	struct ovsp_deferred fifo[OVSP_DEFERRED_FIFO_SIZE];
	struct ovsp_flow_key keys[OVSP_KEY_SLOTS]; /* Key copies, one per
						    * level.
						    */
};

/* Every CPU's execution state; written only by its CPU. */
static struct ovsp_exec_cpu __percpu *ovsp_exec_cpus;

static int ovsp_exec_list(const struct ovsp_exec_ctx *x, struct sk_buff *skb,
			  struct ovsp_key_state *ks,
			  const struct ovsp_list_ref *l);

/* Makes 'ks' describe its packet again.  Returns 0 or a negative errno. */
static int ovsp_key_refresh(struct sk_buff *skb, struct ovsp_key_state *ks)
{
	int err;

	if (ks->valid)
		return 0;
	err = ovsp_flow_key_update(skb, ks->key);
	if (!err)
		ks->valid = true;
	return err;
}

/* The list that list header 'h' of execution 'x' starts. */
static struct ovsp_list_ref ovsp_list_of(const struct ovsp_exec_ctx *x,
					 const struct ovsp_act_list *h)
{
	return (struct ovsp_list_ref) {
		.actions = ovsp_act_list_actions(h),
		.len = h->len,
		.orig = x->orig_base + h->orig_off,
		.orig_len = h->orig_len,
	};
}

/* Queues 'skb' with a copy of 'ks' on this CPU's FIFO, to run list 'list'
 * (or, if NULL, to recirculate with 'recirc_id') once the outermost level
 * is done.  Consumes 'skb'.  Returns 0.
 */
static int ovsp_defer(struct ovsp_exec_cpu *cpu, const struct ovsp_exec_ctx *x,
		      struct sk_buff *skb, const struct ovsp_key_state *ks,
		      const struct ovsp_list_ref *list, u32 recirc_id)
{
	struct ovsp_deferred *d;

	if (cpu->head >= OVSP_DEFERRED_FIFO_SIZE) {
		kfree_skb(skb);
		net_warn_ratelimited("ovs_percpu: deferred action limit reached, dropped a %s\n",
				     list ? "nested action list" : "recirculation");
		return 0;
	}
	d = &cpu->fifo[cpu->head++];
	d->skb = skb;
	d->ctx = *x;
	d->recirc = !list;
	if (list)
		d->list = *list;
	d->key_valid = ks->valid;
	d->key = *ks->key;
	if (!list)
		d->key.meta.recirc_id = recirc_id;
	return 0;
}

/* Runs list 'h' (or, if NULL, recirculates with 'recirc_id') on 'skb',
 * or on a clone unless 'last', with 'ks' or a copy of it as the list
 * needs.  Consumes 'skb' if 'last'.  Returns 0 or a negative errno.
 *
 * The C recursion stays bounded by the level, whatever the nesting that
 * validation allows (OVSP_ACTIONS_MAX_DEPTH): every nested list and every
 * recirculation runs one level deeper, directly while the level has a key
 * slot, else from the FIFO once the outermost level is done.  So one
 * ovsp_exec_list() frame per level at most (utilities/check-stack.py).
 */
static int ovsp_exec_nested(const struct ovsp_exec_ctx *x, struct sk_buff *skb,
			    struct ovsp_key_state *ks,
			    const struct ovsp_act_list *h, u32 recirc_id,
			    bool last)
{
	struct ovsp_exec_cpu *cpu = this_cpu_ptr(ovsp_exec_cpus);
	struct ovsp_list_ref list = { NULL, 0, NULL, 0 };
	struct ovsp_key_state copy;
	int err;

	if (!last) {
		skb = skb_clone(skb, GFP_ATOMIC);
		if (!skb)
			return 0;	/* The copy is lost, not the packet. */
	}
	if (h)
		list = ovsp_list_of(x, h);
	if (cpu->level > OVSP_KEY_SLOTS)
		return ovsp_defer(cpu, x, skb, ks, h ? &list : NULL, recirc_id);

	/* This level's key slot, unless the list keeps the key or is last:
	 * then it runs on 'ks' itself, which nothing after it needs
	 * changed.
	 */
	if (!h || !(last || h->flags & OVSP_ACT_LIST_KEEPS_KEY)) {
		copy.key = &cpu->keys[cpu->level - 1];
		copy.valid = ks->valid;
		*copy.key = *ks->key;
		ks = &copy;
	}
	if (!h) {
		/* ovsp_actions_execute() raises the level. */
		ks->key->meta.recirc_id = recirc_id;
		ovsp_dp_process_packet(skb, ks->key);
		return 0;
	}
	cpu->level++;
	err = ovsp_exec_list(x, skb, ks, &list);
	cpu->level--;
	return err;
}

/* Runs this CPU's deferred actions, in order, until none is left. */
static void ovsp_run_deferred(struct ovsp_exec_cpu *cpu)
{
	while (cpu->tail < cpu->head) {
		struct ovsp_deferred *d = &cpu->fifo[cpu->tail++];

		if (d->recirc) {
			ovsp_dp_process_packet(d->skb, &d->key);
		} else {
			struct ovsp_key_state ks = { &d->key, d->key_valid };

			ovsp_exec_list(&d->ctx, d->skb, &ks, &d->list);
		}
	}
	cpu->head = 0;
	cpu->tail = 0;
}

/* Replaces IPv4 address '*addr' of header 'iph' in 'skb' by 'new',
 * updating the IP and the TCP or UDP checksum.
 */
static void ovsp_set_ipv4_addr(struct sk_buff *skb, struct iphdr *iph,
			       __be32 *addr, __be32 new)
{
	unsigned int th = skb_transport_offset(skb);

	if (!(iph->frag_off & htons(IP_OFFSET))) {
		if (iph->protocol == IPPROTO_TCP &&
		    skb->len >= th + sizeof(struct tcphdr)) {
			inet_proto_csum_replace4(&tcp_hdr(skb)->check, skb,
						 *addr, new, true);
		} else if (iph->protocol == IPPROTO_UDP &&
			   skb->len >= th + sizeof(struct udphdr)) {
			struct udphdr *uh = udp_hdr(skb);

			if (uh->check || skb->ip_summed == CHECKSUM_PARTIAL) {
				inet_proto_csum_replace4(&uh->check, skb,
							 *addr, new, true);
				if (!uh->check)
					uh->check = CSUM_MANGLED_0;
			}
		}
	}
	csum_replace4(&iph->check, *addr, new);
	*addr = new;
	skb_clear_hash(skb);
	nf_reset_ct(skb);
}

/* The bytes from the start of 'skb' that a change of the addresses of an
 * IP header for 'proto' (an upper layer at transport offset 'th') writes:
 * the TCP or UDP checksum too, when the packet holds it.
 */
static unsigned int ovsp_l4_csum_end(const struct sk_buff *skb, u8 proto,
				     unsigned int end)
{
	unsigned int th = skb_transport_offset(skb);
	unsigned int l4 = 0;

	if (proto == IPPROTO_TCP)
		l4 = sizeof(struct tcphdr);
	else if (proto == IPPROTO_UDP)
		l4 = sizeof(struct udphdr);
	else if (proto == IPPROTO_ICMPV6)
		l4 = sizeof(struct icmp6hdr);
	if (l4 && skb->len >= th + l4)
		end = max(end, th + l4);
	return end;
}

/* set_masked(ipv4(...)).  Returns 0 or a negative errno. */
static int ovsp_set_ipv4(struct sk_buff *skb, struct ovsp_flow_key *key,
			 const struct ovs_key_ipv4 *v,
			 const struct ovs_key_ipv4 *m)
{
	unsigned int nh = skb_network_offset(skb);
	unsigned int end = nh + sizeof(struct iphdr);
	struct iphdr *iph;
	__be32 addr;
	int err;

	if (!pskb_may_pull(skb, end))
		return -ENOMEM;
	iph = ip_hdr(skb);
	if ((m->ipv4_src || m->ipv4_dst) &&
	    !(iph->frag_off & htons(IP_OFFSET)))
		end = ovsp_l4_csum_end(skb, iph->protocol, end);
	err = skb_ensure_writable(skb, end);
	if (err)
		return err;
	iph = ip_hdr(skb);

	if (m->ipv4_src) {
		addr = OVSP_MASKED(iph->saddr, v->ipv4_src, m->ipv4_src);
		if (addr != iph->saddr) {
			ovsp_set_ipv4_addr(skb, iph, &iph->saddr, addr);
			key->ipv4.src = addr;
		}
	}
	if (m->ipv4_dst) {
		addr = OVSP_MASKED(iph->daddr, v->ipv4_dst, m->ipv4_dst);
		if (addr != iph->daddr) {
			ovsp_set_ipv4_addr(skb, iph, &iph->daddr, addr);
			key->ipv4.dst = addr;
		}
	}
	if (m->ipv4_tos) {
		ipv4_change_dsfield(iph, ~m->ipv4_tos, v->ipv4_tos);
		key->ip.tos = iph->tos;
	}
	if (m->ipv4_ttl) {
		u8 ttl = OVSP_MASKED(iph->ttl, v->ipv4_ttl, m->ipv4_ttl);

		csum_replace2(&iph->check, htons(iph->ttl << 8),
			      htons(ttl << 8));
		iph->ttl = ttl;
		key->ip.ttl = ttl;
	}
	return 0;
}

/* Replaces IPv6 address 'addr' of 'skb' by 'new', updating the checksum
 * of upper layer 'proto' if 'csum'.
 */
static void ovsp_set_ipv6_addr(struct sk_buff *skb, u8 proto, __be32 *addr,
			       const __be32 *new, bool csum)
{
	unsigned int th = skb_transport_offset(skb);

	if (csum && proto == IPPROTO_TCP &&
	    skb->len >= th + sizeof(struct tcphdr)) {
		inet_proto_csum_replace16(&tcp_hdr(skb)->check, skb, addr, new,
					  true);
	} else if (csum && proto == IPPROTO_UDP &&
		   skb->len >= th + sizeof(struct udphdr)) {
		struct udphdr *uh = udp_hdr(skb);

		if (uh->check || skb->ip_summed == CHECKSUM_PARTIAL) {
			inet_proto_csum_replace16(&uh->check, skb, addr, new,
						  true);
			if (!uh->check)
				uh->check = CSUM_MANGLED_0;
		}
	} else if (csum && proto == IPPROTO_ICMPV6 &&
		   skb->len >= th + sizeof(struct icmp6hdr)) {
		inet_proto_csum_replace16(&icmp6_hdr(skb)->icmp6_cksum, skb,
					  addr, new, true);
	}
	memcpy(addr, new, sizeof(struct in6_addr));
	skb_clear_hash(skb);
	nf_reset_ct(skb);
}

/* Replaces the 32-bit word '*word' of a header at an even offset in 'skb'
 * by 'new', keeping a CHECKSUM_COMPLETE sum right.
 */
static void ovsp_set_word(struct sk_buff *skb, __be32 *word, __be32 new)
{
	if (skb->ip_summed == CHECKSUM_COMPLETE)
		csum_replace(&skb->csum, (__force __wsum)*word,
			     (__force __wsum)new);
	*word = new;
}

/* set_masked(ipv6(...)).  Returns 0 or a negative errno. */
static int ovsp_set_ipv6(struct sk_buff *skb, struct ovsp_flow_key *key,
			 const struct ovs_key_ipv6 *v,
			 const struct ovs_key_ipv6 *m)
{
	unsigned int nh = skb_network_offset(skb);
	unsigned int end = nh + sizeof(struct ipv6hdr);
	bool addrs = !ipv6_addr_any((const struct in6_addr *)m->ipv6_src) ||
		     !ipv6_addr_any((const struct in6_addr *)m->ipv6_dst);
	u8 proto = key->ip.proto;
	struct ipv6hdr *ip6;
	__be32 *w, new;
	int err;
	int i;

	if (addrs && proto != NEXTHDR_FRAGMENT)
		end = ovsp_l4_csum_end(skb, proto, end);
	err = skb_ensure_writable(skb, end);
	if (err)
		return err;
	ip6 = ipv6_hdr(skb);

	if (!ipv6_addr_any((const struct in6_addr *)m->ipv6_src)) {
		__be32 *a = ip6->saddr.s6_addr32;
		__be32 n[4];

		for (i = 0; i < 4; i++)
			n[i] = OVSP_MASKED(a[i], v->ipv6_src[i], m->ipv6_src[i]);
		if (memcmp(a, n, sizeof(n))) {
			ovsp_set_ipv6_addr(skb, proto, a, n,
					   proto != NEXTHDR_FRAGMENT);
			key->ipv6.src = ip6->saddr;
		}
	}
	if (!ipv6_addr_any((const struct in6_addr *)m->ipv6_dst)) {
		__be32 *a = ip6->daddr.s6_addr32;
		__be32 n[4];

		for (i = 0; i < 4; i++)
			n[i] = OVSP_MASKED(a[i], v->ipv6_dst[i], m->ipv6_dst[i]);
		if (memcmp(a, n, sizeof(n))) {
			unsigned int off = 0;
			int flags = IP6_FH_F_SKIP_RH;
			bool csum = proto != NEXTHDR_FRAGMENT;

			/* With a routing header, the upper layer's checksum
			 * is over the final destination, not this one.
			 */
			if (csum && ipv6_ext_hdr(ip6->nexthdr))
				csum = ipv6_find_hdr(skb, &off, NEXTHDR_ROUTING,
						     NULL, &flags)
				       != NEXTHDR_ROUTING;
			ip6 = ipv6_hdr(skb);
			a = ip6->daddr.s6_addr32;
			ovsp_set_ipv6_addr(skb, proto, a, n, csum);
			key->ipv6.dst = ip6->daddr;
		}
	}

	/* Version, traffic class and flow label share the first word. */
	w = (__be32 *)ip6;
	new = *w;
	if (m->ipv6_tclass) {
		__be32 tc_mask = htonl((u32)m->ipv6_tclass << 20);

		new = (new & ~tc_mask) | htonl((u32)v->ipv6_tclass << 20);
	}
	if (m->ipv6_label)
		new = OVSP_MASKED(new, v->ipv6_label, m->ipv6_label);
	if (new != *w) {
		ovsp_set_word(skb, w, new);
		key->ip.tos = ipv6_get_dsfield(ip6);
		key->ipv6.label = new & IPV6_FLOWLABEL_MASK;
	}
	if (m->ipv6_hlimit) {
		/* The hop limit ends the second word. */
		__be32 *w2 = w + 1;
		u8 hl = OVSP_MASKED(ip6->hop_limit, v->ipv6_hlimit,
				    m->ipv6_hlimit);

		new = *w2;
		((u8 *)&new)[3] = hl;
		ovsp_set_word(skb, w2, new);
		key->ip.ttl = hl;
	}
	return 0;
}

/* Replaces port '*port' of 'skb' by 'new', with checksum '*check'. */
static void ovsp_set_port(struct sk_buff *skb, __be16 *port, __be16 new,
			  __sum16 *check)
{
	inet_proto_csum_replace2(check, skb, *port, new, false);
	*port = new;
}

/* set_masked(tcp(...)).  Returns 0 or a negative errno. */
static int ovsp_set_tcp(struct sk_buff *skb, struct ovsp_flow_key *key,
			const struct ovs_key_tcp *v,
			const struct ovs_key_tcp *m)
{
	unsigned int th = skb_transport_offset(skb);
	struct tcphdr *tcp;
	__be16 port;
	int err;

	err = skb_ensure_writable(skb, th + sizeof(*tcp));
	if (err)
		return err;
	tcp = tcp_hdr(skb);
	port = OVSP_MASKED(tcp->source, v->tcp_src, m->tcp_src);
	if (port != tcp->source) {
		ovsp_set_port(skb, &tcp->source, port, &tcp->check);
		key->tp.src = port;
	}
	port = OVSP_MASKED(tcp->dest, v->tcp_dst, m->tcp_dst);
	if (port != tcp->dest) {
		ovsp_set_port(skb, &tcp->dest, port, &tcp->check);
		key->tp.dst = port;
	}
	skb_clear_hash(skb);
	nf_reset_ct(skb);
	return 0;
}

/* set_masked(udp(...)).  Returns 0 or a negative errno. */
static int ovsp_set_udp(struct sk_buff *skb, struct ovsp_flow_key *key,
			const struct ovs_key_udp *v,
			const struct ovs_key_udp *m)
{
	unsigned int th = skb_transport_offset(skb);
	struct udphdr *udp;
	__be16 src, dst;
	int err;

	err = skb_ensure_writable(skb, th + sizeof(*udp));
	if (err)
		return err;
	udp = udp_hdr(skb);
	src = OVSP_MASKED(udp->source, v->udp_src, m->udp_src);
	dst = OVSP_MASKED(udp->dest, v->udp_dst, m->udp_dst);
	if (udp->check && skb->ip_summed != CHECKSUM_PARTIAL) {
		if (src != udp->source)
			ovsp_set_port(skb, &udp->source, src, &udp->check);
		if (dst != udp->dest)
			ovsp_set_port(skb, &udp->dest, dst, &udp->check);
		if (!udp->check)
			udp->check = CSUM_MANGLED_0;
	} else {
		/* No checksum, or one the pseudo-header holds without the
		 * ports.
		 */
		udp->source = src;
		udp->dest = dst;
	}
	key->tp.src = src;
	key->tp.dst = dst;
	skb_clear_hash(skb);
	nf_reset_ct(skb);
	return 0;
}

/* skb_checksum_ops update for CRC32c, with the kernel's built-in table
 * implementation (no dependency on libcrc32c).
 */
static __wsum ovsp_crc32c_update(const void *buf, int len, __wsum crc)
{
	return (__force __wsum)__crc32c_le((__force u32)crc, buf, len);
}

/* skb_checksum_ops combine for CRC32c. */
static __wsum ovsp_crc32c_combine(__wsum crc, __wsum crc2, int offset,
				  int len)
{
	return (__force __wsum)__crc32c_le_combine((__force u32)crc,
						   (__force u32)crc2, len);
}

/* CRC32c over a packet, for SCTP. */
static const struct skb_checksum_ops ovsp_crc32c_ops = {
	.update = ovsp_crc32c_update,
	.combine = ovsp_crc32c_combine,
};

/* The SCTP checksum that the packet from transport offset 'th' should
 * have.
 */
static __le32 ovsp_sctp_csum(struct sk_buff *skb, unsigned int th)
{
	struct sctphdr *sh = (struct sctphdr *)(skb->data + th);
	__le32 old = sh->checksum;
	__wsum crc;

	sh->checksum = 0;
	crc = ~__skb_checksum(skb, th, skb->len - th, ~(__wsum)0,
			      &ovsp_crc32c_ops);
	sh->checksum = old;
	return cpu_to_le32((__force u32)crc);
}

/* set_masked(sctp(...)).  Returns 0 or a negative errno. */
static int ovsp_set_sctp(struct sk_buff *skb, struct ovsp_flow_key *key,
			 const struct ovs_key_sctp *v,
			 const struct ovs_key_sctp *m)
{
	unsigned int th = skb_transport_offset(skb);
	__le32 old, old_correct;
	struct sctphdr *sh;
	int err;

	err = skb_ensure_writable(skb, th + sizeof(*sh));
	if (err)
		return err;
	sh = sctp_hdr(skb);
	old = sh->checksum;
	old_correct = ovsp_sctp_csum(skb, th);
	sh->source = OVSP_MASKED(sh->source, v->sctp_src, m->sctp_src);
	sh->dest = OVSP_MASKED(sh->dest, v->sctp_dst, m->sctp_dst);
	/* A wrong checksum stays as wrong. */
	sh->checksum = old ^ old_correct ^ ovsp_sctp_csum(skb, th);
	key->tp.src = sh->source;
	key->tp.dst = sh->dest;
	skb_clear_hash(skb);
	nf_reset_ct(skb);
	return 0;
}

/* set_masked(eth(...)).  Returns 0 or a negative errno. */
static int ovsp_set_eth(struct sk_buff *skb, struct ovsp_flow_key *key,
			const struct ovs_key_ethernet *v,
			const struct ovs_key_ethernet *m)
{
	struct ethhdr *eth;
	int err;
	int i;

	err = skb_ensure_writable(skb, ETH_HLEN);
	if (err)
		return err;
	eth = eth_hdr(skb);
	skb_postpull_rcsum(skb, eth, 2 * ETH_ALEN);
	for (i = 0; i < ETH_ALEN; i++) {
		eth->h_source[i] = OVSP_MASKED(eth->h_source[i],
					       v->eth_src[i], m->eth_src[i]);
		eth->h_dest[i] = OVSP_MASKED(eth->h_dest[i], v->eth_dst[i],
					     m->eth_dst[i]);
	}
	skb_postpush_rcsum(skb, eth, 2 * ETH_ALEN);
	ether_addr_copy(key->eth.src, eth->h_source);
	ether_addr_copy(key->eth.dst, eth->h_dest);
	return 0;
}

/* set_masked(mpls(...)) of the top label.  Returns 0 or a negative
 * errno.
 */
static int ovsp_set_mpls(struct sk_buff *skb, struct ovsp_flow_key *key,
			 const __be32 *v, const __be32 *m)
{
	__be32 lse;
	int err;

	if (!pskb_may_pull(skb, skb_network_offset(skb) + MPLS_HLEN))
		return -ENOMEM;
	lse = OVSP_MASKED(mpls_hdr(skb)->label_stack_entry, *v, *m);
	err = skb_mpls_update_lse(skb, lse);
	if (err)
		return err;
	key->mpls.lse[0] = lse;
	return 0;
}

/* Executes set_masked action 'a'.  Returns 0 or a negative errno. */
static int ovsp_exec_set_masked(struct sk_buff *skb, struct ovsp_flow_key *key,
				const struct nlattr *a)
{
	const struct nlattr *inner = nla_data(a);
	const void *v = nla_data(inner);
	const void *m = (const u8 *)v + nla_len(inner) / 2;

	switch (nla_type(inner)) {
	case OVS_KEY_ATTR_PRIORITY:
		skb->priority = OVSP_MASKED(skb->priority, *(const u32 *)v,
					    *(const u32 *)m);
		key->meta.priority = skb->priority;
		return 0;
	case OVS_KEY_ATTR_SKB_MARK:
		skb->mark = OVSP_MASKED(skb->mark, *(const u32 *)v,
					*(const u32 *)m);
		key->meta.skb_mark = skb->mark;
		return 0;
	case OVS_KEY_ATTR_ETHERNET:
		return ovsp_set_eth(skb, key, v, m);
	case OVS_KEY_ATTR_IPV4:
		return ovsp_set_ipv4(skb, key, v, m);
	case OVS_KEY_ATTR_IPV6:
		return ovsp_set_ipv6(skb, key, v, m);
	case OVS_KEY_ATTR_TCP:
		return ovsp_set_tcp(skb, key, v, m);
	case OVS_KEY_ATTR_UDP:
		return ovsp_set_udp(skb, key, v, m);
	case OVS_KEY_ATTR_SCTP:
		return ovsp_set_sctp(skb, key, v, m);
	case OVS_KEY_ATTR_MPLS:
		return ovsp_set_mpls(skb, key, v, m);
	}
	return -EINVAL;
}

/* Executes userspace action 'a' of list 'l': an OVS_PACKET_CMD_ACTION
 * upcall.  Its failure is the datapath's to count; the packet goes on.
 */
static void ovsp_exec_userspace(const struct ovsp_exec_ctx *x,
				struct sk_buff *skb, struct ovsp_key_state *ks,
				const struct nlattr *a,
				const struct ovsp_list_ref *l)
{
	struct ovsp_upcall_info info = {
		.cmd = OVS_PACKET_CMD_ACTION,
		.mru = ovsp_skb_cb(skb)->mru,
	};
	const struct nlattr *nla;
	int rem;

	nla_for_each_nested(nla, a, rem) {
		switch (nla_type(nla)) {
		case OVS_USERSPACE_ATTR_PID:
			info.portid = nla_get_u32(nla);
			break;
		case OVS_USERSPACE_ATTR_USERDATA:
			info.userdata = nla;
			break;
		case OVS_USERSPACE_ATTR_EGRESS_TUN_PORT:
			/* Validation refused port numbers past u16. */
			info.egress_tun_info =
				ovsp_dp_egress_tun_info(x->dp,
							nla_get_u32(nla), skb);
			break;
		case OVS_USERSPACE_ATTR_ACTIONS:
			info.actions = (const struct nlattr *)l->orig;
			info.actions_len = l->orig_len;
			break;
		}
	}
	if (ovsp_key_refresh(skb, ks))
		return;
	ovsp_dp_upcall(x->dp, skb, ks->key, &info, ovsp_skb_cb(skb)->trunc_len);
}

/* push_vlan.  Returns 0 or a negative errno. */
static int ovsp_exec_push_vlan(struct sk_buff *skb, struct ovsp_key_state *ks,
			       const struct ovs_action_push_vlan *vlan)
{
	if (skb_vlan_tag_present(skb)) {
		/* The old outer tag moves into the payload. */
		ks->valid = false;
	} else {
		ks->key->eth.vlan.tpid = vlan->vlan_tpid;
		ks->key->eth.vlan.tci = vlan->vlan_tci;
	}
	return skb_vlan_push(skb, vlan->vlan_tpid,
			     ntohs(vlan->vlan_tci) & ~VLAN_CFI_MASK);
}

/* pop_vlan.  Returns 0 or a negative errno. */
static int ovsp_exec_pop_vlan(struct sk_buff *skb, struct ovsp_key_state *ks)
{
	int err = skb_vlan_pop(skb);

	if (skb_vlan_tag_present(skb)) {
		/* An inner tag became the outer one. */
		ks->valid = false;
	} else {
		ks->key->eth.vlan.tpid = 0;
		ks->key->eth.vlan.tci = 0;
	}
	return err;
}

/* Pushes MPLS label 'lse' of 'type' after the first 'mac_len' bytes
 * (before the packet if 0, which makes it a layer-3 packet).  Returns 0
 * or a negative errno.
 */
static int ovsp_exec_push_mpls(struct sk_buff *skb, struct ovsp_key_state *ks,
			       __be32 lse, __be16 type, unsigned int mac_len)
{
	int err = skb_mpls_push(skb, lse, type, mac_len, mac_len != 0);

	if (err)
		return err;
	if (!mac_len)
		ks->key->meta.mac_proto = OVSP_MAC_PROTO_NONE;
	ks->key->eth.type = type;
	ks->valid = false;
	return 0;
}

/* pop_mpls to 'type'.  Returns 0 or a negative errno. */
static int ovsp_exec_pop_mpls(struct sk_buff *skb, struct ovsp_key_state *ks,
			      __be16 type)
{
	bool eth = ks->key->meta.mac_proto == OVSP_MAC_PROTO_ETHERNET;
	int err = skb_mpls_pop(skb, type, skb->mac_len, eth);

	if (err)
		return err;
	if (type == htons(ETH_P_TEB))
		ks->key->meta.mac_proto = OVSP_MAC_PROTO_ETHERNET;
	ks->key->eth.type = type;
	ks->valid = false;
	return 0;
}

/* hash: sets the key's dp_hash from the packet's L4 hash. */
static void ovsp_exec_hash(struct sk_buff *skb, struct ovsp_flow_key *key,
			   const struct ovs_action_hash *hash)
{
	u32 h = jhash_1word(skb_get_hash(skb), hash->hash_basis);

	/* 0 means "not computed" in OVS_KEY_ATTR_DP_HASH. */
	key->meta.dp_hash = h ? h : 1;
}

/* The list of check_pkt_len 'c' that 'skb' takes. */
static const struct ovsp_act_list *
ovsp_check_pkt_len_list(struct sk_buff *skb,
			const struct ovsp_act_check_pkt_len *c)
{
	const struct ovsp_act_list *le = (const void *)(c + 1);
	u16 mru = ovsp_skb_cb(skb)->mru;
	unsigned int len = mru ? mru + skb->mac_len : skb->len;

	if ((skb_is_gso(skb) && skb_gso_validate_mac_len(skb, c->pkt_len)) ||
	    len <= c->pkt_len)
		return le;
	return (const void *)((const u8 *)le + c->le_size);
}

/* Executes list 'l' on 'skb', whose key is 'ks'.  Consumes 'skb'.
 * Returns 0 or the negative errno of the action that dropped it.
 */
static int ovsp_exec_list(const struct ovsp_exec_ctx *x, struct sk_buff *skb,
			  struct ovsp_key_state *ks,
			  const struct ovsp_list_ref *l)
{
	struct ovsp_flow_key *key = ks->key;
	const struct nlattr *a;
	int rem;

	for (a = l->actions, rem = l->len; rem > 0; a = nla_next(a, &rem)) {
		bool last = nla_is_last(a, rem);
		int err = 0;

		switch (nla_type(a)) {
		case OVS_ACTION_ATTR_OUTPUT: {
			u16 port = nla_get_u32(a);
			struct sk_buff *clone;

			if (last) {
				ovsp_dp_output(x->dp, skb, port, key);
				return 0;
			}
			clone = skb_clone(skb, GFP_ATOMIC);
			if (clone)
				ovsp_dp_output(x->dp, clone, port, key);
			ovsp_skb_cb(skb)->trunc_len = 0;
			break;
		}
		case OVS_ACTION_ATTR_TRUNC: {
			const struct ovs_action_trunc *trunc = nla_data(a);

			/* Cut at output or upcall, to the length the packet
			 * then has at most.
			 */
			ovsp_skb_cb(skb)->trunc_len = trunc->max_len;
			break;
		}
		case OVS_ACTION_ATTR_USERSPACE:
			ovsp_exec_userspace(x, skb, ks, a, l);
			ovsp_skb_cb(skb)->trunc_len = 0;
			break;
		case OVS_ACTION_ATTR_HASH:
			ovsp_exec_hash(skb, key, nla_data(a));
			break;
		case OVS_ACTION_ATTR_METER:
			/* A drop band's refusal ends the list, not an
			 * error: freed as consumed, as in Linux.
			 */
			if (ovsp_meter_execute(ovsp_dp_meters(x->dp), skb,
					       nla_get_u32(a))) {
				consume_skb(skb);
				return 0;
			}
			break;
		case OVS_ACTION_ATTR_PUSH_VLAN:
			err = ovsp_exec_push_vlan(skb, ks, nla_data(a));
			break;
		case OVS_ACTION_ATTR_POP_VLAN:
			err = ovsp_exec_pop_vlan(skb, ks);
			break;
		case OVS_ACTION_ATTR_PUSH_MPLS: {
			const struct ovs_action_push_mpls *mpls = nla_data(a);

			err = ovsp_exec_push_mpls(skb, ks, mpls->mpls_lse,
						  mpls->mpls_ethertype,
						  skb->mac_len);
			break;
		}
		case OVS_ACTION_ATTR_ADD_MPLS: {
			const struct ovs_action_add_mpls *mpls = nla_data(a);
			bool l3 = mpls->tun_flags & OVS_MPLS_L3_TUNNEL_FLAG_MASK;

			err = ovsp_exec_push_mpls(skb, ks, mpls->mpls_lse,
						  mpls->mpls_ethertype,
						  l3 ? skb->mac_len : 0);
			break;
		}
		case OVS_ACTION_ATTR_POP_MPLS:
			err = ovsp_exec_pop_mpls(skb, ks, nla_get_be16(a));
			break;
		case OVS_ACTION_ATTR_PUSH_ETH: {
			const struct ovs_action_push_eth *eth = nla_data(a);

			err = skb_eth_push(skb, eth->addresses.eth_dst,
					   eth->addresses.eth_src);
			if (!err) {
				key->meta.mac_proto = OVSP_MAC_PROTO_ETHERNET;
				ks->valid = false;
			}
			break;
		}
		case OVS_ACTION_ATTR_POP_ETH:
			err = skb_eth_pop(skb);
			if (!err) {
				key->meta.mac_proto = OVSP_MAC_PROTO_NONE;
				ks->valid = false;
			}
			break;
		case OVS_ACTION_ATTR_SET_MASKED:
			err = ovsp_exec_set_masked(skb, key, a);
			break;
		case OVSP_ACT_CT: {
			const struct ovsp_act_ct *ct = nla_data(a);

			/* Conntrack reads the packet's headers where the
			 * key found them.
			 */
			err = ovsp_key_refresh(skb, ks);
			if (err)
				break;
			err = ovsp_ct_execute(skb, key, ct->info);
			/* It consumed the packet: a fragment queued for
			 * reassembly ends the actions without an error,
			 * hidden from userspace as in Linux.
			 */
			if (err)
				return err == -EINPROGRESS ? 0 : err;
			break;
		}
		case OVS_ACTION_ATTR_CT_CLEAR:
			ovsp_ct_clear(skb, key);
			break;
		case OVSP_ACT_SET_TUNNEL: {
			const struct ovsp_act_set_tunnel *set = nla_data(a);

			skb_dst_drop(skb);
			dst_hold(&set->dst->dst);
			skb_dst_set(skb, &set->dst->dst);
			break;
		}
		case OVS_ACTION_ATTR_RECIRC:
			/* The datapath looks the packet up again: its key
			 * must be right.
			 */
			err = ovsp_key_refresh(skb, ks);
			if (err)
				break;
			err = ovsp_exec_nested(x, skb, ks, NULL,
					       nla_get_u32(a), last);
			if (last)
				return err;
			break;
		case OVSP_ACT_SAMPLE: {
			const struct ovsp_act_sample *s = nla_data(a);

			if (s->probability != U32_MAX &&
			    (!s->probability ||
			     get_random_u32() > s->probability)) {
				if (last) {
					consume_skb(skb);
					return 0;
				}
				break;
			}
			err = ovsp_exec_nested(x, skb, ks, &s->list, 0, last);
			if (last)
				return err;
			break;
		}
		case OVSP_ACT_CLONE:
			err = ovsp_exec_nested(x, skb, ks, nla_data(a), 0, last);
			if (last)
				return err;
			break;
		case OVSP_ACT_CHECK_PKT_LEN:
			err = ovsp_exec_nested(x, skb, ks,
					       ovsp_check_pkt_len_list(skb,
								       nla_data(a)),
					       0, last);
			if (last)
				return err;
			break;
		default:
			/* Validation lets nothing else through. */
			err = -EINVAL;
			break;
		}
		if (unlikely(err)) {
			kfree_skb(skb);
			return err;
		}
	}
	consume_skb(skb);
	return 0;
}

int ovsp_actions_execute(struct ovsp_datapath *dp, struct sk_buff *skb,
			 const struct ovsp_actions *acts,
			 struct ovsp_flow_key *key)
{
	struct ovsp_exec_cpu *cpu = this_cpu_ptr(ovsp_exec_cpus);
	struct ovsp_exec_ctx x = { dp, ovsp_actions_orig(acts) };
	struct ovsp_list_ref list = {
		.actions = acts->actions,
		.len = acts->actions_len,
		.orig = ovsp_actions_orig(acts),
		.orig_len = acts->orig_len,
	};
	struct ovsp_key_state ks = { key, true };
	int err;

	if (unlikely(cpu->level >= OVSP_RECURSION_LIMIT)) {
		net_crit_ratelimited("ovs_percpu: recursion limit reached, probable configuration error\n");
		kfree_skb(skb);
		return -ENETDOWN;
	}
	cpu->level++;
	ovsp_skb_cb(skb)->acts_origlen = acts->orig_len;
	err = ovsp_exec_list(&x, skb, &ks, &list);
	if (cpu->level == 1)
		ovsp_run_deferred(cpu);
	cpu->level--;
	return err;
}

int ovsp_actions_init(void)
{
	ovsp_exec_cpus = alloc_percpu(struct ovsp_exec_cpu);
	return ovsp_exec_cpus ? 0 : -ENOMEM;
}

void ovsp_actions_exit(void)
{
	free_percpu(ovsp_exec_cpus);
	ovsp_exec_cpus = NULL;
}

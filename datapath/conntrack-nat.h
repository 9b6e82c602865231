/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NAT inside ct(): the OVS_CT_ATTR_NAT nest, and the translation of a
 * tracked packet through the kernel's nf_nat.
 *
 * Contract:
 * - ovsp_ct_nat_parse() checks every OVS_NAT_ATTR_* of the nest as
 *   Linux's openvswitch.ko does, with its errnos: an unknown type, a
 *   length that is not the type's (IP_MIN/IP_MAX: 4 bytes for an IPv4
 *   flow, 16 for IPv6; PROTO_MIN/PROTO_MAX: 2; the rest: 0) or trailing
 *   bytes: -EINVAL; SRC or DST given twice, or both: -ERANGE; a range or
 *   flag without SRC or DST, or SRC/DST in a ct() that has not said
 *   COMMIT before the nest: -EINVAL.  An empty nest means "translate the
 *   connection as it was translated when committed".  A missing MAX is
 *   its MIN; a MIN above its MAX is kept as given (nf_nat swaps ports and
 *   picks addresses modulo the range, as for Linux's module).  The result
 *   is part of the immutable struct ovsp_ct_info.
 * - ovsp_ct_nat_execute() runs on the CPU processing the packet, with
 *   skb->data at the network header, after conntrack attached the
 *   connection: at most once per packet and zone (the key's SRC_NAT and
 *   DST_NAT bits say it was done), and for a new connection only when
 *   the ct() commits it.  It rewrites the packet (checksums included,
 *   CHECKSUM_COMPLETE kept right by the caller's skb_pull_rcsum()), and
 *   the key's addresses, ports and NAT bits.  Related ICMP and ICMPv6
 *   errors have their inner header translated too.  What it writes
 *   beyond the packet and the key is nf_nat's: the connection's NAT
 *   extension and reply tuple at set-up, and, for source NAT, nf_nat's
 *   bysource hash under its lock (see Documentation/kernel-datapath.md,
 *   "Conntrack").
 */
#ifndef OVSP_CONNTRACK_NAT_H
#define OVSP_CONNTRACK_NAT_H 1

#include <linux/skbuff.h>
#include <linux/types.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netfilter/nf_nat.h>
#include <net/netlink.h>

#include "flow-key.h"

/* The ct_state bits NAT sets. */
#define OVSP_CT_STATE_NAT (OVS_CS_F_SRC_NAT | OVS_CS_F_DST_NAT)

/* A parsed OVS_CT_ATTR_NAT.  'flags' 0: ct() has no NAT.  'range' is the
 * range and its NF_NAT_RANGE_* flags, for a new mapping.
 */
struct ovsp_ct_nat {
	u8 flags;			/* OVSP_CT_NAT_*. */
	struct nf_nat_range2 range;
};

#define OVSP_CT_NAT_ANY BIT(0)		/* The nest was given. */
#define OVSP_CT_NAT_SRC BIT(1)		/* SRC: set up source NAT. */
#define OVSP_CT_NAT_DST BIT(2)		/* DST: set up destination NAT. */

/* Parses the OVS_CT_ATTR_NAT nest 'attr' into '*nat' (zeroed by the
 * caller), for a flow of netfilter family 'family' (NFPROTO_IPV4 or
 * NFPROTO_IPV6) in a ct() that has said COMMIT before the nest if
 * 'commit'.  Returns 0, -EINVAL or -ERANGE.
 */
int ovsp_ct_nat_parse(const struct nlattr *attr, u8 family, bool commit,
		      struct ovsp_ct_nat *nat, bool log);

/* Translates 'skb' (skb->data at its network header, of family 'family')
 * tracked as 'ct', 'ctinfo', as 'nat' says, 'commit' being the ct()'s,
 * and updates 'key'.  Returns 0 (also when there is nothing to do), or
 * -EINVAL when nf_nat refuses the packet, which the caller then drops.
 */
int ovsp_ct_nat_execute(struct sk_buff *skb, struct ovsp_flow_key *key,
			const struct ovsp_ct_nat *nat, bool commit, u8 family,
			struct nf_conn *ct, enum ip_conntrack_info ctinfo);

#endif

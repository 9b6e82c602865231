/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A flow's actions: validated and copied from the netlink attributes that
 * userspace sends (OVS_FLOW_ATTR_ACTIONS, OVS_PACKET_ATTR_ACTIONS), and
 * written back for dumps.
 *
 * Contract:
 * - Validation refuses, with -EINVAL, every action this datapath does not
 *   carry (ct, ct_clear if not a no-op, NSH, dec_ttl, anything
 *   unknown), every malformed one, and nesting deeper than the kernel's
 *   (sample/clone/check_pkt_len, OVSP_ACTIONS_MAX_DEPTH), so that
 *   ofproto-dpif's probes read "unsupported" and never log a WARN.
 * - The copy may differ from what userspace sent (set(tunnel(...)) becomes a
 *   metadata dst, set becomes set_masked); ovsp_actions_to_nlattrs() writes
 *   back what userspace sent.
 * - A struct ovsp_actions is immutable once published; it is freed after an
 *   RCU grace period (ovsp_actions_free_rcu()).
 */
#ifndef OVSP_FLOW_ACTIONS_H
#define OVSP_FLOW_ACTIONS_H 1

#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <net/netlink.h>

#include "flow-key.h"

/* Deepest nesting of sample, clone and check_pkt_len accepted; OVS probes
 * sample nesting up to 10 deep and the kernel takes 16.
 */
#define OVSP_ACTIONS_MAX_DEPTH 16

/* Largest copy of a flow's actions, in bytes (netlink lengths are 16-bit:
 * a nested attribute cannot hold more).
 */
#define OVSP_ACTIONS_MAX_SIZE (32 * 1024)

/* Validated actions, ready to execute. */
struct ovsp_actions {
	struct rcu_head rcu;		/* For ovsp_actions_free_rcu(). */
	u32 orig_len;			/* nla_len() of what userspace sent. */
	u32 actions_len;		/* Bytes in 'actions'. */
	struct nlattr actions[];	/* The copy, as netlink attributes. */
};

/* Validates the actions in 'attr' (nested OVS_ACTION_ATTR_*) for a flow
 * whose masked key is 'key' (set actions must match the key's protocols)
 * and stores a copy in '*acts'.  Returns 0 or a negative errno.
 */
int ovsp_actions_from_nlattrs(struct net *net, const struct nlattr *attr,
			      const struct ovsp_flow_key *key,
			      struct ovsp_actions **acts, bool log);

/* Appends 'acts' to 'skb' as a nested attribute of type 'attrtype'
 * (OVS_FLOW_ATTR_ACTIONS, OVS_PACKET_ATTR_ACTIONS) in userspace's form.
 * Returns 0 or -EMSGSIZE.
 */
int ovsp_actions_to_nlattrs(const struct ovsp_actions *acts,
			    struct sk_buff *skb, int attrtype);

/* Bytes ovsp_actions_to_nlattrs() writes for 'acts', at most. */
size_t ovsp_actions_attr_size(const struct ovsp_actions *acts);

/* Frees 'acts' now (NULL is fine): for actions never published. */
void ovsp_actions_free(struct ovsp_actions *acts);

/* Frees 'acts' after an RCU grace period (NULL is fine). */
void ovsp_actions_free_rcu(struct ovsp_actions *acts);

#endif

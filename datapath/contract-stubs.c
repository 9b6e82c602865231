// SPDX-License-Identifier: GPL-2.0
/*
 * Temporary stand-ins for the actions part of the flow-key and actions
 * half of the module (flow-actions.h, actions.h), so that the core builds
 * before that half is merged.  Deleted when it is.
 */
#include <linux/openvswitch.h>
#include <linux/skbuff.h>
#include <net/netlink.h>

#include "actions.h"
#include "flow-actions.h"
#include "flow-key.h"
#include "flow-netlink.h"

int ovsp_actions_from_nlattrs(struct net *net, const struct nlattr *attr,
			      const struct ovsp_flow_key *key,
			      struct ovsp_actions **acts, bool log)
{
	return -EINVAL;
}

int ovsp_actions_to_nlattrs(const struct ovsp_actions *acts,
			    struct sk_buff *skb, int attrtype)
{
	return -EMSGSIZE;
}

size_t ovsp_actions_attr_size(const struct ovsp_actions *acts)
{
	return 0;
}

void ovsp_actions_free(struct ovsp_actions *acts)
{
	kfree(acts);
}

void ovsp_actions_free_rcu(struct ovsp_actions *acts)
{
	if (acts)
		kfree_rcu(acts, rcu);
}

int ovsp_actions_execute(struct ovsp_datapath *dp, struct sk_buff *skb,
			 const struct ovsp_actions *acts,
			 struct ovsp_flow_key *key)
{
	kfree_skb(skb);
	return -EINVAL;
}

int ovsp_actions_init(void)
{
	return 0;
}

void ovsp_actions_exit(void)
{
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Temporary stand-ins for the flow-key and actions half of the module
 * (flow-key.h, flow-netlink.h, flow-actions.h, actions.h), so that the
 * core builds and its datapath and vport families can be tried before that
 * half is merged.  Deleted when it is.
 */
#include <linux/openvswitch.h>
#include <linux/skbuff.h>
#include <net/netlink.h>

#include "actions.h"
#include "flow-actions.h"
#include "flow-key.h"
#include "flow-netlink.h"

int ovsp_flow_key_extract(const struct ip_tunnel_info *tun,
			  struct sk_buff *skb, u16 in_port,
			  struct ovsp_flow_key *key)
{
	memset(key, 0, sizeof(*key));
	key->meta.in_port = in_port;
	key->meta.mac_proto = OVSP_MAC_PROTO_ETHERNET;
	skb_reset_mac_header(skb);
	return 0;
}

int ovsp_flow_key_extract_userspace(struct net *net, const struct nlattr *attr,
				    struct sk_buff *skb,
				    struct ovsp_flow_key *key, bool log)
{
	return -EINVAL;
}

int ovsp_flow_key_update(struct sk_buff *skb, struct ovsp_flow_key *key)
{
	return 0;
}

void ovsp_flow_key_mask(struct ovsp_flow_key *dst,
			const struct ovsp_flow_key *src,
			const struct ovsp_flow_key *mask,
			const struct ovsp_key_range *range, bool full)
{
	const long *s = (const long *)((const u8 *)src + range->start);
	const long *m = (const long *)((const u8 *)mask + range->start);
	long *d = (long *)((u8 *)dst + range->start);
	int i;

	if (full)
		memset(dst, 0, sizeof(*dst));
	for (i = 0; i < (range->end - range->start) / sizeof(long); i++)
		d[i] = s[i] & m[i];
}

int ovsp_flow_match_from_nlattrs(struct net *net, struct ovsp_flow_match *match,
				 const struct nlattr *key,
				 const struct nlattr *mask, bool log)
{
	return -EINVAL;
}

int ovsp_flow_key_to_nlattrs(const struct ovsp_flow_key *key,
			     struct sk_buff *skb, int attrtype)
{
	struct nlattr *nla = nla_nest_start_noflag(skb, attrtype);

	if (!nla || nla_put_u32(skb, OVS_KEY_ATTR_IN_PORT, key->meta.in_port))
		return -EMSGSIZE;
	nla_nest_end(skb, nla);
	return 0;
}

int ovsp_flow_mask_to_nlattrs(const struct ovsp_flow_key *key,
			      const struct ovsp_flow_key *mask,
			      struct sk_buff *skb)
{
	return ovsp_flow_key_to_nlattrs(mask, skb, OVS_FLOW_ATTR_MASK);
}

int ovsp_tunnel_info_to_nlattrs(struct sk_buff *skb, int attrtype,
				const struct ip_tunnel_info *tun)
{
	return -EMSGSIZE;
}

size_t ovsp_flow_key_attr_size(void)
{
	return 1024;
}

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

// SPDX-License-Identifier: GPL-2.0
/*
 * The ovs_packet generic-netlink family: OVS_PACKET_CMD_EXECUTE (runs
 * actions on a packet from userspace), and the family that upcalls
 * (upcall.c) are sent in.
 *
 * EXECUTE needs PACKET, KEY and ACTIONS; MRU and HASH are honoured, PROBE
 * only silences logs.  The packet enters on the port of the key's in_port,
 * or the local port if there is none, with BHs disabled as a received
 * packet would, and no flow is created for it (so nothing is allocated
 * per packet but the skb, the key and the actions' copy).
 */
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/openvswitch.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "actions.h"
#include "dp-core.h"
#include "flow-actions.h"
#include "flow-key.h"
#include "skb-cb.h"
#include "vport.h"

static const struct nla_policy packet_policy[OVS_PACKET_ATTR_MAX + 1] = {
	[OVS_PACKET_ATTR_PACKET] = { .len = ETH_HLEN },
	[OVS_PACKET_ATTR_KEY] = { .type = NLA_NESTED },
	[OVS_PACKET_ATTR_ACTIONS] = { .type = NLA_NESTED },
	[OVS_PACKET_ATTR_PROBE] = { .type = NLA_FLAG },
	[OVS_PACKET_ATTR_MRU] = { .type = NLA_U16 },
	[OVS_PACKET_ATTR_HASH] = { .type = NLA_U64 },
};

/* Copies OVS_PACKET_ATTR_PACKET into a new skb with its MRU and hash. */
static struct sk_buff *execute_packet(struct nlattr **a)
{
	int len = nla_len(a[OVS_PACKET_ATTR_PACKET]);
	struct sk_buff *skb;

	skb = __dev_alloc_skb(NET_IP_ALIGN + len, GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_reserve(skb, NET_IP_ALIGN);
	nla_memcpy(__skb_put(skb, len), a[OVS_PACKET_ATTR_PACKET], len);
	if (a[OVS_PACKET_ATTR_MRU]) {
		ovsp_skb_cb(skb)->mru = nla_get_u16(a[OVS_PACKET_ATTR_MRU]);
		skb->ignore_df = 1;
	}
	if (a[OVS_PACKET_ATTR_HASH]) {
		u64 hash = nla_get_u64(a[OVS_PACKET_ATTR_HASH]);

		__skb_set_hash(skb, (u32)hash, !!(hash & OVSP_PACKET_HASH_SW_BIT),
			       !!(hash & OVSP_PACKET_HASH_L4_BIT));
	}
	return skb;
}

/* Runs 'acts' on 'skb' (consumed) in the datapath of the request. */
static int execute_run(struct genl_info *info, struct sk_buff *skb,
		       struct ovsp_flow_key *key,
		       const struct ovsp_actions *acts)
{
	struct ovs_header *hdr = info->userhdr;
	struct ovsp_datapath *dp;
	struct ovsp_vport *vport;
	int err;

	rcu_read_lock();
	dp = ovsp_dp_lookup(genl_info_net(info), hdr->dp_ifindex);
	if (!dp) {
		rcu_read_unlock();
		kfree_skb(skb);
		return -ENODEV;
	}
	vport = ovsp_dp_vport(dp, key->meta.in_port)
		?: ovsp_dp_vport(dp, OVSP_LOCAL);
	if (!vport) {
		rcu_read_unlock();
		kfree_skb(skb);
		return -ENODEV;
	}
	ovsp_skb_cb(skb)->input_vport = vport;
	skb->dev = vport->dev;
	ovsp_skb_cb(skb)->acts_origlen = acts->orig_len;
	skb->priority = key->meta.priority;
	skb->mark = key->meta.skb_mark;
	local_bh_disable();
	err = ovsp_actions_execute(dp, skb, acts, key);
	local_bh_enable();
	rcu_read_unlock();
	return err;
}

static int packet_cmd_execute(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	bool log = !a[OVS_PACKET_ATTR_PROBE];
	struct ovsp_actions *acts = NULL;
	struct ovsp_flow_key *key;
	struct sk_buff *packet;
	int err;

	if (!a[OVS_PACKET_ATTR_PACKET] || !a[OVS_PACKET_ATTR_KEY]
	    || !a[OVS_PACKET_ATTR_ACTIONS])
		return -EINVAL;
	packet = execute_packet(a);
	if (!packet)
		return -ENOMEM;
	key = kzalloc(sizeof(*key), GFP_KERNEL);
	err = -ENOMEM;
	if (!key)
		goto err;
	err = ovsp_flow_key_extract_userspace(genl_info_net(info),
					      a[OVS_PACKET_ATTR_KEY], packet,
					      key, log);
	if (err)
		goto err;
	err = ovsp_actions_from_nlattrs(genl_info_net(info),
					a[OVS_PACKET_ATTR_ACTIONS], key,
					&acts, log);
	if (err)
		goto err;
	err = execute_run(info, packet, key, acts);
	ovsp_actions_free(acts);
	kfree(key);
	return err;
err:
	ovsp_actions_free(acts);
	kfree(key);
	kfree_skb(packet);
	return err;
}

static const struct genl_small_ops packet_ops[] = {
	{ .cmd = OVS_PACKET_CMD_EXECUTE,
	  .validate = GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
	  .flags = GENL_UNS_ADMIN_PERM,
	  .doit = packet_cmd_execute },
};

struct genl_family ovsp_packet_family __ro_after_init = {
	.hdrsize = sizeof(struct ovs_header),
	.name = OVS_PACKET_FAMILY,
	.version = OVS_PACKET_VERSION,
	.maxattr = OVS_PACKET_ATTR_MAX,
	.policy = packet_policy,
	.netnsok = true,
	.parallel_ops = true,
	.small_ops = packet_ops,
	.n_small_ops = ARRAY_SIZE(packet_ops),
	.resv_start_op = OVS_PACKET_CMD_EXECUTE + 1,
	.module = THIS_MODULE,
};

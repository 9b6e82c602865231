// SPDX-License-Identifier: GPL-2.0
/*
 * Our own generic-netlink family, ovsp_percpu (ABI in ovsp-genl.h): one
 * flow's per-CPU statistics slots, by UFID, for
 * 'ovs-appctl dpif-percpu/flow-stats-show' on a system datapath,
 * ct()'s per-CPU counters for 'ovs-appctl dpif-percpu/ct-stats-show', and
 * the namespace's per-CPU counters of zone limits (ct-limit.h).  Read-only:
 * it takes ovsp_lock() to find the flow and reads the slots as any stats
 * reader does (flow-stats.h).
 */
#include <linux/cpumask.h>
#include <linux/openvswitch.h>
#include <net/genetlink.h>

#include "conntrack.h"
#include "ct-limit.h"
#include "dp-core.h"
#include "flow-stats.h"
#include "flow-table.h"
#include "ovsp-genl.h"

static const struct nla_policy pcpu_policy[OVSP_PCPU_ATTR_MAX + 1] = {
	[OVSP_PCPU_ATTR_UFID] = { .type = NLA_BINARY,
				  .len = OVSP_UFID_MAX_LEN },
};

static int pcpu_put_slot(struct sk_buff *skb, unsigned int cpu,
			 const struct ovsp_flow_stats_info *s)
{
	struct nlattr *nest = nla_nest_start(skb, OVSP_PCPU_ATTR_SLOT);

	if (!nest
	    || nla_put_u32(skb, OVSP_PCPU_SLOT_ATTR_CPU, cpu)
	    || nla_put_u64_64bit(skb, OVSP_PCPU_SLOT_ATTR_PACKETS, s->n_packets,
				 OVSP_PCPU_SLOT_ATTR_PAD)
	    || nla_put_u64_64bit(skb, OVSP_PCPU_SLOT_ATTR_BYTES, s->n_bytes,
				 OVSP_PCPU_SLOT_ATTR_PAD)
	    || nla_put_u64_64bit(skb, OVSP_PCPU_SLOT_ATTR_USED,
				 ovsp_flow_stats_used_ms(s->used),
				 OVSP_PCPU_SLOT_ATTR_PAD)
	    || nla_put_u16(skb, OVSP_PCPU_SLOT_ATTR_TCP_FLAGS,
			   ntohs(s->tcp_flags)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int pcpu_fill(struct sk_buff *skb, const struct ovsp_flow *flow,
		     struct genl_info *info, int dp_ifindex)
{
	struct ovsp_flow_stats_info s;
	struct ovs_header *hdr;
	unsigned int cpu;

	hdr = genlmsg_put(skb, info->snd_portid, info->snd_seq,
			  &ovsp_pcpu_family, 0, OVSP_PCPU_CMD_FLOW_GET);
	if (!hdr)
		return -EMSGSIZE;
	hdr->dp_ifindex = dp_ifindex;
	if (nla_put_u32(skb, OVSP_PCPU_ATTR_N_CPUS, nr_cpu_ids)
	    || (ovsp_flow_stats_one_slot()
		&& nla_put_flag(skb, OVSP_PCPU_ATTR_ONE_SLOT))
	    || nla_put_u64_64bit(skb, OVSP_PCPU_ATTR_ALLOC_FAILURES,
				 ovsp_flow_stats_alloc_failures(),
				 OVSP_PCPU_ATTR_PAD))
		return -EMSGSIZE;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (ovsp_flow_stats_get_slot(flow->stats, cpu, &s)
		    && pcpu_put_slot(skb, cpu, &s))
			return -EMSGSIZE;
	genlmsg_end(skb, hdr);
	return 0;
}

static int pcpu_cmd_flow_get(struct sk_buff *skb, struct genl_info *info)
{
	struct ovs_header *hdr = info->userhdr;
	struct nlattr **a = info->attrs;
	struct ovsp_flow_ufid ufid = { 0 };
	struct ovsp_datapath *dp;
	struct ovsp_flow *flow;
	struct sk_buff *reply;
	size_t size;
	int err;

	if (!a[OVSP_PCPU_ATTR_UFID] || !nla_len(a[OVSP_PCPU_ATTR_UFID]))
		return -EINVAL;
	ufid.len = nla_len(a[OVSP_PCPU_ATTR_UFID]);
	memcpy(ufid.id, nla_data(a[OVSP_PCPU_ATTR_UFID]), ufid.len);

	size = NLMSG_ALIGN(sizeof(*hdr)) + 256
		+ nr_cpu_ids * (nla_total_size(0) + nla_total_size(4)
				+ 3 * nla_total_size_64bit(8)
				+ nla_total_size(2));
	reply = genlmsg_new(size, GFP_KERNEL);
	if (!reply)
		return -ENOMEM;

	ovsp_lock();
	err = -ENODEV;
	dp = ovsp_dp_lookup(genl_info_net(info), hdr->dp_ifindex);
	if (!dp)
		goto err;
	err = -ENOENT;
	flow = ovsp_flow_table_find_ufid(dp->table, &ufid);
	if (!flow)
		goto err;
	err = pcpu_fill(reply, flow, info, hdr->dp_ifindex);
	if (err)
		goto err;
	ovsp_unlock();
	return genlmsg_reply(reply, info);
err:
	ovsp_unlock();
	kfree_skb(reply);
	return err;
}

/* Appends CPU 'cpu''s ct() counters 's'. */
static int pcpu_put_ct_slot(struct sk_buff *skb, unsigned int cpu,
			    const struct ovsp_ct_stats *s)
{
	struct nlattr *nest = nla_nest_start(skb, OVSP_PCPU_ATTR_CT_SLOT);

	if (!nest
	    || nla_put_u32(skb, OVSP_PCPU_CT_ATTR_CPU, cpu)
	    || nla_put_u64_64bit(skb, OVSP_PCPU_CT_ATTR_NEW, s->new,
				 OVSP_PCPU_CT_ATTR_PAD)
	    || nla_put_u64_64bit(skb, OVSP_PCPU_CT_ATTR_ESTABLISHED,
				 s->established, OVSP_PCPU_CT_ATTR_PAD)
	    || nla_put_u64_64bit(skb, OVSP_PCPU_CT_ATTR_RELATED, s->related,
				 OVSP_PCPU_CT_ATTR_PAD)
	    || nla_put_u64_64bit(skb, OVSP_PCPU_CT_ATTR_INVALID, s->invalid,
				 OVSP_PCPU_CT_ATTR_PAD)
	    || nla_put_u64_64bit(skb, OVSP_PCPU_CT_ATTR_REFUSED, s->refused,
				 OVSP_PCPU_CT_ATTR_PAD)
	    || nla_put_u64_64bit(skb, OVSP_PCPU_CT_ATTR_COMMIT_FAILED,
				 s->commit_failed, OVSP_PCPU_CT_ATTR_PAD)
	    || nla_put_u64_64bit(skb, OVSP_PCPU_CT_ATTR_NAT_FAILED,
				 s->nat_failed, OVSP_PCPU_CT_ATTR_PAD)
	    || nla_put_u64_64bit(skb, OVSP_PCPU_CT_ATTR_FRAG_QUEUED,
				 s->frag_queued, OVSP_PCPU_CT_ATTR_PAD)
	    || nla_put_u64_64bit(skb, OVSP_PCPU_CT_ATTR_REASSEMBLED,
				 s->reassembled, OVSP_PCPU_CT_ATTR_PAD)
	    || nla_put_u64_64bit(skb, OVSP_PCPU_CT_ATTR_FRAG_DROPPED,
				 s->frag_dropped, OVSP_PCPU_CT_ATTR_PAD)
	    || nla_put_u64_64bit(skb, OVSP_PCPU_CT_ATTR_REFRAG_DROPPED,
				 s->refrag_dropped, OVSP_PCPU_CT_ATTR_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* ct()'s per-CPU counters of the requester's namespace.  Unprivileged,
 * as flow GET is: counters only.
 */
static int pcpu_cmd_ct_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct ovs_header *hdr;
	struct sk_buff *reply;
	unsigned int cpu;
	size_t size;

	size = NLMSG_ALIGN(sizeof(*hdr)) + 64
	       + nr_cpu_ids * (nla_total_size(0) + nla_total_size(4)
			       + 6 * nla_total_size_64bit(8));
	reply = genlmsg_new(size, GFP_KERNEL);
	if (!reply)
		return -ENOMEM;
	hdr = genlmsg_put(reply, info->snd_portid, info->snd_seq,
			  &ovsp_pcpu_family, 0, OVSP_PCPU_CMD_CT_STATS_GET);
	if (!hdr)
		goto nospace;
	hdr->dp_ifindex = 0;
	if (nla_put_u32(reply, OVSP_PCPU_ATTR_N_CPUS, nr_cpu_ids))
		goto nospace;
	for_each_possible_cpu(cpu) {
		struct ovsp_ct_stats s;

		ovsp_ct_stats_get(net, cpu, &s);
		if (pcpu_put_ct_slot(reply, cpu, &s))
			goto nospace;
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
nospace:
	kfree_skb(reply);
	return -EMSGSIZE;
}

/* One CPU's zone limit counters, nested. */
static int pcpu_put_ct_limit(struct sk_buff *skb, unsigned int cpu,
			     const struct ovsp_ct_limit_stats *s)
{
	struct nlattr *nest = nla_nest_start(skb, OVSP_PCPU_ATTR_SLOT);

	if (!nest
	    || nla_put_u32(skb, OVSP_PCPU_SLOT_ATTR_CPU, cpu)
	    || nla_put_u64_64bit(skb, OVSP_PCPU_SLOT_ATTR_CT_REFUSED,
				 s->refused, OVSP_PCPU_SLOT_ATTR_PAD)
	    || nla_put_u64_64bit(skb, OVSP_PCPU_SLOT_ATTR_CT_UNCOUNTED,
				 s->uncounted, OVSP_PCPU_SLOT_ATTR_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int pcpu_cmd_ct_limit_get(struct sk_buff *skb, struct genl_info *info)
{
	struct ovs_header *hdr = info->userhdr;
	struct ovsp_ct_limit_stats s;
	struct ovs_header *reply_hdr;
	struct sk_buff *reply;
	unsigned int cpu;
	size_t size;

	size = NLMSG_ALIGN(sizeof(*hdr)) + nla_total_size(4)
		+ nr_cpu_ids * (nla_total_size(0) + nla_total_size(4)
				+ 2 * nla_total_size_64bit(8));
	reply = genlmsg_new(size, GFP_KERNEL);
	if (!reply)
		return -ENOMEM;
	reply_hdr = genlmsg_put(reply, info->snd_portid, info->snd_seq,
				&ovsp_pcpu_family, 0,
				OVSP_PCPU_CMD_CT_LIMIT_GET);
	if (!reply_hdr)
		goto err;
	reply_hdr->dp_ifindex = hdr->dp_ifindex;
	if (nla_put_u32(reply, OVSP_PCPU_ATTR_N_CPUS, nr_cpu_ids))
		goto err;
	for_each_possible_cpu(cpu) {
		ovsp_ct_limit_get_stats(genl_info_net(info), cpu, &s);
		if (pcpu_put_ct_limit(reply, cpu, &s))
			goto err;
	}
	genlmsg_end(reply, reply_hdr);
	return genlmsg_reply(reply, info);
err:
	kfree_skb(reply);
	return -EMSGSIZE;
}

static const struct genl_small_ops pcpu_ops[] = {
	{ .cmd = OVSP_PCPU_CMD_FLOW_GET,
	  .doit = pcpu_cmd_flow_get },
	{ .cmd = OVSP_PCPU_CMD_CT_STATS_GET,
	  .doit = pcpu_cmd_ct_stats_get },
	{ .cmd = OVSP_PCPU_CMD_CT_LIMIT_GET,
	  .doit = pcpu_cmd_ct_limit_get },
};

struct genl_family ovsp_pcpu_family __ro_after_init = {
	.hdrsize = sizeof(struct ovs_header),
	.name = OVSP_PCPU_FAMILY,
	.version = OVSP_PCPU_VERSION,
	.maxattr = OVSP_PCPU_ATTR_MAX,
	.policy = pcpu_policy,
	.netnsok = true,
	.parallel_ops = true,
	.small_ops = pcpu_ops,
	.n_small_ops = ARRAY_SIZE(pcpu_ops),
	.resv_start_op = OVSP_PCPU_CMD_CT_LIMIT_GET + 1,
	.module = THIS_MODULE,
};

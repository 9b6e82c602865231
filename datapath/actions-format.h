/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The executable form of a flow's actions: what flow-actions.c writes into
 * struct ovsp_actions and actions.c reads.  Private to those two files.
 *
 * Layout of a struct ovsp_actions allocation:
 *
 *   struct ovsp_actions | executable copy (actions_len bytes, padded to
 *   NLA_ALIGNTO) | the attributes userspace sent (orig_len bytes)
 *
 * The executable copy is a list of netlink attributes:
 * - OVS_ACTION_ATTR_OUTPUT, _USERSPACE, _SET_MASKED, _PUSH_VLAN,
 *   _POP_VLAN, _RECIRC, _HASH, _PUSH_MPLS, _POP_MPLS, _ADD_MPLS, _TRUNC,
 *   _PUSH_ETH, _POP_ETH, _METER and _CT_CLEAR as userspace sent them,
 *   validated;
 * - a non-tunnel OVS_ACTION_ATTR_SET as OVS_ACTION_ATTR_SET_MASKED with a
 *   mask of every writable bit;
 * - the private types below for set(tunnel), sample, clone,
 *   check_pkt_len and ct.
 * Every nested list starts with a struct ovsp_act_list, which says where
 * the list is in what userspace sent (the userspace action's
 * OVS_USERSPACE_ATTR_ACTIONS sends that back) and whether its actions can
 * change the flow key.
 *
 * Immutable once built; read under RCU by any CPU.
 */
#ifndef OVSP_ACTIONS_FORMAT_H
#define OVSP_ACTIONS_FORMAT_H 1

#include <linux/types.h>
#include <net/dst_metadata.h>
#include <net/netlink.h>

#include "flow-actions.h"

struct ovsp_ct_info;

/* Private action types, above the ABI's OVS_ACTION_ATTR_* numbers. */
enum ovsp_act_type {
	OVSP_ACT_SET_TUNNEL = 0x1000,	/* struct ovsp_act_set_tunnel. */
	OVSP_ACT_SAMPLE,		/* struct ovsp_act_sample, then the
					 * list's actions.
					 */
	OVSP_ACT_CLONE,			/* struct ovsp_act_list, then the
					 * list's actions.
					 */
	OVSP_ACT_CHECK_PKT_LEN,		/* struct ovsp_act_check_pkt_len,
					 * then two lists: less or equal,
					 * then greater.
					 */
	OVSP_ACT_CT,			/* struct ovsp_act_ct. */
};

/* ovsp_act_list.flags. */
#define OVSP_ACT_LIST_KEEPS_KEY 0x1	/* No action in the list changes
					 * the flow key: it can run on the
					 * caller's.
					 */

/* The header of a nested list of actions; the list's executable actions
 * ('len' bytes) follow it.
 */
struct ovsp_act_list {
	u32 orig_off;		/* Offset of the list's attributes in what
				 * userspace sent.
				 */
	u32 orig_len;		/* Their length. */
	u32 len;		/* Bytes of executable actions that follow. */
	u32 flags;		/* OVSP_ACT_LIST_*. */
};

/* OVSP_ACT_SET_TUNNEL: the tunnel metadata dst that outputs use. */
struct ovsp_act_set_tunnel {
	struct metadata_dst *dst;	/* Holds one reference. */
};

/* OVSP_ACT_CT: the parsed ct() action (conntrack.h). */
struct ovsp_act_ct {
	struct ovsp_ct_info *info;	/* Owned: freed with the actions. */
};

/* OVSP_ACT_SAMPLE. */
struct ovsp_act_sample {
	u32 probability;	/* Out of U32_MAX. */
	u32 pad;		/* Zero; keeps 'list' 8-byte aligned. */
	struct ovsp_act_list list;
};

/* OVSP_ACT_CHECK_PKT_LEN. */
struct ovsp_act_check_pkt_len {
	u32 pkt_len;		/* Packets up to this length take the first
				 * list.
				 */
	u32 le_size;		/* Bytes of the first list, header
				 * included.
				 */
	/* struct ovsp_act_list of less-or-equal, its actions, then the
	 * same for greater.
	 */
};

/* The attributes userspace sent for 'acts'. */
static inline const u8 *ovsp_actions_orig(const struct ovsp_actions *acts)
{
	return (const u8 *)acts->actions + NLA_ALIGN(acts->actions_len);
}

/* The executable actions that follow list header 'list'. */
static inline const struct nlattr *
ovsp_act_list_actions(const struct ovsp_act_list *list)
{
	return (const struct nlattr *)(list + 1);
}

#endif

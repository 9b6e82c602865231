/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flow keys and masks to and from the OVS netlink ABI's OVS_KEY_ATTR_*
 * attributes (include/uapi/linux/openvswitch.h).
 *
 * Contract:
 * - Parsers take attributes from userspace, which is untrusted input: every
 *   attribute's length is checked against its type, unknown or duplicate
 *   attributes are refused, and a mask whose prerequisites the key does not
 *   meet (a TCP port without ip_proto=6, say) is refused with -EINVAL, as
 *   ofproto-dpif's feature probes expect ("unsupported", never a WARN).
 * - Formatters write attributes in the order and with the encoding that
 *   OVS 3.1's dpif-netlink and odp-util parse back.
 * - 'log' true means "log refusals, rate-limited"; OVS sets
 *   OVS_FLOW_ATTR_PROBE to make it false.
 */
#ifndef OVSP_FLOW_NETLINK_H
#define OVSP_FLOW_NETLINK_H 1

#include <linux/skbuff.h>
#include <net/netlink.h>

#include "flow-key.h"

/* Parses OVS_FLOW_ATTR_KEY 'key' and OVS_FLOW_ATTR_MASK 'mask' (NULL: exact
 * match on every field 'key' has) into 'match', whose key is masked, and,
 * if 'unmasked' is not NULL, the key before masking into it.  Returns 0 or
 * a negative errno.
 */
int ovsp_flow_match_from_nlattrs(struct net *net, struct ovsp_flow_match *match,
				 struct ovsp_flow_key *unmasked,
				 const struct nlattr *key,
				 const struct nlattr *mask, bool log);

/* Appends 'key' as a nested attribute of type 'attrtype' (OVS_FLOW_ATTR_KEY,
 * OVS_PACKET_ATTR_KEY) to 'skb'.  Returns 0 or -EMSGSIZE.
 */
int ovsp_flow_key_to_nlattrs(const struct ovsp_flow_key *key,
			     struct sk_buff *skb, int attrtype);

/* Appends 'mask' of 'key' as OVS_FLOW_ATTR_MASK to 'skb', in the form
 * odp-util expects for a mask.  Returns 0 or -EMSGSIZE.
 */
int ovsp_flow_mask_to_nlattrs(const struct ovsp_flow_key *key,
			      const struct ovsp_flow_key *mask,
			      struct sk_buff *skb);

/* Appends 'tun' (with its options) as a nested OVS_KEY_ATTR_TUNNEL of type
 * 'attrtype' to 'skb': used for OVS_PACKET_ATTR_EGRESS_TUN_KEY.
 */
int ovsp_tunnel_info_to_nlattrs(struct sk_buff *skb, int attrtype,
				const struct ip_tunnel_info *tun);

/* Parses the metadata in OVS_PACKET_ATTR_KEY 'attr' into 'key', which the
 * caller zeroed: in_port (OVSP_IN_PORT_NONE if absent), priority,
 * skb_mark, recirc_id, dp_hash, tunnel, and the mac_proto that the
 * presence of OVS_KEY_ATTR_ETHERNET implies, with eth.type from
 * OVS_KEY_ATTR_ETHERTYPE for a layer-3 packet.  The other attributes are
 * checked for type and length only.  For ovsp_flow_key_extract_userspace().
 * Returns 0 or a negative errno.
 */
int ovsp_flow_metadata_from_nlattrs(const struct nlattr *attr,
				    struct ovsp_flow_key *key, bool log);

/* Parses the OVS_TUNNEL_KEY_ATTR_* attributes nested in 'attr' (the
 * argument of a set(tunnel(...)) action) into key->tun_key, tun_opts,
 * tun_opts_len and meta.tun_proto, with the checks of a flow key's tunnel;
 * '*bridge' tells whether OVS_TUNNEL_KEY_ATTR_IPV4_INFO_BRIDGE was given.
 * For flow-actions.c.  Returns 0 or a negative errno.
 */
int ovsp_tunnel_key_from_nlattr(const struct nlattr *attr,
				struct ovsp_flow_key *key, bool *bridge,
				bool log);

/* An upper bound on the bytes ovsp_flow_key_to_nlattrs() or
 * ovsp_flow_mask_to_nlattrs() can write, for sizing replies.
 */
size_t ovsp_flow_key_attr_size(void);

#endif

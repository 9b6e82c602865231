/*
 * Copyright (c) 2026 The ovs-percpu authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at:
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

/* The check of a datapath action list before a flow put or an execute. */

#include <config.h>
#include "dp-actions-check.h"

#include <errno.h>

#include "dp-conntrack.h"
#include "flow.h"
#include "netlink.h"
#include "openvswitch/nsh.h"
#include "odp-netlink.h"
#include "odp-util.h"
#include "openvswitch/tun-metadata.h"
#include "packets.h"
#include "util.h"

/* An action's payload length is variable: its own check says. */
#define LEN_VARIABLE (-1)

/* Not an action this datapath runs. */
#define LEN_REFUSED (-2)

/* The payload length of each action type, as the Linux datapath's
 * action_lens[] (flow_netlink.c) and OVS's odp_action_len() have them, or
 * LEN_VARIABLE or LEN_REFUSED.  A type missing here (0) with no payload is
 * one of the argument-less actions; UNSPEC and types past the end are
 * refused apart. */
static const int action_lens[__OVS_ACTION_ATTR_MAX] = {
    [OVS_ACTION_ATTR_UNSPEC] = LEN_REFUSED,
    [OVS_ACTION_ATTR_OUTPUT] = sizeof(uint32_t),
    [OVS_ACTION_ATTR_USERSPACE] = LEN_VARIABLE,
    [OVS_ACTION_ATTR_SET] = LEN_VARIABLE,
    [OVS_ACTION_ATTR_PUSH_VLAN] = sizeof(struct ovs_action_push_vlan),
    [OVS_ACTION_ATTR_POP_VLAN] = 0,
    [OVS_ACTION_ATTR_SAMPLE] = LEN_VARIABLE,
    [OVS_ACTION_ATTR_RECIRC] = sizeof(uint32_t),
    [OVS_ACTION_ATTR_HASH] = sizeof(struct ovs_action_hash),
    [OVS_ACTION_ATTR_PUSH_MPLS] = sizeof(struct ovs_action_push_mpls),
    [OVS_ACTION_ATTR_POP_MPLS] = sizeof(ovs_be16),
    [OVS_ACTION_ATTR_SET_MASKED] = LEN_VARIABLE,
    [OVS_ACTION_ATTR_CT] = LEN_VARIABLE,
    [OVS_ACTION_ATTR_TRUNC] = sizeof(struct ovs_action_trunc),
    [OVS_ACTION_ATTR_PUSH_ETH] = sizeof(struct ovs_action_push_eth),
    [OVS_ACTION_ATTR_POP_ETH] = 0,
    [OVS_ACTION_ATTR_CT_CLEAR] = 0,
    [OVS_ACTION_ATTR_PUSH_NSH] = LEN_VARIABLE,
    [OVS_ACTION_ATTR_POP_NSH] = 0,
    [OVS_ACTION_ATTR_METER] = sizeof(uint32_t),
    [OVS_ACTION_ATTR_CLONE] = LEN_VARIABLE,
    [OVS_ACTION_ATTR_CHECK_PKT_LEN] = LEN_VARIABLE,
    [OVS_ACTION_ATTR_ADD_MPLS] = sizeof(struct ovs_action_add_mpls),
    /* dpif-netdev's native tunnels and balance-tcp output, which ofproto
     * never asks of this datapath (its probes find them refused). */
    [OVS_ACTION_ATTR_TUNNEL_PUSH] = LEN_REFUSED,
    [OVS_ACTION_ATTR_TUNNEL_POP] = LEN_REFUSED,
    [OVS_ACTION_ATTR_LB_OUTPUT] = LEN_REFUSED,
    [OVS_ACTION_ATTR_DROP] = sizeof(uint32_t),
};

/* The length of the key of each field set() and set_masked() may set, as
 * odp_execute_set_action() and odp_execute_masked_set_action() read it
 * (masked: twice this), or 0 if it cannot be set that way; tunnel and NSH
 * keys, nested, are checked by OVS's parsers instead. */
struct set_len {
    size_t len;             /* Bytes of the key. */
    bool set;               /* Settable by set()? */
    bool masked;            /* Settable by set_masked()? */
};

static const struct set_len set_lens[] = {
    [OVS_KEY_ATTR_PRIORITY] = { sizeof(uint32_t), true, true },
    [OVS_KEY_ATTR_SKB_MARK] = { sizeof(uint32_t), true, true },
    [OVS_KEY_ATTR_ETHERNET] = { sizeof(struct ovs_key_ethernet), true, true },
    [OVS_KEY_ATTR_IPV4] = { sizeof(struct ovs_key_ipv4), true, true },
    [OVS_KEY_ATTR_IPV6] = { sizeof(struct ovs_key_ipv6), true, true },
    [OVS_KEY_ATTR_TCP] = { sizeof(struct ovs_key_tcp), true, true },
    [OVS_KEY_ATTR_UDP] = { sizeof(struct ovs_key_udp), true, true },
    [OVS_KEY_ATTR_SCTP] = { sizeof(struct ovs_key_sctp), true, true },
    [OVS_KEY_ATTR_MPLS] = { sizeof(struct ovs_key_mpls), true, true },
    [OVS_KEY_ATTR_ARP] = { sizeof(struct ovs_key_arp), true, true },
    [OVS_KEY_ATTR_ICMP] = { sizeof(struct ovs_key_icmp), true, false },
    [OVS_KEY_ATTR_ICMPV6] = { sizeof(struct ovs_key_icmpv6), true, false },
    [OVS_KEY_ATTR_ND] = { sizeof(struct ovs_key_nd), true, true },
    [OVS_KEY_ATTR_ND_EXTENSIONS] = { sizeof(struct ovs_key_nd_extensions),
                                     true, true },
    [OVS_KEY_ATTR_DP_HASH] = { sizeof(uint32_t), true, true },
    [OVS_KEY_ATTR_RECIRC_ID] = { sizeof(uint32_t), true, true },
};

/* The payload length of each tunnel key attribute set(tunnel()) may hold,
 * or LEN_VARIABLE (checked apart) or LEN_REFUSED.  OVS's own parser checks
 * only the first three: it looks the others up against the wrong maximum
 * (OVS_TUNNEL_ATTR_MAX in odp_tun_key_from_attr__()), so an empty TTL made
 * nl_attr_get_u8() assert (found by tests/fuzz/fuzz-ct-action.c), and it
 * copies Geneve options of any length into a 256-byte array. */
static const int tunnel_lens[] = {
    [OVS_TUNNEL_KEY_ATTR_ID] = sizeof(ovs_be64),
    [OVS_TUNNEL_KEY_ATTR_IPV4_SRC] = sizeof(ovs_be32),
    [OVS_TUNNEL_KEY_ATTR_IPV4_DST] = sizeof(ovs_be32),
    [OVS_TUNNEL_KEY_ATTR_TOS] = 1,
    [OVS_TUNNEL_KEY_ATTR_TTL] = 1,
    [OVS_TUNNEL_KEY_ATTR_DONT_FRAGMENT] = 0,
    [OVS_TUNNEL_KEY_ATTR_CSUM] = 0,
    [OVS_TUNNEL_KEY_ATTR_OAM] = 0,
    [OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS] = LEN_VARIABLE,
    [OVS_TUNNEL_KEY_ATTR_TP_SRC] = sizeof(ovs_be16),
    [OVS_TUNNEL_KEY_ATTR_TP_DST] = sizeof(ovs_be16),
    [OVS_TUNNEL_KEY_ATTR_VXLAN_OPTS] = LEN_VARIABLE,
    [OVS_TUNNEL_KEY_ATTR_IPV6_SRC] = sizeof(struct in6_addr),
    [OVS_TUNNEL_KEY_ATTR_IPV6_DST] = sizeof(struct in6_addr),
    [OVS_TUNNEL_KEY_ATTR_PAD] = LEN_REFUSED,
    [OVS_TUNNEL_KEY_ATTR_ERSPAN_OPTS] = sizeof(struct erspan_metadata),
    [OVS_TUNNEL_KEY_ATTR_GTPU_OPTS] = sizeof(struct gtpu_metadata),
};

/* Most bytes of Geneve options a tunnel key may hold: what fits OVS's
 * metadata, in whole 4-byte words, its length a byte (255 means "masked"
 * there). */
#define GENEVE_OPTS_MAX 252
BUILD_ASSERT_DECL(GENEVE_OPTS_MAX <= TUN_METADATA_TOT_OPT_SIZE);

/* What the flow's key tells of its packets at one point of its action
 * list, as the Linux datapath tracks it along the list
 * (__ovs_nla_copy_actions()): the actions that follow are checked against
 * it, and those that change the packet's headers change it. */
struct pkt_state {
    int eth;                /* 1: an Ethernet frame, 0: an L3 packet,
                             * -1: the key does not say. */
    ovs_be16 eth_type;      /* The Ethertype of what follows the L2 (and
                             * VLAN) headers, or 0 if not known. */
    int nw_proto;           /* The IP protocol the key pins, or -1. */
    bool parsed;            /* Are the packet's layer offsets those OVS
                             * found?  Not after pop_nsh (OVS resets them,
                             * the packet must be recirculated). */
};

static int check_list(const struct nlattr *actions, size_t len,
                      unsigned int depth, const struct pkt_state *);

/* Returns true if 'key', an OVS_KEY_ATTR_TUNNEL attribute of a set()
 * action, is one odp-execute can apply: each attribute known and of its
 * length, Geneve options that fit, and what OVS's parser then accepts (a
 * TTL, VXLAN options it can parse). */
static bool
tunnel_key_valid(const struct nlattr *key)
{
    const struct nlattr *a;
    struct flow_tnl tnl;
    size_t left;

    NL_NESTED_FOR_EACH (a, left, key) {
        unsigned int type = nl_attr_type(a);
        size_t len = nl_attr_get_size(a);

        if (type >= ARRAY_SIZE(tunnel_lens)
            || tunnel_lens[type] == LEN_REFUSED
            || (tunnel_lens[type] != LEN_VARIABLE
                && len != (size_t) tunnel_lens[type])) {
            return false;
        }
        if (type == OVS_TUNNEL_KEY_ATTR_GENEVE_OPTS
            && (len % 4 || len > GENEVE_OPTS_MAX)) {
            return false;
        }
    }
    if (left) {
        return false;
    }
    memset(&tnl, 0, sizeof tnl);
    return odp_tun_key_from_attr(key, &tnl, NULL) != ODP_FIT_ERROR;
}

/* Returns the attribute nested in 'a' if 'a' holds exactly one, whole,
 * else NULL. */
static const struct nlattr *
single_nested(const struct nlattr *a)
{
    const struct nlattr *b, *only = NULL;
    size_t left;

    NL_NESTED_FOR_EACH (b, left, a) {
        if (only) {
            return NULL;
        }
        only = b;
    }
    return left ? NULL : only;
}

/* Returns true if 'eth_type' is an MPLS Ethertype. */
static bool
is_mpls_type(ovs_be16 eth_type)
{
    return eth_type == htons(ETH_TYPE_MPLS)
           || eth_type == htons(ETH_TYPE_MPLS_MCAST);
}

/* Returns true if 'eth_type' is IPv4's or IPv6's. */
static bool
is_ip_type(ovs_be16 eth_type)
{
    return eth_type == htons(ETH_TYPE_IP) || eth_type == htons(ETH_TYPE_IPV6);
}

/* Returns 0 if a set() ('masked' false) or set_masked() of 'key' (of a
 * known type and length) suits packets in state 's': the header it writes
 * is one the key guarantees, as the Linux datapath's validate_set() has it
 * (and, for the fields only this datapath sets, ARP, ICMP, ND and NSH, the
 * same way); else EINVAL. */
static int
check_set_state(const struct nlattr *key, bool masked,
                const struct pkt_state *s)
{
    unsigned int type = nl_attr_type(key);

    switch (type) {
    case OVS_KEY_ATTR_PRIORITY:
    case OVS_KEY_ATTR_SKB_MARK:
    case OVS_KEY_ATTR_TUNNEL:
    case OVS_KEY_ATTR_DP_HASH:
    case OVS_KEY_ATTR_RECIRC_ID:
        /* Metadata, not the packet. */
        return 0;
    }
    if (!s->parsed) {
        return EINVAL;
    }
    switch (type) {
    case OVS_KEY_ATTR_ETHERNET:
        return s->eth == 1 ? 0 : EINVAL;
    case OVS_KEY_ATTR_IPV4:
        if (s->eth_type != htons(ETH_TYPE_IP)) {
            return EINVAL;
        }
        if (masked) {
            const struct ovs_key_ipv4 *mask
                = (const struct ovs_key_ipv4 *) nl_attr_get(key) + 1;

            /* Not writable. */
            return mask->ipv4_proto || mask->ipv4_frag ? EINVAL : 0;
        }
        return 0;
    case OVS_KEY_ATTR_IPV6: {
        const struct ovs_key_ipv6 *ipv6 = nl_attr_get(key);

        if (s->eth_type != htons(ETH_TYPE_IPV6)
            || ntohl(ipv6->ipv6_label) & ~IPV6_LABEL_MASK) {
            return EINVAL;
        }
        if (masked) {
            const struct ovs_key_ipv6 *mask = ipv6 + 1;

            return (mask->ipv6_proto || mask->ipv6_frag
                    || ntohl(mask->ipv6_label) & ~IPV6_LABEL_MASK)
                   ? EINVAL : 0;
        }
        return 0;
    }
    case OVS_KEY_ATTR_TCP:
        return is_ip_type(s->eth_type) && s->nw_proto == IPPROTO_TCP
               ? 0 : EINVAL;
    case OVS_KEY_ATTR_UDP:
        return is_ip_type(s->eth_type) && s->nw_proto == IPPROTO_UDP
               ? 0 : EINVAL;
    case OVS_KEY_ATTR_SCTP:
        return is_ip_type(s->eth_type) && s->nw_proto == IPPROTO_SCTP
               ? 0 : EINVAL;
    case OVS_KEY_ATTR_ICMP:
        return s->eth_type == htons(ETH_TYPE_IP)
               && s->nw_proto == IPPROTO_ICMP ? 0 : EINVAL;
    case OVS_KEY_ATTR_ICMPV6:
    case OVS_KEY_ATTR_ND:
    case OVS_KEY_ATTR_ND_EXTENSIONS:
        return s->eth_type == htons(ETH_TYPE_IPV6)
               && s->nw_proto == IPPROTO_ICMPV6 ? 0 : EINVAL;
    case OVS_KEY_ATTR_ARP:
        return s->eth_type == htons(ETH_TYPE_ARP)
               || s->eth_type == htons(ETH_TYPE_RARP) ? 0 : EINVAL;
    case OVS_KEY_ATTR_MPLS:
        return is_mpls_type(s->eth_type) ? 0 : EINVAL;
    case OVS_KEY_ATTR_NSH:
        return s->eth_type == htons(ETH_TYPE_NSH) ? 0 : EINVAL;
    default:
        return EINVAL;
    }
}

/* Checks set() ('masked' false) or set_masked() action 'a', against 's' if
 * it is nonnull. */
static int
check_set(const struct nlattr *a, bool masked, const struct pkt_state *s)
{
    const struct nlattr *key = single_nested(a);
    unsigned int type;

    if (!key) {
        return EINVAL;
    }
    type = nl_attr_type(key);
    if (type == OVS_KEY_ATTR_TUNNEL && !masked) {
        if (!tunnel_key_valid(key)) {
            return EINVAL;
        }
    } else if (type == OVS_KEY_ATTR_NSH) {
        struct ovs_key_nsh nsh, nsh_mask;

        if (odp_nsh_key_from_attr(key, &nsh, masked ? &nsh_mask : NULL,
                                  NULL) == ODP_FIT_ERROR) {
            return EINVAL;
        }
    } else if (type >= ARRAY_SIZE(set_lens)
               || !(masked ? set_lens[type].masked : set_lens[type].set)
               || nl_attr_get_size(key)
                  != set_lens[type].len * (masked ? 2 : 1)) {
        return EINVAL;
    }
    return s ? check_set_state(key, masked, s) : 0;
}

/* Checks sample() action 'a': one probability, one nested list. */
static int
check_sample(const struct nlattr *a, unsigned int depth,
             const struct pkt_state *s)
{
    const struct nlattr *b, *probability = NULL, *actions = NULL;
    size_t left;

    NL_NESTED_FOR_EACH (b, left, a) {
        switch (nl_attr_type(b)) {
        case OVS_SAMPLE_ATTR_PROBABILITY:
            if (probability || nl_attr_get_size(b) != sizeof(uint32_t)) {
                return EINVAL;
            }
            probability = b;
            break;
        case OVS_SAMPLE_ATTR_ACTIONS:
            if (actions) {
                return EINVAL;
            }
            actions = b;
            break;
        default:
            /* odp_execute_sample() aborts on any other attribute. */
            return EINVAL;
        }
    }
    if (left || !probability || !actions) {
        return EINVAL;
    }
    return check_list(nl_attr_get(actions), nl_attr_get_size(actions),
                      depth + 1, s);
}

/* Checks check_pkt_len() action 'a': one length, one list for each
 * outcome. */
static int
check_check_pkt_len(const struct nlattr *a, unsigned int depth,
                    const struct pkt_state *s)
{
    const struct nlattr *b, *attrs[__OVS_CHECK_PKT_LEN_ATTR_MAX] = { NULL };
    size_t left;
    int error;

    NL_NESTED_FOR_EACH (b, left, a) {
        unsigned int type = nl_attr_type(b);

        if (type == OVS_CHECK_PKT_LEN_ATTR_UNSPEC
            || type >= ARRAY_SIZE(attrs) || attrs[type]) {
            return EINVAL;
        }
        attrs[type] = b;
    }
    if (left
        || !attrs[OVS_CHECK_PKT_LEN_ATTR_PKT_LEN]
        || nl_attr_get_size(attrs[OVS_CHECK_PKT_LEN_ATTR_PKT_LEN])
           != sizeof(uint16_t)
        || !attrs[OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_GREATER]
        || !attrs[OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_LESS_EQUAL]) {
        return EINVAL;
    }
    for (int type = OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_GREATER;
         type <= OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_LESS_EQUAL; type++) {
        error = check_list(nl_attr_get(attrs[type]),
                           nl_attr_get_size(attrs[type]), depth + 1, s);
        if (error) {
            return error;
        }
    }
    return 0;
}

/* Checks userspace() action 'a': the attributes OVS defines, once each,
 * of their lengths. */
static int
check_userspace(const struct nlattr *a)
{
    static const int lens[] = {
        [OVS_USERSPACE_ATTR_PID] = sizeof(uint32_t),
        [OVS_USERSPACE_ATTR_USERDATA] = LEN_VARIABLE,
        [OVS_USERSPACE_ATTR_EGRESS_TUN_PORT] = sizeof(uint32_t),
        [OVS_USERSPACE_ATTR_ACTIONS] = 0,
    };
    bool seen[ARRAY_SIZE(lens)] = { false };
    const struct nlattr *b;
    size_t left;

    NL_NESTED_FOR_EACH (b, left, a) {
        unsigned int type = nl_attr_type(b);

        if (type == OVS_USERSPACE_ATTR_UNSPEC || type >= ARRAY_SIZE(lens)
            || seen[type]
            || (lens[type] != LEN_VARIABLE
                && nl_attr_get_size(b) != (size_t) lens[type])) {
            return EINVAL;
        }
        seen[type] = true;
    }
    return left ? EINVAL : 0;
}

/* Checks push_nsh() action 'a': one NSH key that OVS can make a header
 * of. */
static int
check_push_nsh(const struct nlattr *a)
{
    const struct nlattr *key = single_nested(a);
    uint32_t buffer[NSH_HDR_MAX_LEN / 4];
    struct nsh_hdr *nsh = ALIGNED_CAST(struct nsh_hdr *, buffer);

    if (!key || nl_attr_type(key) != OVS_KEY_ATTR_NSH) {
        return EINVAL;
    }
    nsh_reset_ver_flags_ttl_len(nsh);
    return odp_nsh_hdr_from_attr(key, nsh, NSH_HDR_MAX_LEN) == ODP_FIT_ERROR
           ? EINVAL : 0;
}

/* Checks action 'a', of a type this datapath runs and of the length its
 * type has, against packet state 's', and changes 's' as the action
 * changes the packet: the Linux datapath's rules (__ovs_nla_copy_actions())
 * where OVS's odp-execute and packets.c would otherwise assert, abort or
 * write where no header is (pop_eth, push_eth, push_nsh on an assumption
 * about the packet type, OVS_NOT_REACHED() otherwise; push_vlan on an L3
 * packet; layer offsets reset by pop_nsh), and no further than it: the
 * tag order rules of the kernel's skb layout do not apply to OVS's packets,
 * whose push_mpls goes after the VLAN tags. */
static int
check_action_state(const struct nlattr *a, struct pkt_state *s)
{
    enum ovs_action_attr type = nl_attr_type(a);

    switch (type) {
    case OVS_ACTION_ATTR_TRUNC: {
        const struct ovs_action_trunc *trunc = nl_attr_get(a);

        return trunc->max_len < ETH_HEADER_LEN ? EINVAL : 0;
    }
    case OVS_ACTION_ATTR_PUSH_VLAN:
    case OVS_ACTION_ATTR_POP_VLAN:
        return s->parsed && s->eth == 1 ? 0 : EINVAL;
    case OVS_ACTION_ATTR_PUSH_ETH:
        if (!s->parsed || s->eth != 0) {
            return EINVAL;
        }
        s->eth = 1;
        return 0;
    case OVS_ACTION_ATTR_POP_ETH:
        if (!s->parsed || s->eth != 1) {
            return EINVAL;
        }
        s->eth = 0;
        return 0;
    case OVS_ACTION_ATTR_PUSH_MPLS: {
        const struct ovs_action_push_mpls *mpls = nl_attr_get(a);

        if (!s->parsed || !is_mpls_type(mpls->mpls_ethertype)) {
            return EINVAL;
        }
        s->eth_type = mpls->mpls_ethertype;
        return 0;
    }
    case OVS_ACTION_ATTR_ADD_MPLS: {
        const struct ovs_action_add_mpls *mpls = nl_attr_get(a);

        if (!s->parsed || !is_mpls_type(mpls->mpls_ethertype)) {
            return EINVAL;
        }
        if (!(mpls->tun_flags & OVS_MPLS_L3_TUNNEL_FLAG_MASK)) {
            /* The label goes in front of the packet, which is then an
             * L3 MPLS packet. */
            s->eth = 0;
        }
        s->eth_type = mpls->mpls_ethertype;
        return 0;
    }
    case OVS_ACTION_ATTR_POP_MPLS: {
        ovs_be16 eth_type = nl_attr_get_be16(a);

        if (!s->parsed || !is_mpls_type(s->eth_type)) {
            return EINVAL;
        }
        /* As the kernel: what follows the last label is not known to be
         * of the type named (no header was parsed there), so no later
         * action may assume it; ofproto recirculates first. */
        s->eth_type = is_mpls_type(eth_type) ? eth_type : 0;
        s->nw_proto = -1;
        return 0;
    }
    case OVS_ACTION_ATTR_PUSH_NSH:
        /* OVS's push_nsh() knows Ethernet, IPv4, IPv6 and NSH packets and
         * aborts on any other. */
        if (!s->parsed
            || !(s->eth == 1
                 || (s->eth == 0
                     && (is_ip_type(s->eth_type)
                         || s->eth_type == htons(ETH_TYPE_NSH))))) {
            return EINVAL;
        }
        s->eth = 0;
        s->eth_type = htons(ETH_TYPE_NSH);
        s->nw_proto = -1;
        return 0;
    case OVS_ACTION_ATTR_POP_NSH:
        if (!s->parsed || s->eth_type != htons(ETH_TYPE_NSH)) {
            return EINVAL;
        }
        s->parsed = false;
        s->eth = -1;
        s->eth_type = 0;
        s->nw_proto = -1;
        return 0;
    case OVS_ACTION_ATTR_CT:
        /* Conntrack reads the headers at the packet's layer offsets. */
        return s->parsed ? 0 : EINVAL;

    case OVS_ACTION_ATTR_UNSPEC:
    case OVS_ACTION_ATTR_OUTPUT:
    case OVS_ACTION_ATTR_USERSPACE:
    case OVS_ACTION_ATTR_SET:
    case OVS_ACTION_ATTR_SAMPLE:
    case OVS_ACTION_ATTR_RECIRC:
    case OVS_ACTION_ATTR_HASH:
    case OVS_ACTION_ATTR_SET_MASKED:
    case OVS_ACTION_ATTR_CT_CLEAR:
    case OVS_ACTION_ATTR_METER:
    case OVS_ACTION_ATTR_CLONE:
    case OVS_ACTION_ATTR_CHECK_PKT_LEN:
    case OVS_ACTION_ATTR_TUNNEL_PUSH:
    case OVS_ACTION_ATTR_TUNNEL_POP:
    case OVS_ACTION_ATTR_DROP:
    case OVS_ACTION_ATTR_LB_OUTPUT:
    case __OVS_ACTION_ATTR_MAX:
    default:
        /* Checked apart, or leave the packet's headers as they are. */
        return 0;
    }
}

/* Checks action 'a', in a list nested 'depth' lists deep, and, if 's' is
 * nonnull, against packet state '*s', which it updates. */
static int
check_action(const struct nlattr *a, unsigned int depth, struct pkt_state *s)
{
    unsigned int type = nl_attr_type(a);
    int len;

    if (type >= ARRAY_SIZE(action_lens)) {
        return EOPNOTSUPP;
    }
    len = action_lens[type];
    if (len == LEN_REFUSED) {
        return EOPNOTSUPP;
    }
    if (len != LEN_VARIABLE) {
        if (nl_attr_get_size(a) != (size_t) len) {
            return EINVAL;
        }
        if (type == OVS_ACTION_ATTR_HASH) {
            const struct ovs_action_hash *hash = nl_attr_get(a);

            /* odp-execute aborts on any other algorithm. */
            if (hash->hash_alg != OVS_HASH_ALG_L4
                && hash->hash_alg != OVS_HASH_ALG_SYM_L4) {
                return EINVAL;
            }
        }
        return s ? check_action_state(a, s) : 0;
    }

    switch ((enum ovs_action_attr) type) {
    case OVS_ACTION_ATTR_CLONE:
        return check_list(nl_attr_get(a), nl_attr_get_size(a), depth + 1, s);
    case OVS_ACTION_ATTR_SAMPLE:
        return check_sample(a, depth, s);
    case OVS_ACTION_ATTR_CHECK_PKT_LEN:
        return check_check_pkt_len(a, depth, s);
    case OVS_ACTION_ATTR_CT:
        if (!dp_conntrack_action_valid(a)) {
            return EINVAL;
        }
        return s ? check_action_state(a, s) : 0;
    case OVS_ACTION_ATTR_SET:
        return check_set(a, false, s);
    case OVS_ACTION_ATTR_SET_MASKED:
        return check_set(a, true, s);
    case OVS_ACTION_ATTR_USERSPACE:
        return check_userspace(a);
    case OVS_ACTION_ATTR_PUSH_NSH: {
        int error = check_push_nsh(a);

        return error || !s ? error : check_action_state(a, s);
    }

    case OVS_ACTION_ATTR_UNSPEC:
    case OVS_ACTION_ATTR_OUTPUT:
    case OVS_ACTION_ATTR_PUSH_VLAN:
    case OVS_ACTION_ATTR_POP_VLAN:
    case OVS_ACTION_ATTR_RECIRC:
    case OVS_ACTION_ATTR_HASH:
    case OVS_ACTION_ATTR_PUSH_MPLS:
    case OVS_ACTION_ATTR_POP_MPLS:
    case OVS_ACTION_ATTR_TRUNC:
    case OVS_ACTION_ATTR_PUSH_ETH:
    case OVS_ACTION_ATTR_POP_ETH:
    case OVS_ACTION_ATTR_CT_CLEAR:
    case OVS_ACTION_ATTR_POP_NSH:
    case OVS_ACTION_ATTR_METER:
    case OVS_ACTION_ATTR_ADD_MPLS:
    case OVS_ACTION_ATTR_TUNNEL_PUSH:
    case OVS_ACTION_ATTR_TUNNEL_POP:
    case OVS_ACTION_ATTR_DROP:
    case OVS_ACTION_ATTR_LB_OUTPUT:
    case __OVS_ACTION_ATTR_MAX:
    default:
        OVS_NOT_REACHED();
    }
}

/* Checks the action list 'actions' ('len' bytes), nested 'depth' lists
 * deep, and, if 'outer' is nonnull, against the packet state it points to
 * at the list's start.  A nested list runs on a copy of the packet (or
 * last), so its changes to the state do not outlive it. */
static int
check_list(const struct nlattr *actions, size_t len, unsigned int depth,
           const struct pkt_state *outer)
{
    struct pkt_state state, *s = NULL;
    const struct nlattr *a;
    size_t left;

    if (depth > DP_ACTIONS_MAX_DEPTH) {
        return EOVERFLOW;
    }
    if (outer) {
        state = *outer;
        s = &state;
    }
    NL_ATTR_FOR_EACH (a, left, actions, len) {
        int error = check_action(a, depth, s);

        if (error) {
            return error;
        }
    }
    return left ? EINVAL : 0;
}

/* Returns 0 if this datapath may take action list 'actions' ('actions_len'
 * bytes), as dp-actions-check.h describes; otherwise EOPNOTSUPP for an
 * action it does not run, EOVERFLOW for lists nested too deeply (as the
 * Linux datapath answers), EINVAL for anything malformed. */
int
dp_actions_check(const struct nlattr *actions, size_t actions_len)
{
    return check_list(actions, actions_len, 0, NULL);
}

/* As dp_actions_check(), and also checks 'actions' against the packets the
 * key 'flow' with mask 'wc' matches (NULL: exactly 'flow', a packet's
 * key), as dp-actions-check.h describes.  Returns EINVAL for an action
 * that does not suit them. */
int
dp_actions_check_key(const struct flow *flow, const struct flow_wildcards *wc,
                     const struct nlattr *actions, size_t actions_len)
{
    struct pkt_state s = { .eth = -1, .nw_proto = -1, .parsed = true };

    if (!wc || wc->masks.packet_type == OVS_BE32_MAX) {
        s.eth = flow->packet_type == htonl(PT_ETH);
    }
    if (!wc || wc->masks.dl_type == OVS_BE16_MAX) {
        s.eth_type = flow->dl_type;
    }
    if (is_ip_type(s.eth_type) && (!wc || wc->masks.nw_proto == UINT8_MAX)) {
        s.nw_proto = flow->nw_proto;
    }
    return check_list(actions, actions_len, 0, &s);
}

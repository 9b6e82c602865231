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

/* What an action list needs of a packet, checked before it runs. */

#include <config.h>
#include "dp-actions-guard.h"

#include "dp-packet.h"
#include "netlink.h"
#include "odp-netlink.h"
#include "openvswitch/nsh.h"
#include "packets.h"
#include "util.h"

/* Most action lists nested one in another that the sum follows; deeper
 * ones are refused by dp-actions-check, or come from ofproto, which nests
 * far less. */
#define NEEDS_MAX_DEPTH 32

/* Where a walk along an action list stands. */
struct walk {
    unsigned int pushed;        /* MPLS labels pushed and not popped. */
    unsigned int popped;        /* The packet's own labels popped. */
    bool l3_own;                /* Is l3_ofs still at the packet's own L3
                                 * header (not at an NSH header pushed, or
                                 * reset by pop_nsh)? */
};

/* Raises '*need' to at least 'bytes'. */
static void
need_at_least(uint16_t *need, size_t bytes)
{
    if (*need < bytes) {
        *need = MIN(bytes, UINT16_MAX);
    }
}

/* Adds to 'needs' what set() or set_masked() of 'key' asks, at walk
 * position 'w'. */
static void
needs_set(const struct nlattr *key, const struct walk *w,
          struct dp_actions_needs *needs)
{
    switch (nl_attr_type(key)) {
    case OVS_KEY_ATTR_MPLS:
        if (!w->pushed) {
            need_at_least(&needs->l2_5, (w->popped + 1) * MPLS_HLEN);
        }
        break;
    case OVS_KEY_ATTR_IPV4:
        if (w->l3_own) {
            need_at_least(&needs->l3, IP_HEADER_LEN);
        }
        break;
    case OVS_KEY_ATTR_IPV6:
        if (w->l3_own) {
            need_at_least(&needs->l3, IPV6_HEADER_LEN);
        }
        break;
    case OVS_KEY_ATTR_ARP:
        if (w->l3_own) {
            need_at_least(&needs->l3, ARP_ETH_HEADER_LEN);
        }
        break;
    case OVS_KEY_ATTR_NSH:
        if (w->l3_own) {
            needs->nsh = true;
        }
        break;
    case OVS_KEY_ATTR_ND_EXTENSIONS:
        /* odp_set_nd_ext() reads the message's flags and its first
         * option's type before packet_set_nd_ext() checks the size. */
        if (w->l3_own) {
            need_at_least(&needs->l4, sizeof(struct ovs_nd_msg) + 1);
        }
        break;
    default:
        break;
    }
}

static void needs_list(const struct nlattr *actions, size_t len,
                       struct walk, unsigned int depth,
                       struct dp_actions_needs *);

/* Adds to 'needs' what the nested lists of container action 'a' (clone,
 * sample, check_pkt_len) ask, each starting at walk position 'w'. */
static void
needs_nested(const struct nlattr *a, const struct walk *w, unsigned int depth,
             struct dp_actions_needs *needs)
{
    const struct nlattr *b;
    size_t left;

    switch (nl_attr_type(a)) {
    case OVS_ACTION_ATTR_CLONE:
        needs_list(nl_attr_get(a), nl_attr_get_size(a), *w, depth + 1,
                   needs);
        break;
    case OVS_ACTION_ATTR_SAMPLE:
        NL_NESTED_FOR_EACH (b, left, a) {
            if (nl_attr_type(b) == OVS_SAMPLE_ATTR_ACTIONS) {
                needs_list(nl_attr_get(b), nl_attr_get_size(b), *w,
                           depth + 1, needs);
            }
        }
        break;
    case OVS_ACTION_ATTR_CHECK_PKT_LEN:
        NL_NESTED_FOR_EACH (b, left, a) {
            unsigned int type = nl_attr_type(b);

            if (type == OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_GREATER
                || type == OVS_CHECK_PKT_LEN_ATTR_ACTIONS_IF_LESS_EQUAL) {
                needs_list(nl_attr_get(b), nl_attr_get_size(b), *w,
                           depth + 1, needs);
            }
        }
        break;
    default:
        break;
    }
}

/* Adds to 'needs' what action list 'actions' ('len' bytes), nested 'depth'
 * lists deep, asks from walk position 'w'. */
static void
needs_list(const struct nlattr *actions, size_t len, struct walk w,
           unsigned int depth, struct dp_actions_needs *needs)
{
    const struct nlattr *a;
    size_t left;

    if (depth > NEEDS_MAX_DEPTH) {
        return;
    }
    NL_ATTR_FOR_EACH (a, left, actions, len) {
        switch (nl_attr_type(a)) {
        case OVS_ACTION_ATTR_SET:
        case OVS_ACTION_ATTR_SET_MASKED:
            if (nl_attr_get_size(a) >= NLA_HDRLEN) {
                needs_set(nl_attr_get(a), &w, needs);
            }
            break;
        case OVS_ACTION_ATTR_PUSH_MPLS:
            w.pushed++;
            break;
        case OVS_ACTION_ATTR_ADD_MPLS:
            w.pushed++;
            if (nl_attr_get_size(a) >= sizeof(struct ovs_action_add_mpls)) {
                const struct ovs_action_add_mpls *mpls = nl_attr_get(a);

                if (!(mpls->tun_flags & OVS_MPLS_L3_TUNNEL_FLAG_MASK)) {
                    /* Pushed in front of the packet, the offsets left. */
                    w.l3_own = false;
                }
            }
            break;
        case OVS_ACTION_ATTR_POP_MPLS:
            if (w.pushed) {
                w.pushed--;
            } else {
                w.popped++;
                need_at_least(&needs->l2_5, w.popped * MPLS_HLEN);
            }
            break;
        case OVS_ACTION_ATTR_PUSH_NSH:
        case OVS_ACTION_ATTR_POP_NSH:
            w.l3_own = false;
            break;
        case OVS_ACTION_ATTR_CLONE:
        case OVS_ACTION_ATTR_SAMPLE:
        case OVS_ACTION_ATTR_CHECK_PKT_LEN:
            needs_nested(a, &w, depth, needs);
            break;
        default:
            break;
        }
    }
}

/* Sums in '*needs' what action list 'actions' ('len' bytes) asks of a
 * packet, as dp-actions-guard.h describes.  The list need not have been
 * checked: malformed attributes ask nothing. */
void
dp_actions_needs_compute(const struct nlattr *actions, size_t len,
                         struct dp_actions_needs *needs)
{
    struct walk w = { .l3_own = true };

    memset(needs, 0, sizeof *needs);
    needs_list(actions, len, w, 0, needs);
}

/* Returns true if the 'bytes' from layer offset 'ofs' fit in 'packet'; an
 * absent layer (UINT16_MAX) has none. */
static bool
layer_holds(const struct dp_packet *packet, uint16_t ofs, size_t bytes)
{
    return ofs != UINT16_MAX && ofs + bytes <= dp_packet_size(packet);
}

/* Returns true if 'packet' holds what 'needs' asks, false if its actions
 * would read or write past its end. */
bool
dp_actions_packet_ok(const struct dp_packet *packet,
                     const struct dp_actions_needs *needs)
{
    if (needs->l2_5 && packet->l2_5_ofs != UINT16_MAX
        && !layer_holds(packet, packet->l2_5_ofs, needs->l2_5)) {
        return false;
    }
    if (needs->l3 && !layer_holds(packet, packet->l3_ofs, needs->l3)) {
        return false;
    }
    if (needs->l4 && !layer_holds(packet, packet->l4_ofs, needs->l4)) {
        return false;
    }
    if (needs->nsh) {
        const struct nsh_hdr *nsh = dp_packet_l3(packet);

        if (!layer_holds(packet, packet->l3_ofs, NSH_BASE_HDR_LEN)
            || !layer_holds(packet, packet->l3_ofs,
                            nsh_md_type(nsh) == NSH_M_TYPE1
                            ? NSH_M_TYPE1_LEN : NSH_BASE_HDR_LEN)) {
            return false;
        }
    }
    return true;
}

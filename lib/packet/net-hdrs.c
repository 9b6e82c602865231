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

/* Where the headers of an IP packet are, found from its bytes. */

#include <config.h>
#include "net-hdrs.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip6.h>

#include "dp-packet.h"
#include "packets.h"

/* An IPv6 extension header's length field counts 8-byte units beyond the
 * first 8 bytes (RFC 8200, section 4.3). */
#define NET_HDRS_IPV6_EXT_UNIT 8

/* Finds the Ethernet header and VLAN tags of 'p', an Ethernet frame of
 * 'size' bytes.  Stores the offset of the L3 header in '*l3_ofs' and its
 * Ethertype in '*eth_type'. */
static int
net_hdrs_parse_l2(const uint8_t *data, uint32_t size, uint16_t *l3_ofs,
                  ovs_be16 *eth_type)
{
    const struct eth_header *eth = (const struct eth_header *) data;
    uint32_t ofs = ETH_HEADER_LEN;
    int n_vlans = 0;

    if (size < ETH_HEADER_LEN) {
        return EINVAL;
    }
    *eth_type = eth->eth_type;
    while (eth_type_vlan(*eth_type)) {
        const struct vlan_header *vlan;

        if (++n_vlans > NET_HDRS_MAX_VLANS) {
            return EPROTONOSUPPORT;
        }
        if (size - ofs < VLAN_HEADER_LEN) {
            return EINVAL;
        }
        vlan = (const struct vlan_header *) (data + ofs);
        *eth_type = vlan->vlan_next_type;
        ofs += VLAN_HEADER_LEN;
    }
    *l3_ofs = ofs;
    return 0;
}

/* Checks the IPv4 header at 'h->l3_ofs' of 'data' ('size' bytes), and fills
 * in the rest of 'h'. */
static int
net_hdrs_parse_ipv4(const uint8_t *data, uint32_t size, struct net_hdrs *h)
{
    const struct ip_header *ip;
    uint32_t avail = size - h->l3_ofs;
    uint32_t ihl, tot_len;

    if (avail < IP_HEADER_LEN) {
        return EINVAL;
    }
    ip = (const struct ip_header *) (data + h->l3_ofs);
    ihl = IP_IHL(ip->ip_ihl_ver) * 4;
    tot_len = ntohs(ip->ip_tot_len);
    if (IP_VER(ip->ip_ihl_ver) != IP_VERSION || ihl < IP_HEADER_LEN
        || tot_len < ihl || tot_len > avail) {
        return EINVAL;
    }
    h->is_ipv6 = false;
    h->l4_proto = ip->ip_proto;
    h->l4_ofs = h->l3_ofs + ihl;
    h->end_ofs = h->l3_ofs + tot_len;
    return 0;
}

/* Checks the IPv6 header at 'h->l3_ofs' of 'data' ('size' bytes), walks its
 * hop-by-hop and destination options headers, and fills in the rest of
 * 'h'. */
static int
net_hdrs_parse_ipv6(const uint8_t *data, uint32_t size, struct net_hdrs *h)
{
    const struct ovs_16aligned_ip6_hdr *ip6;
    uint32_t avail = size - h->l3_ofs;
    uint32_t ofs, end;
    uint8_t nxt;

    if (avail < IPV6_HEADER_LEN) {
        return EINVAL;
    }
    ip6 = (const struct ovs_16aligned_ip6_hdr *) (data + h->l3_ofs);
    if (ip6->ip6_vfc >> 4 != 6) {
        return EINVAL;
    }
    end = h->l3_ofs + IPV6_HEADER_LEN + ntohs(ip6->ip6_plen);
    if (end > size) {
        return EINVAL;
    }

    ofs = h->l3_ofs + IPV6_HEADER_LEN;
    nxt = ip6->ip6_nxt;
    while (nxt == IPPROTO_HOPOPTS || nxt == IPPROTO_DSTOPTS) {
        uint32_t len;

        if (end - ofs < NET_HDRS_IPV6_EXT_UNIT) {
            return EINVAL;
        }
        len = (data[ofs + 1] + 1) * NET_HDRS_IPV6_EXT_UNIT;
        if (end - ofs < len) {
            return EINVAL;
        }
        nxt = data[ofs];
        ofs += len;
    }
    h->is_ipv6 = true;
    h->l4_proto = nxt;
    h->l4_ofs = ofs;
    h->end_ofs = end;
    return 0;
}

/* Finds the headers of 'p' and stores their offsets in '*h'.  Returns 0 if
 * 'p' is a well-formed IPv4 or IPv6 packet, EPROTONOSUPPORT if it is not IP
 * (or is IP behind more VLAN tags than NET_HDRS_MAX_VLANS), or EINVAL if it
 * is truncated or its headers are inconsistent (version, header length,
 * total or payload length beyond the buffer).  The L4 header itself is not
 * checked: its length depends on the protocol. */
int
net_hdrs_parse(const struct dp_packet *p, struct net_hdrs *h)
{
    const uint8_t *data = dp_packet_data(p);
    uint32_t size = dp_packet_size(p);
    ovs_be16 eth_type;
    int error;

    if (size > UINT16_MAX) {
        /* Offsets are 16 bits wide, as in struct dp_packet. */
        return EINVAL;
    }

    switch (ntohl(p->packet_type)) {
    case PT_ETH:
        error = net_hdrs_parse_l2(data, size, &h->l3_ofs, &eth_type);
        if (error) {
            return error;
        }
        break;
    case PT_IPV4:
        h->l3_ofs = 0;
        eth_type = htons(ETH_TYPE_IP);
        break;
    case PT_IPV6:
        h->l3_ofs = 0;
        eth_type = htons(ETH_TYPE_IPV6);
        break;
    default:
        return EPROTONOSUPPORT;
    }

    if (eth_type == htons(ETH_TYPE_IP)) {
        return net_hdrs_parse_ipv4(data, size, h);
    } else if (eth_type == htons(ETH_TYPE_IPV6)) {
        return net_hdrs_parse_ipv6(data, size, h);
    } else {
        return EPROTONOSUPPORT;
    }
}

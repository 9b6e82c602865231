/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flow key: what the datapath extracts from a packet and matches
 * megaflows against.
 *
 * Contract:
 * - A key is a plain struct compared, hashed and masked as an array of
 *   longs, so every byte that is not a field is zero: extraction starts
 *   from a zeroed key, and parsers from netlink (flow-netlink.h) write
 *   fields only.
 * - A mask is a struct ovsp_flow_key too: a bit set in the mask means "this
 *   bit of the key is matched".  The bytes a mask can have non-zero are
 *   summed up in a struct ovsp_key_range, so lookups touch only those.
 * - The tunnel part comes last because most flows do not match on it; the
 *   metadata that every lookup needs comes first.
 *
 * Owned by: whoever holds the struct.  Extraction runs in softirq (or with
 * BHs disabled, for EXECUTE) on the receiving CPU, into a key on its stack.
 */
#ifndef OVSP_FLOW_KEY_H
#define OVSP_FLOW_KEY_H 1

#include <linux/if_ether.h>
#include <linux/in6.h>
#include <linux/skbuff.h>
#include <linux/types.h>
#include <net/ip_tunnels.h>

struct net;
struct nlattr;

/* Labels of an MPLS stack kept in the key; OVS probes for up to this many
 * (ofproto-dpif's max_mpls_depth probe).
 */
#define OVSP_MPLS_LABEL_DEPTH 3

/* key.meta.in_port of a key from userspace without OVS_KEY_ATTR_IN_PORT
 * (EXECUTE of a packet from no port; a flow matching any port): one past
 * the largest port number, as the kernel datapath's DP_MAX_PORTS.
 */
#define OVSP_IN_PORT_NONE 0xffff

/* Bytes of conntrack labels (OVS_KEY_ATTR_CT_LABELS). */
#define OVSP_CT_LABELS_LEN 16

/* key.meta.mac_proto values. */
enum ovsp_mac_proto {
	OVSP_MAC_PROTO_NONE = 0,	/* Layer-3 packet: no Ethernet header. */
	OVSP_MAC_PROTO_ETHERNET = 1,	/* Ethernet frame. */
};

/* One VLAN header.  'tci' has VLAN_CFI_MASK (0x1000) set when the tag is
 * present, so that a present tag with TCI 0 differs from no tag, as in the
 * ABI's OVS_KEY_ATTR_VLAN.
 */
struct ovsp_vlan {
	__be16 tpid;			/* ETH_P_8021Q or ETH_P_8021AD. */
	__be16 tci;			/* TCI | VLAN_CFI_MASK, or 0. */
};

/* The flow key.  Field order is layout: see the contract above. */
struct ovsp_flow_key {
	/* Metadata, not from the packet's bytes. */
	struct {
		u32 recirc_id;		/* OVS_KEY_ATTR_RECIRC_ID. */
		u32 dp_hash;		/* OVS_KEY_ATTR_DP_HASH. */
		u32 priority;		/* skb->priority. */
		u32 skb_mark;		/* skb->mark. */
		u16 in_port;		/* Datapath port number. */
		u8 mac_proto;		/* enum ovsp_mac_proto. */
		u8 tun_proto;		/* 0, or AF_INET/AF_INET6 of tun_key. */
	} meta;

	/* Conntrack metadata: the state of the packet's connection after the
	 * last ct() (or as it arrived), OVS_KEY_ATTR_CT_*.  Survives
	 * ovsp_flow_key_update() with the rest of the metadata.
	 */
	struct {
		u8 state;		/* OVS_CS_F_*. */
		u8 orig_proto;		/* Orig tuple's IP protocol; 0: no
					 * orig tuple.
					 */
		u16 zone;		/* Conntrack zone. */
		u32 mark;		/* ct->mark. */
		u8 labels[OVSP_CT_LABELS_LEN];	/* ct labels, 128 bits. */
		__be16 orig_tp_src;	/* Orig tuple's ports (ICMP type and
					 * code, as in stock).
					 */
		__be16 orig_tp_dst;
		union {
			struct {
				__be32 src;
				__be32 dst;
			} ipv4;
			struct {
				struct in6_addr src;
				struct in6_addr dst;
			} ipv6;
		} orig;			/* Orig tuple's addresses, by
					 * eth.type.
					 */
	} ct;

	/* Layer 2. */
	struct {
		u8 src[ETH_ALEN];
		u8 dst[ETH_ALEN];
		struct ovsp_vlan vlan;	/* Outer tag. */
		struct ovsp_vlan cvlan;	/* Inner tag (802.1ad customer). */
		__be16 type;		/* Ethertype after the tags; for an L3
					 * packet, the protocol.
					 */
	} eth;

	/* Layer 3 common part (IPv4, IPv6; ARP puts its opcode in 'proto'). */
	struct {
		u8 proto;		/* IP protocol or low 8 bits of the ARP
					 * opcode.
					 */
		u8 tos;			/* DSCP and ECN. */
		u8 ttl;			/* TTL or hop limit. */
		u8 frag;		/* OVS_FRAG_TYPE_*. */
	} ip;

	/* Layer 4 (TCP, UDP, SCTP ports; ICMP type and code in src and dst). */
	struct {
		__be16 src;
		__be16 dst;
		__be16 flags;		/* TCP flags (OVS_KEY_ATTR_TCP_FLAGS). */
	} tp;

	/* Addresses: one of these, chosen by eth.type. */
	union {
		struct {
			__be32 src;	/* Also ARP's sender protocol address. */
			__be32 dst;	/* Also ARP's target protocol address. */
			u8 arp_sha[ETH_ALEN];
			u8 arp_tha[ETH_ALEN];
		} ipv4;
		struct {
			struct in6_addr src;
			struct in6_addr dst;
			__be32 label;	/* Flow label, low 20 bits. */
			struct in6_addr nd_target;
			u8 nd_sll[ETH_ALEN];
			u8 nd_tll[ETH_ALEN];
		} ipv6;
		struct {
			u32 num_labels_mask;	/* Bit i: label i present. */
			__be32 lse[OVSP_MPLS_LABEL_DEPTH];
		} mpls;
	};

	/* The tunnel the packet came from (OVS_KEY_ATTR_TUNNEL). */
	struct ip_tunnel_key tun_key;
	u8 tun_opts_len;		/* Bytes used in tun_opts. */
	u8 tun_opts[IP_TUNNEL_OPTS_MAX];	/* Geneve/vxlan/erspan options,
						 * from the start.
						 */
} __aligned(BITS_PER_LONG / 8);

/* The bytes [start, end) of a key that a mask can have non-zero; both
 * multiples of sizeof(long).
 */
struct ovsp_key_range {
	u16 start;
	u16 end;
};

/* A match parsed from OVS_FLOW_ATTR_KEY and OVS_FLOW_ATTR_MASK: the key
 * (already masked), its mask, and the mask's range.  A plain value; the
 * flow table turns 'mask' into a shared, refcounted mask of its own.
 */
struct ovsp_flow_match {
	struct ovsp_flow_key key;
	struct ovsp_flow_key mask;
	struct ovsp_key_range range;
};

/* Extracts the key of 'skb', received on datapath port 'in_port' with
 * tunnel metadata 'tun' (NULL if none), into 'key' (which it zeroes
 * first).  Sets the skb's network and transport headers as it goes.
 * Never reads past the packet: a header too short for its protocol
 * leaves that layer's fields zero, as the kernel datapath does.  Returns 0
 * or a negative errno (-ENOMEM if a pull failed, -EINVAL for a device type
 * we cannot carry).
 */
int ovsp_flow_key_extract(const struct ip_tunnel_info *tun,
			  struct sk_buff *skb, u16 in_port,
			  struct ovsp_flow_key *key);

/* For OVS_PACKET_CMD_EXECUTE: takes the metadata (in_port, priority,
 * skb_mark, tunnel, recirc_id, dp_hash...) from the OVS_PACKET_ATTR_KEY
 * attributes 'attr', and the rest from the packet, as
 * ovsp_flow_key_extract() does.  Returns 0 or a negative errno.
 */
int ovsp_flow_key_extract_userspace(struct net *net, const struct nlattr *attr,
				    struct sk_buff *skb,
				    struct ovsp_flow_key *key, bool log);

/* Extracts the key of 'skb' again after actions changed it (before a
 * recirculation or an upcall), keeping the metadata in 'key'.
 */
int ovsp_flow_key_update(struct sk_buff *skb, struct ovsp_flow_key *key);

/* Sets 'dst' to 'src' masked by 'mask', over mask's 'range' only (the rest
 * of 'dst' is zeroed when 'full' is true).
 */
void ovsp_flow_key_mask(struct ovsp_flow_key *dst,
			const struct ovsp_flow_key *src,
			const struct ovsp_flow_key *mask,
			const struct ovsp_key_range *range, bool full);

#endif

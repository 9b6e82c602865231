/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/*
 * The ovs_ipip device: the contract between the module (datapath/ipip-*.c)
 * and userspace (our "system" dpif class, tunnel-stats-show).  Plain
 * <linux/types.h> only, so that both sides include it.
 *
 * Creation: rtnetlink RTM_NEWLINK with IFLA_IFNAME, optionally IFLA_MTU
 * (default 1480, 68..65515), and IFLA_LINKINFO { IFLA_INFO_KIND =
 * OVSP_IPIP_KIND, IFLA_INFO_DATA = { OVSP_IPIP_ATTR_* } }.  Every
 * attribute is optional; an attribute of the wrong size or an unknown
 * value is refused with an extack message: -EINVAL, or -ERANGE from
 * rtnetlink's policy for one shorter than its type.  Unknown attribute
 * types are ignored.  As any link, it
 * is created down unless the request's ifinfomsg has IFF_UP in ifi_flags
 * and ifi_change (our dpif class sets it); then it is attached as an
 * OVS_VPORT_TYPE_NETDEV vport (ARPHRD_NONE: the flow key is L3).
 * RTM_NEWLINK on an existing device (changelink) accepts the same
 * attributes and applies them to later packets.  RTM_DELLINK deletes it
 * (detaching it from the datapath first).  The module must be loaded:
 * the kind has no module alias.
 *
 * Receive: an IPPROTO_IPIP packet whose outer destination and source
 * match one of our devices in the receiving namespace that is a port of a
 * datapath is ours; a device that no datapath holds decapsulates nothing.
 * Matching, most specific first: LOCAL and REMOTE both equal; REMOTE equal
 * with LOCAL 0; LOCAL equal with REMOTE 0 ("remote_ip=flow"); both 0.  A
 * tunnel of the kernel's ipip.ko (if loaded) comes after the first kind
 * and before the others: an exact device of ours takes its packets first,
 * and ipip.ko's tunnels take theirs before any device of ours with a 0
 * address.  Whatever no one takes gets ICMP port unreachable, as without
 * us.  Two devices with the same (LOCAL, REMOTE) in one namespace are
 * refused with -EEXIST.  The inner packet keeps the outer addresses, TOS,
 * TTL and DF as tunnel metadata (skb_tunnel_info()), so the flow key has
 * tun_src, tun_dst, tun_tos, tun_ttl and the DF flag.
 *
 * Transmit: an IPv4 inner packet with egress tunnel info (set(tunnel(...)),
 * IPv4, ipv4_dst set) leaves with ipv4_src (or the route's source when 0),
 * ipv4_dst, tos (1: the inner TOS), ttl (0: the inner TTL) and DF from the
 * tunnel info: ofproto puts the port's ttl, tos and df_default there, so
 * the device needs no attributes for them.  A packet without tunnel info
 * (the stack routing to the device, no datapath attached) goes to REMOTE
 * from LOCAL with TOS 0 and the inner TTL, or is dropped if REMOTE is 0.
 * A packet too big for the path MTU is dropped (tx_drop_too_big) if the
 * inner has DF, and its sender gets an ICMP "fragmentation needed" with
 * the path MTU less the outer header, sent by the stack of the device's
 * namespace to the inner source as a router's would be
 * (icmp_frag_needed_sent): the namespace needs a route to that source.
 * Without DF, its outer DF is cleared and the outer is fragmented.
 */
#ifndef OVSP_IPIP_UAPI_H
#define OVSP_IPIP_UAPI_H 1

#include <linux/types.h>

/* The rtnetlink link kind (IFLA_INFO_KIND) and the ethtool driver name
 * (ETHTOOL_GDRVINFO 'driver'), by which userspace recognises our device.
 */
#define OVSP_IPIP_KIND "ovs_ipip"

/* IFLA_INFO_DATA attributes of kind OVSP_IPIP_KIND. */
enum ovsp_ipip_attr {
	OVSP_IPIP_ATTR_UNSPEC,
	OVSP_IPIP_ATTR_GRO,		/* u8: 1 (default) the packets go
					 * through our per-CPU GRO cells;
					 * 0 ("options:gro=false") they
					 * bypass them (netif_rx).
					 */
	OVSP_IPIP_ATTR_SHARED_CELL,	/* u8: 0 (default) each CPU feeds
					 * its own cell; 1 every CPU feeds
					 * one shared cell (the benchmark's
					 * ablation, as Linux before its
					 * per-CPU fix).
					 */
	OVSP_IPIP_ATTR_LOCAL,		/* __be32: the outer destination
					 * this device receives for
					 * (options:local_ip); 0 (default)
					 * any ("local_ip=flow" or absent).
					 */
	OVSP_IPIP_ATTR_REMOTE,		/* __be32: the outer source this
					 * device receives from
					 * (options:remote_ip); 0 (default)
					 * any ("remote_ip=flow").
					 */
	__OVSP_IPIP_ATTR_MAX
};
#define OVSP_IPIP_ATTR_MAX (__OVSP_IPIP_ATTR_MAX - 1)

/*
 * ethtool -S (ETHTOOL_GSSET_INFO/ETH_SS_STATS, ETHTOOL_GSTRINGS,
 * ETHTOOL_GSTATS): first the OVSP_IPIP_N_TOTALS device totals below, in
 * this order (each the sum over all CPUs), then for each possible CPU in
 * increasing CPU number one block of OVSP_IPIP_N_CPU_STATS counters named
 * "cpu<N>_<name>" (N decimal, no padding), e.g. "cpu1_queued".  The CPU
 * numbers are the names' only source: possible CPUs need not be
 * contiguous.  After those, for each possible CPU in increasing CPU
 * number, one block of OVSP_IPIP_N_CELL_STATS counters named
 * "cell<N>_<name>", e.g. "cell1_queued": the counters of CPU N's GRO
 * cell, whichever CPU fed it.  All are u64 counting from device creation.
 *
 * Per-CPU counters count what that CPU did:
 *   queued         packets this CPU put into a GRO cell (its own, or the
 *                  shared one with OVSP_IPIP_ATTR_SHARED_CELL);
 *   polled         packets this CPU's NAPI poll handed up after GRO (a
 *                  merged packet counts once), from its own cell or the
 *                  shared one;
 *   backlog_drops  packets dropped because the cell held
 *                  netdev_max_backlog packets already;
 *   down_drops     packets dropped because the device was not up (or
 *                  being deleted).
 *
 * The totals (name: meaning):
 */
#define OVSP_IPIP_TOTALS(X)						\
	/* The four per-CPU counters, summed. */			\
	X(QUEUED, "queued")						\
	X(POLLED, "polled")						\
	X(BACKLOG_DROPS, "backlog_drops")				\
	X(DOWN_DROPS, "down_drops")					\
	/* Inner packets decapsulated and handed on (cells or not). */	\
	X(RX_DECAP, "rx_decapsulated")					\
	/* With GRO off: packets passed to netif_rx() directly. */	\
	X(RX_GRO_BYPASSED, "rx_gro_bypassed")				\
	/* Inner packet not a whole IPv4 header and datagram: */	\
	/* short, version not 4, IHL < 5, total length past the data. */ \
	X(RX_DROP_BAD_INNER, "rx_drop_bad_inner")			\
	/* ECN: outer CE on an inner packet that is not ECT. */	\
	X(RX_DROP_ECN, "rx_drop_ecn")					\
	/* Refused by the xfrm inbound policy check. */		\
	X(RX_DROP_POLICY, "rx_drop_policy")				\
	/* No memory for the tunnel metadata or the pull. */		\
	X(RX_DROP_NOMEM, "rx_drop_nomem")				\
	/* Inner packets encapsulated and given to the IP layer. */	\
	X(TX_ENCAP, "tx_encapsulated")					\
	/* No IPv4 egress tunnel info, or no destination in it. */	\
	X(TX_DROP_NO_TUNNEL, "tx_drop_no_tunnel_info")			\
	/* Inner packet not a whole IPv4 header (ipip carries IPv4). */\
	X(TX_DROP_NOT_IPV4, "tx_drop_not_ipv4")			\
	/* No route to the outer destination (or it is ourselves). */	\
	X(TX_DROP_NO_ROUTE, "tx_drop_no_route")			\
	/* DF set and too big for the path MTU; ICMP sent back */	\
	/* (counted in icmp_frag_needed_sent). */			\
	X(TX_DROP_TOO_BIG, "tx_drop_too_big")				\
	/* No headroom memory, or GSO setup failed. */			\
	X(TX_DROP_NOMEM, "tx_drop_nomem")				\
	/* ICMP errors for our tunnels: PMTU updates and redirects. */	\
	X(ICMP_PMTU, "icmp_pmtu_updates")				\
	X(ICMP_REDIRECT, "icmp_redirects")				\
	/* ICMP "fragmentation needed" handed to the stack for the */	\
	/* senders of tx_drop_too_big packets. */			\
	X(ICMP_FRAG_NEEDED, "icmp_frag_needed_sent")

/* OVSP_IPIP_STAT_QUEUED... : the totals' indexes in ETHTOOL_GSTATS. */
#define OVSP_IPIP_ENUM_(ID, NAME) OVSP_IPIP_STAT_##ID,
enum ovsp_ipip_total {
	OVSP_IPIP_TOTALS(OVSP_IPIP_ENUM_)
	OVSP_IPIP_N_TOTALS
};
#undef OVSP_IPIP_ENUM_

/* The per-CPU block, in this order; names "cpu<N>_" followed by these. */
#define OVSP_IPIP_CPU_STATS(X)						\
	X(QUEUED, "queued")						\
	X(POLLED, "polled")						\
	X(BACKLOG_DROPS, "backlog_drops")				\
	X(DOWN_DROPS, "down_drops")

/* OVSP_IPIP_CPU_QUEUED... : indexes within one CPU's block. */
#define OVSP_IPIP_ENUM_(ID, NAME) OVSP_IPIP_CPU_##ID,
enum ovsp_ipip_cpu_stat {
	OVSP_IPIP_CPU_STATS(OVSP_IPIP_ENUM_)
	OVSP_IPIP_N_CPU_STATS
};
#undef OVSP_IPIP_ENUM_

/*
 * The per-cell block, in this order; names "cell<N>_" followed by these.
 * A cell counts what went into it, whichever CPU put it there: CPU N's
 * own packets, or with OVSP_IPIP_ATTR_SHARED_CELL every CPU's in the
 * first possible CPU's cell (and none in the others).
 *   queued  packets put into this cell.
 */
#define OVSP_IPIP_CELL_STATS(X)						\
	X(QUEUED, "queued")

/* OVSP_IPIP_CELL_QUEUED... : indexes within one cell's block. */
#define OVSP_IPIP_ENUM_(ID, NAME) OVSP_IPIP_CELL_##ID,
enum ovsp_ipip_cell_stat {
	OVSP_IPIP_CELL_STATS(OVSP_IPIP_ENUM_)
	OVSP_IPIP_N_CELL_STATS
};
#undef OVSP_IPIP_ENUM_

#endif /* ovsp-ipip-uapi.h */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ABI of the module's own generic-netlink family, "ovsp_percpu": the
 * per-CPU breakdown of one flow's statistics, and the per-CPU counters of
 * ct() and of zone limits.  Shared by the module and by userspace
 * (lib/dpif/kdp-flow-stats.c), so it uses only uapi types.
 *
 * OVSP_PCPU_CMD_CT_STATS_GET: a struct ovs_header (dp_ifindex ignored:
 * conntrack is per network namespace, and so are these counters).  The
 * reply carries N_CPUS and one nested OVSP_PCPU_ATTR_CT_SLOT per possible
 * CPU, with the CPU number and its counters of the requester's namespace.
 *
 * OVSP_PCPU_CMD_FLOW_GET: a struct ovs_header (dp_ifindex) then
 * OVSP_PCPU_ATTR_UFID.  The reply carries N_CPUS, ONE_SLOT if the ablation
 * switch is on, ALLOC_FAILURES, and one nested OVSP_PCPU_ATTR_SLOT per
 * CPU that has a slot, with the CPU number and that slot's counters.
 * -ENODEV: no such datapath; -ENOENT: no flow with that UFID.
 *
 * OVSP_PCPU_CMD_CT_LIMIT_GET: a struct ovs_header (ignored: zone limits
 * are the network namespace's).  The reply carries N_CPUS and one nested
 * OVSP_PCPU_ATTR_SLOT per possible CPU, with the CPU number and that
 * CPU's counts of commits refused by a zone limit (CT_REFUSED) and of
 * commits nf_conncount could not count, hence admitted (CT_UNCOUNTED).
 */
#ifndef OVSP_GENL_H
#define OVSP_GENL_H 1

#define OVSP_PCPU_FAMILY "ovsp_percpu"
#define OVSP_PCPU_VERSION 1

enum ovsp_pcpu_cmd {
	OVSP_PCPU_CMD_UNSPEC,
	OVSP_PCPU_CMD_FLOW_GET,		/* One flow's per-CPU slots. */
	OVSP_PCPU_CMD_CT_STATS_GET,	/* ct()'s per-CPU counters. */
	OVSP_PCPU_CMD_CT_LIMIT_GET,	/* Zone limits' per-CPU counters. */
	__OVSP_PCPU_CMD_MAX
};

enum ovsp_pcpu_attr {
	OVSP_PCPU_ATTR_UNSPEC,
	OVSP_PCPU_ATTR_UFID,		/* The flow's UFID (1-16 bytes). */
	OVSP_PCPU_ATTR_N_CPUS,		/* u32: nr_cpu_ids. */
	OVSP_PCPU_ATTR_ONE_SLOT,	/* Flag: ablation switch on. */
	OVSP_PCPU_ATTR_ALLOC_FAILURES,	/* u64: slot allocations failed. */
	OVSP_PCPU_ATTR_SLOT,		/* Nested OVSP_PCPU_SLOT_ATTR_*. */
	OVSP_PCPU_ATTR_PAD,
	OVSP_PCPU_ATTR_CT_SLOT,		/* Nested OVSP_PCPU_CT_ATTR_*. */
	__OVSP_PCPU_ATTR_MAX
};
#define OVSP_PCPU_ATTR_MAX (__OVSP_PCPU_ATTR_MAX - 1)

enum ovsp_pcpu_slot_attr {
	OVSP_PCPU_SLOT_ATTR_UNSPEC,
	OVSP_PCPU_SLOT_ATTR_CPU,	/* u32: the CPU owning the slot. */
	OVSP_PCPU_SLOT_ATTR_PACKETS,	/* u64. */
	OVSP_PCPU_SLOT_ATTR_BYTES,	/* u64. */
	OVSP_PCPU_SLOT_ATTR_USED,	/* u64: monotonic ms, 0 if never. */
	OVSP_PCPU_SLOT_ATTR_TCP_FLAGS,	/* u16. */
	OVSP_PCPU_SLOT_ATTR_PAD,
	OVSP_PCPU_SLOT_ATTR_CT_REFUSED,	/* u64: commits refused. */
	OVSP_PCPU_SLOT_ATTR_CT_UNCOUNTED,	/* u64: commits not counted. */
	__OVSP_PCPU_SLOT_ATTR_MAX
};
#define OVSP_PCPU_SLOT_ATTR_MAX (__OVSP_PCPU_SLOT_ATTR_MAX - 1)

/* One CPU's ct() counters: each a u64 count of ct() executions (a packet
 * that passes two ct() actions counts twice).
 */
enum ovsp_pcpu_ct_attr {
	OVSP_PCPU_CT_ATTR_UNSPEC,
	OVSP_PCPU_CT_ATTR_CPU,		/* u32: the CPU. */
	OVSP_PCPU_CT_ATTR_NEW,		/* Verdict +new (not +est or +rel). */
	OVSP_PCPU_CT_ATTR_ESTABLISHED,	/* Verdict +est. */
	OVSP_PCPU_CT_ATTR_RELATED,	/* Verdict +rel. */
	OVSP_PCPU_CT_ATTR_INVALID,	/* Verdict +inv. */
	OVSP_PCPU_CT_ATTR_REFUSED,	/* nf_conntrack_in() dropped it. */
	OVSP_PCPU_CT_ATTR_COMMIT_FAILED, /* A commit failed: dropped. */
	OVSP_PCPU_CT_ATTR_PAD,
	OVSP_PCPU_CT_ATTR_NAT_FAILED,	/* NAT could not be done: nf_nat
					 * refused the packet (dropped), or
					 * no memory for the connection's
					 * NAT extension (passed as is).
					 */
	OVSP_PCPU_CT_ATTR_FRAG_QUEUED,	/* An IP fragment kept for
					 * reassembly (counted instead of a
					 * verdict).
					 */
	OVSP_PCPU_CT_ATTR_REASSEMBLED,	/* A datagram reassembled (then
					 * counted by its verdict).
					 */
	OVSP_PCPU_CT_ATTR_FRAG_DROPPED,	/* The reassembly refused an IP
					 * fragment: dropped.
					 */
	OVSP_PCPU_CT_ATTR_REFRAG_DROPPED, /* Output could not cut a
					   * reassembled datagram to its
					   * MRU: dropped.
					   */
	__OVSP_PCPU_CT_ATTR_MAX
};
#define OVSP_PCPU_CT_ATTR_MAX (__OVSP_PCPU_CT_ATTR_MAX - 1)

#endif

#! /usr/bin/python3
# Copyright (c) 2026 ovs-percpu authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at:
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Crafted requests to the OVS families, and what the module must answer.

Usage: kernel-netlink-check.py CHECK [ARG]...

Each CHECK creates a datapath of its own in the current network namespace
(run it in a new user and network namespace to be an unprivileged user:
tests/percpu-kernel-hostile.at does), sends requests that ovs-vswitchd
would not send but any user could, and prints one line per result, so
that the test compares them with what Linux's openvswitch.ko answers:

  nested        EXECUTE and flows whose nested action lists (clone, sample,
                check_pkt_len) are 16 deep, with recirculations between
                flows: the upcalls that arrive, and the module still
                answering.
  egress-tun DEV
                userspace(tunnel_out_port) after set(tunnel(...)) with
                Geneve options of 0 to 252 bytes, DEV a collect_md geneve
                device: the options of every upcall's
                OVS_PACKET_ATTR_EGRESS_TUN_KEY against those set.
  flow-ids      NEW, SET, GET and DEL that name a flow by UFID or by key,
                against flows with and without UFIDs and with wildcards.
  port-limits   port numbers at and past the last one, and upcall PID
                arrays as long as their attribute allows.
  trunc         trunc() followed by actions that change the length, and
                an upcall: the length that reaches userspace.
  vport-dump    one vport dump of a datapath with one port.
  meters        the ovs_meter family: FEATURES, SET, GET and DEL round
                trips, the statistics of packets executed through meters,
                and the requests refused, with Linux's errnos.
  ct-nat        flows whose ct() carries a NAT nest (OVS_CT_ATTR_NAT),
                valid and malformed, for IPv4 and IPv6 flows: Linux's
                errno for each, and the actions of each flow accepted
                read back as they were given.
  flow-keys     keys without an attribute their protocols call for (TCP
                without tcp_flags, IPv4 without ipv4, a neighbour
                solicitation without nd...) and masks of what their key
                does not have, with their accepted neighbours: Linux's
                errno for each (match_validate()).
  ct-limits     the ovs_ct_limit family: SET, GET and DEL of the default
                and of zones, GET of every zone and of listed ones, zone
                ids out of range, entries cut short, the reply's bound,
                and the requests refused, with Linux's errnos.  Needs no
                datapath: zone limits are the network namespace's.
  ct-limit-counters
                the namespace's per-CPU counters of zone limits, through
                our ovsp_percpu family: the number of CPUs and of slots,
                and the commits refused and not counted, summed.
  ct-limits-get-only
                GET, SET and DEL by a user without CAP_NET_ADMIN (run it
                as uid 65534 in the initial namespaces): GET answers, SET
                and DEL are refused.

Only the standard library is used.  Exit status: 0 when every request got
an answer (the lines printed say which), 1 otherwise.
"""

import os
import select
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ovs_netlink import *  # noqa: E402,F403


def frame(payload=bytes(46)):
    """A broadcast Ethernet frame of a local experimental Ethertype."""
    return b"\xff" * 6 + b"\x02\0\0\0\0\1" + be16(0x88b5) + payload


def exec_key(in_port=OVSP_LOCAL):
    """The EXECUTE key of frame()."""
    return [attr(K_IN_PORT, u32(in_port)),
            attr(K_ETHERNET, b"\x02\0\0\0\0\1" + b"\xff" * 6),
            attr(K_ETHERTYPE, be16(0x88b5))]


def flow_key(recirc_id=0, dst=b"\xff" * 6, src=b"\x02\0\0\0\0\1"):
    """A flow key for frame() after 'recirc_id' recirculations."""
    return [attr(K_RECIRC_ID, u32(recirc_id)),
            attr(K_IN_PORT, u32(OVSP_LOCAL)),
            attr(K_ETHERNET, src + dst),
            attr(K_ETHERTYPE, be16(0x88b5))]


def flow_mask(ethernet=b"\0" * 12):
    """A mask that matches recirc_id, in_port and the Ethertype exactly,
    and of the Ethernet addresses the bits of 'ethernet'."""
    return [attr(K_RECIRC_ID, u32(0xffffffff)),
            attr(K_IN_PORT, u32(0xffffffff)),
            attr(K_ETHERNET, ethernet),
            attr(K_ETHERTYPE, be16(0xffff))]


def userspace(pid, userdata=None, egress_port=None):
    u = [attr(U_PID, u32(pid))]
    if userdata is not None:
        u.append(attr(U_USERDATA, userdata))
    if egress_port is not None:
        u.append(attr(U_EGRESS_TUN_PORT, u32(egress_port)))
    return attr(A_USERSPACE, u)


def nest(kind, inner, depth):
    """'inner' (a list of actions) inside 'depth' lists of 'kind', each
    the only action of its list."""
    for _ in range(depth):
        if kind == "clone":
            inner = [attr(A_CLONE, inner)]
        elif kind == "sample":
            inner = [attr(A_SAMPLE, [attr(S_PROBABILITY, u32(0xffffffff)),
                                     attr(S_ACTIONS, inner)])]
        else:
            # Every frame is longer than 1 byte: the greater branch.
            inner = [attr(A_CHECK_PKT_LEN,
                          [attr(C_PKT_LEN, u16(1)),
                           attr(C_GREATER, inner),
                           attr(C_LESS_EQUAL, [])])]
    return inner


class Datapath:
    """A datapath of this namespace, with a request socket and an upcall
    socket."""

    def __init__(self, name):
        self.nl = Netlink()
        self.up = Netlink()
        self.name = name
        self.nl.ovs(DP_FAMILY, DP_VERSION, OVS_DP_CMD_DEL, 0,
                    [attr(OVS_DP_ATTR_NAME, name.encode() + b"\0")])
        err, replies, ifindexes = self.nl.ovs(
            DP_FAMILY, DP_VERSION, OVS_DP_CMD_NEW, 0,
            [attr(OVS_DP_ATTR_NAME, name.encode() + b"\0"),
             attr(OVS_DP_ATTR_UPCALL_PID, u32(self.up.pid)),
             attr(OVS_DP_ATTR_USER_FEATURES, u32(OVS_DP_F_UNALIGNED))],
            NLM_F_ACK | NLM_F_ECHO)
        if err:
            sys.exit("cannot create datapath %s: errno %d" % (name, err))
        self.ifindex = ifindexes[0]

    def delete(self):
        self.nl.ovs(DP_FAMILY, DP_VERSION, OVS_DP_CMD_DEL, self.ifindex, [])

    def flow(self, cmd, attrs, flags=NLM_F_ACK):
        err, replies, _ = self.nl.ovs(FLOW_FAMILY, FLOW_VERSION, cmd,
                                      self.ifindex, attrs, flags)
        return err, replies

    def vport(self, cmd, attrs, flags=NLM_F_ACK):
        err, replies, _ = self.nl.ovs(VPORT_FAMILY, VPORT_VERSION, cmd,
                                      self.ifindex, attrs, flags)
        return err, replies

    def execute(self, actions, packet=None, key=None):
        err, _, _ = self.nl.ovs(
            PACKET_FAMILY, PACKET_VERSION, OVS_PACKET_CMD_EXECUTE,
            self.ifindex,
            [attr(OVS_PACKET_ATTR_PACKET, packet or frame()),
             attr(OVS_PACKET_ATTR_KEY, key or exec_key()),
             attr(OVS_PACKET_ATTR_ACTIONS, actions)])
        return err

    def upcalls(self, wait=1.0):
        """Every upcall that arrives within 'wait' seconds of the last."""
        out = []
        while select.select([self.up.sock], [], [], wait)[0]:
            out += parse_upcall(self.up.sock.recv(1 << 20))
        return out

    def meter(self, cmd, attrs, ifindex=None):
        """An ovs_meter request: (errno, its reply's attributes or
        None)."""
        err, replies, _ = self.nl.ovs(
            METER_FAMILY, METER_VERSION, cmd,
            self.ifindex if ifindex is None else ifindex, attrs)
        return err, (replies[0] if replies else None)

    def alive(self):
        err, _, _ = self.nl.ovs(DP_FAMILY, DP_VERSION, OVS_DP_CMD_GET,
                                self.ifindex, [])
        return err == 0


def errname(err):
    return "ok" if not err else os.strerror(err)


def check_nested(dp):
    """Nesting 16 deep runs to its end or is dropped, never overflows."""
    pid = dp.up.pid
    for kind in ("clone", "sample", "check_pkt_len"):
        err = dp.execute(nest(kind, [userspace(pid, b"deep")], 16))
        ups = dp.upcalls()
        got = [u for u in ups if u[1].get(OVS_PACKET_ATTR_USERDATA) ==
               b"deep"]
        print("%s 16 deep, last: execute %s, upcalls %d"
              % (kind, errname(err), len(got)))
        # Not last: an output to the local port after it.
        err = dp.execute(nest(kind, [userspace(pid, b"deep")], 16)
                         + [attr(A_OUTPUT, u32(OVSP_LOCAL))])
        got = [u for u in dp.upcalls() if
               u[1].get(OVS_PACKET_ATTR_USERDATA) == b"deep"]
        print("%s 16 deep, then output: execute %s, upcalls %d"
              % (kind, errname(err), len(got)))

    # Recirculation between flows, each a 16-deep chain of clones: the
    # packet goes through recirc_ids 1, 2 and 3 and reaches 4, whose flow
    # sends it up, or a full deferred-action FIFO drops it (as Linux's).
    for depth in (2, 16):
        dp.flow(OVS_FLOW_CMD_DEL, [])
        for rid in (1, 2, 3):
            err, _ = dp.flow(OVS_FLOW_CMD_NEW, [
                attr(OVS_FLOW_ATTR_KEY, flow_key(rid)),
                attr(OVS_FLOW_ATTR_MASK, flow_mask()),
                attr(OVS_FLOW_ATTR_ACTIONS,
                     nest("clone", [attr(A_RECIRC, u32(rid + 1))], depth))])
            if err:
                print("flow for recirc_id %d: %s" % (rid, errname(err)))
        dp.flow(OVS_FLOW_CMD_NEW, [
            attr(OVS_FLOW_ATTR_KEY, flow_key(4)),
            attr(OVS_FLOW_ATTR_MASK, flow_mask()),
            attr(OVS_FLOW_ATTR_ACTIONS, [userspace(pid, b"recirc4")])])
        for _ in range(3):
            err = dp.execute(nest("clone", [attr(A_RECIRC, u32(1))], depth))
        got = [u for u in dp.upcalls() if
               u[1].get(OVS_PACKET_ATTR_USERDATA) == b"recirc4"]
        print("recirculations over %d-deep clones: execute %s, "
              "upcalls from recirc_id 4: %d of 3"
              % (depth, errname(err), len(got)))
    print("datapath answers: %s" % dp.alive())


def geneve_options(length):
    """Geneve options of 'length' bytes (a multiple of 4, at most 252):
    options of at most 124 data bytes, each byte its offset."""
    out = b""
    while len(out) < length:
        data = min(length - len(out) - 4, 124)
        body = bytes((len(out) + 4 + i) & 0xff for i in range(data))
        out += be16(0x0102) + u8(len(out) // 4) + u8(data // 4) + body
    return out


def check_egress_tun(dp, devname):
    """The egress tunnel key of an upcall carries the options set, and
    nothing else."""
    err, replies = dp.vport(OVS_VPORT_CMD_NEW, [
        attr(OVS_VPORT_ATTR_NAME, devname.encode() + b"\0"),
        attr(OVS_VPORT_ATTR_TYPE, u32(OVS_VPORT_TYPE_NETDEV)),
        attr(OVS_VPORT_ATTR_UPCALL_PID, u32(dp.up.pid))],
        NLM_F_ACK | NLM_F_ECHO)
    if err:
        sys.exit("cannot add %s: %s" % (devname, errname(err)))
    port = get_u32(replies[0][OVS_VPORT_ATTR_PORT_NO])
    for length in (0, 4, 64, 128, 252):
        opts = geneve_options(length)
        tunnel = [attr(T_ID, be64(5)), attr(T_IPV4_SRC, be32(0x0a090001)),
                  attr(T_IPV4_DST, be32(0x0a090002)), attr(T_TTL, u8(64))]
        if opts:
            tunnel.append(attr(T_GENEVE_OPTS, opts))
        err = dp.execute([attr(A_SET, [attr(K_TUNNEL, tunnel)]),
                          userspace(dp.up.pid, b"egress", port)])
        ups = [u for u in dp.upcalls() if
               u[1].get(OVS_PACKET_ATTR_USERDATA) == b"egress"]
        keys = [decode_list(u[1][OVS_PACKET_ATTR_EGRESS_TUN_KEY]) for u in ups
                if OVS_PACKET_ATTR_EGRESS_TUN_KEY in u[1]]
        got = [b"".join(v for t, v in k if t == T_GENEVE_OPTS)
               for k in keys]
        print("geneve options of %d bytes: execute %s, upcalls %d, "
              "egress keys %d, options as set: %s"
              % (length, errname(err), len(ups), len(keys),
                 bool(got) and all(g == opts for g in got)))
    # Past the port numbers: refused when the actions are validated.
    for bad in (0xffff, 0x10000, 0x10000 + port):
        err = dp.execute([userspace(dp.up.pid, b"egress", bad)])
        print("tunnel_out_port %d: %s" % (bad, errname(err)))


def ufid(n):
    return attr(OVS_FLOW_ATTR_UFID, struct.pack("=IIII", n, 0, 0, 0))


def output(port):
    return [attr(A_OUTPUT, u32(port))]


def actions_of(dp, attrs):
    """The actions GET returns for the flow 'attrs' name, or the errno."""
    err, replies = dp.flow(OVS_FLOW_CMD_GET, attrs)
    if err:
        return errname(err)
    acts = decode_list(replies[0].get(OVS_FLOW_ATTR_ACTIONS, b""))
    return ",".join("%d:%d" % (t, get_u32(v)) for t, v in acts)


def check_flow_ids(dp):
    """Flows are named by UFID, or by the key they were put with."""
    k1, k2 = flow_key(0, b"\xff" * 6), flow_key(0, b"\x02\0\0\0\0\2")
    mask = flow_mask(b"\0" * 6 + b"\xff" * 6)
    new = OVS_FLOW_CMD_NEW

    err, _ = dp.flow(new, [ufid(1), attr(OVS_FLOW_ATTR_KEY, k1),
                           attr(OVS_FLOW_ATTR_MASK, mask),
                           attr(OVS_FLOW_ATTR_ACTIONS, output(1))])
    print("NEW ufid 1, key 1: %s" % errname(err))
    err, _ = dp.flow(new, [ufid(1), attr(OVS_FLOW_ATTR_KEY, k2),
                           attr(OVS_FLOW_ATTR_MASK, mask),
                           attr(OVS_FLOW_ATTR_ACTIONS, output(2))])
    print("NEW ufid 1, key 2: %s" % errname(err))
    err, _ = dp.flow(new, [ufid(1), attr(OVS_FLOW_ATTR_KEY, k2),
                           attr(OVS_FLOW_ATTR_MASK, mask),
                           attr(OVS_FLOW_ATTR_ACTIONS, output(2))],
                     NLM_F_ACK | NLM_F_CREATE)
    print("NEW ufid 1, key 2, create: %s" % errname(err))
    err, _ = dp.flow(OVS_FLOW_CMD_SET, [
        ufid(1), attr(OVS_FLOW_ATTR_KEY, k2), attr(OVS_FLOW_ATTR_MASK, mask),
        attr(OVS_FLOW_ATTR_ACTIONS, output(2))])
    print("SET ufid 1, key 2: %s" % errname(err))
    print("ufid 1 actions: %s" % actions_of(dp, [ufid(1)]))
    # NEW names a flow with a UFID by its masked key, as the kernel's
    # ovs_flow_cmp() (the source address, wildcarded, is not 0 in key 1).
    err, _ = dp.flow(new, [ufid(1), attr(OVS_FLOW_ATTR_KEY, k1),
                           attr(OVS_FLOW_ATTR_MASK, mask),
                           attr(OVS_FLOW_ATTR_ACTIONS, output(3))])
    print("NEW ufid 1, key 1 again: %s" % errname(err))
    err, _ = dp.flow(new, [ufid(1),
                           attr(OVS_FLOW_ATTR_KEY,
                                flow_key(0, b"\xff" * 6, bytes(6))),
                           attr(OVS_FLOW_ATTR_MASK, mask),
                           attr(OVS_FLOW_ATTR_ACTIONS, output(3))])
    print("NEW ufid 1, key 1 masked: %s" % errname(err))
    print("ufid 1 actions: %s" % actions_of(dp, [ufid(1)]))
    err, _ = dp.flow(OVS_FLOW_CMD_SET, [ufid(1),
                                        attr(OVS_FLOW_ATTR_CLEAR, b"")])
    print("SET ufid 1 alone, clear: %s" % errname(err))
    err, _ = dp.flow(OVS_FLOW_CMD_SET, [ufid(1),
                                        attr(OVS_FLOW_ATTR_ACTIONS,
                                             output(4))])
    print("SET ufid 1 with actions but no key: %s" % errname(err))

    # A flow without a UFID that wildcards the destination: named by the
    # key it was put with, never by a key it merely matches.
    wide = flow_key(7, b"\xff" * 6)
    wide_mask = flow_mask(b"\0" * 12)
    err, _ = dp.flow(new, [attr(OVS_FLOW_ATTR_KEY, wide),
                           attr(OVS_FLOW_ATTR_MASK, wide_mask),
                           attr(OVS_FLOW_ATTR_ACTIONS, output(5))])
    print("NEW key 7 wildcarded: %s" % errname(err))
    narrow = flow_key(7, b"\x02\0\0\0\0\2")
    # A flow that the key 7 flow would overlap: refused, as the kernel's.
    for flags, name in ((NLM_F_ACK | NLM_F_CREATE, "create"),
                        (NLM_F_ACK, "no create")):
        err, _ = dp.flow(new, [ufid(2), attr(OVS_FLOW_ATTR_KEY, narrow),
                               attr(OVS_FLOW_ATTR_ACTIONS, output(6))],
                         flags)
        print("NEW ufid 2 with a key the key 7 flow matches, %s: %s"
              % (name, errname(err)))
    for name, cmd, extra in (
            ("GET", OVS_FLOW_CMD_GET, []),
            ("SET", OVS_FLOW_CMD_SET,
             [attr(OVS_FLOW_ATTR_ACTIONS, output(6))]),
            ("DEL", OVS_FLOW_CMD_DEL, [])):
        err, _ = dp.flow(cmd, [attr(OVS_FLOW_ATTR_KEY, narrow)] + extra)
        print("%s by a key the flow matches: %s" % (name, errname(err)))
    print("key 7 actions: %s"
          % actions_of(dp, [attr(OVS_FLOW_ATTR_KEY, wide)]))
    err, _ = dp.flow(OVS_FLOW_CMD_SET, [
        attr(OVS_FLOW_ATTR_KEY, wide), attr(OVS_FLOW_ATTR_MASK, wide_mask),
        attr(OVS_FLOW_ATTR_ACTIONS, output(6))])
    print("SET by the key it was put with: %s" % errname(err))
    err, _ = dp.flow(OVS_FLOW_CMD_DEL, [attr(OVS_FLOW_ATTR_KEY, wide)])
    print("DEL by the key it was put with: %s" % errname(err))
    err, replies = dp.flow(OVS_FLOW_CMD_GET, [], NLM_F_DUMP)
    print("flows left: %d" % len(replies))


def check_port_limits(dp):
    """Port 65535 means none: no vport takes it, no action names it.
    Port 0 asks for the lowest free number, as with Linux."""
    for port_no in (65534, 65535, 65536, 0):
        name = "p%d" % port_no
        err, replies = dp.vport(OVS_VPORT_CMD_NEW, [
            attr(OVS_VPORT_ATTR_NAME, name.encode() + b"\0"),
            attr(OVS_VPORT_ATTR_TYPE, u32(OVS_VPORT_TYPE_INTERNAL)),
            attr(OVS_VPORT_ATTR_PORT_NO, u32(port_no)),
            attr(OVS_VPORT_ATTR_UPCALL_PID, u32(dp.up.pid))],
            NLM_F_ACK | NLM_F_ECHO)
        given = ""
        if replies and OVS_VPORT_ATTR_PORT_NO in replies[0]:
            given = ", given %d" % get_u32(replies[0][OVS_VPORT_ATTR_PORT_NO])
        print("vport number %d: %s%s" % (port_no, errname(err), given))
    for port_no in (65534, 65535, 65536):
        err = dp.execute(output(port_no))
        print("output to %d: %s" % (port_no, errname(err)))
    # Upcall PID arrays as long as their attribute allows: a host may have
    # more CPU ids than any smaller cap.
    for n in (5000, 16382):
        err, _, _ = dp.nl.ovs(
            DP_FAMILY, DP_VERSION, OVS_DP_CMD_SET, dp.ifindex,
            [attr(OVS_DP_ATTR_USER_FEATURES,
                  u32(OVS_DP_F_UNALIGNED | OVS_DP_F_DISPATCH_UPCALL_PER_CPU)),
             attr(OVS_DP_ATTR_PER_CPU_PIDS, u32(dp.up.pid) * n)])
        print("per-CPU PIDs, %d of them: %s" % (n, errname(err)))
        err, _ = dp.vport(OVS_VPORT_CMD_NEW, [
            attr(OVS_VPORT_ATTR_NAME, b"pids%d\0" % n),
            attr(OVS_VPORT_ATTR_TYPE, u32(OVS_VPORT_TYPE_INTERNAL)),
            attr(OVS_VPORT_ATTR_UPCALL_PID, u32(dp.up.pid) * n)])
        print("vport PIDs, %d of them: %s" % (n, errname(err)))
    dp.nl.ovs(DP_FAMILY, DP_VERSION, OVS_DP_CMD_SET, dp.ifindex,
              [attr(OVS_DP_ATTR_USER_FEATURES, u32(OVS_DP_F_UNALIGNED))])
    # EXECUTE without IN_PORT enters on the local port, never on 65535.
    err = dp.execute([userspace(dp.up.pid, b"noport")],
                     key=exec_key()[1:])
    got = [u for u in dp.upcalls() if
           u[1].get(OVS_PACKET_ATTR_USERDATA) == b"noport"]
    ports = [get_u32(v) for u in got
             for t, v in decode_list(u[1][OVS_PACKET_ATTR_KEY])
             if t == K_IN_PORT]
    print("execute without in_port: %s, upcalls %d, in_port %s"
          % (errname(err), len(got), ports or "none"))


def check_trunc(dp):
    """trunc() cuts at the upcall to its max_len, whatever the actions
    between did to the length, and never below the Ethernet header."""
    pid = dp.up.pid
    cases = (("trunc(60)", [attr(A_TRUNC, u32(60))]),
             ("trunc(60),push_vlan", [attr(A_TRUNC, u32(60)),
                                      attr(A_PUSH_VLAN, be16(0x8100) +
                                           be16(0x1000 | 5))]),
             ("trunc(60),pop_eth,push_eth",
              [attr(A_TRUNC, u32(60)), attr(A_POP_ETH, b""),
               attr(A_PUSH_ETH, b"\x02\0\0\0\0\3" + b"\x02\0\0\0\0\4")]),
             ("trunc(14)", [attr(A_TRUNC, u32(14))]),
             ("trunc(13)", [attr(A_TRUNC, u32(13))]))
    for name, acts in cases:
        err = dp.execute(acts + [userspace(pid, b"trunc")],
                         packet=frame(bytes(86)))
        got = [u for u in dp.upcalls() if
               u[1].get(OVS_PACKET_ATTR_USERDATA) == b"trunc"]
        lens = ["%d of %s" % (len(u[1][OVS_PACKET_ATTR_PACKET]),
                              get_u32(u[1][OVS_PACKET_ATTR_LEN])
                              if OVS_PACKET_ATTR_LEN in u[1] else "-")
                for u in got]
        print("%s on 100 bytes: execute %s, upcall %s"
              % (name, errname(err), ", ".join(lens) or "none"))


def check_vport_dump(dp):
    """One vport dump of a datapath with one port (the kernel's side of
    its cost is the test's to count)."""
    err, replies = dp.vport(OVS_VPORT_CMD_GET, [], NLM_F_DUMP)
    print("vport dump: %s, %d ports" % (errname(err), len(replies)))


def flow_stats(b):
    """'packets/bytes' of a struct ovs_flow_stats."""
    return "%d/%d" % struct.unpack("=QQ", b[:16])


def meter_reply(r):
    """What a meter reply holds, in words."""
    if r is None:
        return "no reply"
    out = []
    if OVS_METER_ATTR_ID in r:
        out.append("id %d" % get_u32(r[OVS_METER_ATTR_ID]))
    if OVS_METER_ATTR_STATS in r:
        out.append("stats %s" % flow_stats(r[OVS_METER_ATTR_STATS]))
    if OVS_METER_ATTR_USED in r:
        out.append("used")
    if OVS_METER_ATTR_BANDS in r:
        bands = [decode(b) for _, b in decode_list(r[OVS_METER_ATTR_BANDS])]
        out.append("bands [%s]" % ", ".join(
            flow_stats(b[OVS_BAND_ATTR_STATS]) if OVS_BAND_ATTR_STATS in b
            else "-" for b in bands))
    return ", ".join(out) or "empty"


def meter_counts(r):
    """(packets, band packets) of a GET reply."""
    total, bands = meter_stats(r)
    return total[0], [b[0] for b in bands]


def through_meter(dp, meter_id, n, packet=None):
    """Executes 'n' frames ('packet', or frame()'s) through meter
    'meter_id', each then sent to userspace; returns (how many reached
    userspace, the seconds the executes took)."""
    tag = b"m%d" % meter_id
    start = time.monotonic()
    for _ in range(n):
        dp.execute([attr(A_METER, u32(meter_id)),
                    userspace(dp.up.pid, tag)], packet=packet)
    elapsed = time.monotonic() - start
    passed = len([u for u in dp.upcalls()
                  if u[1].get(OVS_PACKET_ATTR_USERDATA) == tag])
    return passed, elapsed


def check_meters(dp):
    """The ovs_meter family and the meter action, as openvswitch.ko
    answers them.  Counts of packets that depend on how fast the guest
    runs are checked against the bound the time taken gives."""

    err, r = dp.meter(OVS_METER_CMD_FEATURES, [], ifindex=0)
    print("FEATURES of no datapath: %s" % errname(err))
    err, r = dp.meter(OVS_METER_CMD_FEATURES, [])
    max_meters = get_u32(r[OVS_METER_ATTR_MAX_METERS])
    types = [get_u32(decode(b)[OVS_BAND_ATTR_TYPE])
             for _, b in decode_list(r[OVS_METER_ATTR_BANDS])]
    print("FEATURES: %s, attributes %s, max meters from 1 to 200000: %s, "
          "max bands %d, band types %s"
          % (errname(err), sorted(r), 1 <= max_meters <= 200000,
             get_u32(r[OVS_METER_ATTR_MAX_BANDS]), types))

    # Round trips.
    err, r = dp.meter(OVS_METER_CMD_SET, meter_set(1, [meter_band(1, 3)]))
    print("SET 1 (1 packet/s, burst 3): %s, %s" % (errname(err),
                                                    meter_reply(r)))
    err, r = dp.meter(OVS_METER_CMD_GET, [attr(OVS_METER_ATTR_ID, u32(1))])
    print("GET 1: %s, %s" % (errname(err), meter_reply(r)))

    # 10 packets through meter 1: the burst (3) passes, then one a second.
    # (The meter decides within each EXECUTE: the time they take bounds
    # what the rate adds to the burst.)
    passed, elapsed = through_meter(dp, 1, 10)
    print("10 packets through meter 1: at least the burst passed: %s, "
          "no more than the burst and the rate allow: %s"
          % (passed >= 3, passed <= 3 + int(elapsed) + 1))
    err, r = dp.meter(OVS_METER_CMD_GET, [attr(OVS_METER_ATTR_ID, u32(1))])
    packets, bands = meter_counts(r)
    print("GET 1: %s, packets %d, the band counted the dropped: %s"
          % (errname(err), packets, bands == [10 - passed]))

    # Replaced: the reply has the old meter's statistics; the new one
    # starts from zero.
    err, r = dp.meter(OVS_METER_CMD_SET, meter_set(1, [meter_band(2, 3)]))
    print("SET 1 again: %s, %s" % (errname(err), meter_reply(r).replace(
        "[%d/%d]" % (10 - passed, (10 - passed) * 60), "[the dropped]")))
    err, r = dp.meter(OVS_METER_CMD_GET, [attr(OVS_METER_ATTR_ID, u32(1))])
    print("GET 1: %s, %s" % (errname(err), meter_reply(r)))

    # CLEAR: the meter keeps no statistics for its replacement's reply.
    err, r = dp.meter(OVS_METER_CMD_SET, meter_set(
        2, [meter_band(5, 5)], extra=[attr(OVS_METER_ATTR_CLEAR, b"")]))
    print("SET 2 with CLEAR: %s, %s" % (errname(err), meter_reply(r)))
    err, r = dp.meter(OVS_METER_CMD_SET, meter_set(2, [meter_band(5, 5)]))
    print("SET 2 again: %s, %s" % (errname(err), meter_reply(r)))

    # Starting statistics.
    err, r = dp.meter(OVS_METER_CMD_SET, meter_set(
        3, [meter_band(5, 5)],
        extra=[attr(OVS_METER_ATTR_STATS, struct.pack("=QQ", 7, 700))]))
    err, r = dp.meter(OVS_METER_CMD_GET, [attr(OVS_METER_ATTR_ID, u32(3))])
    print("SET 3 with stats 7/700, GET 3: %s, %s"
          % (errname(err), meter_reply(r)))

    # No bands: counts, never drops.
    err, r = dp.meter(OVS_METER_CMD_SET, meter_set(4, []))
    print("SET 4 with no bands: %s, %s" % (errname(err), meter_reply(r)))
    passed, _ = through_meter(dp, 4, 3)
    err, r = dp.meter(OVS_METER_CMD_GET, [attr(OVS_METER_ATTR_ID, u32(4))])
    print("3 packets through meter 4: %d passed; GET 4: %s, %s"
          % (passed, errname(err), meter_reply(r)))

    # kbps: a bucket of 1000 bits takes two 480-bit frames, and never a
    # frame bigger than itself.
    err, r = dp.meter(OVS_METER_CMD_SET,
                      meter_set(5, [meter_band(1, 1)], kbps=True))
    passed, elapsed = through_meter(dp, 5, 4)
    print("SET 5 (1 kbps, burst 1 kbit): %s; 4 frames of 480 bits: two "
          "passed, and no more than the rate allows: %s"
          % (errname(err), 2 <= passed <= 2 + int(elapsed * 1000 / 480)))
    err, r = dp.meter(OVS_METER_CMD_SET,
                      meter_set(5, [meter_band(1, 1)], kbps=True))
    passed, _ = through_meter(dp, 5, 1, packet=frame(bytes(186)))
    print("a frame of 1600 bits through a full 1000-bit bucket: %d passed"
          % passed)

    # A band type other than drop counts, and drops nothing; a meter
    # that does not exist lets packets through.
    err, r = dp.meter(OVS_METER_CMD_SET,
                      meter_set(6, [meter_band(1, 1, btype=7)]))
    passed, _ = through_meter(dp, 6, 3)
    _, r = dp.meter(OVS_METER_CMD_GET, [attr(OVS_METER_ATTR_ID, u32(6))])
    packets, bands = meter_counts(r)
    print("SET 6 with band type 7: %s; 3 packets: %d passed, %d counted, "
          "the band counted some: %s"
          % (errname(err), passed, packets, 1 <= bands[0] <= 2))
    passed, _ = through_meter(dp, 99, 1)
    print("meter 99, which does not exist: %d passed" % passed)

    # Any 32-bit id, as Linux's (OVS's probe uses 54545401 and 54545402).
    for meter_id in (54545401, 54545402, 0, 0xffffffff):
        err, r = dp.meter(OVS_METER_CMD_SET,
                          meter_set(meter_id, [meter_band(1, 1)]))
        gerr, _ = dp.meter(OVS_METER_CMD_GET,
                           [attr(OVS_METER_ATTR_ID, u32(meter_id))])
        print("SET %d: %s, GET: %s" % (meter_id, errname(err),
                                       errname(gerr)))

    # DEL answers with the statistics, or nothing.
    err, r = dp.meter(OVS_METER_CMD_DEL, [attr(OVS_METER_ATTR_ID, u32(3))])
    print("DEL 3: %s, %s" % (errname(err), meter_reply(r)))
    err, r = dp.meter(OVS_METER_CMD_GET, [attr(OVS_METER_ATTR_ID, u32(3))])
    print("GET 3: %s" % errname(err))
    err, r = dp.meter(OVS_METER_CMD_DEL, [attr(OVS_METER_ATTR_ID, u32(3))])
    print("DEL 3 again: %s, %s" % (errname(err), meter_reply(r)))

    # Refused.
    band = meter_band(1, 1)
    bad = (
        ("SET without an id", [attr(OVS_METER_ATTR_BANDS, [band])]),
        ("SET without bands", [attr(OVS_METER_ATTR_ID, u32(8))]),
        ("SET with two bands", meter_set(8, [band, band])),
        ("SET with two bands, the first of rate 0",
         meter_set(8, [meter_band(0, 1), band])),
        ("SET with a band of rate 0", meter_set(8, [meter_band(0, 1)])),
        ("SET with a band without a burst",
         meter_set(8, [attr(0, [attr(OVS_BAND_ATTR_TYPE, u32(1)),
                                attr(OVS_BAND_ATTR_RATE, u32(1))])])),
        ("SET with a band without a type",
         meter_set(8, [attr(0, [attr(OVS_BAND_ATTR_RATE, u32(1)),
                                attr(OVS_BAND_ATTR_BURST, u32(1))])])),
        ("SET with an id of 2 bytes",
         [attr(OVS_METER_ATTR_ID, u16(8)),
          attr(OVS_METER_ATTR_BANDS, [band])]),
        ("SET with statistics of 8 bytes",
         meter_set(8, [band], extra=[attr(OVS_METER_ATTR_STATS, bytes(8))])),
        ("SET with a rate of 2 bytes",
         meter_set(8, [attr(0, [attr(OVS_BAND_ATTR_TYPE, u32(1)),
                                attr(OVS_BAND_ATTR_RATE, u16(1)),
                                attr(OVS_BAND_ATTR_BURST, u32(1))])])),
        ("SET with a KBPS flag of 4 bytes",
         meter_set(8, [band], extra=[attr(OVS_METER_ATTR_KBPS, u32(1))])),
    )
    for name, attrs in bad:
        err, _ = dp.meter(OVS_METER_CMD_SET, attrs)
        print("%s: %s" % (name, errname(err)))
    for cmd, name in ((OVS_METER_CMD_GET, "GET"), (OVS_METER_CMD_DEL, "DEL")):
        err, _ = dp.meter(cmd, [])
        print("%s without an id: %s" % (name, errname(err)))
    err, _ = dp.meter(OVS_METER_CMD_SET, meter_set(8, [band]), ifindex=0)
    print("SET to no datapath: %s" % errname(err))
    err, _ = dp.meter(OVS_METER_CMD_SET, [attr(OVS_METER_ATTR_ID, u32(8))],
                      ifindex=0)
    print("SET without bands to no datapath: %s" % errname(err))
    err, _ = dp.flow(OVS_FLOW_CMD_NEW, [
        attr(OVS_FLOW_ATTR_KEY, flow_key()),
        attr(OVS_FLOW_ATTR_MASK, flow_mask()),
        attr(OVS_FLOW_ATTR_ACTIONS, [attr(A_METER, u16(1))])])
    print("a flow with a meter action of 2 bytes: %s" % errname(err))
    err, _ = dp.flow(OVS_FLOW_CMD_NEW, [
        attr(OVS_FLOW_ATTR_KEY, flow_key()),
        attr(OVS_FLOW_ATTR_MASK, flow_mask()),
        attr(OVS_FLOW_ATTR_ACTIONS, [attr(A_METER, u32(1)),
                                     userspace(dp.up.pid, b"flow")])])
    print("a flow with meter 1: %s" % errname(err))
    # The datapath goes with its meters in it.


class CtLimits:
    """The ovs_ct_limit family, on a socket of its own."""

    def __init__(self):
        self.nl = Netlink()

    def request(self, cmd, entries=None, raw=None, ifindex=0):
        """A request with ZONE_LIMIT holding 'entries' (or the bytes
        'raw'), or without it if both are None: (errno, the reply's
        entries or None, the reply's dp_ifindex or None)."""
        attrs = []
        if raw is not None:
            attrs = [attr(OVS_CT_LIMIT_ATTR_ZONE_LIMIT, raw)]
        elif entries is not None:
            attrs = [attr(OVS_CT_LIMIT_ATTR_ZONE_LIMIT, zone_limits(entries))]
        err, replies, ifindexes = self.nl.ovs(CT_LIMIT_FAMILY,
                                              CT_LIMIT_VERSION, cmd,
                                              ifindex, attrs)
        if err or not replies:
            return err, None, None
        r = replies[0]
        if OVS_CT_LIMIT_ATTR_ZONE_LIMIT not in r:
            return err, sorted(r), ifindexes[0]
        limits, rest = parse_zone_limits(r[OVS_CT_LIMIT_ATTR_ZONE_LIMIT])
        return err, limits + ([("rest", rest)] if rest else []), ifindexes[0]


def fmt_limits(limits):
    if limits is None:
        return "no reply"
    if limits and not isinstance(limits[0], tuple):
        return "attributes %s" % limits
    return " ".join("%s:%s/%s" % e if e[0] != "rest" else "rest:%d" % e[1]
                    for e in limits) or "empty"


def check_ct_limits():
    """The ovs_ct_limit family answers as Linux 6.1's."""
    ct = CtLimits()
    SET, DEL, GET = (OVS_CT_LIMIT_CMD_SET, OVS_CT_LIMIT_CMD_DEL,
                     OVS_CT_LIMIT_CMD_GET)
    D = OVS_ZONE_LIMIT_DEFAULT_ZONE

    def show(what, cmd, entries=None, raw=None, ifindex=0):
        err, limits, _ = ct.request(cmd, entries, raw, ifindex)
        print("%s: %s%s" % (what, errname(err),
                            "" if err else ", " + fmt_limits(limits)))

    show("GET of a new namespace", GET)
    show("SET default=10 zone=1,limit=5", SET, [(D, 10), (1, 5)])
    show("GET", GET)
    show("GET of zones 1, 2 and the default", GET, [(1, 0), (2, 0), (D, 0)])
    show("SET zones 0, 3 (limit 0), 65535", SET,
         [(65535, 7), (3, 0), (0, 3)])
    show("GET", GET)
    show("SET zone 1 again, limit 6", SET, [(1, 6)])
    show("GET of zone 1", GET, [(1, 0)])
    show("SET zones -2, 65536, 2^31-1 and 9", SET,
         [(-2, 1), (65536, 1), (0x7fffffff, 1), (9, 2)])
    show("GET of zones -2, 65536 and 9", GET, [(-2, 0), (65536, 0), (9, 0)])
    show("SET of zone 20 in 8 bytes", SET, raw=zone_limit(20, 4)[:8])
    show("GET of zone 20", GET, [(20, 0)])
    show("SET of zone 20 in 10 bytes", SET, raw=zone_limit(20, 4)[:10])
    show("GET of zone 20", GET, [(20, 0)])
    show("SET of zone 21 and 5 bytes more", SET,
         raw=zone_limit(21, 8) + b"\1" * 5)
    show("GET of zone 21 and 5 bytes more", GET,
         raw=zone_limit(21, 0) + b"\1" * 5)
    show("SET with an empty list", SET, [])
    show("SET without a list", SET)
    show("DEL without a list", DEL)
    show("SET with a list of 2 bytes", SET, raw=b"\0\0")
    show("GET with a list of 3 bytes", GET, raw=b"\0\0\0")
    show("GET with an empty list", GET, [])
    err, _, ifindex = ct.request(GET, ifindex=12345)
    print("GET with dp_ifindex 12345: %s, reply's dp_ifindex %s"
          % (errname(err), ifindex))
    err, _, ifindex = ct.request(SET, [(D, 10)], ifindex=-7)
    print("SET with dp_ifindex -7: %s, reply's dp_ifindex %s"
          % (errname(err), ifindex))
    show("DEL zones 1, 9, 20, 21, 4 and 70000", DEL,
         [(1, 0), (9, 0), (20, 0), (21, 0), (4, 0), (70000, 0)])
    show("GET", GET)
    show("DEL default", DEL, [(D, 0)])
    show("GET", GET)
    show("DEL zones 0, 3, 65535", DEL, [(0, 0), (3, 0), (65535, 0)])
    show("GET", GET)
    # The reply is one buffer of genlmsg_new(NLMSG_DEFAULT_SIZE): the
    # most entries it holds, found by GETs of listed zones.
    lo, hi = 1, 5000
    while lo < hi:
        mid = (lo + hi + 1) // 2
        err, _, _ = ct.request(GET, [(7, 0)] * mid)
        if err:
            lo, hi = lo, mid - 1
        else:
            lo, hi = mid, hi
    most = lo
    err, _, _ = ct.request(GET, [(7, 0)] * (most + 1))
    print("a GET reply holds at most %d entries; one more: %s"
          % (most, errname(err)))
    n = most - 1
    show("SET of %d zones" % n, SET, [(1000 + i, i + 1) for i in range(n)])
    err, limits, _ = ct.request(GET)
    print("GET: %s, %d entries, ascending: %s, limits as set: %s"
          % (errname(err), len(limits or []),
             limits is not None and limits[1:] == sorted(limits[1:]),
             limits is not None and all(l == z - 999
                                        for z, l, _ in limits[1:])))
    show("SET of one zone more", SET, [(5000, 1)])
    show("GET", GET)
    show("DEL of them", DEL,
         [(1000 + i, 0) for i in range(n)] + [(5000, 0)])
    err, _, _ = ct.request(SET, [(i, i) for i in range(0, 65536, 13)])
    err2, limits, _ = ct.request(GET, [(65533, 0)])
    print("SET of 5042 zones in one request: %s; GET of zone 65533: %s, %s"
          % (errname(err), errname(err2), fmt_limits(limits)))
    show("DEL of them", DEL, [(i, 0) for i in range(0, 65536, 13)])
    show("GET", GET)


def check_ct_limits_get_only():
    """Without CAP_NET_ADMIN: GET answers, SET and DEL are refused."""
    ct = CtLimits()
    for what, cmd, entries in (
            ("GET", OVS_CT_LIMIT_CMD_GET, None),
            ("SET", OVS_CT_LIMIT_CMD_SET, [(OVS_ZONE_LIMIT_DEFAULT_ZONE, 1)]),
            ("DEL", OVS_CT_LIMIT_CMD_DEL, [(OVS_ZONE_LIMIT_DEFAULT_ZONE, 0)])):
        err, _, _ = ct.request(cmd, entries)
        print("%s: %s" % (what, errname(err)))


def nat_flow_key(recirc_id, v6):
    """An exact TCP flow key, IPv4 or IPv6, after 'recirc_id'
    recirculations."""
    key = [attr(K_RECIRC_ID, u32(recirc_id)),
           attr(K_IN_PORT, u32(OVSP_LOCAL)),
           attr(K_ETHERNET, b"\x02\0\0\0\0\1" + b"\x02\0\0\0\0\2")]
    if v6:
        key += [attr(K_ETHERTYPE, be16(0x86dd)),
                attr(K_IPV6, b"\xfd" + bytes(14) + b"\1" + b"\xfd" +
                     bytes(14) + b"\2" + be32(0) + u8(6) + u8(0) + u8(64) +
                     u8(0))]
    else:
        key += [attr(K_ETHERTYPE, be16(0x0800)),
                attr(K_IPV4, be32(0x0a000001) + be32(0x0a000002) + u8(6) +
                     u8(0) + u8(64) + u8(0))]
    # Linux's openvswitch.ko wants TCP_FLAGS in every TCP key.
    return key + [attr(K_TCP, be16(1) + be16(2)), attr(K_TCP_FLAGS, be16(0))]


def check_ct_nat(dp):
    """ct() with NAT nests: what Linux accepts and refuses, and with which
    errno; an accepted flow's actions read back as given (in the order
    and form OVS sends them, which Linux's dump also keeps)."""
    v4a, v4b = be32(0x0a000064), be32(0x0a0000c8)
    v6a = b"\xfd" + bytes(14) + b"\x64"
    commit = attr(CT_COMMIT, b"")
    zone = attr(CT_ZONE, u16(0))
    cases = [
        ("empty nest, no commit", False, [zone, attr(CT_NAT, [])]),
        ("src", False, [commit, zone,
                        attr(CT_NAT, [attr(NAT_SRC, b""),
                                      attr(NAT_IP_MIN, v4a)])]),
        ("src range, ports, flags", False,
         [commit, zone,
          attr(CT_NAT, [attr(NAT_SRC, b""), attr(NAT_IP_MIN, v4a),
                        attr(NAT_IP_MAX, v4b), attr(NAT_PROTO_MIN, u16(1024)),
                        attr(NAT_PROTO_MAX, u16(2048)),
                        attr(NAT_PERSISTENT, b""),
                        attr(NAT_PROTO_HASH, b""),
                        attr(NAT_PROTO_RANDOM, b"")])]),
        ("dst with a port", False,
         [commit, zone,
          attr(CT_NAT, [attr(NAT_DST, b""), attr(NAT_IP_MIN, v4a),
                        attr(NAT_PROTO_MIN, u16(8080))])]),
        ("src, min above max", False,
         [commit, zone,
          attr(CT_NAT, [attr(NAT_SRC, b""), attr(NAT_IP_MIN, v4b),
                        attr(NAT_IP_MAX, v4a), attr(NAT_PROTO_MIN, u16(9)),
                        attr(NAT_PROTO_MAX, u16(5))])]),
        ("IPv6 src", True, [commit, zone,
                            attr(CT_NAT, [attr(NAT_SRC, b""),
                                          attr(NAT_IP_MIN, v6a)])]),
        ("src and dst", False,
         [commit, zone, attr(CT_NAT, [attr(NAT_SRC, b""),
                                      attr(NAT_DST, b"")])]),
        ("src twice", False,
         [commit, zone, attr(CT_NAT, [attr(NAT_SRC, b""),
                                      attr(NAT_SRC, b"")])]),
        ("src without commit", False,
         [zone, attr(CT_NAT, [attr(NAT_SRC, b"")])]),
        ("commit after the nest", False,
         [zone, attr(CT_NAT, [attr(NAT_SRC, b"")]), commit]),
        ("IPv6 address in an IPv4 flow", False,
         [commit, zone, attr(CT_NAT, [attr(NAT_SRC, b""),
                                      attr(NAT_IP_MIN, v6a)])]),
        ("IPv4 address in an IPv6 flow", True,
         [commit, zone, attr(CT_NAT, [attr(NAT_SRC, b""),
                                      attr(NAT_IP_MIN, v4a)])]),
        ("port of 4 bytes", False,
         [commit, zone, attr(CT_NAT, [attr(NAT_SRC, b""),
                                      attr(NAT_PROTO_MIN, u32(1))])]),
        ("flag with a payload", False,
         [commit, zone, attr(CT_NAT, [attr(NAT_SRC, b""),
                                      attr(NAT_PERSISTENT, u32(1))])]),
        ("type 0", False, [commit, zone, attr(CT_NAT, [attr(0, b"")])]),
        ("type 10", False, [commit, zone, attr(CT_NAT, [attr(10, b"")])]),
        ("address without src or dst", False,
         [commit, zone, attr(CT_NAT, [attr(NAT_IP_MIN, v4a)])]),
        ("flag without src or dst", False,
         [commit, zone, attr(CT_NAT, [attr(NAT_PERSISTENT, b"")])]),
        ("3 trailing bytes", False,
         [commit, zone, attr(CT_NAT, encode([attr(NAT_SRC, b"")]) +
                             b"\1\2\3")]),
    ]
    for n, (name, v6, ct) in enumerate(cases):
        key = nat_flow_key(100 + n, v6)
        acts = [attr(A_CT, ct)]
        err, _ = dp.flow(OVS_FLOW_CMD_NEW,
                         [attr(OVS_FLOW_ATTR_KEY, key),
                          attr(OVS_FLOW_ATTR_ACTIONS, acts)],
                         NLM_F_ACK | NLM_F_CREATE)
        line = "%s: %s" % (name, errname(err))
        if not err:
            err, replies = dp.flow(OVS_FLOW_CMD_GET,
                                   [attr(OVS_FLOW_ATTR_KEY, key)])
            got = replies[0].get(OVS_FLOW_ATTR_ACTIONS) if not err else None
            line += (", read back as given" if got == encode(acts)
                     else ", read back as %s" % (got.hex() if got
                                                 else errname(err)))
        print(line)


def l3_key(recirc_id, ethertype, *rest):
    """A flow key of Ethertype 'ethertype' after 'recirc_id'
    recirculations, with the attributes 'rest' after the Ethertype."""
    return [attr(K_RECIRC_ID, u32(recirc_id)),
            attr(K_IN_PORT, u32(OVSP_LOCAL)),
            attr(K_ETHERNET, b"\x02\0\0\0\0\1" + b"\x02\0\0\0\0\2"),
            attr(K_ETHERTYPE, be16(ethertype))] + list(rest)


def ipv4(proto, frag=0):
    return attr(K_IPV4, be32(0x0a000001) + be32(0x0a000002) + u8(proto) +
                u8(0) + u8(64) + u8(frag))


def ipv6(proto):
    return attr(K_IPV6, b"\xfd" + bytes(14) + b"\1" + b"\xfd" + bytes(14) +
                b"\2" + be32(0) + u8(proto) + u8(0) + u8(64) + u8(0))


def ones(n):
    return b"\xff" * n


def check_flow_keys(dp):
    """Keys and masks that Linux's match_validate() refuses (a key without
    an attribute its protocols call for, a mask of what the key does not
    have) and their neighbours that it accepts, each with its errno."""
    tcp = attr(K_TCP, be16(1) + be16(2))
    flags = attr(K_TCP_FLAGS, be16(0))
    nd = attr(K_ND, b"\xfd" + bytes(14) + b"\2" + bytes(12))
    tuple6 = attr(K_CT_ORIG_TUPLE_IPV6, b"\xfd" + bytes(14) + b"\1" +
                  b"\xfd" + bytes(14) + b"\2" + bytes(4) + u8(58) + bytes(3))
    # The mask of l3_key() for 'ethertype' with an exact IP protocol.
    mask_ip6 = [attr(K_RECIRC_ID, ones(4)), attr(K_IN_PORT, ones(4)),
                attr(K_ETHERNET, ones(12)), attr(K_ETHERTYPE, ones(2)),
                attr(K_IPV6, bytes(32) + bytes(4) + ones(1) + bytes(3))]
    cases = [
        ("IPv4 TCP with tcp_flags", l3_key(0, 0x0800, ipv4(6), tcp, flags),
         None),
        ("IPv4 TCP without tcp_flags", l3_key(0, 0x0800, ipv4(6), tcp),
         None),
        ("IPv4 tcp_flags without TCP", l3_key(0, 0x0800, ipv4(6), flags),
         None),
        ("IPv4 first fragment, TCP without tcp_flags",
         l3_key(0, 0x0800, ipv4(6, 1), tcp), None),
        ("IPv4 later fragment, no layer 4",
         l3_key(0, 0x0800, ipv4(6, 2)), None),
        ("IPv6 TCP without tcp_flags", l3_key(0, 0x86dd, ipv6(6), tcp),
         None),
        ("IPv4 without ipv4", l3_key(0, 0x0800), None),
        ("IPv6 without ipv6", l3_key(0, 0x86dd), None),
        ("ARP without arp", l3_key(0, 0x0806), None),
        ("MPLS without mpls", l3_key(0, 0x8847), None),
        ("UDP without udp", l3_key(0, 0x0800, ipv4(17)), None),
        ("SCTP without sctp", l3_key(0, 0x0800, ipv4(132)), None),
        ("ICMP without icmp", l3_key(0, 0x0800, ipv4(1)), None),
        ("ICMPv6 without icmpv6", l3_key(0, 0x86dd, ipv6(58)), None),
        ("neighbour solicitation without nd",
         l3_key(0, 0x86dd, ipv6(58), attr(K_ICMPV6, u8(135) + u8(0))),
         None),
        ("neighbour solicitation of code 1 without nd",
         l3_key(0, 0x86dd, ipv6(58), attr(K_ICMPV6, u8(135) + u8(1))),
         None),
        ("neighbour solicitation of code 1 with nd",
         l3_key(0, 0x86dd, ipv6(58), attr(K_ICMPV6, u8(135) + u8(1)), nd),
         None),
        ("neighbour advertisement and an IPv6 original tuple, exact",
         [tuple6] + l3_key(1, 0x86dd, ipv6(58),
                           attr(K_ICMPV6, u8(136) + u8(0)), nd), None),
        ("neighbour advertisement and an IPv6 original tuple, masked",
         [tuple6] + l3_key(2, 0x86dd, ipv6(58),
                           attr(K_ICMPV6, u8(136) + u8(0)), nd),
         [tuple6] + mask_ip6),
        ("neighbour advertisement and an IPv6 original tuple, tuple "
         "wildcarded",
         [tuple6] + l3_key(3, 0x86dd, ipv6(58),
                           attr(K_ICMPV6, u8(136) + u8(0)), nd),
         mask_ip6 + [attr(K_ICMPV6, ones(1) + bytes(1)),
                     attr(K_ND, ones(28))]),
        ("mask of ct_state, key without", flow_key(4),
         [attr(K_CT_STATE, u32(0xff))] + flow_mask()),
        ("mask of ct_zone, key without", flow_key(5),
         [attr(K_CT_ZONE, ones(2))] + flow_mask()),
        ("mask of ct_mark, key without", flow_key(6),
         [attr(K_CT_MARK, ones(4))] + flow_mask()),
        ("mask of ct_labels, key without", flow_key(7),
         [attr(K_CT_LABELS, ones(16))] + flow_mask()),
        ("mask of ct_state, key with",
         [attr(K_CT_STATE, u32(0))] + flow_key(8),
         [attr(K_CT_STATE, u32(0xff))] + flow_mask()),
        ("mask of tcp_flags, IP protocol wildcarded",
         l3_key(9, 0x0800, ipv4(6), tcp, flags),
         mask_ip6[:4] + [attr(K_IPV4, ones(8) + bytes(4)),
                         attr(K_TCP_FLAGS, ones(2))]),
    ]
    for name, key, mask in cases:
        attrs = [attr(OVS_FLOW_ATTR_KEY, key),
                 attr(OVS_FLOW_ATTR_ACTIONS, [])]
        if mask is not None:
            attrs.append(attr(OVS_FLOW_ATTR_MASK, mask))
        err, _ = dp.flow(OVS_FLOW_CMD_NEW, attrs, NLM_F_ACK | NLM_F_CREATE)
        print("%s: %s" % (name, errname(err)))
        if not err:
            dp.flow(OVS_FLOW_CMD_DEL, [attr(OVS_FLOW_ATTR_KEY, key)],
                    NLM_F_ACK)


def check_ct_limit_counters():
    """The zone limits' per-CPU counters (OVSP_PCPU_CMD_CT_LIMIT_GET)."""
    nl = Netlink()
    err, msgs = nl.transact(nl.family(PCPU_FAMILY),
                            OVSP_PCPU_CMD_CT_LIMIT_GET, PCPU_VERSION,
                            ovs_header(0))
    if err or not msgs:
        print("counters: %s" % errname(err))
        return
    attrs = decode_list(msgs[0][8:])
    slots = [decode(p) for t, p in attrs if t == OVSP_PCPU_ATTR_SLOT]
    n_cpus = get_u32(dict(attrs)[OVSP_PCPU_ATTR_N_CPUS])
    u64 = lambda b: struct.unpack("=Q", b[:8])[0]
    refused = sum(u64(s[OVSP_PCPU_SLOT_ATTR_CT_REFUSED]) for s in slots)
    uncounted = sum(u64(s[OVSP_PCPU_SLOT_ATTR_CT_UNCOUNTED]) for s in slots)
    print("CPUs %d, slots %d, refused %d, uncounted %d"
          % (n_cpus, len(slots), refused, uncounted))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    check = sys.argv[1]
    # Zone limits are the namespace's: no datapath.
    if check == "ct-limits":
        check_ct_limits()
        return 0
    if check == "ct-limits-get-only":
        check_ct_limits_get_only()
        return 0
    if check == "ct-limit-counters":
        check_ct_limit_counters()
        return 0
    dp = Datapath("hostile")
    if check == "nested":
        check_nested(dp)
    elif check == "egress-tun":
        check_egress_tun(dp, sys.argv[2])
    elif check == "flow-ids":
        check_flow_ids(dp)
    elif check == "port-limits":
        check_port_limits(dp)
    elif check == "trunc":
        check_trunc(dp)
    elif check == "vport-dump":
        check_vport_dump(dp)
    elif check == "meters":
        check_meters(dp)
    elif check == "ct-nat":
        check_ct_nat(dp)
    elif check == "flow-keys":
        check_flow_keys(dp)
    else:
        sys.exit("unknown check %s" % check)
    dp.delete()
    return 0


if __name__ == "__main__":
    sys.exit(main())

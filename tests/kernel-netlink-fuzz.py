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

"""Fuzzes the kernel datapath's netlink parsers.

Usage: kernel-netlink-fuzz.py [--seconds N] [--seed S] [--dp NAME] [-v]

Creates a datapath, then for N seconds sends mutations of valid
OVS_FLOW_CMD_NEW/SET/GET/DEL and OVS_PACKET_CMD_EXECUTE messages (flow
keys, masks, actions, tunnel attributes, nesting, lengths, packets) to the
loaded kernel module over a raw generic-netlink socket, and now and then
dumps the flows (the formatting side), deletes them all, and checks that
the module still answers.  Every request must get a reply.  At the end it
checks the kernel log written meanwhile for WARNING, BUG, Oops and the
like, deletes the datapath and prints what the module answered, by errno.

Exit status: 0 if the module answered every request and the kernel logged
no warning; 1 otherwise (the reason, the seed and the last request are
printed); 77 if there is no ovs_datapath family (no module loaded).

Run it as root in a guest (tests/qemu/kernel-guest.sh), never on a host
whose kernel you care about: it is meant to find the bugs that crash one.
Only the standard library is used (no pyroute2, no scapy).
"""

import argparse
import errno
import os
import random
import socket
import struct
import subprocess
import sys
import time

# Netlink and generic netlink.
NETLINK_GENERIC = 16
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLM_F_ECHO = 0x8
NLM_F_DUMP = 0x300
NLM_F_CREATE = 0x400
NLMSG_ERROR = 2
NLMSG_DONE = 3
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2

# include/uapi/linux/openvswitch.h (Linux 6.1).
OVS_DP_CMD_NEW, OVS_DP_CMD_DEL, OVS_DP_CMD_GET = 1, 2, 3
OVS_DP_ATTR_NAME, OVS_DP_ATTR_UPCALL_PID = 1, 2
OVS_DP_ATTR_USER_FEATURES = 5
OVS_DP_F_UNALIGNED, OVS_DP_F_VPORT_PIDS = 1, 2
OVS_FLOW_CMD_NEW, OVS_FLOW_CMD_DEL, OVS_FLOW_CMD_GET, OVS_FLOW_CMD_SET = \
    1, 2, 3, 4
OVS_FLOW_ATTR_KEY, OVS_FLOW_ATTR_ACTIONS = 1, 2
OVS_FLOW_ATTR_CLEAR, OVS_FLOW_ATTR_MASK, OVS_FLOW_ATTR_PROBE = 6, 7, 8
OVS_FLOW_ATTR_UFID, OVS_FLOW_ATTR_UFID_FLAGS = 9, 10
OVS_PACKET_CMD_EXECUTE = 3
OVS_PACKET_ATTR_PACKET, OVS_PACKET_ATTR_KEY, OVS_PACKET_ATTR_ACTIONS = \
    1, 2, 3
OVS_PACKET_ATTR_PROBE, OVS_PACKET_ATTR_MRU, OVS_PACKET_ATTR_HASH = 8, 9, 11

(K_ENCAP, K_PRIORITY, K_IN_PORT, K_ETHERNET, K_VLAN, K_ETHERTYPE, K_IPV4,
 K_IPV6, K_TCP, K_UDP, K_ICMP, K_ICMPV6, K_ARP, K_ND, K_SKB_MARK, K_TUNNEL,
 K_SCTP, K_TCP_FLAGS, K_DP_HASH, K_RECIRC_ID, K_MPLS) = range(1, 22)
K_MAX = 32

(T_ID, T_IPV4_SRC, T_IPV4_DST, T_TOS, T_TTL, T_DF, T_CSUM, T_OAM,
 T_GENEVE_OPTS, T_TP_SRC, T_TP_DST, T_VXLAN_OPTS, T_IPV6_SRC, T_IPV6_DST,
 T_PAD, T_ERSPAN_OPTS, T_IPV4_INFO_BRIDGE) = range(0, 17)

(A_OUTPUT, A_USERSPACE, A_SET, A_PUSH_VLAN, A_POP_VLAN, A_SAMPLE, A_RECIRC,
 A_HASH, A_PUSH_MPLS, A_POP_MPLS, A_SET_MASKED, A_CT, A_TRUNC, A_PUSH_ETH,
 A_POP_ETH, A_CT_CLEAR, A_PUSH_NSH, A_POP_NSH, A_METER, A_CLONE,
 A_CHECK_PKT_LEN, A_ADD_MPLS, A_DEC_TTL) = range(1, 24)
A_MAX = 23

U_PID, U_USERDATA, U_EGRESS_TUN_PORT, U_ACTIONS = 1, 2, 3, 4
S_PROBABILITY, S_ACTIONS = 1, 2
C_PKT_LEN, C_GREATER, C_LESS_EQUAL = 1, 2, 3

# What the kernel log must not say.
KERNEL_BAD = ("WARNING:", "BUG:", "Oops", "general protection fault",
              "kernel BUG", "refcount_t:", "UBSAN:", "list_add corruption",
              "list_del corruption", "stack-protector", "double free",
              "Bad page", "RIP:")


# An attribute tree: [type, payload] where payload is bytes or a list of
# attributes (nested).
def attr(t, payload):
    return [t, payload]


def encode(attrs, ruin=None):
    """Encodes a list of attributes.  'ruin', if given, is called with each
    encoded attribute header and may return a replacement length."""
    out = []
    for t, p in attrs:
        body = encode(p, ruin) if isinstance(p, list) else p
        length = 4 + len(body)
        if ruin:
            length = ruin(length)
        out.append(struct.pack("=HH", length & 0xffff, t & 0xffff))
        out.append(body)
        out.append(b"\0" * ((4 - len(body) % 4) % 4))
    return b"".join(out)


def decode(buf):
    """Decodes flat attributes into {type: payload}."""
    attrs = {}
    while len(buf) >= 4:
        length, t = struct.unpack("=HH", buf[:4])
        if length < 4:
            break
        attrs[t & 0x3fff] = buf[4:length]
        buf = buf[(length + 3) & ~3:]
    return attrs


def u8(v):
    return struct.pack("=B", v & 0xff)


def u16(v):
    return struct.pack("=H", v & 0xffff)


def be16(v):
    return struct.pack("!H", v & 0xffff)


def u32(v):
    return struct.pack("=I", v & 0xffffffff)


def be32(v):
    return struct.pack("!I", v & 0xffffffff)


def be64(v):
    return struct.pack("!Q", v & 0xffffffffffffffff)


class Netlink:
    """One generic-netlink socket with request/reply helpers."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.bind((0, 0))
        self.sock.settimeout(10)
        self.pid = self.sock.getsockname()[0]
        self.seq = 1

    def send(self, family, cmd, version, payload, flags):
        """Sends one message; returns its sequence number."""
        self.seq += 1
        body = struct.pack("=BBH", cmd, version, 0) + payload
        hdr = struct.pack("=IHHII", 16 + len(body), family,
                          flags | NLM_F_REQUEST, self.seq, 0)
        self.sock.send(hdr + body)
        return self.seq

    def replies(self, seq):
        """Yields (type, payload) of the replies to 'seq', up to the ack,
        NLMSG_DONE or an error; raises TimeoutError if they stop."""
        while True:
            data = self.sock.recv(1 << 20)
            while len(data) >= 16:
                length, mtype, _flags, mseq, _pid = \
                    struct.unpack("=IHHII", data[:16])
                if length < 16:
                    raise RuntimeError("bad netlink reply length %d" % length)
                msg = data[16:length]
                data = data[(length + 3) & ~3:]
                if mseq != seq:
                    continue
                if mtype == NLMSG_ERROR:
                    err = -struct.unpack("=i", msg[:4])[0]
                    yield (NLMSG_ERROR, err)
                    return
                if mtype == NLMSG_DONE:
                    yield (NLMSG_DONE, None)
                    return
                yield (mtype, msg)

    def transact(self, family, cmd, version, payload, flags=NLM_F_ACK):
        """Sends a request and returns (errno, [reply payloads])."""
        seq = self.send(family, cmd, version, payload, flags)
        msgs = []
        for mtype, msg in self.replies(seq):
            if mtype == NLMSG_ERROR:
                return msg, msgs
            if mtype == NLMSG_DONE:
                return 0, msgs
            msgs.append(msg)
        return 0, msgs

    def family(self, name):
        """Returns the id of generic-netlink family 'name', or None."""
        payload = encode([attr(CTRL_ATTR_FAMILY_NAME,
                               name.encode() + b"\0")])
        err, msgs = self.transact(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1,
                                  payload)
        if err or not msgs:
            return None
        attrs = decode(msgs[0][4:])
        return struct.unpack("=H", attrs[CTRL_ATTR_FAMILY_ID][:2])[0]


def ovs_header(ifindex):
    return struct.pack("=i", ifindex)


# Seeds: valid keys, masks, actions and packets.

def mac(r):
    return bytes(r.randrange(256) for _ in range(6))


def eth_key(r):
    return attr(K_ETHERNET, mac(r) + mac(r))


def tunnel_attrs(r, for_set=False):
    t = [attr(T_ID, be64(r.randrange(1 << 24))),
         attr(T_TTL, u8(64))]
    if r.random() < 0.7:
        t += [attr(T_IPV4_SRC, be32(0x0a000001)),
              attr(T_IPV4_DST, be32(0x0a000002))]
    else:
        t += [attr(T_IPV6_SRC, b"\xfd" + bytes(14) + b"\1"),
              attr(T_IPV6_DST, b"\xfd" + bytes(14) + b"\2")]
    if r.random() < 0.5:
        t.append(attr(T_DF, b""))
    if r.random() < 0.3:
        t.append(attr(T_CSUM, b""))
    if r.random() < 0.3:
        t += [attr(T_TP_SRC, be16(r.randrange(65536))),
              attr(T_TP_DST, be16(6081))]
    choice = r.randrange(4)
    if choice == 1:
        # Geneve options: class, type, length in 4-byte words, data.
        n = r.randrange(1, 4)
        opt = be16(0x0102) + u8(0x80 if r.random() < 0.3 else 1) + u8(n)
        t.append(attr(T_GENEVE_OPTS, opt + bytes(4 * n)))
    elif choice == 2:
        t.append(attr(T_VXLAN_OPTS, [attr(1, u32(r.randrange(1 << 24)))]))
    elif choice == 3:
        t.append(attr(T_ERSPAN_OPTS, struct.pack("=i", 1) + be32(7) +
                      bytes(4)))
    return t


def l3_l4_key(r):
    """Ethertype and the layer-3 and layer-4 attributes of a key."""
    kind = r.randrange(9)
    if kind == 0:
        proto = r.choice([6, 17, 132, 1, 47])
        frag = r.choice([0, 0, 0, 1, 2])
        a = [attr(K_ETHERTYPE, be16(0x0800)),
             attr(K_IPV4, be32(0x0a000001) + be32(0x0a000002) +
                  u8(proto) + u8(0) + u8(64) + u8(frag))]
        if frag != 2:
            if proto == 6:
                a += [attr(K_TCP, be16(1234) + be16(80)),
                      attr(K_TCP_FLAGS, be16(0x02))]
            elif proto == 17:
                a.append(attr(K_UDP, be16(1234) + be16(53)))
            elif proto == 132:
                a.append(attr(K_SCTP, be16(1) + be16(2)))
            elif proto == 1:
                a.append(attr(K_ICMP, u8(8) + u8(0)))
        return a
    if kind == 1:
        proto = r.choice([6, 17, 58, 58, 44])
        a = [attr(K_ETHERTYPE, be16(0x86dd)),
             attr(K_IPV6, b"\xfe\x80" + bytes(13) + b"\1" +
                  b"\xfe\x80" + bytes(13) + b"\2" + be32(r.randrange(1 << 20))
                  + u8(proto) + u8(0) + u8(255) + u8(0))]
        if proto == 6:
            a.append(attr(K_TCP, be16(1) + be16(2)))
        elif proto == 17:
            a.append(attr(K_UDP, be16(1) + be16(2)))
        elif proto == 58:
            t = r.choice([128, 135, 136])
            a.append(attr(K_ICMPV6, u8(t) + u8(0)))
            if t != 128:
                a.append(attr(K_ND, bytes(15) + b"\3" + mac(r) + mac(r)))
        return a
    if kind == 2:
        return [attr(K_ETHERTYPE, be16(0x0806)),
                attr(K_ARP, be32(0x0a000001) + be32(0x0a000002) + be16(1) +
                     mac(r) + mac(r) + bytes(2))]
    if kind == 3:
        n = r.randrange(1, 4)
        lses = b"".join(be32((100 + i) << 12 | (0x100 if i == n - 1 else 0)
                             | 64) for i in range(n))
        return [attr(K_ETHERTYPE, be16(0x8847)), attr(K_MPLS, lses)]
    return [attr(K_ETHERTYPE, be16(r.choice([0x1234, 0x88cc, 0x0800])))]


def flow_key(r):
    """A valid flow key as an attribute list."""
    k = [attr(K_RECIRC_ID, u32(r.choice([0, 0, 1, 5]))),
         attr(K_DP_HASH, u32(r.choice([0, 7]))),
         attr(K_PRIORITY, u32(0)),
         attr(K_IN_PORT, u32(r.choice([0, 1, 2, 100]))),
         attr(K_SKB_MARK, u32(0))]
    if r.random() < 0.2:
        k.append(attr(K_TUNNEL, tunnel_attrs(r)))
    if r.random() < 0.15:
        # A layer-3 packet: no Ethernet header.
        return k + [attr(K_ETHERTYPE, be16(r.choice([0x0800, 0x86dd]))),
                    attr(K_IPV4, be32(1) + be32(2) + u8(17) + u8(0) +
                         u8(64) + u8(0)), attr(K_UDP, be16(1) + be16(2))]
    k.append(eth_key(r))
    inner = l3_l4_key(r)
    tags = r.choice([0, 0, 0, 1, 2])
    for i in range(tags):
        tpid = 0x88a8 if (i == 0 and tags == 2) else 0x8100
        inner = [attr(K_ETHERTYPE, be16(tpid)),
                 attr(K_VLAN, be16(0x1000 | r.randrange(4096))),
                 attr(K_ENCAP, inner)]
    return k + inner


def mask_of(key, r):
    """A mask in the shape of 'key': each leaf all ones, zero or random."""
    out = []
    for t, p in key:
        if isinstance(p, list):
            out.append(attr(t, mask_of(p, r)))
            continue
        choice = r.random()
        if choice < 0.6 or t in (K_ETHERTYPE, K_VLAN):
            out.append(attr(t, b"\xff" * len(p)))
        elif choice < 0.8:
            out.append(attr(t, bytes(len(p))))
        else:
            out.append(attr(t, bytes(r.randrange(256) for _ in p)))
    return out


def set_masked(r):
    """A set_masked action (value, then mask)."""
    kind = r.randrange(8)
    if kind == 0:
        v, m = mac(r) + mac(r), b"\xff" * 6 + bytes(6)
        return attr(A_SET_MASKED, [attr(K_ETHERNET, bytes(
            a & b for a, b in zip(v, m)) + m)])
    if kind == 1:
        return attr(A_SET_MASKED, [attr(K_IPV4, be32(0x0a000063) + bytes(4) +
                                        u8(0) + u8(0) + u8(33) + u8(0) +
                                        be32(0xffffffff) + bytes(4) + u8(0) +
                                        u8(0) + u8(0xff) + u8(0))])
    if kind == 2:
        return attr(A_SET_MASKED, [attr(K_IPV6, bytes(15) + b"\7" + bytes(16)
                                        + be32(5) + u8(0) + u8(0x10) + u8(9)
                                        + u8(0) + b"\xff" * 16 + bytes(16) +
                                        be32(0xfffff) + u8(0) + u8(0xfc) +
                                        u8(0xff) + u8(0))])
    if kind == 3:
        return attr(A_SET_MASKED, [attr(r.choice([K_TCP, K_UDP, K_SCTP]),
                                        be16(99) + be16(0) + be16(0xffff) +
                                        be16(0))])
    if kind == 4:
        return attr(A_SET_MASKED, [attr(K_MPLS, be32(0x12345 << 12) +
                                        be32(0xfffff000))])
    if kind == 5:
        return attr(A_SET_MASKED, [attr(r.choice([K_PRIORITY, K_SKB_MARK]),
                                        u32(3) + u32(0xff))])
    if kind == 6:
        return attr(A_SET, [attr(K_TUNNEL, tunnel_attrs(r, True))])
    return attr(A_SET, [attr(K_IPV4, be32(1) + be32(2) + u8(6) + u8(0) +
                             u8(64) + u8(0))])


def actions(r, depth=0):
    """A list of actions, mostly valid for some key."""
    acts = []
    for _ in range(r.randrange(1, 6)):
        kind = r.randrange(17 if depth < 4 else 13)
        if kind == 0:
            acts.append(attr(A_OUTPUT, u32(r.choice([0, 1, 2, 65535]))))
        elif kind == 1:
            u = [attr(U_PID, u32(r.choice([1, 4242]))),
                 attr(U_USERDATA, bytes(r.randrange(0, 40)))]
            if r.random() < 0.3:
                u.append(attr(U_ACTIONS, b""))
            if r.random() < 0.2:
                u.append(attr(U_EGRESS_TUN_PORT, u32(1)))
            acts.append(attr(A_USERSPACE, u))
        elif kind == 2:
            acts.append(set_masked(r))
        elif kind == 3:
            acts.append(attr(A_PUSH_VLAN, be16(r.choice([0x8100, 0x88a8])) +
                             be16(0x1000 | 7)))
        elif kind == 4:
            acts.append(attr(A_POP_VLAN, b""))
        elif kind == 5:
            acts.append(attr(A_RECIRC, u32(r.randrange(4))))
        elif kind == 6:
            acts.append(attr(A_HASH, u32(0) + u32(r.randrange(1 << 32))))
        elif kind == 7:
            acts.append(attr(A_PUSH_MPLS, be32(0x100 | 64) + be16(0x8847) +
                             bytes(2)))
        elif kind == 8:
            acts.append(attr(A_POP_MPLS, be16(r.choice([0x0800, 0x8847]))))
        elif kind == 9:
            acts.append(attr(A_TRUNC, u32(r.choice([14, 64, 100]))))
        elif kind == 10:
            acts.append(attr(A_PUSH_ETH, mac(r) + mac(r)))
        elif kind == 11:
            acts.append(attr(A_POP_ETH, b""))
        elif kind == 12:
            acts.append(attr(A_ADD_MPLS, be32(0x100 | 64) + be16(0x8847) +
                             u16(r.randrange(2))))
        elif kind == 13:
            acts.append(attr(A_SAMPLE, [
                attr(S_PROBABILITY, u32(r.choice([0, 1 << 31, 0xffffffff]))),
                attr(S_ACTIONS, actions(r, depth + 1))]))
        elif kind == 14:
            acts.append(attr(A_CLONE, actions(r, depth + 1)))
        elif kind == 15:
            acts.append(attr(A_CHECK_PKT_LEN, [
                attr(C_PKT_LEN, u16(r.choice([1, 64, 1500]))),
                attr(C_GREATER, actions(r, depth + 1)),
                attr(C_LESS_EQUAL, actions(r, depth + 1))]))
        else:
            # Unsupported or unknown: refused, never a crash.
            acts.append(attr(r.choice([A_CT, A_CT_CLEAR, A_METER, A_DEC_TTL,
                                       A_PUSH_NSH, A_POP_NSH, 24, 99]),
                             bytes(r.choice([0, 4, 8]))))
    return acts


def packet(r):
    """An Ethernet frame of some protocol, maybe truncated."""
    l4 = r.choice(["tcp", "udp", "icmp", "sctp", "icmp6-nd", "none"])
    if l4 == "tcp":
        t = be16(1234) + be16(80) + bytes(8) + u8(0x50) + u8(0x02) + \
            bytes(6)
    elif l4 == "udp":
        t = be16(1234) + be16(53) + be16(8) + bytes(2)
    elif l4 == "sctp":
        t = be16(1) + be16(2) + bytes(8)
    elif l4 == "icmp":
        t = u8(8) + u8(0) + bytes(6)
    elif l4 == "icmp6-nd":
        t = u8(135) + u8(0) + bytes(6) + bytes(16) + \
            u8(1) + u8(1) + mac(r) + u8(2) + u8(1) + mac(r) + \
            u8(1) + u8(r.choice([0, 1, 255])) + bytes(6)
    else:
        t = b""
    t += bytes(r.choice([0, 0, 10, 100, 1400]))
    kind = r.randrange(6)
    if kind == 0:
        proto = {"tcp": 6, "udp": 17, "sctp": 132}.get(l4, 1)
        frag = r.choice([0, 0, 0x2000, 0x0010])
        l3 = u8(0x45) + u8(0) + be16(20 + len(t)) + bytes(2) + be16(frag) + \
            u8(64) + u8(proto) + bytes(2) + be32(0x0a000001) + \
            be32(0x0a000002)
        et = 0x0800
    elif kind == 1:
        proto = {"tcp": 6, "udp": 17, "sctp": 132}.get(l4, 58)
        ext = b""
        for _ in range(r.choice([0, 0, 1, 3, 40])):
            ext = u8(proto) + u8(0) + bytes(6) + ext
            proto = r.choice([0, 60, 43, 51, 44])
        l3 = be32(0x60000000) + be16(len(ext) + len(t)) + u8(proto) + \
            u8(255) + b"\xfe\x80" + bytes(13) + b"\1" + b"\xff\x02" + \
            bytes(13) + b"\1" + ext
        et = 0x86dd
    elif kind == 2:
        l3 = be16(1) + be16(0x0800) + u8(6) + u8(4) + be16(1) + mac(r) + \
            be32(0x0a000001) + bytes(6) + be32(0x0a000002)
        t = b""
        et = 0x0806
    elif kind == 3:
        n = r.choice([1, 2, 3, 5])
        l3 = b"".join(be32((16 + i) << 12 | (0x100 if i == n - 1 else 0) |
                           64) for i in range(n))
        et = 0x8847
    elif kind == 4:
        l3 = bytes(3) + b"\xaa\xaa\x03\0\0\0\x08\x00"
        et = len(l3) + len(t)
    else:
        l3 = b""
        et = r.choice([0x88cc, 0x1234])
    frame = mac(r) + mac(r)
    for _ in range(r.choice([0, 0, 1, 2, 3])):
        frame += be16(r.choice([0x8100, 0x88a8])) + be16(r.randrange(4096))
    frame += be16(et) + l3 + t
    if r.random() < 0.3:
        frame = frame[:r.randrange(14, len(frame) + 1)]
    return frame


def execute_key(r):
    k = [attr(K_PRIORITY, u32(0)), attr(K_SKB_MARK, u32(0)),
         attr(K_IN_PORT, u32(r.choice([0, 1, 7])))]
    if r.random() < 0.2:
        k.append(attr(K_TUNNEL, tunnel_attrs(r)))
    if r.random() < 0.1:
        k.append(attr(K_ETHERTYPE, be16(r.choice([0x0800, 0x86dd]))))
    return k


# Mutations.

def nodes(tree, out=None):
    """Every attribute list and index in 'tree', for picking one."""
    out = [] if out is None else out
    for i, node in enumerate(tree):
        out.append((tree, i))
        if isinstance(node[1], list):
            nodes(node[1], out)
    return out


def mutate(tree, r):
    """Applies 1 to 4 structural mutations to 'tree' in place."""
    for _ in range(r.randrange(1, 5)):
        found = nodes(tree)
        if not found:
            tree.append(attr(r.randrange(K_MAX + 2), bytes(4)))
            continue
        parent, i = r.choice(found)
        node = parent[i]
        kind = r.randrange(12)
        if kind == 0:
            del parent[i]
        elif kind == 1:
            parent.insert(i, [node[0], node[1]])
        elif kind == 2:
            node[0] = r.choice([r.randrange(40), r.randrange(0x4000),
                                node[0] ^ 0x8000])
        elif kind == 3 and not isinstance(node[1], list):
            p = bytearray(node[1])
            if p:
                p[r.randrange(len(p))] ^= 1 << r.randrange(8)
            node[1] = bytes(p)
        elif kind == 4 and not isinstance(node[1], list):
            node[1] = node[1][:r.randrange(len(node[1]) + 1)]
        elif kind == 5:
            node[1] = bytes(r.randrange(256)
                            for _ in range(r.choice([0, 1, 2, 3, 4, 8, 40])))
        elif kind == 6:
            parent[i] = attr(r.randrange(40), [node])
        elif kind == 7:
            parent.insert(i, attr(r.randrange(K_MAX + 4),
                                  bytes(r.choice([0, 2, 4, 6, 12, 40]))))
        elif kind == 8 and len(parent) > 1:
            j = r.randrange(len(parent))
            parent[i], parent[j] = parent[j], parent[i]
        elif kind == 9:
            # Deep nesting of the nestable actions.
            inner = [attr(A_OUTPUT, u32(1))]
            for _ in range(r.choice([5, 15, 16, 17, 40])):
                if r.random() < 0.5:
                    inner = [attr(A_CLONE, inner)]
                else:
                    inner = [attr(A_SAMPLE, [attr(S_PROBABILITY,
                                                  u32(0xffffffff)),
                                             attr(S_ACTIONS, inner)])]
            parent.insert(i, inner[0])
        elif kind == 10:
            # Near the 16-bit limits.
            n = r.choice([1000, 4000, 8150])
            parent.insert(i, attr(A_CLONE,
                                  encode([attr(A_OUTPUT, u32(1))]) * n))
        else:
            node[1] = [attr(r.randrange(20), bytes(r.randrange(8)))
                       for _ in range(r.randrange(4))]
    return tree


def length_ruin(r):
    """A 'ruin' for encode() that now and then writes a wrong length."""
    def ruin(length):
        if r.random() < 0.02:
            return r.choice([0, 1, 3, 4, length - 1, length + 1,
                             length + 4, 0xffff, r.randrange(0x10000)])
        return length
    return ruin


class Fuzzer:
    def __init__(self, args):
        self.args = args
        self.r = random.Random(args.seed)
        self.nl = Netlink()
        self.upcalls = Netlink()
        self.errnos = {}
        self.sent = 0
        self.last = None
        fam = {}
        for name in ("ovs_datapath", "ovs_vport", "ovs_flow", "ovs_packet"):
            fam[name] = self.nl.family(name)
        if fam["ovs_datapath"] is None:
            print("kernel-netlink-fuzz: no ovs_datapath family (module not "
                  "loaded)", file=sys.stderr)
            sys.exit(77)
        self.fam = fam
        self.ifindex = 0

    def dp_create(self):
        payload = ovs_header(0) + encode([
            attr(OVS_DP_ATTR_NAME, self.args.dp.encode() + b"\0"),
            attr(OVS_DP_ATTR_UPCALL_PID, u32(self.upcalls.pid)),
            attr(OVS_DP_ATTR_USER_FEATURES,
                 u32(OVS_DP_F_UNALIGNED | OVS_DP_F_VPORT_PIDS))])
        err, msgs = self.nl.transact(self.fam["ovs_datapath"], OVS_DP_CMD_NEW,
                                     2, payload, NLM_F_ACK | NLM_F_ECHO)
        if err:
            raise RuntimeError("cannot create datapath %s: %s"
                               % (self.args.dp, os.strerror(err)))
        self.ifindex = struct.unpack("=i", msgs[0][4:8])[0]

    def dp_alive(self):
        payload = ovs_header(0) + encode([
            attr(OVS_DP_ATTR_NAME, self.args.dp.encode() + b"\0")])
        err, _ = self.nl.transact(self.fam["ovs_datapath"], OVS_DP_CMD_GET, 2,
                                  payload)
        return err == 0

    def dp_delete(self):
        payload = ovs_header(self.ifindex)
        self.nl.transact(self.fam["ovs_datapath"], OVS_DP_CMD_DEL, 2, payload)

    def drain_upcalls(self):
        self.upcalls.sock.setblocking(False)
        try:
            while True:
                self.upcalls.sock.recv(1 << 20)
        except (BlockingIOError, OSError):
            pass
        self.upcalls.sock.settimeout(10)

    def request(self, family, cmd, attrs, flags=NLM_F_ACK):
        r = self.r
        ruin = (length_ruin(r) if r.random() < 0.2 * self.args.mutate
                else None)
        payload = ovs_header(self.ifindex) + encode(attrs, ruin)
        if r.random() < 0.02 * self.args.mutate:
            # Byte damage anywhere after the header.
            p = bytearray(payload)
            for _ in range(r.randrange(1, 8)):
                j = r.randrange(4, len(p)) if len(p) > 4 else 0
                p[j] = r.randrange(256)
            payload = bytes(p)
        self.last = (family, cmd, payload)
        err, msgs = self.nl.transact(family, cmd, 1, payload, flags)
        self.sent += 1
        what = (family, cmd, err)
        self.errnos[what] = self.errnos.get(what, 0) + 1
        return err, msgs

    def one(self):
        r = self.r
        kind = r.random()
        key = flow_key(r)
        if kind < 0.55:
            attrs = [attr(OVS_FLOW_ATTR_KEY, key)]
            if r.random() < 0.8:
                attrs.append(attr(OVS_FLOW_ATTR_MASK, mask_of(key, r)))
            attrs.append(attr(OVS_FLOW_ATTR_ACTIONS, actions(r)))
            if r.random() < 0.7:
                attrs.append(attr(OVS_FLOW_ATTR_UFID,
                                  bytes(r.randrange(256) for _ in range(16))))
            if r.random() < 0.5:
                attrs.append(attr(OVS_FLOW_ATTR_PROBE, b""))
            if r.random() < self.args.mutate:
                mutate(attrs, r)
            cmd = r.choice([OVS_FLOW_CMD_NEW] * 4 + [OVS_FLOW_CMD_SET,
                                                     OVS_FLOW_CMD_GET,
                                                     OVS_FLOW_CMD_DEL])
            flags = NLM_F_ACK | (NLM_F_CREATE if cmd == OVS_FLOW_CMD_NEW
                                 else 0)
            if r.random() < 0.3:
                flags |= NLM_F_ECHO
            self.request(self.fam["ovs_flow"], cmd, attrs, flags)
        else:
            attrs = [attr(OVS_PACKET_ATTR_PACKET, packet(r)),
                     attr(OVS_PACKET_ATTR_KEY, execute_key(r)),
                     attr(OVS_PACKET_ATTR_ACTIONS, actions(r))]
            if r.random() < 0.1:
                attrs.append(attr(OVS_PACKET_ATTR_MRU,
                                  u16(r.choice([0, 68, 1280, 65535]))))
            if r.random() < 0.5:
                attrs.append(attr(OVS_PACKET_ATTR_PROBE, b""))
            if r.random() < self.args.mutate:
                mutate(attrs, r)
            self.request(self.fam["ovs_packet"], OVS_PACKET_CMD_EXECUTE,
                         attrs)

    def dump_and_flush(self):
        err, flows = self.nl.transact(self.fam["ovs_flow"], OVS_FLOW_CMD_GET,
                                      1, ovs_header(self.ifindex),
                                      NLM_F_ACK | NLM_F_DUMP)
        if err:
            raise RuntimeError("flow dump failed: %s" % os.strerror(err))
        err, _ = self.nl.transact(self.fam["ovs_flow"], OVS_FLOW_CMD_DEL, 1,
                                  ovs_header(self.ifindex))
        if err:
            raise RuntimeError("flow flush failed: %s" % os.strerror(err))
        return len(flows)

    def run(self):
        end = time.monotonic() + self.args.seconds
        dumped = 0
        while time.monotonic() < end:
            for _ in range(50):
                self.one()
            self.drain_upcalls()
            dumped += self.dump_and_flush()
            if not self.dp_alive():
                raise RuntimeError("the datapath stopped answering")
        return dumped


def kernel_log():
    try:
        return subprocess.run(["dmesg"], capture_output=True, text=True,
                              check=False).stdout.splitlines()
    except OSError:
        return []


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int,
                        default=int.from_bytes(os.urandom(4), "little"))
    parser.add_argument("--dp", default="fuzzdp")
    parser.add_argument("--mutate", type=float, default=0.7,
                        help="share of requests mutated (the rest are valid "
                        "seeds, which reach the actions)")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()

    before = len(kernel_log())
    fuzzer = Fuzzer(args)
    print("kernel-netlink-fuzz: seed %d, %g s" % (args.seed, args.seconds))
    failure = None
    dumped = 0
    try:
        fuzzer.dp_create()
        dumped = fuzzer.run()
    except (RuntimeError, TimeoutError, socket.timeout, OSError) as e:
        failure = str(e) or type(e).__name__
    try:
        fuzzer.dp_delete()
    except (TimeoutError, socket.timeout, OSError):
        pass

    new = kernel_log()[before:]
    bad = [line for line in new if any(b in line for b in KERNEL_BAD)]
    print("kernel-netlink-fuzz: %d requests, %d flows dumped; replies:"
          % (fuzzer.sent, dumped))
    names = {v: k for k, v in fuzzer.fam.items()}
    for what in sorted(fuzzer.errnos):
        family, cmd, err = what
        name = errno.errorcode.get(err, str(err)) if err else "ok"
        print("  %-12s cmd %d  %-10s %d" % (names.get(family, family), cmd,
                                            name, fuzzer.errnos[what]))
    if args.verbose:
        print("\n".join(new[-40:]))
    if bad and not failure:
        failure = "the kernel logged: " + bad[0]
    if failure:
        print("kernel-netlink-fuzz: FAILED: %s (seed %d)" % (failure,
                                                          args.seed))
        if fuzzer.last:
            print("last request: family %d cmd %d payload %s"
                  % (fuzzer.last[0], fuzzer.last[1], fuzzer.last[2].hex()))
        print("\n".join(bad[:40] or new[-40:]))
        return 1
    print("kernel-netlink-fuzz: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

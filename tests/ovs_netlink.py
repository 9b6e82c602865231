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

"""The OVS generic-netlink families, spoken with the standard library only.

What the kernel tests' scripts (tests/kernel-*.py) share: the uapi
constants of include/uapi/linux/openvswitch.h (Linux 6.1), attributes
encoded as trees ([type, bytes or a list of attributes]) and decoded, and
a generic-netlink socket with request, reply and dump helpers, and the
parsing of the upcalls a socket receives.
"""

import socket
import struct

# Netlink and generic netlink.
NETLINK_GENERIC = 16
NLM_F_REQUEST = 0x1
NLM_F_MULTI = 0x2
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

# The families and their versions.
DP_FAMILY, DP_VERSION = "ovs_datapath", 2
VPORT_FAMILY, VPORT_VERSION = "ovs_vport", 1
FLOW_FAMILY, FLOW_VERSION = "ovs_flow", 1
PACKET_FAMILY, PACKET_VERSION = "ovs_packet", 1

OVS_DP_CMD_NEW, OVS_DP_CMD_DEL, OVS_DP_CMD_GET, OVS_DP_CMD_SET = 1, 2, 3, 4
OVS_DP_ATTR_NAME, OVS_DP_ATTR_UPCALL_PID = 1, 2
OVS_DP_ATTR_USER_FEATURES, OVS_DP_ATTR_PER_CPU_PIDS = 5, 8
OVS_DP_F_UNALIGNED, OVS_DP_F_VPORT_PIDS = 1, 2
OVS_DP_F_DISPATCH_UPCALL_PER_CPU = 8

OVS_VPORT_CMD_NEW, OVS_VPORT_CMD_DEL, OVS_VPORT_CMD_GET = 1, 2, 3
OVS_VPORT_ATTR_PORT_NO, OVS_VPORT_ATTR_TYPE, OVS_VPORT_ATTR_NAME = 1, 2, 3
OVS_VPORT_ATTR_UPCALL_PID = 5
OVS_VPORT_TYPE_NETDEV, OVS_VPORT_TYPE_INTERNAL = 1, 2

OVS_FLOW_CMD_NEW, OVS_FLOW_CMD_DEL, OVS_FLOW_CMD_GET, OVS_FLOW_CMD_SET = \
    1, 2, 3, 4
OVS_FLOW_ATTR_KEY, OVS_FLOW_ATTR_ACTIONS, OVS_FLOW_ATTR_STATS = 1, 2, 3
OVS_FLOW_ATTR_CLEAR, OVS_FLOW_ATTR_MASK, OVS_FLOW_ATTR_PROBE = 6, 7, 8
OVS_FLOW_ATTR_UFID, OVS_FLOW_ATTR_UFID_FLAGS = 9, 10

OVS_PACKET_CMD_MISS, OVS_PACKET_CMD_ACTION, OVS_PACKET_CMD_EXECUTE = 1, 2, 3
(OVS_PACKET_ATTR_PACKET, OVS_PACKET_ATTR_KEY, OVS_PACKET_ATTR_ACTIONS,
 OVS_PACKET_ATTR_USERDATA, OVS_PACKET_ATTR_EGRESS_TUN_KEY) = 1, 2, 3, 4, 5
OVS_PACKET_ATTR_PROBE, OVS_PACKET_ATTR_MRU, OVS_PACKET_ATTR_LEN = 8, 9, 10
OVS_PACKET_ATTR_HASH = 11

(K_ENCAP, K_PRIORITY, K_IN_PORT, K_ETHERNET, K_VLAN, K_ETHERTYPE, K_IPV4,
 K_IPV6, K_TCP, K_UDP, K_ICMP, K_ICMPV6, K_ARP, K_ND, K_SKB_MARK, K_TUNNEL,
 K_SCTP, K_TCP_FLAGS, K_DP_HASH, K_RECIRC_ID, K_MPLS) = range(1, 22)

(T_ID, T_IPV4_SRC, T_IPV4_DST, T_TOS, T_TTL, T_DF, T_CSUM, T_OAM,
 T_GENEVE_OPTS, T_TP_SRC, T_TP_DST, T_VXLAN_OPTS, T_IPV6_SRC, T_IPV6_DST,
 T_PAD, T_ERSPAN_OPTS, T_IPV4_INFO_BRIDGE) = range(0, 17)

(A_OUTPUT, A_USERSPACE, A_SET, A_PUSH_VLAN, A_POP_VLAN, A_SAMPLE, A_RECIRC,
 A_HASH, A_PUSH_MPLS, A_POP_MPLS, A_SET_MASKED, A_CT, A_TRUNC, A_PUSH_ETH,
 A_POP_ETH, A_CT_CLEAR, A_PUSH_NSH, A_POP_NSH, A_METER, A_CLONE,
 A_CHECK_PKT_LEN, A_ADD_MPLS, A_DEC_TTL) = range(1, 24)

U_PID, U_USERDATA, U_EGRESS_TUN_PORT, U_ACTIONS = 1, 2, 3, 4
S_PROBABILITY, S_ACTIONS = 1, 2
C_PKT_LEN, C_GREATER, C_LESS_EQUAL = 1, 2, 3

# The local port, and the port number that means none.
OVSP_LOCAL = 0
IN_PORT_NONE = 0xffff


def attr(t, payload):
    """An attribute: 'payload' is bytes, or a list of attributes."""
    return [t, payload]


def encode(attrs, ruin=None):
    """Encodes a list of attributes.  'ruin', if given, is called with each
    encoded attribute header's length and may return a replacement."""
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


def get_u32(b):
    return struct.unpack("=I", b[:4])[0]


def ovs_header(ifindex):
    """The family header of every OVS message: the datapath's ifindex."""
    return struct.pack("=i", ifindex)


class Netlink:
    """One generic-netlink socket with request/reply helpers."""

    def __init__(self, timeout=10):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.bind((0, 0))
        self.sock.settimeout(timeout)
        self.pid = self.sock.getsockname()[0]
        self.seq = 1
        self.families = {}

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
        if name in self.families:
            return self.families[name]
        payload = encode([attr(CTRL_ATTR_FAMILY_NAME,
                               name.encode() + b"\0")])
        err, msgs = self.transact(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1,
                                  payload)
        if err or not msgs:
            return None
        attrs = decode(msgs[0][4:])
        fid = struct.unpack("=H", attrs[CTRL_ATTR_FAMILY_ID][:2])[0]
        self.families[name] = fid
        return fid

    def ovs(self, family, version, cmd, ifindex, attrs, flags=NLM_F_ACK):
        """An OVS request: (errno, [replies' attributes as {type: bytes}],
        [replies' ifindexes])."""
        err, msgs = self.transact(self.family(family), cmd, version,
                                  ovs_header(ifindex) + encode(attrs),
                                  flags)
        return (err, [decode(m[8:]) for m in msgs],
                [struct.unpack("=i", m[4:8])[0] for m in msgs])


def parse_upcall(data):
    """Splits what an upcall socket received into messages: a list of
    (cmd, {attribute type: bytes})."""
    out = []
    while len(data) >= 16:
        length = struct.unpack("=I", data[:4])[0]
        if length < 24:
            break
        msg = data[16:length]
        out.append((msg[0], decode(msg[8:])))
        data = data[(length + 3) & ~3:]
    return out


def nested(payload):
    """Decodes a nested attribute's payload into (type, bytes) pairs, in
    order, repeated types kept."""
    out = []
    while len(payload) >= 4:
        length, t = struct.unpack("=HH", payload[:4])
        if length < 4:
            break
        out.append((t & 0x3fff, payload[4:length]))
        payload = payload[(length + 3) & ~3:]
    return out

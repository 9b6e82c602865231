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

"""The OVS generic-netlink families and rtnetlink, spoken with the
standard library only, for the kernel tests' scripts (the fuzzer in
tests/kernel_fuzz/, tests/kernel-netlink-check.py): sockets, the uapi
constants of include/uapi/linux/openvswitch.h (Linux 6.1), attribute
trees, and the parsing of upcalls.

An attribute tree is a list of [type, payload], the payload bytes or a
list (nested).  encode() writes one, with wrong lengths if asked;
decode() and decode_list() read leniently (replies to fuzzed requests);
parse_strict() reads what the kernel sends on its own (upcalls) and
raises FormatError on a length that does not fit or padding that is not
zero.
"""

import errno
import socket
import struct

# Netlink and generic netlink.
NETLINK_ROUTE = 0
NETLINK_GENERIC = 16
NLM_F_REQUEST = 0x1
NLM_F_MULTI = 0x2
NLM_F_ACK = 0x4
NLM_F_ECHO = 0x8
NLM_F_EXCL = 0x200
NLM_F_DUMP = 0x300
NLM_F_CREATE = 0x400
NLMSG_ERROR = 2
NLMSG_DONE = 3
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
SOL_NETLINK = 270
SO_RCVBUFFORCE = 33

# include/uapi/linux/openvswitch.h (Linux 6.1): the families, their
# versions, commands and attributes.
DP_FAMILY, DP_VERSION = "ovs_datapath", 2
VPORT_FAMILY, VPORT_VERSION = "ovs_vport", 1
FLOW_FAMILY, FLOW_VERSION = "ovs_flow", 1
PACKET_FAMILY, PACKET_VERSION = "ovs_packet", 1
OVS_DP_CMD_NEW, OVS_DP_CMD_DEL, OVS_DP_CMD_GET, OVS_DP_CMD_SET = 1, 2, 3, 4
OVS_DP_ATTR_NAME, OVS_DP_ATTR_UPCALL_PID = 1, 2
OVS_DP_ATTR_USER_FEATURES, OVS_DP_ATTR_PER_CPU_PIDS = 5, 8
OVS_DP_F_UNALIGNED, OVS_DP_F_VPORT_PIDS = 1, 2
OVS_DP_F_DISPATCH_UPCALL_PER_CPU = 8

OVS_VPORT_CMD_NEW, OVS_VPORT_CMD_DEL, OVS_VPORT_CMD_GET, \
    OVS_VPORT_CMD_SET = 1, 2, 3, 4
(OVS_VPORT_ATTR_PORT_NO, OVS_VPORT_ATTR_TYPE, OVS_VPORT_ATTR_NAME,
 OVS_VPORT_ATTR_OPTIONS, OVS_VPORT_ATTR_UPCALL_PID) = range(1, 6)
OVS_VPORT_TYPE_NETDEV, OVS_VPORT_TYPE_INTERNAL, OVS_VPORT_TYPE_GRE, \
    OVS_VPORT_TYPE_VXLAN, OVS_VPORT_TYPE_GENEVE = 1, 2, 3, 4, 5
OVS_TUNNEL_ATTR_DST_PORT = 1

OVS_FLOW_CMD_NEW, OVS_FLOW_CMD_DEL, OVS_FLOW_CMD_GET, OVS_FLOW_CMD_SET = \
    1, 2, 3, 4
OVS_FLOW_ATTR_KEY, OVS_FLOW_ATTR_ACTIONS = 1, 2
OVS_FLOW_ATTR_STATS, OVS_FLOW_ATTR_TCP_FLAGS, OVS_FLOW_ATTR_USED = 3, 4, 5
OVS_FLOW_ATTR_CLEAR, OVS_FLOW_ATTR_MASK, OVS_FLOW_ATTR_PROBE = 6, 7, 8
OVS_FLOW_ATTR_UFID, OVS_FLOW_ATTR_UFID_FLAGS = 9, 10
OVS_UFID_F_OMIT_KEY, OVS_UFID_F_OMIT_MASK, OVS_UFID_F_OMIT_ACTIONS = 1, 2, 4

METER_FAMILY, METER_VERSION = "ovs_meter", 1
OVS_METER_CMD_FEATURES, OVS_METER_CMD_SET, OVS_METER_CMD_DEL, \
    OVS_METER_CMD_GET = 1, 2, 3, 4
(OVS_METER_ATTR_ID, OVS_METER_ATTR_KBPS, OVS_METER_ATTR_STATS,
 OVS_METER_ATTR_BANDS, OVS_METER_ATTR_USED, OVS_METER_ATTR_CLEAR,
 OVS_METER_ATTR_MAX_METERS, OVS_METER_ATTR_MAX_BANDS) = range(1, 9)
OVS_BAND_ATTR_TYPE, OVS_BAND_ATTR_RATE, OVS_BAND_ATTR_BURST, \
    OVS_BAND_ATTR_STATS = 1, 2, 3, 4
OVS_METER_BAND_TYPE_DROP = 1

CT_LIMIT_FAMILY, CT_LIMIT_VERSION = "ovs_ct_limit", 1
OVS_CT_LIMIT_CMD_SET, OVS_CT_LIMIT_CMD_DEL, OVS_CT_LIMIT_CMD_GET = 1, 2, 3
OVS_CT_LIMIT_ATTR_ZONE_LIMIT = 1
OVS_ZONE_LIMIT_DEFAULT_ZONE = -1

# Our own family (datapath/ovsp-genl.h).
PCPU_FAMILY, PCPU_VERSION = "ovsp_percpu", 1
OVSP_PCPU_CMD_CT_LIMIT_GET = 3
OVSP_PCPU_ATTR_N_CPUS, OVSP_PCPU_ATTR_SLOT = 2, 5
OVSP_PCPU_SLOT_ATTR_CPU = 1
OVSP_PCPU_SLOT_ATTR_CT_REFUSED, OVSP_PCPU_SLOT_ATTR_CT_UNCOUNTED = 7, 8

OVS_PACKET_CMD_MISS, OVS_PACKET_CMD_ACTION, OVS_PACKET_CMD_EXECUTE = 1, 2, 3
(OVS_PACKET_ATTR_PACKET, OVS_PACKET_ATTR_KEY, OVS_PACKET_ATTR_ACTIONS,
 OVS_PACKET_ATTR_USERDATA, OVS_PACKET_ATTR_EGRESS_TUN_KEY) = range(1, 6)
OVS_PACKET_ATTR_PROBE, OVS_PACKET_ATTR_MRU, OVS_PACKET_ATTR_LEN, \
    OVS_PACKET_ATTR_HASH = 8, 9, 10, 11

(K_ENCAP, K_PRIORITY, K_IN_PORT, K_ETHERNET, K_VLAN, K_ETHERTYPE, K_IPV4,
 K_IPV6, K_TCP, K_UDP, K_ICMP, K_ICMPV6, K_ARP, K_ND, K_SKB_MARK, K_TUNNEL,
 K_SCTP, K_TCP_FLAGS, K_DP_HASH, K_RECIRC_ID, K_MPLS) = range(1, 22)
(K_CT_STATE, K_CT_ZONE, K_CT_MARK, K_CT_LABELS, K_CT_ORIG_TUPLE_IPV4,
 K_CT_ORIG_TUPLE_IPV6) = range(22, 28)
K_MAX = 32

(T_ID, T_IPV4_SRC, T_IPV4_DST, T_TOS, T_TTL, T_DF, T_CSUM, T_OAM,
 T_GENEVE_OPTS, T_TP_SRC, T_TP_DST, T_VXLAN_OPTS, T_IPV6_SRC, T_IPV6_DST,
 T_PAD, T_ERSPAN_OPTS, T_IPV4_INFO_BRIDGE) = range(0, 17)
T_FLAGS = (T_DF, T_CSUM, T_OAM)

(A_OUTPUT, A_USERSPACE, A_SET, A_PUSH_VLAN, A_POP_VLAN, A_SAMPLE, A_RECIRC,
 A_HASH, A_PUSH_MPLS, A_POP_MPLS, A_SET_MASKED, A_CT, A_TRUNC, A_PUSH_ETH,
 A_POP_ETH, A_CT_CLEAR, A_PUSH_NSH, A_POP_NSH, A_METER, A_CLONE,
 A_CHECK_PKT_LEN, A_ADD_MPLS, A_DEC_TTL) = range(1, 24)
A_MAX = 23
# OVS_CT_ATTR_* (the ct() action) and OVS_NAT_ATTR_* (its NAT nest).
(CT_COMMIT, CT_ZONE, CT_MARK, CT_LABELS, CT_HELPER, CT_NAT, CT_FORCE_COMMIT,
 CT_EVENTMASK, CT_TIMEOUT) = range(1, 10)
(NAT_SRC, NAT_DST, NAT_IP_MIN, NAT_IP_MAX, NAT_PROTO_MIN, NAT_PROTO_MAX,
 NAT_PERSISTENT, NAT_PROTO_HASH, NAT_PROTO_RANDOM) = range(1, 10)
A_NESTED = (A_USERSPACE, A_SET, A_SAMPLE, A_SET_MASKED, A_CLONE,
            A_CHECK_PKT_LEN)

U_PID, U_USERDATA, U_EGRESS_TUN_PORT, U_ACTIONS = 1, 2, 3, 4
S_PROBABILITY, S_ACTIONS = 1, 2
C_PKT_LEN, C_GREATER, C_LESS_EQUAL = 1, 2, 3

# DP_MAX_PORTS in Linux (USHRT_MAX): port numbers are below it, and an
# absent in_port is it.  The local port is 0.
DP_MAX_PORTS = 65535
OVSP_LOCAL = 0

# rtnetlink (include/uapi/linux/rtnetlink.h, if_link.h, if_tunnel.h).
RTM_NEWLINK, RTM_DELLINK, RTM_GETLINK, RTM_SETLINK = 16, 17, 18, 19
RTM_NEWADDR = 20
IFLA_IFNAME, IFLA_MTU, IFLA_LINKINFO, IFLA_NET_NS_PID = 3, 4, 18, 19
IFLA_NET_NS_FD = 28
IFLA_INFO_KIND, IFLA_INFO_DATA = 1, 2
VETH_INFO_PEER = 1
IFLA_GENEVE_PORT, IFLA_GENEVE_COLLECT_METADATA = 5, 6
IFLA_VXLAN_PORT, IFLA_VXLAN_COLLECT_METADATA = 15, 25
IFLA_GRE_COLLECT_METADATA = 18
IFF_UP = 1
IFA_LOCAL, IFA_ADDRESS = 2, 1


class FormatError(Exception):
    """Bytes from the kernel that are not well-formed netlink."""


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
    """Decodes flat attributes into {type: payload} (the last wins)."""
    return dict(decode_list(buf))


def decode_list(buf):
    """Decodes flat attributes into [(type, payload)], leniently."""
    out = []
    while len(buf) >= 4:
        length, t = struct.unpack("=HH", buf[:4])
        if length < 4:
            break
        out.append((t & 0x3fff, buf[4:length]))
        buf = buf[(length + 3) & ~3:]
    return out


def parse_strict(buf, what="attributes"):
    """Decodes flat attributes into [(type, payload)]; raises FormatError
    if one does not fit or its padding is not zero.  The last attribute
    may end the buffer unpadded (OVS_DP_F_UNALIGNED)."""
    out = []
    off = 0
    while off < len(buf):
        if len(buf) - off < 4:
            raise FormatError("%s: %d stray bytes at %d"
                              % (what, len(buf) - off, off))
        length, t = struct.unpack("=HH", buf[off:off + 4])
        if length < 4 or off + length > len(buf):
            raise FormatError("%s: attribute %d of length %d at %d of %d"
                              % (what, t & 0x3fff, length, off, len(buf)))
        out.append((t & 0x3fff, buf[off + 4:off + length]))
        end = min(len(buf), (off + length + 3) & ~3)
        if any(buf[off + length:end]):
            raise FormatError("%s: padding after attribute %d is %s, not "
                              "zero" % (what, t & 0x3fff,
                                        buf[off + length:end].hex()))
        off = end
    return out


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
    return struct.unpack("=I", b[:4])[0] if len(b) >= 4 else None


def ovs_header(ifindex):
    return struct.pack("=i", ifindex)


class Netlink:
    """One netlink socket with request/reply helpers."""

    def __init__(self, proto=NETLINK_GENERIC, rcvbuf=None):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
        if rcvbuf:
            for opt in (SO_RCVBUFFORCE, socket.SO_RCVBUF):
                try:
                    self.sock.setsockopt(socket.SOL_SOCKET, opt, rcvbuf)
                    break
                except OSError:
                    pass
        self.sock.bind((0, 0))
        self.sock.settimeout(10)
        self.pid = self.sock.getsockname()[0]
        self.seq = 1

    def close(self):
        self.sock.close()

    def send_raw(self, mtype, flags, body):
        """Sends one message; returns its sequence number."""
        self.seq += 1
        hdr = struct.pack("=IHHII", 16 + len(body), mtype,
                          flags | NLM_F_REQUEST, self.seq, 0)
        self.sock.send(hdr + body)
        return self.seq

    def send(self, family, cmd, version, payload, flags):
        """Sends one generic-netlink message; returns its sequence
        number."""
        return self.send_raw(family, flags,
                             struct.pack("=BBH", cmd, version, 0) + payload)

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

    def transact_raw(self, mtype, body, flags=NLM_F_ACK):
        """Sends a request and returns (errno, [reply payloads])."""
        seq = self.send_raw(mtype, flags, body)
        msgs = []
        for rtype, msg in self.replies(seq):
            if rtype == NLMSG_ERROR:
                return msg, msgs
            if rtype == NLMSG_DONE:
                return 0, msgs
            msgs.append(msg)
        return 0, msgs

    def transact(self, family, cmd, version, payload, flags=NLM_F_ACK):
        """Sends a generic-netlink request and returns (errno, [reply
        payloads, generic-netlink header included])."""
        return self.transact_raw(family,
                                 struct.pack("=BBH", cmd, version, 0)
                                 + payload, flags)

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

    def ovs(self, family, version, cmd, ifindex, attrs, flags=NLM_F_ACK):
        """An OVS request: (errno, [replies' attributes as {type: bytes}],
        [replies' ifindexes])."""
        err, msgs = self.transact(self.family(family), cmd, version,
                                  ovs_header(ifindex) + encode(attrs),
                                  flags)
        return (err, [decode(m[8:]) for m in msgs],
                [struct.unpack("=i", m[4:8])[0] for m in msgs])

    def pending(self):
        """Every datagram waiting on the socket, without blocking.  An
        overrun (ENOBUFS) is returned as None in the list."""
        out = []
        self.sock.setblocking(False)
        try:
            while True:
                try:
                    out.append(self.sock.recv(1 << 17))
                except BlockingIOError:
                    break
                except OSError as e:
                    if e.errno != errno.ENOBUFS:
                        raise
                    out.append(None)
        finally:
            self.sock.settimeout(10)
        return out


def ifinfomsg(index=0, flags=0, change=0):
    return struct.pack("=BxHiII", socket.AF_UNSPEC, 0, index, flags, change)


class Route(Netlink):
    """An rtnetlink socket: links and addresses of the current namespace."""

    def __init__(self):
        super().__init__(NETLINK_ROUTE)

    def link_add(self, name, kind, data=None, peer=None, mtu=None):
        """Creates link 'name' of 'kind' with IFLA_INFO_DATA 'data' (an
        attribute list) and, for a veth, peer name 'peer'.  Returns 0 or
        an errno."""
        info = [attr(IFLA_INFO_KIND, kind.encode())]
        if peer is not None:
            info.append(attr(IFLA_INFO_DATA, [attr(
                VETH_INFO_PEER, ifinfomsg() + encode(
                    [attr(IFLA_IFNAME, peer.encode() + b"\0")]))]))
        elif data is not None:
            info.append(attr(IFLA_INFO_DATA, data))
        attrs = [attr(IFLA_IFNAME, name.encode() + b"\0"),
                 attr(IFLA_LINKINFO, info)]
        if mtu:
            attrs.append(attr(IFLA_MTU, u32(mtu)))
        err, _ = self.transact_raw(
            RTM_NEWLINK, ifinfomsg() + encode(attrs),
            NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL)
        return err

    def link_up(self, name):
        """Sets link 'name' up.  Returns 0 or an errno."""
        try:
            index = socket.if_nametoindex(name)
        except OSError as e:
            return e.errno
        err, _ = self.transact_raw(RTM_NEWLINK,
                                   ifinfomsg(index, IFF_UP, IFF_UP))
        return err

    def link_del(self, name):
        """Deletes link 'name'.  Returns 0 or an errno."""
        try:
            index = socket.if_nametoindex(name)
        except OSError as e:
            return e.errno
        err, _ = self.transact_raw(RTM_DELLINK, ifinfomsg(index))
        return err

    def link_to_netns(self, name, pid):
        """Moves link 'name' to the network namespace of process 'pid'.
        Returns 0 or an errno."""
        try:
            index = socket.if_nametoindex(name)
        except OSError as e:
            return e.errno
        err, _ = self.transact_raw(
            RTM_NEWLINK, ifinfomsg(index) + encode(
                [attr(IFLA_NET_NS_PID, u32(pid))]))
        return err

    def addr_add(self, name, addr, prefix):
        """Adds IPv4 address 'addr' (bytes)/'prefix' to link 'name'."""
        try:
            index = socket.if_nametoindex(name)
        except OSError as e:
            return e.errno
        body = struct.pack("=BBBBi", socket.AF_INET, prefix, 0, 0, index)
        err, _ = self.transact_raw(
            RTM_NEWADDR, body + encode([attr(IFA_LOCAL, addr),
                                        attr(IFA_ADDRESS, addr)]),
            NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL)
        return err


def meter_band(rate, burst, btype=OVS_METER_BAND_TYPE_DROP):
    """A band nest of an OVS_METER_CMD_SET request."""
    return attr(0, [attr(OVS_BAND_ATTR_TYPE, u32(btype)),
                    attr(OVS_BAND_ATTR_RATE, u32(rate)),
                    attr(OVS_BAND_ATTR_BURST, u32(burst))])


def meter_set(meter_id, bands, kbps=False, extra=()):
    """The attributes of an OVS_METER_CMD_SET of meter 'meter_id' with
    band nests 'bands'."""
    attrs = [attr(OVS_METER_ATTR_ID, u32(meter_id))]
    if kbps:
        attrs.append(attr(OVS_METER_ATTR_KBPS, b""))
    return attrs + [attr(OVS_METER_ATTR_BANDS, bands)] + list(extra)


def meter_stats(a):
    """The statistics in meter reply attributes 'a' ({type: bytes}):
    ((packets, bytes) or None, [(packets, bytes) or None for each band
    nest] or None)."""
    def stats(b):
        return struct.unpack("=QQ", b[:16]) if len(b) >= 16 else None

    total = (stats(a[OVS_METER_ATTR_STATS])
             if OVS_METER_ATTR_STATS in a else None)
    bands = None
    if OVS_METER_ATTR_BANDS in a:
        bands = [stats(decode(b).get(OVS_BAND_ATTR_STATS, b""))
                 for _, b in decode_list(a[OVS_METER_ATTR_BANDS])]
    return total, bands


def zone_limit(zone_id, limit, count=0):
    """One struct ovs_zone_limit {int zone_id; u32 limit; u32 count}."""
    return struct.pack("=iII", zone_id, limit & 0xffffffff,
                       count & 0xffffffff)


def zone_limits(entries):
    """OVS_CT_LIMIT_ATTR_ZONE_LIMIT's payload: back-to-back entries of
    (zone_id, limit) or (zone_id, limit, count)."""
    return b"".join(zone_limit(*e) for e in entries)


def parse_zone_limits(b):
    """A reply's OVS_CT_LIMIT_ATTR_ZONE_LIMIT: [(zone_id, limit, count)],
    and the bytes left over."""
    n = len(b) // 12
    return ([struct.unpack("=iII", b[12 * i:12 * i + 12]) for i in range(n)],
            len(b) - 12 * n)


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

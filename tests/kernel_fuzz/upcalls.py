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

"""What a datapath was sent, and the check that every upcall it sends
back carries only that.

An upcall (OVS_PACKET_CMD_MISS or _ACTION, net/openvswitch/datapath.c
queue_userspace_packet() in Linux) is built from the packet, its flow
key and, for a userspace action (actions.c output_userspace()), the
action's userdata, the egress tunnel key of the port it names (the
tunnel that set(tunnel()) attached, its options included, with the
source address and ports the device fills in) and the action list.  So:

- every attribute is well formed, and every padding byte zero
  (upcall-format);
- the datapath is one of ours, and a MISS carries no userdata, egress
  tunnel key or actions (upcall-format);
- USERDATA is bytes a request to this datapath put there, and the exact
  userdata of the action when the request is one of the strict shapes
  (upcall-userdata);
- the Geneve, VXLAN and ERSPAN options of OVS_PACKET_ATTR_EGRESS_TUN_KEY
  and of the key's tunnel are bytes a request put there; for the tunnel
  shape, the egress key is the set(tunnel()) before the action, attribute
  by attribute and the options byte for byte (upcall-egress-tun,
  upcall-key-tunnel);
- the packet of a frame sent by a strict shape (one whose actions never
  change the packet) is that frame, or with OVS_PACKET_ATTR_LEN its
  first bytes (upcall-packet); frames carry a tag in their source MAC;
- the leaves of OVS_PACKET_ATTR_ACTIONS are bytes a request put there
  (upcall-actions);
- a MISS from a vport carries the vport's number as its in_port
  (upcall-in-port).
"""

import struct

from ovs_netlink import (FormatError, parse_strict, decode_list, get_u32,
                 OVS_PACKET_CMD_MISS, OVS_PACKET_CMD_ACTION,
                 OVS_PACKET_ATTR_PACKET, OVS_PACKET_ATTR_KEY,
                 OVS_PACKET_ATTR_ACTIONS, OVS_PACKET_ATTR_USERDATA,
                 OVS_PACKET_ATTR_EGRESS_TUN_KEY, OVS_PACKET_ATTR_LEN,
                 OVS_PACKET_ATTR_MRU, OVS_PACKET_ATTR_HASH,
                 K_TUNNEL, K_IN_PORT, K_ENCAP, T_GENEVE_OPTS, T_VXLAN_OPTS,
                 T_ERSPAN_OPTS, T_IPV4_SRC, T_IPV4_DST, T_IPV6_SRC,
                 T_IPV6_DST, T_TOS, T_TP_SRC, T_TP_DST, T_FLAGS,
                 T_IPV4_INFO_BRIDGE,
                 A_USERSPACE, A_SET, A_SAMPLE, A_SET_MASKED, A_CLONE,
                 A_CHECK_PKT_LEN, A_CT, A_DEC_TTL, S_ACTIONS, C_GREATER,
                 C_LESS_EQUAL, encode)

# The source MAC of every frame the fuzzer builds: 02:f7, then a tag.
TAG_PREFIX = b"\x02\xf7"
# Userdata the strict shapes put: this prefix, then a counter.
USERDATA_PREFIX = b"\xf7\x75"
# Bytes of request history kept per datapath before it is flushed.
HISTORY_MAX = 1 << 20
# Between two requests in the history: no run of a request crosses it.
HISTORY_SEP = b"\xff\xfe\xfd\xfc"


def frame_tag(frame):
    """The tag in the source MAC of 'frame', or None."""
    if len(frame) >= 12 and frame[6:8] == TAG_PREFIX:
        return struct.unpack("!I", frame[8:12])[0]
    return None


def tag_frame(frame, tag):
    return frame[:6] + TAG_PREFIX + struct.pack("!I", tag) + frame[12:]


class Registry:
    """What the fuzzer sent one datapath since its last flush."""

    def __init__(self, name, ifindex):
        self.name = name
        self.ifindex = ifindex
        self.history = bytearray()  # Payloads of requests, as sent.
        self.frames = {}        # Tag: (frame, strict, the port it was
                                # received on or None).
        self.userdata = {}      # Userdata: the egress tunnel key expected
                                # ({type: payload}), False for none, None
                                # if not known.
        self.key_tunnels = {}   # Frame tag: expected key tunnel attrs.
        self.seen = set()       # Userdata of the strict shapes seen.
        self.record = True      # Whether to keep what was sent.

    def sent(self, payload):
        if self.record:
            self.history += HISTORY_SEP + payload

    @property
    def size(self):
        return len(self.history)

    def put_there(self, b):
        """Whether bytes 'b' are a run of some request's bytes."""
        return not b or b in self.history

    def flushed(self):
        self.history = bytearray()
        self.frames = {}
        self.userdata = {}
        self.key_tunnels = {}
        self.seen = set()


def leaves(buf, kind, out, depth=0):
    """Collects the leaf payloads of attribute list 'buf' of 'kind'
    ("actions", "key", "tunnel", or "leaf" for a flat list) into 'out'."""
    if depth > 40:
        return
    for t, p in decode_list(buf):
        if kind == "actions":
            if t in (A_CLONE,):
                leaves(p, "actions", out, depth + 1)
            elif t == A_SAMPLE:
                for t2, p2 in decode_list(p):
                    if t2 == S_ACTIONS:
                        leaves(p2, "actions", out, depth + 1)
                    else:
                        out.append(p2)
            elif t == A_CHECK_PKT_LEN:
                for t2, p2 in decode_list(p):
                    if t2 in (C_GREATER, C_LESS_EQUAL):
                        leaves(p2, "actions", out, depth + 1)
                    else:
                        out.append(p2)
            elif t in (A_SET, A_SET_MASKED):
                leaves(p, "key", out, depth + 1)
            elif t in (A_CT, A_DEC_TTL):
                # Linux writes these anew (ct() gains its zone).
                continue
            elif t == A_USERSPACE:
                leaves(p, "leaf", out, depth + 1)
            else:
                out.append(p)
        elif kind == "key":
            if t == K_TUNNEL:
                leaves(p, "tunnel", out, depth + 1)
            elif t == K_ENCAP:
                leaves(p, "key", out, depth + 1)
            else:
                out.append(p)
        elif kind == "tunnel" and t == T_VXLAN_OPTS:
            leaves(p, "leaf", out, depth + 1)
        else:
            out.append(p)


def tunnel_fields(buf):
    """Strictly parsed tunnel attributes: {type: payload}; raises
    FormatError on a duplicate or malformed attribute."""
    out = {}
    for t, p in parse_strict(buf, "tunnel key"):
        if t in out:
            raise FormatError("tunnel key: attribute %d twice" % t)
        out[t] = p
    return out


def tunnel_differences(got, want, egress):
    """How tunnel attributes 'got' differ from 'want' (both {type:
    payload}); attributes that Linux writes only when not zero count as
    zero when absent.  For an egress key, the device fills in the
    source address and the UDP ports, so those are not compared."""
    skip = {T_TP_SRC, T_TP_DST, T_IPV4_SRC, T_IPV6_SRC} if egress else set()
    zero_when_absent = {T_IPV4_SRC: 4, T_IPV4_DST: 4, T_IPV6_SRC: 16,
                        T_IPV6_DST: 16, T_TOS: 1, T_TP_SRC: 2, T_TP_DST: 2}
    out = []
    for t in sorted(set(got) | set(want)):
        if t in skip:
            continue
        g, w = got.get(t), want.get(t)
        if t in zero_when_absent:
            g = g if g is not None else bytes(zero_when_absent[t])
            w = w if w is not None else bytes(zero_when_absent[t])
        if t == T_GENEVE_OPTS:
            g, w = g or b"", w or b""
        if g != w:
            out.append("attribute %d: %s, not %s"
                       % (t, "absent" if g is None else g.hex() or "empty",
                          "absent" if w is None else w.hex() or "empty"))
    return out


class Checker:
    """Checks upcalls against the registries of one namespace's
    datapaths."""

    def __init__(self):
        self.registries = {}    # dp ifindex: Registry.
        self.counts = {"miss": 0, "action": 0, "strict": 0,
                       "egress": 0, "overrun": 0, "foreign-dp": 0}

    def add(self, reg):
        self.registries[reg.ifindex] = reg

    def check(self, data):
        """Checks one datagram of the upcall socket; returns [(check,
        message)]."""
        out = []
        while len(data) >= 16:
            length, _mtype, _flags, _seq, _pid = \
                struct.unpack("=IHHII", data[:16])
            if length < 24 or length > len(data):
                return out + [("upcall-format", "netlink message of %d "
                               "bytes in a datagram of %d"
                               % (length, len(data)))]
            out += self.check_msg(data[16:length])
            data = data[(length + 3) & ~3:]
        return out

    def check_msg(self, msg):
        cmd = msg[0]
        ifindex = struct.unpack("=i", msg[4:8])[0]
        reg = self.registries.get(ifindex)
        if cmd not in (OVS_PACKET_CMD_MISS, OVS_PACKET_CMD_ACTION):
            return [("upcall-format", "upcall command %d" % cmd)]
        if reg is None:
            self.counts["foreign-dp"] += 1
            return [("upcall-format", "upcall from datapath ifindex %d, "
                     "not one of this namespace's (%s)"
                     % (ifindex, sorted(self.registries)))]
        try:
            attrs = parse_strict(msg[8:], "upcall")
            seen = {}
            for t, p in attrs:
                if t in seen:
                    raise FormatError("upcall: attribute %d twice" % t)
                seen[t] = p
            if OVS_PACKET_ATTR_KEY in seen:
                parse_strict(seen[OVS_PACKET_ATTR_KEY], "upcall key")
        except FormatError as e:
            return [("upcall-format", "%s (datapath %s)" % (e, reg.name))]
        self.counts["miss" if cmd == OVS_PACKET_CMD_MISS else "action"] += 1
        return self.check_attrs(reg, cmd, seen)

    def check_attrs(self, reg, cmd, a):
        out = []
        what = "%s upcall of datapath %s" % (
            "MISS" if cmd == OVS_PACKET_CMD_MISS else "ACTION", reg.name)
        packet = a.get(OVS_PACKET_ATTR_PACKET)
        key = a.get(OVS_PACKET_ATTR_KEY)
        if packet is None or key is None:
            return [("upcall-format", "%s without %s" % (
                what, "a packet" if packet is None else "a key"))]
        for t, n in ((OVS_PACKET_ATTR_LEN, 4), (OVS_PACKET_ATTR_MRU, 2),
                     (OVS_PACKET_ATTR_HASH, 8)):
            if t in a and len(a[t]) != n:
                out.append(("upcall-format", "%s: attribute %d of %d bytes"
                            % (what, t, len(a[t]))))
        if cmd == OVS_PACKET_CMD_MISS:
            for t in (OVS_PACKET_ATTR_USERDATA,
                      OVS_PACKET_ATTR_EGRESS_TUN_KEY,
                      OVS_PACKET_ATTR_ACTIONS):
                if t in a:
                    out.append(("upcall-format", "%s carries attribute %d"
                                % (what, t)))

        # The packet.
        tag = frame_tag(packet)
        sent = reg.frames.get(tag) if tag is not None else None
        if sent is not None and sent[1]:
            self.counts["strict"] += 1
            frame = sent[0]
            full = a.get(OVS_PACKET_ATTR_LEN)
            if full is not None:
                if get_u32(full) != len(frame) or \
                        packet != frame[:len(packet)]:
                    out.append(("upcall-packet",
                                "%s: %d bytes (LEN %s) that are not the "
                                "first bytes of frame %d (%d bytes)\n got "
                                "%s\nsent %s" % (what, len(packet),
                                                 get_u32(full), tag,
                                                 len(frame), packet.hex(),
                                                 frame.hex())))
            elif packet != frame:
                out.append(("upcall-packet",
                            "%s: %d bytes, not frame %d (%d bytes)\n got "
                            "%s\nsent %s" % (what, len(packet), tag,
                                             len(frame), packet.hex(),
                                             frame.hex())))

        # The key: its tunnel, its in_port.
        kattrs = dict(decode_list(key))
        if K_TUNNEL in kattrs:
            out += self.check_tunnel(reg, what, "key", kattrs[K_TUNNEL],
                                     reg.key_tunnels.get(tag), False)
        elif tag in reg.key_tunnels and sent is not None:
            out.append(("upcall-key-tunnel", "%s: frame %d was sent with a "
                        "tunnel key, the upcall's key has none"
                        % (what, tag)))
        if cmd == OVS_PACKET_CMD_MISS and tag is not None and \
                sent is not None and sent[2] is not None:
            port = kattrs.get(K_IN_PORT)
            if port is None or get_u32(port) != sent[2]:
                out.append(("upcall-in-port",
                            "%s: frame %d received on port %d has in_port "
                            "%s" % (what, tag, sent[2], port and
                                    get_u32(port))))

        # Userdata.
        ud = a.get(OVS_PACKET_ATTR_USERDATA)
        expect = None
        if ud is not None:
            if not reg.put_there(ud):
                out.append(("upcall-userdata",
                            "%s: %d bytes of userdata that no request put "
                            "there: %s" % (what, len(ud), ud.hex())))
            elif ud.startswith(USERDATA_PREFIX) and reg.userdata:
                if ud not in reg.userdata:
                    out.append(("upcall-userdata",
                                "%s: userdata %s is not an action's "
                                "userdata" % (what, ud.hex())))
                expect = reg.userdata.get(ud)
                reg.seen.add(ud)

        # The egress tunnel key.
        egress = a.get(OVS_PACKET_ATTR_EGRESS_TUN_KEY)
        if egress is not None:
            self.counts["egress"] += 1
            if expect is not None and expect is False:
                out.append(("upcall-egress-tun",
                            "%s: an egress tunnel key for an action that "
                            "named no tunnel port" % what))
            else:
                out += self.check_tunnel(reg, what, "egress", egress,
                                         expect, True)

        # The actions.
        acts = a.get(OVS_PACKET_ATTR_ACTIONS)
        if acts is not None:
            found = []
            leaves(acts, "actions", found)
            for leaf in found:
                if len(leaf) >= 4 and not reg.put_there(leaf):
                    out.append(("upcall-actions",
                                "%s: action bytes no request put there: "
                                "%s" % (what, leaf.hex())))
                    break
        return out

    def check_tunnel(self, reg, what, where, buf, expect, egress):
        """Checks tunnel key attributes 'buf' ('where': "key" or "egress")
        against 'expect' ({type: payload}, or None if not known)."""
        check = "upcall-egress-tun" if egress else "upcall-key-tunnel"
        try:
            got = tunnel_fields(buf)
        except FormatError as e:
            return [("upcall-format", "%s: %s %s" % (what, where, e))]
        out = []
        for t in (T_GENEVE_OPTS, T_ERSPAN_OPTS):
            if t in got and not reg.put_there(got[t]):
                out.append((check, "%s: %s tunnel options (attribute %d, "
                            "%d bytes) that no request put there: %s"
                            % (what, where, t, len(got[t]), got[t].hex())))
        if T_VXLAN_OPTS in got:
            for _t, p in decode_list(got[T_VXLAN_OPTS]):
                if not reg.put_there(p):
                    out.append((check, "%s: %s VXLAN option %s that no "
                                "request put there" % (what, where,
                                                       p.hex())))
        if expect:
            diffs = tunnel_differences(got, expect, egress)
            if diffs:
                out.append((check, "%s: %s tunnel key differs from the "
                            "one set: %s" % (what, where, "; ".join(diffs))))
        return out


def expected_tunnel(attrs):
    """The {type: payload} an upcall should show for tunnel attribute list
    'attrs' as sent (leaves only; VXLAN options re-encoded as Linux
    writes them)."""
    out = {}
    for t, p in attrs:
        if t == T_VXLAN_OPTS:
            out[t] = encode(p)
        elif t in T_FLAGS or t == T_IPV4_INFO_BRIDGE:
            out[t] = b""
        else:
            out[t] = p
    return out


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

"""Valid seeds (flow keys, masks, actions, packets, tunnel keys with
Geneve options, nested action lists) and their mutations.

Every generator takes a random.Random, so that a seed repeats a run.
"""

import errno
import struct

from ovs_netlink import *  # noqa: F401,F403 (the ABI's constants)


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
            # Linux's match_validate() wants tcp_flags with every TCP key.
            a += [attr(K_TCP, be16(1) + be16(2)),
                  attr(K_TCP_FLAGS, be16(0x10))]
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
    # Ethertypes without a layer 3 (IPv4's needs its ipv4 attribute).
    return [attr(K_ETHERTYPE, be16(r.choice([0x1234, 0x88cc, 0x88b5])))]


def flow_key(r):
    """A valid flow key as an attribute list."""
    k = [attr(K_RECIRC_ID, u32(r.choice([0, 0, 1, 5]))),
         attr(K_DP_HASH, u32(r.choice([0, 7]))),
         attr(K_PRIORITY, u32(0)),
         attr(K_IN_PORT, u32(r.choice([0, 1, 2, 100]))),
         attr(K_SKB_MARK, u32(0))]
    if r.random() < 0.2:
        k.append(attr(K_TUNNEL, tunnel_attrs(r)))
    if r.random() < 0.3:
        k += ct_key(r)
    if r.random() < 0.15:
        # A layer-3 packet: no Ethernet header.
        return k + [attr(K_ETHERTYPE, be16(0x0800)),
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


def actions(r, depth=0, upcall_pid=4242):
    """A list of actions, mostly valid for some key; userspace actions
    send to PID 1, 4242 or 'upcall_pid'."""
    acts = []
    for _ in range(r.randrange(1, 6)):
        kind = r.randrange(17 if depth < 4 else 13)
        if kind == 0:
            acts.append(attr(A_OUTPUT, u32(r.choice([0, 1, 2, 65535]))))
        elif kind == 1:
            u = [attr(U_PID, u32(r.choice([1, 4242, upcall_pid]))),
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
                attr(S_ACTIONS, actions(r, depth + 1, upcall_pid))]))
        elif kind == 14:
            acts.append(attr(A_CLONE, actions(r, depth + 1, upcall_pid)))
        elif kind == 15:
            acts.append(attr(A_CHECK_PKT_LEN, [
                attr(C_PKT_LEN, u16(r.choice([1, 64, 1500]))),
                attr(C_GREATER, actions(r, depth + 1, upcall_pid)),
                attr(C_LESS_EQUAL, actions(r, depth + 1, upcall_pid))]))
        elif r.random() < 0.4:
            acts.append(r.choice([ct_action(r), attr(A_CT_CLEAR, b"")]))
        else:
            # Unsupported or unknown: refused, never a crash.  (A meter
            # of 4 bytes is carried, and meets no meter: it passes; an
            # empty ct() is carried, a ct_clear of 0 bytes too.)
            acts.append(attr(r.choice([A_CT, A_CT_CLEAR, A_METER, A_DEC_TTL,
                                       A_PUSH_NSH, A_POP_NSH, 24, 99]),
                             bytes(r.choice([0, 4, 8]))))
    return acts


def ct_action(r):
    """A ct() action: mostly what OVS sends (zone, commit, mark and labels
    with masks, eventmask, timeout names), and the hostile corners (wrong
    lengths, zero masks, mark without commit, names without their NUL,
    NAT and helpers, unknown and repeated attributes, trailing bytes)."""
    a = []
    if r.random() < 0.5:
        a.append(attr(r.choice([CT_COMMIT, CT_COMMIT, CT_FORCE_COMMIT]),
                      b""))
    if r.random() < 0.7:
        a.append(attr(CT_ZONE, u16(r.choice([0, 0, 1, 5, 65535]))))
    if r.random() < 0.3:
        a.append(attr(CT_MARK, u32(r.randrange(1 << 32)) +
                      u32(r.choice([0, 1, 0xff, 0xffffffff]))))
    if r.random() < 0.3:
        a.append(attr(CT_LABELS, bytes(r.randrange(256) for _ in range(16))
                      + r.choice([bytes(16), b"\xff" * 16,
                                  b"\1" + bytes(15)])))
    if r.random() < 0.3:
        a.append(attr(CT_EVENTMASK, u32(r.choice([0x487, 0xffffffff, 0]))))
    if r.random() < 0.2:
        a.append(attr(CT_TIMEOUT, r.choice([b"ovs_test_tp\0", b"x\0",
                                            b"no-nul", b"a" * 31 + b"\0",
                                            b"a" * 40 + b"\0", b""])))
    if r.random() < 0.1:
        a.append(attr(CT_HELPER, r.choice([b"ftp\0", b"tftp\0",
                                           b"nosuch\0"])))
    if r.random() < 0.15:
        a.append(nat_nest(r, r.random() < 0.5, True)[0])
    if r.random() < 0.1:
        # Lengths that are wrong for the type, unknown types, repeats.
        a.append(attr(r.choice([CT_ZONE, CT_MARK, CT_LABELS, CT_EVENTMASK,
                                CT_COMMIT, 0, 10, 99]),
                      bytes(r.choice([0, 1, 3, 4, 9, 33]))))
    if a and r.random() < 0.05:
        a.append(a[0])
    r.shuffle(a)
    return attr(A_CT, a)


# The payload length of each OVS_NAT_ATTR_* type in a flow of IPv4 or
# IPv6 (Linux's parse_nat() table); types not listed take none.
NAT_LENS = {NAT_IP_MIN: (4, 16), NAT_IP_MAX: (4, 16),
            NAT_PROTO_MIN: (2, 2), NAT_PROTO_MAX: (2, 2)}


def nat_nest(r, v6, commit):
    """An OVS_CT_ATTR_NAT nest for a ct() of an IPv4 or IPv6 flow ('v6')
    that has said COMMIT before the nest or not ('commit'): mostly what
    OVS sends (src or dst, an address range, a port range, the flags),
    else the hostile corners (both src and dst, repeats, lengths of the
    other family or type, unknown types, flags without src or dst,
    trailing bytes).  Returns (attribute, errno): the errno Linux 6.1's
    parse_nat() answers, 0 if it accepts the nest."""
    items = []
    if r.random() < 0.6:
        # OVS's shape: src or dst first, then a range, then flags.
        if r.random() < 0.8:
            items.append(r.choice([NAT_SRC, NAT_DST]))
        items += [t for t in (NAT_IP_MIN, NAT_IP_MAX, NAT_PROTO_MIN,
                              NAT_PROTO_MAX, NAT_PERSISTENT, NAT_PROTO_HASH,
                              NAT_PROTO_RANDOM) if r.random() < 0.3]
        if r.random() < 0.1:
            items.insert(r.randrange(len(items) + 1),
                         r.choice([NAT_SRC, NAT_DST]))
    else:
        items = [r.choice([NAT_SRC, NAT_DST, NAT_IP_MIN, NAT_IP_MAX,
                           NAT_PROTO_MIN, NAT_PROTO_MAX, NAT_PERSISTENT,
                           NAT_PROTO_HASH, NAT_PROTO_RANDOM, 0, 10, 0x3fff])
                 for _ in range(r.randrange(0, 5))]
    attrs = []
    err = 0
    have_type = have_flags = False
    for t in items:
        want = NAT_LENS.get(t, (0, 0))[1 if v6 else 0]
        length = want
        if r.random() < 0.1:
            length = r.choice([0, 1, 2, 4, 16, 20])
        if t in (NAT_IP_MIN, NAT_IP_MAX):
            payload = bytes(r.randrange(256) for _ in range(length))
        elif t in (NAT_PROTO_MIN, NAT_PROTO_MAX) and length == 2:
            payload = u16(r.choice([0, 1, 1024, 34567, 65535]))
        else:
            payload = bytes(length)
        attrs.append(attr(t, payload))
        # Linux walks the nest in order and stops at the first refusal.
        if err:
            continue
        if t > NAT_PROTO_RANDOM or length != want or t == 0:
            err = errno.EINVAL
        elif t in (NAT_SRC, NAT_DST):
            if have_type:
                err = errno.ERANGE
            have_type = True
        else:
            have_flags = True
    body = encode(attrs)
    if r.random() < 0.05:
        body += bytes(r.randrange(1, 4))
        err = err or errno.EINVAL
    if not err:
        if not have_type:
            err = errno.EINVAL if have_flags else 0
        elif not commit:
            err = errno.EINVAL
    return attr(CT_NAT, body), err


def ct_key(r):
    """Conntrack attributes of a key (OVS puts them in every key once its
    probes found them), some of them values ct() never sets."""
    k = []
    if r.random() < 0.8:
        k.append(attr(K_CT_STATE, u32(r.choice([0, 0x20, 0x22, 0x2a, 0x21,
                                                0x30, 0x40, 0xff]))))
    if r.random() < 0.8:
        k.append(attr(K_CT_ZONE, u16(r.choice([0, 5, 65535]))))
    if r.random() < 0.8:
        k.append(attr(K_CT_MARK, u32(r.choice([0, 1, 0xffffffff]))))
    if r.random() < 0.8:
        k.append(attr(K_CT_LABELS, bytes(16)))
    if r.random() < 0.2:
        k.append(attr(K_CT_ORIG_TUPLE_IPV4, be32(0x0a000001) +
                      be32(0x0a000002) + be16(1) + be16(2) + u8(6) +
                      bytes(3)))
    if r.random() < 0.1:
        k.append(attr(K_CT_ORIG_TUPLE_IPV6, bytes(32) + be16(1) + be16(2) +
                      u8(17) + bytes(3)))
    return k


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


def recirc_flow(recirc_id, in_port):
    """The key and mask of a flow that packets recirculated to
    'recirc_id' from 'in_port' hit, whatever their Ethernet header."""
    key = [attr(K_RECIRC_ID, u32(recirc_id)),
           attr(K_IN_PORT, u32(in_port)),
           attr(K_ETHERNET, bytes(12)),
           attr(K_ETHERTYPE, be16(0x88b5))]
    mask = [attr(K_RECIRC_ID, u32(0xffffffff)),
            attr(K_IN_PORT, u32(0xffffffff)),
            attr(K_ETHERNET, bytes(12)),
            attr(K_ETHERTYPE, be16(0))]
    return key, mask


# Meter ids: the limits, OVS's probe's (dpif-netlink probe_broken_meters)
# and a few small ones, so that requests meet the meters others made.
METER_IDS = (0, 1, 2, 7, 54545401, 0xfffffffe, 0xffffffff)


def meter_id(r):
    return r.choice(METER_IDS)


def meter_band_config(r):
    """A band's (type, rate, burst): drop mostly, rates and bursts at the
    limits (a rate of 0 is refused) and in between."""
    btype = r.choice([OVS_METER_BAND_TYPE_DROP] * 6 + [0, 2, 0xffffffff])
    rate = r.choice([1, 1, 10, 1000, 0xffffffff, r.randrange(1, 1 << 32)])
    burst = r.choice([0, 1, 3, 1000, 1 << 20, 0xffffffff,
                      r.randrange(1 << 32)])
    return btype, rate, burst


def execute_key(r):
    k = [attr(K_PRIORITY, u32(0)), attr(K_SKB_MARK, u32(0)),
         attr(K_IN_PORT, u32(r.choice([0, 1, 7])))]
    if r.random() < 0.3:
        k += ct_key(r)
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




# The strict shapes: Geneve options, tunnel keys a collect_md device of
# this namespace can route, nested lists around a recirculation.

# Most Geneve option bytes a key holds (IP_TUNNEL_OPTS_MAX 255, in words).
GENEVE_MAX_WORDS = 63


def geneve_opts(r, words):
    """A valid chain of Geneve options 'words' 4-byte words long in all:
    each a 4-byte header (class, type with the critical bit now and
    then, length in words in the low 5 bits) and its data, non-zero
    random bytes so that foreign bytes show."""
    out = b""
    left = words
    while left > 0:
        data = r.randrange(0, min(31, left - 1) + 1)
        typ = r.randrange(0x80) | (0x80 if r.random() < 0.1 else 0)
        out += be16(r.randrange(0x10000)) + u8(typ) + u8(data)
        out += bytes(r.randrange(1, 256) for _ in range(4 * data))
        left -= 1 + data
    return out


def option_words(r):
    """A length of Geneve options in words: every one from 0 to 63, the
    ends more often."""
    return r.choice([0, 1, GENEVE_MAX_WORDS, GENEVE_MAX_WORDS,
                     r.randrange(GENEVE_MAX_WORDS + 1),
                     r.randrange(GENEVE_MAX_WORDS + 1)])


def strict_tunnel(r, for_key=False):
    """A tunnel key (attribute list) that Linux accepts in set(tunnel())
    or in an execute's key, to 127.0.0.x or ::1 (which lo routes) with
    options of every kind and length."""
    v6 = r.random() < 0.15
    t = []
    if r.random() < 0.85:
        t.append(attr(T_ID, be64(r.randrange(1 << 64))))
    if v6:
        if r.random() < 0.3:
            t.append(attr(T_IPV6_SRC, bytes(15) + b"\1"))
        t.append(attr(T_IPV6_DST, bytes(15) + b"\1"))
    else:
        src = r.random()
        if src < 0.3:
            t.append(attr(T_IPV4_SRC, b"\x7f\0\0\1"))
        elif src < 0.4:
            t.append(attr(T_IPV4_SRC, b"\x0a\0\0\1"))
        t.append(attr(T_IPV4_DST, b"\x7f\0\0" + u8(r.randrange(2, 255))))
    if r.random() < 0.5:
        t.append(attr(T_TOS, u8(r.randrange(1, 256) & 0xfc)))
    t.append(attr(T_TTL, u8(r.randrange(1, 256))))
    for flag in (T_DF, T_CSUM, T_OAM):
        if r.random() < 0.3:
            t.append(attr(flag, b""))
    if for_key and r.random() < 0.5:
        t.append(attr(T_TP_SRC, be16(r.randrange(1, 65536))))
        t.append(attr(T_TP_DST, be16(r.choice([6081, 4789]))))
    kind = r.random()
    if kind < 0.7:
        t.append(attr(T_GENEVE_OPTS, geneve_opts(r, option_words(r))))
    elif kind < 0.8:
        t.append(attr(T_VXLAN_OPTS, [attr(1, u32(r.randrange(1, 1 << 16)))]))
    elif kind < 0.9:
        t.append(attr(T_ERSPAN_OPTS, struct.pack("=i", 1)
                      + be32(r.randrange(1, 1 << 20)) + bytes(4)))
    t = [a for a in t if not (a[0] == T_TOS and a[1] == b"\0")]
    r.shuffle(t)
    return t


def tagged_packet(r, tag, min_len=14):
    """An Ethernet frame of some protocol (maybe truncated, at least
    'min_len' bytes) whose source MAC carries 'tag'."""
    from .upcalls import tag_frame
    frame = packet(r)
    if len(frame) < min_len:
        frame += bytes(min_len - len(frame))
    return tag_frame(frame, tag)


def plain_frame(r, tag):
    """A frame of the local experimental Ethertype (0x88b5), 60 to 1514
    bytes, whose source MAC carries 'tag': no VLAN tag for the datapath
    to take off (skb->len is its length) and no layer 3, so that the
    flows of recirc_flow() match it."""
    from .upcalls import tag_frame
    n = r.choice([60, 60, 64, 200, 1514, r.randrange(60, 1515)])
    return tag_frame(mac(r) + mac(r) + be16(0x88b5) + bytes(n - 14), tag)


def container(r, inner, frame_len):
    """'inner' in a clone, a sample of probability 100% or a check_pkt_len
    whose branch for a frame of 'frame_len' bytes is 'inner' (mostly)."""
    kind = r.randrange(3)
    if kind == 0:
        return attr(A_CLONE, inner)
    if kind == 1:
        return attr(A_SAMPLE, [attr(S_PROBABILITY, u32(0xffffffff)),
                               attr(S_ACTIONS, inner)])
    other = [] if r.random() < 0.7 else [attr(A_HASH, u32(0) + u32(7))]
    if r.random() < 0.5:
        # Frames up to pkt_len take the "less or equal" list.
        pkt_len = r.choice([frame_len, 0xffff, frame_len + 1])
        le, gt = inner, other
    else:
        pkt_len = r.choice([frame_len - 1, 14, 1])
        gt, le = inner, other
    if r.random() < 0.1:
        le, gt = gt, le
    return attr(A_CHECK_PKT_LEN, [attr(C_PKT_LEN, u16(max(1, pkt_len))),
                                  attr(C_GREATER, gt),
                                  attr(C_LESS_EQUAL, le)])


def nest(r, inner, depth, style, frame_len, extra):
    """Action list 'inner' wrapped in 'depth' containers.  'style':
    "last", each container the only action of its list (run by the
    caller's own recursion); "notlast", each followed by another action
    (run on a clone); "mixed", either, with actions before now and then.
    'extra' makes one action that leaves the packet as it is."""
    acts = inner
    for _ in range(depth):
        c = container(r, acts, frame_len)
        last = style == "last" or (style == "mixed" and r.random() < 0.5)
        acts = [c] if last else [c, extra()]
        if style == "mixed" and r.random() < 0.3:
            acts.insert(0, extra())
    return acts

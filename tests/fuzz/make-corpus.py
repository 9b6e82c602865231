#!/usr/bin/python3
# Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/TARGET/),
# with scapy, whose packets are built by code that is not ours.  The seeds
# are committed; run this again only to change them:
#
#     /usr/bin/python3 tests/fuzz/make-corpus.py tests/fuzz/corpus
#
# Each seed is a well-formed input of its target (see the comment at the top
# of tests/fuzz/fuzz-TARGET.c for the format), so that the fuzzer starts
# from the paths real traffic takes.

import ipaddress
import os
import struct
import sys

from scapy.all import (ARP, Ether, Dot1Q, GRE, IP, IPv6, IPv6ExtHdrHopByHop,
                       TCP, UDP, ICMP, raw, fragment, fragment6,
                       IPv6ExtHdrFragment, IPv6ExtHdrDestOpt,
                       IPv6ExtHdrRouting, ICMPv6ND_NA, ICMPv6NDOptDstLLAddr,
                       ICMPv6DestUnreach, HBHOptUnknown, PadN)
from scapy.contrib.geneve import GENEVE
from scapy.layers.vxlan import VXLAN

MAC = dict(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")


def record(ctl, data):
    """A record of fuzz-common.h: control byte, 16-bit length, bytes."""
    data = bytes(data)
    return struct.pack("!BH", ctl, len(data)) + data


def write(top, target, name, data):
    d = os.path.join(top, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(bytes(data))


def tcp4(seq, payload, flags="A", sport=1234, dport=80, **ip):
    return IP(src="10.0.0.1", dst="10.0.0.2", **ip) / TCP(
        sport=sport, dport=dport, seq=seq, ack=1, flags=flags,
        window=500) / (b"x" * payload)


def ipip(inner, **outer):
    return Ether(**MAC) / IP(src="192.0.2.1", dst="192.0.2.2", proto=4,
                             **outer) / inner


def seeds_ipip(top):
    t = "ipip"
    write(top, t, "tcp", record(0, ipip(tcp4(1, 100))))
    write(top, t, "vlan-icmp", record(0, Ether(**MAC) / Dot1Q(vlan=10) /
                                      IP(src="192.0.2.1", dst="192.0.2.2",
                                         proto=4) /
                                      IP(src="10.0.0.1", dst="10.0.0.2") /
                                      ICMP()))
    write(top, t, "ecn", record(0, ipip(tcp4(1, 10, tos=1), tos=3)) +
          record(0, ipip(tcp4(1, 10, tos=0), tos=3)))
    write(top, t, "options-df", record(0, ipip(tcp4(1, 10), flags="DF",
                                               options=b"\x01\x01\x01\x00")))
    write(top, t, "inner-ipv6", record(0, Ether(**MAC) /
                                       IP(src="192.0.2.1", dst="192.0.2.2",
                                          proto=4) /
                                       IPv6() / UDP()))
    write(top, t, "truncated", record(0, raw(ipip(tcp4(1, 100)))[:40]))
    outer = IP(src="192.0.2.1", dst="192.0.2.2", proto=4, id=7) / \
        tcp4(1, 2000)
    frags = fragment(outer, fragsize=800)
    write(top, t, "outer-fragments",
          b"".join(record(0x10, Ether(**MAC) / f) for f in frags))
    write(top, t, "outer-fragments-reversed",
          b"".join(record(0x12, Ether(**MAC) / f) for f in reversed(frags)))


def seeds_gro(top):
    t = "gro"
    stream = [tcp4(1 + 100 * i, 100) for i in range(4)]
    stream.append(tcp4(401, 100, flags="PA"))
    write(top, t, "in-order", b"".join(record(0, p) for p in stream))
    write(top, t, "in-order-popped",
          b"".join(record(0x04, p) for p in stream) + record(2, stream[0]))
    other = [tcp4(1 + 50 * i, 50, sport=999) for i in range(3)]
    mixed = [stream[0], other[0], stream[1], other[1], stream[3],
             other[2], stream[2]]
    write(top, t, "two-flows-gap", b"".join(record(0, p) for p in mixed))
    opts = [IP(src="10.0.0.1", dst="10.0.0.2") /
            TCP(sport=1, dport=2, seq=1 + 64 * i, ack=1, flags="A",
                options=[("NOP", None), ("NOP", None),
                         ("Timestamp", (i, 0))]) / (b"y" * 64)
            for i in range(3)]
    write(top, t, "timestamps", b"".join(record(0, p) for p in opts))
    special = [tcp4(1, 0, flags="S"), tcp4(1, 100), tcp4(101, 0),
               tcp4(101, 100, flags="R"), tcp4(201, 100, flags="U")]
    write(top, t, "flags", b"".join(record(0, p) for p in special))
    tunnel = [tcp4(1 + 100 * i, 100) for i in range(3)]
    write(top, t, "tunnel-md",
          b"".join(record(0x08 | (i << 4), p) for i, p in enumerate(tunnel)))
    frag = fragment(tcp4(1, 2000), fragsize=1000)
    write(top, t, "fragments", record(0, stream[0]) +
          b"".join(record(0, f) for f in frag))
    bad = raw(stream[1])
    bad = bad[:-1] + b"z"
    write(top, t, "bad-csum", record(0, stream[0]) + record(0, bad) +
          record(1, bad))


def gso_input(mode, flags, segsz, mtu, pkt):
    return struct.pack("!BBHH", mode, flags, segsz, mtu) + raw(pkt)


def seeds_gso(top):
    t = "gso"
    big4 = Ether(**MAC) / tcp4(1, 3000, flags="PA")
    big6 = Ether(**MAC) / IPv6(src="2001:db8::1", dst="2001:db8::2") / \
        TCP(sport=1, dport=2, seq=1, flags="A") / (b"z" * 3000)
    hbh6 = Ether(**MAC) / IPv6(src="2001:db8::1", dst="2001:db8::2") / \
        IPv6ExtHdrHopByHop() / TCP(sport=1, dport=2) / (b"z" * 2000)
    vlan4 = Ether(**MAC) / Dot1Q(vlan=5) / tcp4(1, 2500, options=[])
    l3 = tcp4(1, 3000)
    write(top, t, "segment-v4", gso_input(0, 0x01 | 0x20 | 0x02 | 0x04,
                                          1000, 1500, big4))
    write(top, t, "segment-v6", gso_input(0, 0x01 | 0x20 | 0x80 | 0x04,
                                          1200, 1500, big6))
    write(top, t, "segment-hbh", gso_input(0, 0x01 | 0x20, 700, 1500, hbh6))
    write(top, t, "segment-vlan", gso_input(1, 0x01 | 0x20, 0, 1400, vlan4))
    write(top, t, "segment-l3", gso_input(1, 0x20, 1448, 1500, l3))
    udp = Ether(**MAC) / IP(src="10.0.0.1", dst="10.0.0.2") / \
        UDP(sport=1, dport=2) / (b"u" * 100)
    write(top, t, "csum-udp", gso_input(2, 0x01 | 0x02 | 0x08, 0, 0, udp))
    write(top, t, "csum-tcp", gso_input(2, 0x01 | 0x02 | 0x04, 0, 0, big4))
    write(top, t, "frag-v4", gso_input(3, 0x01, 0, 1500, Ether(**MAC) /
                                       IP(src="10.0.0.1", dst="10.0.0.2",
                                          options=b"\x83\x03\x10\x00") /
                                       UDP() / (b"f" * 4000)))
    write(top, t, "frag-v4-df", gso_input(3, 0x01, 0, 576, Ether(**MAC) /
                                          IP(src="10.0.0.1",
                                             dst="10.0.0.2", flags="DF") /
                                          UDP() / (b"f" * 1000)))
    write(top, t, "frag-v6", gso_input(4, 0x01, 9, 1280, Ether(**MAC) /
                                       IPv6(src="2001:db8::1",
                                            dst="2001:db8::2") /
                                       IPv6ExtHdrHopByHop() / UDP() /
                                       (b"f" * 3000)))
    write(top, t, "icmp", gso_input(5, 0, 0, 1400,
                                    IP(src="10.0.0.1", dst="10.0.0.2",
                                       flags="DF") / TCP() / (b"i" * 1500)))
    write(top, t, "icmp6", gso_input(5, 0x01, 0, 1280, Ether(**MAC) /
                                     IPv6(src="2001:db8::1",
                                          dst="2001:db8::2") /
                                     IPv6ExtHdrHopByHop() /
                                     IPv6ExtHdrRouting(segleft=0) /
                                     IPv6ExtHdrFragment(m=1) /
                                     UDP() / (b"i" * 1500)))
    write(top, t, "icmp6-error", gso_input(5, 0x01, 0, 1300, Ether(**MAC) /
                                           IPv6(src="2001:db8::1",
                                                dst="2001:db8::2") /
                                           ICMPv6DestUnreach() /
                                           (b"e" * 1500)))


def seeds_ipf(top):
    t = "ipf"
    dgram = IP(src="10.0.0.1", dst="10.0.0.2", id=42) / UDP(sport=1,
                                                            dport=2) / \
        (b"d" * 3000)
    frags = fragment(dgram, fragsize=1000)
    write(top, t, "v4-in-order",
          b"\x00" + b"".join(record(0x01, Ether(**MAC) / f) for f in frags))
    write(top, t, "v4-reversed-l3",
          b"\x00" + b"".join(record(0x00, f) for f in reversed(frags)))
    write(top, t, "v4-duplicate-overlap",
          b"\x01" + record(0, frags[0]) + record(0, frags[0]) +
          record(0, IP(raw(frags[1]))) + record(0, frags[2]))
    write(top, t, "v4-timeout",
          b"\x08" + record(0, frags[0]) + record(0xf8, frags[1]) +
          record(0xf8, frags[2]))
    d6 = IPv6(src="2001:db8::1", dst="2001:db8::2") / \
        IPv6ExtHdrFragment(id=9) / UDP(sport=1, dport=2) / (b"e" * 3000)
    f6 = fragment6(d6, 1280)
    write(top, t, "v6-in-order",
          b"\x02" + b"".join(record(0x01, Ether(**MAC) / f) for f in f6))
    write(top, t, "v6-tunnel",
          b"\x02" + b"".join(record(0x04, f) for f in reversed(f6)))
    tiny = IP(src="10.0.0.1", dst="10.0.0.2", id=5, flags="MF", proto=6) / \
        (b"t" * 8)
    write(top, t, "tiny", b"\x00" + record(0, tiny))
    many = fragment(IP(src="10.0.0.1", dst="10.0.0.2", id=43) / UDP() /
                    (b"m" * 8000), fragsize=64)
    write(top, t, "many", b"\x07" + b"".join(record(0, f) for f in many))
    # With a use byte before each record (limits bit 5): one datagram's
    # fragments for ct() in zones 1 and 2, at recirc_id 1 in zone 1, and
    # for a tunnel, interleaved, the tunnel's first fragment first; each
    # completes apart.
    uses = ([[0x00, 0x03, 0x05, 0x0b]]
            + [[0x03, 0x05, 0x0b, 0x00]] * (len(frags) - 1))
    write(top, t, "ct-zones",
          b"\x20" + b"".join(record(0x01, bytes([u]) +
                                    raw(Ether(**MAC) / f))
                             for f, us in zip(frags, uses) for u in us))
    # First fragments for ct() past its limit of 8, and a tunnel's, which
    # the limit does not count.
    firsts = [fragment(IP(src="10.0.0.1", dst="10.0.0.2", id=100 + i) /
                       UDP() / (b"f" * 2000), fragsize=1000)[0]
              for i in range(12)]
    write(top, t, "ct-limit",
          b"\x20" + b"".join(record(0x00, bytes([u]) + raw(f))
                             for f in firsts for u in (0x01, 0x00)))


def seeds_ipip_options(top):
    t = "ipip-options"
    write(top, t, "all", b"remote_ip=192.0.2.1\nlocal_ip=192.0.2.2\n"
          b"tos=0x20\nttl=10\ndf_default=false\ngro=false")
    write(top, t, "flow", b"remote_ip=flow\nlocal_ip=flow\ntos=inherit\n"
          b"ttl=inherit\ndf_default=true\ngro=true")
    write(top, t, "remote-only", b"remote_ip=10.1.2.3")
    write(top, t, "errors", b"remote_ip=224.0.0.1\nlocal_ip=::1\nttl=0\n"
          b"tos=3\nfoo=bar\ngro=maybe")
    write(top, t, "local-flow-only", b"remote_ip=10.0.0.1\nlocal_ip=flow")
    write(top, t, "broadcast", b"remote_ip=255.255.255.255\nttl=256")


def nla(type_, payload=b""):
    """A netlink attribute, padded to 4 bytes."""
    payload = bytes(payload)
    attr = struct.pack("=HH", 4 + len(payload), type_) + payload
    return attr + b"\0" * (-len(attr) % 4)


# OVS_CT_ATTR_*, OVS_NAT_ATTR_*, and the OVS_ACTION_ATTR_*, OVS_SAMPLE_ATTR_*
# and OVS_CHECK_PKT_LEN_ATTR_* the ct-action seeds use (odp-netlink.h).
CT_COMMIT, CT_ZONE, CT_MARK, CT_LABELS, CT_HELPER, CT_NAT, CT_FORCE, \
    CT_EVENTMASK, CT_TIMEOUT = range(1, 10)
NAT_SRC, NAT_DST, NAT_IP_MIN, NAT_IP_MAX, NAT_PROTO_MIN, NAT_PROTO_MAX, \
    NAT_PERSISTENT, NAT_PROTO_HASH, NAT_PROTO_RANDOM = range(1, 10)
ACT_OUTPUT, ACT_USERSPACE, ACT_RECIRC, ACT_CT, ACT_TRUNC, ACT_CT_CLEAR, \
    ACT_METER, ACT_CLONE, ACT_CHECK_PKT_LEN = 1, 2, 7, 12, 13, 16, 19, 20, 21
ACT_SAMPLE = 6
SAMPLE_PROBABILITY, SAMPLE_ACTIONS = 1, 2
CPL_PKT_LEN, CPL_GREATER, CPL_LESS_EQUAL = 1, 2, 3


def seeds_ct_action(top):
    t = "ct-action"
    u16 = lambda v: struct.pack("=H", v)
    ip4 = lambda a: bytes(int(x) for x in a.split("."))
    write(top, t, "zone", b"\0" + nla(CT_ZONE, u16(5)))
    write(top, t, "commit-mark-labels",
          b"\0" + nla(CT_COMMIT) + nla(CT_MARK, struct.pack("=II", 1, 255))
          + nla(CT_LABELS, b"\x01" * 16 + b"\xff" * 16))
    write(top, t, "ftp-helper",
          b"\3" + nla(CT_COMMIT) + nla(CT_HELPER, b"ftp\0"))
    write(top, t, "snat",
          b"\0" + nla(CT_COMMIT) +
          nla(CT_NAT, nla(NAT_SRC) + nla(NAT_IP_MIN, ip4("192.0.2.1")) +
              nla(NAT_IP_MAX, ip4("192.0.2.9")) +
              nla(NAT_PROTO_MIN, u16(1000)) +
              nla(NAT_PROTO_MAX, u16(2000)) + nla(NAT_PROTO_RANDOM)))
    write(top, t, "dnat-v6",
          b"\1" + nla(CT_COMMIT) +
          nla(CT_NAT, nla(NAT_DST) + nla(NAT_IP_MIN, b"\x20\x01" + b"\0" * 13
                                          + b"\x09")))
    write(top, t, "nat-no-commit", b"\2" + nla(CT_NAT, nla(NAT_SRC)))
    write(top, t, "force-timeout-eventmask",
          b"\0" + nla(CT_FORCE) + nla(CT_TIMEOUT, b"1\0") +
          nla(CT_EVENTMASK, struct.pack("=I", 0xff)) + nla(CT_ZONE, u16(9)))

    # Mode 1: ct() nested in containers (clone 0, sample 1, check_pkt_len
    # "greater" 2 and "less or equal" 3), at the deepest accepted nesting
    # and one deeper.
    snat = (nla(CT_COMMIT) +
            nla(CT_NAT, nla(NAT_SRC) + nla(NAT_IP_MIN, ip4("192.0.2.1"))))
    write(top, t, "nested-clone-snat", b"\x04" + bytes([1, 0]) + snat)
    write(top, t, "nested-sample-check-pkt-len",
          b"\x05" + bytes([3, 1, 2, 3]) + nla(CT_COMMIT) +
          nla(CT_ZONE, u16(3)))
    write(top, t, "nested-16-deep",
          b"\x04" + bytes([16]) + bytes(range(16)) + nla(CT_ZONE, u16(1)))
    write(top, t, "nested-17-deep",
          b"\x04" + bytes([17]) + bytes(range(17)) + nla(CT_ZONE, u16(1)))

    # Mode 2: whole action lists, as ofproto builds them.
    u32 = lambda v: struct.pack("=I", v)
    ct = lambda p: nla(ACT_CT, p)
    write(top, t, "list-clone-sample-check-pkt-len",
          b"\x08" +
          nla(ACT_CLONE, ct(nla(CT_COMMIT) + nla(CT_ZONE, u16(1))) +
              nla(ACT_CT_CLEAR) + nla(ACT_OUTPUT, u32(1))) +
          nla(ACT_SAMPLE, nla(SAMPLE_PROBABILITY, u32(0xffffffff)) +
              nla(SAMPLE_ACTIONS, ct(nla(CT_ZONE, u16(2))) +
                  nla(ACT_RECIRC, u32(1)))) +
          nla(ACT_CHECK_PKT_LEN, nla(CPL_PKT_LEN, u16(100)) +
              nla(CPL_GREATER, nla(ACT_OUTPUT, u32(2))) +
              nla(CPL_LESS_EQUAL, ct(nla(CT_COMMIT) + snat[4:]))))
    write(top, t, "list-userspace-trunc-meter",
          b"\x09" + nla(ACT_TRUNC, u32(100)) +
          nla(ACT_USERSPACE, nla(1, u32(0)) + nla(2, b"cookie!!")) +
          nla(ACT_METER, u32(0)) + ct(nla(CT_ZONE, u16(4))))


# afpacket: virtio-net headers (struct virtio_net_hdr, little-endian as on
# the host) and TPACKET_V3 blocks as Linux lays them out.
VNET_F_NEEDS_CSUM = 1
VNET_F_DATA_VALID = 2
VNET_GSO_TCPV4, VNET_GSO_UDP, VNET_GSO_TCPV6 = 1, 3, 4
TP_STATUS_VLAN_VALID = 0x10


def vnet(flags=0, gso_type=0, hdr_len=0, gso_size=0, csum_start=0,
         csum_offset=0):
    return struct.pack("<BBHHHH", flags, gso_type, hdr_len, gso_size,
                       csum_start, csum_offset)


def tcp_frame(ip_layer, payload, vlan=None):
    eth = Ether(**MAC)
    if vlan is not None:
        eth = eth / Dot1Q(vlan=vlan)
    return raw(eth / ip_layer / TCP(sport=1234, dport=80, seq=1, ack=1,
                                    flags="PA", window=500) /
               bytes(i * 7 & 0xff for i in range(payload)))


def av_input(flags, tci, mtu, hdr, frame):
    """An input of fuzz-afpacket-vnet.c."""
    return struct.pack("!BHH", flags, tci, mtu) + hdr + bytes(frame)


def seeds_afpacket_vnet(top):
    t = "afpacket-vnet"
    v4 = IP(src="10.0.0.1", dst="10.0.0.2")
    v6 = IPv6(src="fd00::1", dst="fd00::2")
    write(top, t, "udp", av_input(0, 0, 1500, vnet(), Ether(**MAC) / v4 /
                                  UDP(sport=1, dport=2) / (b"u" * 50)))
    write(top, t, "tcp-partial", av_input(0x08, 0, 1500,
                                          vnet(VNET_F_NEEDS_CSUM, 0, 0, 0,
                                               34, 16),
                                          tcp_frame(v4, 100)))
    write(top, t, "tcp-data-valid", av_input(0, 0, 1500,
                                             vnet(VNET_F_DATA_VALID),
                                             tcp_frame(v4, 100)))
    write(top, t, "gso-tcp4", av_input(0x0c, 0, 1500,
                                       vnet(VNET_F_NEEDS_CSUM,
                                            VNET_GSO_TCPV4, 54, 1448, 34,
                                            16),
                                       tcp_frame(v4, 20000)))
    write(top, t, "gso-tcp6-vlan", av_input(0x0d, 7, 1500,
                                            vnet(VNET_F_NEEDS_CSUM,
                                                 VNET_GSO_TCPV6, 74, 1000,
                                                 54, 16),
                                            tcp_frame(v6, 9000)))
    # Longer than a dp_packet: GSO and not, IPv4 and IPv6; UDP.
    write(top, t, "gso-tcp4-65535", av_input(0x0c, 0, 65535,
                                             vnet(VNET_F_NEEDS_CSUM,
                                                  VNET_GSO_TCPV4, 54, 1448,
                                                  34, 16),
                                             tcp_frame(v4, 65535 - 54)))
    write(top, t, "tcp4-65549", av_input(0x0c, 0, 65535,
                                         vnet(VNET_F_NEEDS_CSUM, 0, 0, 0,
                                              34, 16),
                                         tcp_frame(v4, 65535 - 40)))
    write(top, t, "gso-tcp6-65589-vlan", av_input(0x0d, 5, 65535,
                                                  vnet(VNET_F_NEEDS_CSUM,
                                                       VNET_GSO_TCPV6, 74,
                                                       32700, 54, 16),
                                                  tcp_frame(v6, 65535 - 20)))
    write(top, t, "udp-65536", av_input(0, 0, 65535, vnet(),
                                        Ether(**MAC) / v4 /
                                        UDP(sport=1, dport=2) /
                                        (b"u" * (65536 - 42))))
    # Refused: UDP GSO, a tiny segment size, a runt with a VLAN tag.
    write(top, t, "gso-udp", av_input(0, 0, 1500,
                                      vnet(VNET_F_NEEDS_CSUM, VNET_GSO_UDP,
                                           42, 1000, 34, 6),
                                      Ether(**MAC) / v4 / UDP() /
                                      (b"u" * 3000)))
    write(top, t, "gso-size-1", av_input(0x08, 0, 1500,
                                         vnet(VNET_F_NEEDS_CSUM,
                                              VNET_GSO_TCPV4, 54, 1, 34, 16),
                                         tcp_frame(v4, 1024)))
    write(top, t, "runt-vlan", av_input(0x01, 3, 1500, vnet(),
                                        b"\x02" * 10))


def v3_frame(hdr, frame, status=0, tci=0, truncate=None):
    """A TPACKET_V3 frame: its header, the virtio-net header right before
    the frame at tp_mac 60 (as Linux places it after a 48-byte header),
    the frame, padded to 8 bytes; tp_next_offset is its whole length."""
    frame = bytes(frame)
    snap = len(frame) if truncate is None else truncate
    mac = 60
    total = (mac + snap + 7) // 8 * 8
    h = struct.pack("<IIIIIIHHIIHH8x", total, 0, 0, snap, len(frame),
                    1 | status, mac, mac + 14, 0x12345678, tci,
                    0x8100 if status else 0, 0)
    body = h + b"\0" * (mac - len(h) - len(hdr)) + hdr + frame[:snap]
    return body + b"\0" * (total - len(body))


def v3_block(frames, next_offsets=None):
    """A TPACKET_V3 block (struct tpacket_block_desc, then the frames),
    its status left for the target to set."""
    body = b"".join(frames)
    desc = struct.pack("<IIIIIIQIIII", 3, 0, 0, len(frames), 48,
                       48 + len(body), 1, 0, 0, 0, 0)
    return desc + body


def seeds_afpacket_rx(top):
    t = "afpacket-rx"
    v4 = IP(src="10.0.0.1", dst="10.0.0.2")
    v6 = IPv6(src="fd00::1", dst="fd00::2")
    udp = raw(Ether(**MAC) / v4 / UDP(sport=1, dport=2) / (b"u" * 22))
    gso = vnet(VNET_F_NEEDS_CSUM, VNET_GSO_TCPV4, 54, 1448, 34, 16)
    write(top, t, "three-frames",
          v3_block([v3_frame(vnet(), udp),
                    v3_frame(vnet(), udp, TP_STATUS_VLAN_VALID, 100),
                    v3_frame(gso, tcp_frame(v4, 20000))]))
    write(top, t, "long-frames",
          v3_block([v3_frame(gso, tcp_frame(v4, 65535 - 54)),
                    v3_frame(vnet(VNET_F_NEEDS_CSUM, 0, 0, 0, 34, 16),
                             tcp_frame(v4, 65535 - 40)),
                    v3_frame(vnet(), Ether(**MAC) / v4 / UDP() /
                             (b"u" * (65406 - 42)))]))
    write(top, t, "gso-tcp6-vlan-65589",
          v3_block([v3_frame(vnet(VNET_F_NEEDS_CSUM, VNET_GSO_TCPV6, 74,
                                  1448, 54, 16),
                             tcp_frame(v6, 65535 - 20),
                             TP_STATUS_VLAN_VALID, 5)]))
    write(top, t, "truncated",
          v3_block([v3_frame(vnet(), udp, truncate=20),
                    v3_frame(vnet(), udp)]))
    # A full batch, then a long frame that needs room for three packets.
    write(top, t, "batch-full",
          v3_block([v3_frame(vnet(), udp)] * 31 +
                   [v3_frame(gso, tcp_frame(v4, 65535 - 54))] +
                   [v3_frame(vnet(), udp)] * 3))
    write(top, t, "empty", v3_block([]))
def seeds_tunnel_rx(top):
    t = "tunnel-rx"
    # Port 1 holds 192.0.2.2 and 192.0.2.3, port 2 198.51.100.2; their MAC
    # is 02:00:00:00:00:02 (fuzz-tunnel-rx.c).
    inner = Ether(**MAC) / tcp4(1, 100)

    def to(dst, l4, proto=None, **ip):
        kw = dict(src="192.0.2.1", dst=dst, **ip)
        if proto is not None:
            kw["proto"] = proto
        return Ether(**MAC) / IP(**kw) / l4

    vxlan = UDP(sport=50000, dport=4789) / VXLAN(vni=5) / inner
    geneve = UDP(sport=50000, dport=6081) / GENEVE(vni=5) / inner
    gre = GRE(proto=0x6558, key_present=1, key=5) / inner
    write(top, t, "each-type",
          record(0, to("192.0.2.2", tcp4(1, 10), proto=4)) +
          record(0, to("192.0.2.3", tcp4(1, 10), proto=4)) +
          record(0, to("192.0.2.2", vxlan)) +
          record(0, to("192.0.2.3", geneve)) +
          record(0, to("192.0.2.2", gre)) +
          record(2, to("198.51.100.2", vxlan)) +
          record(2, to("192.0.2.2", vxlan)))
    write(top, t, "not-ours",
          record(0, to("192.0.2.2", UDP(dport=53) / (b"q" * 40))) +
          record(0, to("192.0.2.2", GRE(version=1, proto=0x880b,
                                        key_present=1) / (b"p" * 20))) +
          record(0, to("192.0.2.2", GRE(proto=0x88be) / (b"e" * 20))) +
          record(0, to("192.0.2.9", vxlan)) +
          record(0, Ether(src=MAC["src"], dst="02:00:00:00:00:09") /
                 IP(src="192.0.2.1", dst="192.0.2.2") / vxlan) +
          record(0, Ether(**MAC) / Dot1Q(vlan=5) /
                 IP(src="192.0.2.1", dst="192.0.2.2") / vxlan))
    big_vxlan = IP(src="192.0.2.1", dst="192.0.2.2", id=7) / UDP(
        sport=50000, dport=4789) / VXLAN(vni=5) / Ether(**MAC) / tcp4(
            1, 1500)
    big_udp = IP(src="192.0.2.1", dst="192.0.2.2", id=8) / UDP(
        dport=53) / (b"d" * 1500)
    big_ipip = IP(src="192.0.2.1", dst="192.0.2.2", id=9, proto=4) / tcp4(
        1, 1500)
    frags = lambda pkt: [Ether(**MAC) / f for f in fragment(pkt, 600)]
    write(top, t, "fragments",
          b"".join(record(0, f) for f in frags(big_vxlan)) +
          b"".join(record(0, f) for f in reversed(frags(big_udp))) +
          b"".join(record(0, f) for f in reversed(frags(big_vxlan))) +
          b"".join(record(0, f) for f in frags(big_ipip)))
    write(top, t, "verdict-expires",
          b"".join(record(0xf0 if i else 0, f)
                   for i, f in enumerate(frags(big_vxlan))))
    # Port 1 holds 2001:db8::2 too.
    def to6(l4, dst="2001:db8::2", nh=None, ext=None):
        ip6 = IPv6(src="2001:db8::1", dst=dst)
        if nh is not None:
            ip6.nh = nh
        return Ether(**MAC) / (ip6 / ext / l4 if ext is not None
                               else ip6 / l4)
    write(top, t, "ipv6",
          record(0, to6(vxlan)) + record(0, to6(geneve)) +
          record(0, to6(gre)) + record(0, to6(vxlan, dst="2001:db8::9")) +
          record(2, to6(vxlan)) +
          record(0, to6(UDP(dport=53) / (b"q" * 40))) +
          record(0, to6(vxlan, ext=IPv6ExtHdrHopByHop())) +
          record(0, to6(vxlan, ext=IPv6ExtHdrHopByHop() /
                        IPv6ExtHdrDestOpt() / IPv6ExtHdrRouting())) +
          record(0, to6(vxlan, ext=IPv6ExtHdrRouting(segleft=1,
                                                     addresses=["::1"]))) +
          record(0, to6(vxlan, ext=IPv6ExtHdrFragment())) +
          record(0, raw(to6(vxlan))[:14 + 40 + 20]) +
          record(0, raw(to6(vxlan, ext=IPv6ExtHdrHopByHop()))[:14 + 44]) +
          record(0, to6(tcp4(1, 10), nh=4)))
    # ipip over IPv6 (as ip6tnl: 4in6, 6in6) from the fixed remote
    # 2001:db8::1 and another one, IPv6 inside IPv4 (as sit), and the
    # hostile inner headers: cut short, of the other version, longer than
    # the outer payload.
    in4 = tcp4(1, 10)
    in6 = IPv6(src="fd00::1", dst="fd00::2") / UDP(sport=1, dport=2) / (
        b"6" * 10)
    write(top, t, "ipip-families",
          record(0, to6(in4, nh=4)) + record(0, to6(in6, nh=41)) +
          record(0, Ether(**MAC) / IPv6(src="2001:db8::7", dst="2001:db8::2",
                                        nh=41) / in6) +
          record(1, to("192.0.2.2", in6, proto=41)) +
          record(1, to("192.0.2.3", in6, proto=41)) +
          record(0, to6(raw(in6)[:20], nh=41)) +
          record(0, to6(in4, nh=41)) + record(0, to6(in6, nh=4)) +
          record(1, to("192.0.2.2", in4, proto=41)) +
          record(0, to6(raw(in6)[:-4], nh=41)) +
          record(1, to("192.0.2.2", raw(in4)[:-4], proto=4)) +
          record(0, to6(in6, nh=41, ext=IPv6ExtHdrHopByHop())))
    # ipip over IPv6 behind the encapsulation limit Linux's ip6tnl sends
    # by default (option 4, length 1, value 4, then a PadN of 1 zero
    # byte), an option whose action bits say drop, and the header cut
    # short.
    def encap_limit(*more):
        return IPv6ExtHdrDestOpt(options=[HBHOptUnknown(otype=4,
                                                        optdata=b"\x04"),
                                          PadN(optdata=b"\x00")] + list(more))
    write(top, t, "ipip-encaplimit",
          record(0, to6(in4, nh=60, ext=encap_limit())) +
          record(0, to6(in6, nh=60, ext=encap_limit())) +
          record(0, to6(in6, nh=60,
                        ext=IPv6ExtHdrDestOpt(options=[
                            HBHOptUnknown(otype=0x84, optdata=b"\x04"),
                            PadN(optdata=b"\x00")]))) +
          record(0, raw(to6(in4, nh=60, ext=encap_limit()))[:14 + 40 + 6]))


def seeds_tunnel_neigh(top):
    t = "tunnel-neigh"
    # fuzz-tunnel-neigh.c: ports br-under (192.0.2.2, 192.0.2.3), br-under2
    # (198.51.100.2), br-int and eth0 (no address at first); threads 0, 1.
    # The control byte: operation in bits 0-2, port in 3-4, thread in 5.
    def ctl(op, port=0, thread=0, extra=0):
        return op | port << 3 | thread << 5 | extra

    def ip4(a):
        return bytes(int(x) for x in a.split("."))

    def arp(op, hwsrc, psrc, pdst, hwdst="02:00:00:00:00:02", **kw):
        return Ether(src=hwsrc, dst=hwdst) / ARP(
            op=op, hwsrc=hwsrc, psrc=psrc, pdst=pdst, **kw)

    def reply(hwsrc, psrc, pdst="192.0.2.2", **kw):
        return arp(2, hwsrc, psrc, pdst, **kw)

    def frame(f, port=0, thread=0, extra=0):
        return record(ctl(0, port, thread, extra), raw(f))

    def ask(*hops, port=0, thread=0):
        return record(ctl(2, port, thread), b"".join(ip4(h) for h in hops))

    def look(*hops, port=0, thread=0):
        return record(ctl(4, port, thread), b"".join(ip4(h) for h in hops))

    def wait(ms):
        if ms % 100 == 0 and ms > 0xffff:
            return record(ctl(3, extra=8), struct.pack("!H", ms // 100))
        return record(ctl(3), struct.pack("!H", ms))

    def addrs(mask):
        return record(5 | mask << 3, b"")

    def flood(base, count, mac, port=0, thread=0):
        return record(ctl(6, port, thread), ip4(base) +
                      struct.pack("!H", count) + bytes.fromhex(mac))

    A, B, D = "02:00:00:00:0a:01", "02:00:00:00:0b:01", "02:00:00:00:0d:01"
    write(top, t, "learn",
          ask("192.0.2.1") + frame(reply(A, "192.0.2.1")) +
          look("192.0.2.1") + look("192.0.2.1", thread=1))
    # A Linux host answers from its underlay device, then from its bridge's
    # local port: the last answer wins.
    write(top, t, "two-answers",
          ask("192.0.2.1") + frame(reply(D, "192.0.2.1")) +
          frame(reply(B, "192.0.2.1", pdst="192.0.2.3")) +
          look("192.0.2.1"))
    write(top, t, "reverify-confirm",
          ask("192.0.2.1") + frame(reply(A, "192.0.2.1")) +
          wait(31000) + look("192.0.2.1") + ask("192.0.2.1") +
          frame(reply(B, "192.0.2.1")) + frame(reply(A, "192.0.2.1")) +
          look("192.0.2.1"))
    write(top, t, "reverify-moved",
          ask("192.0.2.1") + frame(reply(A, "192.0.2.1")) +
          wait(31000) + look("192.0.2.1") + ask("192.0.2.1") +
          frame(reply(B, "192.0.2.1")) + wait(3100) + look("192.0.2.1") +
          look("192.0.2.1", thread=1))
    write(top, t, "gratuitous",
          ask("192.0.2.1") + frame(reply(A, "192.0.2.1")) +
          frame(arp(1, B, "192.0.2.1", "192.0.2.1",
                    hwdst="ff:ff:ff:ff:ff:ff")) +
          frame(arp(2, B, "192.0.2.1", "192.0.2.1")) +
          frame(arp(1, A, "192.0.2.7", "192.0.2.7")) +
          look("192.0.2.1"))
    # Once the request is over, nobody moves the next hop.
    write(top, t, "spoofed",
          ask("192.0.2.1") + frame(reply(A, "192.0.2.1")) + wait(3000) +
          frame(reply(B, "192.0.2.1")) +
          frame(reply(B, "192.0.2.9")) +
          frame(reply(B, "192.0.2.1", pdst="192.0.2.77")) +
          frame(reply(B, "192.0.2.1"), port=2) +
          frame(reply(B, "192.0.2.1"), port=3) +
          frame(reply(B, "192.0.2.1"), extra=0x40) +
          frame(reply(B, "192.0.2.1"), thread=1) +
          frame(arp(1, B, "192.0.2.1", "192.0.2.2")) +
          look("192.0.2.1") + look("192.0.2.9"))
    arp_ok = raw(reply(B, "192.0.2.1"))
    write(top, t, "malformed",
          ask("192.0.2.1") +
          record(0, arp_ok[:20]) + record(0, arp_ok[:41]) +
          record(0, arp_ok[:13]) +
          frame(reply(B, "192.0.2.1", hwtype=6)) +
          frame(reply(B, "192.0.2.1", ptype=0x86dd)) +
          frame(reply(B, "192.0.2.1", hwlen=8)) +
          frame(reply(B, "192.0.2.1", plen=16)) +
          frame(arp(3, B, "192.0.2.1", "192.0.2.2")) +
          frame(reply("00:00:00:00:00:00", "192.0.2.1")) +
          frame(reply("01:00:5e:00:00:01", "192.0.2.1")) +
          frame(reply(B, "255.255.255.255")) +
          frame(reply(B, "0.0.0.0")) +
          frame(reply(B, "224.0.0.1")) +
          frame(reply(B, "192.0.2.3")) +
          frame(Ether(src=B, dst="02:00:00:00:00:02") / Dot1Q(vlan=5) /
                ARP(op=2, hwsrc=B, psrc="192.0.2.1", pdst="192.0.2.2")) +
          frame(Ether(src=B, dst="02:00:00:00:00:02") /
                IP(src="192.0.2.1", dst="192.0.2.2") / UDP()) +
          record(0, arp_ok + b"\0" * 18))
    batch = b"".join(struct.pack("!H", len(f)) + f for f in [
        raw(reply(A, "192.0.2.1")), raw(reply(B, "192.0.2.1")),
        raw(arp(1, A, "192.0.2.5", "192.0.2.5")), arp_ok[:30],
        raw(reply(A, "192.0.2.6")), raw(reply(A, "192.0.2.8",
                                             pdst="192.0.2.3"))])
    write(top, t, "batch",
          ask("192.0.2.1", "192.0.2.8") + record(ctl(1), batch) +
          look("192.0.2.1", "192.0.2.8") + record(ctl(1, thread=1), batch))
    write(top, t, "flood-full",
          flood("10.1.0.0", 1000, "020000100000") +
          flood("10.1.3.232", 100, "020000200000", thread=1) +
          look("10.1.0.5", "10.1.3.240"))
    write(top, t, "flood-rate",
          flood("10.2.0.0", 1200, "020000300000") + wait(500) +
          flood("10.2.8.0", 600, "020000400000") +
          flood("10.3.0.0", 10, "020000500000", port=1))
    write(top, t, "addresses",
          addrs(0x8) + ask("203.0.113.1", port=2) +
          frame(reply(A, "203.0.113.1", pdst="203.0.113.9"), port=2) +
          look("203.0.113.1", port=2) + addrs(0x10) +
          ask("203.0.113.1", port=3) +
          frame(reply(A, "203.0.113.1", pdst="203.0.113.10"), port=3) +
          addrs(0x7) + ask("198.51.100.1", port=1) +
          frame(reply(A, "198.51.100.1", pdst="198.51.100.2"), port=1) +
          addrs(0x0) + frame(reply(A, "198.51.100.1",
                                   pdst="198.51.100.2"), port=1) +
          look("198.51.100.1", port=1))
    # Neighbour discovery: a solicitation (operation 2, bit 6), then its
    # answer, learned, and the advertisements that are refused.
    def ask6(*hops, port=0, thread=0):
        return record(ctl(2, port, thread, 0x40),
                      b"".join(ipaddress.IPv6Address(h).packed
                               for h in hops))

    def na(mac, target, hlim=255, flags="SO", tll=True, **kw):
        f = (Ether(src=mac, dst="02:00:00:00:00:02") /
             IPv6(src=target, dst="2001:db8::2", hlim=hlim) /
             ICMPv6ND_NA(tgt=target, R=0, S="S" in flags, O="O" in flags,
                         **kw))
        if tll:
            f = f / ICMPv6NDOptDstLLAddr(lladdr=mac)
        return f

    N = "2001:db8::1"
    write(top, t, "nd-learn",
          ask6(N) + frame(na(A, N)) + ask6(N, thread=1) +
          frame(na(B, N), thread=1) + wait(31000) + ask6(N) +
          frame(na(A, N)) + frame(na(B, N)))
    write(top, t, "nd-refused",
          ask6(N) + frame(na(A, N, flags="O")) + frame(na(A, N, hlim=64)) +
          frame(na(A, N), port=1) + frame(na(A, N, tll=False)) +
          frame(na(A, N, cksum=0x1234)) + frame(raw(na(A, N))[:70]) +
          frame(na(A, "ff02::1")) + frame(na(A, N), port=3) +
          frame(na(A, N) / ICMPv6NDOptDstLLAddr(lladdr=B)) +
          frame(raw(na(A, N))[:-7] + b"\x00" * 7) +
          record(ctl(1), b"".join(struct.pack("!H", len(raw(na(A, N))))
                                  + raw(na(A, N)) for i in range(3))))
    write(top, t, "pending-expired",
          ask("192.0.2.1") + wait(3000) + frame(reply(A, "192.0.2.1")) +
          ask("192.0.2.1") + ask("192.0.2.1", thread=1) +
          frame(reply(A, "192.0.2.1")))
    write(top, t, "max-answers",
          ask("192.0.2.1") + b"".join(
              frame(reply("02:00:00:00:0c:%02x" % i, "192.0.2.1"))
              for i in range(6)) + look("192.0.2.1"))
    # Frames longer than 64 KiB, through the last operation.
    write(top, t, "huge-reply",
          ask("192.0.2.1") + bytes([ctl(7)]) + arp_ok + b"\0" * 70000)
    write(top, t, "huge-other",
          bytes([ctl(7, thread=1)]) + raw(Ether() / IP() / UDP()) +
          b"x" * 66000)


def seeds_kernel_ipip_stats(top):
    t = "kernel-ipip-stats"
    # fuzz-kernel-ipip-stats.c: 32-byte names, 64-bit host-order values.
    def ctr(name, value):
        return name.encode().ljust(32, b"\0")[:32] + struct.pack("=Q", value)

    totals = ["queued", "polled", "backlog_drops", "down_drops",
              "rx_decapsulated", "rx_gro_bypassed", "rx_drop_bad_inner",
              "rx_drop_ecn", "rx_drop_policy", "rx_drop_nomem",
              "tx_encapsulated", "tx_drop_no_tunnel_info",
              "tx_drop_not_ipv4", "tx_drop_no_route", "tx_drop_too_big",
              "tx_drop_nomem", "icmp_pmtu_updates", "icmp_redirects",
              "icmp_frag_needed_sent"]
    cells = ["queued", "polled", "backlog_drops", "down_drops"]
    good = b"".join(ctr(n, i * 10) for i, n in enumerate(totals))
    for cpu in (0, 1):
        good += b"".join(ctr("cpu%d_%s" % (cpu, n), cpu * 100 + i)
                         for i, n in enumerate(cells))
    write(top, t, "two-cpus", good)
    write(top, t, "cpus-out-of-order",
          ctr("cpu3_queued", 1) + ctr("cpu1_queued", 2))
    write(top, t, "unterminated-and-unknown",
          b"cpu1_" + b"9" * 27 + struct.pack("=Q", 5) +
          ctr("cpu4294967295_polled", 1) + ctr("cpu_queued", 1) +
          ctr("future_counter", 7) + b"partial")


def seeds_header_key(top):
    t = "header-key"
    # fuzz-header-key.c: a frame (control byte: its port), then records of
    # (position, XOR) pairs, each control byte a signed length change.
    def edits(delta, *pairs):
        return record(delta & 0xff, bytes(b for pair in pairs for b in pair))

    udp = Ether(**MAC) / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(
        sport=1234, dport=80) / (b"x" * 22)
    tcp = Ether(**MAC) / tcp4(1, 10)
    tcp_opts = Ether(**MAC) / (IP(src="10.0.0.1", dst="10.0.0.2") / TCP(
        sport=1234, dport=80, flags="S", options=[("MSS", 1460),
                                                 ("NOP", None),
                                                 ("WScale", 7)]))
    # Identification, checksum and total length (masked), TTL and a port
    # (kept), padding added, the frame cut short.
    common = (edits(0, (18, 0x55), (24, 0xaa)) + edits(0, (22, 1)) +
              edits(0, (37, 0x10)) + edits(8) + edits(-20) +
              edits(0, (17, 0x04)))
    write(top, t, "udp", record(1, udp) + common + edits(0, (40, 0xff)))
    write(top, t, "tcp", record(1, tcp) + common + edits(0, (38, 0x01)) +
          edits(0, (47, 0x02)) + edits(0, (46, 0x10)))
    write(top, t, "tcp-options", record(2, tcp_opts) + common +
          edits(0, (46, 0x40)))
    # Tagged: the TPID made 802.1ad, then no tag type (0x0800); the TCI's
    # CFI bit and VID; the type after the tag; the masked and kept bytes
    # above, four bytes on; a second tag's worth of length.
    tagged = (edits(0, (12, 0x09), (13, 0xa8)) + edits(0, (12, 0x89)) +
              edits(0, (14, 0x10)) + edits(0, (15, 0x01)) +
              edits(0, (16, 0x8e), (17, 0xdd)) +
              edits(0, (22, 0x55), (28, 0xaa)) + edits(0, (26, 1)) +
              edits(0, (41, 0x10)) + edits(4) + edits(-24))
    write(top, t, "vlan", record(1, Ether(**MAC) / Dot1Q(vlan=10) /
                                 IP(src="10.0.0.1", dst="10.0.0.2") /
                                 UDP()) + tagged)
    write(top, t, "vlan-tcp", record(1, Ether(**MAC) / Dot1Q(vlan=20) /
                                     tcp4(1, 10)) + tagged +
          edits(0, (51, 0x02)))
    # IPv6: the type made IPv4; the payload length (masked), flow label, next
    # header, hop limit and a port (kept); padding added, the frame cut.
    ipv6 = (edits(0, (12, 0x8e), (13, 0xdd)) + edits(0, (19, 0x01)) +
            edits(0, (16, 0x10)) + edits(0, (20, 0x17)) +
            edits(0, (21, 0x01)) + edits(0, (57, 0x01)) + edits(4) +
            edits(-3))
    write(top, t, "ipv6", record(1, Ether(**MAC) / IPv6() / UDP()) + ipv6)
    # ...and TCP's flags and header length.
    write(top, t, "ipv6-tcp", record(1, Ether(**MAC) / IPv6(fl=5) /
                                     TCP(sport=1234, dport=80, flags="A")) +
          ipv6 + edits(0, (67, 0x02)) + edits(0, (66, 0x10)))
    # Tagged IPv6: the TPID made 802.1ad, the TCI, the type after the tag
    # made IPv4, the payload length, a port; a tag's worth of length less.
    write(top, t, "vlan-ipv6", record(1, Ether(**MAC) / Dot1Q(vlan=10) /
                                      IPv6() / UDP()) +
          edits(0, (12, 0x09), (13, 0xa8)) + edits(0, (15, 0x01)) +
          edits(0, (16, 0x8e), (17, 0xdd)) + edits(0, (23, 0x01)) +
          edits(0, (61, 0x01)) + edits(-4))
    write(top, t, "fragment", record(1, fragment(
        Ether(**MAC) / IP(src="10.0.0.1", dst="10.0.0.2") / UDP() /
        (b"y" * 64), fragsize=32)[0]) + edits(0, (20, 0x20)))

    # Decapsulated (control byte 0x80 | port): the tunnel metadata, a
    # 'struct flow_tnl' as x86-64 lays it out (header-key-check.h), then
    # changes of the metadata (control byte 0x80) and of the frame (0x40,
    # no length change).
    def flow_tnl(tun_id, flags, tp_dst, opts=b"", decoded_map=0,
                 ipv6=False):
        if ipv6:
            addrs = (bytes(4) +
                     ipaddress.IPv6Address("2001:db8::88").packed +
                     bytes(4) + ipaddress.IPv6Address("2001:db8::92").packed)
        else:
            addrs = (ipaddress.IPv4Address("192.168.10.1").packed +
                     bytes(16) +
                     ipaddress.IPv4Address("192.168.10.2").packed +
                     bytes(16))
        head = (addrs +
                struct.pack("!Q", tun_id) + struct.pack("<H", flags) +
                struct.pack("!BBHH", 2, 63, 49321, tp_dst) + bytes(16))
        present = (struct.pack("<Q", decoded_map) if decoded_map
                   else struct.pack("<Q", len(opts)))
        return head + present + bytes(8) + opts + b"\xa5" * 8

    def tnl_edits(*pairs):
        return record(0x80, bytes(b for pair in pairs for b in pair))

    key, udpif = 1 << 3, 1 << 4
    ovn_opt = bytes([0x01, 0x02, 0x80, 0x01, 0, 0, 0, 5])
    # The addresses, the tunnel ID, flags, ToS, TTL, ports, the GBP ID,
    # an IPv6 address byte, the options' length and bytes, the table
    # pointer, the bytes beyond the options.
    tnl_common = (tnl_edits((0, 1)) + tnl_edits((20, 0x80)) +
                  tnl_edits((47, 1)) + tnl_edits((48, udpif)) +
                  tnl_edits((50, 4)) + tnl_edits((51, 1)) +
                  tnl_edits((53, 1)) + tnl_edits((55, 1)) +
                  tnl_edits((56, 1)) + tnl_edits((19, 1)) +
                  tnl_edits((72, 4)) + tnl_edits((72, 0x20)) +
                  tnl_edits((80, 0xff)) + tnl_edits((91, 1)) +
                  tnl_edits((99, 1)) + tnl_edits((107, 1)) +
                  edits(64, (26, 1)) + edits(64, (18, 0x55)))
    write(top, t, "geneve", record(0x83, udp) +
          record(0, flow_tnl(0x123456, key | udpif, 6081, ovn_opt)) +
          tnl_common)
    write(top, t, "geneve-tcp-12", record(0x83, tcp) +
          record(0, flow_tnl(7, key | udpif, 6081,
                             bytes([0xff, 0xff, 1, 2]) + bytes(range(8)))) +
          tnl_common + edits(64, (47, 0x02)))
    write(top, t, "vxlan-ipv6", record(0x84, Ether(**MAC) / IPv6() /
                                       UDP()) +
          record(0, flow_tnl(100, key, 4789)) + tnl_common)
    write(top, t, "geneve-decoded", record(0x83, udp) +
          record(0, flow_tnl(1, key, 6081, decoded_map=1)) + tnl_common)
    # Over IPv6 outer headers: the IPv6 addresses' bytes besides.
    tnl6_common = (tnl_common + tnl_edits((4, 1)) + tnl_edits((23, 0x80)) +
                   tnl_edits((24, 1)) + tnl_edits((39, 1)) +
                   tnl_edits((20, 1), (39, 1)))
    write(top, t, "geneve-ipv6-outer", record(0x83, udp) +
          record(0, flow_tnl(0x123456, key | udpif, 6081, ovn_opt,
                             ipv6=True)) + tnl6_common)
    write(top, t, "geneve-ipv6-outer-tcp-16", record(0x83, tcp) +
          record(0, flow_tnl(7, key | udpif, 6081, ovn_opt + ovn_opt,
                             ipv6=True)) + tnl6_common)
    write(top, t, "vxlan-ipv6-outer-ipv6", record(0x84, Ether(**MAC) /
                                                  IPv6() / UDP()) +
          record(0, flow_tnl(100, key, 4789, ipv6=True)) + tnl6_common)


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "tests/fuzz/corpus"
    seeds_ipip(top)
    seeds_gro(top)
    seeds_gso(top)
    seeds_ipf(top)
    seeds_ipip_options(top)
    seeds_ct_action(top)
    seeds_afpacket_vnet(top)
    seeds_afpacket_rx(top)
    seeds_tunnel_rx(top)
    seeds_tunnel_neigh(top)
    seeds_kernel_ipip_stats(top)
    seeds_header_key(top)


if __name__ == "__main__":
    main()

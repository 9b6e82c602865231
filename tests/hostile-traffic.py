#!/usr/bin/python3
# Copyright (c) 2026 The ovs-percpu authors.
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

"""Hostile traffic for tests/percpu-hostile.at: families of malformed and
adversarial frames, built with scapy (an implementation of these protocols
that is not ours) and written to an interface through an AF_PACKET socket
with a virtio-net header, as a container or a VM's tap would write them.

  hostile-traffic.py send FAMILY --iface IFACE [--seed N] [--count N]
                     [--seconds S] [addresses...]
      Writes FAMILY's frames to IFACE (run it in the namespace that holds
      IFACE) and prints one summary line:
          FAMILY seed N: sent N frames, N bytes, N refused by the kernel
      and, for a family whose receiver can count what must arrive, lines
          FAMILY seed N: expect NAME N
      Every family is bounded: at most --count frames (each family has its
      own default) and --seconds seconds.  The frames depend only on the
      family, the seed and the addresses, so a failure is replayed by the
      same command line; the seed is printed.
  hostile-traffic.py list
      The families, one a line, with what each sends.
  hostile-traffic.py sink --ip IP --udp-port PORT --seconds S
      Counts, for S seconds, the UDP datagrams to IP:PORT and the GRE
      packets to IP that the local IP stack delivers (reassembled
      datagrams count once), says "ready" on stderr once it listens, and
      prints "udp N bytes N" and "gre N".
  hostile-traffic.py counters
      Reads the output of the switch's commands, each preceded by a line
      "@SECTION", on stdin and prints every counter in it as one
      "SECTION/NAME VALUE" line (per-thread counters summed), for the test
      to compare before and after a family.
  hostile-traffic.py delta BEFORE AFTER [--moved NAME...] [--unmoved NAME...]
                     [--at-most NAME=VALUE...] [--delta-at-most NAME=N...]
      Prints, for each NAME, whether it moved between the two files of
      "counters" output; with --at-most, whether the value in AFTER is at
      most VALUE; with --delta-at-most, whether it grew by at most N.

The addresses (--src-mac, --dst-mac, --gw-mac, --src-ip, --dst-ip,
--local-ip, --tunnel-ip, --tunnel-remote, --tunnel-mac, --vni, --gre-key,
--geneve-vni) describe the test's topology; see percpu-hostile.at.
"""

import argparse
import errno
import random
import re
import select
import socket
import struct
import sys
import time
import zlib

from scapy.all import (ARP, Dot1AD, Dot1Q, Ether, GRE, ICMP, IP, IPv6,
                       IPv6ExtHdrDestOpt, IPv6ExtHdrFragment,
                       IPv6ExtHdrHopByHop, IPv6ExtHdrRouting,
                       IPv6ExtHdrSegmentRouting, ICMPv6DestUnreach,
                       ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptDstLLAddr,
                       ICMPv6NDOptSrcLLAddr, ICMPv6EchoRequest, Raw, TCP,
                       UDP, raw)
from scapy.contrib.geneve import GENEVE, GeneveOptions
from scapy.contrib.mpls import MPLS
from scapy.layers.vxlan import VXLAN

SOL_PACKET = 263
PACKET_VNET_HDR = 15

# struct virtio_net_hdr (include/uapi/linux/virtio_net.h).
VNET_F_NEEDS_CSUM = 1
VNET_F_DATA_VALID = 2
VNET_GSO_NONE = 0
VNET_GSO_TCPV4 = 1
VNET_GSO_UDP = 3
VNET_GSO_TCPV6 = 4
VNET_GSO_UDP_L4 = 5
VNET_GSO_ECN = 0x80

VXLAN_PORT = 4789
GENEVE_PORT = 6081

FAMILIES = {}


def family(name, count, doc):
    """Registers the decorated generator as family 'name', which sends at
    most 'count' frames by default."""
    def register(fn):
        FAMILIES[name] = (fn, count, doc)
        return fn
    return register


def vnet_hdr(flags=0, gso_type=VNET_GSO_NONE, hdr_len=0, gso_size=0,
             csum_start=0, csum_offset=0):
    """A struct virtio_net_hdr, little-endian as on the host."""
    return struct.pack("<BBHHHH", flags, gso_type, hdr_len & 0xffff,
                       gso_size & 0xffff, csum_start & 0xffff,
                       csum_offset & 0xffff)


PLAIN = vnet_hdr()


class Ctx:
    """What every family needs: its random generator and the topology."""

    def __init__(self, args, name):
        # A family's frames depend only on the seed and its name.
        self.rng = random.Random(args.seed * 1000003 + zlib.crc32(
            name.encode()))
        for k, v in vars(args).items():
            setattr(self, k, v)
        # What a family says the receiving side should count, printed
        # with the summary ("expect NAME N").
        self.expect = {}

    def eth(self, dst=None, src=None, type=0x0800):
        """An Ethernet header, IPv4 unless 'type' says otherwise (scapy
        would put 0x9000 in front of raw bytes)."""
        return Ether(src=src or self.src_mac, dst=dst or self.dst_mac,
                     type=type)

    def payload(self, n):
        return bytes(self.rng.getrandbits(8) for _ in range(n))

    def ip_id(self):
        return self.rng.randrange(1, 65536)


def cut(frame, n):
    """'frame' truncated to 'n' bytes (but never below an Ethernet
    header: AF_PACKET pads shorter frames with zeros anyway)."""
    return frame[:max(n, 14)]


def every_cut(frame, start=14, step=1):
    """'frame' truncated at every length from 'start' to its end."""
    for n in range(start, len(frame), step):
        yield frame[:n]


def csum16(data):
    """The Internet checksum of 'data'."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


# ---------------------------------------------------------------------------
# Ethernet, VLAN, MPLS, NSH.

ETHERTYPES = [0x0800, 0x86dd, 0x0806, 0x8100, 0x88a8, 0x9100, 0x8847,
              0x8848, 0x894f, 0x88cc, 0x8863, 0x8864, 0x8035, 0x22f3,
              0x88e5, 0x8906, 0x0000, 0x05dc, 0x05ff, 0x0600, 0xffff]


@family("ethernet", 1500,
        "bare and truncated Ethernet, 802.3 lengths, VLAN/QinQ stacks up "
        "to 16 deep cut at every byte, MPLS stacks without bottom, NSH")
def gen_ethernet(c):
    body = raw(IP(src=c.src_ip, dst=c.dst_ip) / UDP(sport=7, dport=7)
               / Raw(c.payload(18)))
    for et in ETHERTYPES:
        frame = raw(c.eth(type=et)) + body
        yield from every_cut(frame, 14, 3)
        yield raw(c.eth(dst="ff:ff:ff:ff:ff:ff", type=et)) + body[:c.rng.randrange(0, 8)]
    # 802.3 length field lying about the payload, LLC and SNAP cut short.
    for length in (0, 1, 3, 8, 46, 1500, 0x5ff):
        llc = b"\xaa\xaa\x03\x00\x00\x00\x08\x00" + body
        frame = raw(Ether(src=c.src_mac, dst=c.dst_mac)) [:12] \
            + struct.pack("!H", length) + llc
        yield from every_cut(frame, 14, 4)
    # VLAN and QinQ stacks, cut at every byte of the tags.
    for depth in range(1, 17):
        tags = b"".join(struct.pack("!HH", c.rng.choice((0x8100, 0x88a8,
                                                         0x9100)),
                                    c.rng.randrange(0, 65536))
                        for _ in range(depth))
        frame = raw(c.eth())[:12] + tags + b"\x08\x00" + body
        yield frame
        yield from every_cut(frame[:14 + 4 * depth + 6], 12 + 2, 1)
    yield raw(c.eth() / Dot1AD(vlan=4095) / Dot1Q(vlan=0)) + body
    # MPLS: stacks without a bottom of stack, cut mid-label.
    for depth in range(1, 21):
        labels = b"".join(struct.pack("!I", (c.rng.randrange(1 << 20) << 12)
                                      | (c.rng.randrange(8) << 9)
                                      | c.rng.randrange(256))
                          for _ in range(depth))
        for et in (0x8847, 0x8848):
            frame = raw(c.eth(type=et)) + labels + body
            yield frame
            yield cut(frame, 14 + 4 * depth - c.rng.randrange(1, 4))
    yield raw(c.eth() / MPLS(label=3, s=1) / IP(src=c.src_ip,
                                                dst=c.dst_ip))[:30]
    # NSH (RFC 8300): lengths past the frame, MD types 0, 1, 2, 3.
    for mdtype in range(4):
        for length in (0, 1, 2, 6, 63):
            nsh = struct.pack("!BBBB", 0x0f, length & 0x3f, mdtype, 1) \
                + struct.pack("!I", 0x000100ff) + c.payload(4 * 4)
            frame = raw(c.eth(type=0x894f)) + nsh + body
            yield frame
            yield from every_cut(frame[:14 + 8 + 16], 14, 3)


# ---------------------------------------------------------------------------
# IPv4.

def ipv4_raw(c, ihl=5, tot_len=None, ver=4, proto=17, frag=0, ttl=64,
             options=b"", payload=b"", bad_csum=False, dst=None, src=None,
             ident=None):
    """An IPv4 header with every field as given, checksum computed over
    the IHL's bytes (or deliberately wrong), then 'payload'."""
    hdr = struct.pack("!BBHHHBBH4s4s", (ver << 4) | (ihl & 0xf), 0,
                      0, ident if ident is not None else c.ip_id(), frag,
                      ttl, proto, 0,
                      socket.inet_aton(src or c.src_ip),
                      socket.inet_aton(dst or c.dst_ip))
    hdr += options
    if tot_len is None:
        tot_len = len(hdr) + len(payload)
    hdr = hdr[:2] + struct.pack("!H", tot_len & 0xffff) + hdr[4:]
    n = min(len(hdr), (ihl & 0xf) * 4) if ihl >= 5 else 20
    s = csum16(hdr[:n])
    if bad_csum:
        s ^= 0x5a5a
    hdr = hdr[:10] + struct.pack("!H", s) + hdr[12:]
    return hdr + payload


IP_PROTOS = [1, 2, 4, 6, 17, 41, 47, 50, 51, 58, 89, 103, 112, 132, 136,
             0, 255]


@family("ipv4", 1500,
        "IPv4 with IHL 0-15, total length 0 to 65535 against the bytes "
        "there, versions 0-15, options with lengths 0, 1 and past the end, "
        "source routes to a local address, every fragment bit, L4 cut short")
def gen_ipv4(c):
    udp = raw(UDP(sport=1000, dport=2000) / Raw(c.payload(24)))
    for ihl in range(16):
        for tot in (None, 0, 19, 20, ihl * 4 - 1, 60, 65535):
            yield raw(c.eth()) + ipv4_raw(c, ihl=ihl, tot_len=tot,
                                          options=b"\x01" * max(0, ihl * 4 - 20),
                                          payload=udp)
    for ver in range(16):
        yield raw(c.eth()) + ipv4_raw(c, ver=ver, payload=udp)
    # Options: EOL, NOP runs, record route and timestamp with bad pointers,
    # lengths 0 and 1 (a parser that trusts them loops or overruns), LSRR
    # and SSRR whose next hop is the switch's own address.
    local = socket.inet_aton(c.local_ip)
    opts = [b"\x00" * 4, b"\x01" * 40, b"\x07\x00\x00\x00", b"\x07\x01\x04\x00",
            b"\x07\x27\x04" + b"\0" * 37, b"\x07\x07\xff" + b"\0" * 5,
            b"\x44\x04\x05\x00", b"\x44\x28\x05\x03" + b"\0" * 36,
            b"\x83\x07\x04" + local + b"\x01",
            b"\x89\x07\x04" + local + b"\x01",
            b"\x83\x0b\x08" + local + local + b"\x01",
            b"\x94\x04\x00\x00", b"\x94\x00\x00\x00", b"\x88\x04\x00\x01",
            b"\x82\xff\x00\x00", b"\x86\x02\x00\x00"]
    for o in opts:
        o = o + b"\0" * (-len(o) % 4)
        ihl = min(15, 5 + len(o) // 4)
        yield raw(c.eth()) + ipv4_raw(c, ihl=ihl, options=o[:40],
                                      payload=udp)
        yield raw(c.eth()) + ipv4_raw(c, ihl=ihl, options=o[:40],
                                      payload=udp, dst=c.local_ip)
        yield raw(c.eth()) + ipv4_raw(c, ihl=15, options=o[:40])[:34 + len(o) // 2]
    # Every combination of the flag bits, with and without an offset.
    for flags in range(8):
        for off in (0, 1, 0x1fff):
            for bad in (False, True):
                yield raw(c.eth()) + ipv4_raw(c, frag=(flags << 13) | off,
                                              payload=udp, bad_csum=bad)
    # Every protocol, its header cut at every length.
    for proto in IP_PROTOS:
        l4 = c.payload(64)
        if proto == 6:
            l4 = raw(TCP(sport=1, dport=2, flags="S")) + l4
        for n in range(0, 48, 2):
            for ttl in (0, 1, 64):
                if c.rng.random() < 0.34:
                    yield raw(c.eth()) + ipv4_raw(c, proto=proto, ttl=ttl,
                                                  payload=l4[:n])
    # Broadcast, multicast, loopback, zero and own-address sources.
    for src in ("0.0.0.0", "127.0.0.1", "255.255.255.255", "224.0.0.1",
                c.local_ip, c.dst_ip):
        for dst in ("255.255.255.255", "224.0.0.251", "127.0.0.1",
                    c.local_ip, "0.0.0.0"):
            yield raw(c.eth()) + ipv4_raw(c, src=src, dst=dst, payload=udp)


# ---------------------------------------------------------------------------
# IPv6.

def ipv6_raw(c, nh, payload, plen=None, src=None, dst=None, hlim=64):
    """An IPv6 header with payload length 'plen' (default: the truth)."""
    if plen is None:
        plen = len(payload)
    return struct.pack("!IHBB16s16s", 0x60000000, plen & 0xffff, nh, hlim,
                       socket.inet_pton(socket.AF_INET6, src or c.src_ip6),
                       socket.inet_pton(socket.AF_INET6, dst or c.dst_ip6)) \
        + payload


def ext_hdr(nh, length_units, body=None):
    """A generic IPv6 extension header: next header, length in 8-octet
    units beyond the first, and 'body' (default: PadN filling it)."""
    size = 8 * (length_units + 1)
    if body is None:
        pad = min(size - 4, 255)
        body = b"\x01" + bytes([pad]) + b"\0" * (size - 4)
    return bytes([nh, length_units & 0xff]) + body[:size - 2]


@family("ipv6", 1500,
        "IPv6 with payload lengths that lie, extension-header chains 30 "
        "deep, hop-by-hop not first, lengths past the end, routing headers "
        "(types 0, 2, 4) whose next segment is a local address, truncated "
        "and atomic fragment headers, AH and ESP cut short")
def gen_ipv6(c):
    udp = raw(UDP(sport=1000, dport=2000) / Raw(c.payload(16)))
    eth6 = raw(c.eth(type=0x86dd))
    for plen in (0, 1, 7, 8, len(udp) - 1, len(udp) + 1, 1500, 65535):
        yield eth6 + ipv6_raw(c, 17, udp, plen=plen)
    # Chains of destination options (60), hop-by-hop (0) anywhere.
    for depth in range(1, 31):
        chain = b""
        types = [c.rng.choice((0, 60, 60, 43)) for _ in range(depth)]
        nexts = types[1:] + [17]
        for t, n in zip(types, nexts):
            if t == 43:
                chain += ext_hdr(n, 0, bytes([0, 0]) + b"\0" * 4)
            else:
                chain += ext_hdr(n, c.rng.randrange(0, 3))
        pkt = eth6 + ipv6_raw(c, types[0], chain + udp)
        yield pkt
        yield cut(pkt, 54 + c.rng.randrange(0, len(chain) + 8))
    # Extension header lengths past the packet's end.
    for nh in (0, 43, 44, 51, 60, 135, 139, 140, 253):
        for units in (0, 1, 32, 255):
            body = ext_hdr(17, units)[:c.rng.randrange(2, 24)]
            yield eth6 + ipv6_raw(c, nh, body)
            yield eth6 + ipv6_raw(c, nh, body, plen=units * 8 + 8)
    # Routing headers whose next segment is a local address.
    local6 = c.local_ip6
    for rtype in (0, 2, 3, 4, 253):
        for segleft in (0, 1, 2, 255):
            if rtype == 4:
                rh = IPv6ExtHdrSegmentRouting(addresses=[local6, c.dst_ip6],
                                              segleft=segleft, nh=17)
            else:
                rh = IPv6ExtHdrRouting(type=rtype, segleft=segleft,
                                       addresses=[local6], nh=17)
            pkt = raw(c.eth() / IPv6(src=c.src_ip6, dst=local6) / rh
                      / UDP(sport=1, dport=2))
            yield pkt
            yield cut(pkt, 54 + 8 + c.rng.randrange(0, 16))
    # Fragment headers: truncated, atomic, non-first, tiny.
    frag_body = udp
    for n in range(0, 8):
        yield eth6 + ipv6_raw(c, 44, (bytes([17, 0]) + b"\0" * 6)[:n])
    for off, m in ((0, 0), (0, 1), (1, 0), (1, 1), (8191, 0), (8191, 1)):
        fh = struct.pack("!BBHI", 17, 0, (off << 3) | m, c.ip_id())
        yield eth6 + ipv6_raw(c, 44, fh + frag_body)
        yield eth6 + ipv6_raw(c, 44, fh + frag_body[:3])
        yield eth6 + ipv6_raw(c, 44, fh)
    # A fragment header whose next header is hop-by-hop, then a
    # fragment header inside a fragment.
    fh = struct.pack("!BBHI", 0, 0, 1, 77)
    yield eth6 + ipv6_raw(c, 44, fh + ext_hdr(17, 0) + udp)
    fh2 = struct.pack("!BBHI", 44, 0, 1, 78)
    yield eth6 + ipv6_raw(c, 44, fh2 + struct.pack("!BBHI", 17, 0, 0, 79)
                          + udp)
    # AH (51) and ESP (50), cut short; no next header (59) with data.
    for nh in (50, 51, 59):
        for n in (0, 2, 4, 8, 12, 40):
            yield eth6 + ipv6_raw(c, nh, c.payload(n))
    # Upper layers cut at every length.
    for nh in (6, 17, 58, 132):
        l4 = c.payload(40)
        if nh == 58:
            l4 = raw(ICMPv6EchoRequest()) + l4
        for n in range(0, 40, 3):
            yield eth6 + ipv6_raw(c, nh, l4[:n])


# ---------------------------------------------------------------------------
# TCP, UDP, ICMP, SCTP.

@family("l4", 1500,
        "TCP data offsets 0-15 against the bytes there, TCP options with "
        "lengths 0, 1 and past the end, every flag combination, UDP lengths "
        "0 to 65535 against the datagram, bad checksums, ICMP and SCTP cut "
        "short, over IPv4 and IPv6")
def gen_l4(c):
    for v6 in (False, True):
        def ip(proto, l4, dst=None):
            if v6:
                return raw(c.eth(type=0x86dd)) + ipv6_raw(c, proto, l4)
            return raw(c.eth()) + ipv4_raw(c, proto=proto, payload=l4,
                                           dst=dst)
        for doff in range(16):
            for n in (12, 19, 20, 40, 60):
                hdr = struct.pack("!HHIIBBHHH", c.rng.randrange(1, 65536),
                                  80, c.rng.getrandbits(32), 0, doff << 4,
                                  c.rng.randrange(256), 512, 0, 0)
                yield ip(6, (hdr + c.payload(60))[:n])
        # Options that lie about their lengths.
        for o in (b"\x02\x00", b"\x02\x01", b"\x02\x28", b"\x03\x03\x0e",
                  b"\x03\x03\xff", b"\x04\x00", b"\x05\x02", b"\x05\x0a",
                  b"\x05\xff", b"\x08\x00", b"\x08\x0a", b"\x13\x12",
                  b"\x1d\x03", b"\xfe\x00", b"\x01" * 39 + b"\x02"):
            o = o + b"\x00" * (-len(o) % 4)
            doff = min(15, 5 + len(o) // 4)
            hdr = struct.pack("!HHIIBBHHH", 1234, 80, 1, 0, doff << 4,
                              0x02, 512, 0, 0) + o[:40]
            yield ip(6, hdr)
            yield ip(6, hdr[:20 + len(o) // 2])
        for flags in range(0, 256, 3):
            yield ip(6, struct.pack("!HHIIBBHHH", 1234, 80, 1, 1, 5 << 4,
                                    flags, 0, c.rng.getrandbits(16), 0xffff))
        for ulen in (0, 1, 7, 8, 9, 31, 33, 1000, 65535):
            body = struct.pack("!HHHH", 53, 53, ulen, c.rng.getrandbits(16)) \
                + c.payload(24)
            yield ip(17, body)
            yield ip(17, body[:c.rng.randrange(0, 8)])
        for n in range(0, 12):
            yield ip(58 if v6 else 1, bytes([c.rng.randrange(256), 0])
                     + c.payload(10)[:n])
            yield ip(132, c.payload(16)[:n])
            yield ip(2, c.payload(12)[:n])


# ---------------------------------------------------------------------------
# Fragments.

def frags(c, payload, pieces, proto=17, dst=None, ident=None, df=False):
    """IPv4 fragments of 'payload' (an L4 datagram), cut at the byte
    offsets 'pieces' (list of (offset, length, more)), in that order."""
    ident = ident if ident is not None else c.ip_id()
    out = []
    for off, length, more in pieces:
        frag = (off // 8) | (0x2000 if more else 0) | (0x4000 if df else 0)
        out.append(raw(c.eth()) + ipv4_raw(c, proto=proto, frag=frag,
                                           payload=payload[off:off + length],
                                           dst=dst, ident=ident))
    return out


def frags6(c, payload, pieces, nh=17, dst=None, ident=None):
    """IPv6 fragments, as frags()."""
    ident = ident if ident is not None else c.rng.getrandbits(32)
    out = []
    for off, length, more in pieces:
        fh = struct.pack("!BBHI", nh, 0, ((off // 8) << 3) | (1 if more else 0),
                         ident)
        out.append(raw(c.eth(type=0x86dd))
                   + ipv6_raw(c, 44, fh + payload[off:off + length], dst=dst))
    return out


@family("fragments", 2500,
        "IPv4 and IPv6 fragments through the switch (into ct()'s "
        "reassembly) and to a local address: overlaps, duplicates, tiny "
        "first fragments that split the TCP header, offsets past 64 KiB, "
        "zero-length and odd-length middle fragments, then a flood of "
        "incomplete datagrams with distinct IDs")
def gen_fragments(c):
    for dst in (c.dst_ip, c.local_ip):
        dgram = raw(UDP(sport=5000, dport=5001) / Raw(c.payload(2392)))
        tcp = raw(TCP(sport=5000, dport=5001, flags="S")) + c.payload(400)
        cases = [
            [(0, 800, True), (400, 800, True), (1200, 1200, False)],
            [(0, 800, True), (0, 800, True), (800, 1600, False)],
            [(800, 1600, False), (0, 808, True)],
            [(0, 800, True), (792, 808, True), (1600, 800, False)],
            [(1600, 800, False), (800, 800, True), (0, 1600, True)],
            [(0, 8, True), (8, 2392, False)],
            [(0, 1000, True), (1000, 0, True), (1000, 1400, False)],
            [(0, 803, True), (803, 1597, False)],
            [(0, 800, False), (800, 1600, False)],
            [(65528, 800, False), (0, 800, True)],
            [(65520, 16, True), (65536 - 8, 8, False)],
        ]
        for pieces in cases:
            yield from frags(c, dgram, pieces, dst=dst)
            yield from frags6(c, dgram, pieces,
                              dst=c.dst_ip6 if dst == c.dst_ip
                              else c.local_ip6)
        # RFC 1858: a first fragment too short for the TCP header, then one
        # at offset 8 rewriting the flags.
        yield from frags(c, tcp, [(0, 8, True), (8, 412, False)], proto=6,
                         dst=dst)
        yield from frags(c, tcp, [(0, 16, True), (8, 412, False)], proto=6,
                         dst=dst)
        yield from frags(c, tcp, [(0, 24, True), (8, 16, True),
                                  (24, 396, False)], proto=6, dst=dst)
        # A fragment of a DF datagram.
        yield from frags(c, dgram, [(0, 800, True), (800, 1592, False)],
                         dst=dst, df=True)
        # More fragments than any table keeps for one datagram.
        big = c.payload(8 * 200)
        yield from frags(c, big, [(8 * i, 8, i < 199) for i in range(200)],
                         dst=dst)
    # A flood of incomplete datagrams: first fragments only, distinct IDs,
    # through the switch.
    first = raw(UDP(sport=6000, dport=6001)) + c.payload(1392)
    while True:
        yield raw(c.eth()) + ipv4_raw(c, frag=0x2000, payload=first,
                                      ident=c.ip_id())


@family("fragments-local", 600,
        "complete fragmented UDP datagrams (3 fragments of 1,000 bytes, in "
        "and out of order) and GRE packets of every version (PPTP, ERSPAN) "
        "to a local address that is no tunnel's: they must reach the local "
        "IP stack whole (see 'sink')")
def gen_fragments_local(c):
    n = 0
    while True:
        n += 1
        dgram = raw(UDP(sport=7000 + n % 1000, dport=c.sink_port,
                        chksum=0) / Raw(c.payload(2992)))
        # UDP checksum computed over the whole datagram by scapy.
        dgram = raw(IP(src=c.src_ip, dst=c.local_ip, proto=17)
                    / UDP(sport=7000 + n % 1000, dport=c.sink_port)
                    / Raw(dgram[8:]))[20:]
        pieces = [(0, 1000, True), (1000, 1000, True), (2000, 1000, False)]
        if n % 2:
            pieces.reverse()
        yield from frags(c, dgram, pieces, dst=c.local_ip)
        # Counted once all its fragments were taken (the sender asks for
        # the next frame only after sending this one).
        c.expect["udp"] = c.expect.get("udp", 0) + 1
        # GRE that is not a tunnel of ours: PPTP (version 1) and ERSPAN.
        if n % 4 == 0:
            yield raw(c.eth() / IP(src=c.src_ip, dst=c.local_ip)
                      / GRE(version=1, key_present=1, proto=0x880b, key=0)
                      / Raw(c.payload(40)))
            c.expect["gre"] = c.expect.get("gre", 0) + 1
            yield raw(c.eth() / IP(src=c.src_ip, dst=c.local_ip)
                      / GRE(seqnum_present=1, proto=0x88be,
                            sequence_number=n) / Raw(c.payload(40)))
            c.expect["gre"] += 1


# ---------------------------------------------------------------------------
# Tunnels.

def inner_frame(c, size=64, dst_ip=None, src_ip=None):
    """A frame as a remote VM would send into the overlay."""
    return raw(Ether(src="02:00:00:00:99:01", dst="02:00:00:00:99:02")
               / IP(src=src_ip or "10.1.1.3", dst=dst_ip or "10.1.1.1")
               / UDP(sport=9000, dport=9001) / Raw(c.payload(size)))


def outer_udp(c, dport, body, src=None, dst=None, csum=True, sport=None):
    """Ethernet/IPv4/UDP to the local tunnel address with 'body'."""
    return raw(c.eth(dst=c.tunnel_mac)
               / IP(src=src or c.tunnel_remote, dst=dst or c.tunnel_ip)
               / UDP(sport=sport or c.rng.randrange(32768, 61000),
                     dport=dport, chksum=None if csum else 0)
               / Raw(body))


def outer_ip(c, proto, body, src=None, dst=None):
    return raw(c.eth(dst=c.tunnel_mac)
               / IP(src=src or c.tunnel_remote, dst=dst or c.tunnel_ip,
                    proto=proto) / Raw(body))


def vxlan_hdr(flags, vni, reserved=0):
    return struct.pack("!II", flags << 24 | (reserved & 0xffffff),
                       (vni << 8) & 0xffffffff)


def gre_hdr(c, flags, version, proto, key=None, csum_ok=True, body=b""):
    """A GRE header with flag bits 'flags' (C R K S as 8, 4, 2, 1) and
    every optional field they call for."""
    word = ((flags & 8) << 12) | ((flags & 4) << 12) | ((flags & 2) << 12) \
        | ((flags & 1) << 12) | (version & 7)
    hdr = struct.pack("!HH", word, proto)
    opt = b""
    if flags & 0xc:
        opt += b"\0\0\0\0"            # checksum + offset
    if flags & 2:
        opt += struct.pack("!I", key if key is not None
                           else c.rng.getrandbits(32))
    if flags & 1:
        opt += struct.pack("!I", c.rng.getrandbits(32))
    if flags & 4:
        opt += b"\x00\x00\x00\x00"   # a SRE list terminator
    pkt = hdr + opt + body
    if flags & 8:
        s = csum16(pkt) ^ (0 if csum_ok else 0x1234)
        pkt = pkt[:4] + struct.pack("!H", s) + pkt[6:]
    return pkt


def geneve_hdr(c, vni, opts, opt_len=None, ver=0, crit=0, oam=0,
               proto=0x6558):
    if opt_len is None:
        opt_len = len(opts) // 4
    return struct.pack("!BBHI", (ver << 6) | (opt_len & 0x3f),
                       (oam << 7) | (crit << 6), proto,
                       (vni << 8) & 0xffffffff) + opts


def geneve_opt(c, length_units, cls=0x0102, typ=None, data=None):
    """One Geneve TLV whose length field says 'length_units' (0-31) and
    which carries 4 * length_units bytes (or 'data')."""
    typ = c.rng.randrange(256) if typ is None else typ
    if data is None:
        data = c.payload(4 * length_units)
    return struct.pack("!HBB", cls, typ, length_units & 0x1f) + data


@family("tunnels", 2500,
        "ipip, vxlan, gre and geneve to the local tunnel address from the "
        "underlay: outer headers truncated, with options, bad checksums and "
        "lengths; vxlan flags; gre with every flag combination and "
        "version, good and bad checksums; geneve option lengths 0 to 63 "
        "words, TLVs past the header, critical options; inner frames cut "
        "at every byte; unknown keys")
def gen_tunnels(c):
    inner = inner_frame(c)
    inner_ip = inner[14:]
    # The outer header, lying in every way, around a valid vxlan packet.
    good = outer_udp(c, VXLAN_PORT, vxlan_hdr(0x08, c.vni) + inner)
    yield from every_cut(good, 14, 2)
    for ihl in (0, 4, 6, 15):
        for tot in (None, 0, 20, 28, 65535):
            yield raw(c.eth(dst=c.tunnel_mac)) + ipv4_raw(
                c, ihl=ihl, tot_len=tot, proto=17,
                options=b"\x01" * max(0, ihl * 4 - 20),
                payload=good[34:], src=c.tunnel_remote, dst=c.tunnel_ip)
    for bad in (True, False):
        yield raw(c.eth(dst=c.tunnel_mac)) + ipv4_raw(
            c, ihl=6, options=b"\x01\x01\x01\x00", payload=good[34:],
            src=c.tunnel_remote, dst=c.tunnel_ip, bad_csum=bad)
        yield raw(c.eth(dst=c.tunnel_mac)) + ipv4_raw(
            c, payload=good[34:], src=c.tunnel_remote, dst=c.tunnel_ip,
            bad_csum=bad, proto=17)
    # UDP lengths and checksums that lie.
    for ulen in (0, 7, 8, 15, 16, 17, 100, 65535):
        body = bytearray(good[34:])
        struct.pack_into("!H", body, 4, ulen)
        yield good[:34] + bytes(body)
    body = bytearray(good[34:])
    body[6] ^= 0xff
    yield good[:34] + bytes(body)
    # VXLAN: flags, VNIs, the inner frame cut at every byte.
    for flags in (0x00, 0x08, 0x0c, 0x88, 0xff, 0x80, 0x0a):
        for vni in (c.vni, 0, c.vni + 1, 0xffffff):
            for reserved in (0, 0xffffff):
                yield outer_udp(c, VXLAN_PORT,
                                vxlan_hdr(flags, vni, reserved) + inner)
    for n in range(0, len(inner) + 1, 2):
        yield outer_udp(c, VXLAN_PORT, vxlan_hdr(0x08, c.vni) + inner[:n])
    yield outer_udp(c, VXLAN_PORT, vxlan_hdr(0x08, c.vni) + inner,
                    csum=False)
    # GRE: every flag combination and version, checksums good and bad,
    # every protocol we might meet.
    for flags in range(16):
        for version in range(8):
            for proto in (0x6558, 0x0800, 0x86dd, 0x880b, 0x88be, 0x22eb,
                          0x8847, 0x1234):
                if c.rng.random() < 0.25:
                    body = inner if proto == 0x6558 else inner_ip
                    yield outer_ip(c, 47, gre_hdr(c, flags, version, proto,
                                                  key=c.gre_key,
                                                  body=body))
        for csum_ok in (True, False):
            yield outer_ip(c, 47, gre_hdr(c, flags | 2, 0, 0x6558,
                                          key=c.gre_key, csum_ok=csum_ok,
                                          body=inner))
    for n in range(4, 20):
        yield outer_ip(c, 47, gre_hdr(c, 0xb, 0, 0x6558, key=c.gre_key,
                                      body=inner)[:n])
    # Geneve: option lengths at and past every limit.
    for opt_len in range(64):
        opts = b""
        while len(opts) < opt_len * 4:
            units = c.rng.randrange(0, 32)
            opts += geneve_opt(c, units)
        opts = opts[:opt_len * 4]
        for claim in (opt_len, 63, (opt_len + 1) & 0x3f):
            yield outer_udp(c, GENEVE_PORT,
                            geneve_hdr(c, c.geneve_vni, opts, opt_len=claim)
                            + inner)
    for units in range(32):
        # One TLV claiming more than the header carries.
        opt = geneve_opt(c, units)[:4 + 4 * c.rng.randrange(0, units + 1)]
        opt += b"\0" * (-len(opt) % 4)
        yield outer_udp(c, GENEVE_PORT,
                        geneve_hdr(c, c.geneve_vni, opt) + inner)
    for ver in range(4):
        for crit in (0, 1):
            for proto in (0x6558, 0x0800, 0x86dd, 0x1234):
                yield outer_udp(c, GENEVE_PORT, geneve_hdr(
                    c, c.geneve_vni, geneve_opt(c, 1, cls=0xffff, typ=0x80),
                    ver=ver, crit=crit, proto=proto)
                    + (inner if proto == 0x6558 else inner_ip))
    for n in range(0, 24):
        yield outer_udp(c, GENEVE_PORT,
                        geneve_hdr(c, c.geneve_vni,
                                   geneve_opt(c, 2))[:n])
    # ipip: inner packets cut short, not IPv4, with bad headers.
    for n in range(0, 40, 2):
        yield outer_ip(c, 4, inner_ip[:n])
    yield outer_ip(c, 4, raw(IPv6(src="fd00::3", dst="fd00::1")
                             / UDP(sport=1, dport=2)))
    for ihl in (0, 4, 15):
        yield outer_ip(c, 4, ipv4_raw(c, ihl=ihl, src="10.1.1.3",
                                      dst="10.1.1.1", payload=inner_ip[20:]))
    # CE outside, not-ECT inside (RFC 6040 drop), and the reverse.
    yield raw(c.eth(dst=c.tunnel_mac) / IP(src=c.tunnel_remote,
                                           dst=c.tunnel_ip, tos=3, proto=4)
              / Raw(inner_ip))
    # A stream of valid packets of each type, so that decapsulation and
    # GRO work among the garbage.
    for i in range(64):
        yield outer_udp(c, VXLAN_PORT, vxlan_hdr(0x08, c.vni)
                        + inner_frame(c, 100 + i))
        yield outer_udp(c, GENEVE_PORT, geneve_hdr(c, c.geneve_vni, b"")
                        + inner_frame(c, 100 + i))
        yield outer_ip(c, 47, gre_hdr(c, 2, 0, 0x6558, key=c.gre_key,
                                      body=inner_frame(c, 100 + i)))
        yield outer_ip(c, 4, inner_frame(c, 100 + i)[14:])


@family("tunnels-nested", 400,
        "valid tunnel packets inside valid tunnel packets, all addressed "
        "to the local tunnel address: vxlan in vxlan, geneve in vxlan, gre "
        "in ipip, ipip in ipip in ipip; each outer packet may be "
        "decapsulated once, its inner one never")
def gen_tunnels_nested(c):
    def wrap(kind, frame):
        if kind == "vxlan":
            return outer_udp(c, VXLAN_PORT, vxlan_hdr(0x08, c.vni) + frame)
        if kind == "geneve":
            return outer_udp(c, GENEVE_PORT,
                             geneve_hdr(c, c.geneve_vni, b"") + frame)
        if kind == "gre":
            return outer_ip(c, 47, gre_hdr(c, 2, 0, 0x6558, key=c.gre_key,
                                           body=frame))
        return outer_ip(c, 4, frame[14:])
    combos = [("vxlan", "vxlan"), ("vxlan", "geneve"), ("ipip", "gre"),
              ("ipip", "ipip", "ipip"), ("gre", "vxlan"),
              ("geneve", "ipip"), ("vxlan",) * 6]
    while True:
        for combo in combos:
            frame = inner_frame(c, 32)
            for kind in reversed(combo):
                frame = wrap(kind, frame)
            yield frame


@family("tunnels-spoofed", 400,
        "valid ipip, vxlan, gre and geneve packets to the local tunnel "
        "address from the underlay, with the keys our ports use, but from "
        "a source that is no port's remote_ip: none may be decapsulated")
def gen_tunnels_spoofed(c):
    src = c.spoofed_remote
    while True:
        inner = inner_frame(c, 40)
        yield outer_udp(c, VXLAN_PORT, vxlan_hdr(0x08, c.vni) + inner,
                        src=src)
        yield outer_udp(c, GENEVE_PORT, geneve_hdr(c, c.geneve_vni, b"")
                        + inner, src=src)
        yield outer_ip(c, 47, gre_hdr(c, 2, 0, 0x6558, key=c.gre_key,
                                      body=inner), src=src)
        yield outer_ip(c, 4, inner[14:], src=src)


def gen_from_overlay(c, dst, src):
    """Valid packets of every tunnel type, with our ports' keys, from a VM
    on the overlay bridge to 'dst', from IP address 'src'."""
    while True:
        for _ in range(1):
            inner = inner_frame(c, 40, dst_ip=c.dst_ip, src_ip="10.1.1.66")
            base = Ether(src=c.src_mac, dst=c.gw_mac) / IP(src=src, dst=dst)
            yield raw(base / UDP(sport=40000, dport=VXLAN_PORT)
                      / Raw(vxlan_hdr(0x08, c.vni) + inner))
            yield raw(base / UDP(sport=40000, dport=GENEVE_PORT)
                      / Raw(geneve_hdr(c, c.geneve_vni, b"") + inner))
            b = base.copy()
            b[IP].proto = 47
            yield raw(b / Raw(gre_hdr(c, 2, 0, 0x6558, key=c.gre_key,
                                      body=inner)))
            b = base.copy()
            b[IP].proto = 4
            yield raw(b / Raw(inner[14:]))


@family("tunnels-overlay", 400,
        "valid ipip, vxlan, gre and geneve packets, with the keys our "
        "ports use, sent from a VM on the overlay bridge to the host's "
        "tunnel address, from the VM's address and from the tunnels' "
        "remote address: none may be decapsulated")
def gen_tunnels_overlay(c):
    a = gen_from_overlay(c, c.tunnel_ip, c.src_ip)
    b = gen_from_overlay(c, c.tunnel_ip, c.tunnel_remote)
    while True:
        yield next(a)
        yield next(b)


@family("tunnels-overlay-local", 400,
        "the same, to the overlay bridge's own address: a tunnel port "
        "with no local_ip takes packets to any address of the internal "
        "port they reach, as Linux's tunnel sockets do, so these are "
        "decapsulated, and then refused by ofproto, since they come from "
        "no port's remote_ip")
def gen_tunnels_overlay_local(c):
    return gen_from_overlay(c, c.local_ip, c.src_ip)


# ---------------------------------------------------------------------------
# ARP and IPv6 neighbour discovery.

def mac_bytes(mac):
    return bytes.fromhex(mac.replace(":", ""))


def arp_raw(eth_src, eth_dst, op, sha, spa, tha, tpa):
    """An Ethernet ARP frame, built by hand: a flood of them is built
    faster than scapy builds them."""
    return (mac_bytes(eth_dst) + eth_src + b"\x08\x06"
            + struct.pack("!HHBBH", 1, 0x0800, 6, 4, op) + sha
            + socket.inet_aton(spa) + tha + socket.inet_aton(tpa))


@family("arp", 40000,
        "gratuitous ARP requests and replies with distinct senders, "
        "unsolicited replies claiming the tunnel's next hop, requests for "
        "random targets, malformed ARP (hardware and protocol lengths, "
        "opcodes, truncation)")
def gen_arp(c):
    victim = c.tunnel_remote
    spoof_mac = "02:66:66:66:66:66"
    bcast = "ff:ff:ff:ff:ff:ff"
    zero = bytes(6)
    n = 0
    while True:
        n += 1
        if n % 100 == 1:
            # Claims for the next hop of our tunnels, unsolicited.
            for op in (1, 2):
                for dst in (c.gw_mac, bcast):
                    yield raw(Ether(src=spoof_mac, dst=dst)
                              / ARP(op=op, hwsrc=spoof_mac, psrc=victim,
                                    hwdst=c.gw_mac if op == 2 else
                                    "00:00:00:00:00:00", pdst=c.local_ip))
            # Malformed ARP.
            for hwlen, plen in ((0, 4), (6, 0), (6, 16), (255, 255), (8, 4)):
                yield raw(Ether(src=c.src_mac, dst=bcast)
                          / ARP(op=2, hwlen=hwlen, plen=plen))[:60]
            for op in (0, 3, 4, 255, 65535):
                yield raw(Ether(src=c.src_mac, dst=bcast)
                          / ARP(op=op, psrc=victim, hwsrc=spoof_mac))
            for k in range(14, 42, 3):
                yield raw(Ether(src=c.src_mac, dst=bcast)
                          / ARP(op=2, psrc=victim, hwsrc=spoof_mac))[:k]
        # Gratuitous ARP from a distinct sender each time.
        ip = "%d.%d.%d.%d" % (c.flood_net, (n >> 16) & 0xff, (n >> 8) & 0xff,
                              n & 0xff)
        mac = struct.pack("!BBI", 2, (n >> 32) & 0xff, n & 0xffffffff)
        op = 1 if n % 3 == 0 else 2
        # Gratuitous (target = sender) except one in 500, whose target is
        # the switch host's address: a host learns the sender of a request
        # for its own address, and a flood of those would fill the host's
        # neighbour table, shared by every interface of its namespace.
        yield arp_raw(mac, bcast if n % 2 else c.gw_mac, op, mac, ip,
                      b"\xff" * 6 if op == 2 else zero,
                      ip if n % 500 else c.local_ip)
        if n % 7 == 0:
            yield arp_raw(mac_bytes(c.src_mac), bcast, 1,
                          mac_bytes(c.src_mac), c.src_ip, zero,
                          "%d.%d.%d.%d" % (c.flood_net, c.rng.randrange(256),
                                           c.rng.randrange(256),
                                           c.rng.randrange(256)))


@family("nd", 20000,
        "IPv6 neighbour advertisements with distinct targets and the "
        "override flag, solicitations, options with length 0 (a parser "
        "that trusts it never ends) and past the end, claims for local "
        "addresses")
def gen_nd(c):
    template = None
    n = 0
    while True:
        n += 1
        mac = "02:77:%02x:%02x:%02x:%02x" % ((n >> 24) & 0xff,
                                             (n >> 16) & 0xff,
                                             (n >> 8) & 0xff, n & 0xff)
        target = "fd00:%x::%x:%x" % (c.flood_net, n >> 16, n & 0xffff)
        if template is None:
            template = bytearray(raw(
                Ether(src=mac, dst="33:33:00:00:00:01")
                / IPv6(src="fe80::1", dst="ff02::1", hlim=255)
                / ICMPv6ND_NA(tgt=target, R=0, S=0, O=1)
                / ICMPv6NDOptDstLLAddr(lladdr=mac)))
        # The same advertisement for a distinct target and MAC each time;
        # the ICMPv6 checksum is fixed up by hand, faster than scapy.
        f = template
        macb = mac_bytes(mac)
        f[6:12] = macb
        f[14 + 8 + 8:14 + 8 + 16] = struct.pack("!Q", 0xfe80 << 48 | n)[:8]
        f[14 + 8:14 + 8 + 8] = b"\xfe\x80" + bytes(6)
        f[14 + 40 + 8:14 + 40 + 24] = socket.inet_pton(socket.AF_INET6,
                                                        target)
        f[14 + 40 + 26:14 + 40 + 32] = macb
        f[14 + 40 + 2:14 + 40 + 4] = b"\0\0"
        icmp = bytes(f[14 + 40:])
        pseudo = (bytes(f[22:54]) + struct.pack("!IxxxB", len(icmp), 58))
        f[14 + 40 + 2:14 + 40 + 4] = struct.pack("!H", csum16(pseudo + icmp))
        yield bytes(f)
        if n % 50 == 1:
            base = (Ether(src=c.src_mac, dst="33:33:ff:00:00:01")
                    / IPv6(src=c.src_ip6, dst="ff02::1:ff00:1", hlim=255))
            for opt in (b"\x01\x00" + b"\0" * 6, b"\x02\x00" + b"\0" * 6,
                        b"\x01\x01" + b"\0" * 3, b"\x01\xff" + b"\0" * 6,
                        b"\x0e\x00", b"\x01\x01\x02\x03\x04\x05\x06\x07"
                        + b"\x00\x00"):
                yield raw(base / ICMPv6ND_NS(tgt=c.local_ip6) / Raw(opt))
                yield raw(base / ICMPv6ND_NA(tgt=c.local_ip6, O=1)
                          / Raw(opt))
            # Claims for the local address, solicited-looking.
            yield raw(Ether(src="02:66:66:66:66:66", dst="33:33:00:00:00:01")
                      / IPv6(src=c.local_ip6, dst="ff02::1", hlim=255)
                      / ICMPv6ND_NA(tgt=c.local_ip6, R=0, S=1, O=1)
                      / ICMPv6NDOptDstLLAddr(lladdr="02:66:66:66:66:66"))
            # Hop limit not 255: must be ignored by any ND parser.
            yield raw(Ether(src=mac, dst="33:33:00:00:00:01")
                      / IPv6(src="fe80::1:%x" % n, dst="ff02::1", hlim=64)
                      / ICMPv6ND_NA(tgt=target, O=1)
                      / ICMPv6NDOptDstLLAddr(lladdr=mac))


# ---------------------------------------------------------------------------
# Frame sizes and virtio-net headers.

def udp_frame_of(c, size, dst_ip=None, df=False):
    """A UDP/IPv4 frame of exactly 'size' bytes (up to 65,549: IPv4's
    total length limits the rest)."""
    l4_len = size - 14 - 20
    ip_len = min(20 + l4_len, 65535)
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, ip_len, c.ip_id(),
                      0x4000 if df else 0, 64, 17, 0,
                      socket.inet_aton(c.src_ip),
                      socket.inet_aton(dst_ip or c.dst_ip))
    hdr = hdr[:10] + struct.pack("!H", csum16(hdr)) + hdr[12:]
    udp = struct.pack("!HHHH", 4000, 4001, min(l4_len, 65535), 0)
    return raw(c.eth()) + hdr + udp + bytes(l4_len - 8)


@family("oversize", 64,
        "frames of 65,405 to 65,549 bytes (a dp_packet holds 65,535 with "
        "its headroom; the frame sizes around it), without a GSO header, "
        "each a few times")
def gen_oversize(c):
    sizes = [1514, 9000, 65000, 65405, 65406, 65407, 65500, 65529, 65535,
             65536, 65549]
    while True:
        for size in sizes:
            yield udp_frame_of(c, size)


def tcp_frame(c, payload_len, dst_ip=None, v6=False, df=True, sport=None,
              seq=1):
    """A TCP frame with a partial checksum (the pseudo-header sum in the
    field), its header lengths and the checksum offsets."""
    sport = sport or c.rng.randrange(1024, 65536)
    payload = bytes(payload_len)
    if v6:
        ip = IPv6(src=c.src_ip6, dst=c.dst_ip6)
        l3 = 40
    else:
        ip = IP(src=c.src_ip, dst=dst_ip or c.dst_ip,
                flags="DF" if df else 0, id=c.ip_id())
        l3 = 20
    tcp = TCP(sport=sport, dport=5001, seq=seq, flags="PA", window=512)
    frame = bytearray(raw(c.eth() / ip / tcp / Raw(payload)))
    # Partial checksum, as the kernel leaves it for offload: the
    # pseudo-header sum, uncomplemented.
    l4_len = len(frame) - 14 - l3
    if v6:
        pseudo = (socket.inet_pton(socket.AF_INET6, c.src_ip6)
                  + socket.inet_pton(socket.AF_INET6, c.dst_ip6)
                  + struct.pack("!IxxxB", l4_len, 6))
    else:
        pseudo = (socket.inet_aton(c.src_ip)
                  + socket.inet_aton(dst_ip or c.dst_ip)
                  + struct.pack("!xBH", 6, l4_len))
    struct.pack_into("!H", frame, 14 + l3 + 16, ~csum16(pseudo) & 0xffff)
    return bytes(frame), 14 + l3


@family("vnet-gso", 400,
        "frames with virtio-net headers: TCP GSO with gso_size 0, 1, 2, 47, "
        "48, 536, 1448, 65535; header lengths and checksum offsets past "
        "the frame; GSO types on the wrong protocol (TCPv6 on IPv4, UDP, "
        "UDP_L4, ECN); a 64 KiB GSO frame; DATA_VALID on a bad checksum")
def gen_vnet_gso(c):
    while True:
        for v6 in (False, True):
            gso_type = VNET_GSO_TCPV6 if v6 else VNET_GSO_TCPV4
            for plen, segs in ((1024, (0, 1, 2, 8, 47, 48, 536, 1448,
                                       65535)),
                               (65000 if not v6 else 64000, (1448, 48))):
                frame, l4 = tcp_frame(c, plen, v6=v6)
                for gso_size in segs:
                    yield (vnet_hdr(VNET_F_NEEDS_CSUM, gso_type, l4 + 20,
                                    gso_size, l4, 16), frame)
            frame, l4 = tcp_frame(c, 3000, v6=v6)
            for hdr_len in (0, 1, 14, l4, l4 + 20, 3100, 65535):
                yield (vnet_hdr(VNET_F_NEEDS_CSUM, gso_type, hdr_len, 1448,
                                l4, 16), frame)
            for start, off in ((0, 0), (l4, 0), (l4, 18), (l4, 3000),
                               (len(frame) - 1, 16), (len(frame), 0),
                               (65535, 65535), (6, 16)):
                yield (vnet_hdr(VNET_F_NEEDS_CSUM, 0, 0, 0, start, off),
                       frame)
                yield (vnet_hdr(VNET_F_NEEDS_CSUM, gso_type, l4 + 20, 1448,
                                start, off), frame)
            for gt in (VNET_GSO_TCPV6 if not v6 else VNET_GSO_TCPV4,
                       VNET_GSO_UDP, VNET_GSO_UDP_L4, gso_type | VNET_GSO_ECN,
                       0x7f, 0x06):
                yield (vnet_hdr(VNET_F_NEEDS_CSUM, gt, l4 + 20, 1448, l4,
                                16), frame)
                yield (vnet_hdr(0, gt, l4 + 20, 1448, 0, 0), frame)
            bad = bytearray(frame)
            bad[l4 + 16] ^= 0xff
            yield (vnet_hdr(VNET_F_DATA_VALID), bytes(bad))
            yield (vnet_hdr(VNET_F_DATA_VALID | VNET_F_NEEDS_CSUM, gso_type,
                            l4 + 20, 1448, l4, 16), frame)
        # UDP with a GSO header: UFO and UDP_L4.
        u = udp_frame_of(c, 3000)
        for gt in (VNET_GSO_UDP, VNET_GSO_UDP_L4):
            for size in (1, 8, 1472):
                yield (vnet_hdr(VNET_F_NEEDS_CSUM, gt, 42, size, 34, 6), u)


@family("tso-tunnel", 300,
        "towards each tunnel port: TCP GSO frames of up to 64 KiB with "
        "gso_size 48 to 1448, and UDP frames of 9,000 to 65,405 bytes with "
        "and without DF, whose encapsulation exceeds the underlay's MTU "
        "and, for the largest, IPv4's 16-bit total length")
def gen_tso_tunnel(c):
    while True:
        for net in c.tunnel_nets.split(","):
            dst = net + "." + str(c.rng.randrange(1, 255))
            for plen, seg in ((65000, 1448), (65000, 48), (20000, 100),
                              (3000, 1400)):
                frame, l4 = tcp_frame(c, plen, dst_ip=dst)
                yield (vnet_hdr(VNET_F_NEEDS_CSUM, VNET_GSO_TCPV4, l4 + 20,
                                seg, l4, 16), frame)
            for size in (1514, 9000, 65405):
                for df in (False, True):
                    yield udp_frame_of(c, size, dst_ip=dst, df=df)


# ---------------------------------------------------------------------------
# Conntrack.

@family("conntrack", 6000,
        "TCP state abuse (every flag combination, out-of-window "
        "segments, SYN floods with distinct ports past the connection "
        "limit) and ICMP and ICMPv6 errors quoting garbage: truncated "
        "inner headers, bad inner IHL, inner ICMP errors, quotes of real "
        "connections with the wrong ports")
def gen_conntrack(c):
    peer = c.dst_ip
    for flags in range(64):
        yield raw(c.eth() / IP(src=c.src_ip, dst=peer)
                  / TCP(sport=c.rng.randrange(1024, 65536), dport=22,
                        flags=flags, seq=c.rng.getrandbits(32),
                        ack=c.rng.getrandbits(32)))
    # One connection's SYN, then segments far outside its window.
    yield raw(c.eth() / IP(src=c.src_ip, dst=peer)
              / TCP(sport=33333, dport=80, flags="S", seq=1000))
    for i in range(64):
        yield raw(c.eth() / IP(src=c.src_ip, dst=peer)
                  / TCP(sport=33333, dport=80, flags="A",
                        seq=c.rng.getrandbits(32), ack=c.rng.getrandbits(32))
                  / Raw(c.payload(16)))
    # ICMP errors quoting garbage.
    quotes = [b"", b"\x45", raw(IP(src=peer, dst=c.src_ip))[:19],
              raw(IP(src=peer, dst=c.src_ip, ihl=15) / TCP())[:40],
              raw(IP(src=peer, dst=c.src_ip, ihl=2) / UDP()),
              raw(IP(src=c.src_ip, dst=peer, proto=6)) + b"\x82\x35",
              raw(IP(src=c.src_ip, dst=peer) / TCP(sport=33333, dport=80)),
              raw(IP(src=c.src_ip, dst=peer) / TCP(sport=33334, dport=80)),
              raw(IP(src=c.src_ip, dst=peer) / ICMP(type=3) / IP()),
              raw(IP(src=c.src_ip, dst=peer, frag=5) / UDP()),
              raw(IP(src=c.src_ip, dst=peer, len=9000) / UDP())]
    for q in quotes:
        for typ, code in ((3, 0), (3, 3), (3, 4), (11, 0), (12, 0), (5, 1),
                          (4, 0)):
            yield raw(c.eth() / IP(src=c.src_ip, dst=peer)
                      / ICMP(type=typ, code=code) / Raw(q))
    for q in (b"", raw(IPv6(src=c.dst_ip6, dst=c.src_ip6))[:30],
              raw(IPv6(src=c.src_ip6, dst=c.dst_ip6, nh=44) / Raw(b"\0" * 3)),
              raw(IPv6(src=c.src_ip6, dst=c.dst_ip6) / UDP())):
        for typ in (1, 2, 3, 4):
            yield raw(c.eth(type=0x86dd)
                      / IPv6(src=c.src_ip6, dst=c.dst_ip6)
                      / ICMPv6DestUnreach(type=typ) / Raw(q))
    # A SYN flood with distinct source ports (one in 8 an ACK, of no
    # connection).  Built from a template: faster than scapy.
    syn = bytearray(raw(c.eth() / IP(src=c.src_ip, dst=peer)
                        / TCP(sport=1, dport=1, flags="S", seq=1)))
    n = 0
    while True:
        n += 1
        struct.pack_into("!HHI", syn, 34, 1024 + n % 60000, 1 + n // 60000,
                         n)
        syn[47] = 0x02 if n % 8 else 0x10
        syn[50:52] = b"\0\0"
        pseudo = bytes(syn[26:34]) + struct.pack("!xBH", 6, 20)
        struct.pack_into("!H", syn, 50, csum16(pseudo + bytes(syn[34:54])))
        yield bytes(syn)


@family("meter", 4000,
        "a burst of small UDP datagrams to the metered port (9, discard), "
        "many times the meter's rate")
def gen_meter(c):
    frame = raw(c.eth() / IP(src=c.src_ip, dst=c.dst_ip)
                / UDP(sport=4000, dport=9) / Raw(bytes(18)))
    while True:
        yield frame


# ---------------------------------------------------------------------------
# Sending.

class PcapSink:
    """Stands in for the socket with --pcap: writes each frame, without its
    virtio-net header, to a pcap file."""

    def __init__(self, path):
        from scapy.utils import PcapWriter
        self.w = PcapWriter(path, linktype=1, sync=False)

    def send(self, data):
        self.w.write(data[10:])


def send(args):
    fn, default_count, _ = FAMILIES[args.family]
    count = args.count if args.count is not None else default_count
    ctx = Ctx(args, args.family)
    if args.pcap:
        s = PcapSink(args.pcap)
    else:
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        s.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        s.bind((args.iface, 0))
    deadline = time.time() + args.seconds
    sent = n_bytes = refused = 0
    errors = {}
    for i, item in enumerate(fn(ctx)):
        if i >= count or time.time() > deadline:
            break
        vnet, frame = item if isinstance(item, tuple) else (PLAIN, item)
        try:
            s.send(vnet + frame)
            sent += 1
            n_bytes += len(frame)
        except OSError as e:
            if e.errno == errno.ENOBUFS:
                # The device's queue is full: wait for it to drain.
                time.sleep(0.001)
                try:
                    s.send(vnet + frame)
                    sent += 1
                    n_bytes += len(frame)
                    continue
                except OSError as e2:
                    e = e2
            refused += 1
            errors[errno.errorcode.get(e.errno, e.errno)] = \
                errors.get(errno.errorcode.get(e.errno, e.errno), 0) + 1
        if args.pace and sent % args.pace == 0:
            time.sleep(0.001)
    detail = ""
    if errors:
        detail = " (%s)" % ", ".join("%s %d" % kv
                                     for kv in sorted(errors.items()))
    print("%s seed %d: sent %d frames, %d bytes, %d refused by the kernel%s"
          % (args.family, args.seed, sent, n_bytes, refused, detail))
    for name in sorted(ctx.expect):
        print("%s seed %d: expect %s %d" % (args.family, args.seed, name,
                                             ctx.expect[name]))


def sink(args):
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind((args.ip, args.udp_port))
    socks = [udp]
    if not args.no_gre:
        gre = socket.socket(socket.AF_INET, socket.SOCK_RAW, 47)
        gre.bind((args.ip, 0))
        socks.append(gre)
    sys.stderr.write("ready\n")
    sys.stderr.flush()
    deadline = time.time() + args.seconds
    n_udp = n_udp_bytes = n_gre = 0
    while time.time() < deadline:
        r, _, _ = select.select(socks, [], [], 0.05)
        for sock in r:
            data = sock.recv(65536)
            if sock is udp:
                n_udp += 1
                n_udp_bytes += len(data)
            elif len(data) > 20 and socket.inet_ntoa(data[16:20]) == args.ip:
                n_gre += 1
    print("udp %d bytes %d" % (n_udp, n_udp_bytes))
    print("gre %d" % n_gre)


# ---------------------------------------------------------------------------
# Counters.

def counters(args):
    """Flattens the commands' output on stdin into "SECTION/NAME VALUE"
    lines, summing the per-thread blocks of each section (a "total:"
    block, where there is one, is skipped, its threads being summed)."""
    out = {}
    section = None
    block = None
    in_gro = False

    def add(name, value):
        key = "%s/%s" % (section, re.sub(r"\s+", "_", name.strip()))
        out[key] = out.get(key, 0) + value

    for line in sys.stdin:
        line = line.rstrip("\n")
        if line.startswith("@"):
            section = re.sub(r"\s+", "_", line[1:].strip())
            block = None
            in_gro = False
            continue
        if section is None or not line.strip():
            continue
        if section == "coverage":
            m = re.match(r"^(\w+)\s+.*total: (\d+)$", line)
            if m:
                add(m.group(1), int(m.group(2)))
            continue
        if section.startswith("port_"):
            # ovs-ofctl dump-ports: "rx pkts=1, bytes=2, drop=0, ..." and
            # custom statistics "name=value, ...".
            m = re.match(r"^\s*(rx|tx)\s+(.*)$", line)
            prefix = m.group(1) + "_" if m else ""
            for name, value in re.findall(r"(\w+)=(\d+)", line):
                add(prefix + name, int(value))
            continue
        if section.startswith("flows_"):
            m = re.search(r"cookie=(0x[0-9a-f]+).*n_packets=(\d+)", line)
            if m:
                add("cookie" + m.group(1), int(m.group(2)))
            continue
        if section in ("rss", "value"):
            m = re.match(r"^\s*([\w ]+?):?\s+(\d+)", line)
            if m:
                add(m.group(1), int(m.group(2)))
            continue
        if not line.startswith(" "):
            if block == "gro" or in_gro:
                # tunnel-stats-show's GRO cells, per port: not summed.
                in_gro = True
            block = line.rstrip(":")
            continue
        if block == "total" or block == "gro" or in_gro:
            continue
        text = line.strip()
        m = re.match(r"^([^:]+):\s+(\d+)(?:\s|$)", text)
        if m and "," not in text:
            add(m.group(1), int(m.group(2)))
            continue
        prefix, _, rest = text.partition(":")
        if not rest:
            continue
        if re.match(r"^\s*\d", rest):
            # "name: N, name: N" pairs.
            for name, value in re.findall(r"([A-Za-z][\w \-()]*?):\s+(\d+)",
                                          text):
                add(name, int(value))
        else:
            # "prefix: name N, name N" or "prefix: name N name N".
            for name, value in re.findall(r"([A-Za-z][\w\-]*)\s+(\d+)",
                                          rest):
                add(prefix + "_" + name, int(value))
    for key in sorted(out):
        print(key, out[key])


def read_counters(path):
    values = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.rpartition(" ")
            if key:
                values[key] = int(value)
    return values


def delta(args):
    before = read_counters(args.before)
    after = read_counters(args.after)
    for name in args.moved or []:
        if name.startswith("coverage/"):
            # coverage/show leaves out the counters never hit.
            after.setdefault(name, 0)
        if name not in after:
            print("moved %s: NO SUCH COUNTER" % name)
        else:
            d = after[name] - before.get(name, 0)
            print("moved %s: %s" % (name, "yes" if d > 0 else "NO"))
    for name in args.unmoved or []:
        if name.startswith("coverage/"):
            after.setdefault(name, 0)
        if name not in after:
            print("unmoved %s: NO SUCH COUNTER" % name)
        else:
            d = after[name] - before.get(name, 0)
            print("unmoved %s: %s" % (name, "yes" if d == 0
                                      else "NO (+%d)" % d))
    for spec in args.delta_at_most or []:
        name, _, limit = spec.rpartition("=")
        if name not in after:
            print("grew at most %s: NO SUCH COUNTER" % spec)
        else:
            d = after[name] - before.get(name, 0)
            print("grew at most %s: %s" % (spec, "yes" if d <= int(limit)
                                           else "NO (+%d)" % d))
    for spec in args.at_most or []:
        name, _, limit = spec.rpartition("=")
        if name not in after:
            print("at most %s: NO SUCH COUNTER" % spec)
        else:
            ok = after[name] <= int(limit)
            print("at most %s: %s" % (spec, "yes" if ok
                                      else "NO (%d)" % after[name]))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)

    ps = sub.add_parser("send")
    ps.add_argument("family", choices=sorted(FAMILIES))
    ps.add_argument("--iface")
    ps.add_argument("--pcap", help="write the frames (without their "
                    "virtio-net headers) to this file instead of IFACE")
    ps.add_argument("--seed", type=int, default=1)
    ps.add_argument("--count", type=int)
    ps.add_argument("--seconds", type=float, default=5.0)
    ps.add_argument("--pace", type=int, default=0,
                    help="sleep 1 ms every PACE frames (0: never)")
    ps.add_argument("--src-mac", default="02:00:00:00:01:01")
    ps.add_argument("--dst-mac", default="02:00:00:00:01:02")
    ps.add_argument("--gw-mac", default="02:00:00:00:01:fe",
                    help="MAC of the bridge's local port on this side")
    ps.add_argument("--src-ip", default="10.1.1.1")
    ps.add_argument("--dst-ip", default="10.1.1.2")
    ps.add_argument("--local-ip", default="10.1.1.254",
                    help="the switch host's address on this side")
    ps.add_argument("--src-ip6", default="fd00:1::1")
    ps.add_argument("--dst-ip6", default="fd00:1::2")
    ps.add_argument("--local-ip6", default="fd00:1::fe")
    ps.add_argument("--tunnel-ip", default="192.168.100.1",
                    help="the host's tunnel address (underlay local port)")
    ps.add_argument("--tunnel-mac", default="02:00:00:00:64:01")
    ps.add_argument("--tunnel-remote", default="192.168.100.2")
    ps.add_argument("--spoofed-remote", default="192.168.100.66",
                    help="a tunnel source that is no port's remote_ip")
    ps.add_argument("--tunnel-nets", default="10.2.1,10.2.2,10.2.3,10.2.4",
                    help="overlay networks routed into each tunnel port")
    ps.add_argument("--vni", type=int, default=42)
    ps.add_argument("--gre-key", type=int, default=7)
    ps.add_argument("--geneve-vni", type=int, default=5)
    ps.add_argument("--flood-net", type=int, default=172,
                    help="first octet of the flooded ARP senders")
    ps.add_argument("--sink-port", type=int, default=9999)

    sub.add_parser("list")

    pk = sub.add_parser("sink")
    pk.add_argument("--ip", required=True)
    pk.add_argument("--udp-port", type=int, required=True)
    pk.add_argument("--seconds", type=float, required=True)
    pk.add_argument("--no-gre", action="store_true",
                    help="count UDP only (as an IPFIX collector's stand-in)")

    sub.add_parser("counters")

    pd = sub.add_parser("delta")
    pd.add_argument("before")
    pd.add_argument("after")
    pd.add_argument("--moved", nargs="*")
    pd.add_argument("--unmoved", nargs="*")
    pd.add_argument("--at-most", nargs="*")
    pd.add_argument("--delta-at-most", nargs="*")

    args = p.parse_args()
    if args.cmd == "send" and not (args.iface or args.pcap):
        p.error("send needs --iface or --pcap")
    if args.cmd == "send":
        send(args)
    elif args.cmd == "list":
        for name in sorted(FAMILIES):
            print("%-16s %s" % (name, FAMILIES[name][2]))
    elif args.cmd == "sink":
        sink(args)
    elif args.cmd == "counters":
        counters(args)
    elif args.cmd == "delta":
        delta(args)


if __name__ == "__main__":
    main()

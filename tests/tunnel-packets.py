#!/usr/bin/python3
"""Crafts the packets of the vxlan, gre and geneve tests with scapy, an
implementation of those encapsulations that is not ours, and prints each as
hex on its own line.

The topology the tests build: underlay bridge br0 (address 1.1.2.88, MAC
given by --br0-mac) with dummy port p0; the remote endpoint is 1.1.2.92 with
MAC f8:bc:12:44:34:b6; overlay hosts behind the tunnel port t0 and behind
dummy port p1.

Cases:
  inner             the overlay frame a host sends into p1 (--tcp: a TCP
                    segment with payload --size, --seq, --ident,
                    --tcp-flags).  With TYPE and --nested: the frame that
                    'decap TYPE --nested' carries, itself a TYPE packet.
  decap TYPE        what the remote endpoint sends into p0: 'inner' inside
                    TYPE's headers (--key, --csum, --opt, --sport), from
                    --remote-ip, to --dst-mac (default br0's MAC).  With
                    --nested, 'inner' inside TYPE's headers inside TYPE's
                    headers.  With --fragment SIZE, the outer datagram's
                    IPv4 (or, with --ipv6, IPv6) fragments of at most SIZE
                    payload bytes, one per line (--reverse: last first).
  plain-udp         a UDP datagram from the remote endpoint to br0's
                    address, port --dst-port (default 53), --size bytes,
                    fragmented as for decap with --fragment.
  pptp, erspan      GRE packets from the remote endpoint to br0's address
                    that are no gre port's: PPTP's enhanced GRE (version 1)
                    and ERSPAN type II.
  With --ipv6, the outer header is IPv6, from 2001:db8::92 (--remote-ip
  otherwise) to 2001:db8::88, traffic class --tos, hop limit --ttl, flow
  label 0; decap's UDP checksum is computed with --csum, else 0, and
  --ext hbh|dst|rt|rt-left|frag|chain8|chain9 puts extension headers
  (hop-by-hop and destination options, a routing header with no or one
  segment left, a fragment header, a chain of 8 or 9 headers: hop-by-hop
  then destination options) before the UDP or GRE header; --cut N keeps N bytes of
  the frame.
  expect TYPE       what must leave p0: each frame of --inner-file inside
                    TYPE's headers, every length and checksum computed by
                    scapy.  The outer UDP source port, which our datapath
                    takes from a hash of the inner flow, is read from the
                    frame at the same line of --actual-file; the rest must
                    match byte for byte.
"""

import argparse
import sys

from scapy.all import (Ether, GRE, IP, IPv6, IPv6ExtHdrDestOpt,
                       IPv6ExtHdrFragment, IPv6ExtHdrHopByHop,
                       IPv6ExtHdrRouting, TCP, UDP, Raw, fragment,
                       fragment6, raw)
from scapy.contrib.geneve import GENEVE, GeneveOptions
from scapy.layers.vxlan import VXLAN

REMOTE_MAC = "f8:bc:12:44:34:b6"
HOST_MAC = "50:54:00:00:00:07"
PEER_MAC = "50:54:00:00:00:08"
LOCAL_IP = "1.1.2.88"
REMOTE_IP = "1.1.2.92"
LOCAL_IP6 = "2001:db8::88"
REMOTE_IP6 = "2001:db8::92"
PORTS = {"vxlan": 4789, "geneve": 6081}
# OVS's default tunnel source port range (tnl/egress_port_range).
SPORT_MIN, SPORT_MAX = 32768, 61000


def inner(args):
    payload = bytes(range(256)) * (args.size // 256 + 1)
    l4 = (TCP(sport=args.tcp_sport, dport=5201, seq=args.seq, ack=1,
              flags=args.tcp_flags, window=args.window)
          if args.tcp else UDP(sport=1234, dport=5678))
    return (Ether(src=HOST_MAC, dst=args.inner_dst_mac or PEER_MAC)
            / IP(src="10.0.0.1", dst="10.0.0.2", ttl=args.inner_ttl,
                 id=args.ident,
                 flags="DF")
            / l4 / Raw(payload[:args.size]))


def geneve_options(opts):
    """--opt CLASS:TYPE:HEXDATA, in order."""
    out = []
    for o in opts:
        cls, typ, data = o.split(":")
        out.append(GeneveOptions(classid=int(cls, 0), type=int(typ, 0),
                                 data=bytes.fromhex(data)))
    return out


def tunnel_headers(args, sport):
    """The headers between the outer IPv4 header and the inner frame."""
    t = args.type
    if t in PORTS:
        udp = UDP(sport=sport, dport=args.dst_port or PORTS[t])
        if not args.csum and not args.udp_csum6:
            udp.chksum = 0
        if t == "vxlan":
            return udp / VXLAN(flags=0x08, vni=args.key)
        opts = geneve_options(args.opt)
        crit = any(int(o.split(":")[1], 0) & 0x80 for o in args.opt)
        return udp / GENEVE(vni=args.key, proto=0x6558, options=opts,
                            critical=1 if crit else 0)
    gre = GRE(proto=0x6558)
    if args.csum:
        gre.chksum_present = 1
    if args.key is not None and not args.no_key:
        gre.key_present = 1
        gre.key = args.key
    return gre


def ext_chain(n):
    """A hop-by-hop header and n - 1 destination options headers."""
    chain = IPv6ExtHdrHopByHop()
    for _ in range(n - 1):
        chain = chain / IPv6ExtHdrDestOpt()
    return chain


def outer_ip(src, dst, args, proto, ident=0):
    if args.ipv6:
        ip6 = IPv6(src=src, dst=dst, tc=args.tos, hlim=args.ttl, fl=0)
        ext = {"hbh": IPv6ExtHdrHopByHop() / IPv6ExtHdrDestOpt(),
               "dst": IPv6ExtHdrDestOpt(),
               "rt": IPv6ExtHdrRouting(segleft=0, addresses=[REMOTE_IP6]),
               "rt-left": IPv6ExtHdrRouting(segleft=1,
                                            addresses=[LOCAL_IP6]),
               "frag": IPv6ExtHdrFragment(id=7),
               "chain8": ext_chain(8),
               "chain9": ext_chain(9)}.get(args.ext)
        return ip6 / ext if ext is not None else ip6
    return IP(src=src, dst=dst, proto=proto, tos=args.tos, ttl=args.ttl,
              id=ident, flags=0 if args.no_df else "DF")


def decap_frame(args, payload):
    """'payload' as the remote endpoint sends it inside TYPE's headers."""
    return (Ether(src=REMOTE_MAC, dst=args.dst_mac or args.br0_mac)
            / outer_ip(args.remote_ip, args.local_ip, args,
                       proto_of(args.type), args.outer_id)
            / tunnel_headers(args, args.sport) / payload)


def frames(args, frame):
    """'frame', or its IPv4 fragments if --fragment says so."""
    if not args.fragment:
        return [frame]
    if args.ipv6:
        eth = frame[Ether]
        ip6 = frame[IPv6]
        whole = IPv6(src=ip6.src, dst=ip6.dst, tc=ip6.tc, hlim=ip6.hlim,
                     nh=44) / IPv6ExtHdrFragment(id=args.outer_id or 7,
                                                 nh=ip6.nh) / ip6.payload
        frags = [Ether(src=eth.src, dst=eth.dst) / f
                 for f in fragment6(whole, args.fragment + 48)]
        if args.reverse:
            frags.reverse()
        return frags
    eth = frame[Ether]
    ip = frame[IP]
    ip.flags = 0
    frags = [Ether(src=eth.src, dst=eth.dst) / f
             for f in fragment(IP(raw(ip)), fragsize=args.fragment)]
    if args.reverse:
        frags.reverse()
    return frags


def proto_of(t):
    return 17 if t in PORTS else 47


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case", choices=["inner", "decap", "expect",
                                    "plain-udp", "pptp", "erspan"])
    p.add_argument("type", nargs="?", choices=["vxlan", "gre", "geneve"])
    p.add_argument("--br0-mac", default="aa:55:aa:55:00:00")
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--tcp", action="store_true")
    p.add_argument("--seq", type=int, default=1)
    p.add_argument("--ident", type=int, default=1)
    p.add_argument("--tcp-flags", default="PA")
    p.add_argument("--window", type=int, default=512)
    p.add_argument("--tcp-sport", type=int, default=40000)
    p.add_argument("--inner-ttl", type=int, default=64)
    p.add_argument("--inner-dst-mac")
    p.add_argument("--key", type=lambda x: int(x, 0), default=None)
    p.add_argument("--no-key", action="store_true")
    p.add_argument("--csum", action="store_true")
    p.add_argument("--tos", type=lambda x: int(x, 0), default=0)
    p.add_argument("--ttl", type=int, default=64)
    p.add_argument("--no-df", action="store_true")
    p.add_argument("--dst-port", type=int, default=0)
    p.add_argument("--opt", action="append", default=[])
    p.add_argument("--sport", type=int, default=50000)
    p.add_argument("--remote-ip")
    p.add_argument("--ipv6", action="store_true")
    p.add_argument("--ext", choices=["hbh", "dst", "rt", "rt-left", "frag",
                                     "chain8", "chain9"])
    p.add_argument("--cut", type=int, default=0)
    p.add_argument("--dst-mac")
    p.add_argument("--outer-id", type=int, default=0)
    p.add_argument("--nested", action="store_true")
    p.add_argument("--fragment", type=int, default=0)
    p.add_argument("--reverse", action="store_true")
    p.add_argument("--inner-file")
    p.add_argument("--actual-file")
    args = p.parse_args()
    args.local_ip = LOCAL_IP6 if args.ipv6 else LOCAL_IP
    if args.remote_ip is None:
        args.remote_ip = REMOTE_IP6 if args.ipv6 else REMOTE_IP
    # Our datapath always computes the UDP checksum over IPv6, as OVS's
    # userspace tunnels do.
    args.udp_csum6 = args.ipv6 and args.case == "expect"
    if args.type in PORTS and args.key is None:
        args.key = 0

    if args.case == "inner":
        if args.nested:
            print(raw(decap_frame(args, inner(args))).hex())
        else:
            print(raw(inner(args)).hex())
    elif args.case == "decap":
        payload = inner(args)
        if args.nested:
            payload = decap_frame(args, payload)
        for f in frames(args, decap_frame(args, payload)):
            print(raw(f)[:args.cut or None].hex())
    elif args.case == "plain-udp":
        payload = bytes(range(256)) * (args.size // 256 + 1)
        frame = (Ether(src=REMOTE_MAC, dst=args.dst_mac or args.br0_mac)
                 / (IPv6(src=args.remote_ip, dst=LOCAL_IP6) if args.ipv6
                    else IP(src=args.remote_ip, dst=LOCAL_IP,
                            id=args.outer_id))
                 / UDP(sport=5353, dport=args.dst_port or 53)
                 / Raw(payload[:args.size]))
        for f in frames(args, frame):
            print(raw(f).hex())
    elif args.case in ("pptp", "erspan"):
        if args.case == "pptp":
            # RFC 2637: version 1, key (payload length, call ID), sequence
            # number, protocol PPP.
            gre = GRE(key_present=1, seqnum_present=1, version=1,
                      proto=0x880b, key=(64 << 16) | 7, seqence_number=1)
        else:
            # ERSPAN type II: a sequence number and protocol 0x88be.
            gre = GRE(seqnum_present=1, proto=0x88be, seqence_number=1)
        frame = (Ether(src=REMOTE_MAC, dst=args.br0_mac)
                 / IP(src=args.remote_ip, dst=LOCAL_IP, proto=47)
                 / gre / Raw(bytes(range(64))))
        print(raw(frame).hex())
    else:
        inners = [l.strip() for l in open(args.inner_file) if l.strip()]
        actuals = [l.strip() for l in open(args.actual_file) if l.strip()]
        if len(inners) != len(actuals):
            sys.exit("expected %d frames, got %d" % (len(inners),
                                                     len(actuals)))
        for i, a in zip(inners, actuals):
            sport = 0
            if args.type in PORTS:
                l4 = 54 if args.ipv6 else 34
                sport = int(a[l4 * 2 + 0:l4 * 2 + 4], 16)
                if not SPORT_MIN <= sport < SPORT_MAX:
                    sys.exit("source port %d out of range" % sport)
            # Without DF, the IPv4 ID is the sender's choice (random
            # starts, each thread its own part: ip-ident.h), taken from
            # what it sent, as the source port.
            ident = 0
            if args.no_df and not args.ipv6:
                ident = int(a[36:40], 16)
            frame = (Ether(src=args.br0_mac, dst=REMOTE_MAC)
                     / outer_ip(args.local_ip, args.remote_ip, args,
                                proto_of(args.type), ident)
                     / tunnel_headers(args, sport)
                     / Ether(bytes.fromhex(i)))
            print(raw(frame).hex())


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Crafts the packets of the tests of ipip over IPv6 (as Linux's ip6tnl) and
of IPv6 inside ipip (as Linux's sit) with scapy, an implementation that is
not ours, and prints each as hex on its own line.

The topology the tests build: underlay bridge br0 (addresses 1.1.2.88 and
2001:db8::88, MAC given by --br0-mac) with dummy port p0; the remote
endpoint is 1.1.2.92 or 2001:db8::92 (--outer 4 or 6) with MAC
f8:bc:12:44:34:b6; overlay hosts 10.0.0.1 and fd00::1 (behind ipip port t0)
and 10.0.0.2 and fd00::2 (behind dummy port p1); --inner 4 or 6 says which
family the tunnel carries.  --dstopt TYPE puts before the inner packet a
destination options header as Linux's ip6tnl sends by default (TYPE 4, the
tunnel encapsulation limit, value 4, then a PadN), or with another option
TYPE; --hbh a hop-by-hop header before everything.

Case decap-fragments prints, one a line, the outer IPv6 fragments
(scapy's fragment6, at most --fragment bytes of payload each, fragment
identification --frag-id) of the datagram decap-in prints for --outer 6, in
order or, with --reverse, last first."""

import argparse
import logging

# Scapy lists the host's interfaces when it loads and warns on stderr when
# one vanishes meanwhile (another test's veth): not this script's business.
logging.getLogger("scapy").setLevel(logging.ERROR)

from scapy.all import (Ether, IP, IPv6, IPv6ExtHdrFragment, UDP, Raw,
                       IPv6ExtHdrDestOpt, IPv6ExtHdrHopByHop, HBHOptUnknown,
                       PadN, fragment6, raw)

REMOTE_MAC = "f8:bc:12:44:34:b6"
HOST_MAC = "50:54:00:00:00:07"
GW_MAC = "50:54:00:00:00:05"
LOCAL = {4: "1.1.2.88", 6: "2001:db8::88"}
REMOTE = {4: "1.1.2.92", 6: "2001:db8::92"}
PROTO = {4: 4, 6: 41}


def inner(family, size=64):
    payload = bytes(range(256)) * (size // 256 + 1)
    if family == 4:
        ip = IP(src="10.0.0.1", dst="10.0.0.2", ttl=64, id=1, flags="DF")
    else:
        ip = IPv6(src="fd00::1", dst="fd00::2", hlim=64)
    return ip / UDP(sport=1234, dport=5678) / Raw(payload[:size])


def dstopt(otype, nh):
    """A destination options header as Linux's ip6tnl sends by default
    (encaplimit 4): 8 bytes, option 'otype' (4, the tunnel encapsulation
    limit) of length 1 and value 4, then a PadN of 1 zero byte."""
    return IPv6ExtHdrDestOpt(nh=nh, options=[
        HBHOptUnknown(otype=otype, optdata=b"\x04"), PadN(optdata=b"\x00")])


def ext_headers(args, proto):
    """The extension headers --hbh and --dstopt ask for before next header
    'proto', and the outer next header: (headers or None, next header)."""
    hdrs = None
    types = list(args.dstopt or [])
    for i, otype in enumerate(reversed(types)):
        h = dstopt(otype, proto if i == 0 else 60)
        hdrs = h if hdrs is None else h / hdrs
        proto = 60
    if args.hbh:
        h = IPv6ExtHdrHopByHop(nh=proto)
        hdrs = h if hdrs is None else h / hdrs
        proto = 0
    return hdrs, proto


def outer(args, payload, proto, src, dst, src_mac, dst_mac):
    """The outer Ethernet and IP headers around 'payload' (bytes), after
    the extension headers of --hbh and --dstopt (IPv6)."""
    if args.outer == 6:
        hdrs, proto = ext_headers(args, proto)
        ip = IPv6(src=src, dst=dst, nh=proto, tc=args.tos, hlim=args.ttl,
                  fl=0)
        if hdrs is not None:
            ip = ip / hdrs
    else:
        ip = IP(src=src, dst=dst, proto=proto, tos=args.tos, ttl=args.ttl,
                id=args.id, flags=0 if args.no_df else "DF")
    return Ether(src=src_mac, dst=dst_mac) / ip / Raw(payload)


def decap(args, payload, proto=None):
    """What the remote endpoint sends to br0: 'payload' inside the outer
    headers, of next header 'proto' (default: --inner's)."""
    return outer(args, payload, PROTO[args.inner] if proto is None else proto,
                 REMOTE[args.outer], LOCAL[args.outer], REMOTE_MAC,
                 args.br0_mac)


def outer_fragments(args, frame):
    """The outer IPv6 fragments of 'frame' (decap()'s), each an Ethernet
    frame with the same addresses."""
    eth = frame[Ether]
    ip6 = frame[IPv6]
    whole = (IPv6(src=ip6.src, dst=ip6.dst, tc=ip6.tc, hlim=ip6.hlim, fl=0,
                  nh=44)
             / IPv6ExtHdrFragment(id=args.frag_id, nh=ip6.nh)
             / ip6.payload)
    frags = [Ether(src=eth.src, dst=eth.dst) / f
             for f in fragment6(whole, args.fragment + 48)]
    if args.reverse:
        frags.reverse()
    return frags


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case", choices=["encap-in", "encap-out", "decap-in",
                                    "decap-out", "inner-truncated",
                                    "inner-mismatch", "inner-too-long",
                                    "decap-fragments"])
    p.add_argument("--br0-mac", default="aa:55:aa:55:00:00")
    p.add_argument("--outer", type=int, choices=[4, 6], default=6)
    p.add_argument("--inner", type=int, choices=[4, 6], default=4)
    p.add_argument("--tos", type=lambda x: int(x, 0), default=0)
    p.add_argument("--ttl", type=int, default=64)
    p.add_argument("--no-df", action="store_true")
    p.add_argument("--id", type=int, default=0)
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--fragment", type=int, default=512)
    p.add_argument("--frag-id", type=int, default=7)
    p.add_argument("--reverse", action="store_true")
    p.add_argument("--dstopt", type=lambda x: int(x, 0), action="append",
                   help="with --outer 6, a destination options header "
                   "before the inner packet with this option type (4: "
                   "Linux's encapsulation limit); repeat for more headers")
    p.add_argument("--hbh", action="store_true",
                   help="with --outer 6, a hop-by-hop options header first")
    args = p.parse_args()
    c = args.case
    pkt = raw(inner(args.inner, args.size))

    if c == "encap-in":
        # What the overlay host sends into p1.
        out = Ether(src=HOST_MAC, dst=GW_MAC) / inner(args.inner, args.size)
    elif c == "encap-out":
        # What must leave p0: the inner packet behind the outer headers.
        out = outer(args, pkt, PROTO[args.inner], LOCAL[args.outer],
                    REMOTE[args.outer], args.br0_mac, REMOTE_MAC)
    elif c == "decap-in":
        out = decap(args, pkt)
    elif c == "decap-out":
        # What p1 must get: the inner packet, with the Ethernet header
        # int-br's flow gave it (its type from the inner family).
        out = Ether(src=GW_MAC, dst=HOST_MAC) / inner(args.inner, args.size)
    elif c == "inner-truncated":
        # Fewer bytes than the inner header.
        out = decap(args, pkt[:20 if args.inner == 6 else 12])
    elif c == "inner-mismatch":
        # The next header says one family, the inner version the other.
        out = decap(args, raw(inner(10 - args.inner, args.size)))
    elif c == "inner-too-long":
        # The inner header's own length says 8 bytes more than the outer
        # payload holds.
        out = decap(args, pkt[:-8])
    elif c == "decap-fragments":
        if args.outer != 6:
            p.error("decap-fragments is for --outer 6")
        for f in outer_fragments(args, decap(args, pkt)):
            print(raw(f).hex())
        return
    print(raw(out).hex())


if __name__ == "__main__":
    main()

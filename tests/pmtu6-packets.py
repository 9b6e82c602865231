#!/usr/bin/python3
"""Crafts the packets of the path MTU tests over IPv6 underlays with scapy,
an implementation of ICMP and ICMPv6 that is not ours, and prints each as
hex on its own line.

The topology is PERCPU_TUNNEL_START6's (tests/percpu-tunnels-ipv6.at): a
host behind dummy port p1 (MAC 50:54:00:00:00:07) sends through tunnel port
t0 to a peer (MAC 50:54:00:00:00:08) behind the tunnel's far end.

Cases:
  inner6            the host's IPv6 datagram: UDP, --size payload bytes,
                    from 2001:db8:1::1 (--src) to 2001:db8:1::2 (--dst);
                    --kind icmp-error: an ICMPv6 destination unreachable
                    instead of UDP; --kind later-frag: a fragment header
                    with offset 8 before the UDP header.
  inner4            the host's IPv4 datagram: UDP, --size payload bytes,
                    from 10.0.0.1 to 10.0.0.2, DF unless --no-df.
  ptb               the ICMPv6 "packet too big" (MTU --mtu) that must come
                    back to the host for 'inner6' of the same --size: from
                    the datagram's destination, hop limit 64, traffic class
                    and flow label 0, quoting as much of the datagram as
                    fits in 1280 bytes, the Ethernet addresses swapped.
  frag-needed       the ICMP "fragmentation needed" (MTU --mtu) for
                    'inner4' of the same --size: from its destination,
                    TTL 64, DSCP CS6, DF, ID 0, quoting its IP header and
                    8 bytes.
"""

import argparse

from scapy.all import (ICMP, IP, UDP, Ether, ICMPv6DestUnreach,
                       ICMPv6PacketTooBig, IPv6, IPv6ExtHdrFragment, Raw,
                       raw)

HOST_MAC = "50:54:00:00:00:07"
PEER_MAC = "50:54:00:00:00:08"


def payload(size):
    return bytes(range(256)) * (size // 256 + 1)


def inner6(args):
    l4 = UDP(sport=1234, dport=5678) / Raw(payload(args.size)[:args.size])
    ip6 = IPv6(src=args.src, dst=args.dst, hlim=64)
    if args.kind == "icmp-error":
        l4 = ICMPv6DestUnreach(code=4) / Raw(payload(args.size)[:args.size])
    elif args.kind == "later-frag":
        l4 = IPv6ExtHdrFragment(nh=17, offset=1, m=0, id=9) / l4
    return Ether(src=HOST_MAC, dst=PEER_MAC) / ip6 / l4


def inner4(args):
    return (Ether(src=HOST_MAC, dst=PEER_MAC)
            / IP(src="10.0.0.1", dst="10.0.0.2", ttl=64, id=1,
                 flags=0 if args.no_df else "DF")
            / UDP(sport=1234, dport=5678)
            / Raw(payload(args.size)[:args.size]))


def ptb(args):
    quoted = raw(inner6(args)[IPv6])[:1280 - 40 - 8]
    return (Ether(src=PEER_MAC, dst=HOST_MAC)
            / IPv6(src=args.dst, dst=args.src, hlim=64, tc=0, fl=0)
            / ICMPv6PacketTooBig(mtu=args.mtu) / Raw(quoted))


def frag_needed(args):
    quoted = raw(inner4(args)[IP])[:20 + 8]
    return (Ether(src=PEER_MAC, dst=HOST_MAC)
            / IP(src="10.0.0.2", dst="10.0.0.1", ttl=64, id=0, tos=0xc0,
                 flags="DF")
            / ICMP(type=3, code=4, nexthopmtu=args.mtu) / Raw(quoted))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("case", choices=["inner6", "inner4", "ptb",
                                    "frag-needed"])
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--mtu", type=int, default=1280)
    p.add_argument("--src", default="2001:db8:1::1")
    p.add_argument("--dst", default="2001:db8:1::2")
    p.add_argument("--kind", choices=["udp", "icmp-error", "later-frag"],
                   default="udp")
    p.add_argument("--no-df", action="store_true")
    args = p.parse_args()
    build = {"inner6": inner6, "inner4": inner4, "ptb": ptb,
             "frag-needed": frag_needed}[args.case]
    print(raw(build(args)).hex())


if __name__ == "__main__":
    main()

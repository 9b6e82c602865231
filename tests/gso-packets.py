#!/usr/bin/python3
"""Crafts the packets of the software offload (GSO) datapath tests with
scapy, a TCP/IP implementation that is not ours, and prints each as hex on
its own line, as ovs-pcap prints a capture.

  big        one large TCP packet, as a tap with TSO hands it over: its TCP
             checksum is partial (here: a wrong value the egress must
             replace)
  segments   what a correct segmentation of 'big' into --mss byte segments
             gives: every header rebuilt and every checksum computed by
             scapy
  partial    a small TCP packet with a wrong (partial) checksum
  complete   the same packet with its checksum completed
  first-fragment  the first fragment of a TCP datagram
  udp        a small UDP packet

Hosts: 10.0.0.1 (MAC 50:54:00:00:00:01) sends to 10.0.0.2
(50:54:00:00:00:02), or fd00::1 to fd00::2 with --ipv6."""

import argparse

from scapy.all import Dot1Q, Ether, IP, IPv6, TCP, UDP, Raw, raw

PARTIAL_CSUM = 0x1234


def l2(args):
    eth = Ether(src="50:54:00:00:00:01", dst="50:54:00:00:00:02")
    if args.vlan:
        return eth / Dot1Q(vlan=args.vlan)
    return eth


def l3(args, ident):
    if args.ipv6:
        return IPv6(src="fd00::1", dst="fd00::2", hlim=64)
    return IP(src="10.0.0.1", dst="10.0.0.2", ttl=64, id=ident, flags="DF")


def tcp(args, seq, flags, chksum=None):
    return TCP(sport=40000, dport=5201, seq=seq, ack=7, flags=flags,
               window=512, chksum=chksum,
               options=[("NOP", None), ("NOP", None),
                        ("Timestamp", (100, 200))])


def payload(size):
    return bytes((i * 7) & 0xff for i in range(size))


def big(args):
    return (l2(args) / l3(args, args.id) / tcp(args, args.seq, args.flags,
                                                 PARTIAL_CSUM)
            / Raw(payload(args.size)))


def segments(args):
    data = payload(args.size)
    n = (len(data) + args.mss - 1) // args.mss
    out = []
    for i in range(n):
        flags = set(args.flags)
        if i > 0:
            flags.discard("C")
        if i < n - 1:
            flags.discard("F")
            flags.discard("P")
        flags = "".join(f for f in args.flags if f in flags)
        chunk = data[i * args.mss:(i + 1) * args.mss]
        out.append(l2(args) / l3(args, (args.id + i) & 0xffff)
                   / tcp(args, (args.seq + i * args.mss) & 0xffffffff,
                         flags)
                   / Raw(chunk))
    return out


def small(args, chksum):
    return (l2(args) / l3(args, args.id) / tcp(args, args.seq, "PA", chksum)
            / Raw(payload(args.size)))


def first_fragment(args):
    segment = raw(IP(src="10.0.0.1", dst="10.0.0.2")
                  / tcp(args, args.seq, "PA") / Raw(payload(200)))[20:]
    return (l2(args) / IP(src="10.0.0.1", dst="10.0.0.2", ttl=64,
                          id=args.id, flags="MF", proto=6)
            / Raw(segment[:64]))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case", choices=["big", "segments", "partial", "complete",
                                    "first-fragment", "udp"])
    p.add_argument("--size", type=int, default=4000)
    p.add_argument("--mss", type=int, default=1000)
    p.add_argument("--ipv6", action="store_true")
    p.add_argument("--vlan", type=int, default=0)
    p.add_argument("--id", type=int, default=0xfffe)
    p.add_argument("--seq", type=int, default=0xfffff000)
    p.add_argument("--flags", default="FPAEC",
                   help="TCP flags of the large packet, in scapy letters")
    args = p.parse_args()

    if args.case == "big":
        packets = [big(args)]
    elif args.case == "segments":
        packets = segments(args)
    elif args.case == "partial":
        packets = [small(args, PARTIAL_CSUM)]
    elif args.case == "complete":
        packets = [small(args, None)]
    elif args.case == "udp":
        packets = [l2(args) / l3(args, args.id) / UDP(sport=1, dport=2)
                   / Raw(payload(args.size))]
    else:
        packets = [first_fragment(args)]
    for packet in packets:
        print(raw(packet).hex())


if __name__ == "__main__":
    main()

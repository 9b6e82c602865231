#!/usr/bin/python3
"""Crafts the packets of the ipip tests with scapy, an implementation of
IPv4-in-IPv4 that is not ours, and prints each as hex on its own line.

The topology the tests build: underlay bridge br0 (address 1.1.2.88, MAC
given by --br0-mac) with dummy port p0; the remote endpoint is 1.1.2.92 with
MAC f8:bc:12:44:34:b6; overlay hosts 10.0.0.1 (behind ipip port t0) and
10.0.0.2 (behind dummy port p1)."""

import argparse
import sys

from scapy.all import Ether, ICMP, IP, IPerror, IPv6, TCP, UDP, Raw, raw

REMOTE_MAC = "f8:bc:12:44:34:b6"
HOST_MAC = "50:54:00:00:00:07"
GW_MAC = "50:54:00:00:00:05"
LOCAL_IP = "1.1.2.88"
REMOTE_IP = "1.1.2.92"


def inner_udp(size=64, df=True, tos=0, ident=1):
    payload = bytes(range(256)) * (size // 256 + 1)
    return (IP(src="10.0.0.1", dst="10.0.0.2", ttl=64, tos=tos, id=ident,
               flags="DF" if df else 0)
            / UDP(sport=1234, dport=5678) / Raw(payload[:size]))


def tcp_segment(seq, size, flags="A", ident=1, options=None, sport=40000):
    payload = bytes((seq + i) & 0xff for i in range(size))
    return (IP(src="10.0.0.1", dst="10.0.0.2", ttl=64, id=ident,
               flags="DF")
            / TCP(sport=sport, dport=5201, seq=seq, ack=1000, flags=flags,
                  window=512,
                  options=options if options is not None
                  else [("NOP", None), ("NOP", None),
                        ("Timestamp", (1, 2))])
            / Raw(payload))


def outer(inner, br0_mac, tos=0, ttl=64, df=True, ident=0,
          src=REMOTE_IP, dst=LOCAL_IP, proto=4):
    return (Ether(src=REMOTE_MAC, dst=br0_mac)
            / IP(src=src, dst=dst, proto=proto, tos=tos, ttl=ttl, id=ident,
                 flags="DF" if df else 0)
            / inner)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case")
    p.add_argument("--br0-mac", default="aa:55:aa:55:00:00")
    p.add_argument("--tos", type=lambda x: int(x, 0), default=0)
    p.add_argument("--ttl", type=int, default=64)
    p.add_argument("--no-df", action="store_true")
    p.add_argument("--id", type=int, default=0)
    p.add_argument("--size", type=int, default=64)
    p.add_argument("-n", type=int, default=4)
    p.add_argument("--sport", type=int, default=40000,
                   help="TCP source port of tcp-segments and "
                   "tcp-segments-inner")
    p.add_argument("--remote-ip", default=REMOTE_IP)
    p.add_argument("--id-base", type=int, default=1000)
    p.add_argument("--order", default="in",
                   choices=["in", "reverse", "duplicate", "overlap"])
    args = p.parse_args()
    out = []
    c = args.case

    if c == "encap-in":
        # What the overlay host sends into p1.
        out.append(Ether(src=HOST_MAC, dst=GW_MAC)
                   / inner_udp(args.size, df=not args.no_df))
    elif c == "encap-out":
        # What must leave p0: the same inner packet behind the outer
        # headers, DF and TTL and TOS as asked.
        inner = inner_udp(args.size, df=True)
        out.append(Ether(src=args.br0_mac, dst=REMOTE_MAC)
                   / IP(src=LOCAL_IP, dst=REMOTE_IP, proto=4, tos=args.tos,
                        ttl=args.ttl, id=args.id,
                        flags=0 if args.no_df else "DF")
                   / inner)
    elif c == "decap-in":
        out.append(outer(inner_udp(args.size), args.br0_mac, tos=args.tos,
                         ttl=args.ttl, src=args.remote_ip))
    elif c == "decap-nested":
        # From --remote-ip, an ipip packet carrying one from 1.1.4.92 to
        # 1.1.4.88 (int-br's address), carrying the overlay's packet.
        out.append(outer(IP(src="1.1.4.92", dst="1.1.4.88", proto=4)
                         / inner_udp(args.size), args.br0_mac,
                         src=args.remote_ip))
    elif c == "decap-out":
        out.append(Ether(src=GW_MAC, dst=HOST_MAC)
                   / inner_udp(args.size))
    elif c == "bad-ihl":
        pkt = bytearray(raw(outer(inner_udp(), args.br0_mac)))
        pkt[14] = 0x44          # IHL 4: shorter than an IPv4 header.
        out.append(pkt)
    elif c == "truncated":
        pkt = raw(outer(inner_udp(), args.br0_mac))
        out.append(pkt[:14 + 20 + 30])   # Total length says more.
    elif c == "bad-csum":
        pkt = bytearray(raw(outer(inner_udp(), args.br0_mac)))
        pkt[24] ^= 0x55         # Outer header checksum.
        out.append(pkt)
    elif c == "inner-ipv6":
        inner = IPv6(src="2001:db8::1", dst="2001:db8::2") / UDP() / Raw(b"x")
        out.append(outer(inner, args.br0_mac))
    elif c == "ce-not-ect":
        # Outer CE, inner not ECN-capable: RFC 6040 says drop.
        out.append(outer(inner_udp(), args.br0_mac, tos=0x03))
    elif c == "tcp-segments":
        # -n in-order segments of one flow, each --size bytes.
        for i in range(args.n):
            out.append(outer(tcp_segment(1 + i * args.size, args.size,
                                         ident=100 + i, sport=args.sport),
                             args.br0_mac))
    elif c == "tcp-segments-inner":
        # The same segments as the overlay host receives them.
        for i in range(args.n):
            out.append(Ether(src=GW_MAC, dst=HOST_MAC)
                       / tcp_segment(1 + i * args.size, args.size,
                                     ident=100 + i, sport=args.sport))
    elif c == "tcp-psh-second":
        # Four segments; the second has PSH: two merged packets.
        for i in range(4):
            out.append(outer(tcp_segment(1 + i * args.size, args.size,
                                         flags="PA" if i == 1 else "A",
                                         ident=100 + i),
                             args.br0_mac))
    elif c == "tcp-gap":
        # Segments 1, 2, then 4: a gap after the second.
        for i in (0, 1, 3):
            out.append(outer(tcp_segment(1 + i * args.size, args.size,
                                         ident=100 + i),
                             args.br0_mac))
    elif c == "tcp-options-change":
        # The third segment's timestamp differs.
        for i in range(3):
            ts = (1, 2) if i < 2 else (5, 2)
            out.append(outer(tcp_segment(1 + i * args.size, args.size,
                                         ident=100 + i,
                                         options=[("NOP", None),
                                                  ("NOP", None),
                                                  ("Timestamp", ts)]),
                             args.br0_mac))
    elif c == "outer-fragments":
        # One IPIP datagram of --size inner bytes sent as outer fragments.
        from scapy.all import fragment
        pkt = (IP(src=REMOTE_IP, dst=LOCAL_IP, proto=4, ttl=64,
                  id=args.id_base)
               / inner_udp(args.size, df=False))
        frags = [Ether(src=REMOTE_MAC, dst=args.br0_mac) / frag
                 for frag in fragment(pkt, fragsize=512)]
        if args.order == "reverse":
            frags.reverse()
        elif args.order == "duplicate":
            frags.insert(1, frags[0])
        elif args.order == "overlap":
            # The second fragment starts 8 bytes inside the first.
            ip = frags[1][IP]
            ip.frag -= 1
            del ip.chksum
            frags[1] = Ether(raw(frags[1]))
        out.extend(frags)
    elif c == "first-fragments":
        # -n first fragments of IPIP datagrams that never complete, each
        # of another ID from --id-base: a flood of incomplete datagrams.
        from scapy.all import fragment
        for i in range(args.n):
            pkt = (IP(src=args.remote_ip, dst=LOCAL_IP, proto=4, ttl=64,
                      id=args.id_base + i)
                   / inner_udp(args.size, df=False))
            frag = fragment(pkt, fragsize=512)[0]
            out.append(Ether(src=REMOTE_MAC, dst=args.br0_mac) / frag)
    elif c == "check-frag-needed":
        # Reads frames in hex on stdin; describes the ICMP errors among
        # them, with their checksums checked by scapy.
        for line in sys.stdin:
            ip = Ether(bytes.fromhex(line.strip()))[IP]
            icmp = ip[ICMP]
            chk = IP(raw(ip))
            del chk.chksum
            del chk[ICMP].chksum
            rebuilt = IP(raw(chk))
            quoted = IPerror(raw(icmp.payload))
            print("%s > %s ttl %d icmp type %d code %d mtu %d "
                  "ip-csum %s icmp-csum %s quoted %s > %s proto %d len %d"
                  % (ip.src, ip.dst, ip.ttl, icmp.type, icmp.code,
                     icmp.nexthopmtu,
                     "ok" if rebuilt.chksum == ip.chksum else "bad",
                     "ok" if rebuilt[ICMP].chksum == icmp.chksum
                     else "bad",
                     quoted.src, quoted.dst, quoted.proto,
                     len(raw(icmp.payload))))
    elif c == "check-fragments":
        # Reads frames in hex on stdin: describes each outer fragment, then
        # says whether they reassemble into the expected datagram.  IDs are
        # the sender's choice (ip-ident.h): each is named by a letter, A for
        # the first one seen, B for the next other one...
        from scapy.all import defragment
        frags = []
        names = {}
        for line in sys.stdin:
            pkt = Ether(bytes.fromhex(line.strip()))
            ip = pkt[IP]
            chk = IP(raw(ip))
            del chk.chksum
            names.setdefault(ip.id, chr(ord("A") + len(names)))
            print("len %d id %s df %d mf %d offset %d csum %s"
                  % (ip.len, names[ip.id], bool(ip.flags.DF),
                     bool(ip.flags.MF), ip.frag * 8,
                     "ok" if IP(raw(chk)).chksum == ip.chksum else "bad"))
            frags.append(ip)
        whole = defragment(frags)[0]
        inner = inner_udp(args.size, df=False)
        print("reassembled inner %s"
              % ("matches" if raw(whole.payload) == raw(inner)
                 else "differs"))
    else:
        sys.exit("unknown case " + c)

    for pkt in out:
        print(bytes(pkt).hex() if isinstance(pkt, bytearray)
              else raw(pkt).hex())


main()

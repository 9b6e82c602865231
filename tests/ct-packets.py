#!/usr/bin/python3
"""Crafts the packets of the conntrack tests with scapy and prints each as
hex on its own line, for `ovs-appctl netdev-dummy/receive`.

Topology: "inside" host 10.1.1.1 (MAC 50:54:00:00:00:01) behind port p1,
"outside" host 10.1.1.2 (MAC 50:54:00:00:00:02) behind port p2; for IPv6,
fd00::1 and fd00::2."""

import argparse

from scapy.all import (Ether, IP, IPv6, IPv6ExtHdrFragment, TCP, UDP, Raw,
                       fragment, fragment6, raw)

MAC = {1: "50:54:00:00:00:01", 2: "50:54:00:00:00:02"}
IP4 = {1: "10.1.1.1", 2: "10.1.1.2"}
IP6 = {1: "fd00::1", 2: "fd00::2"}


def eth(frm):
    return Ether(src=MAC[frm], dst=MAC[3 - frm])


def payload(size):
    return bytes(i & 0xff for i in range(size))


def udp(frm, sport, dport, size, ident, v6=False):
    if v6:
        return (eth(frm) / IPv6(src=IP6[frm], dst=IP6[3 - frm])
                / UDP(sport=sport, dport=dport) / Raw(payload(size)))
    return (eth(frm) / IP(src=IP4[frm], dst=IP4[3 - frm], id=ident, flags=0)
            / UDP(sport=sport, dport=dport) / Raw(payload(size)))


def udp_fragments(frm, sport, dport, size, ident, fragsize, order, v6):
    pkt = udp(frm, sport, dport, size, ident, v6)
    if v6:
        l3 = pkt[IPv6]
        l3 = (IPv6(src=l3.src, dst=l3.dst)
              / IPv6ExtHdrFragment(id=ident) / l3.payload)
        frags = [eth(frm) / f for f in fragment6(l3, fragsize)]
    else:
        frags = [eth(frm) / f for f in fragment(pkt[IP], fragsize)]
    if order == "reverse":
        frags.reverse()
    return frags


def tcp(frm, sport, dport, flags, seq, ack, data=b""):
    return (eth(frm) / IP(src=IP4[frm], dst=IP4[3 - frm], id=0, flags="DF")
            / TCP(sport=sport, dport=dport, flags=flags, seq=seq, ack=ack,
                  window=65535) / Raw(data))


def ftp_active(cport, dataport):
    """Printed as "PORT HEX" lines.  Client 10.1.1.1:cport opens an FTP control connection to 10.1.1.2:21
    and sends PORT for 10.1.1.1:dataport; then the server opens the data
    connection from port 20, and sends a first data segment."""
    c, s = 1000, 5000
    port_cmd = b"PORT 10,1,1,1,%d,%d\r\n" % (dataport >> 8, dataport & 0xff)
    return [
        tcp(1, cport, 21, "S", c, 0),
        tcp(2, 21, cport, "SA", s, c + 1),
        tcp(1, cport, 21, "A", c + 1, s + 1),
        tcp(2, 21, cport, "PA", s + 1, c + 1, b"220 ready\r\n"),
        tcp(1, cport, 21, "PA", c + 1, s + 12, port_cmd),
        tcp(2, 21, cport, "PA", s + 12, c + 1 + len(port_cmd),
            b"200 PORT command successful\r\n"),
        tcp(2, 20, dataport, "S", 9000, 0),
    ]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case")
    p.add_argument("--from", dest="frm", type=int, default=1)
    p.add_argument("--sport", type=int, default=1234)
    p.add_argument("--dport", type=int, default=5678)
    p.add_argument("--size", type=int, default=3000)
    p.add_argument("--id", type=int, default=42)
    p.add_argument("--fragsize", type=int, default=1400)
    p.add_argument("--order", default="in")
    p.add_argument("--v6", action="store_true")
    p.add_argument("--flags", default="S")
    p.add_argument("--seq", type=int, default=1000)
    p.add_argument("--ack", type=int, default=0)
    p.add_argument("--dataport", type=int, default=40000)
    a = p.parse_args()

    if a.case == "udp":
        pkts = [udp(a.frm, a.sport, a.dport, a.size, a.id, a.v6)]
    elif a.case == "udp-fragments":
        pkts = udp_fragments(a.frm, a.sport, a.dport, a.size, a.id,
                             a.fragsize, a.order, a.v6)
    elif a.case == "tcp":
        pkts = [tcp(a.frm, a.sport, a.dport, a.flags, a.seq, a.ack)]
    elif a.case == "ftp-active":
        pkts = ftp_active(a.sport, a.dataport)
    else:
        raise SystemExit("unknown case " + a.case)
    for pkt in pkts:
        if a.case == "ftp-active":
            # Both sides talk: say which port each packet comes in on.
            frm = 1 if pkt[Ether].src == MAC[1] else 2
            print("p%d %s" % (frm, raw(pkt).hex()))
        else:
            print(raw(pkt).hex())


if __name__ == "__main__":
    main()

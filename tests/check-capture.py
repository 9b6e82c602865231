#!/usr/bin/python3
"""Checks, with scapy (not our code), the TCP data packets of a capture
that are addressed to --dst: how many there are, how many are larger than
--mtu, and how many carry a wrong IPv4 header or TCP checksum.  With
--ipip, it checks IPv4-in-IPv4 packets instead: the outer header's length
and checksum, then the inner IPv4 and TCP checksums.

Prints four lines; "many" stands for 100 or more data packets, so that the
expected output does not depend on how fast the machine is."""

import argparse

from scapy.all import IP, TCP, PcapReader, raw


def ipv4_checksum_ok(ip):
    fresh = ip.copy()
    fresh.chksum = None
    return IP(raw(fresh)).chksum == ip.chksum


def tcp_checksum_ok(ip):
    fresh = ip.copy()
    fresh[TCP].chksum = None
    return IP(raw(fresh))[TCP].chksum == ip[TCP].chksum


def main():
    p = argparse.ArgumentParser()
    p.add_argument("pcap")
    p.add_argument("--dst", required=True)
    p.add_argument("--mtu", type=int, default=1500)
    p.add_argument("--ipip", action="store_true")
    args = p.parse_args()

    data = too_big = bad_ip = bad_tcp = 0
    for packet in PcapReader(args.pcap):
        if IP not in packet:
            continue
        outer = packet[IP]
        if args.ipip:
            if outer.proto != 4 or not isinstance(outer.payload, IP):
                continue
            inner = outer.payload
        else:
            inner = outer
        if (inner.dst != args.dst or TCP not in inner
                or len(inner[TCP].payload) == 0):
            continue
        data += 1
        if outer.len > args.mtu:
            too_big += 1
        if not ipv4_checksum_ok(outer) or not ipv4_checksum_ok(inner):
            bad_ip += 1
        if not tcp_checksum_ok(inner):
            bad_tcp += 1

    print("data packets:", "many" if data >= 100 else data)
    print("larger than the MTU:", too_big)
    print("bad ip checksums:", bad_ip)
    print("bad tcp checksums:", bad_tcp)


if __name__ == "__main__":
    main()

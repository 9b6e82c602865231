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

"""Crafts the ARP packets of the tunnel neighbour tests
(tests/percpu-tunnel-neigh.at) with scapy and prints them in hex.

Single packets print one to a line.  The many-packet cases print up to 32
packets a line (NETDEV_MAX_BURST, the most one dpif-percpu/receive-batch
takes), separated by spaces; scapy builds one packet of the kind, and the
others are that packet with the index's bytes written into its addresses,
so that tens of thousands take a moment.

usage: neigh-packets.py CASE [options]
  reply       an ARP reply from --sip/--sha to --tip/--tha
  garp        a gratuitous ARP request from --sip/--sha (--op 2: a reply)
  bad-hln     an ARP reply whose hardware address length is 8
  garp-flood  --count gratuitous ARPs (requests and replies in turn), each
              from its own sender 10.X.Y.Z at 02:01:XX:XX:XX:XX
  replies     --count replies to --tip from --first, --first + 1... within
              1.1.0.0/16, each at 02:02:00:00:XX:XX (XX:XX the address's
              last two bytes)
  inner-to    --count UDP packets from the overlay host, as into p1, to
              --first, --first + 1... within 1.1.0.0/16
  numbered    --count UDP packets from the overlay host, as into p1, to
              10.0.0.2 (through the tunnel to 1.1.2.92), each with --size
              bytes of payload and IP identification 1, 2... in turn"""

import argparse
import ipaddress

from scapy.all import ARP, Ether, IP, UDP, Raw, raw

BATCH = 32
HOST_MAC = "50:54:00:00:00:07"
GW_MAC = "50:54:00:00:00:05"


def arp(op, sha, sip, tha, tip, dst=None):
    """An ARP packet in an Ethernet frame from 'sha'."""
    return raw(Ether(src=sha, dst=dst or ("ff:ff:ff:ff:ff:ff" if op == 1
                                          else tha))
               / ARP(op=op, hwsrc=sha, psrc=sip, hwdst=tha, pdst=tip))


def print_batches(frames):
    """Prints 'frames' in hex, BATCH to a line."""
    for i in range(0, len(frames), BATCH):
        print(" ".join(f.hex() for f in frames[i:i + BATCH]))


def with_bytes(frame, offsets_values):
    """Returns 'frame' with bytes written at the given offsets."""
    b = bytearray(frame)
    for ofs, value in offsets_values:
        b[ofs:ofs + len(value)] = value
    return bytes(b)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case")
    p.add_argument("--sip", default="1.1.2.92")
    p.add_argument("--sha", default="f8:bc:12:44:34:b6")
    p.add_argument("--tip", default="1.1.2.88")
    p.add_argument("--tha", default="aa:55:aa:55:00:00")
    p.add_argument("--op", type=int, default=1)
    p.add_argument("--first", default="1.1.3.0")
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--size", type=int, default=18)
    args = p.parse_args()
    c = args.case

    if c == "reply":
        print(arp(2, args.sha, args.sip, args.tha, args.tip).hex())
    elif c == "garp":
        print(arp(args.op, args.sha, args.sip, "00:00:00:00:00:00", args.sip,
                  dst="ff:ff:ff:ff:ff:ff").hex())
    elif c == "bad-hln":
        frame = bytearray(arp(2, args.sha, args.sip, args.tha, args.tip))
        frame[14 + 4] = 8
        print(bytes(frame).hex())
    elif c == "garp-flood":
        frames = []
        templates = [arp(op, "02:01:00:00:00:00", "10.0.0.0",
                         "00:00:00:00:00:00", "10.0.0.0",
                         dst="ff:ff:ff:ff:ff:ff") for op in (1, 2)]
        for i in range(args.count):
            mac = (0x0201 << 32 | i).to_bytes(6, "big")
            ip = (10 << 24 | (i + 1)).to_bytes(4, "big")
            # Ethernet source 6, sender MAC 22, sender IP 28, target IP 38.
            frames.append(with_bytes(templates[i % 2],
                                     [(6, mac), (22, mac), (28, ip),
                                      (38, ip)]))
        print_batches(frames)
    elif c in ("replies", "inner-to"):
        first = int(ipaddress.IPv4Address(args.first))
        frames = []
        if c == "replies":
            template = arp(2, "02:02:00:00:00:00", "1.1.0.0", args.tha,
                           args.tip)
        else:
            template = raw(Ether(src=HOST_MAC, dst=GW_MAC)
                           / IP(src="10.0.0.1", dst="1.1.0.0", ttl=64,
                                flags="DF")
                           / UDP(sport=1234, dport=5678, chksum=0)
                           / Raw(b"x" * 18))
        for i in range(args.count):
            addr = first + i
            assert addr >> 16 == 0x0101
            ip = addr.to_bytes(4, "big")
            if c == "replies":
                mac = (0x0202 << 32 | (addr & 0xffff)).to_bytes(6, "big")
                frames.append(with_bytes(template,
                                         [(6, mac), (22, mac), (28, ip)]))
            else:
                # IPv4 destination at 30; fix the header checksum (24),
                # from the template's, for the last two bytes that differ.
                frame = bytearray(with_bytes(template, [(30, ip)]))
                frame[24:26] = b"\0\0"
                words = sum(int.from_bytes(frame[j:j + 2], "big")
                            for j in range(14, 34, 2))
                while words >> 16:
                    words = (words & 0xffff) + (words >> 16)
                frame[24:26] = (~words & 0xffff).to_bytes(2, "big")
                frames.append(bytes(frame))
        print_batches(frames)
    elif c == "numbered":
        print_batches([raw(Ether(src=HOST_MAC, dst=GW_MAC)
                           / IP(src="10.0.0.1", dst="10.0.0.2", ttl=64,
                                id=i + 1, flags="DF")
                           / UDP(sport=1234, dport=5678)
                           / Raw(b"x" * args.size))
                       for i in range(args.count)])
    else:
        raise SystemExit("unknown case %s" % c)


if __name__ == "__main__":
    main()

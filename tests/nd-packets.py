#! /usr/bin/python3
#
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

"""Prints, in hex as netdev-dummy/receive and ovs-pcap show them, the IPv6
neighbour discovery frames tests/percpu-tunnels-ipv6.at needs:

  ns --src-mac M --src IP --target IP
      the Neighbor Solicitation the datapath should send: to the target's
      solicited-node multicast address, hop limit 255, with the source
      link-layer address option;
  na --dst-mac M --mac M --src IP --dst IP [--hlim N] [--unsolicited]
     [--no-tll] [--bad-csum] [--cut N]
      a Neighbor Advertisement from MAC (its target link-layer address
      option too) for target SRC, solicited and override flags set;
  na-flood --dst-mac M --count N
      N such advertisements, each for its own target 2001:db8:f::X from
      its own MAC 02:03:00:00:XX:XX, 32 frames a line (as
      dpif-percpu/receive-batch takes them)."""

import argparse
import ipaddress
import struct


def mac_bytes(mac):
    """Returns the 6 bytes of 'mac' (aa:bb:...)."""
    return bytes(int(x, 16) for x in mac.split(':'))


def csum(data):
    """Returns the Internet checksum of 'data'."""
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ipv6_icmp(src, dst, hlim, icmp):
    """Returns an IPv6 header and 'icmp' (ICMPv6, checksum filled)."""
    s = ipaddress.IPv6Address(src).packed
    d = ipaddress.IPv6Address(dst).packed
    pseudo = s + d + struct.pack('!IxxxB', len(icmp), 58)
    c = csum(pseudo + icmp)
    icmp = icmp[:2] + struct.pack('!H', c) + icmp[4:]
    return struct.pack('!IHBB', 6 << 28, len(icmp), 58, hlim) + s + d + icmp


def main():
    p = argparse.ArgumentParser()
    p.add_argument('kind', choices=['ns', 'na', 'na-flood'])
    p.add_argument('--count', type=int, default=1)
    p.add_argument('--src-mac', default='00:00:00:00:00:00')
    p.add_argument('--dst-mac', default='00:00:00:00:00:00')
    p.add_argument('--mac', default='f8:bc:12:44:34:b6')
    p.add_argument('--src', default='2001:db8::92')
    p.add_argument('--dst', default='2001:db8::88')
    p.add_argument('--target', default='2001:db8::92')
    p.add_argument('--hlim', type=int, default=255)
    p.add_argument('--unsolicited', action='store_true')
    p.add_argument('--no-tll', action='store_true')
    p.add_argument('--bad-csum', action='store_true')
    p.add_argument('--cut', type=int, default=0)
    a = p.parse_args()

    if a.kind == 'na-flood':
        frames = []
        for i in range(a.count):
            mac = (0x0203 << 32 | i).to_bytes(6, 'big')
            src = str(ipaddress.IPv6Address('2001:db8:f::') + i + 1)
            icmp = (struct.pack('!BBHI', 136, 0, 0, 0x60000000)
                    + ipaddress.IPv6Address(src).packed
                    + struct.pack('!BB', 2, 1) + mac)
            frames.append((mac_bytes(a.dst_mac) + mac + b'\x86\xdd'
                           + ipv6_icmp(src, a.dst, 255, icmp)).hex())
        for i in range(0, len(frames), 32):
            print(' '.join(frames[i:i + 32]))
        return
    if a.kind == 'ns':
        t = ipaddress.IPv6Address(a.target).packed
        sn = ipaddress.IPv6Address(b'\xff\x02' + b'\0' * 9 + b'\x01\xff'
                                   + t[13:])
        icmp = (struct.pack('!BBHI', 135, 0, 0, 0) + t
                + struct.pack('!BB', 1, 1) + mac_bytes(a.src_mac))
        eth = (b'\x33\x33' + sn.packed[12:] + mac_bytes(a.src_mac)
               + b'\x86\xdd')
        frame = eth + ipv6_icmp(a.src, str(sn), 255, icmp)
    else:
        flags = 0x20000000 if a.unsolicited else 0x60000000
        icmp = (struct.pack('!BBHI', 136, 0, 0, flags)
                + ipaddress.IPv6Address(a.src).packed)
        if not a.no_tll:
            icmp += struct.pack('!BB', 2, 1) + mac_bytes(a.mac)
        frame = (mac_bytes(a.dst_mac) + mac_bytes(a.mac) + b'\x86\xdd'
                 + ipv6_icmp(a.src, a.dst, a.hlim, icmp))
        if a.bad_csum:
            frame = frame[:56] + bytes([frame[56] ^ 0xff]) + frame[57:]
    if a.cut:
        frame = frame[:a.cut]
    print(frame.hex())


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
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

"""Prints a flood of UDP packets, one per unique flow, in hex, for
'dpif-percpu/receive-batch': FIRST+COUNT packets whose Ethernet source
address is 02:00:XX:XX:XX:XX with the packet's index FIRST, FIRST+1...
in the last four bytes, the other fields fixed.  Up to 32 packets a line
(NETDEV_MAX_BURST, the most one receive-batch takes), separated by spaces.

usage: flood-packets.py FIRST COUNT"""

import struct
import sys

BATCH = 32


def ip_checksum(header):
    """The IPv4 header checksum of 'header' (checksum field zero)."""
    total = sum(struct.unpack('!%dH' % (len(header) // 2), header))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def packet(index):
    """The packet of flow 'index': 10.0.0.1:1000 to 10.0.0.2:2000, 16 bytes
    of UDP payload, from MAC 02:00 followed by 'index'."""
    eth = (bytes.fromhex('505400000002') + b'\x02\x00'
           + struct.pack('!I', index) + b'\x08\x00')
    payload = bytes(16)
    udp = struct.pack('!HHHH', 1000, 2000, 8 + len(payload), 0) + payload
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), 0, 0, 64, 17,
                     0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    ip = ip[:10] + struct.pack('!H', ip_checksum(ip)) + ip[12:]
    return (eth + ip + udp).hex()


def main():
    first, count = int(sys.argv[1]), int(sys.argv[2])
    for start in range(first, first + count, BATCH):
        end = min(start + BATCH, first + count)
        print(' '.join(packet(i) for i in range(start, end)))


if __name__ == '__main__':
    main()

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

"""Frames longer than a dp_packet can hold, for the afpacket system test.

  afpacket-big-frames.py send IFACE
      Writes, one at a time, through an AF_PACKET socket with a virtio-net
      header (PACKET_VNET_HDR), UDP frames of 65,405 (the longest that fits
      in a dp_packet with afpacket's headroom), 65,406, 65,529, 65,535 and
      65,536 bytes; a TCP GSO frame of 65,535 bytes (segment size 1448: a
      GSO frame of 64 KiB or more would be segmented by Linux on its way
      through the veth, whose gso_max_size is 65,536); a whole 64 KiB IPv4
      datagram (65,549 bytes) as one TCP frame with a partial checksum, as
      a veth with MTU 65535 carries; a 1 KiB TCP GSO frame with segment
      size 1; then a short "end" frame.
      The interface and its peer need MTU 65535 for the long UDP frames.

  afpacket-big-frames.py receive IFACE SECONDS
      Reads the frames the sender's source MAC sends on IFACE until the
      "end" frame (or SECONDS), says "ready" on stderr once it listens, and
      prints, in order: "udp LEN" for each
      UDP frame, then one line per TCP stream (by source port): frames,
      payload bytes, whether the payload is the sender's, byte for byte and
      in sequence order, then "end".

The frames' MACs and IPs belong to no host, so nothing answers them.
"""

import select
import socket
import struct
import sys
import time

SOL_PACKET = 263
PACKET_VNET_HDR = 15
ETH_P_ALL = 0x0003

SRC_MAC = bytes.fromhex("020000000001")
DST_MAC = bytes.fromhex("020000000002")
SRC_IP = bytes([10, 9, 9, 1])
DST_IP = bytes([10, 9, 9, 2])

VNET_F_NEEDS_CSUM = 1
VNET_GSO_NONE = 0
VNET_GSO_TCPV4 = 1

UDP_SIZES = [65405, 65406, 65529, 65535, 65536]
TCP_SEQ = 1000

# The frame length of each TCP stream, by source port.
TCP_FRAME_LEN = {6001: 65535, 6002: 65549, 6003: 14 + 20 + 20 + 1024}


def vnet_hdr(flags=0, gso_type=VNET_GSO_NONE, hdr_len=0, gso_size=0,
             csum_start=0, csum_offset=0):
    """A struct virtio_net_hdr, little-endian as on the host."""
    return struct.pack("<BBHHHH", flags, gso_type, hdr_len, gso_size,
                       csum_start, csum_offset)


def csum16(data):
    """The ones' complement sum of 'data', folded, not complemented."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def ipv4_header(proto, l4_len, ident):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + l4_len, ident, 0, 64,
                      proto, 0, SRC_IP, DST_IP)
    return hdr[:10] + struct.pack("!H", 0xffff ^ csum16(hdr)) + hdr[12:]


def payload_bytes(n, seed):
    return bytes((i * 7 + seed) & 0xff for i in range(n))


def udp_frame(size):
    l4_len = size - 14 - 20
    udp = struct.pack("!HHHH", 4000, 4001, l4_len, 0)
    return (DST_MAC + SRC_MAC + b"\x08\x00" + ipv4_header(17, l4_len, 1)
            + udp + payload_bytes(l4_len - 8, size & 0xff))


def tcp_frame(sport, payload):
    """A TCP/IPv4 frame from 'sport' with a partial checksum (the
    pseudo-header sum in the field), and its transport offset."""
    l4_len = 20 + len(payload)
    ip = ipv4_header(6, l4_len, 7)
    pseudo = csum16(SRC_IP + DST_IP + struct.pack("!HH", 6, l4_len))
    tcp = struct.pack("!HHIIBBHHH", sport, 5001, TCP_SEQ, 1, 5 << 4, 0x18,
                      65535, pseudo, 0)
    return DST_MAC + SRC_MAC + b"\x08\x00" + ip + tcp + payload, 14 + 20


def tcp_payload(sport):
    return payload_bytes(TCP_FRAME_LEN[sport] - 14 - 40, sport & 0xff)


def frames():
    """(name, virtio-net header, frame) in the order they are sent."""
    out = [("udp-%d" % n, vnet_hdr(), udp_frame(n)) for n in UDP_SIZES]

    frame, l4 = tcp_frame(6001, tcp_payload(6001))
    out.append(("gso-tcp4-64k", vnet_hdr(VNET_F_NEEDS_CSUM, VNET_GSO_TCPV4,
                                         l4 + 20, 1448, l4, 16), frame))
    frame, l4 = tcp_frame(6002, tcp_payload(6002))
    out.append(("tcp4-64k", vnet_hdr(VNET_F_NEEDS_CSUM, VNET_GSO_NONE, 0, 0,
                                     l4, 16), frame))
    frame, l4 = tcp_frame(6003, tcp_payload(6003))
    out.append(("gso-size-1", vnet_hdr(VNET_F_NEEDS_CSUM, VNET_GSO_TCPV4,
                                       l4 + 20, 1, l4, 16), frame))
    out.append(("end", vnet_hdr(), udp_frame(64)))
    return out


def open_socket(iface, protocol):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(protocol))
    s.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
    s.bind((iface, protocol))
    return s


def send(iface):
    s = open_socket(iface, 0)
    for name, vnet, frame in frames():
        s.send(vnet + frame)
        print("sent %s %d" % (name, len(frame)))
        time.sleep(0.05)


def receive(iface, seconds):
    s = open_socket(iface, ETH_P_ALL)
    sys.stderr.write("ready\n")
    sys.stderr.flush()
    deadline = time.time() + seconds
    streams = {}
    order = []
    while time.time() < deadline:
        r, _, _ = select.select([s], [], [], 0.1)
        if not r:
            continue
        data = s.recv(256 * 1024)[10:]
        if len(data) < 34 or data[6:12] != SRC_MAC:
            continue
        proto = data[23]
        if proto == 17 and len(data) == 64:
            order.append("end")
            break
        if proto == 17:
            order.append("udp %d" % len(data))
        elif proto == 6:
            sport, seq = struct.unpack("!HxxI", data[34:42])
            hl = (data[46] >> 4) * 4
            if sport not in streams:
                streams[sport] = []
                order.append(sport)
            streams[sport].append((seq, data[34 + hl:]))
    for item in order:
        if item in streams:
            pieces = sorted(streams[item])
            joined = b"".join(p for _, p in pieces)
            contiguous = all(pieces[i][0] + len(pieces[i][1])
                             == pieces[i + 1][0]
                             for i in range(len(pieces) - 1))
            same = (contiguous and pieces[0][0] == TCP_SEQ
                    and joined == tcp_payload(item))
            print("tcp %d: %d frames, %d payload bytes, %s"
                  % (item, len(pieces), len(joined),
                     "the sender's" if same else "NOT THE SENDER'S"))
        else:
            print(item)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "send":
        send(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "receive":
        receive(sys.argv[2], float(sys.argv[3]))
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()

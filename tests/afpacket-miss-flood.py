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

"""afpacket-miss-flood.py IFACE COUNT SECONDS

Sends COUNT broadcast frames on IFACE, evenly over SECONDS, each from a
source MAC of its own, so that each one misses the megaflows of a switch
doing MAC learning and is an upcall.  Bounded in count and time; the
frames are IPv4 headers to no one (all zero addresses)."""

import socket
import struct
import sys
import time


def main():
    if len(sys.argv) != 4:
        sys.stderr.write(__doc__)
        sys.exit(2)
    iface, count, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    start = time.time()
    for i in range(count):
        src = b"\x02\x01" + struct.pack("!I", i)
        frame = b"\xff" * 6 + src + b"\x08\x00" + b"\x45" + b"\0" * 45
        s.send(frame)
        delay = start + seconds * (i + 1) / count - time.time()
        if delay > 0:
            time.sleep(delay)


if __name__ == "__main__":
    main()

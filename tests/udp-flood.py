#! /usr/bin/python3
# Copyright (c) 2026 ovs-percpu authors.
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

"""Sends UDP datagrams of 32 bytes to ADDRESS, port 9 (discard), for
SECONDS, as fast as one process can, and prints how many it sent.

Usage: udp-flood.py ADDRESS SECONDS

Where the route to ADDRESS is a tunnel over a veth, each send runs the
receiving side's softirq too, on the sending CPU, so the rate this
reaches depends on what the receiver does per packet: the kernel tests
compare it between variants in one guest.  A send that fails (no route,
no buffer) is counted as sent and ignored.  Only the standard library is
used.
"""

import socket
import sys
import time


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    address, seconds = sys.argv[1], float(sys.argv[2])
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    payload = b"x" * 32
    sent = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(100):
            try:
                sock.sendto(payload, (address, 9))
            except OSError:
                pass
        sent += 100
    print(sent)
    return 0


if __name__ == "__main__":
    sys.exit(main())

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

"""A TCP request/response test, as netperf's TCP_RR: one connection, one
64-byte request at a time, each answered by a 64-byte response before the
next is sent.

    afpacket-rr.py server PORT            serves one connection, then exits
    afpacket-rr.py client HOST PORT N     makes N transactions and prints
                                          "<transactions/s> <mean us> <median us>"
"""

import socket
import statistics
import sys
import time

MSG_LEN = 64


def recv_exactly(sock, n):
    """Returns the next n bytes of sock, or b'' at the end of the stream."""
    data = b''
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            return b''
        data += chunk
    return data


def server(port):
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(('0.0.0.0', port))
    listener.listen(1)
    conn, _ = listener.accept()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while True:
        req = recv_exactly(conn, MSG_LEN)
        if not req:
            break
        conn.sendall(req)
    conn.close()
    listener.close()


def client(host, port, n):
    sock = socket.create_connection((host, port), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    msg = b'x' * MSG_LEN
    times = []
    start = time.perf_counter()
    for _ in range(n):
        t0 = time.perf_counter()
        sock.sendall(msg)
        if len(recv_exactly(sock, MSG_LEN)) != MSG_LEN:
            sys.exit('connection closed')
        times.append(time.perf_counter() - t0)
    total = time.perf_counter() - start
    sock.close()
    print('%d %.1f %.1f' % (n / total, statistics.mean(times) * 1e6,
                            statistics.median(times) * 1e6))


if __name__ == '__main__':
    if sys.argv[1] == 'server':
        server(int(sys.argv[2]))
    else:
        client(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))

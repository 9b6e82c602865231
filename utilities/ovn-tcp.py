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

"""TCP servers and clients for the OVN sandbox's checks (ovn-sandbox.sh):
a server answers each connection with its name and the address it sees the
client at, so that a check can tell which backend a load balancer chose and
whether a router translated the source.

    ovn-tcp.py serve NAME PORT...      serves PORT... until killed
    ovn-tcp.py connect HOST PORT [SEC] prints the server's answer,
                                       "NAME PEER_IP"; exits 1 if no
                                       connection within SEC (default 2)
"""

import selectors
import socket
import sys


def serve(name, ports):
    """Answers every connection to any of ports with 'name peer_ip'."""
    sel = selectors.DefaultSelector()
    for port in ports:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(('0.0.0.0', port))
        s.listen(64)
        sel.register(s, selectors.EVENT_READ)
    while True:
        for key, _ in sel.select():
            conn, peer = key.fileobj.accept()
            try:
                conn.settimeout(2)
                conn.sendall(('%s %s\n' % (name, peer[0])).encode())
            except OSError:
                pass
            conn.close()


def connect(host, port, timeout):
    """Prints the answer of the server at host:port; 1 if none came."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            data = b''
            while True:
                chunk = s.recv(256)
                if not chunk:
                    break
                data += chunk
    except OSError as e:
        print('no connection: %s' % e, file=sys.stderr)
        return 1
    sys.stdout.write(data.decode(errors='replace'))
    return 0 if data else 1


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == 'serve':
        serve(sys.argv[2], [int(p) for p in sys.argv[3:]])
        return 0
    if len(sys.argv) in (4, 5) and sys.argv[1] == 'connect':
        timeout = float(sys.argv[4]) if len(sys.argv) == 5 else 2.0
        return connect(sys.argv[2], int(sys.argv[3]), timeout)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())

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


"""Reads the JSON of an iperf3 client run with --get-server-output and
prints what the receiver saw, second by second, in words a test can
compare exactly:

    receiver seconds without data: N
    received: over 1 MB

A "second without data" is a receiver interval of at least half a second
that got under 100 kB: at the 200 Mbit/s the fault tests send (25 MB/s),
a transfer stalled for most of that second.  The last, partial interval
(shorter than half a second) is not counted.

usage: iperf3-intervals.py FILE"""

import json
import sys

MIN_INTERVAL = 0.5
MIN_BYTES = 100000


def main():
    with open(sys.argv[1]) as f:
        text = f.read()
    try:
        result = json.loads(text)
    except ValueError:
        print('not iperf3 JSON: %r' % text[:200])
        return 1
    if 'error' in result:
        print('iperf3 error: %s' % result['error'])
        return 1
    server = result.get('server_output_json')
    if not server:
        print('no server output (run the client with --get-server-output)')
        return 1
    empty = 0
    for interval in server['intervals']:
        s = interval['sum']
        if s['seconds'] >= MIN_INTERVAL and s['bytes'] < MIN_BYTES:
            empty += 1
    received = result['end']['sum_received']['bytes']
    print('receiver seconds without data: %d' % empty)
    print('received: %s' % ('over 1 MB' if received > 1000000
                            else '%d bytes' % received))
    return 0


if __name__ == '__main__':
    sys.exit(main())

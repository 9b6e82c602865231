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

"""Instructions (or another callgrind event) per packet, per function, from
one forwarding window of ovs-percpu-benchmark run under callgrind (the
dump named after the scenario, FILE.1 and so on;
Documentation/performance.md).

usage: callgrind-per-packet.py FILE [N [EVENT]]

Prints the window's total of EVENT per packet and the N (default 30)
functions with the most of it of their own (inlined code counts in its
caller), per packet.  EVENT is one of the file's events (default Ir,
instructions; with valgrind --cache-sim=yes, D1mr and D1mw are the
simulated first-level data cache's read and write misses).  Packets are
those the benchmark forwarded in the window, which it writes into the
dump's name.  (They were the calls to miniflow_extract() until
2026-12-06, which stopped counting the packets once header keys let a
hit skip it: at 10k flows it gave 3,743 instructions per packet.)"""

import collections
import re
import sys


def parse(path, event):
    names = {}
    column = 1
    self_cost = collections.Counter()
    fn = None
    after_calls = False
    for line in open(path):
        line = line.rstrip('\n')
        if line.startswith('events:'):
            events = line.split()[1:]
            if event not in events:
                sys.exit('%s: no event %s (it has %s)'
                         % (path, event, ' '.join(events)))
            column = events.index(event) + 1
            continue
        m = re.match(r'(c?fn)=\((\d+)\)(?: (.*))?$', line)
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1) == 'fn':
                fn = m.group(2)
            continue
        if line.startswith('calls='):
            after_calls = True
            continue
        if line and (line[0].isdigit() or line[0] in '+-*'):
            fields = line.split()
            if after_calls:
                after_calls = False     # The call's inclusive cost.
            elif len(fields) > column:
                self_cost[fn] += int(fields[column])
    return names, self_cost


def window_packets(path):
    """The packets forwarded in the window, from the dump's name
    ("Trigger: Client Request: SCENARIO: DATAPATH: N packets")."""
    for line in open(path):
        m = re.match(r'desc: Trigger: Client Request: .*: (\d+) packets$',
                     line.rstrip('\n'))
        if m:
            return int(m.group(1))
        if line.startswith(('fn=', 'events:')):
            break
    sys.exit('%s: no packet count in its trigger line (a dump of '
             'ovs-percpu-benchmark\'s forwarding window?)' % path)


def main():
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    event = sys.argv[3] if len(sys.argv) > 3 else 'Ir'
    names, self_cost = parse(sys.argv[1], event)
    packets = window_packets(sys.argv[1])
    total = sum(self_cost.values())
    what = 'instructions' if event == 'Ir' else event
    print('%d packets, %.2f %s per packet' % (packets, total / packets, what))
    for k, v in self_cost.most_common(n):
        print('%8.2f  %5.1f%%  %s' % (v / packets, 100.0 * v / total,
                                      names.get(k, k)))


if __name__ == '__main__':
    main()

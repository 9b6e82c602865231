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

"""Instructions per packet, per function, from one forwarding window of
ovs-percpu-benchmark run under callgrind (the dump named after the
scenario, FILE.1 and so on; Documentation/performance.md).

usage: callgrind-per-packet.py FILE [N]

Prints the window's total instructions per packet and the N (default 30)
functions with the most instructions of their own (inlined code counts in
its caller), per packet.  Packets are the calls to miniflow_extract():
both datapaths extract each received packet's key once."""

import collections
import re
import sys


def parse(path):
    names = {}
    self_cost = collections.Counter()
    calls = collections.Counter()
    fn = cfn = None
    after_calls = False
    for line in open(path):
        line = line.rstrip('\n')
        m = re.match(r'(c?fn)=\((\d+)\)(?: (.*))?$', line)
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1) == 'fn':
                fn = m.group(2)
            else:
                cfn = m.group(2)
            continue
        if line.startswith('calls='):
            calls[cfn] += int(line.split()[0][len('calls='):])
            after_calls = True
            continue
        if line and (line[0].isdigit() or line[0] in '+-*'):
            fields = line.split()
            if after_calls:
                after_calls = False     # The call's inclusive cost.
            elif len(fields) >= 2:
                self_cost[fn] += int(fields[1])
    return names, self_cost, calls


def main():
    names, self_cost, calls = parse(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    packets = sum(v for k, v in calls.items()
                  if names.get(k) == 'miniflow_extract')
    if not packets:
        sys.exit('%s: no calls to miniflow_extract' % sys.argv[1])
    total = sum(self_cost.values())
    print('%d packets, %.1f instructions per packet'
          % (packets, total / packets))
    for k, v in self_cost.most_common(n):
        print('%8.1f  %5.1f%%  %s' % (v / packets, 100.0 * v / total,
                                      names.get(k, k)))


if __name__ == '__main__':
    main()

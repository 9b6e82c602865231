#!/usr/bin/env python3
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

"""The netlink requests of kernel-benchmark-guest.sh that no stock tool
makes (ovs-dpctl has no meter commands, and the guest has no
conntrack-tools), the same on both modules:

    kernel-benchmark-nl.py meter-set DP ID RATE BURST
        sets meter ID of datapath DP: one drop band of RATE packets per
        second with a burst of BURST packets
    kernel-benchmark-nl.py meter-stats DP ID
        prints "PACKETS DROPPED": what meter ID has seen, and what its
        band dropped
    kernel-benchmark-nl.py ct-flush
        empties this network namespace's conntrack table, as
        'conntrack -F' does (ctnetlink, nf_conntrack_netlink)

Exits 1 with the errno's text on stderr if the kernel refuses.
"""

import errno
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tests"))
from ovs_netlink import (METER_FAMILY, METER_VERSION,  # noqa: E402
                         OVS_METER_CMD_SET, OVS_METER_CMD_GET,
                         OVS_METER_ATTR_ID, Netlink, attr, meter_band,
                         meter_set, meter_stats, u32)

# include/uapi/linux/netlink.h and netfilter/nfnetlink*.h (Linux 6.1).
NETLINK_NETFILTER = 12
NFNL_SUBSYS_CTNETLINK = 1
IPCTNL_MSG_CT_DELETE = 2


def fail(what, err):
    sys.stderr.write("kernel-benchmark-nl: %s: %s\n"
                     % (what, os.strerror(err)))
    sys.exit(1)


def meter_request(dp, cmd, attrs):
    try:
        ifindex = socket.if_nametoindex(dp)
    except OSError:
        fail(dp, errno.ENODEV)
    nl = Netlink()
    err, replies, _ = nl.ovs(METER_FAMILY, METER_VERSION, cmd, ifindex,
                             attrs)
    nl.close()
    return err, replies


def main(argv):
    if len(argv) == 6 and argv[1] == "meter-set":
        dp, meter_id, rate, burst = argv[2], int(argv[3]), int(argv[4]), \
            int(argv[5])
        err, _ = meter_request(dp, OVS_METER_CMD_SET,
                               meter_set(meter_id,
                                         [meter_band(rate, burst)]))
        if err:
            fail("meter-set", err)
    elif len(argv) == 4 and argv[1] == "meter-stats":
        dp, meter_id = argv[2], int(argv[3])
        err, replies = meter_request(dp, OVS_METER_CMD_GET,
                                     [attr(OVS_METER_ATTR_ID,
                                           u32(meter_id))])
        if err or not replies:
            fail("meter-stats", err)
        total, bands = meter_stats(replies[0])
        dropped = sum(b[0] for b in bands or [] if b)
        print("%d %d" % (total[0] if total else 0, dropped))
    elif len(argv) == 2 and argv[1] == "ct-flush":
        # A DELETE without a tuple flushes; family AF_UNSPEC with version
        # 0, every family.
        nl = Netlink(NETLINK_NETFILTER)
        err, _ = nl.transact_raw((NFNL_SUBSYS_CTNETLINK << 8)
                                 | IPCTNL_MSG_CT_DELETE,
                                 struct.pack("=BBH", socket.AF_UNSPEC, 0, 0))
        nl.close()
        if err:
            fail("ct-flush", err)
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)

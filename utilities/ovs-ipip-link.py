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

"""Sets the attributes of the kernel module's ovs_ipip devices
(datapath/ovsp-ipip-uapi.h), which iproute2 cannot: it passes an unknown
link kind but none of its attributes.

    ovs-ipip-link.py set NAME [gro=0|1] [shared_cell=0|1]
                               [local=A.B.C.D] [remote=A.B.C.D]

sends RTM_NEWLINK (changelink) for the existing device NAME with the given
attributes only.  The benchmark uses it for the ablation switch
(shared_cell=1: every CPU feeds one GRO cell).  Exits 0, or 1 with the
kernel's error (and its extack message, if any) on stderr.
"""

import errno
import os
import socket
import struct
import sys

NETLINK_ROUTE = 0
RTM_NEWLINK = 16
NLM_F_REQUEST = 1
NLM_F_ACK = 4
NLMSG_ERROR = 2
NLMSGERR_ATTR_MSG = 1
NETLINK_EXT_ACK = 11
SOL_NETLINK = 270
IFLA_LINKINFO = 18
IFLA_INFO_KIND = 1
IFLA_INFO_DATA = 2

# OVSP_IPIP_ATTR_* and how each is packed.
ATTRS = {
    'gro': (1, 'B'),
    'shared_cell': (2, 'B'),
    'local': (3, 'ip'),
    'remote': (4, 'ip'),
}


def nla(attr_type, payload):
    """One netlink attribute, padded to 4 bytes."""
    length = 4 + len(payload)
    return (struct.pack('=HH', length, attr_type) + payload
            + b'\0' * ((4 - length % 4) % 4))


def parse_attr(arg):
    name, sep, value = arg.partition('=')
    if not sep or name not in ATTRS:
        sys.exit('unknown attribute %r (expected one of %s)'
                 % (arg, ', '.join(sorted(ATTRS))))
    attr_type, kind = ATTRS[name]
    if kind == 'ip':
        return nla(attr_type, socket.inet_aton(value))
    if value not in ('0', '1'):
        sys.exit('%s: expected 0 or 1, not %r' % (name, value))
    return nla(attr_type, struct.pack('B', int(value)))


def main(argv):
    if len(argv) < 3 or argv[1] != 'set':
        sys.exit(__doc__)
    name = argv[2]
    try:
        ifindex = socket.if_nametoindex(name)
    except OSError:
        sys.exit('%s: no such device' % name)
    data = b''.join(parse_attr(a) for a in argv[3:])
    linkinfo = nla(IFLA_INFO_KIND, b'ovs_ipip\0') + nla(IFLA_INFO_DATA, data)
    body = (struct.pack('=BxHiII', socket.AF_UNSPEC, 0, ifindex, 0, 0)
            + nla(IFLA_LINKINFO, linkinfo))
    msg = struct.pack('=IHHII', 16 + len(body), RTM_NEWLINK,
                      NLM_F_REQUEST | NLM_F_ACK, 1, 0) + body

    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_ROUTE)
    try:
        sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
    except OSError:
        pass
    sock.bind((0, 0))
    sock.send(msg)
    reply = sock.recv(65536)
    if len(reply) < 20:
        sys.exit('%s: short netlink reply' % name)
    length, msg_type, flags = struct.unpack_from('=IHH', reply)
    if msg_type != NLMSG_ERROR:
        sys.exit('%s: unexpected netlink reply type %d' % (name, msg_type))
    err = -struct.unpack_from('=i', reply, 16)[0]
    if err:
        text = ''
        # The extack attributes follow the echoed request header (or the
        # whole request, without NLM_F_CAPPED).
        ofs = 20 + (16 if flags & 0x100 else
                    struct.unpack_from('=I', reply, 20)[0])
        while ofs + 4 <= min(length, len(reply)):
            alen, atype = struct.unpack_from('=HH', reply, ofs)
            if alen < 4:
                break
            if atype == NLMSGERR_ATTR_MSG:
                text = ': ' + reply[ofs + 4:ofs + alen].rstrip(b'\0').decode(
                    errors='replace')
            ofs += (alen + 3) & ~3
        sys.exit('%s: %s%s' % (name, os.strerror(err), text))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

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

"""Creates, changes or deletes an ovs_ipip device of the kernel module.

Usage: kernel-ipip-link.py add|set NAME [ATTR VALUE]... [up] [mtu N]
       kernel-ipip-link.py del NAME
       kernel-ipip-link.py -

ATTRs (datapath/ovsp-ipip-uapi.h): gro 0|1, shared_cell 0|1, local ADDR,
remote ADDR; and, to test the module's checks, raw TYPE HEX (an
IFLA_INFO_DATA attribute of any type with the given bytes).  iproute2
creates the kind ("ip link add t0 type ovs_ipip") but cannot pass its
attributes, hence this.  With "-", it reads such requests from standard
input, one a line (the words after the program's name), and sends them in
order over one socket, stopping at the first that fails: a thousand
devices in seconds, where a process each would take minutes in the qemu
guest.  Only the standard library is used.

Exit status: 0, or 1 with the kernel's errno and extack message on stderr.
"""

import errno
import os
import socket
import struct
import sys

NETLINK_ROUTE = 0
RTM_NEWLINK, RTM_DELLINK = 16, 17
NLM_F_REQUEST, NLM_F_ACK, NLM_F_EXCL, NLM_F_CREATE = 1, 4, 0x200, 0x400
NLMSG_ERROR = 2
NLM_F_ACK_TLVS = 0x200
NLMSGERR_ATTR_MSG = 1
NETLINK_EXT_ACK = 11
IFLA_IFNAME, IFLA_MTU, IFLA_LINKINFO = 3, 4, 18
IFLA_INFO_KIND, IFLA_INFO_DATA = 1, 2
IFF_UP = 1
ATTRS = {"gro": 1, "shared_cell": 2, "local": 3, "remote": 4}


def nla(atype, payload):
    """One netlink attribute, padded to 4 bytes."""
    length = 4 + len(payload)
    return struct.pack("=HH", length, atype) + payload \
        + b"\0" * ((4 - length % 4) % 4)


def parse_args(args):
    """Returns (IFLA_INFO_DATA payload, up, mtu) from 'args'."""
    data, up, mtu = b"", False, None
    i = 0
    while i < len(args):
        key = args[i]
        if key == "up":
            up = True
            i += 1
            continue
        value = args[i + 1]
        if key == "mtu":
            mtu = int(value)
        elif key == "raw":
            data += nla(int(value), bytes.fromhex(args[i + 2]))
            i += 1
        elif key in ("gro", "shared_cell"):
            data += nla(ATTRS[key], struct.pack("B", int(value)))
        elif key in ("local", "remote"):
            data += nla(ATTRS[key], socket.inet_aton(value))
        else:
            raise SystemExit("unknown attribute %s" % key)
        i += 2
    return data, up, mtu


def open_socket():
    """An rtnetlink socket that asks for extended acks."""
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_ROUTE)
    sock.setsockopt(270, NETLINK_EXT_ACK, 1)
    sock.bind((0, 0))
    return sock


def request(sock, msg_type, flags, name, args):
    """Sends one rtnetlink request on 'sock'; returns (errno, extack
    message)."""
    data, up, mtu = parse_args(args)
    attrs = nla(IFLA_IFNAME, name.encode() + b"\0")
    if mtu is not None:
        attrs += nla(IFLA_MTU, struct.pack("=I", mtu))
    if msg_type == RTM_NEWLINK:
        info = nla(IFLA_INFO_KIND, b"ovs_ipip")
        if data:
            info += nla(IFLA_INFO_DATA, data)
        attrs += nla(IFLA_LINKINFO, info)
    ifi = struct.pack("=BxHiII", socket.AF_UNSPEC, 0, 0,
                      IFF_UP if up else 0, IFF_UP if up else 0)
    body = ifi + attrs
    hdr = struct.pack("=IHHII", 16 + len(body), msg_type,
                      NLM_F_REQUEST | NLM_F_ACK | flags, 1, 0)
    sock.send(hdr + body)
    reply = sock.recv(65536)
    _, rtype, rflags, _, _ = struct.unpack_from("=IHHII", reply)
    if rtype != NLMSG_ERROR:
        return 0, ""
    err = -struct.unpack_from("=i", reply, 16)[0]
    message = ""
    if rflags & NLM_F_ACK_TLVS:
        # The extack TLVs follow the echoed header (the request's header
        # only, as NLM_F_CAPPED says, or all of it).
        inner_len = struct.unpack_from("=I", reply, 20)[0]
        off = 20 + (16 if rflags & 0x100 else inner_len)
        while off + 4 <= len(reply):
            alen, atype = struct.unpack_from("=HH", reply, off)
            if alen < 4:
                break
            if atype == NLMSGERR_ATTR_MSG:
                message = reply[off + 4:off + alen].rstrip(b"\0").decode()
            off += (alen + 3) & ~3
    return err, message


def run(sock, words):
    """Runs the request 'words' (["add", NAME, ...]); returns 0, or 1
    with the error on stderr, or None if 'words' is no request."""
    if len(words) < 2 or words[0] not in ("add", "set", "del"):
        return None
    cmd, name, args = words[0], words[1], words[2:]
    if cmd == "add":
        err, msg = request(sock, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL,
                           name, args)
    elif cmd == "set":
        err, msg = request(sock, RTM_NEWLINK, 0, name, args)
    else:
        err, msg = request(sock, RTM_DELLINK, 0, name, [])
    if err:
        sys.stderr.write("%s %s: %s%s\n" % (cmd, name,
                                            errno.errorcode.get(err, err),
                                            " (%s)" % msg if msg else ""))
        return 1
    return 0


def main():
    sock = open_socket()
    if sys.argv[1:] == ["-"]:
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            status = run(sock, words)
            if status is None:
                sys.stderr.write("not a request: %s" % line)
                return 2
            if status:
                return status
        return 0
    status = run(sock, sys.argv[1:])
    if status is None:
        sys.stderr.write(__doc__)
        return 2
    return status


if __name__ == "__main__":
    sys.exit(main())

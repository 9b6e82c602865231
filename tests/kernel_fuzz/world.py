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

"""One network namespace as the fuzzer sees it: its request socket, its
upcall socket (the PID of its datapaths, vports and userspace actions),
an rtnetlink socket, its datapaths with what each was sent, its devices
and vports; and the report of failed checks, which a process keeps for
all its namespaces.
"""

import os
import socket
import struct
import subprocess

from ovs_netlink import (Netlink, Route, attr, encode, decode, ovs_header, u16, u32,
                 get_u32, be16, DP_MAX_PORTS,
                 NLM_F_ACK, NLM_F_ECHO, NLM_F_DUMP,
                 OVS_DP_CMD_NEW, OVS_DP_CMD_DEL, OVS_DP_CMD_GET,
                 OVS_DP_CMD_SET, OVS_DP_ATTR_NAME, OVS_DP_ATTR_UPCALL_PID,
                 OVS_DP_ATTR_USER_FEATURES, OVS_DP_ATTR_PER_CPU_PIDS,
                 OVS_DP_F_UNALIGNED, OVS_DP_F_VPORT_PIDS,
                 OVS_DP_F_DISPATCH_UPCALL_PER_CPU,
                 OVS_VPORT_CMD_NEW, OVS_VPORT_CMD_DEL,
                 OVS_VPORT_ATTR_PORT_NO, OVS_VPORT_ATTR_TYPE,
                 OVS_VPORT_ATTR_NAME, OVS_VPORT_ATTR_OPTIONS,
                 OVS_VPORT_ATTR_UPCALL_PID, OVS_TUNNEL_ATTR_DST_PORT,
                 OVS_VPORT_TYPE_NETDEV, OVS_VPORT_TYPE_INTERNAL,
                 OVS_VPORT_TYPE_GRE, OVS_VPORT_TYPE_VXLAN,
                 OVS_VPORT_TYPE_GENEVE, OVS_FLOW_CMD_GET,
                 OVS_PACKET_CMD_EXECUTE,
                 IFLA_GENEVE_PORT, IFLA_GENEVE_COLLECT_METADATA,
                 IFLA_VXLAN_PORT, IFLA_VXLAN_COLLECT_METADATA,
                 IFLA_GRE_COLLECT_METADATA)
from .upcalls import Registry, Checker, HISTORY_MAX, USERDATA_PREFIX


class Stop(Exception):
    """A check failed and the run stops there."""


class Report:
    """Failed checks by name, with the first messages of each."""

    def __init__(self, keep_going, shown=3):
        self.keep_going = keep_going
        self.shown = shown      # Messages kept by check.
        self.failures = {}      # Check: [count, [first messages]].
        self.first = None       # (check, message) of the first failure.
        self.context = None     # What was being done, for messages.

    def fail(self, check, msg):
        if self.context:
            msg = "%s: %s" % (self.context, msg)
        entry = self.failures.setdefault(check, [0, []])
        entry[0] += 1
        if len(entry[1]) < self.shown:
            entry[1].append(msg)
        if self.first is None:
            self.first = (check, msg)
        if not self.keep_going:
            raise Stop("%s: %s" % (check, msg))

    def merge(self, other):
        """Adds a child's report ({check: [count, messages]})."""
        for check, (count, msgs) in other.items():
            entry = self.failures.setdefault(check, [0, []])
            entry[0] += count
            entry[1] += msgs[:max(0, self.shown - len(entry[1]))]
            if self.first is None:
                self.first = (check, msgs[0] if msgs else "")


class Datapath:
    """A datapath of the namespace."""

    def __init__(self, name, ifindex, per_cpu):
        self.name = name
        self.ifindex = ifindex
        self.per_cpu = per_cpu
        self.reg = Registry(name, ifindex)
        self.ports = {}         # Port number: (device name, kind).


class World:
    """The fuzzer's view of the network namespace it runs in."""

    def __init__(self, report, stats, label):
        self.report = report
        self.stats = stats      # {(family, cmd, errno): count}, shared.
        self.label = label      # Prefix of device and datapath names.
        self.nl = Netlink()
        self.up = Netlink(rcvbuf=8 << 20)
        self.rt = Route()
        self.upcall_pid = self.up.pid
        self.fam = {}
        for name in ("ovs_datapath", "ovs_vport", "ovs_flow", "ovs_packet",
                     "ovs_meter", "ovs_ct_limit"):
            self.fam[name] = self.nl.family(name)
        self.checker = Checker()
        # Whether the module is Debian's openvswitch.ko, where ours
        # answers otherwise on purpose.
        self.stock = os.path.isdir("/sys/module/openvswitch")
        # Linux's module reads an egress tunnel port as a u16; ours
        # refuses one at or above 65535 (no port) rather than truncate.
        self.egress_port_limit = 1 << 32 if self.stock else DP_MAX_PORTS
        self.dps = {}
        self.devices = set()
        self.next_userdata = 0
        self.tunnel_ports = None
        self.last = None
        self.sent = 0

    def close(self):
        for s in (self.nl, self.up, self.rt):
            s.close()

    def fail(self, check, msg):
        self.report.fail(check, msg)

    def refused(self, what, err):
        """Fails check shape-refused: a request Linux accepts was refused;
        the module's last log line says why."""
        why = ""
        try:
            lines = subprocess.run(["dmesg"], capture_output=True,
                                   text=True, check=False).stdout
            said = [x for x in lines.splitlines()
                    if "ovs_percpu:" in x or "openvswitch:" in x]
            if said:
                why = " (the kernel's last word: %s)" % said[-1]
        except OSError:
            pass
        self.fail("shape-refused", "%s refused: %s%s"
                  % (what, os.strerror(err), why))

    # Requests.

    def count(self, family, cmd, err):
        what = (family, cmd, err)
        self.stats[what] = self.stats.get(what, 0) + 1

    def request(self, family, cmd, payload, flags=NLM_F_ACK, dp=None,
                version=1):
        """Sends one request; returns (errno, replies).  A request that
        gets no answer fails the run."""
        self.last = (family, cmd, payload)
        if dp is not None:
            dp.reg.sent(payload)
        try:
            err, msgs = self.nl.transact(self.fam[family], cmd, version,
                                         payload, flags)
        except (TimeoutError, socket.timeout):
            self.fail("no-reply", "%s command %d got no answer" % (family,
                                                                   cmd))
            return -1, []
        except OSError as e:
            # A message the socket would not send (EMSGSIZE past its
            # buffer): not the module's answer, but counted as one.
            err, msgs = e.errno, []
        self.sent += 1
        self.count(family, cmd, err)
        return err, msgs

    def flow_request(self, dp, cmd, attrs, flags=0, echo=True, check=True):
        """A flow command on 'dp' with attributes 'attrs'."""
        f = NLM_F_ACK | flags | (NLM_F_ECHO if echo else 0)
        return self.request("ovs_flow", cmd,
                            ovs_header(dp.ifindex) + encode(attrs), f, dp)

    def flow_dump(self, dp, attrs=()):
        return self.request("ovs_flow", OVS_FLOW_CMD_GET,
                            ovs_header(dp.ifindex) + encode(list(attrs)),
                            NLM_F_ACK | NLM_F_DUMP)

    def execute(self, dp, attrs, flags=NLM_F_ACK):
        return self.request("ovs_packet", OVS_PACKET_CMD_EXECUTE,
                            ovs_header(dp.ifindex) + encode(attrs), flags,
                            dp)

    def meter_request(self, ifindex, cmd, attrs, ruin=None):
        """An ovs_meter command on datapath 'ifindex' (0: none); returns
        (errno, the attributes of its reply or None)."""
        err, msgs = self.request("ovs_meter", cmd, ovs_header(ifindex)
                                 + encode(attrs, ruin))
        return err, (decode(msgs[0][8:]) if msgs else None)

    # Datapaths.

    def dp_create(self, name, per_cpu=False):
        """Creates datapath 'name' (deleting a leftover of that name);
        returns it, or None if the module refuses."""
        features = OVS_DP_F_UNALIGNED | OVS_DP_F_VPORT_PIDS
        payload = ovs_header(0) + encode([
            attr(OVS_DP_ATTR_NAME, name.encode() + b"\0"),
            attr(OVS_DP_ATTR_UPCALL_PID, u32(self.upcall_pid)),
            attr(OVS_DP_ATTR_USER_FEATURES, u32(features))])
        for _ in range(2):
            err, msgs = self.request("ovs_datapath", OVS_DP_CMD_NEW,
                                     payload, NLM_F_ACK | NLM_F_ECHO,
                                     version=2)
            if err != 17:
                break
            self.request("ovs_datapath", OVS_DP_CMD_DEL, ovs_header(0)
                         + encode([attr(OVS_DP_ATTR_NAME,
                                        name.encode() + b"\0")]),
                         version=2)
        if err or not msgs:
            return None
        dp = Datapath(name, struct.unpack("=i", msgs[0][4:8])[0], per_cpu)
        if per_cpu:
            n = os.cpu_count() or 1
            err, _ = self.request(
                "ovs_datapath", OVS_DP_CMD_SET, ovs_header(dp.ifindex)
                + encode([attr(OVS_DP_ATTR_USER_FEATURES,
                               u32(OVS_DP_F_UNALIGNED
                                   | OVS_DP_F_DISPATCH_UPCALL_PER_CPU)),
                          attr(OVS_DP_ATTR_PER_CPU_PIDS,
                               b"".join(u32(self.upcall_pid)
                                        for _ in range(n)))]),
                version=2)
            dp.per_cpu = err == 0
        self.dps[name] = dp
        self.checker.add(dp.reg)
        return dp

    def dp_alive(self, dp):
        err, _ = self.request("ovs_datapath", OVS_DP_CMD_GET, ovs_header(0)
                              + encode([attr(OVS_DP_ATTR_NAME,
                                             dp.name.encode() + b"\0")]),
                              version=2)
        return err == 0

    def dp_delete(self, dp):
        self.request("ovs_datapath", OVS_DP_CMD_DEL, ovs_header(dp.ifindex),
                     version=2)
        self.dps.pop(dp.name, None)

    def flush(self, dp):
        """Drains the upcalls, then deletes every flow of 'dp' and forgets
        what it was sent."""
        self.drain()
        err, _ = self.request("ovs_flow", 2, ovs_header(dp.ifindex))
        if err:
            self.fail("dp-dead", "flow flush of %s failed: %s"
                      % (dp.name, os.strerror(err)))
        dp.reg.flushed()

    def maybe_flush(self, dp):
        if dp.reg.size > HISTORY_MAX:
            self.flush(dp)

    # Vports and devices.

    def vport_new(self, dp, name, vtype, port_no=None, options=None):
        """Adds a vport; returns (errno, its port number)."""
        attrs = [attr(OVS_VPORT_ATTR_NAME, name.encode() + b"\0"),
                 attr(OVS_VPORT_ATTR_TYPE, u32(vtype)),
                 attr(OVS_VPORT_ATTR_UPCALL_PID, u32(self.upcall_pid))]
        if port_no is not None:
            attrs.append(attr(OVS_VPORT_ATTR_PORT_NO, u32(port_no)))
        if options is not None:
            attrs.append(attr(OVS_VPORT_ATTR_OPTIONS, options))
        err, msgs = self.request("ovs_vport", OVS_VPORT_CMD_NEW,
                                 ovs_header(dp.ifindex) + encode(attrs),
                                 NLM_F_ACK | NLM_F_ECHO)
        if err:
            return err, None
        got = None
        for m in msgs:
            a = decode(m[8:])
            if OVS_VPORT_ATTR_PORT_NO in a:
                got = get_u32(a[OVS_VPORT_ATTR_PORT_NO])
        if got is not None:
            dp.ports[got] = (name, vtype)
        return 0, got

    def vport_del(self, dp, port_no):
        err, _ = self.request("ovs_vport", OVS_VPORT_CMD_DEL,
                              ovs_header(dp.ifindex) + encode(
                                  [attr(OVS_VPORT_ATTR_PORT_NO,
                                        u32(port_no))]))
        if not err:
            dp.ports.pop(port_no, None)
        return err

    def link_add(self, name, kind, **kw):
        """Creates link 'name' (deleting a leftover of an earlier run),
        sets it up; returns 0 or an errno."""
        self.rt.link_del(name)
        err = self.rt.link_add(name, kind, **kw)
        if not err:
            self.devices.add(name)
            self.rt.link_up(name)
            if kw.get("peer"):
                self.devices.add(kw["peer"])
                self.rt.link_up(kw["peer"])
        return err

    def link_del(self, name):
        self.devices.discard(name)
        return self.rt.link_del(name)

    def free_port_no(self, dp, r, limits=True):
        """A port number not in use: at the limits now and then."""
        choices = [r.randrange(1, 200)]
        if limits:
            choices += [65534, 65535, 1, 255, 256]
        for _ in range(10):
            p = r.choice(choices)
            if p not in dp.ports:
                return p
            choices = [r.randrange(1, 65536)]
        return None

    def tunnel_setup(self, dp, r):
        """Creates this namespace's collect_md tunnel devices (geneve,
        vxlan, gretap, gre) and attaches them to 'dp' as netdev vports,
        tries the vport family's own tunnel types (Linux's vport-geneve,
        -vxlan and -gre; ours refuses them), and adds a port of each
        other kind.  Returns [(port number, kind)] of the ports made."""
        if self.tunnel_ports is not None:
            return self.tunnel_ports
        self.rt.link_up("lo")
        made = []
        devices = [
            ("gnv", "geneve", [attr(IFLA_GENEVE_COLLECT_METADATA, b""),
                               attr(IFLA_GENEVE_PORT, be16(6081))]),
            ("vx", "vxlan", [attr(IFLA_VXLAN_COLLECT_METADATA, b"\1"),
                             attr(IFLA_VXLAN_PORT, be16(4789))]),
            ("gtap", "gretap", [attr(IFLA_GRE_COLLECT_METADATA, b"")]),
            ("gre", "gre", [attr(IFLA_GRE_COLLECT_METADATA, b"")]),
            ("dum", "dummy", None),
        ]
        for suffix, kind, data in devices:
            name = (self.label + suffix)[:15]
            if self.link_add(name, kind, data=data):
                continue
            port = self.free_port_no(dp, r)
            err, got = self.vport_new(dp, name, OVS_VPORT_TYPE_NETDEV, port)
            if not err and got is not None:
                made.append((got, kind))
        for suffix, vtype, options in (
                ("vgnv", OVS_VPORT_TYPE_GENEVE,
                 [attr(OVS_TUNNEL_ATTR_DST_PORT, u16(6082))]),
                ("vvx", OVS_VPORT_TYPE_VXLAN,
                 [attr(OVS_TUNNEL_ATTR_DST_PORT, u16(4790))]),
                ("vgre", OVS_VPORT_TYPE_GRE, None),
                ("int", OVS_VPORT_TYPE_INTERNAL, None)):
            name = (self.label + suffix)[:15]
            err, got = self.vport_new(dp, name, vtype,
                                      self.free_port_no(dp, r), options)
            if not err and got is not None:
                made.append((got, {OVS_VPORT_TYPE_GENEVE: "vport-geneve",
                                   OVS_VPORT_TYPE_VXLAN: "vport-vxlan",
                                   OVS_VPORT_TYPE_GRE: "vport-gre"}.get(
                                       vtype, "internal")))
                self.rt.link_up(name)
        self.tunnel_ports = made
        return made

    # Upcalls.

    def drain(self):
        """Checks every upcall waiting on the upcall socket."""
        for data in self.up.pending():
            if data is None:
                self.checker.counts["overrun"] += 1
                continue
            for check, msg in self.checker.check(data):
                self.fail(check, msg)

    def userdata_tag(self, r, dp, expect=None):
        """Userdata that names one userspace action of 'dp': the strict
        shapes' prefix, a counter, 0 to 24 random bytes; 'expect' is the
        egress tunnel key its upcalls must carry (see Registry)."""
        self.next_userdata += 1
        ud = (USERDATA_PREFIX + struct.pack("!I", self.next_userdata)
              + bytes(r.randrange(256) for _ in range(r.choice(
                  [0, 0, 2, 10, 24]))))
        dp.reg.userdata[ud] = expect
        return ud

    def frame_tag(self):
        """A frame tag no other frame of this run has (the process's ID in
        the high half: children send into their parent's datapaths)."""
        global _next_tag
        if _next_tag is None or _next_tag[0] != os.getpid():
            _next_tag = [os.getpid(), (os.getpid() & 0xffff) << 16]
        _next_tag[1] = (_next_tag[1] + 1) & 0xffffffff
        return _next_tag[1]


# The last frame tag of this process: [pid, tag].
_next_tag = None

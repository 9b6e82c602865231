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

"""The families of requests (--shapes), and the loop that runs them.

- mutate: mutations of valid flow NEW/SET/GET/DEL and EXECUTE requests
  (the fuzzer's first form), dumped and flushed every 50 requests;
- recirc: chains of flows for recirc_id N+1..N+k, each flow's actions
  (and the execute's) nested up to 16 deep in clone, sample (100%) and
  check_pkt_len, each container the only action of its list, or not, or
  either; then executes that enter the chain;
- tunnel: set(tunnel()) with Geneve options of every length (0 to 252
  bytes, whole words), VXLAN or ERSPAN options, then userspace with
  OVS_USERSPACE_ATTR_EGRESS_TUN_PORT naming a collect_md geneve, vxlan,
  gretap or gre device of the namespace, another port or a number at the
  limits; executes with a tunnel in their key;
- ports: port numbers at the limits (0, 1, 65534, 65535, 65536, 2^32-1)
  in vport NEW, a key's in_port, output and the egress tunnel port, each
  checked against what Linux answers (port-limits);
- model: the flow table model (model.py) on a datapath of its own;
- meter: the ovs_meter family's requests, valid, refused and mutated,
  and packets through meter actions of executes and flows, against the
  model of meters.py, on a datapath of its own;
- ct: ct() actions (seeds.ct_action(): what OVS sends and the hostile
  corners) and ct_clear executed on IPv4 and IPv6 packets, then a
  recirculation or an upcall, and put in flows whose keys carry
  conntrack attributes (seeds.ct_key()); a ct() made only of what OVS
  sends must be accepted (shape-refused), anything else may be refused
  with EINVAL only (ct-errno);
- ct_limit: the ovs_ct_limit family's requests (SET, GET and DEL of the
  namespace's zone limits), valid, refused, in bulk and mutated, against
  the model of ct_limits.py;
- userns: a child that drops to uid 65534 and unshares a user and a
  network namespace, then runs shapes there (--child-shapes: mutate,
  recirc, tunnel, ports, model, meter, ct_limit) for a few seconds, on
  datapaths, devices and zone limits of its own, as any user can;
- netns: children that each make two network namespaces (in a user
  namespace of their own half the time), datapaths in both, veth pairs
  across them, internal ports moved from one to the other, frames sent
  through them, and ports, devices and namespaces deleted under them.

Every upcall is checked (upcalls.py) as it is drained.
"""

import ctypes
import errno
import json
import os
import select
import socket
import time

from ovs_netlink import *  # noqa: F401,F403 (the ABI's constants)
from ovs_userns import CLONE_NEWNET, become_nobody, libc, unshare
from . import seeds
from .ct_limits import CtLimitShape
from .meters import MeterShape
from .model import ModelShape
from .upcalls import expected_tunnel, frame_tag
from .world import World, Report, Stop

SHAPES = ("mutate", "recirc", "tunnel", "ports", "model", "meter", "ct",
          "ct_limit", "userns", "netns")
# How often each shape of the fuzzer's own process runs, by weight.
WEIGHTS = {"mutate": 8, "recirc": 4, "tunnel": 4, "ports": 1, "model": 6,
           "meter": 3, "ct": 3, "ct_limit": 2}
# The shapes that fork children, which take seconds: every so many turns
# (turns, not seconds, so that a seed repeats a run), the first one early.
PERIODS = {"userns": (300, 20), "netns": (200, 40)}
# The shapes a child namespace runs.
CHILD_SHAPES = ("mutate", "recirc", "tunnel", "ports", "model", "meter",
                "ct", "ct_limit")



def setns(fd):
    """setns(2) into network namespace 'fd'; raises OSError."""
    if libc().setns(fd, CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "setns: %s" % os.strerror(e))


class Runner:
    """Runs shapes in one namespace (World)."""

    def __init__(self, args, r, report, stats, label, shapes):
        self.args = args
        self.r = r
        self.report = report
        self.stats = stats
        self.shapes = shapes
        self.world = World(report, stats, label)
        if self.world.fam["ovs_datapath"] is None:
            raise RuntimeError("no ovs_datapath family (module not loaded)")
        self.label = label
        self.dps = {}
        self.model = None
        self.meter = None
        self.ct_limit = None
        self.mut_count = 0
        self.turns = 0
        self.counts = {"scenarios": 0, "children": 0, "child-failed": 0,
                       "flows-dumped": 0, "expected-userdata": 0,
                       "missing-userdata": 0}

    def dp(self, role):
        """The datapath for 'role' ("mut", "rec", "mod", "met"), made on
        first use (per-CPU dispatch half the time for "rec")."""
        dp = self.dps.get(role)
        if dp is None:
            per_cpu = role == "rec" and self.r.random() < 0.5
            dp = self.world.dp_create(self.label + role, per_cpu)
            if dp is not None and role == "mod":
                dp.reg.record = False   # No packet goes through it.
            if dp is None:
                raise RuntimeError("cannot create datapath %s%s"
                                   % (self.label, role))
            self.dps[role] = dp
        return dp

    def turn(self):
        """Runs one shape: a child shape when its turn comes, else one
        chosen by weight."""
        self.turns += 1
        names = [s for s in self.shapes if s in WEIGHTS
                 for _ in range(WEIGHTS[s])]
        due = [s for s in self.shapes if s in PERIODS and
               (not names or self.turns % PERIODS[s][0] == PERIODS[s][1])]
        shape = self.r.choice(due or names)
        self.report.context = "shape %s" % shape
        getattr(self, "shape_" + shape)()
        self.report.context = None

    def end(self):
        """Drains, checks the datapaths still answer and deletes them."""
        self.world.drain()
        for dp in self.dps.values():
            if not self.world.dp_alive(dp):
                self.world.fail("dp-dead", "datapath %s stopped answering"
                                % dp.name)
        if self.model is not None:
            self.model.dump(self.r)
        for dp in list(self.dps.values()):
            self.world.dp_delete(dp)
        for name in sorted(self.world.devices):
            self.world.link_del(name)

    # mutate: the first form of this fuzzer.

    def shape_mutate(self):
        dp = self.dp("mut")
        w = self.world
        r = self.r
        for _ in range(5):
            self.mutated_request(dp)
            self.mut_count += 1
            if self.mut_count % 50 == 0:
                w.drain()
                err, flows = w.flow_dump(dp)
                if err:
                    w.fail("dp-dead", "flow dump failed: %s"
                           % os.strerror(err))
                self.counts["flows-dumped"] += len(flows)
                w.flush(dp)
                if not w.dp_alive(dp):
                    w.fail("dp-dead", "the datapath stopped answering")
        if r.random() < 0.3:
            w.drain()

    def mutated_request(self, dp):
        r = self.r
        w = self.world
        mutate_p = self.args.mutate
        key = seeds.flow_key(r)
        if r.random() < 0.55:
            attrs = [attr(OVS_FLOW_ATTR_KEY, key)]
            if r.random() < 0.8:
                attrs.append(attr(OVS_FLOW_ATTR_MASK, seeds.mask_of(key, r)))
            attrs.append(attr(OVS_FLOW_ATTR_ACTIONS,
                              seeds.actions(r, upcall_pid=w.upcall_pid)))
            if r.random() < 0.7:
                attrs.append(attr(OVS_FLOW_ATTR_UFID,
                                  bytes(r.randrange(256) for _ in range(16))))
            if r.random() < 0.5:
                attrs.append(attr(OVS_FLOW_ATTR_PROBE, b""))
            if r.random() < mutate_p:
                seeds.mutate(attrs, r)
            cmd = r.choice([OVS_FLOW_CMD_NEW] * 4 + [OVS_FLOW_CMD_SET,
                                                     OVS_FLOW_CMD_GET,
                                                     OVS_FLOW_CMD_DEL])
            flags = NLM_F_ACK | (NLM_F_CREATE if cmd == OVS_FLOW_CMD_NEW
                                 else 0)
            if r.random() < 0.3:
                flags |= NLM_F_ECHO
            family = "ovs_flow"
        else:
            frame = seeds.tagged_packet(r, w.frame_tag())
            attrs = [attr(OVS_PACKET_ATTR_PACKET, frame),
                     attr(OVS_PACKET_ATTR_KEY, seeds.execute_key(r)),
                     attr(OVS_PACKET_ATTR_ACTIONS,
                          seeds.actions(r, upcall_pid=w.upcall_pid))]
            if r.random() < 0.1:
                attrs.append(attr(OVS_PACKET_ATTR_MRU,
                                  u16(r.choice([0, 68, 1280, 65535]))))
            if r.random() < 0.5:
                attrs.append(attr(OVS_PACKET_ATTR_PROBE, b""))
            if r.random() < mutate_p:
                seeds.mutate(attrs, r)
            cmd = OVS_PACKET_CMD_EXECUTE
            flags = NLM_F_ACK
            family = "ovs_packet"
        ruin = (seeds.length_ruin(r) if r.random() < 0.2 * mutate_p
                else None)
        payload = ovs_header(dp.ifindex) + encode(attrs, ruin)
        if r.random() < 0.02 * mutate_p:
            # Byte damage anywhere after the header.
            p = bytearray(payload)
            for _ in range(r.randrange(1, 8)):
                j = r.randrange(4, len(p)) if len(p) > 4 else 0
                p[j] = r.randrange(256)
            payload = bytes(p)
        w.request(family, cmd, payload, flags, dp)
        w.maybe_flush(dp)

    # recirc: chains of recirculation with nesting.

    def extra_action(self, dp):
        """An action that leaves the packet and the flow key as they
        are, or changes only the metadata."""
        r = self.r
        w = self.world
        kind = r.randrange(6)
        if kind == 0:
            ud = w.userdata_tag(r, dp, False)
            return attr(A_USERSPACE, [attr(U_PID, u32(w.upcall_pid)),
                                      attr(U_USERDATA, ud)])
        if kind == 1:
            return attr(A_OUTPUT, u32(r.choice([0, 1, 999, 65534])))
        if kind == 2:
            return attr(A_HASH, u32(0) + u32(r.randrange(1 << 32)))
        if kind == 3:
            return attr(A_SET_MASKED, [attr(K_SKB_MARK, u32(r.randrange(
                1 << 8)) + u32(0xff))])
        if kind == 4:
            return attr(A_TRUNC, u32(r.choice([14, 60, 100, 1500])))
        return attr(A_SET_MASKED, [attr(K_PRIORITY, u32(7) + u32(0xff))])

    def depth(self, mode):
        r = self.r
        if mode == "max":
            return 16
        if mode == "deep":
            return r.randrange(12, 17)
        return r.randrange(0, 17)

    def shape_recirc(self):
        """A chain of k flows, recirc_id base+1..base+k, each recirculating
        to the next (the last one ends in userspace or in a miss); its
        executes recirculate to base+1.  Whole scenarios lean one way
        (every container last, the deepest nesting), so that the corners
        come up often."""
        r = self.r
        w = self.world
        dp = self.dp("rec")
        self.counts["scenarios"] += 1
        k = r.choice([1, 2, 3, 3, 4, 4, 5])
        base = r.choice([0, 0, 0, r.randrange(1, 1 << 31)])
        style = r.choice(["last", "notlast", "mixed"])
        mode = r.choice(["max", "deep", "random"])
        in_port = r.choice([0, 1, 7, 100, 65534])
        frames = [seeds.tagged_packet(r, w.frame_tag())
                  for _ in range(r.choice([1, 1, 2, 3]))]
        flen = len(frames[0])
        if self.args.verbose:
            print("recirc: k %d base %d style %s depth %s in_port %d"
                  % (k, base, style, mode, in_port), flush=True)

        def extra():
            return self.extra_action(dp)

        installed = []
        for i in range(1, k + 1):
            if i < k:
                inner = [attr(A_RECIRC, u32(base + i + 1))]
            else:
                end = r.random()
                ud = w.userdata_tag(r, dp, False)
                if end < 0.6:
                    inner = [attr(A_USERSPACE,
                                  [attr(U_PID, u32(w.upcall_pid)),
                                   attr(U_USERDATA, ud)])]
                elif end < 0.8:
                    inner = [attr(A_RECIRC, u32(base + k + 1))]
                else:
                    inner = [attr(A_OUTPUT, u32(1))]
            if r.random() < 0.3:
                inner.insert(0, extra())
            s = style if r.random() < 0.8 else r.choice(["last", "notlast",
                                                         "mixed"])
            acts = seeds.nest(r, inner, self.depth(mode), s, flen, extra)
            key, mask = seeds.recirc_flow(base + i, in_port)
            ufid = (bytes(r.randrange(256) for _ in range(16))
                    if r.random() < 0.8 else None)
            attrs = [attr(OVS_FLOW_ATTR_KEY, key),
                     attr(OVS_FLOW_ATTR_MASK, mask),
                     attr(OVS_FLOW_ATTR_ACTIONS, acts)]
            if ufid:
                attrs.append(attr(OVS_FLOW_ATTR_UFID, ufid))
            err, _ = w.flow_request(dp, OVS_FLOW_CMD_NEW, attrs,
                                    flags=NLM_F_CREATE, echo=False)
            if err == 0:
                installed.append((ufid, key))
            elif err != errno.EEXIST:
                w.refused("recirc: NEW of flow %d of %d" % (i, k), err)

        for frame in frames:
            tag = frame_tag(frame)
            dp.reg.frames[tag] = (frame, True, None)
            inner = [attr(A_RECIRC, u32(base + 1))]
            if r.random() < 0.3:
                inner.insert(0, extra())
            acts = seeds.nest(r, inner, self.depth(mode), style, len(frame),
                              extra)
            key = [attr(K_IN_PORT, u32(in_port))]
            if r.random() < 0.3:
                t = seeds.strict_tunnel(r, for_key=True)
                key.append(attr(K_TUNNEL, t))
                dp.reg.key_tunnels[tag] = expected_tunnel(t)
            err, _ = w.execute(dp, [attr(OVS_PACKET_ATTR_PACKET, frame),
                                    attr(OVS_PACKET_ATTR_KEY, key),
                                    attr(OVS_PACKET_ATTR_ACTIONS, acts)])
            if err == errno.EINVAL:
                w.refused("recirc: execute", err)
            w.drain()

        for ufid, key in installed:
            if ufid:
                a = [attr(OVS_FLOW_ATTR_UFID, ufid)]
            else:
                a = [attr(OVS_FLOW_ATTR_KEY, key)]
            w.flow_request(dp, OVS_FLOW_CMD_DEL, a, echo=False)
        w.maybe_flush(dp)

    # tunnel: egress tunnel keys with options.

    def shape_tunnel(self):
        r = self.r
        w = self.world
        dp = self.dp("rec")
        ports = w.tunnel_setup(dp, r)
        self.counts["scenarios"] += 1
        tunnels = [p for p, kind in ports
                   if kind not in ("dummy", "internal")]
        others = [p for p, kind in ports if kind in ("dummy", "internal")]
        x = r.random()
        if tunnels and x < 0.8:
            port = r.choice(tunnels)
            if r.random() < 0.1:
                port |= 1 << 16         # Linux reads it as a u16.
        elif others and x < 0.9:
            port = r.choice(others)
        else:
            port = r.choice([0, 1, 65535, 65536, 0xffffffff,
                             r.randrange(1 << 32)])
        tun = seeds.strict_tunnel(r)
        has_set = r.random() < 0.9
        expect = expected_tunnel(tun) if has_set else False
        ud = w.userdata_tag(r, dp, expect)
        user = [attr(U_PID, u32(w.upcall_pid)), attr(U_USERDATA, ud),
                attr(U_EGRESS_TUN_PORT, u32(port))]
        r.shuffle(user)
        acts = []
        if r.random() < 0.2:
            acts.append(self.extra_action(dp))
        if has_set:
            acts.append(attr(A_SET, [attr(K_TUNNEL, tun)]))
        if r.random() < 0.2:
            acts.append(attr(A_SET_MASKED, [attr(K_SKB_MARK,
                                                 u32(1) + u32(1))]))
        acts.append(attr(A_USERSPACE, user))
        if r.random() < 0.3:
            # Without the port: no egress tunnel key.
            ud2 = w.userdata_tag(r, dp, False)
            acts.append(attr(A_USERSPACE, [attr(U_PID, u32(w.upcall_pid)),
                                           attr(U_USERDATA, ud2)]))
        frame = seeds.tagged_packet(r, w.frame_tag(), 60)
        wrapped = r.random() < 0.3
        if wrapped:
            acts = seeds.nest(r, acts, r.randrange(1, 4), "mixed",
                              len(frame), lambda: attr(A_OUTPUT, u32(999)))
        tag = frame_tag(frame)
        dp.reg.frames[tag] = (frame, True, None)
        key = [attr(K_IN_PORT, u32(r.choice([0, 1, 3])))]
        if r.random() < 0.3:
            t = seeds.strict_tunnel(r, for_key=True)
            key.append(attr(K_TUNNEL, t))
            dp.reg.key_tunnels[tag] = expected_tunnel(t)
        if self.args.verbose:
            opts = dict(tun).get(T_GENEVE_OPTS)
            print("tunnel: port %#x, set %s, geneve options %s bytes"
                  % (port, has_set, len(opts) if opts is not None else
                     "no"), flush=True)
        err, _ = w.execute(dp, [attr(OVS_PACKET_ATTR_PACKET, frame),
                                attr(OVS_PACKET_ATTR_KEY, key),
                                attr(OVS_PACKET_ATTR_ACTIONS, acts)])
        if port >= w.egress_port_limit:
            if err != errno.EINVAL:
                w.fail("port-limits", "userspace with egress tunnel port "
                       "%#x: errno %d, refused before" % (port, err))
        elif err == errno.EINVAL:
            w.refused("tunnel: execute of set(tunnel) and userspace", err)
        w.drain()
        self.counts["expected-userdata"] += 1
        if err == 0 and ud not in dp.reg.seen and not wrapped:
            # (Wrapped, a check_pkt_len may have taken the other branch.)
            self.counts["missing-userdata"] += 1
            if self.args.verbose:
                print("tunnel: no upcall for userdata %s (port %#x, "
                      "wrapped %s)" % (ud.hex(), port, wrapped), flush=True)
        w.maybe_flush(dp)

    # ports: numbers at the limits.

    def shape_ports(self):
        """Each port number at the limits, where Linux takes a port
        number: its answers are Linux's (port-limits)."""
        r = self.r
        w = self.world
        dp = self.dp("rec")
        self.counts["scenarios"] += 1
        p = r.choice([0, 1, 65534, 65535, 65536, 0xffffffff])
        where = r.randrange(4)
        if where == 0:
            # vport NEW's PORT_NO: EFBIG past the largest, EBUSY if
            # taken, 0 for the lowest free one (ovs_vport_cmd_new()).
            name = ("%sp%d" % (self.label, r.randrange(1000)))[:15]
            if w.link_add(name, "dummy"):
                return
            want = (errno.EFBIG if p >= DP_MAX_PORTS else
                    errno.EBUSY if p and p in dp.ports else 0)
            lowest = min(set(range(1, len(dp.ports) + 2)) - set(dp.ports))
            err, got = w.vport_new(dp, name, OVS_VPORT_TYPE_NETDEV, p)
            if err != want:
                w.fail("port-limits", "vport NEW with PORT_NO %d: errno "
                       "%d, Linux %d" % (p, err, want))
            if not err and got != (p or lowest):
                w.fail("port-limits", "vport NEW with PORT_NO %d made port "
                       "%s, Linux %d" % (p, got, p or lowest))
            if not err and got is not None:
                w.vport_del(dp, got)
            w.link_del(name)
        elif where == 1:
            # An execute's in_port: refused from 65536; upcalls carry it.
            frame = seeds.tagged_packet(r, w.frame_tag(), 60)
            tag = frame_tag(frame)
            dp.reg.frames[tag] = (frame, True, None)
            ud = w.userdata_tag(r, dp, False)
            err, _ = w.execute(dp, [
                attr(OVS_PACKET_ATTR_PACKET, frame),
                attr(OVS_PACKET_ATTR_KEY, [attr(K_IN_PORT, u32(p))]),
                attr(OVS_PACKET_ATTR_ACTIONS, [attr(A_USERSPACE, [
                    attr(U_PID, u32(w.upcall_pid)),
                    attr(U_USERDATA, ud)])])])
            want = errno.EINVAL if p >= DP_MAX_PORTS else 0
            if err != want:
                w.fail("port-limits", "execute with in_port %d: errno %d, "
                       "Linux %d" % (p, err, want))
            self.check_in_port(dp, tag, p if not err else None)
        elif where == 2:
            # A flow's in_port.
            key = [attr(K_IN_PORT, u32(p)), attr(K_ETHERNET, bytes(12)),
                   attr(K_ETHERTYPE, be16(0x88b5))]
            err, _ = w.flow_request(dp, OVS_FLOW_CMD_NEW, [
                attr(OVS_FLOW_ATTR_KEY, key),
                attr(OVS_FLOW_ATTR_ACTIONS, [])], echo=False)
            want = errno.EINVAL if p >= DP_MAX_PORTS else 0
            if err not in (want, errno.EEXIST):
                w.fail("port-limits", "flow NEW with in_port %d: errno %d, "
                       "Linux %d" % (p, err, want))
            if not err:
                w.flow_request(dp, OVS_FLOW_CMD_DEL,
                               [attr(OVS_FLOW_ATTR_KEY, key)], echo=False)
        else:
            # output and the egress tunnel port.
            acts = [attr(A_OUTPUT, u32(p))]
            if r.random() < 0.5:
                acts = [attr(A_USERSPACE, [
                    attr(U_PID, u32(w.upcall_pid)),
                    attr(U_USERDATA, w.userdata_tag(r, dp, None)),
                    attr(U_EGRESS_TUN_PORT, u32(p))])]
            frame = seeds.tagged_packet(r, w.frame_tag(), 60)
            dp.reg.frames[frame_tag(frame)] = (frame, True, None)
            err, _ = w.execute(dp, [attr(OVS_PACKET_ATTR_PACKET, frame),
                                    attr(OVS_PACKET_ATTR_KEY, []),
                                    attr(OVS_PACKET_ATTR_ACTIONS, acts)])
            limit = (DP_MAX_PORTS if acts[0][0] == A_OUTPUT else
                     w.egress_port_limit)
            want = errno.EINVAL if p >= limit else 0
            if err != want:
                w.fail("port-limits", "execute of %s(%d): errno %d, Linux "
                       "%d" % ("output" if acts[0][0] == A_OUTPUT else
                               "userspace with egress tunnel port", p,
                               err, want))
            w.drain()

    def check_in_port(self, dp, tag, port):
        """Drains; the upcalls of frame 'tag' must carry in_port 'port'
        (None: the execute failed, no upcall)."""
        w = self.world
        for data in w.up.pending():
            if data is None:
                continue
            for check, msg in w.checker.check(data):
                w.fail(check, msg)
            if port is None or len(data) < 24:
                continue
            a = dict(decode_list(data[24:]))
            if frame_tag(a.get(OVS_PACKET_ATTR_PACKET, b"")) != tag:
                continue        # Not this frame's (the stack's own).
            k = dict(decode_list(a.get(OVS_PACKET_ATTR_KEY, b"")))
            got = get_u32(k[K_IN_PORT]) if K_IN_PORT in k else None
            if got != port:
                w.fail("port-limits", "upcall of an execute with in_port "
                       "%d carries in_port %s" % (port, got))

    # model: the flow table against Linux's.

    def shape_model(self):
        if self.model is None:
            self.model = ModelShape(self.world, self.dp("mod"))
        for _ in range(self.r.randrange(1, 8)):
            self.model.step(self.r)

    # meter: the meters against Linux's.

    def shape_meter(self):
        if self.world.fam["ovs_meter"] is None:
            return
        if self.meter is None:
            self.meter = MeterShape(self.world, self.dp("met"), self.args)
        for _ in range(self.r.randrange(1, 8)):
            self.meter.step(self.r)

    # ct: ct() and ct_clear on packets, ct keys in flows.

    def ct_ok(self, err, what, valid, expect=0):
        """Checks the answer to a request with ct(): 'expect' when it is
        'valid' (Linux's answer is known), else one of Linux's answers
        to a malformed ct() (ERANGE: a NAT nest with src and dst)."""
        if valid and err != expect and err != errno.EEXIST:
            if not expect:
                self.world.refused(what, err)
            else:
                self.world.fail("ct-errno", "%s: errno %d, Linux's %d"
                                % (what, err, expect))
        elif err not in (0, errno.EINVAL, errno.ERANGE, errno.EEXIST):
            self.world.fail("ct-errno", "%s: errno %d" % (what, err))

    def shape_ct(self):
        dp = self.dp("ct")
        w = self.world
        r = self.r
        for _ in range(r.randrange(1, 6)):
            v6 = r.random() < 0.4
            valid = r.random() < 0.5
            expect = 0
            if valid:
                ct = [attr(CT_ZONE, u16(r.choice([0, 3, 65535])))]
                if r.random() < 0.5:
                    ct += [attr(CT_COMMIT, b""),
                           attr(CT_MARK, u32(1) + u32(0xff)),
                           attr(CT_LABELS, b"\1" + bytes(15) + b"\xff" +
                                bytes(15)),
                           attr(CT_EVENTMASK, u32(0x487))]
                if r.random() < 0.3:
                    ct.append(attr(CT_TIMEOUT, b"ovs_test_tp\0"))
                if r.random() < 0.5:
                    # A NAT nest, valid or not, anywhere in the list: src
                    # and dst need the COMMIT to come before it.
                    at = r.randrange(len(ct) + 1)
                    commit = any(t == CT_COMMIT for t, _ in ct[:at])
                    nat, expect = seeds.nat_nest(r, v6, commit)
                    ct.insert(at, nat)
                acts = [attr(A_CT, ct)]
            else:
                acts = [seeds.ct_action(r) for _ in range(r.randrange(1, 3))]
            if r.random() < 0.3:
                acts.insert(r.randrange(len(acts) + 1), attr(A_CT_CLEAR, b""))
            acts.append(r.choice([attr(A_RECIRC, u32(r.randrange(4))),
                                  attr(A_USERSPACE,
                                       [attr(U_PID, u32(w.upcall_pid))])]))
            eth = (attr(K_ETHERNET, seeds.mac(r) + seeds.mac(r)),)
            if v6:
                l3 = [attr(K_ETHERTYPE, be16(0x86dd)),
                      attr(K_IPV6, b"\xfd" + bytes(14) + b"\1" + b"\xfd" +
                           bytes(14) + b"\2" + be32(0) + u8(17) + u8(0) +
                           u8(64) + u8(0)),
                      attr(K_UDP, be16(1) + be16(2))]
            else:
                l3 = [attr(K_ETHERTYPE, be16(0x0800)),
                      attr(K_IPV4, be32(0x0a000001) + be32(0x0a000002) +
                           u8(6) + u8(0) + u8(64) + u8(0)),
                      attr(K_TCP, be16(1) + be16(2)),
                      attr(K_TCP_FLAGS, be16(0x02))]
            key = [attr(K_RECIRC_ID, u32(0)), attr(K_IN_PORT, u32(1))]
            ct_key = seeds.ct_key(r) if r.random() < 0.5 else []
            key += ct_key + list(eth) + l3
            err, _ = w.flow_request(dp, OVS_FLOW_CMD_NEW,
                                    [attr(OVS_FLOW_ATTR_KEY, key),
                                     attr(OVS_FLOW_ATTR_ACTIONS, acts)],
                                    NLM_F_CREATE, echo=r.random() < 0.5)
            # A valid action on a key with conntrack attributes may be
            # refused for the key (a ct_state ct() never sets, an
            # original tuple of the other family).
            self.ct_ok(err, "flow with ct()", valid and not ct_key, expect)
            frame = seeds.tagged_packet(r, w.frame_tag())
            err, _ = w.execute(dp, [attr(OVS_PACKET_ATTR_PACKET, frame),
                                    attr(OVS_PACKET_ATTR_KEY,
                                         seeds.execute_key(r)),
                                    attr(OVS_PACKET_ATTR_ACTIONS, acts)])
            self.ct_ok(err, "execute with ct()", False)
        if r.random() < 0.3:
            w.flush(dp)
        w.drain()

    # ct_limit: the namespace's zone limits against Linux's.

    def shape_ct_limit(self):
        if self.world.fam["ovs_ct_limit"] is None:
            return
        if self.ct_limit is None:
            self.ct_limit = CtLimitShape(self.world, self.args)
        for _ in range(self.r.randrange(1, 8)):
            self.ct_limit.step(self.r)
        # No limit outlives the turn: the ct shape's commits, in the same
        # namespace, would meet them.
        self.ct_limit.clear()

    # userns: the same, unprivileged.

    def shape_userns(self):
        seed = self.r.getrandbits(32)
        shapes = (self.args.child_shapes
                  or [s for s in self.shapes if s in CHILD_SHAPES]
                  or list(CHILD_SHAPES))
        seconds = self.r.choice([1, 2, 4])
        self.counts["children"] += 1
        ok = run_child(self, seed, seconds, "userns", shapes)
        if not ok:
            self.counts["child-failed"] += 1

    # netns: namespaces, devices and vports made and deleted.

    def shape_netns(self):
        n = self.r.choice([1, 2, 3])
        kids = []
        for i in range(n):
            seed = self.r.getrandbits(32)
            kids.append(start_child(self, seed, 0, "netns", []))
            self.counts["children"] += 1
        for k in kids:
            if not finish_child(self, k):
                self.counts["child-failed"] += 1


# Children: a fork that runs in namespaces of its own and reports back
# on a pipe.

def start_child(parent, seed, seconds, kind, shapes):
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        status = 1
        report = Report(parent.args.keep_going, parent.args.show)
        stats = {}
        counts = {}
        try:
            if kind == "userns":
                status = child_userns(parent.args, seed, seconds, shapes,
                                      report, stats, counts)
            else:
                status = child_netns(parent.args, seed, report, stats,
                                     counts)
        except Stop:
            status = 1
        except Exception as e:  # noqa: B902 (a child reports anything)
            try:
                report.fail("child", "%s child (seed %d): %s: %s"
                            % (kind, seed, type(e).__name__, e))
            except Stop:
                pass
            status = 1
        out = json.dumps({"failures": report.failures,
                          "stats": [[list(k), v] for k, v in stats.items()],
                          "counts": counts}).encode()
        try:
            os.write(wfd, out)
        except OSError:
            pass
        os._exit(status)
    os.close(wfd)
    return (pid, rfd, kind, seed, time.monotonic())


def finish_child(parent, child, timeout=120):
    pid, rfd, kind, seed, start = child
    data = b""
    deadline = start + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            os.close(rfd)
            parent.report.fail("child-hang", "%s child (seed %d) did not "
                               "finish in %d s" % (kind, seed, timeout))
            return False
        ready, _, _ = select.select([rfd], [], [], min(left, 1))
        if ready:
            chunk = os.read(rfd, 1 << 16)
            if not chunk:
                break
            data += chunk
    os.close(rfd)
    _, status = os.waitpid(pid, 0)
    try:
        res = json.loads(data.decode() or "{}")
    except ValueError:
        res = {}
    for k, v in res.get("stats", []):
        k = tuple(k)
        parent.stats[k] = parent.stats.get(k, 0) + v
    for k, v in res.get("counts", {}).items():
        parent.counts[k] = parent.counts.get(k, 0) + v
    failures = res.get("failures", {})
    if failures:
        parent.report.merge(failures)
        if not parent.args.keep_going:
            raise Stop("%s child (seed %d) failed: %s"
                       % (kind, seed, parent.report.first))
    if os.WIFSIGNALED(status) or (os.WIFEXITED(status) and
                                  os.WEXITSTATUS(status) and not failures):
        parent.report.fail("child", "%s child (seed %d) ended with status "
                           "%#x" % (kind, seed, status))
        return False
    return not failures


def run_child(parent, seed, seconds, kind, shapes):
    return finish_child(parent, start_child(parent, seed, seconds, kind,
                                            shapes))


def child_userns(args, seed, seconds, shapes, report, stats, counts):
    import random
    become_nobody(net=False)
    unshare(CLONE_NEWNET)
    if args.verbose:
        with open("/proc/self/uid_map") as f:
            print("userns child (seed %d): uid %d, uid_map %r, shapes %s"
                  % (seed, os.getuid(), f.read().strip(), ",".join(shapes)),
                  flush=True)
    r = random.Random(seed)
    runner = Runner(args, r, report, stats, "u", shapes)
    runner.world.rt.link_up("lo")
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            runner.turn()
        runner.end()
    finally:
        counts.update(runner.counts)
        counts.update({"userns-requests": runner.world.sent})
    return 0


def ns_fd():
    return os.open("/proc/self/ns/net", os.O_RDONLY)


def peer_of(dev):
    """The other end of veth 'dev' (va<i> in A, vb<i> in B)."""
    if dev.startswith("va"):
        return "vb" + dev[2:]
    if dev.startswith("vb"):
        return "va" + dev[2:]
    return None


def child_netns(args, seed, report, stats, counts):
    """Two namespaces A and B, a datapath in each; veth pairs from A to
    B, attached on both sides (port numbers at the limits); an internal
    port of A moved into B; frames sent into every attached device (each
    must come up as a MISS of the right datapath with the right in_port,
    byte for byte) and executes that output into them; then ports,
    devices, datapaths and B deleted in random order."""
    import random
    r = random.Random(seed)
    if r.random() < 0.5:
        become_nobody(net=False)
    unshare(CLONE_NEWNET)
    fd_a = ns_fd()
    wa = World(report, stats, "a")
    wa.rt.link_up("lo")
    unshare(CLONE_NEWNET)
    fd_b = ns_fd()
    wb = World(report, stats, "b")
    wb.rt.link_up("lo")
    setns(fd_a)
    dpa = wa.dp_create("nsa")
    dpb = wb.dp_create("nsb")
    if dpa is None or dpb is None:
        report.fail("child", "netns: cannot create the datapaths")
        return 1
    ns_of = {}                  # Device: the fd of its namespace.
    attached = {}               # Device: (world, datapath, port).
    for i in range(r.choice([1, 2, 3])):
        a, b = "va%d" % i, "vb%d" % i
        if wa.link_add(a, "veth", peer=b):
            continue
        wa.rt.transact_raw(RTM_NEWLINK, ifinfomsg(
            socket.if_nametoindex(b)) + encode(
                [attr(IFLA_NET_NS_FD, u32(fd_b))]))
        setns(fd_b)
        wb.rt.link_up(b)
        setns(fd_a)
        ns_of[a], ns_of[b] = fd_a, fd_b
        for world, dp, dev in ((wa, dpa, a), (wb, dpb, b)):
            if r.random() < 0.8:
                err, port = world.vport_new(dp, dev, OVS_VPORT_TYPE_NETDEV,
                                            world.free_port_no(dp, r))
                if not err:
                    attached[dev] = (world, dp, port)
    # An internal port of A, moved into B (or not).
    err, iport = wa.vport_new(dpa, "ia0", OVS_VPORT_TYPE_INTERNAL,
                              wa.free_port_no(dpa, r))
    if not err:
        attached["ia0"] = (wa, dpa, iport)
        ns_of["ia0"] = fd_a
        wa.rt.link_up("ia0")
        if r.random() < 0.7:
            wa.rt.transact_raw(RTM_NEWLINK, ifinfomsg(
                socket.if_nametoindex("ia0")) + encode(
                    [attr(IFLA_NET_NS_FD, u32(fd_b))]))
            setns(fd_b)
            wb.rt.link_up("ia0")
            setns(fd_a)
            ns_of["ia0"] = fd_b

    sent = 0
    for _ in range(r.randrange(3, 12)):
        x = r.random()
        devs = sorted(attached)
        if x < 0.6 and devs:
            # A frame into an attached device, sent from its peer (or,
            # for the internal port, from the device itself).
            dev = r.choice(devs)
            world, dp, port = attached[dev]
            src = peer_of(dev) or dev
            frame = seeds.tagged_packet(r, world.frame_tag(), 60)
            dp.reg.frames[frame_tag(frame)] = (frame, True, port)
            setns(ns_of[src])
            try:
                s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
                s.bind((src, 0))
                s.send(frame)
                s.close()
                sent += 1
            except OSError:
                pass
            setns(fd_a)
        elif x < 0.8 and devs:
            # An execute that outputs into an attached device: the frame
            # comes up from its peer, if that is attached.
            dev = r.choice(devs)
            world, dp, port = attached[dev]
            frame = seeds.tagged_packet(r, world.frame_tag(), 60)
            peer = attached.get(peer_of(dev))
            if peer:
                peer[1].reg.frames[frame_tag(frame)] = (frame, True,
                                                        peer[2])
            world.execute(dp, [attr(OVS_PACKET_ATTR_PACKET, frame),
                               attr(OVS_PACKET_ATTR_KEY, []),
                               attr(OVS_PACKET_ATTR_ACTIONS,
                                    [attr(A_OUTPUT, u32(port))])])
        elif x < 0.9 and devs:
            # A vport deleted, or its device (the module must let go).
            dev = r.choice(devs)
            world, dp, port = attached.pop(dev)
            if r.random() < 0.5:
                world.vport_del(dp, port)
            else:
                setns(ns_of[dev])
                rt = Route()
                rt.link_del(dev)
                rt.close()
                setns(fd_a)
                attached.pop(peer_of(dev), None)
        else:
            time.sleep(0.01)
    time.sleep(0.2)
    for world in (wa, wb):
        world.drain()
    counts["netns-frames"] = sent
    # The end: B's datapath deleted or left to die with B.
    if r.random() < 0.5:
        wb.dp_delete(dpb)
    wb.close()
    os.close(fd_b)
    if not wa.dp_alive(dpa):
        report.fail("dp-dead", "netns: datapath nsa stopped answering")
    if r.random() < 0.5:
        wa.dp_delete(dpa)
    wa.close()
    return 0

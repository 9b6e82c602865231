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

"""Fuzzes the kernel datapath through its generic-netlink families.

Usage: kernel-netlink-fuzz.py [--seconds N] [--seed S] [--shapes LIST]
                              [--keep-going] [--mutate P] [-v]

For N seconds, runs families of requests ("shapes", tests/kernel_fuzz/
shapes.py) against the loaded module over raw netlink sockets: mutations
of valid flow and execute requests (mutate), recirculation chains with
nesting 16 deep (recirc), egress tunnel keys with Geneve options of every
length (tunnel), port numbers at the limits (ports), a model of the flow
table as Linux 6.1 keeps it (model), the meter family's requests and
packets through meters against a model of Linux's meters (meter), the
zone limit family's requests against a model of Linux's (ct_limit), all
of these again as uid 65534 in a user namespace of its own (userns),
and namespaces with datapaths, veths and moved ports made and deleted
under traffic (netns).  --shapes takes a comma-separated list of them
(default: all).

Every upcall that comes back is checked for bytes no request put there
(tests/kernel_fuzz/upcalls.py), every flow reply and dump against the
model, every meter reply and metered packet against the meters' model,
every zone limit reply against the zone limits' model, port numbers against what Linux answers, and the kernel log for
WARNING, BUG, Oops and the like every 10 s and at the end.  A check that
fails stops the run (--keep-going: counts every failure, by check, and
starts the model over after each).

Exit status: 0 if every check passed; 1 otherwise (the failed checks,
the seed and the time are printed); 77 if there is no ovs_datapath
family (no module loaded).

Run it as root in a guest (tests/qemu/kernel-guest.sh), never on a host
whose kernel you care about: it is meant to find the bugs that crash
one.  Only the standard library is used (no pyroute2, no scapy).
"""

import argparse
import errno
import os
import random
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from kernel_fuzz.shapes import Runner, SHAPES, CHILD_SHAPES  # noqa: E402
from kernel_fuzz.world import Report, Stop  # noqa: E402

# What the kernel log must not say (what tests/qemu/kernel-guest-run.sh
# looks for, and more).
KERNEL_BAD = ("WARNING:", "BUG:", "Oops", "general protection",
              "Call Trace:", "INFO: rcu", "blocked for more than",
              "kernel BUG", "refcount_t:", "UBSAN:", "list_add corruption",
              "list_del corruption", "stack-protector", "double free",
              "Bad page", "RIP:", "stack guard page")

# Linux 6.1's own false positive: tun_dst_unclone()
# (include/net/dst_metadata.h:164) copies a tunnel key and its options,
# which metadata_dst_alloc() placed right after it, in one memcpy() into
# the 88-byte field; FORTIFY_SOURCE warns once a boot.  Every
# userspace action with an egress tunnel port after set(tunnel()) with
# options reaches it through dev_fill_metadata_dst() in Debian's
# openvswitch.ko (ours copies the options apart).  With that module, its
# report, from this line to the end of its trace, is not counted.
KERNEL_KNOWN = ('detected field-spanning write', 'include/net/dst_metadata.h')
KERNEL_KNOWN_MODULE = "/sys/module/openvswitch"

# Modules the tunnel and netns shapes make devices of.
LINK_MODULES = ("geneve", "vxlan", "ip_gre", "veth", "dummy")


def kernel_log():
    try:
        return subprocess.run(["dmesg"], capture_output=True, text=True,
                              check=False).stdout.splitlines()
    except OSError:
        return []


def uptime():
    """The kernel's uptime, as its log stamps lines."""
    try:
        with open("/proc/uptime") as f:
            return f.read().split()[0]
    except OSError:
        return "?"


def kernel_bad(lines):
    """The lines of 'lines' that say the kernel went wrong, but for the
    report of KERNEL_KNOWN."""
    out = []
    known = False
    for line in lines:
        if (os.path.isdir(KERNEL_KNOWN_MODULE)
                and all(k in line for k in KERNEL_KNOWN)):
            known = True
        if known:
            if "---[ end trace" in line:
                known = False
            continue
        if any(b in line for b in KERNEL_BAD):
            out.append(line)
    return out


def parse_shapes(text):
    if text in ("all", ""):
        return list(SHAPES)
    out = []
    for s in text.split(","):
        s = s.strip()
        if s not in SHAPES:
            raise argparse.ArgumentTypeError(
                "unknown shape %r (shapes: %s)" % (s, ", ".join(SHAPES)))
        out.append(s)
    return out


def parse_child_shapes(text):
    out = parse_shapes(text)
    for s in out:
        if s not in CHILD_SHAPES:
            raise argparse.ArgumentTypeError(
                "a child cannot run %r (child shapes: %s)"
                % (s, ", ".join(CHILD_SHAPES)))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int,
                        default=int.from_bytes(os.urandom(4), "little"))
    parser.add_argument("--shapes", type=parse_shapes, default="all",
                        help="comma-separated shapes: %s (default: all)"
                        % ", ".join(SHAPES))
    parser.add_argument("--child-shapes", type=parse_child_shapes,
                        default=None,
                        help="the shapes the userns child runs (default: "
                        "those of --shapes it can run, else all of %s)"
                        % ", ".join(CHILD_SHAPES))
    parser.add_argument("--dp", default="fz",
                        help="prefix of the datapaths' and devices' names")
    parser.add_argument("--mutate", type=float, default=0.7,
                        help="share of the mutate shape's requests mutated "
                        "(the rest are valid seeds, which reach the "
                        "actions)")
    parser.add_argument("--keep-going", action="store_true",
                        help="count every failed check instead of stopping "
                        "at the first")
    parser.add_argument("--show", type=int, default=3,
                        help="messages printed by failed check")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()

    for m in LINK_MODULES:
        subprocess.run(["modprobe", "-q", m], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    before = start_log = len(kernel_log())
    report = Report(args.keep_going, args.show)
    stats = {}
    r = random.Random(args.seed)
    try:
        runner = Runner(args, r, report, stats, args.dp, args.shapes)
    except RuntimeError as e:
        print("kernel-netlink-fuzz: %s" % e, file=sys.stderr)
        return 77
    print("kernel-netlink-fuzz: seed %d, %g s, shapes %s, from uptime %s s"
          % (args.seed, args.seconds, ",".join(args.shapes), uptime()),
          flush=True)

    start = time.monotonic()
    end = start + args.seconds
    next_look = start + 10
    turns = 0
    stopped = None
    try:
        while time.monotonic() < end:
            runner.turn()
            turns += 1
            now = time.monotonic()
            if now >= next_look:
                next_look = now + 10
                log = kernel_log()
                bad = kernel_bad(log[before:])
                before = len(log)
                if bad:
                    report.fail("kernel-log", bad[0])
                c = runner.world.checker.counts
                print("kernel-netlink-fuzz: %d s, %d requests, %d upcalls "
                      "checked (%d strict)" % (now - start,
                                               runner.world.sent,
                                               c["miss"] + c["action"],
                                               c["strict"]), flush=True)
        runner.report.context = "the end"
        runner.end()
    except Stop as e:
        stopped = str(e)
    except (TimeoutError, socket.timeout) as e:
        try:
            report.fail("no-reply", "%s" % (e or type(e).__name__))
        except Stop as e2:
            stopped = str(e2)
    elapsed = time.monotonic() - start

    new = kernel_log()[start_log:]
    bad = kernel_bad(new)
    if bad:
        try:
            report.fail("kernel-log", bad[0])
        except Stop:
            pass

    w = runner.world
    print("kernel-netlink-fuzz: %d requests in %.0f s (%d turns), replies:"
          % (w.sent, elapsed, turns))
    for what in sorted(stats, key=str):
        family, cmd, err = what
        name = errno.errorcode.get(err, str(err)) if err else "ok"
        print("  %-12s cmd %d  %-10s %d" % (family, cmd, name, stats[what]))
    print("  upcalls: %s" % ", ".join("%s %d" % kv for kv in
                                      sorted(w.checker.counts.items())))
    print("  shapes: %s" % ", ".join("%s %d" % kv for kv in
                                     sorted(runner.counts.items())))
    if args.verbose:
        print("\n".join(new[-40:]))
    if not report.failures:
        print("kernel-netlink-fuzz: ok (seed %d)" % args.seed)
        return 0
    print("kernel-netlink-fuzz: FAILED after %.1f s, request %d (seed %d, "
          "shapes %s)" % (elapsed, w.sent, args.seed,
                          ",".join(args.shapes)))
    for check in sorted(report.failures):
        count, msgs = report.failures[check]
        print("  %s: %d" % (check, count))
        for m in msgs:
            print("    " + m.replace("\n", "\n      "))
    if stopped and w.last:
        print("last request: family %s cmd %d payload %s"
              % (w.last[0], w.last[1], w.last[2].hex()))
    if bad:
        print("\n".join(bad[:40]))
    return 1


if __name__ == "__main__":
    sys.exit(main())

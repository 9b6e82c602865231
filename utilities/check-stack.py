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

"""The kernel datapath's stack budget.

Usage: check-stack.py [-v] DATAPATH_DIR

Reads the call graph and the stack frame of every function that gcc wrote
while it compiled the module (datapath/Kbuild compiles with
-fcallgraph-info=su: one FILE.ci per object, in VCG form), and computes,
for every function the kernel calls into the module (a function no function
of the module calls), the deepest stack that a chain of the module's own
calls can reach from it.  Calls out of the module count nothing: the
budget is the module's share of the stack, and the kernel's own paths
around it (the receive path below, the transmit path above) keep the rest.

Recursion is allowed only where the module bounds it: every cycle of the
call graph must pass through a function of CYCLE_BOUNDS, and the check
lets a chain hold each of them at most as many times as its bound, which
this script derives from the same constants as the code.  A cycle that
avoids them, a function with a stack frame of unbounded size, or an
indirect call from a function that INDIRECT_TARGETS does not list fails
the check, as does any chain deeper than BUDGET_BYTES.

It prints the deepest chain, the bounds it used and the deepest roots;
with -v, or when over the budget, the deepest chain frame by frame.
Exit status: 0 when every chain fits, 1 otherwise (each failure printed),
77 when there is no call graph (the module was not built).
"""

import argparse
import glob
import os
import re
import sys

# x86_64's THREAD_SIZE without KASAN (arch/x86/include/asm/page_64_types.h:
# 16 KiB); softirqs run on an IRQ stack of the same size.
KERNEL_STACK_BYTES = 16384

# The module's share: 5 KiB, under a third of the kernel stack.  The
# receive path that calls into the module (a driver's NAPI poll,
# netif_receive_skb, the rx handler) or the system call that sends it a
# request, and the transmit path it calls out to (dev_queue_xmit, a
# tunnel's encapsulation and the IP output path), need the rest, as they
# do for Linux's own openvswitch.ko.
BUDGET_BYTES = 5 * 1024
BUDGET_WHY = 'under a third of a %d-byte kernel stack' % KERNEL_STACK_BYTES

# The functions that an indirect call of the module may reach, by the
# function that makes the call.  A call whose target is the kernel's
# (rhashtable's hash and compare functions, a dst's output) lists none.
INDIRECT_TARGETS = {
    # struct ovsp_vport_ops (vport.h): every vport type's operations.
    'ovsp_vport_create': ['internal_create', 'netdev_create'],
    'ovsp_vport_destroy': ['internal_destroy', 'netdev_destroy'],
    'ovsp_vport_send': ['internal_send', 'netdev_send'],
    # Which vports go, and the vport mcgroup's notification of their
    # deletion (dp-notify.c).
    'detach_ports': ['vport_detached', 'vport_dev_in_net',
                     'ovsp_dp_notify_del'],
    # rhashtable's inline functions call the kernel's jhash and memcmp
    # through the table's parameters.
    '__rhashtable_insert_fast': [],
    '__rhashtable_remove_fast_one': [],
    'rht_key_get_hash': [],
    'mask_probe': [],
    'ovsp_flow_table_find_exact': [],
    # skb_dst(skb)->output, a device's ndo_fill_metadata_dst: the
    # kernel's.
    'ovsp_ipip_xmit': [],
    # A route's update_pmtu (skb_dst_update_pmtu_no_confirm()): the
    # kernel's.
    'send_frag_needed': [],
    'ovsp_dp_egress_tun_info': [],
    # The ovs_ct_limit family's walks of a request's entries and of the
    # namespace's zones (ct-limit-family.c, ct-limit.c).
    'ct_limit_walk_entries': ['ct_limit_set_one', 'ct_limit_del_one',
                                'ct_limit_get_one'],
    'ovsp_ct_limit_walk_zones': ['ct_limit_get_each'],
    # IPv6's fragmentation through ipv6_stub (vport-fragment.c): the
    # kernel's, which calls back the module's output of each fragment
    # (as ip_do_fragment(), a direct call, also does).
    'ovsp_frag_cut': ['ovsp_frag_send_one'],
}


def header_constant(datapath, source, name):
    """Returns the integer value of '#define NAME N' in SOURCE."""
    text = open(os.path.join(datapath, source)).read()
    m = re.search(r'^#define\s+%s\s+(\d+)' % name, text, re.M)
    if not m:
        sys.exit('check-stack: no #define %s in %s' % (name, source))
    return int(m.group(1))


def cycle_bounds(datapath):
    """The most times each recursive function can be on one stack, and
    why, from the constants the code bounds its recursion with."""
    levels = header_constant(datapath, 'actions.h', 'OVSP_RECURSION_LIMIT')
    # actions.c: OVSP_KEY_SLOTS is OVSP_RECURSION_LIMIT - 2; a nested list
    # or a recirculation runs directly, one level deeper, while the level
    # is at most that, so levels 1 to OVSP_KEY_SLOTS + 1 execute, each
    # with one ovsp_exec_list() frame, and one ovsp_actions_execute() frame
    # unless a nested list (not a recirculation) raised it.
    key_slots = levels - 2
    max_depth = header_constant(datapath, 'flow-actions.h',
                                'OVSP_ACTIONS_MAX_DEPTH')
    key_levels = header_constant(datapath, 'flow-netlink.c',
                                 'OVSP_KEY_LEVELS')
    return {
        'ovsp_exec_list': (key_slots + 1,
                           'once per level, levels 1 to OVSP_KEY_SLOTS + 1'),
        'ovsp_actions_execute': (key_slots + 1,
                                 'once per level, levels 1 to '
                                 'OVSP_KEY_SLOTS + 1'),
        # Validation: depth 0 to OVSP_ACTIONS_MAX_DEPTH, and one more call
        # that refuses.
        'ovsp_copy_actions': (max_depth + 2,
                              'OVSP_ACTIONS_MAX_DEPTH + 2 (one refuses)'),
        # Freeing actions walks the lists that validation accepted.
        'ovsp_actions_release': (max_depth + 1,
                                 'OVSP_ACTIONS_MAX_DEPTH + 1'),
        'ovsp_parse_level': (key_levels, 'OVSP_KEY_LEVELS'),
    }


NODE_RE = re.compile(r'node: \{ title: "([^"]*)" label: "([^"]*)"')
EDGE_RE = re.compile(r'edge: \{ sourcename: "([^"]*)" targetname: "([^"]*)"')


def base_name(title):
    """The function name of a node title: 'path/file.c:name.isra.0' gives
    'name'."""
    name = title.rsplit(':', 1)[-1]
    return name.split('.', 1)[0]


def read_graph(files):
    """Returns (frames, edges): the stack bytes and whether dynamic of
    every function defined in the module, by title, and its callees'
    titles."""
    frames = {}
    edges = {}
    for path in files:
        for line in open(path):
            m = NODE_RE.search(line)
            if m:
                title, label = m.groups()
                s = re.search(r'\\n(\d+) bytes \(([^)]*)\)', label)
                if s:
                    frames[title] = (int(s.group(1)), s.group(2))
                continue
            m = EDGE_RE.search(line)
            if m:
                edges.setdefault(m.group(1), []).append(m.group(2))
    return frames, edges


def resolve(frames, edges, errors):
    """Maps every call to the module's functions it may reach: a call by
    name to the function of that name, an indirect call to its declared
    targets; calls to the kernel disappear."""
    by_name = {}
    for title in frames:
        by_name.setdefault(base_name(title), []).append(title)
        # Global functions are called by plain name from other files.
        by_name.setdefault(title, [title])
    calls = {}
    for src in frames:
        out = set()
        for dst in edges.get(src, []):
            if dst == '__indirect_call':
                name = base_name(src)
                if name not in INDIRECT_TARGETS:
                    errors.append('%s makes an indirect call that '
                                  'INDIRECT_TARGETS does not declare'
                                  % name)
                    continue
                for target in INDIRECT_TARGETS[name]:
                    found = by_name.get(target)
                    if not found:
                        errors.append('%s: declared indirect target %s '
                                      'is not in the module'
                                      % (name, target))
                    out.update(found or [])
            elif dst in frames:
                out.add(dst)
            elif ':' not in dst and dst in by_name:
                out.update(by_name[dst])
        calls[src] = sorted(out)
    return calls


def check_cycles(frames, calls, bounds, errors):
    """Fails every cycle that avoids the bounded functions."""
    cut = set(t for t in frames if base_name(t) in bounds)
    state = {}

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for dst in calls[node]:
            if dst in cut:
                continue
            if state.get(dst) == 1:
                cycle = stack[stack.index(dst):] + [dst]
                errors.append('unbounded recursion: %s'
                              % ' -> '.join(base_name(t) for t in cycle))
            elif dst not in state:
                visit(dst, stack)
        stack.pop()
        state[node] = 2

    sys.setrecursionlimit(10000)
    for node in sorted(frames):
        if node not in state and node not in cut:
            visit(node, [])
    for node in sorted(cut):
        for dst in calls[node]:
            if dst not in cut and dst not in state:
                visit(dst, [])


def deepest(frames, calls, bounds):
    """Returns a function that gives the deepest chain from a function:
    (bytes, [titles])."""
    memo = {}

    def chain(node, used):
        name = base_name(node)
        if name in bounds:
            count = dict(used).get(name, 0)
            if count >= bounds[name][0]:
                return None
            used = tuple(sorted(dict(used, **{name: count + 1}).items()))
        key = (node, used)
        if key in memo:
            return memo[key]
        best = (0, [])
        for dst in calls[node]:
            sub = chain(dst, used)
            if sub and sub[0] > best[0]:
                best = sub
        result = (frames[node][0] + best[0], [node] + best[1])
        memo[key] = result
        return result

    return lambda node: chain(node, ())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('datapath')
    parser.add_argument('-v', '--verbose', action='store_true')
    args = parser.parse_args()

    files = sorted(glob.glob(os.path.join(args.datapath, '*.ci')))
    if not files:
        print('check-stack: no call graph in %s (build the module first)'
              % args.datapath)
        return 77
    errors = []
    bounds = cycle_bounds(args.datapath)
    frames, edges = read_graph(files)
    calls = resolve(frames, edges, errors)
    for title, (size, kind) in sorted(frames.items()):
        if 'dynamic' in kind and 'bounded' not in kind:
            errors.append('%s has a stack frame of unbounded size'
                          % base_name(title))
    names = set(base_name(t) for t in frames)
    for name in sorted(bounds):
        if name not in names:
            print('check-stack: note: %s is not a function of its own in '
                  'the compiled module (inlined); its bound is unused'
                  % name)
    check_cycles(frames, calls, bounds, errors)
    if errors:
        for e in errors:
            print('check-stack: FAIL: %s' % e)
        return 1

    called = set(dst for src in calls for dst in calls[src])
    roots = [t for t in frames if t not in called]
    depth = deepest(frames, calls, bounds)
    results = sorted(((depth(r), r) for r in roots), reverse=True)
    (worst, path), root = results[0]
    print('check-stack: deepest chain of the module\'s own calls: %d bytes '
          'from %s (budget %d, %s)'
          % (worst, base_name(root), BUDGET_BYTES, BUDGET_WHY))
    for name, (bound, why) in sorted(bounds.items()):
        print('check-stack:   %s at most %d deep: %s' % (name, bound, why))
    shown = results if args.verbose else results[:5]
    for (size, chain_), r in shown:
        print('check-stack:   %5d  %s' % (size, base_name(r)))
    over = worst > BUDGET_BYTES
    if over or args.verbose:
        print('check-stack: the deepest chain, frame by frame:')
        for t in path:
            print('check-stack:   %5d  %s' % (frames[t][0], base_name(t)))
    if over:
        print('check-stack: FAIL: %d bytes is over the budget of %d'
              % (worst, BUDGET_BYTES))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())

#!/bin/sh
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
#
# Usage: run-userspace-guest.sh [-o DIR] [-t SECONDS] LIST
#
# Runs the tests titled in LIST (one title a line, '#' starts a comment)
# of Open vSwitch's userspace system tests (tests/system-userspace-testsuite
# of the OVS tree, prebuilt) in the qemu guest of tests/qemu, whose
# Debian 6.1 kernel has the modules these tests create devices with
# (8021q, bonding, geneve, ip_gre, ip6_gre) and the development host's
# kernel may lack.  Stock's ovs-vswitchd and ours run the same tests at
# once in one boot, each test isolated (run-upstream.sh -i: a network and
# mount namespace of its own), one at a time on each side; no kernel
# datapath is loaded (datapath_type=netdev).
#
# Writes DIR/stock.txt and DIR/ours.txt ("NUM pass|fail|skip SECONDS
# TITLE" per test), the failed tests' logs in DIR/failed-stock/ and
# DIR/failed-ours/, and DIR/side-by-side.txt; prints the latter.  Fails
# when a test passes with stock's ovs-vswitchd and not with ours, or when
# either side recorded no result for a listed test.
#
# Options:
#   -o DIR      where the results go (default tests/upstream/userspace-guest)
#   -t SECONDS  the guest's timeout (default 7200)
#
# One guest at a time: run it under 'flock /tmp/ovs-percpu-guest.lock'.
set -e

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OVS_SRCDIR=${OVS_SRCDIR:-/var/cache/ovs-percpu/ovs-src}
OVS_BUILDDIR=${OVS_BUILDDIR:-/var/cache/ovs-percpu/ovs-build}
suite=system-userspace-testsuite

out=$top/tests/upstream/userspace-guest
timeout=7200
while getopts o:t: opt; do
    case $opt in
        o) out=$OPTARG ;;
        t) timeout=$OPTARG ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -ne 1 ] || [ ! -r "$1" ]; then
    echo "usage: $0 [-o DIR] [-t SECONDS] LIST" >&2
    exit 2
fi
[ -x "$OVS_SRCDIR/tests/$suite" ] || {
    echo "run-userspace-guest: no $OVS_SRCDIR/tests/$suite" >&2
    exit 77
}
if ! grep -qv '^ *\(#.*\)\{0,1\}$' "$1"; then
    echo "run-userspace-guest: FAILED: no test listed in $1"
    exit 1
fi

mkdir -p "$out"
out=$(cd "$out" && pwd -P)
rm -rf "$out/failed-stock" "$out/failed-ours" "$out/stock.txt" \
    "$out/ours.txt" "$out/side-by-side.txt"
# The guest sees $out wherever the list came from.
[ "$1" -ef "$out/selection.txt" ] || cp "$1" "$out/selection.txt"

# In the guest: both sides at once; each side's own status is not ours
# (a must-pass run fails on any failure), its times file is.
guest_command='
    "$1/run-upstream.sh" -s '$suite' -i -j 1 -c "$2/selection.txt" \
        -P "$OVS_BUILDDIR/vswitchd" -T "$2/stock.txt" -L "$2/failed-stock" \
        > "$2/stock.log" 2>&1 &
    stock=$!
    "$1/run-upstream.sh" -s '$suite' -i -j 1 -c "$2/selection.txt" \
        -T "$2/ours.txt" -L "$2/failed-ours" > "$2/ours.log" 2>&1 || true
    wait $stock || true
'
status=0
KERNEL_GUEST_DATAPATH=none "$top/tests/qemu/kernel-guest.sh" \
    -t "$timeout" -m 2048 -w "$out" -l "$out/console.log" \
    -e OVS_SRCDIR="$OVS_SRCDIR" -e OVS_BUILDDIR="$OVS_BUILDDIR" \
    -e PERCPU_BUILDDIR="$top" \
    -- sh -c "$guest_command" guest "$here" "$out" || status=$?
if [ $status -ne 0 ]; then
    echo "run-userspace-guest: FAILED: the guest exited with $status"
    [ $status -eq 77 ] && exit 77
    exit 1
fi

# One line per listed title: stock's result, ours, and the verdict.
touch "$out/stock.txt" "$out/ours.txt"
awk -v stock="$out/stock.txt" -v ours="$out/ours.txt" '
    FILENAME == stock || FILENAME == ours {
        title = $0
        sub(/^[0-9]+ [a-z]+ [0-9]+ /, "", title)
        result[FILENAME, title] = $2
        next
    }
    /^ *(#|$)/ { next }
    {
        s = result[stock, $0]; o = result[ours, $0]
        if (s == "") s = "none"
        if (o == "") o = "none"
        verdict = "same"
        if (s == "none" || o == "none") verdict = "NO RESULT"
        else if (s == "pass" && o != "pass") verdict = "WORSE"
        else if (s != "pass" && o == "pass") verdict = "better"
        else if (s != o) verdict = "differs"
        printf "%-5s %-5s %-9s %s\n", s, o, verdict, $0
    }' "$out/stock.txt" "$out/ours.txt" "$out/selection.txt" \
    > "$out/side-by-side.txt"
echo "stock ours  verdict   test"
cat "$out/side-by-side.txt"
echo "run-userspace-guest: stock $(grep -c ' pass ' "$out/stock.txt" || true)" \
     "passed, ours $(grep -c ' pass ' "$out/ours.txt" || true) passed" \
     "of $(wc -l < "$out/side-by-side.txt") ($out)"
if grep -q ' \(WORSE\|NO RESULT\) ' "$out/side-by-side.txt" ||
   [ ! -s "$out/side-by-side.txt" ]; then
    echo "run-userspace-guest: FAILED: a test stock passes fails with ours," \
         "or a side recorded no result"
    exit 1
fi

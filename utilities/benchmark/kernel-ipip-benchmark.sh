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
# Usage: kernel-ipip-benchmark.sh [-r ROUNDS] [-s SECONDS] [-o DIR]
#
# TCP and request/response through the kernel datapath's ipip port in the
# qemu/TCG guest (2 vCPUs), from a Linux ipip peer in another namespace:
# our per-CPU GRO cells against one shared cell (the ablation switch),
# against GRO off, and against the guest kernel's own ipip device with IP
# forwarding (no OVS).  Prints the medians' ratios in one run;
# utilities/benchmark/kernel-ipip-benchmark-guest.sh says what each test does.
# Raw figures: DIR/raw.txt (default /tmp/ovs-percpu-kernel-ipip-bench).
#
# TCG emulates the CPUs: absolute figures mean nothing, only ratios
# between variants measured in the same guest, where they hold across
# rounds.

set -e

rounds=3
seconds=5
out=/tmp/ovs-percpu-kernel-ipip-bench
args="$*"
while getopts r:s:o: opt; do
    case $opt in
        r) rounds=$OPTARG ;;
        s) seconds=$OPTARG ;;
        o) out=$OPTARG ;;
        *) exit 2 ;;
    esac
done
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/utilities/benchmark/benchmark-common.sh"
"$top/utilities/build.sh" > /dev/null

rm -rf "$out"
mkdir -p "$out"
benchmark_header kernel-ipip-benchmark $args
echo "guest: qemu TCG, 2 vCPUs, 1 GiB; $rounds rounds of ${seconds}-second tests"

status=0
flock /tmp/ovs-percpu-guest.lock "$top/tests/qemu/kernel-guest.sh" \
    -t $((rounds * (240 + 16 * seconds) + 180)) -w "$out" \
    -l "$out/console.log" -- \
    sh "$top/utilities/benchmark/kernel-ipip-benchmark-guest.sh" "$top" \
        "$out/raw.txt" "$rounds" "$seconds" 2> "$out/guest.err" \
    || status=$?
if [ $status -ne 0 ]; then
    cat "$out/guest.err" >&2
    exit $status
fi

echo
printf '%-6s %-46s %9s %9s %9s %9s\n' test "" percpu \
    percpu/shared percpu/nogro percpu/linux
for t in tcp1 tcp2 rr2; do
    case $t in
        tcp1) what="TCP Mbit/s, 1 stream, sender on CPU 0" ;;
        tcp2) what="TCP Mbit/s, 2 streams, a sender on each CPU" ;;
        rr2) what="64-byte request/response per s, 2 connections" ;;
    esac
    percpu=$(median_of "$out/raw.txt" percpu $t)
    printf '%-6s %-46s %9s %13s %12s %12s\n' $t "$what" "$percpu" \
        "$(ratio "$percpu" "$(median_of "$out/raw.txt" shared $t)")" \
        "$(ratio "$percpu" "$(median_of "$out/raw.txt" nogro $t)")" \
        "$(ratio "$percpu" "$(median_of "$out/raw.txt" linux $t)")"
done
echo
echo "segments queued per packet handed up (tcp2): percpu" \
    "$(median_of "$out/raw.txt" percpu merge)," \
    "shared $(median_of "$out/raw.txt" shared merge)"
if [ -s "$out/guest.err" ]; then
    echo
    echo "notes from the guest:"
    grep -v ': round [0-9]*: ' "$out/guest.err" | sed 's/^/  /' || true
fi
echo "raw figures: $out/raw.txt"

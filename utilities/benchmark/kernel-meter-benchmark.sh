#!/bin/sh
# Measures the kernel module's meter action on the host's real cores:
# builds utilities/benchmark/kernel-meter-benchmark with datapath/meter.c
# compiled unchanged against the userspace stand-ins of
# utilities/benchmark/kernel-shim-meter.h, beside the design of Linux
# 6.1's meters (utilities/benchmark/kernel-meter-locked.c: one spinlock
# per meter for every packet, shared statistics and buckets), and runs
# them: one meter hit by a thread pinned to each core, with a rate no
# traffic reaches and with a rate every thread exceeds, packets per second
# and CPU time per packet of each on one core and on all, their ratios,
# and how many packets each let through against what the band allows
# (Documentation/kernel-datapath.md, "Meters").  The qemu/TCG guest cannot
# show what this shows: it emulates the CPUs' memory, not their caches.
#
# This is a measurement, not a test: the figures depend on the machine and
# on what else runs on it.  It fails only if a build fails, a meter lost
# a packet, or the module's meter let through more than its band allows.
#
# Usage: utilities/benchmark/kernel-meter-benchmark.sh [-r ROUNDS] [-s SECONDS]
#            [-c CORES]
#   -r, -s, -c  go to the program (rounds, seconds per run, cores to use)
set -e

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"

args=
while getopts r:s:c: opt; do
    case $opt in
    r|s|c) args="$args -$opt $OPTARG" ;;
    *) sed -n 's/^# \{0,1\}//; /^Usage:/,/^set -e/p' "$0" | sed '$d' >&2
       exit 1 ;;
    esac
done

tmp=$(mktemp -d /tmp/kernel-meter-benchmark.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

bench=utilities/benchmark
# As the kernel compiles it: optimized, not position-independent, no
# strict aliasing.  gcc's -Wuninitialized misreads meter_read()'s copy of
# the bands it fills (only the first n_bands), without the kernel's flags.
CC=${CC:-gcc}
CFLAGS="-std=gnu11 -O2 -fno-strict-aliasing -fno-pie -Wall -Wextra
    -Wno-sign-compare -Wno-unused-parameter -Wno-uninitialized"
SHIM="-I$bench/kernel-shim -I$bench"

# shellcheck disable=SC2086
$CC $CFLAGS $SHIM -Idatapath -no-pie -pthread -o "$tmp/benchmark" \
    datapath/meter.c $bench/kernel-meter-lock-free.c \
    $bench/kernel-meter-locked.c $bench/kernel-meter-benchmark.c \
    $bench/kernel-shim.c $bench/kernel-shim-meter.c

. "$top/utilities/benchmark/benchmark-common.sh"
benchmark_header kernel-meter-benchmark "$@"
echo "machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo \
                 | sort -u | head -1)"
echo "variants: lock-free from the work tree's datapath/meter.c, locked" \
     "from utilities/benchmark/kernel-meter-locked.c"
echo
# shellcheck disable=SC2086
"$tmp/benchmark" $args

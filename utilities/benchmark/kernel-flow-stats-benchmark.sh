#!/bin/sh
# Measures the kernel module's flow-stats update path on the host's real
# cores: builds utilities/benchmark/kernel-flow-stats-benchmark with
# datapath/flow-stats.c compiled unchanged against the userspace stand-ins
# of utilities/benchmark/kernel-shim.h, twice: the work tree's file
# (lock-free per-CPU slots, and the ablation switch's one slot under a
# lock) and the file of an older commit (per-CPU slots each under its own
# spinlock, as Linux's), and runs it: one flow hit by a thread pinned to
# each core, hits per second and CPU time per hit of each variant on one
# core and on all, and their ratios (Documentation/kernel-datapath.md,
# "Per-CPU flow statistics").  The qemu/TCG guest cannot show what this
# shows: it emulates the CPUs' memory, not their caches.
#
# This is a measurement, not a test: the figures depend on the machine and
# on what else runs on it.  It fails only if a build fails or a variant
# lost a hit.
#
# Usage: utilities/benchmark/kernel-flow-stats-benchmark.sh [-r ROUNDS]
#            [-s SECONDS] [-c CORES] [-o COMMIT]
#   -r, -s, -c  go to the program (rounds, seconds per run, cores to use)
#   -o COMMIT   the older file's commit (default: the last one whose slots
#               took a spinlock per hit); -o none leaves that variant out
set -e

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"

# The last commit whose datapath/flow-stats.c took each slot's spinlock on
# every hit.
old_commit=9162801
args=
while getopts r:s:c:o: opt; do
    case $opt in
    r|s|c) args="$args -$opt $OPTARG" ;;
    o) old_commit=$OPTARG ;;
    *) sed -n 's/^# \{0,1\}//; /^Usage:/,/^set -e/p' "$0" | sed '$d' >&2
       exit 1 ;;
    esac
done

tmp=$(mktemp -d /tmp/kernel-flow-stats-benchmark.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

bench=utilities/benchmark
# As the kernel compiles it: optimized, not position-independent, no
# strict aliasing.
CC=${CC:-gcc}
CFLAGS="-std=gnu11 -O2 -fno-strict-aliasing -fno-pie -Wall -Wextra
    -Wno-sign-compare -Wno-unused-parameter"
SHIM="-I$bench/kernel-shim -I$bench"

# build PREFIX DIR: compiles DIR/flow-stats.c (with DIR/flow-stats.h) and
# the variant table with flow-stats.h's functions prefixed by PREFIX.
build() {
    renames=$(sed -n 's/.*\(ovsp_flow_stats_[a-z_0-9]*\)(.*/\1/p' \
                  "$2/flow-stats.h" | sort -u \
              | sed "s/.*/-D&=$1&/" | tr '\n' ' ')
    # shellcheck disable=SC2086
    $CC $CFLAGS $SHIM -DKSHIM_PREFIX=$1 $renames -I"$2" \
        -c "$2/flow-stats.c" -o "$tmp/$1flow-stats.o"
    # shellcheck disable=SC2086
    $CC $CFLAGS $SHIM -DKSHIM_PREFIX=$1 $renames -I"$2" \
        -c $bench/kernel-flow-stats-variant.c -o "$tmp/$1variant.o"
    objects="$objects $tmp/$1flow-stats.o $tmp/$1variant.o"
}

objects=
build new_ datapath
locked="no locked variant"
if [ "$old_commit" != none ]; then
    mkdir "$tmp/old"
    if git show "$old_commit:datapath/flow-stats.c" > "$tmp/old/flow-stats.c" \
            2>/dev/null \
       && git show "$old_commit:datapath/flow-stats.h" \
              > "$tmp/old/flow-stats.h" 2>/dev/null; then
        build old_ "$tmp/old"
        locked="locked from $old_commit's"
    else
        locked="no locked variant: no datapath/flow-stats.c at $old_commit"
    fi
fi
# shellcheck disable=SC2086
$CC $CFLAGS $SHIM -Idatapath -no-pie -pthread -o "$tmp/benchmark" \
    $bench/kernel-flow-stats-benchmark.c $bench/kernel-shim.c $objects

. "$top/utilities/benchmark/benchmark-common.sh"
benchmark_header kernel-flow-stats-benchmark "$@"
echo "machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo \
                 | sort -u | head -1)"
echo "variants: lock-free and one-slot from the work tree's" \
     "datapath/flow-stats.c, $locked"
echo
# shellcheck disable=SC2086
"$tmp/benchmark" $args

#!/bin/sh
# Builds ovs-percpu if needed and measures conntrack of fragmented UDP:
# datagrams per second through ct(commit) with per-thread reassembly
# (lib/packet/ipf-cpu, the default) and with OVS's ipf.c
# (other_config:ct-frag-reassembly=ovs-ipf), on one thread and on two.
#
# A measurement, not a test: rates depend on the machine and its load.
# Exits non-zero only if a datagram was lost.
#
# Usage: utilities/benchmark/ct-frag-benchmark.sh [--seconds=N] [--size=BYTES]
set -e

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
./utilities/build.sh > /dev/null
. "$top/utilities/benchmark/benchmark-common.sh"
benchmark_header ct-frag-benchmark "$@"
utilities/benchmark/ct-frag-benchmark "$@" 2>/dev/null

#!/bin/sh
# Builds ovs-percpu if needed and measures IPv4 fragment reassembly
# (lib/packet/ipf-cpu): reassemblies per second on one thread, then on two
# threads at once, each thread with its own table, and the ratio of the two (ideal
# 2.0 on two free cores); once with each datagram's fragments in order, once
# reversed.  Each run also floods every thread with first fragments only and
# checks that no table holds more than its high threshold.
#
# This is a measurement, not a test: the rates depend on the machine and on
# what else runs on it.  The program exits non-zero only if a table dropped
# or lost a datagram it should have reassembled, or went over its threshold.
#
# Usage: utilities/benchmark/ipf-benchmark.sh [ipf-benchmark OPTIONS]
# e.g.   utilities/benchmark/ipf-benchmark.sh --seconds=3 --rounds=5 \
#            --size=9000
set -e

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
./utilities/build.sh > /dev/null

. "$top/utilities/benchmark/benchmark-common.sh"
benchmark_header ipf-benchmark "$@"
echo
utilities/benchmark/ipf-benchmark "$@"
echo
utilities/benchmark/ipf-benchmark --reverse "$@"

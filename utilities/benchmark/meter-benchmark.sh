#!/bin/sh
# Builds ovs-percpu if needed and measures the meter action (lib/dp-meter):
# nanoseconds per batch of 32 packets on one thread, on two threads with a
# meter each, and on two threads sharing one meter (whose token bucket they
# update with a compare-and-swap per batch), against a baseline without a
# meter in the same process; and, for comparison, the cost of a spinlock
# that two threads take for every batch, as a per-meter lock would be.
#
# This is a measurement, not a test: the figures depend on the machine and
# on what else runs on it.  The program exits non-zero only if the meter
# dropped a packet, which would make the figures count drops.
#
# Usage: utilities/benchmark/meter-benchmark.sh [--seconds=N]
set -e

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
./utilities/build.sh > /dev/null

. "$top/utilities/benchmark/benchmark-common.sh"
benchmark_header meter-benchmark "$@"
echo
utilities/benchmark/meter-benchmark "$@"

#!/bin/sh
# Measures iperf3 TCP throughput through the demo topology (two namespaces,
# one datapath_type=netdev bridge; see sandbox.sh) with our ovs-vswitchd and
# with stock OVS 3.1's, built from the same tree, alternately, and prints
# each run and the ratio of the medians.  This is a whole-system figure on
# this machine (switch and iperf3 share the cores), not a datapath
# micro-benchmark.
#
# Usage: iperf-vs-stock.sh [RUNS [SECONDS]]   (default 3 runs of 8 s)
set -e

runs=${1:-3}
seconds=${2:-8}
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/utilities/build.sh" > /dev/null
. "$top/utilities/sandbox.sh"
trap sandbox_cleanup EXIT

# Runs one measurement with the ovs-vswitchd in directory $1 and appends the
# receiver's Gbit/s to file $2.  Runs in this shell, not a subshell, so that
# the EXIT trap can clean up after a failure.
measure() {
    sandbox_init "$1" /tmp/ovs-percpu-iperf
    sandbox_start > /dev/null 2>&1
    sandbox_add_hosts > /dev/null
    ip netns exec demo-a ping -q -c 2 -i 0.2 10.99.0.2 > /dev/null
    sandbox_iperf "$seconds" > /tmp/ovs-percpu-iperf.out
    awk '/receiver/ {
        for (i = 1; i <= NF; i++) if ($i ~ /bits\/sec/) {
            v = $(i - 1); if ($i ~ /^Mbits/) v /= 1000; print v } }' \
        /tmp/ovs-percpu-iperf.out >> "$2"
    sandbox_cleanup
}

median() {
    sort -n | awk '{a[NR] = $1} END {if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}

: > /tmp/ovs-percpu-iperf.ours
: > /tmp/ovs-percpu-iperf.stock
for run in $(seq "$runs"); do
    measure "$top/vswitchd" /tmp/ovs-percpu-iperf.ours
    measure "$OVS_BUILDDIR/vswitchd" /tmp/ovs-percpu-iperf.stock
    echo "run $run: ovs-percpu $(tail -1 /tmp/ovs-percpu-iperf.ours) Gbit/s," \
         "stock OVS $(tail -1 /tmp/ovs-percpu-iperf.stock) Gbit/s" \
         "($port_kind ports)"
done
o=$(median < /tmp/ovs-percpu-iperf.ours)
s=$(median < /tmp/ovs-percpu-iperf.stock)
echo "median: ovs-percpu $o Gbit/s, stock OVS $s Gbit/s, ratio" \
     "$(awk -v o="$o" -v s="$s" 'BEGIN {printf "%.2f", o / s}')"
rm -f /tmp/ovs-percpu-iperf.ours /tmp/ovs-percpu-iperf.stock \
    /tmp/ovs-percpu-iperf.out

#!/bin/sh
# OVN on our switch against OVN on stock OVS 3.1, side by side: the
# two-chassis sandbox of ovn-sandbox.sh (--bench) with our ovs-vswitchd on
# both chassis, then with stock's, alternating for ROUNDS rounds; each
# round measures iperf3 TCP from h1 (hv1) to h2 (hv2), across the chassis
# through geneve and the logical router, for SECONDS, and TCP
# request/response latency on the same path (afpacket-rr.py, 2000
# transactions of 64 bytes).  Prints the medians and the ratios ours/stock
# (Documentation/ovn.md).  Run it under the system lock:
#
#   flock /tmp/ovs-percpu-system.lock \
#       utilities/benchmark/ovn-benchmark.sh [ROUNDS [SECONDS]]
set -e

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/utilities/benchmark/benchmark-common.sh"
rounds=${1:-3}
seconds=${2:-5}

benchmark_header ovn-benchmark "$@"
raw=$(mktemp /tmp/ovn-benchmark.XXXXXX)
trap 'rm -f "$raw"' EXIT
for round in $(seq "$rounds"); do
    for variant in ours stock; do
        if [ $variant = stock ]; then
            opt=--stock
        else
            opt=
        fi
        out=$("$top/utilities/ovn-sandbox.sh" $opt --bench "$seconds" 2>&1) \
            || { echo "$out"; exit 1; }
        mbps=$(echo "$out" | awk '$1 == "iperf3" {print $2}')
        rr=$(echo "$out" | awk '$1 == "rr" {print $4}')
        echo "$round $variant iperf3 $mbps" >> "$raw"
        echo "$round $variant rr_median_us $rr" >> "$raw"
        echo "round $round $variant: iperf3 $mbps Mbit/s, RR median $rr us"
    done
done
ours_tcp=$(median_of "$raw" ours iperf3)
stock_tcp=$(median_of "$raw" stock iperf3)
ours_rr=$(median_of "$raw" ours rr_median_us)
stock_rr=$(median_of "$raw" stock rr_median_us)
echo "median iperf3 TCP h1 -> h2: ours $ours_tcp Mbit/s, stock $stock_tcp Mbit/s," \
     "ours/stock $(ratio "$ours_tcp" "$stock_tcp")"
echo "median RR latency h1 -> h2: ours $ours_rr us, stock $stock_rr us," \
     "stock/ours $(ratio "$stock_rr" "$ours_rr") (above 1: ours is faster)"

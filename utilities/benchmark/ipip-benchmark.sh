#!/bin/sh
# Measures iperf3 TCP through an ipip tunnel between two switches of ours
# (tunnel-sandbox.sh), GRO on against GRO off, in one run, and prints for
# each: throughput, the packets that reached the receiving switch's flow
# lookup per second, and the CPU seconds the switches spent per GB moved.
#
# Every switch port is AF_XDP (native mode: veth spreads its queues only
# to native XDP) with two receive queues, on
# two PMD threads per switch (pmd-cpu-mask 0x3); every veth has two queues,
# so that streams spread over both threads of both switches.  Two egress cases at the receiver:
#   tap+tso  the receiving host sits behind a tap, with userspace-tso-enable:
#            a merged packet goes to it whole, as to a VM or container;
#   veth     the receiving host sits behind a veth on AF_XDP, which has no
#            TSO: a merged packet is segmented again before it is sent.
# Then, with four streams, the receiving switch's GRO cells per thread.
#
# A whole-system figure on this machine: both switches, the kernel's veth
# and iperf3 share the cores.  Rounds alternate GRO on and off; medians are
# reported.
#
# Usage: ipip-benchmark.sh [RUNS [SECONDS]]   (default 3 runs of 5 s)
set -e

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/utilities/benchmark/benchmark-common.sh"
benchmark_args 3 5 "$@"
tunnel_benchmark_init ipip-bench

# lookups HV
#   Prints how many packets reached switch HV's flow lookup: exact-match
#   hits, megaflow hits and misses, over all threads.
lookups() {
    $1 ovs-appctl dpif-percpu/pmd-stats-show \
        | sed -n 's/  exact match hits: //p; s/  megaflow hits: //p;
                 s/  miss with success upcall: //p;
                 s/  miss with failed upcall: //p' \
        | awk '{s += $1} END {print s + 0}'
}

# start EGRESS GRO
#   Builds the topology for egress case EGRESS (tap+tso or veth).
start() {
    if [ "$1" = tap+tso ]; then
        tso=true
    else
        tso=false
    fi
    tunnel_sandbox_start "$afxdp options:n_rxq=2" "$afxdp options:n_rxq=2" \
        "$2" 0x3 "$tso" > "$sandbox.log" 2>&1
    if [ "$1" = tap+tso ]; then
        tunnel_h2_on_tap >> "$sandbox.log" 2>&1
    fi
    ip netns exec demo-h1 ping -q -c 3 -i 0.2 10.98.0.2 > /dev/null || true
}

# measure EGRESS GRO
#   Runs one iperf3 and appends "EGRESS GRO Gbit/s lookups/s
#   cpu-s/GB(both) cpu-s/GB(receiver)" to $out.
measure() {
    start "$1" "$2"
    hv2 ovs-appctl dpif-percpu/pmd-stats-clear > /dev/null
    l0=$(lookups hv2)
    c1=$(cpu_ticks "$sandbox/ovs-vswitchd.pid")
    c2=$(cpu_ticks "$sandbox/hv2/ovs-vswitchd.pid")
    ip netns exec demo-h2 iperf3 -s -1 -D -p 5201 \
        --pidfile "$sandbox/iperf3.pid"
    sleep 0.5
    ip netns exec demo-h1 iperf3 -c 10.98.0.2 -p 5201 -t "$seconds" -J \
        > "$sandbox.json"
    l1=$(lookups hv2)
    d1=$(( $(cpu_ticks "$sandbox/ovs-vswitchd.pid") - c1 ))
    d2=$(( $(cpu_ticks "$sandbox/hv2/ovs-vswitchd.pid") - c2 ))
    /usr/bin/python3 - "$sandbox.json" "$1" "$2" "$l0" "$l1" "$d1" "$d2" \
        "$(getconf CLK_TCK)" >> "$out" <<'PY'
import json, sys
json_file, egress, gro, l0, l1, d1, d2, hz = sys.argv[1:]
end = json.load(open(json_file))["end"]["sum_received"]
gbytes = end["bytes"] / 1e9
cpu_both = (int(d1) + int(d2)) / int(hz)
cpu_rx = int(d2) / int(hz)
print(egress, gro, "%.3f" % (end["bits_per_second"] / 1e9),
      "%.0f" % ((int(l1) - int(l0)) / end["seconds"]),
      "%.2f" % (cpu_both / gbytes), "%.2f" % (cpu_rx / gbytes))
PY
    tunnel_sandbox_cleanup
}

echo "ipip tunnel, one TCP stream, $runs x ${seconds}s per case"
benchmark_header ipip-benchmark "$@"
: > "$out"
for run in $(seq "$runs"); do
    for egress in tap+tso veth; do
        for gro in true false; do
            measure "$egress" "$gro"
            tail -1 "$out" | awk -v r="$run" '{printf "run %s: %-7s gro=%-5s %s Gbit/s, %s lookups/s, %s CPU-s/GB (receiver %s)\n", r, $1, $2, $3, $4, $5, $6}'
        done
    done
done
echo
printf '%-8s %-5s %10s %12s %16s %18s\n' egress gro Gbit/s lookups/s \
    "CPU-s/GB both" "CPU-s/GB receiver"
for egress in tap+tso veth; do
    for gro in true false; do
        grep "^$egress $gro " "$out" > "$out.case"
        printf '%-8s %-5s %10s %12s %16s %18s\n' "$egress" "$gro" \
            "$(awk '{print $3}' "$out.case" | median)" \
            "$(awk '{print $4}' "$out.case" | median)" \
            "$(awk '{print $5}' "$out.case" | median)" \
            "$(awk '{print $6}' "$out.case" | median)"
    done
done

echo
echo "Four TCP streams, tap+tso, GRO on: the receiving switch's threads"
start tap+tso true
hv2 ovs-appctl dpif-percpu/pmd-rxq-show
tunnel_iperf "$seconds" 4 | grep -E 'SUM.*receiver'
hv2 ovs-appctl dpif-percpu/tunnel-stats-show | sed -n '/^gro:/,$p'
tunnel_sandbox_cleanup

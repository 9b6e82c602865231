#!/bin/sh
# Measures what the forwarding threads' own route and next-hop caches
# (lib/tunnels/tunnel-nexthop.h) buy: the encapsulation rate of switch 1 of
# tunnel-sandbox.sh (two switches of ours joined by an ipip tunnel) with 1
# route and with 10,000 routes in OVS's table, each with the caches on and
# off (other_config:tunnel-route-cache=false, which makes every transmit
# batch look its route up in OVS's classifier and its next hop in OVS's
# neighbour cache, with the mutex of tunnel-neigh.c and OVS's write of the
# entry's expiry), in one run.
#
# Traffic: iperf3 UDP, 64-byte frames (-l 22) as fast as it can send (-b
# 0), from demo-h1 to demo-h2, four streams.  Figures: the packets switch 1
# encapsulated per second (its "encapsulated" counter) and the CPU seconds
# switch 1 spent per million of them.  The 10,000 routes are distinct
# /20 to /32 prefixes (all lengths but /24) under 10.0.0.0/8 (none the
# tunnel's destination's) through gateway 192.168.77.254, added through one
# unixctl connection; the tunnel's own route stays the /24 of
# tunnel-sandbox.sh.
#
# Switch 1 runs in namespace rcb-hv1, switch 2 in demo-hv2.  Every port
# is AF_XDP (native mode) with two receive queues, on two PMD
# threads per switch (pmd-cpu-mask 0x3), as in ipip-benchmark.sh.  A
# whole-system figure on this machine: both switches, the kernel's veth and
# iperf3 share the cores.  Each round measures both route counts, the
# caches on then off for each; medians over the rounds are reported.
#
# Usage: route-cache-benchmark.sh [RUNS [SECONDS]]   (default 3 runs of 4 s)
# Must run as root, under the system lock (Documentation/testing.md).
set -e

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/utilities/benchmark/benchmark-common.sh"
benchmark_args 3 4 "$@"

# Switch 1 runs in a namespace of its own, rcb-hv1, so that its ovs-netdev
# tap cannot clash with another switch's on this host: the script runs
# itself again in it.
if [ -z "$RCB_INNER" ]; then
    ip netns del rcb-hv1 2>/dev/null || true
    ip netns add rcb-hv1
    ip netns exec rcb-hv1 ip link set lo up
    status=0
    ip netns exec rcb-hv1 env RCB_INNER=1 "$0" "$@" || status=$?
    ip netns pids rcb-hv1 2>/dev/null | xargs -r kill 2>/dev/null || true
    ip netns del rcb-hv1
    exit $status
fi
tunnel_benchmark_init route-bench

# add_routes N
#   Adds N routes to switch 1's table through one unixctl connection
#   (N ovs-appctl processes would take minutes on a loaded machine).
add_routes() {
    /usr/bin/python3 - "$sandbox/ovs-vswitchd.$(cat "$sandbox/ovs-vswitchd.pid").ctl" "$1" <<'PY'
import json, socket, sys
path, n = sys.argv[1], int(sys.argv[2])
# OVS takes a route only if the device has a source address for it: its
# own prefix, or a gateway's on the device's network.
gw = "192.168.77.254"
s = socket.socket(socket.AF_UNIX)
s.connect(path)
dec = json.JSONDecoder()
buf = ""
errors = 0
# Prefix lengths 20 to 32 but 24, in turn; the k-th prefix of a length is
# the k-th of that length under 10.0.0.0/8, so that all are distinct.
plens = [p for p in range(20, 33) if p != 24]
for i in range(n):
    plen = plens[i % len(plens)]
    k = i // len(plens)
    addr = (10 << 24) | (k << (32 - plen))
    prefix = "%d.%d.%d.%d/%d" % (addr >> 24, (addr >> 16) & 255,
                                 (addr >> 8) & 255, addr & 255, plen)
    s.sendall(json.dumps({"id": i, "method": "ovs/route/add",
                          "params": [prefix, "br-ul", gw]}).encode())
    while True:
        try:
            reply, end = dec.raw_decode(buf)
            buf = buf[end:].lstrip()
            if reply.get("error"):
                if not errors:
                    sys.stderr.write("ovs/route/add %s: %s\n"
                                     % (prefix, reply["error"]))
                errors += 1
            break
        except ValueError:
            data = s.recv(65536)
            if not data:
                sys.exit("unixctl connection closed")
            buf += data.decode()
if errors:
    sys.exit("%d of %d routes refused" % (errors, n))
PY
}

# routes
#   Prints how many routes switch 1's table holds.
routes() {
    ovs-appctl ovs/route/show | grep -c ' dev '
}

# encapsulated
#   Prints how many packets switch 1 encapsulated.
encapsulated() {
    ovs-appctl dpif-percpu/tunnel-stats-show | sed -n '/^total:/,/^gro:/p' \
        | sed -n 's/^  encapsulated: //p'
}

# measure ROUTES CACHE
#   Runs one iperf3 UDP flood with the caches CACHE (true or false) and
#   appends "ROUTES CACHE pps cpu-s/Mpkt" to $out.
measure() {
    ovs-vsctl set Open_vSwitch . other_config:tunnel-route-cache="$2"
    ip netns exec demo-h2 iperf3 -s -1 -D -p 5201 \
        --pidfile "$sandbox/iperf3.pid"
    sleep 0.5
    e0=$(encapsulated)
    c0=$(cpu_ticks "$sandbox/ovs-vswitchd.pid")
    t0=$(date +%s.%N)
    ip netns exec demo-h1 iperf3 -c 10.98.0.2 -p 5201 -u -b 0 -l 22 -P 4 \
        -t "$seconds" > /dev/null || true
    t1=$(date +%s.%N)
    e1=$(encapsulated)
    c1=$(cpu_ticks "$sandbox/ovs-vswitchd.pid")
    awk -v r="$1" -v c="$2" -v e="$((e1 - e0))" -v t="$t0" -v u="$t1" \
        -v cpu="$((c1 - c0))" -v hz="$(getconf CLK_TCK)" 'BEGIN {
        printf "%s %s %.0f %.3f\n", r, c, e / (u - t),
               (e > 0 ? cpu / hz / (e / 1e6) : 0) }' >> "$out"
    [ -f "$sandbox/iperf3.pid" ] && kill "$(cat "$sandbox/iperf3.pid")" \
        2>/dev/null || true
}

echo "ipip encapsulation, iperf3 UDP 64-byte frames, 4 streams," \
     "$runs x ${seconds}s per case"
benchmark_header route-cache-benchmark "$@"
: > "$out"
for run in $(seq "$runs"); do
    for n in 1 10000; do
        tunnel_sandbox_start "$tunnel_host_options" "$tunnel_host_options" \
            true 0x3 > "$sandbox.log" 2>&1
        ip netns exec demo-h1 ping -q -c 3 -i 0.2 10.98.0.2 > /dev/null \
            || true
        if [ "$n" -gt 1 ]; then
            add_routes $((n - 1))
        fi
        echo "run $run: $(routes) routes in switch 1's table"
        for cache in true false; do
            measure "$n" "$cache"
            tail -1 "$out" | awk -v r="$run" '{printf "run %s: routes=%-5s cache=%-5s %s pps, %s CPU-s/Mpkt\n", r, $1, $2, $3, $4}'
        done
        tunnel_sandbox_cleanup
    done
done
echo
printf '%-7s %-6s %10s %12s\n' routes cache pps CPU-s/Mpkt
for n in 1 10000; do
    for cache in true false; do
        grep "^$n $cache " "$out" > "$out.case"
        printf '%-7s %-6s %10s %12s\n' "$n" "$cache" \
            "$(awk '{print $3}' "$out.case" | median)" \
            "$(awk '{print $4}' "$out.case" | median)"
    done
done
for n in 1 10000; do
    on=$(awk -v n="$n" '$1 == n && $2 == "true" {print $3}' "$out" | median)
    off=$(awk -v n="$n" '$1 == n && $2 == "false" {print $3}' "$out" | median)
    echo "routes=$n: cache on / off = $(ratio "$on" "$off")"
done

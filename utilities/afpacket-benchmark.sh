#!/bin/sh
# Measures iperf3 through a datapath_type=netdev bridge whose two ports are
# plain "ovs-vsctl add-port" veths, with our ovs-vswitchd (the ports open as
# afpacket) and with stock OVS 3.1's (netdev-linux "system" ports), built
# from the same tree, alternately, in one run:
#
#   tcp1   single-stream TCP, Gbit/s received;
#   tcp4   four TCP streams (-P 4), Gbit/s received;
#   udp64  64-byte frames (22 bytes of UDP payload) sent as fast as iperf3
#          can (-b 0): packets per second received, and the loss;
#   udp64@3x  ours only, offered 3 times stock's median udp64 rate: the
#          loss at that rate.
#
# The same cases also run over one veth pair joining the two hosts with no
# switch at all: the ceiling the machine and iperf3 set.
#
# The veth peers keep Linux's default offloads (checksum offload, TSO) for
# our switch.  Stock OVS cannot forward TCP that way (partial checksums go
# out as they are), so its peers get "ethtool -K tx off", the only setting
# in which it works; its UDP figures are taken the same way.
#
# Everything runs in private namespaces: the switch in afpb-sw (so its
# ovs-netdev tap cannot clash with another switch's), the hosts in afpb-a
# (10.98.0.1) and afpb-b (10.98.0.2).  PMD threads and pmd-maxsleep keep
# their defaults.  This is a whole-system figure on this machine: the
# switch and both iperf3 ends share its cores.
#
# Usage: afpacket-benchmark.sh [RUNS [SECONDS]]   (default 3 runs of 5 s)
# Must run as root.
set -e

runs=${1:-3}
seconds=${2:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/utilities/build.sh" > /dev/null
. "$top/utilities/sandbox.sh"
work=/tmp/ovs-percpu-afpb
sw=afpb-sw

# afpb_cleanup: stops the daemons and removes the namespaces.
afpb_cleanup() {
    set +e
    for d in ovs-vswitchd ovsdb-server; do
        if [ -f "$work/$d.pid" ]; then
            pid=$(cat "$work/$d.pid")
            kill "$pid" 2>/dev/null
            sandbox_wait_exit "$pid"
            rm -f "$work/$d.pid"
        fi
    done
    for ns in afpb-a afpb-b $sw; do
        ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null
        ip netns del $ns 2>/dev/null
    done
    set -e
}
trap afpb_cleanup EXIT

# afpb_start_direct: joins the two hosts with one veth pair, no switch: the
# machine's own ceiling for the same traffic.
afpb_start_direct() {
    afpb_cleanup
    ip netns add afpb-a
    ip netns add afpb-b
    ip -n afpb-a link add name a type veth peer name b netns afpb-b
    ip -n afpb-a addr add 10.98.0.1/24 dev a
    ip -n afpb-b addr add 10.98.0.2/24 dev b
    ip -n afpb-a link set dev a up
    ip -n afpb-b link set dev b up
    ip netns exec afpb-a ping -q -c 3 -i 0.2 -W 2 10.98.0.2 > /dev/null
}

# afpb_start KIND: starts switch KIND ("ours" or "stock") with the two hosts
# attached, or for "direct" joins them without a switch.
afpb_start() {
    if [ "$1" = direct ]; then
        afpb_start_direct
        return
    fi
    if [ "$1" = ours ]; then
        sandbox_init "$top/vswitchd" "$work"
    else
        sandbox_init "$OVS_BUILDDIR/vswitchd" "$work"
    fi
    afpb_cleanup
    rm -rf "$work"
    mkdir -p "$work"
    ip netns add $sw
    ip -n $sw link set lo up
    ovsdb-tool create "$work/conf.db" "$OVS_SRCDIR/vswitchd/vswitch.ovsschema"
    ip netns exec $sw ovsdb-server --detach --no-chdir --pidfile --log-file \
        --remote="punix:$work/db.sock" 2> /dev/null
    ovs-vsctl --no-wait init
    ip netns exec $sw ovs-vswitchd --detach --no-chdir --pidfile --log-file \
        --disable-system-route 2> /dev/null
    ovs-vsctl add-br br0 -- set bridge br0 datapath_type=netdev
    i=1
    for h in a b; do
        ns=afpb-$h
        ip netns add $ns
        ip -n $ns link set lo up
        ip -n $ns link add name $h type veth peer name ovs-$h netns $sw
        ip -n $ns addr add 10.98.0.$i/24 dev $h
        ip -n $ns link set dev $h up
        ip -n $sw link set dev ovs-$h up
        if [ "$1" = stock ]; then
            ip netns exec $ns ethtool -K $h tx off > /dev/null
        fi
        ovs-vsctl add-port br0 ovs-$h
        i=$((i + 1))
    done
    ovs-ofctl add-flow br0 actions=normal
    ip netns exec afpb-a ping -q -c 3 -i 0.2 -W 2 10.98.0.2 > /dev/null
}

# afpb_iperf ARGS...: runs iperf3 from afpb-a to afpb-b with ARGS for
# $seconds seconds and prints its JSON report.
afpb_iperf() {
    ip netns exec afpb-b timeout $((seconds + 30)) iperf3 -s -1 -p 5201 \
        > /dev/null 2>&1 &
    sleep 0.5
    ip netns exec afpb-a timeout $((seconds + 20)) \
        iperf3 -c 10.98.0.2 -p 5201 -t "$seconds" -J "$@" || true
    wait || true
}

# afpb_tcp_gbps: reads an iperf3 TCP report, prints the Gbit/s received.
afpb_tcp_gbps() {
    python3 -c '
import json, sys
try:
    e = json.load(sys.stdin)["end"]["sum_received"]
    print("%.2f" % (e["bits_per_second"] / 1e9))
except Exception:
    print("0")'
}

# afpb_udp: reads an iperf3 UDP report, prints the packets per second
# received and the loss in percent.
afpb_udp() {
    python3 -c '
import json, sys
try:
    s = json.load(sys.stdin)["end"]["sum"]
    print("%d %.2f" % ((s["packets"] - s["lost_packets"]) / s["seconds"],
                       s["lost_percent"]))
except Exception:
    print("0 100")'
}

# afpb_measure KIND: appends KIND's figures for this run to $work-KIND.
afpb_measure() {
    afpb_start "$1"
    tcp1=$(afpb_iperf | afpb_tcp_gbps)
    tcp4=$(afpb_iperf -P 4 | afpb_tcp_gbps)
    udp=$(afpb_iperf -u -b 0 -l 22 | afpb_udp)
    echo "$tcp1 $tcp4 $udp" >> "$work.$1"
    echo "  $1: tcp1 $tcp1 Gbit/s, tcp4 $tcp4 Gbit/s," \
         "udp64 ${udp% *} pps received, loss ${udp#* }%"
    afpb_cleanup
}

# median COLUMN FILE
median() {
    awk -v c="$1" '{print $c}' "$2" | sort -n | awk '{a[NR] = $1}
        END {if (NR % 2) print a[(NR + 1) / 2];
             else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}

ratio() {
    awk -v o="$1" -v s="$2" 'BEGIN {if (s > 0) printf "%.2f", o / s;
                                    else print "inf"}'
}

rm -f "$work.ours" "$work.stock" "$work.direct" "$work.ours3x"
echo "afpacket benchmark: $runs runs of $seconds s per case," \
     "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq "$runs"); do
    echo "run $run:"
    afpb_measure ours
    afpb_measure stock
    afpb_measure direct
done

s_udp=$(median 3 "$work.stock")
rate=$(awk -v p="$s_udp" 'BEGIN {printf "%d", 3 * p}')
echo "udp64 offered at 3x stock's median ($rate pps):"
for run in $(seq "$runs"); do
    afpb_start ours
    udp=$(afpb_iperf -u -b $((rate * 22 * 8)) -l 22 | afpb_udp)
    echo "$udp" >> "$work.ours3x"
    echo "  run $run: ours ${udp% *} pps received, loss ${udp#* }%"
    afpb_cleanup
done

echo "medians (ours / stock, ratio):"
for c in 1 2; do
    name=$( [ $c = 1 ] && echo tcp1 || echo tcp4 )
    o=$(median $c "$work.ours"); s=$(median $c "$work.stock")
    echo "  $name: $o / $s Gbit/s, $(ratio "$o" "$s")x"
done
o=$(median 3 "$work.ours")
echo "  udp64: $o / $s_udp pps received, $(ratio "$o" "$s_udp")x;" \
     "loss $(median 4 "$work.ours")% / $(median 4 "$work.stock")%"
echo "  udp64@3x: $(median 1 "$work.ours3x") pps received of $rate" \
     "offered, loss $(median 2 "$work.ours3x")%"
echo "without a switch (one veth pair): tcp1 $(median 1 "$work.direct")" \
     "Gbit/s, tcp4 $(median 2 "$work.direct") Gbit/s, udp64" \
     "$(median 3 "$work.direct") pps received, loss" \
     "$(median 4 "$work.direct")%"
rm -f "$work.ours" "$work.stock" "$work.direct" "$work.ours3x"

#!/bin/sh
# Measures what TSO and software GSO save: iperf3 TCP from a host behind a
# tap (as a VM or container sits) through our switch to a host behind a
# veth, with userspace-tso-enable, in four cases, in one run:
#
#   tso+gso     the tap has TSO: the sender's stack hands the switch 64 kB
#               frames; the veth is an AF_XDP port, which cannot take them,
#               so our datapath cuts them into MTU-sized segments and
#               completes their checksums just before the port;
#   tso-off     the same, but the tap's TSO is off: the sender's kernel
#               segments and the switch forwards every MTU-sized frame;
#   tso+kernel  the tap has TSO; the veth is a Linux (system) port whose
#               device offloads are off: 64 kB frames leave the switch
#               whole through the vnet header, and the kernel cuts them just
#               before the device;
#   tso-e2e     the same with the device's offloads on: 64 kB frames reach
#               the receiver whole.
#
# The AF_XDP port is polled by a PMD thread (pmd-cpu-mask 0x2); the tap and
# Linux ports by the main thread.  The receiver's own transmit checksum
# offload is off in the AF_XDP cases (generic XDP would hand its partial
# checksums to AF_XDP as they are).
#
# For each: throughput; CPU seconds per GB moved spent by the switch
# process in user space (the datapath: lookups, actions, segmentation), by
# the switch process in the kernel (its socket calls, and the veth and the
# receiver's stack work run in their context), and by the whole machine;
# and the packets the switch handled per GB.  The
# shape to compare is Linux's "software GSO on non-TSO devices" (sys time
# 5.4 s -> 3.3 s per GiB): tso+gso against tso-off.  A whole-system figure
# on this machine: the switch, the kernel and iperf3 share the cores.
# Rounds alternate the cases; medians are reported.
#
# Usage: gso-benchmark.sh [RUNS [SECONDS]]   (default 3 runs of 5 s)
set -e

runs=${1:-3}
seconds=${2:-5}
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/utilities/build.sh" > /dev/null
. "$top/utilities/sandbox.sh"
. "$top/utilities/benchmark/benchmark-common.sh"
sandbox_init "$top/vswitchd" /tmp/ovs-percpu-gso-bench
out=/tmp/ovs-percpu-gso-bench.out

# cleanup
#   Stops the switch and removes the namespaces.
cleanup() {
    sandbox_cleanup
    ip link del tap-a 2>/dev/null || true
}
trap cleanup EXIT

# user_ticks PIDFILE, sys_ticks PIDFILE
#   Print the user or system clock ticks the process has used.
user_ticks() {
    awk '{print $14}' "/proc/$(cat "$1")/stat"
}
sys_ticks() {
    awk '{print $15}' "/proc/$(cat "$1")/stat"
}

# busy_ticks
#   Prints the clock ticks all CPUs have spent not idle since boot.
busy_ticks() {
    awk '/^cpu / {print $2 + $3 + $4 + $7 + $8}' /proc/stat
}

# start CASE
#   Starts the switch and builds the topology for CASE.
start() {
    sandbox_start > /dev/null 2>&1
    ovs-vsctl set Open_vSwitch . other_config:userspace-tso-enable=true
    ovs-vsctl add-br br-demo -- set bridge br-demo datapath_type=netdev \
        -- add-port br-demo tap-a -- set interface tap-a type=internal
    ip netns add demo-a
    ip link set tap-a netns demo-a
    ip netns exec demo-a ip addr add 10.99.0.1/24 dev tap-a
    ip netns exec demo-a ip link set tap-a up
    ip netns exec demo-a ip link set lo up
    ip netns add demo-b
    ip link add demo-b type veth peer name ovs-demo-b
    ip link set demo-b netns demo-b
    ip netns exec demo-b ip addr add 10.99.0.2/24 dev demo-b
    ip netns exec demo-b ip link set demo-b up
    ip netns exec demo-b ip link set lo up
    ip link set ovs-demo-b up
    case $1 in
        tso+gso|tso-off)
            ovs-vsctl set Open_vSwitch . other_config:pmd-cpu-mask=0x2 \
                other_config:pmd-maxsleep=1000
            ip netns exec demo-b ethtool -K demo-b tx off > /dev/null 2>&1
            ovs-vsctl add-port br-demo ovs-demo-b -- set interface ovs-demo-b \
                type=afxdp options:xdp-mode=generic
            ;;
        tso+kernel|tso-e2e)
            ovs-vsctl add-port br-demo ovs-demo-b
            ;;
    esac
    case $1 in
        tso-off) ip netns exec demo-a ethtool -K tap-a tso off > /dev/null ;;
        tso+kernel) ethtool -K ovs-demo-b tx off > /dev/null 2>&1 ;;
    esac
    ovs-ofctl add-flow br-demo actions=normal
    ip netns exec demo-a ping -q -c 3 -i 0.2 10.99.0.2 > /dev/null
}

# switch_packets
#   Prints how many packets the switch's threads received.
switch_packets() {
    ovs-appctl dpif-percpu/pmd-stats-show \
        | sed -n 's/  packets received: //p' | awk '{s += $1} END {print s}'
}

# measure CASE
#   Runs one iperf3 in CASE and appends "CASE Gbit/s switch-user-CPU-s/GB
#   switch-sys-CPU-s/GB machine-CPU-s/GB switch-packets/GB segmented" to
#   $out.
measure() {
    start "$1"
    ip netns exec demo-b iperf3 -s -1 -D -p 5201 \
        --pidfile "$sandbox/iperf3.pid"
    sleep 0.5
    p0=$(switch_packets)
    u0=$(user_ticks "$sandbox/ovs-vswitchd.pid")
    s0=$(sys_ticks "$sandbox/ovs-vswitchd.pid")
    m0=$(busy_ticks)
    ip netns exec demo-a iperf3 -c 10.99.0.2 -p 5201 -t "$seconds" -J \
        > "$sandbox/iperf3.json"
    u1=$(user_ticks "$sandbox/ovs-vswitchd.pid")
    s1=$(sys_ticks "$sandbox/ovs-vswitchd.pid")
    m1=$(busy_ticks)
    p1=$(switch_packets)
    segmented=$(ovs-appctl dpif-percpu/gso-stats-show \
                | sed -n '/^total:/,$s/  packets segmented: //p')
    /usr/bin/python3 - "$sandbox/iperf3.json" "$1" "$((u1 - u0))" \
        "$((s1 - s0))" "$((m1 - m0))" "$((p1 - p0))" "$segmented" \
        "$(getconf CLK_TCK)" >> "$out" <<'PY'
import json, sys
path, case, user, system, machine, packets, segmented, hz = sys.argv[1:]
end = json.load(open(path))["end"]["sum_received"]
gbytes = end["bytes"] / 1e9
per_gb = lambda ticks: "%.2f" % (int(ticks) / int(hz) / gbytes)
print(case, "%.3f" % (end["bits_per_second"] / 1e9), per_gb(user),
      per_gb(system), per_gb(machine), "%.0f" % (int(packets) / gbytes),
      segmented)
PY
    cleanup
}

echo "tap -> switch -> veth, one TCP stream, $runs x ${seconds}s per case"
benchmark_header gso-benchmark "$@"
: > "$out"
for run in $(seq "$runs"); do
    for case in tso+gso tso-off tso+kernel tso-e2e; do
        measure "$case"
        tail -1 "$out" | awk -v r="$run" '{printf "run %s: %-10s %s Gbit/s, switch user %s sys %s CPU-s/GB, machine %s CPU-s/GB, %s switch packets/GB, %s segmented\n", r, $1, $2, $3, $4, $5, $6, $7}'
    done
done
echo
printf '%-10s %8s %12s %11s %13s %14s\n' case Gbit/s "switch user" \
    "switch sys" "machine" "switch pkts"
printf '%-10s %8s %12s %11s %13s %14s\n' "" "" CPU-s/GB CPU-s/GB CPU-s/GB \
    "per GB"
for case in tso+gso tso-off tso+kernel tso-e2e; do
    grep "^$case " "$out" > "$out.case"
    printf '%-10s %8s %12s %11s %13s %14s\n' "$case" \
        "$(awk '{print $2}' "$out.case" | median)" \
        "$(awk '{print $3}' "$out.case" | median)" \
        "$(awk '{print $4}' "$out.case" | median)" \
        "$(awk '{print $5}' "$out.case" | median)" \
        "$(awk '{print $6}' "$out.case" | median)"
done
echo
echo "tso-off / tso+gso, ratio of medians:"
for column in 3:"switch user CPU per GB" 4:"switch sys CPU per GB" \
              5:"machine CPU per GB"; do
    n=${column%%:*}
    gso=$(awk -v n="$n" '$1 == "tso+gso" {print $n}' "$out" | median)
    off=$(awk -v n="$n" '$1 == "tso-off" {print $n}' "$out" | median)
    awk -v g="$gso" -v o="$off" -v name="${column#*:}" \
        'BEGIN {printf "  %s: %.2fx\n", name, o / g}'
done

#!/bin/sh
# Measures, through a datapath_type=netdev bridge whose two ports are plain
# "ovs-vsctl add-port" veths, our ovs-vswitchd (the ports open as afpacket)
# and stock OVS 3.1's (netdev-linux "system" ports), built from the same
# tree, alternately, in one run.  Kinds of switch (AFPB_KINDS, default all):
#
#   ours    our ovs-vswitchd, afpacket ports with their default options;
#   ring    ours, the ports with options:rx_mode=ring (TPACKET_V3 rings);
#   waitN   ours, the ports in socket mode with options:rx_batch_wait_us=N
#           (e.g. wait0: no batch wait), to compare with the default;
#   stock   stock OVS 3.1;
#   direct  no switch: one veth pair joins the two hosts, the ceiling the
#           machine and the tools set.
#
# Cases (AFPB_CASES, default all):
#
#   ping    "ping -c 200 -i 0.01": the mean round trip, ms;
#   rr      TCP request/response (afpacket-rr.py, as netperf's TCP_RR):
#           2000 transactions of 64 bytes each way, one at a time: the mean
#           transaction time, us;
#   tcp1    single-stream TCP, Gbit/s received;
#   tcp4    four TCP streams (-P 4), Gbit/s received;
#   udp64   64-byte frames (22 bytes of UDP payload) sent as fast as iperf3
#           can (-b 0): packets per second received, and the loss;
#   udp64ok the highest offered rate of 64-byte frames at which less than
#           1% is lost, found by AFPB_SEARCH_STEPS (default 7) runs of
#           AFPB_SEARCH_SECONDS (default 2) each, bisecting: pps offered;
#   cpu     (not by default) udp64 again (offered at AFPB_CPU_PPS packets
#           per second if set; with AFPB_DROPS=1 followed by the drops and
#           the frames per read), printing where the CPU went, in
#           percent of one CPU: the machine's busy and softirq time, each
#           switch thread, the iperf3 sender (iperf3-a) and receiver
#           (iperf3-b).  With AFPB_PERF=FILE, also records the whole
#           machine with "perf record -a -g" into FILE.KIND meanwhile.
#
# Every kind uses the same iperf3 receiver, with its default settings.
# AFPB_OTHER_CONFIG, if set, is given to our switches (ours, ring) as
# "ovs-vsctl set Open_vSwitch . $AFPB_OTHER_CONFIG", e.g.
# "other_config:pmd-maxsleep=0".
#
# The veth peers keep Linux's default offloads (checksum offload, TSO) for
# our switch.  Stock OVS cannot forward TCP that way (partial checksums go
# out as they are), so its peers get "ethtool -K tx off", the only setting
# in which it works; its other figures are taken the same way.
#
# Everything runs in private namespaces: the switch in afpb-sw (so its
# ovs-netdev tap cannot clash with another switch's), the hosts in afpb-a
# (10.98.0.1) and afpb-b (10.98.0.2).  PMD threads and pmd-maxsleep keep
# their defaults.  This is a whole-system figure on this machine: the
# switch and both ends share its cores.
#
# Usage: afpacket-benchmark.sh [RUNS [SECONDS]]   (default 3 runs of 5 s)
# Must run as root.
set -e

runs=${1:-3}
seconds=${2:-5}
top=$(cd "$(dirname "$0")/../.." && pwd)
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
    if [ "$1" != stock ]; then
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
    if [ "$1" != stock ] && [ -n "$AFPB_OTHER_CONFIG" ]; then
        ovs-vsctl set Open_vSwitch . $AFPB_OTHER_CONFIG
    fi
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
        if [ "$1" = ring ]; then
            ovs-vsctl add-port br0 ovs-$h \
                -- set interface ovs-$h options:rx_mode=ring
        elif [ "${1#wait}" != "$1" ]; then
            ovs-vsctl add-port br0 ovs-$h \
                -- set interface ovs-$h options:rx_batch_wait_us=${1#wait}
        else
            ovs-vsctl add-port br0 ovs-$h
        fi
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

# afpb_ping: prints the mean round trip of 200 pings 10 ms apart, in ms.
afpb_ping() {
    ip netns exec afpb-a ping -q -c 200 -i 0.01 -W 1 10.98.0.2 \
        | sed -n 's|^rtt [^=]*= [^/]*/\([^/]*\)/.*|\1|p' | grep . || echo 0
}

# afpb_rr: prints the mean time of a 64-byte TCP request/response, in us.
afpb_rr() {
    ip netns exec afpb-b timeout 60 \
        python3 "$top/utilities/benchmark/afpacket-rr.py" server 5301 &
    sleep 0.5
    ip netns exec afpb-a timeout 50 python3 \
        "$top/utilities/benchmark/afpacket-rr.py" client 10.98.0.2 5301 2000 \
        | awk '{print $2}' | grep . || echo 0
    wait || true
}

# afpb_udp_at PPS SECONDS: offers 64-byte frames at PPS for SECONDS, prints
# the packets per second received and the loss in percent.
afpb_udp_at() {
    saved_seconds=$seconds
    seconds=$2
    afpb_iperf -u -b $(($1 * 22 * 8)) -l 22 | afpb_udp
    seconds=$saved_seconds
}

# afpb_udp_ok START: prints the highest offered rate of 64-byte frames, in
# pps, at which less than 1% is lost, bisecting from START (doubled while
# it loses less), and what was received at that rate.
afpb_udp_ok() {
    lo=0 lo_rx=0 hi=0 rate=$1
    for step in $(seq "${AFPB_SEARCH_STEPS:-7}"); do
        r=$(afpb_udp_at "$rate" "${AFPB_SEARCH_SECONDS:-2}")
        if awk -v l="${r#* }" 'BEGIN {exit !(l < 1)}'; then
            lo=$rate lo_rx=${r% *}
        else
            hi=$rate
        fi
        if [ "$hi" = 0 ]; then
            rate=$((lo * 2))
        else
            rate=$(((lo + hi) / 2))
        fi
    done
    echo "$lo $lo_rx"
}

# afpb_cpu_snapshot: prints CPU time so far, in clock ticks, as
# "NAME TICKS" lines: the machine's busy and softirq time (from /proc/stat),
# each ovs-vswitchd thread by name, and the iperf3 processes of afpb-a
# (sender) and afpb-b (receiver).
afpb_cpu_snapshot() {
    awk '/^cpu / {print "machine-busy", $2 + $3 + $4 + $7 + $8;
                  print "machine-softirq", $8}' /proc/stat
    for pid in $(pgrep -x ovs-vswitchd); do
        for t in /proc/$pid/task/*; do
            sed 's/^[0-9]* (\([^)]*\)) /\1 /' "$t/stat" 2>/dev/null \
                | awk '{print "switch-" $1, $13 + $14}'
        done
    done
    for h in a b; do
        for pid in $(ip netns pids afpb-$h); do
            awk -v h=$h '{print "iperf3-" h, $14 + $15}' /proc/$pid/stat \
                2>/dev/null
        done
    done
}

# afpb_udp_profile: runs udp64 (-b 0, or AFPB_CPU_PPS) and prints where the CPU went over
# its middle seconds, in percent of one CPU.
afpb_udp_profile() {
    ip netns exec afpb-b timeout $((seconds + 30)) iperf3 -s -1 -p 5201 \
        > /dev/null 2>&1 &
    sleep 0.5
    ip netns exec afpb-a timeout $((seconds + 20)) \
        iperf3 -c 10.98.0.2 -p 5201 -t "$seconds" -u -l 22 \
        -b $((${AFPB_CPU_PPS:-0} * 22 * 8)) > /dev/null 2>&1 &
    sleep 1
    afpb_cpu_snapshot > "$work.cpu0"
    if [ -n "$AFPB_PERF" ] && [ "$kind" != direct ]; then
        perf record -q -a -g -o "$AFPB_PERF.$kind" -- sleep $((seconds - 2)) \
            > /dev/null 2>&1
    else
        sleep $((seconds - 2))
    fi
    afpb_cpu_snapshot > "$work.cpu1"
    wait || true
    hz=$(getconf CLK_TCK)
    awk -v t=$((seconds - 2)) -v hz="$hz" '
        NR == FNR {a[$1] += $2; next}
        {b[$1] += $2}
        END {for (k in b) printf "%s %.0f%%\n", k, (b[k] - a[k]) * 100 / hz / t}' \
        "$work.cpu0" "$work.cpu1" | sort | tr '\n' ' '
    echo
}

# afpb_drops KIND: prints where frames were dropped so far: the switch's
# ports (Interface statistics, for ours: per queue), and the receiver's
# UDP socket (RcvbufErrors); for ours also the frames received, the reads
# that brought them (rx_q0_packets / rx_q0_reads: frames per recvmmsg(),
# or per ring block) and socket mode's batch waits.
afpb_drops() {
    if [ "$1" != direct ]; then
        for h in a b; do
            echo "    ovs-$h: $(ovs-vsctl get interface ovs-$h statistics \
                | tr -d '{} ' | tr ',' '\n' \
                | grep -E 'drop|error|rx_q0_packets|_reads|batch_wait' \
                | grep -v '=0$' | tr '\n' ' ')"
        done
    fi
    echo "    receiver: $(ip netns exec afpb-b nstat -az UdpRcvbufErrors \
        UdpInErrors UdpInDatagrams | awk '/^Udp/ {printf "%s=%s ", $1, $2}')"
}

# afpb_measure KIND: appends KIND's figures for this run to $work.KIND, one
# line: ping_ms rr_us tcp1 tcp4 udp64_pps udp64_loss udp64ok_pps
# udp64ok_received ("-" for a case not run).
afpb_measure() {
    kind=$1
    ping=- rr=- tcp1=- tcp4=- udp="- -" ok="- -"
    afpb_start "$1"
    for c in $cases; do
        case $c in
        ping) ping=$(afpb_ping) ;;
        rr) rr=$(afpb_rr) ;;
        tcp1) tcp1=$(afpb_iperf | afpb_tcp_gbps) ;;
        tcp4) tcp4=$(afpb_iperf -P 4 | afpb_tcp_gbps) ;;
        udp64) udp=$(afpb_iperf -u -b 0 -l 22 | afpb_udp)
            if [ -n "$AFPB_DROPS" ]; then
                afpb_drops "$1"
            fi ;;
        cpu) echo "  $1 udp64 CPU: $(afpb_udp_profile)"
            if [ -n "$AFPB_DROPS" ]; then
                afpb_drops "$1"
            fi ;;
        udp64ok)
            start=${udp% *}
            [ "$start" = - ] && start=100000
            ok=$(afpb_udp_ok "$start") ;;
        esac
    done
    echo "$ping $rr $tcp1 $tcp4 $udp $ok" >> "$work.$1"
    echo "  $1: ping ${ping} ms, rr ${rr} us, tcp1 $tcp1 Gbit/s," \
         "tcp4 $tcp4 Gbit/s, udp64 ${udp% *} pps received (loss" \
         "${udp#* }%), udp64 <1% loss up to ${ok% *} pps offered" \
         "(${ok#* } received)"
    afpb_cleanup
}

# median COLUMN FILE
median() {
    awk -v c="$1" '$c != "-" {print $c}' "$2" | sort -n | awk '{a[NR] = $1}
        END {if (!NR) print "-";
             else if (NR % 2) print a[(NR + 1) / 2];
             else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}

# ratio A B: prints A / B.
ratio() {
    awk -v o="$1" -v s="$2" 'BEGIN {if (o == "-" || s == "-") print "-";
                                    else if (s > 0) printf "%.2f", o / s;
                                    else print "inf"}'
}

kinds=${AFPB_KINDS:-ours ring stock direct}
cases=${AFPB_CASES:-ping rr tcp1 tcp4 udp64 udp64ok}
for k in $kinds; do
    rm -f "$work.$k"
done
echo "afpacket benchmark: $runs runs of $seconds s per case, $(nproc) CPUs," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg); cases: $cases"
for run in $(seq "$runs"); do
    echo "run $run:"
    for k in $kinds; do
        afpb_measure "$k"
    done
done

echo "medians:"
for k in $kinds; do
    f=$work.$k
    echo "  $k: ping $(median 1 "$f") ms, rr $(median 2 "$f") us," \
         "tcp1 $(median 3 "$f") Gbit/s, tcp4 $(median 4 "$f") Gbit/s," \
         "udp64 $(median 5 "$f") pps (loss $(median 6 "$f")%)," \
         "udp64 <1% loss $(median 7 "$f") pps offered" \
         "($(median 8 "$f") received)"
done
if [ -f "$work.stock" ]; then
    for k in $kinds; do
        [ "$k" != stock ] && [ "$k" != direct ] && [ -f "$work.$k" ] \
            || continue
        f=$work.$k g=$work.stock
        echo "  $k / stock: ping $(ratio "$(median 1 "$f")" "$(median 1 "$g")")x," \
             "rr $(ratio "$(median 2 "$f")" "$(median 2 "$g")")x," \
             "tcp1 $(ratio "$(median 3 "$f")" "$(median 3 "$g")")x," \
             "tcp4 $(ratio "$(median 4 "$f")" "$(median 4 "$g")")x," \
             "udp64 $(ratio "$(median 5 "$f")" "$(median 5 "$g")")x," \
             "udp64 <1% loss $(ratio "$(median 7 "$f")" "$(median 7 "$g")")x"
    done
fi
for k in $kinds; do
    rm -f "$work.$k"
done
rm -f "$work.cpu0" "$work.cpu1"

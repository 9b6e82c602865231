#!/bin/sh
# Measures vxlan and geneve tunnels between two switches, ours (kernel-style
# vports in the datapath, per-thread GRO cells) against stock OVS 3.1's
# native tunnelling (tnl_push/tnl_pop in its dpif-netdev), in the topology
# of tunnel-sandbox.sh, with the same ovsdb configuration for both:
#
#   demo-h1 (10.98.0.1, MTU 1450)                  demo-h2 (10.98.0.2)
#        |                                                 |
#     br-int --vx0 vxlan (or geneve) key 42 ... vx0-- br-int
#     br-ul (192.168.77.1) --ul1====ul2-- br-ul (192.168.77.2)
#   switch 1: namespace tvs-hv1             switch 2: namespace demo-hv2
#
# The underlay is what OVS documents for native tunnelling with
# datapath_type=netdev (Documentation/howto/userspace-tunneling.rst): the
# underlay bridge br-ul holds the local address on its local port, a route
# to the remote one (ovs/route/add, since the switches run with
# --disable-system-route), and the remote's MAC is learned by ARP (each
# switch's tnl/neigh/show must hold it before a case is measured).  Every
# switch port is AF_XDP in native mode with two receive queues, on two PMD
# threads per switch (pmd-cpu-mask 0x3, pmd-maxsleep 1000 us), every veth
# has two queues.  OpenFlow: br-ul actions=normal, br-int host port <->
# tunnel port.  The hosts' MTU is 1450, so that an encapsulated frame fits
# the underlay's 1500.
#
# Cases, each run with our ovs-vswitchd and with stock's (built from the
# same OVS tree, $OVS_BUILDDIR/vswitchd), alternately, the order swapped
# every round:
#   tcp-tap   iperf3 TCP, one stream, to demo-h2 behind a tap (switch 2's
#             internal port moved into demo-h2), userspace-tso-enable=true
#             in both switches: ours hands GRO's merged packets to the tap
#             whole.  The host's tap has transmit checksum offload off
#             (ethtool -K h2tap tx off), for both: stock OVS 3.1 drops
#             every packet with an offload flag that it would tunnel
#             (netdev_push_header(), "Tunneling packets with HW offload
#             flags is not supported"), the host's ACKs included;
#   tcp-veth  iperf3 TCP, one stream, to demo-h2 behind a veth on AF_XDP
#             (no TSO): ours sends a merged packet's original segments;
#   udp64     iperf3 UDP, 64-byte frames (22 bytes of payload), as fast as
#             iperf3 sends them (-b 0), behind the veth: packets per second
#             received.
# Printed per case: ours, stock, the ratio of the medians, the median of
# the rounds' own ratios ("paired": ours and stock of one round run within
# a minute of each other, so it moves less with the machine's slower
# phases, which last minutes), and the two switches' CPU seconds per GB
# (TCP) or CPU microseconds per packet received (UDP), both switches
# together, PMD polling included.
#
# A whole-system figure on this machine: both switches, the kernel's veth
# and iperf3 share the cores.  Fails (non-zero, naming the case) when a
# case cannot be set up or moves no traffic.
#
# Usage: tunnel-vs-stock-benchmark.sh [RUNS [SECONDS]]  (default 3 runs of 5 s)
# Environment: TVS_TUNNELS (default "vxlan geneve"), TVS_CASES (default
# "tcp-tap tcp-veth udp64"), to run a part on a shared machine;
# TVS_TAP_TX=on leaves the tap's transmit checksum offload on, which shows
# stock dropping the receiving host's packets; TVS_PERF=DIR records
# `perf record -g` of both ovs-vswitchd processes during each measurement
# into DIR/TUNNEL-CASE-SIDE.data.
set -e

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/utilities/benchmark/benchmark-common.sh"
benchmark_args 3 5 "$@"
tunnel_benchmark_init tunnel-vs-stock
tunnels=${TVS_TUNNELS:-vxlan geneve}
cases=${TVS_CASES:-tcp-tap tcp-veth udp64}
base_path=$PATH
current=
# Whatever stops the script early says where, on the terminal's stderr
# (fd 3), even while a step's output goes to a log.
exec 3>&2
trap 'rc=$?; [ $rc = 0 ] || [ -z "$current" ] ||
      echo "tunnel-vs-stock-benchmark: failed during $current" >&3;
      tvs_cleanup; exit $rc' EXIT
ours_bin=$top/vswitchd/ovs-vswitchd
stock_bin=$OVS_BUILDDIR/vswitchd/ovs-vswitchd

# Switch 1 runs in a namespace of its own too (tvs-hv1), so that its
# datapath's tap (ovs-netdev) cannot collide with another OVS's on the
# host, as it did with OVS's system tests running beside it.
hv1() {
    ip netns exec tvs-hv1 env OVS_RUNDIR="$sandbox" OVS_LOGDIR="$sandbox" \
        OVS_DBDIR="$sandbox" OVS_SYSCONFDIR="$sandbox" "$@"
}

# tvs_cleanup: tunnel_sandbox_cleanup, and switch 1's namespace.
tvs_cleanup() {
    tunnel_sandbox_cleanup
    ip netns pids tvs-hv1 2>/dev/null | xargs -r kill 2>/dev/null || true
    ip netns del tvs-hv1 2>/dev/null || true
}

# tvs_add_host HV NS IP MAC PEER_IP PEER_MAC
#   tunnel_add_host, with the switch's end of the veth in switch HV's
#   namespace.
tvs_add_host() {
    port=ovs-${2#demo-}
    ip netns add "$2"
    ip link add eth0 netns "$2" numtxqueues "$(nproc)" \
        numrxqueues "$(nproc)" type veth peer name "$port" \
        numtxqueues "$(nproc)" numrxqueues "$(nproc)"
    if [ "$1" = hv1 ]; then
        ip link set "$port" netns tvs-hv1
    else
        ip link set "$port" netns demo-hv2
    fi
    ip netns exec "$2" ip link set eth0 address "$4"
    ip netns exec "$2" ip link set eth0 mtu 1450
    ip netns exec "$2" ip addr add "$3/24" dev eth0
    ip netns exec "$2" ip link set eth0 up
    ip netns exec "$2" ip link set lo up
    ip netns exec "$2" ethtool -K eth0 tx off >/dev/null 2>&1 || true
    ip netns exec "$2" ip neigh add "$5" lladdr "$6" dev eth0
    ip netns exec "$2" sh -c 'for q in /sys/class/net/eth0/queues/tx-*; do
                                  echo 0 > $q/xps_cpus; done' 2>/dev/null || true
    $1 ip link set "$port" up
}

# fail CASE SIDE MESSAGE
#   Says that CASE could not be measured with SIDE's switch, and exits 1.
fail() {
    echo "tunnel-vs-stock-benchmark: $1 ($2): $3" >&3
    for log in "$sandbox/ovs-vswitchd.log" "$sandbox/hv2/ovs-vswitchd.log"; do
        [ -f "$log" ] || continue
        echo "--- last warnings of $log:" >&3
        grep -E 'WARN|ERR' "$log" | tail -5 >&3 || true
    done
    current=
    exit 1
}

# tvs_switch_start HV DIR TSO
#   Starts switch HV's ovsdb-server, configures it (PMD threads; TSO if TSO
#   is "true"), then starts ovs-vswitchd, so that it reads the
#   configuration at start (userspace-tso-enable is read once).
tvs_switch_start() {
    mkdir -p "$2"
    $1 ovsdb-tool create "$2/conf.db" "$OVS_SRCDIR/vswitchd/vswitch.ovsschema"
    $1 ovsdb-server --detach --no-chdir --pidfile --log-file \
        --remote="punix:$2/db.sock" "$2/conf.db"
    $1 ovs-vsctl --no-wait init -- set Open_vSwitch . \
        other_config:pmd-cpu-mask=0x3 other_config:pmd-maxsleep=1000 \
        other_config:userspace-tso-enable="$3"
    $1 ovs-vswitchd --detach --no-chdir --pidfile --log-file \
        --disable-system --disable-system-route
}

# tvs_configure HV LOCAL_IP REMOTE_IP HOST_PORT UL_PORT TUNNEL
#   br-ul with UL_PORT and LOCAL_IP on its local port, a route to REMOTE_IP,
#   br-int with HOST_PORT and tunnel port vx0 of type TUNNEL to REMOTE_IP.
tvs_configure() {
    $1 ovs-vsctl add-br br-ul -- set bridge br-ul datapath_type=netdev \
        -- add-port br-ul "$5" -- set interface "$5" $afxdp options:n_rxq=2
    $1 ip addr add "$2/24" dev br-ul
    $1 ip link set br-ul up
    $1 ovs-appctl ovs/route/add "$3/24" br-ul > /dev/null
    $1 ovs-ofctl add-flow br-ul actions=normal
    $1 ovs-vsctl add-br br-int -- set bridge br-int datapath_type=netdev \
        -- add-port br-int "$4" -- set interface "$4" $afxdp options:n_rxq=2 \
        -- add-port br-int vx0 -- set interface vx0 type="$6" \
           options:remote_ip="$3" options:key=42
    $1 ovs-ofctl add-flow br-int "in_port=$4,actions=output:vx0"
    $1 ovs-ofctl add-flow br-int "in_port=vx0,actions=output:$4"
}

# tvs_h2_on_tap
#   Moves demo-h2 from its veth onto switch 2's internal port h2tap, a tap,
#   with transmit checksum offload off (see above).
tvs_h2_on_tap() {
    hv2 ovs-vsctl del-port br-int ovs-h2 \
        -- add-port br-int h2tap -- set interface h2tap type=internal
    hv2 ip link set h2tap netns demo-h2
    ip netns exec demo-h2 ip link del eth0
    ip netns exec demo-h2 ip link set h2tap address 00:00:00:00:98:02
    ip netns exec demo-h2 ip link set h2tap mtu 1450
    ip netns exec demo-h2 ip addr add 10.98.0.2/24 dev h2tap
    ip netns exec demo-h2 ip link set h2tap up
    [ "${TVS_TAP_TX:-off}" = on ] \
        || ip netns exec demo-h2 ethtool -K h2tap tx off > /dev/null
    ip netns exec demo-h2 ip neigh replace 10.98.0.1 \
        lladdr 00:00:00:00:98:01 dev h2tap
    hv2 ovs-ofctl del-flows br-int
    hv2 ovs-ofctl add-flow br-int "in_port=h2tap,actions=output:vx0"
    hv2 ovs-ofctl add-flow br-int "in_port=vx0,actions=output:h2tap"
}

# tvs_start SIDE TUNNEL EGRESS
#   Builds the topology with SIDE's (ours or stock) ovs-vswitchd, tunnel
#   type TUNNEL and the receiving host behind EGRESS (tap or veth), and
#   checks that it carries a ping and that both switches resolved their
#   peer's MAC.
tvs_start() {
    if [ "$1" = ours ]; then
        bin=$ours_bin
    else
        bin=$stock_bin
    fi
    PATH=$(dirname "$bin"):$base_path
    tvs_cleanup
    rm -rf "$sandbox"
    mkdir -p "$sandbox"
    tso=false
    [ "$3" != tap ] || tso=true

    ip netns add tvs-hv1
    ip netns exec tvs-hv1 ip link set lo up
    tvs_switch_start hv1 "$sandbox" "$tso"
    ip netns add demo-hv2
    ip netns exec demo-hv2 ip link set lo up
    tvs_switch_start hv2 "$sandbox/hv2" "$tso"
    for pidfile in "$sandbox/ovs-vswitchd.pid" "$sandbox/hv2/ovs-vswitchd.pid"
    do
        exe=$(readlink "/proc/$(cat "$pidfile")/exe")
        [ "$exe" = "$(readlink -f "$bin")" ] \
            || fail "$2 $3" "$1" "ovs-vswitchd is $exe, not $bin"
    done

    n_queues=$(nproc)
    ip link add ul1 netns tvs-hv1 numtxqueues "$n_queues" \
        numrxqueues "$n_queues" type veth peer name ul2 netns demo-hv2 \
        numtxqueues "$n_queues" numrxqueues "$n_queues"
    hv1 ip link set ul1 up
    hv2 ip link set ul2 up
    tvs_add_host hv1 demo-h1 10.98.0.1 00:00:00:00:98:01 \
        10.98.0.2 00:00:00:00:98:02
    tvs_add_host hv2 demo-h2 10.98.0.2 00:00:00:00:98:02 \
        10.98.0.1 00:00:00:00:98:01
    tvs_configure hv1 192.168.77.1 192.168.77.2 ovs-h1 ul1 "$2"
    tvs_configure hv2 192.168.77.2 192.168.77.1 ovs-h2 ul2 "$2"
    [ "$3" != tap ] || tvs_h2_on_tap

    # The first packets make each switch ask for its peer's MAC (and are
    # dropped meanwhile): ping until one goes through, 20 s at most.
    ok=
    for i in $(seq 20); do
        if ip netns exec demo-h1 ping -q -c 1 -W 1 10.98.0.2 > /dev/null 2>&1
        then
            ok=yes
            break
        fi
    done
    [ -n "$ok" ] || fail "$2 $3" "$1" "no ping through the tunnel in 20 s"
    hv1 ovs-appctl tnl/neigh/show | grep -q 192.168.77.2 \
        || fail "$2 $3" "$1" "switch 1 has no neighbour entry for 192.168.77.2"
    hv2 ovs-appctl tnl/neigh/show | grep -q 192.168.77.1 \
        || fail "$2 $3" "$1" "switch 2 has no neighbour entry for 192.168.77.1"
}

# tvs_iperf ARGS...
#   Runs iperf3 from demo-h1 to demo-h2 with ARGS for $seconds seconds and
#   prints its JSON report.
tvs_iperf() {
    ip netns exec demo-h2 timeout $((seconds + 30)) iperf3 -s -1 -p 5201 \
        > /dev/null 2>&1 &
    iperf_server=$!
    sleep 0.5
    ip netns exec demo-h1 timeout $((seconds + 20)) \
        iperf3 -c 10.98.0.2 -p 5201 -t "$seconds" -J "$@" || true
    wait "$iperf_server" || true
}

# tvs_measure SIDE TUNNEL CASE
#   Runs CASE on the topology that is up and appends "TUNNEL CASE SIDE
#   FIGURE CPU" to $out: FIGURE Gbit/s (TCP) or packets per second
#   received (UDP), CPU the two switches' CPU seconds per GB (TCP) or CPU
#   microseconds per packet received (UDP).
tvs_measure() {
    c1=$(cpu_ticks "$sandbox/ovs-vswitchd.pid")
    c2=$(cpu_ticks "$sandbox/hv2/ovs-vswitchd.pid")
    if [ -n "$TVS_PERF" ]; then
        mkdir -p "$TVS_PERF"
        perf record -g -q -o "$TVS_PERF/$2-$3-$1.data" \
            -p "$(cat "$sandbox/ovs-vswitchd.pid"),$(cat "$sandbox/hv2/ovs-vswitchd.pid")" \
            > /dev/null 2>&1 &
        perf_pid=$!
    fi
    case $3 in
        udp64) tvs_iperf -u -b 0 -l 22 > "$sandbox.json" ;;
        *) tvs_iperf > "$sandbox.json" ;;
    esac
    if [ -n "$TVS_PERF" ]; then
        kill -INT "$perf_pid"
        wait "$perf_pid" || true
    fi
    d=$(( $(cpu_ticks "$sandbox/ovs-vswitchd.pid") - c1
          + $(cpu_ticks "$sandbox/hv2/ovs-vswitchd.pid") - c2 ))
    line=$(/usr/bin/python3 - "$sandbox.json" "$3" "$d" "$(getconf CLK_TCK)" \
           <<'PY'
import json, sys
json_file, case, ticks, hz = sys.argv[1:]
try:
    end = json.load(open(json_file))["end"]
    cpu = int(ticks) / int(hz)
    if case == "udp64":
        s = end["sum"]
        received = s["packets"] - s["lost_packets"]
        if received <= 0 or s["seconds"] <= 0:
            raise ValueError("no packet received")
        print("%.0f %.3f" % (received / s["seconds"], cpu / received * 1e6))
    else:
        s = end["sum_received"]
        if s["bytes"] <= 0:
            raise ValueError("no byte received")
        print("%.3f %.2f" % (s["bits_per_second"] / 1e9,
                             cpu / (s["bytes"] / 1e9)))
except Exception as e:
    print("error %s" % e)
PY
)
    case $line in
        error*|"") fail "$2 $3" "$1" "no traffic measured (${line:-no report})" ;;
    esac
    echo "$2 $3 $1 $line" >> "$out"
}

echo "vxlan and geneve, ours against stock OVS 3.1, $runs x ${seconds}s per case"
benchmark_header tunnel-vs-stock-benchmark "$@"
[ -z "$TVS_TUNNELS$TVS_CASES$TVS_TAP_TX" ] \
    || echo "environment: TVS_TUNNELS=\"$tunnels\" TVS_CASES=\"$cases\"" \
            "TVS_TAP_TX=${TVS_TAP_TX:-off}"
echo "stock: $stock_bin ($("$stock_bin" --version | head -1))"
[ -x "$stock_bin" ] || fail all stock "no $stock_bin"
: > "$out"
for run in $(seq "$runs"); do
    if [ $((run % 2)) = 1 ]; then
        sides="ours stock"
    else
        sides="stock ours"
    fi
    for tunnel in $tunnels; do
        for egress in tap veth; do
            for side in $sides; do
                todo=
                for c in $cases; do
                    case $c in
                        tcp-tap) [ $egress = tap ] && todo="$todo $c" ;;
                        tcp-veth|udp64) [ $egress = veth ] && todo="$todo $c" ;;
                        *) fail "$c" all "no such case" ;;
                    esac
                done
                [ -n "$todo" ] || continue
                current="setting up $tunnel $egress ($side, see $sandbox.log)"
                t0=$(date +%s)
                tvs_start "$side" "$tunnel" "$egress" > "$sandbox.log" 2>&1
                t1=$(date +%s)
                for c in $todo; do
                    current="$tunnel $c ($side)"
                    tvs_measure "$side" "$tunnel" "$c"
                    tail -1 "$out" | awk -v r="$run" '{
                        unit = $2 == "udp64" ? "pps received" : "Gbit/s"
                        cpu = $2 == "udp64" ? "CPU-us/packet" : "CPU-s/GB"
                        printf "run %s: %-6s %-8s %-5s %10s %s, %s %s\n",
                               r, $1, $2, $3, $4, unit, $5, cpu}'
                    if [ "$side" = ours ] && [ "$c" != udp64 ]; then
                        hv2 ovs-appctl dpif-percpu/tunnel-stats-show \
                            | sed -n '/^gro:/,$p' | grep total: | head -1 \
                            | sed 's/^ */  receiving switch GRO: /'
                    fi
                done
                t2=$(date +%s)
                tvs_cleanup
                echo "  (setup $((t1 - t0)) s, measured $((t2 - t1)) s," \
                     "cleanup $(($(date +%s) - t2)) s)" >> "$out.times"
            done
        done
    done
done

# paired_ratio TUNNEL CASE
#   The median over the rounds of each round's own ratio, ours / stock, for
#   TUNNEL CASE, to two decimals: the k-th figure of each side in $out was
#   measured in round k, the two within a minute of each other.
paired_ratio() {
    awk -v t="$1" -v c="$2" '
        $1 == t && $2 == c && $3 == "ours" {o[++n_o] = $4}
        $1 == t && $2 == c && $3 == "stock" {s[++n_s] = $4}
        END {for (i = 1; i <= n_o && i <= n_s; i++)
                 if (s[i] > 0) printf "%.6f\n", o[i] / s[i]}' "$out" \
        | median | awk '{printf "%.2f", $1}'
}

current=
echo
printf '%-6s %-8s %10s %10s %6s %7s %12s %12s\n' tunnel case ours stock ratio \
    paired "ours CPU" "stock CPU"
for tunnel in $tunnels; do
    for c in $cases; do
        o=$(awk -v t="$tunnel" -v c="$c" '$1 == t && $2 == c && $3 == "ours" {print $4}' "$out" | median)
        s=$(awk -v t="$tunnel" -v c="$c" '$1 == t && $2 == c && $3 == "stock" {print $4}' "$out" | median)
        oc=$(awk -v t="$tunnel" -v c="$c" '$1 == t && $2 == c && $3 == "ours" {print $5}' "$out" | median)
        sc=$(awk -v t="$tunnel" -v c="$c" '$1 == t && $2 == c && $3 == "stock" {print $5}' "$out" | median)
        printf '%-6s %-8s %10s %10s %6s %7s %12s %12s\n' "$tunnel" "$c" \
            "$o" "$s" "$(ratio "$o" "$s")" "$(paired_ratio "$tunnel" "$c")" \
            "$oc" "$sc"
    done
done
echo "(tcp: Gbit/s received and CPU-s/GB; udp64: packets/s received and" \
     "CPU-us/packet; CPU of both switches; medians of $runs; ratio: of the" \
     "medians; paired: median of each round's own ratio)"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

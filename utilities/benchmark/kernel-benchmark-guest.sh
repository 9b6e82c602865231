#!/bin/sh
# The part of utilities/benchmark/kernel-benchmark.sh that runs in the
# qemu guest of tests/qemu/kernel-guest.sh (never on its own).
#
# Usage: kernel-benchmark-guest.sh [-t TESTS] RAW ROUNDS SECONDS VARIANT...
#
# For each of ROUNDS rounds, and for each VARIANT in turn (the order
# rotates from round to round), loads that variant's datapath module,
# builds the same datapath and flows with ovs-dpctl, measures, and unloads
# it.  TESTS, a space-separated list of the tests below (put-* and del-*
# are one test, "puts"), runs only those; the default is all.
# VARIANTs: stock (Debian's openvswitch.ko), ours (our
# ovs_percpu.ko), ablation (ours with flow_stats_one_slot=1: every CPU's
# hits go to the first stats slot, under its lock).  Appends
# "ROUND VARIANT TEST VALUE" lines to RAW; higher values are better:
#   setup     flows per second that 'ovs-dpctl add-flows' puts (1000
#             exact-match flows, netlink included): mostly ovs-dpctl's own
#             parsing and start-up, kept so that older results compare
#   put-key   flows per second the datapath puts for
#             utilities/benchmark/flow-put-benchmark (2000 exact-match
#             flows, one OVS_FLOW_CMD_NEW with NLM_F_ACK each, by key)
#   del-key   deletes per second of those flows, one request each, by key
#   put-ufid, del-ufid  the same with a UFID in every request, as
#             ovs-vswitchd sends them (deletes by UFID alone)
#   put-batch, del-batch  the UFID requests in ovs-vswitchd's batches of
#             50 per nl_transact_multiple()
#   udp1      64-byte UDP packets per second the datapath forwards, one
#             flow, sent by pktgen on CPU 0
#   udpmany   the same over 1000 flows (one exact-match megaflow each)
#   udp2cpu   one flow hit from both CPUs (pktgen on each): where the
#             per-CPU stats slots matter
#   tcp1      TCP bits per second between two namespaces, 64-byte writes
#             (TCP_NODELAY, autocorking off), one connection
#   tcp8      the same with 8 connections
#   upcalls   datapath flows per second that our ovs-vswitchd installs
#             under a storm of new flows: a datapath_type=system bridge
#             with k0 and k1 and one OpenFlow flow in_port=k0 -> k1,
#             megaflows disabled (every UDP source port is a flow of its
#             own), pktgen on CPU 0 cycling through 60000 source ports;
#             the count of the datapath's flows, over SECONDS after one
#             second of warm-up
#
# The datapath "bench" has four ports:
#   1 k0 <- s0 (root namespace): pktgen's device
#   2 k1 -> r1 (down): the UDP sink; packets are dropped by the veth once
#        the datapath has output them
#   3 t0 <-> p0 in namespace kb0 (10.1.0.1)
#   4 t1 <-> p1 in namespace kb1 (10.1.0.2)
set -e

tests="setup puts udp1 udpmany udp2cpu tcp1 tcp8 upcalls"
if [ "$1" = -t ]; then
    tests=$2
    shift 2
fi
raw=${1:?usage: kernel-benchmark-guest.sh [-t TESTS] RAW ROUNDS SECONDS VARIANT...}
rounds=${2:?}
seconds=${3:?}
shift 3
variants="$*"

conf=/run/ovs-percpu-guest
top=$(cd "$(dirname "$0")/../.." && pwd)
# Flows of the put and delete tests.
put_flows=2000
OVS_BUILDDIR=${OVS_BUILDDIR:-/var/cache/ovs-percpu/ovs-build}
PATH=$OVS_BUILDDIR/utilities:$OVS_BUILDDIR/ovsdb:$PATH
export OVS_RUNDIR=/tmp/bench OVS_LOGDIR=/tmp/bench
mkdir -p /tmp/bench
cd /tmp/bench

say() {
    echo "kernel-benchmark: $*" >&2
}

# The topology, which outlives the modules: veth pairs and namespaces.
modprobe pktgen
ip link add s0 type veth peer name k0
ip link add k1 type veth peer name r1
ip link set s0 address 02:00:00:00:00:01
# No IPv6 on the root namespace's ends: their router and neighbour
# solicitations would miss the flows.
for dev in s0 k0 k1 r1; do
    sysctl -q -w net.ipv6.conf.$dev.disable_ipv6=1
done
for dev in s0 k0 k1; do
    ip link set $dev up
done
for i in 0 1; do
    ip netns add kb$i
    ip link add p$i type veth peer name t$i
    ip link set p$i netns kb$i
    sysctl -q -w net.ipv6.conf.t$i.disable_ipv6=1
    ip netns exec kb$i sysctl -q -w net.ipv6.conf.all.disable_ipv6=1
    ip netns exec kb$i sysctl -q -w net.ipv4.tcp_autocorking=0
    ip -n kb$i link set p$i address 02:00:00:00:01:0$i
    ip -n kb$i addr add 10.1.0.$((i + 1))/24 dev p$i
    ip -n kb$i link set p$i up
    ip -n kb$i link set lo up
    ip link set t$i up
done
ip -n kb0 neigh add 10.1.0.2 lladdr 02:00:00:00:01:01 dev p0
ip -n kb1 neigh add 10.1.0.1 lladdr 02:00:00:00:01:00 dev p1
ip netns exec kb1 iperf3 -s -D -p 5201 --pidfile /tmp/bench/iperf3.pid

# The 1000 exact-match UDP flows from pktgen's port to the sink, and the
# two IPv4 flows between the namespaces (any IPv4 packet, by input port).
udp_key() {
    echo "in_port(1),eth(src=02:00:00:00:00:01,dst=02:00:00:00:00:02),eth_type(0x0800),ipv4(src=10.2.0.1,dst=10.2.0.2,proto=17,tos=0,ttl=32,frag=no),udp(src=$1,dst=2000)"
}
for port in $(seq 1000 1999); do
    echo "$(udp_key $port) 2"
done > /tmp/bench/udp-flows
ip_any="eth(),eth_type(0x0800),ipv4(frag=no)"

# Returns success if test $1 was asked for.
wanted() {
    case " $tests " in
        *" $1 "*) return 0 ;;
    esac
    return 1
}

# Loads variant $1's module and builds the datapath on it.
load() {
    case $1 in
        stock) echo stock > $conf/datapath; : > $conf/module-params ;;
        ours) echo percpu > $conf/datapath; : > $conf/module-params ;;
        ablation) echo percpu > $conf/datapath
                  echo flow_stats_one_slot=1 > $conf/module-params ;;
    esac
    modprobe openvswitch
    ovs-dpctl add-dp bench 2>/dev/null
    for dev in k0 k1 t0 t1; do
        ovs-dpctl add-if bench $dev
    done
    ovs-dpctl add-flow bench "in_port(3),$ip_any" 4
    ovs-dpctl add-flow bench "in_port(4),$ip_any" 3
}

# Removes the datapath and the module of variant $1.
unload() {
    ovs-dpctl del-dp bench 2>/dev/null || true
    case $1 in
        stock) echo stock > $conf/datapath ;;
        *) echo percpu > $conf/datapath ;;
    esac
    modprobe -r openvswitch
}

# Prints the datapath's "hit missed" lookup counters.
lookups() {
    ovs-dpctl show bench | sed -n 's/.*lookups: hit:\([0-9]*\) missed:\([0-9]*\).*/\1 \2/p'
}

# Writes pktgen command $2 for pktgen device or thread $1.
pg() {
    echo "$2" > "/proc/net/pktgen/$1"
    case $(cat "/proc/net/pktgen/$1" | sed -n 's/^Result: //p') in
        OK*|'') ;;
        *) say "pktgen $1: $2: $(sed -n 's/^Result: //p' "/proc/net/pktgen/$1")"
           return 1 ;;
    esac
}

# Runs pktgen for $seconds on the CPUs $1 (e.g. "0" or "0 1") with UDP
# source ports $2 to $3, and prints the packets the datapath forwarded
# per second.
pktgen_rate() {
    for cpu in 0 1; do
        pg kpktgend_$cpu rem_device_all
    done
    for cpu in $1; do
        dev=s0@$cpu
        pg kpktgend_$cpu "add_device $dev"
        pg $dev "count 0"
        pg $dev "clone_skb 0"
        pg $dev "pkt_size 60"
        pg $dev "delay 0"
        pg $dev "dst_mac 02:00:00:00:00:02"
        pg $dev "src_min 10.2.0.1"
        pg $dev "src_max 10.2.0.1"
        pg $dev "dst 10.2.0.2"
        pg $dev "udp_src_min $2"
        pg $dev "udp_src_max $3"
        pg $dev "udp_dst_min 2000"
        pg $dev "udp_dst_max 2000"
    done
    set -- $(lookups)
    hit0=$1
    miss0=$2
    echo start > /proc/net/pktgen/pgctrl &
    pgpid=$!
    sleep "$seconds"
    echo stop > /proc/net/pktgen/pgctrl
    wait $pgpid || true
    set -- $(lookups)
    if [ $(($2 - miss0)) -ne 0 ]; then
        say "$(($2 - miss0)) packets missed the flows (of $(($1 - hit0)) hits)"
    fi
    echo $(( ($1 - hit0) / seconds ))
}

# Prints the number of flows in the kernel datapath ovs-system.
system_flows() {
    ovs-dpctl show system@ovs-system | sed -n 's/^ *flows: *//p'
}

# Replaces the datapath "bench" by our ovs-vswitchd's bridge on k0 and k1,
# sends pktgen's storm of new UDP flows into k0 and prints the datapath
# flows installed per second.  The subshell keeps the OVS_* variables to
# itself, and its output off the figure.
upcall_rate() {
    ovs-dpctl del-dp bench
    rm -rf /tmp/bench/ovs
    mkdir -p /tmp/bench/ovs
    (
        export OVS_RUNDIR=/tmp/bench/ovs OVS_LOGDIR=/tmp/bench/ovs \
            OVS_DBDIR=/tmp/bench/ovs OVS_SYSCONFDIR=/tmp/bench/ovs
        ovsdb-tool create /tmp/bench/ovs/conf.db \
            /var/cache/ovs-percpu/ovs-src/vswitchd/vswitch.ovsschema
        ovsdb-server --detach --no-chdir --pidfile --log-file \
            --remote=punix:/tmp/bench/ovs/db.sock /tmp/bench/ovs/conf.db
        ovs-vsctl --no-wait init -- set Open_vSwitch . \
            other_config:max-idle=600000 other_config:flow-limit=200000
        "$top/vswitchd/ovs-vswitchd" --detach --no-chdir --pidfile \
            --log-file
        ovs-vsctl add-br br0 -- set bridge br0 datapath_type=system \
            fail-mode=secure -- add-port br0 k0 -- add-port br0 k1
        ovs-ofctl add-flow br0 in_port=k0,actions=output:k1
        ovs-appctl upcall/disable-megaflows
        for cpu in 0 1; do
            pg kpktgend_$cpu rem_device_all
        done
        dev=s0@0
        pg kpktgend_0 "add_device $dev"
        pg $dev "count 0"
        pg $dev "clone_skb 0"
        pg $dev "pkt_size 60"
        pg $dev "delay 0"
        pg $dev "dst_mac 02:00:00:00:00:02"
        pg $dev "src_min 10.4.0.1"
        pg $dev "src_max 10.4.0.1"
        pg $dev "dst 10.2.0.2"
        pg $dev "udp_src_min 1024"
        pg $dev "udp_src_max 61023"
        pg $dev "udp_dst_min 2000"
        pg $dev "udp_dst_max 2000"
        echo start > /proc/net/pktgen/pgctrl &
        pgpid=$!
        sleep 1
        f0=$(system_flows)
        sleep "$seconds"
        f1=$(system_flows)
        echo stop > /proc/net/pktgen/pgctrl
        wait $pgpid || true
        say "upcalls: $f0 flows after warm-up, $f1 at the end;" \
            "$(ovs-appctl upcall/show | sed -n 's/^ *flows *: *//p' | head -1)"
        echo $(( (f1 - f0) / seconds )) > /tmp/bench/upcall-rate
        ovs-appctl -t ovs-vswitchd exit --cleanup
        ovs-appctl -t ovsdb-server exit
        # Until ovs-vswitchd has deleted its datapath: the module's
        # unload waits for none.
        i=0
        while ovs-dpctl show system@ovs-system > /dev/null 2>&1 \
              && [ $i -lt 100 ]; do
            sleep 0.2
            i=$((i + 1))
        done
    ) >&2
    cat /tmp/bench/upcall-rate
}

# Runs iperf3 TCP with $1 connections and prints the bits per second
# received.
tcp_rate() {
    ip netns exec kb0 iperf3 -c 10.1.0.2 -p 5201 -N -l 64 -P "$1" \
        -t "$seconds" -J > /tmp/bench/iperf3.json
    python3 -c "
import json
print(int(json.load(open('/tmp/bench/iperf3.json'))['end']['sum_received']['bits_per_second']))"
}

# Measures variant $2 in round $1.
measure() {
    load $2
    start=$(date +%s.%N)
    ovs-dpctl add-flows bench /tmp/bench/udp-flows
    end=$(date +%s.%N)
    n=$(ovs-dpctl dump-flows bench | grep -c 'udp(src=')
    [ "$n" -eq 1000 ] || say "$2: $n UDP flows instead of 1000"
    if wanted setup; then
        echo "$1 $2 setup $(echo "$start $end" | awk '{printf "%d", 1000 / ($2 - $1)}')" >> "$raw"
    fi
    if wanted puts; then
        "$top/utilities/benchmark/flow-put-benchmark" bench $put_flows \
            > /tmp/bench/puts
        sed "s/^/$1 $2 /" /tmp/bench/puts >> "$raw"
    fi
    if wanted udp1; then
        echo "$1 $2 udp1 $(pktgen_rate 0 1000 1000)" >> "$raw"
    fi
    if wanted udpmany; then
        echo "$1 $2 udpmany $(pktgen_rate 0 1000 1999)" >> "$raw"
    fi
    if wanted udp2cpu; then
        echo "$1 $2 udp2cpu $(pktgen_rate '0 1' 1000 1000)" >> "$raw"
    fi
    if wanted tcp1; then
        echo "$1 $2 tcp1 $(tcp_rate 1)" >> "$raw"
    fi
    if wanted tcp8; then
        echo "$1 $2 tcp8 $(tcp_rate 8)" >> "$raw"
    fi
    if wanted upcalls; then
        echo "$1 $2 upcalls $(upcall_rate)" >> "$raw"
    fi
    unload $2
}

set -- $variants
n=$#
for round in $(seq 1 "$rounds"); do
    # The variants in turn, starting one further each round.
    order=
    i=0
    for v in $variants; do
        order="$order $v"
    done
    shift_by=$(( (round - 1) % n ))
    set -- $order
    while [ $shift_by -gt 0 ]; do
        first=$1
        shift
        set -- "$@" "$first"
        shift_by=$((shift_by - 1))
    done
    for v in "$@"; do
        say "round $round: $v"
        measure "$round" "$v"
    done
done
kill "$(cat /tmp/bench/iperf3.pid)" 2>/dev/null || true

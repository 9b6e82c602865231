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
# are one test, "puts"; ctnew and ctnew-pkts are "ctnew"; meter-pass and
# meter-drop are "meter"), runs only those; the default is all.
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
#   ctnew     connections per second that ct(commit) commits: pktgen on
#             CPU 0 sends UDP with a new 5-tuple in every packet (source
#             addresses 10.3.0.0 to 10.3.255.255 and source ports 1024 to
#             65534, each stepping by one per packet) through the flows
#             of ct_flows() below, as ovs-vswitchd installs a stateful
#             firewall's: ct then recirculation, and ct(commit) for
#             +new+trk; the growth of nf_conntrack_count, the
#             conntrack table flushed before and its limit
#             (nf_conntrack_max) far above what the test fills
#   ctnew-pkts  packets per second that reached the ct(commit) flow in
#             that test
#   ctest     established UDP through ct() and a +trk+est match: 8
#             connections (source ports 1000 to 1007) committed, and a
#             packet of each sent back (10.3.0.2 to 10.3.0.1) so that
#             conntrack has seen their replies, then pktgen on CPU 0
#             cycling through them; packets per second that reached the
#             +est+trk flow
#   ctnat     the same through ct(commit,nat(src=10.9.0.1)) in place of
#             ct (the replies go back to 10.9.0.1)
#   meter-pass  64-byte UDP packets per second through a flow with a
#             meter action, pktgen on both CPUs, the meter's one band
#             (10,000,000 packets/s) far above what is sent: every
#             packet is metered and passes
#   meter-drop  the same with a band of 10 packets/s: nearly every
#             packet is dropped by the meter
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

tests="setup puts udp1 udpmany udp2cpu tcp1 tcp8 ctnew ctest ctnat meter upcalls"
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

# Removes every device from pktgen's threads.
pg_reset() {
    for cpu in 0 1; do
        pg kpktgend_$cpu rem_device_all
    done
}

# Adds s0@$1 to pktgen's thread on CPU $1: $9 (0: until stopped) 64-byte
# UDP packets to the datapath's MAC address, from the source addresses $2
# to $3 to address $4, from source ports $5 to $6 to ports $7 to $8.  A
# field with a range steps by one per packet; pktgen leaves the last port
# of a range out.
pg_device() {
    dev=s0@$1
    pg kpktgend_$1 "add_device $dev"
    pg $dev "count $9"
    pg $dev "clone_skb 0"
    pg $dev "pkt_size 60"
    pg $dev "delay 0"
    pg $dev "dst_mac 02:00:00:00:00:02"
    pg $dev "src_min $2"
    pg $dev "src_max $3"
    pg $dev "dst $4"
    pg $dev "udp_src_min $5"
    pg $dev "udp_src_max $6"
    pg $dev "udp_dst_min $7"
    pg $dev "udp_dst_max $8"
}

# Runs the pktgen devices added for $seconds (from now, or until they
# have sent their count).
pg_run() {
    echo start > /proc/net/pktgen/pgctrl &
    pgpid=$!
    sleep "$seconds"
    echo stop > /proc/net/pktgen/pgctrl
    wait $pgpid || true
}

# Sends the count of the pktgen devices added, and returns once sent.
pg_send() {
    echo start > /proc/net/pktgen/pgctrl
}

# Runs pktgen for $seconds on the CPUs $1 (e.g. "0" or "0 1") with UDP
# source ports $2 to $3 from 10.2.0.1 (the 1000 flows' packets, or with
# $4 and $5 another source address and destination port), and prints the
# packets the datapath forwarded per second.
pktgen_rate() {
    pg_reset
    for cpu in $1; do
        pg_device $cpu ${4:-10.2.0.1} ${4:-10.2.0.1} 10.2.0.2 $2 $3 \
            ${5:-2000} ${5:-2000} 0
    done
    set -- $(lookups)
    hit0=$1
    miss0=$2
    pg_run
    set -- $(lookups)
    if [ $(($2 - miss0)) -ne 0 ]; then
        say "$(($2 - miss0)) packets missed the flows (of $(($1 - hit0)) hits)"
    fi
    echo $(( ($1 - hit0) / seconds ))
}

# Conntrack's flows for pktgen's port: $1, the first action on UDP from
# 10.3.0.0/16 (or "ct" or "ct(commit,nat(...))"), recirculates to
# recirc_id 1, where +new+trk is committed and output to the sink and
# +est+trk output to it.  The second pass matches no address, which NAT
# may have changed.
ct_flows() {
    ct_first="recirc_id(0),in_port(1),eth(),eth_type(0x0800),ipv4(src=10.3.0.0/255.255.0.0,frag=no)"
    ct_new="recirc_id(1),in_port(1),ct_state(+new+trk),eth(),eth_type(0x0800),ipv4(frag=no)"
    ct_est="recirc_id(1),in_port(1),ct_state(+est+trk),eth(),eth_type(0x0800),ipv4(frag=no)"
    ovs-dpctl add-flow bench "$ct_first" "$1,recirc(1)"
    ovs-dpctl add-flow bench "$ct_new" "ct(commit),2"
    ovs-dpctl add-flow bench "$ct_est" 2
}

# Deletes ct_flows()'s flows.
ct_flows_del() {
    for key in "$ct_first" "$ct_new" "$ct_est"; do
        ovs-dpctl del-flow bench "$key"
    done
}

# Prints the packets the datapath's flow whose dump matches the
# fixed string $1 has counted.
flow_packets() {
    ovs-dpctl dump-flows bench | grep -F -- "$1" \
        | sed -n 's/.*packets:\([0-9]*\),.*/\1/p' | head -1
}

# Empties the conntrack table and lifts its limits far above what a
# test fills (nf_conntrack comes and goes with the modules).  Prints
# nothing on standard output, which carries the tests' figures.
ct_reset() {
    {
        modprobe nf_conntrack_netlink
        for setting in nf_conntrack_max=2000000 \
                       nf_conntrack_buckets=262144; do
            sysctl -q -w net.netfilter.$setting || say "cannot set $setting"
        done
        python3 "$top/utilities/benchmark/kernel-benchmark-nl.py" ct-flush
    } >&2
}

# Runs the ctnew test: prints "CONNECTIONS PACKETS", per second.
ct_new_rate() {
    ct_reset
    ct_flows ct
    pg_reset
    pg_device 0 10.3.0.0 10.3.255.255 10.3.0.2 1024 65535 2000 2000 0
    c0=$(cat /proc/sys/net/netfilter/nf_conntrack_count)
    p0=$(flow_packets +new)
    pg_run
    c1=$(cat /proc/sys/net/netfilter/nf_conntrack_count)
    p1=$(flow_packets +new)
    ct_flows_del
    if [ "$c1" -gt 1800000 ]; then
        say "ctnew: $c1 connections, near nf_conntrack_max"
    fi
    echo $(( (c1 - c0) / seconds )) $(( (p1 - p0) / seconds ))
    ct_reset
}

# Runs the ctest test through the first action $1 ("ct", or ct() with
# NAT to the address $2): prints the established packets forwarded per
# second.
ct_est_rate() {
    ct_reset
    ct_flows "$1"
    # The 8 connections, then a reply of each.
    pg_reset
    pg_device 0 10.3.0.1 10.3.0.1 10.3.0.2 1000 1008 2000 2000 64
    pg_send
    pg_reset
    pg_device 0 10.3.0.2 10.3.0.2 ${2:-10.3.0.1} 2000 2000 1000 1008 64
    pg_send
    pg_reset
    pg_device 0 10.3.0.1 10.3.0.1 10.3.0.2 1000 1008 2000 2000 0
    n0=$(flow_packets +new)
    e0=$(flow_packets +est)
    pg_run
    n1=$(flow_packets +new)
    e1=$(flow_packets +est)
    ct_flows_del
    if [ "$n1" -ne "$n0" ]; then
        say "$1: $((n1 - n0)) packets were new, not established"
    fi
    echo $(( (e1 - e0) / seconds ))
    ct_reset
}

# Runs the meter tests' traffic from both CPUs through meter 1 with a band
# of $1 packets per second (burst as much) and prints the packets
# metered per second.
meter_rate() {
    nl="python3 $top/utilities/benchmark/kernel-benchmark-nl.py"
    key="recirc_id(0),in_port(1),eth(),eth_type(0x0800),ipv4(src=10.5.0.1,frag=no)"
    $nl meter-set bench 1 "$1" "$1"
    ovs-dpctl add-flow bench "$key" "meter(1),2"
    rate=$(pktgen_rate "0 1" 1000 1000 10.5.0.1)
    set -- $($nl meter-stats bench 1) "$1"
    say "meter of $3 packets/s: $1 packets metered, $2 dropped"
    ovs-dpctl del-flow bench "$key"
    echo "$rate"
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
        pg_reset
        pg_device 0 10.4.0.1 10.4.0.1 10.2.0.2 1024 61023 2000 2000 0
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
    if wanted ctnew; then
        set -- "$1" "$2" $(ct_new_rate)
        echo "$1 $2 ctnew $3" >> "$raw"
        echo "$1 $2 ctnew-pkts $4" >> "$raw"
    fi
    if wanted ctest; then
        echo "$1 $2 ctest $(ct_est_rate ct)" >> "$raw"
    fi
    if wanted ctnat; then
        echo "$1 $2 ctnat $(ct_est_rate 'ct(commit,nat(src=10.9.0.1))' 10.9.0.1)" >> "$raw"
    fi
    if wanted meter; then
        echo "$1 $2 meter-pass $(meter_rate 10000000)" >> "$raw"
        echo "$1 $2 meter-drop $(meter_rate 10)" >> "$raw"
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

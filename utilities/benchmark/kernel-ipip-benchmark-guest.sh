#!/bin/sh
# Copyright (c) 2026 ovs-percpu authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at:
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
#
# The part of utilities/benchmark/kernel-ipip-benchmark.sh that runs in
# the qemu guest of tests/qemu/kernel-guest.sh (never on its own).
#
# Usage: kernel-ipip-benchmark-guest.sh TOP RAW ROUNDS SECONDS
#
# TOP is the build tree (our ovs-vswitchd, datapath/ovs_percpu.ko).  The
# topology, built once:
#
#   namespace kpeer: the peer, Linux's own ipip device ipip1 (10.1.1.2/24,
#     local 172.31.0.2, remote 172.31.0.1) over veth ul1 (172.31.0.2),
#     TSO and GSO off on ul1 so that the receiving side gets MSS-sized
#     packets, as from a NIC;
#   root namespace: ul0 (172.31.0.1) and, behind a datapath_type=system
#     bridge of our ovs-vswitchd, our ipip port t0 and the host h1's veth
#     k-h1;
#   namespace kh1: h1 (10.1.1.1).
#
# Data flows from the peer to h1, so that the root namespace decapsulates:
# a veth delivers on the transmitting CPU, so a sender pinned to CPU N
# gets its packets decapsulated on CPU N.  For each of ROUNDS rounds, for
# each variant (the order rotates from round to round):
#
#   percpu   our ipip port, each CPU feeding its own GRO cell (default)
#   shared   the ablation switch: every CPU feeds one shared cell, as
#            Linux's ipip did before its per-CPU fix
#   nogro    options:gro=false: no cells, netif_rx()
#   linux    no OVS at all: Linux's own ipip device in the root namespace
#            (its kernel gro_cells) and IP forwarding to h1
#
# appends "ROUND VARIANT TEST VALUE" lines to RAW (higher is better):
#
#   tcp1     TCP Mbit/s, one iperf3 stream from the peer pinned to CPU 0
#   tcp2     TCP Mbit/s, two streams from the peer, one pinned to each CPU
#   rr2      request/response transactions per second (64 bytes each way,
#            one at a time per connection, as netperf TCP_RR), two
#            connections, one client pinned to each CPU
#   merge    for the tcp2 run of our port: packets queued to the cells
#            per packet handed up (1 = no merging)

set -e
top=$1
raw=$2
rounds=$3
seconds=$4
ovsb=/var/cache/ovs-percpu/ovs-build
PATH=$top/vswitchd:$ovsb/utilities:$ovsb/ovsdb:$PATH
export PATH
python=/usr/bin/python3
rr=$top/utilities/benchmark/afpacket-rr.py
link=$top/tests/kernel-ipip-link.py

say() {
    echo "kernel-ipip-benchmark: $*" >&2
}

work=/tmp/kipb
rm -rf $work
mkdir -p $work
export OVS_RUNDIR=$work OVS_LOGDIR=$work OVS_DBDIR=$work \
    OVS_SYSCONFDIR=$work

modprobe openvswitch
modprobe ipip

# The topology.
ip netns add kpeer
ip netns add kh1
ip link add ul0 type veth peer name ul1
ip link set ul1 netns kpeer
sysctl -q -w net.ipv6.conf.ul0.disable_ipv6=1
ip addr add 172.31.0.1/24 dev ul0
ip link set ul0 up
ip -n kpeer link set lo up
ip -n kpeer addr add 172.31.0.2/24 dev ul1
ip -n kpeer link set ul1 up
ip netns exec kpeer ethtool -K ul1 tso off gso off > /dev/null 2>&1 || true
ip -n kpeer link add ipip1 type ipip local 172.31.0.2 remote 172.31.0.1
ip -n kpeer addr add 10.1.1.2/24 dev ipip1
ip -n kpeer link set ipip1 up
ip link add h1 type veth peer name k-h1
ip link set h1 netns kh1
sysctl -q -w net.ipv6.conf.k-h1.disable_ipv6=1
ip netns exec kh1 sysctl -q -w net.ipv6.conf.all.disable_ipv6=1
ip -n kh1 link set lo up
ip -n kh1 link set h1 address 00:00:00:00:01:01
ip -n kh1 addr add 10.1.1.1/24 dev h1
ip -n kh1 link set h1 up
ip -n kh1 neigh add 10.1.1.2 lladdr 00:00:00:00:01:02 dev h1
ip link set k-h1 up

ovsdb-tool create $work/conf.db /var/cache/ovs-percpu/ovs-src/vswitchd/vswitch.ovsschema
ovsdb-server --detach --no-chdir --pidfile --log-file \
    --remote=punix:$work/db.sock $work/conf.db
ovs-vsctl --no-wait init
ovs-vswitchd --detach --no-chdir --pidfile --log-file
ovs-vsctl add-br br0 -- set bridge br0 datapath_type=system fail-mode=secure

# Puts h1 behind br0 and our ipip port t0, with GRO option $1.
ovs_up() {
    ovs-vsctl add-port br0 k-h1 -- add-port br0 t0 -- set interface t0 \
        type=ipip options:remote_ip=172.31.0.2 options:local_ip=172.31.0.1 \
        options:gro=$1
    ovs-ofctl add-flow br0 'in_port=k-h1,ip,actions=output:t0'
    ovs-ofctl add-flow br0 'in_port=t0,actions=mod_dl_src:00:00:00:00:01:02,mod_dl_dst:00:00:00:00:01:01,output:k-h1'
}

ovs_down() {
    ovs-vsctl del-port br0 t0 -- del-port br0 k-h1
    ovs-ofctl del-flows br0
}

# Linux's own path: its ipip device ipip0 here, and routing to h1 (k-h1
# takes the MAC that h1 sends the peer's packets to).
linux_up() {
    ip link add ipip0 type ipip local 172.31.0.1 remote 172.31.0.2
    ip link set ipip0 up
    ip link set k-h1 address 00:00:00:00:01:02
    ip route add 10.1.1.1/32 dev k-h1
    ip route add 10.1.1.2/32 dev ipip0
    ip neigh replace 10.1.1.1 lladdr 00:00:00:00:01:01 dev k-h1
    sysctl -q -w net.ipv4.ip_forward=1
    sysctl -q -w net.ipv4.conf.all.rp_filter=0
    sysctl -q -w net.ipv4.conf.ipip0.rp_filter=0
    sysctl -q -w net.ipv4.conf.k-h1.rp_filter=0
}

linux_down() {
    ip link del ipip0
    ip route del 10.1.1.1/32 dev k-h1 2> /dev/null || true
    sysctl -q -w net.ipv4.ip_forward=0
}

# Sets variant $1 up / down.
variant_up() {
    case $1 in
        percpu) ovs_up true ;;
        shared) ovs_up true
                $python $link set t0 shared_cell 1 ;;
        nogro) ovs_up false ;;
        linux) linux_up ;;
    esac
    # The first packets make the megaflows (or neighbour entries).
    i=0
    until ip netns exec kh1 ping -q -c 1 -W 1 10.1.1.2 > /dev/null 2>&1; do
        i=$((i + 1))
        if [ $i -ge 20 ]; then
            say "$1: no connectivity"
            return 1
        fi
    done
}

variant_down() {
    case $1 in
        linux) linux_down ;;
        *) ovs_down ;;
    esac
}

# Prints the sum over ethtool -S t0 of the counters named cpu*_$1.
cells() {
    ethtool -S t0 | awk -v n="_$1:" '$1 ~ /^cpu[0-9]+_/ && index($1, n) {s += $2} END {print s + 0}'
}

# Prints the Mbit/s received by $# iperf3 streams from the peer, the i-th
# pinned to CPU ${i-1} (arguments: CPUs).
tcp() {
    port=5201
    pids=
    for cpu in "$@"; do
        ip netns exec kh1 iperf3 -s -1 -p $port -D \
            --pidfile $work/iperf3-s-$port.pid
        port=$((port + 1))
    done
    sleep 1
    port=5201
    for cpu in "$@"; do
        ip netns exec kpeer taskset -c $cpu iperf3 -c 10.1.1.1 -p $port \
            -t $seconds -J > $work/iperf3-$port.json 2>&1 &
        pids="$pids $!"
        port=$((port + 1))
    done
    for pid in $pids; do
        wait $pid || true
    done
    port=5201
    total=0
    for cpu in "$@"; do
        mbps=$($python -c "
import json, sys
try:
    r = json.load(open('$work/iperf3-$port.json'))
    print(int(r['end']['sum_received']['bits_per_second'] / 1e6))
except Exception:
    print(0)
")
        total=$((total + mbps))
        port=$((port + 1))
    done
    echo $total
}

# Prints the transactions per second of two request/response connections
# from the peer, one client pinned to each CPU.
rr2() {
    for port in 6001 6002; do
        ip netns exec kh1 $python $rr server $port &
    done
    sleep 2
    n=$((seconds * 300))
    ip netns exec kpeer taskset -c 0 $python $rr client 10.1.1.1 6001 $n \
        > $work/rr-0 &
    c0=$!
    ip netns exec kpeer taskset -c 1 $python $rr client 10.1.1.1 6002 $n \
        > $work/rr-1 &
    c1=$!
    wait $c0 || true
    wait $c1 || true
    wait
    awk '{s += $1} END {printf "%d\n", s}' $work/rr-0 $work/rr-1
}

variants="percpu shared nogro linux"
for round in $(seq 1 $rounds); do
    # Rotate the order by one each round.
    shift_by=$(( (round - 1) % 4 ))
    set -- $variants
    i=0
    while [ $i -lt $shift_by ]; do
        first=$1
        shift
        set -- "$@" $first
        i=$((i + 1))
    done
    for v in "$@"; do
        variant_up $v
        echo "$round $v tcp1 $(tcp 0)" >> $raw
        if [ $v = percpu ] || [ $v = shared ]; then
            q0=$(cells queued)
            p0=$(cells polled)
        fi
        echo "$round $v tcp2 $(tcp 0 1)" >> $raw
        if [ $v = percpu ] || [ $v = shared ]; then
            q1=$(cells queued)
            p1=$(cells polled)
            echo "$round $v merge $(awk -v q=$((q1 - q0)) -v p=$((p1 - p0)) 'BEGIN {printf "%.2f\n", (p > 0 ? q / p : 0)}')" >> $raw
        fi
        echo "$round $v rr2 $(rr2)" >> $raw
        say "round $round: $v: $(grep "^$round $v " $raw | cut -d' ' -f3- | tr '\n' ' ')"
        variant_down $v
    done
done

ovs-appctl -t ovs-vswitchd exit --cleanup
ovs-appctl -t ovsdb-server exit
ip netns del kpeer
ip netns del kh1
ip link del ul0 2> /dev/null || true
ip link del k-h1 2> /dev/null || true

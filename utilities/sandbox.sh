# Shell functions, sourced by demo.sh and iperf-vs-stock.sh, that run a
# sandboxed switch: OVS's ovsdb-server and an ovs-vswitchd (ours or stock
# OVS's), one datapath_type=netdev bridge "br-demo", and two network
# namespaces, demo-a (10.99.0.1) and demo-b (10.99.0.2), attached to it by
# veth pairs.  Everything lives in $sandbox and is removed by
# sandbox_cleanup.  Must run as root.

cache=${OVS_PERCPU_CACHE:-/var/cache/ovs-percpu}
OVS_BUILDDIR=$cache/ovs-build
OVS_SRCDIR=$cache/ovs-src

# sandbox_init VSWITCHD_DIR SANDBOX_DIR
#   Puts VSWITCHD_DIR's ovs-vswitchd first in PATH, with OVS's tools, and
#   points the OVS tools at SANDBOX_DIR.
sandbox_init() {
    sandbox=$2
    PATH=$1:$OVS_BUILDDIR/utilities:$OVS_BUILDDIR/ovsdb:$PATH
    OVS_RUNDIR=$sandbox OVS_LOGDIR=$sandbox OVS_DBDIR=$sandbox
    OVS_SYSCONFDIR=$sandbox
    export PATH OVS_RUNDIR OVS_LOGDIR OVS_DBDIR OVS_SYSCONFDIR
    if [ "$(id -u)" != 0 ]; then
        echo "$0: run as root (it creates namespaces and veth pairs)" >&2
        exit 1
    fi
}

# sandbox_wait_exit PID
#   Waits up to 10 s for process PID to exit, then kills it.
sandbox_wait_exit() {
    for i in $(seq 100); do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -9 "$1" 2>/dev/null
}

# sandbox_cleanup
#   Stops the daemons this sandbox started and removes its namespaces.
sandbox_cleanup() {
    set +e
    if [ -f "$sandbox/ovs-vswitchd.pid" ]; then
        pid=$(cat "$sandbox/ovs-vswitchd.pid")
        ovs-appctl -t ovs-vswitchd exit --cleanup >/dev/null 2>&1
        sandbox_wait_exit "$pid"
    fi
    if [ -f "$sandbox/ovsdb-server.pid" ]; then
        pid=$(cat "$sandbox/ovsdb-server.pid")
        kill "$pid" 2>/dev/null
        sandbox_wait_exit "$pid"
    fi
    for ns in demo-a demo-b; do
        ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null
        ip netns del $ns 2>/dev/null
        ip link del ovs-$ns 2>/dev/null
    done
    rm -f "$sandbox/ovs-vswitchd.pid" "$sandbox/ovsdb-server.pid"
    set -e
}

# sandbox_start
#   Starts ovsdb-server and ovs-vswitchd in a fresh $sandbox.
sandbox_start() {
    sandbox_cleanup
    rm -rf "$sandbox"
    mkdir -p "$sandbox"
    ovsdb-tool create "$sandbox/conf.db" \
        "$OVS_SRCDIR/vswitchd/vswitch.ovsschema"
    ovsdb-server --detach --no-chdir --pidfile --log-file \
        --remote="punix:$sandbox/db.sock"
    ovs-vsctl --no-wait init
    ovs-vswitchd --detach --no-chdir --pidfile --log-file \
        --disable-system-route
}

# sandbox_add_hosts
#   Creates br-demo and the two namespaces.  AF_XDP ports, when this OVS
#   build and machine offer them, are polled by PMD threads on cores 0 and
#   1 (pmd-maxsleep 1000 us for every switch, so that idle PMD threads do
#   not starve iperf3 on a small machine); otherwise the veths are system
#   ports, polled by the main thread.  Sets $port_kind to afxdp or system.
sandbox_add_hosts() {
    ovs-vsctl add-br br-demo -- set bridge br-demo datapath_type=netdev
    if ovs-vsctl get Open_vSwitch . iface_types | grep -q afxdp \
       && [ "$(nproc)" -ge 2 ]; then
        port_kind=afxdp
        port_type="type=afxdp options:xdp-mode=generic"
        ovs-vsctl set Open_vSwitch . other_config:pmd-cpu-mask=0x3 \
            other_config:pmd-maxsleep=1000
    else
        port_kind=system
        port_type="type=system"
    fi
    i=1
    for ns in demo-a demo-b; do
        ip netns add $ns
        ip link add $ns type veth peer name ovs-$ns
        ip link set $ns netns $ns
        ip netns exec $ns ip addr add 10.99.0.$i/24 dev $ns
        ip netns exec $ns ip link set $ns up
        ip netns exec $ns ip link set lo up
        # Transmit offloads would hand AF_PACKET partial checksums; OVS's
        # system-userspace tests turn them off the same way.
        ip netns exec $ns ethtool -K $ns tx off >/dev/null 2>&1 || true
        ip link set ovs-$ns up
        ovs-vsctl add-port br-demo ovs-$ns -- set interface ovs-$ns $port_type
        i=$((i + 1))
    done
    ovs-ofctl add-flow br-demo actions=normal
}

# sandbox_iperf SECONDS
#   Runs iperf3 TCP from demo-a to demo-b and prints iperf3's summary.
sandbox_iperf() {
    ip netns exec demo-b iperf3 -s -1 -D -p 5201 \
        --pidfile "$sandbox/iperf3.pid"
    sleep 0.5
    ip netns exec demo-a iperf3 -c 10.99.0.2 -p 5201 -t "$1" | tail -4
}

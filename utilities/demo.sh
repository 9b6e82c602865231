#!/bin/sh
# Builds ovs-percpu and runs a demo with real traffic: a sandbox with OVS's
# ovsdb-server and our ovs-vswitchd, one datapath_type=netdev bridge, and two
# network namespaces joined to it by veth pairs.  They ping each other and
# run iperf3; then the datapath's flows, their per-thread statistics and the
# threads' counters are shown.  Everything is removed at the end.
#
# Run as root.  Set DEMO_KEEP=1 to leave the sandbox running for a look
# around; the script then prints how to use and remove it.
set -e

top=$(cd "$(dirname "$0")/.." && pwd)
"$top/utilities/build.sh"

cache=${OVS_PERCPU_CACHE:-/var/cache/ovs-percpu}
OVS_BUILDDIR=$cache/ovs-build
OVS_SRCDIR=$cache/ovs-src
sandbox=${DEMO_SANDBOX:-/tmp/ovs-percpu-demo}
PATH=$top/vswitchd:$OVS_BUILDDIR/utilities:$OVS_BUILDDIR/ovsdb:$PATH
OVS_RUNDIR=$sandbox OVS_LOGDIR=$sandbox OVS_DBDIR=$sandbox
OVS_SYSCONFDIR=$sandbox
export PATH OVS_RUNDIR OVS_LOGDIR OVS_DBDIR OVS_SYSCONFDIR

step() {
    printf '\n=== %s\n' "$*"
}

cleanup() {
    set +e
    if [ -f "$sandbox/ovs-vswitchd.pid" ]; then
        ovs-appctl -t ovs-vswitchd exit --cleanup >/dev/null 2>&1
    fi
    if [ -f "$sandbox/ovsdb-server.pid" ]; then
        kill "$(cat "$sandbox/ovsdb-server.pid")" 2>/dev/null
    fi
    for ns in demo-a demo-b; do
        ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null
        ip netns del $ns 2>/dev/null
    done
    ip link del ovs-demo-a 2>/dev/null
    ip link del ovs-demo-b 2>/dev/null
}

if [ "$(id -u)" != 0 ]; then
    echo "demo: run as root (it creates namespaces and veth pairs)" >&2
    exit 1
fi

cleanup
rm -rf "$sandbox"
mkdir -p "$sandbox"
[ -n "$DEMO_KEEP" ] || trap cleanup EXIT

step "Starting ovsdb-server and ovs-percpu's ovs-vswitchd in $sandbox"
ovsdb-tool create "$sandbox/conf.db" "$OVS_SRCDIR/vswitchd/vswitch.ovsschema"
ovsdb-server --detach --no-chdir --pidfile --log-file \
    --remote="punix:$sandbox/db.sock"
ovs-vsctl --no-wait init
ovs-vswitchd --detach --no-chdir --pidfile --log-file \
    --disable-system-route
ovs-vswitchd --version

step "Creating bridge br-demo (datapath_type=netdev) and two namespaces"
ovs-vsctl add-br br-demo -- set bridge br-demo datapath_type=netdev
i=1
for ns in demo-a demo-b; do
    ip netns add $ns
    ip link add $ns type veth peer name ovs-$ns
    ip link set $ns netns $ns
    ip netns exec $ns ip addr add 10.99.0.$i/24 dev $ns
    ip netns exec $ns ip link set $ns up
    ip netns exec $ns ip link set lo up
    # Transmit offloads would hand AF_PACKET partial checksums; see OVS's
    # system-userspace tests, which do the same.
    ip netns exec $ns ethtool -K $ns tx off >/dev/null 2>&1 || true
    ip link set ovs-$ns up
    ovs-vsctl add-port br-demo ovs-$ns
    i=$((i + 1))
done
ovs-vsctl show

step "demo-a pings demo-b"
ip netns exec demo-a ping -c 3 -i 0.3 10.99.0.2

step "iperf3 from demo-a to demo-b, 3 seconds"
ip netns exec demo-b iperf3 -s -1 -D -p 5201 --pidfile "$sandbox/iperf3.pid"
sleep 0.5
ip netns exec demo-a iperf3 -c 10.99.0.2 -p 5201 -t 3 | tail -4

step "ovs-appctl dpctl/dump-flows: one line per megaflow, summed over threads"
ovs-appctl dpctl/dump-flows

step "ovs-appctl dpif-percpu/flow-stats-show: one megaflow's per-thread slots"
ufid=$(ovs-appctl dpctl/dump-flows -m | grep 'eth_type(0x0800)' \
       | sort -t: -k2 | head -1 | sed 's/,.*//')
ovs-appctl dpif-percpu/flow-stats-show "$ufid"

step "ovs-appctl dpif-percpu/pmd-stats-show: per-thread counters"
ovs-appctl dpif-percpu/pmd-stats-show

if [ -n "$DEMO_KEEP" ]; then
    cat <<EOM

The sandbox is still running.  To use it:
  export OVS_RUNDIR=$sandbox PATH=$top/vswitchd:$OVS_BUILDDIR/utilities:\$PATH
  ovs-appctl dpctl/dump-flows
To remove it, run this script again without DEMO_KEEP, or:
  ovs-appctl exit --cleanup; kill \$(cat $sandbox/ovsdb-server.pid)
  ip netns del demo-a; ip netns del demo-b
EOM
else
    step "Done; removing the sandbox"
fi

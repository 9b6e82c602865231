#!/bin/sh
# Builds ovs-percpu and runs a demo with real traffic: a sandbox with OVS's
# ovsdb-server and our ovs-vswitchd, one datapath_type=netdev bridge, and two
# network namespaces joined to it by veth pairs (AF_XDP ports on two PMD
# threads where AF_XDP works, system ports otherwise).  They ping each other
# and run iperf3; then the datapath's flows, their per-thread statistics and
# the threads' counters are shown.  Then two switches of ours, one in a
# namespace of its own as a second host would run it, are joined by an ipip
# tunnel over a veth underlay (see tunnel-sandbox.sh), and a host behind each
# pings the other and runs iperf3 through the tunnel; the tunnel's counters
# and GRO cells are shown.  Everything is removed at the end.
#
# Run as root.  Set DEMO_KEEP=1 to leave the sandbox running for a look
# around; the script then prints how to use and remove it.
set -e

top=$(cd "$(dirname "$0")/.." && pwd)
"$top/utilities/build.sh"
. "$top/utilities/sandbox.sh"
. "$top/utilities/tunnel-sandbox.sh"
sandbox_init "$top/vswitchd" "${DEMO_SANDBOX:-/tmp/ovs-percpu-demo}"

step() {
    printf '\n=== %s\n' "$*"
}

[ -n "$DEMO_KEEP" ] || trap sandbox_cleanup EXIT

step "Starting ovsdb-server and ovs-percpu's ovs-vswitchd in $sandbox"
sandbox_start
ovs-vswitchd --version

step "Creating bridge br-demo (datapath_type=netdev) and two namespaces"
sandbox_add_hosts
echo "The veth ports are $port_kind ports."
ovs-appctl dpif-percpu/pmd-rxq-show
ovs-vsctl show

step "demo-a pings demo-b"
ip netns exec demo-a ping -c 3 -i 0.3 10.99.0.2

step "iperf3 from demo-a to demo-b, 3 seconds"
sandbox_iperf 3

step "ovs-appctl dpctl/dump-flows: one line per megaflow, summed over threads"
ovs-appctl dpctl/dump-flows netdev@ovs-netdev

step "ovs-appctl dpif-percpu/flow-stats-show: per-thread slots of the IPv4 megaflows"
for ufid in $(ovs-appctl dpctl/dump-flows -m netdev@ovs-netdev \
              | grep 'eth_type(0x0800)' | sed 's/,.*//'); do
    ovs-appctl dpif-percpu/flow-stats-show "$ufid"
done

step "ovs-appctl dpif-percpu/pmd-stats-show: per-thread counters"
ovs-appctl dpif-percpu/pmd-stats-show

if [ -z "$DEMO_KEEP" ]; then
    step "Two switches joined by an ipip tunnel"
    sandbox_cleanup
    if [ "$port_kind" = afxdp ]; then
        # Native XDP: a veth spreads its queues only to native XDP.
        ports="type=afxdp options:xdp-mode=native options:n_rxq=2"
        tunnel_host_options=$ports
        tunnel_sandbox_start "$ports" "$ports" true 0x3 \
            > "$sandbox.tunnel.log" 2>&1
    else
        tunnel_sandbox_start type=system type=system true \
            > "$sandbox.tunnel.log" 2>&1
    fi
    echo "The switches' ports are $port_kind ports."
    trap tunnel_sandbox_cleanup EXIT
    ovs-appctl ofproto/list-tunnels
    hv2 ovs-appctl ofproto/list-tunnels

    step "demo-h1 pings demo-h2 through the tunnel (the first ping waits while ARP finds the next hop; none is lost)"
    ip netns exec demo-h1 ping -c 4 -i 0.3 10.98.0.2 || true
    ovs-appctl tnl/neigh/show

    step "iperf3 from demo-h1 to demo-h2 through the tunnel, 3 seconds"
    tunnel_iperf 3

    step "The second switch's datapath flows: decapsulated packets come in on t0"
    hv2 ovs-appctl dpctl/dump-flows netdev@ovs-netdev | grep 'tunnel(' || true

    step "The second switch's tunnel counters and GRO cells"
    hv2 ovs-appctl dpif-percpu/tunnel-stats-show | grep -v ': 0$'

    step "The second switch's threads: which polls which queue"
    hv2 ovs-appctl dpif-percpu/pmd-rxq-show
fi

if [ -n "$DEMO_KEEP" ]; then
    cat <<EOM

The sandbox is still running.  To use it:
  export OVS_RUNDIR=$sandbox PATH=$PATH
  ovs-appctl dpctl/dump-flows netdev@ovs-netdev
To remove it, run this script again without DEMO_KEEP, or:
  ovs-appctl exit --cleanup; kill \$(cat $sandbox/ovsdb-server.pid)
  ip netns del demo-a; ip netns del demo-b
EOM
else
    step "Done; removing the sandbox"
fi

# Shell functions, sourced by demo.sh and ipip-benchmark.sh after
# sandbox.sh, that run two switches of ours joined by an ipip tunnel, as two
# hosts would:
#
#   demo-h1 (10.98.0.1)                              demo-h2 (10.98.0.2)
#        |                                                 |
#     br-int --t0 ipip 192.168.77.1 <-> 192.168.77.2 t0-- br-int
#     br-ul (192.168.77.1) --ul1====ul2-- br-ul (192.168.77.2)
#   switch 1: this namespace, files in $sandbox   switch 2: namespace demo-hv2,
#                                                 files in $sandbox/hv2
#
# Each switch is OVS's ovsdb-server and our ovs-vswitchd.  The underlay is a
# veth pair; the overlay hosts are namespaces on veth pairs.  Call
# sandbox_init first.  Must run as root.

# hv2 COMMAND...
#   Runs COMMAND in switch 2's namespace, against switch 2.
hv2() {
    ip netns exec demo-hv2 env OVS_RUNDIR="$sandbox/hv2" \
        OVS_LOGDIR="$sandbox/hv2" OVS_DBDIR="$sandbox/hv2" \
        OVS_SYSCONFDIR="$sandbox/hv2" "$@"
}

# hv1 COMMAND...
#   Runs COMMAND against switch 1, in this namespace.
hv1() {
    "$@"
}

# tunnel_switch_start HV DIR
#   Starts ovsdb-server and ovs-vswitchd of switch HV (hv1 or hv2) with
#   their files in DIR.
tunnel_switch_start() {
    mkdir -p "$2"
    $1 ovsdb-tool create "$2/conf.db" "$OVS_SRCDIR/vswitchd/vswitch.ovsschema"
    $1 ovsdb-server --detach --no-chdir --pidfile --log-file \
        --remote="punix:$2/db.sock" "$2/conf.db"
    $1 ovs-vsctl --no-wait init
    $1 ovs-vswitchd --detach --no-chdir --pidfile --log-file \
        --disable-system --disable-system-route
}

# tunnel_sandbox_cleanup
#   Stops both switches and removes the namespaces and links.
tunnel_sandbox_cleanup() {
    set +e
    if [ -f "$sandbox/hv2/ovs-vswitchd.pid" ]; then
        pid=$(cat "$sandbox/hv2/ovs-vswitchd.pid")
        hv2 ovs-appctl -t ovs-vswitchd exit --cleanup >/dev/null 2>&1
        sandbox_wait_exit "$pid"
    fi
    if [ -f "$sandbox/hv2/ovsdb-server.pid" ]; then
        pid=$(cat "$sandbox/hv2/ovsdb-server.pid")
        kill "$pid" 2>/dev/null
        sandbox_wait_exit "$pid"
    fi
    rm -f "$sandbox/hv2/ovs-vswitchd.pid" "$sandbox/hv2/ovsdb-server.pid"
    sandbox_cleanup
    set +e
    for ns in demo-h1 demo-h2 demo-hv2; do
        ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null
        ip netns del $ns 2>/dev/null
    done
    ip link del ul1 2>/dev/null
    ip link del ovs-h1 2>/dev/null
    set -e
}

# tunnel_add_host HV NS IP MAC PEER_IP PEER_MAC
#   Creates host namespace NS with address IP and MAC on a veth whose other
#   end, ovs-${NS#demo-}, goes to switch HV's namespace.  The veth has a
#   queue per core, so that the host's streams spread over them.  The tunnel
#   carries IPv4 only, so the host knows its peer's MAC.
tunnel_add_host() {
    port=ovs-${2#demo-}
    ip netns add "$2"
    ip link add eth0 netns "$2" numtxqueues "$(nproc)" \
        numrxqueues "$(nproc)" type veth peer name "$port" \
        numtxqueues "$(nproc)" numrxqueues "$(nproc)"
    [ "$1" = hv1 ] || ip link set "$port" netns demo-hv2
    ip netns exec "$2" ip link set eth0 address "$4"
    ip netns exec "$2" ip addr add "$3/24" dev eth0
    ip netns exec "$2" ip link set eth0 up
    ip netns exec "$2" ip link set lo up
    # AF_PACKET would see partial checksums otherwise; OVS's own
    # system-userspace tests turn them off the same way.
    ip netns exec "$2" ethtool -K eth0 tx off >/dev/null 2>&1 || true
    ip netns exec "$2" ip neigh add "$5" lladdr "$6" dev eth0
    # Spread streams over the queues by their hash, not by the sending CPU
    # (iperf3 sends every stream from one thread).
    ip netns exec "$2" sh -c 'for q in /sys/class/net/eth0/queues/tx-*; do
                                  echo 0 > $q/xps_cpus; done' 2>/dev/null || true
    $1 ip link set "$port" up
}

# Interface settings of the hosts' ports, e.g. "type=afxdp
# options:xdp-mode=generic"; system ports by default.
tunnel_host_options=${tunnel_host_options:-type=system}

# tunnel_configure_switch HV LOCAL_IP REMOTE_IP HOST_PORT HOST_MAC PEER_MAC
#                         UL_PORT UL_OPTIONS GRO
#   Sets up switch HV (hv1 or hv2): br-ul with underlay port UL_PORT
#   (interface options UL_OPTIONS) and LOCAL_IP on its local port, br-int
#   with HOST_PORT and ipip port t0 to REMOTE_IP, and the flows between
#   them.
tunnel_configure_switch() {
    hv=$1
    shift
    $hv ovs-vsctl add-br br-ul -- set bridge br-ul datapath_type=netdev \
        -- add-port br-ul "$6" -- set interface "$6" $7
    $hv ip addr add "$1/24" dev br-ul
    $hv ip link set br-ul up
    $hv ovs-appctl ovs/route/add "$2/24" br-ul > /dev/null
    $hv ovs-ofctl add-flow br-ul actions=normal
    $hv ovs-vsctl add-br br-int -- set bridge br-int datapath_type=netdev \
        -- add-port br-int "$3" -- set interface "$3" $tunnel_host_options \
        -- add-port br-int t0 -- set interface t0 type=ipip \
           options:local_ip="$1" options:remote_ip="$2" options:gro="$8"
    $hv ovs-ofctl add-flow br-int "in_port=$3,ip,actions=output:t0"
    $hv ovs-ofctl add-flow br-int \
        "in_port=t0,actions=mod_dl_src:$5,mod_dl_dst:$4,output:$3"
}

# tunnel_sandbox_start UL_OPTIONS HV2_UL_OPTIONS GRO [PMD_MASK [TSO]]
#   Starts both switches and builds the topology above.  UL_OPTIONS and
#   HV2_UL_OPTIONS are the interface settings of the underlay ports ul1 and
#   ul2 (e.g. "type=system", or "type=afxdp options:xdp-mode=generic
#   options:n_rxq=2"); GRO is both t0's options:gro.  PMD_MASK, if set, is
#   both switches' pmd-cpu-mask.  TSO, if "true", turns on
#   userspace-tso-enable in both switches.  The veth pair has as many queues
#   as the machine has cores.
tunnel_sandbox_start() {
    tunnel_sandbox_cleanup
    rm -rf "$sandbox"
    mkdir -p "$sandbox"
    n_queues=$(nproc)

    tunnel_switch_start hv1 "$sandbox"
    ip netns add demo-hv2
    ip netns exec demo-hv2 ip link set lo up
    tunnel_switch_start hv2 "$sandbox/hv2"
    if [ -n "$4" ]; then
        for hv in hv1 hv2; do
            $hv ovs-vsctl set Open_vSwitch . other_config:pmd-cpu-mask="$4" \
                other_config:pmd-maxsleep=1000
        done
    fi
    if [ "$5" = true ]; then
        hv1 ovs-vsctl set Open_vSwitch . other_config:userspace-tso-enable=true
        hv2 ovs-vsctl set Open_vSwitch . other_config:userspace-tso-enable=true
    fi

    ip link add ul1 numtxqueues "$n_queues" numrxqueues "$n_queues" \
        type veth peer name ul2 netns demo-hv2 \
        numtxqueues "$n_queues" numrxqueues "$n_queues"
    ip link set ul1 up
    ip netns exec demo-hv2 ip link set ul2 up

    tunnel_add_host hv1 demo-h1 10.98.0.1 00:00:00:00:98:01 \
        10.98.0.2 00:00:00:00:98:02
    tunnel_add_host hv2 demo-h2 10.98.0.2 00:00:00:00:98:02 \
        10.98.0.1 00:00:00:00:98:01

    tunnel_configure_switch hv1 192.168.77.1 192.168.77.2 ovs-h1 \
        00:00:00:00:98:01 00:00:00:00:98:02 ul1 "$1" "$3"
    tunnel_configure_switch hv2 192.168.77.2 192.168.77.1 ovs-h2 \
        00:00:00:00:98:02 00:00:00:00:98:01 ul2 "$2" "$3"
}

# tunnel_h2_on_tap
#   Moves demo-h2 from its veth onto a tap: switch 2's internal port h2tap,
#   moved into demo-h2.  With userspace-tso-enable, that tap takes packets
#   marked for TCP segmentation whole, through its vnet header, as a VM's
#   or container's tap would.
tunnel_h2_on_tap() {
    hv2 ovs-vsctl del-port br-int ovs-h2 \
        -- add-port br-int h2tap -- set interface h2tap type=internal
    hv2 ip link set h2tap netns demo-h2
    ip netns exec demo-h2 ip link del eth0
    ip netns exec demo-h2 ip link set h2tap address 00:00:00:00:98:02
    ip netns exec demo-h2 ip addr add 10.98.0.2/24 dev h2tap
    ip netns exec demo-h2 ip link set h2tap up
    ip netns exec demo-h2 ip neigh replace 10.98.0.1 \
        lladdr 00:00:00:00:98:01 dev h2tap
    hv2 ovs-ofctl del-flows br-int
    hv2 ovs-ofctl add-flow br-int "in_port=h2tap,ip,actions=output:t0"
    hv2 ovs-ofctl add-flow br-int "in_port=t0,actions=mod_dl_src:00:00:00:00:98:01,mod_dl_dst:00:00:00:00:98:02,output:h2tap"
}

# tunnel_iperf SECONDS [STREAMS]
#   Runs iperf3 TCP from demo-h1 to demo-h2, printing iperf3's summary.
tunnel_iperf() {
    ip netns exec demo-h2 iperf3 -s -1 -D -p 5201 \
        --pidfile "$sandbox/iperf3.pid"
    sleep 0.5
    ip netns exec demo-h1 iperf3 -c 10.98.0.2 -p 5201 -t "$1" \
        -P "${2:-1}" | tail -4
}

#!/bin/bash
# A two-chassis OVN sandbox on one machine, driving our ovs-vswitchd (or,
# with --stock, stock OVS 3.1's) on both chassis, as OVN users run it:
#
#   central (this namespace): NB and SB ovsdb-servers, ovn-northd
#
#   chassis hv1 (namespace ovn-hv1)          chassis hv2 (namespace ovn-hv2)
#   ovsdb-server, ovs-vswitchd,              ovsdb-server, ovs-vswitchd,
#   ovn-controller                           ovn-controller
#     br-int: h1 (ls1) h4 (ls2)                br-int: h2 (ls2) h3 (ls1) dh
#             geneve to 192.168.77.2                   geneve to 192.168.77.1
#     br-ul 192.168.77.1 --ul-hv1====ul-hv2-- br-ul 192.168.77.2
#     br-ex (localnet "phys") -- ext (172.16.0.100)
#
# The logical network is made with ovn-nbctl only: switches ls1
# (10.0.1.0/24) and ls2 (10.0.2.0/24) joined by the distributed router
# lr0, whose gateway port to the switch "public" (172.16.0.0/24, localnet
# on br-ex) is bound to hv1, with SNAT for 10.0.0.0/16 and DNAT of
# 172.16.0.50 to h2; ACLs on ls2 (allow-related TCP 7001 to h2, drop TCP
# 7002 to h2); a load balancer 10.0.2.100:80 over h3 (hv2) and h4 (hv1);
# OVN's DHCP for dh; and gateway_mtu on the gateway port.  Hosts are
# namespaces on veth pairs whose chassis end is bound to its logical switch
# port by external_ids:iface-id.  Every link lives in one of the
# namespaces, so deleting them removes every link; every daemon is stopped
# by its PID.  Must run as root; see Documentation/ovn.md.
#
#   ovn-sandbox.sh [--stock] [--stats]   runs the checks, as a demo
#   ovn-sandbox.sh [--stock] --check     the same, quieter; exits 1 if a
#                                        check failed (tests/system-ovn.at)
#   ovn-sandbox.sh [--stock] --bench SECONDS
#                                        only ls1, ls2 and lr0; prints
#                                        "iperf3 MBPS" (h1 to h2 across the
#                                        chassis) and "rr TRANS_PER_S
#                                        MEAN_US MEDIAN_US"
#                                        (utilities/benchmark/ovn-benchmark.sh)
#   --stats                              at the end, each chassis's
#                                        dpctl/dump-flows, tunnel counters
#                                        and GRO cells, thread counters
#   --keep                               leaves the sandbox's files in
#                                        $OVN_SANDBOX_DIR
set -e

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${OVS_PERCPU_CACHE:-/var/cache/ovs-percpu}
OVS_BUILDDIR=$cache/ovs-build
OVS_SRCDIR=$cache/ovs-src

mode=demo
stock=no
stats=no
keep=no
bench_seconds=5
while [ $# -gt 0 ]; do
    case $1 in
        --stock) stock=yes ;;
        --stats) stats=yes ;;
        --check) mode=check ;;
        --bench) mode=bench; bench_seconds=$2; shift ;;
        --keep) keep=yes ;;
        *) sed -n '/^#   ovn-sandbox.sh/,/^set -e/p' "$0" | sed '$d'; exit 2 ;;
    esac
    shift
done

if [ "$(id -u)" != 0 ]; then
    echo "$0: run as root (it creates namespaces and veth pairs)" >&2
    exit 1
fi
for tool in ovn-northd ovn-controller ovn-nbctl ovn-sbctl; do
    if ! command -v $tool > /dev/null; then
        echo "$0: $tool missing: install ovn-central and ovn-host" \
             "(utilities/install-deps.sh)" >&2
        exit 77
    fi
done
ovn_schemas=${OVN_SCHEMA_DIR:-/usr/share/ovn}

# OVN_SANDBOX_VSWITCHD, if set, is the ovs-vswitchd of ours to run (the
# test suite's build); --stock takes stock OVS 3.1's.
if [ $stock = yes ]; then
    vswitchd=$OVS_BUILDDIR/vswitchd/ovs-vswitchd
else
    vswitchd=${OVN_SANDBOX_VSWITCHD:-$top/vswitchd/ovs-vswitchd}
fi
if [ ! -x "$vswitchd" ]; then
    echo "$0: $vswitchd missing: run utilities/build.sh" >&2
    exit 1
fi
# OVS's own tools and ovsdb-server from the tree we build against, never
# Debian's /usr/sbin ones (ovn-host pulls in openvswitch-switch).
PATH=$OVS_BUILDDIR/utilities:$OVS_BUILDDIR/ovsdb:$PATH
export PATH

dir=${OVN_SANDBOX_DIR:-/tmp/ovn-sandbox.$$}
# Our namespaces: the chassis, the hosts and the external network.
namespaces="ovn-hv1 ovn-hv2 ovn-h1 ovn-h2 ovn-h3 ovn-h4 ovn-dh ovn-ext"

# say TEXT...
#   Prints a heading (not in --check mode's quiet parts).
say() {
    echo "== $*"
}

# hv CHASSIS COMMAND...
#   Runs COMMAND in CHASSIS's namespace, against CHASSIS's ovsdb-server,
#   ovs-vswitchd and ovn-controller (their files are in $dir/CHASSIS).
hv() {
    local c=$1
    shift
    ip netns exec "ovn-$c" env OVS_RUNDIR="$dir/$c" OVS_LOGDIR="$dir/$c" \
        OVS_DBDIR="$dir/$c" OVS_SYSCONFDIR="$dir/$c" OVN_RUNDIR="$dir/$c" \
        OVN_LOGDIR="$dir/$c" OVN_DBDIR="$dir/$c" "$@"
}

# host HOST COMMAND...
#   Runs COMMAND in host HOST's namespace.
host() {
    local h=$1
    shift
    ip netns exec "ovn-$h" "$@"
}

# nbctl ARG...  and  sbctl ARG...
#   ovn-nbctl and ovn-sbctl against the sandbox's databases.
nbctl() {
    ovn-nbctl --db="unix:$dir/nb.sock" "$@"
}
sbctl() {
    ovn-sbctl --db="unix:$dir/sb.sock" "$@"
}

# wait_until SECONDS COMMAND...
#   Runs COMMAND every 0.1 s until it succeeds; 1 after SECONDS.
wait_until() {
    local n=$(($1 * 10))
    shift
    while [ $n -gt 0 ]; do
        "$@" > /dev/null 2>&1 && return 0
        sleep 0.1
        n=$((n - 1))
    done
    return 1
}

# wait_exit PID
#   Waits up to 5 s for process PID to exit; 1 if it is still there.
wait_exit() {
    local i
    for i in $(seq 50); do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 0.1
    done
    return 1
}

# stop_pidfile FILE
#   Stops the process whose PID FILE holds: SIGTERM, then SIGKILL after
#   5 s.
stop_pidfile() {
    local pid
    [ -f "$1" ] || return 0
    pid=$(cat "$1")
    kill "$pid" 2>/dev/null || true
    wait_exit "$pid" || kill -9 "$pid" 2>/dev/null || true
    rm -f "$1"
}

# cleanup
#   Stops every daemon the sandbox started, by PID, the processes left in
#   its namespaces, and deletes the namespaces (and with them every link).
#   Runs on any exit.
cleanup() {
    local rc=$? c ns pid
    set +e
    trap - EXIT INT TERM
    for c in hv1 hv2; do
        stop_pidfile "$dir/$c/ovn-controller.pid"
        if [ -f "$dir/$c/ovs-vswitchd.pid" ]; then
            hv $c timeout 5 ovs-appctl -t ovs-vswitchd exit --cleanup \
                >> "$dir/cleanup.log" 2>&1
            wait_exit "$(cat "$dir/$c/ovs-vswitchd.pid")"
            stop_pidfile "$dir/$c/ovs-vswitchd.pid"
        fi
        stop_pidfile "$dir/$c/ovsdb-server.pid"
    done
    stop_pidfile "$dir/northd.pid"
    stop_pidfile "$dir/nb.pid"
    stop_pidfile "$dir/sb.pid"
    for ns in $namespaces; do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do
            kill "$pid" 2>/dev/null
        done
    done
    for ns in $namespaces; do
        ip netns del "$ns" 2>/dev/null
    done
    if [ $keep = no ]; then
        rm -rf "$dir"
    else
        echo "sandbox files kept in $dir"
    fi
    exit $rc
}

# central_start
#   Creates the NB and SB databases and starts their ovsdb-servers and
#   ovn-northd, all on Unix sockets in $dir.
central_start() {
    local db
    for db in nb sb; do
        ovsdb-tool create "$dir/$db.db" "$ovn_schemas/ovn-$db.ovsschema"
        ovsdb-server --detach --no-chdir -vconsole:off --pidfile="$dir/$db.pid" \
            --log-file="$dir/$db.log" --unixctl="$dir/$db.ctl" \
            --remote="punix:$dir/$db.sock" "$dir/$db.db"
    done
    ovn-northd --detach --no-chdir -vconsole:off --pidfile="$dir/northd.pid" \
        --log-file="$dir/northd.log" --unixctl="$dir/northd.ctl" \
        --ovnnb-db="unix:$dir/nb.sock" --ovnsb-db="unix:$dir/sb.sock"
    nbctl init
}

# chassis_start CHASSIS ENCAP_IP [BRIDGE_MAPPINGS]
#   Starts chassis CHASSIS in its namespace (created before, with its
#   underlay end ul-CHASSIS in it): ovsdb-server, the ovs-vswitchd under
#   test, br-ul with ENCAP_IP on its local port and the underlay port,
#   br-int, and ovn-controller with geneve encapsulation from ENCAP_IP.
chassis_start() {
    local c=$1 ip=$2
    mkdir -p "$dir/$c"
    hv $c ip link set lo up
    hv $c ovsdb-tool create "$dir/$c/conf.db" \
        "$OVS_SRCDIR/vswitchd/vswitch.ovsschema"
    hv $c ovsdb-server --detach --no-chdir -vconsole:off --pidfile --log-file \
        --remote="punix:$dir/$c/db.sock" "$dir/$c/conf.db"
    hv $c ovs-vsctl --no-wait init
    hv $c ovs-vsctl --no-wait set Open_vSwitch . \
        external_ids:system-id=$c external_ids:hostname=$c \
        external_ids:ovn-remote="unix:$dir/sb.sock" \
        external_ids:ovn-encap-type=geneve \
        external_ids:ovn-encap-ip=$ip \
        external_ids:ovn-bridge-datapath-type=netdev
    if [ -n "$3" ]; then
        hv $c ovs-vsctl --no-wait set Open_vSwitch . \
            external_ids:ovn-bridge-mappings="$3"
    fi
    hv $c "$vswitchd" --detach --no-chdir -vconsole:off --pidfile --log-file \
        --disable-system --disable-system-route
    hv $c ip link set ul-$c up
    hv $c ovs-vsctl add-br br-ul -- set bridge br-ul datapath_type=netdev \
        -- add-port br-ul ul-$c
    hv $c ip addr add $ip/24 dev br-ul
    hv $c ip link set br-ul up
    hv $c ovs-appctl ovs/route/add $ip/24 br-ul > /dev/null
    hv $c ovs-ofctl add-flow br-ul actions=normal
    hv $c ovs-vsctl add-br br-int -- set bridge br-int datapath_type=netdev \
        fail-mode=secure other-config:disable-in-band=true
    if [ -n "$3" ]; then
        hv $c ovs-vsctl add-br "${3#*:}" \
            -- set bridge "${3#*:}" datapath_type=netdev
    fi
    hv $c ovn-controller --detach --no-chdir -vconsole:off --pidfile --log-file \
        "unix:$dir/$c/db.sock"
}

# host_add HOST CHASSIS MAC [ADDR/PLEN GATEWAY]
#   Creates host HOST: namespace ovn-HOST with eth0 (MAC, MTU 1400, to
#   leave room for geneve on the 1500-byte underlay; ADDR/PLEN and a
#   default route through GATEWAY if given), whose peer, named HOST, is a
#   port of CHASSIS's br-int bound to logical switch port HOST.
host_add() {
    local h=$1 c=$2
    ip netns add ovn-$h
    ip link add $h netns ovn-$c type veth peer name eth0 netns ovn-$h
    host $h ip link set lo up
    host $h ip link set eth0 address $3 mtu 1400 up
    # AF_PACKET would see partial checksums otherwise; OVS's own
    # system-userspace tests turn them off the same way.
    host $h ethtool -K eth0 tx off > /dev/null 2>&1 || true
    if [ -n "$4" ]; then
        host $h ip addr add $4 dev eth0
        host $h ip route add default via $5
    fi
    hv $c ip link set $h up
    hv $c ovs-vsctl add-port br-int $h \
        -- set interface $h external_ids:iface-id=$h
}

# lsp_add SWITCH PORT MAC IP
#   A logical switch port with one address.
lsp_add() {
    nbctl lsp-add $1 $2 -- lsp-set-addresses $2 "$3 $4"
}

# router_attach ROUTER SWITCH MAC ADDR/PLEN
#   Joins SWITCH to ROUTER by router port ROUTER-SWITCH.
router_attach() {
    nbctl lrp-add $1 $1-$2 $3 $4 \
        -- lsp-add $2 $2-$1 -- lsp-set-type $2-$1 router \
        -- lsp-set-addresses $2-$1 router \
        -- lsp-set-options $2-$1 router-port=$1-$2
}

# topology_start
#   The chassis, the hosts h1 to h4 and the logical network ls1, ls2, lr0.
topology_start() {
    say "starting central, chassis hv1 and hv2 ($(basename "$(dirname "$(dirname "$vswitchd")")")/vswitchd/ovs-vswitchd$([ $stock = yes ] && echo ', stock OVS 3.1'))"
    mkdir -p "$dir"
    central_start
    ip netns add ovn-hv1
    ip netns add ovn-hv2
    ip link add ul-hv1 netns ovn-hv1 type veth peer name ul-hv2 netns ovn-hv2
    chassis_start hv1 192.168.77.1 phys:br-ex
    chassis_start hv2 192.168.77.2

    nbctl ls-add ls1 -- ls-add ls2 -- lr-add lr0
    router_attach lr0 ls1 00:00:00:01:00:01 10.0.1.1/24
    router_attach lr0 ls2 00:00:00:01:00:02 10.0.2.1/24
    lsp_add ls1 h1 00:00:00:00:01:11 10.0.1.11
    lsp_add ls2 h2 00:00:00:00:02:12 10.0.2.12
    lsp_add ls1 h3 00:00:00:00:01:13 10.0.1.13
    lsp_add ls2 h4 00:00:00:00:02:14 10.0.2.14
    host_add h1 hv1 00:00:00:00:01:11 10.0.1.11/24 10.0.1.1
    host_add h2 hv2 00:00:00:00:02:12 10.0.2.12/24 10.0.2.1
    host_add h3 hv2 00:00:00:00:01:13 10.0.1.13/24 10.0.1.1
    host_add h4 hv1 00:00:00:00:02:14 10.0.2.14/24 10.0.2.1
    for h in h1 h2 h3 h4; do
        nbctl --timeout=30 wait-until Logical_Switch_Port $h up=true
    done
    nbctl --wait=hv --timeout=30 sync
}

failures=0
checks=0
# check DESCRIPTION COMMAND...
#   Runs COMMAND; prints "ok" or "FAIL" with the end of its output, and
#   counts failures.
check() {
    local desc=$1
    shift
    checks=$((checks + 1))
    if "$@" > "$dir/check.out" 2>&1; then
        echo "  ok    $desc"
        if [ $mode = demo ]; then
            sed 's/^/          /' "$dir/check.out" | tail -3
        fi
    else
        echo "  FAIL  $desc"
        sed 's/^/          /' "$dir/check.out" | tail -8
        failures=$((failures + 1))
    fi
}

# serve HOST NAME PORT...
#   Starts ovn-tcp.py's server in HOST (stopped with HOST's namespace).
serve() {
    local h=$1
    shift
    host $h python3 "$top/utilities/ovn-tcp.py" serve "$@" \
        > /dev/null 2>&1 < /dev/null &
    echo $! > "$dir/serve-$h-$2.pid"
}

# answer_is HOST DST PORT EXPECTED
#   HOST's connection to DST:PORT is answered with EXPECTED ("NAME
#   PEER_IP").
answer_is() {
    local got
    got=$(host $1 python3 "$top/utilities/ovn-tcp.py" connect $2 $3)
    echo "$1 -> $2:$3 answered: $got"
    [ "$got" = "$4" ]
}

# refused HOST DST PORT
#   HOST's connection to DST:PORT gets no answer within a second.
refused() {
    ! host $1 python3 "$top/utilities/ovn-tcp.py" connect $2 $3 1
}

# ping_ok HOST DST
#   HOST pings DST 3 times, every one answered.
ping_ok() {
    wait_until 10 host $1 ping -c 1 -W 1 $2 || true
    host $1 ping -c 3 -i 0.2 -W 2 $2 | tail -2
    [ "${PIPESTATUS[0]}" = 0 ]
}

# iperf_ok CLIENT SERVER_HOST SERVER_IP SECONDS
#   iperf3 TCP from CLIENT to SERVER_IP for SECONDS; prints the receiver's
#   rate in Mbit/s, fails if none was measured.
iperf_ok() {
    local out
    host $2 iperf3 -s -1 -D -p 5201 --pidfile "$dir/iperf3-$2.pid"
    wait_until 5 test -s "$dir/iperf3-$2.pid"
    sleep 0.3
    out=$(host $1 iperf3 -c $3 -p 5201 -t $4 -f m) || { echo "$out"; return 1; }
    echo "$out" | awk '/receiver/ {print $7, $8}' | tail -1
    echo "$out" | awk '/receiver/ && $7 > 0 {ok = 1} END {exit !ok}'
}

# geneve_flows CHASSIS
#   CHASSIS's datapath has flows for packets received through geneve, with
#   OVN's option (class 0x102) in their key.
geneve_flows() {
    hv $1 ovs-appctl dpctl/dump-flows | grep 'geneve(' | head -2
    hv $1 ovs-appctl dpctl/dump-flows | grep -q 'geneve({class=0x102'
}

# ct_entries CHASSIS PATTERN COUNT_TEST
#   The number of CHASSIS's conntrack entries matching PATTERN passes the
#   shell test COUNT_TEST (e.g. "-gt 0").
ct_entries() {
    local n
    n=$(hv $1 ovs-appctl dpctl/dump-conntrack | grep -c -- "$2" || true)
    echo "$1: $n conntrack entries with $2"
    hv $1 ovs-appctl dpctl/dump-conntrack | grep -- "$2" | head -2
    [ "$n" $3 ]
}

# lb_spreads CLIENT VIP PORT N NAME...
#   N connections from CLIENT to VIP:PORT are each answered by one of
#   NAME..., and every NAME answers at least one.
lb_spreads() {
    local client=$1 vip=$2 port=$3 n=$4 i name
    shift 4
    : > "$dir/lb.out"
    for i in $(seq $n); do
        host $client python3 "$top/utilities/ovn-tcp.py" connect $vip $port \
            >> "$dir/lb.out" || return 1
    done
    sort "$dir/lb.out" | uniq -c
    for name in "$@"; do
        grep -q "^$name " "$dir/lb.out" || return 1
    done
    [ "$(wc -l < "$dir/lb.out")" = $n ]
}

# dhcp_lease HOST EXPECTED_IP
#   busybox udhcpc in HOST gets a lease of EXPECTED_IP from
#   ovn-controller, and HOST then pings its router.
dhcp_lease() {
    cat > "$dir/udhcpc.sh" <<'EOF'
#!/bin/sh
# udhcpc's script: applies a lease to the interface and records it.
case $1 in
    bound|renew)
        ip addr add "$ip/$mask" dev "$interface"
        ip route add default via "$router" dev "$interface" 2>/dev/null
        echo "$ip $mask $router" > "$LEASE_FILE" ;;
esac
EOF
    chmod +x "$dir/udhcpc.sh"
    host $1 env LEASE_FILE="$dir/lease-$1" busybox udhcpc -i eth0 -n -q \
        -t 5 -T 1 -s "$dir/udhcpc.sh" 2>&1 | tail -2
    echo "lease: $(cat "$dir/lease-$1")"
    [ "$(cut -d' ' -f1 "$dir/lease-$1")" = "$2" ] || return 1
    host $1 ping -c 1 -W 2 10.0.1.1 > /dev/null
}

# frag_needed HOST DST MTU
#   A 1400-byte ping with DF from HOST to DST is answered by ICMP
#   "fragmentation needed" for MTU (Linux's ping then reports the MTU).
frag_needed() {
    local out
    out=$(host $1 ping -M do -s 1372 -c 2 -i 0.5 -W 1 $2 2>&1 || true)
    echo "$out" | grep -i -E 'frag|mtu' | head -2
    echo "$out" | grep -q -E "mtu ?= ?$3"
}

# show_stats
#   Each chassis's datapath flows, tunnel counters with the GRO cells, and
#   thread counters.
show_stats() {
    local c
    for c in hv1 hv2; do
        say "$c: ovs-appctl dpctl/dump-flows ($(hv $c ovs-appctl dpctl/dump-flows | wc -l) flows, the first 12)"
        hv $c ovs-appctl dpctl/dump-flows | head -12
        if [ $stock = yes ]; then
            say "$c: ovs-appctl dpif-netdev/pmd-stats-show"
            hv $c ovs-appctl dpif-netdev/pmd-stats-show
        else
            # The counters that moved, then every GRO cell.
            say "$c: ovs-appctl dpif-percpu/tunnel-stats-show (counters at 0 left out)"
            hv $c ovs-appctl dpif-percpu/tunnel-stats-show \
                | awk '/^gro:/ {gro = 1} gro || !/: 0$/'
            say "$c: ovs-appctl dpif-percpu/pmd-stats-show"
            hv $c ovs-appctl dpif-percpu/pmd-stats-show
        fi
    done
}

# scenarios
#   Configures the logical network's features one by one, with ovn-nbctl,
#   and checks each with traffic.
scenarios() {
    say "two switches and a router, hosts on both chassis, through geneve"
    check "h1 (hv1, ls1) pings h2 (hv2, ls2) through lr0" ping_ok h1 10.0.2.12
    check "h1 (hv1) pings h3 (hv2) on ls1" ping_ok h1 10.0.1.13
    check "iperf3 TCP h1 -> h2 across the chassis" iperf_ok h1 h2 10.0.2.12 3
    check "hv2's datapath flows carry OVN's geneve option" geneve_flows hv2
    check "hv1's datapath flows carry OVN's geneve option" geneve_flows hv1

    say "ACLs on ls2: allow-related TCP 7001 to h2, drop TCP 7002 to h2"
    serve h2 h2 7001 7002
    nbctl acl-add ls2 to-lport 1002 \
        'outport == "h2" && ip4 && tcp.dst == 7001' allow-related
    nbctl acl-add ls2 to-lport 1001 \
        'outport == "h2" && ip4 && tcp.dst == 7002' drop
    nbctl --wait=hv --timeout=30 sync
    wait_until 5 answer_is h1 10.0.2.12 7001 "h2 10.0.1.11" || true
    check "allowed: h1 -> h2:7001 connects and the replies pass" \
        answer_is h1 10.0.2.12 7001 "h2 10.0.1.11"
    check "dropped: h1 -> h2:7002 gets nothing" refused h1 10.0.2.12 7002
    check "h1 still pings h2 (ICMP is not dropped)" ping_ok h1 10.0.2.12
    # The to-lport ACLs run in ls2's egress pipeline, on h2's chassis:
    # there, allowed connections are committed, dropped ones never.
    check "hv2's conntrack has the allowed connection" \
        ct_entries hv2 "dport=7001" "-gt 0"
    check "hv2's conntrack has no dropped connection" \
        ct_entries hv2 "dport=7002" "-eq 0"

    say "load balancer 10.0.2.100:80 over h3 (hv2) and h4 (hv1)"
    serve h3 h3 7001
    serve h4 h4 7001
    nbctl lb-add lb0 10.0.2.100:80 10.0.1.13:7001,10.0.2.14:7001 tcp \
        -- ls-lb-add ls1 lb0 -- lr-lb-add lr0 lb0
    nbctl --wait=hv --timeout=30 sync
    wait_until 5 host h1 python3 "$top/utilities/ovn-tcp.py" connect \
        10.0.2.100 80 || true
    check "16 connections from h1 to the VIP reach both backends" \
        lb_spreads h1 10.0.2.100 80 16 h3 h4
    check "hv1's conntrack NATs the VIP" ct_entries hv1 "dst=10.0.2.100" "-gt 0"

    say "gateway port on hv1 to \"public\" (localnet, br-ex): SNAT and DNAT"
    ip netns add ovn-ext
    ip link add ext netns ovn-hv1 type veth peer name eth0 netns ovn-ext
    host ext ip link set lo up
    host ext ip link set eth0 address 00:00:00:00:ee:64 mtu 1400 up
    host ext ethtool -K eth0 tx off > /dev/null 2>&1 || true
    host ext ip addr add 172.16.0.100/24 dev eth0
    hv hv1 ip link set ext up
    hv hv1 ovs-vsctl add-port br-ex ext
    serve ext ext 7001
    nbctl ls-add public \
        -- lsp-add public ln-public -- lsp-set-type ln-public localnet \
        -- lsp-set-addresses ln-public unknown \
        -- lsp-set-options ln-public network_name=phys
    router_attach lr0 public 00:00:00:01:00:fe 172.16.0.1/24
    nbctl lrp-set-gateway-chassis lr0-public hv1
    nbctl lr-nat-add lr0 snat 172.16.0.1 10.0.0.0/16
    nbctl lr-nat-add lr0 dnat_and_snat 172.16.0.50 10.0.2.12
    nbctl --wait=hv --timeout=30 sync
    wait_until 10 host h1 python3 "$top/utilities/ovn-tcp.py" connect \
        172.16.0.100 7001 || true
    check "SNAT: h1 (hv1) -> ext is seen from 172.16.0.1" \
        answer_is h1 172.16.0.100 7001 "ext 172.16.0.1"
    check "SNAT: h3 (hv2) -> ext, through the gateway chassis" \
        answer_is h3 172.16.0.100 7001 "ext 172.16.0.1"
    check "DNAT: ext -> 172.16.0.50:7001 reaches h2 (hv2)" \
        answer_is ext 172.16.0.50 7001 "h2 172.16.0.100"

    say "OVN's DHCP for dh (hv2, ls1): ovn-controller answers"
    nbctl lsp-add ls1 dh -- lsp-set-addresses dh "00:00:00:00:01:21 10.0.1.21"
    dhcp=$(nbctl create DHCP_Options cidr=10.0.1.0/24 \
        options='"lease_time"="3600" "router"="10.0.1.1" "server_id"="10.0.1.1" "server_mac"="00:00:00:01:00:01"')
    nbctl lsp-set-dhcpv4-options dh "$dhcp"
    host_add dh hv2 00:00:00:00:01:21
    nbctl --timeout=30 wait-until Logical_Switch_Port dh up=true
    nbctl --wait=hv --timeout=30 sync
    check "dh gets 10.0.1.21 by DHCP and pings its router" \
        dhcp_lease dh 10.0.1.21

    say "gateway_mtu=1300 on lr0-public: check_pkt_len and ICMP"
    nbctl set Logical_Router_Port lr0-public options:gateway_mtu=1300
    nbctl --wait=hv --timeout=30 sync
    check "a 1400-byte DF ping h1 -> ext gets frag-needed, MTU 1300" \
        frag_needed h1 172.16.0.100 1300
    check "a 1300-byte ping h1 -> ext passes" \
        host h1 ping -M do -s 1272 -c 1 -W 2 172.16.0.100

    say "the switches' logs"
    check "no WARN or ERR in either chassis's ovs-vswitchd.log" \
        clean_logs hv1/ovs-vswitchd.log hv2/ovs-vswitchd.log
}

# clean_logs FILE...
#   No WARN, ERR or EMER line in the sandbox's log FILEs.
clean_logs() {
    ! (cd "$dir" && grep -E '\|(WARN|ERR|EMER)\|' "$@")
}

# bench SECONDS
#   iperf3 TCP h1 -> h2 for SECONDS and TCP request/response h1 -> h2
#   (utilities/benchmark/afpacket-rr.py, 2000 transactions), across the
#   chassis.
bench() {
    local out
    wait_until 10 host h1 ping -c 1 -W 1 10.0.2.12
    host h2 iperf3 -s -1 -D -p 5201 --pidfile "$dir/iperf3-h2.pid"
    wait_until 5 test -s "$dir/iperf3-h2.pid"
    sleep 0.3
    out=$(host h1 iperf3 -c 10.0.2.12 -p 5201 -t "$1" -f m)
    echo "$out" | awk '/receiver/ {print "iperf3", $7}' | tail -1
    host h2 python3 "$top/utilities/benchmark/afpacket-rr.py" server 5202 &
    sleep 0.5
    echo "rr $(host h1 python3 "$top/utilities/benchmark/afpacket-rr.py" \
               client 10.0.2.12 5202 2000)"
    wait
}

busy=""
for ns in $namespaces; do
    if ip netns list | grep -qw "$ns"; then
        busy="$busy $ns"
    fi
done
if [ -n "$busy" ]; then
    echo "$0: namespaces$busy exist: another OVN sandbox runs?" >&2
    exit 1
fi
trap cleanup EXIT INT TERM
start=$(date +%s)
topology_start
if [ $mode = bench ]; then
    bench "$bench_seconds"
    exit 0
fi
scenarios
[ $stats = yes ] && show_stats
say "$checks checks, $failures failed, $(($(date +%s) - start)) s"
[ $failures = 0 ]

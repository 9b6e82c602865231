#!/bin/sh
# Measures our kernel datapath module against Debian's openvswitch.ko in
# the same qemu/TCG guest (tests/qemu/kernel-guest.sh) and the same
# topology, built by ovs-dpctl on both: 64-byte UDP from pktgen through one
# flow and through 1000, one flow hit from both vCPUs, TCP with 64-byte
# writes between two namespaces on one and eight connections, new and
# established connections through conntrack's ct() (with NAT for the
# latter too), a meter that lets every packet pass and one that drops
# nearly all, the rate of flow puts (through ovs-dpctl, and through
# utilities/benchmark/flow-put-benchmark, which times the module's puts and
# deletes alone), and the rate at which our ovs-vswitchd installs flows
# under a storm of upcalls.  Each round loads each module in turn (the
# order rotates), and our module a third time with its ablation switch on
# (flow_stats_one_slot=1: every CPU counts in the first stats slot, under
# its lock, as one node did in the per-node design).
# kernel-benchmark-guest.sh describes each test.
#
# TCG emulates the CPUs, so absolute figures mean nothing: only the ratios,
# medians over the rounds, are printed (the raw figures are in
# OUT/raw.txt).  The guest takes both cores: the script holds the guest
# lock (/tmp/ovs-percpu-guest.lock) while it runs.
#
# Usage: kernel-benchmark.sh [-l] [-r ROUNDS] [-s SECONDS] [-o OUT] [-t TESTS]
#   (default 3 rounds of 5-second tests, OUT /tmp/ovs-percpu-kernel-bench,
#   all tests; TESTS is a space-separated list of: setup puts udp1 udpmany
#   udp2cpu tcp1 tcp8 ctnew ctest ctnat meter upcalls).  A name that is
#   none of these exits 2 before the guest starts.  -l lists the figures
#   TESTS gives, one a line with what each measures, and exits.
set -e

rounds=3
seconds=5
out=/tmp/ovs-percpu-kernel-bench
all="setup puts udp1 udpmany udp2cpu tcp1 tcp8 ctnew ctest ctnat meter upcalls"
tests=$all
list=false
args="$*"
while getopts lr:s:o:t: opt; do
    case $opt in
        l) list=true ;;
        r) rounds=$OPTARG ;;
        s) seconds=$OPTARG ;;
        o) out=$OPTARG ;;
        t) tests=$OPTARG ;;
        *) exit 2 ;;
    esac
done
top=$(cd "$(dirname "$0")/../.." && pwd)

# figures TESTS
#   The figures that the tests TESTS give, one a line: "puts" is six,
#   "ctnew" two, "meter" two.
figures() {
    for t in $1; do
        case $t in
            puts) echo put-key del-key put-ufid del-ufid put-batch del-batch ;;
            ctnew) echo ctnew ctnew-pkts ;;
            meter) echo meter-pass meter-drop ;;
            *) echo $t ;;
        esac
    done | tr ' ' '\n'
}

# describe FIGURE
#   Prints what FIGURE measures.
describe() {
    case $1 in
        setup) echo "flow puts per second (ovs-dpctl add-flows, 1000)" ;;
        put-key) echo "flow puts per second, one request each, by key" ;;
        del-key) echo "flow deletes per second, one request each, by key" ;;
        put-ufid) echo "flow puts per second, one request each, with UFID" ;;
        del-ufid) echo "flow deletes per second, one request each, by UFID" ;;
        put-batch) echo "flow puts per second, 50 per batch, with UFID" ;;
        del-batch) echo "flow deletes per second, 50 per batch, by UFID" ;;
        udp1) echo "64-byte UDP, one flow, pktgen on CPU 0" ;;
        udpmany) echo "64-byte UDP, 1000 flows, pktgen on CPU 0" ;;
        udp2cpu) echo "64-byte UDP, one flow hit from both CPUs" ;;
        tcp1) echo "TCP, 64-byte writes, 1 connection" ;;
        tcp8) echo "TCP, 64-byte writes, 8 connections" ;;
        ctnew) echo "connections ct(commit) commits per second, UDP" ;;
        ctnew-pkts) echo "packets per second to ct(commit), new each" ;;
        ctest) echo "UDP, 8 established connections, ct then +est" ;;
        ctnat) echo "the same through ct(commit,nat(src=...))" ;;
        meter-pass) echo "64-byte UDP through a meter, all pass, 2 CPUs" ;;
        meter-drop) echo "64-byte UDP through a meter, nearly all dropped" ;;
        upcalls) echo "flows ovs-vswitchd installs per second, upcall storm" ;;
    esac
}

for t in $tests; do
    case " $all " in
        *" $t "*) ;;
        *) echo "kernel-benchmark: no test $t (tests: $all)" >&2
           exit 2 ;;
    esac
done
if $list; then
    for t in $(figures "$tests"); do
        printf '%-10s %s\n' $t "$(describe $t)"
    done
    exit 0
fi

. "$top/utilities/benchmark/benchmark-common.sh"
"$top/utilities/build.sh" > /dev/null

rm -rf "$out"
mkdir -p "$out"
benchmark_header kernel-benchmark $args
echo "guest: qemu TCG, 2 vCPUs, 1 GiB; $rounds rounds of ${seconds}-second tests"

status=0
flock /tmp/ovs-percpu-guest.lock "$top/tests/qemu/kernel-guest.sh" \
    -t $((rounds * (540 + 40 * seconds) + 120)) -w "$out" \
    -l "$out/console.log" -- \
    sh "$top/utilities/benchmark/kernel-benchmark-guest.sh" -t "$tests" "$out/raw.txt" \
        "$rounds" "$seconds" stock ours ablation 2> "$out/guest.err" \
    || status=$?
if [ $status -ne 0 ]; then
    cat "$out/guest.err" >&2
    exit $status
fi

echo
printf '%-10s %-53s %10s %14s\n' test "" ours/stock ablation/ours
for t in $(figures "$tests"); do
    stock=$(median_of "$out/raw.txt" stock $t)
    ours=$(median_of "$out/raw.txt" ours $t)
    ablation=$(median_of "$out/raw.txt" ablation $t)
    printf '%-10s %-53s %10s %14s\n' $t "$(describe $t)" \
        "$(ratio "$ours" "$stock")" "$(ratio "$ablation" "$ours")"
done
if [ -s "$out/guest.err" ]; then
    echo
    echo "notes from the guest:"
    grep -v ': round [0-9]*: ' "$out/guest.err" | sed 's/^/  /' || true
fi
echo "raw figures: $out/raw.txt"

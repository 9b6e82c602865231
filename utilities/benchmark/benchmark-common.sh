# Shell functions the benchmark scripts share; sourced, not run.
#
#   . "$top/utilities/benchmark/benchmark-common.sh"
#
# Every benchmark prints what it measured on (benchmark_header), takes
# medians of several rounds (median) and some count a process's CPU time
# (cpu_ticks).  Those on tunnel-sandbox.sh's two switches read their
# arguments (benchmark_args) and start (tunnel_benchmark_init) alike.

# benchmark_args RUNS SECONDS [ARG...]
#   Sets $runs and $seconds from a benchmark's arguments ARG...,
#   "[RUNS [SECONDS]]", with RUNS and SECONDS as the defaults.
benchmark_args() {
    runs=${3:-$1}
    seconds=${4:-$2}
}

# tunnel_benchmark_init NAME
#   The start of a benchmark on tunnel-sandbox.sh's two switches: builds,
#   sources sandbox.sh and tunnel-sandbox.sh, makes the sandbox
#   /tmp/ovs-percpu-NAME (cleaned up at exit), and sets $out to
#   /tmp/ovs-percpu-NAME.out, $afxdp to AF_XDP ports in native mode (veth
#   spreads its queues only to native XDP) and the hosts' ports
#   ($tunnel_host_options) to those with two receive queues.  $top is the
#   checkout.
tunnel_benchmark_init() {
    "$top/utilities/build.sh" > /dev/null
    . "$top/utilities/sandbox.sh"
    . "$top/utilities/tunnel-sandbox.sh"
    sandbox_init "$top/vswitchd" "/tmp/ovs-percpu-$1"
    trap tunnel_sandbox_cleanup EXIT
    out=/tmp/ovs-percpu-$1.out
    afxdp="type=afxdp options:xdp-mode=native"
    tunnel_host_options="$afxdp options:n_rxq=2"
}

# benchmark_header NAME [ARG...]
#   Prints which commit (and whether the tree had uncommitted changes), how
#   many CPUs, which kernel and what load the figures below were taken on,
#   and the command line that reproduces them.
benchmark_header() {
    bh_name=$1
    shift
    bh_commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null \
                || echo unknown)
    if [ -n "$(git -C "$top" status --porcelain --untracked-files=no \
               2>/dev/null)" ]; then
        bh_commit="$bh_commit (with uncommitted changes)"
    fi
    echo "$bh_name: commit $bh_commit, $(nproc) CPUs, kernel $(uname -r)," \
         "load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "command: utilities/benchmark/$bh_name.sh $*"
}

# median
#   Reads one number per line and prints their median.
median() {
    sort -n | awk '{a[NR] = $1}
        END {if (NR % 2) print a[(NR + 1) / 2];
             else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}

# median_of RAW VARIANT TEST
#   The median of TEST's figures for VARIANT over the rounds, from RAW's
#   lines "ROUND VARIANT TEST FIGURE" (the guest benchmarks' raw.txt).
median_of() {
    awk -v v="$2" -v t="$3" '$2 == v && $3 == t {print $4}' "$1" | median
}

# ratio A B
#   A / B to two decimals, or "n/a" when B is not positive.
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN {
        if (b > 0) printf "%.2f", a / b; else print "n/a" }'
}

# cpu_ticks PIDFILE
#   Prints the user + system clock ticks the process has used.
cpu_ticks() {
    awk '{print $14 + $15}' "/proc/$(cat "$1")/stat"
}

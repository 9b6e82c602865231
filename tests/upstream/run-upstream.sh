#!/bin/sh
# Runs Open vSwitch's own autotest suite (from the OVS source tree) against
# our ovs-vswitchd.
#
# Usage:
#   run-upstream.sh [OPTION]... [-o RESULTS] KEYWORD...
#       Runs every OVS test with one of the autotest KEYWORDs (e.g.
#       dpif-netdev, ofproto-dpif, tunnel; "all": the whole suite), prints
#       how many passed, and writes "KEYWORD NUM pass|fail|skip TITLE" lines to RESULTS
#       (default upstream-results.txt).
#   run-upstream.sh [OPTION]... -c MUST_PASS [-c MUST_PASS]...
#       Runs only the tests titled in the MUST_PASS lists (one title a
#       line, '#' starts a comment) and fails unless every one of them
#       passes.  This is what CI runs (must-pass.txt): it skips the known
#       failures, some of which wait for a 30-second timeout.
#
# Options:
#   -j N      run N tests at a time (default 2)
#   -s SUITE  the suite to run, in OVS's tests/ (default testsuite; OVS's
#             kernel-datapath tests are system-kmod-testsuite, which
#             tests/upstream/run-kmod.sh runs in a qemu guest).  A system
#             suite (system-userspace-testsuite: real traffic between
#             namespaces) needs root and runs one test at a time, each
#             under the host's system lock (/tmp/ovs-percpu-system.lock,
#             or $OVS_PERCPU_SYSTEM_LOCK), which it takes itself: do not
#             wrap it in flock.
#   -i        isolated: run each test of a system suite in a network
#             namespace and a mount namespace of its own (isolate.sh:
#             private /run/netns, /etc/netns and /sys, only "lo"), so
#             that it touches none of the host's devices and needs no
#             system lock; -j N of them run at a time.  Each runs in a
#             testsuite run of its own, as with -T.
#   -P DIR    put DIR first in AUTOTEST_PATH, before our ovs-vswitchd
#             (repeatable); -P "$OVS_BUILDDIR/vswitchd" runs the suite
#             against stock's ovs-vswitchd, the baseline
#   -T TIMES  run the tests one at a time, each in a testsuite run of its
#             own, and write "NUM pass|fail|skip SECONDS TITLE" lines to
#             TIMES (the seconds a test took, waiting for the lock not
#             counted)
#   -L DIR    where the logs of failed tests are kept (default
#             tests/upstream/failed of our build)
#   -r        with -c: run the tests that failed once more, one at a time,
#             as OVS's own "make check RECHECK=yes" does; one that passes
#             then is named in a "passed on recheck" line (flaky, seen),
#             and its first failure's log is kept all the same
#
# The trees are found through OVS_SRCDIR, OVS_BUILDDIR and PERCPU_BUILDDIR,
# which default to the usual places.
set -e

# Under utilities/subreaper.py, which reaps the daemons that OVS's tests
# stop as they exit, instead of PID 1 (on CI's machine about 1.7 s late,
# a wait of 1 to 2 s each time a test stops a daemon).
if [ -z "$OVS_PERCPU_SUBREAPER" ]; then
    OVS_PERCPU_SUBREAPER=$$
    export OVS_PERCPU_SUBREAPER
    exec "$(dirname "$0")/../../utilities/subreaper.py" "$0" "$@"
fi

jobs=2
results=upstream-results.txt
must_pass=
suite=testsuite
first_path=
times=
faildir=
isolated=
recheck=
while getopts ij:o:c:s:P:T:L:r opt; do
    case $opt in
        j) jobs=$OPTARG ;;
        o) results=$OPTARG ;;
        c) must_pass="$must_pass $OPTARG" ;;
        s) suite=$OPTARG ;;
        P) first_path="$first_path$OPTARG:" ;;
        T) times=$OPTARG ;;
        L) faildir=$OPTARG ;;
        i) isolated=yes ;;
        r) recheck=yes ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
for list in $must_pass; do
    [ -r "$list" ] || { echo "run-upstream: cannot read $list" >&2; exit 2; }
done
if [ -z "$must_pass" ] && [ $# -eq 0 ]; then
    echo "usage: $0 [-i] [-j N] [-o RESULTS] KEYWORD... | $0 [-i] [-j N] -c MUST_PASS" >&2
    exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
OVS_SRCDIR=${OVS_SRCDIR:-/var/cache/ovs-percpu/ovs-src}
OVS_BUILDDIR=${OVS_BUILDDIR:-/var/cache/ovs-percpu/ovs-build}
PERCPU_BUILDDIR=${PERCPU_BUILDDIR:-$(cd "$here/../.." && pwd)}
vswitchd=$PERCPU_BUILDDIR/vswitchd/ovs-vswitchd
testsuite=$OVS_SRCDIR/tests/$suite
[ -x "$testsuite" ] || {
    echo "run-upstream: no suite $testsuite" >&2
    exit 1
}

# A system suite creates namespaces, veths and bridges on the host: root
# only, one test at a time, each under the system lock that every test
# touching the host's devices takes.
lock=
case $suite in
system-*)
    if [ "$(id -u)" != 0 ]; then
        echo "run-upstream: $suite needs root" >&2
        exit 77
    fi
    if [ -z "$isolated" ]; then
        jobs=1
        lock=${OVS_PERCPU_SYSTEM_LOCK:-/tmp/ovs-percpu-system.lock}
    fi
    ;;
esac

# Runs the suite with the arguments "$@", under the system lock if it
# needs one, and writes the time it started (the lock held) to
# $workdir/started.
run_suite() {
    if [ -n "$lock" ]; then
        flock "$lock" sh -c 'date +%s.%N > "$0"; exec "$@"' \
            "$workdir/started" "$testsuite" "$@"
    else
        date +%s.%N > "$workdir/started"
        "$testsuite" "$@"
    fi
}
faildir=${faildir:-$PERCPU_BUILDDIR/tests/upstream/failed}
[ -z "$times" ] || : > "$times"

"$vswitchd" --version | grep -q ovs-percpu || {
    echo "run-upstream: $vswitchd is not ovs-percpu's; build first" >&2
    exit 1
}

# OVS's suite reads atconfig and atlocal from its -C directory.  Run it in a
# scratch directory of ours so that nothing is written into the OVS trees.
workdir=$(mktemp -d /tmp/ovs-percpu-upstream.XXXXXX)
trap 'rm -rf "$workdir"' EXIT
trap 'exit 130' INT TERM
sed "s|^at_top_build_prefix=.*|at_top_build_prefix='$OVS_BUILDDIR/'|" \
    "$OVS_BUILDDIR/tests/atconfig" > "$workdir/atconfig"
cp "$OVS_BUILDDIR/tests/atlocal" "$workdir/atlocal"

path="$first_path$PERCPU_BUILDDIR/vswitchd"
for d in utilities vswitchd ovsdb vtep tests ipsec; do
    path="$path:$OVS_BUILDDIR/$d"
done

# Lists "NUM TITLE" for the tests that the testsuite arguments "$@" select.
list_tests() {
    "$testsuite" -C "$workdir" -l "$@" \
        | sed -n 's/^ *\([0-9][0-9]*\): [^ ]*  *\(.*[^ ]\) *$/\1 \2/p'
}

# Runs the tests "$@" selects; their results land in $workdir/$suite.dir
# and in the log $workdir/run.out.  Under the system lock, or with -T, one
# testsuite run per test: one test a lock, so that the host's other system
# tests get their turn between ours, and with -T each timed, each failed
# test's directory saved in $workdir/failed.
run_tests() {
    if [ -n "$isolated" ]; then
        run_isolated "$@"
        return
    fi
    if [ -z "$times" ] && [ -z "$lock" ]; then
        # The suite exits non-zero when a test fails; the caller decides.
        "$testsuite" -C "$workdir" AUTOTEST_PATH="$path" -j"$jobs" "$@" \
            > "$workdir/run.out" 2>&1 || true
        return
    fi
    # Autotest keeps a failed test's directory in $suite.dir across these
    # runs.
    : > "$workdir/run.out"
    list_tests "$@" > "$workdir/one-by-one.list"
    while read -r num title; do
        run_suite -C "$workdir" AUTOTEST_PATH="$path" "$num" \
            >> "$workdir/run.out" 2>&1 < /dev/null || true
        [ -n "$times" ] || continue
        end=$(date +%s.%N)
        start=$(cat "$workdir/started" 2>/dev/null || echo "$end")
        status=$(test_status "$num")
        # The suite's directory holds only this test's (named with zeros
        # in front of its number).
        if [ "$status" = fail ]; then
            mkdir -p "$workdir/failed"
            copy_logs "$workdir/$suite.dir"/[0-9]* "$workdir/failed/"
        fi
        echo "$num $status $(echo "$start $end" | awk '{printf "%.0f", $2 - $1}') $title" \
            | tee -a "$times"
    done < "$workdir/one-by-one.list"
}

# Runs one test, number $5, in isolation (isolate.sh $4) in a scratch
# directory of its own, $1/tNUM, with the testsuite $2 and AUTOTEST_PATH
# $3; writes the times it started and ended to $1/tNUM/times and prints a
# line when it is done.  xargs runs it, -j at a time.
one_isolated='
    w=$1/t$5
    mkdir -p "$w"
    cp "$1/atconfig" "$1/atlocal" "$w/"
    start=$(date +%s.%N)
    "$4" "$2" -C "$w" AUTOTEST_PATH="$3" "$5" > "$w/run.out" 2>&1 < /dev/null || true
    echo "$start $(date +%s.%N)" > "$w/times"
    echo "run-upstream: $(grep "^ *$5: " "$w/run.out" | sed "s/  */ /g")"
'

# Runs the tests "$@" selects, each isolated in a testsuite run of its
# own, -j at a time; then gathers their outputs into $workdir/run.out in
# order, their times into $times (with -T), and the directories of the
# failed ones into $workdir/failed.
run_isolated() {
    list_tests "$@" > "$workdir/one-by-one.list"
    cut -d' ' -f1 "$workdir/one-by-one.list" \
        | xargs -P "$jobs" -n 1 sh -c "$one_isolated" one-isolated \
                "$workdir" "$testsuite" "$path" "$here/isolate.sh"
    : > "$workdir/run.out"
    while read -r num title; do
        w=$workdir/t$num
        cat "$w/run.out" >> "$workdir/run.out" 2>/dev/null || true
        status=$(test_status "$num")
        if [ "$status" = fail ]; then
            mkdir -p "$workdir/failed"
            copy_logs "$w/$suite.dir"/[0-9]* "$workdir/failed/"
        fi
        [ -n "$times" ] || continue
        echo "$num $status $(awk '{printf "%.0f", $2 - $1}' "$w/times") $title" \
            >> "$times"
    done < "$workdir/one-by-one.list"
}

# Copies the directories "$@" (the last is the destination) without the
# daemons' unix sockets, which cp cannot make.
copy_logs() {
    cp -r "$@" 2>/dev/null || true
}

# Copies the logs of the failed tests of the last run to $faildir.
keep_failed_logs() {
    mkdir -p "$faildir"
    if [ -n "$times" ] || [ -n "$isolated" ]; then
        [ ! -d "$workdir/failed" ] || copy_logs "$workdir/failed/." "$faildir/"
    else
        copy_logs "$workdir/$suite.dir" "$faildir/"
    fi
    echo "run-upstream: logs kept in $faildir"
}

# Prints pass, skip or fail for test number $1 of the last run.
test_status() {
    if grep -q "^ *$1: .* ok\$" "$workdir/run.out"; then
        echo pass
    elif grep -q "^ *$1: .* skipped" "$workdir/run.out"; then
        echo skip
    else
        echo fail
    fi
}

# Prints the numbers of the must-pass tests ($workdir/numbers) that did
# not pass ($workdir/run.out, to which a recheck appends its own output).
must_pass_failures() {
    for num in $(cat "$workdir/numbers"); do
        [ "$(test_status "$num")" = pass ] || printf '%s ' "$num"
    done
}

if [ -n "$must_pass" ]; then
    list_tests > "$workdir/all.list"
    : > "$workdir/numbers"
    : > "$workdir/titles"
    while IFS= read -r title; do
        case $title in ''|'#'*) continue ;; esac
        echo "$title" >> "$workdir/titles"
        nums=$(awk -v t="$title" '{n = $1; $1 = ""; sub(/^ /, "");
                                   if ($0 == t) print n}' "$workdir/all.list")
        if [ -z "$nums" ]; then
            echo "run-upstream: no OVS test is titled: $title" >&2
            exit 1
        fi
        echo $nums >> "$workdir/numbers"
    done <<LISTS
$(cat $must_pass)
LISTS
    n=$(wc -l < "$workdir/titles")
    if [ "$n" -eq 0 ]; then
        echo "run-upstream: FAILED: no test listed in$must_pass: nothing must pass"
        exit 1
    fi
    echo "run-upstream: running the $n OVS tests that must pass"
    run_tests $(cat "$workdir/numbers")

    # A run that recorded no test's result (the suite died or refused its
    # arguments) fails here: rechecking all its tests one at a time would
    # pass it as "flaky" and hide why it died.
    if ! grep -q -E '^ *[0-9]+: .* (ok|skipped \(|FAILED \(|expected failure|UNEXPECTED PASS)' \
            "$workdir/run.out"; then
        echo "run-upstream: FAILED: the suite recorded no test's result:"
        tail -20 "$workdir/run.out"
        keep_failed_logs
        exit 1
    fi

    failed_numbers=$(must_pass_failures)
    if [ -n "$failed_numbers" ] && [ -n "$recheck" ]; then
        keep_failed_logs
        echo "run-upstream: rechecking, one at a time:" $failed_numbers
        rm -rf "$workdir/failed"
        jobs=1
        cp "$workdir/run.out" "$workdir/first.out"
        run_tests $failed_numbers
        cat "$workdir/run.out" >> "$workdir/first.out"
        mv "$workdir/first.out" "$workdir/run.out"
        rechecked=$failed_numbers
        failed_numbers=$(must_pass_failures)
        for num in $rechecked; do
            case " $failed_numbers " in
                *" $num "*) ;;
                *) echo "run-upstream: passed on recheck (flaky):" \
                        "$(awk -v n="$num" '$1 == n' "$workdir/all.list")" ;;
            esac
        done
    fi
    failed=0
    for num in $failed_numbers; do
        echo "run-upstream: MUST-PASS test failed: $num" \
             "$(awk -v n="$num" '$1 == n' "$workdir/all.list")"
        failed=$((failed + 1))
    done
    echo "run-upstream: must-pass: $((n - failed)) passed, $failed failed"
    if [ $failed -ne 0 ]; then
        keep_failed_logs
        exit 1
    fi
    exit 0
fi

: > "$results.tmp"
for keyword in "$@"; do
    echo "run-upstream: running OVS tests with keyword $keyword"
    # "all" is every test of the suite.
    if [ "$keyword" = all ]; then
        set --
    else
        set -- -k "$keyword"
    fi
    run_tests "$@"
    list_tests "$@" > "$workdir/$keyword.list"
    while read -r num title; do
        echo "$keyword $num $(test_status "$num") $title" >> "$results.tmp"
    done < "$workdir/$keyword.list"
    pass=$(grep -c "^$keyword [0-9]* pass " "$results.tmp" || true)
    fail=$(grep -c "^$keyword [0-9]* fail " "$results.tmp" || true)
    skip=$(grep -c "^$keyword [0-9]* skip " "$results.tmp" || true)
    echo "run-upstream: $keyword: $pass passed, $fail failed, $skip skipped"
done
mv "$results.tmp" "$results"

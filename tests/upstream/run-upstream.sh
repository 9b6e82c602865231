#!/bin/sh
# Runs Open vSwitch's own autotest suite (from the OVS source tree) against
# our ovs-vswitchd.
#
# Usage:
#   run-upstream.sh [-j N] [-o RESULTS] KEYWORD...
#       Runs every OVS test with one of the autotest KEYWORDs (e.g.
#       dpif-netdev, ofproto-dpif, tunnel), prints how many passed, and
#       writes "KEYWORD NUM pass|fail|skip TITLE" lines to RESULTS
#       (default upstream-results.txt).
#   run-upstream.sh [-j N] -c MUST_PASS
#       Runs only the tests titled in MUST_PASS (one title a line, '#'
#       starts a comment) and fails unless every one of them passes.  This
#       is what CI runs: it skips the known failures, some of which wait
#       for a 30-second timeout.
#
# The trees are found through OVS_SRCDIR, OVS_BUILDDIR and PERCPU_BUILDDIR,
# which default to the usual places.
set -e

jobs=2
results=upstream-results.txt
must_pass=
while getopts j:o:c: opt; do
    case $opt in
        j) jobs=$OPTARG ;;
        o) results=$OPTARG ;;
        c) must_pass=$OPTARG ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ -z "$must_pass" ] && [ $# -eq 0 ]; then
    echo "usage: $0 [-j N] [-o RESULTS] KEYWORD... | $0 [-j N] -c MUST_PASS" >&2
    exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
OVS_SRCDIR=${OVS_SRCDIR:-/var/cache/ovs-percpu/ovs-src}
OVS_BUILDDIR=${OVS_BUILDDIR:-/var/cache/ovs-percpu/ovs-build}
PERCPU_BUILDDIR=${PERCPU_BUILDDIR:-$(cd "$here/../.." && pwd)}
vswitchd=$PERCPU_BUILDDIR/vswitchd/ovs-vswitchd
testsuite=$OVS_SRCDIR/tests/testsuite

"$vswitchd" --version | grep -q ovs-percpu || {
    echo "run-upstream: $vswitchd is not ovs-percpu's; build first" >&2
    exit 1
}

# OVS's suite reads atconfig and atlocal from its -C directory.  Run it in a
# scratch directory of ours so that nothing is written into the OVS trees.
workdir=$(mktemp -d /tmp/ovs-percpu-upstream.XXXXXX)
trap 'rm -rf "$workdir"' EXIT
sed "s|^at_top_build_prefix=.*|at_top_build_prefix='$OVS_BUILDDIR/'|" \
    "$OVS_BUILDDIR/tests/atconfig" > "$workdir/atconfig"
cp "$OVS_BUILDDIR/tests/atlocal" "$workdir/atlocal"

path="$PERCPU_BUILDDIR/vswitchd"
for d in utilities vswitchd ovsdb vtep tests ipsec; do
    path="$path:$OVS_BUILDDIR/$d"
done

# Lists "NUM TITLE" for the tests that the testsuite arguments "$@" select.
list_tests() {
    "$testsuite" -C "$workdir" -l "$@" \
        | sed -n 's/^ *\([0-9][0-9]*\): [^ ]*  *\(.*[^ ]\) *$/\1 \2/p'
}

# Runs the tests "$@" selects; their results land in $workdir/testsuite.dir
# and in the log $workdir/run.out.
run_tests() {
    # The suite exits non-zero when a test fails; the caller decides.
    "$testsuite" -C "$workdir" AUTOTEST_PATH="$path" -j"$jobs" "$@" \
        > "$workdir/run.out" 2>&1 || true
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
    done < "$must_pass"
    n=$(wc -l < "$workdir/titles")
    echo "run-upstream: running the $n OVS tests that must pass"
    run_tests $(cat "$workdir/numbers")

    failed=0
    while read -r nums; do
        for num in $nums; do
            if [ "$(test_status "$num")" != pass ]; then
                echo "run-upstream: MUST-PASS test failed: $num" \
                     "$(awk -v n="$num" '$1 == n' "$workdir/all.list")"
                failed=$((failed + 1))
            fi
        done
    done < "$workdir/numbers"
    echo "run-upstream: must-pass: $((n - failed)) passed, $failed failed"
    if [ $failed -ne 0 ]; then
        mkdir -p "$PERCPU_BUILDDIR/tests/upstream/failed"
        cp -r "$workdir/testsuite.dir" "$PERCPU_BUILDDIR/tests/upstream/failed/"
        echo "run-upstream: logs kept in tests/upstream/failed/"
        exit 1
    fi
    exit 0
fi

: > "$results.tmp"
for keyword in "$@"; do
    echo "run-upstream: running OVS tests with keyword $keyword"
    run_tests -k "$keyword"
    list_tests -k "$keyword" > "$workdir/$keyword.list"
    while read -r num title; do
        echo "$keyword $num $(test_status "$num") $title" >> "$results.tmp"
    done < "$workdir/$keyword.list"
    pass=$(grep -c "^$keyword [0-9]* pass " "$results.tmp" || true)
    fail=$(grep -c "^$keyword [0-9]* fail " "$results.tmp" || true)
    skip=$(grep -c "^$keyword [0-9]* skip " "$results.tmp" || true)
    echo "run-upstream: $keyword: $pass passed, $fail failed, $skip skipped"
done
mv "$results.tmp" "$results"

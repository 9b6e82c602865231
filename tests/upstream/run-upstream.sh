#!/bin/sh
# Runs Open vSwitch's own autotest suite (from the OVS source tree) against
# our ovs-vswitchd and reports, per keyword, how many tests passed.
#
# Usage: run-upstream.sh [-j N] [-o RESULTS] [-c MUST_PASS] KEYWORD...
#   -j N          run N tests at once (default 2)
#   -o RESULTS    write "KEYWORD NUM STATUS TITLE" lines there
#                 (default: upstream-results.txt in the current directory)
#   -c MUST_PASS  fail unless every test titled in MUST_PASS (one title a
#                 line, '#' comments) passed
# KEYWORDs are autotest keywords, e.g. dpif-netdev, ofproto-dpif, tunnel.
#
# The OVS and ovs-percpu build trees are found through OVS_BUILDDIR,
# OVS_SRCDIR and PERCPU_BUILDDIR, which default to the usual places.
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
[ $# -gt 0 ] || { echo "usage: $0 [-j N] [-o FILE] [-c FILE] KEYWORD..." >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
OVS_SRCDIR=${OVS_SRCDIR:-/var/cache/ovs-percpu/ovs-src}
OVS_BUILDDIR=${OVS_BUILDDIR:-/var/cache/ovs-percpu/ovs-build}
PERCPU_BUILDDIR=${PERCPU_BUILDDIR:-$(cd "$here/../.." && pwd)}
vswitchd=$PERCPU_BUILDDIR/vswitchd/ovs-vswitchd

"$vswitchd" --version | grep -q ovs-percpu || {
    echo "run-upstream: $vswitchd is not ovs-percpu's; build first" >&2
    exit 1
}

# OVS's suite reads atconfig and atlocal from its -C directory.  Run it in a
# scratch directory of ours so that nothing is written into the OVS trees.
workdir=$(mktemp -d /tmp/ovs-percpu-upstream.XXXXXX)
sed "s|^at_top_build_prefix=.*|at_top_build_prefix='$OVS_BUILDDIR/'|" \
    "$OVS_BUILDDIR/tests/atconfig" > "$workdir/atconfig"
cp "$OVS_BUILDDIR/tests/atlocal" "$workdir/atlocal"

path="$PERCPU_BUILDDIR/vswitchd"
for d in utilities vswitchd ovsdb vtep tests ipsec; do
    path="$path:$OVS_BUILDDIR/$d"
done

: > "$results.tmp"
for keyword in "$@"; do
    echo "run-upstream: running OVS tests with keyword $keyword"
    # The suite exits non-zero when a test fails; the list decides.
    (cd "$workdir" && "$OVS_SRCDIR/tests/testsuite" -C "$workdir" \
         AUTOTEST_PATH="$path" -j"$jobs" -k "$keyword" \
         > "$workdir/$keyword.out" 2>&1) || true
    # Result lines look like "  12: ofproto-dpif.at:123  title   ok".
    "$OVS_SRCDIR/tests/testsuite" -C "$workdir" -k "$keyword" -l \
        | sed -n 's/^ *\([0-9][0-9]*\): [^ ]*  *\(.*[^ ]\) *$/\1 \2/p' \
        > "$workdir/$keyword.list"
    while read -r num title; do
        if grep -q "^$num\. .*: ok" "$workdir/testsuite.log" 2>/dev/null \
           || grep -q "^ *$num: .* ok$" "$workdir/$keyword.out"; then
            status=pass
        elif grep -q "^ *$num: .* skipped" "$workdir/$keyword.out"; then
            status=skip
        else
            status=fail
        fi
        echo "$keyword $num $status $title" >> "$results.tmp"
    done < "$workdir/$keyword.list"
    pass=$(grep -c "^$keyword [0-9]* pass " "$results.tmp" || true)
    fail=$(grep -c "^$keyword [0-9]* fail " "$results.tmp" || true)
    skip=$(grep -c "^$keyword [0-9]* skip " "$results.tmp" || true)
    echo "run-upstream: $keyword: $pass passed, $fail failed, $skip skipped"
done
mv "$results.tmp" "$results"

status=0
if [ -n "$must_pass" ]; then
    missing=0
    while IFS= read -r title; do
        case $title in ''|'#'*) continue ;; esac
        if ! grep -q "^[^ ]* [0-9]* pass $title\$" "$results"; then
            echo "run-upstream: MUST-PASS test failed or did not run: $title"
            missing=$((missing + 1))
        fi
    done < "$must_pass"
    n=$(grep -c -v -e '^#' -e '^$' "$must_pass" || true)
    echo "run-upstream: must-pass: $((n - missing)) of $n passed"
    [ $missing -eq 0 ] || status=1
fi
rm -rf "$workdir"
exit $status

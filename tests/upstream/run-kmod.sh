#!/bin/sh
# Runs Open vSwitch's own kernel-datapath tests (tests/system-kmod-testsuite
# of the OVS tree, prebuilt) in a qemu guest (tests/qemu/kernel-guest.sh)
# against our kernel module, through tests/upstream/run-upstream.sh: a
# scratch -C directory, our ovs-vswitchd first in AUTOTEST_PATH, and before
# it the guest's modprobe stand-in, which turns the suite's 'modprobe
# openvswitch' into loading datapath/ovs_percpu.ko.  One guest boot runs
# all the selected tests, one at a time (they share the kernel's
# ovs-system datapath and the namespace names).
#
# Usage:
#   run-kmod.sh [OPTION]... -c MUST_PASS
#       the tests titled in MUST_PASS (e.g. tests/upstream/kmod-must-pass.txt);
#       fails unless every one passes.  A test that failed only because
#       ovs-vswitchd's first poll loops took over a second under TCG (the
#       "Unreasonably long poll interval" warning that OVS's start macro
#       finds on its stderr, before the test checked anything) runs again
#       in another boot, up to twice, if no other test failed; the earlier
#       runs' records are kept in DIR/retry-N/.
#   run-kmod.sh [OPTION]... -l LIST
#       the tests titled in LIST, recorded, never failing
#   run-kmod.sh [OPTION]... KEYWORD...
#       the tests with these autotest keywords, recorded; 'all' is every
#       test of the suite (177, hours under TCG)
#
# Options:
#   -o DIR     where the results go (default tests/upstream/kmod-results):
#              times.txt ("NUM pass|fail|skip SECONDS TITLE" per test),
#              results.txt (keyword runs), failed/ (the failed tests' logs),
#              console.log (the guest's kernel log)
#   -d DP      the datapath: percpu (ours, the default) or stock (Debian's
#              openvswitch.ko, for the baseline)
#   -V WHICH   the ovs-vswitchd: ours (default) or stock (OVS's own)
#   -t SECONDS the guest's timeout (default 7200)
#
# One guest at a time: run it under 'flock /tmp/ovs-percpu-guest.lock'.
set -e

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OVS_SRCDIR=${OVS_SRCDIR:-/var/cache/ovs-percpu/ovs-src}
OVS_BUILDDIR=${OVS_BUILDDIR:-/var/cache/ovs-percpu/ovs-build}

out=$top/tests/upstream/kmod-results
datapath=percpu
vswitchd=ours
timeout=7200
must_pass=
list=
while getopts o:d:V:t:c:l: opt; do
    case $opt in
        o) out=$OPTARG ;;
        d) datapath=$OPTARG ;;
        V) vswitchd=$OPTARG ;;
        t) timeout=$OPTARG ;;
        c) must_pass=$OPTARG ;;
        l) list=$OPTARG ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ -z "$must_pass$list" ] && [ $# -eq 0 ]; then
    echo "usage: $0 [-o DIR] [-d percpu|stock] [-V ours|stock] [-t SECONDS] -c MUST_PASS | -l LIST | KEYWORD..." >&2
    exit 2
fi
[ -x "$OVS_SRCDIR/tests/system-kmod-testsuite" ] || {
    echo "run-kmod: no $OVS_SRCDIR/tests/system-kmod-testsuite" >&2
    exit 77
}

mkdir -p "$out"
out=$(cd "$out" && pwd -P)
rm -rf "$out/failed" "$out/times.txt" "$out/results.txt" "$out/selection.txt"

# 'all' is the list of every title.
if [ -z "$must_pass$list" ] && [ "$*" = all ]; then
    tmp=$(mktemp -d /tmp/run-kmod.XXXXXX)
    sed "s|^at_top_build_prefix=.*|at_top_build_prefix='$OVS_BUILDDIR/'|" \
        "$OVS_BUILDDIR/tests/atconfig" > "$tmp/atconfig"
    cp "$OVS_BUILDDIR/tests/atlocal" "$tmp/"
    "$OVS_SRCDIR/tests/system-kmod-testsuite" -C "$tmp" -l \
        | sed -n 's/^ *[0-9][0-9]*: [^ ]*  *\(.*[^ ]\) *$/\1/p' \
        | awk '!seen[$0]++' > "$out/all.txt"
    rm -rf "$tmp"
    list=$out/all.txt
    shift $#
fi

# The guest's modprobe stand-in lives there (kernel-guest-run.sh).
set -- -s system-kmod-testsuite -j 1 -P /run/ovs-percpu-guest/bin \
    -T "$out/times.txt" -L "$out/failed" -o "$out/results.txt" "$@"
if [ "$vswitchd" = stock ]; then
    set -- -P "$OVS_BUILDDIR/vswitchd" "$@"
fi

# The list is copied into $out, which the guest sees wherever it came from.
if [ -n "$must_pass$list" ]; then
    if ! grep -qv '^ *\(#.*\)\{0,1\}$' "$must_pass$list"; then
        echo "run-kmod: no test listed in $must_pass$list"
        # A must-pass list that lists nothing would pass CI on nothing.
        [ -z "$must_pass" ] || exit 1
        exit 0
    fi
    [ "$must_pass$list" = "$out/selection.txt" ] \
        || cp "$must_pass$list" "$out/selection.txt"
    set -- "$@" -c "$out/selection.txt"
fi

# run_guest ARG...
#   Runs run-upstream.sh with ARGs in the guest; returns its status.
run_guest() {
    KERNEL_GUEST_DATAPATH=$datapath "$top/tests/qemu/kernel-guest.sh" \
        -t "$timeout" -w "$out" -l "$out/console.log" \
        -e OVS_SRCDIR="$OVS_SRCDIR" -e OVS_BUILDDIR="$OVS_BUILDDIR" \
        -e PERCPU_BUILDDIR="$top" \
        -- "$here/run-upstream.sh" "$@"
}

# tcg_start_only LOG
#   True if the failed test's LOG failed only on the check of
#   ovs-vswitchd's stderr at its start, and only because of the warnings
#   that a poll loop longer than a second prints (timeval's "Unreasonably
#   long ... poll interval" and the coverage dump after it), in the
#   'sed < stderr' check of OVS's start macro: TCG's slowness, not the
#   datapath.  Nothing after the start was checked.
tcg_start_only() {
    awk '
        /^--- / && last !~ /\.at:[0-9]*: sed < stderr / { other++ }
        /^--- / { diffs++; in_diff = 1; next }
        in_diff && /^(\+\+\+ |@@ )/ { next }
        in_diff && /^[-+]/ {
            if ($0 !~ /^\+[-0-9T:.Z]*\|[0-9]*\|(timeval\|WARN|coverage\|INFO)\|/)
                other++
            next
        }
        in_diff && /^ / { next }
        { in_diff = 0 }
        # The command of each check is echoed before it (and its diff).
        /^[^ ]*\.at:[0-9]*: / { last = $0 }
        / FAILED \([a-z-]*\.at:[0-9]*\)$/ { failed++ }
        END { exit !(diffs == 1 && failed && !other) }' "$1"
}

status=0
run_guest "$@" || status=$?

# With a must-pass list, the tests that failed only on TCG's start-up
# warning run again, in another boot, up to twice; each earlier run's
# record stays in retry-N/, and the result is the last run's.
retry=0
while [ -n "$must_pass" ] && [ $status -eq 1 ] && [ -d "$out/failed" ] &&
      [ $retry -lt 2 ]; do
    : > "$out/retry.txt"
    for dir in "$out"/failed/*/; do
        n=$(basename "$dir" | sed 's/^0*//')
        log=$(ls "$dir"*.log 2>/dev/null | grep testsuite.log | head -1)
        [ -n "$log" ] && tcg_start_only "$log" || continue
        awk -v n="$n" '$1 == n && $2 == "fail" {
            $1 = $2 = $3 = ""; sub(/^ */, ""); print }' "$out/times.txt" \
            >> "$out/retry.txt"
    done
    if [ ! -s "$out/retry.txt" ] || grep -q ' skip ' "$out/times.txt" ||
       [ "$(wc -l < "$out/retry.txt")" -ne \
         "$(grep -c ' fail ' "$out/times.txt")" ]; then
        break
    fi
    retry=$((retry + 1))
    echo "run-kmod: $(wc -l < "$out/retry.txt") tests failed only on" \
         "TCG's 'Unreasonably long poll interval' warning at" \
         "ovs-vswitchd's start; running them again (retry $retry of 2):"
    sed 's/^/  /' "$out/retry.txt"
    rm -rf "$out/retry-$retry"
    mkdir "$out/retry-$retry"
    mv "$out/failed" "$out/times.txt" "$out/retry-$retry/"
    [ ! -f "$out/results.txt" ] || mv "$out/results.txt" "$out/retry-$retry/"
    cp "$out/retry.txt" "$out/selection.txt"
    status=0
    run_guest "$@" || status=$?
    # This run's times, with the earlier run's passes.
    grep -v ' fail ' "$out/retry-$retry/times.txt" \
        | cat - "$out/times.txt" | sort -n > "$out/times.all"
    mv "$out/times.all" "$out/times.txt"
done
if [ -n "$list" ] && [ $status -eq 1 ]; then
    status=0
fi
if [ -f "$out/times.txt" ]; then
    echo "run-kmod: $datapath datapath, $vswitchd ovs-vswitchd:" \
         "$(grep -c ' pass ' "$out/times.txt" || true) passed," \
         "$(grep -c ' fail ' "$out/times.txt" || true) failed," \
         "$(grep -c ' skip ' "$out/times.txt" || true) skipped" \
         "($out/times.txt)"
fi
exit $status

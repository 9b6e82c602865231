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
#       fails unless every one passes
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
        exit 0
    fi
    [ "$must_pass$list" = "$out/selection.txt" ] \
        || cp "$must_pass$list" "$out/selection.txt"
    set -- "$@" -c "$out/selection.txt"
fi

status=0
KERNEL_GUEST_DATAPATH=$datapath "$top/tests/qemu/kernel-guest.sh" \
    -t "$timeout" -w "$out" -l "$out/console.log" \
    -e OVS_SRCDIR="$OVS_SRCDIR" -e OVS_BUILDDIR="$OVS_BUILDDIR" \
    -e PERCPU_BUILDDIR="$top" \
    -- "$here/run-upstream.sh" "$@" || status=$?
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

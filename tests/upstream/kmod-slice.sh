#!/bin/sh
# Writes the list of OVS kernel-datapath tests that CI runs against our
# module ('make check-kmod-ci'): every title of CI_LIST
# (tests/upstream/kmod-ci.txt, run by every commit), then one slice of the
# other titles of MUST_PASS (tests/upstream/kmod-must-pass.txt), so that
# the whole must-pass list runs over a few consecutive commits within the
# time of a few tests.
#
# Usage: kmod-slice.sh [-s SIZE] [-n SLICE] MUST_PASS CI_LIST OUT
#   -s SIZE   titles in a slice (default 3)
#   -n SLICE  the slice to take (0 is the first); by default the number of
#             commits up to HEAD (git rev-list --count), modulo the number
#             of slices, so that each commit takes the slice after its
#             parent's, and every title runs once in every that many
#             commits.  Outside a git checkout, slice 0.
#
# Prints, one line each (a "run-kmod: " prefix, which run-tests.sh's
# summary keeps): the fixed titles, which slice was taken and why, and
# its titles.  Fails if a title of CI_LIST is not in MUST_PASS, or either
# list lists nothing.
set -e

size=3
slice=
while getopts s:n: opt; do
    case $opt in
        s) size=$OPTARG ;;
        n) slice=$OPTARG ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -ne 3 ]; then
    echo "usage: $0 [-s SIZE] [-n SLICE] MUST_PASS CI_LIST OUT" >&2
    exit 2
fi
must_pass=$1 ci_list=$2 out=$3
case $size in
    ''|*[!0-9]*|0) echo "kmod-slice: bad slice size '$size'" >&2; exit 2 ;;
esac

tmp=$(mktemp -d /tmp/kmod-slice.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
titles() {
    grep -v '^ *\(#.*\)\{0,1\}$' "$1" || true
}
titles "$must_pass" > "$tmp/must-pass"
titles "$ci_list" > "$tmp/ci"
if [ ! -s "$tmp/must-pass" ] || [ ! -s "$tmp/ci" ]; then
    echo "kmod-slice: $must_pass or $ci_list lists no test" >&2
    exit 1
fi
if grep -vxF -f "$tmp/must-pass" "$tmp/ci" > "$tmp/strays"; then
    echo "kmod-slice: in $ci_list but not in $must_pass:" >&2
    sed 's/^/  /' "$tmp/strays" >&2
    exit 1
fi
grep -vxF -f "$tmp/ci" "$tmp/must-pass" > "$tmp/rest" || true
rest=$(wc -l < "$tmp/rest")
slices=$(( (rest + size - 1) / size ))

why="given"
if [ -z "$slice" ]; then
    top=$(cd "$(dirname "$0")/../.." && pwd)
    if count=$(git -C "$top" rev-list --count HEAD 2>/dev/null); then
        commit=$(git -C "$top" rev-parse --short HEAD)
        slice=$((slices ? count % slices : 0))
        why="commit $commit: $count commits up to it, modulo $slices"
    else
        slice=0
        why="no git checkout"
    fi
fi
case $slice in
    ''|*[!0-9]*) echo "kmod-slice: bad slice '$slice'" >&2; exit 2 ;;
esac
if [ "$slice" -ge "$slices" ] && [ "$slices" -gt 0 ]; then
    echo "kmod-slice: slice $slice of 0 to $((slices - 1))" >&2
    exit 2
fi

first=$((slice * size + 1))
last=$((slice * size + size))
sed -n "${first},${last}p" "$tmp/rest" > "$tmp/slice"
cat "$tmp/ci" "$tmp/slice" > "$out"

echo "run-kmod: every commit runs the $(wc -l < "$tmp/ci") tests of $ci_list:"
sed 's/^/run-kmod:   /' "$tmp/ci"
echo "run-kmod: and slice $slice of $slices (0 to $((slices - 1)); $why) of the $rest others of $must_pass:"
sed 's/^/run-kmod:   /' "$tmp/slice"

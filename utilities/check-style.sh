#!/bin/sh
# Checks our C against the coding style each part of the tree follows
# (Documentation/contributing.md, "Coding style"); 'make check-style' runs
# it, and so does CI (utilities/run-tests.sh).
#   - OVS's style, by OVS's own utilities/checkpatch.py -f, for lib/,
#     vswitchd/, tests/ and utilities/benchmark/, less the files built on
#     utilities/benchmark/kernel-shim.h (below);
#   - Linux's style, by Linux's scripts/checkpatch.pl --no-tree -f, for
#     datapath/, with the --ignore lists the Makefile gives (and says why).
# Exits 1 if either reports anything that is not waived below, or if a
# checker is missing; 0 otherwise.
#
# Usage: check-style.sh OVS_SRCDIR IGNORE XMACRO_FILES XMACRO_IGNORE [TOP]
#   IGNORE        checkpatch.pl's --ignore list for every file of datapath/
#   XMACRO_FILES  the files of datapath/ that define X-macro lists, checked
#                 with XMACRO_IGNORE added
# Linux's checkpatch.pl comes from $LINUX_CHECKPATCH if set, else from the
# linux-source-6.1 package (utilities/install-deps.sh installs it): its
# checkpatch.pl, spelling.txt and const_structs.checkpatch are unpacked
# once from /usr/src/linux-source-6.1.tar.xz into
# ${OVS_PERCPU_CACHE:-/var/cache/ovs-percpu}/linux-checkpatch.
set -e

ovs_src=$1
ignore=$2
xmacro_files=$3
xmacro_ignore=$4
top=${5:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top"
status=0

# Findings of checkpatch.py that are its regular expressions misreading
# correct code, each as FILE|MESSAGE|LINE (the line's text, stripped), and
# why.  A waiver names the line's text, not its number, so that it follows
# the line and lapses when the line changes.
#   - '***' of a pointer to an array of pointers, and '(**)' of a pointer
#     to a function pointer, read as a multiplication;
#   - a '/' inside a string read as a division;
#   - ovsrcu_barrier() where the benchmark must run every postponed free
#     before it measures memory: ovsrcu_synchronize() would not run them.
waivers='lib/datapath.c|Line lacks whitespace around operator|struct dp_port ***rxq_ports, size_t *n_rxqs)
lib/dp-meter.c|Line lacks whitespace around operator|unsigned int (**countp)(void)
lib/dp-meter.c|Line lacks whitespace around operator|= CONST_CAST(unsigned int (**)(void),
utilities/benchmark/ovs-percpu-benchmark.c|Line lacks whitespace around operator|FILE *cpuinfo = fopen("/proc/cpuinfo", "r");
utilities/benchmark/ovs-percpu-benchmark.c|Line lacks whitespace around operator|char *path = xasprintf("/tmp/ovs-percpu-benchmark.%ld.ctl",
utilities/benchmark/ovs-percpu-benchmark.c|Are you sure you need to use ovsrcu_barrier(), in most cases ovsrcu_synchronize() will be fine?|ovsrcu_barrier();'

# OVS's style.  The kernel shim and the files built on it stand in for
# Linux's primitives and are compiled without OVS (no xmalloc(),
# ovs_abort() or ovs_strerror() to use), so OVS's checker is not theirs.
checkpatch_py=$ovs_src/utilities/checkpatch.py
if [ ! -f "$checkpatch_py" ]; then
    echo "check-style: no $checkpatch_py; run utilities/prepare-ovs-tree.sh" >&2
    exit 1
fi
ovs_files=$(ls lib/*.[ch] lib/*/*.[ch] vswitchd/*.[ch] tests/*.[ch] \
                tests/fuzz/*.[ch] utilities/benchmark/*.[ch] \
            | grep -v -e '^utilities/benchmark/kernel-shim' \
                      -e '^utilities/benchmark/kernel-flow-stats-' \
                      -e '^utilities/benchmark/kernel-meter-' \
                      -e '^utilities/benchmark/kernel-benchmark-common\.h$' \
                      -e '^tests/test-kernel-flow-stats\.c$' \
                      -e '^tests/test-kernel-meter\.c$')
# checkpatch.py prints each finding as "ERROR: MESSAGE" or "WARNING:
# MESSAGE" lines, then "FILE:LINE:", then the line.
# shellcheck disable=SC2086
/usr/bin/python3 "$checkpatch_py" -q -f $ovs_files 2>&1 \
    | WAIVERS=$waivers awk '
        BEGIN {
            n = split(ENVIRON["WAIVERS"], w, "\n")
            for (i = 1; i <= n; i++) waived[w[i]] = 1
        }
        /^(ERROR|WARNING): / { msgs[++nmsg] = $0; next }
        nmsg && /^[^ ].*:[0-9]+:$/ { where = $0; getline text
            file = where; sub(/:[0-9]+:$/, "", file)
            stripped = text; gsub(/^[ \t]+|[ \t]+$/, "", stripped)
            for (i = 1; i <= nmsg; i++) {
                m = msgs[i]; sub(/^(ERROR|WARNING): /, "", m)
                if (!((file "|" m "|" stripped) in waived)) {
                    print "check-style: " where " " msgs[i]
                    print "    " stripped
                    bad = 1
                }
            }
            nmsg = 0; next
        }
        END { exit bad }' >&2 || status=1

# Linux's style.
checkpatch_pl=${LINUX_CHECKPATCH:-}
if [ -z "$checkpatch_pl" ]; then
    cache=${OVS_PERCPU_CACHE:-/var/cache/ovs-percpu}/linux-checkpatch
    checkpatch_pl=$cache/checkpatch.pl
    tarball=/usr/src/linux-source-6.1.tar.xz
    stamp=$cache/.ovs-percpu-unpacked
    if [ ! -f "$stamp" ] || [ "$tarball" -nt "$stamp" ]; then
        if [ ! -f "$tarball" ]; then
            echo "check-style: no $tarball; run utilities/install-deps.sh" >&2
            exit 1
        fi
        echo "check-style: unpacking checkpatch.pl from $tarball into $cache"
        rm -rf "$cache.tmp"
        mkdir -p "$cache.tmp"
        tar -xJf "$tarball" -C "$cache.tmp" --strip-components=2 \
            linux-source-6.1/scripts/checkpatch.pl \
            linux-source-6.1/scripts/spelling.txt \
            linux-source-6.1/scripts/const_structs.checkpatch
        touch "$cache.tmp/.ovs-percpu-unpacked"
        rm -rf "$cache"
        mv "$cache.tmp" "$cache"
    fi
fi
datapath_files=$(ls datapath/*.[ch] | grep -v '\.mod\.c$')
plain=
xmacro=
for f in $datapath_files; do
    case " $xmacro_files " in
    *" $f "*) xmacro="$xmacro $f" ;;
    *) plain="$plain $f" ;;
    esac
done
# run_checkpatch_pl IGNORE FILE...
run_checkpatch_pl() {
    ign=$1
    shift
    [ $# -gt 0 ] || return 0
    # shellcheck disable=SC2086
    perl "$checkpatch_pl" --no-tree --terse --show-types --no-summary \
        ${ign:+--ignore "$ign"} -f "$@" >&2
}
# shellcheck disable=SC2086
run_checkpatch_pl "$ignore" $plain || status=1
# shellcheck disable=SC2086
run_checkpatch_pl "${ignore:+$ignore,}$xmacro_ignore" $xmacro || status=1

if [ $status -eq 0 ]; then
    echo "check-style: OVS's and Linux's coding styles hold"
fi
exit $status

#!/bin/sh
# Installs what ovs-percpu needs (Debian 12 packages only), prepares the
# Open vSwitch 3.1 tree once, and builds ovs-percpu in this checkout.
# Safe to run again: every step reuses what is already done.
#
# With --with-dpdk, builds instead a second copy of ovs-percpu in _build-dpdk
# (the checkout's tracked files, as they are in the work tree) against an
# OVS tree configured --with-dpdk=shared, which prepare-ovs-tree.sh builds
# once.  The checkout's own build is left alone.  The same way,
# --with-sanitizers[=address,undefined] builds _build-asan,
# --with-sanitizers=thread _build-tsan, --with-fuzzing _build-fuzz with
# clang and libFuzzer (Documentation/testing.md, "Sanitizers" and
# "Fuzzing"), and --with-thread-safety _build-clang with clang's
# -Wthread-safety and -Werror, which checks the locking annotations
# (testing.md, "Locking annotations").
set -e

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# Where the prepared OVS tree lives; see prepare-ovs-tree.sh.
cache=${OVS_PERCPU_CACHE:-/var/cache/ovs-percpu}

./utilities/install-deps.sh

# Builds a copy of the checkout's tracked files (as they are in the work
# tree) in directory $1, configured with the remaining arguments.  Automake
# builds a configured source tree only in place, so each variant gets a copy
# of its own; the checkout's own build is left alone.
build_copy() {
    dir=$1
    shift
    mkdir -p "$dir"
    git ls-files -z | xargs -0 tar cf - | tar xf - -C "$dir"
    cd "$dir"
    if [ ! -x configure ] || [ configure.ac -nt configure ] \
       || [ Makefile.am -nt Makefile.in ] \
       || [ -n "$(find m4 -name 'ovs-percpu*.m4' -newer configure)" ]; then
        echo "build $dir: autoreconf"
        autoreconf -fi > autoreconf.log 2>&1 || { cat autoreconf.log; exit 1; }
    fi
    if [ ! -f Makefile ] || [ configure -nt config.status ]; then
        echo "build $dir: configure $*"
        ./configure -q PYTHON3=/usr/bin/python3 "$@"
    fi
    echo "build $dir: make"
    make -j"$(nproc)" -s
    exit 0
}

case $1 in
--with-dpdk)
    ./utilities/prepare-ovs-tree.sh --with-dpdk "$cache"
    build_copy _build-dpdk --with-dpdk --without-linux \
        --with-ovs-source="$cache/ovs-src" \
        --with-ovs-build="$cache/ovs-build-dpdk"
    ;;
--with-sanitizers=thread)
    # ThreadSanitizer must see every lock and atomic, OVS's included, or it
    # reports races that are not: against an OVS tree built with it too.
    ./utilities/prepare-ovs-tree.sh --with-tsan "$cache"
    build_copy _build-tsan --enable-sanitizers=thread --without-linux \
        --with-ovs-source="$cache/ovs-src" \
        --with-ovs-build="$cache/ovs-build-tsan"
    ;;
--with-sanitizers|--with-sanitizers=*)
    ./utilities/prepare-ovs-tree.sh "$cache"
    list=${1#--with-sanitizers}
    build_copy _build-asan --enable-sanitizers${list} --without-linux \
        --with-ovs-source="$cache/ovs-src" --with-ovs-build="$cache/ovs-build"
    ;;
--with-fuzzing)
    ./utilities/prepare-ovs-tree.sh "$cache"
    build_copy _build-fuzz CC=clang --enable-fuzzing --without-linux \
        --with-ovs-source="$cache/ovs-src" --with-ovs-build="$cache/ovs-build"
    ;;
--with-thread-safety)
    # Every warning is an error, but -Wcast-align: clang warns on each
    # cast of a byte pointer to a packet header struct (gcc on x86 never
    # does), which OVS's own code writes with ALIGNED_CAST and ours does
    # not yet.  -O0, without -g: the analysis is the front end's, and the
    # build, which CI runs, took 67 s so against 95 s at -O2 -g.
    ./utilities/prepare-ovs-tree.sh "$cache"
    build_copy _build-clang CC=clang CFLAGS="-O0 -Wno-cast-align" \
        --enable-Werror --without-linux \
        --with-ovs-source="$cache/ovs-src" --with-ovs-build="$cache/ovs-build"
    ;;
"")
    ;;
*)
    echo "usage: $0 [--with-dpdk | --with-sanitizers[=LIST] | --with-fuzzing | --with-thread-safety]" >&2
    exit 1
    ;;
esac

./utilities/prepare-ovs-tree.sh "$cache"

if [ ! -x configure ] || [ configure.ac -nt configure ] \
   || [ Makefile.am -nt Makefile.in ] \
   || [ -n "$(find m4 -name 'ovs-percpu*.m4' -newer configure)" ]; then
    echo "build: autoreconf"
    autoreconf -fi > autoreconf.log 2>&1 || { cat autoreconf.log; exit 1; }
fi
# Configured again when the kernel the qemu guest boots is no longer the one
# the module was configured for (a newer kernel, or its headers, installed
# since): the guest would refuse the module, and skip the kernel tests.
kver=$(./utilities/guest-kernel.sh --headers)
if [ ! -f Makefile ] || [ configure -nt config.status ] \
   || ! grep -q "^OVS_BUILDDIR = $cache/ovs-build\$" Makefile \
   || ! grep -q "^LINUX_KVER = $kver\$" Makefile; then
    echo "build: configure"
    ./configure -q PYTHON3=/usr/bin/python3 \
        --with-ovs-source="$cache/ovs-src" --with-ovs-build="$cache/ovs-build"
fi
echo "build: make"
make -j"$(nproc)" -s

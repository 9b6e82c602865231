#!/bin/sh
# Installs what ovs-percpu needs (Debian 12 packages only), prepares the
# Open vSwitch 3.1 tree once, and builds ovs-percpu in this checkout.
# Safe to run again: every step reuses what is already done.
#
# With --with-dpdk, builds instead a second copy of ovs-percpu in _build-dpdk
# (the checkout's tracked files, as they are in the work tree) against an
# OVS tree configured --with-dpdk=shared, which prepare-ovs-tree.sh builds
# once.  The checkout's own build is left alone.
set -e

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# Where the prepared OVS tree lives; see prepare-ovs-tree.sh.
cache=${OVS_PERCPU_CACHE:-/var/cache/ovs-percpu}

./utilities/install-deps.sh

if [ "$1" = "--with-dpdk" ]; then
    ./utilities/prepare-ovs-tree.sh --with-dpdk "$cache"
    # Automake builds a configured source tree only in place, so the DPDK
    # build gets a copy of its own.
    mkdir -p _build-dpdk
    git ls-files -z | xargs -0 tar cf - | tar xf - -C _build-dpdk
    cd _build-dpdk
    if [ ! -x configure ] || [ configure.ac -nt configure ] \
       || [ Makefile.am -nt Makefile.in ] \
       || [ m4/ovs-percpu.m4 -nt configure ]; then
        echo "build --with-dpdk: autoreconf"
        autoreconf -fi > autoreconf.log 2>&1 || { cat autoreconf.log; exit 1; }
    fi
    if [ ! -f Makefile ] || [ configure -nt config.status ]; then
        echo "build --with-dpdk: configure"
        ./configure -q PYTHON3=/usr/bin/python3 --with-dpdk \
            --with-ovs-source="$cache/ovs-src" \
            --with-ovs-build="$cache/ovs-build-dpdk"
    fi
    echo "build --with-dpdk: make"
    make -j"$(nproc)" -s
    exit 0
fi

./utilities/prepare-ovs-tree.sh "$cache"

if [ ! -x configure ] || [ configure.ac -nt configure ] \
   || [ Makefile.am -nt Makefile.in ] || [ m4/ovs-percpu.m4 -nt configure ]; then
    echo "build: autoreconf"
    autoreconf -fi > autoreconf.log 2>&1 || { cat autoreconf.log; exit 1; }
fi
if [ ! -f Makefile ] || [ configure -nt config.status ] \
   || ! grep -q "^OVS_BUILDDIR = $cache/ovs-build\$" Makefile; then
    echo "build: configure"
    ./configure -q PYTHON3=/usr/bin/python3 \
        --with-ovs-source="$cache/ovs-src" --with-ovs-build="$cache/ovs-build"
fi
echo "build: make"
make -j"$(nproc)" -s

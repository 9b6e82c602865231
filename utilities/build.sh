#!/bin/sh
# Installs what ovs-percpu needs (Debian 12 packages only), prepares the
# Open vSwitch 3.1 tree once, and builds ovs-percpu in this checkout.
# Safe to run again: every step reuses what is already done.
set -e

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# Where the prepared OVS tree lives; see prepare-ovs-tree.sh.
cache=${OVS_PERCPU_CACHE:-/var/cache/ovs-percpu}

./utilities/install-deps.sh
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

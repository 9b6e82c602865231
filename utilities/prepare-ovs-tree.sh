#!/bin/sh
# Prepares, once, the Open vSwitch 3.1 tree that ovs-percpu builds against:
# unpacks Debian's openvswitch-source tarball and configures and builds it in
# a build directory of its own.  Later runs reuse the cache and return at once.
#
# Usage: prepare-ovs-tree.sh [CACHE_DIR]
# CACHE_DIR defaults to $OVS_PERCPU_CACHE or /var/cache/ovs-percpu.  On
# success it holds CACHE_DIR/ovs-src and CACHE_DIR/ovs-build; the tree is
# never edited.
set -e

cache=${1:-${OVS_PERCPU_CACHE:-/var/cache/ovs-percpu}}
tarball=/usr/src/openvswitch/openvswitch.tar.gz
src=$cache/ovs-src
build=$cache/ovs-build
stamp=$build/.ovs-percpu-built

if [ -f "$stamp" ] && [ "$stamp" -nt "$tarball" ]; then
    echo "prepare-ovs-tree: reusing $build"
    exit 0
fi
if [ ! -f "$tarball" ]; then
    echo "prepare-ovs-tree: $tarball missing; run utilities/install-deps.sh" >&2
    exit 1
fi

mkdir -p "$cache"
rm -rf "$src" "$build"
mkdir -p "$src" "$build"
echo "prepare-ovs-tree: unpacking $tarball into $src"
tar -xzf "$tarball" -C "$src" --strip-components=1

# A pyenv shim may come first in PATH; OVS's build scripts want Debian's
# python3.  AF_XDP is enabled when libxdp is present, as Debian's OVS does.
afxdp=
if pkg-config --exists libxdp 2>/dev/null; then
    afxdp=--enable-afxdp
fi
cd "$build"
echo "prepare-ovs-tree: configuring in $build"
"$src/configure" PYTHON3=/usr/bin/python3 $afxdp \
    --prefix=/usr/local --localstatedir=/var --sysconfdir=/etc \
    > configure.log 2>&1 || { tail -30 configure.log; exit 1; }
echo "prepare-ovs-tree: building (about 70 s on 2 cores)"
make -j"$(nproc)" > make.log 2>&1 || { tail -40 make.log; exit 1; }
touch "$stamp"
echo "prepare-ovs-tree: done"

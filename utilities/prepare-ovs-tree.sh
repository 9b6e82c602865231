#!/bin/sh
# Prepares, once, the Open vSwitch 3.1 tree that ovs-percpu builds against:
# unpacks Debian's openvswitch-source tarball and configures and builds it in
# a build directory of its own.  Later runs reuse the cache and return at once.
#
# Usage: prepare-ovs-tree.sh [--with-dpdk | --with-tsan] [CACHE_DIR]
# CACHE_DIR defaults to $OVS_PERCPU_CACHE or /var/cache/ovs-percpu.  On
# success it holds CACHE_DIR/ovs-src and CACHE_DIR/ovs-build; with
# --with-dpdk it builds, from the same source, CACHE_DIR/ovs-build-dpdk
# configured --with-dpdk=shared against Debian's libdpdk-dev; with
# --with-tsan, CACHE_DIR/ovs-build-tsan built with -fsanitize=thread, so that
# ThreadSanitizer sees OVS's own locks and atomics (build.sh
# --with-sanitizers=thread links against it).  The source tree is never
# edited.
set -e

dpdk=no
tsan=no
if [ "$1" = "--with-dpdk" ]; then
    dpdk=yes
    shift
elif [ "$1" = "--with-tsan" ]; then
    tsan=yes
    shift
fi
cache=${1:-${OVS_PERCPU_CACHE:-/var/cache/ovs-percpu}}
tarball=/usr/src/openvswitch/openvswitch.tar.gz
src=$cache/ovs-src
src_stamp=$src/.ovs-percpu-unpacked
if [ $dpdk = yes ]; then
    build=$cache/ovs-build-dpdk
elif [ $tsan = yes ]; then
    build=$cache/ovs-build-tsan
else
    build=$cache/ovs-build
fi
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
if [ ! -f "$src_stamp" ] || [ "$tarball" -nt "$src_stamp" ]; then
    # A new tarball invalidates every build made from the old source.
    rm -rf "$src" "$cache/ovs-build" "$cache/ovs-build-dpdk" \
        "$cache/ovs-build-tsan"
    mkdir -p "$src"
    echo "prepare-ovs-tree: unpacking $tarball into $src"
    tar -xzf "$tarball" -C "$src" --strip-components=1
    touch "$src_stamp"
fi
rm -rf "$build"
mkdir -p "$build"

# A pyenv shim may come first in PATH; OVS's build scripts want Debian's
# python3.  AF_XDP is enabled when libxdp is present, as Debian's OVS does.
options=
if pkg-config --exists libxdp 2>/dev/null; then
    options=--enable-afxdp
fi
if [ $dpdk = yes ]; then
    if ! pkg-config --exists libdpdk 2>/dev/null; then
        echo "prepare-ovs-tree: libdpdk-dev missing; run utilities/install-deps.sh" >&2
        exit 1
    fi
    options="$options --with-dpdk=shared"
fi
# -O1 keeps ThreadSanitizer's stacks readable and its slowdown bearable.
set --
if [ $tsan = yes ]; then
    set -- "CFLAGS=-g -O1 -fsanitize=thread" "LDFLAGS=-fsanitize=thread"
fi
cd "$build"
echo "prepare-ovs-tree: configuring in $build ($options $*)"
"$src/configure" PYTHON3=/usr/bin/python3 $options "$@" \
    --prefix=/usr/local --localstatedir=/var --sysconfdir=/etc \
    > configure.log 2>&1 || { tail -30 configure.log; exit 1; }
echo "prepare-ovs-tree: building (a few minutes on 2 cores)"
make -j"$(nproc)" > make.log 2>&1 || { tail -40 make.log; exit 1; }
touch "$stamp"
echo "prepare-ovs-tree: done"

#!/bin/sh
# Prints the Linux release that the qemu guests of tests/qemu boot and
# that the kernel datapath module (datapath/) is built for: one answer for
# configure (m4/ovs-percpu-linux.m4), build.sh, install-deps.sh and the
# guests (tests/qemu/guest-common.sh), so that the module is built for the
# kernel the guest boots, never for one the guest does not.
#
# Usage: guest-kernel.sh [--headers | --image] [ROOT]
#   (none)     the newest Debian -amd64 kernel installed whole (its image
#              /boot/vmlinuz-RELEASE and its modules.dep) that has its
#              headers (/lib/modules/RELEASE/build/Makefile); if none has
#              them, the newest installed whole: the guests that need no
#              module of ours (tests/qemu/ipip-guest.sh) boot it;
#   --headers  the same, but nothing when no kernel has its headers: the
#              kernel configure builds the module for;
#   --image    the newest installed whole, headers or not: the kernel
#              whose headers install-deps.sh installs.
# GUEST_KVER, when set, is the answer (whatever ROOT holds).  ROOT, "" by
# default, is where /lib/modules and /boot are looked for (the tests give
# a tree of their own).  Prints nothing when no kernel is found; exits 0.
mode=guest
case $1 in
    --headers) mode=headers; shift ;;
    --image) mode=image; shift ;;
esac
root=${1:-}

if [ -n "$GUEST_KVER" ]; then
    echo "$GUEST_KVER"
    exit 0
fi

newest_whole=
newest_with_headers=
for kver in $(ls "$root/lib/modules" 2>/dev/null | grep -- '-amd64$' | sort -V); do
    [ -r "$root/boot/vmlinuz-$kver" ] \
        && [ -f "$root/lib/modules/$kver/modules.dep" ] || continue
    newest_whole=$kver
    [ ! -f "$root/lib/modules/$kver/build/Makefile" ] \
        || newest_with_headers=$kver
done

case $mode in
    guest) kver=${newest_with_headers:-$newest_whole} ;;
    headers) kver=$newest_with_headers ;;
    image) kver=$newest_whole ;;
esac
[ -z "$kver" ] || echo "$kver"

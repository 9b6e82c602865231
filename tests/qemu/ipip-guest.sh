#!/bin/sh
# Copyright (c) 2026 ovs-percpu authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at:
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
#
# Usage: ipip-guest.sh WORKDIR TAP [PINGS [MODE]]
#
# Boots a qemu guest running Debian's 6.1 kernel whose NIC is the host tap
# device TAP, so that the peer of our userspace datapath's ipip port is
# Linux's own ipip device: the host kernel cannot load the ipip module,
# the guest's kernel can.  The guest configures
#     eth0    192.168.88.2/24
#     ipip0   local 192.168.88.2 remote 192.168.88.1, 10.77.0.2/24
# pings 10.77.0.1 PINGS times (default 5) through ipip0, prints ping's
# summary on its serial console (this script's stdout) and powers off.
# MODE gre (default ipip) makes the tunnel a Linux GRE device instead
# (ip_gre, 'ip tunnel add tun0 mode gre', no key), named tun0: the host
# kernel has no gre link types either.
#
# WORKDIR receives the initramfs.  The exit status is 77 (autotest's
# "skipped") if the kernel, its modules or a static busybox are missing,
# else qemu's: 0 once the guest powered off, 124 if it did not within the
# timeout.
set -e

workdir=${1:?usage: ipip-guest.sh WORKDIR TAP [PINGS [MODE]]}
tap=${2:?usage: ipip-guest.sh WORKDIR TAP [PINGS [MODE]]}
pings=${3:-5}
mode=${4:-ipip}

# The newest Debian kernel installed by linux-image-amd64.  Its bzImage
# boots directly with -kernel (Linux boot protocol), no vmlinux needed.
kver=$(ls /lib/modules | grep -- '-amd64$' | sort -V | tail -1)
kernel=/boot/vmlinuz-$kver
[ -r "$kernel" ] || { echo "ipip-guest: no kernel $kernel" >&2; exit 77; }
busybox=/bin/busybox
# busybox-static's binary, so that the initramfs needs no shared libraries.
file_is_static() { ! LC_ALL=C ldd "$1" >/dev/null 2>&1; }
file_is_static "$busybox" || { echo "ipip-guest: $busybox is not static" >&2; exit 77; }

# The modules the guest needs, in the order insmod must load them: the
# virtio-net NIC and the ipip device.  Debian builds them all as modules.
modules="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev"
modules="$modules virtio_pci failover net_failover virtio_net"
case $mode in
    ipip) modules="$modules tunnel4 ip_tunnel ipip" ;;
    gre) modules="$modules gre ip_tunnel ip_gre" ;;
    *) echo "ipip-guest: unknown mode $mode" >&2; exit 2 ;;
esac

root=$workdir/initramfs
rm -rf "$root"
mkdir -p "$root/bin" "$root/etc" "$root/lib/modules" "$root/proc" "$root/sys" \
    "$root/dev"
cp "$busybox" "$root/bin/busybox"
for m in $modules; do
    ko=$(find "/lib/modules/$kver/kernel" -name "$m.ko" | head -1)
    [ -n "$ko" ] || { echo "ipip-guest: module $m.ko not found" >&2; exit 77; }
    cp "$ko" "$root/lib/modules/"
done

# /init is ipip-guest-init.sh; this file tells it what to load and do.
cp "$(dirname "$0")/ipip-guest-init.sh" "$root/init"
printf 'modules="%s"\npings=%s\nmode=%s\n' "$modules" "$pings" "$mode" \
    > "$root/etc/ipip-guest.conf"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$workdir/initramfs.gz"

# TCG, so that the test does not depend on KVM, which the machines it runs
# on may lack or nest.  -no-reboot makes a panic end
# qemu instead of looping; the timeout bounds a guest that hangs.
exec timeout 120 qemu-system-x86_64 \
    -machine q35,accel=tcg -cpu max -m 256 -smp 1 \
    -nographic -no-reboot -monitor none \
    -kernel "$kernel" -initrd "$workdir/initramfs.gz" \
    -append "console=ttyS0 panic=-1 quiet" \
    -netdev "tap,id=n0,ifname=$tap,script=no,downscript=no" \
    -device virtio-net-pci,netdev=n0,romfile=

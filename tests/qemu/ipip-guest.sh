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
# MODE sit makes it Linux's sit device sit1 (IPv6 inside IPv4, protocol
# 41) over the same IPv4 underlay, with fd77::2/64, and the guest pings
# fd77::1 (ping6).
# MODE ip6tnl runs over an IPv6 underlay, eth0 fd88::2/64 and the host
# fd88::1, with Linux's ip6tnl device ip6tnl1 (local fd88::2, remote
# fd88::1; see ipip-guest-init.sh) twice in one boot:
# first in mode ip6ip6 with fd77::2/64, pinging fd77::1 (IPv6 inside IPv6,
# next header 41), then deleted and made again in mode ipip6 with
# 10.77.0.2/24, pinging 10.77.0.1 (IPv4 inside IPv6, next header 4).
# Busybox's ip cannot create ip6tnl devices, nor add an IPv6 address
# without duplicate address detection, so these two modes run the host's
# iproute2 'ip' (guest_add_binary).  IPIP_GUEST_ENCAPLIMIT, if set, is
# the ip6tnl device's 'encaplimit' ('none': no destination options
# header); unset, the device has Linux's default, 4, and sends a
# destination options header with the tunnel encapsulation limit, which
# our ipip port strips.
#
# WORKDIR receives the initramfs.  The exit status is 77 (autotest's
# "skipped") if qemu, the kernel, its modules or a static busybox are
# missing (guest-common.sh), else qemu's: 0 once the guest powered off,
# 124 if it did not within the timeout.
set -e

workdir=${1:?usage: ipip-guest.sh WORKDIR TAP [PINGS [MODE]]}
tap=${2:?usage: ipip-guest.sh WORKDIR TAP [PINGS [MODE]]}
pings=${3:-5}
mode=${4:-ipip}

guest_name=ipip-guest
. "$(dirname "$0")/guest-common.sh"
guest_find_kernel
kernel=$guest_kernel

# The modules the guest needs, with their dependencies: the virtio-net NIC
# and the tunnel device.  Debian builds them all as modules.
case $mode in
    ipip) tunnel_modules="ipip" ;;
    gre) tunnel_modules="ip_gre" ;;
    sit) tunnel_modules="sit" ;;
    ip6tnl) tunnel_modules="ip6_tunnel tunnel6" ;;
    *) echo "ipip-guest: unknown mode $mode" >&2; exit 2 ;;
esac

root=$workdir/initramfs
guest_initramfs_start "$root"
guest_modules=
guest_add_modules "$root" virtio_pci virtio_net $tunnel_modules
case $mode in
    sit|ip6tnl)
        ip_bin=$(command -v ip) || guest_skip "no host ip (package iproute2)"
        guest_add_binary "$root" "$ip_bin"
        ;;
esac

# /init is ipip-guest-init.sh; this file tells it what to load and do.
cp "$(dirname "$0")/ipip-guest-init.sh" "$root/init"
printf 'modules="%s"\npings=%s\nmode=%s\nencaplimit=%s\n' "$guest_modules" \
    "$pings" "$mode" "${IPIP_GUEST_ENCAPLIMIT:-}" > "$root/etc/ipip-guest.conf"
guest_initramfs_pack "$root" "$workdir/initramfs.gz"

# TCG, so that the test does not depend on KVM, which the machines it runs
# on may lack or nest.  -no-reboot makes a panic end
# qemu instead of looping; the timeout bounds a guest that hangs (the
# ip6tnl mode boots once for two rounds of pings).
timeout=120
[ "$mode" != ip6tnl ] || timeout=180
exec timeout $timeout qemu-system-x86_64 \
    -machine q35,accel=tcg -cpu max -m 256 -smp 1 \
    -nographic -no-reboot -monitor none \
    -kernel "$kernel" -initrd "$workdir/initramfs.gz" \
    -append "console=ttyS0 panic=-1 quiet" \
    -netdev "tap,id=n0,ifname=$tap,script=no,downscript=no" \
    -device virtio-net-pci,netdev=n0,romfile=

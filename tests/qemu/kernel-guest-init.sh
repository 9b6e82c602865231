#!/bin/busybox sh
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
# The /init (PID 1) of the initramfs that tests/qemu/kernel-guest.sh
# boots.  It loads the virtio and 9p modules, mounts the host's root
# read-only on /host, makes the directories of -o writable with overlays
# over a tmpfs, puts tmpfs on the directories that must be writable
# (/run, /tmp, /var/tmp, /dev/shm) and the read-write shares (-w) at their
# host paths, and then becomes, still as PID 1, the host's perl running
# kernel-guest-pid1.pl in a chroot of /host.  PID 1's chroot is the
# kernel's too (PID 1 shares its fs_struct with the kernel threads), so the
# kernel's module loader finds the modprobe stand-in at its host path.
#
# /etc/kernel-guest.conf, written by kernel-guest.sh, sets 'modules' (the
# .ko files in /lib/modules, in load order), 'qemudir' (tests/qemu/ on the
# host), 'work_dirs' and 'overlay_dirs'.  /etc/kernel-guest.run is for the
# steps after the chroot (kernel-guest-run.sh).

/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
. /etc/kernel-guest.conf

# Stops the guest at once; kernel-guest.sh reports the console's end,
# where the reason is.
fail() {
    echo "kernel-guest: init: $*" > /dev/console
    poweroff -f
}

for m in $modules; do
    insmod /lib/modules/$m || fail "insmod $m failed"
done

# The root is read-only and the host may change it only by building, so
# the guest can keep what it read (cache=loose): OVS's commands start
# several times faster than when every page is read again over 9p.
opts=trans=virtio,version=9p2000.L,msize=262144
mkdir /host
mount -t 9p -o $opts,ro,cache=loose hostroot /host || fail "9p root mount failed"
# The overlays (-o), first, so that the tmpfs and shares below land on
# top of them: the host's directory below, read-only, and what the guest
# writes in a tmpfs (overlayfs keeps its whiteouts in xattrs, which the
# initramfs's own root may not take).
if [ -n "$overlay_dirs" ]; then
    mkdir /overlay
    mount -t tmpfs -o mode=700 tmpfs /overlay || fail "tmpfs for the overlays"
    i=0
    for d in $overlay_dirs; do
        mkdir -p /overlay/$i/upper /overlay/$i/work
        mount -t overlay -o lowerdir=/host$d,upperdir=/overlay/$i/upper,workdir=/overlay/$i/work \
            overlay /host$d || fail "overlay on $d failed"
        i=$((i + 1))
    done
fi
mount -t proc proc /host/proc || fail "proc"
mount -t sysfs sys /host/sys || fail "sysfs"
mount -t devtmpfs dev /host/dev || fail "devtmpfs"
mkdir -p /host/dev/pts /host/dev/shm
# What udev makes at boot and devtmpfs does not: bash's <(...) needs
# /dev/fd (dkms uses it).
ln -s /proc/self/fd /host/dev/fd
ln -s /proc/self/fd/0 /host/dev/stdin
ln -s /proc/self/fd/1 /host/dev/stdout
ln -s /proc/self/fd/2 /host/dev/stderr
mount -t devpts devpts /host/dev/pts
for d in /run /dev/shm; do
    mount -t tmpfs -o mode=755 tmpfs /host$d || fail "tmpfs $d"
done
for d in /tmp /var/tmp; do
    mount -t tmpfs -o mode=1777 tmpfs /host$d || fail "tmpfs $d"
done
chmod 1777 /host/dev/shm

# Read-write shares, as the host sees them (no cache: the host reads what
# the guest writes while it runs).  One under /tmp lands on the tmpfs, so
# its mount point is made there.
i=0
for d in $work_dirs; do
    mkdir -p /host$d
    mount -t 9p -o $opts work$i /host$d || fail "9p mount of $d failed"
    i=$((i + 1))
done

mkdir -p /host/run/ovs-percpu-guest
cp /etc/kernel-guest.run /host/run/ovs-percpu-guest/run.conf
echo "$overlay_dirs" > /host/run/ovs-percpu-guest/overlays
exec chroot /host /usr/bin/perl "$qemudir/kernel-guest-pid1.pl" \
    "$qemudir/kernel-guest-run.sh"

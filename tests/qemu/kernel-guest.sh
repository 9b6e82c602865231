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
# Usage: kernel-guest.sh [OPTION]... [--] COMMAND [ARG]...
#
# Runs COMMAND in a qemu/TCG guest that boots Debian's kernel (the one the
# kernel datapath module is built for) with the host's whole root shared
# read-only over 9p, so that the guest runs the host's binaries: our build,
# OVS's build tree, iproute2, iperf3...  COMMAND's standard output and
# error are this script's, its exit status is this script's.  It runs as
# root in the guest's own network namespace, in the host's current
# directory (or / if the guest cannot see it), with stdin from /dev/null.
# For a pipeline, run 'sh -c "..."'.
#
# In the guest, /run, /tmp, /var/tmp and /dev/shm are empty tmpfs (so are
# the places for unix sockets: 9p cannot hold them), and the kernel's
# module loader (/proc/sys/kernel/modprobe) and the first 'modprobe' in
# PATH are tests/qemu/modprobe-standin.sh: 'modprobe openvswitch' loads our
# datapath/ovs_percpu.ko, 'modprobe -r openvswitch' removes it, vport_*
# modules fail, and anything else is the real modprobe, so that Debian's
# openvswitch.ko is never loaded by accident (its families' aliases would
# otherwise load it as soon as OVS looks one up).
#
# Options:
#   -w DIR      share the host directory DIR read-write at the same path
#               (repeatable); everything else is read-only
#   -o DIR      make DIR writable in the guest with an overlay whose upper
#               layer is a tmpfs (repeatable): what the guest writes there
#               is lost when it stops, and the host's DIR never changes
#               (for dpkg and dkms: /etc, /usr, /var)
#   -e NAME=VALUE  set an environment variable for COMMAND (repeatable);
#               COMMAND gets PATH, HOME=/tmp, LC_ALL=C and these only
#   -t SECONDS  timeout for the whole guest, boot included (default 600,
#               or KERNEL_GUEST_TIMEOUT)
#   -m MiB      guest memory (default 1024)
#   -c CPUS     vCPUs (default 2)
#   -l FILE     copy the guest's console (the kernel's log and the status
#               lines of kernel-guest-run.sh) to FILE at the end
#   -v          print boot and command times on stderr
#
# Environment:
#   KERNEL_GUEST_DATAPATH  what 'modprobe openvswitch' loads: percpu (our
#               module, the default), stock (Debian's openvswitch.ko and
#               its vport_* modules, for baselines) or none (fails, as on
#               a system without the module)
#   KERNEL_GUEST_MODULE    our module (default datapath/ovs_percpu.ko of
#               this checkout)
#   KERNEL_GUEST_MODULE_PARAMS  parameters for it, e.g. for the benchmark
#   KERNEL_GUEST_ALLOW_WARN=yes  do not fail on a kernel WARN/BUG
#   GUEST_KVER  the kernel release to boot (default: utilities/guest-kernel.sh's,
#               the newest -amd64 with its headers, which configure builds for)
#
# Exit status: COMMAND's; 77 (autotest's "skipped") with the reason on
# stderr if qemu, the kernel, its modules, busybox-static, perl or our
# module (built only where the kernel headers are) are missing; 124 if the
# guest did not finish within the timeout; 98 if the command succeeded but
# the guest's kernel logged a WARNING, BUG or Oops (printed on stderr);
# 99 if the guest stopped without reporting COMMAND's status (the end of
# its console is printed on stderr).
#
# One guest takes both cores: run it under
# 'flock /tmp/ovs-percpu-guest.lock', one at a time.
set -e

qemudir=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$qemudir/../.." && pwd)
guest_name=kernel-guest
. "$qemudir/guest-common.sh"

timeout=${KERNEL_GUEST_TIMEOUT:-600}
mem=1024
cpus=2
console=
verbose=no
work_dirs=
overlay_dirs=
envs=
while getopts w:e:t:m:c:l:o:v opt; do
    case $opt in
        w) d=$(cd "$OPTARG" && pwd -P) || exit 2
           work_dirs="$work_dirs $d" ;;
        e) case $OPTARG in
               [A-Za-z_]*=*) ;;
               *) echo "kernel-guest: -e wants NAME=VALUE" >&2; exit 2 ;;
           esac
           envs="$envs$(printf '\n%s' "$OPTARG")" ;;
        o) case $OPTARG in
               /?*) overlay_dirs="$overlay_dirs $OPTARG" ;;
               *) echo "kernel-guest: -o wants an absolute directory other than /" >&2
                  exit 2 ;;
           esac ;;
        t) timeout=$OPTARG ;;
        m) mem=$OPTARG ;;
        c) cpus=$OPTARG ;;
        l) console=$OPTARG ;;
        v) verbose=yes ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then
    echo "usage: kernel-guest.sh [-w DIR] [-o DIR] [-e NAME=VALUE] [-t SECONDS] [-m MiB] [-c CPUS] [-l FILE] [-v] [--] COMMAND [ARG]..." >&2
    exit 2
fi

# The guest mounts tmpfs over these (kernel-guest-init.sh), which would
# hide a tree of ours under one of them (a clone in /tmp): such a tree, and
# the caller's directory (the build tree), are shared read-write at their
# own paths, ahead of the -w directories that may lie inside them.
hidden_dirs="/tmp /var/tmp /run /dev/shm"
covered() {
    for w in $extra_dirs $work_dirs; do
        case $1/ in "$w"/*) return 0 ;; esac
    done
    return 1
}
extra_dirs=
for d in "$(cd "$top" && pwd -P)" "$(pwd -P)"; do
    for h in $hidden_dirs; do
        case $d/ in
            "$h"/*) covered "$d" || extra_dirs="$extra_dirs $d" ;;
        esac
    done
done
work_dirs="$extra_dirs $work_dirs"

datapath=${KERNEL_GUEST_DATAPATH:-percpu}
module=${KERNEL_GUEST_MODULE:-$top/datapath/ovs_percpu.ko}
case $datapath in
    percpu|stock|none) ;;
    *) echo "kernel-guest: KERNEL_GUEST_DATAPATH must be percpu, stock or none" >&2
       exit 2 ;;
esac

guest_find_kernel
guest_find_boot_image
[ -x /usr/bin/perl ] || guest_skip "no /usr/bin/perl (the guest's init)"
if [ "$datapath" = percpu ]; then
    [ -f "$module" ] || guest_skip "no $module: configure builds it only where the headers of $guest_kver are (utilities/install-deps.sh installs linux-headers-$guest_kver)"
    vermagic=$(modinfo -F vermagic "$module" 2>/dev/null | cut -d' ' -f1)
    [ "$vermagic" = "$guest_kver" ] \
        || guest_skip "$module is built for '$vermagic', the guest boots $guest_kver (./utilities/build.sh configures for it again)"
    module=$(cd "$(dirname "$module")" && pwd -P)/$(basename "$module")
fi

scratch=$(mktemp -d /tmp/kernel-guest.XXXXXX)
relays=
trap 'rm -rf "$scratch"' EXIT

# Quotes $1 for the guest's shell.
shell_quote() {
    printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# The initramfs: busybox, the modules of the virtio bus and 9p, the /init
# that mounts the host's root and chroots into it, and the configuration
# that the steps after it read (copied to /run/ovs-percpu-guest/).
root=$scratch/initramfs
guest_initramfs_start "$root"
guest_modules=
guest_add_modules "$root" virtio_pci 9pnet_virtio 9p
[ -z "$overlay_dirs" ] || guest_add_modules "$root" overlay
cp "$qemudir/kernel-guest-init.sh" "$root/init"
{
    echo "modules='$guest_modules'"
    echo "qemudir=$(shell_quote "$qemudir")"
    echo "work_dirs=$(shell_quote "$work_dirs")"
    echo "overlay_dirs=$(shell_quote "$overlay_dirs")"
} > "$root/etc/kernel-guest.conf"
{
    echo "cwd=$(shell_quote "$(pwd -P)")"
    echo "datapath=$datapath"
    echo "module=$(shell_quote "$module")"
    echo "module_params=$(shell_quote "${KERNEL_GUEST_MODULE_PARAMS:-}")"
    printf 'set --'
    for arg in "$@"; do
        printf ' %s' "$(shell_quote "$arg")"
    done
    echo
    printf '%s\n' "$envs" | while IFS= read -r e; do
        [ -n "$e" ] || continue
        echo "export ${e%%=*}=$(shell_quote "${e#*=}")"
    done
} > "$root/etc/kernel-guest.run"
guest_initramfs_pack "$root" "$scratch/initramfs.gz"

# The guest's serial ports: ttyS0 is its console (the kernel's log) into a
# file; ttyS1 and ttyS2 carry COMMAND's stdout and stderr through FIFOs
# that cat relays to ours as they come (a file chardev on /dev/stdout would
# truncate a file that the caller redirected us to).
mkfifo "$scratch/out" "$scratch/err"
cat "$scratch/out" &
relays="$!"
cat "$scratch/err" >&2 &
relays="$relays $!"

virtfs="-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
i=0
for d in $work_dirs; do
    virtfs="$virtfs -virtfs local,path=$d,mount_tag=work$i,security_model=none,multidevs=remap"
    i=$((i + 1))
done

# TCG, as there is no KVM here (multi-threaded: one host thread per vCPU).
# -no-reboot makes a panic end qemu instead of looping; the timeout bounds
# a guest that hangs.  loglevel=5 puts kernel warnings on the console.
start=$(date +%s.%N)
status=0
timeout -k 10 "$timeout" qemu-system-x86_64 \
    -machine q35,accel=tcg -cpu max -m "$mem" -smp "$cpus" \
    -nodefaults -display none -no-reboot -monitor none \
    -kernel "$guest_boot_image" -initrd "$scratch/initramfs.gz" \
    -append "console=ttyS0 panic=-1 loglevel=5" \
    -serial "file:$scratch/console.log" \
    -chardev "file,id=out,path=$scratch/out" -serial chardev:out \
    -chardev "file,id=err,path=$scratch/err" -serial chardev:err \
    $virtfs < /dev/null || status=$?
end=$(date +%s.%N)

# A qemu that failed before opening the FIFOs leaves the relays waiting
# for a writer: opening them read-write lets them see their end.
exec 3<> "$scratch/out" 4<> "$scratch/err"
exec 3>&- 4>&-
wait $relays

tr -d '\r' < "$scratch/console.log" > "$scratch/console.txt"
[ -z "$console" ] || cp "$scratch/console.txt" "$console"
if [ $status -eq 124 ] || [ $status -eq 137 ]; then
    echo "kernel-guest: timed out after $timeout s; the console's end:" >&2
    tail -20 "$scratch/console.txt" >&2
    exit 124
fi
line=$(grep '^kernel-guest-status: ' "$scratch/console.txt" | tail -1)
if [ -z "$line" ]; then
    echo "kernel-guest: the guest stopped without COMMAND's status (qemu exited $status); the console's end:" >&2
    tail -30 "$scratch/console.txt" >&2
    exit 99
fi
# "kernel-guest-status: STATUS BOOT_SECONDS COMMAND_SECONDS"
set -- $line
status=$2
if [ $verbose = yes ]; then
    awk -v s="$start" -v e="$end" -v b="$3" -v c="$4" 'BEGIN {
        printf "kernel-guest: %.1f s in all: boot %.1f s (guest uptime at the command), command %.1f s\n", e - s, b, c }' >&2
fi
if grep -q '^kernel-guest-warning: ' "$scratch/console.txt" \
   && [ "${KERNEL_GUEST_ALLOW_WARN:-no}" != yes ]; then
    echo "kernel-guest: the guest's kernel warned:" >&2
    sed -n 's/^kernel-guest-warning: //p' "$scratch/console.txt" >&2
    [ "$status" -ne 0 ] || status=98
fi
exit "$status"

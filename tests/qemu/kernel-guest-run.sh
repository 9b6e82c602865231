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
# The last step of the guest of tests/qemu/kernel-guest.sh, run by
# kernel-guest-pid1.pl in the chroot of the host's root: it points the
# kernel's module loader at the modprobe stand-in, runs the command with
# its output on the serial ports that kernel-guest.sh relays, then checks
# the kernel's log for warnings and prints, on the console, the lines
# kernel-guest.sh reads:
#   kernel-guest-warning: LINE      (one per suspicious kernel log line)
#   kernel-guest-status: STATUS BOOT_SECONDS COMMAND_SECONDS
#
# /run/ovs-percpu-guest/run.conf (from kernel-guest.sh) sets cwd, datapath,
# module, module_params, the command (set --) and its environment.

conf=/run/ovs-percpu-guest
qemudir=$(dirname "$0")

export PATH=$conf/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LC_ALL=C TERM=dumb
unset LANG
. $conf/run.conf

# The modprobe stand-in reads its mode and our module's path from $conf;
# a test may change the mode (echo none > $conf/datapath).
echo "$datapath" > $conf/datapath
echo "$module" > $conf/module
echo "$module_params" > $conf/module-params
mkdir -p $conf/bin
ln -s "$qemudir/modprobe-standin.sh" $conf/bin/modprobe
echo $conf/bin/modprobe > /proc/sys/kernel/modprobe

hostname kernel-guest
ip link set lo up

# The device nodes whose first open loads their module (/dev/net/tun for
# tun, /dev/fuse...), as systemd's kmod-static-nodes makes them at boot.
while read -r mod name dev; do
    case $mod in '#'*|'') continue ;; esac
    [ ! -e "/dev/$name" ] || continue
    mkdir -p "$(dirname "/dev/$name")"
    nums=${dev#?}
    mknod -m 0600 "/dev/$name" "$(echo "$dev" | cut -c1)" \
        "${nums%%:*}" "${nums#*:}" 2>/dev/null
done < "/lib/modules/$(uname -r)/modules.devname"
[ ! -e /dev/net/tun ] || chmod 0666 /dev/net/tun

# Raw serial lines: no CR added before each LF, no echo.
for tty in /dev/ttyS1 /dev/ttyS2; do
    stty -F $tty raw -echo -onlcr 2>/dev/null
done

cd "$cwd" 2>/dev/null || {
    echo "kernel-guest: $cwd is not visible in the guest; running in /" > /dev/console
    cd /
}

boot=$(cut -d' ' -f1 /proc/uptime)
"$@" < /dev/null > /dev/ttyS1 2> /dev/ttyS2
status=$?
end=$(cut -d' ' -f1 /proc/uptime)

# A WARN_ON prints "WARNING: CPU: ...", BUG_ON and bad accesses "BUG:" or
# an Oops, each with a call trace; lockdep and RCU stalls print "INFO:"
# lines with a trace too.
dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace:|INFO: rcu|INFO: task .* blocked|UBSAN:' \
    | sed 's/^/kernel-guest-warning: /' > /dev/console
echo "kernel-guest-status: $status $boot $(echo "$boot $end" | awk '{print $2 - $1}')" \
    > /dev/console

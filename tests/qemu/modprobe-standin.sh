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
# Usage: modprobe [OPTION]... MODULE [PARAM=VALUE]...
#        modprobe -r [OPTION]... MODULE...
#
# The modprobe of the guest of tests/qemu/kernel-guest.sh, both the
# kernel's module loader (/proc/sys/kernel/modprobe, which the kernel calls
# as 'modprobe -q -- ALIAS' when a generic-netlink family or a link type is
# looked up and missing) and the first 'modprobe' in PATH (OVS's kmod tests
# run 'modprobe openvswitch', 'modprobe -r openvswitch' and best-effort
# 'modprobe -q vport_*').  What it does depends on the mode in
# /run/ovs-percpu-guest/datapath:
#
#   module                       percpu (default)   stock        none
#   openvswitch, or the alias    insmod ours        the real     fails
#   of an OVS family             (rmmod with -r)    modprobe
#   vport_*, vport-type-*        fails              the real     fails
#   anything else                the real modprobe (/sbin/modprobe)
#
# so that Debian's openvswitch.ko, which owns the same family names, is
# never autoloaded in place of ours, and its vport modules (which need it)
# never load.  Our module is /run/ovs-percpu-guest/module; its parameters
# are those of the command line, else /run/ovs-percpu-guest/module-params.
# Each call is logged in /run/ovs-percpu-guest/modprobe.log.

# Shell builtins only up to the decision: the kernel runs this for every
# missing family or link type it looks up, and under TCG each fork costs.
conf=/run/ovs-percpu-guest
real=/sbin/modprobe
datapath=percpu
module=
read -r datapath 2>/dev/null < $conf/datapath
read -r module 2>/dev/null < $conf/module
echo "$datapath: modprobe $*" >> $conf/modprobe.log 2>/dev/null

# The options that matter here; the others are passed on to the real
# modprobe untouched.
remove=no
quiet=no
dry_run=no
name=
for arg in "$@"; do
    case $arg in
        --) ;;
        -r|--remove) remove=yes ;;
        -q|--quiet) quiet=yes ;;
        -n|--dry-run|--show) dry_run=yes ;;
        -*) ;;
        *) [ -n "$name" ] || name=$arg ;;
    esac
done

# Prints "modprobe: $*" on stderr unless -q.
say() {
    [ $quiet = yes ] || echo "modprobe: $*" >&2
}

# Module names treat '-' and '_' alike.
case $name in
    openvswitch|net[-_]pf[-_]16[-_]proto[-_]16[-_]family[-_]ovs[-_]*)
        class=ovs ;;
    vport[-_]*) class=vport ;;
    *) class=other ;;
esac

case $class/$datapath in
    other/*|*/stock)
        exec $real "$@"
        ;;
    vport/*)
        say "FATAL: $name refused: Debian's vport modules need openvswitch.ko (kernel-guest datapath $datapath)"
        exit 1
        ;;
    ovs/none)
        if [ $remove = yes ]; then
            say "FATAL: Module $name is not in kernel."
        else
            say "FATAL: Module $name not found (kernel-guest datapath none)."
        fi
        exit 1
        ;;
esac

# Our module, for 'openvswitch' or a family alias.
loaded=no
[ ! -d /sys/module/ovs_percpu ] || loaded=yes
if [ $remove = yes ]; then
    if [ $loaded = no ]; then
        say "FATAL: Module $name is not in kernel."
        exit 1
    fi
    [ $dry_run = yes ] && exit 0
    exec /sbin/rmmod ovs_percpu
fi
[ $loaded = no ] || exit 0
if [ ! -f "$module" ]; then
    say "FATAL: our module $module is missing (build it)."
    exit 1
fi
[ $dry_run = yes ] && exit 0

# Its dependencies, which insmod does not load, come from Debian's tree.
for dep in $(/sbin/modinfo -F depends "$module" | tr , ' '); do
    $real -q "$dep" || { say "FATAL: $dep (for $module) failed"; exit 1; }
done

# The parameters: what follows the module's name, if anything does.
params=
seen=no
for arg in "$@"; do
    case $arg in
        -*) continue ;;
    esac
    if [ $seen = yes ]; then
        params="$params $arg"
    elif [ "$arg" = "$name" ]; then
        seen=yes
    fi
done
[ -n "$params" ] || read -r params 2>/dev/null < $conf/module-params
exec /sbin/insmod "$module" $params

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
# The /init (PID 1) of the guest that tests/qemu/ipip-guest.sh boots: it
# gives Linux's ipip device the addresses of the interop test, pings the
# host's overlay address through it, prints the result on the console and
# powers off.  /etc/ipip-guest.conf, written by ipip-guest.sh, sets
# 'modules' (the .ko files in /lib/modules to load, in dependency order),
# 'pings' and 'mode'.

/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
. /etc/ipip-guest.conf

for m in $modules; do
    insmod /lib/modules/$m || echo "guest: insmod $m failed"
done

# Busybox's ip has no 'link add type ipip': 'ip tunnel add' makes it.
ip link set lo up
ip addr add 192.168.88.2/24 dev eth0
ip link set eth0 up
# 'mode' is ipip (device ipip0) or gre (tun0: gre0 is ip_gre's own
# fallback device).
dev=ipip0
if [ "$mode" = gre ]; then
    dev=tun0
fi
ip tunnel add $dev mode ${mode:-ipip} local 192.168.88.2 remote 192.168.88.1
ip addr add 10.77.0.2/24 dev $dev
ip link set $dev up
echo "guest: $dev up"

# The first pings are lost while the host's switch resolves the guest's
# MAC by ARP (it drops the reply it cannot send yet), so uncounted warm-up
# pings, one a second, run until one is answered, for at most 20 s.
tries=1
until ping -c 1 -W 1 10.77.0.1 >/dev/null; do
    tries=$((tries + 1))
    if [ $tries -gt 20 ]; then
        echo "guest: warm-up pings failed"
        break
    fi
done
echo "guest: warm-up pings: $tries"

echo "guest: ping result:"
ping -q -c $pings -i 0.2 -W 5 10.77.0.1
echo "guest: done"
poweroff -f

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
# 'pings', 'mode' (ipip, gre, sit or ip6tnl) and 'encaplimit' (ip6tnl's).

/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
. /etc/ipip-guest.conf

for m in $modules; do
    insmod /lib/modules/$m || echo "guest: insmod $m failed"
done

# warmup ADDR PING: the first pings are lost while the host's switch
# resolves the guest's MAC by ARP or neighbour discovery (it drops the
# packet it cannot send yet), so uncounted warm-up pings, one a second, run
# until one is answered, for at most 20 s.
warmup() {
    tries=1
    until $2 -c 1 -W 1 $1 >/dev/null; do
        tries=$((tries + 1))
        if [ $tries -gt 20 ]; then
            echo "guest: warm-up pings failed"
            break
        fi
    done
    echo "guest: warm-up pings: $tries"
}

# ping_round LABEL ADDR PING: the counted pings, with ping's summary.
ping_round() {
    warmup $2 $3
    echo "guest: $1 ping result:"
    $3 -q -c $pings -i 0.2 -W 5 $2
}

ip link set lo up
ip link set eth0 up
case ${mode:-ipip} in
ipip|gre)
    # Busybox's ip has no 'link add type ipip': 'ip tunnel add' makes it.
    # 'mode' is ipip (device ipip0) or gre (tun0: gre0 is ip_gre's own
    # fallback device).
    ip addr add 192.168.88.2/24 dev eth0
    dev=ipip0
    if [ "$mode" = gre ]; then
        dev=tun0
    fi
    ip tunnel add $dev mode ${mode:-ipip} local 192.168.88.2 remote 192.168.88.1
    ip addr add 10.77.0.2/24 dev $dev
    ip link set $dev up
    echo "guest: $dev up"
    ping_round $mode 10.77.0.1 ping
    ;;
sit)
    # The host's iproute2 ip (/usr/bin/ip): IPv6 inside IPv4.  A sit
    # device has no ARP, so its address needs no duplicate address
    # detection; nodad anyway.
    IP=/usr/bin/ip
    $IP addr add 192.168.88.2/24 dev eth0
    $IP link add sit1 type sit local 192.168.88.2 remote 192.168.88.1
    $IP -6 addr add fd77::2/64 dev sit1 nodad
    $IP link set sit1 up
    echo "guest: sit1 up"
    ping_round sit fd77::1 ping6
    ;;
ip6tnl)
    # IPv6 underlay, addresses without duplicate address detection so that
    # they are usable at once.  Linux's ip6tnl sends, by default
    # (encaplimit 4), a destination options header with a tunnel
    # encapsulation limit (RFC 2473, 4.1.1) before the inner packet, which
    # our ipip port strips; the conf's 'encaplimit', if set, is passed to
    # the device ('none': no such header).  The device's setting is
    # printed, for the test to see which it was.
    IP=/usr/bin/ip
    $IP -6 addr add fd88::2/64 dev eth0 nodad
    $IP link add ip6tnl1 type ip6tnl mode ip6ip6 local fd88::2 remote fd88::1 ${encaplimit:+encaplimit $encaplimit}
    $IP -6 addr add fd77::2/64 dev ip6tnl1 nodad
    $IP link set ip6tnl1 up
    echo "guest: ip6tnl1 `$IP -d link show ip6tnl1 | grep -o 'encaplimit [0-9a-z]*'`"
    echo "guest: ip6tnl1 up, mode ip6ip6"
    ping_round ip6ip6 fd77::1 ping6
    $IP link del ip6tnl1
    $IP link add ip6tnl1 type ip6tnl mode ipip6 local fd88::2 remote fd88::1 ${encaplimit:+encaplimit $encaplimit}
    $IP addr add 10.77.0.2/24 dev ip6tnl1
    $IP link set ip6tnl1 up
    echo "guest: ip6tnl1 `$IP -d link show ip6tnl1 | grep -o 'encaplimit [0-9a-z]*'`"
    echo "guest: ip6tnl1 up, mode ipip6"
    ping_round ipip6 10.77.0.1 ping
    ;;
esac
echo "guest: done"
poweroff -f

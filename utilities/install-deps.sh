#!/bin/sh
# Installs, from Debian 12's apt archive only, everything ovs-percpu needs to
# build against the Open vSwitch 3.1 source tree and to run its test suite.
# qemu-system-x86, linux-image-amd64, busybox-static and cpio boot a qemu
# guest running Linux's own ipip device for the interop test
# (tests/qemu/ipip-guest.sh), since the host kernel cannot load modules.
# clang (with its libFuzzer runtime) builds the fuzz targets of tests/fuzz.
# gnuplot-nox draws the benchmark's plot
# (utilities/benchmark/benchmark-plot.sh) and linux-perf profiles it
# (performance.md).
# The headers of that same kernel (linux-headers-VERSION, never the
# linux-headers-amd64 meta package, which can move to a newer ABI than the
# image) build the kernel datapath module in datapath/ that the guest loads.
# ovn-central and ovn-host (OVN 23.03, built against OVS 3.1) run the
# two-chassis OVN sandbox (utilities/ovn-sandbox.sh, Documentation/ovn.md).
# ovn-host pulls in Debian's openvswitch-switch, whose daemons must never
# start: our sandboxes run their own, with run directories of their own.
# dpkg-dev builds the .deb of utilities/build-deb.sh (Documentation/install.md),
# which diverts openvswitch-switch's ovs-vswitchd to ours; dkms is what the
# kernel datapath's package (ovs-percpu-datapath-dkms) depends on, run from
# the host's root by the qemu guest that installs it (tests/kernel-dkms.at).
# linux-source-6.1 holds Linux's scripts/checkpatch.pl, which make
# check-style runs over datapath/ (utilities/check-style.sh).
# netcat-openbsd is the nc (BSD options: -q, -k, -p) that OVS's own
# kernel-datapath tests run (tests/upstream/run-kmod.sh), in the guest too.
set -e

packages="openvswitch-source autoconf automake libtool pkg-config make gcc
    libssl-dev libcap-ng-dev libnuma-dev libunbound-dev libxdp-dev libbpf-dev
    python3 iproute2 iputils-ping iperf3 python3-scapy tcpdump procps
    netcat-openbsd
    ethtool xz-utils libdpdk-dev clang gnuplot-nox linux-perf
    qemu-system-x86 linux-image-amd64 busybox-static cpio
    openvswitch-switch dpkg-dev dkms ovn-central ovn-host linux-source-6.1"

missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" \
        || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "install-deps: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    # openvswitch-switch (stock's service, which the install test and
    # utilities/build-deb.sh's package use) must not start a system switch
    # that our tests would meet: while apt runs, a policy-rc.d refuses
    # every service start, unless the machine has one of its own.
    policy=
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\n# install-deps.sh: no service starts.\nexit 101\n' \
            > "$policy"
        chmod 755 "$policy"
        trap 'rm -f "$policy"' EXIT
    fi
    apt-get update -q || true
    apt-get -o DPkg::Lock::Timeout=600 install -y -q \
        --no-install-recommends $missing
    if [ -n "$policy" ]; then
        rm -f "$policy"
        trap - EXIT
    fi
fi

# The guest boots the newest -amd64 kernel installed with its headers, and
# configure builds our module for it (utilities/guest-kernel.sh): the
# headers of the newest image make that kernel the newest one.
kver=$(sh "$(dirname "$0")/guest-kernel.sh" --image)
if [ -n "$kver" ] \
   && ! dpkg-query -W -f='${Status}' "linux-headers-$kver" 2>/dev/null \
        | grep -q "ok installed"; then
    echo "install-deps: installing: linux-headers-$kver"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends "linux-headers-$kver" \
        || { apt-get update -q && apt-get install -y -q \
                 --no-install-recommends "linux-headers-$kver"; }
fi

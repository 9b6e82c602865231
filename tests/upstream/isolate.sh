#!/bin/sh
# Runs COMMAND in a network namespace and a mount namespace of its own, so
# that a system test that creates namespaces, veths, taps and bridges
# touches none of the host's, and several such tests can run at once with
# no system lock.
#
# Usage: isolate.sh COMMAND [ARG]...
#
# Inside: a new network namespace with only "lo" (up); a private mount
# namespace with a tmpfs on /run/netns (so "ip netns add" names there are
# ours alone, and vanish with us) and on /etc/netns, and sysfs mounted
# afresh on /sys (so /sys/class/net shows this namespace's devices).
# When COMMAND exits, every process left in the namespace (a test's
# tcpdump or nc, a daemon it failed to stop) is killed, and with the last
# of them the namespace and all its devices go.  Exits with COMMAND's
# status.  Root only.
set -e

if [ $# -eq 0 ]; then
    echo "usage: $0 COMMAND [ARG]..." >&2
    exit 2
fi
if [ "$(id -u)" != 0 ]; then
    echo "isolate: needs root" >&2
    exit 77
fi

if [ "$OVS_PERCPU_ISOLATED" != inside ]; then
    # The mount points must exist on the host to be mounted over; empty
    # directories, harmless (ip netns add makes /run/netns itself).
    mkdir -p /run/netns /etc/netns
    OVS_PERCPU_ISOLATED=inside exec unshare --net --mount \
        --propagation private sh "$0" "$@"
fi

# Now inside the new namespaces.
mount -t tmpfs -o mode=0755 ovs-percpu-netns /run/netns
mount -t tmpfs -o mode=0755 ovs-percpu-etc-netns /etc/netns
mount -t sysfs sysfs /sys
ip link set lo up
export OVS_PERCPU_ISOLATED=yes

status=0
"$@" || status=$?

# Kills the processes left in this network namespace, in the namespaces
# made under it (/run/netns here is ours alone) and in this mount
# namespace: the test's stragglers (a tcpdump, an nc, a daemon it failed to
# stop).  Only these: a process is matched by its namespaces' inodes.
ours="$(readlink /proc/$$/ns/net) $(readlink /proc/$$/ns/mnt)"
for ns in /run/netns/*; do
    [ ! -e "$ns" ] || ours="$ours net:[$(stat -L -c %i "$ns")]"
done
kill_left() {
    sig=$1
    # The glob is expanded here, before find and awk start, so that they
    # are not among the processes listed; one find for all of them (a
    # readlink per process took over a minute on a loaded host).
    set -- /proc/[0-9]*/ns
    pids=$(find "$@" -maxdepth 1 \( -name net -o -name mnt \) \
               -printf '%h %l\n' 2>/dev/null \
           | awk -v ours=" $ours " -v self=$$ '
                 { split($1, d, "/"); pid = d[3] }
                 pid != self && index(ours, " " $2 " ") { print pid }' \
           | sort -u)
    [ -z "$pids" ] || kill "-$sig" $pids 2>/dev/null || true
}
kill_left TERM
sleep 0.2
kill_left KILL
exit $status

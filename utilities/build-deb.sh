#!/bin/sh
# Builds a Debian package of our ovs-vswitchd, ovs-percpu-switch, that
# stands in for stock's under Debian's openvswitch-switch: it installs our
# binary as /usr/sbin/ovs-vswitchd, with stock's moved aside by
# dpkg-divert to /usr/sbin/ovs-vswitchd.stock, so that ovs-ctl and the
# systemd units run ours; removing the package puts stock's back.
# Documentation/install.md.
#
# Usage: utilities/build-deb.sh [OUTDIR]
#   Builds from this checkout's build (run utilities/build.sh first) and
#   writes OUTDIR/ovs-percpu-switch_VERSION_ARCH.deb (default: the
#   checkout's top directory); prints the package's path.
set -e

top=$(cd "$(dirname "$0")/.." && pwd)
outdir=$(cd "${1:-$top}" && pwd)
cd "$top"

pkg=ovs-percpu-switch
stock=/usr/sbin/ovs-vswitchd
diverted=$stock.stock
[ -x vswitchd/ovs-vswitchd ] || {
    echo "build-deb: no vswitchd/ovs-vswitchd: run utilities/build.sh" >&2
    exit 1
}
version=$(sed -n "s/^PACKAGE_VERSION='\(.*\)'$/\1/p" config.status 2>/dev/null \
          || true)
[ -n "$version" ] || version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"/\1/p' \
                               config.h 2>/dev/null || true)
version=${version:-0.1.0}
arch=$(dpkg --print-architecture)
# The OVS release we build against, whose ovsdb schema, ovs-ctl and
# libraries ours goes with: Debian's openvswitch-switch of the same
# upstream version.
ovs_version=$(dpkg-query -W -f='${Version}' openvswitch-source 2>/dev/null \
              | sed 's/-[^-]*$//')
ovs_version=${ovs_version:-3.1.0}
ovs_next=$(echo "$ovs_version" | awk -F. '{printf "%d.%d", $1, $2 + 1}')

stage=$(mktemp -d /tmp/ovs-percpu-deb.XXXXXX)
trap 'rm -rf "$stage"' EXIT
root=$stage/root
make -s install-sbinPROGRAMS DESTDIR="$root" sbindir=/usr/sbin >/dev/null
mkdir -p "$root/DEBIAN" "$root/usr/share/doc/$pkg"
cp README.md "$root/usr/share/doc/$pkg/README.md"
cp Documentation/install.md "$root/usr/share/doc/$pkg/install.md"

# The shared libraries our binary needs, as Debian's package names.
mkdir -p "$stage/shlibs/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$pkg" "$pkg" \
    > "$stage/shlibs/debian/control"
shlibs=$(cd "$stage/shlibs" \
         && dpkg-shlibdeps -O "$root/usr/sbin/ovs-vswitchd" 2>/dev/null \
         | sed -n 's/^shlibs:Depends=//p')

cat > "$root/DEBIAN/control" <<CONTROL
Package: $pkg
Version: $version
Architecture: $arch
Maintainer: The ovs-percpu authors <ovs-percpu@localhost>
Section: net
Priority: optional
Depends: openvswitch-switch (>= $ovs_version), openvswitch-switch (<< $ovs_next)${shlibs:+, $shlibs}
Description: ovs-percpu's ovs-vswitchd in place of Open vSwitch's
 Installs the per-CPU userspace datapath's ovs-vswitchd as
 $stock, moving Open vSwitch's aside with dpkg-divert to
 $diverted, so that openvswitch-switch's ovs-ctl and
 systemd units start it.  Removing this package restores Open vSwitch's.
CONTROL

# Stock's binary is moved aside before ours is unpacked, and back once
# ours is gone (a purge runs postrm remove first).
cat > "$root/DEBIAN/preinst" <<SCRIPT
#!/bin/sh
set -e
case "\$1" in
install|upgrade)
    dpkg-divert --package $pkg --add --rename \\
        --divert $diverted $stock
    ;;
esac
exit 0
SCRIPT
cat > "$root/DEBIAN/postrm" <<SCRIPT
#!/bin/sh
set -e
case "\$1" in
remove|abort-install|disappear)
    dpkg-divert --package $pkg --remove --rename \\
        --divert $diverted $stock
    ;;
esac
exit 0
SCRIPT
# A running switch keeps the binary it started with: say so.
cat > "$root/DEBIAN/postinst" <<SCRIPT
#!/bin/sh
set -e
if [ "\$1" = configure ] \\
   && /usr/share/openvswitch/scripts/ovs-ctl status >/dev/null 2>&1; then
    echo "$pkg: restart openvswitch-switch to run ovs-percpu's ovs-vswitchd"
fi
exit 0
SCRIPT
chmod 755 "$root/DEBIAN/preinst" "$root/DEBIAN/postrm" "$root/DEBIAN/postinst"

deb=$outdir/${pkg}_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"

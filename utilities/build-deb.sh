#!/bin/sh
# Builds our two Debian packages (Documentation/install.md):
#
# - ovs-percpu-switch, our ovs-vswitchd, that stands in for stock's under
#   Debian's openvswitch-switch: it installs our binary as
#   /usr/sbin/ovs-vswitchd, with stock's moved aside by dpkg-divert to
#   /usr/sbin/ovs-vswitchd.stock, so that ovs-ctl and the systemd units run
#   ours; removing the package puts stock's back;
# - ovs-percpu-datapath-dkms, the kernel datapath (datapath/) as dkms
#   builds it for each kernel with headers, and the modprobe rule that makes
#   'modprobe openvswitch' load it, ovs_percpu.ko, instead of Debian's
#   openvswitch.ko; removing the package puts openvswitch.ko back.
#
# Usage: utilities/build-deb.sh [OUTDIR]
#   Builds from this checkout's build (run utilities/build.sh first) and
#   writes OUTDIR/ovs-percpu-switch_VERSION_ARCH.deb and
#   OUTDIR/ovs-percpu-datapath-dkms_VERSION_all.deb (default: the
#   checkout's top directory); prints their paths, one a line, in that
#   order.
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

stage=$(mktemp -d "${TMPDIR:-/tmp}/ovs-percpu-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root=$stage/switch-root
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

# The kernel datapath, as Debian packages a module for dkms (dh_dkms): its
# sources with dkms.conf in /usr/src/NAME-VERSION (make dkms-source,
# datapath/automake.mk), dkms added, built and installed by postinst,
# removed by prerm.
pkg=ovs-percpu-datapath-dkms
dkms_name=ovs-percpu
root=$stage/dkms-root
make -s dkms-source DKMS_SOURCEDIR="$root/usr/src/$dkms_name-$version" \
    >/dev/null
mkdir -p "$root/DEBIAN" "$root/usr/share/doc/$pkg" "$root/lib/modprobe.d"
cp README.md "$root/usr/share/doc/$pkg/README.md"
cp Documentation/install.md "$root/usr/share/doc/$pkg/install.md"

# The rules are the package's, in /lib/modprobe.d as kmod's and systemd's
# are, not a conffile in /etc/modprobe.d: dpkg keeps a removed package's
# conffiles until it is purged, which would leave 'modprobe openvswitch'
# asking for a module that is gone.  A file of the same name in
# /etc/modprobe.d takes their place.  Aliases, not an 'install openvswitch'
# command: modprobe loads a module's dependencies before it runs its
# install command, so that would load openvswitch.ko's (nf_conntrack,
# nf_nat, nsh...) for nothing, and it needs an openvswitch.ko to exist.
# An alias of modprobe's configuration comes before the module of that
# name and before modules.alias, so each name OVS or the kernel asks for
# leads to ours alone, whether openvswitch.ko is there or not; an install
# command for openvswitch then applies only where it is a dependency.
cat > "$root/lib/modprobe.d/ovs-percpu.conf" <<'CONF'
# ovs-percpu-datapath-dkms: 'modprobe openvswitch' loads ovs-percpu's
# kernel datapath, ovs_percpu.ko, in place of Linux's openvswitch.ko, and
# 'modprobe -r openvswitch' removes it, so that ovs-ctl, openvswitch-switch's
# units and OVS's tests use ours.  Removing the package removes this file,
# and openvswitch.ko is loaded again.  Documentation/install.md.
alias openvswitch ovs_percpu
# The generic netlink families of both modules: the kernel asks for the
# module of a family a tool looks up and does not find.
alias net-pf-16-proto-16-family-ovs_datapath ovs_percpu
alias net-pf-16-proto-16-family-ovs_vport ovs_percpu
alias net-pf-16-proto-16-family-ovs_flow ovs_percpu
alias net-pf-16-proto-16-family-ovs_packet ovs_percpu
alias net-pf-16-proto-16-family-ovs_meter ovs_percpu
alias net-pf-16-proto-16-family-ovs_ct_limit ovs_percpu
alias net-pf-16-proto-16-family-ovsp_percpu ovs_percpu
# Linux's module itself is never loaded: the name leads to ours, so this
# applies only where openvswitch.ko is a dependency, of Debian's vport_*
# modules, which extend it alone and so fail.  Ours takes tunnels as the
# kernel's own devices (collect_md), as OVS's ovs-vswitchd makes them.
install openvswitch /bin/false
CONF

cat > "$root/DEBIAN/control" <<CONTROL
Package: $pkg
Version: $version
Architecture: all
Maintainer: The ovs-percpu authors <ovs-percpu@localhost>
Section: kernel
Priority: optional
Depends: dkms (>= 2.1.0.0)
Recommends: linux-headers-amd64 | linux-headers-generic | linux-headers
Suggests: ovs-percpu-switch, openvswitch-switch
Description: ovs-percpu's kernel datapath, ovs_percpu.ko, in DKMS form
 The kernel datapath of ovs-percpu: the Open vSwitch datapath of Linux
 with per-CPU flow statistics, built by DKMS for each kernel whose headers
 are installed.  A modprobe rule makes 'modprobe openvswitch' load it in
 place of Linux's openvswitch.ko, so that Open vSwitch's ovs-ctl and
 service units use it unchanged.  Removing this package restores
 openvswitch.ko.
CONTROL

# postinst and prerm are what dh_dkms writes (its postinst-dkms and
# prerm-dkms autoscripts): dkms's common.postinst adds the module and
# builds and installs it for the running kernel and the newest one, or for
# every kernel in /lib/modules when the running one is not installed (a
# chroot) or /etc/dkms/framework.conf sets autoinstall_all_kernels; a
# kernel without headers is skipped, and dkms's kernel hooks build it when
# headers or a kernel come later.
cat > "$root/DEBIAN/postinst" <<SCRIPT
#!/bin/sh
set -e
DKMS_NAME=$dkms_name
DKMS_PACKAGE_NAME=\$DKMS_NAME-dkms
DKMS_VERSION=$version

postinst_found=0

case "\$1" in
	configure)
		for DKMS_POSTINST in /usr/lib/dkms/common.postinst /usr/share/\$DKMS_PACKAGE_NAME/postinst; do
			if [ -f \$DKMS_POSTINST ]; then
				\$DKMS_POSTINST \$DKMS_NAME \$DKMS_VERSION /usr/share/\$DKMS_PACKAGE_NAME "" \$2
				postinst_found=1
				break
			fi
		done
		if [ "\$postinst_found" -eq 0 ]; then
			echo "ERROR: DKMS version is too old and \$DKMS_PACKAGE_NAME was not"
			echo "built with legacy DKMS support."
			echo "You must either rebuild \$DKMS_PACKAGE_NAME with legacy postinst"
			echo "support or upgrade DKMS to a more current version."
			exit 1
		fi
		# A datapath already loaded stays until it is unloaded.
		if [ -d /sys/module/openvswitch ]; then
			echo "$pkg: openvswitch.ko is loaded: stop openvswitch-switch and 'rmmod openvswitch' for ovs_percpu to be loaded in its place"
		fi
	;;
esac
exit 0
SCRIPT
cat > "$root/DEBIAN/prerm" <<SCRIPT
#!/bin/sh
set -e
DKMS_NAME=$dkms_name
DKMS_VERSION=$version

case "\$1" in
    remove|upgrade|deconfigure)
      if [  "\$(dkms status -m \$DKMS_NAME -v \$DKMS_VERSION)" ]; then
         dkms remove -m \$DKMS_NAME -v \$DKMS_VERSION --all
      fi
    ;;
esac
exit 0
SCRIPT
chmod 755 "$root/DEBIAN/postinst" "$root/DEBIAN/prerm"

deb=$outdir/${pkg}_${version}_all.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"

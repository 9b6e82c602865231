# OVS_PERCPU_CHECK_OVS
# --------------------
# Locates the Open vSwitch source tree (--with-ovs-source) and its configured,
# built tree (--with-ovs-build), as OVN's OVN_CHECK_OVS does.  Both default to
# the cache that utilities/prepare-ovs-tree.sh fills.  Substitutes OVS_SRCDIR,
# OVS_BUILDDIR, OVS_VERSION and OVS_LIBS (the system libraries that OVS's own
# configure found, so that we link exactly what it was built with).
AC_DEFUN([OVS_PERCPU_CHECK_OVS], [
  AC_ARG_WITH([dpdk],
    [AS_HELP_STRING([--with-dpdk],
      [build against an Open vSwitch tree configured --with-dpdk=shared
       (the default build tree becomes /var/cache/ovs-percpu/ovs-build-dpdk;
       utilities/prepare-ovs-tree.sh --with-dpdk builds it)])],
    [ovs_percpu_dpdk=$withval], [ovs_percpu_dpdk=no])
  if test "$ovs_percpu_dpdk" != no; then
    ovs_percpu_default_build=/var/cache/ovs-percpu/ovs-build-dpdk
  else
    ovs_percpu_default_build=/var/cache/ovs-percpu/ovs-build
  fi
  AC_ARG_WITH([ovs-source],
    [AS_HELP_STRING([--with-ovs-source=DIR],
      [Open vSwitch 3.1 source tree (default: /var/cache/ovs-percpu/ovs-src)])],
    [OVS_SRCDIR=$withval], [OVS_SRCDIR=/var/cache/ovs-percpu/ovs-src])
  AC_ARG_WITH([ovs-build],
    [AS_HELP_STRING([--with-ovs-build=DIR],
      [Open vSwitch build tree (default: /var/cache/ovs-percpu/ovs-build)])],
    [OVS_BUILDDIR=$withval], [OVS_BUILDDIR=$ovs_percpu_default_build])

  OVS_SRCDIR=`cd "$OVS_SRCDIR" 2>/dev/null && pwd`
  OVS_BUILDDIR=`cd "$OVS_BUILDDIR" 2>/dev/null && pwd`
  AC_MSG_CHECKING([for the Open vSwitch source tree])
  if test ! -f "$OVS_SRCDIR/vswitchd/bridge.c"; then
    AC_MSG_ERROR([no vswitchd/bridge.c under --with-ovs-source; run utilities/prepare-ovs-tree.sh])
  fi
  AC_MSG_RESULT([$OVS_SRCDIR])

  AC_MSG_CHECKING([for the Open vSwitch build tree])
  if test ! -f "$OVS_BUILDDIR/config.h" \
     || test ! -f "$OVS_BUILDDIR/lib/.libs/libopenvswitch.a"; then
    AC_MSG_ERROR([no built config.h and libopenvswitch.a under --with-ovs-build; run utilities/prepare-ovs-tree.sh])
  fi
  AC_MSG_RESULT([$OVS_BUILDDIR])

  AC_MSG_CHECKING([the Open vSwitch version])
  OVS_VERSION=`sed -n 's/^#define VERSION "\(.*\)"$/\1/p' "$OVS_BUILDDIR/config.h"`
  AC_MSG_RESULT([$OVS_VERSION])
  case $OVS_VERSION in
    3.1.*) ;;
    *) AC_MSG_ERROR([ovs-percpu needs Open vSwitch 3.1, found $OVS_VERSION]) ;;
  esac

  AC_MSG_CHECKING([the libraries Open vSwitch links with])
  ovs_libs=`sed -n 's/^LIBS = //p' "$OVS_BUILDDIR/Makefile"`
  ovs_ssl=`sed -n 's/^SSL_LIBS = //p' "$OVS_BUILDDIR/Makefile"`
  ovs_capng=`sed -n 's/^CAPNG_LDADD = //p' "$OVS_BUILDDIR/Makefile"`
  ovs_dpdk=`sed -n 's/^DPDK_vswitchd_LDFLAGS = //p' "$OVS_BUILDDIR/Makefile"`
  OVS_LIBS="$ovs_dpdk $ovs_ssl $ovs_capng $ovs_libs -lpthread"
  AC_MSG_RESULT([$OVS_LIBS])

  dnl A tree built with DPDK changes struct dp_packet (it embeds an rte_mbuf),
  dnl so our code must see DPDK's headers exactly as OVS did.
  AC_MSG_CHECKING([whether Open vSwitch was built with DPDK])
  if grep -q '^#define DPDK_NETDEV 1' "$OVS_BUILDDIR/config.h"; then
    OVS_HAS_DPDK=yes
    OVS_DPDK_CFLAGS=`sed -n 's/^DPDK_CFLAGS = //p' "$OVS_BUILDDIR/Makefile"`
  else
    OVS_HAS_DPDK=no
    OVS_DPDK_CFLAGS=
  fi
  AC_MSG_RESULT([$OVS_HAS_DPDK])
  if test "$ovs_percpu_dpdk" != no && test "$OVS_HAS_DPDK" != yes; then
    AC_MSG_ERROR([--with-dpdk: $OVS_BUILDDIR was not configured --with-dpdk; run utilities/prepare-ovs-tree.sh --with-dpdk])
  fi
  AC_SUBST([OVS_HAS_DPDK])
  AC_SUBST([OVS_DPDK_CFLAGS])

  AC_SUBST([OVS_SRCDIR])
  AC_SUBST([OVS_BUILDDIR])
  AC_SUBST([OVS_VERSION])
  AC_SUBST([OVS_LIBS])
])

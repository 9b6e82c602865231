# OVS_PERCPU_CHECK_LINUX
# ----------------------
# Locates the Linux build tree that the kernel datapath module (datapath/)
# is built against with kbuild, as OVS's old --with-linux did.
#   --with-linux=DIR  that tree (its Makefile must be there);
#   --without-linux   no module;
#   neither           /lib/modules/VERSION/build for the kernel the qemu
#                     guests of tests/qemu boot (utilities/guest-kernel.sh
#                     --headers: the newest Debian -amd64 kernel installed
#                     with its headers), else no module.
# Substitutes LINUX_BUILDDIR (empty without a module) and LINUX_KVER, and
# defines the conditional LINUX_ENABLED.
AC_DEFUN([OVS_PERCPU_CHECK_LINUX], [
  AC_ARG_WITH([linux],
    [AS_HELP_STRING([--with-linux=DIR],
      [build the kernel datapath module against the Linux build tree DIR
       (default: that of the kernel the qemu guests boot, the newest
       Debian -amd64 kernel installed with its headers)])],
    [], [with_linux=check])
  LINUX_BUILDDIR=
  case $with_linux in
    no) ;;
    check|yes)
      ovs_percpu_kver=`$SHELL "$srcdir/utilities/guest-kernel.sh" --headers`
      if test -n "$ovs_percpu_kver" \
         && test -f "/lib/modules/$ovs_percpu_kver/build/Makefile"; then
        LINUX_BUILDDIR=`cd "/lib/modules/$ovs_percpu_kver/build" && pwd -P`
      elif test "$with_linux" = yes; then
        AC_MSG_ERROR([--with-linux: no Linux headers for a Debian -amd64 kernel in /lib/modules (utilities/install-deps.sh installs them)])
      fi
      ;;
    *)
      test -f "$with_linux/Makefile" \
        || AC_MSG_ERROR([--with-linux=$with_linux: not a Linux build tree (no Makefile)])
      LINUX_BUILDDIR=`cd "$with_linux" && pwd -P`
      ;;
  esac
  LINUX_KVER=
  if test -n "$LINUX_BUILDDIR"; then
    # The release modules built here must match (their vermagic), which
    # Debian's headers give in utsrelease.h, not in kernel.release.
    LINUX_KVER=`sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
      "$LINUX_BUILDDIR/include/generated/utsrelease.h" 2>/dev/null`
  fi
  AC_MSG_CHECKING([for a Linux build tree for the kernel datapath])
  AC_MSG_RESULT([${LINUX_BUILDDIR:-none}${LINUX_KVER:+ ($LINUX_KVER)}])
  AC_SUBST([LINUX_BUILDDIR])
  AC_SUBST([LINUX_KVER])
  AM_CONDITIONAL([LINUX_ENABLED], [test -n "$LINUX_BUILDDIR"])
])

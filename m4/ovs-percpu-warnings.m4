# OVS_PERCPU_CHECK_WARNINGS
# -------------------------
# The warnings beyond the fixed list in Makefile.am's AM_CFLAGS that only
# some compilers know, enabled when $CC accepts them, as OVS's own
# configure does with OVS_ENABLE_OPTION: today -Wthread-safety, clang's
# check of the OVS_GUARDED / OVS_REQUIRES / OVS_EXCLUDED / OVS_ACQUIRES
# annotations (gcc has no such check and rejects the option).
# --enable-Werror turns every warning into an error, as OVS's
# --enable-Werror does; CI builds with clang and it (build.sh
# --with-thread-safety, run-tests.sh).
#
# Substitutes WARNING_CFLAGS.
AC_DEFUN([OVS_PERCPU_CHECK_WARNINGS], [
  AC_ARG_ENABLE([Werror],
    [AS_HELP_STRING([--enable-Werror], [treat every warning as an error])],
    [], [enable_Werror=no])

  WARNING_CFLAGS=
  for ovs_percpu_opt in -Wthread-safety; do
    AC_MSG_CHECKING([whether $CC accepts $ovs_percpu_opt])
    ovs_percpu_save_CFLAGS=$CFLAGS
    dnl -Werror: clang only warns about an option it does not know.
    CFLAGS="$CFLAGS -Werror $ovs_percpu_opt"
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
      [AC_MSG_RESULT([yes])
       WARNING_CFLAGS="$WARNING_CFLAGS $ovs_percpu_opt"],
      [AC_MSG_RESULT([no])])
    CFLAGS=$ovs_percpu_save_CFLAGS
  done
  if test "$enable_Werror" != no; then
    WARNING_CFLAGS="$WARNING_CFLAGS -Werror"
  fi
  AC_SUBST([WARNING_CFLAGS])
])

# OVS_PERCPU_CHECK_SANITIZERS
# ---------------------------
# --enable-sanitizers=LIST builds everything of ours (not the OVS libraries
# we link, which come prebuilt from --with-ovs-build) with -fsanitize=LIST:
# "address,undefined" (also what a bare --enable-sanitizers means) or
# "thread".  --enable-fuzzing, with clang, builds the same way with
# address,undefined plus libFuzzer's coverage instrumentation, and links
# the targets in tests/fuzz/ with libFuzzer; see Documentation/testing.md.
#
# Substitutes SANITIZERS (the list, or empty), FUZZ_LDFLAGS and the
# conditionals SANITIZERS and FUZZING.
AC_DEFUN([OVS_PERCPU_CHECK_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers@<:@=LIST@:>@],
      [build with -fsanitize=LIST: address,undefined (the default LIST) or
       thread])],
    [], [enable_sanitizers=no])
  AC_ARG_ENABLE([fuzzing],
    [AS_HELP_STRING([--enable-fuzzing],
      [build the libFuzzer targets of tests/fuzz (needs CC=clang), and
       everything with -fsanitize=fuzzer-no-link,address,undefined])],
    [], [enable_fuzzing=no])

  case $enable_sanitizers in
    no) SANITIZERS= ;;
    yes) SANITIZERS=address,undefined ;;
    *) SANITIZERS=$enable_sanitizers ;;
  esac
  for s in `echo "$SANITIZERS" | tr ',' ' '`; do
    case $s in
      address|undefined|thread) ;;
      *) AC_MSG_ERROR([--enable-sanitizers: unknown sanitizer "$s" (address, undefined or thread)]) ;;
    esac
  done
  case ,$SANITIZERS, in
    *,thread,*)
      case ,$SANITIZERS, in
        *,address,*) AC_MSG_ERROR([--enable-sanitizers: thread and address cannot be combined]) ;;
      esac ;;
  esac

  FUZZ_LDFLAGS=
  if test "$enable_fuzzing" != no; then
    case ,$SANITIZERS, in
      ,,|,address,undefined,|,undefined,address,) ;;
      *) AC_MSG_ERROR([--enable-fuzzing builds with address,undefined; drop --enable-sanitizers=$SANITIZERS]) ;;
    esac
    SANITIZERS=address,undefined
    FUZZ_LDFLAGS=-fsanitize=fuzzer
  fi

  if test -n "$SANITIZERS"; then
    dnl -fno-omit-frame-pointer and -g give reports whole stacks with lines;
    dnl -O1 keeps the instrumented suite fast enough while keeping the
    dnl stacks readable.
    ovs_percpu_san_cflags="-g -O1 -fno-omit-frame-pointer -fsanitize=$SANITIZERS"
    if test "$enable_fuzzing" != no; then
      dnl Under a fuzzer, undefined behaviour must stop the run, as a
      dnl memory error does, so that libFuzzer saves the input.
      ovs_percpu_san_cflags="$ovs_percpu_san_cflags -fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined"
    fi
    CFLAGS="$CFLAGS $ovs_percpu_san_cflags"
    LDFLAGS="$LDFLAGS -fsanitize=$SANITIZERS"
    AC_MSG_CHECKING([whether $CC builds with -fsanitize=$SANITIZERS])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])], [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([$CC cannot build with $ovs_percpu_san_cflags: --enable-fuzzing needs CC=clang (package clang); with gcc, the sanitizers need its runtimes (packages libasan8, libubsan1, libtsan2)])])
  fi
  if test "$enable_fuzzing" != no; then
    AC_MSG_CHECKING([whether $CC links libFuzzer targets])
    ovs_percpu_save_LDFLAGS=$LDFLAGS
    LDFLAGS="$LDFLAGS $FUZZ_LDFLAGS"
    AC_LINK_IFELSE([AC_LANG_SOURCE([[
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void) d; (void) n; return 0; }
]])], [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([--enable-fuzzing needs clang with libFuzzer: configure CC=clang])])
    LDFLAGS=$ovs_percpu_save_LDFLAGS
  fi

  AC_SUBST([SANITIZERS])
  AC_SUBST([FUZZ_LDFLAGS])
  AM_CONDITIONAL([SANITIZERS], [test -n "$SANITIZERS"])
  AM_CONDITIONAL([FUZZING], [test "$enable_fuzzing" != no])
])

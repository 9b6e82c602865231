# The autotest suite.  It uses OVS's own test macros (ovs-macros.at,
# ofproto-macros.at...) from the OVS source tree and the real ovsdb-server,
# ovs-vsctl, ovs-ofctl and ovs-appctl from the OVS build tree, with our
# ovs-vswitchd first in AUTOTEST_PATH.

TESTSUITE_AT = \
	tests/testsuite.at \
	tests/percpu-macros.at \
	tests/percpu-bridge.at \
	tests/percpu-forwarding.at \
	tests/percpu-flows.at \
	tests/percpu-actions-check.at \
	tests/percpu-flow-stats.at \
	tests/percpu-bad-input.at \
	tests/percpu-stock-commands.at \
	tests/percpu-system.at \
	tests/percpu-dpdk.at \
	tests/percpu-gro.at \
	tests/percpu-ipip-port.at \
	tests/percpu-ipf.at \
	tests/percpu-gso.at \
	tests/percpu-gso-ports.at \
	tests/percpu-ip-fragment.at \
	tests/percpu-ip-ident.at \
	tests/percpu-ipip.at \
	tests/percpu-ipip-ipv6.at \
	tests/percpu-tunnels.at \
	tests/percpu-tunnels-ipv6.at \
	tests/percpu-tunnel-neigh.at \
	tests/percpu-tunnels-system.at \
	tests/percpu-fragments.at \
	tests/percpu-ipip-system.at \
	tests/percpu-ipip-interop.at \
	tests/percpu-gso-system.at \
	tests/percpu-meters.at \
	tests/percpu-conntrack.at \
	tests/percpu-afpacket.at \
	tests/percpu-fuzz.at \
	tests/percpu-flow-limit.at \
	tests/percpu-faults.at \
	tests/percpu-hostile.at \
	tests/system-ovn.at \
	tests/percpu-kernel.at \
	tests/percpu-kernel-flow.at \
	tests/percpu-kernel-hostile.at \
	tests/kernel-meters.at \
	tests/kernel-conntrack.at \
	tests/kernel-ct-limit.at \
	tests/kernel-ovs-ipip.at \
	tests/kernel-ipip.at \
	tests/kernel-dkms.at \
	tests/percpu-install.at \
	tests/percpu-ci.at
TESTSUITE = $(srcdir)/tests/testsuite
EXTRA_DIST += $(TESTSUITE_AT) $(TESTSUITE) tests/atlocal.in tests/package.m4 \
	tests/ipip-packets.py tests/ip6tnl-packets.py tests/tunnel-packets.py tests/nd-packets.py \
	tests/pmtu6-packets.py \
	tests/gso-packets.py \
	tests/neigh-packets.py \
	tests/check-capture.py tests/ct-packets.py tests/flood-packets.py \
	tests/iperf3-intervals.py tests/afpacket-big-frames.py \
	tests/afpacket-miss-flood.py tests/hostile-traffic.py \
	tests/kernel-netlink-fuzz.py tests/kernel-ipip-link.py \
	tests/kernel-netlink-check.py tests/ovs_netlink.py tests/ovs_userns.py \
	tests/kernel_fuzz/__init__.py tests/kernel_fuzz/ct_limits.py \
	tests/kernel_fuzz/meters.py \
	tests/kernel_fuzz/model.py tests/kernel_fuzz/seeds.py \
	tests/kernel_fuzz/shapes.py tests/kernel_fuzz/upcalls.py \
	tests/kernel_fuzz/world.py \
	tests/udp-flood.py tests/qemu/guest-common.sh tests/qemu/unprivileged.py \
	tests/qemu/ipip-guest.sh tests/qemu/ipip-guest-init.sh \
	tests/qemu/kernel-guest.sh tests/qemu/kernel-guest-init.sh \
	tests/qemu/kernel-guest-pid1.pl tests/qemu/kernel-guest-run.sh \
	tests/qemu/modprobe-standin.sh tests/qemu/kernel-check.sh \
	tests/upstream/run-kmod.sh tests/upstream/kmod-minimal.txt \
	tests/upstream/kmod-must-pass.txt tests/upstream/kmod-ci.txt \
	tests/upstream/kmod-slice.sh \
	tests/upstream/run-upstream.sh tests/upstream/must-pass.txt \
	tests/upstream/must-pass-translation.txt \
	tests/upstream/must-pass-variants.txt \
	tests/upstream/userspace-must-pass.txt \
	tests/upstream/run-userspace-guest.sh tests/upstream/userspace-guest.txt \
	utilities/build-deb.sh \
	utilities/subreaper.py utilities/guest-kernel.sh \
	utilities/check-layers.sh utilities/check-docs.py \
	utilities/check-skips.sh tests/expected-skips.txt tests/flake-log.txt \
	tests/upstream/stock-flakes.txt
DISTCLEANFILES = tests/atconfig tests/atlocal

AUTOTEST_PATH = $(abs_top_builddir)/vswitchd:$(abs_top_builddir)/tests:$(OVS_BUILDDIR)/utilities:$(OVS_BUILDDIR)/ovsdb:$(OVS_BUILDDIR)/vswitchd:$(OVS_BUILDDIR)/tests

AUTOM4TE = autom4te
AUTOTEST = $(AUTOM4TE) -l autotest

$(srcdir)/tests/package.m4: $(top_srcdir)/configure.ac
	$(AM_V_GEN):;{ \
	  echo '# Signature of the current package.' && \
	  echo 'm4_define([AT_PACKAGE_NAME],      [$(PACKAGE_NAME)])' && \
	  echo 'm4_define([AT_PACKAGE_TARNAME],   [$(PACKAGE_TARNAME)])' && \
	  echo 'm4_define([AT_PACKAGE_VERSION],   [$(PACKAGE_VERSION)])' && \
	  echo 'm4_define([AT_PACKAGE_STRING],    [$(PACKAGE_STRING)])' && \
	  echo 'm4_define([AT_PACKAGE_BUGREPORT], [$(PACKAGE_BUGREPORT)])'; \
	} >'$@'

$(TESTSUITE): $(TESTSUITE_AT) $(srcdir)/tests/package.m4
	$(AM_V_GEN)$(AUTOTEST) -I '$(srcdir)' -I '$(srcdir)/tests' \
	  -I '$(OVS_SRCDIR)' -o '$@.tmp' '$@.at' && mv '$@.tmp' '$@'

# The suite runs under utilities/subreaper.py, which reaps the daemons the
# tests stop as they exit: PID 1 of CI's machine reaps orphans only about
# 1.7 s late, and until then each test's wait for its daemon to stop
# ('kill -0') waits on.  SUBREAPER= runs the suite without it.
SUBREAPER = $(srcdir)/utilities/subreaper.py

# TESTSUITEFLAGS, e.g. TESTSUITEFLAGS='-j2 -k flow', go to the suite.
# First, the layer rules of Documentation/architecture.md
# (utilities/check-layers.sh), that the documentation names the tree as it
# is (utilities/check-docs.py, Documentation/contributing.md) and, where
# the kernel module is built, its stack budget (utilities/check-stack.py,
# Documentation/security.md).
# RECHECK=yes runs the tests that failed once more, one at a time, as OVS's
# own "make check RECHECK=yes" does: each test that passes then is named in
# a "check: passed on recheck (flaky): TITLE" line, so that a flaky test is
# seen, not hidden (utilities/run-tests.sh makes it a line of
# tests/flake-log.txt, testing.md "Flaky tests").
# A failed run whose log names no failed test (a suite that died, a log
# not written) fails, as does a test that fails and then skips: a recheck
# that runs nothing, or skips, proves nothing.
check-local: tests/atconfig tests/atlocal $(TESTSUITE) all
	$(SHELL) '$(srcdir)/utilities/check-layers.sh' '$(abs_top_srcdir)'
	/usr/bin/python3 '$(srcdir)/utilities/check-docs.py' '$(abs_top_srcdir)'
	$(check_stack)
	rm -f tests/testsuite.log tests/testsuite-before-recheck.log
	$(SUBREAPER) $(SHELL) '$(TESTSUITE)' -C tests \
	  AUTOTEST_PATH='$(AUTOTEST_PATH)' $(TESTSUITEFLAGS) || { \
	  test X'$(RECHECK)' = Xyes || exit 1; \
	  failed=`sed -n '/^Failed tests:$$/,/^Skipped tests:$$/s/^ *\([1-9][0-9]*\): .*/\1/p; /^Unexpected passes:$$/,/^## Detailed failed tests/s/^ *\([1-9][0-9]*\): .*/\1/p' tests/testsuite.log | tr '\n' ' '`; \
	  if test -z "$$failed"; then \
	    echo "check: FAILED: the suite failed, and tests/testsuite.log names no failed test to recheck"; \
	    exit 1; fi; \
	  echo "check: rechecking the failed tests: $$failed"; \
	  cp tests/testsuite.log tests/testsuite-before-recheck.log; \
	  $(SUBREAPER) $(SHELL) '$(TESTSUITE)' -C tests \
	    AUTOTEST_PATH='$(AUTOTEST_PATH)' --recheck || exit 1; \
	  if grep -q '^[1-9][0-9]*\. .*: skipped (' tests/testsuite.log; then \
	    echo "check: FAILED: failed, then skipped on recheck:"; \
	    sed -n 's/^[1-9][0-9]*\. \(.*\) ([^ ()]*\.at:[0-9]*): skipped .*/  \1/p' tests/testsuite.log; \
	    exit 1; fi; \
	  passed=`sed -n 's/^[1-9][0-9]*\. \(.*\) ([^ ()]*\.at:[0-9]*): ok\( .*\)\{0,1\}$$/check: passed on recheck (flaky): \1/p' \
	    tests/testsuite.log`; \
	  if test -z "$$passed"; then \
	    echo "check: FAILED: the recheck passed, and tests/testsuite.log names no test that passed"; \
	    exit 1; fi; \
	  echo "$$passed"; }

clean-local:
	test ! -f '$(TESTSUITE)' || $(SHELL) '$(TESTSUITE)' -C tests --clean
	rm -rf fuzz-work sanitizer-logs tests/kernel-results tests/upstream/kmod-results \
	  tests/upstream/userspace-results

# The kernel datapath's tests run in the qemu/TCG guest of
# tests/qemu/kernel-guest.sh (Documentation/testing.md, "The kernel
# guest").  Each target takes the guest lock itself, one guest at a time:
# do not wrap make in flock.  Where qemu, the kernel or its headers (so our
# module) are missing, or the module is built for another kernel than the
# guest's, the guest script exits 77 and says why; the target then
# succeeds, saying it skipped, except in CI (CI=true in the environment,
# or KERNEL_GUEST_REQUIRED=yes, which utilities/run-tests.sh sets), where
# a kernel step that did not run fails.
KERNEL_GUEST_LOCK = /tmp/ovs-percpu-guest.lock
# Which of our tests check-kernel runs (autotest's selection): keyword
# 'kernel', less the host's system tests whose titles say "kernel".
KERNEL_TESTS = -k 'kernel,!system'
# What CI (utilities/run-tests.sh) has check-kernel run: the same less the
# longer ipip tests (tests/kernel-ipip.at, keyword ipip-long) and the
# packages' test (tests/kernel-dkms.at, keyword dkms: dkms compiles the
# module under TCG), so that its kernel step stays within its time.
KERNEL_CI_TESTS = -k 'kernel,!system,!ipip-long,!dkms'
KERNEL_RESULTS = $(abs_builddir)/tests/kernel-results
# The packages of utilities/build-deb.sh that tests/kernel-dkms.at
# installs in the guest, built on the host before it boots (where dpkg-deb
# would take minutes), and the directories the guest makes writable for
# dpkg and dkms, over a tmpfs (kernel-guest.sh -o: the host's root is
# never written); neither when the selection leaves out 'dkms', as CI's
# does.
KERNEL_DEBS = $(KERNEL_RESULTS)/debs
KERNEL_GUEST_OVERLAYS = -o /etc -o /usr -o /var
KMOD_RESULTS = $(abs_builddir)/tests/upstream/kmod-results

# Exits with the status, but for 77 (skipped): 1 in CI, else 0, with a note.
kernel_guest_status = case $$status in \
	  77) if test X"$$CI" = Xtrue || test X"$$KERNEL_GUEST_REQUIRED" = Xyes; then \
	        echo "$@: FAILED: skipped (the reason is above), and CI requires the guest (CI=true or KERNEL_GUEST_REQUIRED=yes)"; \
	        exit 1; fi; \
	      echo "$@: skipped (the reason is above)"; exit 0 ;; \
	  *) exit $$status ;; esac

# Our kernel tests (tests/percpu-kernel.at), all in one guest boot; the
# results land in tests/kernel-results/.
check-kernel: tests/atconfig tests/atlocal $(TESTSUITE) all
	rm -rf $(KERNEL_RESULTS) && mkdir -p $(KERNEL_RESULTS)
	overlays=; case "$(KERNEL_TESTS) $(TESTSUITEFLAGS)" in \
	  *'!dkms'*) ;; \
	  *) overlays="$(KERNEL_GUEST_OVERLAYS)"; mkdir -p $(KERNEL_DEBS) \
	     && $(SHELL) $(srcdir)/utilities/build-deb.sh $(KERNEL_DEBS) \
	     || exit 1 ;; \
	esac; \
	status=0; flock $(KERNEL_GUEST_LOCK) \
	  $(srcdir)/tests/qemu/kernel-guest.sh -t 3600 -w $(KERNEL_RESULTS) \
	    $$overlays -l $(KERNEL_RESULTS)/console.log -- \
	    $(SHELL) $(abs_srcdir)/tests/qemu/kernel-check.sh \
	      $(abs_builddir) $(KERNEL_RESULTS) \
	      AUTOTEST_PATH='/run/ovs-percpu-guest/bin:$(AUTOTEST_PATH)' \
	      KERNEL_DEBS='$(KERNEL_DEBS)' \
	      $(KERNEL_TESTS) $(TESTSUITEFLAGS) || status=$$?; \
	$(kernel_guest_status)

# The packages' test alone (tests/kernel-dkms.at): dpkg installs them in
# the guest, dkms builds the module, ovs-ctl loads it, and the purge gives
# openvswitch.ko back.  Minutes under TCG, so not in CI.
check-kernel-dkms:
	$(MAKE) check-kernel KERNEL_TESTS="-k 'kernel,dkms'"

# OVS's kernel-datapath tests that must pass against our module
# (tests/upstream/kmod-must-pass.txt): what CI runs.
check-kmod-must-pass: all
	status=0; flock $(KERNEL_GUEST_LOCK) \
	  $(srcdir)/tests/upstream/run-kmod.sh -o $(KMOD_RESULTS) \
	    -c $(srcdir)/tests/upstream/kmod-must-pass.txt || status=$$?; \
	$(kernel_guest_status)

# The part of them that CI runs: the titles of tests/upstream/kmod-ci.txt,
# then KMOD_SLICE_SIZE others of kmod-must-pass.txt, the slice that
# follows the parent commit's (tests/upstream/kmod-slice.sh, which prints
# the slice and its titles), so that all of them run over a few commits
# within CI's time.  KMOD_SLICE=N takes slice N instead.
KMOD_SLICE_SIZE = 3
KMOD_SLICE =
check-kmod-ci: all
	mkdir -p $(KMOD_RESULTS)
	$(SHELL) $(srcdir)/tests/upstream/kmod-slice.sh -s $(KMOD_SLICE_SIZE) \
	  $(if $(KMOD_SLICE),-n $(KMOD_SLICE)) \
	  $(srcdir)/tests/upstream/kmod-must-pass.txt \
	  $(srcdir)/tests/upstream/kmod-ci.txt $(KMOD_RESULTS)/ci-list.txt
	status=0; flock $(KERNEL_GUEST_LOCK) \
	  $(srcdir)/tests/upstream/run-kmod.sh -o $(KMOD_RESULTS) \
	    -c $(KMOD_RESULTS)/ci-list.txt || status=$$?; \
	$(kernel_guest_status)

# All of OVS's kernel-datapath tests against our module, recorded in
# tests/upstream/kmod-results/times.txt: hours under TCG, never in CI.
# KMOD_DATAPATH=stock runs them against Debian's openvswitch.ko.
KMOD_DATAPATH = percpu
check-kmod-upstream: all
	status=0; flock $(KERNEL_GUEST_LOCK) \
	  $(srcdir)/tests/upstream/run-kmod.sh -t 36000 -d $(KMOD_DATAPATH) \
	    -o $(KMOD_RESULTS) all || status=$$?; \
	$(kernel_guest_status)

# The fuzzer of the kernel datapath (tests/kernel-netlink-fuzz.py and
# tests/kernel_fuzz/) for KERNEL_FUZZ_SECONDS in the guest: it fails on a
# request the module leaves unanswered, a datapath that stops answering,
# an upcall carrying bytes no request put there, a flow table that is not
# the one Linux would keep, or a kernel WARNING, BUG or Oops; the guest
# fails on a panic.  KERNEL_FUZZ_ARGS='--seed N' repeats a run,
# '--shapes recirc' aims it (testing.md).  Against Debian's module
# (KERNEL_GUEST_DATAPATH=stock) the guest's own warning check is off
# (KERNEL_GUEST_ALLOW_WARN): the fuzzer reads the kernel log itself, and
# leaves out the one warning Linux 6.1's openvswitch.ko gives for any
# userspace action with an egress tunnel port and options.  The guest's
# console is kept in tests/kernel-fuzz-console.log.
KERNEL_FUZZ_SECONDS = 120
KERNEL_FUZZ_ARGS =
check-kernel-fuzz: all
	status=0; allow=; test "$$KERNEL_GUEST_DATAPATH" != stock || allow=yes; \
	KERNEL_GUEST_ALLOW_WARN=$$allow flock $(KERNEL_GUEST_LOCK) \
	  $(srcdir)/tests/qemu/kernel-guest.sh \
	    -t `expr $(KERNEL_FUZZ_SECONDS) + 600` \
	    -l $(abs_builddir)/tests/kernel-fuzz-console.log -- /bin/sh -c \
	    'modprobe openvswitch && exec /usr/bin/python3 \
	     $(abs_srcdir)/tests/kernel-netlink-fuzz.py \
	     --seconds $(KERNEL_FUZZ_SECONDS) $(KERNEL_FUZZ_ARGS)' \
	  || status=$$?; \
	$(kernel_guest_status)
.PHONY: check-kernel check-kmod-must-pass check-kmod-ci check-kmod-upstream \
	check-kernel-fuzz check-kernel-dkms

# OVS's own tests of the dummy datapath that must pass against our
# ovs-vswitchd, UPSTREAM_JOBS at a time: those that reach the datapath
# (tests/upstream/must-pass.txt, what CI runs), their OpenFlow-version
# twins (must-pass-variants.txt) and those that only trace ofproto's
# OpenFlow translation (must-pass-translation.txt).
UPSTREAM_JOBS = 3
# RECHECK=yes: the failed must-pass tests run once more (run-upstream.sh -r).
upstream_recheck = `test X'$(RECHECK)' != Xyes || echo -r`
check-upstream: all
	$(SHELL) $(srcdir)/tests/upstream/run-upstream.sh -j $(UPSTREAM_JOBS) \
	  $(upstream_recheck) \
	  -c $(srcdir)/tests/upstream/must-pass.txt \
	  -c $(srcdir)/tests/upstream/must-pass-variants.txt \
	  -c $(srcdir)/tests/upstream/must-pass-translation.txt
.PHONY: check-upstream

# The DPDK variant: utilities/build.sh --with-dpdk builds it in
# _build-dpdk (against an OVS tree configured --with-dpdk=shared, built
# once), and its DPDK port test runs there (tests/percpu-dpdk.at; root; it
# reserves hugepages and releases them).  Not in CI, which leaves it here
# to keep within its time (testing.md, "CI's steps and their time"): the
# DPDK build compiles the same sources, differing only where DPDK_NETDEV
# changes OVS's dp_packet (the mbuf: lib/packet/tso-segsz.h) and where our
# PMD threads take DPDK lcores, so a break there shows only here.
check-dpdk:
	cd '$(abs_top_srcdir)' && ./utilities/build.sh --with-dpdk
	cd '$(abs_top_srcdir)/_build-dpdk' && \
	  $(MAKE) check TESTSUITEFLAGS="-k dpdk $(TESTSUITEFLAGS)" \
	    RECHECK='$(RECHECK)'
.PHONY: check-dpdk

# OVS's system-userspace-testsuite (real traffic between namespaces)
# against our ovs-vswitchd.  run-upstream.sh takes the system lock itself,
# one test at a time: do not wrap make in flock.  Root only (it exits 77,
# and the target succeeds with a note, for anyone else).
UPSTREAM_USERSPACE_SUITE = system-userspace-testsuite
UPSTREAM_USERSPACE_RESULTS = $(abs_builddir)/tests/upstream/userspace-results
upstream_userspace = $(SHELL) $(srcdir)/tests/upstream/run-upstream.sh \
	-s $(UPSTREAM_USERSPACE_SUITE) $(upstream_recheck) \
	-L $(UPSTREAM_USERSPACE_RESULTS)/failed
upstream_status = case $$status in \
	  77) echo "$@: skipped (the reason is above)"; exit 0 ;; \
	  *) exit $$status ;; esac

# The tests that must pass (tests/upstream/userspace-must-pass.txt): what
# CI runs.  Each test runs isolated (run-upstream.sh -i: network and mount
# namespaces of its own, so no system lock), UPSTREAM_USERSPACE_JOBS at a
# time: two, since most of a test's time is spent waiting; empty
# UPSTREAM_USERSPACE_FLAGS runs them one by one under the lock instead.
UPSTREAM_USERSPACE_JOBS = 2
UPSTREAM_USERSPACE_FLAGS = -i -j $(UPSTREAM_USERSPACE_JOBS)
check-upstream-userspace: all
	mkdir -p $(UPSTREAM_USERSPACE_RESULTS)
	status=0; $(upstream_userspace) $(UPSTREAM_USERSPACE_FLAGS) \
	  -c $(srcdir)/tests/upstream/userspace-must-pass.txt || status=$$?; \
	$(upstream_status)

# The whole suite, against stock's ovs-vswitchd and ours at once, side by
# side: tests/upstream/userspace-results/{stock,ours}.txt get
# "NUM pass|fail|skip SECONDS TITLE" per test.  Each test runs isolated
# (run-upstream.sh -i: network and mount namespaces of its own, no system
# lock), UPSTREAM_USERSPACE_ALL_JOBS at a time on each side.  Never in CI.
UPSTREAM_USERSPACE_ALL_JOBS = 2
check-upstream-userspace-all: all
	mkdir -p $(UPSTREAM_USERSPACE_RESULTS)
	$(upstream_userspace) -i -j $(UPSTREAM_USERSPACE_ALL_JOBS) \
	  -P $(OVS_BUILDDIR)/vswitchd \
	  -L $(UPSTREAM_USERSPACE_RESULTS)/failed-stock \
	  -T $(UPSTREAM_USERSPACE_RESULTS)/stock.txt \
	  -o $(UPSTREAM_USERSPACE_RESULTS)/stock-keywords.txt all \
	  > $(UPSTREAM_USERSPACE_RESULTS)/stock.log 2>&1 & stock=$$!; \
	status=0; $(upstream_userspace) -i -j $(UPSTREAM_USERSPACE_ALL_JOBS) \
	  -T $(UPSTREAM_USERSPACE_RESULTS)/ours.txt \
	  -o $(UPSTREAM_USERSPACE_RESULTS)/ours-keywords.txt all \
	  || status=$$?; \
	wait $$stock || [ $$status != 0 ] || status=$$?; \
	cat $(UPSTREAM_USERSPACE_RESULTS)/stock.log; \
	$(upstream_status)

# The tests of it that need kernel modules a host may lack
# (tests/upstream/userspace-guest.txt), in the qemu guest, stock's
# ovs-vswitchd and ours at once; results in
# tests/upstream/userspace-guest/.  Never in CI.
UPSTREAM_USERSPACE_GUEST_RESULTS = $(abs_builddir)/tests/upstream/userspace-guest
check-upstream-userspace-guest: all
	status=0; flock $(KERNEL_GUEST_LOCK) \
	  $(srcdir)/tests/upstream/run-userspace-guest.sh \
	    -o $(UPSTREAM_USERSPACE_GUEST_RESULTS) \
	    $(srcdir)/tests/upstream/userspace-guest.txt || status=$$?; \
	$(kernel_guest_status)
.PHONY: check-upstream-userspace check-upstream-userspace-all \
	check-upstream-userspace-guest

# Unit-test programs: each drives one module of lib/ directly with crafted
# packets, and is run by the .at file of that module.  AUTOTEST_PATH
# includes tests/, so the .at files call them by name.

noinst_PROGRAMS += tests/test-header-key
tests_test_header_key_SOURCES = tests/test-header-key.c \
	tests/header-key-check.c tests/header-key-check.h tests/test-harness.h
tests_test_header_key_LDADD = lib/libpercpu.la $(OVS_LINK)
tests_test_header_key_DEPENDENCIES = lib/libpercpu.la $(OVS_STATIC_LIBS)

noinst_PROGRAMS += tests/test-gro
tests_test_gro_SOURCES = tests/test-gro.c tests/test-harness.h
tests_test_gro_LDADD = lib/libpercpu.la $(OVS_LINK)
tests_test_gro_DEPENDENCIES = lib/libpercpu.la $(OVS_STATIC_LIBS)

noinst_PROGRAMS += tests/test-netdev-ipip
tests_test_netdev_ipip_SOURCES = tests/test-netdev-ipip.c
tests_test_netdev_ipip_LDADD = lib/libpercpu.la $(OVS_LINK)
tests_test_netdev_ipip_DEPENDENCIES = lib/libpercpu.la $(OVS_STATIC_LIBS)

noinst_PROGRAMS += tests/test-ipf-cpu
tests_test_ipf_cpu_SOURCES = tests/test-ipf-cpu.c tests/test-harness.h
tests_test_ipf_cpu_LDADD = lib/libpercpu.la $(OVS_LINK)
tests_test_ipf_cpu_DEPENDENCIES = lib/libpercpu.la $(OVS_STATIC_LIBS)

noinst_PROGRAMS += tests/test-gso
tests_test_gso_SOURCES = tests/test-gso.c tests/test-pkt.h tests/test-harness.h
tests_test_gso_LDADD = lib/libpercpu.la $(OVS_LINK)
tests_test_gso_DEPENDENCIES = lib/libpercpu.la $(OVS_STATIC_LIBS)

noinst_PROGRAMS += tests/test-ip-fragment
tests_test_ip_fragment_SOURCES = tests/test-ip-fragment.c tests/test-pkt.h tests/test-harness.h
tests_test_ip_fragment_LDADD = lib/libpercpu.la $(OVS_LINK)
tests_test_ip_fragment_DEPENDENCIES = lib/libpercpu.la $(OVS_STATIC_LIBS)

noinst_PROGRAMS += tests/test-ip-ident
tests_test_ip_ident_SOURCES = tests/test-ip-ident.c tests/test-harness.h
tests_test_ip_ident_LDADD = lib/libpercpu.la $(OVS_LINK)
tests_test_ip_ident_DEPENDENCIES = lib/libpercpu.la $(OVS_STATIC_LIBS)

noinst_PROGRAMS += tests/test-flow-table
tests_test_flow_table_SOURCES = tests/test-flow-table.c tests/test-harness.h
tests_test_flow_table_LDADD = lib/libpercpu.la $(OVS_LINK)
tests_test_flow_table_DEPENDENCIES = lib/libpercpu.la $(OVS_STATIC_LIBS)

noinst_PROGRAMS += tests/test-flow-stats
tests_test_flow_stats_SOURCES = tests/test-flow-stats.c tests/test-harness.h \
	tests/flow-stats-reader.h
tests_test_flow_stats_LDADD = lib/libpercpu.la $(OVS_LINK)
tests_test_flow_stats_DEPENDENCIES = lib/libpercpu.la $(OVS_STATIC_LIBS)

noinst_PROGRAMS += tests/test-dp-meter
tests_test_dp_meter_SOURCES = tests/test-dp-meter.c tests/test-harness.h
tests_test_dp_meter_LDADD = lib/libpercpu.la $(OVS_LINK)
tests_test_dp_meter_DEPENDENCIES = lib/libpercpu.la $(OVS_STATIC_LIBS)
noinst_PROGRAMS += tests/test-afpacket-vnet
tests_test_afpacket_vnet_SOURCES = tests/test-afpacket-vnet.c tests/test-pkt.h tests/test-harness.h
tests_test_afpacket_vnet_LDADD = lib/libpercpu.la $(OVS_LINK)
tests_test_afpacket_vnet_DEPENDENCIES = lib/libpercpu.la $(OVS_STATIC_LIBS)

noinst_PROGRAMS += tests/test-afpacket-rx
tests_test_afpacket_rx_SOURCES = tests/test-afpacket-rx.c tests/test-pkt.h
tests_test_afpacket_rx_LDADD = lib/libpercpu.la $(OVS_LINK)
tests_test_afpacket_rx_DEPENDENCIES = lib/libpercpu.la $(OVS_STATIC_LIBS)

# The kernel module's flow statistics, datapath/flow-stats.c compiled
# unchanged against the userspace stand-ins of utilities/benchmark/
# kernel-shim.h (not OVS's headers: per-target CPPFLAGS) and stressed on
# the host's threads: once with u64_stats_sync as on 64-bit kernels
# (nothing), once with its seqcount as on 32-bit ones.  GPL-2.0, as the
# file they link.
KERNEL_SHIM_SOURCES = \
	utilities/benchmark/kernel-shim.c \
	utilities/benchmark/kernel-shim.h \
	utilities/benchmark/kernel-shim/linux/cpumask.h \
	utilities/benchmark/kernel-shim/linux/jiffies.h \
	utilities/benchmark/kernel-shim/linux/moduleparam.h \
	utilities/benchmark/kernel-shim/linux/percpu.h \
	utilities/benchmark/kernel-shim/linux/rcupdate.h \
	utilities/benchmark/kernel-shim/linux/slab.h \
	utilities/benchmark/kernel-shim/linux/spinlock.h \
	utilities/benchmark/kernel-shim/linux/timekeeping.h \
	utilities/benchmark/kernel-shim/linux/topology.h \
	utilities/benchmark/kernel-shim/linux/types.h \
	utilities/benchmark/kernel-shim/linux/u64_stats_sync.h
KERNEL_SHIM_CPPFLAGS = \
	-I$(top_srcdir)/utilities/benchmark/kernel-shim \
	-I$(top_srcdir)/utilities/benchmark -I$(top_srcdir)/datapath

noinst_PROGRAMS += tests/test-kernel-flow-stats
tests_test_kernel_flow_stats_SOURCES = tests/test-kernel-flow-stats.c \
	tests/flow-stats-reader.h datapath/flow-stats.c datapath/flow-stats.h $(KERNEL_SHIM_SOURCES)
tests_test_kernel_flow_stats_CPPFLAGS = $(KERNEL_SHIM_CPPFLAGS)
tests_test_kernel_flow_stats_LDADD = -lpthread

noinst_PROGRAMS += tests/test-kernel-flow-stats-seqcount
tests_test_kernel_flow_stats_seqcount_SOURCES = \
	$(tests_test_kernel_flow_stats_SOURCES)
tests_test_kernel_flow_stats_seqcount_CPPFLAGS = $(KERNEL_SHIM_CPPFLAGS) \
	-DKSHIM_U64_STATS_SEQCOUNT
tests_test_kernel_flow_stats_seqcount_LDADD = -lpthread

# The kernel module's meters, datapath/meter.c compiled unchanged against
# utilities/benchmark/kernel-shim-meter.h (the stand-ins meter.c needs
# beyond kernel-shim.h) and stressed on the host's threads.  gcc's
# -Wuninitialized misreads meter_read()'s copy of the bands it fills, and
# the kernel does not warn of unused parameters.
KERNEL_SHIM_METER_SOURCES = \
	utilities/benchmark/kernel-shim-meter.c \
	utilities/benchmark/kernel-shim-meter.h \
	utilities/benchmark/kernel-shim/linux/atomic.h \
	utilities/benchmark/kernel-shim/linux/bits.h \
	utilities/benchmark/kernel-shim/linux/cache.h \
	utilities/benchmark/kernel-shim/linux/kernel.h \
	utilities/benchmark/kernel-shim/linux/ktime.h \
	utilities/benchmark/kernel-shim/linux/math64.h \
	utilities/benchmark/kernel-shim/linux/mm.h \
	utilities/benchmark/kernel-shim/linux/openvswitch.h \
	utilities/benchmark/kernel-shim/linux/rhashtable.h \
	utilities/benchmark/kernel-shim/linux/skbuff.h \
	utilities/benchmark/kernel-shim/linux/workqueue.h
noinst_PROGRAMS += tests/test-kernel-meter
tests_test_kernel_meter_SOURCES = tests/test-kernel-meter.c \
	datapath/meter.c datapath/meter.h $(KERNEL_SHIM_SOURCES) \
	$(KERNEL_SHIM_METER_SOURCES)
tests_test_kernel_meter_CPPFLAGS = $(KERNEL_SHIM_CPPFLAGS)
tests_test_kernel_meter_CFLAGS = $(AM_CFLAGS) -Wno-uninitialized \
	-Wno-unused-parameter
tests_test_kernel_meter_LDADD = -lpthread

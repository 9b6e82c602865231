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
	tests/percpu-flow-stats.at \
	tests/percpu-bad-input.at \
	tests/percpu-system.at \
	tests/percpu-dpdk.at \
	tests/percpu-gro.at \
	tests/percpu-ipip-port.at \
	tests/percpu-ipf.at \
	tests/percpu-gso.at \
	tests/percpu-gso-ports.at \
	tests/percpu-ip-fragment.at \
	tests/percpu-ipip.at \
	tests/percpu-tunnels.at \
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
	tests/percpu-faults.at
TESTSUITE = $(srcdir)/tests/testsuite
EXTRA_DIST += $(TESTSUITE_AT) $(TESTSUITE) tests/atlocal.in tests/package.m4 \
	tests/ipip-packets.py tests/tunnel-packets.py tests/gso-packets.py \
	tests/check-capture.py tests/ct-packets.py tests/flood-packets.py \
	tests/iperf3-intervals.py tests/qemu/guest-common.sh \
	tests/qemu/ipip-guest.sh tests/qemu/ipip-guest-init.sh \
	tests/qemu/kernel-guest.sh tests/qemu/kernel-guest-init.sh \
	tests/qemu/kernel-guest-pid1.pl tests/qemu/kernel-guest-run.sh \
	tests/qemu/modprobe-standin.sh
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

# TESTSUITEFLAGS, e.g. TESTSUITEFLAGS='-j2 -k flow', go to the suite.
check-local: tests/atconfig tests/atlocal $(TESTSUITE) all
	$(SHELL) '$(TESTSUITE)' -C tests AUTOTEST_PATH='$(AUTOTEST_PATH)' \
	  $(TESTSUITEFLAGS)

clean-local:
	test ! -f '$(TESTSUITE)' || $(SHELL) '$(TESTSUITE)' -C tests --clean
	rm -rf fuzz-work sanitizer-logs

# Unit-test programs: each drives one module of lib/ directly with crafted
# packets, and is run by the .at file of that module.  AUTOTEST_PATH
# includes tests/, so the .at files call them by name.

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

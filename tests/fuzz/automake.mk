# Fuzz targets: one program per parser of untrusted bytes, each with a seed
# corpus in tests/fuzz/corpus/TARGET/ (written by make-corpus.py) and, in
# tests/fuzz/crashes/TARGET/, every input that once crashed it.
#
# Configured with --enable-fuzzing (CC=clang), they are libFuzzer programs
# and `make fuzz FUZZ_SECONDS=N` runs each for N seconds.  Otherwise they
# are built with fuzz-main.c, which runs a target once on each file it is
# given: tests/percpu-fuzz.at replays the corpora and the crashes that way
# in every build.

FUZZ_TARGETS = \
	tests/fuzz/fuzz-ipip \
	tests/fuzz/fuzz-gro \
	tests/fuzz/fuzz-gso \
	tests/fuzz/fuzz-ipf \
	tests/fuzz/fuzz-ipip-options \
	tests/fuzz/fuzz-ct-action \
	tests/fuzz/fuzz-afpacket-rx \
	tests/fuzz/fuzz-afpacket-vnet \
	tests/fuzz/fuzz-tunnel-rx \
	tests/fuzz/fuzz-tunnel-neigh \
	tests/fuzz/fuzz-kernel-ipip-stats \
	tests/fuzz/fuzz-header-key
noinst_PROGRAMS += $(FUZZ_TARGETS)

FUZZ_COMMON = tests/fuzz/fuzz-common.c tests/fuzz/fuzz-common.h
if !FUZZING
FUZZ_COMMON += tests/fuzz/fuzz-main.c
endif
FUZZ_LDADD = lib/libpercpu.la $(OVS_LINK)
FUZZ_DEPS = lib/libpercpu.la $(OVS_STATIC_LIBS)

tests_fuzz_fuzz_kernel_ipip_stats_SOURCES = \
	tests/fuzz/fuzz-kernel-ipip-stats.c $(FUZZ_COMMON)
tests_fuzz_fuzz_kernel_ipip_stats_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_kernel_ipip_stats_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_kernel_ipip_stats_DEPENDENCIES = $(FUZZ_DEPS)

tests_fuzz_fuzz_ipip_SOURCES = tests/fuzz/fuzz-ipip.c $(FUZZ_COMMON)
tests_fuzz_fuzz_ipip_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_ipip_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_ipip_DEPENDENCIES = $(FUZZ_DEPS)

tests_fuzz_fuzz_gro_SOURCES = tests/fuzz/fuzz-gro.c $(FUZZ_COMMON)
tests_fuzz_fuzz_gro_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_gro_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_gro_DEPENDENCIES = $(FUZZ_DEPS)

tests_fuzz_fuzz_gso_SOURCES = tests/fuzz/fuzz-gso.c $(FUZZ_COMMON)
tests_fuzz_fuzz_gso_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_gso_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_gso_DEPENDENCIES = $(FUZZ_DEPS)

tests_fuzz_fuzz_ipf_SOURCES = tests/fuzz/fuzz-ipf.c $(FUZZ_COMMON)
tests_fuzz_fuzz_ipf_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_ipf_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_ipf_DEPENDENCIES = $(FUZZ_DEPS)

tests_fuzz_fuzz_ipip_options_SOURCES = \
	tests/fuzz/fuzz-ipip-options.c $(FUZZ_COMMON)
tests_fuzz_fuzz_ipip_options_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_ipip_options_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_ipip_options_DEPENDENCIES = $(FUZZ_DEPS)

tests_fuzz_fuzz_ct_action_SOURCES = \
	tests/fuzz/fuzz-ct-action.c $(FUZZ_COMMON)
tests_fuzz_fuzz_ct_action_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_ct_action_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_ct_action_DEPENDENCIES = $(FUZZ_DEPS)

tests_fuzz_fuzz_afpacket_rx_SOURCES = \
	tests/fuzz/fuzz-afpacket-rx.c $(FUZZ_COMMON)
tests_fuzz_fuzz_afpacket_rx_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_afpacket_rx_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_afpacket_rx_DEPENDENCIES = $(FUZZ_DEPS)

tests_fuzz_fuzz_afpacket_vnet_SOURCES = \
	tests/fuzz/fuzz-afpacket-vnet.c $(FUZZ_COMMON)
tests_fuzz_fuzz_afpacket_vnet_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_afpacket_vnet_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_afpacket_vnet_DEPENDENCIES = $(FUZZ_DEPS)

tests_fuzz_fuzz_tunnel_rx_SOURCES = \
	tests/fuzz/fuzz-tunnel-rx.c $(FUZZ_COMMON)
tests_fuzz_fuzz_tunnel_rx_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_tunnel_rx_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_tunnel_rx_DEPENDENCIES = $(FUZZ_DEPS)

tests_fuzz_fuzz_tunnel_neigh_SOURCES = \
	tests/fuzz/fuzz-tunnel-neigh.c $(FUZZ_COMMON)
tests_fuzz_fuzz_tunnel_neigh_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_tunnel_neigh_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_tunnel_neigh_DEPENDENCIES = $(FUZZ_DEPS)

tests_fuzz_fuzz_header_key_SOURCES = \
	tests/fuzz/fuzz-header-key.c tests/header-key-check.c \
	tests/header-key-check.h $(FUZZ_COMMON)
tests_fuzz_fuzz_header_key_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
tests_fuzz_fuzz_header_key_LDADD = $(FUZZ_LDADD)
tests_fuzz_fuzz_header_key_LDFLAGS = $(FUZZ_LDFLAGS)
tests_fuzz_fuzz_header_key_DEPENDENCIES = $(FUZZ_DEPS)

EXTRA_DIST += \
	tests/fuzz/make-corpus.py \
	tests/fuzz/run-fuzz.sh \
	tests/fuzz/ipip-options.dict \
	tests/fuzz/corpus \
	tests/fuzz/crashes

# make fuzz FUZZ_SECONDS=N: each target for N seconds, one after another,
# at nice 10, printing libFuzzer's executions and coverage; new inputs and
# crashes go under fuzz-work/, never into the committed corpora.
FUZZ_SECONDS = 60
if FUZZING
fuzz: $(FUZZ_TARGETS)
	FUZZ_SEED='$(FUZZ_SEED)' \
	$(SHELL) $(srcdir)/tests/fuzz/run-fuzz.sh $(FUZZ_SECONDS) \
	  $(srcdir)/tests/fuzz fuzz-work $(FUZZ_TARGETS)
else
fuzz:
	@echo "make fuzz: configure with CC=clang --enable-fuzzing" >&2; exit 1
endif
.PHONY: fuzz

# make check-sanitizers: the test suite in a build configured with
# --enable-sanitizers (or --enable-fuzzing), every sanitizer report going to
# a file under sanitizer-logs/; fails if any report was written.
# TESTSUITEFLAGS applies, e.g. TESTSUITEFLAGS="-j2 -k '!system'".
SANITIZER_LOGS = $(abs_builddir)/sanitizer-logs
if SANITIZERS
check-sanitizers: all
	rm -rf $(SANITIZER_LOGS) && mkdir -p $(SANITIZER_LOGS)
	ASAN_OPTIONS="log_path=$(SANITIZER_LOGS)/asan:detect_leaks=1:$$ASAN_OPTIONS" \
	UBSAN_OPTIONS="log_path=$(SANITIZER_LOGS)/ubsan:print_stacktrace=1:$$UBSAN_OPTIONS" \
	TSAN_OPTIONS="log_path=$(SANITIZER_LOGS)/tsan:suppressions=$(abs_top_srcdir)/tests/tsan.supp:second_deadlock_stack=1:$$TSAN_OPTIONS" \
	  $(MAKE) check TESTSUITEFLAGS="$(TESTSUITEFLAGS)"; \
	status=$$?; \
	if test -n "`ls $(SANITIZER_LOGS)`"; then \
	  echo "check-sanitizers: reports in $(SANITIZER_LOGS):"; \
	  ls $(SANITIZER_LOGS); exit 1; \
	fi; \
	echo "check-sanitizers ($(SANITIZERS)): no sanitizer report"; \
	exit $$status
else
check-sanitizers:
	@echo "make check-sanitizers: configure with --enable-sanitizers" >&2; exit 1
endif
.PHONY: check-sanitizers

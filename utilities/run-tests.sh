#!/bin/sh
# Builds ovs-percpu (see build.sh), checks its coding style (make
# check-style: OVS's checkpatch.py and Linux's checkpatch.pl, well under a
# minute) and runs the whole test suite, in this order (each step prints
# its time; Documentation/testing.md has those of the latest clean-clone
# run on this 2-core machine):
#   1. our system tests (namespaces, veth, real traffic; keyword system),
#      one at a time, since they share the host's network devices, but for
#      the hostile-traffic test and the afpacket ports' tests, which run
#      under the sanitizers in step 6 instead;
#   2. the side-by-side benchmark in its quickest form
#      (utilities/benchmark/benchmark.sh --quick: every scenario, one round
#      of 0.2 s per datapath), which fails when a scenario cannot run or
#      does not reach its flow count; no thresholds: it prints its ratios,
#      which on a shared CI machine mean little;
#   3. of OVS's system-userspace suite (real traffic between namespaces)
#      the quick subset in tests/upstream/userspace-must-pass.txt (make
#      check-upstream-userspace);
#   4. the kernel datapath in a qemu/TCG guest: our kernel tests (make
#      check-kernel, less the longer ipip ones: KERNEL_CI_TESTS) and
#      OVS's kernel-datapath tests of the CI subset
#      (make check-kmod-ci: tests/upstream/kmod-ci.txt and a slice of
#      the others of kmod-must-pass.txt that changes with each commit,
#      named in the log by tests/upstream/kmod-slice.sh); both fail,
#      saying why, where qemu, the guest kernel or our module for it are
#      missing (KERNEL_GUEST_REQUIRED=yes, set here; outside CI,
#      KERNEL_GUEST_REQUIRED=no lets them skip);
#   5. the clang build with -Wthread-safety -Werror (build.sh
#      --with-thread-safety, in _build-clang), which checks the locking
#      annotations; build only;
#   6. the AddressSanitizer and UndefinedBehaviorSanitizer build
#      (build.sh --with-sanitizers, in _build-asan) and, under it, our
#      dummy-port tests (every test but the system ones, three at a time)
#      and then the fault tests under traffic (keyword faults:
#      LeakSanitizer checks each daemon as it exits), and the hostile-traffic
#      test and the afpacket ports' system tests (keywords hostile and
#      afpacket: the inputs least trusted, and the port that parses frames
#      and virtio-net headers from the kernel), failing on any sanitizer
#      report (make check-sanitizers).  The dummy-port tests run
#      only here, not also in the plain build: twice would cost 10
#      minutes for what the sanitizer build checks more strictly.
#      OVS_PERCPU_SANITIZERS=no skips this step and runs the dummy-port
#      tests in the plain build instead (four at a time), before step 1,
#      and the hostile and afpacket tests in step 1;
#   7. the fuzzers, with a seed taken from the commit: the kernel
#      datapath's netlink fuzzer for 60 s in the guest (after step 4; make
#      check-kernel-fuzz), and each libFuzzer target for 10 s in the
#      fuzzing build (build.sh --with-fuzzing, in _build-fuzz; make fuzz);
# and between steps 2 and 3, OVS's own tests that must pass against our
# ovs-vswitchd and reach its datapath (tests/upstream/must-pass.txt: 183
# tests of the dummy datapath, three at a time).  Left out to keep CI
# within its 45 minutes (Documentation/testing.md, "CI's steps and their
# time"), each to a make target of its own: the DPDK build and its DPDK
# port test (make check-dpdk); the 12 OpenFlow-version twins of tests of
# must-pass.txt (must-pass-variants.txt) and the 95 tests that only trace
# ofproto's OpenFlow translation (must-pass-translation.txt), both run by
# make check-upstream.
# Steps run one after another: OVS's must-pass tests run beside our system
# tests took 5 minutes less in all, but failed 5 of OVS's tests and one of
# ours on real-time waits, and both sides keep the CPU busy enough that no
# other pairing is safer.
# Each failed test runs once more, one at a time (RECHECK=yes, as OVS's own
# CI runs its suites); one that passes then is named "passed on recheck
# (flaky)" in the summary at the end, and its step still passes, once: the
# summary prints for it a line to append to the committed flake log
# (tests/flake-log.txt: date, commit, step, title; CI runs in a clean
# clone and cannot commit), and the run fails if its title is already
# among the last 5 entries of that log (Documentation/testing.md, "Flaky
# tests").  OVS's own tests that flake with stock's ovs-vswitchd too, as
# upstream-tests.md shows, are named in tests/upstream/stock-flakes.txt
# and are only printed.  Each
# step's output goes to the terminal and to a log in tests/run-tests-logs/;
# the summary at the end gives each step's time and result and, for each
# step that failed, its failure lines and the diffs of its failed tests, so
# that the end of the output says what failed.
# Every test that skips is checked against the skips CI expects
# (tests/expected-skips.txt, one line per step and test title, with its
# reason): after each step that runs an autotest suite, the skipped tests
# of its logs are read (utilities/check-skips.sh), and a skip that is not
# on the list fails the step, since a green run carries skips by design and
# a new one would otherwise pass unseen.  The summary names every skip,
# expected or not.  -v also prints the expected skips that did not occur
# (no failure: a host with more tools runs more).
# -s STEP (repeatable) runs only the steps named STEP, as the summary names
# them (e.g. -s 'system tests'), in a tree already built for them: to run
# again a step that failed, or one that a change touches.
# Exits non-zero if anything fails.
set -e

verbose=
only=
while getopts vs: opt; do
    case $opt in
        v) verbose=-v ;;
        s) only="$only$OPTARG
" ;;
        *) echo "usage: $0 [-v] [-s STEP]..." >&2; exit 2 ;;
    esac
done

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# Every step runs under subreaper.py, which reaps the daemons the tests
# and the benchmark stop as they exit: PID 1 of CI's machine reaps orphans
# about 1.7 s late, and each wait for a daemon to stop waits that long
# (testing.md, "Why the suites run under a subreaper").
if [ -z "$OVS_PERCPU_SUBREAPER" ]; then
    OVS_PERCPU_SUBREAPER=$$
    export OVS_PERCPU_SUBREAPER
    exec ./utilities/subreaper.py "$top/utilities/run-tests.sh" "$@"
fi

# In CI the kernel guest's steps run or fail (tests/automake.mk): a skip
# there would hide the whole kernel datapath.  Outside CI,
# KERNEL_GUEST_REQUIRED=no lets them skip where qemu or the guest kernel is
# missing.
#
# In CI nothing may loosen a check: the switches that turn a failure into
# a report or test another module are unset, and the sanitizer steps
# cannot be skipped.
if [ "$CI" = true ]; then
    KERNEL_GUEST_REQUIRED=yes
    unset HOSTILE_REPORT_ONLY KERNEL_GUEST_ALLOW_WARN KERNEL_GUEST_DATAPATH
    if [ "${OVS_PERCPU_SANITIZERS:-yes}" != yes ]; then
        echo "run-tests: CI runs the sanitizer steps;" \
             "OVS_PERCPU_SANITIZERS=$OVS_PERCPU_SANITIZERS is refused" >&2
        exit 1
    fi
fi
KERNEL_GUEST_REQUIRED=${KERNEL_GUEST_REQUIRED:-yes}
export KERNEL_GUEST_REQUIRED

logdir=$top/tests/run-tests-logs
rm -rf "$logdir"
mkdir -p "$logdir"
run_start=$(date +%s)
: > "$logdir/steps"

# What the next step's failure is read from, set before run_step: its
# autotest logs (files; the first run's before the recheck's) and the
# directories of its failed tests' logs or sanitizer reports.
step_logs=
# The autotest logs the next step's skipped tests are read from, set
# before run_step for each step that runs an autotest suite.
step_suites=
expected_skips=$top/tests/expected-skips.txt

# Runs the step named $1, the command "$@" after it, with its output to
# the terminal and to $logdir/N.log; then, if 'step_suites' names its
# autotest logs, checks their skips (check-skips.sh, its lines also in
# $logdir/N.log.skips), an unexpected one failing the step; writes
# "N SECONDS ok|FAILED NAME" to $logdir/steps and prints the step's time.
# If it fails, copies its 'step_logs' to $logdir/N.evidence.I, before a
# later step can overwrite them.  Returns non-zero if it failed.
run_step() {
    name=$1
    shift
    if [ -n "$only" ] && ! printf '%s' "$only" | grep -qxF "$name"; then
        step_logs=
        step_suites=
        return 0
    fi
    n=$(($(wc -l < "$logdir/steps") + 1))
    log=$logdir/$n.log
    start=$(date +%s)
    rm -f "$log.failed"
    { "$@" 2>&1 || echo $? > "$log.failed"; } | tee "$log"
    if [ -n "$step_suites" ]; then
        # shellcheck disable=SC2086
        { ./utilities/check-skips.sh $verbose "$expected_skips" "$name" \
              $step_suites || echo skips >> "$log.failed"; } \
            | tee "$log.skips" | tee -a "$log"
    fi
    step_suites=
    now=$(date +%s)
    if [ -f "$log.failed" ]; then
        result=FAILED
        i=0
        for path in $step_logs; do
            i=$((i + 1))
            # Daemons' unix sockets cannot be copied: the rest is enough.
            [ ! -e "$path" ] || cp -r "$path" "$log.evidence.$i" 2>/dev/null \
                || true
        done
    else
        result=ok
    fi
    step_logs=
    echo "$n $((now - start)) $result $name" >> "$logdir/steps"
    echo "run-tests: step $name: $((now - start)) s (total $((now - run_start)) s): $result"
    [ $result = ok ]
}

# Prints the lines of a failed step's log $1 that say what failed (or its
# last 30 lines if none does), and what run_step kept of its step_logs:
# the diffs of the failed tests of each autotest log, at most 60 lines
# each, and of each directory the first lines of three sanitizer reports
# and the diffs of three failed tests.
print_failure() {
    log=$1
    pattern=' FAILED \(|^ERROR: |failed unexpectedly|MUST-PASS|: [0-9]+ passed, [1-9]'
    pattern="$pattern|^check-sanitizers: reports|^make(\[[0-9]+\])?: \*\*\*|error:"
    pattern="$pattern|^benchmark|^run-kmod: |^kernel|^check-skips: .*(UNEXPECTED|FAILED)"
    if grep -q -E "$pattern" "$log"; then
        grep -E "$pattern" "$log" | head -30
    else
        tail -30 "$log"
    fi
    for suite_log in "$log".evidence.*; do
        if [ -d "$suite_log" ]; then
            # Sanitizer reports, a file each: the first lines of three.
            for report in $(find "$suite_log" -maxdepth 1 -type f | head -3); do
                echo "--- $report:"
                head -20 "$report"
            done
            # A directory of failed tests' directories, each with its log.
            shown=0
            for one_log in "$suite_log"/*/testsuite.log \
                           "$suite_log"/*/*/testsuite.log; do
                [ -f "$one_log" ] && [ $shown -lt 3 ] || continue
                shown=$((shown + 1))
                echo "--- from $one_log:"
                print_test_diffs < "$one_log" | head -40
            done
            continue
        fi
        [ -f "$suite_log" ] || continue
        grep -q '^## Detailed failed tests' "$suite_log" || continue
        echo "--- from $suite_log:"
        sed -n '/^## Detailed failed tests/,$p' "$suite_log" \
            | print_test_diffs | head -60
    done
}

# Prints, of an autotest log on its input, the lines that name a test,
# the command that failed and the diff of what it printed.
print_test_diffs() {
    awk '/^[0-9]+\. .*: testing/ { print; next }
         /exit code was/ { if (last != "") print last; last = ""; print; next }
         /^[^ ]*\.at:[0-9]+: / { last = $0; in_diff = 0; next }
         /^--- / { if (last != "") print last; last = ""; in_diff = 1;
                   print; next }
         in_diff && /^[-+@ ]/ { print; next }
         /FAILED/ { print }
         { in_diff = 0 }'
}

# The committed flake log, and the number of its last entries in which a
# title flaky again fails the run.
flake_log=$top/tests/flake-log.txt
flake_window=5

# Reads the tests that passed only on recheck, step by step, and writes to
# $logdir/flakes, for each, either the line to append to the flake log or,
# for one of OVS's tests listed in tests/upstream/stock-flakes.txt, a note;
# a title already among the last $flake_window entries of the flake log
# gets a FAILED line.  Returns non-zero if one did.
check_flakes() {
    today=$(date -u +%Y-%m-%d)
    commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
    while read -r n seconds result name; do
        # Our suite's "check: ... TITLE", OVS's "run-upstream: ... NUM TITLE".
        sed -n -e 's/^check: passed on recheck (flaky): /ours /p' \
               -e 's/^run-upstream: passed on recheck (flaky): [0-9]* /ovs /p' \
               "$logdir/$n.log" \
        | while read -r suite title; do
            if [ $suite = ovs ] &&
               grep -qxF "$title" "$top/tests/upstream/stock-flakes.txt"; then
                echo "  passed on recheck, as it does with stock's ovs-vswitchd (tests/upstream/stock-flakes.txt): $name | $title"
                continue
            fi
            echo "  $today | $commit | $name | $title"
            if grep -v '^[[:space:]]*\(#\|$\)' "$flake_log" \
                   | tail -n $flake_window \
                   | awk -F ' [|] ' -v t="$title" '$4 == t { found = 1 }
                                                  END { exit !found }'; then
                echo "FAILED: flaky again, already among the last $flake_window entries of tests/flake-log.txt: $title"
            fi
        done
    done < "$logdir/steps" > "$logdir/flakes"
    ! grep -q '^FAILED: ' "$logdir/flakes"
}

# Prints every skipped test of the run, step by step, expected or not
# (and, with -v, the expected skips that did not occur).
print_skips() {
    skips=$(ls "$logdir"/*.log.skips 2>/dev/null | sort -V)
    if [ -z "$skips" ]; then
        echo "  skipped tests: no step's skips were read"
        return
    fi
    # shellcheck disable=SC2086
    echo "  skipped tests: $(cat $skips | grep -c ': expected$')" \
         "expected, $(cat $skips | grep -c ': UNEXPECTED$') unexpected" \
         "(tests/expected-skips.txt):"
    # shellcheck disable=SC2086
    sed -n 's/^check-skips: /    /p' $skips
}

# Prints each step's time and result, what failed in the steps that
# failed, and the tests that passed only on recheck.
print_summary() {
    echo
    echo "run-tests: summary (seconds, result, step)"
    while read -r n seconds result name; do
        printf '  %5s %-6s %s\n' "$seconds" "$result" "$name"
    done < "$logdir/steps"
    echo "  $(($(date +%s) - run_start)) s in all; logs in $logdir"
    if [ -s "$logdir/flakes" ]; then
        echo "  passed only on recheck; append the dated lines to tests/flake-log.txt:"
        sed 's/^FAILED: /  FAILED: /' "$logdir/flakes"
    fi
    print_skips
    while read -r n seconds result name; do
        [ "$result" = FAILED ] || continue
        echo
        echo "run-tests: what failed in step $name:"
        print_failure "$logdir/$n.log"
    done < "$logdir/steps"
}

run_step build ./utilities/build.sh || { print_summary; exit 1; }

cache=${OVS_PERCPU_CACHE:-/var/cache/ovs-percpu}
OVS_SRCDIR=$cache/ovs-src
OVS_BUILDDIR=$cache/ovs-build
export OVS_SRCDIR OVS_BUILDDIR
sanitizers=${OVS_PERCPU_SANITIZERS:-yes}
autotest_logs="tests/testsuite-before-recheck.log tests/testsuite.log"

failed=0
run_step style make check-style || failed=1

if [ "$sanitizers" = no ]; then
    step_logs=$autotest_logs
    step_suites=$autotest_logs
    run_step "dummy-port tests" \
        make check TESTSUITEFLAGS="-j4 -k !system,!kernel" RECHECK=yes || failed=1
fi

# The hostile-traffic test and the afpacket ports' system tests run under
# the sanitizers (below) instead, unless they do not run
# (OVS_PERCPU_SANITIZERS=no).
system_flags="-k system"
if [ "$sanitizers" != no ]; then
    system_flags="-k system,!hostile,!afpacket"
fi
step_logs=$autotest_logs
step_suites=$autotest_logs
run_step "system tests" \
    make check TESTSUITEFLAGS="$system_flags" RECHECK=yes || failed=1

run_step "benchmark --quick" ./utilities/benchmark/benchmark.sh --quick \
    || failed=1

rm -rf tests/upstream/failed tests/upstream/userspace-results/failed
step_logs=tests/upstream/failed
run_step "OVS must-pass" tests/upstream/run-upstream.sh -j 3 -r \
    -c tests/upstream/must-pass.txt || failed=1

step_logs=tests/upstream/userspace-results/failed
run_step "OVS system-userspace" \
    make check-upstream-userspace RECHECK=yes || failed=1

step_logs=tests/kernel-results/testsuite.log
# Its skips are checked unless the guest may skip the whole step
# (KERNEL_GUEST_REQUIRED=no, outside CI), which leaves no log to read.
[ "$KERNEL_GUEST_REQUIRED" = no ] || step_suites=$step_logs
run_step "kernel tests" \
    make check-kernel KERNEL_TESTS="\$(KERNEL_CI_TESTS)" || failed=1
step_logs=tests/upstream/kmod-results/failed
run_step "OVS kmod tests" make check-kmod-ci || failed=1

# The fuzzers' seed: the commit's first 8 hex digits, so that each commit
# explores other inputs and a failure repeats with the seed it prints.
fuzz_seed=$(printf '%d' "0x$(git rev-parse --short=8 HEAD 2>/dev/null \
                                 || echo 1)")
step_logs=tests/kernel-fuzz-console.log
run_step "kernel fuzzer, 60 s" make check-kernel-fuzz \
    KERNEL_FUZZ_SECONDS=60 KERNEL_FUZZ_ARGS="--seed $fuzz_seed" || failed=1

run_step "thread-safety build" ./utilities/build.sh --with-thread-safety \
    || failed=1

if [ "$sanitizers" != no ]; then
    run_step "sanitizer build" ./utilities/build.sh --with-sanitizers \
        || { failed=1; print_summary; exit 1; }
    asan_logs=$(for f in $autotest_logs; do echo "_build-asan/$f"; done)
    step_logs="$asan_logs _build-asan/sanitizer-logs"
    step_suites=$asan_logs
    run_step "dummy-port tests, under the sanitizers" sh -c \
        'cd _build-asan && make check-sanitizers TESTSUITEFLAGS="-j3 -k !system,!kernel" RECHECK=yes' \
        || failed=1
    step_logs="$asan_logs _build-asan/sanitizer-logs"
    step_suites=$asan_logs
    run_step "fault tests, under the sanitizers" sh -c \
        'cd _build-asan && make check-sanitizers TESTSUITEFLAGS="-k system,faults" RECHECK=yes' \
        || failed=1
    step_logs="$asan_logs _build-asan/sanitizer-logs"
    step_suites=$asan_logs
    run_step "hostile and afpacket tests, under the sanitizers" sh -c \
        'cd _build-asan && make check-sanitizers TESTSUITEFLAGS="-k system,hostile -k system,afpacket" RECHECK=yes' \
        || failed=1
fi

run_step "fuzzing build" ./utilities/build.sh --with-fuzzing || failed=1
step_logs=_build-fuzz/fuzz-work
run_step "fuzz targets, 10 s each" make -C _build-fuzz fuzz \
    FUZZ_SECONDS=10 FUZZ_SEED="$fuzz_seed" || failed=1

check_flakes || failed=1
print_summary
if [ $failed -ne 0 ]; then
    echo "run-tests: FAILED"
    exit 1
fi
echo "run-tests: all passed"

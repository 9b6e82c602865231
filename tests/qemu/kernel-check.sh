#!/bin/sh
# Copyright (c) 2026 ovs-percpu authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at:
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
#
# Usage (in the guest of kernel-guest.sh): kernel-check.sh BUILDDIR RESULTS
#            [TESTSUITE-ARG]...
#
# Runs our autotest suite (BUILDDIR/tests/testsuite) with TESTSUITE-ARGs,
# e.g. '-k kernel'.  The suite's directory must hold unix sockets, which
# 9p cannot, so it runs in a tmpfs directory with copies of atconfig and
# atlocal (their relative paths made absolute); RESULTS, a directory the
# host shares read-write, receives testsuite.log and the directories of the
# failed tests.  Exits with the suite's status.

builddir=${1:?usage: kernel-check.sh BUILDDIR RESULTS [TESTSUITE-ARG]...}
results=${2:?usage: kernel-check.sh BUILDDIR RESULTS [TESTSUITE-ARG]...}
shift 2

work=$(mktemp -d /tmp/kernel-check.XXXXXX)
sed -e "s|^at_srcdir=.*|at_srcdir='$builddir/tests'|" \
    -e "s|^at_top_srcdir=.*|at_top_srcdir='$builddir'|" \
    -e "s|^at_top_build_prefix=.*|at_top_build_prefix='$builddir/'|" \
    "$builddir/tests/atconfig" > "$work/atconfig"
cp "$builddir/tests/atlocal" "$work/atlocal"

status=0
"$builddir/tests/testsuite" -C "$work" "$@" || status=$?

cp "$work/testsuite.log" "$results/" 2>/dev/null
[ ! -d "$work/testsuite.dir" ] || cp -r "$work/testsuite.dir" "$results/"
exit $status

#!/bin/sh
# Checks the skipped tests of one step of utilities/run-tests.sh against
# the skips CI expects (tests/expected-skips.txt).
#
# Usage: check-skips.sh [-v] EXPECTED STEP LOG...
#
# Reads the autotest logs LOG... (testsuite.log, and the first run's
# testsuite-before-recheck.log when there was a recheck), where autotest
# writes a line "N. TITLE (FILE.at:LINE): skipped (FILE.at:LINE)" for each
# skipped test, and prints each skipped test once:
#   check-skips: STEP | TITLE | skipped at WHERE: expected
#   check-skips: STEP | TITLE | skipped at WHERE: UNEXPECTED
# An expected skip is a line "STEP | TITLE | REASON" of EXPECTED ('#'
# starts a comment); the step and the title must match exactly.  With -v,
# also prints the expected skips of STEP that did not occur:
#   check-skips: STEP | TITLE: expected skip did not occur
# which is no failure: a host with more tools runs more.
#
# Exits 1 if a skip is not expected, or if no LOG exists (a step whose log
# is gone cannot show that it skipped nothing); 2 on a usage error.
set -e

verbose=
if [ "$1" = -v ]; then
    verbose=yes
    shift
fi
if [ $# -lt 3 ]; then
    echo "usage: $0 [-v] EXPECTED STEP LOG..." >&2
    exit 2
fi
expected=$1
step=$2
shift 2
[ -r "$expected" ] || {
    echo "check-skips: cannot read $expected" >&2
    exit 2
}

logs=
for log in "$@"; do
    [ ! -f "$log" ] || logs="$logs $log"
done
if [ -z "$logs" ]; then
    echo "check-skips: $step: FAILED: no autotest log to read its skips from ($*)"
    exit 1
fi

# The skips of the logs, "TITLE<TAB>WHERE", first occurrence of each title
# kept, then the expected list's entries for this step, then the check.
# shellcheck disable=SC2086
sed -n 's/^[1-9][0-9]*\. \(.*\) ([^ ()]*\.at:[0-9]*): skipped (\([^()]*\)).*/\1	\2/p' \
    $logs \
| awk -F '\t' -v step="$step" -v verbose="$verbose" -v expected="$expected" '
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
    BEGIN {
        while ((getline line < expected) > 0) {
            if (line ~ /^[ \t]*(#|$)/)
                continue
            n = split(line, f, "|")
            if (n < 3) {
                printf "check-skips: %s: malformed line (want STEP | TITLE | REASON): %s\n", expected, line
                bad = 1
                continue
            }
            if (trim(f[1]) != step)
                continue
            title = trim(f[2])
            want[title] = 1
            order[++nwant] = title
        }
    }
    !seen[$1]++ {
        if ($1 in want) {
            printf "check-skips: %s | %s | skipped at %s: expected\n", step, $1, $2
            happened[$1] = 1
        } else {
            printf "check-skips: %s | %s | skipped at %s: UNEXPECTED\n", step, $1, $2
            unexpected++
        }
    }
    END {
        if (verbose)
            for (i = 1; i <= nwant; i++)
                if (!(order[i] in happened))
                    printf "check-skips: %s | %s: expected skip did not occur\n", step, order[i]
        if (unexpected)
            printf "check-skips: %s: FAILED: %d skip(s) not in %s\n", step, unexpected, expected
        exit (unexpected || bad) ? 1 : 0
    }'

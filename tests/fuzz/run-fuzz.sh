#!/bin/sh
# Runs each libFuzzer target for a bounded time, one after another, at nice
# 10 (the machine is shared), and prints what libFuzzer reports at the end:
# executions, executions per second, coverage (cov: edges, ft: features)
# and corpus size.  Called by `make fuzz FUZZ_SECONDS=N`.
#
# Usage: run-fuzz.sh SECONDS FUZZ_SRCDIR WORKDIR TARGET...
# Each target starts from a copy of its seed corpus,
# FUZZ_SRCDIR/corpus/NAME/, and the crash inputs of FUZZ_SRCDIR/crashes/NAME/;
# FUZZ_SRCDIR/NAME.dict, if present, is its dictionary;
# the inputs it finds go to WORKDIR/NAME/corpus, a crash to
# WORKDIR/NAME/crash-*, its log to WORKDIR/NAME/log.  The committed corpora
# are never written.  FUZZ_SEED, if set, is libFuzzer's -seed (a run
# repeats with the same seed and corpus).  Exits non-zero if any target
# crashed.
set -e

seconds=$1
srcdir=$2
work=$3
shift 3

status=0
summary=""
for target in "$@"; do
    name=$(basename "$target" | sed 's/^fuzz-//')
    dir=$work/$name
    mkdir -p "$dir/corpus"
    cp "$srcdir/corpus/$name"/* "$dir/corpus/" 2>/dev/null || true
    if [ -d "$srcdir/crashes/$name" ]; then
        cp "$srcdir/crashes/$name"/* "$dir/corpus/" 2>/dev/null || true
    fi
    dict=
    if [ -f "$srcdir/$name.dict" ]; then
        dict=-dict=$srcdir/$name.dict
    fi
    echo "fuzz: $name for ${seconds}s (log: $dir/log)"
    # -max_len: the largest packet a port hands the datapath is 64 KiB;
    # sequences of a few such packets are enough to reach every limit.
    if nice -n 10 "$target" -max_total_time="$seconds" \
           -print_final_stats=1 -max_len=262144 -timeout=25 -rss_limit_mb=2048 \
           ${FUZZ_SEED:+-seed=$FUZZ_SEED} \
           -artifact_prefix="$dir/" $dict "$dir/corpus" > "$dir/log" 2>&1; then
        result=ok
    else
        result="CRASH (see $dir/log and $dir/crash-*)"
        status=1
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -1)
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$dir/log" | tail -1)
    corp=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$dir/log" | tail -1)
    line="$name: ${execs:-?} executions (${speed:-?}/s), $cov, $corp: $result"
    echo "fuzz: $line"
    summary="$summary$line
"
done
echo "fuzz: summary (${seconds}s each):"
printf '%s' "$summary"
exit $status

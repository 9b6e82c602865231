#!/bin/sh
# Builds ovs-percpu if needed and runs the side-by-side benchmark (our
# datapath against OVS 3.1's stock dpif-netdev, in one process), writing
# the results table, with the machine, the commit and this command, to
# Documentation/benchmark-results.md, and its plot of Mpps against the
# number of flows (utilities/benchmark/benchmark-plot.sh) to
# Documentation/benchmark-results.svg.
#
# Usage: utilities/benchmark/benchmark.sh [BENCHMARK OPTIONS]
# e.g.   utilities/benchmark/benchmark.sh --rounds=5 --seconds=3
#        utilities/benchmark/benchmark.sh --quick
#                        (every scenario, one short round each, no file)
# Run it on an otherwise idle machine: the PMD threads take every core.
# Exits non-zero, naming the scenario, when a scenario cannot run or does
# not reach its flow count (CI runs --quick for that: utilities/run-tests.sh).
set -e

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
./utilities/build.sh

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    commit="$commit (with uncommitted changes)"
fi

output=Documentation/benchmark-results.md
for arg in "$@"; do
    case $arg in
        --quick|--only=*|--datapath=*) output= ;;
    esac
done

if [ -n "$output" ]; then
    {
        echo "# Benchmark results"
        echo
        echo "Written by \`utilities/benchmark/benchmark.sh\`; see"
        echo "performance.md for what each scenario measures and how to"
        echo "read it, and results/performance.md for earlier runs."
        echo
    } > "$output.tmp"
    utilities/benchmark/ovs-percpu-benchmark --commit="$commit" \
        --command="utilities/benchmark/benchmark.sh $*" \
        --output="$output.body" "$@"
    cat "$output.body" >> "$output.tmp"
    rm -f "$output.body"
    mv "$output.tmp" "$output"
    echo "benchmark: results written to $output"
    utilities/benchmark/benchmark-plot.sh "$output" "${output%.md}.svg"
else
    utilities/benchmark/ovs-percpu-benchmark --commit="$commit" \
        --command="utilities/benchmark/benchmark.sh $*" "$@"
fi

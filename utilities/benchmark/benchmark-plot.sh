#!/bin/sh
# Draws Mpps against the number of flows, ours and stock, one and two
# threads (the 1-mask forwarding scenarios), from the results table that
# utilities/benchmark/benchmark.sh writes, as an SVG, with gnuplot.
#
# Usage: utilities/benchmark/benchmark-plot.sh RESULTS.md OUTPUT.svg
# e.g.   utilities/benchmark/benchmark-plot.sh \
#            Documentation/benchmark-results.md \
#            Documentation/benchmark-results.svg
# Exits non-zero if gnuplot is missing or the table has none of the
# scenarios it draws.
set -e

if [ $# -ne 2 ]; then
    echo "usage: $0 RESULTS.md OUTPUT.svg" >&2
    exit 2
fi
results=$1
output=$2
command -v gnuplot >/dev/null || {
    echo "benchmark-plot: gnuplot is missing (utilities/install-deps.sh)" >&2
    exit 1
}

data=$(mktemp)
trap 'rm -f "$data"' EXIT

# One line per flow count: FLOWS OURS1 STOCK1 OURS2 STOCK2 (Mpps; "-" for
# a scenario not in the table), from rows "| NAME | OURS | STOCK | ...".
awk -F'|' '
function count(text) {
    if (text ~ /one (flow|megaflow)/) return 1
    if (match(text, /[0-9]+[kM]? flows/)) {
        n = substr(text, RSTART, RLENGTH - 6)
        if (n ~ /k$/) return substr(n, 1, length(n) - 1) * 1000
        if (n ~ /M$/) return substr(n, 1, length(n) - 1) * 1000000
        return n
    }
    return 0
}
NF >= 5 && $2 !~ /scenario|---/ {
    name = $2; gsub(/^ +| +$/, "", name)
    if (name ~ /8 masks|tagged|IPv6|flow setup|stats slots|pcap/) next
    threads = name ~ /^two threads/ ? 2 : 1
    n = count(name)
    if (!n) next
    ours[n, threads] = $3 + 0; stock[n, threads] = $4 + 0; seen[n] = 1
}
END {
    for (n in seen) {
        line = n
        for (t = 1; t <= 2; t++) {
            line = line " " ((n, t) in ours ? ours[n, t] : "-")
            line = line " " ((n, t) in stock ? stock[n, t] : "-")
        }
        print line
    }
}' "$results" | sort -n > "$data"

if [ ! -s "$data" ]; then
    echo "benchmark-plot: no 1-mask forwarding scenario in $results" >&2
    exit 1
fi

title=$(sed -n 's/^- Commit: \(.*\)/commit \1/p' "$results" | head -1)
machine=$(sed -n 's/^- Machine: \(.*\)/\1/p' "$results" | head -1)

gnuplot <<GNUPLOT
set terminal svg size 800,500 dynamic font "sans,12"
set output "$output"
set title "Forwarding, 64-byte UDP frames, 1 mask; $title\n$machine" noenhanced
set xlabel "megaflows hit (each thread hits all of them)"
set ylabel "Mpps"
set logscale x 10
set format x "10^{%L}"
set xrange [0.5:2000000]
set yrange [0:*]
set key below
set grid
set datafile missing "-"
plot "$data" using 1:2 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "ovs-percpu, 1 thread", \
     "$data" using 1:3 with linespoints lw 2 pt 7 lc rgb "#ff7f0e" title "stock, 1 thread", \
     "$data" using 1:4 with linespoints lw 2 pt 5 dt 2 lc rgb "#1f77b4" title "ovs-percpu, 2 threads", \
     "$data" using 1:5 with linespoints lw 2 pt 5 dt 2 lc rgb "#ff7f0e" title "stock, 2 threads"
GNUPLOT
echo "benchmark-plot: $output"

#!/bin/sh
# Regenerates docs/perf-pair-nr.svg (gnuplot) from docs/perf-pair-nr.dat,
# the median cost of one add+remove pair of nr PTEs on an order-9 anon
# folio, by mode, as `bench_rmap --plot-data` recorded it (the data is a
# measurement of one machine, recorded with docs/performance.md; the plot
# is derived from it and a test keeps the two in step):
#   docs/gen-perf-plot.sh [DATA]
# FOLIOSIM_PLOTS_OUT=DIR writes there instead of docs/ (the test compares).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
data=${1:-$top/docs/perf-pair-nr.dat}
out=${FOLIOSIM_PLOTS_OUT:-$top/docs}
command -v gnuplot > /dev/null || { echo "gen-perf-plot: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 2; }
[ -r "$data" ] || { echo "gen-perf-plot: no data file $data (bench_rmap --plot-data FILE)" >&2; exit 2; }
mkdir -p "$out"
gnuplot <<GP
set terminal svg size 720,420 font "sans,11" noenhanced
set output "$out/perf-pair-nr.svg"
set title "One add + remove of nr PTEs of an order-9 anon folio (model, oracle on)"
set xlabel "nr (PTEs in the batch)"
set ylabel "ns per pair (median)"
set logscale xy 2
set xrange [1:512]
set key left top
set grid
plot "$data" using 1:2 with linespoints lw 2 title "legacy (6.12)", \
     "" using 1:3 with linespoints lw 2 title "base (6.12 + prep)", \
     "" using 1:4 with linespoints lw 2 title "rfc", \
     "" using 1:5 with lines lw 1 dt 2 title "floor (bit spinlock, 3 RMWs, twice)"
GP

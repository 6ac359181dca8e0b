#!/bin/sh
# Regenerates docs/kharness-pair-nr.svg (gnuplot) from
# docs/kharness-pair-nr.dat, the median cost of one add+remove pair of nr
# PTEs on an order-9 anon folio in each tree's own mm/rmap.c, as
# tests/bench/bench_kharness.sh --plot-data recorded it (a measurement of
# one machine, recorded with docs/kharness.md; the plot is derived from it
# and a test keeps the two in step):
#   docs/gen-kharness-plot.sh [DATA]
# FOLIOSIM_PLOTS_OUT=DIR writes there instead of docs/ (the test compares).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
data=${1:-$top/docs/kharness-pair-nr.dat}
out=${FOLIOSIM_PLOTS_OUT:-$top/docs}
command -v gnuplot > /dev/null || { echo "gen-kharness-plot: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 2; }
[ -r "$data" ] || { echo "gen-kharness-plot: no data file $data (bench_kharness.sh --plot-data FILE)" >&2; exit 2; }
mkdir -p "$out"
gnuplot <<GP
set terminal svg size 720,420 font "sans,11" noenhanced
set output "$out/kharness-pair-nr.svg"
set title "One add + remove of nr PTEs of an order-9 anon folio: the kernels' own mm/rmap.c"
set xlabel "nr (PTEs in the batch)"
set ylabel "ns per pair (median)"
set logscale xy 2
set xrange [1:512]
set key left top
set grid
plot "$data" using 1:2 with linespoints lw 2 title "6.12", \
     "" using 1:3 with linespoints lw 2 title "base (6.12 + prep)", \
     "" using 1:4 with linespoints lw 2 title "series (rfc + fixes)"
GP

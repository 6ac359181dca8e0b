#!/bin/sh
# Regenerates a plot of the median cost of one add+remove pair of nr PTEs
# on an order-9 anon folio (gnuplot SVG), from its recorded data (a
# measurement of one machine; the plot is derived from it and a test keeps
# the two in step):
#   docs/gen-pair-nr-plot.sh model [DATA]      docs/perf-pair-nr.svg, the model by mode
#                                              (bench_rmap --plot-data; docs/performance.md)
#   docs/gen-pair-nr-plot.sh kharness [DATA]   docs/kharness-pair-nr.svg, each tree's own
#                                              mm/rmap.c (bench_kharness.sh --plot-data;
#                                              docs/kharness.md)
# FOLIOSIM_PLOTS_OUT=DIR writes there instead of docs/ (the tests compare).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
which=${1:-}
case $which in
model)
	name=perf-pair-nr recorder="bench_rmap --plot-data FILE"
	title="One add + remove of nr PTEs of an order-9 anon folio (model, oracle on)"
	curves='"$data" using 1:2 with linespoints lw 2 title "legacy (6.12)", \
     "" using 1:3 with linespoints lw 2 title "base (6.12 + prep)", \
     "" using 1:4 with linespoints lw 2 title "rfc", \
     "" using 1:5 with lines lw 1 dt 2 title "floor (bit spinlock, 3 RMWs, twice)"' ;;
kharness)
	name=kharness-pair-nr recorder="bench_kharness.sh --plot-data FILE"
	title="One add + remove of nr PTEs of an order-9 anon folio: the kernels' own mm/rmap.c"
	curves='"$data" using 1:2 with linespoints lw 2 title "6.12", \
     "" using 1:3 with linespoints lw 2 title "base (6.12 + prep)", \
     "" using 1:4 with linespoints lw 2 title "series (rfc + fixes)"' ;;
*)	echo "usage: docs/gen-pair-nr-plot.sh model|kharness [DATA]" >&2; exit 2 ;;
esac
data=${2:-$top/docs/$name.dat}
out=${FOLIOSIM_PLOTS_OUT:-$top/docs}
command -v gnuplot > /dev/null || { echo "gen-pair-nr-plot: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 2; }
[ -r "$data" ] || { echo "gen-pair-nr-plot: no data file $data ($recorder)" >&2; exit 2; }
mkdir -p "$out"
curves=$(printf '%s' "$curves" | sed "s|\\\$data|$data|")
gnuplot <<GP
set terminal svg size 720,420 font "sans,11" noenhanced
set output "$out/$name.svg"
set title "$title"
set xlabel "nr (PTEs in the batch)"
set ylabel "ns per pair (median)"
set logscale xy 2
set xrange [1:512]
set key left top
set grid
plot $curves
GP

#!/bin/sh
# Regenerates the plots in docs/ (SVG, gnuplot) from the model:
#   docs/gen-plots.sh [BUILD-DIR]
#   plot-pss-uss.svg          a parent's Pss and USS (psutil) against the
#                             pages of its THP a child unmapped, 6.12 vs RFC
#   plot-anon-pages.svg       AnonPages against the fraction of each THP
#                             unmapped (MADV_DONTNEED), 6.12 vs RFC
#   plot-consumer-errors.svg  each tool's largest error over the scenario
#                             list (the table of docs/what-changes.md)
# FOLIOSIM_PLOTS_OUT=DIR writes there instead of docs/ (the test compares).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
sweep=$build/examples/drift_sweep
out=${FOLIOSIM_PLOTS_OUT:-$top/docs}
command -v gnuplot > /dev/null || { echo "gen-plots: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 2; }
[ -x "$sweep" ] || { echo "gen-plots: build the examples first ($sweep)" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$sweep" pss-uss > "$tmp/pss-uss.tsv"
"$sweep" anon > "$tmp/anon.tsv"
# The consumer table: "| tool | figure | +N unit (a -> b) | ..." -> tool figure N
sed -n '/^## What each tool reads/,/^## Scenarios/p' "$top/docs/what-changes.md" |
	awk -F'|' 'NF > 6 && $2 !~ /^ *(tool|---)/ {
		gsub(/^ +| +$/, "", $2); gsub(/^ +| +$/, "", $3); gsub(/^ +| +$/, "", $4);
		split($4, w, " "); v = (w[1] == "none") ? 0 : w[1] + 0;
		printf "\"%s %s\"\t%d\n", $2, $3, v }' > "$tmp/consumers.tsv"
[ -s "$tmp/consumers.tsv" ] || { echo "gen-plots: no consumer table in docs/what-changes.md" >&2; exit 1; }

gnuplot <<GP
set terminal svg size 720,420 font "sans,11" noenhanced
set datafile separator "\t"
set key outside right top
set grid

set output "$out/plot-pss-uss.svg"
set title "A parent's THP after its child unmaps part of it (psutil, kB)"
set xlabel "pages of the 2 MB THP the child unmapped"
set ylabel "kB"
set xrange [0:512]
set yrange [0:2200]
plot "$tmp/pss-uss.tsv" using 1:2 with linespoints lw 2 title "Pss 6.12", \
     "" using 1:3 with linespoints lw 2 title "Pss RFC", \
     "" using 1:4 with linespoints lw 2 dt 2 title "USS 6.12", \
     "" using 1:5 with linespoints lw 2 dt 2 title "USS RFC"

set output "$out/plot-anon-pages.svg"
set title "AnonPages of 8 THPs (16 MB) after MADV_DONTNEED of part of each"
set xlabel "percent of each THP unmapped"
set ylabel "AnonPages, kB"
set xrange [0:100]
set yrange [0:17000]
plot "$tmp/anon.tsv" using 1:2 with linespoints lw 2 title "6.12", \
     "" using 1:3 with linespoints lw 2 title "RFC"

set output "$out/plot-consumer-errors.svg"
set terminal svg size 760,500 font "sans,11" noenhanced
set bmargin 10
set title "Largest error of each tool over the scenario list\nred: the RFC reads lower than 6.12, blue: higher; log scale"
set xlabel ""
set ylabel "kB (page-types: pages)"
set autoscale
set style fill solid 0.7
set boxwidth 0.7
set xtics rotate by -40
set logscale y 10
set yrange [1:*]
unset key
plot "$tmp/consumers.tsv" using 0:(abs(\$2) > 0 ? abs(\$2) : 1):(\$2 < 0 ? 0xc0392b : 0x2e86c1):xtic(1) with boxes lc rgb variable title "largest error"
GP
echo "wrote $out/plot-pss-uss.svg $out/plot-anon-pages.svg $out/plot-consumer-errors.svg"

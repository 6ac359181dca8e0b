#!/bin/sh
# Regenerates the miss-rate figures of docs/partial-detect.md from the model
# (examples/partial_miss; issue 16):
#   docs/gen-partial-miss.sh [BUILD-DIR]
#   partial-miss.tsv   per family, sharers and kernel: partially mapped anon
#                      folios seen, missed by deferred split, pages kept
#   partial-miss.svg   the series' miss rate and the memory it keeps against
#                      the number of processes sharing the folios
#   partial-detect.md  the table between its "partial-miss-table" markers
# FOLIOSIM_PARTIAL_OUT=DIR writes there instead of docs/ (the test compares).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
prog=$build/examples/partial_miss
out=${FOLIOSIM_PARTIAL_OUT:-$top/docs}
command -v gnuplot > /dev/null || { echo "gen-partial-miss: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 2; }
[ -x "$prog" ] || { echo "gen-partial-miss: build the examples first ($prog)" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$prog" --seeds 32 --steps 100 --samples 20 > "$out/partial-miss.tsv"

# One data block per family (the series only: 6.12 and series+detect miss
# nothing, which the table shows).
for fam in fork-unmap fork-tree cow mthp; do
	awk -F'\t' -v f="$fam" '$1 == f && $3 == "series" { print $2 "\t" $7 "\t" $8 }' \
		"$out/partial-miss.tsv" > "$tmp/$fam.tsv"
done

gnuplot <<GP
set terminal svg size 900,420 font "sans,11" noenhanced
set datafile separator "\t"
set output "$out/partial-miss.svg"
set multiplot layout 1,2 title "Partially mapped anon folios deferred split never sees, the series as posted\n(6.12 and the series with the detect part: 0 in every workload)"
set grid
set logscale x 2
set xrange [1:32]
set xlabel "processes sharing the heap (fork)"
set key top left
set ylabel "miss rate, % of partially mapped folios"
set yrange [0:*]
plot "$tmp/fork-unmap.tsv" using 1:2 with linespoints lw 2 title "fork-unmap", \
     "$tmp/fork-tree.tsv" using 1:2 with linespoints lw 2 title "fork-tree", \
     "$tmp/cow.tsv" using 1:2 with linespoints lw 2 title "cow", \
     "$tmp/mthp.tsv" using 1:2 with linespoints lw 2 title "mthp (64 kB)"
set ylabel "unmapped memory kept, kB (mean over readings)"
plot "$tmp/fork-unmap.tsv" using 1:3 with linespoints lw 2 title "fork-unmap", \
     "$tmp/fork-tree.tsv" using 1:3 with linespoints lw 2 title "fork-tree", \
     "$tmp/cow.tsv" using 1:3 with linespoints lw 2 title "cow", \
     "$tmp/mthp.tsv" using 1:3 with linespoints lw 2 title "mthp (64 kB)"
unset multiplot
GP

# The table: family, sharers, then for each kernel "missed of partially
# mapped (rate), kB kept".
awk -F'\t' 'NR > 1 {
	key = $1 "\t" $2
	if (!(key in seen)) { seen[key] = 1; order[n++] = key }
	cell[key, $3] = sprintf("%s of %s (%s%%), %s kB", $6, $5, $7, $8)
} END {
	print "| family | sharers | 6.12 | series | series+detect |"
	print "|---|---|---|---|---|"
	for (i = 0; i < n; i++) {
		split(order[i], k, "\t")
		printf "| %s | %s | %s | %s | %s |\n", k[1], k[2], cell[order[i], "6.12"],
			cell[order[i], "series"], cell[order[i], "series+detect"]
	}
}' "$out/partial-miss.tsv" > "$tmp/table.md"
src=$top/docs/partial-detect.md
awk -v table="$tmp/table.md" '
	/<!-- partial-miss-table:end -->/ { skip = 0 }
	!skip { print }
	/<!-- partial-miss-table:begin -->/ { while ((getline l < table) > 0) print l; skip = 1 }
' "$src" > "$tmp/doc.md"
cp "$tmp/doc.md" "$out/partial-detect.md"
echo "wrote $out/partial-miss.tsv $out/partial-miss.svg $out/partial-detect.md"

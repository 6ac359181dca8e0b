#!/bin/bash
# bench_kharness.sh: what the series costs per rmap call, measured on the
# trees' own mm/rmap.c (kernel-port/kharness, docs/kharness.md).
#
#   bench_kharness.sh BIN-DIR [--rounds N] [--reps N] [--plot-data FILE]
#
# BIN-DIR holds TREE/kh-bench for the trees legacy, base and rfc (as
# build-kharness --out BIN-DIR makes them).  Every cell of kh-bench --list
# runs in every tree once per round, the trees in a new order each round
# (round r starts with tree r mod 3), so that drift of the machine falls on
# all of them; the figure of a cell and tree is the median of its rounds.
# Prints one JSON line per cell:
#   {"cell":"anon-pte-o9-nr1","legacy_ns":..,"base_ns":..,"rfc_ns":..,
#    "rfc_vs_legacy":..,"rfc_vs_base":..,"rounds":N}
# (ratios: the series' cost over 6.12's and over its base tree's; below 1
# the series is faster), then a table.  --plot-data writes nr and the
# three medians of the anon-pte-o9-nrN cells, for docs/gen-pair-nr-plot.sh kharness.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: bench_kharness.sh BIN-DIR [--rounds N] [--reps N] [--plot-data FILE]" >&2; exit 2; }
bin=$1
shift
rounds=7
reps=20000
plot=""
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--plot-data) plot=$2; shift 2 ;;
	*) echo "bench_kharness: unknown option '$1'" >&2; exit 2 ;;
	esac
done
trees=(legacy base rfc)
for t in "${trees[@]}"; do
	[ -x "$bin/$t/kh-bench" ] || { echo "bench_kharness: no $bin/$t/kh-bench (build-kharness --out $bin)" >&2; exit 2; }
done
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
mapfile -t cells < <("$bin/rfc/kh-bench" --list)
for ((r = 0; r < rounds; r++)); do
	for c in "${cells[@]}"; do
		for ((k = 0; k < 3; k++)); do
			t=${trees[$(((r + k) % 3))]}
			printf '%s ' "$t" >> "$raw"
			"$bin/$t/kh-bench" --cell "$c" --reps "$reps" >> "$raw"
		done
	done
	[ -t 2 ] && printf '\rbench_kharness: round %d of %d' $((r + 1)) "$rounds" >&2
done
[ -t 2 ] && printf '\n' >&2
# median per (tree, cell); "n/a" cells stay n/a
awk -v rounds="$rounds" -v plot="$plot" '
	function median(key,   n, i, j, v, tmp) {
		n = cnt[key]
		for (i = 1; i <= n; i++) v[i] = val[key, i]
		for (i = 2; i <= n; i++) { tmp = v[i]; for (j = i - 1; j >= 1 && v[j] > tmp; j--) v[j + 1] = v[j]; v[j + 1] = tmp }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	{ key = $1 SUBSEP $2; if ($3 == "n/a") { na[key] = 1; next }
	  val[key, ++cnt[key]] = $3; if (!($2 in seen)) { seen[$2] = 1; order[++ncells] = $2 } }
	END {
		for (i = 1; i <= ncells; i++) {
			c = order[i]
			for (k = 1; k <= 3; k++) {
				t = k == 1 ? "legacy" : k == 2 ? "base" : "rfc"
				m[t] = ((t SUBSEP c) in na) || !cnt[t SUBSEP c] ? -1 : median(t SUBSEP c)
			}
			line = sprintf("{\"cell\":\"%s\",\"legacy_ns\":%s,\"base_ns\":%s,\"rfc_ns\":%s", c,
				m["legacy"] < 0 ? "null" : sprintf("%.1f", m["legacy"]),
				m["base"] < 0 ? "null" : sprintf("%.1f", m["base"]),
				m["rfc"] < 0 ? "null" : sprintf("%.1f", m["rfc"]))
			line = line sprintf(",\"rfc_vs_legacy\":%s,\"rfc_vs_base\":%s,\"rounds\":%d}",
				m["legacy"] > 0 && m["rfc"] >= 0 ? sprintf("%.3f", m["rfc"] / m["legacy"]) : "null",
				m["base"] > 0 && m["rfc"] >= 0 ? sprintf("%.3f", m["rfc"] / m["base"]) : "null", rounds)
			print line
			tab[i] = sprintf("%-28s %10s %10s %10s %8s %8s", c,
				m["legacy"] < 0 ? "n/a" : sprintf("%.1f", m["legacy"]),
				m["base"] < 0 ? "n/a" : sprintf("%.1f", m["base"]),
				m["rfc"] < 0 ? "n/a" : sprintf("%.1f", m["rfc"]),
				m["legacy"] > 0 ? sprintf("%.3f", m["rfc"] / m["legacy"]) : "n/a",
				m["base"] > 0 ? sprintf("%.3f", m["rfc"] / m["base"]) : "n/a")
			if (plot != "" && c ~ /^anon-pte-o9-nr[0-9]+$/) {
				nr = c; sub(/.*-nr/, "", nr)
				pl[nr] = sprintf("%s %.1f %.1f %.1f", nr, m["legacy"], m["base"], m["rfc"])
			}
		}
		printf "\n%-28s %10s %10s %10s %8s %8s\n", "ns per pair (median)", "6.12", "base", "series", "/6.12", "/base"
		for (i = 1; i <= ncells; i++) print tab[i]
		if (plot != "")
			for (nr in pl) print pl[nr] > plot
	}' "$raw"
if [ -n "$plot" ]; then
	sort -n -o "$plot" "$plot"
	sed -i '1i # nr legacy_ns base_ns rfc_ns: one add+remove of nr PTEs of an order-9 anon folio, each tree'"'"'s own mm/rmap.c (kh-bench, medians of '"$rounds"' rounds)' "$plot"
fi

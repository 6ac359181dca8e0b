#!/bin/bash
# SPDX-License-Identifier: MIT
# The whole-program figures of issue 15, in CPU seconds of the child:
#   - oracle-checked fuzzing: fuzz_rmap's regression driver in mutational
#     mode, every operation followed by fsim_check_ctx() and, for refused
#     calls, the digest comparison; operations per CPU second (the driver
#     counts them with FOLIOSIM_FUZZ_STATS), against issue 15's 2e6;
#   - the scenario suite: `foliosim check --mode M` over every
#     tests/scenarios/*.scn, per mode and in all, against issue 15's 5 s
#     (its "both modes" are legacy and rfc; base is measured too);
#   - the five most expensive files.
# --quick (a smoke test): one round, 2000 fuzz inputs, no file list, and
# without the scenario files that push counters to their limits.
# Medians of R rounds (modes and the fuzzer interleaved round by round).
#
#   bench_suite.sh FOLIOSIM FUZZ_RMAP_REGRESS SCENARIO_DIR CORPUS_DIR [--rounds R] [--quick]
set -euo pipefail

usage() {
	sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'
}
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then usage; exit 0; fi
if [ $# -lt 4 ]; then usage >&2; exit 2; fi
foliosim=$1 fuzz=$2 scn_dir=$3 corpus=$4
shift 4
rounds=5 mutations=20000 top=5 quick=0
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift ;;
	--quick) rounds=1 mutations=2000 top=0 quick=1 ;;
	*) echo "bench_suite: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
for x in "$foliosim" "$fuzz"; do
	[ -x "$x" ] || { echo "bench_suite: $x is not an executable" >&2; exit 2; }
done
shopt -s nullglob
files=("$scn_dir"/*.scn)
if ((quick)); then	# a smoke test: without the files that push counters to their limits
	light=()
	for f in "${files[@]}"; do
		[[ ${f##*/} =~ perf|overflow|ida-exhaust ]] || light+=("$f")
	done
	files=("${light[@]}")
fi
((${#files[@]})) || { echo "bench_suite: no scenario in $scn_dir" >&2; exit 2; }

# CPU seconds (user + system) of a command; its output is dropped, its
# failure is the benchmark's (a figure of a failing run means nothing).
cpu_of() {
	local t
	TIMEFORMAT='%3U %3S'
	t=$( { time "$@" >/dev/null 2>"$tmp/err"; } 2>&1 ) ||
		{ echo "bench_suite: failed: $*" >&2; cat "$tmp/err" >&2; exit 1; }
	awk '{ printf "%.3f\n", $1 + $2 }' <<<"$t"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
modes=(legacy base rfc)
for ((r = 0; r < rounds; r++)); do
	echo "bench_suite: round $((r + 1))/$rounds" >&2
	for m in "${modes[@]}"; do
		cpu_of "$foliosim" check --mode "$m" "${files[@]}" >>"$tmp/suite-$m"
	done
	TIMEFORMAT='%3U %3S'
	t=$( { time FOLIOSIM_FUZZ_STATS=1 "$fuzz" --mutate "$mutations" --seed $((r + 1)) \
		"$corpus" >/dev/null 2>"$tmp/fuzz-err"; } 2>&1 ) ||
		{ echo "bench_suite: fuzzer failed" >&2; cat "$tmp/fuzz-err" >&2; exit 1; }
	ops=$(sed -nE 's/.* ([0-9]+) operations checked.*/\1/p' "$tmp/fuzz-err" | tail -1)
	[ -n "$ops" ] || { echo "bench_suite: the fuzzer printed no operation count" >&2; exit 1; }
	awk -v ops="$ops" '{ printf "%.0f\n", ops / ($1 + $2) }' <<<"$t" >>"$tmp/fuzz"
done

figure() {	# name unit value [target at_most]
	local ratio verdict
	if [ $# -lt 4 ] || ((quick)); then	# a smoke run is judged by nothing
		printf '%-40s %s %s\n' "$1" "$3" "$2"
		printf '{"bench":"suite","figure":"%s","unit":"%s","median":%s,"rounds":%s}\n' \
			"$1" "$2" "$3" "$rounds"
		return
	fi
	ratio=$(awk -v v="$3" -v t="$4" 'BEGIN { printf "%.3g", v / t }')
	verdict=$(awk -v v="$3" -v t="$4" -v m="$5" 'BEGIN {
		print ((m == "true") ? (v <= t) : (v >= t)) ? "target met" : "target missed" }')
	printf '%-40s %s %s; target %s %s (%sx of it, %s)\n' "$1" "$3" "$2" \
		"$([ "$5" = true ] && echo '<=' || echo '>=')" "$4" "$ratio" "$verdict"
	printf '{"bench":"suite","figure":"%s","unit":"%s","median":%s,"rounds":%s,"target":%s,"target_is_max":%s,"ratio_to_target":%s}\n' \
		"$1" "$2" "$3" "$rounds" "$4" "$5" "$ratio"
}

total=0
for m in "${modes[@]}"; do
	v=$(median <"$tmp/suite-$m")
	figure "scenario suite, $m" "CPU s" "$v"
	total=$(awk -v a="$total" -v b="$v" 'BEGIN { print a + b }')
done
legacy_rfc=$(awk -v a="$(median <"$tmp/suite-legacy")" -v b="$(median <"$tmp/suite-rfc")" 'BEGIN { print a + b }')
figure "scenario suite, legacy + rfc" "CPU s" "$legacy_rfc" 5 true
figure "scenario suite, all three modes" "CPU s" "$total"
figure "oracle-checked fuzzing (fuzz_rmap)" "ops/CPU s" "$(median <"$tmp/fuzz")" 2000000 false

# Where the suite's time goes: the five most expensive files (legacy + rfc,
# one run each; not with --quick).
((top)) || exit 0
for f in "${files[@]}"; do
	a=$(cpu_of "$foliosim" check --mode legacy "$f")
	b=$(cpu_of "$foliosim" check --mode rfc "$f")
	echo "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a + b }') ${f##*/}"
done | sort -rg | head -5 | while read -r s f; do
	printf 'suite file %-30s %s CPU s (legacy + rfc)\n' "$f" "$s"
done

#!/bin/sh
# The docs' generated files are up to date: runs their generator with its
# output sent to a scratch directory and compares each file with the
# committed one.  Used by every "*-up-to-date" test (tests/CMakeLists.txt,
# foliosim_generated_test()).
#   check-generated.sh OUT-VAR SCRATCH GENERATOR DOCS-DIR FILE-PATTERN... [-- GENERATOR-ARGS...]
# OUT-VAR is the generator's output directory variable (FOLIOSIM_PLOTS_OUT,
# FOLIOSIM_PARTIAL_OUT); a pattern is matched in DOCS-DIR.  Exit 0 when all
# match, 1 naming the first stale file and the command that remakes it,
# 77 (skipped) without gnuplot, which every generator draws with.
set -eu
[ $# -ge 5 ] || { echo "usage: check-generated.sh OUT-VAR SCRATCH GENERATOR DOCS-DIR FILE-PATTERN... [-- ARGS...]" >&2; exit 2; }
var=$1 scratch=$2 gen=$3 docs=$4
shift 4
patterns=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do patterns="$patterns $1"; shift; done
[ $# -gt 0 ] && shift	# the "--"
command -v gnuplot > /dev/null || { echo "SKIP: gnuplot not installed (apt-get install gnuplot-nox)"; exit 77; }
mkdir -p "$scratch"
env "$var=$scratch" sh "$gen" "$@" > /dev/null
found=0
for p in $patterns; do
	for f in "$docs"/$p; do
		[ -e "$f" ] || { echo "$f: no such file (pattern $p)"; exit 1; }
		found=$((found + 1))
		cmp "$f" "$scratch/${f##*/}" ||
			{ echo "docs/${f##*/} is out of date: run docs/${gen##*/}${*:+ $*}"; exit 1; }
	done
done
echo "$found generated file(s) up to date ($(basename "$gen"))"

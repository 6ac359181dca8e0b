#!/bin/sh
# ctest fuzz-clusterfuzzlite-build: runs .clusterfuzzlite/build.sh as
# ClusterFuzzLite would (clang, ASan + libFuzzer, SRC/OUT/WORK set), then
# each target briefly with its .options and dictionary from OUT, so that
# a target, an options file or the dictionary that libFuzzer rejects
# fails here rather than in the fuzzing service.
#   check-clusterfuzzlite.sh SOURCE-DIR
set -eu
top=$1
command -v clang > /dev/null || { echo "SKIP: clang not installed"; exit 77; }
command -v zip > /dev/null || { echo "SKIP: zip not installed (apt-get install zip)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src" "$tmp/out" "$tmp/work"
ln -s "$top" "$tmp/src/foliosim"
SRC=$tmp/src OUT=$tmp/out WORK=$tmp/work CC=clang CXX=clang \
	CFLAGS="-O1 -g -fsanitize=address,fuzzer-no-link" \
	LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
	bash "$top/.clusterfuzzlite/build.sh" > "$tmp/build.log" 2>&1 ||
	{ tail -30 "$tmp/build.log"; echo "fuzz-clusterfuzzlite-build: build.sh failed"; exit 1; }
for t in fuzz_rmap fuzz_scenario fuzz_differential; do
	for f in "$t" "$t.options" "${t}_seed_corpus.zip"; do
		[ -e "$tmp/out/$f" ] || { echo "missing \$OUT/$f"; exit 1; }
	done
	opts=$(sed -n 's/^\([a-z_]*\) *= *\(.*\)$/-\1=\2/p' "$tmp/out/$t.options" |
		sed "s#^-dict=#-dict=$tmp/out/#")
	mkdir -p "$tmp/corpus-$t"
	(cd "$tmp/corpus-$t" && unzip -q "$tmp/out/${t}_seed_corpus.zip")
	# shellcheck disable=SC2086
	if ! "$tmp/out/$t" $opts -runs=2000 "$tmp/corpus-$t" > "$tmp/$t.log" 2>&1; then
		tail -20 "$tmp/$t.log"
		echo "fuzz-clusterfuzzlite-build: $t failed with its options ($opts)"
		exit 1
	fi
	if grep -q "^-dict=" <<EOF2
$opts
EOF2
	then
		grep -q "Dictionary: [1-9][0-9]* entries" "$tmp/$t.log" ||
			{ grep -i dict "$tmp/$t.log"; echo "$t: libFuzzer did not load the dictionary"; exit 1; }
	fi
done
echo "fuzz-clusterfuzzlite-build: 3 targets built and run with their options and dictionary"

#!/bin/bash -eu
# OSS-Fuzz build script (the shape of projects/<name>/build.sh): builds
# libfoliosim with $CC $CFLAGS, links each fuzz target with
# $LIB_FUZZING_ENGINE, and writes $OUT/<target> plus
# $OUT/<target>_seed_corpus.zip from tests/fuzz/corpus/<target>/.
#
# Outside OSS-Fuzz (local check), for example:
#   CC=clang CFLAGS="-fsanitize=address,fuzzer-no-link" \
#   LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=/tmp/out SRC=$PWD/.. \
#   tests/fuzz/oss-fuzz-build.sh
: "${CC:=clang}"
: "${CFLAGS:=}"
: "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}"
: "${OUT:?set OUT to the output directory}"
top=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:-$(mktemp -d)}
mkdir -p "$OUT" "$work/obj"

# The library: every source of libfoliosim/src, as one static archive.
for src in "$top"/libfoliosim/src/*.c; do
	$CC $CFLAGS -std=c11 -DFOLIOSIM_BUILDING \
		-I"$top/libfoliosim/include" -c "$src" -o "$work/obj/$(basename "$src" .c).o"
done
rm -f "$work/libfoliosim.a"
ar rcs "$work/libfoliosim.a" "$work"/obj/*.o

for target in fuzz_rmap fuzz_scenario fuzz_differential; do
	$CC $CFLAGS -std=c11 -I"$top/libfoliosim/include" \
		-c "$top/tests/fuzz/$target.c" -o "$work/$target.o"
	# The engine is linked by the C compiler here ($CXX in OSS-Fuzz
	# proper links libFuzzer's C++ runtime the same way).
	${CXX:-$CC} $CFLAGS "$work/$target.o" -o "$OUT/$target" \
		$LIB_FUZZING_ENGINE "$work/libfoliosim.a"
	rm -f "$OUT/${target}_seed_corpus.zip"
	(cd "$top/tests/fuzz/corpus/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
	# libFuzzer's limits (and the dictionary) travel with the target
	cp "$top/tests/fuzz/$target.options" "$OUT/"
	[ ! -f "$top/tests/fuzz/$target.dict" ] || cp "$top/tests/fuzz/$target.dict" "$OUT/"
done
echo "oss-fuzz-build: $(ls "$OUT")"

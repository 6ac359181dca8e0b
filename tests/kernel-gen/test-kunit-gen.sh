#!/bin/sh
# ctest kunit-gen-table: `foliosim kunit-gen` over the rmap scenarios must
# write a header that compiles against kernel-stub.h (-fsyntax-only, then
# built and run as table-check.c), twice the same bytes, and a broken
# scenario must fail with FILE:LINE and write nothing.
#   test-kunit-gen.sh FOLIOSIM CC SRCDIR WORKDIR SCENARIO...
set -eu
foliosim=$1 cc=$2 src=$3 work=$4
shift 4
rm -rf "$work"
mkdir -p "$work"
flags="-std=gnu11 -Wall -Wextra -Werror"

# Two runs at once: the same bytes twice.
"$foliosim" kunit-gen "$@" > "$work/table2.h" &
second=$!
"$foliosim" kunit-gen -o "$work/table.h" "$@"
wait "$second"
cmp "$work/table.h" "$work/table2.h" || { echo "kunit-gen: output is not deterministic"; exit 1; }

printf '#include "kernel-stub.h"\n#include "table.h"\nconst void *use = rmap_scn_table;\n' > "$work/syntax.c"
$cc $flags -fsyntax-only -I"$src" -I"$work" "$work/syntax.c"
$cc $flags -I"$src" -I"$work" -DRMAP_SCN_HEADER='"table.h"' -o "$work/table-check" "$src/table-check.c"
"$work/table-check"

# "part detect": the scenario runs with the part on (.parts); with the
# part's walk it is skipped with the walk's reason; without it, no .parts.
cat > "$work/parts.scn" <<'SCN'
scenario queued
part detect
mm P
folio T order=2 anon
new-anon T mm=P
scenario walked
part detect
mm P
folio T order=2 anon
new-anon T mm=P
deferred-split-scan
scenario plain
mm P
SCN
"$foliosim" kunit-gen -o "$work/parts.h" "$work/parts.scn"
entry() { sed -n "/\.name = \"$1\"/,/^\t},/p" "$work/parts.h"; }
entry queued | grep -q '\.parts = RMAP_SCN_PART_DETECT,' ||
	{ echo "kunit-gen: 'part detect' scenario without .parts"; exit 1; }
entry walked | grep -q "\.skip = \"the detect part's walk" ||
	{ echo "kunit-gen: a scenario with the walk is not skipped"; exit 1; }
entry walked | grep -q '\.parts' && { echo "kunit-gen: a skipped scenario has .parts"; exit 1; }
entry plain | grep -q '\.parts' && { echo "kunit-gen: .parts without 'part detect'"; exit 1; }
$cc $flags -I"$src" -I"$work" -DRMAP_SCN_HEADER='"parts.h"' -o "$work/parts-check" "$src/table-check.c"
"$work/parts-check" > /dev/null

# A scenario that cannot be translated: exit 1, FILE:LINE on stderr, no file.
cat > "$work/broken.scn" <<'SCN'
scenario broken
mm A
folio F order=0 anon
new-anon F mm=B
SCN
set +e
"$foliosim" kunit-gen -o "$work/broken.h" "$work/broken.scn" 2> "$work/broken.err"
rc=$?
set -e
[ "$rc" = 1 ] || { echo "kunit-gen: broken scenario: exit $rc, expected 1"; exit 1; }
grep -q "broken.scn:4: unknown mm 'B'" "$work/broken.err" ||
	{ echo "kunit-gen: no FILE:LINE message:"; cat "$work/broken.err"; exit 1; }
[ ! -e "$work/broken.h" ] || { echo "kunit-gen: wrote a header despite the error"; exit 1; }
# Usage errors: exit 2.
set +e
"$foliosim" kunit-gen > /dev/null 2>&1; rc1=$?
"$foliosim" kunit-gen --bogus "$work/broken.scn" > /dev/null 2>&1; rc2=$?
"$foliosim" kunit-gen "$work/does-not-exist.scn" > /dev/null 2>&1; rc3=$?
set -e
[ "$rc1$rc2$rc3" = 222 ] || { echo "kunit-gen: usage errors exited $rc1 $rc2 $rc3, expected 2 2 2"; exit 1; }
echo "kunit-gen: ok"

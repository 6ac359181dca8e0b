#!/bin/sh
# The main job: build foliosim and run the demo scenario in both accounting
# modes, showing the folio state after every step.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${FOLIOSIM_BUILD_DIR:-$top/build}
echo "== building foliosim in $build"
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target foliosim >/dev/null
for mode in legacy rfc; do
	echo
	echo "== foliosim run --mode $mode examples/demo.scn"
	"$build/libfoliosim/cli/foliosim" run --mode "$mode" "$top/examples/demo.scn"
done

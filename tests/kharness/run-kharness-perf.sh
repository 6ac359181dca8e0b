#!/bin/bash
# ctest kharness-perf (opt-in): what an rmap call costs in 6.12, the base
# tree and the series, each tree's own mm/rmap.c built with the config
# variant "bench" (no DEBUG_VM, no PAGE_TABLE_CHECK: run-bench's kernels),
# so that the debug checks, which differ between the trees, do not count
# (docs/kharness.md).
#   run-kharness-perf.sh LIBFOLIOSIM.a INCLUDE-DIR OUT-DIR [bench_kharness.sh options]
# Exit 77 (skipped) where the kernel source cannot be had.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: run-kharness-perf.sh LIB INCLUDE OUT [bench options]" >&2; exit 2; }
lib=$1 inc=$2 out=$3
shift 3
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -f /usr/src/linux-source-6.12.tar.xz ] && [ "$(id -u)" != 0 ]; then
	echo "SKIP: no /usr/src/linux-source-6.12.tar.xz and not root to install linux-source-6.12"
	exit 77
fi
for tree in legacy base rfc; do
	"$top/kernel-port/scripts/build-kharness" --lib "$lib" --include "$inc" --tree "$tree" \
		--config-variant bench --out "$out"
done
exec bash "$top/tests/bench/bench_kharness.sh" "$out" "$@"

#!/bin/bash
# ctest kharness-TREE: the rmap scenarios on one tree's own mm/rmap.c
# (kernel-port/kharness, docs/kharness.md), the model beside it.
#   run-kharness.sh TREE LIBFOLIOSIM.a INCLUDE-DIR OUT-DIR [--sanitize KIND]
# Builds (or finds cached) the tree's harness with build-kharness and runs
# kh-run on every tests/scenarios/rmap-*.scn.  Exit 77 (ctest: skipped)
# where the kernel source cannot be had: no linux-source-6.12 tarball and
# not root to install it.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: run-kharness.sh TREE LIB INCLUDE OUT [--sanitize KIND]" >&2; exit 2; }
tree=$1 lib=$2 inc=$3 out=$4
shift 4
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -f /usr/src/linux-source-6.12.tar.xz ] && [ "$(id -u)" != 0 ]; then
	echo "SKIP: no /usr/src/linux-source-6.12.tar.xz and not root to install linux-source-6.12"
	exit 77
fi
"$top/kernel-port/scripts/build-kharness" --lib "$lib" --include "$inc" --tree "$tree" \
	--out "$out" "$@"
exec "$out/$tree/kh-run" --tap "$top"/tests/scenarios/rmap-*.scn

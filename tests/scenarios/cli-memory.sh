#!/bin/sh
# ctest cli-memory: `foliosim check` reads a file one scenario at a time, so
# its memory follows the largest scenario, not the file (issue 17): a 50 MB
# file of 7,000 small scenarios must pass under an address-space limit of 4x
# the file's size (before the reader, such a file took 1.2 GB).
#   cli-memory.sh FOLIOSIM
set -eu
foliosim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk 'BEGIN {
	for (s = 0; size < 50 * 1024 * 1024; s++) {
		t = "scenario s" s "\nmode rfc\nmm A\nfolio F order=9 anon\nnew-anon F mm=A\n"
		for (k = 0; k < 100; k++)
			t = t "add F mm=A level=pte page=" k " nr=1\nremove F mm=A level=pte page=" k " nr=1\n"
		t = t "expect F mapcount=1\n\n"
		printf "%s", t
		size += length(t)
	}
}' > "$tmp/big.scn"
size_kb=$(( $(wc -c < "$tmp/big.scn") / 1024 ))
scenarios=$(grep -c '^scenario ' "$tmp/big.scn")
limit_kb=$(( 4 * size_kb ))
echo "cli-memory: $size_kb kB, $scenarios scenarios, address space limited to $limit_kb kB"
out=$( (ulimit -v "$limit_kb"; "$foliosim" check --no-progress "$tmp/big.scn") | tail -1)
[ "$out" = "$scenarios passed, 0 failed" ] || {
	echo "cli-memory: FAIL: expected '$scenarios passed, 0 failed', got '$out'"
	exit 1
}
echo "cli-memory: ok ($out)"

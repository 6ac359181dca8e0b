#!/bin/sh
# ctest cli-memory: `foliosim check` reads a file one scenario at a time, so
# its memory follows the largest scenario, not the file, and a parsed
# scenario keeps its statements as tokens (issue 17).  Each must pass under
# an address-space limit of 4x the file's size:
#   - a 50 MB file of 7,000 small scenarios (1.2 GB before the reader);
#   - a 50 MB file of one scenario of 1.4 million statements (1.17 GB when
#     statements were kept parsed; 122 MB peak RSS since);
#   - the first from standard input, and `report` and `diff` of the second,
#     which parse the file whole.
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
awk 'BEGIN {
	t = "scenario one\nmode rfc\nmm A\nfolio F order=9 anon\nnew-anon F mm=A\n"
	printf "%s", t
	size = length(t)
	for (k = 0; size < 50 * 1024 * 1024; k = (k + 1) % 512) {
		l = "add F mm=A level=pte page=" k " nr=1\nremove F mm=A level=pte page=" k " nr=1\n"
		printf "%s", l
		size += length(l)
	}
	printf "expect F mapcount=1\n"
}' > "$tmp/one.scn"

# check_under_limit FILE: passes with every scenario under 4x FILE's size.
check_under_limit() {
	size_kb=$(( $(wc -c < "$1") / 1024 ))
	scenarios=$(grep -c '^scenario ' "$1")
	statements=$(grep -c -v -e '^scenario ' -e '^$' -e '^#' "$1")
	limit_kb=$(( 4 * size_kb ))
	echo "cli-memory: $(basename "$1"): $size_kb kB, $scenarios scenario(s), $statements statements, address space limited to $limit_kb kB"
	out=$( (ulimit -v "$limit_kb"; "$foliosim" check --no-progress "$1") 2>&1 | tail -1)
	[ "$out" = "$scenarios passed, 0 failed" ] || {
		echo "cli-memory: FAIL: expected '$scenarios passed, 0 failed', got '$out'"
		exit 1
	}
	echo "cli-memory: ok ($out)"
}
scenarios_big=$(grep -c '^scenario ' "$tmp/big.scn")

# Comment and blank lines reserve nothing (each line reserved 14 bytes
# up front before: a 20 MB file of comments ran out of memory under 4x).
awk 'BEGIN { printf "scenario comments\nmm A\nfolio F order=0 anon\nnew-anon F mm=A\n"
	for (k = 0; k < 10000000; k++) print "#"
	printf "expect F mapcount=1\n" }' > "$tmp/comments.scn"

check_under_limit "$tmp/big.scn"
check_under_limit "$tmp/one.scn"
check_under_limit "$tmp/comments.scn"

# Standard input and the other commands parse the file whole; a parsed
# script is about 2.5 times its text, so they pass under 4x as well.
limit_kb=$(( 4 * $(wc -c < "$tmp/big.scn") / 1024 ))
out=$( (ulimit -v "$limit_kb"; "$foliosim" check --no-progress - < "$tmp/big.scn") 2>&1 | tail -1)
[ "$out" = "$scenarios_big passed, 0 failed" ] || {
	echo "cli-memory: FAIL: check of standard input: expected '$scenarios_big passed, 0 failed', got '$out'"
	exit 1
}
echo "cli-memory: ok (standard input: $out)"
for cmd in report diff; do
	limit_kb=$(( 4 * $(wc -c < "$tmp/one.scn") / 1024 ))
	if ! (ulimit -v "$limit_kb"; "$foliosim" "$cmd" "$tmp/one.scn") > "$tmp/$cmd.out" 2>&1; then
		tail -3 "$tmp/$cmd.out"
		echo "cli-memory: FAIL: $cmd of one.scn under $limit_kb kB"
		exit 1
	fi
	echo "cli-memory: ok ($cmd of one.scn under $limit_kb kB)"
done

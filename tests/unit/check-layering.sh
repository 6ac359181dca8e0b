#!/bin/sh
# The layering of the library and of the programs built on it, checked on
# their object files (docs/model.md):
#  1. no call cycle among the files of each group (the library's
#     libfoliosim/src, the foliosim command's libfoliosim/cli, the guest
#     runner's kernel-port/guest): file A depends on file B when A uses a
#     symbol (function or table) that B defines; the graph of those edges
#     must sort topologically (tsort finds any loop).  A program's edges
#     into the library are not counted (the library is one layer below);
#  2. no mode test outside the back ends and the context that picks them:
#     no comparison with an FSIM_MODE_ constant in the C files of the
#     library, the CLI, the guest runner, the tests and the examples other
#     than ctx.c and backend_*.c (a caller asks fsim_mode_has() for the
#     kernel fact instead).  Naming a mode (fsim_ctx_create(FSIM_MODE_RFC,
#     ...)) is no test.
#
#   check-layering.sh SRC-DIR NAME OBJECT... [-- NAME OBJECT...]...
set -eu
src=$1
shift
[ $# -gt 1 ] || { echo "check-layering: no object files given" >&2; exit 2; }
command -v nm >/dev/null || { echo "check-layering: nm not found (binutils)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check_group NAME: the objects listed in $tmp/objects
check_group() {
	: > "$tmp/defs"
	: > "$tmp/uses"
	while read -r o; do
		f=$(basename "$o" .o)
		f=${f%.c}
		nm --defined-only -g "$o" | awk -v f="$f" 'NF == 3 { print $3, f }' >> "$tmp/defs"
		nm -u "$o" | awk -v f="$f" '{ print f, $NF }' >> "$tmp/uses"
	done < "$tmp/objects"
	sort -u "$tmp/defs" > "$tmp/defs.s"
	# "user symbol" joined with "symbol definer" -> "user definer"
	sort -k2,2 "$tmp/uses" | join -1 2 -2 1 - "$tmp/defs.s" |
		awk '$2 != $3 { print $2, $3 }' | sort -u > "$tmp/edges"
	files=$(awk '{ print $2 }' "$tmp/defs.s" | sort -u | wc -l)
	edges=$(wc -l < "$tmp/edges")
	if ! tsort "$tmp/edges" > /dev/null 2> "$tmp/loop"; then
		echo "FAIL: the files of $1 call each other in a cycle:"
		cat "$tmp/loop"
		echo "edges (user -> definer):"
		cat "$tmp/edges"
		exit 1
	fi
	echo "ok: $1: $files files, $edges dependencies, no cycle"
}

while [ $# -gt 0 ]; do
	name=$1
	shift
	: > "$tmp/objects"
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		echo "$1" >> "$tmp/objects"
		shift
	done
	[ $# -eq 0 ] || shift
	[ -s "$tmp/objects" ] || { echo "check-layering: no object files for $name" >&2; exit 2; }
	check_group "$name"
done

top=$src/..
tests=$(find "$src/src" "$src/cli" "$top/kernel-port/guest" "$top/tests" "$top/examples" \
	-name '*.[ch]' -print0 2>/dev/null | sort -z |
	xargs -0 grep -nE '(==|!=|<=|>=)[[:space:]]*FSIM_MODE_|FSIM_MODE_[A-Z]+[[:space:]]*(==|!=|<=|>=)|case[[:space:]]+FSIM_MODE_' |
	grep -v -e '/src/backend_[a-z]*\.c:' -e '/src/ctx\.c:' || true)
n=$(printf '%s' "$tests" | grep -c . || true)
if [ "$n" -gt 0 ]; then
	echo "FAIL: $n mode tests outside the back ends and ctx.c (ask fsim_mode_has()):"
	echo "$tests"
	exit 1
fi
echo "ok: no mode test outside the back ends and ctx.c"

#!/bin/sh
# What cmake --install adds besides the libraries (issue 17, item 4): the
# man page, which man renders, and the bash completion, which completes
# commands, options and mode names; LICENSE is in the source tree.
#   install-extras.sh BUILD-DIR SOURCE-DIR
set -eu
build=$1 src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "install-extras: $*" >&2; exit 1; }
cmake --install "$build" --prefix "$tmp/prefix" > /dev/null
page=$(find "$tmp/prefix" -path '*/man1/foliosim.1')
[ -n "$page" ] || fail "no man1/foliosim.1 installed"
grep -q '^\.TH FOLIOSIM "1"' "$page" || fail "foliosim.1 is not a man page"
if command -v man > /dev/null; then
	MANWIDTH=80 man -l "$page" 2> /dev/null | grep -q -- "--max-repeat" ||
		fail "man -l foliosim.1 does not render the options"
fi
comp=$tmp/prefix/share/bash-completion/completions/foliosim
[ -f "$comp" ] || fail "no bash completion installed"
command -v bash > /dev/null || { echo "install-extras: no bash, completion not exercised"; exit 0; }
out=$(bash -c '
	. "$1"
	complete_of() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _foliosim; echo "${COMPREPLY[*]}"; }
	echo "1:$(complete_of foliosim ch)"
	echo "2:$(complete_of foliosim check --mo)"
	echo "3:$(complete_of foliosim diff --from b)"
	echo "4:$(complete_of foliosim report --)"
' sh "$comp")
echo "$out" | grep -qx "1:check" || fail "command completion: $out"
echo "$out" | grep -qx "2:--mode" || fail "option completion: $out"
echo "$out" | grep -qx "3:base" || fail "mode completion: $out"
echo "$out" | grep -q "^4:.*--format" || fail "report's options: $out"
echo "$out" | grep "^4:" | grep -q -- "--mode" && fail "report offers --mode, which it refuses"
[ -f "$src/LICENSE" ] && grep -q "MIT License" "$src/LICENSE" || fail "no MIT LICENSE file"
echo "install-extras: man page, bash completion and LICENSE ok"

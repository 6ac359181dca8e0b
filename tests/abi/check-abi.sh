#!/bin/sh
# ctest abi-check: the shared library's ABI against the stored baseline
# (tests/abi/libfoliosim.abi, made by update-abi.sh).  Any change -- a
# function added, removed or changed, a public struct changed -- fails
# until the baseline is taken again with a version bump; a version bump
# without a new baseline fails too.
#   check-abi.sh BUILD-DIR
set -eu
build=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
command -v abidiff > /dev/null || { echo "SKIP: abidiff not installed (apt-get install abigail-tools)"; exit 77; }
version=$(sed -n 's/^project(foliosim VERSION \([0-9.]*\).*/\1/p' "$top/CMakeLists.txt")
[ "$(cat "$here/VERSION")" = "$version" ] || {
	echo "abi-check: the baseline is of version $(cat "$here/VERSION"), the project is $version:"
	echo "  run tests/abi/update-abi.sh after checking the change is intended"
	exit 1
}
set +e
abidiff --headers-dir2 "$top/libfoliosim/include/foliosim" "$here/libfoliosim.abi" \
	"$build/libfoliosim/libfoliosim.so.$version" > "$build/abidiff.txt" 2>&1
rc=$?
set -e
if [ "$rc" != 0 ]; then
	cat "$build/abidiff.txt"
	echo "abi-check: the ABI differs from the $version baseline (abidiff exit $rc):"
	echo "  bump the version in CMakeLists.txt and foliosim.h, then run tests/abi/update-abi.sh"
	exit 1
fi
echo "abi-check: libfoliosim.so.$version has the ABI of its baseline"

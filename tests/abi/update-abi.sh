#!/bin/sh
# Stores the ABI of libfoliosim.so (abidw, public headers only) as the
# baseline test abi-check compares against, with the project version it
# belongs to.  Run it deliberately, after a version bump:
#   tests/abi/update-abi.sh BUILD-DIR
set -eu
build=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
command -v abidw > /dev/null || { echo "update-abi: abidw not found (apt-get install abigail-tools)" >&2; exit 2; }
version=$(sed -n 's/^project(foliosim VERSION \([0-9.]*\).*/\1/p' "$top/CMakeLists.txt")
lib=$build/libfoliosim/libfoliosim.so.$version
[ -f "$lib" ] || { echo "update-abi: $lib not built" >&2; exit 2; }
abidw --no-corpus-path --headers-dir "$top/libfoliosim/include/foliosim" \
	--out-file "$here/libfoliosim.abi" "$lib"
echo "$version" > "$here/VERSION"
echo "update-abi: baseline of $lib written (version $version)"

#!/bin/sh
# Installs the build into a scratch prefix, then builds and runs an outside
# project twice: with find_package(foliosim CONFIG) and with pkg-config.
set -eu
build=$1; src=$2
libdir=$(grep -m1 "^CMAKE_INSTALL_LIBDIR:" "$build/CMakeCache.txt" | cut -d= -f2)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$src/examples/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
"$tmp/consumer/consumer" | grep -q "rfc    mapcount 3, total mapped pages 1025"
LD_LIBRARY_PATH="$tmp/prefix/$libdir" "$tmp/consumer/consumer_shared" | grep -q "total mapped pages 1025"
PKG_CONFIG_PATH="$tmp/prefix/$libdir/pkgconfig" cc -std=c11 $(PKG_CONFIG_PATH="$tmp/prefix/$libdir/pkgconfig" pkg-config --cflags foliosim) \
  "$src/examples/thirteen.c" -o "$tmp/pc" $(PKG_CONFIG_PATH="$tmp/prefix/$libdir/pkgconfig" pkg-config --libs foliosim)
LD_LIBRARY_PATH="$tmp/prefix/$libdir" "$tmp/pc" | grep -q "total mapped pages 1025"
echo "install-consumer: find_package (static, shared) and pkg-config builds ran"

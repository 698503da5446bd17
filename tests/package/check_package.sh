#!/bin/sh
# Install the build tree into a scratch prefix, then build and run a consumer through
# find_package(minifloat) and through pkg-config.
# usage: check_package.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
set -eu
build=$1 src=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
test -x "$scratch/prefix/bin/minifloat"
cmake -S "$src/tests/package/consumer" -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
LD_LIBRARY_PATH="$scratch/prefix/lib:${LD_LIBRARY_PATH:-}" "$scratch/consumer/use_shared"
"$scratch/consumer/use_static"
"$scratch/consumer/use_headers"
pc="$(find "$scratch/prefix" -name minifloat.pc | head -n 1)"
export PKG_CONFIG_PATH="$(dirname "$pc")"
# shellcheck disable=SC2046
cc -std=c99 -o "$scratch/pc_consumer" "$src/tests/package/consumer/main.c" $(pkg-config --cflags --libs minifloat)
LD_LIBRARY_PATH="$(pkg-config --variable=libdir minifloat)" "$scratch/pc_consumer"
echo "package: find_package (shared, static, headers) and pkg-config consumers ran"

#!/bin/sh
# SPDX-License-Identifier: MIT
# Install the build tree into a scratch prefix, then build and run a consumer through
# find_package(minifloat) and through pkg-config; with the overflow lab (LAB=1), its consumer too
# (minifloat::lab, minifloat::lab_static, minifloat_lab.pc). The static pkg-config links take the
# archives, so each .pc's Libs.private must be complete: the core's needs no SLEEF, the lab's does
# where it was built with it.
# With MPI=1 (the build had MPI), the MPI component too: a consumer through find_package(minifloat
# COMPONENTS mpi) and one through pkg-config minifloat_mpi, each run under MPIEXEC with 2 ranks.
# usage: check_package.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR [LAB [MPI MPIEXEC]]
set -eu
build=$1 src=$2 scratch=$3 lab=${4:-0} mpi=${5:-0} mpiexec=${6:-mpiexec}
rm -rf "$scratch"
mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
test -x "$scratch/prefix/bin/minifloat"
expect_lab=OFF
if [ "$lab" = 1 ]; then expect_lab=ON; fi
cmake -S "$src/tests/package/consumer" -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$scratch/prefix" \
    -DMF_EXPECT_LAB=$expect_lab >/dev/null
cmake --build "$scratch/consumer" >/dev/null
LD_LIBRARY_PATH="$scratch/prefix/lib:${LD_LIBRARY_PATH:-}" "$scratch/consumer/use_shared"
"$scratch/consumer/use_static"
"$scratch/consumer/use_headers"
pc="$(find "$scratch/prefix" -name minifloat.pc | head -n 1)"
export PKG_CONFIG_PATH="$(dirname "$pc")"
libdir="$(pkg-config --variable=libdir minifloat)"
c="$src/tests/package/consumer"
# shellcheck disable=SC2046
cc -std=c99 -o "$scratch/pc_consumer" "$c/main.c" $(pkg-config --cflags --libs minifloat)
LD_LIBRARY_PATH="$libdir" "$scratch/pc_consumer"
# static: the archive in place of -lminifloat, then Libs.private
# shellcheck disable=SC2046
cc -std=c99 -o "$scratch/pc_consumer_static" "$c/main.c" $(pkg-config --cflags minifloat) \
    $(pkg-config --static --libs minifloat | sed "s|-lminifloat\\b|$libdir/libminifloat.a|")
"$scratch/pc_consumer_static"
if [ "$mpi" = 1 ]; then
    # Open MPI refuses root without these (CI runs as root), and a 2-core machine may count one slot
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    over=""
    if "$mpiexec" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then over=--oversubscribe; fi
    cmake -S "$src/tests/package/consumer_mpi" -B "$scratch/consumer_mpi" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
    cmake --build "$scratch/consumer_mpi" >/dev/null
    "$mpiexec" -n 2 $over "$scratch/consumer_mpi/use_mpi"
    # shellcheck disable=SC2046
    cc -std=c99 -o "$scratch/pc_mpi" "$src/tests/package/consumer_mpi/mpi.c" $(pkg-config --cflags --libs minifloat_mpi)
    LD_LIBRARY_PATH="$libdir:${LD_LIBRARY_PATH:-}" "$mpiexec" -n 2 $over "$scratch/pc_mpi"
    echo "package: minifloat::mpi (find_package COMPONENTS mpi) and minifloat_mpi.pc consumers ran under $mpiexec -n 2"
else
    test ! -e "$scratch/prefix/include/minifloat/mpi.h"
    test -z "$(find "$scratch/prefix" -name 'minifloat_mpi.pc' -o -name 'libminifloat_mpi*')"
fi
if [ "$lab" = 1 ]; then
    LD_LIBRARY_PATH="$scratch/prefix/lib:${LD_LIBRARY_PATH:-}" "$scratch/consumer/use_lab"
    "$scratch/consumer/use_lab_static"
    # shellcheck disable=SC2046
    cc -std=c99 -o "$scratch/pc_lab" "$c/lab.c" $(pkg-config --cflags --libs minifloat_lab)
    LD_LIBRARY_PATH="$libdir" "$scratch/pc_lab"
    # shellcheck disable=SC2046
    cc -std=c99 -o "$scratch/pc_lab_static" "$c/lab.c" $(pkg-config --cflags minifloat_lab) \
        $(pkg-config --static --libs minifloat_lab |
          sed -e "s|-lminifloat_lab\\b|$libdir/libminifloat_lab.a|" -e "s|-lminifloat\\b|$libdir/libminifloat.a|")
    "$scratch/pc_lab_static"
    echo "package: find_package (shared, static, headers, lab, lab_static) and pkg-config (minifloat," \
         "minifloat_lab; shared and static) consumers ran"
else
    test ! -e "$scratch/prefix/include/minifloat/lab.h"
    test ! -e "$scratch/prefix/include/minifloat/memory.h"
    test -z "$(find "$scratch/prefix" -name 'minifloat_lab.pc' -o -name 'libminifloat_lab*')"
    echo "package: find_package (shared, static, headers) and pkg-config (shared and static) consumers ran;" \
         "no lab installed"
fi

#!/bin/sh
# SPDX-License-Identifier: MIT
# minifloat on aarch64, from an x86-64 Debian machine: build with Debian's cross compilers and run the
# unit tier under qemu-user, so that the NEON backend (src/arm/) is checked against the portable backend, and
# every oracle test runs, on an emulated AArch64 CPU.
#
#   scripts/cross-aarch64.sh [build-dir]      (default build-aarch64)
#
# Needs gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu, qemu-user and libc6-dev-arm64-cross, and the arm64
# builds of check, libsubunit-dev and libmpfr-dev (a multiarch install; .ci/run shows how). Without
# them it says what is missing and exits 77 (skipped); scripts/setup.sh test runs it when they are there.
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build-aarch64}
jobs=$(nproc 2>/dev/null || echo 2)

missing=""
for tool in aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ qemu-aarch64; do
    command -v "$tool" >/dev/null || missing="$missing $tool"
done
for pc in check mpfr; do
    PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig pkg-config --exists "$pc" 2>/dev/null ||
        missing="$missing $pc(arm64)"
done
if [ -n "$missing" ]; then
    echo "cross-aarch64: SKIP, missing:$missing"
    exit 77
fi

gen=""
if [ ! -f "$dir/CMakeCache.txt" ] && command -v ninja >/dev/null; then gen="-G Ninja"; fi
# shellcheck disable=SC2086
cmake $gen -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DCMAKE_BUILD_TYPE=Release \
    -DMF_WERROR=ON -DMF_CUDA=OFF -DMF_BUILD_TOOLS=OFF >/dev/null
cmake --build "$dir" -j "$jobs"
# The unit tier less the scaling and lab tests (portable C over the scalar core, which the oracle tests
# below check on aarch64; natively they run in every tier): the NEON backend against the portable one
# (test_backends, which fails unless the dispatcher offers NEON), and every oracle test; test_backends,
# test_boundary and test_f64 on a quarter of their cases, another each day (MF_TEST_SAMPLE, whole
# with MF_TEST_SAMPLE=1 in the environment). test_gemm runs once, on the neon backend's GEMM kernel
# (test_gemm_neon would run it again; the portable kernel's run is the native tiers').
MF_TEST_SAMPLE=${MF_TEST_SAMPLE:-4} ctest --test-dir "$dir" -j "$jobs" -L unit \
    -E '^test_(analyze|elementwise|loss_scale|fp8_recipes|mx|nvfp4|gemm_portable|gemm_neon)$' --output-on-failure

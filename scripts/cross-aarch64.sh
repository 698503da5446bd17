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
# The unit tier less the scaling and lab tests (portable C over the scalar core, which the oracle tests
# below check on aarch64; natively they run in every tier): the NEON backend against the portable one
# (test_backends, which fails unless the dispatcher offers NEON), and every oracle test; test_backends,
# test_boundary, test_f64, test_profile, test_gemm* and test_p3109_arith on an eighth of their cases, another each
# day (MF_TEST_SAMPLE, whole with MF_TEST_SAMPLE=1 in the environment). test_gemm and test_gemm_dp run once, on the neon backend's GEMM
# kernels (their _neon runs would repeat them; the portable kernels' runs are the native tiers'); test_gemm_exact's
# two parts once each: its plain run (every kernel) and its _neon run (mf_gemm on the neon backend).
sel_l=unit
sel_e='^test_(analyze|elementwise|loss_scale|reduce_hook|fp8_recipes|mx|nvfp4|gemm(_dp)?_(portable|neon)|gemm_exact_portable)$'
# Only the executables of those tests are built (each is its test's target, as tests/CMakeLists.txt's
# mf_add_test names them; test_gemm_exact_neon runs test_gemm_exact): the library's, benchmarks',
# examples' and the other tests' objects were a third of the cross build's CPU time. Should a selected
# test ever run a target of another name, the targeted build fails and everything is built.
targets=$(ctest --test-dir "$dir" -N -L "$sel_l" -E "$sel_e" | sed -n 's/^ *Test *#[0-9]*: *//p' |
    sed 's/^test_gemm_exact_neon$/test_gemm_exact/' | sort -u)
# shellcheck disable=SC2086
cmake --build "$dir" -j "$jobs" --target $targets || {
    echo "cross-aarch64: the targeted build failed, building everything"
    cmake --build "$dir" -j "$jobs"
}
# ctest -j starts the tests longest first when it has their times from an earlier run in this folder
# (Testing/Temporary/CTestCostData.txt), else in the order they are defined: in a fresh folder (CI)
# test_backends, defined late, started last and ran alone for its final ~55 s. A fresh folder gets the
# times measured here under qemu 7.2 (seconds, MF_TEST_SAMPLE=4 or 8; only their order matters, and ctest
# replaces them with its own after the run; a test missing here starts after these).
cost=$dir/Testing/Temporary/CTestCostData.txt
if [ ! -f "$cost" ]; then
    mkdir -p "$(dirname "$cost")"
    printf '%s 1 %s\n' test_f64 66 test_backends 65 test_boundary 57 test_p3109_arith 35 test_gemm_tc 27 \
        test_nvidia 24 test_gemm 21 test_gemm_exact_neon 19 test_profile 16 test_gemm_exact 14 test_two_step 13 \
        test_p3109_family 10 test_api 8 test_propagate 7 test_arith 5 test_threads 4 >"$cost"
    echo --- >>"$cost"
fi
MF_TEST_SAMPLE=${MF_TEST_SAMPLE:-8} ctest --test-dir "$dir" -j "$jobs" -L "$sel_l" -E "$sel_e" --output-on-failure

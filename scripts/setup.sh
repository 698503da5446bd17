#!/bin/sh
# SPDX-License-Identifier: MIT
# minifloat set-up: install what is missing (Debian packages), build, then
#   scripts/setup.sh demo      run the demo: one value in every format, the C example, the overflow lab
#                              on a shipped tensor (table, histogram, build/activations.svg) and the
#                              training demo (build/train.svg)
#   scripts/setup.sh test      every test tier, as CI runs it: the Release build's tiers (unit,
#                              exhaustive, hygiene, cuda (skips without a GPU), fuzz replay, cli,
#                              package), the sanitizer and fuzzer steps below, and the unit tier
#                              cross-built for aarch64 under qemu-user when the cross tools are there
#   scripts/setup.sh test-all  the same, with every exhaustive sweep over all 2^32 inputs in every mode
#                              (CI sweeps the portable core in rn and the best backend fully, the portable
#                              core's other modes and the other backends by a rotating sixteenth:
#                              tests/exhaustive.cmake)
#   scripts/setup.sh asan      the unit, fuzz and cli tiers under AddressSanitizer + UBSan (build-asan)
#   scripts/setup.sh tsan      a process's first conversions from several threads, and mf_gemm's threads, under ThreadSanitizer
#   scripts/setup.sh python    the Python package: pip install ./python into build-venv, then its pytest tests
#   scripts/setup.sh fuzz      each libFuzzer target for MF_FUZZ_SECONDS (default 10), with clang
# Each step prints how long it took. The sanitizer and fuzzer builds compile only the SIMD backends this
# CPU runs (MF_SIMD_BACKENDS=native: their tests can run no other), at -O1.
set -eu
cd "$(dirname "$0")/.."
mode=${1:-demo}
jobs=$(nproc 2>/dev/null || echo 2)

# ---- dependencies --------------------------------------------------------------------------------
# libopenmpi-dev, openmpi-bin: the MPI adapter and its tests (mpiexec); without them they are not built
need="cmake make ninja-build gcc g++ pkg-config check libsubunit-dev libmpfr-dev libsleef-dev libfp16-dev librsvg2-bin libopenmpi-dev openmpi-bin"
missing=""
arch=$(dpkg --print-architecture 2>/dev/null || echo "")
for p in $need; do
    # the native package first: with a second architecture installed (.ci/run adds arm64), an
    # unqualified name that both have is ambiguous to dpkg; arch-independent ones answer unqualified
    dpkg -s "$p:$arch" >/dev/null 2>&1 || dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "installing:$missing"
    if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo=sudo; else
        echo "missing Debian packages:$missing (run as root or install them)" >&2
        exit 1
    fi
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi

# ---- steps ---------------------------------------------------------------------------------------
t_start=$(date +%s)
t_step=$t_start
step_done() { # name: print the step's time and the total so far
    now=$(date +%s)
    echo "setup.sh: $1 took $((now - t_step)) s ($((now - t_start)) s in all)"
    t_step=$now
}
# Check runs each test in a forked child unless told not to; no test here needs that isolation (none expects a
# crash or an exit), and a fork is costly under ThreadSanitizer and qemu, and undoes the
# caches a process builds (oracle tables, backend self-tests) for every test
export CK_FORK="${CK_FORK:-no}"
san_flags="-O1 -g1" # line tables (what the reports print) without the variables: a third less compile time
# The rows the SIMD kernels of the sanitizer and fuzzer builds convert themselves (MF_SIMD_FORMATS, src/sources.cmake):
# the first eight and one row of each later kind; the other rows of a kind are the same kernel code with other
# constants, and each costs seconds of compile time a backend there. The Release build keeps every row.
san_rows="f16;bf16;e4m3;e5m2;e2m3;e3m2;e2m1;e8m0;e4m3fnuz;binary8p3se;binary8p4sf"

# configure DIR [cmake options]: Ninja where it is installed (it keeps both cores busier than make), unless
# DIR was configured before with another generator
configure() {
    dir=$1
    shift
    gen=""
    if [ ! -f "$dir/CMakeCache.txt" ] && command -v ninja >/dev/null; then gen="-G Ninja"; fi
    # shellcheck disable=SC2086
    cmake $gen -S . -B "$dir" "$@" >/dev/null
}

build_release() {
    configure build -DCMAKE_BUILD_TYPE=Release -DMF_WERROR=ON
    cmake --build build -j "$jobs"
    step_done "the Release build"
}
# The unit, fuzz, cli and abuse tiers under AddressSanitizer and UndefinedBehaviorSanitizer, but for
# test_train_demo (minutes of training arithmetic there; the demo's memory is checked by cli_train_demo);
# test_profile once (the best backend's build of its fix-up loops: one source, the other builds differ in flags
# only; ~25 s each under ASan); the tests that take MF_TEST_SAMPLE (tests/mf_test.h: test_backends, test_boundary,
# test_f64, test_profile, test_gemm*, test_p3109_arith) on an eighth of their cases, another eighth each day
# (MF_TEST_SAMPLE=1 in the environment: all of them; the Release tiers run all of them). No MPI adapter here:
# its tests run through mpiexec in the Release build (Open MPI's own allocations would be reported here).
run_asan() {
    configure build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="$san_flags" \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$san_flags" -DMF_SANITIZE=address,undefined -DMF_CUDA=OFF \
        -DMF_SIMD_BACKENDS=native -DMF_SIMD_FORMATS="$san_rows" -DMF_MPI=OFF
    cmake --build build-asan -j "$jobs"
    MF_TEST_SAMPLE=${MF_TEST_SAMPLE:-8} ctest --test-dir build-asan -j "$jobs" -L 'unit|fuzz|cli|abuse' \
        -E '^(test_train_demo|test_profile_(portable|avx2|avx512|avx512bf16))$' --output-on-failure
    step_done "ASan+UBSan (unit, fuzz, cli, abuse)"
}
# ThreadSanitizer over a process's first conversions made by several threads at once, and mf_gemm's threads.
run_tsan() {
    configure build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="$san_flags" \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$san_flags" -DMF_SANITIZE=thread -DMF_CUDA=OFF -DMF_BUILD_TOOLS=OFF \
        -DMF_SIMD_BACKENDS=native -DMF_SIMD_FORMATS="$san_rows"
    cmake --build build-tsan -j "$jobs" --target test_threads test_gemm test_gemm_dp test_gemm_exact test_gemm_tc
    # the thread team (src/team.c) under mf_gemm: the FP32 work queue (fma and pair kernels), the exact integer
    # kernels, the tensor-core models' threads; test_gemm and test_gemm_exact on a quarter of their cases,
    # test_gemm_exact's mf_gemm part only (its kernel part calls the kernels on one thread, or the driver with
    # a test kernel: the team code mf_gemm runs here). Each keeps about one core busy under ThreadSanitizer (its
    # CPU time is its wall time), so test_gemm_exact, the longest, runs beside the others.
    MF_GEMM_PART=gemm MF_TEST_SAMPLE=${MF_TEST_SAMPLE:-4} ./build-tsan/tests/test_gemm_exact \
        >build-tsan/exact.log 2>&1 &
    exact_pid=$!
    ./build-tsan/tests/test_threads
    MF_TEST_SAMPLE=${MF_TEST_SAMPLE:-4} ./build-tsan/tests/test_gemm
    ./build-tsan/tests/test_gemm_dp
    ./build-tsan/tests/test_gemm_tc
    rc=0
    wait "$exact_pid" || rc=$?
    cat build-tsan/exact.log
    [ "$rc" -eq 0 ] || exit "$rc"
    step_done "ThreadSanitizer (test_threads, test_gemm, test_gemm_dp, test_gemm_exact, test_gemm_tc)"
}
# libFuzzer, briefly, where clang is available (the corpora are replayed by ctest either way); only the
# libFuzzer targets and their instrumented library are built. 10 s a target (six targets, two at a
# time: 30 s of fuzzing after a ~30 s build; fuzz_gemm since 2026-12-06): the step took 91 s with 20 s, 60 of them fuzzing, and in
# 20 s four of the five targets added no coverage edge to their corpus (fuzz_roundtrip, fuzz_monotonic
# and fuzz_differential run ~100 inputs a second). Each run starts from the committed corpus and keeps
# nothing, so a target that still finds edges (fuzz_bulk, when its corpus lags its harness) needs its
# corpus merged, not a longer CI run; long runs (MF_FUZZ_SECONDS=300) are for growing a corpus.
run_fuzz() {
    if command -v clang >/dev/null; then
        CC=clang CXX=clang++ configure build-fuzz -DMF_BUILD_FUZZERS=ON -DMF_BUILD_TESTS=OFF \
            -DMF_BUILD_TOOLS=OFF -DMF_CUDA=OFF -DMF_SIMD_BACKENDS=native -DMF_SIMD_FORMATS="$san_rows"
        cmake --build build-fuzz -j "$jobs" --target fuzzers
        sh fuzz/run_fuzzers.sh build-fuzz "${MF_FUZZ_SECONDS:-10}" "$jobs"
    else
        echo "clang not found: libFuzzer targets not run (their corpora are replayed by ctest)"
    fi
    step_done "libFuzzer"
}
# The Python package as a user installs it (pip install ./python, into a virtual environment in build-venv
# with numpy, ml_dtypes and pytest from PyPI), then its tests: the API, an ABI check of every struct, and the
# profiles against ml_dtypes and ONNX's reference casts on the quick input tier (PyTorch's tests skip unless
# torch is installed; MINIFLOAT_CONFORMANCE=all: every binary32 input, python/README.md). The package is built with
# the sanitizer builds' SIMD rows (san_rows; the others convert through the portable loop there, with the same bits):
# its tests are the Python layer's, and every row's SIMD kernels are the Release build's tests (half the build).
run_python() {
    python3 -m venv build-venv
    build-venv/bin/python -m pip install -q --disable-pip-version-check \
        --config-settings=cmake.define.MF_SIMD_FORMATS="$san_rows" "./python[test]" onnx
    build-venv/bin/python -m pytest -q -p no:cacheprovider python/tests
    step_done "the Python package (pip install ./python, pytest)"
}
# The unit tier on aarch64 (the NEON backend), cross-built and run under qemu-user, where the cross
# compilers and the arm64 libraries are installed (.ci/run installs them; else it says SKIP).
run_cross() {
    rc=0
    sh scripts/cross-aarch64.sh build-aarch64 || rc=$?
    [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || exit "$rc"
    step_done "the aarch64 tier under qemu"
}

case "$mode" in
demo)
    build_release
    ./build/tools/minifloat show 3.14159
    echo
    ./build/examples/example_quickstart
    echo
    # The overflow lab on a shipped tensor: FFN activations with outliers past FP16's range.
    ./build/tools/minifloat analyze examples/data/activations.npy --plot build/activations.svg
    echo
    # One small MLP trained in FP32, BF16, FP16 without and with loss scaling, FP8 and MXFP8.
    ./build/tools/minifloat train-demo --plot build/train.svg
    ;;
test | test-all)
    build_release
    run_asan
    run_tsan
    run_fuzz
    run_cross
    run_python
    # Every tier of the Release build, last, so that its summary closes the log.
    echo "setup.sh: the Release build's tiers start at $(($(date +%s) - t_start)) s"
    if [ "$mode" = test-all ]; then
        MF_EXHAUSTIVE_SHARD=all ctest --test-dir build -j "$jobs" --output-on-failure
    else
        ctest --test-dir build -j "$jobs" --output-on-failure
    fi
    ;;
asan) run_asan ;;
tsan) run_tsan ;;
python) run_python ;;
fuzz) run_fuzz ;;
*)
    echo "usage: scripts/setup.sh [demo|test|test-all|asan|tsan|python|fuzz]" >&2
    exit 2
    ;;
esac

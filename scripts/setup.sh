#!/bin/sh
# minifloat set-up: install what is missing (Debian packages), build, then
#   scripts/setup.sh demo   run the demo: one value in every format, the C example, the overflow lab on
#                           a shipped tensor (table, histogram, build/activations.svg) and the training
#                           demo (build/train.svg)
#   scripts/setup.sh test   run every test tier: unit, exhaustive, hygiene, cuda (skips without a GPU),
#                           fuzz replay, cli, package; the unit tier again under ASan+UBSan; the
#                           first-use threads test under ThreadSanitizer; each libFuzzer target
#                           briefly when clang is present; and the unit tier cross-built for aarch64
#                           under qemu-user when the cross tools are installed (scripts/cross-aarch64.sh).
set -eu
cd "$(dirname "$0")/.."
mode=${1:-demo}
jobs=$(nproc 2>/dev/null || echo 2)

# ---- dependencies --------------------------------------------------------------------------------
need="cmake make gcc g++ pkg-config check libsubunit-dev libmpfr-dev libsleef-dev libfp16-dev librsvg2-bin"
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

# ---- build ---------------------------------------------------------------------------------------
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMF_WERROR=ON >/dev/null
cmake --build build -j "$jobs"

case "$mode" in
demo)
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
test)
    # Sanitizers over the fast tiers.
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMF_SANITIZE=address,undefined \
        -DMF_CUDA=OFF >/dev/null
    cmake --build build-asan -j "$jobs"
    ctest --test-dir build-asan -j "$jobs" -L 'unit|fuzz|cli' --output-on-failure
    # ThreadSanitizer over a process's first conversions made by several threads at once.
    cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMF_SANITIZE=thread -DMF_CUDA=OFF \
        -DMF_BUILD_TOOLS=OFF >/dev/null
    cmake --build build-tsan -j "$jobs" --target test_threads
    ./build-tsan/tests/test_threads
    # libFuzzer, briefly, where clang is available.
    if command -v clang >/dev/null; then
        CC=clang CXX=clang++ cmake -S . -B build-fuzz -DMF_BUILD_FUZZERS=ON -DMF_BUILD_TESTS=OFF \
            -DMF_BUILD_TOOLS=OFF -DMF_CUDA=OFF >/dev/null
        cmake --build build-fuzz -j "$jobs"
        sh fuzz/run_fuzzers.sh build-fuzz "${MF_FUZZ_SECONDS:-20}"
    else
        echo "clang not found: libFuzzer targets not run (their corpora are replayed by ctest)"
    fi
    # The unit tier on aarch64 (the NEON room), cross-built and run under qemu-user, where the cross
    # compilers and the arm64 libraries are installed (.ci/run installs them; else it says SKIP).
    rc=0
    sh scripts/cross-aarch64.sh build-aarch64 || rc=$?
    [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || exit "$rc"
    # Every tier, last, so that its summary closes the log.
    ctest --test-dir build -j "$jobs" --output-on-failure
    ;;
*)
    echo "usage: scripts/setup.sh [demo|test]" >&2
    exit 2
    ;;
esac

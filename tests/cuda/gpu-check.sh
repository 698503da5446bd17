#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cuda/gpu-check.sh - the whole device check on one GPU, from a fresh copy of the tree, in one go.
#
#   sh tests/cuda/gpu-check.sh            (writes the table also to $OUT/gpu-check.md if OUT is set)
#
# Builds only what it runs (the core and CUDA libraries, the benchmark, the three GPU test programs; no
# Check, MPFR or tools needed), for the GPU it finds (nvidia-smi's compute capability; 90-real on an
# H100/H200), then runs, each under a timeout:
#   device      test_cuda_device: every code decoded, f16/bf16 sources, the binary64 boundary set
#   kernels     test_cuda_kernels: each mf_cuda_* function against its host function, the GEMM against
#               mf_gemm's model of this GPU
#   sweep       test_cuda_device_sweep --modes rn,rz: every binary32 input, every format, both policies,
#               named functions and mf_from_f32 (and the binary32 boundary set)
#   bench       bench/cuda_bench: bulk GB/s against cudaMemcpy, GEMM TFLOP/s against cuBLAS
#   sweep-more  the same sweep in rna, ru, rd, ro and sr, with the time that is left (its row says how
#               far it got if the time runs out; that alone is not a failure)
# and prints one table. Exit status 1 if any step failed or found a mismatch, 0 otherwise. The whole run
# is meant to end within MF_GPU_BUDGET seconds (default 450) on an H200 with 16 cores.
#
# Environment: MF_GPU_BUILD (build folder, default build-gpu), MF_GPU_ARCH (e.g. 90-real), MF_GPU_BUDGET,
# JOBS (default: the cores), OUT (where gpu-check.md, gpu-check.log and bench.csv are also written).
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${MF_GPU_BUILD:-$ROOT/build-gpu}
BUDGET=${MF_GPU_BUDGET:-450}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}
LOGDIR=$BUILD/gpu-check
START=$(date +%s)
mkdir -p "$LOGDIR"
: >"$LOGDIR/rows"
: >"$LOGDIR/gpu-check.log"
FAILED=0

say() { printf '%s\n' "$*" | tee -a "$LOGDIR/gpu-check.log"; }
elapsed() { echo $(($(date +%s) - START)); }
left() { echo $((BUDGET - $(elapsed))); }

# row NAME STATUS CHECKED MISMATCHES GBS VS_MEMCPY TFLOPS VS_CUBLAS SECONDS
row() { printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$@" >>"$LOGDIR/rows"; }

# run NAME TIMEOUT CMD...: the command's output to the log and to stdout; sets RC and SECS
run() {
    name=$1 limit=$2
    shift 2
    if [ "$limit" -lt 10 ]; then
        say "== $name: no time left (budget ${BUDGET}s)"
        RC=124 SECS=0
        return 0
    fi
    say "== $name (timeout ${limit}s): $*"
    t0=$(date +%s)
    set +e
    timeout -k 10 "$limit" "$@" >"$LOGDIR/$name.out" 2>&1
    RC=$?
    set -e
    SECS=$(($(date +%s) - t0))
    tee -a "$LOGDIR/gpu-check.log" <"$LOGDIR/$name.out"
    say "== $name: exit $RC after ${SECS}s"
}

# ---- the GPU and what to build for it ---------------------------------------------------------------------
GPU=$(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>/dev/null | head -n 1 || true)
say "gpu-check: $(date -u '+%Y-%m-%d %H:%M UTC'); GPU: ${GPU:-none found by nvidia-smi}; $JOBS jobs"
if [ -z "${MF_GPU_ARCH:-}" ]; then
    cap=$(printf '%s' "$GPU" | awk -F', *' '{print $2}' | tr -d '.')
    case "$cap" in
    '') MF_GPU_ARCH=90-real ;;
    1[0-9][0-9]) MF_GPU_ARCH=${cap}f-real ;; # the sm_100 family's instructions need the family target
    *) MF_GPU_ARCH=${cap}-real ;;
    esac
fi
ARCHNUM=${MF_GPU_ARCH%-real}
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$ROOT" status --porcelain 2>/dev/null | head -n 1)" ]; then
    COMMIT="$COMMIT+changes"
fi
say "tree: $COMMIT; architecture $MF_GPU_ARCH"

# ---- build: the libraries and the benchmark with CMake, the test programs with nvcc -----------------------
# tests/CMakeLists.txt needs Check and MPFR, which a GPU machine may lack, so the GPU programs (which need
# neither) are compiled here directly, with the flags tests/cuda.cmake gives them.
build() {
    gen=
    command -v ninja >/dev/null 2>&1 && gen="-G Ninja"
    # shellcheck disable=SC2086 # gen is one or two words
    timeout 120 cmake $gen -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DMF_CUDA=ON -DMF_BUILD_TESTS=OFF \
        -DMF_BUILD_TOOLS=OFF -DMF_BUILD_LAB=OFF "-DCMAKE_CUDA_ARCHITECTURES=$MF_GPU_ARCH" || return 1
    timeout $(($(left) - 240)) cmake --build "$BUILD" -j "$JOBS" --target minifloat_static minifloat_cuda_static \
        bench_cuda || return 1
    # the nvcc CMake found
    nvcc=$(sed -n 's/^set(CMAKE_CUDA_COMPILER "\(.*\)")$/\1/p' "$BUILD"/CMakeFiles/*/CMakeCUDACompiler.cmake |
        head -n 1)
    [ -n "$nvcc" ] || nvcc=nvcc
    flags="-std=c++17 -O3 -gencode arch=compute_$ARCHNUM,code=sm_$ARCHNUM -I$ROOT/include -DMF_STATIC_DEFINE
           -Werror=all-warnings -Xcompiler=-Wall,-Wextra"
    libs="$BUILD/libminifloat_cuda.a $BUILD/libminifloat.a -lpthread -lm"
    pids=
    for t in test_device:test_cuda_device test_device_sweep:test_cuda_device_sweep \
        test_cuda_kernels:test_cuda_kernels; do
        # shellcheck disable=SC2086 # flags and libs are word lists
        timeout $(($(left) - 220)) "$nvcc" $flags "$ROOT/tests/cuda/${t%%:*}.cu" $libs -o "$BUILD/${t#*:}" &
        pids="$pids $!"
    done
    ok=0
    for p in $pids; do wait "$p" || ok=1; done
    return $ok
}
say "== build: configure, libraries and benchmark ($JOBS jobs), then the test programs"
t0=$(date +%s)
set +e
build >"$LOGDIR/build.out" 2>&1
RC=$?
set -e
SECS=$(($(date +%s) - t0))
if [ "$RC" -ne 0 ]; then
    tail -n 60 "$LOGDIR/build.out" | tee -a "$LOGDIR/gpu-check.log"
    row build "FAIL (exit $RC)" - - - - - - "$SECS"
    FAILED=1
else
    row build ok - - - - - - "$SECS"
fi
say "== build: exit $RC after ${SECS}s"

# ---- the tests --------------------------------------------------------------------------------------------
# A test row: its SUMMARY line's counts (the sweep: the sum of its per-function lines, so that a sweep cut
# short by its timeout still reports what it checked).
test_row() {
    name=$1 optional=${2:-}
    out=$LOGDIR/$name.out
    counts=$(awk '/^(sweep|boundary) / { c += $6 + $11; b += $8 + $13; n++ }
                  /^SUMMARY / { for (i = 2; i <= NF; i++) { split($i, kv, "="); s[kv[1]] = kv[2] } }
                  END { if (n) printf "%.0f %.0f\n", c, b
                        else if (s["checked"] != "") print s["checked"], s["mismatches"]
                        else print "- -" }' "$out")
    checked=${counts% *} bad=${counts#* }
    status=ok
    if [ "$RC" -eq 124 ] || [ "$RC" -eq 137 ]; then
        status="timeout after ${SECS}s"
        [ -n "$optional" ] || FAILED=1
    elif [ "$RC" -eq 77 ]; then
        status="SKIP (no GPU)"
        FAILED=1
    elif [ "$RC" -ne 0 ]; then
        status="FAIL (exit $RC)"
        FAILED=1
    fi
    if [ "$bad" != "-" ] && [ "$bad" != 0 ]; then
        status="FAIL: mismatches"
        FAILED=1
    fi
    row "$name" "$status" "$checked" "$bad" - - - - "$SECS"
}

if [ "$FAILED" -eq 0 ]; then
    run device $(($(left) - 200)) "$BUILD/test_cuda_device"
    test_row device
    run kernels $(($(left) - 180)) "$BUILD/test_cuda_kernels"
    test_row kernels
    run sweep $(($(left) - 90)) "$BUILD/test_cuda_device_sweep" --modes rn,rz
    test_row sweep

    # ---- the benchmark ----------------------------------------------------------------------------------
    run bench $(($(left) - 60)) "$BUILD/bench/cuda_bench"
    grep -v '^#' "$LOGDIR/bench.out" | grep ',' >"$LOGDIR/bench.csv" || true
    if [ "$RC" -ne 0 ]; then
        row bench "FAIL (exit $RC)" - - - - - - "$SECS"
        FAILED=1
    else
        row bench ok - - - - - - "$SECS"
    fi
    # one row per case: ours, with the same-run ratio to memcpy (bulk) or cuBLAS (GEMM)
    awk -F, '$2 == "minifloat-cuda" {
                 if ($7 == "-" || $7 == "") printf "| %s | | | | %s | %s | | | |\n", $1, $5, $6
                 else printf "| %s | | | | | | %s | %s | |\n", $1, $7, $6 }' "$LOGDIR/bench.csv" >>"$LOGDIR/rows"
    BULK=$(awk -F, '$2 == "minifloat-cuda" && $7 == "-" && $6 != "-" { n++; if ($6 >= 0.85) k++ }
                    END { printf "%d of %d", k, n }' "$LOGDIR/bench.csv")

    run sweep-more $(($(left) - 5)) "$BUILD/test_cuda_device_sweep" --modes rna,ru,rd,ro,sr
    test_row sweep-more optional
fi

# ---- the table --------------------------------------------------------------------------------------------
{
    echo
    echo "## gpu-check: ${GPU:-no GPU}, $(date -u '+%Y-%m-%d'), tree $COMMIT, $MF_GPU_ARCH, $(elapsed) s"
    echo
    echo "| step | result | checked | mismatches | GB/s | vs memcpy | TFLOP/s | vs cuBLAS | seconds |"
    echo "|---|---|---|---|---|---|---|---|---|"
    cat "$LOGDIR/rows"
    echo
    echo "checked: comparisons of a device result with the host library's (sweep: 2^32 inputs x 16 (format,"
    echo "policy) per mode, each through the named function and mf_from_f32). Bulk rows: GB/s counts bytes read"
    echo "plus written; vs memcpy: against a device-to-device cudaMemcpy of the same bytes in the same run."
    echo "Bulk conversions at >= 0.85x memcpy: ${BULK:-none measured}."
    if [ "$FAILED" -eq 0 ]; then echo "Result: PASS"; else echo "Result: FAIL"; fi
} >"$LOGDIR/gpu-check.md"
tee -a "$LOGDIR/gpu-check.log" <"$LOGDIR/gpu-check.md"
if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
    cp "$LOGDIR/gpu-check.md" "$LOGDIR/gpu-check.log" "$OUT/"
    [ -f "$LOGDIR/bench.csv" ] && cp "$LOGDIR/bench.csv" "$OUT/"
fi
exit "$FAILED"

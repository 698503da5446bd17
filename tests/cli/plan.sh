# SPDX-License-Identifier: MIT
# cli_plan: `minifloat plan SRC DST`, the mf_convert_plan of one call: its layout, the paths that do
# not depend on the CPU, how the elements are cut, MF_BACKEND=portable, and misuse.
. "$(dirname "$0")/common.sh"

# field KEY: the value (second word) of the line KEY in the last run's output.
field() { awk -v k="$1" '$1 == k { print $2; exit }' "$WORK/out"; }

# plan ARGS...: run `minifloat plan ARGS` with the backend the CPU gives.
unset MF_BACKEND
plan() { run "$MF" plan "$@"; }

# The layout: a header line, then the seven fields in this order, the value second on each line.
plan f32 e4m3
expect_rc 0 "plan f32 e4m3"
[ "$(awk 'NR > 1 { printf "%s ", $1 }' "$WORK/out")" = "backend path head body tail streams threads " ] && pass ||
    fail "plan f32 e4m3: the field lines are not backend .. threads: $(cat "$WORK/out")"
expect_grep "$WORK/out" '^f32 -> e4m3, rn, ieee, n = 4096 \(mf_backend: [a-z0-9]+\)$' "header with the defaults"
ACTIVE=$(sed -n '1s/.*(mf_backend: \([a-z0-9]*\))$/\1/p' "$WORK/out")
[ -n "$ACTIVE" ] && pass || fail "no backend in the header"

# With statistics: the blocked path on every SIMD backend, the portable one without SIMD.
plan f32 e4m3 -n 4096 --stats
expect_rc 0 "plan --stats"
expect_grep "$WORK/out" '^f32 -> e4m3, rn, ieee, n = 4096, stats \(' "header with stats"
if [ "$ACTIVE" = portable ]; then want=portable; else want=blocked; fi
[ "$(field path)" = "$want" ] && pass || fail "plan f32 e4m3 --stats on $ACTIVE: path $(field path), want $want"
[ "$(field head) $(field tail)" = "0 0" ] && pass || fail "plan --stats: a head or tail: $(cat "$WORK/out")"

# Equal formats are a copy, which only the portable backend does.
plan e4m3 e4m3
expect_rc 0 "plan e4m3 e4m3"
[ "$(field path)" = portable ] && pass || fail "plan e4m3 e4m3: path $(field path), want portable"

# head + body + tail = n, whatever the cut; a head or tail names the path that bounces it.
for args in "f32 e4m3 -n 4095" "f32 f16 -n 4095" "f16 f32 -n 4095 --misalign-dst 8" "f16 e4m3 -n 5000 -r sr" \
    "e5m2 e4m3 -n 4097 --sr-offset 3 -r sr" "bf16 e2m1 -n 1001 --misalign-src 2 --misalign-dst 1" "f64 e8m0 -n 77"; do
    # shellcheck disable=SC2086 # the arguments are words
    plan $args
    expect_rc 0 "plan $args"
    n=${args##*-n }
    n=${n%% *}
    sum=$(($(field head) + $(field body) + $(field tail)))
    [ "$sum" -eq "$n" ] && pass || fail "plan $args: head + body + tail = $sum, want $n"
    if grep -Eq '^(head|tail) +[1-9]' "$WORK/out"; then
        expect_grep "$WORK/out" '^(head|tail) +[1-9][0-9]* \(bounced, path [a-z0-9_]+\)$' "plan $args: ends' path"
    fi
done

# The options show in the header.
plan bf16 e2m1 -n 1001 --sat --threads 4 --sr-offset 3 --misalign-src 2 --misalign-dst 1 -r ro
expect_rc 0 "plan with every option"
expect_grep "$WORK/out" '^bf16 -> e2m1, ro, saturate, n = 1001, sr offset 3, threads 4, src \+2, dst \+1 \(' \
    "header with every option"
[ "$(field threads)" = 1 ] && pass || fail "1001 elements over 4 threads: threads $(field threads), want 1"

# n = 0: an empty plan.
plan f32 e4m3 -n 0
expect_rc 0 "plan -n 0"
[ "$(field path) $(field backend) $(field body)" = "none - 0" ] && pass ||
    fail "plan -n 0: $(cat "$WORK/out")"

# MF_BACKEND=portable: every call is the portable backend's portable path.
for args in "f32 e4m3" "f32 e4m3 --stats" "f16 e4m3 -r sr -n 5000" "f32 f16 -n 4095" "e5m2 e4m3" \
    "f16 f32 -n 100000 --misalign-dst 8" "bf16 e2m1 -n 20000000" "e4m3 e4m3"; do
    # shellcheck disable=SC2086
    run env MF_BACKEND=portable "$MF" plan $args
    expect_rc 0 "MF_BACKEND=portable plan $args"
    expect_grep "$WORK/out" '\(mf_backend: portable\)$' "MF_BACKEND=portable plan $args: header"
    [ "$(field backend) $(field path)" = "portable portable" ] && pass ||
        fail "MF_BACKEND=portable plan $args: backend $(field backend), path $(field path)"
done

# MF_BACKEND naming no backend: one line on stderr that says so, lists the backends and the one taken; the
# call goes on with the best backend. An empty value is no choice at all.
run env MF_BACKEND=bogus "$MF" plan f32 e4m3
expect_rc 0 "MF_BACKEND=bogus plan f32 e4m3"
expect_grep "$WORK/err" "^minifloat: MF_BACKEND=bogus: no such backend in this build \(backends: .*portable\); using $ACTIVE\$" \
    "MF_BACKEND=bogus: the message"
[ "$(wc -l <"$WORK/err")" -eq 1 ] && pass || fail "MF_BACKEND=bogus: not one line on stderr: $(cat "$WORK/err")"
expect_grep "$WORK/out" "\(mf_backend: $ACTIVE\)\$" "MF_BACKEND=bogus: the best backend"
run env MF_BACKEND= "$MF" plan f32 e4m3
[ "$RC" -eq 0 ] && [ ! -s "$WORK/err" ] && pass || fail "MF_BACKEND= (empty): exit $RC, stderr $(cat "$WORK/err")"

# misuse MESSAGE ARGS...: `minifloat plan ARGS` is a usage error: exit 2, "minifloat: plan: MESSAGE..."
# on stderr, nothing on stdout.
misuse() {
    _msg=$1
    shift
    run "$MF" plan "$@"
    expect_rc 2 "plan $*"
    expect_grep "$WORK/err" "^minifloat: plan: $_msg" "plan $*: message"
    if [ -s "$WORK/out" ]; then fail "plan $*: wrote to stdout"; else pass; fi
}
misuse 'SRC and DST formats are required'
misuse 'SRC and DST formats are required' f32
misuse "unexpected argument 'f16'" f32 e4m3 f16
misuse "unknown format 'e9m9'" e9m9 e4m3
misuse "unknown format 'e9m9'" f32 e9m9
misuse "unknown rounding mode 'nearest'" f32 e4m3 -r nearest
misuse "option '-r' needs a rounding mode" f32 e4m3 -r
misuse '-n needs' f32 e4m3 -n
misuse '-n needs' f32 e4m3 -n -1
misuse '-n needs' f32 e4m3 -n x
misuse '-n needs' f32 e4m3 -n 18446744073709551616
misuse '--threads needs' f32 e4m3 --threads -1
misuse '--threads needs' f32 e4m3 --threads x
misuse '--sr-offset needs' f32 e4m3 --sr-offset -1
misuse '--misalign-src needs' f32 e4m3 --misalign-src 64
misuse '--misalign-dst needs' f32 e4m3 --misalign-dst x
misuse "unknown option '--frobnicate'" f32 e4m3 --frobnicate

# A call mf_convert refuses: its mf_strerror, exit 1.
run "$MF" plan f32 f64 -n 4611686018427387904
expect_rc 1 "plan of 2^62 f64 elements"
expect_grep "$WORK/err" '^minifloat: plan: element count too large for the address space$' "MF_E_SIZE message"

# --profile: a profile's call runs the active backend's kernels and a fix-up (path profile), on threads as the
# default's (none below 2^20 elements); equal formats stay a copy (path portable).
plan f32 e4m3 -n 5000 --profile ml_dtypes --threads 4
expect_rc 0 "plan --profile ml_dtypes"
expect_grep "$WORK/out" '^f32 -> e4m3, rn, ieee, n = 5000, threads 4, profile ml_dtypes \(' "header with a profile"
[ "$(field backend) $(field path) $(field head) $(field body) $(field tail) $(field threads)" = \
    "$ACTIVE profile 0 5000 0 1" ] && pass || fail "plan --profile ml_dtypes: $(cat "$WORK/out")"
plan f32 e4m3 -n 4194304 --profile torch --threads 4
[ "$(field backend) $(field path) $(field threads)" = "$ACTIVE profile 4" ] && pass ||
    fail "plan --profile torch --threads 4, 2^22 elements: $(cat "$WORK/out")"
for args in "bf16 e4m3fnuz --profile=TORCH" "f64 e8m0 -r rz --profile cuda" "e4m3 f32 --profile onnx"; do
    # shellcheck disable=SC2086
    plan $args
    expect_rc 0 "plan $args"
    [ "$(field path)" = profile ] && pass || fail "plan $args: path $(field path), want profile"
done
plan e4m3 e4m3 --profile ml_dtypes
[ "$(field path)" = portable ] && pass || fail "plan e4m3 e4m3 --profile ml_dtypes: path $(field path), want portable"
plan f32 e4m3 --profile default
expect_grep "$WORK/out" '^f32 -> e4m3, rn, ieee, n = 4096 \(' "--profile default: no profile in the header"
[ "$(field path)" != profile ] && pass || fail "plan --profile default: path profile"
# what the system lacks: mf_convert_plan's MF_E_PROFILE, exit 1, the reason and mf_strerror's sentence
run "$MF" plan f32 e2m1 --profile torch
expect_rc 1 "plan f32 e2m1 --profile torch"
expect_grep "$WORK/err" '^minifloat: plan: profile torch has no e2m1 \(docs/compat.md lists its formats and modes\): .+$' \
    "plan --profile torch e2m1: message"
[ -s "$WORK/out" ] && fail "plan f32 e2m1 --profile torch: wrote to stdout" || pass
run "$MF" plan f32 e4m3 -r sr --profile onnx
expect_rc 1 "plan -r sr --profile onnx"
expect_grep "$WORK/err" '^minifloat: plan: profile onnx does not round f32 -> e4m3 in sr ' "plan sr under onnx: message"
misuse "unknown profile 'numpy' \(default cuda ml_dtypes torch onnx\)" f32 e4m3 --profile numpy
misuse "option '--profile' needs a profile" f32 e4m3 --profile

# The usage names the command; `minifloat plan --help` prints it.
for h in --help "plan --help" "plan -h"; do
    # shellcheck disable=SC2086
    run "$MF" $h
    expect_rc 0 "minifloat $h"
    expect_grep "$WORK/out" '^       minifloat plan SRC DST \[-n N\]' "minifloat $h: the plan line"
    expect_grep "$WORK/out" '^plan SRC DST ' "minifloat $h: plan's description"
done

# Accepted spellings.
for args in "fp32 float8_e4m3fn --round=RZ --saturate" "f32 e4m3 --count=10 --threads=2" "half e2m1 -n 0x100"; do
    # shellcheck disable=SC2086
    plan $args
    expect_rc 0 "plan $args"
done

# plan --gemm A B: mf_gemm_plan's kernel, instruction set, tile and blocks. bf16-valued pairs may take the
# dot-product kernel on the avx512bf16 backend (where its self-test passes), f16 and block scales never do.
plan --gemm bf16 e4m3
expect_rc 0 "plan --gemm bf16 e4m3"
expect_grep "$WORK/out" '^gemm bf16 x e4m3, accum fp32 \(mf_backend: [a-z0-9]+\)$' "plan --gemm: header"
[ "$(awk 'NR > 1 { printf "%s ", $1 }' "$WORK/out")" = "kernel isa tile blocks " ] && pass ||
    fail "plan --gemm: the field lines are not kernel isa tile blocks: $(cat "$WORK/out")"
case "$ACTIVE:$(field kernel)" in
avx512bf16:dot-bf16 | avx512bf16:fma | avx512:fma | avx2:fma | portable:fma | neon:fma) pass ;;
*) fail "plan --gemm bf16 e4m3 on $ACTIVE: kernel $(field kernel)" ;;
esac
for args in "f16 e4m3" "e4m3 e4m3 --scale-a mx" "e2m1 e2m1 --scale-b nvfp4" "f32 f32"; do
    # shellcheck disable=SC2086
    plan --gemm $args
    expect_rc 0 "plan --gemm $args"
    [ "$(field kernel)" = fma ] && pass || fail "plan --gemm $args: kernel $(field kernel), want fma"
done
MF_BACKEND=portable run "$MF" plan --gemm bf16 bf16
expect_rc 0 "MF_BACKEND=portable plan --gemm bf16 bf16"
[ "$(field kernel) $(field isa) $(awk '$1 == "tile" { print $2 $3 $4 }' "$WORK/out")" = "fma portable 4x4" ] && pass ||
    fail "MF_BACKEND=portable plan --gemm: $(cat "$WORK/out")"
plan --gemm e4m3 e5m2 --accum h100
expect_rc 0 "plan --gemm --accum h100"
[ "$(field kernel) $(field isa)" = "tensor-core -" ] && pass || fail "plan --gemm --accum h100: $(cat "$WORK/out")"
misuse_gemm() {
    _msg=$1
    shift
    run "$MF" plan --gemm "$@"
    expect_rc 2 "plan --gemm $*"
    expect_grep "$WORK/err" "^minifloat: plan --gemm: $_msg" "plan --gemm $*: message"
    if [ -s "$WORK/out" ]; then fail "plan --gemm $*: wrote to stdout"; else pass; fi
}
misuse_gemm "e2m3 x e2m3 under h100: not a pair" e2m3 e2m3 --accum h100
misuse_gemm "e8m0 x bf16 under fp32: mf_gemm's inputs" e8m0 bf16
misuse_gemm "--accum needs fp32" bf16 bf16 --accum tf32
misuse_gemm "--scale-a needs none" bf16 bf16 --scale-a row
misuse_gemm "the formats of A and B are required" bf16

finish 100

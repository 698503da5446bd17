# SPDX-License-Identifier: MIT
# cli_analyze_examples: `minifloat analyze` on the tensors shipped in examples/data/ (written by
# tools/gen_examples.py with numpy and ml_dtypes). Third argument: that directory.
#
# The f32 tensors' counts below were computed with numpy and ml_dtypes (x.astype(float16),
# .astype(ml_dtypes.float8_e5m2), ...: an implementation independent of this library, rn):
# overflow = finite in, non-finite out; underflow = nonzero in, zero out; subnormal = nonzero out
# below the format's smallest normal. The ml_dtypes files hold values of their own type, so
# converting them into the same type, or into any type that contains it, must be exact.
. "$(dirname "$0")/common.sh"
DATA=${3:?usage: sh analyze_examples.sh MINIFLOAT WORKDIR EXAMPLES_DATA_DIR}
[ -f "$DATA/activations.npy" ] || { echo "no example tensors in $DATA"; exit 1; }

# cell N: a count cell, "0" or "N (P%)"
cell() { if [ "$1" = 0 ]; then printf '0'; else printf '%s \\([0-9.]+%%\\)' "$1"; fi; }
# counts FILE OPTIONS -- OVERFLOW UNDERFLOW SUBNORMAL (one format, --formats in OPTIONS)
counts() {
    _f=$1
    shift
    _opts=
    while [ "$1" != -- ]; do _opts="$_opts $1"; shift; done
    shift
    run "$MF" analyze "$DATA/$_f" $_opts
    expect_rc 0 "$_f$_opts"
    expect_grep "$WORK/out" "^overflow +$(cell "$1")\$" "$_f$_opts: overflow $1"
    expect_grep "$WORK/out" "^underflow to 0 +$(cell "$2")\$" "$_f$_opts: underflow $2"
    expect_grep "$WORK/out" "^subnormal +$(cell "$3")\$" "$_f$_opts: subnormal $3"
}

counts activations.npy --formats f16 -- 2 103 258
counts activations.npy --formats e4m3 -- 8 759 1805
counts activations.npy --formats e5m2 -- 2 230 121
counts activations.npy --formats bf16 -- 0 0 0
counts gradients.npy --formats f16 -- 0 18084 13916
counts gradients.npy --formats e4m3 -- 0 32000 0
counts gradients.npy --formats e5m2 -- 0 31495 505
counts attn_logits.npy --formats e4m3 -- 3 2 66
counts attn_logits.npy --formats f16 -- 0 0 0
counts weights.npy --formats f16 -- 0 1 75
counts weights.npy --formats e4m3 -- 0 1293 16279
counts weights.npy --formats e5m2 -- 0 9 53

run "$MF" analyze "$DATA/activations.npy"
expect_grep "$WORK/out" "^data +32768 elements, float32 \('<f4'\), shape \(64, 512\)$" "activations: data line"
expect_grep "$WORK/out" "^values +32730 finite nonzero, 38 zero, 0 NaN, 0 inf$" "activations: values line"

# ml_dtypes files: the header line names the type; the same type (and wider ones) are exact
run "$MF" analyze "$DATA/weights_bf16.npy" --formats bf16,f32
expect_rc 0 "weights_bf16.npy"
expect_grep "$WORK/out" "^data +32768 elements, bfloat16 \('<V2'\), shape \(128, 256\)$" "weights_bf16: data line"
expect_grep "$WORK/out" "^rel err max +0 +0$" "weights_bf16: bf16 and f32 exact"
run "$MF" analyze "$DATA/gradients_e5m2.npy" --formats e5m2,f16,bf16
expect_rc 0 "gradients_e5m2.npy"
expect_grep "$WORK/out" "^data +4096 elements, float8_e5m2 \('<f1'\), shape \(64, 64\)$" "gradients_e5m2: data line"
expect_grep "$WORK/out" "^rel err max +0 +0 +0$" "gradients_e5m2: e5m2, f16, bf16 exact"
expect_grep "$WORK/out" "^underflow to 0 +0 +0 +0$" "gradients_e5m2: no underflow"
run "$MF" analyze "$DATA/activations_e4m3.npy"
expect_rc 1 "activations_e4m3.npy without --dtype"
expect_grep "$WORK/err" "ambiguous dtype '<V1'.*--dtype e4m3" "activations_e4m3: asks for --dtype"
run "$MF" analyze "$DATA/activations_e4m3.npy" --dtype e4m3 --formats e4m3,bf16,f16
expect_rc 0 "activations_e4m3.npy --dtype e4m3"
expect_grep "$WORK/out" "^data +4096 elements, float8_e4m3fn \('<V1'\), shape \(64, 64\)$" "activations_e4m3: data line"
expect_grep "$WORK/out" "^rel err max +0 +0 +0$" "activations_e4m3: e4m3, bf16, f16 exact"
expect_grep "$WORK/out" "^\|x\| +min .*, max 448 \(2\^8.81\)" "activations_e4m3: amax is e4m3's max (current scaling)"

# the shipped tensors stay small
total=0
for f in "$DATA"/*.npy; do total=$((total + $(wc -c <"$f"))); done
if [ "$total" -lt 1048576 ]; then pass; else fail "examples/data/*.npy: $total bytes, want < 1 MiB"; fi

# the lab's pictures come out for each of them
for f in activations gradients attn_logits weights; do
    run "$MF" analyze "$DATA/$f.npy" --scale auto --plot "$WORK/$f.svg"
    expect_rc 0 "$f --scale auto --plot"
    if [ "$(tail -n 1 "$WORK/$f.svg")" = "</svg>" ]; then pass; else fail "$f.svg: incomplete"; fi
done

finish 72

# SPDX-License-Identifier: MIT
# cli_analyze_ops: `minifloat analyze --op OP`: the tensor OP(x), computed in binary32 by mf_unary /
# mf_softmax, analysed per format. Every count below is derived by hand from the math; the third argument
# is examples/data/ (for the check against attn_logits.npy at the end).
#
# exp into f16 (max 65504; rn: a binary32 y >= 65520, the midpoint to 2^16, ties to even 2^16 and
# overflows), bf16 (max 3.39e38, min subnormal 2^-133), e4m3 (max 448; y > 464 overflows to NaN, an inf
# becomes NaN: also an overflow), e5m2 (max 57344; y >= 61440 overflows to inf). Inputs (text, read as
# binary64, rounded to binary32 by the op as x.float() does):
#   11            exp = 59874.14: f16 59872, e5m2 57344 (below 61440), e4m3 overflow
#   11.09         binary32 11.0900001526, exp = 65512.77 < 65520: f16 rounds to 65504, not an overflow
#   0x1.62e22ep+3 (11.0901098) exp = 65519.94, 15 binary32 ULPs below 65520: f16 65504
#   0x1.62e23p+3  (11.0901108, the next binary32) exp = 65520.004, 1.01 binary32 ULPs above 65520: with
#                 an exp error under 1.01 ULP the binary32 y is >= 65520, so f16 overflows: f16 overflows
#                 from x >= ln 65520 = 11.0901107 on
#   11.1          binary32 11.1000004, exp = 66171.19: f16 and e5m2 inf, bf16 66048
#   12            exp = 162754.8: f16, e5m2 inf
#   100           exp = 2.7e43 > binary32's range (x > ln(2^128 - 2^103) = 88.7228391): y = inf already
#                 in binary32 (binary32 overflow 1); f16, e5m2 and bf16 keep the inf (no overflow of
#                 theirs), e4m3 turns it into NaN (an overflow)
#   -100          exp = 3.72e-44, a binary32 subnormal (26.5 * 2^-149); below half of f16's and bf16's
#                 smallest subnormals (2^-25, 2^-134): underflow to 0 in every target
#   -110          exp = 1.7e-48 < 2^-150: 0 already in binary32 (binary32 underflow 1; a zero input below)
#   nan           NaN
# values of y: 7 finite nonzero, 1 zero, 1 NaN, 1 inf. Of the 10 elements:
#   f16  overflow 3 (30%), to inf 3; underflow 1 (10%)
#   bf16 overflow 0; underflow 1
#   e4m3 overflow 7 (70%): 6 finite ones above 464 and the inf, all to NaN; underflow 1
#   e5m2 overflow 5 (50%): 11.09 ... 12; underflow 1
#   f16 --sat: the 3 finite overflows and the inf saturate to 65504: overflow 4 (40%), saturated 4
. "$(dirname "$0")/common.sh"
DATA=${3:?usage: sh analyze_ops.sh MINIFLOAT WORKDIR EXAMPLES_DATA_DIR}


printf '11\n11.09\n0x1.62e22ep+3\n0x1.62e23p+3\n11.1\n12\n100\n-100\n-110\nnan\n' >"$WORK/x.txt"

WHAT="--op exp"
run "$MF" analyze "$WORK/x.txt" --op exp --formats f16,bf16,e4m3,e5m2
expect_rc 0 "$WHAT"
expect_grep "$WORK/out" "^data +10 elements, text, read as float64$" "$WHAT: data line (the file)"
expect_grep "$WORK/out" "^op +x = exp\(data\)$" "$WHAT: op line"
expect_grep "$WORK/out" "^math +binary32, (sleef [0-9.]+ cinz sse2 u10|libm) \(mf_unary\)" "$WHAT: math line"
expect_grep "$WORK/out" "^binary32 1 finite inputs gave inf \(overflow\), 1 gave 0 \(underflow\)" "$WHAT: binary32 line"
expect_grep "$WORK/out" "^values +7 finite nonzero, 1 zero, 1 NaN, 1 inf$" "$WHAT: values of exp(x)"
table_row "" f16 bf16 e4m3 e5m2
table_row overflow '3 \(30%\)' 0 '7 \(70%\)' '5 \(50%\)'
table_row '  saturated' 0 0 0 0
table_row '  to inf/NaN' '3 \(30%\)' 0 '7 \(70%\)' '5 \(50%\)'
table_row 'underflow to 0' '1 \(10%\)' '1 \(10%\)' '1 \(10%\)' '1 \(10%\)'
table_row subnormal 0 0 0 0
# histogram of y: 59874, 65512.8, 65519.9, 65520.0 in [2^15, 2^16); 66171 in [2^16, 2^17); 162755 in
# [2^17, 2^18); 3.78e-44 in [2^-145, 2^-144)
expect_grep "$WORK/out" '^log2\|x\| histogram of x = exp\(data\) \(before scaling\)' "$WHAT: histogram title"
expect_grep "$WORK/out" '^ +17 +1 +#+ +OVF +\. +OVF +OVF$' "$WHAT: histogram row 17"
expect_grep "$WORK/out" '^ +16 +1 +#+ +OVF +\. +OVF +OVF$' "$WHAT: histogram row 16"
expect_grep "$WORK/out" '^ +15 +4 +#+ +ovf +\. +OVF +ovf$' "$WHAT: histogram row 15"
expect_grep "$WORK/out" '^ +-145 +1 +#+ +UNF +UNF +UNF +UNF$' "$WHAT: histogram row -145"

WHAT="--op exp --sat"
run "$MF" analyze "$WORK/x.txt" --op exp --formats f16 --sat
expect_rc 0 "$WHAT"
table_row overflow '4 \(40%\)'
table_row '  saturated' '4 \(40%\)'
table_row '  to inf/NaN' 0

# The same numbers as raw binary32 give the same report from the table on (the text's binary64 values
# round to these binary32 values, which is what the op does to them).
WHAT="--op exp, raw input"
"$MF" convert --text-in --from f64 --to f32 <"$WORK/x.txt" >"$WORK/x.f32"
run "$MF" analyze "$WORK/x.txt" --op exp
sed -n '/^values/,$p' "$WORK/out" >"$WORK/want"
run "$MF" analyze "$WORK/x.f32" --op exp
expect_rc 0 "$WHAT"
sed -n '/^values/,$p' "$WORK/out" >"$WORK/got"
same "$WORK/want" "$WORK/got" "$WHAT: same report as the text"
expect_grep "$WORK/out" "^data +10 elements, raw float32$" "$WHAT: data line"

# --scale auto scales exp's output: y = 66171.2, 162754.8 into f16. 162754.8 * 2^-1 = 81377 still
# overflows, * 2^-2 = 40689 fits: scale 2^-2, nothing overflows. Without --op the data (11.1, 12) fit: 1.
WHAT="--op exp --scale auto"
printf '11.1\n12\n' >"$WORK/two.txt"
run "$MF" analyze "$WORK/two.txt" --op exp --scale auto --formats f16
expect_rc 0 "$WHAT"
table_row scale '2\^-2'
table_row overflow 0
table_row '  no overflow' '<= 2\^-2'
run "$MF" analyze "$WORK/two.txt" --scale auto --formats f16
table_row scale 1

# Softmax of one row (text has no shape): x = 0, -10, -20, -120. m = 0; exp(x - m) = 1, 4.54e-5,
# 2.06e-9, 7.7e-53 (below 2^-150: 0 in binary32, a binary32 underflow); y = 0.99995, 4.54e-5, 2.06e-9, 0.
#   f16  (min normal 2^-14 = 6.1e-5, zero below 2^-25 = 2.98e-8): 4.54e-5 subnormal, 2.06e-9 underflows
#   bf16 (min normal 2^-126): all normal
#   e4m3 (zero below 2^-10 = 9.8e-4): 4.54e-5 and 2.06e-9 underflow
#   e5m2 (min normal 6.1e-5, zero below 2^-17 = 7.6e-6): 4.54e-5 subnormal (3 * 2^-16), 2.06e-9 underflows
# Of 4 elements: 1 = 25%, 2 = 50%.
printf '0\n-10\n-20\n-120\n' >"$WORK/row.txt"
WHAT="--op softmax"
run "$MF" analyze "$WORK/row.txt" --op softmax --formats f16,bf16,e4m3,e5m2
expect_rc 0 "$WHAT"
expect_grep "$WORK/out" "^op +x = softmax\(data\) over all 4 elements \(one row: the file has no shape\)$" "$WHAT: op line"
expect_grep "$WORK/out" "\(mf_softmax\)" "$WHAT: math line"
expect_grep "$WORK/out" "^binary32 0 finite inputs gave inf \(overflow\), 1 gave 0 \(underflow\)" "$WHAT: binary32 line"
expect_grep "$WORK/out" "^values +3 finite nonzero, 1 zero, 0 NaN, 0 inf$" "$WHAT: values"
table_row overflow 0 0 0 0
table_row 'underflow to 0' '1 \(25%\)' 0 '2 \(50%\)' '1 \(25%\)'
table_row subnormal '1 \(25%\)' 0 0 '1 \(25%\)'

# Log-softmax of the same row: y = x - log(1 + 4.54e-5 + ...) = -4.54e-5, -10.00005, -20.00005,
# -120.00005: nothing underflows in binary32 (the -120 element that softmax lost is kept); f16 and e5m2
# keep -4.54e-5 as a subnormal, e4m3 loses it (underflow), -120 fits every format.
WHAT="--op log_softmax"
run "$MF" analyze "$WORK/row.txt" --op log_softmax --formats f16,bf16,e4m3,e5m2
expect_rc 0 "$WHAT"
expect_grep "$WORK/out" "^values +4 finite nonzero, 0 zero, 0 NaN, 0 inf$" "$WHAT: values"
expect_grep "$WORK/out" "^binary32 0 finite inputs gave inf \(overflow\), 0 gave 0 \(underflow\)" "$WHAT: binary32 line"
table_row overflow 0 0 0 0
table_row 'underflow to 0' 0 0 '1 \(25%\)' 0
table_row subnormal '1 \(25%\)' 0 0 '1 \(25%\)'

# What binary32 itself loses in log-softmax: row (0, -200): e^-200 is 0 in binary32, so log p of the
# first element, -log(1 + e^-200) = -1.4e-87, becomes -0 (1 underflow); row (-inf, 0): log p = 0 is exact
# for an element whose only neighbour is -inf (no underflow), and -inf stays -inf (not a finite input).
printf '0\n-200\n' >"$WORK/ls1.txt"
printf -- '-inf\n0\n' >"$WORK/ls2.txt"
run "$MF" analyze "$WORK/ls1.txt" --op log_softmax --formats f16
expect_grep "$WORK/out" "^binary32 0 finite inputs gave inf \(overflow\), 1 gave 0 \(underflow\)" "log_softmax (0, -200): binary32 line"
expect_grep "$WORK/out" "^values +1 finite nonzero, 1 zero, 0 NaN, 0 inf$" "log_softmax (0, -200): values"
run "$MF" analyze "$WORK/ls1.txt" --op softmax --formats f16
expect_grep "$WORK/out" "^binary32 0 finite inputs gave inf \(overflow\), 1 gave 0 \(underflow\)" "softmax (0, -200): binary32 line"
run "$MF" analyze "$WORK/ls2.txt" --op log_softmax --formats f16
expect_grep "$WORK/out" "^binary32 0 finite inputs gave inf \(overflow\), 0 gave 0 \(underflow\)" "log_softmax (-inf, 0): binary32 line"
expect_grep "$WORK/out" "^values +0 finite nonzero, 1 zero, 0 NaN, 1 inf$" "log_softmax (-inf, 0): values"

# A .npy is split along its last axis: shape (2, 2) = rows (0, -20) and (0, 0): y = 1/(1 + e^-20) = 1 in
# binary32 (1 - 2.1e-9 is within half an ULP of 1), e^-20 / (1 + e^-20) = 2.06115e-9 (2^-28.85), 0.5,
# 0.5. As one row of 4 the largest y would be 1/3.
. "$(dirname "$0")/npy_lib.sh"
npy_write "$WORK/r.npy" '<f4' '(2, 2)' '\000\000\000\000\000\000\240\301\000\000\000\000\000\000\000\000'
WHAT="--op softmax, .npy rows"
run "$MF" analyze "$WORK/r.npy" --op softmax --formats f16
expect_rc 0 "$WHAT"
expect_grep "$WORK/out" "^op +x = softmax\(data\) over the last axis \(2 rows of 2\)$" "$WHAT: op line"
expect_grep "$WORK/out" "^\|x\| +min 2.06115e-09 \(2\^-28.85\), max 1 \(2\^0.00\)" "$WHAT: range of y"
table_row 'underflow to 0' '1 \(25%\)'

# The other unary ops run, and names are case-insensitive; tanh(0) = 0 is not an underflow.
for op in tanh sigmoid silu gelu gelu_tanh SiLU GELU_TANH; do
    run "$MF" analyze "$WORK/row.txt" --op "$op" --formats f16
    expect_rc 0 "--op $op"
    expect_grep "$WORK/out" "^op +x = $(echo "$op" | tr 'A-Z' 'a-z')\(data\)$" "--op $op: op line"
done
run "$MF" analyze "$WORK/row.txt" --op=tanh --formats f16
expect_rc 0 "--op=tanh"
# tanh of 0, -10, -20, -120 = 0 and three values at or next to -1: 3 finite nonzero, 1 zero
expect_grep "$WORK/out" "^values +3 finite nonzero, 1 zero, 0 NaN, 0 inf$" "--op=tanh: values"
expect_grep "$WORK/out" "^binary32 0 finite inputs gave inf \(overflow\), 0 gave 0 \(underflow\)" "--op=tanh: tanh(0) = 0 is exact"

# The picture names the op.
run "$MF" analyze "$WORK/x.txt" --op exp --formats f16 --plot "$WORK/x.svg"
expect_rc 0 "--op exp --plot"
expect_grep "$WORK/x.svg" '>x = exp\(x.txt\): log2 \|x\| histogram' "--op exp --plot: title"
expect_grep "$WORK/x.svg" '; exp in binary32 \(' "--op exp --plot: subtitle"

# Errors: usage errors exit 2 with the list of operations.
run "$MF" analyze "$WORK/x.txt" --op log
expect_rc 2 "--op log"
expect_grep "$WORK/err" "unknown operation 'log' \(exp, tanh, sigmoid, silu, gelu, gelu_tanh, softmax, log_softmax\)" "--op log: message"
[ -s "$WORK/out" ] && fail "--op log wrote to stdout" || pass
run "$MF" analyze "$WORK/x.txt" --op
expect_rc 2 "--op without a value"
expect_grep "$WORK/err" "needs an operation" "--op without a value: message"
run "$MF" analyze "$WORK/x.txt" --op ''
expect_rc 2 "--op ''"

# attn_logits.npy: the counts of analyze --op exp against counts of the logits x read independently
# (the raw float32 data through `convert` into text, compared in awk with thresholds derived above):
#   f16 overflow:   ln 65520 <= x < ln(2^128 - 2^103) (= 88.7228391; beyond, y is inf in binary32)
#   binary32 inf:   x >= 88.7228391;  binary32 0: x < ln 2^-150 = -103.9720771
#   f16 underflow:  -103.9720771 <= x <= ln 2^-25 = -17.3286795 (y <= 2^-25 rounds to 0)
#   e4m3 overflow:  x > ln 464 = 6.1398846 (binary32 infs included: they become NaN)
#   e5m2 overflow:  ln 61440 = 11.0258164 <= x < 88.7228391
# No logit lies within 1e-4 of a threshold (checked), so the binary32 exp's error cannot move one across.
f=$DATA/attn_logits.npy
if [ "$(wc -c <"$f")" -eq 65664 ]; then pass; else fail "attn_logits.npy: want 128 + 16384 * 4 bytes"; fi
tail -c 65536 "$f" | "$MF" convert --from f32 --to f64 --text-out >"$WORK/logits.txt"
awk 'function near(a, b) { return (a - b < 1e-4 && b - a < 1e-4) }
{
    x = $1 + 0
    if (x >= 11.0901107 && x < 88.7228391) f16++
    if (x >= 88.7228391) inf++
    if (x < -103.9720771) zero++
    if (x >= -103.9720771 && x <= -17.3286795) unf++
    if (x > 6.1398846) e4++
    if (x >= 11.0258164 && x < 88.7228391) e5++
    if (near(x, 11.0901107) || near(x, 88.7228391) || near(x, -103.9720771) || near(x, -17.3286795) ||
        near(x, 6.1398846) || near(x, 11.0258164)) nclose++
}
END { printf "%d %d %d %d %d %d %d %d\n", NR, f16, inf, zero, unf, e4, e5, nclose }' "$WORK/logits.txt" >"$WORK/counts"
read -r n c_f16 c_inf c_zero c_unf c_e4 c_e5 c_close <"$WORK/counts"
if [ "$n" -eq 16384 ] && [ "$c_close" -eq 0 ]; then pass; else fail "attn_logits: $n values, $c_close near a threshold"; fi
if [ "$c_f16" -gt 0 ] && [ "$c_inf" -gt 0 ] && [ "$c_zero" -gt 0 ]; then pass; else fail "attn_logits: the check needs every case ($(cat "$WORK/counts"))"; fi
cell() { if [ "$1" = 0 ]; then printf '0'; else printf '%s \\([0-9.]+%%\\)' "$1"; fi; }
WHAT="attn_logits.npy --op exp"
run "$MF" analyze "$f" --op exp --formats f16,e4m3,e5m2
expect_rc 0 "$WHAT"
expect_grep "$WORK/out" "^binary32 $c_inf finite inputs gave inf \(overflow\), $c_zero gave 0 \(underflow\)" "$WHAT: binary32 line"
table_row overflow "$(cell "$c_f16")" "$(cell "$c_e4")" "$(cell "$c_e5")"
table_row 'underflow to 0' "$(cell "$c_unf")" '[0-9]+ \([0-9.]+%\)' '[0-9]+ \([0-9.]+%\)'

finish 85

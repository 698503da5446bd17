# SPDX-License-Identifier: MIT
# cli_analyze: `minifloat analyze` on a tiny tensor whose every count is derived by hand.
#
# x = 65504, 65520, 2^-26, 2^-20, 1, -2, 0, 0 (float32), into f16 bf16 e4m3 e5m2 e2m1, rn:
#   f16  (max 65504, min subnormal 2^-24): 65520 is the midpoint to 2^16 and ties to inf (1 overflow,
#        to inf); 2^-26 < 2^-25 flushes to 0 (1 underflow); 2^-20 is subnormal (1).
#   bf16 (8 significant bits): 65504 and 65520 both round to 65536 = 2^16, finite; nothing under- or
#        overflows; relative errors 32/65504 = 1/2047 = 0.000489 and 16/65520 = 0.000244.
#   e4m3 (max 448, min subnormal 2^-9): both large values overflow to NaN (2); 2^-26 and 2^-20 flush (2).
#   e5m2 (max 57344; from 61440 up rn gives inf): both overflow to inf (2); both small ones flush (2).
#   e2m1 (max 6, no inf): both large values saturate to 6 (2); both small ones flush (2).
# Percentages are of all 8 elements: 1 = 12.5%, 2 = 25%.
# Relative error is over nonzero finite inputs whose result is finite and not saturated:
#   f16  5 elements (65520 -> inf excluded), one of error 1: mean 1/5 = 0.2, rms sqrt(1/5) = 0.447
#   bf16 6 elements: mean (1/2047 + 16/65520)/6 = 0.000122, rms 0.000223
#   e4m3, e5m2, e2m1: 4 elements (the two large ones excluded), two of error 1: mean 0.5, rms 0.707
# Safe power-of-two scales (largest without overflow, smallest without underflow; a tie at half the
# smallest subnormal rounds to 0 under rn, a tie at the overflow midpoint rounds to even):
#   f16  65520 * 2^-1 fits, 65520 overflows: <= 2^-1;  2^-26 * 2^2 = 2^-24 survives, * 2^1 ties to 0: >= 2^2
#   bf16 65520 * 2^k rounds to 2^(16+k) <= max while k <= 111; 2^-26 * 2^-107 = 2^-133 (min subnormal)
#   e4m3 65520 / 2^8 = 255.9 <= 464 (the midpoint 464 rounds to 448), / 2^7 = 511.9 > 464: <= 2^-8;
#        2^-26 * 2^17 = 2^-9: >= 2^17
#   e5m2 32760 < 61440: <= 2^-1; 2^-26 * 2^10 = 2^-16: >= 2^10
#   e2m1 65520 / 2^14 = 3.999 < 7 (7 ties to 8: overflow), / 2^13 = 7.998: <= 2^-14; 2^-26 * 2^25 = 0.5
# --scale auto: k = min(no-overflow limit, max(0, k lifting 2^-26 to the min normal)):
#   f16 min(-1, 12) = -1; bf16 min(111, max(0, -100)) = 0; e4m3 min(-8, 20) = -8; e5m2 min(-1, 12) = -1;
#   e2m1 min(-14, 26) = -14. Under them nothing overflows; the price is at the bottom: f16 still
#   flushes 2^-27 and keeps 2^-21 subnormal, e4m3 puts 1/2^8 and -2/2^8 in its subnormal band (below
#   2^-6), e2m1 flushes 1/2^14 and -2/2^14 as well (4 underflows).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/npy_lib.sh"

npy_write "$WORK/x.npy" '<f4' '(8,)' "$F32_EIGHT"
# numpy's header for this array is 118 bytes: 10 + 118 = 128, then 8 x 4 data bytes
if [ "$(wc -c <"$WORK/x.npy")" -eq 160 ]; then pass; else fail "test file is $(wc -c <"$WORK/x.npy") bytes, want 160"; fi

WHAT="scale 1"
run "$MF" analyze "$WORK/x.npy"
expect_rc 0 "$WHAT"
expect_grep "$WORK/out" "^data +8 elements, float32 \('<f4'\), shape \(8,\)$" "$WHAT: data line"
expect_grep "$WORK/out" "^values +6 finite nonzero, 2 zero, 0 NaN, 0 inf$" "$WHAT: values line"
expect_grep "$WORK/out" "^\|x\| +min 1.49012e-08 \(2\^-26.00\), max 65520 \(2\^16.00\)" "$WHAT: range line"
table_row "" f16 bf16 e4m3 e5m2 e2m1
table_row scale 1 1 1 1 1
table_row overflow '1 \(12.5%\)' 0 '2 \(25%\)' '2 \(25%\)' '2 \(25%\)'
table_row '  saturated' 0 0 0 0 '2 \(25%\)'
table_row '  to inf/NaN' '1 \(12.5%\)' 0 '2 \(25%\)' '2 \(25%\)' 0
table_row 'underflow to 0' '1 \(12.5%\)' 0 '2 \(25%\)' '2 \(25%\)' '2 \(25%\)'
table_row subnormal '1 \(12.5%\)' 0 0 0 0
table_row 'rel err max' 1 0.000489 1 1 1
table_row 'rel err mean' 0.2 0.000122 0.5 0.5 0.5
table_row 'rel err rms' 0.447 0.000223 0.707 0.707 0.707
table_row 'safe scales' none '2\^-107..2\^111' none none none
table_row '  no overflow' '<= 2\^-1' '<= 2\^111' '<= 2\^-8' '<= 2\^-1' '<= 2\^-14'
table_row '  no underflow' '>= 2\^2' '>= 2\^-107' '>= 2\^17' '>= 2\^10' '>= 2\^25'
table_row 'max finite' 65504 3.38953e\\+38 448 57344 6
# the ASCII histogram: rows for floor(log2|x|) = 15 (65504, 65520), 1 (-2), 0 (1), -20, -26
expect_grep "$WORK/out" '^ +15 +2 +#+ +ovf +\. +OVF +ovf +OVF$' "$WHAT: histogram row 15"
expect_grep "$WORK/out" '^ +14 +0 +\. +\. +OVF +\. +OVF$' "$WHAT: histogram row 14 (empty)"
expect_grep "$WORK/out" '^ +2 +0 +\. +\. +\. +\. +ovf$' "$WHAT: histogram row 2 (e2m1: 4..6 fits, 7..8 does not)"
expect_grep "$WORK/out" '^ +1 +1 +#+ +\. +\. +\. +\. +\.$' "$WHAT: histogram row 1"
expect_grep "$WORK/out" '^ +0 +1 +#+ +\. +\. +\. +\. +\.$' "$WHAT: histogram row 0"
expect_grep "$WORK/out" '^ +-15 +0 +sub +\. +UNF +sub +UNF$' "$WHAT: histogram row -15"
expect_grep "$WORK/out" '^ +-20 +1 +#+ +sub +\. +UNF +UNF +UNF$' "$WHAT: histogram row -20"
expect_grep "$WORK/out" '^ +-25 +0 +sub +\. +UNF +UNF +UNF$' "$WHAT: histogram row -25 (2^-25 < x rounds up to 2^-24)"
expect_grep "$WORK/out" '^ +-26 +1 +#+ +UNF +\. +UNF +UNF +UNF$' "$WHAT: histogram row -26"
if [ "$(grep -cE '^ +-?[0-9]+ +[0-9]+ ' "$WORK/out")" -eq 42 ]; then pass; else fail "$WHAT: want 42 histogram rows (15 .. -26)"; fi

WHAT="--sat"
run "$MF" analyze "$WORK/x.npy" --sat
expect_rc 0 "$WHAT"
table_row overflow '1 \(12.5%\)' 0 '2 \(25%\)' '2 \(25%\)' '2 \(25%\)'
table_row '  saturated' '1 \(12.5%\)' 0 '2 \(25%\)' '2 \(25%\)' '2 \(25%\)'
table_row '  to inf/NaN' 0 0 0 0 0

WHAT="--scale auto"
run "$MF" analyze "$WORK/x.npy" --scale auto
expect_rc 0 "$WHAT"
table_row scale '2\^-1' 1 '2\^-8' '2\^-1' '2\^-14'
table_row overflow 0 0 0 0 0
table_row 'underflow to 0' '1 \(12.5%\)' 0 '2 \(25%\)' '2 \(25%\)' '4 \(50%\)'
table_row subnormal '1 \(12.5%\)' 0 '2 \(25%\)' 0 0
table_row '  no overflow' '<= 2\^-1' '<= 2\^111' '<= 2\^-8' '<= 2\^-1' '<= 2\^-14'
WHAT="--scale AUTO (names ignore case)"
run "$MF" analyze "$WORK/x.npy" --scale AUTO
expect_rc 0 "$WHAT"
table_row scale '2\^-1' 1 '2\^-8' '2\^-1' '2\^-14'

WHAT="--scale 2^-1 (one scale for all)"
run "$MF" analyze "$WORK/x.npy" --scale '2^-1' --formats f16,e5m2
expect_rc 0 "$WHAT"
table_row "" f16 e5m2
table_row scale '2\^-1' '2\^-1'
table_row overflow 0 0
WHAT="--scale 0.5 is 2^-1"
run "$MF" analyze "$WORK/x.npy" --scale 0.5 --formats f16,e5m2
expect_rc 0 "$WHAT"
table_row scale '2\^-1' '2\^-1'

# auto capped: data 2^-30 and 2^-20 into f16: nothing overflows up to 2^35, but 2^16 is enough to lift
# 2^-30 to f16's smallest normal 2^-14, so auto stops there
WHAT="--scale auto, capped"
npy_write "$WORK/tiny.npy" '<f4' '(2,)' '\000\000\200\060\000\000\200\065'
run "$MF" analyze "$WORK/tiny.npy" --scale auto --formats f16
expect_rc 0 "$WHAT"
table_row scale '2\^16'
table_row 'underflow to 0' 0
table_row subnormal 0
table_row '  no overflow' '<= 2\^35'
run "$MF" analyze "$WORK/tiny.npy" --formats f16
table_row 'underflow to 0' '1 \(50%\)'
table_row subnormal '1 \(50%\)'

# other rounding modes: under rz nothing rounds up to inf, 65520 truncates to 65504 (saturates)
WHAT="-r rz"
run "$MF" analyze "$WORK/x.npy" -r rz --formats f16
expect_rc 0 "$WHAT"
table_row overflow 0
table_row 'underflow to 0' '1 \(12.5%\)'
run "$MF" analyze "$WORK/x.npy" --round=ru --formats f16
expect_rc 0 "-r ru"
WHAT="-r ru"
table_row overflow '1 \(12.5%\)'
table_row 'underflow to 0' 0
run "$MF" analyze "$WORK/x.npy" -r sr --seed 7 --formats f16
expect_rc 0 "-r sr"

# the same values as text and as raw float32 give the same table
printf '65504\n65520\n0x1p-26\n# a comment\n\n9.5367431640625e-07\n1\n-2\n0\n  0  \n' >"$WORK/x.txt"
printf "$F32_EIGHT" >"$WORK/x.f32"
cp "$WORK/x.f32" "$WORK/x.bin"
cp "$WORK/x.f32" "$WORK/x.data"
"$MF" analyze "$WORK/x.npy" | sed -n '/^ *f16/,$p' >"$WORK/want"
for input in "x.txt" "x.f32" "x.bin" "x.data --raw" "x.npy --formats f16,bf16,e4m3,e5m2,e2m1"; do
    set -- $input
    f=$1
    shift
    run "$MF" analyze "$WORK/$f" "$@"
    expect_rc 0 "input $input"
    sed -n '/^ *f16/,$p' "$WORK/out" >"$WORK/got"
    same "$WORK/want" "$WORK/got" "input $input: table and histogram"
done
set -- "$MF" "$WORK"
expect_grep "$WORK/out" "^data +8 elements" "data line"
run "$MF" analyze "$WORK/x.txt"
expect_grep "$WORK/out" "^data +8 elements, text, read as float64$" "text data line"
run "$MF" analyze "$WORK/x.f32"
expect_grep "$WORK/out" "^data +8 elements, raw float32$" "raw data line"

# every format can be a target but f64
run "$MF" analyze "$WORK/x.npy" --formats f32,f16,bf16,e4m3,e5m2,e2m3,e3m2,e2m1,e8m0
expect_rc 0 "all formats"
table_row "" f32 f16 bf16 e4m3 e5m2 e2m3 e3m2 e2m1 e8m0
table_row overflow 0 '1 \(12.5%\)' 0 '2 \(25%\)' '2 \(25%\)' '2 \(25%\)' '2 \(25%\)' '2 \(25%\)' 0
# the FNUZ and IEEE-style FP8 formats: e4m3fnuz (max 240, min subnormal 2^-10), e4m3ieee (240, 2^-9),
# e3m4 (15.5, 2^-6) and e5m2fnuz (57344, 2^-17). 65504 and 65520 overflow all but e5m2fnuz (61440 and
# above: NaN there too), to NaN in the fnuz formats, to inf in the others; 2^-26 and 2^-20 flush to 0
# everywhere (2^-20 < 2^-18, half e5m2fnuz's smallest subnormal); 1 and -2 are exact, so the relative
# errors are those of e4m3: 4 elements, two of error 1.
WHAT="new FP8 formats"
run "$MF" analyze "$WORK/x.npy" --formats e4m3fnuz,e5m2fnuz,e4m3ieee,e3m4
expect_rc 0 "$WHAT"
expect_grep "$WORK/out" '^rounding rn, overflow IEEE \(inf, NaN for e4m3 and the fnuz formats\)$' "$WHAT: rounding line"
table_row "" e4m3fnuz e5m2fnuz e4m3ieee e3m4
table_row '  to inf/NaN' '2 \(25%\)' '2 \(25%\)' '2 \(25%\)' '2 \(25%\)'
table_row 'underflow to 0' '2 \(25%\)' '2 \(25%\)' '2 \(25%\)' '2 \(25%\)'
table_row 'rel err mean' 0.5 0.5 0.5 0.5
table_row 'max finite' 240 57344 240 15.5

# an empty tensor and an all-NaN one are reported, not refused
npy_write "$WORK/empty.npy" '<f4' '(0,)' ''
run "$MF" analyze "$WORK/empty.npy"
expect_rc 0 "empty tensor"
expect_grep "$WORK/out" "no finite nonzero elements" "empty tensor: histogram"
table_row overflow 0 0 0 0 0
npy_write "$WORK/nan.npy" '<f4' '(2,)' '\000\000\300\177\000\000\200\177'
run "$MF" analyze "$WORK/nan.npy"
expect_rc 0 "NaN and inf"
expect_grep "$WORK/out" "^values +0 finite nonzero, 0 zero, 1 NaN, 1 inf$" "NaN and inf: values line"
table_row 'safe scales' any any any any any

finish 87

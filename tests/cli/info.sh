# SPDX-License-Identifier: MIT
# cli_info: the format table. Every expected value is derived by hand from the format definitions:
#   max = (2 - 2^-m) * 2^(emax) with the top codes the format reserves, min normal = 2^(1-bias),
#   min subnormal = 2^(1-bias-m), epsilon = 2^-m.
. "$(dirname "$0")/common.sh"

run "$MF" info
expect_rc 0 "minifloat info"
cp "$WORK/out" "$WORK/info_all"

# Summary rows: format, bits, S-E-M, bias, max (%.17g).
#   f32  (2-2^-23)*2^127 = FLT_MAX             = 3.4028234663852886e+38
#   f16  (2-2^-10)*2^15                        = 65504
#   bf16 (2-2^-7)*2^127 = 1.9921875*2^127      = 3.3895313892515355e+38
#   e4m3 S.1111.111 is NaN, so 1.110b*2^(15-7) = 1.75*256 = 448
#   e5m2 exponent 11111 is inf/NaN: 1.11b*2^(30-15) = 1.75*32768 = 57344
#   e2m3 1.111b*2^(3-1) = 1.875*4 = 7.5;  e3m2 1.11b*2^(7-3) = 1.75*16 = 28;  e2m1 1.1b*2^(3-1) = 6
#   e8m0 code 0xFE: 2^(254-127) = 2^127   = 1.7014118346046923e+38
#   e4m3fnuz    bias 8, only 0x80 is special: 1.111b*2^(15-8) = 1.875*128 = 240
#   e5m2fnuz    bias 16, no inf: 1.11b*2^(31-16) = 1.75*32768 = 57344
#   e4m3b11fnuz bias 11: 1.111b*2^(15-11) = 1.875*16 = 30
#   e4m3ieee    exponent 1111 is inf/NaN: 1.111b*2^(14-7) = 240
#   e3m4        exponent 111 is inf/NaN: 1.1111b*2^(6-3) = 1.9375*8 = 15.5
while read -r fmt bits sem bias max; do
    expect_grep "$WORK/info_all" "^$fmt +$bits +$sem +$bias +$max " "info summary row of $fmt"
done <<'ROWS'
f32  32 1-8-23 127 3\.4028234663852886e\+38
f16  16 1-5-10 15  65504
bf16 16 1-8-7  127 3\.3895313892515355e\+38
e4m3 8  1-4-3  7   448
e5m2 8  1-5-2  15  57344
e2m3 6  1-2-3  1   7\.5
e3m2 6  1-3-2  3   28
e2m1 4  1-2-1  1   6
e8m0 8  0-8-0  127 1\.7014118346046923e\+38
e4m3fnuz    8 1-4-3 8  240
e5m2fnuz    8 1-5-2 16 57344
e4m3b11fnuz 8 1-4-3 11 30
e4m3ieee    8 1-4-3 7  240
e3m4        8 1-3-4 3  15\.5
ROWS
# specials column: NaN only for the fnuz formats, inf and NaN for the IEEE-style ones
expect_grep "$WORK/info_all" '^e4m3b11fnuz +8 +1-4-3 +11 +30 +NaN +FP8 E4M3 b11 fnuz' "info summary: e4m3b11fnuz specials"
expect_grep "$WORK/info_all" '^e3m4 +8 +1-3-4 +3 +15\.5 +inf, NaN +' "info summary: e3m4 specials"

# Exactly forty-five formats (fourteen, and the 31 IEEE P3109 ones), each with its own block (a line: the tag,
# two spaces, the title), in the order of the table of formats.
n=$(grep -Ec '^(f32|f16|bf16|e4m3|e5m2|e2m3|e3m2|e2m1|e8m0|e4m3fnuz|e5m2fnuz|e4m3b11fnuz|e4m3ieee|e3m4|binary8p[1-8][su][ef]|binary4p2sf)  [^ ]' \
    "$WORK/info_all")
[ "$n" -eq 45 ] && pass || fail "info: $n format blocks, want 45"
order=$(sed -n 's/^\([a-z][a-z0-9]*\)  [^ ].*/\1/p' "$WORK/info_all" | tr '\n' ' ')
[ "$order" = "f32 f16 bf16 e4m3 e5m2 e2m3 e3m2 e2m1 e8m0 e4m3fnuz e5m2fnuz e4m3b11fnuz e4m3ieee e3m4 binary8p1se binary8p1sf binary8p2se binary8p2sf binary8p3se binary8p3sf binary8p4se binary8p4sf binary8p5se binary8p5sf binary8p6se binary8p6sf binary8p7se binary8p7sf binary8p1ue binary8p1uf binary8p2ue binary8p2uf binary8p3ue binary8p3uf binary8p4ue binary8p4uf binary8p5ue binary8p5uf binary8p6ue binary8p6uf binary8p7ue binary8p7uf binary8p8ue binary8p8uf binary4p2sf " ] && pass ||
    fail "info: blocks in the order '$order'"

# Details spread over the blocks (max code, hex-floats, specials).
#   f16 min subnormal 2^-24 = 5.9604644775390625e-08, code 0x0001
#   e5m2 +inf = 0.11111.00 = 0x7c, -inf 0xfc; NaN 0x7d..0x7f
#   e2m1 max 6 = 0.11.1 = 0x7; e2m3 -0 = 1.00.000 = 0x20 (6-bit sign)
#   e8m0 smallest value 2^-127 = 5.8774717541114375e-39 at code 0x00; no subnormals
expect_grep "$WORK/info_all" '^  min subnormal +5\.9604644775390625e-08 +0x1p-24 +code 0x0001$' "f16 min subnormal"
expect_grep "$WORK/info_all" '^  infinity +\+inf 0x7c, -inf 0xfc$' "e5m2 infinities"
expect_grep "$WORK/info_all" '^  NaN +0x7d\.\.0x7f, 0xfd\.\.0xff; rounding a NaN gives 0x7f$' "e5m2 NaNs"
expect_grep "$WORK/info_all" '^  max +6 +0x1\.8p\+2 +code 0x7$' "e2m1 max"
expect_grep "$WORK/info_all" '^  zero +\+0 0x00, -0 0x20$' "FP6 zeros"
expect_grep "$WORK/info_all" '^  min normal +5\.8774717541114375e-39 +0x1p-127 +code 0x00$' "e8m0 smallest"
expect_grep "$WORK/info_all" '^  max +3\.4028234663852886e\+38 +0x1\.fffffep\+127 +code 0x7f7fffff$' "f32 max"

# The new FP8 formats' specials, by hand:
#   e4m3ieee  +inf = 0.1111.000 = 0x78, -inf 0xf8; NaN 0x79..0x7f and 0xf9..0xff
#   e3m4      max 15.5 = 1.1111b*2^3 = 0x1.fp+3 at 0.110.1111 = 0x6f; min normal 2^(1-3) = 0.25 at 0.001.0000
#             = 0x10; min subnormal 2^(1-3-4) = 2^-6; +inf 0.111.0000 = 0x70
#   e5m2fnuz  min subnormal 2^(1-16-2) = 2^-17 = 7.62939453125e-06; e4m3b11fnuz 2^(1-11-3) = 2^-13
#   the fnuz formats: one zero, one NaN (0x80)
run "$MF" info e4m3ieee
expect_grep "$WORK/out" '^  infinity +\+inf 0x78, -inf 0xf8$' "e4m3ieee infinities"
expect_grep "$WORK/out" '^  NaN +0x79\.\.0x7f, 0xf9\.\.0xff; rounding a NaN gives 0x7f$' "e4m3ieee NaNs"
expect_grep "$WORK/out" '^  max +240 +0x1\.ep\+7 +code 0x77$' "e4m3ieee max"
run "$MF" info e3m4
expect_grep "$WORK/out" '^  max +15\.5 +0x1\.fp\+3 +code 0x6f$' "e3m4 max"
expect_grep "$WORK/out" '^  min normal +0\.25 +0x1p-2 +code 0x10$' "e3m4 min normal"
expect_grep "$WORK/out" '^  min subnormal +0\.015625 +0x1p-6 +code 0x01$' "e3m4 min subnormal"
expect_grep "$WORK/out" '^  infinity +\+inf 0x70, -inf 0xf0$' "e3m4 infinities"
run "$MF" info float8_e5m2fnuz
expect_grep "$WORK/out" '^  min subnormal +7\.62939453125e-06 +0x1p-17 +code 0x01$' "e5m2fnuz min subnormal"
expect_grep "$WORK/out" '^  NaN +0x80 only; rounding a NaN gives 0x80$' "e5m2fnuz NaN"
run "$MF" info e4m3b11fnuz
expect_grep "$WORK/out" '^  min subnormal +0\.0001220703125 +0x1p-13 +code 0x01$' "e4m3b11fnuz min subnormal"
expect_grep "$WORK/out" '^  zero +\+0 0x00, no -0 ' "e4m3b11fnuz zero"
# ml_dtypes' float8_e4m3 is the IEEE-style e4m3ieee, not e4m3 (float8_e4m3fn)
run "$MF" info float8_e4m3
expect_grep "$WORK/out" '^e4m3ieee  ' "info float8_e4m3 is e4m3ieee"

# The P3109 kinds' specials, by hand from the report's parameters (signed: K - P exponent bits, bias 2^(K-P-1);
# unsigned: K - P + 1 bits, bias 2^(K-P); one zero, one NaN; infinities only in the extended formats):
#   binary8p4se  bias 8: max 1.75 * 2^7 = 224 at 0x7e (0x7f is +inf, 0xff -inf); min normal 2^-7 at 0x08; NaN 0x80
#   binary8p3ue  6 exponent bits, bias 32: min normal 2^(1-32) = 2^-31 at 0x04 (two mantissa bits); +inf 0xfe only
#   binary8p1uf  8 exponent bits, bias 128, no mantissa: code 0 is zero, code 1 = 2^-127, max 2^126 at 0xfe, NaN 0xff
#   binary4p2sf  bias 2: max 1.5 * 2 = 3 at 0x7, min normal 2^-1 at 0x2, NaN 0x8, no infinity
run "$MF" info binary8p4se
expect_grep "$WORK/out" '^  max +224 +0x1\.cp\+7 +code 0x7e$' "binary8p4se max"
expect_grep "$WORK/out" '^  min normal +0\.0078125 +0x1p-7 +code 0x08$' "binary8p4se min normal"
expect_grep "$WORK/out" '^  infinity +\+inf 0x7f, -inf 0xff$' "binary8p4se infinities"
expect_grep "$WORK/out" '^  NaN +0x80 only; rounding a NaN gives 0x80$' "binary8p4se NaN"
run "$MF" info binary8p3ue
expect_grep "$WORK/out" '^  bits +8 = exponent 6 \+ mantissa 2 \(unsigned: no sign\)' "binary8p3ue fields"
expect_grep "$WORK/out" '^  min normal +4\.6566128730773926e-10 +0x1p-31 +code 0x04$' "binary8p3ue min normal"
expect_grep "$WORK/out" '^  infinity +\+inf 0xfe, no -inf$' "binary8p3ue infinity"
expect_grep "$WORK/out" '^  NaN +0xff; rounding a NaN gives 0xff$' "binary8p3ue NaN"
run "$MF" info binary8p1uf
expect_grep "$WORK/out" '^  bias +128 +\(value = 2\^\(code - 128\) for code >= 1\)$' "binary8p1uf values"
expect_grep "$WORK/out" '^  min normal +5\.8774717541114375e-39 +0x1p-127 +code 0x01$' "binary8p1uf min normal"
expect_grep "$WORK/out" '^  max +8\.5070591730234616e\+37 +0x1p\+126 +code 0xfe$' "binary8p1uf max"
expect_grep "$WORK/out" '^  infinity +none$' "binary8p1uf no infinity"
run "$MF" info binary4p2sf
expect_grep "$WORK/out" '^  max +3 +0x1\.8p\+1 +code 0x7$' "binary4p2sf max"
expect_grep "$WORK/out" '^  min normal +0\.5 +0x1p-1 +code 0x2$' "binary4p2sf min normal"
expect_grep "$WORK/out" '^  NaN +0x8 only; rounding a NaN gives 0x8$' "binary4p2sf NaN"

# The whole e4m3fnuz block, written by hand in tests/cli/expected/info_e4m3fnuz.txt.
for name in e4m3fnuz FLOAT8_E4M3FNUZ; do
    run "$MF" info $name
    expect_rc 0 "info $name"
    same "$HERE/expected/info_e4m3fnuz.txt" "$WORK/out" "info $name"
done

# One format: the whole e4m3 block, written by hand in tests/cli/expected/info_e4m3.txt.
for name in e4m3 E4M3 fp8_e4m3 float8_e4m3fn; do
    run "$MF" info $name
    expect_rc 0 "info $name"
    same "$HERE/expected/info_e4m3.txt" "$WORK/out" "info $name"
done

# f64 is describable too (a source format): max = (2-2^-52)*2^1023.
run "$MF" info f64
expect_rc 0 "info f64"
expect_grep "$WORK/out" '^  max +1\.7976931348623157e\+308 +0x1\.fffffffffffffp\+1023 +code 0x7fefffffffffffff$' "f64 max"

run "$MF" info e9m9
expect_rc 2 "info with an unknown format"
expect_grep "$WORK/err" "unknown format 'e9m9'" "info unknown format message"

finish 65

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
ROWS

# Exactly nine formats, each with its own block (a line: the tag, two spaces, the title).
n=$(grep -Ec '^(f32|f16|bf16|e4m3|e5m2|e2m3|e3m2|e2m1|e8m0)  [^ ]' "$WORK/info_all")
[ "$n" -eq 9 ] && pass || fail "info: $n format blocks, want 9"

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

finish 30

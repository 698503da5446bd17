# SPDX-License-Identifier: MIT
# cli_convert_text: `minifloat convert --text` (one number per line) and --hex (codes), on vectors
# whose expected column is derived by hand (the "why" column).
. "$(dirname "$0")/common.sh"

# f32 -> e4m3, rn, saturating. Text input is rounded (rn) into f32 first; every input here is
# exact in f32 except 0.001 and 3.14159, whose f32 roundings sit in the same e4m3 interval.
vectors "f32->e4m3 rn sat" --text --from f32 --to e4m3 -r rn --saturate <<'V'
1000           448          # beyond max 448: saturates
-1000          -448
464            448          # midpoint of 448 (1.110b*2^8, even) and the virtual 480: ties to even
465            448          # nearer 480: an overflow, saturated to max
448            448          # exact
0.001          0.001953125  # 0.512 subnormal steps of 2^-9 -> one step
0.0009765625   0            # 2^-10, half a step: tie between 0 (even) and 2^-9 -> 0
0.00146484375  0.001953125  # 0.75 steps -> 1
nan            nan          # the canonical NaN
-nan           nan          # ... with the sign clear
inf            448          # saturating: inf -> max
-inf           -448
1.0625         1            # midpoint of 1 (1.000b) and 1.125 (1.001b): to even
0x1.3p+0       1.25         # 1.1875 = midpoint of 1.125 (odd) and 1.25 (1.010b, even)
-0             -0
3.14159        3.25         # between 3 and 3.25, above the midpoint 3.125
V

# The same, as codes: 448 = 0.1111.110, -0 = 0x80, NaN = 0.1111.111 = 0x7f.
vectors "f32->e4m3 rn sat, hex out" --text-in --hex-out --from f32 --to e4m3 --sat <<'V'
1000     0x7e
-1000    0xfe
464      0x7e
0.001    0x01
nan      0x7f
-0       0x80
2        0x40               # 1.000b*2^1: exponent 1+7 = 1000
V

# IEEE overflow: e4m3 has no inf, so rn overflow and inf inputs give NaN.
vectors "f32->e4m3 rn ieee" --text --from f32 --to e4m3 <<'V'
1000     nan
465      nan
-inf     nan
448      448
V

# One rounding from f64; two roundings through f32.
#   f64 -431.99999999999994 is just below the midpoint 432 of 416 and 448 -> -416.
#   In f32 it becomes -432 (f32 spacing there is 2^-15), a tie -> -448 (1.110b, even).
vectors "f64->e4m3" --text --from f64 --to e4m3 <<'V'
-431.99999999999994   -416
V
vectors "default --from f64" --text --to e4m3 <<'V'
-431.99999999999994   -416
V
vectors "f32->e4m3 (double rounding)" --text --from f32 --to e4m3 <<'V'
-431.99999999999994   -448
V

# f64 -> f16, rn, IEEE.
vectors "f64->f16 rn" --text --to f16 <<'V'
65504                   65504
65519.99                65504          # below the midpoint 65520 of 65504 and the virtual 65536
65520                   inf            # the midpoint: 65504 (0x7bff) is odd -> 65536 -> overflow
-65520                  -inf
5.9604644775390625e-08  5.96046448e-08 # 2^-24, the smallest subnormal (%.9g)
2.98023223876953125e-08 0              # 2^-25, half of it: tie to even -> 0
1e-9                    0
1.00048828125           1              # 1 + 2^-11: midpoint of 1 and 1 + 2^-10 -> even 1
1.00146484375           1.00195312     # 1 + 3*2^-11: midpoint of 1+2^-10 (odd) and 1+2^-9 -> 1.001953125
V

# Every mode on e5m2 (step 0.25 in [1,2)): 1.1 (f = 0.4), 1.125 (a tie), -1.125, 1.375 (tie of
# 1.25 = 1.01b, odd, and 1.5 = 1.10b, even). ro truncates and sets the last code bit if inexact.
vectors "e5m2 rn"  --text --to e5m2 -r rn  <<'V'
1.1 1
1.125 1
-1.125 -1
1.375 1.5
V
vectors "e5m2 rna" --text --to e5m2 -r rna <<'V'
1.1 1
1.125 1.25
-1.125 -1.25
1.375 1.5
V
vectors "e5m2 rz"  --text --to e5m2 -r rz  <<'V'
1.1 1
1.125 1
-1.125 -1
1.375 1.25
V
vectors "e5m2 ru"  --text --to e5m2 -r ru  <<'V'
1.1 1.25
1.125 1.25
-1.125 -1
1.375 1.5
V
vectors "e5m2 rd"  --text --to e5m2 -r rd  <<'V'
1.1 1
1.125 1
-1.125 -1.25
1.375 1.25
V
vectors "e5m2 ro"  --text --to e5m2 -r ro  <<'V'
1.1 1.25          # truncates to 1.00b (code 0x3c, even), inexact -> 0x3d = 1.25
1.125 1.25
-1.125 -1.25
1.375 1.25        # truncates to 1.01b, already odd
V

# Decoding is exact; NaNs keep sign and payload and become quiet (bf16 is a plain shift).
vectors "e4m3 -> f32 codes" --hex --from e4m3 --to f32 <<'V'
7e      0x43e00000   # 448 = 1.75*2^8: exponent 135 = 0x87
0x80    0x80000000   # -0
01      0x3b000000   # 2^-9: exponent 118
7f      0x7ff00000   # NaN, mantissa 111 -> payload bits 22..20
ff      0xfff00000
V
vectors "f16 -> f32 codes" --hex --from f16 --to f32 <<'V'
7c01    0x7fc02000   # quiet bit set, payload 1 shifted by 13
3c00    0x3f800000
0001    0x33800000   # 2^-24: exponent 103 = 0x67
fc00    0xff800000
V
vectors "e5m2 -> f32 codes" --hex --from e5m2 --to f32 <<'V'
ff      0xffe00000   # quiet | payload 11
V
vectors "bf16 -> f32 codes" --hex --from bf16 --to f32 <<'V'
7f81    0x7f810000   # plain 16-bit shift: stays signalling
3f80    0x3f800000
V
vectors "e8m0 -> f32 codes" --hex --from e8m0 --to f32 <<'V'
ff      0x7fc00000
00      0x00400000   # 2^-127, an f32 subnormal
7f      0x3f800000   # 2^0
V
vectors "e2m1 codes -> f64 values" --hex-in --text-out --from e2m1 --to f64 <<'V'
0 0
1 0.5
2 1
3 1.5
4 2
5 3
6 4
7 6
8 -0
9 -0.5
a -1
b -1.5
c -2
d -3
e -4
f -6
V
# f64 output prints %.17g: the f32 nearest 0.1 is 0.100000001490116119384765625.
vectors "f32 -> f64 text" --text --from f32 --to f64 <<'V'
0.1   0.10000000149011612
V
vectors "f64 hex out" --text-in --hex-out --from f64 --to f64 <<'V'
1    0x3ff0000000000000
-2   0xc000000000000000
V

# --stats: f32 -> e4m3 rn IEEE on seven values, counted by hand:
#   1000 overflow+inexact, 464 inexact, 0.001 subnormal+inexact, nan nan, 1 nothing,
#   0.0001 (0.05 of a step) underflow+inexact, -3.14159 inexact.
printf '1000\n464\n0.001\nnan\n1\n0.0001\n-3.14159\n' >"$WORK/stats_in"
run "$MF" convert --text --from f32 --to e4m3 --stats --chunk 2 <"$WORK/stats_in"
expect_rc 0 "convert --stats"
expect_grep "$WORK/err" '^minifloat: stats: 7 elements, f32 -> e4m3, rn, ieee$' "stats header"
expect_grep "$WORK/err" '^  overflow +1$' "stats overflow"
expect_grep "$WORK/err" '^  underflow +1$' "stats underflow"
expect_grep "$WORK/err" '^  subnormal +1$' "stats subnormal"
expect_grep "$WORK/err" '^  nan +1$' "stats nan"
expect_grep "$WORK/err" '^  inexact +5$' "stats inexact"
[ "$(wc -l <"$WORK/out")" -eq 7 ] && pass || fail "stats: 7 output lines"

# Text oddities: blank lines are skipped, CR-LF endings accepted, long lines read whole.
printf '1.5\r\n\n  -2  \n' | "$MF" convert --text --to e4m3 >"$WORK/odd" 2>"$WORK/err"
printf '1.5\n-2\n' >"$WORK/odd_want"
same "$WORK/odd_want" "$WORK/odd" "blank lines and CR-LF"
awk 'BEGIN { s = "1."; for (i = 0; i < 5000; i++) s = s "0"; print s "1" }' >"$WORK/long_in"
run sh -c '"$1" convert --text --to f16 <"$2"' sh "$MF" "$WORK/long_in"
expect_rc 0 "a 5000-digit line"
[ "$(cat "$WORK/out")" = 1 ] && pass || fail "a 5000-digit line: got '$(cat "$WORK/out")', want 1"

# A bad line: the lines before it are converted, then exit 1 with the line number.
printf '1\n2\n\nfoo\n3\n' >"$WORK/bad_in"
run sh -c '"$1" convert --text --to f16 <"$2"' sh "$MF" "$WORK/bad_in"
expect_rc 1 "unparsable line"
expect_grep "$WORK/err" "^minifloat: convert: line 4: 'foo' is not a number$" "unparsable line message"
[ "$(cat "$WORK/out" | tr '\n' ' ')" = "1 2 " ] && pass || fail "lines before the bad one: got '$(cat "$WORK/out")'"
for bad in 1ff 0x -1 g 0x7e0; do
    run sh -c 'printf "%s\n" "$2" | "$1" convert --hex --from e4m3 --to f32' sh "$MF" "$bad"
    expect_rc 1 "hex code '$bad'"
    expect_grep "$WORK/err" "^minifloat: convert: line 1: .* is not a hexadecimal e4m3 code" "hex code '$bad' message"
done

finish 120

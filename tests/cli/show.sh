# SPDX-License-Identifier: MIT
# cli_show: `minifloat show X` rounds X into every format (the fourteen of `minifloat info`). Each expected code is derived by hand
# from the format's grid around X (comments), never taken from the tool.
. "$(dirname "$0")/common.sh"

esc() { printf '%s' "$1" | sed 's/[].[|+*?()^$\\]/\\&/g'; }

# row FMT CODE VALUE EVENTS: the last `run` printed this row (fields: format code bits value error events).
row() {
    expect_grep "$WORK/out" "^$1 +$(esc "$2") +[01|]+ +$(esc "$3") +[^ ]+ +$(esc "$4")\$" "show $ARGS: $1 row"
}
show() { ARGS="$*"; run "$MF" show "$@"; expect_rc 0 "show $ARGS"; }

# 3.14159, rn, the whole table (tests/cli/expected/show_pi.txt, written by hand):
#   f32  2^1 * 1.570795: mantissa 0.570795*2^23 = 4788175.5+ -> 4788176 = 0x490fd0 -> 0x40490fd0
#   f16  step 2^-9 in [2,4): 3.14159/2^-9 = 1608.49 -> 1608*2^-9 = 3.140625, mantissa 584 -> 0x4248
#   bf16 step 2^-6: 201.06 -> 201*2^-6 = 3.140625 -> 0.10000000.1001001 = 0x4049
#   e4m3 step 0.25: 3.0 (0x44) < 3.14159 < 3.25 (0x45), above the midpoint 3.125 -> 0x45
#   e5m2 step 0.5: 3.0 (0.10000.10 = 0x42) vs 3.5, below 3.25 -> 0x42
#   e2m3 step 0.25 (bias 1, E=2): 3.25 = 0.10.101 = 0x15;  e3m2 step 0.5: 3 = 0.100.10 = 0x12
#   e2m1 step 1: 3 = 0.10.1 = 0x5;  e8m0 between 2 and 4, above the linear midpoint 3 -> 4 = 0x81
#   relative errors |y - x|/x, e.g. e4m3 (3.25 - 3.14159)/3.14159 = 3.451e-02
# The FNUZ and IEEE-style FP8 formats follow e8m0 (same grid as e4m3/e5m2 in [2,4), other biases):
#   e4m3fnuz    bias 8: E = 1+8 = 1001, step 0.25 -> 3.25 = 0|1001|101 = 0x4d
#   e5m2fnuz    bias 16: E = 1+16 = 10001, step 0.5 -> 3 = 0|10001|10 = 0x46
#   e4m3b11fnuz bias 11: E = 1+11 = 1100 -> 3.25 = 0|1100|101 = 0x65
#   e4m3ieee    bias 7, as e4m3 below its top binade -> 0x45
#   e3m4        bias 3: E = 1+3 = 100, step 2^-3: 3.14159/0.125 = 25.13 -> 25*0.125 = 3.125 = 1.1001b*2
#               = 0|100|1001 = 0x49, rel. error 0.01659/3.14159 = 5.281e-03
# The IEEE P3109 formats follow (docs/formats.md, "IEEE P3109"; every code checked against gfloat 0.5.2):
#   binary8pP<s|u>: step 2^(2-P) in [2,4): P = 1 -> 4 (above the midpoint 3), P = 2, 3 -> 3, P = 4 -> 3.25,
#   P = 5, 6 -> 3.125, P = 7 unsigned -> 3.15625 (101 * 2^-5); signed exponent field 1 + 2^(7-P), unsigned
#   1 + 2^(8-P); beyond max (P = 7 signed: 1.984375, P = 8 unsigned: 1.9765625 / 1.984375) SatNone gives
#   +inf in the extended formats (0x7f, 0xfe) and NaN in the finite ones (0x80, 0xff);
#   binary4p2sf: max 3 = 0|11|1 = 0x7
show 3.14159
same "$HERE/expected/show_pi.txt" "$WORK/out" "show 3.14159"

# Ties and overflow (the rules of docs/rounding.md):
#   464 = midpoint of 448 (1.110b*2^8, even) and the virtual 480 -> 448 = 0x7e
show 464
row e4m3 0x7e 448 inexact
#   465 is nearer the virtual 480: overflow; IEEE rn on e4m3 gives NaN 0x7f, saturating gives 448
show 465
row e4m3 0x7f nan overflow,inexact
show 465 --sat
row e4m3 0x7e 448 overflow,inexact
#   61440 = midpoint of 57344 (1.11b*2^15, odd) and 65536 (even) -> overflow -> +inf 0x7c
show 61440
row e5m2 0x7c inf overflow,inexact
#   5 between 4 (1.0b*2^2, even) and 6 (odd) -> 4 = 0.11.0 = 0x6
show 5
row e2m1 0x6 4 inexact
#   0.25 = midpoint of 0 (even) and 0.5 (subnormal code 1) -> +0, an underflow
show 0.25
row e2m1 0x0 0 underflow,inexact
#   f64 -431.99999999999994 is below the midpoint 432 of 416 and 448: -416 = 1.1111.101 = 0xfd
show -431.99999999999994
row e4m3 0xfd -416 inexact
#   0.001 / 2^-9 = 0.512 -> one subnormal step: 0x01 = 0.001953125
show 0.001
row e4m3 0x01 0.001953125 subnormal,inexact
#   1e-5 / 2^-9 = 0.005 -> 0
show 1e-5
row e4m3 0x00 0 underflow,inexact
#   hex-float input: 0x1.8p+1 = 3 is exact in e4m3 (1.100b*2^1 = 0.1000.100)
show 0x1.8p+1
row e4m3 0x44 3 exact

# Directed modes.
#   rz: 3.14159 -> e4m3 3.0 = 0x44; e8m0 2^floor(log2 x) = 2 = code 128 = 0x80
show 3.14159 -r rz
row e4m3 0x44 3 inexact
row e8m0 0x80 2 inexact
#   ru 464: e5m2 neighbours 448 (1.11b*2^8) and 512 = 1.00b*2^9 = 0.11000.00 = 0x60
show --round ru 464
row e5m2 0x60 512 inexact
#   ru on a finite overflow in e4m3 (IEEE): 465 rounds up to the virtual 480 -> NaN
show 465 -r ru
row e4m3 0x7f nan overflow,inexact
#   rz truncates 465 to 448: within range, so no overflow event
show 465 -r rz
row e4m3 0x7e 448 inexact
#   rz of 1000 truncates to the virtual 960 (1.111b*2^9) > 448: an overflow, clamped to max by rz
show 1000 -r rz
row e4m3 0x7e 448 overflow,inexact

# Stochastic: up iff f*2^32 + rbits >= 2^32.
#   e2m1 between 3 and 4, f = 0.14159: rbits 0 -> 3 (0x5), rbits 0xffffffff -> 4 (0x6)
show 3.14159 -r sr --rbits 0
row e2m1 0x5 3 inexact
show 3.14159 -r sr --rbits 0xffffffff
row e2m1 0x6 4 inexact
#   e8m0 between 2 and 4, f = (3.14159-2)/2 = 0.5708: rbits 0.5 -> up (4), rbits 0.42578125 -> down (2)
show 3.14159 -r sr --rbits 0x80000000
row e8m0 0x81 4 inexact
show 3.14159 -r sr --rbits 0x6d000000
row e8m0 0x80 2 inexact
expect_grep "$WORK/out" '^rounding sr \(rbits 0x6d000000\), overflow ieee$' "show sr header"

# Specials.
#   NaN -> canonical NaN with the sign clear; +max for FP6/FP4
show nan
row f16 0x7fff nan nan
row e4m3 0x7f nan nan
row e2m1 0x7 6 nan
#   -inf: IEEE keeps inf where it exists, NaN for e4m3, -max for FP6; saturating gives -max
show -inf
row e5m2 0xfc -inf exact
row e4m3 0x7f nan overflow,inexact
row e3m2 0x3f -28 overflow,inexact
show -inf --saturate
row e5m2 0xfb -57344 overflow,inexact
#   0: absolute error column; e8m0 has no zero: 2^-127 at code 0x00
show 0
expect_grep "$WORK/out" '^format +code +sign\|exponent\|mantissa +value +abs\. error +events$' "show 0 header"
row e8m0 0x00 5.8774717541114375e-39 inexact
row e4m3 0x00 0 exact
#   e8m0 is unsigned: -4 stores |x| = 4 = 2^2 = code 129 (the events column says |x|)
show -4
expect_grep "$WORK/out" '^e8m0 +0x81 +10000001 +4 +0 +.*\|x\|$' "show -4: e8m0 row"
row e4m3 0xc8 -4 exact

# The FNUZ formats (0x80 is the one NaN, no -0, no inf) and the IEEE-style e4m3ieee and e3m4
# (docs/formats.md, "The FNUZ and the IEEE-style FP8 formats").
#   1: e4m3fnuz E = 0+8 = 1000 -> 0x40; e5m2fnuz E = 16 = 10000 -> 0x40; e4m3b11fnuz E = 11 = 1011 -> 0x58;
#      e4m3ieee 0x38 (as e4m3); e3m4 E = 3 = 011 -> 0|011|0000 = 0x30
show 1
row e4m3fnuz 0x40 1 exact
row e5m2fnuz 0x40 1 exact
row e4m3b11fnuz 0x58 1 exact
row e4m3ieee 0x38 1 exact
row e3m4 0x30 1 exact
#   248 = midpoint of max 240 (1.111b*2^7, odd) and the virtual 256: ties to 256, an overflow:
#   e4m3fnuz NaN 0x80 (decoded with its sign bit set: -nan), e4m3ieee +inf 0x78 (0|1111|000);
#   e5m2fnuz has 256 = 1.00b*2^8 = 0|11000|00 = 0x60 (248 is 7/8 of the way from 224 to 256)
show 248
row e4m3fnuz 0x80 -nan overflow,inexact
row e4m3ieee 0x78 inf overflow,inexact
row e5m2fnuz 0x60 256 inexact
#   saturating: +max, e4m3fnuz 0|1111|111 = 0x7f, e4m3ieee 0|1110|111 = 0x77
show 248 --sat
row e4m3fnuz 0x7f 240 overflow,inexact
row e4m3ieee 0x77 240 overflow,inexact
#   31 = midpoint of e4m3b11fnuz's max 30 (1.111b*2^4) and 32: NaN; 15.75 = midpoint of e3m4's max
#   15.5 (1.1111b*2^3, odd) and 16: +inf 0|111|0000 = 0x70; 61440 as for e5m2: e5m2fnuz NaN
show 31
row e4m3b11fnuz 0x80 -nan overflow,inexact
show 15.75
row e3m4 0x70 inf overflow,inexact
show 61440
row e5m2fnuz 0x80 -nan overflow,inexact
#   -0 and a negative value that rounds to zero: +0 in the fnuz formats, -0 (0x80) in the others
show -0
row e4m3fnuz 0x00 0 exact
row e4m3ieee 0x80 -0 exact
row e3m4 0x80 -0 exact
show -1e-6
row e5m2fnuz 0x00 0 underflow,inexact
row e4m3b11fnuz 0x00 0 underflow,inexact
row e4m3ieee 0x80 -0 underflow,inexact
#   rd of a tiny negative value: the negative of the smallest subnormal, 0x81 = -2^(1-bias-m):
#   e4m3fnuz -2^-10, e5m2fnuz -2^-17 = -7.62939453125e-06, e4m3b11fnuz -2^-13
show -1e-6 -r rd
row e4m3fnuz 0x81 -0.0009765625 subnormal,inexact
row e5m2fnuz 0x81 -7.62939453125e-06 subnormal,inexact
row e4m3b11fnuz 0x81 -0.0001220703125 subnormal,inexact
#   NaN: 0x80 in the fnuz formats, the canonical 0x7f in e4m3ieee and e3m4
show nan
row e4m3b11fnuz 0x80 -nan nan
row e4m3ieee 0x7f nan nan
row e3m4 0x7f nan nan
#   -inf: NaN 0x80 in the fnuz formats (no inf), -inf in e4m3ieee (1|1111|000) and e3m4 (1|111|0000);
#   saturating: -max, 0xff in the fnuz formats, e4m3ieee 1|1110|111 = 0xf7, e3m4 1|110|1111 = 0xef
show -inf
row e4m3fnuz 0x80 -nan overflow,inexact
row e4m3ieee 0xf8 -inf exact
row e3m4 0xf0 -inf exact
show -inf --saturate
row e4m3fnuz 0xff -240 overflow,inexact
row e5m2fnuz 0xff -57344 overflow,inexact
row e4m3b11fnuz 0xff -30 overflow,inexact
row e4m3ieee 0xf7 -240 overflow,inexact
row e3m4 0xef -15.5 overflow,inexact

# Misuse: exit status 2 and a message.
for bad in "show" "show 1 2" "show abc" "show 1 -r rq" "show 1 --bogus" "show 1 -r" "show 1 --rbits 0x100000000"; do
    run "$MF" $bad
    expect_rc 2 "$bad"
    expect_grep "$WORK/err" '^minifloat: show: ' "$bad: message"
done

# Beyond binary64 (issue 37: 1e400 read as inf was shown "exact"). A finite number above DBL_MAX rounds as
# any number above a format's max does: IEEE rn gives inf (f16 0x7c00, rel. error inf) or e4m3's NaN, an
# overflow either way; saturating or rz gives +-max (f16 65504 = 0x7bff, e4m3 448 = 0x7e), still an overflow.
show 1e400
expect_grep "$WORK/out" "^x = 1e400 +\(beyond binary64's range, f64 inf: " "show 1e400 header"
row f16 0x7c00 inf overflow,inexact
row e4m3 0x7f nan overflow,inexact
expect_grep "$WORK/out" '^f16 +0x7c00 +[01|]+ +inf +inf +overflow,inexact$' "show 1e400: f16 rel. error inf"
show 1e400 --sat
row f16 0x7bff 65504 overflow,inexact
row e4m3 0x7e 448 overflow,inexact
expect_grep "$WORK/out" '^f16 +0x7bff +[01|]+ +65504 +1\.000e\+00 +overflow,inexact$' "show 1e400 --sat: rel. error 1"
show -1e400 -r rz
row f16 0xfbff -65504 overflow,inexact
show 0x1p1100
row bf16 0x7f80 inf overflow,inexact
# A nonzero number below binary64 (strtod gives 0) underflows: rn gives 0 with the sign kept (rel. error
# 1); ru gives the smallest subnormal (e4m3 2^-9 = 0x01, f16 2^-24 = 0x0001).
show 1e-400
expect_grep "$WORK/out" "^x = 1e-400 +\(below binary64's range, f64 0: " "show 1e-400 header"
row e4m3 0x00 0 underflow,inexact
row f32 0x00000000 0 underflow,inexact
expect_grep "$WORK/out" '^e4m3 +0x00 +[01|]+ +0 +1\.000e\+00 +underflow,inexact$' "show 1e-400: rel. error 1"
show -1e-400
row f16 0x8000 -0 underflow,inexact
show 1e-400 -r ru
row e4m3 0x01 0.001953125 subnormal,inexact
row f16 0x0001 5.9604644775390625e-08 subnormal,inexact
show 0x0.8p-2000
row e2m1 0x0 0 underflow,inexact
# Zero written with a large exponent is zero, and inf is inf: exact, as before.
show 0e999
row e4m3 0x00 0 exact
show inf
row f16 0x7c00 inf exact

finish 140

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

# --propagate (P3109's SatPropagate): finite overflow clamps as --sat does, an infinity stays where the format
# has one (f16, binary8p4se: 0x7f/0xff) and clamps where it has none (e4m3).
vectors "f32->f16 propagate" --text --from f32 --to f16 --propagate <<'V'
1e6      65504        # a finite overflow: max
-1e6     -65504
inf      inf          # kept
-inf     -inf
V
vectors "f32->binary8p4se propagate, hex out" --text-in --hex-out --from f32 --to binary8p4se --propagate <<'V'
1000     0x7e         # max 224 = 1.110b*2^7: exponent 7+8 = 1111, mantissa 110
inf      0x7f         # the infinity
-inf     0xff
V
vectors "f32->e4m3 propagate" --text --from f32 --to e4m3 --propagate <<'V'
inf      448          # no infinity in e4m3: max
1000     448
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

# The FNUZ formats (docs/formats.md): 0x80 is the one NaN, there is no -0 and no inf.
#   e4m3fnuz (bias 8, max 1.111b*2^7 = 240 at 0x7f, min subnormal 2^-10):
vectors "f64->e4m3fnuz rn" --text-in --hex-out --to e4m3fnuz <<'V'
1               0x40    # 1.000b*2^0: exponent 0+8 = 1000
-1              0xc0
240             0x7f    # max
247             0x7f    # below the midpoint 248
248             0x80    # midpoint of 240 (odd) and the virtual 256: overflow, NaN under IEEE overflow
0.0009765625    0x01    # 2^-10, the smallest subnormal
0.00048828125   0x00    # 2^-11: tie between 0 (even) and 2^-10 -> 0
-0.00048828125  0x00    # ... of either sign: no -0
-0              0x00
nan             0x80
-nan            0x80
inf             0x80    # no inf: NaN, as for e4m3
-inf            0x80
V
vectors "f64->e4m3fnuz rn sat" --text-in --hex-out --to e4m3fnuz --sat <<'V'
inf             0x7f    # saturating: +-max
-inf            0xff
1000            0x7f
nan             0x80
V
vectors "f64->e4m3fnuz rd" --text-in --hex-out --to e4m3fnuz -r rd <<'V'
-1e-9           0x81    # rd of a tiny negative value: -2^-10, not -0
1e-9            0x00
V
#   e5m2fnuz (bias 16, max 1.11b*2^15 = 57344 at 0x7f, min subnormal 2^-17);
#   e4m3b11fnuz (bias 11, max 1.111b*2^4 = 30 at 0x7f, min subnormal 2^-13)
vectors "f64->e5m2fnuz rn" --text-in --hex-out --to e5m2fnuz <<'V'
1                   0x40    # exponent 0+16 = 10000
57344               0x7f
61440               0x80    # midpoint of 57344 (odd) and 65536: overflow -> NaN
7.62939453125e-06   0x01    # 2^-17
V
vectors "f64->e4m3b11fnuz rn" --text-in --hex-out --to e4m3b11fnuz <<'V'
1                   0x58    # exponent 0+11 = 1011: 0.1011.000
30                  0x7f
-30                 0xff
31                  0x80    # midpoint of 30 and the virtual 32: NaN
0.0001220703125     0x01    # 2^-13
V
# The IEEE-style formats: e4m3ieee (bias 7, inf 0x78, max 1.111b*2^7 = 240 at 0x77) and e3m4 (bias 3,
# inf 0x70, max 1.1111b*2^3 = 15.5 at 0x6f, min subnormal 2^-6); -0 exists, NaN in gives 0x7f.
vectors "f64->e4m3ieee rn" --text-in --hex-out --to e4m3ieee <<'V'
1               0x38
240             0x77
248             0x78    # the midpoint to 256 ties to even: overflow -> +inf
448             0x78    # e4m3's max is beyond e4m3ieee's
-inf            0xf8
nan             0x7f
-0              0x80
0.001953125     0x01    # 2^-9
V
vectors "f64->e3m4 rn" --text-in --hex-out --to e3m4 <<'V'
1               0x30    # exponent 0+3 = 011: 0.011.0000
15.5            0x6f
15.7            0x6f    # below the midpoint 15.75
15.75           0x70    # midpoint of 15.5 (1.1111b, odd) and 16: +inf
3.14159         0x49    # step 2^-3 in [2,4): 25.13 steps -> 3.125 = 0.100.1001
0.015625        0x01    # 2^-6
-inf            0xf0
nan             0x7f
V
# Decoding: exact; the fnuz NaN 0x80 decodes with its sign bit set (f32 0xffc00000); an e3m4 NaN keeps
# its payload 0001 in bits 22..19, quieted: 0x7f800000 | 0x400000 | 0x080000.
vectors "e4m3fnuz -> f32 codes" --hex --from e4m3fnuz --to f32 <<'V'
80      0xffc00000
7f      0x43700000   # 240 = 1.875*2^7: exponent 134 = 0x86
01      0x3a800000   # 2^-10: exponent 117 = 0x75
81      0xba800000
00      0x00000000
V
vectors "e3m4 -> f32 codes" --hex --from e3m4 --to f32 <<'V'
70      0x7f800000   # +inf
f0      0xff800000
71      0x7fc80000
6f      0x41780000   # 15.5 = 1.9375*2^3: exponent 130, mantissa 1111 -> 0x41780000
V
# ml_dtypes' names: float8_e4m3 is e4m3ieee (inf 0x78), float8_e4m3fn is e4m3 (NaN 0x7f)
vectors "--to float8_e4m3" --text-in --hex-out --to float8_e4m3 <<'V'
inf     0x78
V
vectors "--to float8_e4m3fn" --text-in --hex-out --to float8_e4m3fn <<'V'
inf     0x7f
V

# Compatibility profiles (--profile, docs/compat.md): each row is a difference that page lists, with
# the default's code in the comment; finite values in range are the default's.
vectors "e4m3 ml_dtypes" --text-in --hex-out --to e4m3 --profile ml_dtypes <<'V'
-inf    0xff    # NaN made by an infinity keeps the sign: 0x7f | sign (default 0x7f)
inf     0x7f
-1000   0xff    # a finite overflow to NaN too
-nan    0xff    # NaN: 0x7f | sign (default 0x7f)
1       0x38
V
vectors "e4m3 default" --text-in --hex-out --to e4m3 --profile default <<'V'
-inf    0x7f
-nan    0x7f
V
vectors "ml_dtypes NaNs" --text-in --hex-out --to e5m2 --profile ML_DTYPES <<'V'
nan     0x7e    # sign | inf | quiet bit (default 0x7f)
-nan    0xfe
V
vectors "ml_dtypes e4m3ieee" --text-in --hex-out --to e4m3ieee --profile=ml_dtypes <<'V'
nan     0x7c    # 0x78 | quiet bit 0x04
-nan    0xfc
V
vectors "ml_dtypes e3m4" --text-in --hex-out --to e3m4 --profile ml_dtypes <<'V'
nan     0x78    # 0x70 | quiet bit 0x08
V
vectors "ml_dtypes e2m1" --text-in --hex-out --to e2m1 --profile ml_dtypes <<'V'
nan     0x8     # a zero of the opposite sign (default +max 0x7)
-nan    0x0
V
vectors "ml_dtypes e8m0" --text-in --hex-out --to e8m0 --profile ml_dtypes <<'V'
0       0xff    # x <= 0 has no e8m0 value: NaN (default 0x00)
-4      0xff    # (default |x| = 4: 0x81)
4       0x81
V
vectors "ml_dtypes e4m3fnuz" --text-in --hex-out --to e4m3fnuz --profile ml_dtypes <<'V'
nan     0x80    # the fnuz formats agree with the default
-0      0x00
V
vectors "torch e4m3" --text-in --hex-out --to e4m3 --profile torch <<'V'
inf     0x7e    # PyTorch's e4m3 always saturates, inf included (default NaN 0x7f)
-inf    0xfe
1000    0x7e
-nan    0xff    # 0x7f | sign
V
# PyTorch rounds an f64 source to f32 first: 1 + 2^-8 + 2^-32 becomes 1 + 2^-8 in f32, a bf16 tie that
# goes to even 1.0 (0x3f80); one rounding gives 0x3f81. The f32 subnormal 1.25*2^-127 gives e8m0 0x01
# under PyTorch (default rn: below 1.5*2^-127, 0x00).
vectors "torch bf16" --text-in --hex-out --to bf16 --profile torch <<'V'
0x1.01000001p+0     0x3f80
nan                 0xffff
V
vectors "default bf16" --text-in --hex-out --to bf16 <<'V'
0x1.01000001p+0     0x3f81
V
vectors "torch e8m0" --text-in --hex-out --to e8m0 --profile torch <<'V'
0x1.4p-127          0x01
V
vectors "default e8m0" --text-in --hex-out --to e8m0 <<'V'
0x1.4p-127          0x00
V
vectors "torch decode e4m3fnuz" --hex --from e4m3fnuz --to f32 --profile torch <<'V'
80      0x7f800001    # PyTorch's NaN (default 0xffc00000)
V
# ONNX's e8m0 "up" (ru) adds one when any mantissa bit is set, subnormals included: 2^-149 -> 2^-126
# (default: below 2^-127 is 0x00 in every mode)
vectors "onnx e8m0 ru" --text-in --hex-out --to e8m0 -r ru --profile onnx <<'V'
0x1p-149            0x01
V
vectors "onnx e4m3 sat" --text-in --hex-out --to e4m3 --sat --profile onnx <<'V'
nan     0x7f    # saturate=1 keeps NaN, with its sign
-nan    0xff
-inf    0xfe
V
# CUDA: an e4m3 NaN from overflow keeps the sign without satfinite; decoding a NaN gives 0x7fffffff
vectors "cuda e4m3" --text-in --hex-out --to e4m3 --profile cuda <<'V'
-inf    0xff
-1000   0xff
V
vectors "cuda e4m3 sat" --text-in --hex-out --to e4m3 --sat --profile cuda <<'V'
-inf    0xfe
V
vectors "cuda decode e4m3" --hex --from e4m3 --to f32 --profile cuda <<'V'
ff      0x7fffffff    # __half2float's canonical NaN (default 0xfff00000)
38      0x3f800000
V
vectors "ml_dtypes decode e4m3" --hex --from e4m3 --to f32 --profile ml_dtypes <<'V'
ff      0xffc00000    # sign | 0x7fc00000, payload dropped
V

# What a profile's system lacks is refused before any input is read: exit 1, the formats or the mode
# and mf_strerror's sentence on stderr, nothing on stdout. PyTorch has no FP4 cast, ONNX no FP6, CUDA
# rounds into e4m3 in rn only and into e8m0 in rz and ru only.
for args in "--to e2m1 --profile torch|profile torch has no e2m1" \
    "--to e2m3 --profile onnx|profile onnx has no e2m3" \
    "--from e2m1 --to f32 --profile torch|profile torch has no e2m1" \
    "--to e4m3 -r rz --profile cuda|profile cuda does not round f64 -> e4m3 in rz" \
    "--to e8m0 --profile cuda|profile cuda does not round f64 -> e8m0 in rn"; do
    msg=${args#*|}
    args=${args%%|*}
    # shellcheck disable=SC2086 # the arguments are words
    run sh -c 'printf "1\n" | "$0" convert --text-in --hex-out "$@"' "$MF" $args
    expect_rc 1 "convert $args"
    expect_grep "$WORK/err" "^minifloat: convert: $msg \(docs/compat.md lists its formats and modes\): .+\$" \
        "convert $args: message"
    [ -s "$WORK/out" ] && fail "convert $args: wrote to stdout" || pass
done
# ... while what it has runs: CUDA's e8m0 in rz (2^floor(log2 x): 3 -> 2 = 0x80)
vectors "cuda e8m0 rz" --text-in --hex-out --to e8m0 -r rz --profile cuda <<'V'
3       0x80
V
# --stats says which profile converted
printf 'inf\n1\n' >"$WORK/prof_in"
run "$MF" convert --text --to e4m3 --profile torch --stats <"$WORK/prof_in"
expect_rc 0 "convert --profile torch --stats"
expect_grep "$WORK/err" '^minifloat: stats: 2 elements, f64 -> e4m3, rn, ieee, profile torch$' "stats header with a profile"

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

finish 220

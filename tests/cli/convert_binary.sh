# SPDX-License-Identifier: MIT
# cli_convert_binary: raw arrays on stdin/stdout in mf_convert's layout (native byte order).
. "$(dirname "$0")/common.sh"

# A generated list: mixed signs, magnitudes 2^-30 .. 2^20 (beyond f16 at both ends), some ties.
awk 'BEGIN {
    for (i = 0; i < 3000; i++) {
        m = 1 + ((i * 7919) % 10007) / 10007
        e = (i % 51) - 30
        v = m * 2 ^ e
        if (i % 3 == 1) v = -v
        if (i % 97 == 0) v = (1 + 1 / 2048) * 2 ^ (i % 13)    # f16 ties (1 + 2^-11)
        printf "%.9g\n", v
    }
}' >"$WORK/values.txt"
n=$(wc -l <"$WORK/values.txt")
[ "$n" -eq 3000 ] && pass || fail "generated $n values, want 3000"

# text -> raw f32 -> raw f16 -> raw f32 -> text, against the text path f32 -> f16 (same values).
"$MF" convert --text-in --from f32 --to f32 <"$WORK/values.txt" >"$WORK/a.f32" || fail "text -> f32"
"$MF" convert --from f32 --to f16 <"$WORK/a.f32" >"$WORK/a.f16" || fail "f32 -> f16"
"$MF" convert --from f16 --to f32 <"$WORK/a.f16" >"$WORK/b.f32" || fail "f16 -> f32"
"$MF" convert --text-out --from f32 --to f32 <"$WORK/b.f32" >"$WORK/b.txt" || fail "f32 -> text"
"$MF" convert --text --from f32 --to f16 <"$WORK/values.txt" >"$WORK/c.txt" || fail "text f32 -> f16"
[ "$(wc -c <"$WORK/a.f32")" -eq 12000 ] && pass || fail "a.f32 is not 4*3000 bytes"
[ "$(wc -c <"$WORK/a.f16")" -eq 6000 ] && pass || fail "a.f16 is not 2*3000 bytes"
[ "$(wc -l <"$WORK/b.txt")" -eq 3000 ] && pass || fail "b.txt is not 3000 lines"
same "$WORK/c.txt" "$WORK/b.txt" "binary round trip vs text path"
# f16 -> f32 is exact, so f32 -> f16 gives the same codes back.
"$MF" convert --from f32 --to f16 <"$WORK/b.f32" >"$WORK/b.f16" || fail "f32 -> f16 again"
same "$WORK/a.f16" "$WORK/b.f16" "f16 -> f32 -> f16 is the identity"
# The chunking does not change results.
for ch in 0 2 1000 4096; do
    "$MF" convert --from f32 --to f16 --chunk $ch <"$WORK/a.f32" >"$WORK/ch.f16" || fail "--chunk $ch"
    same "$WORK/a.f16" "$WORK/ch.f16" "f32 -> f16 with --chunk $ch"
done
# An f64 array rounds once, like the text path from f64.
"$MF" convert --text-in --from f64 --to f64 <"$WORK/values.txt" >"$WORK/a.f64" || fail "text -> f64"
[ "$(wc -c <"$WORK/a.f64")" -eq 24000 ] && pass || fail "a.f64 is not 8*3000 bytes"
"$MF" convert --text-out --from f64 --to e4m3 -r ru <"$WORK/a.f64" >"$WORK/d.txt" || fail "f64 -> e4m3"
"$MF" convert --text --from f64 --to e4m3 -r ru <"$WORK/values.txt" >"$WORK/e.txt" || fail "text f64 -> e4m3"
same "$WORK/e.txt" "$WORK/d.txt" "raw f64 vs text f64"

# Byte vectors, written by hand (little-endian hosts only).
if little_endian; then
    # f32: 1.0 = 3f800000, -2.0 = c0000000, 65504 = 477fe000, 65520 = 477ff000, 2^-24 = 33800000,
    #      NaN 7fc00001.  f16: 3c00, c000, 7bff, 65520 is the midpoint of 65504 (odd) and 65536 -> inf
    #      7c00, 2^-24 -> 0001, NaN -> 7fff.
    printf '\000\000\200\077\000\000\000\300\000\340\177\107\000\360\177\107\000\000\200\063\001\000\300\177' \
        >"$WORK/h.f32"
    "$MF" convert --from f32 --to f16 <"$WORK/h.f32" >"$WORK/h.f16" || fail "hand f32 -> f16"
    got=$(bytes "$WORK/h.f16")
    [ "$got" = "00 3c 00 c0 ff 7b 00 7c 01 00 ff 7f" ] && pass || fail "hand f32 -> f16 bytes: $got"
    # Saturating: 65520 -> 7bff.
    "$MF" convert --from f32 --to f16 --saturate <"$WORK/h.f32" >"$WORK/h.f16" || fail "hand f32 -> f16 sat"
    got=$(bytes "$WORK/h.f16")
    [ "$got" = "00 3c 00 c0 ff 7b ff 7b 01 00 ff 7f" ] && pass || fail "hand f32 -> f16 sat bytes: $got"
else
    echo "big-endian host: hand-written byte vectors skipped"
fi

# FP6: the top two bits of an input byte are ignored, output bytes have them clear.
#   0xc1 -> e2m3 code 0x01 = 2^-3 (subnormal, 0.001b * 2^0);  -7.5 -> 1.11.111 = 0x3f
printf '\301' | "$MF" convert --text-out --from e2m3 --to f32 >"$WORK/out" 2>"$WORK/err"
[ "$(cat "$WORK/out")" = 0.125 ] && pass || fail "e2m3 input 0xc1: got '$(cat "$WORK/out")'"
printf -- '-7.5\n' | "$MF" convert --text-in --to e2m3 >"$WORK/fp6" 2>"$WORK/err"
[ "$(bytes "$WORK/fp6")" = 3f ] && pass || fail "e2m3 output byte: $(bytes "$WORK/fp6")"

# A trailing partial element: the complete ones are converted, then exit status 1.
printf '\000\000\200\077\000\000' >"$WORK/part.f32"
run sh -c '"$1" convert --from f32 --to e4m3 <"$2"' sh "$MF" "$WORK/part.f32"
expect_rc 1 "partial final element"
expect_grep "$WORK/err" 'input ends inside an element: 2 trailing byte\(s\) ignored \(f32 elements are 4 bytes\)' \
    "partial element message"
[ "$(bytes "$WORK/out")" = 38 ] && pass || fail "partial input: complete element 1.0 -> e4m3 0x38, got $(bytes "$WORK/out")"
run sh -c '"$1" convert --from f32 --to e4m3 --chunk 0 <"$2"' sh "$MF" "$WORK/part.f32"
expect_rc 1 "partial final element, one call"
[ "$(bytes "$WORK/out")" = 38 ] && pass || fail "partial input, --chunk 0: got $(bytes "$WORK/out")"

# --count stops early; empty input gives empty output.
"$MF" convert --count 2 --from f32 --to f16 <"$WORK/a.f32" >"$WORK/cnt.f16" || fail "--count 2"
[ "$(wc -c <"$WORK/cnt.f16")" -eq 4 ] && pass || fail "--count 2 wrote $(wc -c <"$WORK/cnt.f16") bytes"
head -c 4 "$WORK/a.f16" >"$WORK/cnt_want.f16"
same "$WORK/cnt_want.f16" "$WORK/cnt.f16" "--count 2 output"
run sh -c '"$1" convert --from f32 --to f16 </dev/null' sh "$MF"
expect_rc 0 "empty input"
[ -s "$WORK/out" ] && fail "empty input gave output" || pass

finish 25

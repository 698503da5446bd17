# SPDX-License-Identifier: MIT
# cli_e2m1: packed FP4, two codes per byte, element 2i in bits 0..3; an odd count leaves the last
# high nibble 0 in the output.
. "$(dirname "$0")/common.sh"

# 1 = 0.01.0 = 0x2, 2 = 0.10.0 = 0x4, 3 = 0.10.1 = 0x5 -> bytes 0x42 (elements 0, 1) and 0x05.
printf '1\n2\n3\n' | "$MF" convert --text-in --to e2m1 >"$WORK/three.e2m1" 2>"$WORK/err" || fail "pack 3 values"
got=$(bytes "$WORK/three.e2m1")
[ "$got" = "42 05" ] && pass || fail "pack 1 2 3: got '$got', want '42 05'"
printf '1\n2\n3\n' | "$MF" convert --text-in --to e2m1 --chunk 2 >"$WORK/out" 2>"$WORK/err" || fail "pack, chunk 2"
same "$WORK/three.e2m1" "$WORK/out" "pack 1 2 3 with --chunk 2"
printf '1\n2\n3\n' | "$MF" convert --text --hex-out --to e2m1 >"$WORK/out" 2>"$WORK/err" || fail "e2m1 hex out"
[ "$(cat "$WORK/out" | tr '\n' ' ')" = "0x2 0x4 0x5 " ] && pass || fail "e2m1 hex out: $(cat "$WORK/out")"

# Reading packed input: without --count the padding nibble is an element (+0).
"$MF" convert --text-out --from e2m1 --to f32 <"$WORK/three.e2m1" >"$WORK/out" || fail "unpack"
[ "$(cat "$WORK/out" | tr '\n' ' ')" = "1 2 3 0 " ] && pass || fail "unpack 4: $(cat "$WORK/out")"
"$MF" convert --count 3 --text-out --from e2m1 --to f32 <"$WORK/three.e2m1" >"$WORK/out" || fail "unpack 3"
[ "$(cat "$WORK/out" | tr '\n' ' ')" = "1 2 3 " ] && pass || fail "unpack --count 3: $(cat "$WORK/out")"

# e2m1 -> e4m3 raw: 1 = 0.0111.000 = 0x38, 2 = 0x40, 3 = 0.1000.100 = 0x44, +0 = 0x00.
"$MF" convert --from e2m1 --to e4m3 <"$WORK/three.e2m1" >"$WORK/out" || fail "e2m1 -> e4m3"
[ "$(bytes "$WORK/out")" = "38 40 44 00" ] && pass || fail "e2m1 -> e4m3: $(bytes "$WORK/out")"
"$MF" convert --count 3 --from e2m1 --to e4m3 <"$WORK/three.e2m1" >"$WORK/out" || fail "e2m1 -> e4m3, 3"
[ "$(bytes "$WORK/out")" = "38 40 44" ] && pass || fail "e2m1 -> e4m3 --count 3: $(bytes "$WORK/out")"

# e2m1 -> e2m1 with an odd count: the unused high nibble of the input (0xf) is not copied.
printf '\102\365' >"$WORK/dirty.e2m1"
for ch in 2 0; do
    "$MF" convert --count 3 --chunk $ch --from e2m1 --to e2m1 <"$WORK/dirty.e2m1" >"$WORK/out" || fail "e2m1 copy"
    [ "$(bytes "$WORK/out")" = "42 05" ] && pass || fail "e2m1 copy --count 3 --chunk $ch: $(bytes "$WORK/out")"
done

# A longer odd list (2001 values in [-8, 8]), packed with various chunk sizes: the same bytes, and
# the values read back equal the text path.
awk 'BEGIN { for (i = 0; i < 2001; i++) printf "%.6g\n", ((i * 37) % 1601) / 100 - 8 }' >"$WORK/v.txt"
"$MF" convert --text-in --to e2m1 --chunk 0 <"$WORK/v.txt" >"$WORK/v0.e2m1" || fail "pack 2001, one call"
[ "$(wc -c <"$WORK/v0.e2m1")" -eq 1001 ] && pass || fail "2001 e2m1 codes are not 1001 bytes"
for ch in 2 3 1000 8192; do
    "$MF" convert --text-in --to e2m1 --chunk $ch <"$WORK/v.txt" >"$WORK/vc.e2m1" || fail "pack, chunk $ch"
    same "$WORK/v0.e2m1" "$WORK/vc.e2m1" "pack 2001 with --chunk $ch"
done
last=$(tail -c 1 "$WORK/v0.e2m1" | od -An -tx1 | tr -d ' \n')
case $last in 0?) pass ;; *) fail "last byte $last: high nibble should be 0" ;; esac
"$MF" convert --count 2001 --text-out --from e2m1 --to f32 <"$WORK/v0.e2m1" >"$WORK/back.txt" || fail "unpack 2001"
"$MF" convert --text --to e2m1 <"$WORK/v.txt" >"$WORK/text.txt" || fail "text path"
[ "$(wc -l <"$WORK/back.txt")" -eq 2001 ] && pass || fail "unpacked $(wc -l <"$WORK/back.txt") values"
same "$WORK/text.txt" "$WORK/back.txt" "packed round trip vs text path"
# e2m1 -> f16 -> e2m1 is exact both ways (the last, padding nibble included).
"$MF" convert --from e2m1 --to f16 <"$WORK/v0.e2m1" >"$WORK/v.f16" || fail "e2m1 -> f16"
[ "$(wc -c <"$WORK/v.f16")" -eq 4004 ] && pass || fail "1001 bytes of e2m1 are 2002 f16 values"
"$MF" convert --from f16 --to e2m1 <"$WORK/v.f16" >"$WORK/v2.e2m1" || fail "f16 -> e2m1"
same "$WORK/v0.e2m1" "$WORK/v2.e2m1" "e2m1 -> f16 -> e2m1"

finish 19

# SPDX-License-Identifier: MIT
# cli_stochastic: -r sr over more than 64 KiB of input. Element i of the stream always draws
# mf_sr_bits(seed, i), so any split into chunks gives the one-shot result byte for byte; this fails
# if the tool does not pass the running element count as opts.sr_offset.
. "$(dirname "$0")/common.sh"

# 20000 f32 values (80000 bytes), magnitudes 2^-6 .. 2^7, 6+ significant bits: inexact in e4m3.
awk 'BEGIN {
    for (i = 0; i < 20000; i++) {
        m = 1 + ((i * 104729) % 65521) / 65521
        v = m * 2 ^ ((i % 14) - 6)
        if (i % 2) v = -v
        printf "%.9g\n", v
    }
}' >"$WORK/v.txt"
"$MF" convert --text-in --from f32 --to f32 <"$WORK/v.txt" >"$WORK/v.f32" || fail "make v.f32"
[ "$(wc -c <"$WORK/v.f32")" -eq 80000 ] && pass || fail "v.f32 is not 80000 bytes"

sr() { "$MF" convert --from f32 --to e4m3 -r sr "$@" <"$WORK/v.f32"; }
sr --seed 7 --chunk 0 >"$WORK/one.e4m3" 2>"$WORK/one.stats" --stats || fail "sr one call"
[ "$(wc -c <"$WORK/one.e4m3")" -eq 20000 ] && pass || fail "sr output is not 20000 bytes"
for ch in 8192 2 6 1002 65536; do
    sr --seed 7 --chunk $ch --stats >"$WORK/ch.e4m3" 2>"$WORK/ch.stats" || fail "sr --chunk $ch"
    same "$WORK/one.e4m3" "$WORK/ch.e4m3" "sr, --chunk $ch vs one call"
    same "$WORK/one.stats" "$WORK/ch.stats" "summed stats, --chunk $ch vs one call"
done
sr --seed 7 >"$WORK/def.e4m3" || fail "sr default chunk"
same "$WORK/one.e4m3" "$WORK/def.e4m3" "sr, default chunk vs one call"
sr --seed 0x7 >"$WORK/hex.e4m3" || fail "sr --seed 0x7"
same "$WORK/one.e4m3" "$WORK/hex.e4m3" "--seed 0x7 is --seed 7"
# The text path counts elements the same way.
"$MF" convert --text-in --from f32 --to e4m3 -r sr --seed 7 --chunk 1000 <"$WORK/v.txt" >"$WORK/text.e4m3" ||
    fail "sr text path"
same "$WORK/one.e4m3" "$WORK/text.e4m3" "sr, text input vs raw input"
# Another seed gives other results.
sr --seed 8 >"$WORK/s8.e4m3" || fail "sr --seed 8"
cmp -s "$WORK/one.e4m3" "$WORK/s8.e4m3" && fail "seeds 7 and 8 gave identical output" || pass

# Each result is one of the two neighbours (rz or the one away from zero: ru for x > 0, rd for
# x < 0), and about half round away (f is spread evenly over [0,1) here; 20000 draws).
for m in rz ru rd; do
    "$MF" convert --from f32 --to e4m3 -r $m --hex-out <"$WORK/v.f32" >"$WORK/$m.hex" || fail "-r $m"
done
"$MF" convert --from e4m3 --to e4m3 --hex-out <"$WORK/one.e4m3" >"$WORK/sr.hex" || fail "sr hex"
paste -d ' ' "$WORK/sr.hex" "$WORK/rz.hex" "$WORK/ru.hex" "$WORK/rd.hex" | awk '
    { n++; if ($1 == $2) down++; else if ($1 == $3 || $1 == $4) up++; else { bad++; if (bad < 5) print "line " NR ": " $0 } }
    END { printf "%d %d %d %d\n", n, down, up, bad }' >"$WORK/tally"
read -r n down up bad <"$WORK/tally"
[ "$n" -eq 20000 ] && pass || fail "tallied $n results, want 20000"
[ "$bad" -eq 0 ] && pass || fail "$bad sr results are neither neighbour: $(cat "$WORK/tally")"
[ "$up" -gt 8000 ] && [ "$up" -lt 12000 ] && pass || fail "sr rounded away $up times of 20000"

# Packed e2m1 output with chunks that do not divide the stream evenly.
"$MF" convert --from f32 --to e2m1 -r sr --seed 3 --chunk 0 <"$WORK/v.f32" >"$WORK/one.e2m1" || fail "e2m1 one call"
for ch in 3 998 8192; do
    "$MF" convert --from f32 --to e2m1 -r sr --seed 3 --chunk $ch <"$WORK/v.f32" >"$WORK/ch.e2m1" ||
        fail "e2m1 --chunk $ch"
    same "$WORK/one.e2m1" "$WORK/ch.e2m1" "sr into e2m1, --chunk $ch vs one call"
done

finish 22

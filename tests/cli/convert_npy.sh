# SPDX-License-Identifier: MIT
# cli_convert_npy: `minifloat convert` reads and writes .npy files (issue 37): an f32 .npy through every narrow
# format and back, checked element by element against `minifloat show` (the scalar path, mf_from_f64_ev, where
# convert runs the bulk mf_convert) and against hand-written bytes; refused headers, each with its message and
# exit status; IN and OUT as files or '-'; several numbers on a text line.
. "$(dirname "$0")/common.sh"
. "$HERE/npy_lib.sh"

# npy_hlen FILE: where a version-1 .npy file's data start (10 + the header length in bytes 8-9).
npy_hlen() {
    # shellcheck disable=SC2046 # two numbers
    set -- $(od -An -v -tu1 -j8 -N2 "$1")
    echo $((10 + $1 + 256 * $2))
}
# npy_data FILE: the data bytes as hex; npy_dict FILE: the header text.
npy_data() {
    _o=$(npy_hlen "$1")
    od -An -v -tx1 -j "$_o" "$1" | tr -s ' \n' '  ' | sed 's/^ *//; s/ *$//'
}
npy_dict() { head -c "$(npy_hlen "$1")" "$1" | tail -c +11; }
# dict_is FILE DICT WHAT: the header is DICT padded with spaces and ended by a newline.
dict_is() {
    _d=$(npy_dict "$1")
    [ "$(printf '%s' "$_d" | sed 's/ *$//')" = "$2" ] && pass || fail "$3: header '$_d', want '$2'"
}
# octal FILE: the file's bytes as printf octal escapes (npy_write's DATA).
octal() { od -An -v -to1 "$1" | tr -s ' \n' '  ' | sed 's/^ *//; s/ *$//; s/ /\\/g; s/^/\\/'; }

# ---- every narrow format and back --------------------------------------------------------------
# Values exact in binary32 (so show, which rounds binary64, and convert, which rounds the binary32
# element, round the same number): zeros, ties, the overflow thresholds of the FP8 formats, subnormals
# of each, binary32's extremes, infinities and NaN.
cat >"$WORK/values.txt" <<'V'
0 -0 1 -1 0x1.921fb6p+1 0.25 0.75 5 6.5 7.5 28 -3.25
464 465 -465 480 448 1000 240 248 31 15.75 57344 61440 65504 65520
0x1.8p-10 0x1p-20 -0x1.4p-7 0x1p-30 0.0625 0.125 0x1p100 0x1.fffffep127 0x1p-149 0x1p-126
inf -inf nan
V
n=$(wc -w <"$WORK/values.txt")
[ "$n" -eq 39 ] && pass || fail "values.txt has $n words, want 39"
# The input .npy written by hand (npy_lib.sh) around the binary32 bytes that convert's text path gives.
"$MF" convert --text-in --raw-out f32 --from f32 "$WORK/values.txt" "$WORK/values.f32" || fail "text -> raw f32"
npy_write "$WORK/in.npy" '<f4' "($n,)" "$(octal "$WORK/values.f32")"

# show's rows for each value, every format at once (one run a value, not one a value and format)
i=0
for v in $(cat "$WORK/values.txt"); do
    i=$((i + 1))
    "$MF" show -- "$v" >"$WORK/show.$i" || fail "show $v"
done
# The dtype each format is written with: numpy's own names for f16, ml_dtypes' for the rest, uint8 codes for the
# P3109 formats (no dtype: read back with --from).
while read -r f dtype width; do
    [ -z "$f" ] && continue
    WHAT="f32 .npy -> $f"
    run "$MF" convert "$f" "$WORK/in.npy" "$WORK/$f.npy"
    expect_rc 0 "$WHAT"
    dict_is "$WORK/$f.npy" "{'descr': '$dtype', 'fortran_order': False, 'shape': ($n,), }" "$WHAT"
    [ $(($(npy_hlen "$WORK/$f.npy") % 64)) -eq 0 ] && pass || fail "$WHAT: data not at a multiple of 64"
    # show's code and value for each element
    want_bytes=""
    : >"$WORK/want_vals"
    i=0
    for v in $(cat "$WORK/values.txt"); do
        i=$((i + 1))
        # shellcheck disable=SC2046 # code and value
        set -- $(awk -v f="$f" '$1 == f { print $2, $4 }' "$WORK/show.$i")
        [ $# -eq 2 ] || { fail "show $v: no $f row"; continue; }
        code=${1#0x}
        if [ "$width" -eq 2 ]; then
            want_bytes="$want_bytes $(printf '%s' "$code" | cut -c3-4) $(printf '%s' "$code" | cut -c1-2)"
        else
            want_bytes="$want_bytes $(printf '%02x' "0x$code")"
        fi
        echo "$2" >>"$WORK/want_vals"
    done
    got=$(npy_data "$WORK/$f.npy")
    [ "$got" = "${want_bytes# }" ] && pass || fail "$WHAT: codes differ from show's: got '$got', want '${want_bytes# }'"
    # and back to f32: each value exactly (17 digits through f64, as show prints it)
    if [ "$dtype" = "|u1" ]; then # codes without a dtype of their own (P3109): the format is said
        run "$MF" convert --from "$f" --to f32 "$WORK/$f.npy" "$WORK/$f.rt.npy"
    else
        run "$MF" convert f32 "$WORK/$f.npy" "$WORK/$f.rt.npy"
    fi
    expect_rc 0 "$f .npy -> f32"
    expect_grep "$WORK/$f.rt.npy" "\{'descr': '<f4', 'fortran_order': False, 'shape': \\($n,\\), \}" "$f -> f32: header"
    run "$MF" convert f64 --text-out "$WORK/$f.rt.npy"
    expect_rc 0 "$f round trip as text"
    same "$WORK/want_vals" "$WORK/out" "$f -> f32 values against show's"
done <<'F'
f16 <f2 2
bf16 bfloat16 2
e4m3 float8_e4m3fn 1
e5m2 float8_e5m2 1
e2m3 float6_e2m3fn 1
e3m2 float6_e3m2fn 1
e2m1 float4_e2m1fn 1
e8m0 float8_e8m0fnu 1
e4m3fnuz float8_e4m3fnuz 1
e5m2fnuz float8_e5m2fnuz 1
e4m3b11fnuz float8_e4m3b11fnuz 1
e4m3ieee float8_e4m3 1
e3m4 float8_e3m4 1
binary8p1se |u1 1
binary8p1sf |u1 1
binary8p2se |u1 1
binary8p2sf |u1 1
binary8p3se |u1 1
binary8p3sf |u1 1
binary8p4se |u1 1
binary8p4sf |u1 1
binary8p5se |u1 1
binary8p5sf |u1 1
binary8p6se |u1 1
binary8p6sf |u1 1
binary8p7se |u1 1
binary8p7sf |u1 1
binary8p1ue |u1 1
binary8p1uf |u1 1
binary8p2ue |u1 1
binary8p2uf |u1 1
binary8p3ue |u1 1
binary8p3uf |u1 1
binary8p4ue |u1 1
binary8p4uf |u1 1
binary8p5ue |u1 1
binary8p5uf |u1 1
binary8p6ue |u1 1
binary8p6uf |u1 1
binary8p7ue |u1 1
binary8p7uf |u1 1
binary8p8ue |u1 1
binary8p8uf |u1 1
binary4p2sf |u1 1
F
# Every narrow format of the library was in that list (the formats line of `minifloat --help`).
"$MF" --help | sed -n 's/^formats: //p' | tr -d ',' | tr ' ' '\n' | grep -v '^f32$' | sort >"$WORK/all_formats"
sort <<'F' >"$WORK/listed"
f16
bf16
e4m3
e5m2
e2m3
e3m2
e2m1
e8m0
e4m3fnuz
e5m2fnuz
e4m3b11fnuz
e4m3ieee
e3m4
binary8p1se
binary8p1sf
binary8p2se
binary8p2sf
binary8p3se
binary8p3sf
binary8p4se
binary8p4sf
binary8p5se
binary8p5sf
binary8p6se
binary8p6sf
binary8p7se
binary8p7sf
binary8p1ue
binary8p1uf
binary8p2ue
binary8p2uf
binary8p3ue
binary8p3uf
binary8p4ue
binary8p4uf
binary8p5ue
binary8p5uf
binary8p6ue
binary8p6uf
binary8p7ue
binary8p7uf
binary8p8ue
binary8p8uf
binary4p2sf
F
same "$WORK/all_formats" "$WORK/listed" "every narrow format is round-tripped"

# ---- hand-written bytes ------------------------------------------------------------------------
# F32_EIGHT (npy_lib.sh): 65504 65520 2^-26 2^-20 1 -2 0 0, in a (2, 4) array. f16: 65504 = 0x7bff; 65520 ties
# to inf 0x7c00; 2^-26 is below half of 2^-24: 0; 2^-20 = 16 * 2^-24 = 0x0010; 1 = 0x3c00; -2 = 0xc000.
npy_write "$WORK/eight.npy" '<f4' '(2, 4)' "$F32_EIGHT"
run "$MF" convert --to f16 "$WORK/eight.npy"
expect_rc 0 "(2, 4) f32 -> f16 on stdout"
cp "$WORK/out" "$WORK/eight_f16.npy"
expect_grep "$WORK/eight_f16.npy" "\{'descr': '<f2', 'fortran_order': False, 'shape': \\(2, 4\\), \}" "shape (2, 4) kept"
got=$(npy_data "$WORK/eight_f16.npy")
[ "$got" = "ff 7b 00 7c 00 00 10 00 00 3c 00 c0 00 00 00 00" ] && pass || fail "f32 -> f16 bytes: $got"
# The old invocation on a .npy (issue 37 converted its 128-byte header as data): the same .npy now.
run sh -c '"$1" convert --from f32 --to f16 <"$2"' sh "$MF" "$WORK/eight.npy"
expect_rc 0 "--from f32 --to f16 < .npy"
same "$WORK/eight_f16.npy" "$WORK/out" "--from f32 --to f16 < .npy gives the .npy"
# e2m1 codes one a byte (ml_dtypes' float4_e2m1fn): 65504 -> max 6 = 0x7; 65520 -> 0x7 (no inf: IEEE gives
# max); 2^-26, 2^-20 -> 0; 1 = 1.0b*2^0 = 0|01|0 = 0x2; -2 = 1.0b*2^1 = 1|10|0 = 0xc.
run "$MF" convert e2m1 "$WORK/eight.npy" "$WORK/eight_e2m1.npy"
expect_rc 0 "f32 -> e2m1 .npy"
got=$(npy_data "$WORK/eight_e2m1.npy")
[ "$got" = "07 07 00 00 02 0c 00 00" ] && pass || fail "f32 -> e2m1 .npy bytes: $got"
# --raw-out: mf_convert's layout, two codes a byte (element 0 low); --text-out: numbers.
run "$MF" convert e2m1 --raw-out "$WORK/eight.npy" -
expect_rc 0 "f32 .npy -> raw e2m1"
[ "$(bytes "$WORK/out")" = "77 00 c2 00" ] && pass || fail ".npy -> raw e2m1 bytes: $(bytes "$WORK/out")"
run "$MF" convert e2m1 --text-out "$WORK/eight.npy"
[ "$(tr '\n' ' ' <"$WORK/out")" = "6 6 0 0 1 -2 0 0 " ] && pass || fail ".npy -> e2m1 text: $(cat "$WORK/out")"
# e2m1 .npy in (packed for mf_convert inside): back to f32 exactly.
run "$MF" convert f32 --text-out "$WORK/eight_e2m1.npy"
[ "$(tr '\n' ' ' <"$WORK/out")" = "6 6 0 0 1 -2 0 0 " ] && pass || fail "e2m1 .npy -> f32 text: $(cat "$WORK/out")"
# '<V1' (what np.save writes for ml_dtypes' 1-byte types) and '|u1' codes: --from says which format.
# e4m3 codes 0x38 = 1, 0xc0 = -2, 0x7e = 448, 0x01 = 2^-9.
npy_write "$WORK/v1.npy" '<V1' '(4,)' '\070\300\176\001'
run "$MF" convert f32 --text-out --from e4m3 "$WORK/v1.npy"
expect_rc 0 "'<V1' with --from e4m3"
[ "$(tr '\n' ' ' <"$WORK/out")" = "1 -2 448 0.001953125 " ] && pass || fail "'<V1' e4m3 values: $(cat "$WORK/out")"
npy_write "$WORK/u1.npy" '|u1' '(4,)' '\070\300\176\001'
run "$MF" convert f32 --text-out --from e4m3 "$WORK/u1.npy"
[ "$(tr '\n' ' ' <"$WORK/out")" = "1 -2 448 0.001953125 " ] && pass || fail "'|u1' e4m3 values: $(cat "$WORK/out")"
# A '<V1' e4m3 file -> e5m2: 1 = 0x3c, -2 = 0xc0, 448 = 1.11b*2^8 = 0x5f, 2^-9 = 1.00b*2^-9 = 0|00110|00 = 0x18
run "$MF" convert e5m2 --from e4m3 "$WORK/v1.npy" "$WORK/v1_e5m2.npy"
[ "$(npy_data "$WORK/v1_e5m2.npy")" = "3c c0 5f 18" ] && pass || fail "'<V1' e4m3 -> e5m2: $(npy_data "$WORK/v1_e5m2.npy")"
# bf16 as ml_dtypes' np.save writes it ('<V2'): 0x3f80 = 1, 0xc040 = -3 -> e4m3 0x38, 0xc4.
npy_write "$WORK/v2.npy" '<V2' '(2,)' '\200\077\100\300'
run "$MF" convert e4m3 "$WORK/v2.npy" "$WORK/v2_e4m3.npy"
[ "$(npy_data "$WORK/v2_e4m3.npy")" = "38 c4" ] && pass || fail "'<V2' bf16 -> e4m3: $(npy_data "$WORK/v2_e4m3.npy")"
# A scalar (shape ()) and an empty array keep their shapes.
npy_write "$WORK/scalar.npy" '<f4' '()' '\000\000\200\077'
run "$MF" convert e4m3 "$WORK/scalar.npy" "$WORK/scalar_e4m3.npy"
expect_grep "$WORK/scalar_e4m3.npy" "'shape': \\(\\), \}" "scalar shape"
[ "$(npy_data "$WORK/scalar_e4m3.npy")" = 38 ] && pass || fail "scalar 1 -> e4m3: $(npy_data "$WORK/scalar_e4m3.npy")"
npy_write "$WORK/empty.npy" '<f8' '(0, 3)' ''
run "$MF" convert bf16 "$WORK/empty.npy" "$WORK/empty_bf16.npy"
expect_rc 0 "empty .npy"
expect_grep "$WORK/empty_bf16.npy" "'descr': 'bfloat16', 'fortran_order': False, 'shape': \\(0, 3\\), \}" "empty shape"
[ -z "$(npy_data "$WORK/empty_bf16.npy")" ] && pass || fail "empty .npy has data"

# ---- raw and text in, .npy out -----------------------------------------------------------------
# OUT ending in .npy, or --npy-out: one dimension, as many elements as were read.
printf '1 -2\n\n  448\t0.001953125\r\n' >"$WORK/four.txt"
run "$MF" convert e4m3 --text-in "$WORK/four.txt" "$WORK/four.npy"
expect_rc 0 "text -> .npy (by OUT's name)"
expect_grep "$WORK/four.npy" "\{'descr': 'float8_e4m3fn', 'fortran_order': False, 'shape': \\(4,\\), \}" "text -> .npy header"
[ "$(npy_data "$WORK/four.npy")" = "38 c0 7e 01" ] && pass || fail "text -> e4m3 .npy: $(npy_data "$WORK/four.npy")"
run sh -c '"$1" convert --text-in --npy-out --to e4m3 <"$2"' sh "$MF" "$WORK/four.txt"
same "$WORK/four.npy" "$WORK/out" "--npy-out on stdout"
run sh -c '"$1" convert --from f32 --to f16 --npy-out --count 3 <"$2"' sh "$MF" "$WORK/values.f32"
expect_grep "$WORK/out" "'shape': \\(3,\\), \}" "--count 3 with --npy-out: shape (3,)"
[ "$(npy_data "$WORK/out")" = "00 00 00 80 00 3c" ] && pass || fail "0 -0 1 -> f16 .npy: $(npy_data "$WORK/out")"

# ---- IN and OUT as '-' -----------------------------------------------------------------------------
run sh -c 'cat "$2" | "$1" convert e4m3 - - | cat' sh "$MF" "$WORK/in.npy"
expect_rc 0 "convert e4m3 - - in a pipe"
same "$WORK/e4m3.npy" "$WORK/out" "'-' in and out, through pipes"
run sh -c '"$1" convert e4m3 - "$3" <"$2"' sh "$MF" "$WORK/in.npy" "$WORK/dash_in.npy"
same "$WORK/e4m3.npy" "$WORK/dash_in.npy" "'-' in, a file out"
run "$MF" convert --to e4m3 -- "$WORK/in.npy" -
same "$WORK/e4m3.npy" "$WORK/out" "a file in, '-' out, after --"
# --raw-in takes a .npy's bytes as data: the header's first four bytes 93 4e 55 4d as f32 -> f16 ...
run "$MF" convert f16 --raw-in --from f32 --count 1 --text-out "$WORK/eight.npy"
expect_rc 0 "--raw-in on a .npy"
# 0x4d554e93 = 1.0001...b * 2^27 (exponent 0x9a = 154): beyond f16's 65504 -> inf
[ "$(cat "$WORK/out")" = inf ] && pass || fail "--raw-in: the magic as an f32 is ~2.2e8 -> f16 inf, got $(cat "$WORK/out")"

# ---- text: any blanks, several numbers a line ------------------------------------------------------
printf '1 2\t3\n\n 4  5 \r\n6\f7\v8\n' | "$MF" convert --text --to f16 >"$WORK/words" 2>"$WORK/err"
[ "$(tr '\n' ' ' <"$WORK/words")" = "1 2 3 4 5 6 7 8 " ] && pass || fail "several numbers a line: $(cat "$WORK/words")"
printf '0x38 0x3c\n0x7e\n' | "$MF" convert --hex-in --text-out --from e4m3 --to f32 >"$WORK/words" 2>"$WORK/err"
[ "$(tr '\n' ' ' <"$WORK/words")" = "1 1.5 448 " ] && pass || fail "several hex codes a line: $(cat "$WORK/words")"
run sh -c 'printf "1 2\n3 x 4\n" | "$1" convert --text --to f16' sh "$MF"
expect_rc 1 "a bad word"
expect_grep "$WORK/err" "^minifloat: convert: line 2: 'x' is not a number$" "a bad word: message"
[ "$(tr '\n' ' ' <"$WORK/out")" = "1 2 3 " ] && pass || fail "the words before a bad one: $(cat "$WORK/out")"
run sh -c 'printf "1 2 3 4\n" | "$1" convert --text --to f16 --count 3' sh "$MF"
[ "$(tr '\n' ' ' <"$WORK/out")" = "1 2 3 " ] && pass || fail "--count stops inside a line: $(cat "$WORK/out")"

# ---- refused input: a message naming the problem, exit 1, OUT not created --------------------------
# "name;descr;shape;data;major;fortran;message ERE" (npy_write's arguments)
while IFS=';' read -r name descr shape data major fortran msg; do
    [ -z "$name" ] && continue
    npy_write "$WORK/bad_$name.npy" "$descr" "$shape" "$data" "$major" "$fortran"
    run "$MF" convert e4m3 "$WORK/bad_$name.npy" "$WORK/never.npy"
    expect_rc 1 "refused $name"
    expect_grep "$WORK/err" "^minifloat: convert: .*bad_$name\\.npy: $msg" "refused $name: message"
    [ -e "$WORK/never.npy" ] && fail "refused $name: OUT was created" || pass
    [ -s "$WORK/out" ] && fail "refused $name: wrote to stdout" || pass
done <<'BAD'
big;>f4;(1,);\077\200\000\000;1;False;big-endian data \(dtype '>f4'\) is not supported
fortran;<f4;(1, 1);\000\000\200\077;1;True;Fortran-order \(column-major\) arrays are not supported
object;|O;(1,);\000\000\000\000\000\000\000\000;1;False;unsupported dtype '\|O'
int;<i4;(1,);\001\000\000\000;1;False;unsupported dtype '<i4'
v1;<V1;(1,);\070;1;False;ambiguous dtype '<V1'.* with --from, e\.g\. --from e4m3
short;<f4;(2,);\000\000\200\077;1;False;truncated: the header promises 8 data bytes
long;<f4;(1,);\000\000\200\077\000;1;False;1 unexpected bytes after the data
version;<f4;(1,);\000\000\200\077;4;False;unsupported \.npy format version 4\.0
BAD
# a structured dtype, a truncated header, a file that is only the magic, a .npy name without the magic
printf "\\223NUMPY\\001\\000\\106\\000{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }      \\n" \
    >"$WORK/bad_struct.npy"
printf '\000\000\200\077' >>"$WORK/bad_struct.npy"
head -c 40 "$WORK/in.npy" >"$WORK/bad_header.npy"
printf '\223NUMPY' >"$WORK/bad_magic_only.npy"
printf '\000\000\200\077' >"$WORK/bad_nomagic.npy"
while IFS='|' read -r name msg; do
    run "$MF" convert e4m3 "$WORK/bad_$name.npy" "$WORK/never.npy"
    expect_rc 1 "refused $name"
    expect_grep "$WORK/err" "^minifloat: convert: .*bad_$name\\.npy: $msg" "refused $name: message"
    [ -e "$WORK/never.npy" ] && fail "refused $name: OUT was created" || pass
done <<'BAD'
struct|unsupported dtype: a structured dtype
header|truncated: the file ends inside the header \(30 of 118 bytes\)
magic_only|truncated: the file ends inside the \.npy preamble \(6 bytes\)
nomagic|not a \.npy file: it does not start with "\\x93NUMPY" \(--raw-in reads it as raw elements\)
BAD
# the same refusals on standard input name it '-'
run sh -c '"$1" convert e4m3 <"$2"' sh "$MF" "$WORK/bad_big.npy"
expect_rc 1 "refused big-endian on stdin"
expect_grep "$WORK/err" "^minifloat: convert: -: big-endian data" "refused on stdin: message"
ls "$WORK" | grep -q 'never.npy.part' && fail "a temporary OUT was left behind" || pass
# usage errors (exit 2): a --from the file's dtype contradicts, --count on a .npy
run "$MF" convert e4m3 --from f16 "$WORK/in.npy"
expect_rc 2 "--from f16 on a '<f4' file"
expect_grep "$WORK/err" "^minifloat: convert: --from f16 does not apply: .*in\\.npy's dtype '<f4' is float32" "--from f16 message"
run "$MF" convert e4m3 --count 2 "$WORK/in.npy"
expect_rc 2 "--count on a .npy"
expect_grep "$WORK/err" "^minifloat: convert: --count does not apply to a \\.npy input" "--count message"
run "$MF" convert e4m3 "$WORK/no_such_file.npy"
expect_rc 1 "a missing IN"
expect_grep "$WORK/err" "^minifloat: convert: .*no_such_file\\.npy: cannot open: " "a missing IN: message"

finish 150

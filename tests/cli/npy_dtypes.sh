# SPDX-License-Identifier: MIT
# cli_npy_dtypes: `minifloat analyze` reads every element type numpy and ml_dtypes write, each file
# written here byte by byte. The values 1, -3, 0.5 (e8m0, unsigned powers of two: 1, 0.5, 4) are
# exact in every type, so each file must give the table the same values give as text.
#   float64  1 = 0x3ff0000000000000, -3 = 0xc008000000000000, 0.5 = 0x3fe0000000000000
#   float32  0x3f800000, 0xc0400000, 0x3f000000       float16  0x3c00, 0xc200, 0x3800
#   bfloat16 0x3f80, 0xc040, 0x3f00                   e5m2 ('<f1')  0x3c, 0xc2, 0x38
#   e4m3     0x38, 0xc4, 0x30                         e2m1  0x2, 0xd, 0x1 (one per byte, low nibble)
#   e8m0     127, 126, 129
#   the FNUZ and IEEE-style FP8 formats ('<V1' too; ml_dtypes' names in the data line):
#   e4m3fnuz    (bias 8)  1 = 0.1000.000 = 0x40, -3 = 1.1001.100 = 0xcc, 0.5 = 0.0111.000 = 0x38
#   e5m2fnuz    (bias 16) 0.10000.00 = 0x40, 1.10001.10 = 0xc6, 0.01111.00 = 0x3c
#   e4m3b11fnuz (bias 11) 0.1011.000 = 0x58, 1.1100.100 = 0xe4, 0.1010.000 = 0x50
#   e4m3ieee    (bias 7, ml_dtypes float8_e4m3) as e4m3: 0x38, 0xc4, 0x30
#   e3m4        (bias 3)  0.011.0000 = 0x30, 1.100.1000 = 0xc8, 0.010.0000 = 0x20
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/npy_lib.sh"

printf '1\n-3\n0.5\n' >"$WORK/v.txt"
printf '1\n0.5\n4\n' >"$WORK/p.txt"
"$MF" analyze "$WORK/v.txt" | sed -n '/^ *f16/,$p' >"$WORK/want_v"
"$MF" analyze "$WORK/p.txt" | sed -n '/^ *f16/,$p' >"$WORK/want_p"
[ -s "$WORK/want_v" ] && pass || fail "no table from text input"

# "file;descr;shape;data;major;--dtype;type name in the data line;values (v or p)"
while IFS=';' read -r f descr shape data major dtype name vals; do
    [ -z "$f" ] && continue
    npy_write "$WORK/$f" "$descr" "$shape" "$data" "$major"
    run "$MF" analyze "$WORK/$f" $dtype
    expect_rc 0 "$f ($descr)"
    re_descr=$(printf '%s' "$descr" | sed 's/[]|()[]/\\&/g')
    re_shape=$(printf '%s' "$shape" | sed 's/[]|()[]/\\&/g')
    expect_grep "$WORK/out" "^data +3 elements, $name \('$re_descr'\), shape $re_shape$" "$f: data line"
    if [ "$vals" = v ]; then
        expect_grep "$WORK/out" '^\|x\| +min 0.5 \(2\^-1.00\), max 3 \(2\^1.58\): 2.6 binades$' "$f: range"
    else
        expect_grep "$WORK/out" '^\|x\| +min 0.5 \(2\^-1.00\), max 4 \(2\^2.00\): 3.0 binades$' "$f: range"
    fi
    sed -n '/^ *f16/,$p' "$WORK/out" >"$WORK/got"
    same "$WORK/want_$vals" "$WORK/got" "$f: the same table as text"
done <<'CASES'
f8.npy;<f8;(3,);\000\000\000\000\000\000\360\077\000\000\000\000\000\000\010\300\000\000\000\000\000\000\340\077;1;;float64;v
f4.npy;<f4;(3,);\000\000\200\077\000\000\100\300\000\000\000\077;1;;float32;v
f4v2.npy;<f4;(3,);\000\000\200\077\000\000\100\300\000\000\000\077;2;;float32;v
f4v3.npy;<f4;(1, 3);\000\000\200\077\000\000\100\300\000\000\000\077;3;;float32;v
f2.npy;<f2;(3,);\000\074\000\302\000\070;1;;float16;v
bf16.npy;<V2;(3,);\200\077\100\300\000\077;1;;bfloat16;v
bf16bar.npy;|V2;(3, 1);\200\077\100\300\000\077;1;;bfloat16;v
e5m2.npy;<f1;(3,);\074\302\070;1;;float8_e5m2;v
e4m3.npy;<V1;(3,);\070\304\060;1;--dtype e4m3;float8_e4m3fn;v
e4m3b.npy;<V1;(3,);\070\304\060;1;--dtype=float8_e4m3fn;float8_e4m3fn;v
e2m1.npy;<V1;(3,);\002\015\001;1;--dtype e2m1;float4_e2m1fn;v
e2m1hi.npy;<V1;(3,);\362\375\361;1;--dtype e2m1;float4_e2m1fn;v
e8m0.npy;<V1;(3,);\177\176\201;1;--dtype e8m0;float8_e8m0fnu;p
u1.npy;|u1;(3,);\070\304\060;1;--dtype e4m3;float8_e4m3fn;v
e4m3fnuz.npy;<V1;(3,);\100\314\070;1;--dtype e4m3fnuz;float8_e4m3fnuz;v
e5m2fnuz.npy;<V1;(3,);\100\306\074;1;--dtype float8_e5m2fnuz;float8_e5m2fnuz;v
e4m3b11fnuz.npy;<V1;(3,);\130\344\120;1;--dtype e4m3b11fnuz;float8_e4m3b11fnuz;v
e4m3ieee.npy;<V1;(3,);\070\304\060;1;--dtype float8_e4m3;float8_e4m3;v
e3m4.npy;<V1;(3,);\060\310\040;1;--dtype e3m4;float8_e3m4;v
CASES

# --raw with --dtype reads other element types (host byte order; this assumes little-endian)
if little_endian; then
    printf '\000\074\000\302\000\070' >"$WORK/v.f16"
    run "$MF" analyze "$WORK/v.f16" --raw --dtype f16
    expect_rc 0 "raw f16"
    sed -n '/^ *f16/,$p' "$WORK/out" >"$WORK/got"
    same "$WORK/want_v" "$WORK/got" "raw f16: the same table as text"
    printf '\070\304\060' >"$WORK/v.bin"
    run "$MF" analyze "$WORK/v.bin" --dtype e4m3
    sed -n '/^ *f16/,$p' "$WORK/out" >"$WORK/got"
    same "$WORK/want_v" "$WORK/got" "raw e4m3 (.bin): the same table as text"
fi

finish 75

# SPDX-License-Identifier: MIT
# tests/cli/npy_lib.sh - sourced by the lab's CLI scripts (analyze*.sh, npy_*.sh); not a test itself.

# npy_write FILE DESCR SHAPE DATA [MAJOR [FORTRAN]]: a .npy file as numpy writes it (NEP 1): "\x93NUMPY", the
# version, the header length (2 bytes little-endian; 4 in version 2/3), the header dict padded with
# spaces and a '\n' to a multiple of 64 bytes, then DATA, a printf format of the data bytes (octal
# escapes). SHAPE is Python tuple syntax, e.g. '(8,)'; FORTRAN is False (default) or True.
npy_write() {
    _major=${5:-1}
    _dict="{'descr': '$2', 'fortran_order': ${6:-False}, 'shape': $3, }"
    _pre=10
    [ "$_major" -ne 1 ] && _pre=12
    _len=${#_dict}
    _total=$(( (_pre + _len + 1 + 63) / 64 * 64 ))
    _hlen=$((_total - _pre))
    {
        printf "\\223NUMPY\\$(printf %03o "$_major")\\000"
        printf "\\$(printf %03o $((_hlen % 256)))\\$(printf %03o $((_hlen / 256)))"
        [ "$_major" -ne 1 ] && printf '\000\000'
        printf '%s' "$_dict"
        printf "%$((_hlen - _len - 1))s\\n" ''
        printf "$4"
    } >"$1"
}

# The float32 values 65504, 65520, 2^-26, 2^-20, 1, -2, 0, 0 (little-endian bit patterns):
#   65504 = 0x477fe000 (f16's max), 65520 = 0x477ff000 (the midpoint from 65504 to 2^16: f16 rounds
#   it to inf), 2^-26 = 0x32800000 (below half f16's smallest subnormal 2^-24: flushes to 0),
#   2^-20 = 0x35800000 (an f16 subnormal), 1 = 0x3f800000, -2 = 0xc0000000.
F32_EIGHT='\000\340\177\107\000\360\177\107\000\000\200\062\000\000\200\065\000\000\200\077\000\000\000\300\000\000\000\000\000\000\000\000'

/* SPDX-License-Identifier: MIT */
/* src/simd/fmt_mask.h - a set of format rows as an integer constant expression (usable in static
 * initializers, such as the backends' tables): bit e for each row of minifloat/formats.inc for which
 * K_MASK_ROW(e, man, kind, storage) holds, as the macro K_MASK_NAME. Included once per set, with those two
 * macros defined (it undefines them). A C99 enum holds an int, so the set is four 16-bit enum constants. */
#define K_MASK_CAT2(a, b) a##b
#define K_MASK_CAT(a, b) K_MASK_CAT2(a, b)
#define MF__FORMAT(e, value, tag, bits, man, bias, kind, storage, ...)                                      \
    | ((value) / 16 == K_MASK_CHUNK && (K_MASK_ROW(e, man, kind, storage)) ? 1 << (value) % 16 : 0)
enum {
    K_MASK_CAT(K_MASK_NAME, _0) = 0
#define K_MASK_CHUNK 0
#include <minifloat/formats.inc>
#undef K_MASK_CHUNK
    , K_MASK_CAT(K_MASK_NAME, _1) = 0
#define K_MASK_CHUNK 1
#include <minifloat/formats.inc>
#undef K_MASK_CHUNK
    , K_MASK_CAT(K_MASK_NAME, _2) = 0
#define K_MASK_CHUNK 2
#include <minifloat/formats.inc>
#undef K_MASK_CHUNK
    , K_MASK_CAT(K_MASK_NAME, _3) = 0
#define K_MASK_CHUNK 3
#include <minifloat/formats.inc>
#undef K_MASK_CHUNK
};
#undef MF__FORMAT
#undef K_MASK_ROW

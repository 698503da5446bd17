/* SPDX-License-Identifier: MIT */
/* src/portable/elements.h - element i of an array in the layout of minifloat/convert.h, as a code (private;
 * the portable backend and the profile path). Arrays need not be aligned: memcpy, not typed loads. */
#ifndef MF_SRC_PORTABLE_ELEMENTS_H
#define MF_SRC_PORTABLE_ELEMENTS_H

#include <string.h>

#include "../internal.h"

/* Load element i of an array of format f as a code. */
MF_INLINE uint64_t elem_load(mf_format f, const void *p, size_t i)
{
    switch (f) {
    case MF_FP64: {
        uint64_t v;
        memcpy(&v, (const unsigned char *)p + 8 * i, 8);
        return v;
    }
    case MF_FP32: {
        uint32_t v;
        memcpy(&v, (const unsigned char *)p + 4 * i, 4);
        return v;
    }
    case MF_FP16:
    case MF_BF16: { /* arrays need not be aligned: memcpy, not a uint16_t load */
        uint16_t v;
        memcpy(&v, (const unsigned char *)p + 2 * i, 2);
        return v;
    }
    case MF_FP6_E2M3:
    case MF_FP6_E3M2: return ((const uint8_t *)p)[i] & 0x3Fu;
    case MF_FP4_E2M1: return (((const uint8_t *)p)[i >> 1] >> (4 * (i & 1))) & 0xFu;
    default: return ((const uint8_t *)p)[i];
    }
}

/* Store a code as element i of an array of format f (an e2m1 store keeps the other nibble). */
MF_INLINE void elem_store(mf_format f, void *p, size_t i, uint64_t code)
{
    switch (f) {
    case MF_FP64: memcpy((unsigned char *)p + 8 * i, &code, 8); break;
    case MF_FP32: {
        uint32_t v = (uint32_t)code;
        memcpy((unsigned char *)p + 4 * i, &v, 4);
        break;
    }
    case MF_FP16:
    case MF_BF16: {
        uint16_t v = (uint16_t)code;
        memcpy((unsigned char *)p + 2 * i, &v, 2);
        break;
    }
    case MF_FP4_E2M1: {
        uint8_t *b = (uint8_t *)p + (i >> 1);
        unsigned sh = 4 * (unsigned)(i & 1);
        *b = (uint8_t)((*b & ~(0xFu << sh)) | ((code & 0xFu) << sh));
        break;
    }
    default: ((uint8_t *)p)[i] = (uint8_t)code; break;
    }
}

#endif /* MF_SRC_PORTABLE_ELEMENTS_H */

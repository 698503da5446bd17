/* SPDX-License-Identifier: MIT */
/* src/portable/elements.h - element i of an array in the layout of minifloat/convert.h, as a code (private;
 * the portable backend and the profile path). Arrays need not be aligned: memcpy, not typed loads. */
#ifndef MF_SRC_PORTABLE_ELEMENTS_H
#define MF_SRC_PORTABLE_ELEMENTS_H

#include <string.h>

#include "../internal.h"

/* Load element i of an array of format f as a code (the layout is the storage column of f's row). */
MF_INLINE uint64_t elem_load(mf_format f, const void *p, size_t i)
{
    const unsigned char *b = (const unsigned char *)p;
    switch (mf__fmt_store_bits(f)) {
    case 64: {
        uint64_t v;
        memcpy(&v, b + 8 * i, 8);
        return v;
    }
    case 32: {
        uint32_t v;
        memcpy(&v, b + 4 * i, 4);
        return v;
    }
    case 16: { /* arrays need not be aligned: memcpy, not a uint16_t load */
        uint16_t v;
        memcpy(&v, b + 2 * i, 2);
        return v & mf__fmt_code_mask(mf__fmt_get(f));
    }
    case 4: return (b[i >> 1] >> (4 * (i & 1))) & 0xFu;
    default: return b[i] & mf__fmt_code_mask(mf__fmt_get(f)); /* a code narrower than its byte: the low bits */
    }
}

/* Store a code as element i of an array of format f (an e2m1 store keeps the other nibble). */
MF_INLINE void elem_store(mf_format f, void *p, size_t i, uint64_t code)
{
    unsigned char *b = (unsigned char *)p;
    switch (mf__fmt_store_bits(f)) {
    case 64: memcpy(b + 8 * i, &code, 8); break;
    case 32: {
        uint32_t v = (uint32_t)code;
        memcpy(b + 4 * i, &v, 4);
        break;
    }
    case 16: {
        uint16_t v = (uint16_t)code;
        memcpy(b + 2 * i, &v, 2);
        break;
    }
    case 4: {
        uint8_t *q = b + (i >> 1);
        unsigned sh = 4 * (unsigned)(i & 1);
        *q = (uint8_t)((*q & ~(0xFu << sh)) | ((code & 0xFu) << sh));
        break;
    }
    default: b[i] = (uint8_t)code; break;
    }
}

#endif /* MF_SRC_PORTABLE_ELEMENTS_H */

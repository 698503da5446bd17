/* src/x86/room_avx512bf16.c - the AVX-512 room plus AVX512_BF16's vcvtneps2bf16 for f32 -> bf16 rn.
 * Built with the AVX-512 flags and -mavx512bf16. */
#include "vec_avx512.h"

#include "kernels.h"
#include "room_avx512_hw.h"

/* vcvtneps2bf16 flushes binary32 subnormal inputs to zero and keeps NaN payloads: a vector holding
 * either takes the integer kernel instead (both are rare in real data, and the test is one
 * vfpclassps). */
MF_V vm hw_bf16_special(vu u)
{
    return _mm512_fpclass_ps_mask(_mm512_castsi512_ps(u), 0xA1); /* QNaN, denormal, SNaN */
}

MF_V void hw_bf16_plain(uint16_t *p, vu u)
{
    _mm256_storeu_si256((__m256i *)p, (__m256i)_mm512_cvtneps_pbh(_mm512_castsi512_ps(u)));
}

/* vcvtne2ps2bf16: two vectors in one instruction and one 64-byte store (v's codes go high) */
MF_V void hw_bf16_plain2(uint16_t *p, vu u, vu v)
{
    _mm512_storeu_si512(p, (__m512i)_mm512_cvtne2ps_pbh(_mm512_castsi512_ps(v), _mm512_castsi512_ps(u)));
}

MF_V void hw_bf16_fix(uint16_t *p, vu u)
{
    if (hw_bf16_special(u))
        v_store_u16(p, k_round(u, MF_BF16, MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, v_zero(), 0, NULL));
    else
        hw_bf16_plain(p, u);
}

/* vfpclassps reads a denormal as zero under DAZ, so hw_bf16_special holds only with DAZ clear. A call
 * that does not set MXCSR (room_direct) asks the instruction itself, about one denormal (cheaper
 * than reading MXCSR back). */
MF_V int hw_bf16_direct_ok(void)
{
    __m128 d = _mm_castsi128_ps(_mm_cvtsi32_si128(1));
    __asm__("" : "+x"(d)); /* a run-time question: keep compilers from answering it */
    return _mm_fpclass_ss_mask(d, 0x20) != 0;
}
#define ROOM_HW_BF16 1

#define ROOM_SYM avx512bf16
#include "room.h"

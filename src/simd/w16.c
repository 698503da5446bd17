/* SPDX-License-Identifier: MIT */
/* src/simd/w16.c - one backend's 16-bit-lane kernels (f16/bf16 -> narrow formats, bf16 -> f16) in a unit of
 * their own, so that they compile beside the rest. sources.cmake compiles it from a file it generates, which
 * includes the backend's configuration and its w16 header (hw_w16_ok, hw_w16_has, hw_w16_one) and names
 * BK_W16_OK and BK_W16_LOOP. */
int BK_W16_OK(mf_format d, mf_format s, const mf_opts *o);
void BK_W16_LOOP(mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o, int stream);

int BK_W16_OK(mf_format d, mf_format s, const mf_opts *o) { return hw_w16_ok(d, s, o); }

/* One function per (source, destination) pair, each mode and policy a loop with them as constants; a pair or
 * mode the backend lacks (hw_w16_has) compiles to nothing. A function apiece, not one for all: compilers,
 * sanitizers' instrumentation above all, slow down far more than linearly on one holding every loop. */
#define W16_M(S, D, R, O)                                                                                              \
    case R:                                                                                                            \
        if (hw_w16_has(S, D, R))                                                                                       \
            hw_w16_one(S, D, R, O, dst, (const uint16_t *)src, n, o, stream);                                          \
        return;
#define W16_R(S, D, O)                                                                                                 \
    switch (o->round) {                                                                                                \
        W16_M(S, D, MF_ROUND_NEAREST_EVEN, O)                                                                          \
        W16_M(S, D, MF_ROUND_NEAREST_AWAY, O)                                                                          \
        W16_M(S, D, MF_ROUND_TOWARD_ZERO, O)                                                                           \
        W16_M(S, D, MF_ROUND_UP, O)                                                                                    \
        W16_M(S, D, MF_ROUND_DOWN, O)                                                                                  \
        W16_M(S, D, MF_ROUND_ODD, O)                                                                                   \
        W16_M(S, D, MF_ROUND_STOCHASTIC, O)                                                                            \
    default: return;                                                                                                   \
    }
#define W16_PAIR(NAME, S, D)                                                                                           \
    __attribute__((noinline)) static void NAME(void *dst, const void *src, size_t n, const mf_opts *o, int stream)     \
    {                                                                                                                  \
        if (!k_sat_like(D, o->overflow)) {                                                                             \
            W16_R(S, D, MF_OVERFLOW_IEEE)                                                                              \
        } else {                                                                                                       \
            W16_R(S, D, MF_OVERFLOW_SATURATE)                                                                          \
        }                                                                                                              \
    }
W16_PAIR(w16_bf16_f16, MF_BF16, MF_FP16)
W16_PAIR(w16_f16_e4m3, MF_FP16, MF_FP8_E4M3)
W16_PAIR(w16_bf16_e4m3, MF_BF16, MF_FP8_E4M3)
W16_PAIR(w16_f16_e5m2, MF_FP16, MF_FP8_E5M2)
W16_PAIR(w16_bf16_e5m2, MF_BF16, MF_FP8_E5M2)
W16_PAIR(w16_f16_e2m3, MF_FP16, MF_FP6_E2M3)
W16_PAIR(w16_bf16_e2m3, MF_BF16, MF_FP6_E2M3)
W16_PAIR(w16_f16_e3m2, MF_FP16, MF_FP6_E3M2)
W16_PAIR(w16_bf16_e3m2, MF_BF16, MF_FP6_E3M2)
W16_PAIR(w16_f16_e2m1, MF_FP16, MF_FP4_E2M1)
W16_PAIR(w16_bf16_e2m1, MF_BF16, MF_FP4_E2M1)
W16_PAIR(w16_f16_e8m0, MF_FP16, MF_E8M0)
W16_PAIR(w16_bf16_e8m0, MF_BF16, MF_E8M0)
#undef W16_PAIR
#undef W16_R
#undef W16_M

typedef void w16_fn(void *dst, const void *src, size_t n, const mf_opts *o, int stream);
static w16_fn *const w16_pairs[2][MF_FORMAT_COUNT] = {
    /* from f16 */
    {[MF_FP8_E4M3] = w16_f16_e4m3,
     [MF_FP8_E5M2] = w16_f16_e5m2,
     [MF_FP6_E2M3] = w16_f16_e2m3,
     [MF_FP6_E3M2] = w16_f16_e3m2,
     [MF_FP4_E2M1] = w16_f16_e2m1,
     [MF_E8M0] = w16_f16_e8m0},
    /* from bf16 */
    {[MF_FP16] = w16_bf16_f16,
     [MF_FP8_E4M3] = w16_bf16_e4m3,
     [MF_FP8_E5M2] = w16_bf16_e5m2,
     [MF_FP6_E2M3] = w16_bf16_e2m3,
     [MF_FP6_E3M2] = w16_bf16_e3m2,
     [MF_FP4_E2M1] = w16_bf16_e2m1,
     [MF_E8M0] = w16_bf16_e8m0},
};

/* dst = d(src) for n elements, a call hw_w16_ok takes */
void BK_W16_LOOP(mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o, int stream)
{
    w16_pairs[s == MF_BF16][d](dst, src, n, o, stream);
}

/* SPDX-License-Identifier: MIT */
/* minifloat/elementwise.h - the activation functions of training, computed as mixed-precision kernels do.
 *
 *   mf_opts o = {0};                       // rn, IEEE overflow
 *   mf_stats st;
 *   o.stats = &st;
 *   mf_unary(MF_UNARY_EXP, MF_FP16, y, MF_FP32, x, n, &o);   // y = f16(exp(x))
 *   printf("%llu overflowed\n", (unsigned long long)st.overflow);
 *
 * Every element is widened to binary32 (exactly; an f64 element is rounded to the nearest binary32, as
 * x.float() does), the function is evaluated in binary32 with the formula PyTorch's kernels use, and the
 * binary32 result is rounded once into the destination format with opts->round and opts->overflow,
 * exactly as mf_convert would round it. The stats are those of that last rounding: the events
 * mf_from_f32_ev reports for each binary32 result (an exp() that leaves FP16's range is an overflow of
 * the f16 rounding). For an f32 destination the binary32 result is stored as computed: the mode and the
 * policy play no part, and an overflow inside the computation is an infinity, as in the kernels.
 *
 * Results are deterministic: the same bits for the same inputs on every CPU a build runs on, whatever the
 * caller's rounding mode or flush-to-zero setting (the functions compute in the default environment and
 * restore the caller's). Every NaN result is the quiet NaN +0x7FC00000 before the final rounding.
 * The formulas, their measured errors and the choice of math library are in docs/overflow.md
 * (section "Elementwise operations"). Array layouts are those of mf_convert (minifloat/convert.h).
 *
 * Part of the overflow lab, a library of its own: include <minifloat/lab.h> and link minifloat_lab
 * (-lminifloat_lab, or minifloat::lab in CMake).
 */
#ifndef MINIFLOAT_ELEMENTWISE_H
#define MINIFLOAT_ELEMENTWISE_H

#include "types.h"

MF_BEGIN_DECLS

/* The unary operations; x is the binary32 input, every operation and constant is binary32. */
typedef enum {
    MF_UNARY_EXP,       /* exp(x) */
    MF_UNARY_TANH,      /* tanh(x) */
    MF_UNARY_SIGMOID,   /* 1 / (1 + exp(-x)) */
    MF_UNARY_SILU,      /* x / (1 + exp(-x)); -inf gives -0 (the limit) */
    MF_UNARY_GELU,      /* (x * 0.5) * (1 + erf(x * 0.70710677)); -inf gives -0 (the limit) */
    MF_UNARY_GELU_TANH  /* (0.5 * x) * (1 + tanh(0.7978846 * (x + 0.044715 * (x * x * x)))); -inf gives -0 */
} mf_unary_op;

#define MF_UNARY_COUNT 6

/* Apply op to n elements of src (format src_fmt) and round the results into dst (format dst_fmt).
 *
 * Any formats are accepted (f64 included). opts may be NULL (rn, IEEE, no stats). Under
 * MF_ROUND_STOCHASTIC element i uses mf_sr_rbits(opts->seed, opts->sr_offset + i, mf_sr_width(dst_fmt)),
 * as mf_convert does.
 * If opts->stats is set it receives this call's counts (overwritten, not accumulated). opts->threads is
 * checked, but the work runs on the calling thread. dst may be src itself when both formats have the same
 * storage width (in place); any other overlap is refused.
 *
 * Returns MF_OK, or a negative MF_E_* code and writes nothing (stats included):
 *   MF_E_ARG      op is not an mf_unary_op, or opts->threads is negative;
 *   MF_E_FORMAT / MF_E_ROUND / MF_E_POLICY  an enum value out of range;
 *   MF_E_NULL     dst or src is NULL while n > 0;
 *   MF_E_SIZE     n elements of either format do not fit in SIZE_MAX bytes;
 *   MF_E_OVERLAP  the byte ranges of src and dst overlap and are not the same array of equal width.
 * n = 0 succeeds, touches nothing and zeroes the stats. */
MF_API int mf_unary(mf_unary_op op, mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t n,
                    const mf_opts *opts);

/* Softmax (log = 0) or log-softmax (log = 1) of each row of a rows x cols row-major tensor, over its last
 * axis (element (r, c) is element r * cols + c of the arrays).
 *
 * Per row, in this order (PyTorch's and cuDNN's stable form):
 *   m = max x (binary32, exact);
 *   e_c = exp(x_c - m), with the subtraction and the exp in binary32;
 *   R = the sum of the e_c other than e_k (k: the first maximal element), in binary64: four partial sums,
 *       element c into sum c mod 4, added as (s0 + s1) + (s2 + s3), so the bits depend on no vector
 *       width and no block size;
 *   softmax:     y_c = binary32(e_c / (e_k + R)), the quotient in binary64;
 *   log-softmax: y_c = binary32((x_c - m) - log1p((e_k - 1) + R)), in binary64 (e_k = exp(0) = 1, so
 *                the log of the sum keeps R even when R is far below 2^-53: a dominant element keeps
 *                its tiny negative log-probability).
 * then y_c is rounded into dst_fmt as mf_unary does. Edges (as PyTorch): a row containing a NaN or a
 * +inf, or made only of -inf, is all NaN; a -inf element elsewhere gives 0 (log-softmax: -inf); exp
 * underflow gives 0 (log-softmax stays finite).
 *
 * opts, stats, stochastic rounding, threads and in-place use as for mf_unary.
 * Returns MF_OK or: MF_E_ARG (log is not 0 or 1, opts->threads negative), MF_E_FORMAT, MF_E_ROUND,
 * MF_E_POLICY, MF_E_NULL (dst or src NULL while rows * cols > 0), MF_E_SIZE (rows * cols overflows
 * size_t or the arrays do not fit), MF_E_OVERLAP; nothing is written on error. rows * cols = 0 succeeds
 * and zeroes the stats. */
MF_API int mf_softmax(int log, mf_format dst_fmt, void *dst, mf_format src_fmt, const void *src, size_t rows,
                      size_t cols, const mf_opts *opts);

/* "exp", "tanh", "sigmoid", "silu", "gelu", "gelu_tanh"; NULL for values out of range. */
MF_API const char *mf_unary_name(mf_unary_op op);

/* Parse a name above (case-insensitive). Returns MF_OK, MF_E_NULL or MF_E_ARG. */
MF_API int mf_unary_from_name(const char *name, mf_unary_op *out);

/* The binary32 math library this build evaluates exp, tanh and erf with: "sleef-3.5.1 cinz sse2 u10"
 * style names (SLEEF's deterministic functions) or "libm" (the C library, when built without SLEEF or on
 * a CPU family other than x86-64). Results are bit-identical only between builds with the same name. */
MF_API const char *mf_elementwise_math(void);

MF_END_DECLS

#endif /* MINIFLOAT_ELEMENTWISE_H */

/* SPDX-License-Identifier: MIT */
/* tests/test_gemm_dp.c - MF_ACCUM_FP32 on bf16 and narrower inputs, where mf_gemm may run the bf16
 * dot-product instruction (vdpbf16ps) under a guard (src/gemm/ukr_pair.c): the bits must be the fma chain's
 * on every input, inside the guard, on its edges and outside it.
 *
 * The reference shares no code with src/: elements are decoded by the oracle (ref_decode), and each
 * element of C is the test's own fmaf loop in k order from +0 (alpha = 1, beta = 0, f32 C: C is the
 * accumulator, NaN as 0x7FFFFFFF). Cases that the dot instruction would get wrong were it run outside
 * the guard (products below 2^-112 that cancel into subnormals, subnormal inputs, products near 2^128)
 * and random data that tells the pair order apart (a mutation that skips the swap in packing or the guard
 * fails here). Shapes cross every block edge of the pair kernel (6 x 32 tiles, k blocks of 512) and
 * odd k; 1, 2 and 3 threads; both layouts and transposes. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minifloat.h>
#include <mpfr.h>

#include "mf_test.h"
#include "oracle/ref.h"

#define GEMM_TEST_SEED 0xD1B54A32D192ED03ull
#include "gemm_test.h"


static const mf_format PAIR_FMTS[] = {MF_BF16, MF_FP8_E4M3, MF_FP8_E5M2, MF_FP6_E2M3, MF_FP6_E3M2, MF_FP4_E2M1};
#define N_PAIR_FMTS 6

static ref_format ref_of(mf_format f)
{
    switch (f) {
    case MF_BF16: return REF_BF16;
    case MF_FP8_E4M3: return REF_E4M3;
    case MF_FP8_E5M2: return REF_E5M2;
    case MF_FP6_E2M3: return REF_E2M3;
    case MF_FP6_E3M2: return REF_E3M2;
    case MF_FP4_E2M1: return REF_E2M1;
    default: MF_EXPECT(0, "format %d", (int)f); return REF_F32;
    }
}
static unsigned code_bits(mf_format f)
{
    return f == MF_BF16 ? 16 : f == MF_FP4_E2M1 ? 4 : f == MF_FP6_E2M3 || f == MF_FP6_E3M2 ? 6 : 8;
}

/* a matrix of the test: codes in storage and their values */
typedef struct tmat {
    mf_format f;
    size_t rows, cols, ld; /* stored: rows x cols in the layout, leading dimension ld */
    int row_major;
    unsigned char *buf;
    size_t bytes;
} tmat;

static void tm_init(tmat *x, mf_format f, size_t rows, size_t cols, int row_major)
{
    x->f = f, x->rows = rows, x->cols = cols, x->row_major = row_major;
    x->ld = (row_major ? cols : rows) + rnd_below(3); /* padding now and then */
    if (x->ld == 0)
        x->ld = 1;
    x->bytes = ((row_major ? rows : cols) * x->ld * (f == MF_BF16 ? 2 : 1)) + 8;
    x->buf = calloc(1, x->bytes);
    MF_EXPECT(x->buf != NULL, "calloc");
}
static size_t tm_index(const tmat *x, size_t r, size_t c) { return x->row_major ? r * x->ld + c : c * x->ld + r; }
static void tm_put(tmat *x, size_t r, size_t c, uint32_t code)
{
    const size_t e = tm_index(x, r, c);
    if (x->f == MF_BF16) {
        const uint16_t h = (uint16_t)code;
        memcpy(x->buf + 2 * e, &h, 2);
    } else if (x->f == MF_FP4_E2M1) {
        x->buf[e / 2] = (unsigned char)((x->buf[e / 2] & ~(0xFu << 4 * (e & 1))) | (code & 0xFu) << 4 * (e & 1));
    } else {
        x->buf[e] = (unsigned char)code;
    }
}
static float tm_val(const tmat *x, size_t r, size_t c)
{
    const size_t e = tm_index(x, r, c);
    uint32_t code;
    if (x->f == MF_BF16) {
        uint16_t h;
        memcpy(&h, x->buf + 2 * e, 2);
        code = h;
    } else if (x->f == MF_FP4_E2M1) {
        code = (x->buf[e / 2] >> 4 * (e & 1)) & 0xFu;
    } else {
        code = x->buf[e];
    }
    return (float)ref_decode(ref_of(x->f), code); /* exact: every such value is a binary32 value */
}

/* A(i, p) of op(A) from the stored matrix */
typedef struct op {
    tmat *x;
    int trans;
} op;
static float op_val(const op *o, size_t r, size_t c) { return o->trans ? tm_val(o->x, c, r) : tm_val(o->x, r, c); }
static void op_put(op *o, size_t r, size_t c, uint32_t code)
{
    if (o->trans)
        tm_put(o->x, c, r, code);
    else
        tm_put(o->x, r, c, code);
}

/* How to draw codes: a generator per case. e is an exponent hint for bf16. */
typedef uint32_t (*gen_fn)(mf_format f, size_t r, size_t c, void *ctx);

static uint32_t bf16_code(int neg, int e, uint32_t frac)
{
    return (uint32_t)neg << 15 | (uint32_t)(e + 127) << 7 | (frac & 0x7Fu);
}

/* any code, specials one in 64 where the format has them, zeros one in 16; bf16 exponents in [-30, 30] */
static uint32_t gen_random(mf_format f, size_t r, size_t c, void *ctx)
{
    const uint32_t u = (uint32_t)rnd();
    (void)r, (void)c, (void)ctx;
    if ((u & 15u) == 0)
        return (u >> 4 & 1u) << (code_bits(f) - 1); /* +-0 */
    if (f == MF_BF16) {
        if ((u & 63u) == 1)
            return (u >> 8 & 1u) ? 0x7F80u | (u >> 9 & 0x8000u) : 0x7FC1u; /* +-inf, NaN */
        return bf16_code((int)(u >> 8 & 1u), (int)(u >> 9) % 61 - 30, u >> 20);
    }
    for (;;) {
        const uint32_t code = (uint32_t)rnd() & ((1u << code_bits(f)) - 1);
        if (isfinite(ref_decode(ref_of(f), code)) || (u & 63u) == 1)
            return code;
    }
}

typedef struct edge_ctx {
    int ea, eb;    /* exponent of A's and B's elements */
    int cancel;    /* pairs k, k + 1 cancel: A(i, k + 1) = A(i, k), B(k + 1, j) = -B(k, j) * (1 + tiny) */
    int subnormal; /* one in 32 elements of A subnormal */
    int is_b;
} edge_ctx;

/* bf16 elements of one exponent (A: ea, B: eb) with random fractions, or the cancelling pattern */
static uint32_t gen_edge(mf_format f, size_t r, size_t c, void *vctx)
{
    const edge_ctx *x = (const edge_ctx *)vctx;
    const uint32_t u = (uint32_t)rnd();
    (void)f, (void)r, (void)c;
    if (!x->is_b && x->subnormal && (u & 31u) == 0)
        return (u >> 5 & 0x8000u) | (1u + (u >> 8) % 127u);
    return bf16_code((int)(u & 1u), x->is_b ? x->eb : x->ea, u >> 8);
}

/* After drawing, make pairs cancel: op(A)(i, 2q + 1) = op(A)(i, 2q); op(B)(2q + 1, j) = -op(B)(2q, j) with its
 * last fraction bit flipped, so the second step leaves a sum near the products' last bits. */
static void make_cancel(op *a, op *b, size_t m, size_t n, size_t k)
{
    for (size_t p = 0; p + 1 < k; p += 2) {
        for (size_t i = 0; i < m; i++) {
            const float v = op_val(a, i, p);
            uint32_t u;
            memcpy(&u, &v, 4);
            op_put(a, i, p + 1, u >> 16);
        }
        for (size_t j = 0; j < n; j++) {
            const float v = op_val(b, p, j);
            uint32_t u;
            memcpy(&u, &v, 4);
            op_put(b, p + 1, j, (u >> 16 ^ 0x8000u) ^ (rnd() & 1u));
        }
    }
}

/* One call: C (m x n, f32) = op(A) op(B) with the codes from gen; compare with the fma chain. */
static void run_case(mf_format fa, mf_format fb, size_t m, size_t n, size_t k, gen_fn gen, edge_ctx *ctx, int cancel,
                     const char *what)
{
    const int row_major = (int)rnd_below(2), ta = (int)rnd_below(2), tb = (int)rnd_below(2);
    const int threads = 1 + (int)rnd_below(3);
    const mf_layout lay = row_major ? MF_ROW_MAJOR : MF_COL_MAJOR;
    tmat sa, sb;
    op a = {&sa, ta}, b = {&sb, tb};
    mf_gemm_opts o;
    mf_gemm_plan_info plan;
    const size_t ldc = n + rnd_below(2);
    float *c = malloc(sizeof(float) * m * ldc + 4);
    tm_init(&sa, fa, ta ? k : m, ta ? m : k, row_major);
    tm_init(&sb, fb, tb ? n : k, tb ? k : n, row_major);
    /* the stored matrices in the layout: row-major uses (rows, cols); column-major the same logical shape */
    for (size_t i = 0; i < m; i++)
        for (size_t p = 0; p < k; p++) {
            if (ctx)
                ctx->is_b = 0;
            op_put(&a, i, p, gen(fa, i, p, ctx));
        }
    for (size_t p = 0; p < k; p++)
        for (size_t j = 0; j < n; j++) {
            if (ctx)
                ctx->is_b = 1;
            op_put(&b, p, j, gen(fb, p, j, ctx));
        }
    if (cancel)
        make_cancel(&a, &b, m, n, k);
    memset(&o, 0, sizeof o);
    o.threads = threads;
    MF_EXPECT(c != NULL, "malloc");
    memset(c, 0x5A, sizeof(float) * m * ldc + 4);
    ck_assert_int_eq(mf_gemm(lay, ta ? MF_TRANS : MF_NO_TRANS, tb ? MF_TRANS : MF_NO_TRANS, m, n, k, 1.0f, sa.buf, fa,
                             sa.ld, sb.buf, fb, sb.ld, 0.0f, c, MF_FP32, row_major ? ldc : m, &o),
                     MF_OK);
    ck_assert_int_eq(mf_gemm_plan(fa, fb, &o, &plan), MF_OK);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            float acc = 0.0f;
            uint32_t want, got;
            for (size_t p = 0; p < k; p++)
                acc = fmaf(op_val(&a, i, p), op_val(&b, p, j), acc);
            want = isnan(acc) ? 0x7FFFFFFFu : mf_test_f32_bits(acc);
            got = mf_test_f32_bits(c[row_major ? i * ldc + j : j * m + i]);
            if (got != want)
                ck_abort_msg("%s: %s x %s, m %zu n %zu k %zu (%s, trans %d %d, %d threads, kernel %s): C(%zu, %zu) = "
                             "0x%08x, the fma chain gives 0x%08x",
                             what, mf_format_name(fa), mf_format_name(fb), m, n, k, row_major ? "row" : "col", ta, tb,
                             threads, plan.kernel, i, j, got, want);
        }
    free(c), free(sa.buf), free(sb.buf);
}

/* every pair of bf16-valued formats, random codes (specials and zeros included), shapes across the edges */
START_TEST(test_dp_pairs)
{
    static const size_t KS[] = {1, 2, 3, 7, 64, 511, 512, 513, 1027};
    const mf_format fa = PAIR_FMTS[_i / N_PAIR_FMTS], fb = PAIR_FMTS[_i % N_PAIR_FMTS];
    for (int rep = 0; rep < 6; rep++) {
        const size_t k = KS[rnd_below(sizeof KS / sizeof KS[0])];
        const size_t m = 1 + rnd_below(k > 500 ? 20 : 40), n = 1 + rnd_below(k > 500 ? 40 : 70);
        run_case(fa, fb, m, n, k, gen_random, NULL, 0, "random");
    }
    /* one shape past the row block (mc = 144) and a column sliver edge */
    run_case(fa, fb, 150, 33, 40, gen_random, NULL, 0, "random, past a row block");
}
END_TEST

/* bf16 x bf16 with every product at 2^(ea + eb) and pairs that cancel: at the guard's floor (ea + eb = -112)
 * and around it, where the instruction would flush the sums below 2^-126 */
START_TEST(test_dp_guard_floor)
{
    for (int s = -122; s <= -100; s++) {
        edge_ctx x = {0};
        x.ea = s / 2, x.eb = s - s / 2, x.cancel = 1;
        run_case(MF_BF16, MF_BF16, 1 + rnd_below(13), 1 + rnd_below(40), 2 + rnd_below(90), gen_edge, &x, 1,
                 "guard floor, cancelling");
        x.cancel = 0;
        run_case(MF_BF16, MF_BF16, 1 + rnd_below(13), 1 + rnd_below(40), 1 + rnd_below(90), gen_edge, &x, 0,
                 "guard floor");
    }
}
END_TEST

/* subnormal bf16 inputs (the instruction reads them as zero), and products near 2^128 with sums that
 * overflow or cancel back */
START_TEST(test_dp_guard_other)
{
    for (int rep = 0; rep < 8; rep++) {
        edge_ctx x = {0};
        x.ea = (int)rnd_below(60), x.eb = -(int)rnd_below(60), x.subnormal = 1;
        run_case(MF_BF16, MF_BF16, 1 + rnd_below(13), 1 + rnd_below(40), 1 + rnd_below(90), gen_edge, &x, 0,
                 "subnormal inputs");
    }
    for (int s = 122; s <= 130; s++) {
        edge_ctx x = {0};
        x.ea = s / 2, x.eb = s - s / 2;
        run_case(MF_BF16, MF_BF16, 1 + rnd_below(13), 1 + rnd_below(40), 1 + rnd_below(40), gen_edge, &x, 0,
                 "guard ceiling");
        run_case(MF_BF16, MF_BF16, 1 + rnd_below(13), 1 + rnd_below(40), 2 + rnd_below(40), gen_edge, &x, 1,
                 "guard ceiling, cancelling");
    }
    { /* one hand-made dot product: 2^-60 * 2^-60 - 2^-60 * (2^-60 + 2^-67) = -2^-127, a subnormal sum */
        static const uint16_t A[2] = {0x2180, 0x2180}, B[2] = {0x2180, 0xA181};
        float c = 1.0f;
        ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 1, 1, 2, 1.0f, A, MF_BF16, 2, B, MF_BF16, 1,
                                 0.0f, &c, MF_FP32, 1, NULL),
                         MF_OK);
        ck_assert_uint_eq(mf_test_f32_bits(c), 0x80400000u); /* -2^-127 exactly (fmaf's chain) */
    }
    { /* -2^-100 * 2^-100 rounds to -0 in the chain: an exact zero, +0 in C of every format (k odd: the pad too) */
        static const uint16_t A[3] = {0x8D80, 0, 0}, B[3] = {0x0D80, 0, 0};
        static const mf_format CF[] = {MF_FP32, MF_FP16, MF_BF16};
        for (size_t k = 1; k <= 3; k += 2)
            for (int q = 0; q < 3; q++) {
                uint32_t c = 0xFFFFFFFFu;
                ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 1, 1, k, 1.0f, A, MF_BF16, k, B,
                                         MF_BF16, 1, 0.0f, &c, CF[q], 1, NULL),
                                 MF_OK);
                ck_assert_uint_eq(c, CF[q] == MF_FP32 ? 0u : 0xFFFF0000u);
            }
    }
    {   /* alpha * sa * sb = -0 times a nonzero sum is an exact zero: +0, on the scaled path too */
        static const uint16_t A[1] = {0x3F80}, B[1] = {0x3F80};
        static const float neg0 = -0.0f;
        mf_gemm_opts o;
        float c = 1.0f;
        memset(&o, 0, sizeof o);
        o.scale_a.kind = MF_GEMM_SCALE_TENSOR, o.scale_a.data = &neg0;
        ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 1, 1, 1, 1.0f, A, MF_BF16, 1, B, MF_BF16, 1,
                                 0.0f, &c, MF_FP32, 1, &o),
                         MF_OK);
        ck_assert_uint_eq(mf_test_f32_bits(c), 0u);
    }
}
END_TEST

/* every code of each 8-bit format in one row of B (the packing's vector widening runs over whole slivers), A = 1:
 * C(0, j) is the chain's fma(1, value of code j, +0), decoded by the oracle */
START_TEST(test_dp_every_code)
{
    static const mf_format F8[] = {MF_FP8_E4M3, MF_FP8_E5M2, MF_FP6_E2M3, MF_FP6_E3M2};
    static const uint16_t one = 0x3F80;
    for (int f = 0; f < 4; f++) {
        unsigned char b[256];
        float c[256];
        for (int q = 0; q < 256; q++)
            b[q] = (unsigned char)q;
        ck_assert_int_eq(mf_gemm(MF_ROW_MAJOR, MF_NO_TRANS, MF_NO_TRANS, 1, 256, 1, 1.0f, &one, MF_BF16, 1, b, F8[f],
                                 256, 0.0f, c, MF_FP32, 256, NULL),
                         MF_OK);
        for (uint32_t q = 0; q < 256; q++) {
            const float acc = fmaf(1.0f, (float)ref_decode(ref_of(F8[f]), code_bits(F8[f]) == 6 ? q & 0x3F : q), 0.0f);
            const uint32_t want = isnan(acc) ? 0x7FFFFFFFu : mf_test_f32_bits(acc);
            if (mf_test_f32_bits(c[q]) != want)
                ck_abort_msg("%s code 0x%02x: C = 0x%08x, want 0x%08x", mf_format_name(F8[f]), q,
                             mf_test_f32_bits(c[q]), want);
        }
    }
}
END_TEST

/* mf_gemm_plan: the kernel per backend and pair; errors as mf_gemm's */
START_TEST(test_dp_plan)
{
    mf_gemm_plan_info p;
    mf_gemm_opts o;
    const int bf16_backend = strcmp(mf_backend(), "avx512bf16") == 0;
    memset(&o, 0, sizeof o);
    for (int x = 0; x < N_PAIR_FMTS; x++)
        for (int y = 0; y < N_PAIR_FMTS; y++) {
            ck_assert_int_eq(mf_gemm_plan(PAIR_FMTS[x], PAIR_FMTS[y], &o, &p), MF_OK);
            ck_assert_str_eq(p.backend, mf_backend());
            if (!bf16_backend)
                ck_assert_str_eq(p.kernel, "fma");
            else if (strcmp(p.kernel, "dot-bf16") != 0) /* the self-test refused the instruction on this CPU */
                ck_assert_str_eq(p.kernel, "fma");
            ck_assert(p.mr > 0 && p.nr > 0 && p.mc > 0 && p.kc > 0 && p.nc > 0 && p.isa != NULL);
        }
    ck_assert_int_eq(mf_gemm_plan(MF_FP16, MF_BF16, &o, &p), MF_OK);
    ck_assert_str_eq(p.kernel, "fma"); /* f16 values are not bf16 values */
    ck_assert_int_eq(mf_gemm_plan(MF_FP32, MF_FP32, NULL, &p), MF_OK);
    ck_assert_str_eq(p.kernel, "fma");
    o.scale_a.kind = MF_GEMM_SCALE_MX; /* block scales are applied while packing, in binary32 */
    ck_assert_int_eq(mf_gemm_plan(MF_FP8_E4M3, MF_FP8_E4M3, &o, &p), MF_OK);
    ck_assert_str_eq(p.kernel, "fma");
    o.scale_a.kind = MF_GEMM_SCALE_TENSOR; /* applied in the epilogue: the same kernel as without */
    ck_assert_int_eq(mf_gemm_plan(MF_FP8_E4M3, MF_FP8_E4M3, &o, &p), MF_OK);
    {
        mf_gemm_plan_info q;
        ck_assert_int_eq(mf_gemm_plan(MF_FP8_E4M3, MF_FP8_E4M3, NULL, &q), MF_OK);
        ck_assert_str_eq(p.kernel, q.kernel);
        printf("backend %s: e4m3 x e4m3 runs %s (%s, %d x %d tiles, mc %zu kc %zu nc %zu)\n", mf_backend(), q.kernel,
               q.isa, q.mr, q.nr, q.mc, q.kc, q.nc);
    }
    o.scale_a.kind = MF_GEMM_SCALE_NONE, o.accum = MF_ACCUM_EXACT;
    ck_assert_int_eq(mf_gemm_plan(MF_FP8_E4M3, MF_FP8_E4M3, &o, &p), MF_OK);
    ck_assert_ptr_null(p.isa);
    o.accum = MF_ACCUM_H100;
    ck_assert_int_eq(mf_gemm_plan(MF_FP8_E4M3, MF_FP8_E4M3, &o, &p), MF_OK);
    ck_assert_str_eq(p.kernel, "tensor-core");
    ck_assert_int_eq(mf_gemm_plan(MF_FP6_E2M3, MF_FP6_E2M3, &o, &p), MF_E_FORMAT); /* not an H100 pair */
    o.accum = MF_ACCUM_FP32;
    memset(&p, 0x33, sizeof p);
    ck_assert_int_eq(mf_gemm_plan(MF_E8M0, MF_BF16, &o, &p), MF_E_FORMAT);
    ck_assert_int_eq(((unsigned char *)&p)[0], 0x33); /* left as it was */
    ck_assert_int_eq(mf_gemm_plan(MF_BF16, MF_BF16, &o, NULL), MF_E_NULL);
    o.threads = -1;
    ck_assert_int_eq(mf_gemm_plan(MF_BF16, MF_BF16, &o, &p), MF_E_ARG);
}
END_TEST

int main(void)
{
    const char *want = getenv("MF_GEMM_EXPECT");
    if (want && strcmp(want, mf_backend()) != 0) {
        printf("SKIP: backend %s asked, this CPU runs %s\n", want, mf_backend());
        return 77;
    }
    Suite *s = suite_create("gemm_dp");
    TCase *tc = tcase_create("gemm_dp");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_dp_pairs, 0, N_PAIR_FMTS * N_PAIR_FMTS);
    tcase_add_test(tc, test_dp_guard_floor);
    tcase_add_test(tc, test_dp_guard_other);
    tcase_add_test(tc, test_dp_every_code);
    tcase_add_test(tc, test_dp_plan);
    suite_add_tcase(s, tc);
    return mf_run_suite(s);
}

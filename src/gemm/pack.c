/* SPDX-License-Identifier: MIT */
/* src/gemm/pack.c - decoding the operands and packing them into the micro-kernels' panels (kernels.h): binary32
 * slivers for the fma kernels, bf16 pairs and their guard summaries for the pair kernels; block scales are applied
 * here, while widening. */
#include <string.h>

#include "gemm_internal.h"

static float bs_at(const bscale *s, size_t r, size_t c)
{
    const size_t q = (r >> s->bh) * s->scols + (c >> s->bw);
    return s->f ? s->f[q] : s->lut[s->u8[q]];
}

/* out[0], out[ostep], ... (count values of the array's elements from index idx on, step apart) times
 * their scales: each a binary32 product rounded to nearest, as the scaling API's dequantize functions */
void mf__gemm_bs_apply(float *out, size_t ostep, const bscale *s, size_t idx, size_t step, size_t count)
{
    size_t r = idx / s->ld, c = idx % s->ld;
    const int along_c = step == 1 && s->ld > 1;
    for (size_t q = 0; q < count; q++) {
        out[q * ostep] *= bs_at(s, r, c);
        if (along_c)
            c++;
        else
            r++;
    }
}

void mf__gemm_dec_init(dec *d, const mat *x)
{
    d->base = x->base, d->fmt = x->fmt, d->rs = x->rs, d->cs = x->cs, d->bs = x->bs;
    d->widen = mf__backend_for(mf__backend_active(), MF_FP32, x->fmt);
    d->widen8 = NULL, d->zip = NULL, d->weave = NULL, d->sum = mf__pair_sum_run;
    if (x->fmt != MF_FP32 && x->fmt != MF_FP16 && x->fmt != MF_BF16)
        for (uint32_t c = 0; c < 256; c++)
            d->lut[c] = mf_to_f32(x->fmt, x->fmt == MF_FP4_E2M1                            ? c & 0xF
                                          : x->fmt == MF_FP6_E2M3 || x->fmt == MF_FP6_E3M2 ? c & 0x3F
                                                                                           : c);
    for (uint32_t c = 0; c < 256; c++)
        d->lut16[c] = (uint16_t)(mf__f32_bits(d->lut[c]) >> 16);
}

/* count elements from array index idx on, step apart, widened into out[0], out[ostep], ... */
static void dec_run_raw(float *out, size_t ostep, const dec *d, size_t idx, size_t step, size_t count)
{
    const unsigned char *b = (const unsigned char *)d->base;
    size_t q;
    switch (d->fmt) {
    case MF_FP32:
        for (q = 0; q < count; q++, idx += step)
            memcpy(out + q * ostep, b + 4 * idx, 4);
        break;
    case MF_FP16:
        if (step == 1 && d->widen) { /* contiguous: the backend's conversion (F16C where there is one) */
            static const mf_opts rn;
            float tmp[256];
            for (q = 0; q < count; q += 256) {
                const size_t m = count - q < 256 ? count - q : 256;
                float *dst = ostep == 1 ? out + q : tmp;
                d->widen->convert(MF_FP32, dst, MF_FP16, b + 2 * (idx + q), m, &rn, NULL);
                if (ostep != 1)
                    for (size_t r = 0; r < m; r++)
                        out[(q + r) * ostep] = tmp[r];
            }
            break;
        }
        for (q = 0; q < count; q++, idx += step) {
            uint16_t h;
            memcpy(&h, b + 2 * idx, 2);
            out[q * ostep] = mf_to_f32(MF_FP16, h);
        }
        break;
    case MF_BF16:
        for (q = 0; q < count; q++, idx += step) {
            uint16_t h;
            uint32_t u;
            memcpy(&h, b + 2 * idx, 2);
            u = (uint32_t)h << 16;
            memcpy(out + q * ostep, &u, 4);
        }
        break;
    case MF_FP4_E2M1:
        for (q = 0; q < count; q++, idx += step)
            out[q * ostep] = d->lut[(b[idx / 2] >> (4 * (idx & 1))) & 0xF];
        break;
    default:
        for (q = 0; q < count; q++, idx += step)
            out[q * ostep] = d->lut[b[idx]];
    }
}

/* ... with their block scales */
static void dec_run(float *out, size_t ostep, const dec *d, size_t idx, size_t step, size_t count)
{
    dec_run_raw(out, ostep, d, idx, step, count);
    if (d->bs)
        mf__gemm_bs_apply(out, ostep, d->bs, idx, step, count);
}

/* op(A)'s rows [i0, i0 + mb) x columns [p0, p0 + kb) into slivers of mr rows (zero rows past mb) */
void mf__gemm_pack_a(float *ap, const dec *a, size_t i0, size_t mb, size_t p0, size_t kb, int mr)
{
    for (size_t s = 0; s < mb; s += (size_t)mr, ap += (size_t)mr * kb)
        for (size_t r = 0; r < (size_t)mr; r++) {
            if (s + r < mb)
                dec_run(ap + r, (size_t)mr, a, (i0 + s + r) * a->rs + p0 * a->cs, a->cs, kb);
            else
                for (size_t p = 0; p < kb; p++)
                    ap[p * (size_t)mr + r] = 0.0f;
        }
}

/* op(B)'s rows [0, k) x the columns of slivers [t0, t1) of the block starting at column j0 (nb columns):
 * per KC block of rows, slivers of nr columns, zero columns past nb. Each row's run is widened at once
 * (one call of the backend's conversion for f16), then dealt out to the slivers. */
void mf__gemm_pack_b(float *bp, const dec *b, size_t k, size_t kc, size_t j0, size_t nb, int nr, size_t t0, size_t t1)
{
    const size_t NR = (size_t)nr, ncp = (nb + NR - 1) / NR * NR, c0 = t0 * NR, c1 = t1 * NR < nb ? t1 * NR : nb;
    float row[NC_MAX];
    for (size_t p0 = 0; p0 < k; p0 += kc) {
        const size_t kb = k - p0 < kc ? k - p0 : kc;
        for (size_t p = 0; p < kb; p++) {
            dec_run(row, 1, b, (p0 + p) * b->rs + (j0 + c0) * b->cs, b->cs, c1 - c0);
            for (size_t c = c1 - c0; c < (t1 - t0) * NR; c++)
                row[c] = 0.0f;
            for (size_t t = t0; t < t1; t++)
                memcpy(bp + p0 * ncp + t * NR * kb + p * NR, row + (t - t0) * NR, NR * sizeof(float));
        }
    }
}

/* ---- the pair kernels' packing (kernels.h): bf16 pairs, and each sliver's guard summary ---------------- */

/* the formats whose every value is a bf16 value: the pair kernels take them when no block scale applies */
int mf__gemm_pair_format(mf_format f)
{
    return f == MF_BF16 || f == MF_FP8_E4M3 || f == MF_FP8_E5M2 || f == MF_FP6_E2M3 || f == MF_FP6_E3M2 ||
           f == MF_FP4_E2M1;
}

/* count elements from array index idx on, step apart, as bf16 codes */
static void dec_run_bf16(uint16_t *out, const dec *d, size_t idx, size_t step, size_t count)
{
    const unsigned char *b = (const unsigned char *)d->base;
    size_t q;
    if (d->fmt == MF_BF16 && step == 1) {
        memcpy(out, b + 2 * idx, 2 * count);
    } else if (d->fmt == MF_BF16) {
        for (q = 0; q < count; q++, idx += step)
            memcpy(out + q, b + 2 * idx, 2);
    } else if (d->fmt == MF_FP4_E2M1) {
        for (q = 0; q < count; q++, idx += step)
            out[q] = d->lut16[(b[idx / 2] >> (4 * (idx & 1))) & 0xF];
    } else if (step == 1 && d->widen8) {
        d->widen8(out, b + idx, count, d->lut16);
    } else {
        for (q = 0; q < count; q++, idx += step)
            out[q] = d->lut16[b[idx]];
    }
}

/* ... or, where they are contiguous bf16 codes in memory, the array itself (no copy) */
static const uint16_t *dec_view_bf16(uint16_t *buf, const dec *d, size_t idx, size_t step, size_t count)
{
    const uint16_t *p = (const uint16_t *)d->base + idx;
    if (d->fmt == MF_BF16 && step == 1 && !((uintptr_t)d->base & 1))
        return p;
    dec_run_bf16(buf, d, idx, step, count);
    return buf;
}

static const mf__pair_sum PAIR_SUM_EMPTY = {255, 0, 0};

/* op(A)'s rows [i0, i0 + mb) x columns [p0, p0 + kb) into slivers of mr rows of kp = ceil(kb / 2) pairs
 * (zero rows past mb, a zero element past kb), with each sliver's summary in sum[s] */
void mf__gemm_pack_a_pair(uint32_t *ap, mf__pair_sum *sum, const dec *a, size_t i0, size_t mb, size_t p0, size_t kb,
                          int mr)
{
    const size_t kp = (kb + 1) / 2, kf = kb / 2; /* pairs; whole pairs */
    uint16_t buf[PAIR_MR_MAX][KC_MAX];
    const uint16_t *run[PAIR_MR_MAX];
    for (size_t s = 0; s < mb; s += (size_t)mr, ap += (size_t)mr * kp, sum++) {
        *sum = PAIR_SUM_EMPTY;
        for (size_t r = 0; r < (size_t)mr; r++)
            if (s + r < mb) {
                run[r] = dec_view_bf16(buf[r], a, (i0 + s + r) * a->rs + p0 * a->cs, a->cs, kb);
            } else {
                memset(buf[r], 0, kb * sizeof buf[r][0]);
                run[r] = buf[r];
            }
        if (a->weave)
            a->weave(ap, run, kb);
        else
            for (size_t r = 0; r < (size_t)mr; r++) {
                for (size_t p = 0; p < kf; p++)
                    ap[p * (size_t)mr + r] = (uint32_t)run[r][2 * p] << 16 | run[r][2 * p + 1];
                if (kf < kp) /* odd kb: the last element and a zero */
                    ap[kf * (size_t)mr + r] = (uint32_t)run[r][2 * kf] << 16;
            }
        a->sum(sum, (const uint16_t *)(const void *)ap, 2 * kp * (size_t)mr); /* pads are zeros */
    }
}

/* pack_b for the pair kernels: per KC block, slivers of nr columns of kp pairs each, laid out as pack_b's
 * floats (a pair takes a float's four bytes: block p0 starts at p0 / 2 * ncp words), and each sliver's
 * summary in sum[(p0 / kc) * tn + t] (tn slivers in the column block) */
void mf__gemm_pack_b_pair(uint32_t *bp, mf__pair_sum *sum, const dec *b, size_t k, size_t kc, size_t j0, size_t nb,
                          int nr, size_t t0, size_t t1)
{
    const size_t NR = (size_t)nr, ncp = (nb + NR - 1) / NR * NR, tn = ncp / NR, c0 = t0 * NR;
    const size_t c1 = t1 * NR < nb ? t1 * NR : nb, w = (t1 - t0) * NR;
    uint16_t row0[NC_MAX], row1[NC_MAX];
    for (size_t p0 = 0; p0 < k; p0 += kc) {
        const size_t kb = k - p0 < kc ? k - p0 : kc, kp = (kb + 1) / 2;
        mf__pair_sum *sb = sum + p0 / kc * tn;
        for (size_t t = t0; t < t1; t++)
            sb[t] = PAIR_SUM_EMPTY;
        for (size_t p = 0; p < kp; p++) {
            const uint16_t *r0b = row0, *r1b = row1;
            if (c1 - c0 == w) { /* whole slivers: the rows as they are, where they are bf16 in memory */
                r0b = dec_view_bf16(row0, b, (p0 + 2 * p) * b->rs + (j0 + c0) * b->cs, b->cs, w);
                if (2 * p + 1 < kb)
                    r1b = dec_view_bf16(row1, b, (p0 + 2 * p + 1) * b->rs + (j0 + c0) * b->cs, b->cs, w);
                else
                    memset(row1, 0, w * sizeof *row1);
            } else {
                memset(row0 + (c1 - c0), 0, (w - (c1 - c0)) * sizeof *row0);
                memset(row1, 0, w * sizeof *row1);
                dec_run_bf16(row0, b, (p0 + 2 * p) * b->rs + (j0 + c0) * b->cs, b->cs, c1 - c0);
                if (2 * p + 1 < kb)
                    dec_run_bf16(row1, b, (p0 + 2 * p + 1) * b->rs + (j0 + c0) * b->cs, b->cs, c1 - c0);
            }
            if (b->zip) {
                b->zip(bp + p0 / 2 * ncp + t0 * NR * kp + p * NR, NR * kp, r0b, r1b, t1 - t0);
                continue;
            }
            for (size_t t = t0; t < t1; t++) {
                uint32_t *dst = bp + p0 / 2 * ncp + t * NR * kp + p * NR;
                const uint16_t *r0 = r0b + (t - t0) * NR, *r1 = r1b + (t - t0) * NR;
                for (size_t c = 0; c < NR; c++)
                    dst[c] = (uint32_t)r0[c] << 16 | r1[c];
            }
        }
        for (size_t t = t0; t < t1; t++) /* each packed sliver at once (its pads are zeros) */
            b->sum(&sb[t], (const uint16_t *)(const void *)(bp + p0 / 2 * ncp + t * NR * kp), 2 * NR * kp);
    }
}

/* SPDX-License-Identifier: MIT */
/* src/p3109_family.c - bulk conversions of the P3109 family's members by their parameters (minifloat/p3109_family.h):
 * each element through the scalar core, the stream of random bits and the argument checks of mf_convert, and
 * large arrays shared by the thread team in pieces cut at multiples of 64 elements, as parallel.c cuts them. */
#include <string.h>

#include "internal.h"

enum { PIECE_MIN = 1 << 20, PIECES_MAX = 64 };

typedef struct job {
    mf__fmt w;
    int to_f32; /* 1: codes to binary32; 0: binary32 to codes */
    void *dst;
    const void *src;
    size_t n, start;
    mf_opts o;
    mf_stats st;
    int count;
} job;

/* elements [0, n) of one piece, whose first element is element `start` of the call (its random bits) */
static void run_job(job *j)
{
    const mf__fmt f32 = mf__fmt_get(MF_FP32);
    const int wide = j->w.bits > 8, width = wide ? 16 : 8;
    const uint32_t mask = (uint32_t)mf__fmt_code_mask(j->w);
    for (size_t i = 0; i < j->n; i++) {
        const uint32_t rbits =
            j->o.round == MF_ROUND_STOCHASTIC ? mf_sr_rbits(j->o.seed, j->o.sr_offset + j->start + i, width) : 0u;
        unsigned ev = 0;
        if (j->to_f32) {
            const uint32_t code =
                (wide ? ((const uint16_t *)j->src)[j->start + i] : ((const uint8_t *)j->src)[j->start + i]) & mask;
            const mf__unpacked u = mf__unpack(j->w, code);
            /* the NaN: the quiet NaN with sign and payload clear, as the rows decode it */
            const uint32_t bits = u.cls == MF__CLS_NAN ? (ev = MF__EV_NAN, 0x7FC00000u)
                                                       : mf__round_pack(f32, u, j->o.round, j->o.overflow, rbits, &ev);
            memcpy((float *)j->dst + j->start + i, &bits, 4);
        } else {
            float x;
            uint32_t code;
            memcpy(&x, (const float *)j->src + j->start + i, 4);
            code = mf__round_pack(j->w, mf__unpack(f32, mf__f32_bits(x)), j->o.round, j->o.overflow, rbits, &ev);
            if (wide)
                ((uint16_t *)j->dst)[j->start + i] = (uint16_t)code;
            else
                ((uint8_t *)j->dst)[j->start + i] = (uint8_t)code;
        }
        if (j->count && ev)
            mf__stats_add(&j->st, ev);
    }
}

typedef struct jobs {
    job *j;
    size_t count;
} jobs;

static void member(mf__team *tm, size_t id, void *ctx)
{
    const jobs *js = (const jobs *)ctx;
    (void)id;
    for (size_t k; (k = mf__team_take(tm, js->count)) != SIZE_MAX;)
        run_job(&js->j[k]);
}

static int convert(mf_p3109 f, int to_f32, void *dst, const void *src, size_t n, const mf_opts *opts)
{
    static const mf_opts defaults = {MF_ROUND_NEAREST_EVEN, MF_OVERFLOW_IEEE, 0, 0, NULL, 0, MF_PROFILE_DEFAULT};
    const mf_opts *o = opts ? opts : &defaults;
    const mf__fmt w = mf__p3109_facts(f);
    size_t cbytes, fbytes, per = n, pieces = 1;
    job js[PIECES_MAX];
    int rc;

    if (w.bits == 0)
        return MF_E_ARG;
    if ((rc = mf__check_opts(o)) != MF_OK)
        return rc;
    if (o->profile != MF_PROFILE_DEFAULT) /* no compatibility profile knows these formats */
        return MF_E_PROFILE;
    if (n == 0) {
        if (o->stats)
            memset(o->stats, 0, sizeof *o->stats);
        return MF_OK;
    }
    if (!dst || !src)
        return MF_E_NULL;
    if (!mf__span_ok(to_f32 ? src : dst, n, w.bits > 8 ? 2 : 1, &cbytes) ||
        !mf__span_ok(to_f32 ? dst : src, n, 4, &fbytes))
        return MF_E_SIZE;
    if (mf__ranges_overlap(dst, to_f32 ? fbytes : cbytes, src, to_f32 ? cbytes : fbytes))
        return MF_E_OVERLAP;
    if (o->threads > 1 && n >= PIECE_MIN) {
        const size_t t = (size_t)(o->threads < PIECES_MAX ? o->threads : PIECES_MAX);
        per = ((n + t - 1) / t + 63) & ~(size_t)63;
        pieces = (n + per - 1) / per;
    }
    for (size_t k = 0; k < pieces; k++) {
        job *j = &js[k];
        j->w = w, j->to_f32 = to_f32, j->dst = dst, j->src = src, j->o = *o;
        j->start = k * per, j->n = n - j->start < per ? n - j->start : per;
        j->count = o->stats != NULL;
        memset(&j->st, 0, sizeof j->st);
    }
    if (pieces > 1) {
        jobs all;
        all.j = js, all.count = pieces;
        mf__team_run(pieces, member, &all);
    } else {
        run_job(&js[0]);
    }
    if (o->stats) {
        memset(o->stats, 0, sizeof *o->stats);
        for (size_t k = 0; k < pieces; k++)
            mf__stats_sum(o->stats, &js[k].st);
    }
    return MF_OK;
}

int mf_p3109_convert_from_f32(mf_p3109 f, void *dst, const float *src, size_t n, const mf_opts *opts)
{
    return convert(f, 0, dst, src, n, opts);
}

int mf_p3109_convert_to_f32(float *dst, mf_p3109 f, const void *src, size_t n, const mf_opts *opts)
{
    return convert(f, 1, dst, src, n, opts);
}

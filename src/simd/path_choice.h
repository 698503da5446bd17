/* SPDX-License-Identifier: MIT */
/* src/simd/path_choice.h - which path takes a call without statistics (bk_path: the order of preference) and
 * running it (bk_run) (included by backend_paths.h, once per backend). */

/* The path of a call without statistics: the first that takes it, in this order. */
static int bk_path(mf_format d, mf_format s, size_t n, const mf_opts *o)
{
    if (bk_w16_ok(d, s, n, o))
        return MF__PATH_W16;
    if (bk_direct_kind(d, s, n, o) != BK_DIRECT_NONE)
        return MF__PATH_DIRECT;
    if (bk_lut_ok(d, s, n, o))
        return MF__PATH_LUT;
    if (bk_lut_sr_ok(d, s, n, o))
        return MF__PATH_LUT_SR;
    return bk_vectorizable(d, s, o, 0) ? MF__PATH_BLOCKED : MF__PATH_PORTABLE;
}

static void bk_run(int path, mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o)
{
    switch (path) {
    case MF__PATH_W16: bk_w16_run(d, dst, s, src, n, o); break;
    case MF__PATH_DIRECT: bk_direct_run(bk_direct_kind(d, s, n, o), d, dst, s, src, n, o, NULL); break;
    case MF__PATH_LUT: bk_lut_run(d, dst, s, src, n, o); break;
    case MF__PATH_LUT_SR:
        if (bk_lut_sr_run(d, dst, s, src, n, o))
            break;
        bk_blocked(d, dst, s, src, n, o, NULL); /* not reached: bk_lut_sr_ok knows what it declines */
        break;
    default: bk_blocked(d, dst, s, src, n, o, NULL); break; /* blocked, or portable within it */
    }
}

/* SPDX-License-Identifier: MIT */
/* src/portable/convert_profile.c - mf_convert under a compatibility profile (opts->profile != 0).
 *
 * One element at a time through minifloat/detail/profile.h: a source decodes as the system decodes it
 * (exact but for NaN codes), then rounds into the destination as the system does. Slower than the
 * default paths by design: profiles exist to reproduce other systems' bits, not to be fast.
 */
#include <string.h>

#include "../internal.h"
#include "elements.h"

void mf__convert_profile(mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o,
                         mf_stats *st)
{
    const mf_profile p = o->profile;
    const mf__fmt sf = mf__fmt_get(s), df = mf__fmt_get(d); /* d != s: equal formats copy */
    mf_stats c;
    size_t i;
    memset(&c, 0, sizeof c);
    for (i = 0; i < n; i++) {
        uint64_t code = elem_load(s, src, i), out;
        mf__unpacked u;
        unsigned ev = 0;
        int src64 = 0;
        if (d == MF_FP64 || (d == MF_FP32 && s != MF_FP64)) { /* decoding */
            u = mf__unpack(sf, code);
            out = d == MF_FP64 ? mf__profile_decode_f64(p, s, code) : mf__profile_decode_f32(p, s, (uint32_t)code);
            ev |= u.cls == MF__CLS_NAN ? (unsigned)MF__EV_NAN : 0u;
            if (u.cls == MF__CLS_FINITE && (out & mf__fmt_mag_mask(df)) >> df.man == 0)
                ev |= MF__EV_SUBNORMAL;
        } else {
            if (s == MF_FP64 && mf__profile_via_f32(p, d)) {
                u = mf__unpack(mf__fmt_get(MF_FP32), mf__profile_f64_to_f32(mf__f64_from_bits(code)));
                src64 = 1;
            } else if (s == MF_FP64) {
                u = mf__unpack(sf, code);
                src64 = 1;
            } else { /* every narrower value is exact in binary32; NaNs as the system decodes them */
                u = mf__unpack(mf__fmt_get(MF_FP32), mf__profile_decode_f32(p, s, (uint32_t)code));
            }
            out = mf__profile_round(p, d, u, src64, o->round, o->overflow, 0, &ev);
        }
        elem_store(d, dst, i, out);
        mf__stats_add(&c, ev);
    }
    if (st)
        *st = c;
}

/* SPDX-License-Identifier: MIT */
/* src/simd/w16.c - one backend's 16-bit-lane kernels (f16/bf16 -> narrow formats, hw_w16_loop) in a unit
 * of their own, so that they compile beside the rest. sources.cmake compiles it from a file it generates,
 * which includes the backend's configuration and its w16 header and names BK_W16_OK and BK_W16_LOOP. */
int BK_W16_OK(mf_format d, mf_format s, const mf_opts *o);
void BK_W16_LOOP(mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o, int stream);

int BK_W16_OK(mf_format d, mf_format s, const mf_opts *o) { return hw_w16_ok(d, s, o); }

void BK_W16_LOOP(mf_format d, void *dst, mf_format s, const void *src, size_t n, const mf_opts *o, int stream)
{
    hw_w16_loop(d, dst, s, src, n, o, stream);
}

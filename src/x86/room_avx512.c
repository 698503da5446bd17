/* src/x86/room_avx512.c - the AVX-512 room (F, BW, VL, DQ, CD), 16 lanes.
 * Built with -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512cd -mavx2 -mf16c -mfma -mbmi2. */
#include "vec_avx512.h"

#include "../simd/kernels.h"
#include "room_avx512_hw.h"

#define ROOM_SYM avx512
#include "../simd/room.h"

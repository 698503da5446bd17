/* SPDX-License-Identifier: MIT */
/* minifloat.h - narrow floating-point formats for machine learning, exact to the bit.
 *
 * The one header users include. Scalar conversions are inline and work in C99, C++ and CUDA device
 * code; bulk conversions (minifloat/convert.h) live in the compiled library. The overflow lab (mf_analyze,
 * mf_unary, mf_softmax) is a library of its own with its own header: <minifloat/lab.h>.
 *
 *   #include <minifloat.h>
 *   mf_e4m3_t q = mf_f32_to_e4m3_rn_sat(3.3f);   // 0x45 = 3.25
 *   float back  = mf_e4m3_to_f32(q);
 *
 * See docs/formats.md and docs/rounding.md for the exact semantics.
 */
#ifndef MINIFLOAT_H
#define MINIFLOAT_H

#include "minifloat/config.h"
#include "minifloat/types.h"
#include "minifloat/scalar.h"
#include "minifloat/p3109.h"
#include "minifloat/p3109_family.h"
#include "minifloat/profile.h"
#include "minifloat/f16.h"
#include "minifloat/bf16.h"
#include "minifloat/fp8.h"
#include "minifloat/fp6.h"
#include "minifloat/fp4.h"
#include "minifloat/e8m0.h"
#include "minifloat/philox.h"
#include "minifloat/convert.h"
#include "minifloat/loss_scale.h"
#include "minifloat/fp8_scaling.h"
#include "minifloat/mx.h"
#include "minifloat/gemm.h"

#endif /* MINIFLOAT_H */

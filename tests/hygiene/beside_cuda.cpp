/* SPDX-License-Identifier: MIT */
// tests/hygiene/beside_cuda.cpp - <minifloat.h> after <cmath> and NVIDIA's own headers, whose global
// names (half, nv_bfloat16, expf, ...) our inline code must not shadow under -Wshadow -Werror.
#include <cmath>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <minifloat.h>

#include "hygiene_body.h"

int main() { return mf_hygiene_failures() != 0; }

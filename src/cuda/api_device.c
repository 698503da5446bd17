/* SPDX-License-Identifier: MIT */
/* src/cuda/api_device.c - what this build and machine offer (minifloat/cuda.h). */
#include "launch.h"

int mf_cuda_built(void) { return mf__cuda_built(); }

int mf_cuda_device_count(void) { return mf__cuda_device_count(); }

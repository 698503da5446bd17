/* SPDX-License-Identifier: MIT */
/* minifloat/lab.h - the overflow lab: what a format does to a tensor (mf_analyze, minifloat/analyze.h)
 * and the activation functions of training as mixed-precision kernels compute them (mf_unary,
 * mf_softmax, minifloat/elementwise.h), and what a training run keeps in memory per precision recipe
 * (mf_memory_plan, minifloat/memory.h).
 *
 *   #include <minifloat/lab.h>      // includes <minifloat.h>
 *
 * The lab is a library of its own on top of the core: link minifloat_lab (-lminifloat_lab, pkg-config
 * minifloat_lab, or minifloat::lab / minifloat::lab_static in CMake). <minifloat.h> does not include
 * this header. docs/overflow.md shows what the lab is for; docs/analyze.md defines the report.
 */
#ifndef MINIFLOAT_LAB_H
#define MINIFLOAT_LAB_H

#include "../minifloat.h"
#include "analyze.h"
#include "elementwise.h"
#include "memory.h"

#endif /* MINIFLOAT_LAB_H */

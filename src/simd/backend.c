/* SPDX-License-Identifier: MIT */
/* src/simd/backend.c - one backend's paths and convert (backend_paths.h). sources.cmake compiles it once
 * per backend from a file it generates, which defines BK_SYM, BK_PATHS and BK_ROUND_<tag> for each
 * destination (the backend's own round kernel or its parent's) and includes the backend's
 * configuration first. */
#include "backend_paths.h"

# SPDX-License-Identifier: MIT
# Block-scaled formats (OCP MX, NVFP4): scales, elements, layouts, FP6 packing, errors, stochastic rounding.
mf_add_test(test_mx SOURCES test_mx.c LABELS unit TIMEOUT 300)
mf_add_test(test_nvfp4 SOURCES test_nvfp4.c LABELS unit TIMEOUT 300)
# The references transcribe TE's binary32 expressions in plain C: no fused multiply-add contraction.
if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(test_mx PRIVATE -ffp-contract=off)
  target_compile_options(test_nvfp4 PRIVATE -ffp-contract=off)
endif()

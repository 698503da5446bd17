# SPDX-License-Identifier: MIT
# Elementwise operations of the overflow lab (exp, tanh, sigmoid, SiLU, GELU, softmax): binary32 accuracy
# against binary64 references, rounding into the targets, edges, the FP environment.
# The lab is its own library (minifloat_lab): left out with MF_BUILD_LAB=OFF.
if(TARGET minifloat_lab_static)
  mf_add_test(test_elementwise SOURCES test_elementwise.c LIBS minifloat_lab_static LABELS unit TIMEOUT 300)
endif()

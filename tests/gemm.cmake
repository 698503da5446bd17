# SPDX-License-Identifier: MIT
# Mixed-precision GEMM: mf_gemm against MPFR and the oracle's rounding.
mf_add_test(test_gemm SOURCES test_gemm.c LABELS unit TIMEOUT 300 LIBS mf_oracle)

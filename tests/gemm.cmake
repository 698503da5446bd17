# SPDX-License-Identifier: MIT
# Mixed-precision GEMM: mf_gemm against MPFR and the oracle's rounding, with the best backend's kernel,
# and again with each other backend's (MF_BACKEND; the run says SKIP where this CPU lacks the backend).
mf_add_test(test_gemm SOURCES test_gemm.c LABELS unit TIMEOUT 300 LIBS mf_oracle)
foreach(bk IN ITEMS portable ${MF_BACKENDS})
  add_test(NAME test_gemm_${bk} COMMAND test_gemm)
  set_tests_properties(test_gemm_${bk} PROPERTIES LABELS unit TIMEOUT 300 SKIP_RETURN_CODE 77
                       ENVIRONMENT "MF_BACKEND=${bk};MF_GEMM_EXPECT=${bk}")
endforeach()
# The tensor-core models: published GPU results and a slow MPFR reference of the rule.
mf_add_test(test_gemm_tc SOURCES test_gemm_tc.c LABELS unit TIMEOUT 300 LIBS mf_oracle)

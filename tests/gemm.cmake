# SPDX-License-Identifier: MIT
# Mixed-precision GEMM: mf_gemm against MPFR and the oracle's rounding, with the best backend's kernel,
# and again with each other backend's (MF_BACKEND; the run says SKIP where this CPU lacks the backend).
# test_gemm_dp: MF_ACCUM_FP32 on bf16-valued inputs, where the dot-product kernel may run under its guard: the
# fma chain's bits inside the guard, on its edges and outside it; mf_gemm_plan.
mf_add_test(test_gemm SOURCES test_gemm.c LABELS unit TIMEOUT 300 LIBS mf_oracle)
mf_add_test(test_gemm_dp SOURCES test_gemm_dp.c LABELS unit TIMEOUT 300 LIBS mf_oracle)
foreach(t IN ITEMS test_gemm test_gemm_dp)
  foreach(bk IN ITEMS portable ${MF_BACKENDS})
    add_test(NAME ${t}_${bk} COMMAND ${t})
    set_tests_properties(${t}_${bk} PROPERTIES LABELS unit TIMEOUT 300 SKIP_RETURN_CODE 77
                         ENVIRONMENT "MF_BACKEND=${bk};MF_GEMM_EXPECT=${bk}")
  endforeach()
endforeach()
# The tensor-core models: published GPU results and a slow MPFR reference of the rule.
mf_add_test(test_gemm_tc SOURCES test_gemm_tc.c LABELS unit TIMEOUT 300 LIBS mf_oracle)
# MF_ACCUM_EXACT's integer path (src/gemm/exact_int.c) against MPFR, with each backend's integer kernel. The plain
# run takes the cases that call every kernel this CPU runs directly (MF_GEMM_PART=kernels: they do not depend on
# MF_BACKEND), the per-backend runs the mf_gemm cases (the plain run's default backend is one of them).
mf_add_test(test_gemm_exact SOURCES test_gemm_exact.c LABELS unit TIMEOUT 300 LIBS mf_oracle)
set_tests_properties(test_gemm_exact PROPERTIES ENVIRONMENT "MF_GEMM_PART=kernels")
foreach(bk IN ITEMS portable ${MF_BACKENDS})
  add_test(NAME test_gemm_exact_${bk} COMMAND test_gemm_exact)
  set_tests_properties(test_gemm_exact_${bk} PROPERTIES LABELS unit TIMEOUT 300 SKIP_RETURN_CODE 77
                       ENVIRONMENT "MF_BACKEND=${bk};MF_GEMM_EXPECT=${bk};MF_GEMM_PART=gemm")
endforeach()

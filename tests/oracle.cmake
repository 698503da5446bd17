# SPDX-License-Identifier: MIT
# Oracle-backed unit tests: the FP32 boundary set, f64 sources, hand-checked vector files, and the table of
# formats against each oracle's own statement of it.
mf_add_test(test_boundary SOURCES test_boundary.c LABELS unit TIMEOUT 300 LIBS mf_oracle)
mf_add_test(test_f64 SOURCES test_f64.c LABELS unit TIMEOUT 300 LIBS mf_oracle)
mf_add_test(test_formats SOURCES test_formats.c test_formats_slow.c LABELS unit TIMEOUT 60 LIBS mf_oracle)
mf_add_test(test_vectors SOURCES test_vectors.c LABELS unit TIMEOUT 300 LIBS mf_oracle)
target_compile_definitions(test_vectors PRIVATE MF_VECTOR_DIR="${CMAKE_CURRENT_SOURCE_DIR}/vectors")
mf_add_test(test_p3109 SOURCES test_p3109.c LABELS unit TIMEOUT 120 LIBS mf_oracle)
target_compile_definitions(test_p3109 PRIVATE MF_P3109_VECTOR_DIR="${CMAKE_CURRENT_SOURCE_DIR}/vectors/p3109")
# MF_OVERFLOW_PROPAGATE (SatPropagate) on every format: the oracle's infinities, SATURATE's bits elsewhere
mf_add_test(test_propagate SOURCES test_propagate.c LABELS unit TIMEOUT 120 LIBS mf_oracle)
# The P3109 family by its parameters (minifloat/p3109_family.h): value tables, the breakpoint oracle, the rows
mf_add_test(test_p3109_family SOURCES test_p3109_family.c LABELS unit TIMEOUT 300 LIBS mf_oracle)
target_compile_definitions(test_p3109_family PRIVATE
  MF_P3109_VECTOR_DIR="${CMAKE_CURRENT_SOURCE_DIR}/vectors/p3109")

# SPDX-License-Identifier: MIT
# The IEEE P3109 arithmetic (minifloat/p3109.h) against MPFR: every pair and every code in the unit tier,
# every FMA and FAA triple of the 8-bit conformance formats in rn in the exhaustive tier (CI: a sixteenth of them, a
# different one each day; MF_EXHAUSTIVE_SHARD=all, as scripts/setup.sh test-all sets: every triple).
mf_add_test(test_p3109_arith SOURCES test_p3109_arith.c LABELS unit TIMEOUT 300 LIBS mf_oracle)
add_test(NAME test_p3109_arith_full COMMAND test_p3109_arith --full)
set_tests_properties(test_p3109_arith_full PROPERTIES LABELS exhaustive TIMEOUT 3600)

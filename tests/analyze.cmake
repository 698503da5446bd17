# SPDX-License-Identifier: MIT
# The overflow lab's analysis (docs/analyze.md): mf_analyze against element-by-element scalar references,
# brute-forced safe scales, the bulk conversion's counters, bad arguments.
# The lab is its own library (minifloat_lab): left out with MF_BUILD_LAB=OFF.
if(TARGET minifloat_lab_static)
  mf_add_test(test_analyze SOURCES test_analyze.c LIBS minifloat_lab_static LABELS unit TIMEOUT 300)
endif()

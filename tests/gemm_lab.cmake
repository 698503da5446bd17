# SPDX-License-Identifier: MIT
# `minifloat gemm-lab`: the accumulation models' error against the exact dot product as K grows (a small
# run, its CSV and plot, and the shape DeepSeek-V3 reports), and its usage errors.
if(TARGET minifloat_cli)
  foreach(t IN ITEMS gemm_lab gemm_lab_errors)
    add_test(NAME cli_${t}
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/${t}.sh $<TARGET_FILE:minifloat_cli>
                     ${CMAKE_CURRENT_BINARY_DIR}/cli_work/${t})
    set_tests_properties(cli_${t} PROPERTIES LABELS cli TIMEOUT 120 SKIP_RETURN_CODE 77)
  endforeach()
  # bad options and refused model/format pairs: also the abuse tier
  set_property(TEST cli_gemm_lab_errors APPEND PROPERTY LABELS abuse)
endif()

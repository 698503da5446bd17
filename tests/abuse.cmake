# SPDX-License-Identifier: MIT
# Abuse tier (label abuse): every exported function called as a buggy caller would call it
# (test_abuse.c's table), the table checked against the libraries' exported symbols, and the CLI's
# hostile-input scripts (labelled abuse where they are defined: cli.cmake, lab_cli.cmake). The CUDA
# library's functions have rows too: with kernels (MF_HAVE_CUDA) the test registers its arena with the
# CUDA runtime where a device is present (MF_ABUSE_CUDA), without them they answer MF_E_UNSUPPORTED.
if(TARGET minifloat_lab_static)
  mf_add_test(test_abuse SOURCES test_abuse.c LIBS minifloat_lab_static minifloat_cuda_static LABELS abuse TIMEOUT 120)
  if(MF_HAVE_CUDA)
    target_compile_definitions(test_abuse PRIVATE MF_ABUSE_CUDA)
  endif()
  if(NOT CMAKE_CROSSCOMPILING)
    add_test(NAME abuse_symbols
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/abuse_symbols.sh $<TARGET_FILE:test_abuse>
                     $<TARGET_FILE:minifloat_shared> $<TARGET_FILE:minifloat_lab> $<TARGET_FILE:minifloat_cuda>)
    set_tests_properties(abuse_symbols PROPERTIES LABELS abuse TIMEOUT 60 SKIP_RETURN_CODE 77)
  endif()
endif()

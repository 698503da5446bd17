# SPDX-License-Identifier: MIT
# The overflow lab's tool parts: the .npy reader's unit tests (tools/cli/npy.c, linked from
# mf_tools) and the `minifloat analyze` scripts in tests/cli/ (npy_lib.sh is their helper, not a test).
if(TARGET mf_tools)
  mf_add_test(test_npy SOURCES test_npy.c LIBS mf_tools LABELS unit TIMEOUT 60)
endif()
# The analyze scripts need the lab (minifloat_lab); npy_dtypes reads through analyze too.
if(TARGET minifloat_cli AND TARGET minifloat_lab)
  set(MF_LAB_CLI_TESTS analyze analyze_errors analyze_plot analyze_examples analyze_ops npy_dtypes)
  foreach(t IN LISTS MF_LAB_CLI_TESTS)
    add_test(NAME cli_${t}
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/${t}.sh $<TARGET_FILE:minifloat_cli>
                     ${CMAKE_CURRENT_BINARY_DIR}/cli_work/${t} ${PROJECT_SOURCE_DIR}/examples/data)
    set_tests_properties(cli_${t} PROPERTIES LABELS cli TIMEOUT 120 SKIP_RETURN_CODE 77)
  endforeach()
  # malformed files, duplicate and case-varied names, '-' as stdin, failed writes: also the abuse tier
  set_property(TEST cli_analyze cli_analyze_errors APPEND PROPERTY LABELS abuse)
endif()
# The training demo: its library part (tools/train_demo/) and the `minifloat train-demo` command.
if(TARGET mf_tools)
  mf_add_test(test_train_demo SOURCES test_train_demo.c LIBS mf_tools LABELS unit TIMEOUT 600)
endif()
if(TARGET minifloat_cli)
  add_test(NAME cli_train_demo
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/train_demo.sh $<TARGET_FILE:minifloat_cli>
                   ${CMAKE_CURRENT_BINARY_DIR}/cli_work/train_demo)
  set_tests_properties(cli_train_demo PROPERTIES LABELS "cli;abuse" TIMEOUT 300) # with its range errors
endif()

# SPDX-License-Identifier: MIT
# The memory planner (mf_memory_plan, <minifloat/memory.h>, in the lab library): published figures
# (DeepSpeed's estimators, HF accelerate, the ZeRO paper, Korthikanti et al.), the training demo's counted
# allocations, bad arguments; and `minifloat memory` (tests/cli/memory*.sh).
if(TARGET minifloat_lab_static AND TARGET mf_tools)
  mf_add_test(test_memory SOURCES test_memory.c LIBS minifloat_lab_static mf_tools LABELS unit TIMEOUT 60)
  target_include_directories(test_memory PRIVATE ${PROJECT_SOURCE_DIR}/tools/train_demo)
  set_property(TEST test_memory APPEND PROPERTY LABELS abuse) # its error cases
endif()
if(TARGET minifloat_cli AND TARGET minifloat_lab)
  foreach(t IN ITEMS memory memory_errors)
    add_test(NAME cli_${t}
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/${t}.sh $<TARGET_FILE:minifloat_cli>
                     ${CMAKE_CURRENT_BINARY_DIR}/cli_work/${t})
    set_tests_properties(cli_${t} PROPERTIES LABELS cli TIMEOUT 60 SKIP_RETURN_CODE 77)
  endforeach()
  set_property(TEST cli_memory_errors APPEND PROPERTY LABELS abuse) # bad options and values
endif()

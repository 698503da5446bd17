# SPDX-License-Identifier: MIT
# CLI tier: the minifloat tool, driven through POSIX sh scripts in tests/cli/.
# Each script gets the tool, a scratch directory and (help only) the project version.
if(TARGET minifloat_cli)
  set(MF_CLI_TESTS help info show convert_text convert_binary convert_npy e2m1 errors stochastic plan)
  foreach(t IN LISTS MF_CLI_TESTS)
    add_test(NAME cli_${t}
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/${t}.sh $<TARGET_FILE:minifloat_cli>
                     ${CMAKE_CURRENT_BINARY_DIR}/cli_work/${t} ${PROJECT_VERSION})
    set_tests_properties(cli_${t} PROPERTIES LABELS cli TIMEOUT 120 SKIP_RETURN_CODE 77)
  endforeach()
  # hostile input (bad commands and options, NUL bytes, full disks, MF_BACKEND=bogus, refused .npy
  # headers): also the abuse tier
  set_property(TEST cli_errors cli_convert_npy APPEND PROPERTY LABELS abuse)
endif()

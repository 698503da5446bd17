# SPDX-License-Identifier: MIT
# Unit tier owned by the API: the bulk contract and the queries.
mf_add_test(test_api SOURCES test_api.c LABELS unit TIMEOUT 300)
mf_add_test(test_two_step SOURCES test_two_step.c LABELS unit TIMEOUT 300)
mf_add_test(test_backends SOURCES test_backends.c LABELS unit TIMEOUT 600 LIBS mf_oracle)
target_compile_definitions(test_backends PRIVATE ${MF_BACKEND_DEFINITIONS}) # the backends the build has
mf_add_test(test_arith SOURCES test_arith.c LABELS unit TIMEOUT 300)
mf_add_test(test_threads SOURCES test_threads.c LABELS unit TIMEOUT 120 LIBS Threads::Threads)
mf_add_test(test_profile SOURCES test_profile.c LABELS unit TIMEOUT 300)
# and again with each backend's build of the profiles' fix-up loops (the run says SKIP where this CPU lacks it),
# where there are several (x86-64; aarch64's one, neon, is the plain run's)
list(LENGTH MF_BACKENDS nbk)
if(nbk GREATER 1)
  foreach(bk IN ITEMS portable ${MF_BACKENDS})
    add_test(NAME test_profile_${bk} COMMAND test_profile)
    set_tests_properties(test_profile_${bk} PROPERTIES LABELS unit TIMEOUT 300 SKIP_RETURN_CODE 77
                         ENVIRONMENT "MF_BACKEND=${bk};MF_PROFILE_EXPECT=${bk}")
  endforeach()
endif()

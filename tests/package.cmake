# SPDX-License-Identifier: MIT
# Package tier: install, then consume through find_package and pkg-config (the lab and the MPI component too
# where built).
if(MF_BUILD_LAB)
  set(MF_PACKAGE_LAB 1)
else()
  set(MF_PACKAGE_LAB 0)
endif()
set(MF_PACKAGE_MPI 0)
if(MF_HAVE_MPI)
  set(MF_PACKAGE_MPI 1)
endif()
add_test(NAME package_consumer
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/package/check_package.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/package_scratch ${MF_PACKAGE_LAB} ${MF_PACKAGE_MPI} "${MPIEXEC_EXECUTABLE}")
set_tests_properties(package_consumer PROPERTIES LABELS package TIMEOUT 300)

# SPDX-License-Identifier: MIT
# MPI tier (label mpi): data-parallel training through mpiexec (docs/distributed.md). Not in the
# sanitizer tiers (their -L filters do not name mpi): Open MPI's own allocations and threads are reported
# there. Without MPI, one test, mpi_absent, says so and skips.

# mf_add_mpi_test(name SOURCES ... [LIBS ...] [NP n...] [TIMEOUT s] [ARGS ...])
# Builds name as mf_add_test builds a test, linked with minifloat_mpi, and runs it as
# mpiexec -n <n> --oversubscribe name ARGS, as root too (CI runs as root), once per n in NP (default 2):
# the first run is the test `name`, the others `name_np<n>`. A no-op where MPI is absent.
function(mf_add_mpi_test name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;NP;ARGS" ${ARGN})
  if(NOT MF_HAVE_MPI)
    return()
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  if(NOT T_NP)
    set(T_NP 2)
  endif()
  set(oversubscribe)
  if(MF_MPIEXEC_IS_OPEN_MPI)
    set(oversubscribe --oversubscribe)
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE minifloat_mpi minifloat_static PkgConfig::CHECK m ${T_LIBS})
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${MF_WARNINGS} $<$<CONFIG:Release>:-O2>)
  set(first ON)
  foreach(np IN LISTS T_NP)
    if(first)
      set(test ${name})
      set(first OFF)
    else()
      set(test ${name}_np${np})
    endif()
    add_test(NAME ${test}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${oversubscribe} ${MPIEXEC_PREFLAGS}
                     $<TARGET_FILE:${name}> ${MPIEXEC_POSTFLAGS} ${T_ARGS})
    set_tests_properties(${test} PROPERTIES LABELS mpi TIMEOUT ${T_TIMEOUT} PROCESSORS ${np}
      SKIP_RETURN_CODE 77 ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  endforeach()
endfunction()

if(MF_HAVE_MPI)
  # more ranks than cores (2 on a two-core machine) need --oversubscribe under Open MPI; MPICH's mpiexec
  # has no such flag and needs none
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE mf_mpiexec_version ERROR_QUIET)
  set(MF_MPIEXEC_IS_OPEN_MPI OFF)
  if(mf_mpiexec_version MATCHES "Open MPI|OpenRTE")
    set(MF_MPIEXEC_IS_OPEN_MPI ON)
  endif()
  set(oversubscribe_flag)
  if(MF_MPIEXEC_IS_OPEN_MPI)
    set(oversubscribe_flag --oversubscribe)
  endif()
  # the hook over MPI_Allreduce with the scaler and the FP8 recipes, faults, the deterministic sums
  mf_add_mpi_test(test_mpi_hook SOURCES mpi/test_mpi_hook.c NP 2 3 TIMEOUT 60)
  # bench/mpi_allreduce on a small vector: it runs, and every sum it times returns MF_OK (a sanitizer build has no
  # benchmarks: CMakeLists.txt)
  if(NOT MF_SANITIZE)
    add_test(NAME bench_mpi_smoke COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${oversubscribe_flag}
             $<TARGET_FILE:bench_mpi_allreduce> --n 100003 --reps 1)
    set_tests_properties(bench_mpi_smoke PROPERTIES LABELS "bench;mpi" TIMEOUT 120 PROCESSORS 2
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  endif()
else()
  if(NOT MF_MPI)
    set(mf_mpi_reason "MF_MPI=OFF")
  else()
    set(mf_mpi_reason "CMake found no MPI (install libopenmpi-dev and openmpi-bin)")
  endif()
  add_test(NAME mpi_absent COMMAND sh -c "echo 'SKIP: the MPI tests are not built: ${mf_mpi_reason}'; exit 77")
  set_tests_properties(mpi_absent PROPERTIES LABELS mpi SKIP_RETURN_CODE 77)
endif()

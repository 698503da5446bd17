# SPDX-License-Identifier: MIT
# CUDA compile checks that need no GPU: tests/cuda/ptx_check.sh compiles tests/cuda/probe_cvt.cu to PTX
# for sm_80, 89, 90, 100, 100f and 100a (with MF_CUDA_USE_CVT_RS), requires the cvt instructions that
# include/minifloat/detail/cuda.h promises per architecture (and none that an architecture lacks),
# assembles each PTX with the ptxas next to nvcc, and runs the probe's host part (the fix-ups against the
# portable core). Runs wherever nvcc is found.
if(MF_HAVE_CUDA)
  find_program(MF_BASH bash)
  if(MF_BASH)
    add_test(NAME cuda_ptx_check
      COMMAND ${MF_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/cuda/ptx_check.sh ${CMAKE_CUDA_COMPILER}
              ${PROJECT_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR}/cuda/probe_cvt.cu
              ${CMAKE_CURRENT_BINARY_DIR}/cuda_ptx ${CMAKE_CXX_COMPILER})
    set_tests_properties(cuda_ptx_check PROPERTIES LABELS cuda TIMEOUT 300)
  endif()
endif()

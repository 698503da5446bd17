# SPDX-License-Identifier: MIT
# CUDA tier: the device gives the host's bits. Built wherever nvcc is found (for every architecture of
# CMAKE_CUDA_ARCHITECTURES); runs only on a GPU (exit 77 = skip elsewhere). tests/cuda/gpu-check.sh runs
# the same programs in full on a GPU, with the benchmark, and prints one table.
#   test_cuda_device        decoding, f16/bf16 sources, the binary64 boundary set (seconds)
#   test_cuda_device_sweep  binary32 sources: the boundary set, and 2^32 inputs per (format, mode, policy);
#                           ctest runs every mode on 8 of the 256 chunks of 2^24 inputs, gpu-check.sh all
#   test_cuda_kernels       each mf_cuda_* function against its host function (argument errors even
#                           without a GPU)
if(MF_HAVE_CUDA)
  # The device programs run only on the GPU at hand: machine code for each real architecture, without the
  # PTX for later GPUs that the library carries (a fifth less compile time in CI).
  set(MF_CUDA_REAL_ARCHS ${CMAKE_CUDA_ARCHITECTURES})
  list(FILTER MF_CUDA_REAL_ARCHS EXCLUDE REGEX "-virtual$")
  # mf_add_cuda_test(name source LIBS ... [TIMEOUT s] [ARGS ...])
  function(mf_add_cuda_test name source)
    cmake_parse_arguments(T "" "TIMEOUT" "LIBS;ARGS" ${ARGN})
    add_executable(${name} ${source})
    target_link_libraries(${name} PRIVATE ${T_LIBS} Threads::Threads)
    set_target_properties(${name} PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
    if(MF_CUDA_REAL_ARCHS)
      set_target_properties(${name} PROPERTIES CUDA_ARCHITECTURES "${MF_CUDA_REAL_ARCHS}")
    endif()
    target_compile_options(${name} PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror>)
    add_test(NAME ${name} COMMAND ${name} ${T_ARGS})
    set_tests_properties(${name} PROPERTIES LABELS cuda SKIP_RETURN_CODE 77 TIMEOUT ${T_TIMEOUT})
  endfunction()

  mf_add_cuda_test(test_cuda_device cuda/test_device.cu LIBS minifloat_static TIMEOUT 600)
  mf_add_cuda_test(test_cuda_device_sweep cuda/test_device_sweep.cu LIBS minifloat_static TIMEOUT 1800
                   ARGS --modes all --chunks 8)
  # host code only (it calls the library's kernels, it has none): compiled as C++, which saves nvcc's five
  # empty device passes (gpu-check.sh compiles it with nvcc, for one architecture)
  set_source_files_properties(cuda/test_cuda_kernels.cu PROPERTIES LANGUAGE CXX)
  mf_add_cuda_test(test_cuda_kernels cuda/test_cuda_kernels.cu LIBS minifloat_cuda_static TIMEOUT 600)
  target_compile_options(test_cuda_kernels PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${MF_WARNINGS}>)
endif()

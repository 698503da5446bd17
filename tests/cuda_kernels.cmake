# SPDX-License-Identifier: MIT
# The CUDA library's element code on the host (label unit): test_cuda_host runs the __host__ __device__
# functions the kernels of src/cuda/convert.cu and reduce.cu are made of on the CPU, against mf_convert,
# mf_unscale_check and mf_amax. Built where CUDA is enabled; needs no GPU.
if(MF_HAVE_CUDA)
  # host code only: compiled as C++ (elem.cuh's functions are plain inline functions outside nvcc's device pass)
  set_source_files_properties(cuda/test_cuda_host.cu PROPERTIES LANGUAGE CXX)
  add_executable(test_cuda_host cuda/test_cuda_host.cu)
  target_link_libraries(test_cuda_host PRIVATE minifloat_static) # elem.cuh is header-only
  target_include_directories(test_cuda_host PRIVATE ${PROJECT_SOURCE_DIR}/src)
  set_target_properties(test_cuda_host PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
  target_compile_options(test_cuda_host PRIVATE ${MF_WARNINGS})
  add_test(NAME test_cuda_host COMMAND test_cuda_host)
  set_tests_properties(test_cuda_host PROPERTIES LABELS unit TIMEOUT 60)
endif()

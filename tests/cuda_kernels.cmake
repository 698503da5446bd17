# SPDX-License-Identifier: MIT
# The CUDA library's element code on the host (label unit): test_cuda_host runs the __host__ __device__
# functions the kernels of src/cuda/convert.cu and reduce.cu are made of on the CPU, against mf_convert,
# mf_unscale_check and mf_amax. Compiled by nvcc where CUDA is enabled; needs no GPU.
if(MF_HAVE_CUDA)
  add_executable(test_cuda_host cuda/test_cuda_host.cu)
  target_link_libraries(test_cuda_host PRIVATE minifloat_static) # elem.cuh is header-only
  target_include_directories(test_cuda_host PRIVATE ${PROJECT_SOURCE_DIR}/src)
  # host code only: the first architecture's device pass is all nvcc needs
  list(GET CMAKE_CUDA_ARCHITECTURES 0 mf_host_test_arch)
  if(mf_host_test_arch)
    set_target_properties(test_cuda_host PROPERTIES CUDA_ARCHITECTURES ${mf_host_test_arch})
  endif()
  set_target_properties(test_cuda_host PROPERTIES CUDA_STANDARD 17)
  target_compile_options(test_cuda_host PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror>)
  add_test(NAME test_cuda_host COMMAND test_cuda_host)
  set_tests_properties(test_cuda_host PROPERTIES LABELS unit TIMEOUT 60)
endif()

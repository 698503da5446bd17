# SPDX-License-Identifier: MIT
# CUDA tier: the device gives the host's bits. Built wherever nvcc is found; runs only on a GPU
# (exit 77 = skip elsewhere).
if(MF_HAVE_CUDA)
  add_executable(test_cuda_device cuda/test_device.cu)
  target_link_libraries(test_cuda_device PRIVATE minifloat_static)
  set_target_properties(test_cuda_device PROPERTIES CUDA_STANDARD 17)
  target_compile_options(test_cuda_device PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror>)
  add_test(NAME test_cuda_device COMMAND test_cuda_device)
  set_tests_properties(test_cuda_device PROPERTIES LABELS cuda SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()

# SPDX-License-Identifier: MIT
# The MX / NVFP4 quantize kernels' block code and the argument checks of mf_cuda_mx_quantize,
# mf_cuda_nvfp4_quantize and mf_cuda_gemm, on the host CPU: runs wherever the CUDA library is built, no
# GPU needed. The test has no device code, so it is compiled as C++ (src/cuda/mx_elem.cuh takes the host
# branch there, as it does in nvcc's host pass), without nvcc's empty device passes.
if(MF_HAVE_CUDA)
  set_source_files_properties(cuda/test_cuda_quant_host.cu PROPERTIES LANGUAGE CXX)
  add_executable(test_cuda_quant_host cuda/test_cuda_quant_host.cu)
  target_link_libraries(test_cuda_quant_host PRIVATE minifloat_cuda_static)
  target_include_directories(test_cuda_quant_host PRIVATE ${PROJECT_SOURCE_DIR}/src)
  set_target_properties(test_cuda_quant_host PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
  target_compile_options(test_cuda_quant_host PRIVATE ${MF_WARNINGS} $<$<CONFIG:Release>:-O2>)
  add_test(NAME test_cuda_quant_host COMMAND test_cuda_quant_host)
  set_tests_properties(test_cuda_quant_host PROPERTIES LABELS unit TIMEOUT 60)
endif()

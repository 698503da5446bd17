# SPDX-License-Identifier: MIT
# The CUDA library's sources (minifloat_cuda, CMakeLists.txt): the host-side argument checks (api_*.c)
# always; the kernels (*.cu) where CUDA is enabled (MF_HAVE_CUDA), else launch_stub.c, whose launchers
# report MF_E_UNSUPPORTED. Either way the library exports the same functions (minifloat/cuda.h).
file(GLOB MF_CUDA_API_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/api_*.c)
file(GLOB MF_CUDA_KERNEL_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cu)
set(MF_CUDA_STUB_SOURCE ${CMAKE_CURRENT_LIST_DIR}/launch_stub.c)

# Add the CUDA library's sources, definitions and include directories to target.
function(mf_cuda_sources target)
  target_sources(${target} PRIVATE ${MF_CUDA_API_SOURCES})
  if(MF_HAVE_CUDA)
    target_sources(${target} PRIVATE ${MF_CUDA_KERNEL_SOURCES})
    set_target_properties(${target} PROPERTIES CUDA_STANDARD 17 CUDA_VISIBILITY_PRESET hidden)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --Werror=all-warnings>)
  else()
    target_sources(${target} PRIVATE ${MF_CUDA_STUB_SOURCE})
  endif()
  target_compile_definitions(${target} PRIVATE MF_BUILDING_LIBRARY)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src)
endfunction()

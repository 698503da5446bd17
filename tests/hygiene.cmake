# SPDX-License-Identifier: MIT
# Hygiene tier: <minifloat.h>, <minifloat/lab.h> and <minifloat/cuda.h> compiled as C99, C11, C++11,
# C++17 and CUDA with strict warnings as errors, linking nothing but the header-only target; each binary
# then runs a few hand-checked conversions. A header that warns fails the build, not just the test.
set(MF_HYGIENE_C_FLAGS -Wall -Wextra -Wpedantic -Werror -Wshadow -Wconversion -Wsign-conversion
    -Wcast-qual -Wstrict-prototypes -Wmissing-prototypes -Wundef)
set(MF_HYGIENE_CXX_FLAGS -Wall -Wextra -Wpedantic -Werror -Wshadow -Wconversion -Wsign-conversion
    -Wcast-qual -Wundef -Wzero-as-null-pointer-constant)

foreach(std 99 11)
  add_executable(hygiene_c${std} hygiene/hygiene.c)
  set_target_properties(hygiene_c${std} PROPERTIES C_STANDARD ${std} C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  target_link_libraries(hygiene_c${std} PRIVATE minifloat_headers)
  target_compile_options(hygiene_c${std} PRIVATE ${MF_HYGIENE_C_FLAGS})
  add_test(NAME hygiene_c${std} COMMAND hygiene_c${std})
  set_tests_properties(hygiene_c${std} PROPERTIES LABELS hygiene)
endforeach()

foreach(std 11 17)
  add_executable(hygiene_cxx${std} hygiene/hygiene.cpp)
  set_target_properties(hygiene_cxx${std} PROPERTIES CXX_STANDARD ${std} CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  target_link_libraries(hygiene_cxx${std} PRIVATE minifloat_headers)
  target_compile_options(hygiene_cxx${std} PRIVATE ${MF_HYGIENE_CXX_FLAGS})
  add_test(NAME hygiene_cxx${std} COMMAND hygiene_cxx${std})
  set_tests_properties(hygiene_cxx${std} PROPERTIES LABELS hygiene)
endforeach()

if(MF_HAVE_CUDA)
  add_executable(hygiene_cuda hygiene/hygiene.cu)
  target_link_libraries(hygiene_cuda PRIVATE minifloat_headers)
  # the first architecture only (its PTX runs on later GPUs): the header compiles the same for each so
  # far; test_cuda_device covers every architecture
  list(GET CMAKE_CUDA_ARCHITECTURES 0 mf_first_arch)
  set_target_properties(hygiene_cuda PROPERTIES CUDA_STANDARD 17 CUDA_ARCHITECTURES ${mf_first_arch})
  target_compile_options(hygiene_cuda PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror>)
  add_test(NAME hygiene_cuda COMMAND hygiene_cuda --host)
  set_tests_properties(hygiene_cuda PROPERTIES LABELS hygiene)
  add_test(NAME cuda_device_hygiene COMMAND hygiene_cuda --device)
  set_tests_properties(cuda_device_hygiene PROPERTIES LABELS cuda SKIP_RETURN_CODE 77)
else()
  message(STATUS "minifloat: no CUDA compiler, the CUDA hygiene check is not built")
endif()

# Every public header compiles on its own, first in its translation unit.
file(GLOB MF_PUBLIC_HEADERS RELATIVE ${PROJECT_SOURCE_DIR}/include
     ${PROJECT_SOURCE_DIR}/include/minifloat.h ${PROJECT_SOURCE_DIR}/include/minifloat/*.h)
# <minifloat/mpi.h> includes <mpi.h>: compiled with MPI's include path where CMake found MPI, else left out
if(NOT MF_HAVE_MPI)
  list(REMOVE_ITEM MF_PUBLIC_HEADERS minifloat/mpi.h)
endif()
set(MF_SELF_CONTAINED_SOURCES)
foreach(header IN LISTS MF_PUBLIC_HEADERS)
  string(MAKE_C_IDENTIFIER ${header} id)
  set(src ${CMAKE_CURRENT_BINARY_DIR}/self_contained/${id}.c)
  file(CONFIGURE OUTPUT ${src} CONTENT "#include <${header}>\nint mf_self_contained_${id}(void);\nint mf_self_contained_${id}(void) { return 0; }\n")
  list(APPEND MF_SELF_CONTAINED_SOURCES ${src})
endforeach()
add_library(hygiene_self_contained STATIC ${MF_SELF_CONTAINED_SOURCES})
target_link_libraries(hygiene_self_contained PRIVATE minifloat_headers $<$<BOOL:${MF_HAVE_MPI}>:MPI::MPI_C>)
target_compile_options(hygiene_self_contained PRIVATE ${MF_HYGIENE_C_FLAGS})
set_target_properties(hygiene_self_contained PROPERTIES C_STANDARD 99 C_EXTENSIONS OFF)

# Beside other headers: libm's names, and NVIDIA's (half, nv_bfloat16, ...) when the CUDA headers
# are installed.
add_executable(hygiene_beside_math hygiene/beside_math.c)
target_link_libraries(hygiene_beside_math PRIVATE minifloat_headers m)
target_compile_options(hygiene_beside_math PRIVATE ${MF_HYGIENE_C_FLAGS})
add_test(NAME hygiene_beside_math COMMAND hygiene_beside_math)
set_tests_properties(hygiene_beside_math PROPERTIES LABELS hygiene)
find_path(MF_CUDA_FP16_INCLUDE cuda_fp16.h HINTS /usr/local/cuda/include)
if(MF_CUDA_FP16_INCLUDE)
  add_executable(hygiene_beside_cuda hygiene/beside_cuda.cpp)
  target_link_libraries(hygiene_beside_cuda PRIVATE minifloat_headers)
  target_include_directories(hygiene_beside_cuda SYSTEM PRIVATE ${MF_CUDA_FP16_INCLUDE})
  target_compile_options(hygiene_beside_cuda PRIVATE ${MF_HYGIENE_CXX_FLAGS})
  add_test(NAME hygiene_beside_cuda COMMAND hygiene_beside_cuda)
  set_tests_properties(hygiene_beside_cuda PROPERTIES LABELS hygiene)
endif()

# The library's sources. Each room is one or more files with its own compile flags; dispatch.c is
# the door that chooses between them. Every target that compiles these sources (the library, the
# instrumented copy the fuzzers use) goes through mf_library_sources(), so that the room flags and
# definitions follow the files into any directory.
set(MF_LIB_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/api.c
  ${CMAKE_CURRENT_LIST_DIR}/dispatch.c
  ${CMAKE_CURRENT_LIST_DIR}/parallel.c
  ${CMAKE_CURRENT_LIST_DIR}/portable/convert_portable.c
)
# Scaling (loss scaling, FP8 recipes, MX and NVFP4 block formats): portable C, one file per area.
file(GLOB MF_SCALE_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/scale/*.c)
list(APPEND MF_LIB_SOURCES ${MF_SCALE_SOURCES})
# The overflow lab: analysis and the elementwise operations (vectorised with SLEEF where installed;
# src/vmath.h is the only file that includes <sleef.h>).
file(GLOB MF_LAB_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/lab/*.c)
list(APPEND MF_LIB_SOURCES ${MF_LAB_SOURCES})
set(MF_LIB_DEFINITIONS)
find_path(MF_SLEEF_INCLUDE sleef.h)
find_library(MF_SLEEF_LIB sleef)
if(MF_SLEEF_INCLUDE AND MF_SLEEF_LIB)
  list(APPEND MF_LIB_DEFINITIONS MF_HAVE_SLEEF=1)
endif()

# x86-64 rooms, with GCC or Clang (the kernels use their vector intrinsics and attributes).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$" AND CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  set(MF_X86_DIR ${CMAKE_CURRENT_LIST_DIR}/x86)
  set(MF_AVX2_FLAGS -mavx2 -mf16c -mfma -mbmi2)
  set(MF_AVX512_FLAGS ${MF_AVX2_FLAGS} -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512cd)
  set(MF_AVX512BF16_FLAGS ${MF_AVX512_FLAGS} -mavx512bf16 -mavx512vbmi)
  list(APPEND MF_LIB_SOURCES ${MF_X86_DIR}/cpuid.c ${MF_X86_DIR}/room_avx2.c ${MF_X86_DIR}/room_avx512.c
       ${MF_X86_DIR}/room_avx512bf16.c)
  list(APPEND MF_LIB_DEFINITIONS MF_X86_ROOMS=1)
endif()

# The aarch64 room (Advanced SIMD, which every AArch64 CPU has: no flags needed).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$" AND CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  list(APPEND MF_LIB_SOURCES ${CMAKE_CURRENT_LIST_DIR}/arm/room_neon.c)
  list(APPEND MF_LIB_DEFINITIONS MF_ARM_ROOMS=1)
endif()

# Add the library's sources, definitions and per-room flags to target.
function(mf_library_sources target)
  target_sources(${target} PRIVATE ${MF_LIB_SOURCES})
  target_compile_definitions(${target} PRIVATE MF_BUILDING_LIBRARY ${MF_LIB_DEFINITIONS})
  if(MF_X86_DIR)
    set_source_files_properties(${MF_X86_DIR}/room_avx2.c TARGET_DIRECTORY ${target}
      PROPERTIES COMPILE_OPTIONS "${MF_AVX2_FLAGS}")
    set_source_files_properties(${MF_X86_DIR}/room_avx512.c TARGET_DIRECTORY ${target}
      PROPERTIES COMPILE_OPTIONS "${MF_AVX512_FLAGS}")
    set_source_files_properties(${MF_X86_DIR}/room_avx512bf16.c TARGET_DIRECTORY ${target}
      PROPERTIES COMPILE_OPTIONS "${MF_AVX512BF16_FLAGS}")
  endif()
  if(CMAKE_USE_PTHREADS_INIT)
    target_compile_definitions(${target} PRIVATE MF_HAVE_PTHREADS=1)
  endif()
  if(MF_SLEEF_INCLUDE AND MF_SLEEF_LIB)
    target_include_directories(${target} PRIVATE ${MF_SLEEF_INCLUDE})
  endif()
endfunction()

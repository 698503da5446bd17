# The library's sources. Each room is one or more files with its own compile flags; dispatch.c is
# the door that chooses between them.
set(MF_LIB_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/api.c
  ${CMAKE_CURRENT_LIST_DIR}/dispatch.c
  ${CMAKE_CURRENT_LIST_DIR}/parallel.c
  ${CMAKE_CURRENT_LIST_DIR}/portable/convert_portable.c
)
set(MF_LIB_DEFINITIONS)

# x86-64 rooms, with GCC or Clang (the kernels use their vector intrinsics and attributes).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$" AND CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  set(MF_X86_DIR ${CMAKE_CURRENT_LIST_DIR}/x86)
  set(MF_AVX2_FLAGS -mavx2 -mf16c -mfma -mbmi2)
  set(MF_AVX512_FLAGS ${MF_AVX2_FLAGS} -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512cd)
  list(APPEND MF_LIB_SOURCES ${MF_X86_DIR}/cpuid.c ${MF_X86_DIR}/room_avx2.c ${MF_X86_DIR}/room_avx512.c
       ${MF_X86_DIR}/room_avx512bf16.c)
  set_source_files_properties(${MF_X86_DIR}/room_avx2.c PROPERTIES COMPILE_OPTIONS "${MF_AVX2_FLAGS}")
  set_source_files_properties(${MF_X86_DIR}/room_avx512.c PROPERTIES COMPILE_OPTIONS "${MF_AVX512_FLAGS}")
  set_source_files_properties(${MF_X86_DIR}/room_avx512bf16.c PROPERTIES
    COMPILE_OPTIONS "${MF_AVX512_FLAGS};-mavx512bf16")
  list(APPEND MF_LIB_DEFINITIONS MF_X86_ROOMS=1)
endif()

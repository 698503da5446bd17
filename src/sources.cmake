# SPDX-License-Identifier: MIT
# The library's sources. Each SIMD backend is several units with its own compile flags, generated below
# from the table of backends; dispatch.c chooses between backends at run time. Every target that
# compiles these sources (the library, the instrumented copy the fuzzers use) goes through
# mf_library_sources(), so that the flags and definitions follow the files into any directory.
set(MF_LIB_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/api.c
  ${CMAKE_CURRENT_LIST_DIR}/dispatch.c
  ${CMAKE_CURRENT_LIST_DIR}/p3109_family.c
  ${CMAKE_CURRENT_LIST_DIR}/parallel.c
  ${CMAKE_CURRENT_LIST_DIR}/team.c
  ${CMAKE_CURRENT_LIST_DIR}/portable/convert_portable.c
  ${CMAKE_CURRENT_LIST_DIR}/portable/convert_profile.c
  ${CMAKE_CURRENT_LIST_DIR}/portable/profile_fix.c
)
# Scaling (loss scaling, FP8 recipes, MX and NVFP4 block formats): portable C, one file per area.
file(GLOB MF_SCALE_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/scale/*.c)
list(APPEND MF_LIB_SOURCES ${MF_SCALE_SOURCES})
# Mixed-precision GEMM (src/gemm/): the portable kernels and the exact epilogue.
file(GLOB MF_GEMM_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/gemm/*.c)
list(APPEND MF_LIB_SOURCES ${MF_GEMM_SOURCES})
# The overflow lab (src/lab/) is a library of its own: src/lab/lab.cmake.
set(MF_LIB_DEFINITIONS)

# ---- the SIMD backends, as data ------------------------------------------------------------------
# For each backend: its configuration header (vocabulary and hooks), compile flags, the destinations
# whose round kernel it compiles itself (the others are its parent's: PARENT), and its 16-bit-lane
# kernels' header (W16, optional). Each backend becomes one unit for its paths (src/simd/backend.c),
# one per own round kernel (src/simd/round.c) and one for W16 (src/simd/w16.c), so that `-j` spreads them.
# The destinations: every narrow row of include/minifloat/formats.inc (all but f32 and f64), read from the
# table itself, so that a new row gets its round kernels by being a row (which rows a backend converts is
# K_FMTS's business: src/simd/kernels.h).
set(MF_ALL_DSTS)
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/../include/minifloat/formats.inc mf_rows REGEX "^MF__FORMAT\\(")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/../include/minifloat/formats.inc)
foreach(row IN LISTS mf_rows)
  if(NOT row MATCHES "^MF__FORMAT\\(([A-Z0-9_]+), *([0-9]+), *([a-z0-9]+), *[0-9]+, *[0-9]+, *[0-9]+, *[A-Z0-9]+, *([A-Z0-9]+),")
    message(FATAL_ERROR "src/sources.cmake cannot read this row of formats.inc: ${row}")
  endif()
  set(mf_enum ${CMAKE_MATCH_1})
  set(mf_tag ${CMAKE_MATCH_3})
  set(MF_VALUE_${mf_tag} ${CMAKE_MATCH_2})
  if(NOT CMAKE_MATCH_4 MATCHES "^F(32|64)$")
    list(APPEND MF_ALL_DSTS ${mf_tag})
    set(MF_ENUM_${mf_tag} ${mf_enum})
  endif()
endforeach()
set(MF_BACKENDS)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$" AND CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  set(MF_AVX2_FLAGS -mavx2 -mf16c -mfma -mbmi2)
  set(MF_AVX512_FLAGS ${MF_AVX2_FLAGS} -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512cd)
  list(APPEND MF_BACKENDS avx2 avx512 avx512bf16)
  set(MF_BK_avx2_CONFIG x86/backend_avx2.h)
  set(MF_BK_avx2_FLAGS ${MF_AVX2_FLAGS})
  set(MF_BK_avx2_ROUND ${MF_ALL_DSTS})
  set(MF_BK_avx2_W16 x86/avx2_w16.h)
  set(MF_BK_avx2_GEMM x86/gemm_avx2.c) # the GEMM micro-kernel (src/gemm/kernels.h)
  set(MF_BK_avx2_TC x86/tc_avx2.c) # the tensor-core models' panel kernel (src/gemm/tc.h)
  set(MF_BK_avx2_EXACT x86/exact_int_avx2.c) # MF_ACCUM_EXACT's integer kernels (src/gemm/exact_int.h)
  set(MF_BK_avx512_CONFIG x86/backend_avx512.h)
  set(MF_BK_avx512_FLAGS ${MF_AVX512_FLAGS})
  set(MF_BK_avx512_ROUND ${MF_ALL_DSTS})
  set(MF_BK_avx512_W16 x86/avx512_w16.h)
  set(MF_BK_avx512_GEMM x86/gemm_avx512.c) # the same kernel source on zmm registers
  # MF_ACCUM_EXACT's integer kernels (src/gemm/exact_int.h): VNNI, which exact_int.c checks for at run time
  set(MF_BK_avx512_EXACT x86/exact_int_avx512.c)
  set(MF_BK_avx512_EXACT_FLAGS -mavx512vnni)
  set(MF_BK_avx512bf16_CONFIG x86/backend_avx512bf16.h)
  set(MF_BK_avx512bf16_FLAGS ${MF_AVX512_FLAGS} -mavx512bf16 -mavx512vbmi)
  set(MF_BK_avx512bf16_PARENT avx512)
  set(MF_BK_avx512bf16_ROUND bf16) # vcvtneps2bf16; the pairs it converts: BK_OWN_DSTS in its header
  set(MF_BK_avx512bf16_GEMM x86/gemm_avx512bf16.c) # the pair micro-kernels: vdpbf16ps and its fma chain
  list(APPEND MF_LIB_SOURCES ${CMAKE_CURRENT_LIST_DIR}/x86/cpuid.c)
  list(APPEND MF_LIB_DEFINITIONS MF_X86_BACKENDS=1)
endif()
# aarch64: Advanced SIMD, which every AArch64 CPU has (no flags needed).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$" AND CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  list(APPEND MF_BACKENDS neon)
  set(MF_BK_neon_CONFIG arm/backend_neon.h)
  set(MF_BK_neon_FLAGS "")
  set(MF_BK_neon_ROUND ${MF_ALL_DSTS})
  set(MF_BK_neon_GEMM arm/gemm_neon.c) # the GEMM micro-kernel (src/gemm/ukr_template.h)
  list(APPEND MF_LIB_DEFINITIONS MF_ARM_BACKENDS=1)
endif()

# MF_SIMD_BACKENDS narrows the list: "native" keeps the backends this machine's CPU runs (the sanitizer
# builds of scripts/setup.sh, whose tests can only run those), or a list of names; "all" by default.
set(MF_SIMD_BACKENDS "all" CACHE STRING "SIMD backends to compile: all, native, or a ;-list of names")
if(NOT MF_SIMD_BACKENDS STREQUAL "all")
  set(want ${MF_SIMD_BACKENDS})
  if(MF_SIMD_BACKENDS STREQUAL "native")
    set(want)
    if(EXISTS /proc/cpuinfo)
      file(STRINGS /proc/cpuinfo flags LIMIT_COUNT 1 REGEX "^flags")
      string(REGEX REPLACE "^flags[^:]*:" " " flags "${flags} ")
      if(flags MATCHES " avx2 " AND flags MATCHES " f16c " AND flags MATCHES " fma " AND flags MATCHES " bmi2 ")
        list(APPEND want avx2)
        if(flags MATCHES " avx512f " AND flags MATCHES " avx512bw " AND flags MATCHES " avx512vl "
           AND flags MATCHES " avx512dq " AND flags MATCHES " avx512cd ")
          list(APPEND want avx512)
          if(flags MATCHES " avx512_bf16 " AND flags MATCHES " avx512vbmi ")
            list(APPEND want avx512bf16)
          endif()
        endif()
      endif()
      if(flags MATCHES " asimd ")
        list(APPEND want neon)
      endif()
    endif()
  endif()
  set(kept)
  foreach(bk IN LISTS MF_BACKENDS)
    if(bk IN_LIST want)
      list(APPEND kept ${bk})
    endif()
  endforeach()
  set(MF_BACKENDS ${kept})
endif()
foreach(bk IN LISTS MF_BACKENDS)
  if(MF_BK_${bk}_PARENT AND NOT MF_BK_${bk}_PARENT IN_LIST MF_BACKENDS)
    message(FATAL_ERROR "MF_SIMD_BACKENDS: ${bk} needs ${MF_BK_${bk}_PARENT}, which it builds on")
  endif()
endforeach()
set(MF_BACKEND_DEFINITIONS)
foreach(bk IN LISTS MF_BACKENDS)
  list(APPEND MF_BACKEND_DEFINITIONS MF_HAVE_BACKEND_${bk}=1)
endforeach()
list(APPEND MF_LIB_DEFINITIONS ${MF_BACKEND_DEFINITIONS})
message(STATUS "minifloat: SIMD backends: ${MF_BACKENDS}")

# MF_SIMD_FORMATS narrows the rows the SIMD kernels convert themselves (a ;-list of tags; f32 and f64 always):
# the others go to the portable backend, as rows of a kind the kernels do not know do, and their round kernels
# compile to nothing. "all" by default. The sanitizer and fuzzer builds of scripts/setup.sh name one row of each
# kind (the other rows of a kind are the same kernel code with other constants, and under a sanitizer each row
# costs seconds of compile time a backend).
set(MF_SIMD_FORMATS "all" CACHE STRING "Rows the SIMD kernels convert themselves: all, or a ;-list of format tags")
if(NOT MF_SIMD_FORMATS STREQUAL "all")
  set(mf_rows_kept 0)
  foreach(tag f32 f64 ${MF_SIMD_FORMATS})
    if(NOT DEFINED MF_VALUE_${tag})
      message(FATAL_ERROR "MF_SIMD_FORMATS: ${tag} is not a row of include/minifloat/formats.inc")
    endif()
    math(EXPR mf_rows_kept "${mf_rows_kept} | (1 << ${MF_VALUE_${tag}})" OUTPUT_FORMAT HEXADECIMAL)
  endforeach()
  list(APPEND MF_LIB_DEFINITIONS MF_SIMD_ROWS=${mf_rows_kept}ull)
  message(STATUS "minifloat: SIMD kernels for the rows ${MF_SIMD_FORMATS} (the others portable)")
endif()

# The generated units: a few lines each, naming what src/simd/*.c compiles.
set(MF_GEN_DIR ${PROJECT_BINARY_DIR}/src_gen)
foreach(bk IN LISTS MF_BACKENDS)
  set(MF_BK_${bk}_UNITS)
  set(cfg "#include \"${MF_BK_${bk}_CONFIG}\"")
  set(body "/* generated by src/sources.cmake: the ${bk} backend's paths */\n#define BK_PATHS 1\n")
  string(APPEND body "#define BK_SYM ${bk}\n${cfg}\n")
  foreach(dst IN LISTS MF_ALL_DSTS)
    set(owner ${bk})
    if(NOT dst IN_LIST MF_BK_${bk}_ROUND)
      set(owner ${MF_BK_${bk}_PARENT})
    endif()
    string(APPEND body "#define BK_ROUND_${dst} mf__round_${dst}_${owner}\n")
  endforeach()
  if(MF_BK_${bk}_W16)
    string(APPEND body "#define BK_W16_OK mf__w16_ok_${bk}\n#define BK_W16_LOOP mf__w16_loop_${bk}\n")
    file(CONFIGURE OUTPUT ${MF_GEN_DIR}/w16_${bk}.c CONTENT
      "/* generated by src/sources.cmake: the ${bk} backend's 16-bit-lane kernels */\n${cfg}\n#include \"${MF_BK_${bk}_W16}\"\n#define BK_W16_OK mf__w16_ok_${bk}\n#define BK_W16_LOOP mf__w16_loop_${bk}\n#include \"simd/w16.c\"\n")
    list(APPEND MF_BK_${bk}_UNITS ${MF_GEN_DIR}/w16_${bk}.c)
  endif()
  if(MF_BK_${bk}_GEMM)
    list(APPEND MF_BK_${bk}_UNITS ${CMAKE_CURRENT_LIST_DIR}/${MF_BK_${bk}_GEMM})
  endif()
  if(MF_BK_${bk}_TC)
    list(APPEND MF_BK_${bk}_UNITS ${CMAKE_CURRENT_LIST_DIR}/${MF_BK_${bk}_TC})
  endif()
  set(MF_BK_${bk}_EXACT_UNITS) # a unit with flags beyond the backend's (EXACT_FLAGS)
  if(MF_BK_${bk}_EXACT)
    set(MF_BK_${bk}_EXACT_UNITS ${CMAKE_CURRENT_LIST_DIR}/${MF_BK_${bk}_EXACT})
    list(APPEND MF_LIB_SOURCES ${MF_BK_${bk}_EXACT_UNITS})
  endif()
  string(APPEND body "#include \"simd/backend.c\"\n")
  file(CONFIGURE OUTPUT ${MF_GEN_DIR}/backend_${bk}.c CONTENT "${body}")
  list(APPEND MF_BK_${bk}_UNITS ${MF_GEN_DIR}/backend_${bk}.c)
  foreach(dst IN LISTS MF_BK_${bk}_ROUND)
    set(parent "")
    if(MF_BK_${bk}_PARENT)
      set(parent "#define BK_ROUND_PARENT mf__round_${dst}_${MF_BK_${bk}_PARENT}\n")
    endif()
    file(CONFIGURE OUTPUT ${MF_GEN_DIR}/round_${dst}_${bk}.c CONTENT
      "/* generated by src/sources.cmake: the ${bk} backend's round kernel into ${dst} */\n${cfg}\n#define BK_DST ${MF_ENUM_${dst}}\n#define BK_ROUND_NAME mf__round_${dst}_${bk}\n${parent}#include \"simd/round.c\"\n")
    list(APPEND MF_BK_${bk}_UNITS ${MF_GEN_DIR}/round_${dst}_${bk}.c)
  endforeach()
  list(APPEND MF_LIB_SOURCES ${MF_BK_${bk}_UNITS})
endforeach()

# The profiles' fix-up loops (portable/profile_fix.c) once more per backend, with its flags, and the table
# that convert_profile.c picks the active backend's build from.
set(tab "/* generated by src/sources.cmake: each backend's build of portable/profile_fix.c */\n#include \"portable/profile_fix.h\"\n")
set(rows "")
foreach(bk IN LISTS MF_BACKENDS)
  file(CONFIGURE OUTPUT ${MF_GEN_DIR}/profile_fix_${bk}.c CONTENT "#define PF_TABLE mf__pfix_${bk}\n#include \"portable/profile_fix.c\"\n")
  list(APPEND MF_BK_${bk}_UNITS ${MF_GEN_DIR}/profile_fix_${bk}.c)
  list(APPEND MF_LIB_SOURCES ${MF_GEN_DIR}/profile_fix_${bk}.c)
  string(APPEND tab "extern const mf__pfix mf__pfix_${bk};\n")
  string(APPEND rows "{&mf__backend_${bk}, &mf__pfix_${bk}}, ")
endforeach()
file(CONFIGURE OUTPUT ${MF_GEN_DIR}/profile_fix_table.c CONTENT "${tab}const mf__pfix_entry mf__pfix_table[] = {${rows}{0, 0}};\n")
list(APPEND MF_LIB_SOURCES ${MF_GEN_DIR}/profile_fix_table.c)

# Add the library's sources, definitions and per-backend flags to target.
function(mf_library_sources target)
  target_sources(${target} PRIVATE ${MF_LIB_SOURCES})
  target_compile_definitions(${target} PRIVATE MF_BUILDING_LIBRARY ${MF_LIB_DEFINITIONS})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  # Under sanitizers the SIMD units are compiled at -O1 whatever the build type: at -O0 their forced inlining
  # makes instrumented units too slow and large to build (docs/perf/README.md, build and CI times).
  set(opt "")
  if(MF_SANITIZE)
    set(opt -O1)
  endif()
  foreach(bk IN LISTS MF_BACKENDS)
    set(opts ${MF_BK_${bk}_FLAGS} ${opt})
    if(opts)
      set_source_files_properties(${MF_BK_${bk}_UNITS} TARGET_DIRECTORY ${target} PROPERTIES COMPILE_OPTIONS "${opts}")
    endif()
    if(MF_BK_${bk}_EXACT_UNITS)
      set(opts ${MF_BK_${bk}_FLAGS} ${MF_BK_${bk}_EXACT_FLAGS} ${opt})
      set_source_files_properties(${MF_BK_${bk}_EXACT_UNITS} TARGET_DIRECTORY ${target} PROPERTIES COMPILE_OPTIONS "${opts}")
    endif()
  endforeach()
  if(CMAKE_USE_PTHREADS_INIT)
    target_compile_definitions(${target} PRIVATE MF_HAVE_PTHREADS=1)
  endif()
endfunction()

# SPDX-License-Identifier: MIT
# Hardware and vendor oracles.
#
# test_f16c: x86 F16C (vcvtps2ph / vcvtph2ps) against mf_from_f32 / mf_to_f32 for f16. The intrinsics
# sit in functions marked __attribute__((target("f16c"))) rather than compiling the file with
# -mf16c, so that nothing runs VEX code before the run-time CPU check (exit 77 = SKIP without F16C).
#   test_f16c        all 65536 codes; the sweep's boundary set holds every f16 value and midpoint    unit
#   test_f16c_sweep  f32 -> f16 in rn, rz, ru, rd: the bulk mf_convert (best backend) on all 2^32 inputs,
#                    the scalar mf_from_f32 on a rotating sixteenth plus every input within 4 patterns of
#                    a multiple of 2^12 (every rounding boundary; MF_EXHAUSTIVE_SHARD=all: every input)
#                                                                     exhaustive
# The scalar half was a whole 2^32 sweep (61 s of CPU; now ~8 s in all): exhaustive_f16 checks
# mf_from_f32(MF_FP16) on every input against the breakpoint oracle, and exhaustive_f16_<best backend>
# checks the F16C-based bulk path against the same oracle on every input, so the whole chain still
# covers every input each run (tests/test_f16c.c's header says what each part proves).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64|i[3-6]86)$" AND CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  mf_add_test(test_f16c SOURCES test_f16c.c LABELS unit TIMEOUT 120 ARGS decode)
  # The sweep's scalar part inlines four specialised conversions; see tests/exhaustive.cmake.
  target_compile_options(test_f16c PRIVATE $<$<C_COMPILER_ID:GNU>:--param=inline-unit-growth=1000>)
  add_test(NAME test_f16c_sweep COMMAND test_f16c sweep)
  set_tests_properties(test_f16c_sweep PROPERTIES LABELS exhaustive TIMEOUT 900 SKIP_RETURN_CODE 77)
else()
  message(STATUS "minifloat: not an x86 GCC/Clang build, the F16C tests are not built")
endif()

# test_nvidia: NVIDIA's host conversions from the CUDA headers (cuda_fp16.h ... cuda_fp4.h compile
# with the host C++ compiler; no GPU or nvcc needed). Registered only where the headers exist.
find_path(MF_CUDA_FP_INCLUDE_DIR cuda_fp4.h
  HINTS ${CUDAToolkit_INCLUDE_DIRS} $ENV{CUDA_HOME}/include $ENV{CUDA_PATH}/include /usr/local/cuda/include)
set(MF_HAVE_CUDA_FP_HEADERS OFF)
if(MF_CUDA_FP_INCLUDE_DIR)
  set(MF_HAVE_CUDA_FP_HEADERS ON)
  foreach(h cuda_fp16.h cuda_bf16.h cuda_fp8.h cuda_fp6.h cuda_fp4.h)
    if(NOT EXISTS ${MF_CUDA_FP_INCLUDE_DIR}/${h})
      set(MF_HAVE_CUDA_FP_HEADERS OFF)
    endif()
  endforeach()
endif()
if(MF_HAVE_CUDA_FP_HEADERS)
  mf_add_test(test_nvidia SOURCES test_nvidia.cpp LABELS unit TIMEOUT 300 LIBS mf_oracle)
  # SYSTEM: NVIDIA's headers warn under -Wextra (unused parameters); our flags stay as they are.
  target_include_directories(test_nvidia SYSTEM PRIVATE ${MF_CUDA_FP_INCLUDE_DIR})
  message(STATUS "minifloat: NVIDIA host-conversion oracle from ${MF_CUDA_FP_INCLUDE_DIR}")
else()
  message(STATUS "minifloat: CUDA fp16/bf16/fp8/fp6/fp4 headers not found, test_nvidia is not registered")
endif()

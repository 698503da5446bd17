# SPDX-License-Identifier: MIT
# Exhaustive tier for the compatibility profiles (docs/compat.md): one ctest test per profile, so that
# `ctest -j` spreads them. Each converts binary32 inputs with mf_from_f32_profile into every format the
# profile's system has, in rn (e8m0 also in the system's other modes), under each overflow policy the system
# accepts, against the breakpoint oracle's default result plus the system's rules restated from
# docs/compat.md in the test; mf_convert with opts.profile against the scalar results; mf_to_f32_profile on
# every code. Default (CI): the boundary exponent fields of each format (255, those of max, of the
# smallest normal, of half the smallest subnormal; 0 in full for bf16 and e8m0, else 1/8 of it) in full
# and a daily 1/256 shard of the rest (seconds in CI). MF_EXHAUSTIVE_SHARD=all: all 2^32
# inputs per sweep (the bulk path on every input the sweep visits, in CI too), with a `digest` line per sweep.
add_executable(test_exhaustive_profile test_exhaustive_profile.c)
target_link_libraries(test_exhaustive_profile PRIVATE minifloat_static mf_oracle PkgConfig::CHECK m)
target_include_directories(test_exhaustive_profile PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
# As test_exhaustive: the flattened sweeps need the inline profile conversions specialised per pair.
target_compile_options(test_exhaustive_profile PRIVATE ${MF_WARNINGS}
  $<$<C_COMPILER_ID:GNU>:--param=inline-unit-growth=1000 -fno-ipa-cp -fno-ipa-sra>)
foreach(profile cuda ml_dtypes torch onnx)
  add_test(NAME exhaustive_profile_${profile} COMMAND test_exhaustive_profile ${profile})
  set_tests_properties(exhaustive_profile_${profile} PROPERTIES LABELS exhaustive TIMEOUT 900
    SKIP_RETURN_CODE 77)
endforeach()

# SPDX-License-Identifier: MIT
# Exhaustive tier: all 2^32 binary32 inputs, one ctest test per destination format so that
# `ctest -j` spreads the formats over the cores. Each test converts every input with mf_from_f32 in
# rn, rna, rz, ru and rd under both overflow policies (in CI, CI time: rn on every input under one of the two
# policies, the other the next day, and the other modes on the day's sixteenth; MF_EXHAUSTIVE_SHARD=all: every
# input in every mode) against the breakpoint oracle (tests/oracle/breakpoints.c), checks the bulk mf_convert
# against the same oracle on 1/16 of the inputs (mf_convert takes the best backend there, whose sweep below has
# every input) and prints one `digest <fmt> <mode> <policy> <hex>` line per sweep (in CI a half or shard digest:
# two days' halves sum, mod 2^64, to the full one). The FNUZ and IEEE-style FP8 formats (e4m3fnuz e5m2fnuz
# e4m3b11fnuz e4m3ieee e3m4) are swept in rn only; their other modes are the unit tier's (test_boundary, test_f64)
# and each SIMD backend's sweeps below.
add_executable(test_exhaustive test_exhaustive.c)
target_link_libraries(test_exhaustive PRIVATE minifloat_static mf_oracle PkgConfig::CHECK m)
target_include_directories(test_exhaustive PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_options(test_exhaustive PRIVATE ${MF_WARNINGS}
  # The sweeps inline ten specialised conversions per format; GCC's unit-growth limit would
  # otherwise leave them as calls and double the run time. So would IPA constant propagation: with
  # thirteen formats GCC 12 clones mf_from_f32_ev (.constprop) and then no longer inlines the clone into
  # the flattened sweeps (-Winline: max-inline-insns-single); the sweeps get their constants by inlining.
  $<$<C_COMPILER_ID:GNU>:--param=inline-unit-growth=1000 -fno-ipa-cp>)
foreach(fmt f16 bf16 e4m3 e5m2 e2m3 e3m2 e2m1 e8m0 e4m3fnuz e5m2fnuz e4m3b11fnuz e4m3ieee e3m4)
  add_test(NAME exhaustive_${fmt} COMMAND test_exhaustive ${fmt})
  set_tests_properties(exhaustive_${fmt} PROPERTIES LABELS exhaustive TIMEOUT 900 SKIP_RETURN_CODE 77)
endforeach()

# ---- IEEE P3109 (kept apart for merging): the conformance formats of the report's section 4.5 ----------
# Every mode of the breakpoint oracle (rn rna rz ru rd) under SatNone ("ieee") and SatFinite ("sat"), scalar
# on every input, the portable backend's bulk loop on 1/16 of the chunks in every mode (test_exhaustive.c's
# bulk_rn_all), with MF_EXHAUSTIVE_SHARD=all (scripts/setup.sh test-all); in CI rn only, as the FNUZ rows (CI time;
# the other modes of binary8p4se and binary8p3se on every input per backend, below).
# SatPropagate ("propagate", test_exhaustive FORMAT propagate): scalar and bulk against the oracle's tables for it, rn
# on the day's sixteenth of the inputs in CI, every mode on every input in test-all.
# Round to odd and the stochastic roundings ("ro-sr"): ro scalar and bulk against the oracle's round-to-odd tables,
# StochasticA, B and C with 1 ... 31 random bits pinned at each input's threshold, MF_ROUND_STOCHASTIC scalar and bulk,
# under all three policies; every input in test-all, the day's 1/256 in CI (about 27 conversions an input).
# The three are also in the SIMD backends' lists below (every mode on every input, for the best backend;
# binary4p2sf through e2m1's packed-nibble paths). binary8p4se's "rn ieee" digest
# equals e4m3fnuz's "rn sat" one, as it should: SatNone's +inf (0x7F) is where e4m3fnuz saturates, and below it the
# two formats share every code.
foreach(fmt binary8p4se binary8p3se binary4p2sf)
  add_test(NAME exhaustive_${fmt} COMMAND test_exhaustive ${fmt})
  set_tests_properties(exhaustive_${fmt} PROPERTIES LABELS exhaustive TIMEOUT 900 SKIP_RETURN_CODE 77)
  add_test(NAME exhaustive_${fmt}_propagate COMMAND test_exhaustive ${fmt} propagate)
  set_tests_properties(exhaustive_${fmt}_propagate PROPERTIES LABELS exhaustive TIMEOUT 900)
  add_test(NAME exhaustive_${fmt}_ro_sr COMMAND test_exhaustive ${fmt} ro-sr)
  set_tests_properties(exhaustive_${fmt}_ro_sr PROPERTIES LABELS exhaustive TIMEOUT 2700)
endforeach()
# ---- end of IEEE P3109 -------------------------------------------------------------------------------

# Each SIMD backend through the bulk sweeps, every mode and policy, selected with MF_BACKEND: the best
# backend this CPU runs on every input, the others on a sixteenth that changes daily
# (MF_EXHAUSTIVE_SHARD=all: every input; `scripts/setup.sh test-all`); a backend this CPU lacks
# reports SKIP. avx512bf16 converts f32 -> bf16 itself and inherits the other destinations from avx512.
# Every 8-bit format is one kernel family (docs/backends.md), so the FNUZ and IEEE-style FP8 formats and
# P3109's binary8p4se and binary8p3se are swept per backend as e4m3 and e5m2 are, every mode and policy (the portable rn-only limit above is the
# scalar sweep's CI time; a backend's bulk sweeps cost a fraction of the scalar one); a backend that inherits
# f32 -> a format from the portable one (src/simd/kernels.h's K_FMTS) reports SKIP.
set(MF_EXHAUSTIVE_avx2 f16 bf16 e4m3 e5m2 e2m3 e3m2 e2m1 e8m0 e4m3fnuz e5m2fnuz e4m3b11fnuz e4m3ieee e3m4
  binary8p4se binary8p3se binary4p2sf)
set(MF_EXHAUSTIVE_avx512 f16 bf16 e4m3 e5m2 e2m3 e3m2 e2m1 e8m0 e4m3fnuz e5m2fnuz e4m3b11fnuz e4m3ieee e3m4
  binary8p4se binary8p3se binary4p2sf)
set(MF_EXHAUSTIVE_avx512bf16 bf16)
foreach(backend avx2 avx512 avx512bf16)
  foreach(fmt IN LISTS MF_EXHAUSTIVE_${backend})
    add_test(NAME exhaustive_${fmt}_${backend} COMMAND test_exhaustive ${fmt} ${backend})
    set_tests_properties(exhaustive_${fmt}_${backend} PROPERTIES LABELS exhaustive TIMEOUT 900
      SKIP_RETURN_CODE 77 ENVIRONMENT MF_BACKEND=${backend})
  endforeach()
endforeach()

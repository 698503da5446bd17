# SPDX-License-Identifier: MIT
# FP8 scaling recipes (current, delayed, block): formulas, bulk quantize/dequantize, bad arguments.
mf_add_test(test_fp8_recipes SOURCES test_fp8_recipes.c LABELS unit TIMEOUT 300)

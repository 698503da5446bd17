# Elementwise operations of the overflow lab (exp, tanh, sigmoid, SiLU, GELU, softmax): binary32 accuracy
# against binary64 references, rounding into the targets, edges, the FP environment.
mf_add_test(test_elementwise SOURCES test_elementwise.c LABELS unit TIMEOUT 300)

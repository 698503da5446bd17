# SPDX-License-Identifier: MIT
# Loss scaling (docs/scaling.md): GradScaler / Megatron trajectories, unscale-and-check, bad arguments.
mf_add_test(test_loss_scale SOURCES test_loss_scale.c LABELS unit TIMEOUT 300)
# The cross-rank reduction hook (mf_reduce_hook) in the scaler and the FP8 recipes, one process playing a rank.
mf_add_test(test_reduce_hook SOURCES test_reduce_hook.c LABELS unit TIMEOUT 120)

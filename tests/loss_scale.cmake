# SPDX-License-Identifier: MIT
# Loss scaling (docs/scaling.md): GradScaler / Megatron trajectories, unscale-and-check, bad arguments.
mf_add_test(test_loss_scale SOURCES test_loss_scale.c LABELS unit TIMEOUT 300)

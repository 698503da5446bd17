# SPDX-License-Identifier: MIT
# cli_memory: `minifloat memory` - the per-recipe tables, the CSV's bytes (which add up), DeepSpeed's
# t5-3b figures through the tool, the stacked-bar SVG, byte-identical reruns.
. "$(dirname "$0")/common.sh"

# default: llama2-7b, every recipe, one H100
run "$MF" memory
expect_rc 0 "memory"
expect_grep "$WORK/out" "^model +llama2-7b: 6738415616 parameters" "memory: model line"
for r in fp32 bf16-amp fp16-amp bf16-pure te-fp8-delayed te-fp8-current mxfp8 nvfp4; do
    expect_grep "$WORK/out" "^$r +GiB per GPU +GiB all GPUs\$" "memory: block of $r"
done
WHAT="memory bf16-amp"
# 16 bytes a parameter: 6738415616 * 4 / 2^30 = 25.10, * 2 / 2^30 = 12.55, * 8 / 2^30 = 50.21
table_row "  master weights \(f32\)" 25.10 25.10
table_row "  parameters \(bf16\)" 12.55 12.55
table_row "  Adam m, v \(f32\)" 50.21 50.21
expect_grep "$WORK/out" "^  loss scaler +<0.01 +<0.01\$" "memory: fp16-amp's loss scaler"
expect_grep "$WORK/out" "^  fits: no; on no number of GPUs at ZeRO 0" "memory: ZeRO 0 never fits 7B on 80 GiB"

# CSV: bytes; the parts add up to gpu_total; 16 bytes a parameter for the model states of bf16-amp
run "$MF" memory --recipes bf16-amp,fp32 --csv
expect_rc 0 "memory --csv"
expect_grep "$WORK/out" "^recipe,master,params,gemm_copy,grads,grad_accum,optimizer,scaling,activations,gather,reserve,gpu_total,cpu_node,cluster_total,fits,min_gpus\$" "csv header"
expect_grep "$WORK/out" "^bf16-amp,26953662464,13476831232,0,13476831232,0,53907324928,0," "csv bf16-amp model states"
if awk -F, 'NR > 1 { s = 0; for (i = 2; i <= 11; i++) s += $i; if (s != $12) bad = 1 } END { exit bad }' "$WORK/out"; then
    pass
else
    fail "memory --csv: parts do not add up to gpu_total"
fi
[ "$(wc -l < "$WORK/out")" -eq 3 ] && pass || fail "memory --csv: want a header and two rows"

# DeepSpeed's docs: t5-3b (2851e6 parameters, largest layer 32e6) on 8 GPUs: ZeRO-2 15.93 GiB, ZeRO-3 6.09
run "$MF" memory --params 2851000000 --largest-layer 32000000 --gpus 8 --zero 2 --zero-rule deepspeed --recipes fp16-amp
expect_rc 0 "memory deepspeed zero 2"
expect_grep "$WORK/out" "^  total +15.93 +127.45\$" "deepspeed zero 2 per GPU"
expect_grep "$WORK/out" "^  host memory per node +127.45\$" "deepspeed zero 2 host"
run "$MF" memory --params 2851000000 --largest-layer 32000000 --gpus 8 --zero 3 --zero-rule deepspeed --zero-init --recipes fp16-amp
expect_grep "$WORK/out" "^  total +6.09 " "deepspeed zero 3 per GPU"
run "$MF" memory --params 2851000000 --largest-layer 32000000 --gpus 8 --zero 3 --zero-rule deepspeed --offload params --zero-init --recipes fp16-amp
expect_grep "$WORK/out" "^  total +0.12 " "deepspeed zero 3 offload per GPU"
expect_grep "$WORK/out" "^  host memory per node +71.69\$" "deepspeed zero 3 offload host"

# 70B on 8 x H100, ZeRO 3: fits on none of 8; the fewest that fit are named
run "$MF" memory --model llama2-70b --gpus 8 --zero 3 --recipes bf16-amp --flash --recompute full
expect_rc 0 "memory 70b"
expect_grep "$WORK/out" "^GPUs +8 x h100-80 \(80.00 GiB\); tensor parallel 1, data parallel 8\$" "70b GPUs line"
expect_grep "$WORK/out" "^  fits: no; fewest GPUs it fits on: [0-9]+\$" "70b fewest GPUs"

# options reach every recipe: --optimizer 8bit, --grad-accum
run "$MF" memory --recipes bf16-amp --optimizer 8bit --grad-accum
expect_grep "$WORK/out" "^  Adam m, v \(8-bit \+ f32 absmax per 2048\) +12.58 " "8-bit Adam"
expect_grep "$WORK/out" "^  gradient buffer \(f32\) +25.10 " "gradient buffer"

# plot: an SVG with a bar per recipe; reruns are byte-identical
run "$MF" memory --recipes bf16-amp,te-fp8-delayed,nvfp4 --flash --plot "$WORK/m.svg"
expect_rc 0 "memory --plot"
expect_grep "$WORK/out" "^wrote $WORK/m.svg\$" "memory --plot: wrote"
expect_grep "$WORK/m.svg" "^<svg " "svg document"
[ "$(grep -c '<text[^>]*rotate' "$WORK/m.svg" 2>/dev/null || true)" -ge 0 ] && pass
for r in bf16-amp te-fp8-delayed nvfp4; do expect_grep "$WORK/m.svg" ">$r<" "svg label $r"; done
cp "$WORK/m.svg" "$WORK/m1.svg"
cp "$WORK/out" "$WORK/out1"
run "$MF" memory --recipes bf16-amp,te-fp8-delayed,nvfp4 --flash --plot "$WORK/m.svg"
same "$WORK/m.svg" "$WORK/m1.svg" "memory --plot rerun"
same "$WORK/out" "$WORK/out1" "memory rerun"

# help
run "$MF" memory --help
expect_rc 0 "memory --help"
expect_grep "$WORK/out" "^usage: minifloat memory \[options\]" "memory --help"
expect_grep "$WORK/out" "^  --plot FILE.svg" "memory --help tail"

finish 40

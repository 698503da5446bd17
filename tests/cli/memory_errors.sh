# SPDX-License-Identifier: MIT
# cli_memory_errors: `minifloat memory` misuse - each bad option or value exits 2 with a message on stderr
# and nothing on stdout; a figure beyond 64 bits exits 1; an unwritable plot leaves no file.
. "$(dirname "$0")/common.sh"

while IFS='|' read -r args msg; do
    [ -z "$args" ] && continue
    # shellcheck disable=SC2086
    run "$MF" memory $args
    expect_rc 2 "memory $args"
    expect_grep "$WORK/err" "^minifloat memory: $msg" "memory $args: message"
    [ -s "$WORK/out" ] && fail "memory $args wrote to stdout" || pass
done <<'CASES'
--model gpt5|--model: unknown model 'gpt5' \(gpt2 llama2-7b llama2-13b llama2-70b llama3-8b llama3-70b\)
--gpu v100|--gpu: unknown GPU 'v100' \(a100-40 a100-80 h100-80 h200 b200 rtx4090 rtx5090\)
--recipes fp8|--recipes: unknown recipe 'fp8'
--recipes bf16-amp,BF16-AMP|--recipes: 'BF16-AMP' given twice
--recipes|option '--recipes' needs a value
--params 0|--params needs a whole number from 1
--params -5|--params needs a whole number from 1
--params 10 --largest-layer 11|--largest-layer 11 is more than --params 10
--largest-layer 5|--largest-layer needs --params
--params 100 --model gpt2|--params and --model exclude each other
--params 100 --hidden 64|--hidden and --params exclude each other
--hidden 0|--hidden needs a whole number from 1
--seq x|--seq needs a whole number from 1
--heads 7|fp32: the planner refused the shape or layout: hidden must divide by heads
--gpus 0|--gpus needs a whole number from 1
--gpus 12 --gpus-per-node 8|--gpus 12 is not a multiple of --gpus-per-node 8
--gpus 4 --tp 3|--gpus 4 is not a multiple of --tp 3
--zero 4|--zero needs a stage from 0 to 3
--zero-rule megatron|--zero-rule: unknown rule 'megatron' \(paper deepspeed\)
--offload gradients|--offload: unknown part 'gradients' \(none optimizer params\)
--offload params --zero 2|--offload params needs --zero 3
--recompute some|--recompute: unknown kind 'some' \(none selective full\)
--optimizer fp8|--optimizer: unknown kind 'fp8' \(f32 bf16 8bit\)
--gpu-mem 0|--gpu-mem needs a number of GiB above 0
--gpu-mem -1|--gpu-mem needs a number of GiB above 0
--reserve inf|--reserve needs a number of GiB
--amax-history 0|--amax-history needs a whole number from 1
--plot out.png|--plot: the file name must end in .svg
--bogus|unknown option '--bogus'
extra|unexpected argument 'extra'
CASES

# the usage hint points to the command's own --help
run "$MF" memory --zero 9
expect_grep "$WORK/err" "Try 'minifloat memory --help'" "memory: usage hint"
# the command is listed in the tool's usage
run "$MF" --help
expect_grep "$WORK/out" "minifloat memory \[options\]" "minifloat --help lists memory"

# overflow in the products: exit 1 with the reason
run "$MF" memory --params 18446744073709551615 --recipes fp32
expect_rc 1 "memory huge --params"
expect_grep "$WORK/err" "^minifloat memory: fp32: a figure does not fit in 64 bits" "overflow message"
run "$MF" memory --seq 1099511627776 --recipes bf16-amp
expect_rc 1 "memory huge --seq"

# an unwritable plot: exit 1, nothing left behind
run "$MF" memory --recipes fp32 --plot "$WORK/no/such/dir/m.svg"
expect_rc 1 "memory --plot into a missing directory"
expect_grep "$WORK/err" "^minifloat memory: cannot write" "plot write error"
[ -e "$WORK/no/such/dir/m.svg" ] && fail "a plot file appeared" || pass

finish 98

# SPDX-License-Identifier: MIT
# cli_gemm_lab_errors: `minifloat gemm-lab` misuse - each bad option, and a model given formats or a
# --promote it does not take, exits 2 with a message on stderr and nothing on stdout.
. "$(dirname "$0")/common.sh"

while IFS='|' read -r args msg; do
    [ -z "$args" ] && continue
    # shellcheck disable=SC2086
    run "$MF" gemm-lab $args
    expect_rc 2 "gemm-lab $args"
    expect_grep "$WORK/err" "^minifloat gemm-lab: $msg" "gemm-lab $args: message"
    [ -s "$WORK/out" ] && fail "gemm-lab $args wrote to stdout" || pass
done <<'CASES'
--models h200|--models: unknown model 'h200' \(fp32 v100 a100 ada h100 b200\)
--models fp32,FP32|--models: 'FP32' given twice
--models|option '--models' needs a value
--models=|--models: '' is not a comma-separated list
--formats e4m3|--formats needs two formats
--formats e4m3,e4m3,e4m3|--formats needs two formats
--formats e4m3,e8m0|--formats: unknown format 'e8m0'
--formats f64,f32|--formats: unknown format 'f64'
--k 64,0|--k: '0' is not a K from 1 to 1048576
--k 128,64|--k: the values must increase
--k 64,,128|--k: '64,,128' is not a comma-separated list
--m 0|--m needs a number from 1 to 4096
--n 4097|--n needs a number from 1 to 4096
--m 4096 --k 65536|m x K and K x n must be at most
--promote -1|--promote needs a number
--dist cauchy|--dist: unknown distribution 'cauchy'
--seed x|--seed needs an unsigned 64-bit number
--plot out.png|--plot: the file name must end in .svg
--bogus|unknown option '--bogus'
extra|unexpected argument 'extra'
--models v100|the v100 model does not multiply e4m3 x e4m3
--models ada --formats e2m1,e2m1|the ada model does not multiply e2m1 x e2m1
--promote 48|--promote 48 is not a multiple of the h100 model's block size
CASES

# the usage hint points to the command's own --help
run "$MF" gemm-lab --models h200
expect_grep "$WORK/err" "minifloat gemm-lab --help" "gemm-lab: usage hint"
# the command is listed in the tool's usage
run "$MF" --help
expect_grep "$WORK/out" "minifloat gemm-lab \[options\]" "minifloat --help lists gemm-lab"

finish 71

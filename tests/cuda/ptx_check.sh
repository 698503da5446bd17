#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cuda/ptx_check.sh - the device fast paths of detail/cuda.h, checked without a GPU.
#
#   ptx_check.sh NVCC INCLUDE_DIR PROBE_CU WORK_DIR [CXX]
#
# Compiles tests/cuda/probe_cvt.cu to PTX for each target below, requires in each probe kernel the cvt
# that detail/cuda.h promises for that target and the absence of instructions the target lacks (or that
# must stay on the portable core), then assembles every PTX with ptxas (this toolkit has no cuobjdump:
# PTX plus ptxas is the check). With CXX, also builds probe_cvt.cu as a host program and runs it: the
# fix-ups against the portable core. Prints each check; exits 1 naming every missing or unexpected
# instruction.
set -u

if [ $# -lt 4 ]; then
    echo "usage: $0 NVCC INCLUDE_DIR PROBE_CU WORK_DIR [CXX]" >&2
    exit 2
fi
nvcc=$1 inc=$2 probe=$3 work=$4 cxx=${5:-}
ptxas=$(dirname "$nvcc")/ptxas
[ -x "$ptxas" ] || ptxas=ptxas
mkdir -p "$work"

# target name | nvcc flags | ptxas architecture
targets='sm_80|-arch=sm_80|sm_80
sm_89|-arch=sm_89|sm_89
sm_90|-arch=sm_90|sm_90
sm_100|-arch=sm_100|sm_100
sm_100f|-arch=sm_100f|sm_100f
sm_100a_rs|-arch=sm_100a -DMF_CUDA_USE_CVT_RS|sm_100a
nofast|-arch=sm_100f -DMF_CUDA_NO_FAST_PATHS|sm_100f'

# targets (comma-separated, "all") | kernel ("*" = the whole file) | +must contain / -must not contain
checks='all|probe_f16_rn|+cvt.rn.f16.f32
all|probe_f16_rn_sat|+cvt.rn.satfinite.f16.f32
all|probe_f16_ru|+cvt.rp.f16.f32
all|probe_f16_rd_sat|+cvt.rm.f16.f32
all|probe_f16_rna|-.f16.f32
all|probe_bf16_rn|+cvt.rn.bf16.f32
all|probe_bf16_rz|+cvt.rz.bf16.f32
all|probe_bf16_rn_sat|+cvt.rn.satfinite.bf16.f32
sm_80,sm_89|probe_bf16_rd|-cvt.rm.bf16.f32
sm_90,sm_100,sm_100f,sm_100a_rs|probe_bf16_rd|+cvt.rm.bf16.f32
sm_80|*|-e4m3x2
sm_80|*|-e5m2x2
sm_89,sm_90,sm_100,sm_100f,sm_100a_rs|probe_e4m3_rn_sat|+cvt.rn.satfinite.e4m3x2.f32
sm_89,sm_90,sm_100,sm_100f,sm_100a_rs|probe_e4m3_rn|+cvt.rn.satfinite.e4m3x2.f32
sm_89,sm_90,sm_100,sm_100f,sm_100a_rs|probe_e5m2_rn_sat|+cvt.rn.satfinite.e5m2x2.f32
sm_89,sm_90,sm_100,sm_100f,sm_100a_rs|probe_e5m2_rn|+cvt.rn.satfinite.e5m2x2.f32
all|probe_e4m3_rz|-e4m3x2
all|probe_f64_e4m3_rn_sat|-e4m3x2
sm_89,sm_90,sm_100,sm_100f,sm_100a_rs|probe_dec_e4m3|+cvt.rn.f16x2.e4m3x2
sm_80,sm_89,sm_90,sm_100|*|-e2m1x2
sm_80,sm_89,sm_90,sm_100|*|-e2m3x2
sm_80,sm_89,sm_90,sm_100|*|-e3m2x2
sm_80,sm_89,sm_90,sm_100|*|-ue8m0x2
sm_100f,sm_100a_rs|probe_e2m1_rn_sat|+cvt.rn.satfinite.e2m1x2.f32
sm_100f,sm_100a_rs|probe_e2m3_rn|+cvt.rn.satfinite.e2m3x2.f32
sm_100f,sm_100a_rs|probe_e3m2_rn_sat|+cvt.rn.satfinite.e3m2x2.f32
all|probe_e2m1_rz|-e2m1x2
sm_100f,sm_100a_rs|probe_e8m0_rz|+cvt.rz.ue8m0x2.f32
sm_100f,sm_100a_rs|probe_e8m0_ru_sat|+cvt.rp.satfinite.ue8m0x2.f32
all|probe_e8m0_rn|-ue8m0x2
sm_100f,sm_100a_rs|probe_dec_e2m1|+cvt.rn.f16x2.e2m1x2
sm_100f,sm_100a_rs|probe_dec_e3m2|+cvt.rn.f16x2.e3m2x2
sm_80,sm_89,sm_90,sm_100,sm_100f,nofast|*|-cvt.rs
sm_100a_rs|probe_e4m3_sr_sat|+cvt.rs.satfinite.e4m3x4.f32
sm_100a_rs|probe_bf16_sr|+cvt.rs.bf16x2.f32
sm_100a_rs|probe_e2m1_sr|+cvt.rs.satfinite.e2m1x4.f32
all|probe_f64_f32_rz|+cvt.rz.f32.f64
all|probe_f64_f16_rn|+cvt.rn.f16.f64
sm_80,sm_89|*|-bf16.f64
sm_90,sm_100,sm_100f,sm_100a_rs|probe_f64_bf16_rn|+cvt.rn.bf16.f64
all|probe_dec_f16|+cvt.f32.f16
all|probe_dec_e5m2|+cvt.f32.f16
all|probe_dec_bf16|-cvt.f32.bf16
nofast|probe_f16_rn|-.f16.f32
nofast|probe_bf16_rn|-.bf16.f32
nofast|probe_e4m3_rn_sat|-e4m3x2
nofast|probe_e2m1_rn_sat|-e2m1x2
nofast|probe_e8m0_rz|-ue8m0x2
nofast|probe_f64_f32_rz|-.f32.f64
nofast|probe_dec_f16|-cvt.f32.f16
nofast|probe_dec_e4m3|-e4m3x2'

failed=0
passed=0
fail() {
    echo "FAIL: $*"
    failed=$((failed + 1))
}

# The PTX of one kernel: from its .entry line to the closing brace at the start of a line.
kernel_ptx() {
    if [ "$2" = "*" ]; then
        cat "$1"
    else
        awk -v k="$2" 'index($0, ".entry " k "(") {p = 1} p {print} p && /^}/ {exit}' "$1"
    fi
}

while IFS='|' read -r name flags arch; do
    ptx=$work/probe_$name.ptx
    # shellcheck disable=SC2086 # flags are several words
    if ! "$nvcc" -std=c++17 -ptx $flags -I"$inc" -Werror=all-warnings -Xcompiler=-Wall,-Wextra "$probe" -o "$ptx"; then
        fail "$name: nvcc -ptx $flags failed"
        continue
    fi
    if "$ptxas" -arch="$arch" "$ptx" -o "$work/probe_$name.cubin"; then
        echo "ok   $name: ptxas -arch=$arch assembles the probe"
        passed=$((passed + 1))
    else
        fail "$name: ptxas -arch=$arch rejects the PTX"
    fi
    while IFS='|' read -r which kernel want; do
        case ",$which," in ",all,"|*",$name,"*) ;; *) continue ;; esac
        [ "$which" = all ] && [ "$name" = nofast ] && continue # nofast has its own list
        body=$(kernel_ptx "$ptx" "$kernel")
        if [ -z "$body" ]; then
            fail "$name: kernel $kernel not found in $ptx"
            continue
        fi
        pat=${want#?}
        if [ "${want:0:1}" = "+" ]; then
            if grep -qF -- "$pat" <<<"$body"; then
                echo "ok   $name $kernel: has $pat"
                passed=$((passed + 1))
            else
                fail "$name $kernel: expected '$pat' in its PTX; its cvt lines are:"
                lines=$(grep -F 'cvt.' <<<"$body" | grep -v 'cvt\.[us][0-9]*\.[us][0-9]*\|cvta')
                while IFS= read -r line; do
                    echo "       $line"
                done <<<"${lines:-(no floating-point cvt: the portable core)}"
            fi
        else
            if grep -qF -- "$pat" <<<"$body"; then
                fail "$name $kernel: unexpected '$pat':"
                grep -F -- "$pat" <<<"$body" | head -5 | sed 's/^/       /'
            else
                echo "ok   $name $kernel: no $pat"
                passed=$((passed + 1))
            fi
        fi
    done <<<"$checks"
done <<<"$targets"

if [ -n "$cxx" ]; then
    if "$cxx" -std=c++17 -O2 -Wall -Wextra -pedantic -Werror -x c++ -I"$inc" "$probe" -o "$work/probe_host" &&
        "$work/probe_host"; then
        echo "ok   host: fix-ups agree with the portable core"
        passed=$((passed + 1))
    else
        fail "host: the fix-ups disagree with the portable core (or did not build)"
    fi
fi

echo "ptx_check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/bin/sh
# SPDX-License-Identifier: MIT
# Run every libFuzzer target for SECONDS on a scratch copy of its corpus, JOBS targets at a time.
# usage: fuzz/run_fuzzers.sh BUILD_DIR [SECONDS] [JOBS]   (BUILD_DIR configured with -DMF_BUILD_FUZZERS=ON)
# SECONDS defaults to 10, as in scripts/setup.sh (which says why). Each run works on a scratch copy, so
# what it finds is not kept: to grow a corpus, run one target by hand on fuzz/corpus/<target> itself, or
# merge a long run's finds in with -merge=1.
set -eu
b=$1
s=${2:-10}
jobs=${3:-1}
work=$(mktemp -d)

# one target: its stats on success; the log's tail and the artifacts' folder on failure (exit 1)
fuzz_one() {
    t=$1
    d=$work/$t
    mkdir -p "$d/corpus"
    cp "fuzz/corpus/$t/"* "$d/corpus/"
    if ! "$b/fuzz/$t" -max_total_time="$s" -print_final_stats=1 -artifact_prefix="$d/" "$d/corpus" 2>"$d/log"; then
        tail -n 40 "$d/log"
        echo "$t: failure; artifacts in $d"
        return 1
    fi
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$d/log" | sed "s/^/$t /"
}

failed=0
running=0
pids=""
for t in fuzz_roundtrip fuzz_monotonic fuzz_differential fuzz_bulk fuzz_npy fuzz_gemm; do
    if [ ! -x "$b/fuzz/$t" ]; then # fuzz_gemm needs MPFR (fuzz/CMakeLists.txt)
        echo "$t: not built, skipped"
        continue
    fi
    echo "fuzzing $t for ${s}s"
    fuzz_one "$t" &
    pids="$pids $!"
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        for p in $pids; do wait "$p" || failed=1; done
        pids=""
        running=0
    fi
done
for p in $pids; do wait "$p" || failed=1; done
[ "$failed" -eq 0 ] || exit 1
rm -rf "$work"

#!/bin/sh
# Run every libFuzzer target for SECONDS on a scratch copy of its corpus.
# usage: fuzz/run_fuzzers.sh BUILD_DIR [SECONDS]     (BUILD_DIR configured with -DMF_BUILD_FUZZERS=ON)
set -eu
b=$1
s=${2:-20}
for t in fuzz_roundtrip fuzz_monotonic fuzz_differential fuzz_bulk fuzz_npy; do
    d=$(mktemp -d)
    cp fuzz/corpus/$t/* "$d"/
    echo "fuzzing $t for ${s}s"
    if ! "$b/fuzz/$t" -max_total_time="$s" -print_final_stats=1 -artifact_prefix="$d/" "$d" 2>"$d.log"; then
        tail -n 40 "$d.log"
        echo "$t: failure; artifacts in $d"
        exit 1
    fi
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$d.log" | sed "s/^/$t /"
    rm -rf "$d" "$d.log"
done

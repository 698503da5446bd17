# SPDX-License-Identifier: MIT
# cli_gemm_lab: `minifloat gemm-lab` - a small run prints its table, CSV and plot; the H100 FP8 model's
# error grows with K and promotion to binary32 every 128 products holds it down (DeepSeek-V3, 3.3.2);
# the same seed gives the same bytes.
. "$(dirname "$0")/common.sh"

run "$MF" gemm-lab --help
expect_rc 0 "gemm-lab --help"
expect_grep "$WORK/out" "^usage: minifloat gemm-lab" "gemm-lab --help: usage"

# the table
run "$MF" gemm-lab --k 64,512 --m 8 --n 8 --plot "$WORK/g.svg"
expect_rc 0 "gemm-lab --k 64,512 --m 8 --n 8"
expect_grep "$WORK/out" "^ +K +model +promote +max_rel_err +median_rel_err" "gemm-lab: table header"
for row in "64 +fp32 +-" "64 +h100 +-" "64 +h100 +128" "512 +fp32 +-" "512 +h100 +-" "512 +h100 +128"; do
    expect_grep "$WORK/out" "^ +$row +[0-9.]+e[-+][0-9]+ +[0-9.]+e[-+][0-9]+ +[0-9.]+e[-+][0-9]+\$" "gemm-lab: row '$row'"
done
expect_grep "$WORK/err" "wrote .*g\.svg" "gemm-lab --plot says where it wrote"

# the plot: one whole SVG document, one element per line, no NaN/inf coordinates, labelled
if [ "$(head -c 5 "$WORK/g.svg")" = "<?xml" ]; then pass; else fail "g.svg: does not start with <?xml"; fi
if [ "$(tail -n 1 "$WORK/g.svg")" = "</svg>" ]; then pass; else fail "g.svg: does not end with </svg>"; fi
if grep -v -e '^<?xml' -e '^<svg ' -e '^</svg>$' -e '^<text .*</text>$' -e '^<[a-z]* [^<>]*/>$' "$WORK/g.svg" >"$WORK/odd"; then
    fail "g.svg: unexpected lines: $(head -c 200 "$WORK/odd")"
else
    pass
fi
if grep -Eiq '="[^"]*(nan|inf)' "$WORK/g.svg"; then fail "g.svg: a NaN or inf coordinate"; else pass; fi
if command -v xmllint >/dev/null 2>&1; then
    if xmllint --noout "$WORK/g.svg" 2>"$WORK/xmlerr"; then pass; else fail "g.svg: xmllint: $(head -c 200 "$WORK/xmlerr")"; fi
fi
expect_grep "$WORK/g.svg" '>mf_gemm accumulation error vs K: e4m3 x e4m3, normal inputs' "g.svg: title names the formats and distribution"
expect_grep "$WORK/g.svg" '>K \(products per output, log2 scale\)</text>' "g.svg: x axis label"
expect_grep "$WORK/g.svg" '>relative error .*\(log scale\)</text>' "g.svg: y axis label"
expect_grep "$WORK/g.svg" '>h100, promote 128</text>' "g.svg: legend"
[ "$(grep -c '<polyline' "$WORK/g.svg")" -ge 6 ] && pass || fail "g.svg: want a max and a median line per series"

# check_csv FILE METRIC WHAT FACTOR: at K = 512, h100 without promotion is FACTOR times worse than with it; promotion
# changes nothing at K = 64 (one 128-product chunk); fp32 stays below 1e-5.
check_csv() {
    awk -F, -v col="$2" -v what="$3" -v f="$4" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
        { v[$1 "," $2 "," $3] = $c }
        END {
            bad = 0
            if (!c) { print "no column " col; exit 1 }
            if (!(v["512,h100,0"] > f * v["512,h100,128"])) { print what ": h100 " v["512,h100,0"] " not > " f " x promoted " v["512,h100,128"]; bad = 1 }
            if (v["512,h100,0"] <= v["64,h100,0"]) { print what ": h100 does not grow with K"; bad = 1 }
            if (v["64,h100,0"] != v["64,h100,128"]) { print what ": promotion changed K = 64"; bad = 1 }
            if (!(v["512,fp32,0"] < 1e-5)) { print what ": fp32 error " v["512,fp32,0"]; bad = 1 }
            exit bad
        }' "$1" >"$WORK/awk" 2>&1
    if [ $? -eq 0 ]; then pass; else fail "$3: $(cat "$WORK/awk")"; fi
}

# uniform inputs (every product positive, no cancellation): the largest error shows it
run "$MF" gemm-lab --k 64,512 --m 8 --n 8 --dist uniform --csv
expect_rc 0 "gemm-lab --dist uniform --csv"
expect_grep "$WORK/out" "^k,model,promote,max_rel_err,median_rel_err,max_err_over_sum_abs,outputs\$" "--csv header"
[ "$(grep -c '^[0-9]' "$WORK/out")" -eq 6 ] && pass || fail "--csv: want 6 rows"
check_csv "$WORK/out" max_rel_err "uniform max" 5
# normal inputs: cancellation makes the largest |C - C_exact| / |C_exact| noise; the median shows it
run "$MF" gemm-lab --k 64,512 --m 8 --n 8 --csv
expect_rc 0 "gemm-lab --csv"
cp "$WORK/out" "$WORK/n1.csv"
check_csv "$WORK/n1.csv" median_rel_err "normal median" 1.5

# deterministic, and the seed matters
run "$MF" gemm-lab --k 64,512 --m 8 --n 8 --csv
same "$WORK/n1.csv" "$WORK/out" "gemm-lab: same seed, same CSV"
run "$MF" gemm-lab --k 64,512 --m 8 --n 8 --csv --seed 2
cmp -s "$WORK/n1.csv" "$WORK/out" && fail "gemm-lab --seed 2 gave seed 1's numbers" || pass

# other models and formats, promotion off
run "$MF" gemm-lab --models a100,b200 --formats bf16,bf16 --k 16,256 --m 4 --n 4 --promote 0 --csv
expect_rc 0 "gemm-lab bf16 a100,b200 --promote 0"
[ "$(grep -c '^[0-9]' "$WORK/out")" -eq 4 ] && pass || fail "--promote 0: want 4 rows (no promoted series)"

# I/O and memory errors exit 1
run "$MF" gemm-lab --k 64 --m 2 --n 2 --plot "$WORK/no/such/dir/x.svg"
expect_rc 1 "gemm-lab --plot into a missing directory"
expect_grep "$WORK/err" "^minifloat gemm-lab: --plot .*cannot write" "gemm-lab --plot: message"
# (not where the tool cannot start under the limit at all: AddressSanitizer reserves terabytes of shadow)
if (ulimit -v 400000 && "$MF" --version) >/dev/null 2>&1; then
    run sh -c 'ulimit -v 400000; exec "$1" gemm-lab --k 131072 --m 1024 --n 1024' sh "$MF"
    expect_rc 1 "gemm-lab past a memory limit"
    expect_grep "$WORK/err" "^minifloat gemm-lab: out of memory" "gemm-lab out of memory: message"
fi
if [ -w /dev/full ]; then # a failed write of the table: exit 1 with one message
    run sh -c '"$1" gemm-lab --k 64 --m 2 --n 2 >/dev/full' sh "$MF"
    expect_rc 1 "gemm-lab > /dev/full"
    expect_grep "$WORK/err" "^minifloat: cannot write the standard output" "gemm-lab > /dev/full: message"
fi

finish 35

# SPDX-License-Identifier: MIT
# cli_analyze_plot: `minifloat analyze --plot` writes a well-formed SVG picture (and a PNG through
# rsvg-convert where it is installed) without changing the printed report.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/npy_lib.sh"

npy_write "$WORK/x.npy" '<f4' '(8,)' "$F32_EIGHT"
"$MF" analyze "$WORK/x.npy" >"$WORK/report"

# svg_ok FILE WHAT: the sanity checks every picture must pass
svg_ok() {
    _f=$1 _w=$2
    if [ "$(head -c 5 "$_f")" = "<?xml" ]; then pass; else fail "$_w: does not start with <?xml"; fi
    expect_grep "$_f" '^<svg xmlns="http://www.w3.org/2000/svg" width="[0-9]+" height="[0-9]+"' "$_w: <svg> element"
    if [ "$(tail -n 1 "$_f")" = "</svg>" ]; then pass; else fail "$_w: does not end with </svg>"; fi
    if [ "$(grep -c '<svg' "$_f")" -eq 1 ]; then pass; else fail "$_w: more than one <svg>"; fi
    if [ "$(grep -c '<text' "$_f")" -eq "$(grep -c '</text>' "$_f")" ]; then pass; else fail "$_w: unbalanced <text>"; fi
    # every other line is one self-closed element
    if grep -v -e '^<?xml' -e '^<svg ' -e '^</svg>$' -e '^<text .*</text>$' -e '^<[a-z]* [^<>]*/>$' "$_f" >"$WORK/odd"; then
        fail "$_w: unexpected lines: $(head -c 200 "$WORK/odd")"
    else
        pass
    fi
    if grep -Eiq '="[^"]*(nan|inf)' "$_f"; then fail "$_w: a NaN or inf coordinate"; else pass; fi
    if command -v xmllint >/dev/null 2>&1; then
        if xmllint --noout "$_f" 2>"$WORK/xmlerr"; then pass; else fail "$_w: xmllint: $(head -c 200 "$WORK/xmlerr")"; fi
    fi
    expect_grep "$_f" '>log2 \|x\|' "$_w: x axis label"
    expect_grep "$_f" '>elements per binade \(log scale\)</text>' "$_w: y axis label"
}

run "$MF" analyze "$WORK/x.npy" --plot "$WORK/x.svg"
expect_rc 0 "--plot x.svg"
same "$WORK/report" "$WORK/out" "--plot leaves the report as it is"
expect_grep "$WORK/err" "wrote .*x.svg" "--plot says where it wrote"
svg_ok "$WORK/x.svg" "x.svg"
for f in f16 bf16 e4m3 e5m2 e2m1; do
    expect_grep "$WORK/x.svg" ">$f</text>" "x.svg: lane of $f"
done
expect_grep "$WORK/x.svg" '>x.npy: log2 \|x\| histogram' "x.svg: title"
expect_grep "$WORK/x.svg" '>not shown: 2 zeros, 0 NaN/inf</text>' "x.svg: zeros noted"
# five nonempty binades (15, 1, 0, -20, -26): five bars, all in the data's colour
if [ "$(grep -c 'fill="#4a5568" fill-opacity="0.850"' "$WORK/x.svg")" -eq 6 ]; then pass; else fail "x.svg: want 5 bars and a legend swatch"; fi
# the overflow and underflow thresholds of f16 are drawn (solid, dashed) in its colour
expect_grep "$WORK/x.svg" '<line [^>]*stroke="#1f77b4" stroke-width="1.80"/>' "x.svg: f16 overflow line"
expect_grep "$WORK/x.svg" '<line [^>]*stroke="#1f77b4" stroke-width="1.50" stroke-dasharray' "x.svg: f16 underflow line"
expect_grep "$WORK/x.svg" '>ovf 1 · →0 1 · sub 1</text>' "x.svg: f16 counts"

# per-format scales show in the lane labels
run "$MF" analyze "$WORK/x.npy" --scale auto --formats f16,bf16 --plot "$WORK/auto.svg"
expect_rc 0 "--scale auto --plot"
svg_ok "$WORK/auto.svg" "auto.svg"
expect_grep "$WORK/auto.svg" '>f16 ×2\^-1</text>' "auto.svg: f16 lane says its scale"
expect_grep "$WORK/auto.svg" '>bf16</text>' "auto.svg: bf16 lane (scale 1)"

# an empty tensor still gives a picture
npy_write "$WORK/empty.npy" '<f2' '(0,)' ''
run "$MF" analyze "$WORK/empty.npy" --plot "$WORK/empty.svg"
expect_rc 0 "--plot of an empty tensor"
svg_ok "$WORK/empty.svg" "empty.svg"
expect_grep "$WORK/empty.svg" 'no finite nonzero elements' "empty.svg: says so"

# a tensor spanning the whole binary64 range and a single value
printf '1e-300\n1e300\n-5e-324\n' >"$WORK/wide.txt"
run "$MF" analyze "$WORK/wide.txt" --plot "$WORK/wide.svg" --formats f16,e2m1
expect_rc 0 "--plot of a very wide tensor"
svg_ok "$WORK/wide.svg" "wide.svg"
printf '3\n' >"$WORK/one.txt"
run "$MF" analyze "$WORK/one.txt" --plot "$WORK/one.svg" --formats e2m1
expect_rc 0 "--plot of one value"
svg_ok "$WORK/one.svg" "one.svg"

# PNG: rendered by rsvg-convert (a file name with blanks and quotes goes through sh quoting)
if command -v rsvg-convert >/dev/null 2>&1; then
    png="$WORK/a b\"c\$d.png"
    run "$MF" analyze "$WORK/x.npy" --plot "$png"
    expect_rc 0 "--plot .png"
    same "$WORK/report" "$WORK/out" "--plot .png leaves the report as it is"
    if [ "$(od -An -tx1 -N8 "$png" | tr -d ' \n')" = 89504e470d0a1a0a ]; then pass; else fail "the .png is not a PNG"; fi
else
    echo "note: rsvg-convert is not installed; the PNG case is not run (analyze_errors checks the message)"
fi

finish 71

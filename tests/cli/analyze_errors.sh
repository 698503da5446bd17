# SPDX-License-Identifier: MIT
# cli_analyze_errors: misuse of `minifloat analyze` exits 2 with a message on stderr and nothing on
# stdout; unreadable or malformed data exits 1 with a message that says what is wrong; nothing
# crashes (a signal would give a status above 128).
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/npy_lib.sh"

npy_write "$WORK/x.npy" '<f4' '(8,)' "$F32_EIGHT"
printf '1\n2\n' >"$WORK/x.txt"
: >"$WORK/x.weird"

# "arguments|message ERE" (arguments are evaluated by sh in $WORK)
while IFS='|' read -r args msg; do
    [ -z "$args" ] && continue
    run sh -c "cd \"\$2\" && \"\$1\" $args </dev/null" sh "$MF" "$WORK"
    expect_rc 2 "minifloat $args"
    expect_grep "$WORK/err" "^minifloat: analyze: $msg" "minifloat $args: message"
    [ -s "$WORK/out" ] && fail "minifloat $args: wrote to stdout" || pass
done <<'CASES'
analyze|a file is required
analyze x.npy y.npy|more than one file
analyze x.npy --bogus|unknown option '--bogus'
analyze x.npy --formats|option '--formats' needs a list
analyze x.npy --formats f16,e9m9|--formats: unknown format 'e9m9'
analyze x.npy --formats f16,,bf16|--formats: 'f16,,bf16' is not a comma-separated list
analyze x.npy --formats f64|--formats: f64 is not a target
analyze x.npy --formats f16,F16,half|--formats: 'F16' given twice
analyze x.npy --formats e4m3,bf16,E4M3|--formats: 'E4M3' given twice
analyze x.npy --formats=|--formats: '' is not
analyze x.npy --scale|option '--scale' needs
analyze x.npy --scale 0|--scale: '0' is not 'auto', a positive
analyze x.npy --scale -2|--scale: '-2' is not
analyze x.npy --scale inf|--scale: 'inf' is not
analyze x.npy --scale nan|--scale: 'nan' is not
analyze x.npy --scale 2^x|--scale: '2\^x' is not
analyze x.npy --scale 2^9999|--scale: '2\^9999' is not
analyze x.npy --scale auto2|--scale: 'auto2' is not
analyze x.npy -r nearest|unknown rounding mode 'nearest'
analyze x.npy -r|option '-r' needs a rounding mode
analyze x.npy --seed -1|--seed needs
analyze x.npy --plot|option '--plot' needs a file name
analyze x.npy --plot out.jpg|--plot: the file name must end in .svg or .png
analyze x.npy --dtype e9m9|--dtype: unknown format 'e9m9'
analyze x.npy --dtype f16|--dtype: a .npy file names its own type
analyze x.npy --dtype e4m3|--dtype e4m3 does not apply: x.npy's dtype '<f4' is
analyze x.txt --dtype e4m3|--dtype does not apply to text
analyze x.weird|cannot tell the type of 'x.weird'
CASES

# PNG without rsvg-convert on PATH: a usage error before any work (system() finds sh by path)
run env PATH=/nonexistent "$MF" analyze "$WORK/x.npy" --plot "$WORK/x.png"
expect_rc 2 "--plot x.png without rsvg-convert"
expect_grep "$WORK/err" "rsvg-convert" "--plot x.png without rsvg-convert: message"
[ -e "$WORK/x.png" ] && fail "x.png written without rsvg-convert" || pass
[ -s "$WORK/out" ] && fail "no-rsvg: wrote to stdout" || pass

# data errors: exit 1, a message naming the file and the problem
bad() { # bad FILE WHAT ERE [options]
    _f=$1 _what=$2 _re=$3
    shift 3
    run "$MF" analyze "$WORK/$_f" "$@"
    expect_rc 1 "$_what"
    expect_grep "$WORK/err" "^minifloat: analyze: .*$_f: $_re" "$_what: message"
}
bad missing.npy "missing file" "cannot open"
bad missing.f32 "missing raw file" "cannot read"
bad missing.txt "missing text file" "cannot read"
npy_write "$WORK/be.npy" '>f4' '(8,)' "$F32_EIGHT"
bad be.npy "big-endian" "big-endian data \(dtype '>f4'\)"
npy_write "$WORK/fo.npy" '<f4' '(2, 4)' "$F32_EIGHT" 1 True
bad fo.npy "Fortran order" "Fortran-order"
npy_write "$WORK/i4.npy" '<i4' '(8,)' "$F32_EIGHT"
bad i4.npy "int32" "unsupported dtype '<i4'"
npy_write "$WORK/trunc.npy" '<f4' '(9,)' "$F32_EIGHT"
bad trunc.npy "truncated" "truncated: the header promises 36 data bytes \(shape \(9,\), float32\), the file has 32"
npy_write "$WORK/long.npy" '<f4' '(7,)' "$F32_EIGHT"
bad long.npy "trailing bytes" "4 unexpected bytes after the data"
npy_write "$WORK/huge.npy" '<f4' '(4611686018427387904, 4)' "$F32_EIGHT"
bad huge.npy "huge shape" "bad shape"
npy_write "$WORK/huge2.npy" '<f8' '(1000000, 1000000, 1000)' "$F32_EIGHT"
bad huge2.npy "huge shape that fits size_t" "truncated: the header promises 8000000000000000 data bytes"
printf 'hello, world\n' >"$WORK/text.npy"
bad text.npy "not a .npy" "not a .npy file"
npy_write "$WORK/v1.npy" '<V1' '(3,)' '\070\100\304'
bad v1.npy "'<V1' without --dtype" "ambiguous dtype '<V1'.*--dtype"
printf '1\n2\nthree\n' >"$WORK/bad.txt"
bad bad.txt "bad text line" "line 3: 'three' is not a number"
printf '1\n2\000\n' >"$WORK/nul.txt"
bad nul.txt "NUL in text" "line 2: a NUL byte"
printf '1\n1e99999\n' >"$WORK/ovf.txt"
run "$MF" analyze "$WORK/ovf.txt" --formats f16
expect_rc 0 "1e99999 is read as inf (strtod), not refused"
expect_grep "$WORK/out" "1 inf$" "1e99999: counted as an infinite input"
printf '\000\000\200\077\000' >"$WORK/odd.f32"
bad odd.f32 "raw file, partial element" "5 bytes is not a whole number of f32 elements \(4 bytes each\)"
printf '\000\000\200\077' >"$WORK/odd.bin"
bad odd.bin "raw f64, partial element" "4 bytes is not a whole number of f64 elements" --dtype f64
if [ -d "$WORK" ]; then
    run "$MF" analyze "$WORK" --raw
    expect_rc 1 "a directory as raw input"
    run "$MF" analyze "$WORK" --text
    expect_rc 1 "a directory as text input"
    mkdir -p "$WORK/dir.npy"
    run "$MF" analyze "$WORK/dir.npy"
    expect_rc 1 "a directory as .npy input"
fi
# the plot cannot be created: exit 1 after the report
run "$MF" analyze "$WORK/x.npy" --plot "$WORK/no/such/dir/p.svg"
expect_rc 1 "--plot into a missing directory"
expect_grep "$WORK/err" "cannot create" "--plot into a missing directory: message"
if [ -w /dev/full ]; then
    run sh -c '"$1" analyze "$2" >/dev/full' sh "$MF" "$WORK/x.npy"
    expect_rc 1 "write to /dev/full"
    expect_grep "$WORK/err" "write error" "write to /dev/full: message"
fi
# a plot that cannot be written whole (a file-size limit, with SIGXFSZ ignored so that writes fail):
# exit 1 and no file, not even a partial one or its temporary
if sh -c 'trap "" XFSZ; ulimit -f 4' 2>/dev/null; then
    run sh -c 'trap "" XFSZ; ulimit -f 4; exec "$1" analyze "$2" --plot "$3" >/dev/null' sh "$MF" "$WORK/x.npy" \
        "$WORK/cut.svg"
    expect_rc 1 "--plot past a file-size limit"
    expect_grep "$WORK/err" "--plot .*cut.svg: write error" "--plot past a file-size limit: message"
    [ -z "$(ls "$WORK" | grep '^cut\.svg')" ] && pass || fail "--plot past a file-size limit left $(ls "$WORK" | grep cut)"
fi
run "$MF" analyze "$WORK/x.npy" --plot "$WORK/whole.svg"
expect_rc 0 "--plot"
[ -s "$WORK/whole.svg" ] && [ -z "$(ls "$WORK" | grep '^whole\.svg\.part')" ] && pass ||
    fail "--plot: no whole.svg, or a temporary file left: $(ls "$WORK")"

# "-" is standard input: a .npy (found by its magic), or raw or text data with --raw or --text
run sh -c '"$1" analyze - <"$2"' sh "$MF" "$WORK/x.npy"
expect_rc 0 "analyze - < x.npy"
expect_grep "$WORK/out" "^data +8 elements, float32 \('<f4'\)" "analyze - < x.npy: the data line"
run sh -c 'printf "1\n2\n3\n" | "$1" analyze - --text' sh "$MF"
expect_rc 0 "analyze - --text"
expect_grep "$WORK/out" "^data +3 elements, text" "analyze - --text: the data line"
run sh -c '"$1" analyze - --raw <"$2"' sh "$MF" "$WORK/x.npy"
expect_rc 0 "analyze - --raw"
run sh -c 'printf "1\n2\n" | "$1" analyze -' sh "$MF"
expect_rc 1 "analyze - with text but no --text"
expect_grep "$WORK/err" "^minifloat: analyze: -: not a .npy file.*say --raw or --text" "analyze - not .npy: message"

finish 131

# SPDX-License-Identifier: MIT
# cli_errors: misuse exits 2 with a message on stderr and nothing on stdout; data and I/O errors
# exit 1; nothing crashes (a signal would give a status above 128).
. "$(dirname "$0")/common.sh"

# "arguments|message ERE"
while IFS='|' read -r args msg; do
    [ -z "$args" ] && continue
    run sh -c "\"\$1\" $args </dev/null" sh "$MF"
    expect_rc 2 "minifloat $args"
    expect_grep "$WORK/err" "^minifloat: $msg" "minifloat $args: message"
    [ -s "$WORK/out" ] && fail "minifloat $args: wrote to stdout" || pass
done <<'CASES'
bogus|unknown command 'bogus'
info a b|info: too many arguments
info --foo|info: unknown option '--foo'
info e9m9|info: unknown format 'e9m9'
show|show: a number is required
show 1 -r nearest|show: unknown rounding mode 'nearest'
convert|convert: --to FORMAT is required
convert --from f32|convert: --to FORMAT is required
convert --to f16|convert: --from FORMAT is required
convert --hex-in --to f16|convert: --from FORMAT is required
convert --from f32 --to e9m9|convert: unknown format 'e9m9'
convert --from e9m9 --to f16|convert: unknown format 'e9m9'
convert --from f32 --to|convert: option '--to' needs a format
convert --from f32 --to f16 -r nearest|convert: unknown rounding mode 'nearest'
convert --from f32 --to f16 --round=xx|convert: unknown rounding mode 'xx'
convert --from f32 --to f16 -r|convert: option '-r' needs a rounding mode
convert --from f32 --to f16 --frobnicate|convert: unknown option '--frobnicate'
convert --from f32 --to f16 in out extra|convert: unexpected argument 'extra'
convert f16 in out extra|convert: unexpected argument 'extra'
convert --from f32 --to f16 --raw-in --text-in|convert: --raw-in and text input
convert --from f32 --to f16 --raw-out --npy-out|convert: say one kind of output
convert --to f16 --npy-out --text|convert: say one kind of output
convert --from f32 --to f16 --chunk -1|convert: --chunk needs a number
convert --from f32 --to f16 --chunk 99999999999|convert: --chunk needs a number
convert --from f32 --to f16 --seed x|convert: --seed needs
convert --from f32 --to f16 --seed 18446744073709551616|convert: --seed needs
convert --from f32 --to f16 --count|convert: --count needs
convert --from f32 --to f16 --profile numpy|convert: unknown profile 'numpy' \(default cuda ml_dtypes torch onnx\)
convert --from f32 --to f16 --profile|convert: option '--profile' needs a profile
CASES

# Accepted spellings of the same options (exit 0).
for args in "--from=f32 --to=f16" "--from fp32 --to half --round=rz" "--from float32 --to bfloat16 -r RU --sat"; do
    run sh -c "\"\$1\" convert $args </dev/null" sh "$MF"
    expect_rc 0 "convert $args"
done

# Data and I/O errors: exit 1.
run sh -c 'printf "1\nx\n" | "$1" convert --text --to e4m3' sh "$MF"
expect_rc 1 "unparsable text"
expect_grep "$WORK/err" "^minifloat: convert: line 2: 'x' is not a number$" "unparsable text message"
run sh -c 'printf "\000\000\000" | "$1" convert --from f32 --to e4m3' sh "$MF"
expect_rc 1 "partial element"
# a NUL byte in text: refused (it hid the rest of its line), the lines before it converted
run sh -c 'printf "3\n1\0002\n" | "$1" convert --text --to e4m3' sh "$MF"
expect_rc 1 "text with a NUL byte"
expect_grep "$WORK/err" "^minifloat: convert: line 2: a NUL byte" "text with a NUL byte: message"
[ "$(cat "$WORK/out")" = 3 ] && pass || fail "text with a NUL byte: the line before it: $(cat "$WORK/out")"
if [ -w /dev/full ]; then
    run sh -c 'printf "1\n" | "$1" convert --text --to e4m3 >/dev/full' sh "$MF"
    expect_rc 1 "text write to /dev/full"
    expect_grep "$WORK/err" "write error" "write error message"
    run sh -c 'printf "\000\000\200\077" | "$1" convert --from f32 --to f16 >/dev/full' sh "$MF"
    expect_rc 1 "binary write to /dev/full"
    # every command's output: exit 1 and one line that says so (docs/cli.md: exit status 1)
    for args in "info" "info e4m3" "show 1" "--help" "help" "--version" "show --help" "plan f32 e4m3"; do
        # shellcheck disable=SC2086 # the arguments are words
        run sh -c '"$0" "$@" >/dev/full' "$MF" $args
        expect_rc 1 "$args > /dev/full"
        expect_grep "$WORK/err" "^minifloat: (cannot write the standard output|plan: write error)" "$args > /dev/full: message"
        [ "$(wc -l <"$WORK/err")" -eq 1 ] && pass || fail "$args > /dev/full: not one line on stderr: $(cat "$WORK/err")"
    done
fi
if [ -d / ] && sh -c 'exec </' 2>/dev/null; then
    run sh -c '"$1" convert --from f32 --to f16 </' sh "$MF"
    expect_rc 1 "read error (stdin is a directory)"
    expect_grep "$WORK/err" "read error" "read error message"
    run sh -c '"$1" convert --text --to f16 </' sh "$MF"
    expect_rc 1 "text read error (stdin is a directory)"
fi

finish 70

# SPDX-License-Identifier: MIT
# cli_train_demo: `minifloat train-demo` - a short run prints its tables and writes the CSV and plot it
# is asked for; the same seed gives the same bytes; misuse exits 2 with a message, I/O errors exit 1.
. "$(dirname "$0")/common.sh"

run "$MF" train-demo --help
expect_rc 0 "train-demo --help"
expect_grep "$WORK/out" "^usage: minifloat train-demo" "train-demo --help: usage"

# a short run of two configurations (the tables on stdout, progress on stderr)
run "$MF" train-demo --quick --epochs 3 --config fp16,fp16-ls --csv "$WORK/a.csv" --plot "$WORK/a.svg"
expect_rc 0 "train-demo --quick"
cp "$WORK/out" "$WORK/out1"
expect_grep "$WORK/out1" "^training loss" "train-demo: loss table"
expect_grep "$WORK/out1" "^  fp16 +[0-9.]+% +[0-9.]+%" "train-demo: fp16 result row"
expect_grep "$WORK/out1" "^  fp16-ls +[0-9.]+%" "train-demo: fp16-ls result row"
expect_grep "$WORK/out1" "^ +gradient +[0-9]+ +[0-9]+ \( *[0-9.]+%\) +[1-9][0-9]* " \
    "train-demo: fp16 gradients underflow"
expect_grep "$WORK/out1" "^scale history" "train-demo: scale history"
expect_grep "$WORK/err" "fp16-ls +done: test accuracy" "train-demo: progress on stderr"
expect_grep "$WORK/a.csv" "^config,epoch," "train-demo --csv: header"
[ "$(grep -c '^fp16,' "$WORK/a.csv")" -eq 3 ] && pass || fail "train-demo --csv: 3 fp16 rows"
[ "$(grep -c '^fp16-ls,' "$WORK/a.csv")" -eq 3 ] && pass || fail "train-demo --csv: 3 fp16-ls rows"
expect_grep "$WORK/a.svg" "</svg>" "train-demo --plot: a whole SVG"

# deterministic: the same run again gives the same tables and CSV (byte for byte)
run "$MF" train-demo --quick --epochs 3 --config fp16,fp16-ls --csv "$WORK/b.csv" --quiet
expect_rc 0 "train-demo again"
grep -v '^wrote ' "$WORK/out1" >"$WORK/t1"
grep -v '^wrote ' "$WORK/out" >"$WORK/t2"
same "$WORK/t1" "$WORK/t2" "train-demo: same seed, same tables"
same "$WORK/a.csv" "$WORK/b.csv" "train-demo: same seed, same CSV"
[ -s "$WORK/err" ] && fail "train-demo --quiet wrote to stderr" || pass
# --csv - writes the CSV to stdout
run "$MF" train-demo --quick --epochs 2 --config bf16 --csv - --quiet
expect_rc 0 "train-demo --csv -"
expect_grep "$WORK/out" "^bf16,2," "train-demo --csv -: rows on stdout"

# misuse
while IFS='|' read -r args msg; do
    [ -z "$args" ] && continue
    # shellcheck disable=SC2086
    run "$MF" train-demo $args
    expect_rc 2 "train-demo $args"
    expect_grep "$WORK/err" "^minifloat train-demo: $msg" "train-demo $args: message"
done <<'CASES'
--bogus|unknown option '--bogus'
--bogus=1|unknown option '--bogus'
--epochs 0|--epochs needs
--epochs|option '--epochs' needs a value
--config fp12|
--batch 48|
--batch 0|--batch needs a number from 1 to 65536
--hidden 0|--hidden needs a number from 1 to 1024
--every 0|--every needs a number from 1 to
--growth-interval 0|--growth-interval needs a number from 1 to 1073741824
--config fp32,FP32|--config: 'FP32' given twice
--config fp16-ls,fp16+ls|--config: 'fp16\+ls' given twice
--quick=1|option '--quick' takes no value
extra|unexpected argument 'extra'
CASES

# an unwritable plot is an I/O error
run "$MF" train-demo --quick --epochs 1 --config fp32 --plot "$WORK/no/such/dir/x.svg" --quiet
expect_rc 1 "train-demo --plot into a missing directory"
expect_grep "$WORK/err" "cannot write" "train-demo --plot: message"

# a plot that cannot be written whole: exit 1, no file left (cli_out)
if sh -c 'trap "" XFSZ; ulimit -f 4' 2>/dev/null; then
    run sh -c 'trap "" XFSZ; ulimit -f 4; exec "$1" train-demo --quick --epochs 2 --config fp32 --quiet --plot "$2" \
        >/dev/null' sh "$MF" "$WORK/cut.svg"
    expect_rc 1 "train-demo --plot past a file-size limit"
    [ -z "$(ls "$WORK" | grep '^cut\.svg')" ] && pass || fail "train-demo --plot past the limit left $(ls "$WORK" | grep cut)"
fi

finish 38

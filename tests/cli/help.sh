# SPDX-License-Identifier: MIT
# cli_help: --help / help / -h print the usage on stdout (exit 0); --version prints the project
# version; no arguments prints the usage on stderr with exit status 2.
. "$(dirname "$0")/common.sh"
VERSION=$3

for h in --help help -h; do
    run "$MF" $h
    expect_rc 0 "minifloat $h"
    expect_grep "$WORK/out" '^usage: minifloat info' "minifloat $h prints the usage"
    expect_grep "$WORK/out" 'convert --from FORMAT --to FORMAT' "minifloat $h mentions convert"
    [ -s "$WORK/err" ] && fail "minifloat $h wrote to stderr" || pass
done

for c in info show convert; do
    run "$MF" $c --help
    expect_rc 0 "minifloat $c --help"
    expect_grep "$WORK/out" '^usage: ' "minifloat $c --help prints the usage"
done

run "$MF" --version
expect_rc 0 "minifloat --version"
if [ "$(cat "$WORK/out")" = "minifloat $VERSION" ]; then pass; else fail "--version printed '$(cat "$WORK/out")', want 'minifloat $VERSION'"; fi

run "$MF"
expect_rc 2 "minifloat without arguments"
expect_grep "$WORK/err" '^usage: minifloat' "usage on stderr without arguments"
[ -s "$WORK/out" ] && fail "minifloat without arguments wrote to stdout" || pass

finish 20

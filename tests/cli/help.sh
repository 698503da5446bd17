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
# the formats line names the FNUZ, IEEE-style FP8 and IEEE P3109 formats; convert and plan take --profile
expect_grep "$WORK/out" '^formats: f32 f16 bf16 e4m3 e5m2 e2m3 e3m2 e2m1 e8m0 e4m3fnuz e5m2fnuz e4m3b11fnuz e4m3ieee e3m4 binary8p1se binary8p1sf binary8p2se binary8p2sf binary8p3se binary8p3sf binary8p4se binary8p4sf binary8p5se binary8p5sf binary8p6se binary8p6sf binary8p7se binary8p7sf binary8p1ue binary8p1uf binary8p2ue binary8p2uf binary8p3ue binary8p3uf binary8p4ue binary8p4uf binary8p5ue binary8p5uf binary8p6ue binary8p6uf binary8p7ue binary8p7uf binary8p8ue binary8p8uf binary4p2sf,$' \
    "usage: the formats"
expect_grep "$WORK/out" '^profiles: default cuda ml_dtypes torch onnx ' "usage: the profiles"
[ "$(grep -c '^  --profile NAME ' "$WORK/out")" -eq 2 ] && pass || fail "usage: --profile not under convert and plan"

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

#!/bin/sh
# SPDX-License-Identifier: MIT
# abuse_symbols.sh TEST_ABUSE LIB...: every function the shared libraries export has a row in
# test_abuse's table, and every row names an exported function.
set -eu
t=$1
shift
command -v nm >/dev/null || { echo "SKIP: nm (binutils) not found"; exit 77; }
exported=$(nm -D --defined-only "$@" | awk '$2 == "T" { print $3 }' | sort -u)
table=$("$t" --list | sort -u)
[ -n "$exported" ] || { echo "FAIL: no exported function found in $*"; exit 1; }
missing=$(printf '%s\n' "$exported" | grep -vxF "$table" || true)
extra=$(printf '%s\n' "$table" | grep -vxF "$exported" || true)
[ -z "$missing" ] || echo "FAIL: exported but not in test_abuse's table: $(echo $missing)"
[ -z "$extra" ] || echo "FAIL: in test_abuse's table but not exported: $(echo $extra)"
[ -z "$missing$extra" ] || exit 1
echo "PASS: $(printf '%s\n' "$exported" | wc -l) exported functions, each in the table"

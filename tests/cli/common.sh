# SPDX-License-Identifier: MIT
# tests/cli/common.sh - helpers sourced by the CLI test scripts (POSIX sh).
# Every script is run as: sh SCRIPT /path/to/minifloat /scratch/dir [extra]
MF=${1:?usage: sh script.sh MINIFLOAT WORKDIR}
WORK=${2:?usage: sh script.sh MINIFLOAT WORKDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
FAILS=0
CHECKS=0

fail() { printf 'FAIL: %s\n' "$*" >&2; FAILS=$((FAILS + 1)); }
pass() { CHECKS=$((CHECKS + 1)); }

# Finish: nonzero exit if anything failed, or if nothing was checked at all.
finish() {
    if [ "$FAILS" -ne 0 ]; then
        printf '%d of %d checks failed\n' "$FAILS" "$((CHECKS + FAILS))" >&2
        exit 1
    fi
    if [ "$CHECKS" -lt "${1:-1}" ]; then
        printf 'only %d checks ran, expected at least %d\n' "$CHECKS" "${1:-1}" >&2
        exit 1
    fi
    printf '%d checks passed\n' "$CHECKS"
    exit 0
}

# run CMD...: stdout to $WORK/out, stderr to $WORK/err, exit status in $RC.
run() { "$@" >"$WORK/out" 2>"$WORK/err"; RC=$?; }

# expect_rc WANT WHAT: check $RC.
expect_rc() {
    if [ "$RC" -eq "$1" ]; then pass; else fail "$2: exit status $RC, want $1 (stderr: $(head -c 300 "$WORK/err"))"; fi
}

# expect_grep FILE ERE WHAT: FILE has a line matching ERE.
expect_grep() {
    if grep -Eq -- "$2" "$1"; then pass; else fail "$3: no line matching /$2/ in $(basename "$1")"; fi
}

# table_row LABEL V1 V2 ...: the last `run` printed a line that is exactly LABEL and these cells,
# separated by spaces (a row of `minifloat analyze`'s tables); $WHAT names the check.
table_row() {
    _label=$1
    shift
    _re="^$_label"
    for _v in "$@"; do _re="$_re +$_v"; done
    expect_grep "$WORK/out" "$_re\$" "$WHAT: row '$_label'"
}

# same FILE1 FILE2 WHAT: byte-identical files.
same() {
    if cmp -s "$1" "$2"; then pass; else fail "$3: $(basename "$1") and $(basename "$2") differ"; fi
}

# bytes FILE: the file's bytes as lower-case hex separated by single spaces.
bytes() { od -An -v -tx1 "$1" | tr -s ' \n' '  ' | sed 's/^ *//; s/ *$//'; }

# Raw arrays are in the host's byte order; the hand-written byte vectors assume little-endian.
little_endian() { [ "$(printf '\001\000' | od -An -tx2 | tr -d ' \n')" = 0001 ]; }

# vectors WHAT CONVERT-OPTIONS... <<EOF  with lines "input expected  # why":
# the inputs go through `minifloat convert OPTIONS` one per line; the output must be the expected column.
vectors() {
    what=$1
    shift
    sed 's/#.*//' | awk -v fin="$WORK/vin" -v fwant="$WORK/vwant" 'NF >= 2 { print $1 > fin; print $2 > fwant }'
    n=$(wc -l <"$WORK/vin")
    if [ "$n" -lt 1 ]; then
        fail "$what: no vectors"
        return
    fi
    "$MF" convert "$@" <"$WORK/vin" >"$WORK/vgot" 2>"$WORK/verr"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "$what: exit status $rc ($(cat "$WORK/verr"))"
    elif diff -u "$WORK/vwant" "$WORK/vgot" >"$WORK/vdiff"; then
        CHECKS=$((CHECKS + n))
    else
        fail "$what: output differs (want, got):"
        cat "$WORK/vdiff" >&2
    fi
}

"""The ctypes structs against the C headers: compile a program that prints sizeof/offsetof of every field of every
struct minifloat._lib mirrors (and the constants it copies), and compare. Skips where there is no C compiler or no
headers (an installed package tested outside the repository)."""

import ctypes
import os
import shutil
import subprocess

import pytest

from minifloat import _lib

INCLUDE = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "include"))


def _program(skip=frozenset()) -> str:
    lines = ["#include <stdio.h>", "#include <stddef.h>", "#include <minifloat.h>", "#include <minifloat/lab.h>",
             "int main(void) {"]
    for s in _lib.STRUCTS:
        name = s.__name__
        lines.append(f'    printf("{name} %zu\\n", sizeof({name}));')
        for field, *_ in s._fields_:
            if (name, field) not in skip:
                lines.append(f'    printf("{name}.{field} %zu\\n", offsetof({name}, {field}));')
    enums = ["mf_format", "mf_round", "mf_overflow", "mf_mx_type", "mf_accum", "mf_gemm_scale_kind"]
    if not skip:
        enums.append("mf_profile")
    for enum in enums:
        lines.append(f'    printf("enum {enum} %zu\\n", sizeof({enum}));')
    for const in ["MF_ANALYZE_HIST_MIN", "MF_ANALYZE_HIST_BINS", "MF_FP8_HISTORY_MAX", "MF_MX_BLOCK",
                  "MF_NVFP4_BLOCK"]:
        lines.append(f'    printf("const {const} %ld\\n", (long)({const}));')
    lines += ["    return 0;", "}"]
    return "\n".join(lines) + "\n"


def test_structs_match_the_headers(tmp_path):
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        pytest.skip("no C compiler")
    if not os.path.exists(os.path.join(INCLUDE, "minifloat.h")):
        pytest.skip(f"headers not found at {INCLUDE}")
    src = tmp_path / "abi.c"
    exe = tmp_path / "abi"
    def build(skip):
        src.write_text(_program(skip))
        return subprocess.run([cc, "-std=c99", "-I", INCLUDE, str(src), "-o", str(exe)], capture_output=True,
                              text=True)

    absent = frozenset()
    r = build(absent)
    if r.returncode != 0:  # headers from before the trailing fields the binding already knows
        absent = frozenset(_lib.LATER_FIELDS)
        r = build(absent)
    assert r.returncode == 0, r.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    c = {}
    for line in out.splitlines():
        key, value = line.rsplit(" ", 1)
        c[key] = int(value)
    mismatches = []
    for s in _lib.STRUCTS:
        name = s.__name__
        later = any(n == name for n, _ in absent)
        # a struct whose later trailing fields these headers lack may only be shorter in C
        if ctypes.sizeof(s) != c[name] and not (later and c[name] <= ctypes.sizeof(s)):
            mismatches.append(f"sizeof({name}): ctypes {ctypes.sizeof(s)}, C {c[name]}")
        for field, *_ in s._fields_:
            if (name, field) in absent:
                continue
            off = getattr(s, field).offset
            if off != c[f"{name}.{field}"]:
                mismatches.append(f"offsetof({name}, {field}): ctypes {off}, C {c[name + '.' + field]}")
    for key, value in c.items():
        if key.startswith("enum "):
            if value != ctypes.sizeof(ctypes.c_int):
                mismatches.append(f"{key} is {value} bytes, bound as int")
    consts = {"MF_ANALYZE_HIST_MIN": _lib.MF_ANALYZE_HIST_MIN, "MF_ANALYZE_HIST_BINS": _lib.MF_ANALYZE_HIST_BINS,
              "MF_FP8_HISTORY_MAX": _lib.MF_FP8_HISTORY_MAX, "MF_MX_BLOCK": 32, "MF_NVFP4_BLOCK": 16}
    for k, v in consts.items():
        if c[f"const {k}"] != v:
            mismatches.append(f"{k}: Python {v}, C {c['const ' + k]}")
    assert not mismatches, "\n".join(mismatches)

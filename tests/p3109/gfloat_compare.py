#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare minifloat's P3109 conversions with gfloat's (run by hand; docs/formats.md, "IEEE P3109").

    python3 -m venv /tmp/gfvenv && /tmp/gfvenv/bin/pip install gfloat numpy
    /tmp/gfvenv/bin/python tests/p3109/gfloat_compare.py build/libminifloat.so
    /tmp/gfvenv/bin/python tests/p3109/gfloat_compare.py build/libminifloat.so --family

--family compares the whole family of K = 3 ... 12 by its parameters (minifloat/p3109_family.h) instead of the
rows: binary32 inputs (the values, the midpoints where binary32 holds them, one binary32 ulp either side, random
values) through mf_p3109_convert_from_f32.

For every P3109 format both know, every deterministic mode both have (rz ru rd rn rna; stochastic rounding
is not compared: mf_convert draws its bits from Philox, which this script does not reproduce) and both saturation flags (gfloat sat=True <-> SatFinite, sat=False <->
SatNone), binary64 inputs near every code (the value, the midpoints, one ulp either side), +-0, +-inf, NaN and
random values are converted by minifloat's mf_convert (f64 source) and by gfloat's round_float + encode_float.
Differences are grouped by a reason; the script prints counts and one example per group, and exits 0.
gfloat follows an older draft than minifloat: its differences are documented, not errors.
"""
import ctypes
import math
import random
import sys
from collections import defaultdict

import numpy as np
import gfloat
from gfloat.formats import format_info_p3109
from gfloat.types import Domain, RoundMode, Signedness

MF_ROUNDS = {"rn": 0, "rna": 1, "rz": 2, "ru": 3, "rd": 4}
GF_ROUNDS = {"rn": RoundMode.TiesToEven, "rna": RoundMode.TiesToAway, "rz": RoundMode.TowardZero,
             "ru": RoundMode.TowardPositive, "rd": RoundMode.TowardNegative}
MF_FP64 = 9


class Member(ctypes.Structure):
    _fields_ = [("k", ctypes.c_int), ("p", ctypes.c_int), ("is_signed", ctypes.c_int), ("extended", ctypes.c_int)]


class Opts(ctypes.Structure):
    _fields_ = [("round", ctypes.c_int), ("overflow", ctypes.c_int), ("seed", ctypes.c_uint64),
                ("sr_offset", ctypes.c_uint64), ("stats", ctypes.c_void_p), ("threads", ctypes.c_int),
                ("profile", ctypes.c_int)]


def main():
    lib = ctypes.CDLL(sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "build/libminifloat.so")
    family = "--family" in sys.argv
    lib.mf_format_from_name.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
    lib.mf_convert.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
                               ctypes.POINTER(Opts)]
    lib.mf_p3109_convert_from_f32.argtypes = [Member, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                              ctypes.POINTER(Opts)]
    if family:
        fmts = [(k, p, s, d) for k in range(3, 13) for s in (Signedness.Signed, Signedness.Unsigned)
                for p in range(1, k + (0 if s == Signedness.Signed else 1)) for d in (Domain.Extended, Domain.Finite)]
    else:
        fmts = [(8, p, s, d) for p in range(1, 9) for s in (Signedness.Signed, Signedness.Unsigned)
                for d in (Domain.Extended, Domain.Finite) if not (s == Signedness.Signed and p == 8)]
        fmts.append((4, 2, Signedness.Signed, Domain.Finite))
    rng = random.Random(3109)
    total, skipped = 0, []
    groups = defaultdict(lambda: [0, None, set()])
    for k, p, s, d in fmts:
        name = "binary%dp%d%s%s" % (k, p, "s" if s == Signedness.Signed else "u", "e" if d == Domain.Extended else "f")
        fi = format_info_p3109(k, p, s, d)
        try:
            vals = [gfloat.decode_float(fi, c).fval for c in range(2 ** k)]
        except OverflowError:  # gfloat decodes into binary64: members with values beyond it are left out
            skipped.append(name)
            continue
        fin = sorted({v for v in vals if math.isfinite(v)})
        xs = [0.0, -0.0, math.inf, -math.inf, math.nan]
        if family:
            f32 = lambda v: float(np.float32(v))
            for a, b in zip(fin, fin[1:]):
                for v in (a, (a + b) / 2):
                    if abs(v) < 3e38 and (v == 0 or abs(v) >= 1.5e-45) and f32(v) == v:
                        xs += [v, float(np.nextafter(np.float32(v), np.float32(math.inf))),
                               float(np.nextafter(np.float32(v), np.float32(-math.inf)))]
            xs += [f32(rng.choice([-1, 1]) * math.ldexp(rng.random(), rng.randint(-140, 125))) for _ in range(2000)]
        else:
            for a, b in zip(fin, fin[1:]):
                for v in (a, (a + b) / 2):
                    xs += [v, np.nextafter(v, math.inf), np.nextafter(v, -math.inf)]
            top = fin[-1]
            xs += [top * 1.0625, top * 1.125, top * 2, -top * 2, 1e300, -1e300]
            xs += [rng.choice([-1, 1]) * math.ldexp(rng.random(), rng.randint(-140, 140)) for _ in range(2000)]
        xs = [float(x) for x in xs]
        n = len(xs)
        if family:
            member = Member(k, p, 1 if s == Signedness.Signed else 0, 1 if d == Domain.Extended else 0)
            src = (ctypes.c_float * n)(*xs)
            out = ((ctypes.c_uint16 if k > 8 else ctypes.c_uint8) * n)()
        else:
            code = ctypes.c_int()
            if lib.mf_format_from_name(name.encode(), ctypes.byref(code)) != 0:
                raise SystemExit("minifloat lacks " + name)
            src = (ctypes.c_double * n)(*xs)
            out = (ctypes.c_uint8 * n)()
        for mode in MF_ROUNDS:
            for sat in (False, True):
                o = Opts(MF_ROUNDS[mode], 1 if sat else 0, 0, 0, None, 1, 0)
                rc = (lib.mf_p3109_convert_from_f32(member, out, src, n, ctypes.byref(o)) if family
                      else lib.mf_convert(code.value, out, MF_FP64, src, n, ctypes.byref(o)))
                if rc != 0:
                    raise SystemExit("conversion failed: %d" % rc)
                if k == 4 and not family:
                    mine = [(out[i // 2] >> (4 * (i % 2))) & 0xF for i in range(n)]
                else:
                    mine = list(out[:n])
                for i, x in enumerate(xs):
                    try:
                        r = gfloat.round_float(fi, x, GF_ROUNDS[mode], sat, 0, 0)
                        gc = gfloat.encode_float(fi, r)
                        err = None
                    except Exception as e:  # gfloat refuses some inputs
                        gc, err = None, type(e).__name__
                    total += 1
                    if gc == mine[i]:
                        continue
                    why = classify(fi, x, mode, sat, mine[i], gc, err, vals)
                    g = groups[why]
                    g[0] += 1
                    g[2].add(name)
                    if g[1] is None:
                        g[1] = "%s %s sat=%s x=%r: minifloat 0x%02x, gfloat %s" % (
                            name, mode, sat, x, mine[i], err or "0x%02x" % gc)
    print("compared %d conversions of %d formats (gfloat %s)" % (total, len(fmts) - len(skipped),
                                                              getattr(gfloat, "__version__", "?")))
    if skipped:
        print("left out (values beyond binary64, which gfloat decodes into): " + " ".join(skipped))
    for why, (cnt, ex, names) in sorted(groups.items(), key=lambda t: -t[1][0]):
        print("%7d  %s [%d formats]\n         e.g. %s" % (cnt, why, len(names), ex))


def classify(fi, x, mode, sat, mine, gc, err, vals):
    neg = math.copysign(1, x) < 0 and x != 0
    mv = vals[mine] if mine < len(vals) else None
    if err:
        return "gfloat raises %s (%s)" % (err, "negative into unsigned" if neg and not fi.is_signed else "other")
    if not fi.is_signed and neg:
        return "negative into an unsigned format, %s: minifloat %s, gfloat %s" % (
            "SatFinite" if sat else "SatNone", describe(mv), describe(vals[gc]))
    if math.isinf(x):
        return "infinity input"
    if mode == "rna" and mv is not None and math.isfinite(mv) and abs(vals[gc]) > abs(mv):
        return "rna just below a tie: gfloat rounds away (its delta + 0.5 >= 1 is computed in binary64)"
    if mv is not None and math.isnan(mv) and gc is not None and not math.isnan(vals[gc]):
        return "out of range: minifloat NaN (SatNone, finite format), gfloat finite"
    return "other"


def describe(v):
    if v is None or math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "inf"
    return "0" if v == 0 else "finite"


if __name__ == "__main__":
    main()

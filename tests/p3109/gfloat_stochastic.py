#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare minifloat's StochasticA, B and C (mf_p3109_from_f64_sr) with gfloat's stochastic modes (run by hand;
docs/formats.md, "IEEE P3109").

    python3 -m venv /tmp/gfvenv && /tmp/gfvenv/bin/pip install gfloat numpy
    /tmp/gfvenv/bin/python tests/p3109/gfloat_stochastic.py

mf_p3109_from_f64_sr is inline (no library symbol), so the script compiles a two-line shim against include/ with
cc. gfloat 0.5.2's modes are the report's three: StochasticFastest (nu + R 2^-N >= 1) is A, StochasticFast
(nu + (R + 1/2) 2^-N >= 1) is B and Stochastic (RNE(nu 2^N) + R >= 2^N) is C. Every member with K = 3 ... 8
(unsigned ones on non-negative values: gfloat's handling of negative values into them follows an older draft),
N = 1, 2, 3, 5, 8 and 13, every R for N <= 2 and 6 random R above, both saturations (gfloat sat=True <->
SatFinite, sat=False <-> SatNone), on 250 values a member (and their negatives in signed members) drawn from every
code's value, the points a quarter, half and three quarters of a step above it, their binary64 neighbours and
random values. A difference where the rule evaluated in rationals gives minifloat's code is counted as gfloat's
(it forms nu + R 2^-N for A and B in binary64, which rounds a sum just below 1 up); any other is printed.
"""
import bisect
import ctypes
import importlib.metadata
import math
from fractions import Fraction
import os
import random
import subprocess
import sys
import tempfile

import gfloat
from gfloat.formats import format_info_p3109
from gfloat.types import Domain, RoundMode, Signedness

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHIM = r"""
#include <minifloat.h>
uint32_t shim_sr(int k, int p, int s, int e, double x, int kind, int n, uint32_t r, int sat)
{
    const mf_p3109 f = {k, p, s, e};
    return mf_p3109_from_f64_sr(f, x, (mf_p3109_stochastic)kind, n, r, sat ? MF_OVERFLOW_SATURATE : MF_OVERFLOW_IEEE);
}
"""
GF_KINDS = [RoundMode.StochasticFastest, RoundMode.StochasticFast, RoundMode.Stochastic]  # A, B, C


def shim():
    d = tempfile.mkdtemp()
    src, so = os.path.join(d, "shim.c"), os.path.join(d, "shim.so")
    with open(src, "w") as f:
        f.write(SHIM)
    subprocess.check_call(["cc", "-O2", "-shared", "-fPIC", "-I" + os.path.join(ROOT, "include"), src, "-o", so])
    lib = ctypes.CDLL(so)
    lib.shim_sr.argtypes = [ctypes.c_int] * 4 + [ctypes.c_double, ctypes.c_int, ctypes.c_int, ctypes.c_uint32,
                                                   ctypes.c_int]
    lib.shim_sr.restype = ctypes.c_uint32
    return lib


def exact_up(fin, x, kind, n, r):
    """The report's rule evaluated in rationals: does |x| go up from the value below it? None beyond max."""
    a = Fraction(abs(x))
    i = bisect.bisect_right(fin, abs(x)) - 1
    if i + 1 >= len(fin):
        return None
    lo, hi = Fraction(fin[i]), Fraction(fin[i + 1])
    nu = (a - lo) / (hi - lo)
    if nu == 0:
        return False
    if kind == 0:
        return math.floor(nu * 2 ** n) + r >= 2 ** n
    if kind == 1:
        return math.floor(nu * 2 ** (n + 1)) + 2 * r + 1 >= 2 ** (n + 1)
    t = nu * 2 ** n
    f = math.floor(t)
    rne = f + (1 if t - f > Fraction(1, 2) or (t - f == Fraction(1, 2) and f % 2) else 0)
    return rne + r >= 2 ** n


def main():
    lib = shim()
    groups = {}
    rng = random.Random(3109)
    total, bad = 0, 0
    for k in range(3, 9):
        for signed in (True, False):
            for p in range(1, k if signed else k + 1):
                for ext in (True, False):
                    fi = format_info_p3109(k, p, Signedness.Signed if signed else Signedness.Unsigned,
                                           Domain.Extended if ext else Domain.Finite)
                    vals = sorted({gfloat.decode_float(fi, c).fval for c in range(2 ** k)} - {math.inf, -math.inf},
                                  key=lambda v: (math.isnan(v), v))
                    fin = [v for v in vals if math.isfinite(v) and v >= 0]
                    xs = []
                    for a, b in zip(fin, fin[1:] + [fin[-1] * 2]):
                        for t in (0.0, 0.25, 0.5, 0.75):
                            x = a + (b - a) * t
                            xs += [x, math.nextafter(x, 0), math.nextafter(x, math.inf)]
                    xs += [rng.uniform(0, fin[-1] * 1.2) for _ in range(200)]
                    xs = rng.sample(xs, min(len(xs), 250))
                    if signed:
                        xs += [-x for x in xs]
                    for n in (1, 2, 3, 5, 8, 13):
                        rs = range(2 ** n) if n <= 2 else [rng.randrange(2 ** n) for _ in range(6)]
                        for r in rs:
                            for kind in range(3):
                                for sat in (False, True):
                                    for x in xs:
                                        mine = lib.shim_sr(k, p, int(signed), int(ext), x, kind, n, r, int(sat))
                                        g = gfloat.encode_float(fi, gfloat.round_float(fi, x, GF_KINDS[kind], sat,
                                                                                       r, n))
                                        total += 1
                                        if mine != g:
                                            up = exact_up(fin, x, kind, n, r)
                                            mine_up = abs(gfloat.decode_float(fi, mine).fval) > abs(
                                                gfloat.decode_float(fi, g).fval)
                                            if up is not None and up == mine_up:
                                                # gfloat adds nu + R 2^-N (A, B) in binary64, which rounds a sum
                                                # just below 1 up to 1: the rule computed exactly is minifloat's
                                                why = "gfloat's binary64 sum nu + R 2^-N rounds up (%s)" % "ABC"[kind]
                                                groups[why] = groups.get(why, 0) + 1
                                                continue
                                            bad += 1
                                            if bad <= 20:
                                                print("binary%dp%d%s%s %r %s N=%d R=%d sat=%s: minifloat 0x%x, "
                                                      "gfloat 0x%x" % (k, p, "s" if signed else "u",
                                                                       "e" if ext else "f", x, "ABC"[kind], n, r,
                                                                       sat, mine, g))
    print("compared %d stochastic roundings (gfloat %s): %d differ otherwise" % (
        total, importlib.metadata.version("gfloat"), bad))
    for why, cnt in sorted(groups.items()):
        print("%8d  %s" % (cnt, why))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

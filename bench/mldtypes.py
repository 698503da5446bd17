#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/mldtypes.py - numpy + ml_dtypes timings for bench/convert, on the same kind of data.

usage: mldtypes.py [--quick] N [N ...]
prints one line per (conversion, n): conversion,n,ns_per_elem (median of 7 repetitions); prints
nothing if numpy or ml_dtypes cannot be imported.
"""
import sys
import time

try:
    import ml_dtypes
    import numpy as np
except ImportError:
    sys.exit(0)

quick = "--quick" in sys.argv
sizes = [int(a) for a in sys.argv[1:] if a != "--quick"]
rng = np.random.default_rng(1)
TYPES = {
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "e4m3": ml_dtypes.float8_e4m3fn,
    "e5m2": ml_dtypes.float8_e5m2,
    "e2m1": ml_dtypes.float4_e2m1fn,
}


def median_ns(fn, n, min_seconds):
    fn()
    iters = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        if time.perf_counter() - t0 >= min_seconds / 4 or iters > 1 << 20:
            break
        iters *= 2
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        times.append((time.perf_counter() - t0) / iters / n * 1e9)
    return sorted(times)[3]


for n in sizes:
    x = (rng.standard_normal(n) * np.exp2(rng.integers(-12, 12, n))).astype(np.float32)
    min_s = 0.002 if quick else (0.2 if n > 1000000 else 0.05)
    for tag, t in TYPES.items():
        y = x.astype(t)
        out_n = np.empty(n, dtype=t)
        out_f = np.empty(n, dtype=np.float32)
        to = median_ns(lambda: np.copyto(out_n, x, casting="unsafe"), n, min_s)
        frm = median_ns(lambda: np.copyto(out_f, y, casting="unsafe"), n, min_s)
        print(f"f32->{tag},{n},{to:.4f}")
        print(f"{tag}->f32,{n},{frm:.4f}")
        sys.stdout.flush()

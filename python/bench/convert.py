"""Time minifloat's Python calls against ml_dtypes / numpy `astype`, in one process on one thread.

    python python/bench/convert.py                 # Markdown tables on stdout (docs/perf/*-python.md)
    python python/bench/convert.py --reps 7 --n 4096 --big 1000000

Rows: at n elements (default 4096) every conversion f32 -> fmt and decode fmt -> f32 of f16, bf16, e4m3, e5m2 and
e2m1, minifloat (a new result array, and out= into a preallocated one) against `astype` to the ml_dtypes / numpy
dtype; a one-element call; at the big n (default 1e6) convert under profile="ml_dtypes" and profile="torch" against
the default profile. Each figure is the median of --reps runs of µs per call; a run times enough calls to last
about 1 ms (short runs are less often interrupted on a shared machine). minifloat and astype runs alternate, so
both see the same machine. Cells show the median and, in parentheses, the best run (ratios: of the medians, and of
the best runs).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

import minifloat as mf

try:
    import ml_dtypes
except ImportError:  # pragma: no cover
    sys.exit("the bench compares against ml_dtypes: pip install ml_dtypes")

FORMATS = {
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "e4m3": np.dtype(ml_dtypes.float8_e4m3fn),
    "e5m2": np.dtype(ml_dtypes.float8_e5m2),
    "e2m1": np.dtype(ml_dtypes.float4_e2m1fn),
}


def _per_call(fn, target_s: float = 0.001) -> int:
    """How many calls make one run last about target_s."""
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        dt = time.perf_counter() - t0
        if dt >= target_s / 4 or number >= 1 << 20:
            return max(1, int(number * target_s / max(dt, 1e-9)))
        number *= 4


def _run(fn, number: int) -> float:
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t0) / number * 1e6


class Time(float):
    """The median µs per call of the runs (the float) and the best run (.best)."""

    best: float

    def __new__(cls, runs: list):
        t = super().__new__(cls, statistics.median(runs))
        t.best = min(runs)
        return t

    def __format__(self, spec: str) -> str:
        return f"{float(self):{spec}} ({self.best:{spec}})"


def timed(fns: list, reps: int) -> list:
    """Time per call of each function (Time: median and best run), runs interleaved (f1 f2 ... f1 f2 ...)."""
    numbers = [_per_call(f) for f in fns]
    for f, number in zip(fns, numbers):  # warm up (caches, branch predictors, the CPU's clock)
        _run(f, number)
    runs = [[] for _ in fns]
    for _ in range(reps):
        for i, f in enumerate(fns):
            runs[i].append(_run(f, numbers[i]))
    return [Time(r) for r in runs]


def ratio(a: float, b: float) -> str:
    """a / b of the medians, and of the best runs in parentheses."""
    best = f" ({a.best / b.best:.2f}x)" if isinstance(a, Time) and isinstance(b, Time) else ""
    return f"{a / b:.2f}x{best}"


def same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    return a.tobytes() == b.tobytes()


def _table(title: str, columns: list) -> list:
    return [f"### {title}", "", "| " + " | ".join(columns) + " |", "|---|" + "---:|" * (len(columns) - 1)]


def _normal(n: int, seed: int) -> np.ndarray:
    """n f32 values, normal with sigma 4: every format rounds most of them, a few overflow e2m1."""
    return (np.random.default_rng(seed).standard_normal(n) * 4).astype(np.float32)


def bench_4096(n: int, reps: int) -> list:
    x = _normal(n, 1)
    lines = _table(f"n = {n}: minifloat against `astype`",
                   ["call", "minifloat µs", "minifloat out= µs", "astype µs", "astype / minifloat", "astype / out="])
    for fmt, dt in FORMATS.items():
        q = x.astype(dt)
        assert same_bytes(mf.convert(x, fmt), q), f"f32 -> {fmt}: minifloat and astype differ"
        assert same_bytes(mf.decode(q), q.astype(np.float32)), f"{fmt} -> f32 differs"
        oq = np.empty(n, dt)
        of = np.empty(n, np.float32)
        t_mf, t_out, t_np = timed([lambda: mf.convert(x, fmt), lambda: mf.convert(x, fmt, out=oq),
                                   lambda: x.astype(dt)], reps)
        lines.append(f"| convert f32 -> {fmt} | {t_mf:.2f} | {t_out:.2f} | {t_np:.2f} | {ratio(t_np, t_mf)} | "
                     f"{ratio(t_np, t_out)} |")
        t_mf, t_out, t_np = timed([lambda: mf.decode(q), lambda: mf.decode(q, out=of),
                                   lambda: q.astype(np.float32)], reps)
        lines.append(f"| decode {fmt} -> f32 | {t_mf:.2f} | {t_out:.2f} | {t_np:.2f} | {ratio(t_np, t_mf)} | "
                     f"{ratio(t_np, t_out)} |")
    return lines


def bench_one(reps: int) -> list:
    x = np.array([1.5], np.float32)
    lines = _table("One element", ["call", "minifloat µs", "astype µs"])
    for fmt in ("e4m3", "bf16"):
        dt = FORMATS[fmt]
        q = x.astype(dt)
        t_mf, t_np = timed([lambda: mf.convert(x, fmt), lambda: x.astype(dt)], reps)
        lines.append(f"| convert f32 -> {fmt} | {t_mf:.2f} | {t_np:.2f} |")
        t_mf, t_np = timed([lambda: mf.decode(q), lambda: q.astype(np.float32)], reps)
        lines.append(f"| decode {fmt} -> f32 | {t_mf:.2f} | {t_np:.2f} |")
    return lines


def bench_profiles(n: int, reps: int) -> list:
    x = _normal(n, 2)
    lines = _table(f"n = {n}: profiles against the default profile",
                   ["call", "default µs", "ml_dtypes µs", "torch µs", "default / ml_dtypes", "default / torch"])
    for fmt in FORMATS:
        fns = [lambda: mf.convert(x, fmt)]
        names = ["default"]
        for p in ("ml_dtypes", "torch"):
            try:
                mf.convert(x[:8], fmt, profile=p)
                fns.append(lambda p=p: mf.convert(x, fmt, profile=p))
                names.append(p)
            except mf.Error:
                fns.append(None)
                names.append(None)
        times = timed([f for f in fns if f is not None], reps)
        it = iter(times)
        t = [next(it) if f is not None else None for f in fns]
        cell = [f"{v:.0f}" if v is not None else "n/a" for v in t]  # median (best)
        rel = [ratio(t[0], v) if v is not None else "n/a" for v in t[1:]]
        lines.append(f"| convert f32 -> {fmt} | {cell[0]} | {cell[1]} | {cell[2]} | {rel[0]} | {rel[1]} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--big", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--skip-profiles", action="store_true")
    args = ap.parse_args()
    native = "extension module" if mf._native is not None else f"ctypes ({mf._lib.native_error})"
    print(f"minifloat {mf.version()} ({native}, backend {mf.backend()}), numpy {np.__version__}, "
          f"ml_dtypes {ml_dtypes.__version__}, Python {platform.python_version()}, one thread, "
          f"median of {args.reps} runs, µs per call, load average {os.getloadavg()[0]:.1f} at the start")
    print()
    out = bench_4096(args.n, args.reps) + [""] + bench_one(args.reps)
    if not args.skip_profiles:
        out += [""] + bench_profiles(args.big, args.reps)
    print("\n".join(out))


if __name__ == "__main__":
    main()

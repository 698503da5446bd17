#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/report.py - turn bench/convert's CSV (stdin) into the Markdown tables of docs/performance.md.

usage: build/bench/convert | python3 bench/report.py
One table per size class: minifloat's backends in G elements/s, then each baseline as a ratio to the
best backend (a baseline at 0.05x is 20 times slower than minifloat; the raw instruction loop at
1.30x is 30% faster). For DRAM, bytes/s (read + written) are shown against memcpy's.
"""
import csv
import sys
from collections import OrderedDict

rows = [r for r in csv.reader(sys.stdin) if r and not r[0].startswith("#")]
header, rows = rows[0], rows[1:]
groups = OrderedDict()
for conv, mode, size, impl, n, ns, ge, gb, vs in rows:
    groups.setdefault(size, OrderedDict()).setdefault((conv, mode), {})[impl] = (float(ge), float(gb), float(vs))

backends = ["minifloat-avx512bf16", "minifloat-avx512", "minifloat-avx2", "minifloat-portable"]
baselines = ["raw-instruction", "memcpy", "nvidia-host", "fp16-maratyszcza", "numpy-ml_dtypes"]
for size, cases in groups.items():
    n = next(iter(next(iter(cases.values())).values()))
    print(f"\n### {size}\n")
    cols = [r.replace("minifloat-", "") for r in backends] + [b + " (x)" for b in baselines]
    if size == "DRAM":
        cols.append("GB/s ours / memcpy")
    print("| conversion | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for (conv, mode), impls in cases.items():
        cells = []
        for r in backends:
            cells.append(f"{impls[r][0]:.2f}" if r in impls else "-")
        for b in baselines:
            cells.append(f"{impls[b][2]:.2f}" if b in impls else "-")
        if size == "DRAM":
            best = max((v for k, v in impls.items() if k.startswith("minifloat")), key=lambda v: v[0])
            mc = impls.get("memcpy")
            cells.append(f"{best[1]:.1f} / {mc[1]:.1f} = {best[1] / mc[1]:.2f}" if mc else "-")
        name = conv + ("" if mode == "-" else " " + mode)
        print(f"| {name} | " + " | ".join(cells) + " |")

#!/usr/bin/env python3
"""Where minifloat's default semantics differ from another system's casts, input by input, as Markdown.

For each system (ml_dtypes, torch, onnx) and each format it has, this compares the system's cast with
minifloat.convert(x, fmt, profile="default", round="rn", saturate=<the system's policy>) over every binary32 input
(or --sample / --quick: the tiers of compat.py, beside this script), over about a million f64 inputs near ties for systems
that round f64 through f32 (PyTorch), and the decoding of every code. Each differing input is classified (NaN input
by sign, +inf, -inf, finite overflow by sign, -0, subnormal input, negative underflow to zero, other finite) with a
count and one example. The output is one Markdown table per system and kind, for docs/compat.md.

    python python/tools/compat_report.py --system ml_dtypes --sample
    python python/tools/compat_report.py --system all > compat.md      # every f32 input: minutes per format
"""

from __future__ import annotations

import argparse
import sys
import time

import minifloat as mf
import compat  # python/tools/compat.py, beside this script


def _hexw(v: int, digits: int) -> str:
    return f"0x{int(v):0{digits}x}"


def _code_digits(fmt: str) -> int:
    return 4 if mf.finfo(fmt).bits > 8 else 2


def _cast_rows(res: compat.Comparison) -> list:
    t = res.target
    opts = f"{t.round}, {'sat' if t.saturate else 'ieee'}"
    head = [t.fmt, f"`{t.label}`", opts, f"{res.inputs:,}", f"{res.differ:,}"]
    if not res.differ:
        return ["| " + " | ".join(head + ["—", "", ""]) + " |"]
    in_digits = 16 if res.source == "f64" else 8
    cd = _code_digits(t.fmt)
    rows = []
    for i, (name, cc) in enumerate(res.classes.items()):
        x, s, m = cc.example
        ex = f"{_hexw(x, in_digits)} → {_hexw(s, cd)} / {_hexw(m, cd)}"
        cells = (head if i == 0 else [""] * len(head)) + [name, f"{cc.count:,}", ex]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def _decode_rows(res: compat.Comparison) -> list:
    t = res.target
    head = [t.fmt, f"`{t.label.split(',')[0]}`", f"{res.inputs:,}", f"{res.differ:,}"]  # decoding has no options
    if not res.differ:
        return ["| " + " | ".join(head + ["—", "", ""]) + " |"]
    cd = _code_digits(t.fmt)
    rows = []
    for i, (name, cc) in enumerate(res.classes.items()):
        c, s, m = cc.example
        ex = f"{_hexw(c, cd)} → {_hexw(s, 8)} / {_hexw(m, 8)}"
        cells = (head if i == 0 else [""] * len(head)) + [name, f"{cc.count:,}", ex]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def report_system(name: str, tier: str, formats: list | None, f64: bool, workers: int, log) -> str:
    system = compat.get_system(name)
    out = [f"### {name}", ""]
    if not system.available:
        out += [f"Skipped: {system.reason}.", ""]
        log(f"{name}: skipped ({system.reason})")
        return "\n".join(out)
    targets = [t for t in system.targets if not formats or t.fmt in formats]
    what = {"all": "every binary32 input (2^32)",
            "sample": f"the sample tier (boundary fields, every NaN and f32 subnormal, daily 1/64 shard "
                      f"{compat.day_shard(compat.SHARDS)})",
            "quick": f"the quick tier (critical fields, pattern classes, daily 1/4096 shard "
                     f"{compat.day_shard(4096)})"}[tier]
    out += [f"{system.version} against minifloat {mf.version()}'s default semantics (`profile=\"default\"`, the "
            f"system's rounding and overflow policy as minifloat's `round` and `saturate`). Inputs: {what}. "
            "Example: input bits → system code / minifloat code.", ""]
    header = ("| format | system type | minifloat round, overflow | inputs | differing | class | count | "
              "example |\n|---|---|---|---:|---:|---|---:|---|")
    out += ["Casts from f32:", "", header]
    total0 = time.perf_counter()
    for t in targets:
        res = compat.compare_casts(t, compat.input_specs(t.fmt, tier), "default", classify=True, workers=workers)
        log(f"{name} {t.label}: {res.inputs:,} f32 inputs in {res.seconds:.1f} s, {res.differ:,} differ")
        out += _cast_rows(res)
    out.append("")
    f64_targets = [t for t in targets if t.f64] if f64 else []
    if f64_targets:
        out += ["Casts from f64 (about a million doubles around the format's ties and f32 ties, both signs; the "
                "system rounds through f32, minifloat once):", "", header]
        for t in f64_targets:
            res = compat.compare_casts(t, [compat.f64_near_ties(t.fmt)], "default", source="f64", classify=True,
                                       workers=1)
            log(f"{name} {t.label}: {res.inputs:,} f64 inputs in {res.seconds:.1f} s, {res.differ:,} differ")
            out += _cast_rows(res)
        out.append("")
    out += ["Decoding every code to f32 (bits compared; example: code → system f32 bits / minifloat f32 bits):", "",
            "| format | system type | codes | differing | class | count | example |",
            "|---|---|---:|---:|---|---:|---|"]
    seen = set()
    for t in targets:
        if t.decode is None or t.fmt in seen:
            continue
        seen.add(t.fmt)
        res = compat.compare_decode(t, "default", classify=True)
        out += _decode_rows(res)
    out.append("")
    log(f"{name}: {time.perf_counter() - total0:.0f} s")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--system", default="all", help="ml_dtypes, torch, onnx or all (default)")
    tier = ap.add_mutually_exclusive_group()
    tier.add_argument("--sample", action="store_const", const="sample", dest="tier",
                      help="the sample tier instead of every f32 input")
    tier.add_argument("--quick", action="store_const", const="quick", dest="tier", help="the quick tier")
    ap.add_argument("--formats", help="comma-separated minifloat tags (default: every format the system has)")
    ap.add_argument("--no-f64", action="store_true", help="skip the f64 comparison")
    ap.add_argument("--workers", type=int, default=None, help="processes (default: one per CPU)")
    ap.add_argument("--out", help="write the Markdown here instead of stdout")
    args = ap.parse_args(argv)
    names = list(compat.SYSTEMS) if args.system == "all" else args.system.split(",")
    for n in names:
        if n not in compat.SYSTEMS:
            ap.error(f"unknown system {n!r} ({', '.join(compat.SYSTEMS)})")
    formats = args.formats.split(",") if args.formats else None
    workers = compat.default_workers() if args.workers is None else args.workers

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    parts = [report_system(n, args.tier or "all", formats, not args.no_f64, workers, log) for n in names]
    text = "\n".join(parts)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

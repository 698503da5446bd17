"""Compare minifloat's conversions with other systems' casts, bit for bit.

Used by tests/test_conformance.py (minifloat under a system's profile must equal the system) and by
tools/compat_report.py (where minifloat's default semantics differ from a system, classified). A *system* is
ml_dtypes, PyTorch or ONNX's reference implementation; each lists its *targets*: a minifloat format, the system's
cast from f32 (and f64) to codes, its decoding of codes to f32, and the overflow policy the cast has.

Inputs are binary32 bit patterns (uint32) in chunks, in three tiers (`input_specs`): quick (the f32 exponent
fields where the format's boundaries lie, in full, every NaN/inf/zero/subnormal pattern class, a small daily
shard), sample (more fields in full, including all NaNs and subnormals, and a daily 1/64 shard) and all.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import time
from typing import Callable, List, Optional

import numpy as np

from minifloat import DTYPE_NAMES, Error, codes, convert, decode, format_of

# ---- systems ---------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Target:
    fmt: str  # minifloat format tag
    label: str  # the system's name for the type (and options), for reports
    cast: Callable[[np.ndarray], np.ndarray]  # f32 (or f64) values -> codes (uint8 / uint16, one per element)
    decode: Optional[Callable[[np.ndarray], np.ndarray]]  # codes -> f32 values; None: the system cannot
    saturate: bool  # the overflow policy of the cast, as minifloat's saturate flag
    round: str = "rn"  # the rounding of the cast, as minifloat's mode
    f64: bool = False  # compare f64 sources too (systems that round f64 through f32)
    system: str = ""  # the System's name (worker processes rebuild the target from it and the id)

    @property
    def id(self) -> str:
        extra = "" if self.round == "rn" else f"-{self.round}"
        return f"{self.fmt}-{'sat' if self.saturate else 'ieee'}{extra}"


@dataclasses.dataclass
class System:
    name: str  # also the minifloat profile name
    version: str
    targets: List[Target]
    reason: str = ""  # why it is unavailable (targets empty)

    @property
    def available(self) -> bool:
        return not self.reason


def _known(tag: str) -> bool:
    try:
        format_of(tag)
        return True
    except Error:
        return False


def _code_view(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint8) if a.dtype.itemsize == 1 else a.view(np.uint16)


def ml_dtypes_system() -> System:
    try:
        import ml_dtypes
    except ImportError as e:
        return System("ml_dtypes", "", [], f"ml_dtypes is not installed ({e})")
    targets = []
    for tag, dname in DTYPE_NAMES.items():
        if tag in ("f32", "f64") or not _known(tag):
            continue
        if dname == "float16":
            dt = np.dtype(np.float16)  # numpy's own float16 stands for f16 (the ml_dtypes profile follows it)
        elif hasattr(ml_dtypes, dname):
            dt = np.dtype(getattr(ml_dtypes, dname))
        else:
            continue  # an older ml_dtypes without this type

        def cast(x, dt=dt):
            with np.errstate(all="ignore"):
                return _code_view(x.astype(dt))

        def dec(c, dt=dt):
            return c.view(dt).astype(np.float32)

        targets.append(Target(tag, dname, cast, dec, saturate=False))
    return _named(System("ml_dtypes", f"ml_dtypes {ml_dtypes.__version__}, numpy {np.__version__}", targets))


def torch_system() -> System:
    try:
        import torch
    except Exception as e:  # ImportError, or a broken install's OSError
        return System("torch", "", [], f"PyTorch is not importable ({type(e).__name__}: {e})")
    names = {"f16": "float16", "bf16": "bfloat16", "e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2",
             "e4m3fnuz": "float8_e4m3fnuz", "e5m2fnuz": "float8_e5m2fnuz", "e8m0": "float8_e8m0fnu"}
    targets = []
    for tag, tname in names.items():
        tdt = getattr(torch, tname, None)
        if tdt is None or not _known(tag):
            continue
        wide = tdt.itemsize == 2

        def cast(x, tdt=tdt, wide=wide):
            y = torch.from_numpy(np.ascontiguousarray(x)).to(tdt)
            return y.view(torch.int16).numpy().view(np.uint16) if wide else y.view(torch.uint8).numpy()

        def dec(c, tdt=tdt, wide=wide):
            t = torch.from_numpy(c.view(np.int16) if wide else c.view(np.uint8))
            return t.view(tdt).to(torch.float32).numpy()

        targets.append(Target(tag, f"torch.{tname}", cast, dec, saturate=False, f64=True))
    return _named(System("torch", f"torch {torch.__version__}", targets))


def onnx_system() -> System:
    try:
        import onnx
        from onnx import TensorProto, helper
        from onnx.reference import ReferenceEvaluator
    except Exception as e:
        return System("onnx", "", [], f"onnx (with onnx.reference) is not importable ({type(e).__name__}: {e})")
    opset = onnx.defs.onnx_opset_version()

    def evaluator(src_type, dst_type, **attrs):
        node = helper.make_node("Cast", ["x"], ["y"], to=dst_type, **attrs)
        graph = helper.make_graph([node], "cast", [helper.make_tensor_value_info("x", src_type, None)],
                                  [helper.make_tensor_value_info("y", dst_type, None)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        return ReferenceEvaluator(model)

    def np_dtype(tp):
        return helper.tensor_dtype_to_np_dtype(tp)

    # (tag, TensorProto type, saturate settings the Cast has for it, round modes)
    table = [
        ("e4m3", "FLOAT8E4M3FN", (False, True), ("rn",)),
        ("e4m3fnuz", "FLOAT8E4M3FNUZ", (False, True), ("rn",)),
        ("e5m2", "FLOAT8E5M2", (False, True), ("rn",)),
        ("e5m2fnuz", "FLOAT8E5M2FNUZ", (False, True), ("rn",)),
        ("bf16", "BFLOAT16", (False,), ("rn",)),
        ("f16", "FLOAT16", (False,), ("rn",)),
        ("e2m1", "FLOAT4E2M1", (False,), ("rn",)),
        # Cast's round_mode (opset 24) applies to E8M0 only: nearest / up / down
        ("e8m0", "FLOAT8E8M0", (False, True), ("rn", "ru", "rd")),
    ]
    modes = {"rn": "nearest", "ru": "up", "rd": "down"}
    targets = []
    for tag, tpname, sats, rounds in table:
        tp = getattr(TensorProto, tpname, None)
        if tp is None or not _known(tag):
            continue
        for sat in sats:
            for rnd in rounds:
                attrs = {"saturate": int(sat)}
                if tpname == "FLOAT8E8M0":
                    if opset < 24:
                        continue
                    attrs["round_mode"] = modes[rnd]
                fwd = evaluator(TensorProto.FLOAT, tp, **attrs)
                back = evaluator(tp, TensorProto.FLOAT)
                dt = np.dtype(np_dtype(tp))

                def cast(x, fwd=fwd):
                    with np.errstate(all="ignore"):
                        return _code_view(np.asarray(fwd.run(None, {"x": x.astype(np.float32, copy=False)})[0]))

                def dec(c, back=back, dt=dt):
                    return np.asarray(back.run(None, {"x": c.view(dt)})[0], np.float32)

                label = f"{tpname}, saturate={int(sat)}" + (f", round_mode={modes[rnd]}" if "round_mode" in attrs else "")
                targets.append(Target(tag, label, cast, dec, saturate=sat, round=rnd))
    return _named(System("onnx", f"onnx {onnx.__version__} (reference, opset {opset})", targets))


def _named(system: System) -> System:
    for t in system.targets:
        t.system = system.name
    return system


SYSTEMS = {"ml_dtypes": ml_dtypes_system, "torch": torch_system, "onnx": onnx_system}
_SYSTEM_CACHE: dict = {}


def get_system(name: str) -> System:
    """The system (built once per process)."""
    if name not in _SYSTEM_CACHE:
        _SYSTEM_CACHE[name] = SYSTEMS[name]()
    return _SYSTEM_CACHE[name]


# ---- inputs ----------------------------------------------------------------------------------------------

CHUNK = 1 << 24  # inputs per chunk: 64 MiB of f32, a few tens of ms per cast
SHARDS = 64


def _exponents(fmt: str) -> tuple:
    info = format_of(fmt).info
    return (int(np.floor(np.log2(info.max))), int(np.floor(np.log2(info.min_normal))),
            int(np.floor(np.log2(info.min_subnormal))))


def _fields(exps) -> List[int]:
    return sorted({min(max(e + 127, 0), 255) for e in exps})


def critical_fields(fmt: str) -> List[int]:
    """The biased f32 exponent fields where fmt's three boundaries lie: the field of max (it holds the overflow
    threshold, max + half an ulp, and the first overflowing inputs), the field below min normal (the largest
    subnormals and the round-up to min normal) and the field below the smallest subnormal (round to zero or to
    the smallest subnormal; its bottom is the tie). Fields outside f32's finite range are clipped to 0 / 255."""
    e_max, e_minn, e_mins = _exponents(fmt)
    return _fields((e_max, e_minn - 1, e_mins - 1))


def boundary_fields(fmt: str) -> List[int]:
    """critical_fields with a neighbour each (the field above max, the field of min normal), plus field 0
    (zeros and f32 subnormals) and field 255 (inf and NaN)."""
    e_max, e_minn, e_mins = _exponents(fmt)
    return sorted(set(_fields((e_max, e_max + 1, e_minn - 1, e_minn, e_mins - 1, e_mins))) | {0, 255})


def field_specs(fields: List[int]) -> list:
    """Every f32 bit pattern with one of these exponent fields, both signs (2^24 inputs per field)."""
    return [("range", (sign << 31) | (e << 23), 1 << 23) for e in fields for sign in (0, 1)]


def special_patterns(seed: int = 0) -> np.ndarray:
    """Every NaN / inf / zero / f32-subnormal pattern class, both signs: +-0, +-inf; NaNs with each single payload
    bit, quiet and signalling, all-ones, alternating and 256 random payloads; subnormals likewise; and the f32
    extremes (FLT_MIN, FLT_MAX and their neighbours)."""
    rng = np.random.default_rng(seed)
    bits = [1 << i for i in range(23)]
    mant = np.array(bits + [b | 0x400000 for b in bits] + [0x7FFFFF, 0x3FFFFF, 0x400001, 0x7FFFFE, 0x555555,
                    0x2AAAAA, 0x600000, 0x200000], dtype=np.uint32)
    mant = np.concatenate([mant, rng.integers(1, 1 << 23, 256, dtype=np.uint32)])
    pos = np.concatenate([
        np.array([0x00000000, 0x7F800000, 0x00800000, 0x00800001, 0x7F7FFFFF, 0x7F7FFFFE], np.uint32),
        0x7F800000 | mant,  # NaNs
        mant,  # subnormals
    ])
    return np.unique(np.concatenate([pos, pos | np.uint32(0x80000000)]))


def day_shard(shards: int = SHARDS) -> int:
    """Which shard runs today (MINIFLOAT_CONFORMANCE_SHARD=k overrides)."""
    env = os.environ.get("MINIFLOAT_CONFORMANCE_SHARD")
    if env:
        return int(env) % shards
    return datetime.date.today().toordinal() % shards


def shard_specs(shard: int, shards: int = SHARDS, chunk_bits: int = 20, batch: int = 16) -> list:
    """Shard k of `shards`: the 2^chunk_bits-input chunks c of the 2^32 inputs with c % shards == k (contiguous
    runs spread over every exponent), `batch` chunks per spec."""
    starts = list(range(shard << chunk_bits, 1 << 32, shards << chunk_bits))
    return [("ranges", tuple(starts[i : i + batch]), 1 << chunk_bits) for i in range(0, len(starts), batch)]


def all_specs(chunk: int = CHUNK) -> list:
    """All 2^32 binary32 bit patterns in order."""
    return [("range", start, chunk) for start in range(0, 1 << 32, chunk)]


def materialize(spec) -> np.ndarray:
    """The inputs of a chunk spec: ("range", start, count), ("ranges", starts, count) or ("array", values); a bare
    array stands for itself."""
    if isinstance(spec, np.ndarray):
        return spec
    kind = spec[0]
    if kind == "range":
        return np.arange(spec[1], spec[1] + spec[2], dtype=np.uint64).astype(np.uint32)
    if kind == "ranges":
        starts = np.array(spec[1], np.uint64)
        return (starts[:, None] + np.arange(spec[2], dtype=np.uint64)[None, :]).astype(np.uint32).reshape(-1)
    return np.asarray(spec[1])


# The tiers of inputs (MINIFLOAT_CONFORMANCE=quick|sample|all):
#   quick   critical_fields in full, special_patterns, and a daily 1/4096 shard (1 Mi inputs): ~50 Mi inputs per
#           format, the default of a plain pytest run (about a second per format; numpy's float16 cast, ~10x);
#   sample  boundary_fields in full, special_patterns, and a daily 1/64 shard (64 Mi inputs): ~200 Mi per format;
#   all     every f32 input (2^32 per format: minutes each).
TIERS = ("quick", "sample", "all")


def _spec_field(start: int) -> int:
    return (start >> 23) & 0xFF


def _tier_specs(fields: List[int], shard: int, shards: int) -> list:
    # each input once: the patterns and shard chunks of a field already covered in full are left out (shard
    # chunks are 2^20-aligned, so a chunk lies inside one field)
    covered = set(fields)
    pats = special_patterns()
    pats = pats[~np.isin((pats >> np.uint32(23)) & np.uint32(0xFF), list(covered))]
    shard_part = []
    for _, starts, count in shard_specs(shard, shards):
        keep = tuple(st for st in starts if _spec_field(st) not in covered)
        if keep:
            shard_part.append(("ranges", keep, count))
    return field_specs(fields) + ([("array", pats)] if pats.size else []) + shard_part


def input_specs(fmt: str, tier: str) -> list:
    """The chunk specs of a tier's f32 inputs for fmt (see TIERS); every input appears once."""
    if tier == "all":
        return all_specs()
    if tier == "sample":
        return _tier_specs(boundary_fields(fmt), day_shard(SHARDS), SHARDS)
    return _tier_specs(critical_fields(fmt), day_shard(4096), 4096)


def count_inputs(specs) -> int:
    n = 0
    for sp in specs:
        if isinstance(sp, np.ndarray):
            n += sp.size
        elif sp[0] == "range":
            n += sp[2]
        elif sp[0] == "ranges":
            n += len(sp[1]) * sp[2]
        else:
            n += np.asarray(sp[1]).size
    return n


def f64_near_ties(fmt: str, n: int = 1_000_000, seed: int = 0) -> np.ndarray:
    """About n binary64 values that expose double rounding (f64 -> f32 -> fmt instead of one rounding): around
    each midpoint between adjacent values of fmt (and above max), offsets of a few f64 ulps, of half an f32 ulp
    (2^28 f64 ulps: exactly f32 ties) +- a few, and random offsets below an f32 ulp; both signs."""
    f = format_of(fmt)
    nbits = f.info.bits
    allc = np.arange(1 << nbits, dtype=np.uint32)
    if f.code_dtype.itemsize == 1:
        allc = allc.astype(np.uint8)
    else:
        allc = allc.astype(np.uint16)
    vals = decode(allc, f, "f64")
    vals = np.unique(vals[np.isfinite(vals) & (vals >= 0)])
    mids = (vals[:-1] + vals[1:]) / 2
    top = vals[-1] + (vals[-1] - vals[-2]) / 2  # where rounding up would pass max
    mids = np.concatenate([mids, [top, vals[1] / 2 if vals[0] == 0 else vals[0] / 2]])
    mids = mids[mids > 0]
    fixed = np.array([0, 1, -1, 2, -2, 1 << 28, -(1 << 28), (1 << 28) + 1, -(1 << 28) - 1, (1 << 28) - 1,
                      -(1 << 28) + 1], dtype=np.int64)
    rng = np.random.default_rng(seed)
    per = max(1, n // (2 * mids.size) - fixed.size)
    rand = rng.integers(-(1 << 29), 1 << 29, size=(mids.size, per), dtype=np.int64)
    offs = np.concatenate([np.broadcast_to(fixed, (mids.size, fixed.size)), rand], axis=1)
    bits = mids.view(np.int64)[:, None] + offs
    x = bits.reshape(-1).view(np.float64)
    x = x[np.isfinite(x) & (x > 0)]
    if x.size > n // 2:
        x = rng.choice(x, n // 2, replace=False)
    return np.concatenate([x, -x])


# ---- comparison ------------------------------------------------------------------------------------------


@dataclasses.dataclass
class ClassCount:
    count: int = 0
    example: Optional[tuple] = None  # (input bits, system code, minifloat code)


@dataclasses.dataclass
class Comparison:
    target: Target
    source: str  # "f32", "f64" or "decode"
    inputs: int = 0
    differ: int = 0
    seconds: float = 0.0
    classes: dict = dataclasses.field(default_factory=dict)  # class name -> ClassCount
    examples: list = dataclasses.field(default_factory=list)  # the first few (input bits, system, minifloat)

    def summary(self, limit: int = 5) -> str:
        ex = ", ".join(f"{_hex(i, self.source)} -> system {_hexc(s)} / minifloat {_hexc(m)}"
                       for i, s, m in self.examples[:limit])
        return f"{self.differ} of {self.inputs} differ" + (f"; e.g. {ex}" if ex else "")


def _hex(v, source: str) -> str:
    width = 16 if source == "f64" else (8 if source == "f32" else 0)
    return f"0x{int(v):0{width}x}" if width else f"0x{int(v):02x}"


def _hexc(v) -> str:
    return f"0x{int(v):02x}"


# Classes of a differing f32 / f64 input, checked in this order.
F_CLASSES = ["NaN input, +", "NaN input, -", "+inf", "-inf", "-0", "finite overflow, +", "finite overflow, -",
             "subnormal input", "negative underflow to zero", "other finite"]
D_CLASSES = ["NaN code", "inf code", "zero code", "other code"]


def classify_inputs(x: np.ndarray, sys_codes: np.ndarray, mf_codes: np.ndarray, fmt: str) -> np.ndarray:
    """Index into F_CLASSES for each (differing) input x (f32 or f64 values)."""
    info = format_of(fmt).info
    f = format_of(fmt)
    neg = np.signbit(x)
    nan = np.isnan(x)
    inf = np.isinf(x)
    finite = ~nan & ~inf
    with np.errstate(all="ignore"):
        ax = np.abs(x)
        tiny = np.finfo(x.dtype).tiny
        sub = finite & (ax < tiny) & (ax != 0)
        sys_v = decode(sys_codes.astype(f.code_dtype), f, "f64")
        mf_v = decode(mf_codes.astype(f.code_dtype), f, "f64")
    cls = np.full(x.shape, F_CLASSES.index("other finite"), np.int8)
    conds = [
        nan & ~neg, nan & neg, inf & ~neg, inf & neg, finite & (x == 0) & neg,
        finite & (ax > info.max) & ~neg, finite & (ax > info.max) & neg,
        sub,
        finite & neg & (x != 0) & ((sys_v == 0) | (mf_v == 0)),
    ]
    # assign in reverse so that the first matching class wins
    for i in range(len(conds) - 1, -1, -1):
        cls[conds[i]] = i
    return cls


def classify_codes(c: np.ndarray, fmt: str) -> np.ndarray:
    v = decode(c, format_of(fmt), "f64")
    cls = np.full(c.shape, 3, np.int8)
    cls[v == 0] = 2
    cls[np.isinf(v)] = 1
    cls[np.isnan(v)] = 0
    return cls


def _mf_cast(x: np.ndarray, t: Target, profile: str, threads: int) -> np.ndarray:
    return codes(convert(x, t.fmt, round=t.round, saturate=t.saturate, profile=profile, threads=threads))


def _chunk_result(t: Target, spec, profile: str, source: str, classify: bool, max_examples: int, threads: int):
    """Compare one chunk: (inputs, differ, first examples, class counts, first example per class)."""
    chunk = materialize(spec)
    x = chunk.view(np.float32) if source == "f32" else np.asarray(chunk, np.float64)
    s = t.cast(x)
    m = _mf_cast(x, t, profile, threads)
    diff = np.flatnonzero(s != m)
    counts = np.zeros(len(F_CLASSES), np.int64)
    class_examples = {}
    bits = x.view(np.uint32 if source == "f32" else np.uint64)
    examples = [(int(bits[i]), int(s[i]), int(m[i])) for i in diff[:max_examples]]
    if classify and diff.size:
        cls = classify_inputs(x[diff], s[diff], m[diff], t.fmt)
        counts += np.bincount(cls, minlength=len(F_CLASSES))
        for k in np.unique(cls):
            i = diff[np.flatnonzero(cls == k)[0]]
            class_examples[int(k)] = (int(bits[i]), int(s[i]), int(m[i]))
    return x.size, int(diff.size), examples, counts, class_examples


def _worker(args):
    system, target_id, spec, profile, source, classify, max_examples = args
    t = next(t for t in get_system(system).targets if t.id == target_id)
    return _chunk_result(t, spec, profile, source, classify, max_examples, threads=1)


_POOL = None


def default_workers() -> int:
    """Processes for the comparisons: MINIFLOAT_WORKERS, else one per CPU (1: in this process)."""
    env = os.environ.get("MINIFLOAT_WORKERS")
    return max(1, int(env)) if env else max(1, os.cpu_count() or 1)


def _pool(workers: int):
    # one pool of spawned processes for the whole run: each builds its systems once (spawn, not fork: a forked
    # PyTorch or OpenMP runtime can hang)
    global _POOL
    if _POOL is None or _POOL._max_workers != workers or _POOL._broken:
        import concurrent.futures
        import multiprocessing

        if _POOL is not None:
            _POOL.shutdown()
        _POOL = concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    return _POOL


def compare_casts(t: Target, specs, profile: str, *, source: str = "f32", classify: bool = False,
                  workers: Optional[int] = None, max_examples: int = 8,
                  progress: Optional[Callable] = None) -> Comparison:
    """Cast every input of every chunk (specs: input_specs / arrays of uint32 bit patterns, or f64 values for
    source="f64") with the system and with minifloat under `profile`, and count the inputs whose codes differ (and
    classify them). Chunks are spread over `workers` processes (default_workers())."""
    workers = default_workers() if workers is None else workers
    res = Comparison(t, source)
    counts = np.zeros(len(F_CLASSES), np.int64)
    t0 = time.perf_counter()
    specs = [("array", sp) if isinstance(sp, np.ndarray) else sp for sp in specs]
    if workers > 1 and t.system and len(specs) > 1:
        jobs = [(t.system, t.id, sp, profile, source, classify, max_examples) for sp in specs]
        results = _pool(workers).map(_worker, jobs)
    else:
        results = (_chunk_result(t, sp, profile, source, classify, max_examples, threads=2) for sp in specs)
    for n, nd, examples, c, class_examples in results:
        res.inputs += n
        res.differ += nd
        res.examples.extend(examples[: max(0, max_examples - len(res.examples))])
        counts += c
        for k, ex in class_examples.items():
            res.classes.setdefault(F_CLASSES[k], ClassCount(0, ex))
        if progress:
            progress(res)
    for k, name in enumerate(F_CLASSES):
        if counts[k]:
            res.classes[name].count = int(counts[k])
    res.classes = {name: res.classes[name] for name in F_CLASSES if name in res.classes}
    res.seconds = time.perf_counter() - t0
    return res


def compare_decode(t: Target, profile: str, *, classify: bool = False, max_examples: int = 8) -> Comparison:
    """Decode every code of t's format to f32 with the system and with minifloat under `profile`; compare the
    f32 bit patterns."""
    f = format_of(t.fmt)
    res = Comparison(t, "decode")
    t0 = time.perf_counter()
    c = np.arange(1 << f.info.bits, dtype=np.uint32).astype(f.code_dtype)
    s = np.ascontiguousarray(t.decode(c), np.float32).view(np.uint32)
    m = decode(c, f, "f32", profile=profile).view(np.uint32)
    diff = np.flatnonzero(s != m)
    res.inputs = c.size
    res.differ = diff.size
    res.examples = [(c[i], s[i], m[i]) for i in diff[:max_examples]]
    if classify and diff.size:
        cls = classify_codes(c[diff], t.fmt)
        for k in np.unique(cls):
            idx = diff[np.flatnonzero(cls == k)]
            res.classes[D_CLASSES[k]] = ClassCount(int(idx.size), (c[idx[0]], s[idx[0]], m[idx[0]]))
    res.seconds = time.perf_counter() - t0
    return res


def conformance_mode() -> str:
    """The input tier from MINIFLOAT_CONFORMANCE: quick (the default), sample or all."""
    mode = os.environ.get("MINIFLOAT_CONFORMANCE", "quick").lower() or "quick"
    if mode not in TIERS:
        raise ValueError(f"MINIFLOAT_CONFORMANCE={mode!r}: one of {', '.join(TIERS)}")
    return mode


__all__ = ["SYSTEMS", "System", "Target", "Comparison", "get_system", "compare_casts", "compare_decode",
           "input_specs", "count_inputs", "materialize", "boundary_fields", "critical_fields", "special_patterns", "TIERS", "f64_near_ties", "F_CLASSES",
           "D_CLASSES", "conformance_mode", "day_shard"]

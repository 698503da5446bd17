"""The overflow lab (libminifloat_lab): mf_analyze and the elementwise operations."""

from __future__ import annotations

import ctypes
import dataclasses
from typing import Optional

import numpy as np

from . import _lib
from ._core import (
    E_ARG,
    E_UNSUPPORTED,
    Error,
    FormatLike,
    Stats,
    addr,
    bool_arg,
    check,
    empty_c_buffer,
    float_arg,
    fmt_arg,
    format_of,
    make_opts,
    result_array,
    round_value,
    source_format,
    store,
    to_c_layout,
    u64_arg,
)

HIST_MIN = _lib.MF_ANALYZE_HIST_MIN
HIST_BINS = _lib.MF_ANALYZE_HIST_BINS


def _lab():
    if _lib.lab is None:
        raise Error(E_UNSUPPORTED, f"the overflow lab library cannot be used: {_lib.lab_error}")
    return _lib.lab


@dataclasses.dataclass(frozen=True)
class AnalyzeReport:
    """What converting a tensor into a format does (mf_analyze_report; docs/analyze.md defines each field).
    hist[b] counts nonzero finite |x| (after scaling) with floor(log2 |x|) = b + HIST_MIN."""

    format: str
    n: int
    scale: float
    in_zero: int
    in_nan: int
    in_inf: int
    amax: float
    amin: float
    overflow: int
    saturated: int
    to_inf: int
    to_nan: int
    underflow: int
    subnormal: int
    inexact: int
    err_count: int
    rel_count: int
    abs_err_max: float
    abs_err_mean: float
    abs_err_rms: float
    rel_err_max: float
    rel_err_mean: float
    rel_err_rms: float
    scale_up_log2: int
    scale_down_log2: int
    scale_down_unbounded: bool
    fmt_min_subnormal_log2: int
    fmt_min_normal_log2: int
    fmt_max_log2: int
    hist: np.ndarray = dataclasses.field(repr=False, compare=False)

    def asdict(self) -> dict:
        d = dataclasses.asdict(self)
        d["hist"] = self.hist.tolist()
        return d


def analyze(x, fmt: FormatLike, *, round="rn", saturate=False, scale: float = 1.0, seed=0, sr_offset=0,
            src: Optional[FormatLike] = None) -> AnalyzeReport:
    """Analyse converting x (f32, f64, f16 or bf16 data) into fmt: overflow, underflow, errors, safe power-of-two
    scales and a log2 histogram (mf_analyze). scale multiplies every element first (in binary64)."""
    f = "analyze"
    x = np.asarray(x)
    sfmt = source_format(x, src, "x", f)
    dfmt = fmt_arg(f, "fmt", fmt)
    buf = to_c_layout(x, sfmt)
    o = _lib.mf_analyze_opts()
    o.src_format = sfmt.value
    o.round = round_value(round, f)
    o.overflow = 1 if bool_arg(f, "saturate", saturate) else 0
    o.seed = u64_arg(f, "seed", seed)
    o.sr_offset = u64_arg(f, "sr_offset", sr_offset)
    o.scale = float_arg(f, "scale", scale, finite=False)
    r = _lib.mf_analyze_report()
    check(_lab().mf_analyze(dfmt.value, addr(buf), x.size, ctypes.byref(o), ctypes.byref(r)),
          f"analyze {sfmt.name} -> {dfmt.name}")
    fields = {f.name: getattr(r, f.name) for f in dataclasses.fields(AnalyzeReport)
              if f.name not in ("format", "hist", "scale_down_unbounded")}
    return AnalyzeReport(
        format=format_of(_format_name(r.format)).name,
        hist=np.ctypeslib.as_array(r.hist).copy(),
        scale_down_unbounded=bool(r.scale_down_unbounded),
        **fields,
    )


def _format_name(value: int) -> str:
    return _lib.core.mf_format_name(value).decode()


def _unary_value(op) -> int:
    out = ctypes.c_int()
    rc = _lab().mf_unary_from_name(str(op).encode(), ctypes.byref(out))
    if rc != 0:
        raise Error(rc, "unary", None, "op", f"op: unknown operation {op!r} (exp tanh sigmoid silu gelu gelu_tanh)")
    return out.value


def unary(op: str, x, to: FormatLike = "f32", *, src: Optional[FormatLike] = None, round="rn", saturate=False,
          seed=0, sr_offset=0, stats=False, out=None):
    """y = op(x) computed in binary32 as PyTorch's kernels do, rounded once into `to` (mf_unary).
    op: exp, tanh, sigmoid, silu, gelu, gelu_tanh. out: an array of x's shape and the result's dtype."""
    f = "unary"
    x = np.asarray(x)
    sfmt = source_format(x, src, "x", f)
    dfmt = fmt_arg(f, "to", to)
    st = _lib.mf_stats() if bool_arg(f, "stats", stats) else None
    opts = make_opts(round, saturate, seed, sr_offset, st, func=f)
    res = result_array(f, out, x.shape, dfmt)
    sbuf = to_c_layout(x, sfmt)
    dbuf = empty_c_buffer(dfmt, x.size)
    check(_lab().mf_unary(_unary_value(op), dfmt.value, addr(dbuf), sfmt.value, addr(sbuf), x.size,
                          ctypes.byref(opts)), f"unary {op}")
    store(res, dbuf, dfmt)
    return (res, Stats._from_c(st)) if stats else res


def softmax(x, to: FormatLike = "f32", *, log=False, src: Optional[FormatLike] = None, round="rn", saturate=False,
            seed=0, sr_offset=0, stats=False, out=None):
    """(log-)softmax over the last axis, PyTorch's stable form (mf_softmax), rounded once into `to`. out: as
    unary."""
    f = "softmax"
    x = np.asarray(x)
    if x.ndim == 0:
        raise Error(E_ARG, f, None, "x", "x must have at least one axis (softmax runs over the last one)")
    sfmt = source_format(x, src, "x", f)
    dfmt = fmt_arg(f, "to", to)
    cols = x.shape[-1]
    rows = x.size // cols if cols else 0
    st = _lib.mf_stats() if bool_arg(f, "stats", stats) else None
    opts = make_opts(round, saturate, seed, sr_offset, st, func=f)
    res = result_array(f, out, x.shape, dfmt)
    sbuf = to_c_layout(x, sfmt)
    dbuf = empty_c_buffer(dfmt, x.size)
    check(_lab().mf_softmax(int(bool_arg(f, "log", log)), dfmt.value, addr(dbuf), sfmt.value, addr(sbuf), rows, cols,
                            ctypes.byref(opts)), "softmax")
    store(res, dbuf, dfmt)
    return (res, Stats._from_c(st)) if stats else res


def elementwise_math() -> str:
    """The math library the lab evaluates exp/tanh/erf with (mf_elementwise_math)."""
    return _lab().mf_elementwise_math().decode()

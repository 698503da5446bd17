"""Mixed-precision GEMM (gemm.h: mf_gemm) on numpy matrices."""

from __future__ import annotations

import ctypes
import dataclasses
from typing import Optional

import numpy as np

from . import _lib
from ._core import (
    E_ARG,
    E_FORMAT,
    FormatLike,
    Stats,
    addr,
    arg_error,
    arg_type_error,
    bool_arg,
    check,
    float_arg,
    fmt_arg,
    from_c_layout,
    int_arg,
    out_arg,
    round_value,
    source_format,
    to_c_layout,
    u64_arg,
    unknown_kwargs,
)
from ._lib import core
from .scaling import _axis, _block, _scale_codes, fp8_block_scale_shape

ACCUM = {"fp32": 0, "exact": 1, "v100": 2, "a100": 3, "ada": 4, "h100": 5, "h200": 5, "b200": 6}
# What each tensor-core model multiplies (gemm.h's mf_accum), for the message when the C library refuses a pair
# (MF_E_FORMAT): the C library decides, this table only explains.
_ACCUM_TAKES = {
    "v100": "f16 x f16",
    "a100": "f16 x f16, bf16 x bf16, f32 x f32 (as TF32)",
    "ada": "f16 x f16, bf16 x bf16, f32 x f32 (as TF32), e4m3/e5m2 x e4m3/e5m2",
    "h100": "f16 x f16, bf16 x bf16, f32 x f32 (as TF32), e4m3/e5m2 x e4m3/e5m2",
    "h200": "f16 x f16, bf16 x bf16, f32 x f32 (as TF32), e4m3/e5m2 x e4m3/e5m2",
    "b200": "f16 x f16, bf16 x bf16, f32 x f32 (as TF32), FP8/FP6/FP4 x FP8/FP6/FP4",
}
_OPERANDS = ("f32", "f16", "bf16", "e4m3", "e5m2", "e2m3", "e3m2", "e2m1")
_KIND_NONE, _KIND_TENSOR, _KIND_VECTOR, _KIND_MX, _KIND_NVFP4 = 0, 1, 2, 6, 7
_BLOCK_KIND = {0: 3, 1: 4, 2: 5}  # mf_fp8_block -> mf_gemm_scale_kind


@dataclasses.dataclass(frozen=True)
class GemmScale:
    """A scale of A's or B's elements (mf_gemm_scale); build it with the functions below."""

    kind: int
    data: Optional[np.ndarray] = None
    axis: int = 0
    amax: float = 0.0
    block: Optional[str] = None


def _positive_scales(func: str, name: str, v: np.ndarray) -> np.ndarray:
    """Tensor and vector scales are finite and > 0, as fp8_quantize's scale: a NaN or zero scale is refused."""
    if v.size and not (np.isfinite(v).all() and (v > 0).all()):
        bad = np.flatnonzero(~(np.isfinite(v) & (v > 0)))[0]
        where = f"{name}[{bad}]" if v.size > 1 else name
        raise arg_error(func, name, f"{where} ({float(v.reshape(-1)[bad])}) must be finite and > 0")
    return v


def _f32_array(func: str, name: str, v) -> np.ndarray:
    arr = np.asarray(v)
    if arr.dtype.kind not in "fiu" or arr.dtype.kind == "b":
        raise arg_type_error(func, name, f"{name} must be real numbers, not {arr.dtype}")
    return np.ascontiguousarray(arr, np.float32).reshape(-1)


def tensor_scale(s: float) -> GemmScale:
    """One scale multiplying the whole matrix's dot products (finite and > 0)."""
    s = float_arg("tensor_scale", "s", s, positive=True)
    return GemmScale(_KIND_TENSOR, np.array([s], np.float32))


def vector_scale(v) -> GemmScale:
    """One scale per row of op(A) (m of them) or per column of op(B) (n), each finite and > 0."""
    return GemmScale(_KIND_VECTOR, _positive_scales("vector_scale", "v", _f32_array("vector_scale", "v", v)))


def block_scale(scale_inv, kind: str = "1x128") -> GemmScale:
    """FP8 block scales (fp8_block_quantize's scale_inv) of the stored matrix."""
    k = _block("block_scale", kind)
    return GemmScale(_BLOCK_KIND[k], _f32_array("block_scale", "scale_inv", scale_inv), block=kind)


def mx_scale(scales, axis="row") -> GemmScale:
    """E8M0 scales of 32-element blocks (mx_quantize's scales) of the stored matrix."""
    return GemmScale(_KIND_MX, _scale_codes("mx_scale", scales, "e8m0"), _axis("mx_scale", axis))


def nvfp4_scale(scales, amax: float, axis="row") -> GemmScale:
    """E4M3 scales of 16-element blocks and the tensor amax (nvfp4_quantize's outputs)."""
    return GemmScale(_KIND_NVFP4, _scale_codes("nvfp4_scale", scales, "e4m3"), _axis("nvfp4_scale", axis),
                     float_arg("nvfp4_scale", "amax", amax, finite=False, nonnegative=True))


def _scale(s, stored_shape: tuple, vec_len: int, what: str) -> GemmScale:
    if s is None:
        return GemmScale(_KIND_NONE)
    if not isinstance(s, GemmScale):
        if isinstance(s, (bool, np.bool_, str)):
            raise arg_type_error("gemm", what, f"{what} must be a number, an array or a GemmScale, not {s!r}")
        arr = np.asarray(s)
        if arr.ndim == 0:
            s = GemmScale(_KIND_TENSOR, np.array([float_arg("gemm", what, s, positive=True)], np.float32))
        else:
            s = GemmScale(_KIND_VECTOR, _positive_scales("gemm", what, _f32_array("gemm", what, arr)))
    # the C library reads as many scales as the shapes imply: check the counts here
    rows, cols = stored_shape
    want = {
        _KIND_TENSOR: 1,
        _KIND_VECTOR: vec_len,
        _KIND_MX: rows * cols // 32,
        _KIND_NVFP4: rows * cols // 16,
    }.get(s.kind)
    if s.kind in (3, 4, 5):
        want = int(np.prod(fp8_block_scale_shape(rows, cols, s.block)))
    if want is not None and s.data.size != want:
        raise arg_error("gemm", what, f"{what} has {s.data.size} values, expected {want}")
    return s


def _c_scale(s: GemmScale) -> _lib.mf_gemm_scale:
    return _lib.mf_gemm_scale(s.kind, addr(s.data), s.axis, s.amax)


def _operand(name: str, x, fmt, fmt_name: str):
    x = np.asarray(x)
    if x.ndim != 2:
        raise arg_error("gemm", name, f"{name} must be a 2-D matrix, not of shape {x.shape}")
    f = source_format(x, fmt, name, "gemm", fmt_name)
    if f.name not in _OPERANDS:
        raise arg_error("gemm", name, f"{name} holds {f.name}: gemm multiplies {', '.join(_OPERANDS)} "
                                      f"(convert {name} first, e.g. mf.convert({name}, 'f32'))", E_FORMAT)
    return x, f


_GEMM_ALIASES = {"fmt": ["fmt_a", "fmt_b"], "format": ["fmt_a", "fmt_b"], "src": ["fmt_a", "fmt_b"],
                 "fmt_c": ["out"], "dtype": ["out"], "accumulate": ["accum"], "model": ["accum"],
                 "scale": ["scale_a", "scale_b"], "transpose_a": ["trans_a"], "transpose_b": ["trans_b"],
                 "transa": ["trans_a"], "transb": ["trans_b"]}
_GEMM_KNOWN = ("c", "out", "alpha", "beta", "trans_a", "trans_b", "fmt_a", "fmt_b", "accum", "scale_a", "scale_b",
               "round", "saturate", "seed", "sr_offset", "stats", "threads", "promote_every")


def gemm(a, b, c=None, *, out=None, alpha: float = 1.0, beta: float = 0.0,
         trans_a: bool = False, trans_b: bool = False, fmt_a: Optional[FormatLike] = None,
         fmt_b: Optional[FormatLike] = None, accum: str = "fp32", scale_a=None, scale_b=None, round="rn",
         saturate: bool = False, seed: int = 0, sr_offset: int = 0, stats: bool = False, threads: int = 0,
         promote_every: int = 0, **unknown):
    """C = alpha * (sa op(A)) (sb op(B)) + beta * C, each element rounded once into `out` (mf_gemm).

    a, b: 2-D arrays of f32, f16, bf16, e4m3, e5m2, e2m3, e3m2 or e2m1 (ml_dtypes dtypes, or uint8/uint16 codes
    with fmt_a / fmt_b), as stored (op(A) = a.T with trans_a); f64 is refused (convert it first). c: the m x n
    input C (needed when beta != 0). out: the result's format, "f32" (default, or c's format), "f16" or "bf16",
    or an m x n array of one of those to write the result into (left as it was on error). accum: fp32 (binary32
    fma chain), exact, or a tensor-core model v100 a100 ada h100 b200. scale_a / scale_b: a float (per tensor,
    finite and > 0), a 1-D array (per row of op(A) / column of op(B)), or tensor_scale / vector_scale /
    block_scale / mx_scale / nvfp4_scale.
    Returns the m x n result (and a Stats of its roundings when stats=True).
    """
    f = "gemm"
    if unknown:
        unknown_kwargs(f, unknown, _GEMM_KNOWN, _GEMM_ALIASES)
    a, fa = _operand("a", a, fmt_a, "fmt_a")
    b, fb = _operand("b", b, fmt_b, "fmt_b")
    trans_a = bool_arg(f, "trans_a", trans_a)
    trans_b = bool_arg(f, "trans_b", trans_b)
    m, k = (a.shape[1], a.shape[0]) if trans_a else a.shape
    kb, n = (b.shape[1], b.shape[0]) if trans_b else b.shape
    if kb != k:
        raise arg_error(f, "b", f"b: op(A) is {m} x {k} but op(B) is {kb} x {n} (inner dimensions differ)")
    if not isinstance(accum, str) or accum not in ACCUM:
        raise arg_error(f, "accum", f"accum: unknown accumulation {accum!r} ({', '.join(ACCUM)})")
    alpha = float_arg(f, "alpha", alpha, finite=False)
    beta = float_arg(f, "beta", beta, finite=False)
    dest = None
    if isinstance(out, np.ndarray):
        dest, out = out, out.dtype
    if out is not None:
        fc = fmt_arg(f, "out", out)
    elif c is not None:
        fc = source_format(np.asarray(c), None, "c", f)
    else:
        fc = fmt_arg(f, "out", "f32")
    if fc.name not in ("f32", "f16", "bf16"):
        raise arg_error(f, "out", f"out={fc.name!r}: the result is f32, f16 or bf16", E_FORMAT)
    if dest is not None:
        out_arg(f, dest, (m, n), (fc.array_dtype, fc.code_dtype))
    if c is not None:
        c = np.asarray(c)
        if c.shape != (m, n):
            raise arg_error(f, "c", f"c has shape {c.shape}, expected {(m, n)}")
        source_format(c, fc, "c", f, "out")  # c must hold fc's values or codes
        cbuf = to_c_layout(c, fc).copy()  # mf_gemm writes C in place: never into the caller's array
    else:
        if beta != 0:
            raise arg_error(f, "c", f"c is needed when beta ({beta}) is not 0")
        cbuf = np.zeros(m * n, fc.code_dtype)
    sa = _scale(scale_a, a.shape, m, "scale_a")
    sb = _scale(scale_b, b.shape, n, "scale_b")
    stats = bool_arg(f, "stats", stats)
    abuf = to_c_layout(a, fa)
    bbuf = to_c_layout(b, fb)
    st = _lib.mf_stats() if stats else None
    o = _lib.mf_gemm_opts()
    o.accum = ACCUM[accum]
    o.scale_a = _c_scale(sa)
    o.scale_b = _c_scale(sb)
    o.round = round_value(round, f)
    o.overflow = 1 if bool_arg(f, "saturate", saturate) else 0
    o.seed = u64_arg(f, "seed", seed)
    o.sr_offset = u64_arg(f, "sr_offset", sr_offset)
    o.stats = ctypes.pointer(st) if st is not None else None
    o.threads = int_arg(f, "threads", threads, 0)
    o.promote_every = int_arg(f, "promote_every", promote_every, 0)
    lda, ldb, ldc = max(a.shape[1], 1), max(b.shape[1], 1), max(n, 1)
    if _lib.native is not None:
        rc = _lib.native.gemm(int(trans_a), int(trans_b), m, n, k, alpha, abuf, fa.value, lda, bbuf, fb.value, ldb,
                              beta, cbuf, fc.value, ldc, ctypes.addressof(o))
    else:
        rc = core.mf_gemm(0, int(trans_a), int(trans_b), m, n, k, alpha, addr(abuf), fa.value, lda,
                          addr(bbuf), fb.value, ldb, beta, addr(cbuf), fc.value, ldc, ctypes.byref(o))
    if rc == E_FORMAT and accum in _ACCUM_TAKES:
        raise arg_error(f, "accum", f"accum={accum!r}: the {accum} model does not multiply {fa.name} x {fb.name} "
                                    f"(its tensor cores take {_ACCUM_TAKES[accum]}); accum='fp32' or 'exact' take "
                                    "any pair", E_FORMAT)
    if rc == E_ARG and promote_every:
        raise arg_error(f, "promote_every", f"promote_every ({promote_every}) needs a tensor-core model and a "
                                            "multiple of its block size (gemm.h)")
    check(rc, f"gemm {fa.name} x {fb.name} -> {fc.name}")
    result = from_c_layout(cbuf, fc, m * n).reshape(m, n)
    if dest is not None:
        dest[...] = result.view(dest.dtype)
        result = dest
    return (result, Stats._from_c(st)) if stats else result

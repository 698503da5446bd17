"""Mixed-precision GEMM (gemm.h: mf_gemm) on numpy matrices."""

from __future__ import annotations

import ctypes
import dataclasses
from typing import Optional

import numpy as np

from . import _lib
from ._core import (
    E_ARG,
    Error,
    FormatLike,
    Stats,
    addr,
    check,
    format_of,
    from_c_layout,
    round_value,
    source_format,
    to_c_layout,
)
from ._lib import core
from .scaling import _axis, _block, fp8_block_scale_shape

ACCUM = {"fp32": 0, "exact": 1, "v100": 2, "a100": 3, "ada": 4, "h100": 5, "h200": 5, "b200": 6}
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


def tensor_scale(s: float) -> GemmScale:
    """One scale multiplying the whole matrix's dot products."""
    return GemmScale(_KIND_TENSOR, np.array([s], np.float32))


def vector_scale(v) -> GemmScale:
    """One scale per row of op(A) (m of them) or per column of op(B) (n)."""
    return GemmScale(_KIND_VECTOR, np.ascontiguousarray(v, np.float32).reshape(-1))


def block_scale(scale_inv, kind: str = "1x128") -> GemmScale:
    """FP8 block scales (fp8_block_quantize's scale_inv) of the stored matrix."""
    return GemmScale(_BLOCK_KIND[_block(kind)], np.ascontiguousarray(scale_inv, np.float32).reshape(-1), block=kind)


def mx_scale(scales, axis="row") -> GemmScale:
    """E8M0 scales of 32-element blocks (mx_quantize's scales) of the stored matrix."""
    return GemmScale(_KIND_MX, np.ascontiguousarray(scales).reshape(-1).view(np.uint8), _axis(axis))


def nvfp4_scale(scales, amax: float, axis="row") -> GemmScale:
    """E4M3 scales of 16-element blocks and the tensor amax (nvfp4_quantize's outputs)."""
    return GemmScale(_KIND_NVFP4, np.ascontiguousarray(scales).reshape(-1).view(np.uint8), _axis(axis), float(amax))


def _scale(s, stored_shape: tuple, vec_len: int, what: str) -> GemmScale:
    if s is None:
        return GemmScale(_KIND_NONE)
    if not isinstance(s, GemmScale):
        arr = np.asarray(s)
        s = tensor_scale(float(arr)) if arr.ndim == 0 else vector_scale(arr)
    # the C library reads as many scales as the shapes imply: check the counts here
    rows, cols = stored_shape
    want = {
        _KIND_TENSOR: 1,
        _KIND_VECTOR: vec_len,
        _KIND_MX: rows * cols // 32,
        _KIND_NVFP4: rows * cols // 16,
    }.get(s.kind)
    if s.kind in (3, 4, 5):
        want = int(np.prod(fp8_block_scale_shape(s.block, rows, cols)))
    if want is not None and s.data.size != want:
        raise Error(E_ARG, f"gemm: {what} has {s.data.size} values, expected {want}")
    return s


def _c_scale(s: GemmScale) -> _lib.mf_gemm_scale:
    return _lib.mf_gemm_scale(s.kind, addr(s.data), s.axis, s.amax)


def gemm(a, b, c=None, *, out: Optional[FormatLike] = None, alpha: float = 1.0, beta: float = 0.0,
         trans_a: bool = False, trans_b: bool = False, fmt_a: Optional[FormatLike] = None,
         fmt_b: Optional[FormatLike] = None, accum: str = "fp32", scale_a=None, scale_b=None, round="rn",
         saturate: bool = False, seed: int = 0, sr_offset: int = 0, stats: bool = False, threads: int = 0,
         promote_every: int = 0):
    """C = alpha * (sa op(A)) (sb op(B)) + beta * C, each element rounded once into `out` (mf_gemm).

    a, b: 2-D arrays of f32, f16, bf16, e4m3, e5m2, e2m3, e3m2 or e2m1 (ml_dtypes dtypes, or uint8/uint16 codes
    with fmt_a / fmt_b), as stored (op(A) = a.T with trans_a). c: the m x n input C (needed when beta != 0).
    out: "f32" (default, or c's format), "f16" or "bf16". accum: fp32 (binary32 fma chain), exact, or a tensor-core
    model v100 a100 ada h100 b200. scale_a / scale_b: a float (per tensor), a 1-D array (per row of op(A) /
    column of op(B)), or tensor_scale / vector_scale / block_scale / mx_scale / nvfp4_scale.
    Returns the m x n result (and a Stats of its roundings when stats=True).
    """
    a = np.asarray(a)
    b = np.asarray(b)
    if a.ndim != 2 or b.ndim != 2:
        raise Error(E_ARG, "gemm: a and b must be 2-D")
    fa = source_format(a, fmt_a, "a")
    fb = source_format(b, fmt_b, "b")
    m, k = (a.shape[1], a.shape[0]) if trans_a else a.shape
    kb, n = (b.shape[1], b.shape[0]) if trans_b else b.shape
    if kb != k:
        raise Error(E_ARG, f"gemm: op(A) is {m} x {k} but op(B) is {kb} x {n}")
    if c is not None:
        c = np.asarray(c)
        if c.shape != (m, n):
            raise Error(E_ARG, f"gemm: c has shape {c.shape}, expected {(m, n)}")
        fc = format_of(out) if out is not None else source_format(c, None, "c")
        source_format(c, fc, "c")  # c must hold fc's values or codes
        cbuf = to_c_layout(c, fc).copy()  # mf_gemm writes C in place: never into the caller's array
    else:
        if beta != 0:
            raise Error(E_ARG, "gemm: beta != 0 needs c")
        fc = format_of(out if out is not None else "f32")
        cbuf = np.zeros(m * n, fc.code_dtype)
    if accum not in ACCUM:
        raise Error(E_ARG, f"gemm: unknown accumulation {accum!r} ({', '.join(ACCUM)})")
    abuf = to_c_layout(a, fa)
    bbuf = to_c_layout(b, fb)
    sa = _scale(scale_a, a.shape, m, "scale_a")
    sb = _scale(scale_b, b.shape, n, "scale_b")
    st = _lib.mf_stats() if stats else None
    o = _lib.mf_gemm_opts()
    o.accum = ACCUM[accum]
    o.scale_a = _c_scale(sa)
    o.scale_b = _c_scale(sb)
    o.round = round_value(round)
    o.overflow = 1 if saturate else 0
    o.seed = int(seed)
    o.sr_offset = int(sr_offset)
    o.stats = ctypes.pointer(st) if st is not None else None
    o.threads = int(threads)
    o.promote_every = int(promote_every)
    lda, ldb, ldc = max(a.shape[1], 1), max(b.shape[1], 1), max(n, 1)
    rc = core.mf_gemm(0, int(bool(trans_a)), int(bool(trans_b)), m, n, k, float(alpha), addr(abuf), fa.value, lda,
                      addr(bbuf), fb.value, ldb, float(beta), addr(cbuf), fc.value, ldc, ctypes.byref(o))
    check(rc, f"gemm {fa.name} x {fb.name} -> {fc.name}")
    result = from_c_layout(cbuf, fc, m * n).reshape(m, n)
    return (result, Stats._from_c(st)) if stats else result

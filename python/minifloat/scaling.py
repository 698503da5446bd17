"""Scaling: loss scaling (loss_scale.h), MX and NVFP4 block formats (mx.h), FP8 recipes (fp8_scaling.h)."""

from __future__ import annotations

import copy as _copy
import ctypes
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
    fptr,
    from_c_layout,
    make_opts,
    source_format,
    to_c_layout,
    u8ptr,
)
from ._lib import core

# ---- loss scaling ----------------------------------------------------------------------------------------


class LossScaler:
    """Dynamic loss scaling as torch.amp.GradScaler (and Megatron's hysteresis, floors and caps).

        scaler = LossScaler()                 # GradScaler's defaults: 65536, x2 every 2000 clean steps, x0.5
        loss_s = scaler.scale_loss(loss)      # backward from the scaled loss
        found = scaler.unscale_(g1, g2)       # gradients *= 1/scale in place; any inf/NaN?
        if scaler.update(found):              # new scale; True: take the optimizer step
            step()

    Gradients are numpy float32 / float16 / ml_dtypes bfloat16 arrays (C-contiguous, writable), or
    (uint16 codes, "bf16") pairs.
    """

    def __init__(
        self,
        init_scale: float = 65536.0,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        hysteresis: int = 1,
        min_scale: float = 0.0,
        max_scale: float = 0.0,
        static_scale: bool = False,
    ):
        cfg = _lib.mf_loss_scaler_config(
            init_scale, growth_factor, backoff_factor, growth_interval, hysteresis, min_scale, max_scale,
            int(bool(static_scale)),
        )
        self._s = _lib.mf_loss_scaler()
        check(core.mf_loss_scaler_init(ctypes.byref(self._s), ctypes.byref(cfg)), "LossScaler")

    @property
    def scale(self) -> float:
        return core.mf_loss_scaler_scale(ctypes.byref(self._s))

    @property
    def inv_scale(self) -> float:
        """1/scale rounded to binary32, the factor gradients are unscaled by."""
        return core.mf_loss_scaler_inv_scale(ctypes.byref(self._s))

    growth_tracker = property(lambda self: self._s.growth_tracker)
    hysteresis_tracker = property(lambda self: self._s.hysteresis_tracker)
    steps_taken = property(lambda self: self._s.steps_taken)
    steps_skipped = property(lambda self: self._s.steps_skipped)

    @property
    def config(self) -> dict:
        c = self._s.cfg
        return {name: getattr(c, name) for name, _ in c._fields_}

    def scale_loss(self, loss: float) -> np.float32:
        """loss * scale in binary32, as scaler.scale(loss)."""
        return np.float32(core.mf_scale_loss(ctypes.byref(self._s), float(np.float32(loss))))

    def unscale_(self, *grads) -> bool:
        """Unscale every gradient array in place; True if any element was inf or NaN (the check reads the
        inputs). The scaler's state does not change: pass the result to update()."""
        keep, tensors = [], []
        for g in grads:
            if isinstance(g, tuple):
                arr, fmt = g[0], format_of(g[1])
            else:
                arr = g
                fmt = source_format(np.asarray(arr), None, "gradient")
            if not isinstance(arr, np.ndarray) or not arr.flags.c_contiguous or not arr.flags.writeable:
                raise Error(E_ARG, "unscale_: gradients must be writable C-contiguous numpy arrays (changed in place)")
            if arr.dtype.itemsize * 8 != fmt.info.bits:
                raise Error(E_ARG, f"unscale_: a {arr.dtype} array cannot hold {fmt.name}")
            keep.append(arr)
            tensors.append(_lib.mf_tensor(arr.ctypes.data, fmt.value, arr.size))
        arr_t = (_lib.mf_tensor * len(tensors))(*tensors)
        rc = core.mf_unscale_check_tensors(ctypes.byref(self._s), arr_t, len(tensors))
        return bool(check(rc, "unscale_"))

    def update(self, found_nonfinite: bool) -> bool:
        """Finish a step; True when the optimizer step should be taken (no inf/NaN was found)."""
        return bool(check(core.mf_loss_scaler_update(ctypes.byref(self._s), int(bool(found_nonfinite))), "update"))

    def state_dict(self) -> dict:
        s = self._s
        return {
            "config": self.config,
            "scale": s.scale,
            "growth_tracker": s.growth_tracker,
            "hysteresis_tracker": s.hysteresis_tracker,
            "steps_taken": s.steps_taken,
            "steps_skipped": s.steps_skipped,
        }

    def copy(self) -> "LossScaler":
        return _copy.deepcopy(self)

    def __deepcopy__(self, memo):
        new = LossScaler.__new__(LossScaler)
        new._s = _lib.mf_loss_scaler()
        ctypes.pointer(new._s)[0] = self._s
        return new

    def __repr__(self) -> str:
        return (f"LossScaler(scale={self.scale}, growth_tracker={self.growth_tracker}, "
                f"steps_taken={self.steps_taken}, steps_skipped={self.steps_skipped})")


# ---- MX --------------------------------------------------------------------------------------------------

# mf_mx_type values and the element format of each (None: MXINT8, two's complement bytes).
MX_TYPES = {
    "mxfp8_e4m3": (0, "e4m3"),
    "mxfp8_e5m2": (1, "e5m2"),
    "mxfp6_e2m3": (2, "e2m3"),
    "mxfp6_e3m2": (3, "e3m2"),
    "mxfp4_e2m1": (4, "e2m1"),
    "mxint8": (5, None),
}
_MX_ALIASES = {"mxfp8": "mxfp8_e4m3", "mxfp6": "mxfp6_e2m3", "mxfp4": "mxfp4_e2m1", "int8": "mxint8",
               "e4m3": "mxfp8_e4m3", "e5m2": "mxfp8_e5m2", "e2m3": "mxfp6_e2m3", "e3m2": "mxfp6_e3m2",
               "e2m1": "mxfp4_e2m1"}
MX_BLOCK = 32
NVFP4_BLOCK = 16
_AXES = {"row": 0, "rowwise": 0, "col": 1, "colwise": 1, "column": 1}
_RULES = {"floor": 0, "rceil": 1}


def _mx_type(t) -> tuple:
    if isinstance(t, str):
        key = t.lower()
        key = _MX_ALIASES.get(key, key)
        if key in MX_TYPES:
            return (key,) + MX_TYPES[key]
        raise Error(E_ARG, f"unknown MX type {t!r} (known: {', '.join(MX_TYPES)})")
    dt = np.dtype(t)  # an element dtype
    if dt == np.int8:
        return ("mxint8",) + MX_TYPES["mxint8"]
    name = format_of(dt).name
    return _mx_type(name)


def _axis(axis) -> int:
    if isinstance(axis, str) and axis.lower() in _AXES:
        return _AXES[axis.lower()]
    if axis in (0, 1):
        return int(axis)
    raise Error(E_ARG, f"unknown axis {axis!r} (row or col)")


def _rule(rule) -> int:
    if isinstance(rule, str) and rule.lower() in _RULES:
        return _RULES[rule.lower()]
    if rule in (0, 1):
        return int(rule)
    raise Error(E_ARG, f"unknown MX scale rule {rule!r} (floor or rceil)")


def _as_2d_f32(x) -> np.ndarray:
    x = np.ascontiguousarray(np.asarray(x), dtype=np.float32)
    if x.ndim == 1:
        x = x.reshape(1, -1)
    if x.ndim != 2:
        raise Error(E_ARG, f"block scaling takes a 2-D tensor (rows x cols), not shape {x.shape}")
    return x


def _scale_shape(rows: int, cols: int, axis: int, block: int) -> tuple:
    return (rows, cols // block) if axis == 0 else (rows // block, cols)


def _e8m0_or_u8(a: np.ndarray) -> np.ndarray:
    try:
        return a.view(format_of("e8m0").array_dtype)
    except Error:
        return a


def mx_scale_code(type, amax: float, rule="floor") -> int:
    """The E8M0 scale code of a block with largest magnitude amax (mf_mx_scale_code)."""
    _, t, _ = _mx_type(type)
    return check(core.mf_mx_scale_code(t, _rule(rule), float(amax)), "mx_scale_code")


def mx_quantize(x, type="mxfp8_e4m3", *, rule="floor", axis="row", round="rn", seed=0, sr_offset=0,
                stats=False, fp6_packed=False):
    """Quantize a rows x cols tensor into OCP MX elements and E8M0 scales (mf_mx_quantize).

    Returns (elems, scales[, Stats]): elems of shape (rows, cols) and the element dtype (float8_e4m3fn,
    float6_e2m3fn, float4_e2m1fn one code per byte, ..., int8 for MXINT8; uint8 codes without ml_dtypes), or
    with fp6_packed=True the dense FP6 bytes (mf_fp6_pack layout, 1-D); scales float8_e8m0fnu (or uint8) of
    shape (rows, cols/32) row-wise or (rows/32, cols) column-wise.
    """
    name, t, elem = _mx_type(type)
    ax = _axis(axis)
    x = _as_2d_f32(x)
    rows, cols = x.shape
    flags = 1 if fp6_packed else 0
    eb, sc = ctypes.c_size_t(), ctypes.c_size_t()
    check(core.mf_mx_sizes(t, ax, flags, rows, cols, ctypes.byref(eb), ctypes.byref(sc)), f"mx_quantize {name}")
    elems = np.zeros(eb.value, np.uint8)
    scales = np.zeros(sc.value, np.uint8)
    st = _lib.mf_stats() if stats else None
    opts = make_opts(round, False, seed, sr_offset, st)
    rc = core.mf_mx_quantize(t, _rule(rule), ax, flags, fptr(x), rows, cols, addr(elems), u8ptr(scales),
                             ctypes.byref(opts))
    check(rc, f"mx_quantize {name}")
    if fp6_packed:
        out = elems
    elif elem is None:
        out = elems.view(np.int8).reshape(rows, cols)
    else:
        fmt = format_of(elem)
        out = from_c_layout(elems, fmt, rows * cols).reshape(rows, cols)
    scales = _e8m0_or_u8(scales.reshape(_scale_shape(rows, cols, ax, MX_BLOCK)))
    return (out, scales, Stats._from_c(st)) if stats else (out, scales)


def _mx_elem_buffer(elems, elem: Optional[str], flags: int) -> np.ndarray:
    if flags:
        return np.ascontiguousarray(elems, np.uint8).reshape(-1)
    if elem is None:
        return np.ascontiguousarray(elems).reshape(-1).view(np.uint8)
    fmt = format_of(elem)
    return to_c_layout(np.asarray(elems), source_format(np.asarray(elems), fmt, "elems"))


def mx_dequantize(elems, scales, type=None, *, axis="row", shape=None, fp6_packed=False) -> np.ndarray:
    """y = element * 2^(scale - 127) as f32 of shape (rows, cols) (mf_mx_dequantize). type defaults to the MX
    type of elems' dtype; packed FP6 bytes need type and shape=(rows, cols)."""
    elems = np.asarray(elems)
    if type is None:
        if fp6_packed or elems.dtype == np.uint8:
            raise Error(E_ARG, "mx_dequantize: pass type= for uint8 or packed elements")
        type = elems.dtype
    name, t, elem = _mx_type(type)
    ax = _axis(axis)
    flags = 1 if fp6_packed else 0
    if shape is None:
        if fp6_packed or elems.ndim != 2:
            raise Error(E_ARG, "mx_dequantize: pass shape=(rows, cols)")
        shape = elems.shape
    rows, cols = (int(v) for v in shape)
    ebuf = _mx_elem_buffer(elems, elem, flags)
    sbuf = np.ascontiguousarray(scales).reshape(-1).view(np.uint8)
    eb, sc = ctypes.c_size_t(), ctypes.c_size_t()
    check(core.mf_mx_sizes(t, ax, flags, rows, cols, ctypes.byref(eb), ctypes.byref(sc)), f"mx_dequantize {name}")
    if ebuf.size != eb.value or sbuf.size != sc.value:
        raise Error(E_ARG, f"mx_dequantize {name}: {ebuf.size} element bytes and {sbuf.size} scales, "
                           f"expected {eb.value} and {sc.value} for {rows} x {cols}")
    y = np.empty((rows, cols), np.float32)
    check(core.mf_mx_dequantize(t, ax, flags, addr(ebuf), u8ptr(sbuf), rows, cols, fptr(y)), f"mx_dequantize {name}")
    return y


def fp6_pack(codes) -> np.ndarray:
    """n 6-bit codes (one per byte) -> (6n + 7) / 8 bytes, the dense layout of mf_fp6_pack."""
    src = np.ascontiguousarray(codes).reshape(-1).view(np.uint8)
    dst = np.zeros((6 * src.size + 7) // 8, np.uint8)
    check(core.mf_fp6_pack(u8ptr(dst), u8ptr(src), src.size), "fp6_pack")
    return dst


def fp6_unpack(packed, n: int) -> np.ndarray:
    """Inverse of fp6_pack: n codes, one per byte (uint8)."""
    src = np.ascontiguousarray(packed, np.uint8).reshape(-1)
    if src.size < (6 * n + 7) // 8:
        raise Error(E_ARG, f"fp6_unpack: {src.size} bytes hold fewer than {n} codes")
    dst = np.zeros(n, np.uint8)
    check(core.mf_fp6_unpack(u8ptr(dst), u8ptr(src), n), "fp6_unpack")
    return dst


# ---- NVFP4 -----------------------------------------------------------------------------------------------


def nvfp4_global_scale(amax: float) -> float:
    """Transformer Engine's per-tensor encode scale 2688 / amax (mf_nvfp4_global_scale)."""
    return core.mf_nvfp4_global_scale(float(amax))


def nvfp4_quantize(x, *, axis="row", amax: Optional[float] = None, round="rn", seed=0, sr_offset=0, stats=False):
    """Quantize a rows x cols tensor into NVFP4 (mf_nvfp4_quantize).

    Returns (elems, scales, amax[, Stats]): e2m1 elements (rows, cols) one code per byte (float4_e2m1fn or
    uint8), e4m3 block scales (float8_e4m3fn or uint8) of shape (rows, cols/16) or (rows/16, cols), and the amax
    used (a float: pass it to nvfp4_dequantize).
    """
    ax = _axis(axis)
    x = _as_2d_f32(x)
    rows, cols = x.shape
    eb, sc = ctypes.c_size_t(), ctypes.c_size_t()
    check(core.mf_nvfp4_sizes(ax, rows, cols, ctypes.byref(eb), ctypes.byref(sc)), "nvfp4_quantize")
    elems = np.zeros(eb.value, np.uint8)
    scales = np.zeros(sc.value, np.uint8)
    amax_in = ctypes.c_float(amax) if amax is not None else None
    amax_out = ctypes.c_float()
    st = _lib.mf_stats() if stats else None
    opts = make_opts(round, False, seed, sr_offset, st)
    rc = core.mf_nvfp4_quantize(ax, fptr(x), rows, cols, u8ptr(elems), u8ptr(scales),
                                ctypes.byref(amax_in) if amax_in is not None else None, ctypes.byref(amax_out),
                                ctypes.byref(opts))
    check(rc, "nvfp4_quantize")
    e = from_c_layout(elems, format_of("e2m1"), rows * cols).reshape(rows, cols)
    s = scales.reshape(_scale_shape(rows, cols, ax, NVFP4_BLOCK)).view(format_of("e4m3").array_dtype)
    out = (e, s, amax_out.value)
    return out + (Stats._from_c(st),) if stats else out


def nvfp4_dequantize(elems, scales, amax: float, *, axis="row") -> np.ndarray:
    """y = e2m1 * (scale * amax / 2688) per block, as f32 (mf_nvfp4_dequantize)."""
    elems = np.asarray(elems)
    if elems.ndim != 2:
        raise Error(E_ARG, "nvfp4_dequantize: elems must be 2-D (rows, cols), one code per element")
    rows, cols = elems.shape
    ax = _axis(axis)
    ebuf = to_c_layout(elems, source_format(elems, "e2m1", "elems"))
    sbuf = np.ascontiguousarray(scales).reshape(-1).view(np.uint8)
    sc = ctypes.c_size_t()
    check(core.mf_nvfp4_sizes(ax, rows, cols, None, ctypes.byref(sc)), "nvfp4_dequantize")
    if sbuf.size != sc.value:
        raise Error(E_ARG, f"nvfp4_dequantize: {sbuf.size} scales, expected {sc.value} for {rows} x {cols}")
    y = np.empty((rows, cols), np.float32)
    check(core.mf_nvfp4_dequantize(ax, u8ptr(ebuf), u8ptr(sbuf), float(amax), rows, cols, fptr(y)),
          "nvfp4_dequantize")
    return y


# ---- FP8 recipes (Transformer Engine) --------------------------------------------------------------------

_BLOCKS = {"1x128": 0, "128x128": 1, "128x1": 2}


def _block(kind) -> int:
    if isinstance(kind, str) and kind.lower() in _BLOCKS:
        return _BLOCKS[kind.lower()]
    raise Error(E_ARG, f"unknown FP8 block kind {kind!r} (1x128, 128x128, 128x1)")


def fp8_max(fmt: FormatLike) -> float:
    """448 for e4m3, 57344 for e5m2 (mf_fp8_max)."""
    out = ctypes.c_float()
    check(core.mf_fp8_max(format_of(fmt).value, ctypes.byref(out)), "fp8_max")
    return out.value


def amax(x, *, src: Optional[FormatLike] = None) -> float:
    """max |x| with NaNs skipped, as Transformer Engine's amax kernels (mf_amax); f32/f64/f16/bf16 data."""
    x = np.asarray(x)
    fmt = source_format(x, src)
    buf = to_c_layout(x, fmt)
    out = ctypes.c_float()
    check(core.mf_amax(fmt.value, addr(buf), x.size, ctypes.byref(out)), "amax")
    return out.value


def scale_from_amax(amax_: float, max_q: float, *, pow2=False, epsilon=0.0, value_for_inf=3.4028234663852886e38):
    """TE's compute_scale_from_amax, step by step in binary32 (mf_scale_from_amax)."""
    return core.mf_scale_from_amax(float(amax_), float(max_q), int(bool(pow2)), float(epsilon), float(value_for_inf))


def fp8_current_scale(fmt: FormatLike, amax_: float, *, pow2=False, epsilon=0.0) -> tuple:
    """(scale, scale_inv) of per-tensor current scaling (mf_fp8_current_scale)."""
    s, si = ctypes.c_float(), ctypes.c_float()
    check(core.mf_fp8_current_scale(format_of(fmt).value, float(amax_), int(bool(pow2)), float(epsilon),
                                    ctypes.byref(s), ctypes.byref(si)), "fp8_current_scale")
    return s.value, si.value


def fp8_quantize(x, fmt: FormatLike, scale: float, *, src: Optional[FormatLike] = None) -> tuple:
    """(q, amax): q = fp8_rn_sat(x * scale) with the binary32 product first, as TE's cast kernels
    (mf_fp8_quantize); amax of the input from the same pass."""
    x = np.asarray(x)
    sfmt = source_format(x, src)
    dfmt = format_of(fmt)
    sbuf = to_c_layout(x, sfmt)
    q = np.empty(x.size, np.uint8)
    am = ctypes.c_float()
    check(core.mf_fp8_quantize(dfmt.value, addr(q), sfmt.value, addr(sbuf), x.size, float(scale), ctypes.byref(am)),
          "fp8_quantize")
    return from_c_layout(q, dfmt, x.size).reshape(x.shape), am.value


def fp8_dequantize(q, scale_inv: float, *, to: FormatLike = "f32", src: Optional[FormatLike] = None) -> np.ndarray:
    """round(fp8(q) * scale_inv) into f32/f16/bf16 (mf_fp8_dequantize)."""
    q = np.asarray(q)
    sfmt = source_format(q, src)
    dfmt = format_of(to)
    sbuf = to_c_layout(q, sfmt)
    out = np.empty(q.size, dfmt.code_dtype)
    check(core.mf_fp8_dequantize(dfmt.value, addr(out), sfmt.value, addr(sbuf), q.size, float(scale_inv)),
          "fp8_dequantize")
    return from_c_layout(out, dfmt, q.size).reshape(q.shape)


def fp8_quantize_current(x, fmt: FormatLike, *, pow2=False, epsilon=0.0, src: Optional[FormatLike] = None) -> tuple:
    """Current scaling in one call: (q, amax, scale, scale_inv) (mf_fp8_quantize_current)."""
    x = np.asarray(x)
    sfmt = source_format(x, src)
    dfmt = format_of(fmt)
    sbuf = to_c_layout(x, sfmt)
    q = np.empty(x.size, np.uint8)
    am, s, si = ctypes.c_float(), ctypes.c_float(), ctypes.c_float()
    check(core.mf_fp8_quantize_current(dfmt.value, addr(q), sfmt.value, addr(sbuf), x.size, int(bool(pow2)),
                                       float(epsilon), ctypes.byref(am), ctypes.byref(s), ctypes.byref(si)),
          "fp8_quantize_current")
    return from_c_layout(q, dfmt, x.size).reshape(x.shape), am.value, s.value, si.value


class DelayedScaling:
    """One FP8 tensor under TE's delayed scaling (mf_fp8_delayed_*): quantize() with the current scale while
    recording amax, update() at the end of each step."""

    def __init__(self, fmt: FormatLike = "e4m3", *, history_len=1024, algo="max", margin=0, roll_on_zero_amax=False,
                 initial_scale=1.0):
        algos = {"max": 0, "most_recent": 1}
        if algo not in algos:
            raise Error(E_ARG, f"unknown amax algorithm {algo!r} (max, most_recent)")
        self._fmt = format_of(fmt)
        cfg = _lib.mf_fp8_delayed_cfg(self._fmt.value, int(history_len), algos[algo], int(margin),
                                      int(bool(roll_on_zero_amax)), float(initial_scale))
        self._st = _lib.mf_fp8_delayed()
        check(core.mf_fp8_delayed_init(ctypes.byref(self._st), ctypes.byref(cfg)), "DelayedScaling")

    scale = property(lambda self: self._st.scale)
    scale_inv = property(lambda self: self._st.scale_inv)
    steps = property(lambda self: self._st.steps)
    scaled_max = property(lambda self: self._st.scaled_max)

    @property
    def history(self) -> np.ndarray:
        """history[0] accumulates the current step; [1] is the oldest finished step, [-1] the latest."""
        return np.ctypeslib.as_array(self._st.history)[: self._st.cfg.history_len].copy()

    def record(self, amax_: float) -> None:
        check(core.mf_fp8_delayed_record(ctypes.byref(self._st), float(amax_)), "record")

    def update(self) -> None:
        check(core.mf_fp8_delayed_update(ctypes.byref(self._st)), "update")

    def quantize(self, x, *, src: Optional[FormatLike] = None) -> np.ndarray:
        x = np.asarray(x)
        sfmt = source_format(x, src)
        sbuf = to_c_layout(x, sfmt)
        q = np.empty(x.size, np.uint8)
        check(core.mf_fp8_delayed_quantize(ctypes.byref(self._st), addr(q), sfmt.value, addr(sbuf), x.size),
              "DelayedScaling.quantize")
        return from_c_layout(q, self._fmt, x.size).reshape(x.shape)


def fp8_block_scale_shape(kind, rows: int, cols: int) -> tuple:
    r, c = ctypes.c_size_t(), ctypes.c_size_t()
    check(core.mf_fp8_block_scale_shape(_block(kind), rows, cols, ctypes.byref(r), ctypes.byref(c)),
          "fp8_block_scale_shape")
    return r.value, c.value


def fp8_block_quantize(x, fmt: FormatLike = "e4m3", kind="1x128", *, pow2=True, epsilon=0.0,
                       src: Optional[FormatLike] = None) -> tuple:
    """TE Float8BlockScaling: (q of x's shape, scale_inv of fp8_block_scale_shape) (mf_fp8_block_quantize)."""
    x = np.asarray(x)
    if x.ndim != 2:
        raise Error(E_ARG, "fp8_block_quantize takes a 2-D tensor")
    sfmt = source_format(x, src)
    dfmt = format_of(fmt)
    rows, cols = x.shape
    sr, scn = fp8_block_scale_shape(kind, rows, cols)
    sbuf = to_c_layout(x, sfmt)
    q = np.empty(x.size, np.uint8)
    si = np.empty((sr, scn), np.float32)
    check(core.mf_fp8_block_quantize(dfmt.value, addr(q), fptr(si), sfmt.value, addr(sbuf), rows, cols, _block(kind),
                                     int(bool(pow2)), float(epsilon)), "fp8_block_quantize")
    return from_c_layout(q, dfmt, x.size).reshape(x.shape), si


def fp8_block_dequantize(q, scale_inv, kind="1x128", *, to: FormatLike = "f32",
                         src: Optional[FormatLike] = None) -> np.ndarray:
    """round(fp8(q) * scale_inv[block]) (mf_fp8_block_dequantize)."""
    q = np.asarray(q)
    if q.ndim != 2:
        raise Error(E_ARG, "fp8_block_dequantize takes a 2-D tensor")
    sfmt = source_format(q, src)
    dfmt = format_of(to)
    rows, cols = q.shape
    si = np.ascontiguousarray(scale_inv, np.float32)
    if si.size != int(np.prod(fp8_block_scale_shape(kind, rows, cols))):
        raise Error(E_ARG, "fp8_block_dequantize: scale_inv does not have fp8_block_scale_shape's size")
    sbuf = to_c_layout(q, sfmt)
    out = np.empty(q.size, dfmt.code_dtype)
    check(core.mf_fp8_block_dequantize(dfmt.value, addr(out), sfmt.value, addr(sbuf), fptr(si), rows, cols,
                                       _block(kind)), "fp8_block_dequantize")
    return from_c_layout(out, dfmt, q.size).reshape(q.shape)

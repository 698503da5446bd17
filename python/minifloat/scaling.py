"""Scaling: loss scaling (loss_scale.h), MX and NVFP4 block formats (mx.h), FP8 recipes (fp8_scaling.h)."""

from __future__ import annotations

import copy as _copy
import ctypes
import warnings
from typing import Optional

import numpy as np

from . import _lib
from ._core import (
    E_FORMAT,
    Error,
    Format,
    FormatLike,
    Stats,
    addr,
    arg_error,
    arg_type_error,
    bool_arg,
    check,
    check_codes,
    float_arg,
    fmt_arg,
    fill_out,
    format_of,
    fptr,
    from_c_layout,
    int_arg,
    make_opts,
    out_arg,
    out_arrays,
    result_array,
    source_format,
    store,
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
        # mf_loss_scaler_init's rules (loss_scale.h), checked here to name the argument
        f = "LossScaler"
        init_scale = float_arg(f, "init_scale", init_scale, positive=True)
        growth_factor = float_arg(f, "growth_factor", growth_factor)
        if not growth_factor >= 1:
            raise arg_error(f, "growth_factor", f"growth_factor ({growth_factor}) must be >= 1")
        backoff_factor = float_arg(f, "backoff_factor", backoff_factor, positive=True)
        if not backoff_factor <= 1:
            raise arg_error(f, "backoff_factor", f"backoff_factor ({backoff_factor}) must be in (0, 1]")
        growth_interval = int_arg(f, "growth_interval", growth_interval, 1, 2**31 - 1)
        hysteresis = int_arg(f, "hysteresis", hysteresis, 1, 2**31 - 1)
        min_scale = float_arg(f, "min_scale", min_scale, nonnegative=True)
        max_scale = float_arg(f, "max_scale", max_scale, nonnegative=True)
        for name, v in (("min_scale", min_scale), ("max_scale", max_scale)):
            if v == 0 and np.signbit(v):
                raise arg_error(f, name, f"{name} must be +0 (unset) or positive, not -0")
        if min_scale and max_scale and min_scale > max_scale:
            raise arg_error(f, "min_scale", f"min_scale ({min_scale}) must be <= max_scale ({max_scale})")
        if init_scale < min_scale or (max_scale and init_scale > max_scale):
            raise arg_error(f, "init_scale", f"init_scale ({init_scale}) must lie in [min_scale, max_scale] "
                                             f"([{min_scale}, {max_scale or 'inf'}])")
        cfg = _lib.mf_loss_scaler_config(
            init_scale, growth_factor, backoff_factor, growth_interval, hysteresis, min_scale, max_scale,
            int(bool_arg(f, "static_scale", static_scale)),
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
        loss = float_arg("LossScaler.scale_loss", "loss", loss, finite=False)
        return np.float32(core.mf_scale_loss(ctypes.byref(self._s), float(np.float32(loss))))

    def unscale_(self, *grads) -> bool:
        """Unscale every gradient array in place; True if any element was inf or NaN (the check reads the
        inputs). The scaler's state does not change: pass the result to update()."""
        f = "LossScaler.unscale_"
        keep = []
        for i, g in enumerate(grads):
            name = f"grads[{i}]"
            if isinstance(g, tuple):
                if len(g) != 2:
                    raise arg_type_error(f, name, f"{name} must be an array or an (array, format) pair")
                arr, fmt = g[0], fmt_arg(f, name, g[1])
            else:
                arr = g
                if not isinstance(arr, np.ndarray):
                    raise arg_type_error(f, name, f"{name} must be a numpy array (changed in place), not "
                                                  f"{type(arr).__name__}")
                fmt = source_format(arr, None, name, f)
            if not isinstance(arr, np.ndarray):
                raise arg_type_error(f, name, f"{name} must be a numpy array (changed in place)")
            if fmt.name not in ("f32", "f16", "bf16"):
                raise arg_error(f, name, f"{name} holds {fmt.name}: gradients are f32, f16 or bf16", E_FORMAT)
            if not arr.flags.c_contiguous or not arr.flags.writeable:
                raise arg_error(f, name, f"{name} must be a writable C-contiguous array (it is changed in place)")
            if arr.dtype.itemsize * 8 != fmt.info.bits:
                raise arg_error(f, name, f"{name}: a {arr.dtype} array cannot hold {fmt.name}")
            keep.append((arr, fmt.value, arr.size))
        if _lib.native is not None:
            rc = _lib.native.unscale(ctypes.addressof(self._s), tuple(keep))
        else:
            tensors = [_lib.mf_tensor(a.ctypes.data, v, n) for a, v, n in keep]
            arr_t = (_lib.mf_tensor * len(tensors))(*tensors)
            rc = core.mf_unscale_check_tensors(ctypes.byref(self._s), arr_t, len(tensors))
        return bool(check(rc, f))

    def update(self, found_nonfinite: bool) -> bool:
        """Finish a step; True when the optimizer step should be taken (no inf/NaN was found)."""
        found = bool_arg("LossScaler.update", "found_nonfinite", found_nonfinite)
        return bool(check(core.mf_loss_scaler_update(ctypes.byref(self._s), int(found)), "LossScaler.update"))

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


def _mx_type(func: str, t) -> tuple:
    if isinstance(t, str):
        key = t.lower()
        key = _MX_ALIASES.get(key, key)
        if key in MX_TYPES:
            return (key,) + MX_TYPES[key]
        raise arg_error(func, "type", f"type: unknown MX type {t!r} (known: {', '.join(MX_TYPES)})")
    if t is None or isinstance(t, (bool, int, float)):
        raise arg_type_error(func, "type", f"type must be an MX type name or element dtype, not {t!r}")
    try:
        dt = np.dtype(t)  # an element dtype
    except TypeError:
        raise arg_type_error(func, "type", f"type must be an MX type name or element dtype, not {t!r}") from None
    if dt == np.int8:
        return ("mxint8",) + MX_TYPES["mxint8"]
    name = fmt_arg(func, "type", dt).name
    if _MX_ALIASES.get(name) not in MX_TYPES:
        raise arg_error(func, "type", f"type: {dt} is not the element dtype of an MX type", E_FORMAT)
    return _mx_type(func, name)


def _axis(func: str, axis) -> int:
    if isinstance(axis, str) and axis.lower() in _AXES:
        return _AXES[axis.lower()]
    if axis in (0, 1) and not isinstance(axis, (bool, float)):
        return int(axis)
    raise arg_error(func, "axis", f"axis: unknown axis {axis!r} (row or col)")


def _rule(func: str, rule) -> int:
    if isinstance(rule, str) and rule.lower() in _RULES:
        return _RULES[rule.lower()]
    if rule in (0, 1) and not isinstance(rule, (bool, float)):
        return int(rule)
    raise arg_error(func, "rule", f"rule: unknown MX scale rule {rule!r} (floor or rceil)")


def _as_2d_f32(func: str, x, name: str = "x") -> np.ndarray:
    x = np.asarray(x)
    if x.dtype.kind not in "fiu" and x.dtype.name not in ("bfloat16",) and not x.dtype.name.startswith("float"):
        raise arg_type_error(func, name, f"{name} must be an array of real numbers, not of {x.dtype}")
    x = np.ascontiguousarray(x, dtype=np.float32)
    if x.ndim == 1:
        x = x.reshape(1, -1)
    if x.ndim != 2:
        raise arg_error(func, name, f"{name} must be a 2-D tensor (rows x cols), not of shape {x.shape}")
    return x


def _check_blocked(func: str, rows: int, cols: int, axis: int, block: int) -> None:
    """The rule of mx.h: the blocked dimension (columns row-wise, rows column-wise) is a multiple of the block."""
    name, size = ("columns", cols) if axis == 0 else ("rows", rows)
    if size % block:
        raise arg_error(func, "x", f"{name} ({size}) must be a multiple of the block size {block}"
                                   f" ({'axis=row' if axis == 0 else 'axis=col'})")


def _scale_shape(rows: int, cols: int, axis: int, block: int) -> tuple:
    return (rows, cols // block) if axis == 0 else (rows // block, cols)


def _e8m0_or_u8(a: np.ndarray) -> np.ndarray:
    try:
        return a.view(format_of("e8m0").array_dtype)
    except Error:
        return a


def _scale_codes(func: str, scales, fmt: str) -> np.ndarray:
    """Block scale codes: an array of fmt's dtype (float8_e8m0fnu for MX, float8_e4m3fn for NVFP4) or uint8
    codes. Floats are refused: a float32 2.0 is not the scale code of 2."""
    scales = np.asarray(scales)
    f = format_of(fmt)
    if scales.dtype not in (f.array_dtype, np.dtype(np.uint8)):
        raise arg_error(func, "scales", f"scales has dtype {scales.dtype}: block scales are {fmt} codes "
                                        f"({f.array_dtype} or uint8), as the quantizer returned them")
    return np.ascontiguousarray(scales).reshape(-1).view(np.uint8)


def mx_scale_code(type, amax: float, rule="floor") -> int:
    """The E8M0 scale code of a block with largest magnitude amax (mf_mx_scale_code)."""
    f = "mx_scale_code"
    _, t, _ = _mx_type(f, type)
    return check(core.mf_mx_scale_code(t, _rule(f, rule), float_arg(f, "amax", amax, finite=False)), f)


def mx_quantize(x, type="mxfp8_e4m3", *, rule="floor", axis="row", round="rn", seed=0, sr_offset=0,
                stats=False, fp6_packed=False, out=None):
    """Quantize a rows x cols tensor into OCP MX elements and E8M0 scales (mf_mx_quantize).

    Returns (elems, scales[, Stats]): elems of shape (rows, cols) and the element dtype (float8_e4m3fn,
    float6_e2m3fn, float4_e2m1fn one code per byte, ..., int8 for MXINT8; uint8 codes without ml_dtypes), or
    with fp6_packed=True the dense FP6 bytes (mf_fp6_pack layout, 1-D); scales float8_e8m0fnu (or uint8) of
    shape (rows, cols/32) row-wise or (rows/32, cols) column-wise. out: (elems, scales) arrays of those shapes
    and dtypes (or their uint8 codes) to write into and return; nothing is written on error.
    """
    f = "mx_quantize"
    name, t, elem = _mx_type(f, type)
    ax = _axis(f, axis)
    r = _rule(f, rule)
    x = _as_2d_f32(f, x)
    rows, cols = x.shape
    _check_blocked(f, rows, cols, ax, MX_BLOCK)
    stats = bool_arg(f, "stats", stats)
    flags = 1 if bool_arg(f, "fp6_packed", fp6_packed) else 0
    if flags and elem not in ("e2m3", "e3m2"):
        raise arg_error(f, "fp6_packed", f"fp6_packed=True needs an FP6 type (mxfp6_e2m3, mxfp6_e3m2), not {name}")
    eb, sc = ctypes.c_size_t(), ctypes.c_size_t()
    check(core.mf_mx_sizes(t, ax, flags, rows, cols, ctypes.byref(eb), ctypes.byref(sc)), f"{f} {name}")
    e_dtypes = ((np.dtype(np.uint8),) if flags else (np.dtype(np.int8), np.dtype(np.uint8)) if elem is None
                else (format_of(elem).array_dtype, np.dtype(np.uint8)))
    s_dtypes = (format_of("e8m0").array_dtype, np.dtype(np.uint8))
    outs = out_arrays(f, out, (((eb.value,) if flags else (rows, cols), e_dtypes),
                               (_scale_shape(rows, cols, ax, MX_BLOCK), s_dtypes)))
    elems = np.zeros(eb.value, np.uint8)
    scales = np.zeros(sc.value, np.uint8)
    st = _lib.mf_stats() if stats else None
    opts = make_opts(round, False, seed, sr_offset, st, func=f)
    if _lib.native is not None:
        rc = _lib.native.mx_quantize(t, r, ax, flags, x, rows, cols, elems, scales, ctypes.addressof(opts))
    else:
        rc = core.mf_mx_quantize(t, r, ax, flags, fptr(x), rows, cols, addr(elems), u8ptr(scales), ctypes.byref(opts))
    check(rc, f"{f} {name}", {-3: "round"}.get(rc))
    if flags:
        out = elems
    elif elem is None:
        out = elems.view(np.int8).reshape(rows, cols)
    else:
        fmt = format_of(elem)
        out = from_c_layout(elems, fmt, rows * cols).reshape(rows, cols)
    scales = _e8m0_or_u8(scales.reshape(_scale_shape(rows, cols, ax, MX_BLOCK)))
    res = fill_out(outs, (out, scales))
    return res + (Stats._from_c(st),) if stats else res


def _mx_elem_buffer(func: str, elems, elem: Optional[str], flags: int) -> np.ndarray:
    if flags:
        return np.ascontiguousarray(elems, np.uint8).reshape(-1)
    if elem is None:
        if elems.dtype not in (np.dtype(np.int8), np.dtype(np.uint8)):
            raise arg_error(func, "elems", f"elems has dtype {elems.dtype}: MXINT8 elements are int8")
        return np.ascontiguousarray(elems).reshape(-1).view(np.uint8)
    fmt = format_of(elem)
    src = source_format(elems, fmt, "elems", func, "type")
    check_codes(func, "elems", elems, src)
    return to_c_layout(elems, src)


def mx_dequantize(elems, scales, type=None, *, axis="row", shape=None, fp6_packed=False, out=None) -> np.ndarray:
    """y = element * 2^(scale - 127) as f32 of shape (rows, cols) (mf_mx_dequantize). type defaults to the MX
    type of elems' dtype; packed FP6 bytes need type and shape=(rows, cols). scales are E8M0 codes
    (float8_e8m0fnu or uint8, as mx_quantize returns them). out: a float32 (rows, cols) array to write into."""
    f = "mx_dequantize"
    elems = np.asarray(elems)
    flags = 1 if bool_arg(f, "fp6_packed", fp6_packed) else 0
    if type is None:
        if flags or elems.dtype == np.uint8:
            raise arg_error(f, "type", "type is needed for uint8 or packed elements (e.g. type='mxfp8_e4m3')")
        type = elems.dtype
    name, t, elem = _mx_type(f, type)
    ax = _axis(f, axis)
    if shape is None:
        if flags or elems.ndim != 2:
            raise arg_error(f, "shape" if flags else "elems",
                            "shape=(rows, cols) is needed for packed elements" if flags
                            else f"elems must be 2-D (rows, cols), not of shape {elems.shape}")
        shape = elems.shape
    if len(shape) != 2:
        raise arg_error(f, "shape", f"shape must be (rows, cols), not {shape!r}")
    rows, cols = (int_arg(f, "shape", v, 0) for v in shape)
    _check_blocked(f, rows, cols, ax, MX_BLOCK)
    ebuf = _mx_elem_buffer(f, elems, elem, flags)
    sbuf = _scale_codes(f, scales, "e8m0")
    eb, sc = ctypes.c_size_t(), ctypes.c_size_t()
    check(core.mf_mx_sizes(t, ax, flags, rows, cols, ctypes.byref(eb), ctypes.byref(sc)), f"{f} {name}")
    if ebuf.size != eb.value:
        raise arg_error(f, "elems", f"elems has {ebuf.size} element bytes, expected {eb.value} for {rows} x {cols}")
    if sbuf.size != sc.value:
        raise arg_error(f, "scales", f"scales has {sbuf.size} codes, expected {sc.value} for {rows} x {cols}")
    y = result_array(f, out, (rows, cols), format_of("f32"))
    if _lib.native is not None:
        rc = _lib.native.mx_dequantize(t, ax, flags, ebuf, sbuf, rows, cols, y)
    else:
        rc = core.mf_mx_dequantize(t, ax, flags, addr(ebuf), u8ptr(sbuf), rows, cols, fptr(y))
    check(rc, f"{f} {name}")
    return y


def fp6_pack(codes, *, out=None) -> np.ndarray:
    """n 6-bit codes (one per byte) -> (6n + 7) / 8 bytes, the dense layout of mf_fp6_pack. out: a uint8 array of
    that many bytes to write into and return."""
    codes = np.asarray(codes)
    if codes.dtype.itemsize != 1:
        raise arg_error("fp6_pack", "codes", f"codes has dtype {codes.dtype}: FP6 codes are one per byte")
    src = np.ascontiguousarray(codes).reshape(-1).view(np.uint8)
    check_codes("fp6_pack", "codes", src, format_of("e2m3"))
    nb = (6 * src.size + 7) // 8
    dst = np.zeros(nb, np.uint8) if out is None else out_arg("fp6_pack", out, (nb,), (np.dtype(np.uint8),))
    if out is not None and np.may_share_memory(dst, src):
        raise arg_error("fp6_pack", "out", "out shares memory with codes")
    check(core.mf_fp6_pack(u8ptr(dst), u8ptr(src), src.size), "fp6_pack")
    return dst


def fp6_unpack(packed, n: int, *, out=None) -> np.ndarray:
    """Inverse of fp6_pack: n codes, one per byte (uint8). out: a uint8 array of n bytes to write into and
    return."""
    n = int_arg("fp6_unpack", "n", n, 0)
    src = np.ascontiguousarray(packed, np.uint8).reshape(-1)
    if src.size < (6 * n + 7) // 8:
        raise arg_error("fp6_unpack", "packed", f"packed has {src.size} bytes, fewer than the {(6 * n + 7) // 8} "
                                                f"that {n} codes take")
    dst = np.zeros(n, np.uint8) if out is None else out_arg("fp6_unpack", out, (n,), (np.dtype(np.uint8),))
    if out is not None and np.may_share_memory(dst, src):
        raise arg_error("fp6_unpack", "out", "out shares memory with packed")
    check(core.mf_fp6_unpack(u8ptr(dst), u8ptr(src), n), "fp6_unpack")
    return dst


# ---- NVFP4 -----------------------------------------------------------------------------------------------


def nvfp4_global_scale(amax: float) -> float:
    """Transformer Engine's per-tensor encode scale 2688 / amax (mf_nvfp4_global_scale)."""
    return core.mf_nvfp4_global_scale(float_arg("nvfp4_global_scale", "amax", amax, finite=False))


def nvfp4_quantize(x, *, axis="row", amax: Optional[float] = None, round="rn", seed=0, sr_offset=0, stats=False,
                   out=None):
    """Quantize a rows x cols tensor into NVFP4 (mf_nvfp4_quantize).

    Returns (elems, scales, amax[, Stats]): e2m1 elements (rows, cols) one code per byte (float4_e2m1fn or
    uint8), e4m3 block scales (float8_e4m3fn or uint8) of shape (rows, cols/16) or (rows/16, cols), and the amax
    used (a float: pass it to nvfp4_dequantize). out: (elems, scales) arrays of those shapes and dtypes (or their
    uint8 codes) to write into and return; nothing is written on error.
    """
    f = "nvfp4_quantize"
    ax = _axis(f, axis)
    x = _as_2d_f32(f, x)
    rows, cols = x.shape
    _check_blocked(f, rows, cols, ax, NVFP4_BLOCK)
    if amax is not None:
        amax = float_arg(f, "amax", amax, finite=False, nonnegative=True)  # inf is the C library's to take
    stats = bool_arg(f, "stats", stats)
    eb, sc = ctypes.c_size_t(), ctypes.c_size_t()
    check(core.mf_nvfp4_sizes(ax, rows, cols, ctypes.byref(eb), ctypes.byref(sc)), f)
    outs = out_arrays(f, out, (((rows, cols), (format_of("e2m1").array_dtype, np.dtype(np.uint8))),
                               (_scale_shape(rows, cols, ax, NVFP4_BLOCK),
                                (format_of("e4m3").array_dtype, np.dtype(np.uint8)))))
    elems = np.zeros(eb.value, np.uint8)
    scales = np.zeros(sc.value, np.uint8)
    amax_in = ctypes.c_float(amax) if amax is not None else None
    amax_out = ctypes.c_float()
    st = _lib.mf_stats() if stats else None
    opts = make_opts(round, False, seed, sr_offset, st, func=f)
    if _lib.native is not None:
        rc, amax_used = _lib.native.nvfp4_quantize(ax, x, rows, cols, elems, scales, amax, ctypes.addressof(opts))
        amax_out = ctypes.c_float(amax_used)
    else:
        rc = core.mf_nvfp4_quantize(ax, fptr(x), rows, cols, u8ptr(elems), u8ptr(scales),
                                    ctypes.byref(amax_in) if amax_in is not None else None, ctypes.byref(amax_out),
                                    ctypes.byref(opts))
    check(rc, f, {-3: "round"}.get(rc))
    e = from_c_layout(elems, format_of("e2m1"), rows * cols).reshape(rows, cols)
    s = scales.reshape(_scale_shape(rows, cols, ax, NVFP4_BLOCK)).view(format_of("e4m3").array_dtype)
    res = fill_out(outs, (e, s)) + (amax_out.value,)
    return res + (Stats._from_c(st),) if stats else res


def nvfp4_dequantize(elems, scales, amax: float, *, axis="row", out=None) -> np.ndarray:
    """y = e2m1 * (scale * amax / 2688) per block, as f32 (mf_nvfp4_dequantize). out: as mx_dequantize."""
    f = "nvfp4_dequantize"
    elems = np.asarray(elems)
    if elems.ndim != 2:
        raise arg_error(f, "elems", f"elems must be 2-D (rows, cols), one code per element, not of shape "
                                    f"{elems.shape}")
    rows, cols = elems.shape
    ax = _axis(f, axis)
    _check_blocked(f, rows, cols, ax, NVFP4_BLOCK)
    amax = float_arg(f, "amax", amax, finite=False, nonnegative=True)
    src = source_format(elems, "e2m1", "elems", f, "elems' format")
    check_codes(f, "elems", elems, src)
    ebuf = to_c_layout(elems, src)
    sbuf = _scale_codes(f, scales, "e4m3")
    sc = ctypes.c_size_t()
    check(core.mf_nvfp4_sizes(ax, rows, cols, None, ctypes.byref(sc)), f)
    if sbuf.size != sc.value:
        raise arg_error(f, "scales", f"scales has {sbuf.size} codes, expected {sc.value} for {rows} x {cols}")
    y = result_array(f, out, (rows, cols), format_of("f32"))
    if _lib.native is not None:
        rc = _lib.native.nvfp4_dequantize(ax, ebuf, sbuf, amax, rows, cols, y)
    else:
        rc = core.mf_nvfp4_dequantize(ax, u8ptr(ebuf), u8ptr(sbuf), amax, rows, cols, fptr(y))
    check(rc, f)
    return y


# ---- FP8 recipes (Transformer Engine) --------------------------------------------------------------------

_BLOCKS = {"1x128": 0, "128x128": 1, "128x1": 2}


def _block(func: str, kind) -> int:
    if isinstance(kind, str) and kind.lower() in _BLOCKS:
        return _BLOCKS[kind.lower()]
    raise arg_error(func, "kind", f"kind: unknown FP8 block kind {kind!r} (1x128, 128x128, 128x1)")


def _fp8_fmt(func: str, name: str, fmt) -> Format:
    f = fmt_arg(func, name, fmt)
    if f.name not in ("e4m3", "e5m2"):
        raise arg_error(func, name, f"{name}={f.name!r}: the FP8 recipes take e4m3 or e5m2", E_FORMAT)
    return f


def _wide_fmt(func: str, name: str, fmt, allowed=("f32", "f16", "bf16")) -> Format:
    f = fmt_arg(func, name, fmt)
    if f.name not in allowed:
        raise arg_error(func, name, f"{name}={f.name!r}: {func} takes {', '.join(allowed)}", E_FORMAT)
    return f


def fp8_max(fmt: FormatLike) -> float:
    """448 for e4m3, 57344 for e5m2 (mf_fp8_max)."""
    out = ctypes.c_float()
    check(core.mf_fp8_max(_fp8_fmt("fp8_max", "fmt", fmt).value, ctypes.byref(out)), "fp8_max")
    return out.value


def amax(x, *, src: Optional[FormatLike] = None) -> float:
    """max |x| with NaNs skipped, as Transformer Engine's amax kernels (mf_amax); f32/f64/f16/bf16 data."""
    x = np.asarray(x)
    fmt = source_format(x, src, "x", "amax")
    if fmt.name not in ("f32", "f64", "f16", "bf16"):
        raise arg_error("amax", "x", f"x holds {fmt.name}: amax reads f32, f64, f16 or bf16 data", E_FORMAT)
    if _lib.native is not None:
        x = np.ascontiguousarray(x)
        rc, value = _lib.native.amax(fmt.value, x, x.size)
        check(rc, "amax")
        return value
    buf = to_c_layout(x, fmt)
    out = ctypes.c_float()
    check(core.mf_amax(fmt.value, addr(buf), x.size, ctypes.byref(out)), "amax")
    return out.value


def scale_from_amax(amax_: float, max_q: float, *, pow2=False, epsilon=0.0, value_for_inf=3.4028234663852886e38):
    """TE's compute_scale_from_amax, step by step in binary32 (mf_scale_from_amax)."""
    f = "scale_from_amax"
    return core.mf_scale_from_amax(float_arg(f, "amax", amax_, finite=False), float_arg(f, "max_q", max_q),
                                   int(bool_arg(f, "pow2", pow2)), float_arg(f, "epsilon", epsilon, nonnegative=True),
                                   float_arg(f, "value_for_inf", value_for_inf))


def fp8_current_scale(fmt: FormatLike, amax_: float, *, pow2=False, epsilon=0.0) -> tuple:
    """(scale, scale_inv) of per-tensor current scaling (mf_fp8_current_scale)."""
    f = "fp8_current_scale"
    s, si = ctypes.c_float(), ctypes.c_float()
    check(core.mf_fp8_current_scale(_fp8_fmt(f, "fmt", fmt).value, float_arg(f, "amax", amax_, finite=False),
                                    int(bool_arg(f, "pow2", pow2)), float_arg(f, "epsilon", epsilon, nonnegative=True),
                                    ctypes.byref(s), ctypes.byref(si)), f)
    return s.value, si.value


def fp8_quantize(x, fmt: FormatLike, scale: float, *, src: Optional[FormatLike] = None, out=None) -> tuple:
    """(q, amax): q = fp8_rn_sat(x * scale) with the binary32 product first, as TE's cast kernels
    (mf_fp8_quantize); amax of the input from the same pass. scale: finite and > 0. out: an array of x's shape
    and q's dtype (or uint8) to write q into."""
    f = "fp8_quantize"
    x = np.asarray(x)
    sfmt = source_format(x, src, "x", f)
    dfmt = _fp8_fmt(f, "fmt", fmt)
    scale = float_arg(f, "scale", scale, positive=True)
    q = result_array(f, out, x.shape, dfmt)
    if _lib.native is not None:
        rc, am = _lib.native.fp8_quantize(dfmt.value, q, sfmt.value, np.ascontiguousarray(x), x.size, scale)
        check(rc, f)
        return q, am
    sbuf = to_c_layout(x, sfmt)
    qbuf = np.empty(x.size, np.uint8)
    am = ctypes.c_float()
    check(core.mf_fp8_quantize(dfmt.value, addr(qbuf), sfmt.value, addr(sbuf), x.size, scale, ctypes.byref(am)), f)
    return store(q, qbuf, dfmt), am.value


def fp8_dequantize(q, scale_inv: float, *, to: FormatLike = "f32", src: Optional[FormatLike] = None,
                   out=None) -> np.ndarray:
    """round(fp8(q) * scale_inv) into f32/f16/bf16 (mf_fp8_dequantize). scale_inv: finite and > 0."""
    f = "fp8_dequantize"
    q = np.asarray(q)
    sfmt = source_format(q, src, "q", f)
    if sfmt.name not in ("e4m3", "e5m2"):
        raise arg_error(f, "q", f"q holds {sfmt.name}: fp8_dequantize reads e4m3 or e5m2", E_FORMAT)
    dfmt = _wide_fmt(f, "to", to)
    scale_inv = float_arg(f, "scale_inv", scale_inv, positive=True)
    y = result_array(f, out, q.shape, dfmt)
    if _lib.native is not None:
        check(_lib.native.fp8_dequantize(dfmt.value, y, sfmt.value, np.ascontiguousarray(q), q.size, scale_inv), f)
        return y
    sbuf = to_c_layout(q, sfmt)
    buf = np.empty(q.size, dfmt.code_dtype)
    check(core.mf_fp8_dequantize(dfmt.value, addr(buf), sfmt.value, addr(sbuf), q.size, scale_inv), f)
    return store(y, buf, dfmt)


def fp8_quantize_current(x, fmt: FormatLike, *, pow2=False, epsilon=0.0, src: Optional[FormatLike] = None,
                         out=None) -> tuple:
    """Current scaling in one call: (q, amax, scale, scale_inv) (mf_fp8_quantize_current). out: as fp8_quantize."""
    f = "fp8_quantize_current"
    x = np.asarray(x)
    sfmt = source_format(x, src, "x", f)
    dfmt = _fp8_fmt(f, "fmt", fmt)
    res = result_array(f, out, x.shape, dfmt)
    pow2 = int(bool_arg(f, "pow2", pow2))
    epsilon = float_arg(f, "epsilon", epsilon, nonnegative=True)
    if _lib.native is not None:
        rc, amv, sv, siv = _lib.native.fp8_quantize_current(dfmt.value, res, sfmt.value, np.ascontiguousarray(x),
                                                             x.size, pow2, epsilon)
        check(rc, f)
        return res, amv, sv, siv
    sbuf = to_c_layout(x, sfmt)
    q = np.empty(x.size, np.uint8)
    am, s, si = ctypes.c_float(), ctypes.c_float(), ctypes.c_float()
    check(core.mf_fp8_quantize_current(dfmt.value, addr(q), sfmt.value, addr(sbuf), x.size, pow2, epsilon,
                                       ctypes.byref(am), ctypes.byref(s), ctypes.byref(si)), f)
    return store(res, q, dfmt), am.value, s.value, si.value


class DelayedScaling:
    """One FP8 tensor under TE's delayed scaling (mf_fp8_delayed_*): quantize() with the current scale while
    recording amax, update() at the end of each step."""

    def __init__(self, fmt: FormatLike = "e4m3", *, history_len=1024, algo="max", margin=0, roll_on_zero_amax=False,
                 initial_scale=1.0):
        f = "DelayedScaling"
        algos = {"max": 0, "most_recent": 1}
        if algo not in algos:
            raise arg_error(f, "algo", f"algo: unknown amax algorithm {algo!r} (max, most_recent)")
        self._fmt = _fp8_fmt(f, "fmt", fmt)
        cfg = _lib.mf_fp8_delayed_cfg(self._fmt.value, int_arg(f, "history_len", history_len, 1,
                                                               _lib.MF_FP8_HISTORY_MAX),
                                      algos[algo], int_arg(f, "margin", margin, -126, 126),
                                      int(bool_arg(f, "roll_on_zero_amax", roll_on_zero_amax)),
                                      float_arg(f, "initial_scale", initial_scale, positive=True))
        self._st = _lib.mf_fp8_delayed()
        check(core.mf_fp8_delayed_init(ctypes.byref(self._st), ctypes.byref(cfg)), f)

    scale = property(lambda self: self._st.scale)
    scale_inv = property(lambda self: self._st.scale_inv)
    steps = property(lambda self: self._st.steps)
    scaled_max = property(lambda self: self._st.scaled_max)

    @property
    def history(self) -> np.ndarray:
        """history[0] accumulates the current step; [1] is the oldest finished step, [-1] the latest."""
        return np.ctypeslib.as_array(self._st.history)[: self._st.cfg.history_len].copy()

    def record(self, amax_: float) -> None:
        f = "DelayedScaling.record"
        check(core.mf_fp8_delayed_record(ctypes.byref(self._st), float_arg(f, "amax", amax_, finite=False)), f)

    def update(self) -> None:
        check(core.mf_fp8_delayed_update(ctypes.byref(self._st)), "DelayedScaling.update")

    def quantize(self, x, *, src: Optional[FormatLike] = None, out=None) -> np.ndarray:
        f = "DelayedScaling.quantize"
        x = np.asarray(x)
        sfmt = source_format(x, src, "x", f)
        res = result_array(f, out, x.shape, self._fmt)
        sbuf = to_c_layout(x, sfmt)
        q = np.empty(x.size, np.uint8)
        check(core.mf_fp8_delayed_quantize(ctypes.byref(self._st), addr(q), sfmt.value, addr(sbuf), x.size), f)
        return store(res, q, self._fmt)


def fp8_block_scale_shape(rows: int, cols: int, kind="1x128") -> tuple:
    """(rows, cols) of the scale_inv array of a rows x cols tensor under FP8 block scaling `kind`
    (mf_fp8_block_scale_shape). The data comes first and the block kind after it, as in fp8_block_quantize and
    fp8_block_dequantize; the order of the C function, (kind, rows, cols), still works (a kind name in first
    place is unambiguous) but warns (DeprecationWarning)."""
    f = "fp8_block_scale_shape"
    if isinstance(rows, str):
        warnings.warn("fp8_block_scale_shape(kind, rows, cols) is deprecated: call fp8_block_scale_shape(rows, "
                      "cols, kind), the order of fp8_block_quantize(x, fmt, kind)", DeprecationWarning, stacklevel=2)
        rows, cols, kind = cols, kind, rows
    k = _block(f, kind)
    rows = int_arg(f, "rows", rows, 0)
    cols = int_arg(f, "cols", cols, 0)
    r, c = ctypes.c_size_t(), ctypes.c_size_t()
    check(core.mf_fp8_block_scale_shape(k, rows, cols, ctypes.byref(r), ctypes.byref(c)), f)
    return r.value, c.value


def _block_2d(func: str, name: str, x) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim != 2:
        raise arg_error(func, name, f"{name} must be a 2-D tensor (rows x cols), not of shape {x.shape}")
    return x


def fp8_block_quantize(x, fmt: FormatLike = "e4m3", kind="1x128", *, pow2=True, epsilon=0.0,
                       src: Optional[FormatLike] = None, out=None) -> tuple:
    """TE Float8BlockScaling: (q of x's shape, scale_inv of fp8_block_scale_shape) (mf_fp8_block_quantize).
    out: (q, scale_inv) arrays of those shapes and dtypes (q: or uint8 codes) to write into and return; nothing is
    written on error."""
    f = "fp8_block_quantize"
    x = _block_2d(f, "x", x)
    sfmt = source_format(x, src, "x", f)
    dfmt = _fp8_fmt(f, "fmt", fmt)
    k = _block(f, kind)
    rows, cols = x.shape
    sr, scn = fp8_block_scale_shape(rows, cols, kind)
    si = np.empty((sr, scn), np.float32)
    pow2 = int(bool_arg(f, "pow2", pow2))
    epsilon = float_arg(f, "epsilon", epsilon, nonnegative=True)
    outs = out_arrays(f, out, ((x.shape, (dfmt.array_dtype, dfmt.code_dtype)), ((sr, scn), (np.dtype(np.float32),))))
    if _lib.native is not None:
        res = np.empty(x.shape, dfmt.array_dtype)
        check(_lib.native.fp8_block_quantize(dfmt.value, res, si, sfmt.value, np.ascontiguousarray(x), rows, cols, k,
                                             pow2, epsilon), f)
        return fill_out(outs, (res, si))
    sbuf = to_c_layout(x, sfmt)
    q = np.empty(x.size, np.uint8)
    check(core.mf_fp8_block_quantize(dfmt.value, addr(q), fptr(si), sfmt.value, addr(sbuf), rows, cols, k, pow2,
                                     epsilon), f)
    return fill_out(outs, (from_c_layout(q, dfmt, x.size).reshape(x.shape), si))


def fp8_block_dequantize(q, scale_inv, kind="1x128", *, to: FormatLike = "f32",
                         src: Optional[FormatLike] = None, out=None) -> np.ndarray:
    """round(fp8(q) * scale_inv[block]) (mf_fp8_block_dequantize). out: an array of q's shape and the result's
    dtype to write into."""
    f = "fp8_block_dequantize"
    q = _block_2d(f, "q", q)
    sfmt = source_format(q, src, "q", f)
    dfmt = _wide_fmt(f, "to", to)
    k = _block(f, kind)
    rows, cols = q.shape
    si = np.asarray(scale_inv)
    if si.dtype.kind != "f":
        raise arg_error(f, "scale_inv", f"scale_inv has dtype {si.dtype}: it is the float32 array "
                                        "fp8_block_quantize returned")
    si = np.ascontiguousarray(si, np.float32)
    want = fp8_block_scale_shape(rows, cols, kind)
    if si.size != want[0] * want[1]:
        raise arg_error(f, "scale_inv", f"scale_inv has {si.size} values, expected {want[0]} x {want[1]} "
                                        f"(fp8_block_scale_shape({rows}, {cols}, {kind!r}))")
    sbuf = to_c_layout(q, sfmt)
    y = result_array(f, out, q.shape, dfmt)
    if _lib.native is not None:  # into y itself: f32, f16 and bf16 arrays hold the C layout
        check(_lib.native.fp8_block_dequantize(dfmt.value, y, sfmt.value, sbuf, si, rows, cols, k), f)
        return y
    buf = np.empty(q.size, dfmt.code_dtype)
    check(core.mf_fp8_block_dequantize(dfmt.value, addr(buf), sfmt.value, addr(sbuf), fptr(si), rows, cols, k), f)
    return store(y, buf, dfmt)

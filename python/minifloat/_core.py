"""Formats, errors, options and the bulk conversions (convert.h) over numpy arrays."""

from __future__ import annotations

import ctypes
import dataclasses
import functools
from typing import Any, Optional, Union

import numpy as np

from . import _lib
from ._lib import core

try:  # optional: without it narrow results are uint8 / uint16 code arrays
    import ml_dtypes as _ml_dtypes
except ImportError:  # pragma: no cover - exercised by the no-ml_dtypes test in a subprocess
    _ml_dtypes = None

HAVE_ML_DTYPES = _ml_dtypes is not None

# ---- status codes and errors ---------------------------------------------------------------------------

OK = 0
_STATUS_NAMES = {
    -1: "MF_E_NULL",
    -2: "MF_E_FORMAT",
    -3: "MF_E_ROUND",
    -4: "MF_E_POLICY",
    -5: "MF_E_OVERLAP",
    -6: "MF_E_SIZE",
    -7: "MF_E_ARG",
    -8: "MF_E_NOMEM",
    -9: "MF_E_UNSUPPORTED",
    -10: "MF_E_DEVICE",
    -11: "MF_E_PROFILE",
    -12: "MF_E_REDUCE",
}
E_NULL, E_FORMAT, E_ROUND, E_POLICY, E_OVERLAP, E_SIZE, E_ARG = -1, -2, -3, -4, -5, -6, -7
E_NOMEM, E_UNSUPPORTED, E_DEVICE, E_PROFILE, E_REDUCE = -8, -9, -10, -11, -12


def strerror(code: int) -> str:
    """The C library's sentence for a status code (mf_strerror)."""
    return core.mf_strerror(int(code)).decode()


class Error(ValueError):
    """A status code of the C library. `.code` is the MF_E_* value, `.message` mf_strerror's sentence,
    `.context` what the binding was doing."""

    def __init__(self, code: int, context: str = "", message: Optional[str] = None):
        self.code = int(code)
        self.message = message if message is not None else strerror(code)
        self.context = context
        self.status = _STATUS_NAMES.get(self.code, str(self.code))
        text = f"{self.message} ({self.status} = {self.code})"
        super().__init__(f"{context}: {text}" if context else text)

    def __reduce__(self):  # picklable with its fields (errors raised in compat's worker processes)
        return (Error, (self.code, self.context, self.message))


def check(rc: int, context: str) -> int:
    """Raise Error for a negative status; return non-negative results (e.g. a found flag) as they are."""
    if rc < 0:
        raise Error(rc, context)
    return rc


# ---- formats ---------------------------------------------------------------------------------------------


def _dtype_by_name(name: str) -> Optional[np.dtype]:
    if name in ("float64", "float32", "float16"):
        return np.dtype(name)
    if _ml_dtypes is not None and hasattr(_ml_dtypes, name):
        return np.dtype(getattr(_ml_dtypes, name))
    return None


@dataclasses.dataclass(frozen=True)
class FormatInfo:
    """mf_format_describe's facts about a format (all values exact), plus its numpy dtype."""

    name: str
    title: str
    bits: int
    exp_bits: int
    man_bits: int
    bias: int
    is_signed: bool
    has_inf: bool
    has_nan: bool
    has_zero: bool
    has_subnormals: bool
    has_neg_zero: bool  # -0 exists (not in e8m0 and the FNUZ formats)
    max: float
    min_normal: float
    min_subnormal: float
    epsilon: float
    max_code: int
    nan_code: int
    inf_code: int
    dtype: Optional[np.dtype]  # float16 / ml_dtypes dtype; None where ml_dtypes lacks it or is not installed
    code_dtype: np.dtype  # what arrays of this format hold without ml_dtypes (float32/64 for f32/f64)


class Format:
    """A format of the C library: its enum value, tag and array layout."""

    __slots__ = ("value", "name", "info", "dtype", "code_dtype", "packed")

    def __init__(self, value: int, name: str, info: FormatInfo):
        self.value = value
        self.name = name
        self.info = info
        self.dtype = info.dtype
        self.code_dtype = info.code_dtype
        # C packs a 4-bit format (e2m1) two codes per byte (convert.h); numpy arrays hold one code per byte
        self.packed = core.mf_storage_bytes(value, 2) == 1

    @property
    def array_dtype(self) -> np.dtype:
        """The dtype of arrays this package returns for the format."""
        return self.dtype if self.dtype is not None else self.code_dtype

    def __repr__(self) -> str:
        return f"minifloat.Format({self.name!r})"

    def __str__(self) -> str:
        return self.name


@functools.lru_cache(maxsize=None)
def _format_by_value(value: int) -> Format:
    desc = _lib.mf_format_desc()
    desc.has_neg_zero = -1  # still -1 after the call: a library from before the field (no FNUZ formats)
    check(core.mf_format_describe(value, ctypes.byref(desc)), f"format {value}")
    has_neg_zero = bool(desc.is_signed and desc.has_zero) if desc.has_neg_zero == -1 else bool(desc.has_neg_zero)
    name = desc.name.decode()
    title = desc.title.decode() if desc.title else name
    if name == "f64":
        code_dtype = np.dtype(np.float64)
    elif name == "f32":
        code_dtype = np.dtype(np.float32)
    elif desc.bits > 8:
        code_dtype = np.dtype(np.uint16)
    else:
        code_dtype = np.dtype(np.uint8)
    dtype = _dtype_by_name(DTYPE_NAMES[name]) if name in DTYPE_NAMES else None
    if dtype is not None and dtype.itemsize != code_dtype.itemsize:
        dtype = None  # never reinterpret bytes of another width
    info = FormatInfo(
        name=name,
        title=title,
        bits=desc.bits,
        exp_bits=desc.exp_bits,
        man_bits=desc.man_bits,
        bias=desc.bias,
        is_signed=bool(desc.is_signed),
        has_inf=bool(desc.has_inf),
        has_nan=bool(desc.has_nan),
        has_zero=bool(desc.has_zero),
        has_subnormals=bool(desc.has_subnormals),
        has_neg_zero=has_neg_zero,
        max=desc.max,
        min_normal=desc.min_normal,
        min_subnormal=desc.min_subnormal,
        epsilon=desc.epsilon,
        max_code=desc.max_code,
        nan_code=desc.nan_code,
        inf_code=desc.inf_code,
        dtype=dtype,
        code_dtype=code_dtype,
    )
    return Format(value, name, info)


def formats() -> list:
    """Tags of every format the loaded C library has, in enum order ("f32", "f16", ..., "f64", ...)."""
    out = []
    for value in range(256):  # formats are appended to the enum, never inserted: stop at the first gap
        name = core.mf_format_name(value)
        if name is None:
            break
        out.append(name.decode())
    return out


# minifloat tag -> numpy / ml_dtypes dtype name, for every format of the loaded C library that has one (its row of
# the C headers' table of formats, through mf_format_dtype); which of those dtypes exist is ml_dtypes' to say
# (_dtype_by_name). Note ml_dtypes' float8_e4m3 is minifloat's e4m3ieee, and minifloat's e4m3 is OCP's E4M3
# (ml_dtypes' float8_e4m3fn).
DTYPE_NAMES = {
    tag: core.mf_format_dtype(value).decode()
    for value, tag in enumerate(formats())
    if core.mf_format_dtype(value) is not None
}


def _format_from_name(name: str) -> Format:
    out = ctypes.c_int()
    rc = core.mf_format_from_name(name.encode(), ctypes.byref(out))
    if rc != OK:
        raise Error(rc, f"unknown format name {name!r} (known: {', '.join(formats())})")
    return _format_by_value(out.value)


@functools.lru_cache(maxsize=None)
def _format_by_dtype(dtype: np.dtype) -> Optional[Format]:
    for tag, dname in DTYPE_NAMES.items():
        if dname == dtype.name:
            try:
                fmt = _format_from_name(tag)
            except Error:
                return None  # a tag this build of the C library does not have yet
            return fmt if fmt.dtype == dtype else None
    return None


FormatLike = Union[str, np.dtype, type, Format]


def format_of(spec: Any) -> Format:
    """Resolve a format: a name mf_format_from_name accepts ("e4m3", "float8_e4m3fn", "bfloat16", ...), a numpy
    or ml_dtypes dtype (or scalar type), or a Format."""
    if isinstance(spec, Format):
        return spec
    if isinstance(spec, str):
        return _format_from_name(spec)
    try:
        dtype = np.dtype(spec)
    except TypeError:
        raise Error(E_ARG, f"not a format: {spec!r}") from None
    fmt = _format_by_dtype(dtype)
    if fmt is None:
        raise Error(E_FORMAT, f"dtype {dtype.name} is not a format of this library")
    return fmt


def finfo(fmt: FormatLike) -> FormatInfo:
    """Everything mf_format_describe says about a format."""
    return format_of(fmt).info


# ---- array layouts ---------------------------------------------------------------------------------------


def codes(x: np.ndarray) -> np.ndarray:
    """The raw codes of an array of narrow values: ml_dtypes arrays as uint8/uint16, float16 as uint16."""
    x = np.asarray(x)
    if x.dtype.kind in "ui":
        return x
    if x.dtype.itemsize == 1:
        return x.view(np.uint8)
    if x.dtype.itemsize == 2:
        return x.view(np.uint16)
    raise Error(E_ARG, f"codes: {x.dtype} is not a 1- or 2-byte format")


def source_format(x: np.ndarray, src: Optional[FormatLike], what: str = "x") -> Format:
    """The format of array x: src if given (x must then hold that format's values or its raw codes), else the
    format of x's dtype. Raw uint8/uint16 codes need src."""
    if src is not None:
        fmt = format_of(src)
        if x.dtype == fmt.array_dtype or x.dtype == fmt.code_dtype or (fmt.dtype is not None and x.dtype == fmt.dtype):
            return fmt
        raise Error(E_ARG, f"{what} has dtype {x.dtype}, which does not hold {fmt.name} values or codes")
    if x.dtype.kind in "ui" or x.dtype.kind == "b":
        raise Error(E_ARG, f"{what} is an array of {x.dtype}: pass src=<format> for code arrays")
    return format_of(x.dtype)


def to_c_layout(x: np.ndarray, fmt: Format) -> np.ndarray:
    """A contiguous buffer of x's elements in the C library's array layout of fmt (convert.h)."""
    flat = np.ascontiguousarray(x).reshape(-1)
    if fmt.name in ("f32", "f64"):
        return flat.astype(fmt.code_dtype, copy=False)
    c = flat.view(fmt.code_dtype)
    if fmt.packed:
        return pack_nibbles(c)
    return c


def from_c_layout(buf: np.ndarray, fmt: Format, n: int) -> np.ndarray:
    """The 1-D array of n elements (one code per byte for e2m1) of a C buffer, viewed as fmt's array dtype."""
    if fmt.packed:
        buf = unpack_nibbles(buf, n)
    return buf.view(fmt.array_dtype) if fmt.name not in ("f32", "f64") else buf


def empty_c_buffer(fmt: Format, n: int) -> np.ndarray:
    nbytes = core.mf_storage_bytes(fmt.value, n)
    if n and nbytes == 0:
        raise Error(E_SIZE, f"{n} elements of {fmt.name}")
    if fmt.packed:
        return np.zeros(nbytes, np.uint8)
    return np.empty(n, fmt.code_dtype)


def pack_nibbles(c: np.ndarray) -> np.ndarray:
    """One 4-bit code per byte -> two per byte, element 2i in bits 0..3 and 2i+1 in bits 4..7."""
    c = np.asarray(c, np.uint8).reshape(-1)
    if c.size % 2:
        c = np.concatenate([c, np.zeros(1, np.uint8)])
    return ((c[0::2] & 0x0F) | ((c[1::2] & 0x0F) << 4)).astype(np.uint8)


def unpack_nibbles(p: np.ndarray, n: int) -> np.ndarray:
    """Inverse of pack_nibbles: n codes, one per byte (top 4 bits 0)."""
    p = np.asarray(p, np.uint8).reshape(-1)
    out = np.empty(2 * p.size, np.uint8)
    out[0::2] = p & 0x0F
    out[1::2] = p >> 4
    return out[:n]


def addr(a: Optional[np.ndarray]) -> Optional[int]:
    return None if a is None else a.ctypes.data


def fptr(a: np.ndarray):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_float))


def u8ptr(a: np.ndarray):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8))


# ---- options ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Stats:
    """Event counts of one call (mf_stats): see include/minifloat/types.h."""

    overflow: int
    underflow: int
    subnormal: int
    nan: int
    inexact: int

    @classmethod
    def _from_c(cls, s: _lib.mf_stats) -> "Stats":
        return cls(int(s.overflow), int(s.underflow), int(s.subnormal), int(s.nan), int(s.inexact))


def round_value(mode: Union[str, int]) -> int:
    if isinstance(mode, str):
        out = ctypes.c_int()
        rc = core.mf_round_from_name(mode.encode(), ctypes.byref(out))
        if rc != OK:
            raise Error(rc, f"unknown rounding mode {mode!r} (rn rna rz ru rd ro sr)")
        return out.value
    return int(mode)


def round_name(value: int) -> str:
    name = core.mf_round_name(value)
    return name.decode() if name else str(value)


def profiles() -> list:
    """Names of the compatibility profiles the loaded library has (["default"] before profiles existed)."""
    if not _lib.has("mf_profile_name"):
        return ["default"]
    out = []
    for value in range(64):
        name = core.mf_profile_name(value)
        if name is None:
            break
        out.append(name.decode())
    return out


def profile_value(profile: Union[str, int]) -> int:
    if isinstance(profile, str):
        if _lib.has("mf_profile_from_name"):
            out = ctypes.c_int()
            rc = core.mf_profile_from_name(profile.encode(), ctypes.byref(out))
            if rc != OK:
                raise Error(rc, f"unknown profile {profile!r} (known: {', '.join(profiles())})")
            return out.value
        if profile.lower() == "default":
            return 0
        raise Error(E_PROFILE, f"profile {profile!r}: this build of the C library has no compatibility profiles")
    value = int(profile)
    if value != 0 and not _lib.has("mf_profile_from_name"):
        raise Error(E_PROFILE, f"profile {value}: this build of the C library has no compatibility profiles")
    return value


def _u64(value: int, what: str) -> int:
    value = int(value)
    if not 0 <= value < 2**64:
        raise Error(E_ARG, f"{what} = {value} is not a 64-bit unsigned integer")
    return value


def make_opts(round="rn", saturate=False, seed=0, sr_offset=0, stats=None, threads=0, profile="default"):
    o = _lib.mf_opts()
    o.round = round_value(round)
    o.overflow = 1 if saturate else 0
    o.seed = _u64(seed, "seed")
    o.sr_offset = _u64(sr_offset, "sr_offset")
    o.stats = ctypes.pointer(stats) if stats is not None else None
    o.threads = int(threads)
    o.profile = profile_value(profile)
    return o


# ---- conversions -----------------------------------------------------------------------------------------


def convert(
    x,
    to: FormatLike,
    *,
    src: Optional[FormatLike] = None,
    round: str = "rn",
    saturate: bool = False,
    profile: str = "default",
    seed: int = 0,
    sr_offset: int = 0,
    stats: bool = False,
    threads: int = 0,
):
    """Convert array x into format `to`, rounding once (mf_convert).

    x: any array of f64/f32/f16 or an ml_dtypes dtype, or raw uint8/uint16 codes with src=<format>.
    to: a format name (anything mf_format_from_name accepts) or dtype.
    round: rn rna rz ru rd ro sr. saturate: clamp to +-max instead of IEEE overflow.
    profile: whose semantics to reproduce ("default", "cuda", "ml_dtypes", "torch", "onnx").
    seed, sr_offset: the stochastic-rounding stream (element i uses index sr_offset + i).
    threads: 0/1 this thread, N > 1 up to N threads for large arrays (same bytes).

    Returns an array of x's shape and the target's dtype (uint8/uint16 codes where ml_dtypes is missing or
    lacks the format; e2m1 one code per byte), and a Stats when stats=True.
    """
    x = np.asarray(x)
    sfmt = source_format(x, src)
    dfmt = format_of(to)
    st = _lib.mf_stats() if stats else None
    opts = make_opts(round, saturate, seed, sr_offset, st, threads, profile)
    n = x.size
    sbuf = to_c_layout(x, sfmt)
    dbuf = empty_c_buffer(dfmt, n)
    rc = core.mf_convert(dfmt.value, addr(dbuf), sfmt.value, addr(sbuf), n, ctypes.byref(opts))
    check(rc, f"convert {sfmt.name} -> {dfmt.name}")
    out = from_c_layout(dbuf, dfmt, n).reshape(x.shape)
    return (out, Stats._from_c(st)) if stats else out


def decode(codes_, fmt: Optional[FormatLike] = None, to: FormatLike = "f32", *, profile: str = "default"):
    """The values of codes of format fmt as f32 (or to="f64"), exactly. codes_ may be an ml_dtypes / float16
    array (fmt then defaults to its dtype's format) or raw uint8/uint16 codes (fmt required)."""
    return convert(codes_, to, src=fmt, profile=profile)


def backend() -> str:
    """The SIMD backend bulk calls use in this process (mf_backend)."""
    return core.mf_backend().decode()


def version() -> str:
    """The C library's version (mf_version)."""
    return core.mf_version().decode()

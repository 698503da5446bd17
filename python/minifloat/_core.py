"""Formats, errors, options and the bulk conversions (convert.h) over numpy arrays."""

from __future__ import annotations

import ctypes
import dataclasses
import difflib
import functools
import math
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
    """A status code of the C library, or an argument the binding refused. `.code` is the MF_E_* value, `.message`
    mf_strerror's sentence, `.context` the function (and what it was doing), `.argument` the name of the
    offending argument where one is to blame (None otherwise) and `.rule` the rule it broke, e.g.
    "columns (33) must be a multiple of the block size 32"."""

    def __init__(self, code: int, context: str = "", message: Optional[str] = None, argument: Optional[str] = None,
                 rule: Optional[str] = None, library: bool = False):
        self.code = int(code)
        self.message = message if message is not None else strerror(code)
        self.context = context
        self.argument = argument
        self.rule = rule
        self.library = library  # the C library returned the code (its sentence is then part of the text)
        self.status = _STATUS_NAMES.get(self.code, str(self.code))
        if rule:
            text = f"{rule} ({self.status}: {self.message})" if library else f"{rule} ({self.status})"
        else:
            text = f"{self.message} ({self.status} = {self.code})"
        super().__init__(f"{context}: {text}" if context else text)

    def __reduce__(self):  # picklable with its fields (errors raised in compat's worker processes)
        return (type(self), (self.code, self.context, self.message, self.argument, self.rule, self.library))


class ArgumentTypeError(Error, TypeError):
    """An argument of the wrong type (a bool, number, format or array where something else was given): both a
    minifloat.Error (a ValueError, code MF_E_ARG) and a TypeError."""


def arg_error(func: str, argument: str, rule: str, code: int = -7) -> Error:
    """The error for argument `argument` of `func` breaking `rule` (a sentence that names the argument)."""
    return Error(code, func, None, argument, rule)


def arg_type_error(func: str, argument: str, rule: str) -> ArgumentTypeError:
    return ArgumentTypeError(-7, func, None, argument, rule)


def _what(v: Any) -> str:
    """A short description of a value for an error message: its type and, when short, its repr."""
    if v is None:
        return "None"
    r = repr(v)
    return f"{type(v).__name__} {r}" if len(r) <= 40 else type(v).__name__


def check(rc: int, context: str, argument: Optional[str] = None) -> int:
    """Raise Error for a negative status; return non-negative results (e.g. a found flag) as they are."""
    if rc < 0:
        raise Error(rc, context, None, argument)
    return rc


# ---- argument checks: each names the argument and the rule -----------------------------------------------


def bool_arg(func: str, name: str, v: Any) -> bool:
    """True/False (numpy bools too); anything else, 1 and "yes" included, is an ArgumentTypeError."""
    if v is True or v is False:
        return v
    if isinstance(v, np.bool_):
        return bool(v)
    raise arg_type_error(func, name, f"{name} must be a bool (True or False), not {_what(v)}")


def saturate_arg(func: str, v: Any) -> int:
    """The overflow policy as mf_overflow's value: False IEEE overflow (P3109 SatNone), True clamping to +-max
    (SatFinite), "propagate" clamping finite values and keeping infinities (SatPropagate)."""
    if v is True or v is False or isinstance(v, np.bool_):
        return int(bool(v))
    if isinstance(v, str) and v == "propagate":
        return 2
    raise arg_type_error(func, "saturate", f'saturate must be a bool (True or False) or "propagate", not {_what(v)}')


def int_arg(func: str, name: str, v: Any, lo: Optional[int] = None, hi: Optional[int] = None) -> int:
    """An integer (Python or numpy, not bool) in [lo, hi]."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise arg_type_error(func, name, f"{name} must be an integer, not {_what(v)}")
    v = int(v)
    if lo is not None and v < lo:
        bound = f"between {lo} and {hi}" if hi is not None else f">= {lo}"
        raise arg_error(func, name, f"{name} ({v}) must be {bound}")
    if hi is not None and v > hi:
        raise arg_error(func, name, f"{name} ({v}) must be between {lo} and {hi}" if lo is not None
                        else f"{name} ({v}) must be <= {hi}")
    return v


def float_arg(func: str, name: str, v: Any, *, finite: bool = True, positive: bool = False,
              nonnegative: bool = False) -> float:
    """A real number (Python or numpy, not bool) obeying the flags."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise arg_type_error(func, name, f"{name} must be a real number, not {_what(v)}")
    f = float(v)
    if finite and not math.isfinite(f):
        rule = "finite and > 0" if positive else "finite and >= 0" if nonnegative else "finite"
        raise arg_error(func, name, f"{name} ({f}) must be {rule}")
    if positive and not f > 0:
        raise arg_error(func, name, f"{name} ({f}) must be > 0")
    if nonnegative and not f >= 0:
        raise arg_error(func, name, f"{name} ({f}) must be >= 0")
    return f


def u64_arg(func: str, name: str, v: Any) -> int:
    v = int_arg(func, name, v)
    if not 0 <= v < 2**64:
        raise arg_error(func, name, f"{name} ({v}) must be an unsigned 64-bit integer (0 <= {name} < 2**64)")
    return v


def unknown_kwargs(func: str, unknown: dict, known: tuple, aliases: Optional[dict] = None) -> None:
    """Refuse keyword arguments a function does not take, suggesting the right names (fmt for format=, ...)."""
    if not unknown:
        return
    name = sorted(unknown)[0]
    guess = (aliases or {}).get(name) or difflib.get_close_matches(name, known, 1, 0.6)
    hint = f" (did you mean {' or '.join(g + '=' for g in guess)}?)" if guess else f" (it takes {', '.join(known)})"
    raise arg_type_error(func, name, f"unknown argument {name}={_what(unknown[name])}{hint}")


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

    __slots__ = ("value", "name", "info", "dtype", "code_dtype", "array_dtype", "packed")

    def __init__(self, value: int, name: str, info: FormatInfo):
        self.value = value
        self.name = name
        self.info = info
        self.dtype = info.dtype
        self.code_dtype = info.code_dtype
        # the dtype of arrays this package returns for the format
        self.array_dtype = info.dtype if info.dtype is not None else info.code_dtype
        # C packs a 4-bit format (e2m1) two codes per byte (convert.h); numpy arrays hold one code per byte
        self.packed = core.mf_storage_bytes(value, 2) == 1

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


def _format_from_name(name: str, func: str = "format_of", argument: str = "fmt") -> Format:
    out = ctypes.c_int()
    rc = core.mf_format_from_name(name.encode(), ctypes.byref(out))
    if rc != OK:
        raise Error(rc, func, None, argument,
                    f"{argument}: unknown format name {name!r} (known: {', '.join(formats())})")
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

# Resolved format arguments (names, dtypes, scalar types): the per-call lookup is one dict access.
_FORMAT_CACHE: dict = {}


def _byteorder_rule(argument: str, dtype: np.dtype) -> Optional[str]:
    if dtype.byteorder not in ("=", "|") and dtype.isnative is False:
        return (f"{argument} has the non-native byte order dtype {dtype.str!r} (minifloat reads numbers in this "
                f"machine's byte order): convert it first with .astype({dtype.newbyteorder('=').str!r})")
    return None


def fmt_arg(func: str, argument: str, spec: Any) -> Format:
    """Resolve format argument `argument` of `func`: a name mf_format_from_name accepts, a numpy / ml_dtypes dtype
    or scalar type, or a Format; errors name the argument."""
    try:
        return _FORMAT_CACHE[spec]
    except (KeyError, TypeError):
        pass
    if isinstance(spec, Format):
        return spec
    if isinstance(spec, str):
        fmt = _format_from_name(spec, func, argument)
    else:
        if spec is None or isinstance(spec, (bool, int, float, np.ndarray)):
            raise arg_type_error(func, argument, f"{argument} must be a format name or dtype, not {_what(spec)}")
        try:
            dtype = np.dtype(spec)
        except TypeError:
            raise arg_type_error(func, argument,
                                 f"{argument} must be a format name or dtype, not {_what(spec)}") from None
        rule = _byteorder_rule(argument, dtype)
        if rule:
            raise arg_error(func, argument, rule, E_FORMAT)
        fmt = _format_by_dtype(dtype)
        if fmt is None:
            raise arg_error(func, argument, f"{argument}: dtype {dtype.name} is not a format of this library", E_FORMAT)
    try:
        _FORMAT_CACHE[spec] = fmt
    except TypeError:
        pass
    return fmt


def format_of(spec: Any) -> Format:
    """Resolve a format: a name mf_format_from_name accepts ("e4m3", "float8_e4m3fn", "bfloat16", ...), a numpy
    or ml_dtypes dtype (or scalar type), or a Format."""
    return fmt_arg("format_of", "fmt", spec)


def finfo(fmt: FormatLike) -> FormatInfo:
    """Everything mf_format_describe says about a format."""
    return format_of(fmt).info


# ---- array layouts ---------------------------------------------------------------------------------------


# The format of each array dtype this package returns (f64, f32, f16 and the ml_dtypes dtypes).
_FORMAT_BY_ARRAY_DTYPE = {}
for _tag in formats():
    _f = _format_from_name(_tag)
    if _f.dtype is not None:
        _FORMAT_BY_ARRAY_DTYPE[_f.dtype] = _f
        _FORMAT_CACHE[_tag] = _f


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


def source_format(x: np.ndarray, src: Optional[FormatLike], what: str = "x", func: str = "convert",
                  src_name: str = "src") -> Format:
    """The format of array x: src if given (x must then hold that format's values or its raw codes), else the
    format of x's dtype. Raw uint8/uint16 codes need src."""
    if src is None:
        fmt = _FORMAT_BY_ARRAY_DTYPE.get(x.dtype)
        if fmt is not None:
            return fmt
        rule = _byteorder_rule(what, x.dtype)
        if rule:
            raise arg_error(func, what, rule, E_FORMAT)
        if x.dtype.kind in "uib":
            raise arg_error(func, what, f"{what} is an array of {x.dtype}: pass {src_name}=<format> for code arrays")
        if x.dtype.kind in "fV" or x.dtype.name in DTYPE_NAMES.values():
            try:
                return fmt_arg(func, what, x.dtype)
            except Error:
                pass
        raise arg_error(func, what, f"{what} has dtype {x.dtype}, which is not a format of this library (f64, f32, "
                                    "f16, or an ml_dtypes dtype; raw codes with src=)", E_FORMAT)
    fmt = fmt_arg(func, src_name, src)
    if x.dtype == fmt.array_dtype or x.dtype == fmt.code_dtype or (fmt.dtype is not None and x.dtype == fmt.dtype):
        return fmt
    raise arg_error(func, what, f"{what} has dtype {x.dtype}, which does not hold {fmt.name} values or codes "
                                f"({src_name}={fmt.name!r}: {fmt.array_dtype} or {fmt.code_dtype} arrays)")


def check_codes(func: str, what: str, buf: np.ndarray, fmt: Format) -> None:
    """Refuse codes with bits set above a sub-byte format's width (e2m1: 4, e2m3/e3m2: 6): the C library would
    ignore them, so a wrong array would convert silently."""
    bits = fmt.info.bits
    if bits >= 8 or buf.size == 0:
        return
    b = buf.reshape(-1).view(np.uint8)
    if _lib.native is not None:
        bad = _lib.native.first_bad_code(b, b.size, bits)
    else:
        over = np.flatnonzero(b >> bits)
        bad = int(over[0]) if over.size else -1
    if bad >= 0:
        top = (1 << bits) - 1
        raise arg_error(func, what, f"{what}[{bad}] holds the code 0x{int(b[bad]):02x}, out of range for {fmt.name} "
                                    f"({bits}-bit codes 0x00..0x{top:02x}); mask with & 0x{top:02x} if the high bits "
                                    "are padding")


def out_arg(func: str, out: Any, shape: tuple, dtypes: tuple, name: str = "out") -> np.ndarray:
    """A caller's out= array: an ndarray of one of dtypes and the result's shape, C-contiguous and writable."""
    if not isinstance(out, np.ndarray):
        raise arg_type_error(func, name, f"{name} must be a numpy array, not {_what(out)}")
    if out.dtype not in dtypes:
        names = " or ".join(dict.fromkeys(str(d) for d in dtypes))
        raise arg_error(func, name, f"{name} has dtype {out.dtype}, expected {names}")
    if out.shape != tuple(shape):
        raise arg_error(func, name, f"{name} has shape {out.shape}, expected {tuple(shape)}")
    if not out.flags.c_contiguous:
        raise arg_error(func, name, f"{name} must be C-contiguous")
    if not out.flags.writeable:
        raise arg_error(func, name, f"{name} is read-only")
    return out


def out_arrays(func: str, out: Any, specs: tuple) -> Optional[tuple]:
    """A caller's out= for a call that produces several arrays: None, or a tuple (or list) of one array per result,
    each checked as out_arg checks one and named out[0], out[1], ...; specs holds (shape, dtypes) per result. The
    arrays must not share memory: the results are written into them one after the other."""
    if out is None:
        return None
    if not isinstance(out, (tuple, list)) or len(out) != len(specs):
        raise arg_type_error(func, "out", f"out must be a tuple of {len(specs)} arrays, one per result, not "
                                          f"{_what(out)}")
    outs = tuple(out_arg(func, o, shape, dtypes, f"out[{i}]") for i, (o, (shape, dtypes)) in enumerate(zip(out, specs)))
    for i in range(len(outs)):
        for j in range(i):
            if np.may_share_memory(outs[i], outs[j]):
                raise arg_error(func, f"out[{i}]", f"out[{i}] shares memory with out[{j}]")
    return outs


def fill_out(outs: Optional[tuple], results: tuple) -> tuple:
    """The results, or the caller's out= arrays (out_arrays) holding them (a successful call's last step)."""
    if outs is None:
        return results
    for o, r in zip(outs, results):
        o[...] = r.view(o.dtype) if r.dtype.itemsize == o.dtype.itemsize else r
    return outs


def result_array(func: str, out: Any, shape: tuple, fmt: Format) -> np.ndarray:
    """The array a call returns: a new one of fmt's array dtype, or the caller's out= (checked by out_arg; fmt's
    code dtype is accepted too)."""
    if out is None:
        return np.empty(shape, fmt.array_dtype)
    return out_arg(func, out, shape, (fmt.array_dtype, fmt.code_dtype))


def store(res: np.ndarray, buf: np.ndarray, fmt: Format) -> np.ndarray:
    """Copy a C-layout buffer of fmt (a successful call's output) into the result array; returns res."""
    res.reshape(-1)[...] = from_c_layout(buf, fmt, res.size).view(res.dtype)
    return res


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


def pack_nibbles(c: np.ndarray, *, out: Optional[np.ndarray] = None) -> np.ndarray:
    """One 4-bit code per byte -> two per byte, element 2i in bits 0..3 and 2i+1 in bits 4..7. out: a uint8 array
    of (n + 1) / 2 bytes to write into and return."""
    c = np.asarray(c, np.uint8).reshape(-1)
    if out is not None:
        out = out_arg("pack_nibbles", out, ((c.size + 1) // 2,), (np.dtype(np.uint8),))
    if c.size % 2:
        c = np.concatenate([c, np.zeros(1, np.uint8)])
    res = ((c[0::2] & 0x0F) | ((c[1::2] & 0x0F) << 4)).astype(np.uint8)
    if out is None:
        return res
    out[...] = res
    return out


def unpack_nibbles(p: np.ndarray, n: int, *, out: Optional[np.ndarray] = None) -> np.ndarray:
    """Inverse of pack_nibbles: n codes, one per byte (top 4 bits 0). out: a uint8 array of n bytes to write into
    and return."""
    p = np.asarray(p, np.uint8).reshape(-1)
    if out is not None:
        out = out_arg("unpack_nibbles", out, (min(n, 2 * p.size),), (np.dtype(np.uint8),))
    res = np.empty(2 * p.size, np.uint8)
    res[0::2] = p & 0x0F
    res[1::2] = p >> 4
    if out is None:
        return res[:n]
    out[...] = res[:n]
    return out


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


def _names(name_fn, limit: int) -> dict:
    out = {}
    for value in range(limit):
        name = name_fn(value)
        if name is None:
            break
        out[name.decode()] = value
    return out


_ROUNDS = _names(core.mf_round_name, 32)  # "rn" -> MF_ROUND_NEAREST_EVEN, ...


def round_value(mode: Union[str, int], func: str = "convert", argument: str = "round") -> int:
    r = _ROUNDS.get(mode) if type(mode) is str else None
    if r is not None:
        return r
    if isinstance(mode, str):
        out = ctypes.c_int()
        rc = core.mf_round_from_name(mode.encode(), ctypes.byref(out))
        if rc != OK:
            raise Error(rc, func, None, argument,
                        f"{argument}: unknown rounding mode {mode!r} ({' '.join(_ROUNDS)})")
        return out.value
    if isinstance(mode, (int, np.integer)) and not isinstance(mode, (bool, np.bool_)):
        return int_arg(func, argument, mode, 0, len(_ROUNDS) - 1)
    raise arg_type_error(func, argument, f"{argument} must be a rounding mode name ({' '.join(_ROUNDS)}), "
                                         f"not {_what(mode)}")


def round_name(value: int) -> str:
    name = core.mf_round_name(value)
    return name.decode() if name else str(value)


def profiles() -> list:
    """Names of the compatibility profiles the loaded library has (["default"] before profiles existed)."""
    if not _lib.has("mf_profile_name"):
        return ["default"]
    return list(_names(core.mf_profile_name, 64))


_PROFILES = {name: value for value, name in enumerate(profiles())}


def profile_value(profile: Union[str, int], func: str = "convert", argument: str = "profile") -> int:
    p = _PROFILES.get(profile) if type(profile) is str else None
    if p is not None:
        return p
    if isinstance(profile, str):
        if _lib.has("mf_profile_from_name"):
            out = ctypes.c_int()
            rc = core.mf_profile_from_name(profile.encode(), ctypes.byref(out))
            if rc != OK:
                raise Error(rc, func, None, argument,
                            f"{argument}: unknown profile {profile!r} (known: {', '.join(profiles())})")
            return out.value
        raise Error(E_PROFILE, func, None, argument,
                    f"{argument} {profile!r}: this build of the C library has no compatibility profiles")
    if isinstance(profile, (int, np.integer)) and not isinstance(profile, (bool, np.bool_)):
        return int_arg(func, argument, profile, 0, len(_PROFILES) - 1)
    raise arg_type_error(func, argument, f"{argument} must be a profile name ({', '.join(_PROFILES)}), "
                                         f"not {_what(profile)}")


def make_opts(round="rn", saturate=False, seed=0, sr_offset=0, stats=None, threads=0, profile="default",
              func="convert"):
    o = _lib.mf_opts()
    o.round = round_value(round, func)
    o.overflow = saturate_arg(func, saturate)
    o.seed = u64_arg(func, "seed", seed)
    o.sr_offset = u64_arg(func, "sr_offset", sr_offset)
    o.stats = ctypes.pointer(stats) if stats is not None else None
    o.threads = int_arg(func, "threads", threads, -2**31, 2**31 - 1)  # a negative count: the C library's MF_E_ARG
    o.profile = profile_value(profile, func)
    return o


# ---- conversions -----------------------------------------------------------------------------------------

_native = _lib.native  # the extension module, or None (ctypes)

# The C statuses of a conversion that one argument is to blame for.
_CONVERT_BLAME = {
    E_ARG: ("threads", "threads must be >= 0"),
    E_PROFILE: ("profile", "the profile does not cover this pair of formats or this rounding mode"),
    E_OVERLAP: ("out", "out shares memory with x"),
    E_ROUND: ("round", "the rounding mode is out of range"),
    E_POLICY: ("saturate", 'saturate="propagate" is taken only with profile="default"'),
}


def _raise_convert(rc: int, func: str, sfmt: Format, dfmt: Format, round, profile) -> None:
    argument, rule = _CONVERT_BLAME.get(rc, (None, None))
    what = f"{sfmt.name} -> {dfmt.name}"
    if argument is None:
        raise Error(rc, f"{func} {what}")
    if argument == "profile":
        rule = f"profile {profile!r} does not cover {what} with round={round!r} (docs/compat.md)"
    raise Error(rc, func, None, argument, rule, library=True)


def _fast_tables():
    """fast_convert's tables (_native.c): the wrapper's own lookups, as values, for the names and dtypes known at
    import; a call with any other key takes the wrapper's path."""
    dst = {}
    for tag in formats():
        f = _format_from_name(tag)
        dst[tag] = (f.value, f.array_dtype, f.code_dtype)
        if f.dtype is not None:
            dst[f.dtype] = dst[tag]
    src = {dtype: f.value for dtype, f in _FORMAT_BY_ARRAY_DTYPE.items()}
    return np.ndarray, np.empty, src, dst, dict(_ROUNDS), dict(_PROFILES)


_fast_convert = getattr(_native, "fast_convert", None)
if _fast_convert is not None:
    _native.fast_setup(*_fast_tables())


def _converter(func: str, x_name: str, src_name: str):
    """convert's body, with the names its errors give the function and the arguments (decode runs it as "decode"
    with "codes" and "fmt"). A closure rather than a shared helper: the one-element call saves a Python frame.
    The common call runs in C from start to finish (fast_convert); it declines every other one, and every one
    the library refuses, with NotImplemented, and the body below then checks and names the argument at fault."""
    fast = _fast_convert

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
        out: Optional[np.ndarray] = None,
    ):
        if fast is not None:
            res = fast(x, to, src, round, saturate, profile, seed, sr_offset, stats, threads, out)
            if res is not NotImplemented:
                return res
        # The fast path of every argument is one identity test or dict lookup; the helpers check and name the
        # argument when it fails.
        if type(x) is not np.ndarray:
            x = np.asarray(x)
        sfmt = _FORMAT_BY_ARRAY_DTYPE.get(x.dtype) if src is None else None
        if sfmt is None:
            sfmt = source_format(x, src, x_name, func, src_name)
        try:
            dfmt = _FORMAT_CACHE[to]
        except (KeyError, TypeError):
            dfmt = fmt_arg(func, "to", to)
        r = _ROUNDS.get(round) if type(round) is str else None
        if r is None:
            r = round_value(round, func)
        if saturate is not False and saturate is not True:
            saturate = saturate_arg(func, saturate)
        p = _PROFILES.get(profile) if type(profile) is str else None
        if p is None:
            p = profile_value(profile, func)
        if seed.__class__ is not int or not 0 <= seed < 2**64:
            seed = u64_arg(func, "seed", seed)
        if sr_offset.__class__ is not int or not 0 <= sr_offset < 2**64:
            sr_offset = u64_arg(func, "sr_offset", sr_offset)
        if threads.__class__ is not int or not -2**31 <= threads < 2**31:
            threads = int_arg(func, "threads", threads, -2**31, 2**31 - 1)  # a negative count: the C library's MF_E_ARG
        if stats is not False and stats is not True:
            stats = bool_arg(func, "stats", stats)
        res = np.empty(x.shape, dfmt.array_dtype) if out is None else result_array(func, out, x.shape, dfmt)
        n = x.size
        native = _native
        if native is not None:
            try:
                rc = native.convert(dfmt.value, res, sfmt.value, x, n, r, saturate, seed, sr_offset, threads, p, stats)
            except (BufferError, ValueError):  # numpy: "ndarray is not C-contiguous"
                x = np.ascontiguousarray(x)
                rc = native.convert(dfmt.value, res, sfmt.value, x, n, r, saturate, seed, sr_offset, threads, p, stats)
            st = None
            if stats:
                rc, st = rc[0], Stats(*rc[1:])
            if rc:
                if rc == native.BAD_CODE:  # a code wider than a sub-byte format: find it for the message
                    check_codes(func, x_name, x, sfmt)
                _raise_convert(rc, func, sfmt, dfmt, round, profile)
        else:
            if sfmt.info.bits < 8:
                check_codes(func, x_name, x, sfmt)
            cst = _lib.mf_stats() if stats else None
            opts = make_opts(r, saturate, seed, sr_offset, cst, threads, p, func)
            sbuf = to_c_layout(x, sfmt)
            dbuf = empty_c_buffer(dfmt, n)
            rc = core.mf_convert(dfmt.value, addr(dbuf), sfmt.value, addr(sbuf), n, ctypes.byref(opts))
            if rc < 0:
                _raise_convert(rc, func, sfmt, dfmt, round, profile)
            store(res, dbuf, dfmt)
            st = Stats._from_c(cst) if stats else None
        return (res, st) if stats else res

    convert.__qualname__ = convert.__name__ = func
    return convert


convert = _converter("convert", "x", "src")
convert.__doc__ = """Convert array x into format `to`, rounding once (mf_convert).

    x: any array of f64/f32/f16 or an ml_dtypes dtype, or raw uint8/uint16 codes with src=<format> (codes of
    sub-byte formats must fit their width: e2m1 0..0x0f, e2m3/e3m2 0..0x3f).
    to: a format name (anything mf_format_from_name accepts) or dtype; None is refused.
    round: rn rna rz ru rd ro sr. saturate: True clamps to +-max instead of IEEE overflow; "propagate" clamps
    finite values and keeps infinities where the format has them (P3109's SatPropagate; default profile only).
    profile: whose semantics to reproduce ("default", "cuda", "ml_dtypes", "torch", "onnx").
    seed, sr_offset: the stochastic-rounding stream (element i uses index sr_offset + i).
    threads: 0/1 this thread, N > 1 up to N threads for large arrays (same bytes).
    out: an array of x's shape and the result's dtype (or the format's code dtype) to write into; on error it
    is left as it was.

    Returns an array of x's shape and the target's dtype (uint8/uint16 codes where ml_dtypes is missing or
    lacks the format; e2m1 one code per byte), and a Stats when stats=True.
    """
_decode = _converter("decode", "codes", "fmt")


_DECODE_ALIASES = {"format": ["fmt"], "src": ["fmt"], "src_format": ["fmt"], "dtype": ["fmt"], "dst": ["to"],
                   "target": ["to"]}


def decode(codes_, fmt: Optional[FormatLike] = None, to: FormatLike = "f32", *, profile: str = "default",
           out: Optional[np.ndarray] = None, **unknown):
    """The values of codes of format fmt as f32 (or to="f64"), exactly. codes_ may be an ml_dtypes / float16
    array (fmt then defaults to its dtype's format) or raw uint8/uint16 codes (fmt required). out: as convert."""
    if unknown:
        unknown_kwargs("decode", unknown, ("fmt", "to", "profile", "out"), _DECODE_ALIASES)
    if type(to) is not str or to not in ("f32", "f64"):
        dfmt = fmt_arg("decode", "to", to)
        if dfmt.name not in ("f32", "f64"):
            raise arg_error("decode", "to", f"to={to!r}: decode gives f32 or f64 (exact); use convert() to round "
                                            f"into {dfmt.name}", E_FORMAT)
    if _fast_convert is not None:  # as _decode's first step, a Python frame sooner
        res = _fast_convert(codes_, to, fmt, "rn", False, profile, 0, 0, False, 0, out)
        if res is not NotImplemented:
            return res
    return _decode(codes_, to, src=fmt, profile=profile, out=out)


def backend() -> str:
    """The SIMD backend bulk calls use in this process (mf_backend)."""
    return core.mf_backend().decode()


def version() -> str:
    """The C library's version (mf_version)."""
    return core.mf_version().decode()

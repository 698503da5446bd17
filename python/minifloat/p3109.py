"""The IEEE P3109 family by its parameters (minifloat/p3109_family.h): every member from K = 3 to 16 bits.

    import minifloat as mf
    b10 = mf.P3109(10, 4, signed=False, extended=True)        # Binary10p4ue
    c = mf.p3109_encode(np.float32([0.3, 1e9]), b10)           # uint16 codes
    x = mf.p3109_decode(c, b10)                                # float32 values

The K = 8 members and Binary4p2sf are also formats of convert() ("binary8p4se", ...), with SIMD kernels and
ml_dtypes-free uint8 codes; these functions take any member, one element at a time in the C library.
"""

import ctypes
import re
from typing import Union

import numpy as np

from . import _lib
from ._core import Error, Stats, _what, arg_error, arg_type_error, bool_arg, int_arg, make_opts

_NAME = re.compile(r"binary(\d+)p(\d+)([su])([ef])$")


class P3109:
    """A member of the family: K bits, precision P, signed or unsigned, extended (infinities) or finite."""

    __slots__ = ("k", "p", "signed", "extended")

    def __init__(self, k: int, p: int, signed: bool = True, extended: bool = True):
        self.k = int_arg("P3109", "k", k, 3, 16)
        self.p = int_arg("P3109", "p", p, 1, self.k - 1 if bool_arg("P3109", "signed", signed) else self.k)
        self.signed = bool(signed)
        self.extended = bool_arg("P3109", "extended", extended)

    @classmethod
    def from_name(cls, name: str) -> "P3109":
        """P3109.from_name("binary10p4ue"): the report's name (section 3.2), in any case."""
        m = _NAME.match(name.lower()) if isinstance(name, str) else None
        if m is None:
            raise arg_type_error("P3109.from_name", "name", f"name must be like 'binary10p4ue', not {_what(name)}")
        return cls(int(m.group(1)), int(m.group(2)), m.group(3) == "s", m.group(4) == "e")

    @property
    def name(self) -> str:
        return f"binary{self.k}p{self.p}{'s' if self.signed else 'u'}{'e' if self.extended else 'f'}"

    @property
    def code_dtype(self) -> np.dtype:
        """uint8 for K <= 8, uint16 above: one code an element, in the low K bits."""
        return np.dtype(np.uint8 if self.k <= 8 else np.uint16)

    def _c(self) -> "_lib.mf_p3109":
        return _lib.mf_p3109(self.k, self.p, int(self.signed), int(self.extended))

    def __repr__(self) -> str:
        return f"P3109({self.k}, {self.p}, signed={self.signed}, extended={self.extended})"

    def __eq__(self, other) -> bool:
        return isinstance(other, P3109) and (self.k, self.p, self.signed, self.extended) == (
            other.k, other.p, other.signed, other.extended)

    def __hash__(self) -> int:
        return hash((self.k, self.p, self.signed, self.extended))


def _member(func: str, fmt: Union[P3109, str]) -> P3109:
    if isinstance(fmt, P3109):
        return fmt
    if isinstance(fmt, str):
        try:
            return P3109.from_name(fmt)
        except Error:
            pass
    raise arg_type_error(func, "fmt", f"fmt must be a P3109 or a name like 'binary10p4ue', not {_what(fmt)}")


def _bound(func: str):
    fn = getattr(_lib.core, "mf_p3109_convert_from_f32" if func == "p3109_encode" else "mf_p3109_convert_to_f32",
                 None)
    if fn is None:
        raise Error(-9, f"{func}: the minifloat library loaded predates the P3109 family functions")
    return fn


def _run(func: str, fn, dst: np.ndarray, src: np.ndarray, fmt: P3109, round, saturate, seed, sr_offset, stats,
         threads):
    cst = _lib.mf_stats() if bool_arg(func, "stats", stats) else None
    opts = make_opts(round, saturate, seed, sr_offset, cst, int_arg(func, "threads", threads, 0, 2**31 - 1), "default",
                     func)
    args = (dst.ctypes.data, fmt._c()) if func == "p3109_decode" else (fmt._c(), dst.ctypes.data)
    rc = fn(*args, src.ctypes.data, src.size, ctypes.byref(opts))
    if rc < 0:
        raise Error(rc, func)
    return (dst, Stats._from_c(cst)) if cst is not None else dst


def p3109_encode(x, fmt: Union[P3109, str], *, round: str = "rn", saturate: bool = False, seed: int = 0,
                 sr_offset: int = 0, stats: bool = False, threads: int = 0):
    """Round array x (converted to float32 first, exactly for float32 and narrower inputs) into member fmt's codes
    (mf_p3109_convert_from_f32): uint8 for K <= 8, uint16 above, x's shape. round: rn rna rz ru rd ro sr (sr:
    StochasticA with the stream's 8 or 16 bits an element); saturate: True SatFinite, "propagate" SatPropagate,
    False SatNone. Returns the codes, and a Stats when stats=True."""
    f = _member("p3109_encode", fmt)
    fn = _bound("p3109_encode")
    a = np.asarray(x)
    if a.dtype == np.float64:
        raise arg_error("p3109_encode", "x", "x is float64: rounding it to float32 first would round twice; pass "
                                             "float32 values (x.astype(np.float32) if that is what you mean)")
    if a.dtype.kind not in "fiu" or a.dtype == np.bool_:
        raise arg_type_error("p3109_encode", "x", f"x must hold numbers, not {a.dtype}")
    src = np.ascontiguousarray(a, dtype=np.float32)
    dst = np.empty(src.shape, f.code_dtype)
    return _run("p3109_encode", fn, dst, src, f, round, saturate, seed, sr_offset, stats, threads)


def p3109_decode(codes, fmt: Union[P3109, str], *, round: str = "rn", saturate: bool = False, stats: bool = False,
                 threads: int = 0):
    """The values of member fmt's codes as float32 (mf_p3109_convert_to_f32): exact for members with at most 8
    exponent bits, else rounded in mode round (saturate: SatFinite into float32's range). codes: integers below
    2^K (uint8, uint16 or any integer array). Returns float32 of codes' shape, and a Stats when stats=True."""
    f = _member("p3109_decode", fmt)
    fn = _bound("p3109_decode")
    c = np.asarray(codes)
    if c.dtype.kind not in "iu" or c.dtype == np.bool_:
        raise arg_type_error("p3109_decode", "codes", f"codes must be an integer array, not {c.dtype}")
    if c.size and (int(c.min()) < 0 or int(c.max()) >= 1 << f.k):
        bad = int(c.min()) if int(c.min()) < 0 else int(c.max())
        raise arg_error("p3109_decode", "codes", f"codes must be below 2^{f.k} for {f.name}: found {bad}")
    src = np.ascontiguousarray(c, dtype=f.code_dtype)
    dst = np.empty(src.shape, np.float32)
    return _run("p3109_decode", fn, dst, src, f, round, saturate, 0, 0, stats, threads)

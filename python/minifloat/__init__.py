"""minifloat: conversions between f32/f64 and the narrow ML number formats, exact to the bit.

A binding of the minifloat C library (libminifloat and libminifloat_lab, shipped inside this package): the hot
calls through the extension module minifloat._native, the rest through ctypes. `minifloat._native` is None where
the extension did not load (`minifloat._lib.native_error` says why); everything then runs through ctypes.
Arrays are numpy arrays; narrow formats come back as ml_dtypes dtypes (bfloat16, float8_e4m3fn, ...) where
ml_dtypes is installed, and as uint8 / uint16 code arrays where it is not.

    import minifloat as mf
    q = mf.convert(x, "e4m3", round="rn", saturate=True)      # float8_e4m3fn array
    y = mf.decode(q)                                           # back to float32, exactly
    q, st = mf.convert(x, "e5m2", stats=True)                  # with mf_stats counts
"""

from ._core import (
    DTYPE_NAMES,
    ArgumentTypeError,
    HAVE_ML_DTYPES,
    Error,
    Format,
    FormatInfo,
    Stats,
    backend,
    codes,
    convert,
    decode,
    finfo,
    format_of,
    formats,
    profiles,
    strerror,
    version,
)
from ._core import pack_nibbles, unpack_nibbles
from .gemm import block_scale, gemm, mx_scale, nvfp4_scale, tensor_scale, vector_scale
from .lab import AnalyzeReport, analyze, softmax, unary
from .p3109 import P3109, p3109_decode, p3109_encode
from .scaling import (
    DelayedScaling,
    LossScaler,
    amax,
    fp6_pack,
    fp6_unpack,
    fp8_block_dequantize,
    fp8_block_quantize,
    fp8_block_scale_shape,
    fp8_current_scale,
    fp8_dequantize,
    fp8_max,
    fp8_quantize,
    fp8_quantize_current,
    mx_dequantize,
    mx_quantize,
    mx_scale_code,
    nvfp4_dequantize,
    nvfp4_global_scale,
    nvfp4_quantize,
    scale_from_amax,
)

from ._lib import native as _native  # noqa: F401 (None: the ctypes fallback, see _lib.native_error)

__version__ = version()

__all__ = [
    "AnalyzeReport", "ArgumentTypeError", "DTYPE_NAMES", "DelayedScaling", "Error", "Format", "FormatInfo",
    "HAVE_ML_DTYPES", "LossScaler", "P3109",
    "Stats", "amax", "analyze", "backend", "block_scale", "codes", "convert", "decode", "finfo", "format_of",
    "formats", "fp6_pack", "fp6_unpack", "fp8_block_dequantize", "fp8_block_quantize", "fp8_block_scale_shape",
    "fp8_current_scale", "fp8_dequantize", "fp8_max", "fp8_quantize", "fp8_quantize_current", "gemm",
    "mx_dequantize", "mx_quantize", "mx_scale", "mx_scale_code", "nvfp4_dequantize", "nvfp4_global_scale",
    "nvfp4_quantize", "nvfp4_scale", "p3109_decode", "p3109_encode", "pack_nibbles", "profiles", "scale_from_amax", "softmax", "strerror",
    "tensor_scale", "unary", "unpack_nibbles", "vector_scale", "version",
]

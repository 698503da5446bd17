"""ctypes view of the C library: loading, the structs of the public headers, the function prototypes.

The structs mirror include/minifloat/*.h field for field (tests/test_abi.py compiles the headers and checks every
size and offset). Functions added to the C library later are bound only where the loaded library exports them
(see `optional`), so this module works with libraries built before and after them.
"""

from __future__ import annotations

import ctypes
import os
import sys
from ctypes import (
    POINTER,
    Structure,
    c_char_p,
    c_double,
    c_float,
    c_int,
    c_int32,
    c_size_t,
    c_uint,
    c_uint8,
    c_uint32,
    c_uint64,
    c_void_p,
)

_HERE = os.path.dirname(os.path.abspath(__file__))


def _lib_names(base: str) -> list[str]:
    if sys.platform == "darwin":
        return [f"lib{base}.dylib"]
    if sys.platform == "win32":
        return [f"{base}.dll", f"lib{base}.dll"]
    return [f"lib{base}.so"]


def _find(base: str) -> str | None:
    # MINIFLOAT_LIBRARY_DIR points at a build folder during development; the wheel has the libraries here.
    dirs = [d for d in (os.environ.get("MINIFLOAT_LIBRARY_DIR"), _HERE) if d]
    try:  # the source tree imported in place of the installed package (python -m pytest from python/)
        from importlib.metadata import PackageNotFoundError, distribution

        dirs.append(str(distribution("minifloat").locate_file("minifloat")))
    except (ImportError, PackageNotFoundError):
        pass
    for d in dirs:
        for name in _lib_names(base):
            path = os.path.join(d, name)
            if os.path.exists(path):
                return path
    return None


def _load(base: str, required: bool) -> ctypes.CDLL | None:
    path = _find(base)
    if path is None:
        if required:
            raise ImportError(
                f"minifloat: lib{base} not found next to the package ({_HERE}) nor in MINIFLOAT_LIBRARY_DIR; "
                "install the package with `pip install ./python` from the repository root"
            )
        return None
    return ctypes.CDLL(path)  # CDLL releases the GIL during calls, so threads can convert concurrently


# ---- types.h ---------------------------------------------------------------------------------------------


class mf_stats(Structure):
    _fields_ = [
        ("overflow", c_uint64),
        ("underflow", c_uint64),
        ("subnormal", c_uint64),
        ("nan", c_uint64),
        ("inexact", c_uint64),
    ]


class mf_opts(Structure):
    # `profile` is the trailing field added with the compatibility profiles; a library built before it reads
    # the first six fields only (the struct is 40 bytes either way on LP64), and then only profile 0 is valid.
    _fields_ = [
        ("round", c_int),
        ("overflow", c_int),
        ("seed", c_uint64),
        ("sr_offset", c_uint64),
        ("stats", POINTER(mf_stats)),
        ("threads", c_int),
        ("profile", c_int),
    ]


# ---- p3109_family.h --------------------------------------------------------------------------------------


class mf_p3109(Structure):
    _fields_ = [("k", c_int), ("p", c_int), ("is_signed", c_int), ("extended", c_int)]


# ---- convert.h -------------------------------------------------------------------------------------------


class mf_format_desc(Structure):
    _fields_ = [
        ("name", c_char_p),
        ("title", c_char_p),
        ("bits", c_int),
        ("exp_bits", c_int),
        ("man_bits", c_int),
        ("bias", c_int),
        ("is_signed", c_int),
        ("has_inf", c_int),
        ("has_nan", c_int),
        ("has_zero", c_int),
        ("has_subnormals", c_int),
        ("max", c_double),
        ("min_normal", c_double),
        ("min_subnormal", c_double),
        ("epsilon", c_double),
        ("max_code", c_uint32),
        ("nan_code", c_uint32),
        ("inf_code", c_uint32),
        # added with the FNUZ formats; a library built before it leaves the field as the caller set it
        ("has_neg_zero", c_int),
    ]


# ---- types.h: the cross-rank reduction hook (no hook from Python: always zeroed) -------------------------


class mf_reduce_hook(Structure):
    _fields_ = [("max", c_void_p), ("ctx", c_void_p)]


# ---- loss_scale.h ----------------------------------------------------------------------------------------


class mf_loss_scaler_config(Structure):
    _fields_ = [
        ("init_scale", c_float),
        ("growth_factor", c_float),
        ("backoff_factor", c_float),
        ("growth_interval", c_int32),
        ("hysteresis", c_int32),
        ("min_scale", c_float),
        ("max_scale", c_float),
        ("static_scale", c_int),
        ("reduce", mf_reduce_hook),
    ]


class mf_loss_scaler(Structure):
    _fields_ = [
        ("cfg", mf_loss_scaler_config),
        ("scale", c_float),
        ("growth_tracker", c_int32),
        ("hysteresis_tracker", c_int32),
        ("steps_taken", c_uint64),
        ("steps_skipped", c_uint64),
    ]


class mf_tensor(Structure):
    _fields_ = [("data", c_void_p), ("format", c_int), ("n", c_size_t)]


# ---- fp8_scaling.h ---------------------------------------------------------------------------------------

MF_FP8_HISTORY_MAX = 1024


class mf_fp8_delayed_cfg(Structure):
    _fields_ = [
        ("fmt", c_int),
        ("history_len", c_size_t),
        ("algo", c_int),
        ("margin", c_int),
        ("roll_on_zero_amax", c_int),
        ("initial_scale", c_float),
        ("reduce", mf_reduce_hook),
    ]


class mf_fp8_delayed(Structure):
    _fields_ = [
        ("cfg", mf_fp8_delayed_cfg),
        ("scaled_max", c_float),
        ("scale", c_float),
        ("scale_inv", c_float),
        ("steps", c_uint64),
        ("history", c_float * MF_FP8_HISTORY_MAX),
    ]


# ---- gemm.h ----------------------------------------------------------------------------------------------


class mf_gemm_scale(Structure):
    _fields_ = [("kind", c_int), ("data", c_void_p), ("axis", c_int), ("amax", c_float)]


class mf_gemm_opts(Structure):
    _fields_ = [
        ("accum", c_int),
        ("scale_a", mf_gemm_scale),
        ("scale_b", mf_gemm_scale),
        ("round", c_int),
        ("overflow", c_int),
        ("seed", c_uint64),
        ("sr_offset", c_uint64),
        ("stats", POINTER(mf_stats)),
        ("threads", c_int),
        ("promote_every", c_size_t),
    ]


# ---- analyze.h (the lab library) -------------------------------------------------------------------------

MF_ANALYZE_HIST_MIN = -160
MF_ANALYZE_HIST_BINS = 321


class mf_analyze_opts(Structure):
    _fields_ = [
        ("src_format", c_int),
        ("round", c_int),
        ("overflow", c_int),
        ("seed", c_uint64),
        ("sr_offset", c_uint64),
        ("scale", c_double),
    ]


class mf_analyze_report(Structure):
    _fields_ = [
        ("format", c_int),
        ("n", c_size_t),
        ("scale", c_double),
        ("in_zero", c_uint64),
        ("in_nan", c_uint64),
        ("in_inf", c_uint64),
        ("amax", c_double),
        ("amin", c_double),
        ("overflow", c_uint64),
        ("saturated", c_uint64),
        ("to_inf", c_uint64),
        ("to_nan", c_uint64),
        ("underflow", c_uint64),
        ("subnormal", c_uint64),
        ("inexact", c_uint64),
        ("err_count", c_uint64),
        ("rel_count", c_uint64),
        ("abs_err_max", c_double),
        ("abs_err_mean", c_double),
        ("abs_err_rms", c_double),
        ("rel_err_max", c_double),
        ("rel_err_mean", c_double),
        ("rel_err_rms", c_double),
        ("scale_up_log2", c_int),
        ("scale_down_log2", c_int),
        ("hist", c_uint64 * MF_ANALYZE_HIST_BINS),
        ("fmt_min_subnormal_log2", c_int),
        ("fmt_min_normal_log2", c_int),
        ("fmt_max_log2", c_int),
        ("scale_down_unbounded", c_int),
    ]


# Trailing fields added to the C structs after the first release of the binding: headers (and libraries) from
# before them lack them, which the binding tolerates (see mf_opts and _core._format_by_value).
LATER_FIELDS = {("mf_opts", "profile"), ("mf_format_desc", "has_neg_zero")}

# Every struct, for the ABI test (name in C == class name).
STRUCTS = [
    mf_stats,
    mf_reduce_hook,
    mf_opts,
    mf_p3109,
    mf_format_desc,
    mf_loss_scaler_config,
    mf_loss_scaler,
    mf_tensor,
    mf_fp8_delayed_cfg,
    mf_fp8_delayed,
    mf_gemm_scale,
    mf_gemm_opts,
    mf_analyze_opts,
    mf_analyze_report,
]

# ---- prototypes ------------------------------------------------------------------------------------------

F = POINTER(c_float)
VP = c_void_p
SZ = c_size_t
SZP = POINTER(c_size_t)
U8P = POINTER(c_uint8)

_CORE = {
    # convert.h
    "mf_convert": (c_int, [c_int, VP, c_int, VP, SZ, POINTER(mf_opts)]),
    "mf_strerror": (c_char_p, [c_int]),
    "mf_storage_bytes": (SZ, [c_int, SZ]),
    "mf_format_describe": (c_int, [c_int, POINTER(mf_format_desc)]),
    "mf_format_name": (c_char_p, [c_int]),
    "mf_format_dtype": (c_char_p, [c_int]),
    "mf_round_name": (c_char_p, [c_int]),
    "mf_overflow_name": (c_char_p, [c_int]),
    "mf_format_from_name": (c_int, [c_char_p, POINTER(c_int)]),
    "mf_round_from_name": (c_int, [c_char_p, POINTER(c_int)]),
    "mf_overflow_from_name": (c_int, [c_char_p, POINTER(c_int)]),
    "mf_backend": (c_char_p, []),
    "mf_version": (c_char_p, []),
    # loss_scale.h
    "mf_loss_scaler_config_default": (mf_loss_scaler_config, []),
    "mf_loss_scaler_init": (c_int, [POINTER(mf_loss_scaler), POINTER(mf_loss_scaler_config)]),
    "mf_loss_scaler_scale": (c_float, [POINTER(mf_loss_scaler)]),
    "mf_loss_scaler_inv_scale": (c_float, [POINTER(mf_loss_scaler)]),
    "mf_scale_loss": (c_float, [POINTER(mf_loss_scaler), c_float]),
    "mf_unscale_check": (c_int, [POINTER(mf_loss_scaler), c_int, VP, SZ]),
    "mf_unscale_check_tensors": (c_int, [POINTER(mf_loss_scaler), POINTER(mf_tensor), SZ]),
    "mf_loss_scaler_update": (c_int, [POINTER(mf_loss_scaler), c_int]),
    # mx.h
    "mf_mx_sizes": (c_int, [c_int, c_int, c_uint, SZ, SZ, SZP, SZP]),
    "mf_mx_scale_code": (c_int, [c_int, c_int, c_float]),
    "mf_mx_quantize": (c_int, [c_int, c_int, c_int, c_uint, F, SZ, SZ, VP, U8P, POINTER(mf_opts)]),
    "mf_mx_dequantize": (c_int, [c_int, c_int, c_uint, VP, U8P, SZ, SZ, F]),
    "mf_fp6_pack": (c_int, [U8P, U8P, SZ]),
    "mf_fp6_unpack": (c_int, [U8P, U8P, SZ]),
    "mf_nvfp4_sizes": (c_int, [c_int, SZ, SZ, SZP, SZP]),
    "mf_nvfp4_global_scale": (c_float, [c_float]),
    "mf_nvfp4_quantize": (c_int, [c_int, F, SZ, SZ, U8P, U8P, F, F, POINTER(mf_opts)]),
    "mf_nvfp4_dequantize": (c_int, [c_int, U8P, U8P, c_float, SZ, SZ, F]),
    # fp8_scaling.h
    "mf_fp8_max": (c_int, [c_int, F]),
    "mf_amax": (c_int, [c_int, VP, SZ, F]),
    "mf_scale_from_amax": (c_float, [c_float, c_float, c_int, c_float, c_float]),
    "mf_fp8_current_scale": (c_int, [c_int, c_float, c_int, c_float, F, F]),
    "mf_fp8_quantize": (c_int, [c_int, VP, c_int, VP, SZ, c_float, F]),
    "mf_fp8_dequantize": (c_int, [c_int, VP, c_int, VP, SZ, c_float]),
    "mf_fp8_quantize_current": (c_int, [c_int, VP, c_int, VP, SZ, c_int, c_float, F, F, F]),
    "mf_fp8_delayed_default": (mf_fp8_delayed_cfg, [c_int]),
    "mf_fp8_delayed_init": (c_int, [POINTER(mf_fp8_delayed), POINTER(mf_fp8_delayed_cfg)]),
    "mf_fp8_delayed_record": (c_int, [POINTER(mf_fp8_delayed), c_float]),
    "mf_fp8_delayed_update": (c_int, [POINTER(mf_fp8_delayed)]),
    "mf_fp8_delayed_quantize": (c_int, [POINTER(mf_fp8_delayed), VP, c_int, VP, SZ]),
    "mf_fp8_block_scale_shape": (c_int, [c_int, SZ, SZ, SZP, SZP]),
    "mf_fp8_block_quantize": (c_int, [c_int, VP, F, c_int, VP, SZ, SZ, c_int, c_int, c_float]),
    "mf_fp8_block_dequantize": (c_int, [c_int, VP, c_int, VP, F, SZ, SZ, c_int]),
    # gemm.h
    "mf_gemm": (
        c_int,
        [c_int, c_int, c_int, SZ, SZ, SZ, c_float, VP, c_int, SZ, VP, c_int, SZ, c_float, VP, c_int, SZ,
         POINTER(mf_gemm_opts)],
    ),
}

# Added to convert.h with the compatibility profiles: bound when the library has them.
_CORE_OPTIONAL = {
    # p3109_family.h (libraries from before it lack these)
    "mf_p3109_convert_from_f32": (c_int, [mf_p3109, VP, VP, SZ, POINTER(mf_opts)]),
    "mf_p3109_convert_to_f32": (c_int, [VP, mf_p3109, VP, SZ, POINTER(mf_opts)]),
    "mf_profile_name": (c_char_p, [c_int]),
    "mf_profile_from_name": (c_int, [c_char_p, POINTER(c_int)]),
}

_LAB = {
    "mf_analyze": (c_int, [c_int, VP, SZ, POINTER(mf_analyze_opts), POINTER(mf_analyze_report)]),
    "mf_unary": (c_int, [c_int, c_int, VP, c_int, VP, SZ, POINTER(mf_opts)]),
    "mf_softmax": (c_int, [c_int, c_int, VP, c_int, VP, SZ, SZ, POINTER(mf_opts)]),
    "mf_unary_name": (c_char_p, [c_int]),
    "mf_unary_from_name": (c_int, [c_char_p, POINTER(c_int)]),
    "mf_elementwise_math": (c_char_p, []),
}


def _bind(lib: ctypes.CDLL, table: dict, optional: bool) -> None:
    for name, (restype, argtypes) in table.items():
        if optional and not hasattr(lib, name):
            continue
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


core = _load("minifloat", required=True)
_bind(core, _CORE, optional=False)
_bind(core, _CORE_OPTIONAL, optional=True)

# The lab is optional: None where the C library was built with MF_BUILD_LAB=OFF, or where it does not load (the
# core still works; lab functions then raise Error(MF_E_UNSUPPORTED) with the reason in lab_error).
lab_error = ""
try:
    lab = _load("minifloat_lab", required=False)
except OSError as e:
    lab, lab_error = None, str(e)
if lab is not None:
    _bind(lab, _LAB, optional=False)
elif not lab_error:
    lab_error = "libminifloat_lab is not installed (built with MF_BUILD_LAB=OFF)"

core_path = _find("minifloat")
lab_path = _find("minifloat_lab")


def has(name: str) -> bool:
    """Whether the loaded core library exports `name` (functions added later, e.g. mf_profile_from_name)."""
    return hasattr(core, name)


# ---- the extension module ----------------------------------------------------------------------------------
# minifloat._native (python/minifloat/_native.c) runs the hot calls (convert, decode, amax, unscale_, the FP8
# casts, the block quantizers, gemm) without ctypes' per-call cost. pip install builds it; where it is missing or
# fails to load (the source tree used with MINIFLOAT_LIBRARY_DIR and no extension there, or MINIFLOAT_NATIVE=0 to
# compare) the package runs on ctypes alone, with the same results: `native` is then None and `native_error` says
# why.


def _load_native():
    if os.environ.get("MINIFLOAT_NATIVE", "1") == "0":
        return None, "disabled by MINIFLOAT_NATIVE=0"
    import importlib.machinery
    import importlib.util

    # Only beside the core library that was loaded: an extension elsewhere would bring a second libminifloat.
    dirs = [os.path.dirname(core_path)]
    errors = []
    for d in dirs:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(d, "_native" + suffix)
            if not os.path.exists(path):
                continue
            try:
                spec = importlib.util.spec_from_file_location("minifloat._native", path)
                mod = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(mod)
            except ImportError as e:
                errors.append(f"{path}: {e}")
                continue
            if mod.library_version != core.mf_version().decode():
                errors.append(f"{path} was built against libminifloat {mod.library_version}, "
                              f"loaded {core.mf_version().decode()}")
                continue
            sys.modules["minifloat._native"] = mod
            return mod, ""
    return None, "; ".join(errors) or f"no _native extension module in {' or '.join(dirs)}"


native, native_error = _load_native()

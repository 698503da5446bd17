"""The conversion API: formats, round trips, modes, overflow, stats, errors, dtypes, layouts."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minifloat as mf
from minifloat import _lib

NARROW = [f for f in mf.formats() if f not in ("f32", "f64")]
MODES = ["rn", "rna", "rz", "ru", "rd", "ro", "sr"]


def all_codes(fmt):
    info = mf.finfo(fmt)
    return np.arange(1 << info.bits, dtype=np.uint32).astype(info.code_dtype)


# ---- formats ---------------------------------------------------------------------------------------------


def test_format_list_and_names():
    tags = mf.formats()
    for t in ["f32", "f16", "bf16", "e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "e8m0", "f64"]:
        assert t in tags
    for t in tags:
        assert mf.format_of(t).name == t
        assert mf.format_of(t.upper()).name == t  # mf_format_from_name is case-insensitive
    for alias, tag in [("half", "f16"), ("bfloat16", "bf16"), ("float8_e4m3fn", "e4m3"), ("double", "f64"),
                       ("fp4_e2m1", "e2m1"), ("float8_e8m0fnu", "e8m0")]:
        assert mf.format_of(alias).name == tag


# python/README.md's table, written out here: the package takes DTYPE_NAMES from the C library's table of formats
DOCUMENTED_DTYPES = {
    "f64": "float64",
    "f32": "float32",
    "f16": "float16",
    "bf16": "bfloat16",
    "e4m3": "float8_e4m3fn",
    "e5m2": "float8_e5m2",
    "e2m3": "float6_e2m3fn",
    "e3m2": "float6_e3m2fn",
    "e2m1": "float4_e2m1fn",
    "e8m0": "float8_e8m0fnu",
    "e4m3fnuz": "float8_e4m3fnuz",
    "e5m2fnuz": "float8_e5m2fnuz",
    "e4m3b11fnuz": "float8_e4m3b11fnuz",
    "e4m3ieee": "float8_e4m3",
    "e3m4": "float8_e3m4",
}


def test_dtype_names_are_the_documented_ones():
    for tag in mf.formats():
        assert mf.DTYPE_NAMES.get(tag) == DOCUMENTED_DTYPES.get(tag), tag
    for tag, dname in DOCUMENTED_DTYPES.items():
        assert mf.DTYPE_NAMES[tag] == dname


def test_ml_dtypes_names_map_to_the_documented_formats(ml_dtypes):
    # the table: ml_dtypes dtype -> minifloat format, asked of the C library (mf_format_from_name) and of
    # the dtype path; tags this build of the C library does not have yet are skipped
    for tag, dname in DOCUMENTED_DTYPES.items():
        assert mf.format_of(dname).name == tag, f"mf_format_from_name({dname!r})"
        if dname in ("float64", "float32", "float16"):
            dt = np.dtype(dname)
        elif hasattr(ml_dtypes, dname):
            dt = np.dtype(getattr(ml_dtypes, dname))
        else:
            continue  # an ml_dtypes without this dtype
        assert mf.format_of(dt).name == tag
        assert mf.format_of(tag).array_dtype == dt


@pytest.mark.parametrize("fmt", NARROW)
def test_finfo_matches_the_codes(fmt):
    info = mf.finfo(fmt)
    assert info.name == fmt and info.bits in (4, 6, 8, 16)
    c = all_codes(fmt)
    v = mf.decode(c, fmt, "f64")
    finite = v[np.isfinite(v)]
    assert finite.max() == info.max
    assert mf.decode(np.array([info.max_code], info.code_dtype), fmt, "f64")[0] == info.max
    pos = finite[finite > 0]
    assert pos.min() == info.min_subnormal
    assert np.isnan(v).any() == info.has_nan
    assert np.isinf(v).any() == info.has_inf
    assert (v == 0).any() == info.has_zero
    if info.has_nan:
        assert np.isnan(mf.decode(np.array([info.nan_code], info.code_dtype), fmt, "f64")[0])
    if info.has_inf:
        assert mf.decode(np.array([info.inf_code], info.code_dtype), fmt, "f64")[0] == np.inf


# ---- every code round-trips ------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", NARROW)
def test_every_code_round_trips(fmt):
    c = all_codes(fmt)
    info = mf.finfo(fmt)
    v32 = mf.decode(c, fmt)
    v64 = mf.decode(c, fmt, to="f64")
    assert v32.dtype == np.float32 and v64.dtype == np.float64 and v32.shape == c.shape
    nan = np.isnan(v32)
    inf = np.isinf(v32)
    # saturation turns an infinity into +-max: those codes come back as the max code of their sign
    sat_c = c.copy()
    sat_c[inf] = np.where(v32[inf] > 0, info.max_code, info.max_code | (1 << (info.bits - 1)))
    assert np.array_equal(np.isnan(v64), nan)
    assert np.array_equal(v32[~nan].astype(np.float64), v64[~nan])
    assert np.array_equal(np.signbit(v32[~nan]), np.signbit(v64[~nan]))
    for src in (v32, v64):
        for mode in MODES:
            for sat in (False, True):
                back = mf.codes(mf.convert(src, fmt, round=mode, saturate=sat, seed=7))
                assert back.dtype == c.dtype
                want = sat_c if sat else c
                bad = np.flatnonzero((back != want) & ~nan)
                assert bad.size == 0, (
                    f"{fmt} {mode} sat={sat} from {src.dtype}: codes {c[bad[:5]]} came back as {back[bad[:5]]}")
                assert np.isnan(mf.decode(back[nan], fmt)).all()


@pytest.mark.parametrize("fmt", NARROW)
def test_decode_agrees_with_ml_dtypes_on_every_non_nan_code(fmt, ml_dtypes):
    info = mf.finfo(fmt)
    if info.dtype is None:
        pytest.skip(f"ml_dtypes {ml_dtypes.__version__} has no dtype for {fmt}")
    c = all_codes(fmt)
    theirs = c.view(info.dtype).astype(np.float32)
    ours = mf.decode(c, fmt)
    # the dtype path reads the same codes (compared as bits: NaN != NaN)
    assert np.array_equal(mf.decode(c.view(info.dtype)).view(np.uint32), ours.view(np.uint32))
    ok = ~np.isnan(ours)
    assert np.array_equal(np.isnan(theirs), ~ok)
    assert np.array_equal(ours[ok], theirs[ok])
    assert np.array_equal(np.signbit(ours[ok]), np.signbit(theirs[ok]))


@pytest.mark.parametrize("fmt", [f for f in NARROW if f != "e8m0"])
def test_round_to_nearest_agrees_with_ml_dtypes_in_range(fmt, ml_dtypes):
    # finite values inside the format's range round to nearest-even in both libraries: a check of the dtype
    # mapping and the array layouts (e2m1 unpacked, FP6 one code per byte) on ordinary data
    info = mf.finfo(fmt)
    if info.dtype is None:
        pytest.skip(f"no ml_dtypes dtype for {fmt}")
    rng = np.random.default_rng(1)
    mag = np.exp2(rng.uniform(np.log2(info.min_subnormal), np.log2(info.max), 20001))
    x = (mag * rng.choice([-1.0, 1.0], mag.size)).astype(np.float32)
    x = x[np.abs(x) <= info.max]
    with np.errstate(all="ignore"):
        want = x.astype(info.dtype)
    got = mf.convert(x, fmt)
    assert got.dtype == info.dtype
    assert np.array_equal(mf.codes(got), mf.codes(want))


# ---- modes, overflow, f64 ---------------------------------------------------------------------------------


def test_rounding_modes_on_a_tie():
    # 1.0625 is halfway between the e4m3 values 1.0 (mantissa 000) and 1.125 (001)
    x = np.array([1.0625, -1.0625], np.float32)
    want = {"rn": [1.0, -1.0], "rna": [1.125, -1.125], "rz": [1.0, -1.0], "ru": [1.125, -1.0],
            "rd": [1.0, -1.125], "ro": [1.125, -1.125]}
    for mode, values in want.items():
        got = mf.decode(mf.convert(x, "e4m3", round=mode)).tolist()
        assert got == values, mode


def test_stochastic_rounding_is_reproducible_and_unbiased():
    x = np.full(200_000, 1.0625, np.float32)
    a = mf.decode(mf.convert(x, "e4m3", round="sr", seed=1))
    b = mf.decode(mf.convert(x, "e4m3", round="sr", seed=1))
    c = mf.decode(mf.convert(x, "e4m3", round="sr", seed=2))
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert set(np.unique(a).tolist()) == {1.0, 1.125}
    assert abs((a == 1.125).mean() - 0.5) < 0.01
    # element i uses stream index sr_offset + i: a tensor split into calls gives the same bits
    tail = mf.decode(mf.convert(x[1000:], "e4m3", round="sr", seed=1, sr_offset=1000))
    assert np.array_equal(tail, a[1000:])


def test_saturate():
    x = np.array([1e6, -1e6, 460.0], np.float32)
    assert mf.decode(mf.convert(x, "e4m3", saturate=True)).tolist() == [448.0, -448.0, 448.0]
    ieee = mf.decode(mf.convert(x, "e4m3", saturate=False))
    # e4m3 has no inf: beyond the rounding threshold 464 the IEEE policy gives NaN; 460 still rounds to 448
    assert np.isnan(ieee[:2]).all() and ieee[2] == 448.0
    assert mf.decode(mf.convert(x, "f16", saturate=False)).tolist()[:2] == [np.inf, -np.inf]
    assert mf.decode(mf.convert(x, "f16", saturate=True)).tolist()[:2] == [65504.0, -65504.0]


def test_f64_source_rounds_once():
    # 1 + 2^-4 + 2^-40 is just above the e4m3 tie between 1.0 and 1.125; through f32 it would become the tie
    x = np.array([1 + 2**-4 + 2**-40])
    assert mf.decode(mf.convert(x, "e4m3")).tolist() == [1.125]
    assert mf.decode(mf.convert(x.astype(np.float32), "e4m3")).tolist() == [1.0]
    assert mf.convert(x, "f32").dtype == np.float32 and mf.convert(x.astype(np.float32), "f64").dtype == np.float64


def test_stats_on_a_hand_made_array():
    x = np.array([1.0, 1.0625, 1e6, 1e-6, 0.003, np.nan, 0.0], np.float32)
    q, st = mf.convert(x, "e4m3", saturate=True, stats=True)
    # 1e6: overflow (saturated); 1e-6: below half the smallest subnormal 2^-9, so zero; 0.003 rounds to the
    # subnormal 2 * 2^-9; 1.0625, 1e6, 1e-6 and 0.003 change value; the NaN counts as nan only
    assert st == mf.Stats(overflow=1, underflow=1, subnormal=1, nan=1, inexact=4)
    assert mf.decode(q).tolist()[:5] == [1.0, 1.0, 448.0, 0.0, 2 * 2**-9]
    _, st0 = mf.convert(x[:1], "e4m3", stats=True)
    assert st0 == mf.Stats(0, 0, 0, 0, 0)


def test_threads_give_the_same_bytes():
    x = np.random.default_rng(3).standard_normal(1 << 21).astype(np.float32) * 100
    one, s1 = mf.convert(x, "e5m2", round="sr", seed=5, stats=True)
    two, s2 = mf.convert(x, "e5m2", round="sr", seed=5, stats=True, threads=2)
    assert np.array_equal(mf.codes(one), mf.codes(two)) and s1 == s2


def test_shapes_views_and_scalars():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    assert mf.convert(x, "bf16").shape == (2, 3, 4)
    strided = x[:, ::2, 1::2]  # not contiguous
    assert np.array_equal(mf.decode(mf.convert(strided, "bf16")), strided)
    assert mf.decode(mf.convert(2.5, "e4m3")).shape == ()
    assert mf.convert(np.zeros(0, np.float32), "e2m1").shape == (0,)


def test_e2m1_layout_one_code_per_byte():
    # C packs two e2m1 codes per byte; arrays here hold one per byte, as ml_dtypes' float4_e2m1fn
    values = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
    x = np.array(values + [-v for v in values] + [3.0], np.float32)  # odd length
    c = mf.codes(mf.convert(x, "e2m1"))
    assert c.tolist() == list(range(16)) + [5]
    assert mf.decode(c, "e2m1").tolist() == x.tolist()
    assert mf.pack_nibbles(np.array([1, 2, 3], np.uint8)).tolist() == [0x21, 0x03]
    assert mf.unpack_nibbles(np.array([0x21, 0x03], np.uint8), 3).tolist() == [1, 2, 3]


def test_narrow_to_narrow_and_dtype_objects(ml_dtypes):
    x = np.array([1.0, 3.3, -250.0], np.float32).astype(ml_dtypes.bfloat16)
    q = mf.convert(x, ml_dtypes.float8_e5m2)  # target given as a dtype
    assert q.dtype == np.dtype(ml_dtypes.float8_e5m2)
    assert mf.decode(q).tolist() == [1.0, 3.5, -256.0]
    h = mf.convert(q, np.float16)
    assert h.dtype == np.float16 and h.tolist() == [1.0, 3.5, -256.0]
    assert mf.convert(x, "e4m3", src="bf16").dtype == np.dtype(ml_dtypes.float8_e4m3fn)


# ---- errors ----------------------------------------------------------------------------------------------


def test_errors_carry_the_library_message_and_code():
    x = np.ones(4, np.float32)
    with pytest.raises(mf.Error) as e:
        mf.convert(x, "e4m3", threads=-1)  # mf_convert: MF_E_ARG for a negative thread count
    assert e.value.code == -7 and e.value.message == mf.strerror(-7)
    assert mf.strerror(-7) in str(e.value) and "MF_E_ARG" in str(e.value)
    assert isinstance(e.value, ValueError)
    with pytest.raises(mf.Error) as e:
        mf.convert(x, "e9m9")
    assert e.value.code == -7 and "e9m9" in str(e.value)
    with pytest.raises(mf.Error) as e:
        mf.convert(x, "e4m3", round="nearest")
    assert e.value.code == -7
    with pytest.raises(mf.Error):
        mf.convert(np.ones(3, np.uint8), "f32")  # raw codes need src=
    with pytest.raises(mf.Error):
        mf.convert(np.ones(3, np.uint16), "f32", src="e4m3")  # 16-bit codes are not e4m3 codes
    with pytest.raises(mf.Error) as e:
        mf.convert(x, "e4m3", seed=-1)
    assert e.value.code == -7
    assert mf.strerror(0) == "success"


def test_profiles():
    x = np.array([1.0, np.nan], np.float32)
    assert np.array_equal(mf.codes(mf.convert(x, "e4m3", profile="default")), mf.codes(mf.convert(x, "e4m3")))
    assert "default" in mf.profiles()
    with pytest.raises(mf.Error) as e:
        mf.convert(x, "e4m3", profile="no-such-system")
    assert e.value.code in (-7, -11)
    if _lib.has("mf_profile_from_name"):
        assert mf.profiles()[:5] == ["default", "cuda", "ml_dtypes", "torch", "onnx"]
    else:
        with pytest.raises(mf.Error) as e:
            mf.convert(x, "e4m3", profile="ml_dtypes")
        assert e.value.code == -11


# ---- without ml_dtypes -----------------------------------------------------------------------------------


def test_works_without_ml_dtypes():
    # a fresh interpreter in which `import ml_dtypes` fails: narrow results are uint8 / uint16 codes
    code = textwrap.dedent("""
        import sys
        sys.modules["ml_dtypes"] = None  # makes `import ml_dtypes` raise ImportError
        import numpy as np, minifloat as mf
        assert not mf.HAVE_ML_DTYPES
        x = np.array([1.0, -2.0, 448.0, 1e6], np.float32)
        q = mf.convert(x, "e4m3", saturate=True)
        assert q.dtype == np.uint8 and q.tolist() == [0x38, 0xC0, 0x7E, 0x7E], q
        b = mf.convert(x, "bf16")
        assert b.dtype == np.uint16 and b[0] == 0x3F80
        h = mf.convert(x, "f16")
        assert h.dtype == np.float16
        f4 = mf.convert(x, "e2m1")
        assert f4.dtype == np.uint8 and f4.tolist() == [2, 12, 7, 7]
        assert mf.decode(f4, "e2m1").tolist() == [1.0, -2.0, 6.0, 6.0]
        e, s = mf.mx_quantize(np.ones((1, 32), np.float32), "mxfp8_e4m3")
        assert e.dtype == np.uint8 and s.dtype == np.uint8
        print("ok")
    """)
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr

"""convert's and decode's fast path (_native.fast_convert): the common call runs in C from start to finish; it
must give the bytes the wrapper's path gives (src= given takes that path) on every format, mode, policy and
profile, and decline, without raising and without writing into out=, every call it does not take, so that the
wrapper checks and names the argument."""

import numpy as np
import pytest

import minifloat as mf
from minifloat import _core

fast = _core._fast_convert
pytestmark = pytest.mark.skipif(fast is None, reason="no extension module")

_BITS = np.concatenate([
    np.random.default_rng(11).integers(0, 2**32, 4001, dtype=np.uint64).astype(np.uint32),
    np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 1, 0x80000001,
              0x477FF000, 0x43E00000, 0xC3E00000, 0x3F800000], np.uint32),
])
_X = _BITS.view(np.float32)


def _slow(x, to, **kw):
    """The wrapper's path: a call with src= is never taken by the fast path."""
    return mf.convert(x, to, src=_core._FORMAT_BY_ARRAY_DTYPE[x.dtype].name, **kw)


def _same(call_fast, call_slow):
    """Both give the same bytes, or both raise the same error."""
    try:
        want = call_slow()
    except mf.Error as e:
        with pytest.raises(mf.Error) as got:
            call_fast()
        assert (got.value.code, str(got.value)) == (e.code, str(e))
        return
    got = call_fast()
    assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("fmt", mf.formats())
def test_fast_path_gives_the_wrappers_bytes(fmt):
    with np.errstate(invalid="ignore"):  # signalling NaNs among the bits
        x64 = _X.astype(np.float64)
    for sat in (False, True):
        for rnd in ("rn", "rna", "rz", "ru", "rd", "sr"):
            kw = dict(round=rnd, saturate=sat, seed=5, sr_offset=3)
            _same(lambda: mf.convert(_X, fmt, **kw), lambda: _slow(_X, fmt, **kw))
            if rnd in ("rn", "sr"):
                _same(lambda: mf.convert(x64, fmt, **kw), lambda: _slow(x64, fmt, **kw))
        for prof in mf.profiles():
            _same(lambda: mf.convert(_X, fmt, profile=prof, saturate=sat),
                  lambda: _slow(_X, fmt, profile=prof, saturate=sat))
        want = _slow(_X, fmt, saturate=sat)  # out= of the array dtype and of the code dtype
        for dt in dict.fromkeys([want.dtype, np.dtype(mf.finfo(fmt).code_dtype)]):
            out = np.full(_X.shape, 0x5A, np.uint8).view(dt) if dt.itemsize == 1 else np.zeros(_X.shape, dt)
            assert mf.convert(_X, fmt, saturate=sat, out=out) is out and out.tobytes() == want.tobytes()


@pytest.mark.parametrize("fmt", [f for f in mf.formats() if mf.format_of(f).dtype is not None])
def test_fast_decode_gives_the_wrappers_values(fmt):
    info = mf.finfo(fmt)
    if info.bits > 16:
        pytest.skip("f32/f64: no codes to enumerate")
    codes = np.arange(1 << info.bits, dtype=np.uint32).astype(info.code_dtype)
    q = codes.view(mf.format_of(fmt).dtype)  # the dtype array: fmt is found from it, the fast path's case
    for to in ("f32", "f64"):
        for prof in mf.profiles():
            def slow():
                return mf.decode(q, fmt, to=to, profile=prof)  # fmt given: the wrapper's path

            _same(lambda: mf.decode(q, to=to, profile=prof), slow)


def test_the_common_call_is_taken():
    x = np.linspace(-3, 3, 7, dtype=np.float32).reshape(7, 1)
    res = fast(x, "e4m3", None, "rn", False, "default", 0, 0, False, 0, None)
    assert isinstance(res, np.ndarray) and res.shape == (7, 1)
    assert res.tobytes() == _slow(x, "e4m3").tobytes()
    out = np.empty((7, 1), np.uint8)  # out= of the code dtype: taken, filled, returned
    assert fast(x, "e4m3", None, "rn", False, "default", 0, 0, False, 0, out) is out
    assert out.tobytes() == res.tobytes()
    zero_d = fast(np.array(2.5, np.float32), "bf16", None, "rn", True, "torch", 0, 0, False, 1, None)
    assert zero_d.shape == () and float(mf.decode(zero_d)) == 2.5
    empty = fast(np.empty((0, 3), np.float32), "f16", None, "rn", False, "default", 0, 0, False, 0, None)
    assert empty.shape == (0, 3)


def _declined():
    x = np.linspace(-3, 3, 8, dtype=np.float32)
    args = dict(x=x, to="e4m3", src=None, round="rn", saturate=False, profile="default", seed=0, sr_offset=0,
                stats=False, threads=0, out=None)
    cases = {
        "list x": dict(x=[1.0, 2.0]),
        "ndarray subclass": dict(x=np.ma.masked_array(x)),
        "strided x": dict(x=np.arange(20, dtype=np.float32)[::3]),
        "big-endian x": dict(x=x.astype(">f4")),
        "uint8 codes need src": dict(x=np.zeros(4, np.uint8)),
        "src given": dict(src="f32"),
        "stats": dict(stats=True),
        "out of another dtype": dict(out=np.empty(8, np.uint16)),
        "out of another shape": dict(out=np.empty((2, 4), np.uint8)),
        "out not an ndarray": dict(out=bytearray(8)),
        "read-only out": dict(out=np.frombuffer(bytes(8), np.uint8)),
        "strided out": dict(out=np.empty(16, np.uint8)[::2]),
        "out overlapping x": dict(to="f16", out=x.view(np.float16)[:8]),
        "unknown round": dict(round="nearest"),
        "round as int": dict(round=0),
        "unknown format": dict(to="e9m9"),
        "unhashable to": dict(to=["e4m3"]),
        "saturate as int": dict(saturate=1),
        "unknown profile": dict(profile="jax"),
        "negative threads": dict(threads=-1),
        "threads as float": dict(threads=1.0),
        "seed too big": dict(seed=2**64),
        "negative seed": dict(seed=-1),
        "numpy int seed": dict(seed=np.uint64(3)),
        "sr_offset as float": dict(sr_offset=1.0),
        "profile refusing the pair": dict(profile="torch", to="e2m3"),
        "profile refusing the mode": dict(profile="torch", round="rna"),
    }
    return [(name, {**args, **change}) for name, change in cases.items()]


@pytest.mark.parametrize("name,kw", _declined(), ids=[c[0] for c in _declined()])
def test_other_calls_are_declined(name, kw):
    res = fast(kw["x"], kw["to"], kw["src"], kw["round"], kw["saturate"], kw["profile"], kw["seed"],
               kw["sr_offset"], kw["stats"], kw["threads"], kw["out"])
    assert res is NotImplemented, name


def test_declined_out_is_left_alone():
    x = np.linspace(-3, 3, 8, dtype=np.float32)
    keep = x.copy()
    with pytest.raises(mf.Error) as e:  # out shares x's memory: refused, neither written
        mf.convert(x, "f16", out=x.view(np.float16)[:8])
    assert e.value.argument == "out" and x.tobytes() == keep.tobytes()
    out = np.full(8, 0x33, np.uint8)
    with pytest.raises(mf.Error):  # the profile refuses the pair: nothing written
        mf.convert(x, "e2m3", profile="torch", out=out)
    assert (out == 0x33).all()


def test_declined_errors_still_name_the_argument():
    x = np.ones(4, np.float32)
    with pytest.raises(mf.Error) as e:
        mf.convert(x, "e4m3", threads=-1)
    assert e.value.argument == "threads"
    with pytest.raises(mf.Error) as e:
        mf.convert(x, ["e4m3"])
    assert e.value.argument == "to"
    with pytest.raises(mf.Error) as e:
        mf.convert(x, "e2m3", profile="torch")
    assert e.value.argument == "profile"

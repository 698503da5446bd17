"""The extension module minifloat._native: loaded where the package was installed, and giving the bytes of the
ctypes path (MINIFLOAT_NATIVE=0 in a subprocess) on every format."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minifloat as mf
from minifloat import _lib


def test_the_native_module_is_loaded():
    # pip install ./python builds it; a silent fallback to ctypes (an extension that failed to import) fails here.
    if os.environ.get("MINIFLOAT_NATIVE") == "0":
        pytest.skip("MINIFLOAT_NATIVE=0 asks for the ctypes path")
    assert mf._native is not None, f"minifloat._native did not load: {_lib.native_error}"
    assert mf._native.library_version == mf.version()
    assert _lib.native is mf._native


# One program, run twice (extension and ctypes): every conversion from f32 bit patterns into every format, every
# code of every format decoded, and the other native calls. Lengths are odd so e2m1's packing meets a half byte.
_PROGRAM = textwrap.dedent("""
    import sys
    import numpy as np
    import minifloat as mf

    rng = np.random.default_rng(7)
    bits = np.concatenate([rng.integers(0, 2**32, 20001, dtype=np.uint64).astype(np.uint32),
                           np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 1, 0x477FF000], np.uint32)])
    x = bits.view(np.float32)
    out = {}
    for fmt in mf.formats():
        for sat in (False, True):
            q, st = mf.convert(x, fmt, saturate=sat, stats=True)
            out[f"{fmt} {sat}"] = np.frombuffer(q.tobytes(), np.uint8)
            out[f"{fmt} {sat} stats"] = np.array([st.overflow, st.underflow, st.subnormal, st.nan, st.inexact])
        out[f"{fmt} sr"] = np.frombuffer(mf.convert(x[:999], fmt, round="sr", seed=3, sr_offset=5).tobytes(), np.uint8)
        info = mf.finfo(fmt)
        if info.bits <= 16:
            codes = np.arange(1 << info.bits, dtype=np.uint32).astype(info.code_dtype)
            out[f"{fmt} decode"] = np.frombuffer(mf.decode(codes, fmt).tobytes(), np.uint8)
            out[f"{fmt} decode64"] = np.frombuffer(mf.decode(codes[:-1], fmt, to="f64").tobytes(), np.uint8)
    with np.errstate(over="ignore"):  # f32 values beyond f16's range become inf: amax's input, on purpose
        x16 = x[np.isfinite(x)].astype(np.float16)
    out["amax"] = np.array([mf.amax(x), mf.amax(x16)])
    q, am = mf.fp8_quantize(x, "e4m3", 0.25)
    out["fp8_quantize"] = np.frombuffer(q.tobytes(), np.uint8)
    out["fp8_quantize amax"] = np.array([am])
    out["fp8_dequantize"] = np.frombuffer(mf.fp8_dequantize(q, 3.0, to="bf16").tobytes(), np.uint8)
    s = mf.LossScaler(init_scale=1024.0)
    g1, g2 = x[:5000].copy(), x[5000:7001].astype(np.float16)
    out["unscale"] = np.array([s.unscale_(g1, g2), s.unscale_(np.ones(3, np.float32))])
    out["unscale g"] = np.concatenate([np.frombuffer(g1.tobytes(), np.uint8), np.frombuffer(g2.tobytes(), np.uint8)])
    g = rng.standard_normal((33, 64)).astype(np.float32) * 100
    for t in ("mxfp8_e4m3", "mxfp4_e2m1", "mxint8"):
        e, sc, st = mf.mx_quantize(g, t, rule="rceil", round="sr", seed=9, stats=True)
        out[f"mx {t}"] = np.concatenate([np.frombuffer(e.tobytes(), np.uint8), np.frombuffer(sc.tobytes(), np.uint8)])
        out[f"mx {t} stats"] = np.array([st.overflow, st.underflow, st.subnormal, st.nan, st.inexact])
        out[f"mx {t} dequantize"] = mf.mx_dequantize(e, sc, t)
    for axis, amax in (("row", None), ("col", 500.0)):
        e, sc, am, st = mf.nvfp4_quantize(g[:32], axis=axis, amax=amax, round="sr", seed=4, stats=True)
        out[f"nvfp4 {axis}"] = np.concatenate([e.view(np.uint8).reshape(-1), sc.view(np.uint8).reshape(-1),
                                               np.float32([am]).view(np.uint8)])
        out[f"nvfp4 {axis} stats"] = np.array([st.overflow, st.underflow, st.subnormal, st.nan, st.inexact])
        out[f"nvfp4 {axis} dequantize"] = mf.nvfp4_dequantize(e, sc, am, axis=axis)
    for kind in ("1x128", "128x128", "128x1"):
        q, si = mf.fp8_block_quantize(np.tile(g, (5, 3)), "e5m2", kind, pow2=False, epsilon=1e-3)
        out[f"block {kind}"] = np.concatenate([q.view(np.uint8).reshape(-1), si.view(np.uint8).reshape(-1)])
        for to in ("f32", "bf16"):
            out[f"block {kind} dequantize {to}"] = np.frombuffer(
                mf.fp8_block_dequantize(q, si, kind, to=to).tobytes(), np.uint8)
    q, am, s, si = mf.fp8_quantize_current(g.astype(np.float16), "e4m3", pow2=True)
    out["current"] = np.concatenate([q.view(np.uint8).reshape(-1), np.float32([am, s, si]).view(np.uint8)])
    e, sc = mf.mx_quantize(g, "mxfp8_e4m3")
    out["gemm f32"] = mf.gemm(g, g, trans_b=True, accum="fp32")
    out["gemm mx"] = mf.gemm(e, e, trans_b=True, accum="exact", scale_a=mf.mx_scale(sc), scale_b=mf.mx_scale(sc),
                             out="bf16").view(np.uint16)
    h = mf.convert(g, "f16")
    c, st = mf.gemm(h[:, :32], h[:4, :32], mf.convert(np.ones((33, 4)), "f16"), trans_b=True, beta=0.5, accum="h100",
                    out="f16", stats=True)
    out["gemm h100"] = np.concatenate([c.view(np.uint16).reshape(-1), np.array([st.overflow, st.inexact], np.uint16)])
    np.savez(sys.argv[1], **out)
    print(mf._native is not None)
""")


def _run(tmp_path, native: bool) -> dict:
    path = tmp_path / ("native.npz" if native else "ctypes.npz")
    env = dict(os.environ)
    env["MINIFLOAT_NATIVE"] = "1" if native else "0"
    r = subprocess.run([sys.executable, "-c", _PROGRAM, str(path)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(native and mf._native is not None)
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def test_native_and_ctypes_give_the_same_bytes(tmp_path):
    if mf._native is None:
        pytest.skip(f"no extension module: {_lib.native_error}")
    a = _run(tmp_path, True)
    b = _run(tmp_path, False)
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k], equal_nan=a[k].dtype.kind == "f"), k


@pytest.mark.parametrize("fmt", ["f16", "bf16", "e4m3", "e5m2", "e2m1", "e3m2"])
def test_out_is_filled_and_returned(fmt):
    x = np.linspace(-7, 7, 37, dtype=np.float32).reshape(1, 37)
    want = mf.convert(x, fmt)
    o = np.empty_like(want)
    assert mf.convert(x, fmt, out=o) is o and np.array_equal(mf.codes(o), mf.codes(want))
    codes = np.empty(x.shape, mf.finfo(fmt).code_dtype)  # the code dtype is accepted too
    mf.convert(x, fmt, out=codes)
    assert np.array_equal(codes, mf.codes(want))
    d = np.empty(x.shape, np.float32)
    assert mf.decode(want, out=d) is d and np.array_equal(d, mf.decode(want))


def test_strided_and_scalar_inputs():
    x = np.arange(20, dtype=np.float32)[::3]
    assert np.array_equal(mf.decode(mf.convert(x, "bf16")), x)
    assert mf.convert(np.float32(2.5), "e4m3").shape == ()
    assert mf.decode(mf.convert(3.0, "e2m1")).item() == 3.0  # a Python float: f64 in


def test_threads_convert_concurrently():
    # the GIL is released around the C call: threads converting at once give each one's bytes
    import threading

    rng = np.random.default_rng(1)
    xs = [rng.standard_normal(300_000).astype(np.float32) for _ in range(4)]
    want = [mf.codes(mf.convert(x, "e4m3")) for x in xs]
    got = [None] * 4

    def work(i):
        got[i] = mf.codes(mf.convert(xs[i], "e4m3"))

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert all(np.array_equal(g, w) for g, w in zip(got, want))


def _producers():
    x = np.linspace(-3, 3, 64, dtype=np.float32).reshape(2, 32)
    q = mf.convert(x, "e4m3")
    e, sc = mf.mx_quantize(x)
    ne, ns, na = mf.nvfp4_quantize(x)
    bq, bs = mf.fp8_block_quantize(np.ones((2, 128), np.float32), "e4m3")
    calls = [
        ("convert", lambda **k: mf.convert(x, "bf16", **k)),
        ("decode", lambda **k: mf.decode(q, **k)),
        ("fp8_quantize", lambda **k: mf.fp8_quantize(x, "e5m2", 2.0, **k)[0]),
        ("fp8_dequantize", lambda **k: mf.fp8_dequantize(q, 0.5, to="f16", **k)),
        ("fp8_quantize_current", lambda **k: mf.fp8_quantize_current(x, "e4m3", **k)[0]),
        ("DelayedScaling.quantize", lambda **k: mf.DelayedScaling().quantize(x, **k)),
        ("fp8_block_dequantize", lambda **k: mf.fp8_block_dequantize(bq, bs, **k)),
        ("mx_dequantize", lambda **k: mf.mx_dequantize(e, sc, **k)),
        ("nvfp4_dequantize", lambda **k: mf.nvfp4_dequantize(ne, ns, na, **k)),
        ("gemm", lambda **k: mf.gemm(x, x.T.copy(), **k)),
        ("pack_nibbles", lambda **k: mf.pack_nibbles(np.arange(15, dtype=np.uint8), **k)),
        ("unpack_nibbles", lambda **k: mf.unpack_nibbles(np.arange(8, dtype=np.uint8) * 17, 15, **k)),
        ("fp6_pack", lambda **k: mf.fp6_pack(np.arange(13, dtype=np.uint8), **k)),
        ("fp6_unpack", lambda **k: mf.fp6_unpack(mf.fp6_pack(np.arange(13, dtype=np.uint8)), 13, **k)),
    ]
    if _lib.lab is not None:
        calls += [("unary", lambda **k: mf.unary("exp", x, "bf16", **k)),
                  ("softmax", lambda **k: mf.softmax(x, "f16", **k))]
    return calls


@pytest.mark.parametrize("name,call", _producers(), ids=[c[0] for c in _producers()])
def test_every_array_producer_takes_out(name, call):
    want = call()
    o = np.full_like(want, 0)
    got = call(out=o)
    assert got is o and got.tobytes() == want.tobytes(), name


def _tuple_producers():
    x = np.linspace(-3, 3, 128, dtype=np.float32).reshape(2, 64)
    return [
        ("mx_quantize mxfp8_e4m3", lambda **k: mf.mx_quantize(x, "mxfp8_e4m3", **k)),
        ("mx_quantize mxfp4_e2m1 col", lambda **k: mf.mx_quantize(x.T.copy(), "mxfp4_e2m1", axis="col", **k)),
        ("mx_quantize mxint8", lambda **k: mf.mx_quantize(x, "mxint8", **k)),
        ("mx_quantize mxfp6 packed", lambda **k: mf.mx_quantize(x, "mxfp6_e3m2", fp6_packed=True, **k)),
        ("mx_quantize stats", lambda **k: mf.mx_quantize(x, "mxfp8_e5m2", stats=True, **k)),
        ("nvfp4_quantize", lambda **k: mf.nvfp4_quantize(x, **k)),
        ("fp8_block_quantize", lambda **k: mf.fp8_block_quantize(np.tile(x, (1, 2)), "e5m2", **k)),
    ]


@pytest.mark.parametrize("name,call", _tuple_producers(), ids=[c[0] for c in _tuple_producers()])
def test_every_tuple_producer_takes_out(name, call):
    # out=(arrays) of the results' dtypes, and of their uint8 codes where the result is a 1-byte format
    want = call()
    arrays = [w for w in want if isinstance(w, np.ndarray)]
    assert len(arrays) == 2
    for codes in (False, True):
        outs = tuple(np.zeros(w.shape, np.uint8 if codes and w.dtype.itemsize == 1 else w.dtype) for w in arrays)
        got = call(out=outs)
        assert got[0] is outs[0] and got[1] is outs[1], name
        assert all(g.tobytes() == w.tobytes() for g, w in zip(got[:2], arrays)), name
        assert len(got) == len(want) and all(not isinstance(g, np.ndarray) or g is o for g, o in zip(got, outs))


def test_the_gil_is_released_during_the_call():
    # An exact 128^3 GEMM takes tens of milliseconds in C. This thread wakes every 0.5 ms and notes the time, which
    # needs the GIL: released during the call, it notes about one time per 0.5 ms of the call; held, none (a build
    # with the GIL held noted 1 in 30 ms, this one about 40). Sleeping lets the worker reach the C call at once.
    import threading
    import time

    if mf._native is None:
        pytest.skip(f"no extension module: {_lib.native_error}")
    a = np.random.default_rng(0).standard_normal((128, 128)).astype(np.float32)
    span = []
    started = threading.Event()

    def work():
        span.append(time.perf_counter())
        started.set()
        mf.gemm(a, a, accum="exact")
        span.append(time.perf_counter())

    t = threading.Thread(target=work)
    t.start()
    started.wait()
    wakes = []
    while t.is_alive():
        time.sleep(0.0005)
        wakes.append(time.perf_counter())
    t.join()
    t0, t1 = span[0] + 0.002, span[1]
    assert t1 - t0 > 0.005, "the GEMM was too quick to tell"
    inside = sum(1 for w in wakes if t0 < w < t1)
    assert inside >= 5, (inside, t1 - t0)

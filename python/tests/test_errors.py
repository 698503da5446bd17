"""Bad calls, one row each: the exception type, the argument its message names, and out= left untouched.

Every row is (name, call, exception type, argument, out). `call` takes the out= array (or None); `argument` is the
name the error must carry in `.argument` and in its message; `out` is (shape, dtype) of a sentinel-filled array
passed as out=, which must hold the sentinel afterwards (nothing written on error), or None.
"""

import math
import warnings

import numpy as np
import pytest

import minifloat as mf

X = np.array([1.0, -2.0, 448.0, 0.5], np.float32)
X2 = np.ones((4, 64), np.float32)
U8 = np.array([1, 2, 3, 4], np.uint8)
E4M3 = mf.convert(X, "e4m3")
BE = X.astype(">f4")
A = np.ones((2, 3), np.float32)
B = np.ones((3, 2), np.float32)
A8 = mf.convert(A, "e4m3")
B8 = mf.convert(B, "e4m3")
MX_E, MX_S = mf.mx_quantize(X2, "mxfp8_e4m3")
NV_E, NV_S, NV_AMAX = mf.nvfp4_quantize(X2)
Q_BLOCK, SI_BLOCK = mf.fp8_block_quantize(np.ones((2, 128), np.float32), "e4m3", "1x128")

F32 = np.float32
U8T = np.uint8


def _scaler():
    return mf.LossScaler(init_scale=2.0)


ROWS = [
    # ---- convert: options
    ("convert saturate=1", lambda o: mf.convert(X, "e4m3", saturate=1, out=o), TypeError, "saturate", ((4,), U8T)),
    ("convert saturate='yes'", lambda o: mf.convert(X, "e4m3", saturate="yes", out=o), TypeError, "saturate",
     ((4,), U8T)),
    ("convert saturate=None", lambda o: mf.convert(X, "e4m3", saturate=None), TypeError, "saturate", None),
    ("convert to=None", lambda o: mf.convert(X, None), TypeError, "to", None),
    ("convert to=3", lambda o: mf.convert(X, 3), TypeError, "to", None),
    ("convert to unknown", lambda o: mf.convert(X, "e9m9", out=o), ValueError, "to", ((4,), U8T)),
    ("convert to int8 dtype", lambda o: mf.convert(X, np.int8), ValueError, "to", None),
    ("convert round unknown", lambda o: mf.convert(X, "e4m3", round="nearest", out=o), ValueError, "round",
     ((4,), U8T)),
    ("convert round=None", lambda o: mf.convert(X, "e4m3", round=None), TypeError, "round", None),
    ("convert round=99", lambda o: mf.convert(X, "e4m3", round=99), ValueError, "round", None),
    ("convert profile unknown", lambda o: mf.convert(X, "e4m3", profile="pytorch", out=o), ValueError, "profile",
     ((4,), U8T)),
    ("convert profile=None", lambda o: mf.convert(X, "e4m3", profile=None), TypeError, "profile", None),
    ("convert seed=-1", lambda o: mf.convert(X, "e4m3", round="sr", seed=-1, out=o), ValueError, "seed",
     ((4,), U8T)),
    ("convert seed=1.5", lambda o: mf.convert(X, "e4m3", round="sr", seed=1.5), TypeError, "seed", None),
    ("convert sr_offset=2**64", lambda o: mf.convert(X, "e4m3", sr_offset=2**64), ValueError, "sr_offset", None),
    ("convert threads=-1", lambda o: mf.convert(X, "e4m3", threads=-1, out=o), ValueError, "threads", ((4,), U8T)),
    ("convert threads=2**40", lambda o: mf.convert(X, "e4m3", threads=2**40), ValueError, "threads", None),
    ("convert threads='2'", lambda o: mf.convert(X, "e4m3", threads="2"), TypeError, "threads", None),
    ("convert stats=1", lambda o: mf.convert(X, "e4m3", stats=1), TypeError, "stats", None),
    # ---- convert: the input
    ("convert codes without src", lambda o: mf.convert(U8, "f32", out=o), ValueError, "x", ((4,), F32)),
    ("convert uint16 codes as e4m3", lambda o: mf.convert(U8.astype(np.uint16), "f32", src="e4m3", out=o),
     ValueError, "x", ((4,), F32)),
    ("convert f32 as src=e4m3", lambda o: mf.convert(X, "f16", src="e4m3"), ValueError, "x", None),
    ("convert src unknown", lambda o: mf.convert(U8, "f32", src="e9m9"), ValueError, "src", None),
    ("convert big-endian", lambda o: mf.convert(BE, "e4m3", out=o), ValueError, "x", ((4,), U8T)),
    ("convert big-endian to", lambda o: mf.convert(X, np.dtype(">f2")), ValueError, "to", None),
    ("convert complex", lambda o: mf.convert(X.astype(np.complex64), "e4m3"), ValueError, "x", None),
    ("convert object", lambda o: mf.convert(np.array([1, "a"], object), "e4m3"), ValueError, "x", None),
    ("convert e2m1 code 0x1f", lambda o: mf.convert(np.array([1, 0x1F], U8T), "f32", src="e2m1", out=o),
     ValueError, "x", ((2,), F32)),
    ("convert e2m3 code 0x40", lambda o: mf.convert(np.array([0x40, 1], U8T), "f32", src="e2m3", out=o),
     ValueError, "x", ((2,), F32)),
    ("convert e3m2 code 0xff", lambda o: mf.convert(np.array([0xFF], U8T), "e4m3", src="e3m2"), ValueError, "x",
     None),
    ("convert profile lacks the mode", lambda o: mf.convert(X, "e4m3", profile="torch", round="sr", out=o),
     ValueError, "profile", ((4,), U8T)),
    # ---- convert: out=
    ("convert out wrong dtype", lambda o: mf.convert(X, "e4m3", out=o), ValueError, "out", ((4,), F32)),
    ("convert out wrong shape", lambda o: mf.convert(X, "e4m3", out=o), ValueError, "out", ((5,), U8T)),
    ("convert out not an array", lambda o: mf.convert(X, "e4m3", out=[0, 0, 0, 0]), TypeError, "out", None),
    ("convert out strided", lambda o: mf.convert(X, "e4m3", out=o[::2]), ValueError, "out", ((8,), U8T)),
    ("convert out read-only", lambda o: (o.setflags(write=False), mf.convert(X, "e4m3", out=o)), ValueError, "out",
     ((4,), U8T)),
    # ---- decode
    ("decode to=None", lambda o: mf.decode(E4M3, to=None), TypeError, "to", None),
    ("decode to=e5m2", lambda o: mf.decode(E4M3, to="e5m2"), ValueError, "to", None),
    ("decode to=float16", lambda o: mf.decode(E4M3, to=np.float16), ValueError, "to", None),
    ("decode format=", lambda o: mf.decode(U8, format="e4m3", out=o), TypeError, "format", ((4,), F32)),
    ("decode src=", lambda o: mf.decode(U8, src="e4m3"), TypeError, "src", None),
    ("decode codes without fmt", lambda o: mf.decode(U8, out=o), ValueError, "codes", ((4,), F32)),
    ("decode fmt unknown", lambda o: mf.decode(U8, "e9m9"), ValueError, "fmt", None),
    ("decode e2m1 code 0x10", lambda o: mf.decode(np.array([3, 0x10], U8T), "e2m1", out=o), ValueError, "codes",
     ((2,), F32)),
    ("decode out f16", lambda o: mf.decode(E4M3, out=o), ValueError, "out", ((4,), np.float16)),
    # ---- gemm
    ("gemm fmt=", lambda o: mf.gemm(A, B, fmt="e4m3"), TypeError, "fmt", None),
    ("gemm format=", lambda o: mf.gemm(A, B, format="e4m3"), TypeError, "format", None),
    ("gemm v100 e4m3", lambda o: mf.gemm(A8, B8, accum="v100", out=o), ValueError, "accum", ((2, 2), F32)),
    ("gemm accum unknown", lambda o: mf.gemm(A, B, accum="tpu", out=o), ValueError, "accum", ((2, 2), F32)),
    ("gemm f64 a", lambda o: mf.gemm(A.astype(np.float64), B, out=o), ValueError, "a", ((2, 2), F32)),
    ("gemm f64 b", lambda o: mf.gemm(A, B.astype(np.float64)), ValueError, "b", None),
    ("gemm NaN scale_a", lambda o: mf.gemm(A, B, scale_a=math.nan, out=o), ValueError, "scale_a", ((2, 2), F32)),
    ("gemm zero scale_b", lambda o: mf.gemm(A, B, scale_b=0.0), ValueError, "scale_b", None),
    ("gemm inf in vector scale", lambda o: mf.gemm(A, B, scale_a=np.array([1.0, np.inf])), ValueError, "scale_a",
     None),
    ("gemm scale count", lambda o: mf.gemm(A, B, scale_a=np.ones(3, F32)), ValueError, "scale_a", None),
    ("gemm 1-D a", lambda o: mf.gemm(A[0], B), ValueError, "a", None),
    ("gemm inner dims", lambda o: mf.gemm(A, A, out=o), ValueError, "b", ((2, 3), F32)),
    ("gemm c shape", lambda o: mf.gemm(A, B, np.ones((3, 3), F32), beta=1.0), ValueError, "c", None),
    ("gemm beta without c", lambda o: mf.gemm(A, B, beta=1.0, out=o), ValueError, "c", ((2, 2), F32)),
    ("gemm out e4m3", lambda o: mf.gemm(A, B, out="e4m3"), ValueError, "out", None),
    ("gemm out wrong shape", lambda o: mf.gemm(A, B, out=o), ValueError, "out", ((3, 3), F32)),
    ("gemm saturate=1", lambda o: mf.gemm(A, B, saturate=1), TypeError, "saturate", None),
    ("gemm trans_a='yes'", lambda o: mf.gemm(A, B, trans_a="yes"), TypeError, "trans_a", None),
    ("gemm threads=-1", lambda o: mf.gemm(A, B, threads=-1, out=o), ValueError, "threads", ((2, 2), F32)),
    ("gemm tensor_scale NaN", lambda o: mf.tensor_scale(math.nan), ValueError, "s", None),
    # ---- loss scaling
    ("LossScaler init_scale=nan", lambda o: mf.LossScaler(init_scale=math.nan), ValueError, "init_scale", None),
    ("LossScaler init_scale=0", lambda o: mf.LossScaler(init_scale=0.0), ValueError, "init_scale", None),
    ("LossScaler init_scale='big'", lambda o: mf.LossScaler(init_scale="big"), TypeError, "init_scale", None),
    ("LossScaler growth_interval=0", lambda o: mf.LossScaler(growth_interval=0), ValueError, "growth_interval",
     None),
    ("LossScaler growth_interval=1.5", lambda o: mf.LossScaler(growth_interval=1.5), TypeError, "growth_interval",
     None),
    ("LossScaler growth_factor=0.5", lambda o: mf.LossScaler(growth_factor=0.5), ValueError, "growth_factor", None),
    ("LossScaler backoff_factor=2", lambda o: mf.LossScaler(backoff_factor=2.0), ValueError, "backoff_factor", None),
    ("LossScaler hysteresis=0", lambda o: mf.LossScaler(hysteresis=0), ValueError, "hysteresis", None),
    ("LossScaler min > max", lambda o: mf.LossScaler(init_scale=4.0, min_scale=8.0, max_scale=2.0), ValueError,
     "min_scale", None),
    ("LossScaler static_scale=1", lambda o: mf.LossScaler(static_scale=1), TypeError, "static_scale", None),
    ("unscale_ strided", lambda o: _scaler().unscale_(np.ones(4, F32)[::2]), ValueError, "grads[0]", None),
    ("unscale_ e4m3", lambda o: _scaler().unscale_(np.ones(2, F32), (np.ones(2, U8T), "e4m3")), ValueError,
     "grads[1]", None),
    ("unscale_ list", lambda o: _scaler().unscale_([1.0, 2.0]), TypeError, "grads[0]", None),
    ("unscale_ read-only", lambda o: _scaler().unscale_(np.frombuffer(b"\0" * 8, F32)), ValueError, "grads[0]",
     None),
    ("update found=1", lambda o: _scaler().update(1), TypeError, "found_nonfinite", None),
    # ---- MX and NVFP4
    ("mx_quantize 33 columns", lambda o: mf.mx_quantize(np.ones((4, 33), F32)), ValueError, "x", None),
    ("mx_quantize 33 rows col-wise", lambda o: mf.mx_quantize(np.ones((33, 32), F32), axis="col"), ValueError, "x",
     None),
    ("mx_quantize type unknown", lambda o: mf.mx_quantize(X2, "mxfp9"), ValueError, "type", None),
    ("mx_quantize type=None", lambda o: mf.mx_quantize(X2, None), TypeError, "type", None),
    ("mx_quantize rule unknown", lambda o: mf.mx_quantize(X2, rule="ceil"), ValueError, "rule", None),
    ("mx_quantize axis unknown", lambda o: mf.mx_quantize(X2, axis="diag"), ValueError, "axis", None),
    ("mx_quantize 3-D", lambda o: mf.mx_quantize(np.ones((2, 2, 32), F32)), ValueError, "x", None),
    ("mx_quantize round=rz", lambda o: mf.mx_quantize(X2, round="rz"), ValueError, "round", None),
    ("mx_quantize fp6_packed e4m3", lambda o: mf.mx_quantize(X2, "mxfp8_e4m3", fp6_packed=True), ValueError,
     "fp6_packed", None),
    ("mx_quantize stats='y'", lambda o: mf.mx_quantize(X2, stats="y"), TypeError, "stats", None),
    ("mx_dequantize float32 scales", lambda o: mf.mx_dequantize(MX_E, MX_S.astype(F32), out=o), ValueError,
     "scales", ((4, 64), F32)),
    ("mx_dequantize scale count", lambda o: mf.mx_dequantize(MX_E, np.zeros(3, U8T), out=o), ValueError, "scales",
     ((4, 64), F32)),
    ("mx_dequantize uint8 without type", lambda o: mf.mx_dequantize(np.zeros((1, 32), U8T), np.zeros(1, U8T)),
     ValueError, "type", None),
    ("mx_dequantize out f16", lambda o: mf.mx_dequantize(MX_E, MX_S, out=o), ValueError, "out", ((4, 64), np.float16)),
    ("mx_quantize out not a tuple", lambda o: mf.mx_quantize(X2, out=o), TypeError, "out", ((4, 64), U8T)),
    ("mx_quantize out of one array", lambda o: mf.mx_quantize(X2, out=(o,)), TypeError, "out", ((4, 64), U8T)),
    ("mx_quantize out[1] float32", lambda o: mf.mx_quantize(X2, out=(o, np.empty((4, 2), F32))), ValueError,
     "out[1]", ((4, 64), U8T)),
    ("mx_quantize out[0] wrong shape", lambda o: mf.mx_quantize(X2, out=(o, np.empty((4, 2), U8T))), ValueError,
     "out[0]", ((4, 32), U8T)),
    ("mx_quantize out[1] is out[0]", lambda o: mf.mx_quantize(np.ones((1, 32), F32), out=(o, o[:, :1])),
     ValueError, "out[1]", ((1, 32), U8T)),
    ("mx_quantize round=rz with out", lambda o: mf.mx_quantize(X2, round="rz", out=(o, np.empty((4, 2), U8T))),
     ValueError, "round", ((4, 64), U8T)),
    ("nvfp4_quantize out[1] wrong shape", lambda o: mf.nvfp4_quantize(X2, out=(o, np.empty((4, 2), U8T))),
     ValueError, "out[1]", ((4, 64), U8T)),
    ("fp8_block_quantize out[1] uint8",
     lambda o: mf.fp8_block_quantize(np.ones((2, 128), F32), out=(o, np.empty((2, 1), U8T))), ValueError, "out[1]",
     ((2, 128), U8T)),
    ("nvfp4_quantize 17 columns", lambda o: mf.nvfp4_quantize(np.ones((2, 17), F32)), ValueError, "x", None),
    ("nvfp4_quantize amax=nan", lambda o: mf.nvfp4_quantize(X2, amax=math.nan), ValueError, "amax", None),
    ("nvfp4_dequantize float32 scales", lambda o: mf.nvfp4_dequantize(NV_E, NV_S.astype(F32), NV_AMAX, out=o),
     ValueError, "scales", ((4, 64), F32)),
    ("nvfp4_dequantize 1-D", lambda o: mf.nvfp4_dequantize(NV_E.reshape(-1), NV_S, NV_AMAX), ValueError, "elems",
     None),
    ("fp6_pack out too short", lambda o: mf.fp6_pack(np.arange(8, dtype=U8T), out=o), ValueError, "out",
     ((5,), U8T)),
    ("fp6_unpack out int8", lambda o: mf.fp6_unpack(np.zeros(6, U8T), 8, out=o), ValueError, "out", ((8,), np.int8)),
    ("pack_nibbles out shape", lambda o: mf.pack_nibbles(np.arange(4, dtype=U8T), out=o), ValueError, "out",
     ((4,), U8T)),
    ("fp6_pack code 64", lambda o: mf.fp6_pack(np.array([1, 64], U8T)), ValueError, "codes", None),
    ("fp6_unpack short", lambda o: mf.fp6_unpack(np.zeros(2, U8T), 8), ValueError, "packed", None),
    # ---- FP8 recipes
    ("fp8_quantize NaN scale", lambda o: mf.fp8_quantize(X, "e4m3", math.nan, out=o), ValueError, "scale",
     ((4,), U8T)),
    ("fp8_quantize scale='1'", lambda o: mf.fp8_quantize(X, "e4m3", "1"), TypeError, "scale", None),
    ("fp8_quantize bf16", lambda o: mf.fp8_quantize(X, "bf16", 1.0), ValueError, "fmt", None),
    ("fp8_dequantize NaN scale_inv", lambda o: mf.fp8_dequantize(E4M3, math.nan, out=o), ValueError, "scale_inv",
     ((4,), F32)),
    ("fp8_dequantize to e5m2", lambda o: mf.fp8_dequantize(E4M3, 1.0, to="e5m2"), ValueError, "to", None),
    ("fp8_dequantize f32 q", lambda o: mf.fp8_dequantize(X, 1.0), ValueError, "q", None),
    ("fp8_quantize_current out shape", lambda o: mf.fp8_quantize_current(X, "e4m3", out=o), ValueError, "out",
     ((2, 2), U8T)),
    ("DelayedScaling.quantize out dtype", lambda o: mf.DelayedScaling().quantize(X, out=o), ValueError, "out",
     ((4,), F32)),
    ("fp8_max f16", lambda o: mf.fp8_max("f16"), ValueError, "fmt", None),
    ("fp8_current_scale pow2=1", lambda o: mf.fp8_current_scale("e4m3", 1.0, pow2=1), TypeError, "pow2", None),
    ("amax e4m3 data", lambda o: mf.amax(E4M3), ValueError, "x", None),
    ("amax codes", lambda o: mf.amax(U8), ValueError, "x", None),
    ("fp8_block_quantize kind", lambda o: mf.fp8_block_quantize(X2, "e4m3", "1x64"), ValueError, "kind", None),
    ("fp8_block_quantize 1-D", lambda o: mf.fp8_block_quantize(X, "e4m3"), ValueError, "x", None),
    ("fp8_block_scale_shape rows=-1", lambda o: mf.fp8_block_scale_shape(-1, 128), ValueError, "rows", None),
    ("fp8_block_scale_shape cols=1.5", lambda o: mf.fp8_block_scale_shape(1, 1.5), TypeError, "cols", None),
    ("fp8_block_dequantize scale_inv size",
     lambda o: mf.fp8_block_dequantize(Q_BLOCK, np.ones(5, F32), out=o), ValueError, "scale_inv", ((2, 128), F32)),
    ("fp8_block_dequantize uint8 scale_inv",
     lambda o: mf.fp8_block_dequantize(Q_BLOCK, SI_BLOCK.view(U8T)), ValueError, "scale_inv", None),
    ("DelayedScaling algo", lambda o: mf.DelayedScaling(algo="mean"), ValueError, "algo", None),
    ("DelayedScaling history_len=0", lambda o: mf.DelayedScaling(history_len=0), ValueError, "history_len", None),
    ("DelayedScaling f16", lambda o: mf.DelayedScaling("f16"), ValueError, "fmt", None),
    ("DelayedScaling initial_scale=inf", lambda o: mf.DelayedScaling(initial_scale=math.inf), ValueError,
     "initial_scale", None),
]

if mf._lib.lab is not None:  # the lab library is optional (MF_BUILD_LAB=OFF)
    ROWS += [
        ("analyze saturate=1", lambda o: mf.analyze(X, "e4m3", saturate=1), TypeError, "saturate", None),
        ("analyze fmt=None", lambda o: mf.analyze(X, None), TypeError, "fmt", None),
        ("analyze seed=-2", lambda o: mf.analyze(X, "e4m3", seed=-2), ValueError, "seed", None),
        ("unary op unknown", lambda o: mf.unary("cosh", X), ValueError, "op", None),
        ("unary stats=1", lambda o: mf.unary("exp", X, stats=1), TypeError, "stats", None),
        ("softmax 0-d", lambda o: mf.softmax(np.float32(1.0)), ValueError, "x", None),
        ("unary out shape", lambda o: mf.unary("exp", X, out=o), ValueError, "out", ((3,), F32)),
        ("softmax log='yes'", lambda o: mf.softmax(X, log="yes"), TypeError, "log", None),
    ]

SENTINEL = 0x5A  # a byte pattern no tested call would write


def test_the_table_is_large():
    assert len(ROWS) >= 60
    assert len({r[0] for r in ROWS}) == len(ROWS)


@pytest.mark.parametrize("name,call,exc,argument,out", ROWS, ids=[r[0] for r in ROWS])
def test_bad_call(name, call, exc, argument, out):
    o = None
    if out is not None:
        shape, dtype = out
        o = np.empty(shape, dtype)
        o.view(np.uint8)[...] = SENTINEL
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a bad call must fail, not warn
        with pytest.raises(exc) as e:
            call(o)
    err = e.value
    assert isinstance(err, mf.Error), f"{type(err).__name__}: {err}"
    assert err.argument == argument, str(err)
    assert argument in str(err)
    if o is not None:
        assert (o.view(np.uint8) == SENTINEL).all(), f"{name} wrote into out="


def test_type_errors_are_both_kinds():
    with pytest.raises(mf.ArgumentTypeError) as e:
        mf.convert(X, "e4m3", saturate=1)
    assert isinstance(e.value, TypeError) and isinstance(e.value, ValueError) and e.value.code == -7
    assert str(e.value).startswith("convert: saturate must be a bool")


def test_the_issue_message():
    with pytest.raises(mf.Error) as e:
        mf.mx_quantize(np.ones((4, 33), np.float32), "mxfp8_e4m3")
    assert str(e.value).startswith("mx_quantize: columns (33) must be a multiple of the block size 32")


def test_suggestions():
    with pytest.raises(TypeError, match=r"did you mean fmt="):
        mf.decode(U8, format="e4m3")
    with pytest.raises(TypeError, match=r"did you mean fmt_a= or fmt_b=\?"):
        mf.gemm(A, B, fmt="e4m3")
    with pytest.raises(ValueError, match=r"the v100 model does not multiply e4m3 x e4m3"):
        mf.gemm(A8, B8, accum="v100")
    with pytest.raises(ValueError, match=r"big-endian|byte order"):
        mf.convert(BE, "e4m3")


def test_block_scale_shape_order():
    assert mf.fp8_block_scale_shape(130, 260, "1x128") == (130, 3)
    with pytest.warns(DeprecationWarning):
        assert mf.fp8_block_scale_shape("1x128", 130, 260) == (130, 3)


def test_errors_pickle_with_their_argument():
    import pickle

    with pytest.raises(mf.Error) as info:
        mf.convert(X, "e4m3", saturate=1)
    e = info.value
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is mf.ArgumentTypeError and back.argument == "saturate" and str(back) == str(e)

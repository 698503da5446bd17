"""The overflow lab (analyze, elementwise) and the GEMM."""

import numpy as np
import pytest

import minifloat as mf
from minifloat import _lib

lab = pytest.mark.skipif(_lib.lab is None, reason=f"libminifloat_lab unavailable: {_lib.lab_error}")

# ---- analyze ---------------------------------------------------------------------------------------------


@lab
def test_analyze_counts_a_hand_made_tensor():
    x = np.array([1.0, 2.0, 70000.0, 1e-9, 0.0, np.nan, np.inf, -3.0], np.float32)
    r = mf.analyze(x, "f16")
    assert r.format == "f16" and r.n == 8 and r.scale == 1.0
    assert (r.in_zero, r.in_nan, r.in_inf) == (1, 1, 1)
    assert r.amax == 70000.0 and r.amin == float(np.float32(1e-9))
    # 70000 > 65504 becomes inf (IEEE); 1e-9 is below half of f16's smallest subnormal 2^-24, so 0
    assert (r.overflow, r.to_inf, r.saturated, r.underflow) == (1, 1, 0, 1)
    assert r.hist.sum() == 5 and r.hist[0 - mf.lab.HIST_MIN] == 1 and r.hist[1 - mf.lab.HIST_MIN] == 2  # 1; 2, -3
    assert (r.fmt_min_subnormal_log2, r.fmt_min_normal_log2, r.fmt_max_log2) == (-24, -14, 15)
    assert r.scale_up_log2 == -1  # 70000 / 2 = 35000 fits
    sat = mf.analyze(x, "f16", saturate=True)
    assert sat.saturated == 2 and sat.to_inf == 0  # 70000 and the inf input become 65504
    scaled = mf.analyze(x, "f16", scale=0.5)
    assert scaled.overflow == 0 and scaled.scale == 0.5
    d = r.asdict()
    assert d["overflow"] == 1 and len(d["hist"]) == mf.lab.HIST_BINS


@lab
def test_analyze_bf16_data_and_errors(ml_dtypes):
    x = np.array([1.0, 3.0, 1000.0], np.float32).astype(ml_dtypes.bfloat16)
    r = mf.analyze(x, "e4m3")
    assert r.n == 3 and r.overflow == 1 and r.to_nan == 1  # 1000 > 448: NaN under IEEE
    with pytest.raises(mf.Error) as e:
        mf.analyze(np.ones(3, np.float32), "f64")  # not a target of mf_analyze
    assert e.value.code == -2
    with pytest.raises(mf.Error) as e:
        mf.analyze(np.ones(3, np.float32), "e4m3", scale=-1.0)
    assert e.value.code == -7


@lab
def test_elementwise():
    y = mf.unary("exp", np.array([0.0, 1.0, 12.0], np.float32), "f16")
    assert y.dtype == np.float16 and y[0] == 1 and abs(float(y[1]) - np.e) < 2e-3 and np.isinf(y[2])  # e^12 > 65504
    s = mf.softmax(np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], np.float32))
    assert np.allclose(s.sum(axis=1), 1.0, atol=1e-6) and np.allclose(s[1], 1 / 3)
    with pytest.raises(mf.Error):
        mf.unary("cosh", np.ones(2, np.float32))


# ---- gemm ------------------------------------------------------------------------------------------------


def fp32_chain(a, b):
    """The documented MF_ACCUM_FP32: acc = fma(a[i,p], b[p,j], acc) for p = 0..k-1 from +0. Narrow-format products
    are exact in binary32, so a float32 multiply-then-add is the same chain."""
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for p in range(a.shape[1]):
        acc = acc + np.outer(a[:, p], b[p, :]).astype(np.float32)
    return acc


def test_gemm_small_integers_exactly(ml_dtypes):
    rng = np.random.default_rng(9)
    a = rng.integers(-8, 9, (5, 7)).astype(np.float32)
    b = rng.integers(-8, 9, (7, 3)).astype(np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)
    for fa, fb in [("e4m3", "e4m3"), ("e5m2", "e4m3"), ("bf16", "f16"), ("f32", "e3m2")]:
        qa, qb = mf.convert(a, fa), mf.convert(b, fb)
        for accum in ("fp32", "exact"):
            c = mf.gemm(qa, qb, accum=accum)
            assert c.dtype == np.float32 and np.array_equal(c, want), (fa, fb, accum)
    # transposes, alpha/beta with an f16 C, raw codes with explicit formats
    c0 = np.ones((5, 3), np.float16)
    c = mf.gemm(mf.codes(mf.convert(a.T.copy(), "e4m3")), mf.convert(b.T.copy(), "e5m2"), c0, trans_a=True,
                trans_b=True, fmt_a="e4m3", alpha=2.0, beta=-1.0)
    assert c.dtype == np.float16 and np.array_equal(c.astype(np.float64), 2 * want - 1)
    assert np.array_equal(c0, np.ones((5, 3), np.float16))  # the caller's C is not written


def test_gemm_e2m1_and_fp32_chain(ml_dtypes):
    rng = np.random.default_rng(10)
    vals = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float32)
    a = (rng.choice(vals, (6, 33)) * rng.choice([-1, 1], (6, 33))).astype(np.float32)  # odd k: nibbles span rows
    b = rng.choice(vals, (33, 5)).astype(np.float32)
    c = mf.gemm(mf.convert(a, "e2m1"), mf.convert(b, "e2m1"))
    assert np.array_equal(c, a.astype(np.float64) @ b)
    # e4m3 random data: the FP32 accumulator is one fixed fma chain, reproduced exactly
    x = mf.convert(rng.standard_normal((8, 300)).astype(np.float32) * 100, "e4m3", saturate=True)
    y = mf.convert(rng.standard_normal((300, 4)).astype(np.float32), "e4m3")
    c, st = mf.gemm(x, y, stats=True, threads=2)
    assert np.array_equal(c, fp32_chain(mf.decode(x), mf.decode(y))) and st.overflow == 0


def test_gemm_f32_within_the_fp32_bound():
    rng = np.random.default_rng(11)
    a = rng.standard_normal((16, 500)).astype(np.float32)
    b = rng.standard_normal((500, 8)).astype(np.float32)
    c = mf.gemm(a, b)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    bound = 500 * 2.0**-24 * (np.abs(a).astype(np.float64) @ np.abs(b))  # k rounding errors of 2^-24 each
    assert (np.abs(c - exact) <= bound).all()
    assert np.array_equal(mf.gemm(a, b, accum="exact"), exact.astype(np.float32))


def test_gemm_scales_and_block_formats():
    rng = np.random.default_rng(12)
    a = rng.standard_normal((4, 64)).astype(np.float32)
    b = rng.standard_normal((64, 32)).astype(np.float32)
    # tensor and vector scales multiply the dot products
    qa, qb = mf.convert(a, "e4m3"), mf.convert(b, "e4m3")
    base = mf.gemm(qa, qb, accum="exact")
    assert np.array_equal(mf.gemm(qa, qb, accum="exact", scale_a=2.0, scale_b=0.5), base)
    sv = np.array([1.0, 2.0, 4.0, 8.0], np.float32)
    assert np.array_equal(mf.gemm(qa, qb, accum="exact", scale_a=sv), base * sv[:, None])
    # MX: the GEMM of the quantized operands equals the exact product of their dequantized values
    ea, sa = mf.mx_quantize(a, "mxfp8_e4m3")  # blocks along k (rows of A)
    bt = np.ascontiguousarray(b.T)  # B stored transposed: blocks along k again
    eb, sb = mf.mx_quantize(bt, "mxfp8_e4m3")
    c = mf.gemm(ea, eb, trans_b=True, accum="exact", scale_a=mf.mx_scale(sa), scale_b=mf.mx_scale(sb))
    ref = mf.mx_dequantize(ea, sa).astype(np.float64) @ mf.mx_dequantize(eb, sb).astype(np.float64).T
    assert np.array_equal(c, ref.astype(np.float32))
    # NVFP4
    na, nsa, amax_a = mf.nvfp4_quantize(a)
    c = mf.gemm(na, mf.convert(b, "e4m3"), accum="exact", scale_a=mf.nvfp4_scale(nsa, amax_a))
    ref = mf.nvfp4_dequantize(na, nsa, amax_a).astype(np.float64) @ mf.decode(mf.convert(b, "e4m3"), to="f64")
    assert np.array_equal(c, ref.astype(np.float32))
    with pytest.raises(mf.Error):
        mf.gemm(qa, qb, scale_a=np.ones(3, np.float32))  # 3 scales for 4 rows


def test_gemm_errors():
    a = np.ones((2, 3), np.float32)
    with pytest.raises(mf.Error):
        mf.gemm(a, a)  # 2x3 times 2x3
    with pytest.raises(mf.Error) as e:
        mf.gemm(a, a.T.copy(), out="e4m3")  # C must be f32, f16 or bf16
    assert e.value.code == -2
    with pytest.raises(mf.Error):
        mf.gemm(a, a.T.copy(), accum="tpu")

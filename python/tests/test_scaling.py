"""Loss scaling, MX / NVFP4 block scaling and the FP8 recipes."""

import numpy as np
import pytest

import minifloat as mf

# ---- loss scaling ----------------------------------------------------------------------------------------


def test_loss_scaler_defaults_are_gradscalers():
    s = mf.LossScaler()
    assert s.scale == 65536.0 and s.inv_scale == 2.0**-16
    assert s.config["growth_interval"] == 2000 and s.config["backoff_factor"] == 0.5
    assert s.scale_loss(1.5) == np.float32(98304.0)


def test_loss_scaler_follows_gradscaler_on_a_tiny_run(ml_dtypes):
    # torch.amp.GradScaler: unscale grads by 1/scale; an inf/NaN skips the step and multiplies the scale by
    # backoff_factor; growth_interval consecutive clean steps multiply it by growth_factor
    s = mf.LossScaler(init_scale=4.0, growth_interval=2)
    g32 = np.array([8.0, -4.0, 1.0], np.float32)
    g16 = np.array([2.0, 6.0], np.float16)
    gbf = np.array([12.0], ml_dtypes.bfloat16)
    assert s.unscale_(g32, g16, gbf) is False
    assert g32.tolist() == [2.0, -1.0, 0.25] and g16.tolist() == [0.5, 1.5] and float(gbf[0]) == 3.0
    assert s.update(False) is True and s.scale == 4.0 and s.growth_tracker == 1
    assert s.update(False) is True and s.scale == 8.0 and s.growth_tracker == 0  # grew after 2 clean steps
    bad = np.array([1.0, np.inf], np.float32)
    assert s.unscale_(bad) is True
    assert s.update(True) is False and s.scale == 4.0 and s.growth_tracker == 0  # backed off, step skipped
    nan16 = np.array([np.nan], np.float16)
    assert s.unscale_(nan16) is True and np.isnan(nan16[0])
    assert (s.steps_taken, s.steps_skipped) == (2, 1)
    snapshot = s.copy()
    s.update(True)
    assert s.scale == 2.0 and snapshot.scale == 4.0


def test_loss_scaler_codes_and_errors():
    s = mf.LossScaler(init_scale=2.0)
    codes = np.array([0x4000], np.uint16)  # bf16 2.0
    assert s.unscale_((codes, "bf16")) is False and codes[0] == 0x3F80  # 1.0
    with pytest.raises(mf.Error) as e:
        mf.LossScaler(init_scale=-1.0)
    assert e.value.code == -7
    with pytest.raises(mf.Error):
        s.unscale_(np.ones(4, np.float32)[::2])  # not contiguous: cannot be changed in place
    with pytest.raises(mf.Error) as e:
        s.unscale_((np.ones(2, np.uint8), "e4m3"))  # mf_unscale_check takes f32, f16, bf16 only
    assert e.value.code == -2


def test_loss_scaler_hysteresis_and_bounds():
    s = mf.LossScaler(init_scale=16.0, hysteresis=2, min_scale=8.0)
    s.update(True)
    assert s.scale == 16.0  # the first overflow is tolerated
    s.update(True)
    assert s.scale == 8.0
    s.update(True)
    assert s.scale == 8.0  # floor


# ---- MX --------------------------------------------------------------------------------------------------

MX = {  # type: (element format, largest element value)
    "mxfp8_e4m3": ("e4m3", 448.0),
    "mxfp8_e5m2": ("e5m2", 57344.0),
    "mxfp6_e2m3": ("e2m3", 7.5),
    "mxfp6_e3m2": ("e3m2", 28.0),
    "mxfp4_e2m1": ("e2m1", 6.0),
    "mxint8": (None, 127 / 64),
}


def element_values(elem):
    if elem is None:
        return np.arange(-127, 128) / 64.0
    info = mf.finfo(elem)
    v = mf.decode(np.arange(1 << info.bits).astype(info.code_dtype), elem, "f64")
    return v[np.isfinite(v)]


def element_f32(elems, elem):
    return (elems.astype(np.float32) / 64) if elem is None else mf.decode(elems, None if elems.dtype != np.uint8 else elem)


@pytest.mark.parametrize("mxtype", list(MX))
def test_mx_round_trip_of_representable_blocks(mxtype):
    elem, top = MX[mxtype]
    rng = np.random.default_rng(4)
    vals = element_values(elem)
    rows, cols = 4, 96
    x = rng.choice(vals, (rows, cols))
    x[:, ::32] = top  # each block holds the element max, so the floor rule's scale is the block's power of two
    x *= np.exp2(rng.integers(-20, 20, (rows, cols // 32))).repeat(32, axis=1)
    x = x.astype(np.float32)
    for axis, xx in (("row", x), ("col", np.ascontiguousarray(x.T))):
        e, s = mf.mx_quantize(xx, mxtype, rule="floor", axis=axis)
        assert e.shape == xx.shape
        assert s.shape == ((xx.shape[0], xx.shape[1] // 32) if axis == "row" else (xx.shape[0] // 32, xx.shape[1]))
        y = mf.mx_dequantize(e, s, mxtype, axis=axis)
        assert np.array_equal(y, xx), f"{mxtype} {axis}"


@pytest.mark.parametrize("mxtype", list(MX))
def test_mx_layout_of_elements_and_scales(mxtype):
    elem, _ = MX[mxtype]
    x = (np.random.default_rng(5).standard_normal((3, 64)) * np.exp2(np.arange(64) % 7)).astype(np.float32)
    e, s, st = mf.mx_quantize(x, mxtype, rule="rceil", stats=True)
    ev = element_f32(e, elem)
    sv = mf.decode(s, "e8m0")
    ref = ev * np.repeat(sv, 32, axis=1)  # element (r, c) uses scales[r, c // 32]
    assert np.array_equal(mf.mx_dequantize(e, s, mxtype), ref)
    assert st.overflow == 0  # rceil never puts the block max above the element max
    xc = np.ascontiguousarray(x[:, :32].T)  # 32 x 3, column-wise blocks
    e, s = mf.mx_quantize(xc, mxtype, axis="col")
    ref = element_f32(e, elem) * mf.decode(s, "e8m0")
    assert np.array_equal(mf.mx_dequantize(e, s, mxtype, axis="col"), ref)


@pytest.mark.parametrize("mxtype", ["mxfp6_e2m3", "mxfp6_e3m2"])
def test_mx_fp6_packed(mxtype):
    x = np.random.default_rng(6).standard_normal((2, 64)).astype(np.float32)
    e, s = mf.mx_quantize(x, mxtype)
    packed, s2 = mf.mx_quantize(x, mxtype, fp6_packed=True)
    assert packed.size == 2 * 64 * 3 // 4 and np.array_equal(mf.codes(s), mf.codes(s2))
    assert np.array_equal(packed, mf.fp6_pack(e))
    assert np.array_equal(mf.fp6_unpack(packed, e.size), mf.codes(e).reshape(-1))
    y = mf.mx_dequantize(packed, s, mxtype, shape=(2, 64), fp6_packed=True)
    assert np.array_equal(y, mf.mx_dequantize(e, s))


def test_mx_saturation_stats_and_errors():
    x = np.zeros((1, 32), np.float32)
    x[0, 0] = 500.0  # floor rule: scale 2^0, and 500 clamps to 448
    e, s, st = mf.mx_quantize(x, "mxfp8_e4m3", stats=True)
    assert mf.decode(e)[0, 0] == 448.0 and st.overflow == 1
    assert mf.mx_scale_code("mxfp8_e4m3", 500.0) == 127
    with pytest.raises(mf.Error) as err:
        mf.mx_quantize(np.ones((1, 31), np.float32), "mxfp8_e4m3")  # not a multiple of 32
    assert err.value.code == -7
    with pytest.raises(mf.Error) as err:
        mf.mx_quantize(np.ones((1, 32), np.float32), "mxfp8_e4m3", round="rz")  # rn and sr only
    assert err.value.code == -3


# ---- NVFP4 -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("axis", ["row", "col"])
def test_nvfp4_round_trip(axis):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((32, 48)) * np.exp2(rng.integers(-3, 4, (32, 48)))).astype(np.float32)
    e, s, amax = mf.nvfp4_quantize(x, axis=axis)
    assert amax == np.abs(x).max()
    assert e.shape == x.shape and s.shape == ((32, 3) if axis == "row" else (2, 48))
    y = mf.nvfp4_dequantize(e, s, amax, axis=axis)
    # the documented formula, in binary32: final = (float(scale) * amax) * (1/2688), y = e2m1 * final
    f32 = np.float32
    final = (mf.decode(s) * f32(amax)) * f32(1 / 2688)
    final = np.repeat(final, 16, axis=1) if axis == "row" else np.repeat(final, 16, axis=0)
    assert np.array_equal(y, mf.decode(e) * final)
    blocks = np.abs(x).reshape(32, 3, 16).max(axis=2) if axis == "row" else np.abs(x).reshape(2, 16, 48).max(axis=1)
    bmax = np.repeat(blocks, 16, axis=1) if axis == "row" else np.repeat(blocks, 16, axis=0)
    assert (np.abs(y - x) <= 0.2 * bmax).all()
    e2, s2, amax2 = mf.nvfp4_quantize(x, axis=axis, amax=2 * amax)  # a given amax is used as is
    assert amax2 == 2 * amax


def test_nvfp4_global_scale():
    assert mf.nvfp4_global_scale(2688.0) == 1.0
    assert mf.nvfp4_global_scale(0.0) == 1.0


# ---- FP8 recipes -----------------------------------------------------------------------------------------


def test_fp8_current_scaling():
    assert mf.fp8_max("e4m3") == 448.0 and mf.fp8_max("e5m2") == 57344.0
    with pytest.raises(mf.Error) as e:
        mf.fp8_max("f16")
    assert e.value.code == -2
    x = np.array([0.5, -2.0, 1.0, np.nan], np.float32)
    assert mf.amax(x) == 2.0  # NaN skipped
    q, amax, scale, scale_inv = mf.fp8_quantize_current(x[:3], "e4m3")
    assert (amax, scale) == (2.0, 224.0) and scale_inv == np.float32(1 / 224)
    assert mf.decode(q).tolist() == [112.0, -448.0, 224.0]
    y = mf.fp8_dequantize(q, scale_inv)
    assert np.allclose(y, x[:3], rtol=1e-6)
    assert mf.fp8_current_scale("e4m3", 2.0) == (scale, scale_inv)
    q2, am2 = mf.fp8_quantize(x[:3], "e4m3", 224.0)
    assert np.array_equal(mf.codes(q2), mf.codes(q)) and am2 == 2.0
    assert mf.scale_from_amax(0.0, 448.0) == 1.0


def test_fp8_delayed_scaling():
    d = mf.DelayedScaling("e4m3", history_len=4)
    assert d.scale == 1.0
    q = d.quantize(np.array([2.0, -8.0], np.float32))
    assert mf.decode(q).tolist() == [2.0, -8.0]
    assert d.history.tolist() == [8.0, 0.0, 0.0, 0.0]  # history[0] accumulates the current step
    d.update()
    assert d.scale == 448.0 / 8.0 and d.history.tolist() == [0.0, 0.0, 0.0, 8.0] and d.steps == 1


@pytest.mark.parametrize("kind", ["1x128", "128x128", "128x1"])
def test_fp8_block_scaling(kind):
    x = np.random.default_rng(8).standard_normal((130, 260)).astype(np.float32)
    q, si = mf.fp8_block_quantize(x, "e4m3", kind)
    assert si.shape == mf.fp8_block_scale_shape(kind, 130, 260)
    assert np.array_equal(np.log2(si), np.round(np.log2(si)))  # pow2 scales (TE's default)
    bh, bw = {"1x128": (1, 128), "128x128": (128, 128), "128x1": (128, 1)}[kind]
    full = np.repeat(np.repeat(si, bh, axis=0), bw, axis=1)[:130, :260]
    y = mf.fp8_block_dequantize(q, si, kind)
    assert np.array_equal(y, mf.decode(q) * full)
    # e4m3 keeps 3 fraction bits (relative error <= 2^-4) down to its subnormals (spacing 2^-9 before scaling)
    assert (np.abs(y - x) <= 2**-4 * np.abs(x) + 2**-10 * full).all()

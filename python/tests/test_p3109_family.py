"""The P3109 family by its parameters (minifloat.P3109, p3109_encode, p3109_decode): against convert() on the K = 8
rows, values worked out by hand for other members, and the errors naming their argument."""

import numpy as np
import pytest

import minifloat as mf

MODES = ["rn", "rna", "rz", "ru", "rd", "ro", "sr"]


def _values(n=3000, seed=5):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * np.exp2(rng.integers(-40, 40, n))).astype(np.float32)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e30]
    return x


@pytest.mark.parametrize("name", ["binary8p4se", "binary8p3uf", "binary8p1ue"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("saturate", [False, True, "propagate"])
def test_rows_agree_with_convert(name, mode, saturate):
    x = _values()
    f = mf.P3109.from_name(name)
    got, st = mf.p3109_encode(x, f, round=mode, saturate=saturate, seed=9, sr_offset=4, stats=True)
    want, wst = mf.convert(x, name, round=mode, saturate=saturate, seed=9, sr_offset=4, stats=True)
    assert got.dtype == np.uint8
    assert np.array_equal(got, mf.codes(want))
    assert st == wst
    back = mf.p3109_decode(got, f)
    assert np.array_equal(back.view(np.uint32), mf.decode(want, name).view(np.uint32))


def test_hand_values():
    b10 = mf.P3109(10, 4, signed=False, extended=True)  # bias 2^6, three trailing bits
    assert b10.name == "binary10p4ue" and b10.code_dtype == np.uint16
    # 0.3 = 1.2 * 2^-2: nearest 1.25 (0b1.010) at exponent field -2 + 64 = 62: code 62 << 3 | 2
    c = mf.p3109_encode(np.float32([0.3, -0.3, np.inf]), b10)
    assert c.tolist() == [0x1F2, 0x3FF, 0x3FE]  # a negative value into unsigned under SatNone: NaN (all ones)
    assert mf.p3109_decode(c, b10)[0] == np.float32(0.3125)
    assert np.isnan(mf.p3109_decode(c, b10)[1]) and mf.p3109_decode(c, b10)[2] == np.inf
    # Binary16p1se: powers of two up to 2^16382; 2^127 fits binary32, 2^200 overflows it
    b16 = mf.P3109.from_name("Binary16p1se")
    codes = np.uint16([0x4000 + 127, 0x4000 + 200])  # bias 2^14: field = exponent + 16384
    y, st = mf.p3109_decode(codes, b16, stats=True)
    assert y.tolist() == [2.0**127, np.inf] and st.overflow == 1
    y = mf.p3109_decode(codes, b16, saturate=True)
    assert y[1] == np.finfo(np.float32).max


def test_threads_and_shapes():
    x = _values(5 * 209716).reshape(-1, 5)  # over 2^20 elements: the team splits them
    f = mf.P3109(12, 6)
    one = mf.p3109_encode(x, f)
    two = mf.p3109_encode(x, f, threads=2)
    assert one.shape == x.shape and np.array_equal(one, two)


@pytest.mark.parametrize("call, argument", [
    (lambda: mf.P3109(17, 4), "k"),
    (lambda: mf.P3109(8, 8, signed=True), "p"),
    (lambda: mf.P3109(8, 4, signed=2), "signed"),
    (lambda: mf.P3109.from_name("e4m3"), "name"),
    (lambda: mf.p3109_encode(np.float32([1]), "e4m3"), "fmt"),
    (lambda: mf.p3109_encode(np.float64([1]), mf.P3109(8, 4)), "x"),
    (lambda: mf.p3109_encode(np.float32([1]), mf.P3109(8, 4), round="up"), "round"),
    (lambda: mf.p3109_encode(np.float32([1]), mf.P3109(8, 4), threads=-1), "threads"),
    (lambda: mf.p3109_decode(np.uint16([1024]), mf.P3109(10, 4)), "codes"),
    (lambda: mf.p3109_decode(np.float32([1]), mf.P3109(10, 4)), "codes"),
])
def test_errors_name_the_argument(call, argument):
    with pytest.raises(mf.Error) as e:
        call()
    assert e.value.argument == argument


def test_propagate_by_hand():
    """SatPropagate: finite values beyond the range clamp, infinities stay where the format has them (the report's
    saturation table), and a format without them clamps those too."""
    x = np.float32([np.inf, -np.inf, 1e30, -1e30, 1.0, np.nan])
    se = mf.convert(x, "binary8p4se", saturate="propagate")  # extended: +-inf 0x7F / 0xFF, max 224 0x7E
    assert mf.codes(se).tolist() == [0x7F, 0xFF, 0x7E, 0xFE, 0x40, 0x80]
    sf = mf.convert(x, "binary8p4sf", saturate="propagate")  # finite: max 240 at 0x7F
    assert mf.codes(sf).tolist() == [0x7F, 0xFF, 0x7F, 0xFF, 0x40, 0x80]
    ue = mf.P3109(8, 4, signed=False, extended=True)  # unsigned: +inf 0xFE kept, -inf and negatives to 0
    assert mf.p3109_encode(x, ue, saturate="propagate").tolist() == [0xFE, 0x00, 0xFD, 0x00, 0x80, 0xFF]
    h = mf.convert(x[:4], "f16", saturate="propagate").view(np.uint16)
    assert h.tolist() == [0x7C00, 0xFC00, 0x7BFF, 0xFBFF]
    assert mf.convert(x[:4], "e4m3", saturate="propagate").view(np.uint8).tolist() == [0x7E, 0xFE, 0x7E, 0xFE]


def test_propagate_errors():
    x = np.float32([1.0])
    with pytest.raises(mf.ArgumentTypeError) as e:
        mf.convert(x, "f16", saturate="Propagate")
    assert e.value.argument == "saturate"
    with pytest.raises(mf.Error) as e:
        mf.convert(x, "f16", saturate="propagate", profile="torch")
    assert e.value.argument == "saturate" and e.value.code == -4
    with pytest.raises(mf.ArgumentTypeError) as e:
        mf.gemm(np.ones((2, 2), np.float32), np.ones((2, 2), np.float32), saturate="propagate")
    assert e.value.argument == "saturate"

"""Conformance: minifloat under a system's profile gives that system's bits.

For every system (ml_dtypes, PyTorch, ONNX's reference) and every format it has:
  - casts from f32: minifloat.convert(x, fmt, profile=<system>) against the system's cast, bit for bit, on the
    inputs of MINIFLOAT_CONFORMANCE's tier (python/tools/compat.py, input_specs):
      quick (default)  the f32 exponent fields of the format's boundaries (overflow threshold, normal/subnormal
                       edge, underflow) in full, every NaN/inf/zero/subnormal pattern class, a daily 1/4096 shard;
      sample           the boundary fields and their neighbours, every NaN and every f32 subnormal in full, and a
                       daily 1/64 shard of contiguous chunks (MINIFLOAT_CONFORMANCE_SHARD=k picks shard k);
      all              all 2^32 inputs (long: the timings are printed as it goes);
  - casts from f64 where the system rounds f64 through f32 (PyTorch): about a million doubles near ties;
  - decoding every code to f32 under the profile against the system's decoding.
A system that cannot be imported is skipped with the reason.
"""

import pytest

import compat  # python/tools/compat.py (conftest.py puts python/tools on the path)

MODE = compat.conformance_mode()
SYSTEMS = {name: compat.get_system(name) for name in compat.SYSTEMS}


def _params(kind):
    for name, system in SYSTEMS.items():
        if not system.available:
            yield pytest.param(name, None, id=name, marks=pytest.mark.skip(reason=f"{name}: {system.reason}"))
            continue
        for t in system.targets:
            if kind == "f64" and not t.f64:
                continue
            if kind == "decode" and (t.decode is None or t.saturate or t.round != "rn"):
                continue  # decoding does not depend on the cast's options: once per format
            yield pytest.param(name, t, id=f"{name}-{t.id}")


def _report(capsys, line):
    if MODE == "all":  # long runs: show progress as it happens
        with capsys.disabled():
            print(line, flush=True)
    else:
        print(line)


@pytest.mark.parametrize("system,target", list(_params("f32")))
def test_cast_from_f32(system, target, capsys):
    res = compat.compare_casts(target, compat.input_specs(target.fmt, MODE), profile=system)
    _report(capsys, f"\n{system} {target.label}: {res.inputs} f32 inputs ({MODE}) "
                    f"in {res.seconds:.1f} s, {res.differ} differ")
    assert res.differ == 0, f"{system} {target.label} vs minifloat profile={system}: {res.summary()}"


@pytest.mark.parametrize("system,target", list(_params("f64")))
def test_cast_from_f64(system, target, capsys):
    x = compat.f64_near_ties(target.fmt)
    res = compat.compare_casts(target, [x], profile=system, source="f64")
    _report(capsys, f"\n{system} {target.label}: {res.inputs} f64 inputs in {res.seconds:.1f} s, {res.differ} differ")
    assert res.differ == 0, f"{system} {target.label} (f64 sources) vs minifloat profile={system}: {res.summary()}"


@pytest.mark.parametrize("system,target", list(_params("decode")))
def test_decode_every_code(system, target):
    res = compat.compare_decode(target, profile=system)
    assert res.differ == 0, f"{system} decoding {target.fmt} vs minifloat profile={system}: {res.summary()}"


# ---- the harness itself (no system needed) ---------------------------------------------------------------


def test_input_tiers_cover_the_boundaries_once():
    import bisect

    import numpy as np

    import minifloat as mf

    for fmt in ("e4m3", "bf16", "e2m1", "e8m0"):
        info = mf.finfo(fmt)
        specs = compat.input_specs(fmt, "quick")
        # every input once: the specs' ranges and patterns, as half-open intervals, do not overlap
        spans = []
        for sp in specs:
            if sp[0] == "range":
                spans.append((sp[1], sp[1] + sp[2]))
            elif sp[0] == "ranges":
                spans += [(st, st + sp[2]) for st in sp[1]]
            else:
                spans += [(int(v), int(v) + 1) for v in np.asarray(sp[1])]
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
        assert compat.count_inputs(specs) == sum(b - a for a, b in spans)

        def covered(bits):
            i = bisect.bisect_right(spans, (bits, 1 << 33)) - 1
            return i >= 0 and spans[i][0] <= bits < spans[i][1]

        # max (and the overflow threshold above it), the largest subnormal, half the smallest subnormal (the
        # underflow tie), +-0, +-inf and NaNs of both signs are all in
        for value in (info.max, info.min_normal - info.min_subnormal, info.min_subnormal / 2, 0.0, np.inf, np.nan):
            bits = int(np.array([value], np.float32).view(np.uint32)[0])
            assert covered(bits) and covered(bits | 0x80000000), (fmt, value)
        pats = compat.special_patterns()
        assert np.isnan(pats.view(np.float32)).sum() >= 4 * 23


def test_f64_inputs_expose_double_rounding():
    # a system that rounds f64 through f32 must disagree with one rounding on many of these inputs
    import numpy as np

    import minifloat as mf

    x = compat.f64_near_ties("e4m3", n=100_000)
    once = mf.codes(mf.convert(x, "e4m3"))
    twice = mf.codes(mf.convert(x.astype(np.float32), "e4m3"))
    assert x.size > 90_000 and (once != twice).mean() > 0.1

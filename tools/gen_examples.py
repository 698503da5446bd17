#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the example tensors of examples/data/ (used by `minifloat analyze` and docs/overflow.md).

    python3 tools/gen_examples.py [OUTDIR]      # default: examples/data next to this script's parent

Not run by the build: its output is committed. Needs numpy and ml_dtypes (pip install numpy
ml_dtypes). Every tensor comes from numpy's PCG64 generator with a fixed seed, so a rerun with the
same numpy writes the same bytes (the files were made with numpy 2.4.6 and ml_dtypes 0.6.0; numpy
keeps PCG64's stream stable, and the normal/lognormal samplers have not changed for years).

The tensors imitate what a transformer's training step holds; each one makes a point:
  activations.npy       post-GELU FFN activations, 64 x 512, float32: most values O(0.1..10), a long
                        right tail, tiny negative values from GELU's left side, and a handful of
                        "massive activations" in two channels, a few above f16's 65504 (T5 is the
                        classic model whose FFN activations overflowed f16)
  gradients.npy         weight gradients, 128 x 256, float32: per-row scales spread over 1e-10..1e-5
                        (rows of a late layer, no loss scaling); much of it is below f16's normal
                        range (6.1e-5) and a good part below half its smallest subnormal (3e-8)
  attn_logits.npy       pre-softmax attention logits q.k / sqrt(d), 64 x 256, float32, from a run whose
                        logits are growing (heads with large query/key norms): typical |x| in the
                        tens, a few thousand at the top; e4m3 (max 448) cannot hold them unscaled
  weights.npy           a linear layer's weights, 128 x 256, float32, N(0, 0.02) as GPT-2 initialises
                        them: harmless for f16/bf16, but e2m1 (FP4) flushes most of them to zero
                        without a scale
  weights_bf16.npy      the same weights as ml_dtypes.bfloat16 (numpy writes descr '<V2')
  activations_e4m3.npy  64 x 64 activations already quantised to ml_dtypes.float8_e4m3fn with a
                        per-tensor scale (numpy writes '<V1', which does not say which 1-byte type:
                        analyze needs --dtype e4m3)
  gradients_e5m2.npy    64 x 64 gradients times a loss scale of 2^16, as ml_dtypes.float8_e5m2
                        (numpy writes '<f1')
"""
import math
import os
import sys

import ml_dtypes
import numpy as np


def gelu(x):
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def activations(rng):
    tokens, width = 64, 512
    # per-channel spread: some channels run hotter than others
    ch_scale = rng.lognormal(mean=0.0, sigma=0.6, size=width)
    pre = rng.standard_normal((tokens, width)) * ch_scale + rng.normal(-0.5, 0.5, size=width)
    # heavy right tail: a few percent of pre-activations far out
    tail = rng.random((tokens, width)) < 0.02
    pre[tail] += rng.lognormal(mean=2.0, sigma=0.8, size=int(tail.sum()))
    act = gelu(pre)
    # massive activations: two channels, strongest on the first tokens (BOS-like)
    for ch, peak in ((97, 1.2e5), (311, 3.0e4)):
        act[:, ch] = np.abs(rng.normal(50.0, 20.0, size=tokens))
        act[:4, ch] = peak * np.array([1.0, 0.6, 0.35, 0.2])
    return act.astype(np.float32)


def gradients(rng):
    rows, cols = 128, 256
    row_scale = 10.0 ** rng.uniform(-10.0, -5.0, size=(rows, 1))
    g = rng.standard_normal((rows, cols)) * row_scale
    # sparse rows (dead units) give exact zeros
    g[rng.random(rows) < 0.03, :] = 0.0
    return g.astype(np.float32)


def attn_logits(rng):
    queries, keys, d = 64, 256, 64
    q = rng.standard_normal((queries, d))
    k = rng.standard_normal((keys, d))
    # logit growth: query and key norms grow in a few heads/positions
    q *= rng.lognormal(mean=1.0, sigma=1.0, size=(queries, 1))
    k *= rng.lognormal(mean=1.0, sigma=0.8, size=(keys, 1))
    return (q @ k.T / math.sqrt(d)).astype(np.float32)


def weights(rng):
    return (rng.standard_normal((128, 256)) * 0.02).astype(np.float32)


def activations_e4m3(rng):
    a = gelu(rng.standard_normal((64, 64)) * 2.0)
    scale = 448.0 / np.abs(a).max()  # per-tensor current scaling: amax maps to e4m3's max
    return (a * scale).astype(ml_dtypes.float8_e4m3fn)


def gradients_e5m2(rng):
    g = rng.standard_normal((64, 64)) * 10.0 ** rng.uniform(-8.0, -4.0, size=(64, 1))
    return (g * 65536.0).astype(ml_dtypes.float8_e5m2)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "examples", "data")
    os.makedirs(out, exist_ok=True)
    w = weights(np.random.default_rng(4))
    tensors = [
        ("activations.npy", activations(np.random.default_rng(1))),
        ("gradients.npy", gradients(np.random.default_rng(2))),
        ("attn_logits.npy", attn_logits(np.random.default_rng(3))),
        ("weights.npy", w),
        ("weights_bf16.npy", w.astype(ml_dtypes.bfloat16)),
        ("activations_e4m3.npy", activations_e4m3(np.random.default_rng(5))),
        ("gradients_e5m2.npy", gradients_e5m2(np.random.default_rng(6))),
    ]
    total = 0
    for name, t in tensors:
        path = os.path.join(out, name)
        np.save(path, t)
        size = os.path.getsize(path)
        total += size
        f = t.astype(np.float64)
        nz = np.abs(f[f != 0])
        print("%-22s %-14s %-11s %7d bytes  |x| %.3g .. %.3g" %
              (name, str(t.shape), t.dtype.name, size, nz.min(), nz.max()))
    print("total %d bytes" % total)


if __name__ == "__main__":
    main()

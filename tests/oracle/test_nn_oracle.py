"""Live comparison of nn.functional with PyTorch (skipped without torch): hypothesis draws
shapes, geometry and options; values and gradients must agree in float64 (rtol 1e-6)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad
import dyngrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _both(arrays, rg):
    d = [
        dyngrad.tensor(a, requires_grad=r) if a.dtype.kind == "f" else dyngrad.tensor(a)
        for a, r in zip(arrays, rg)
    ]
    t = [
        torch.tensor(a, requires_grad=r) if a.dtype.kind == "f" else torch.tensor(a)
        for a, r in zip(arrays, rg)
    ]
    return d, t


def _compare(dout, tout, dins, tins, seed):
    np.testing.assert_allclose(dout.detach().numpy(), tout.detach().numpy(), rtol=1e-6, atol=1e-9)
    cot = np.random.default_rng(seed).standard_normal(tuple(tout.shape))
    dg = [x for x in dins if x.requires_grad]
    tg = [x for x in tins if x.requires_grad]
    gd = dyngrad.autograd.grad(dout, dg, dyngrad.tensor(cot))
    gt = torch.autograd.grad(tout, tg, torch.tensor(cot))
    for a, b in zip(gd, gt):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 2),
    st.sampled_from([1, 2, 3]),
    st.integers(1, 2),
    st.integers(1, 2),
    st.integers(1, 3),
    st.integers(1, 3),
    st.integers(1, 2),
    st.integers(1, 2),
    st.integers(0, 2),
    st.integers(1, 2),
    st.booleans(),
    st.integers(0, 2**31),
)
def test_conv2d_matches_torch(n, groups, cg, og, kh, kw, sh, sw, p, d, bias, seed) -> None:
    rng = np.random.default_rng(seed)
    h, w = d * (kh - 1) + 1 + rng.integers(0, 4), d * (kw - 1) + 1 + rng.integers(0, 4)
    arrays = [rng.standard_normal((n, groups * cg, h, w)), rng.standard_normal((groups * og, cg, kh, kw))]
    if bias:
        arrays.append(rng.standard_normal(groups * og))
    (dd, tt) = _both(arrays, [True] * len(arrays))
    kw_ = {"stride": (sh, sw), "padding": p, "dilation": d, "groups": groups}
    _compare(F.conv2d(*dd, **kw_), TF.conv2d(*tt, **kw_), dd, tt, seed)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 5),
    st.integers(2, 5),
    st.sampled_from(["mean", "sum", "none"]),
    st.sampled_from([0.0, 0.1, 0.5]),
    st.booleans(),
    st.booleans(),
    st.integers(0, 2**31),
)
def test_cross_entropy_matches_torch(n, c, reduction, smoothing, use_weight, probs, seed) -> None:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c))
    if probs:
        e = np.exp(rng.standard_normal((n, c)))
        tgt = e / e.sum(1, keepdims=True)
    else:
        tgt = rng.integers(0, c, n)
        tgt[0] = c - 1 if n > 1 else tgt[0]
    arrays = [x, tgt] + ([rng.uniform(0.5, 2, c)] if use_weight else [])
    dd, tt = _both(arrays, [True, False, False])
    kw = {"reduction": reduction, "label_smoothing": smoothing}
    if not probs:
        kw["ignore_index"] = c - 1
    if not probs and reduction == "mean" and (tgt == c - 1).all():
        return  # every target ignored: nan in both; nothing to compare
    _compare(F.cross_entropy(*dd, **kw), TF.cross_entropy(*tt, **kw), dd, tt, seed)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.integers(1, 2), st.integers(0, 1), st.integers(1, 2), st.integers(0, 2**31))
def test_pools_match_torch(k, s, p, d, seed) -> None:
    if 2 * p > k:
        p = 0
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 2, 6, 7))
    dd, tt = _both([x], [True])
    _compare(F.max_pool2d(dd[0], k, s, p, d), TF.max_pool2d(tt[0], k, s, p, d), dd, tt, seed)
    dd, tt = _both([x], [True])
    for cip in (True, False):
        _compare(
            F.avg_pool2d(dd[0], k, s, p, count_include_pad=cip),
            TF.avg_pool2d(tt[0], k, s, p, count_include_pad=cip),
            dd,
            tt,
            seed,
        )
    oh, ow = rng.integers(1, 7), rng.integers(1, 8)
    _compare(
        F.adaptive_avg_pool2d(dd[0], (oh, ow)),
        TF.adaptive_avg_pool2d(tt[0], (int(oh), int(ow))),
        dd,
        tt,
        seed,
    )


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 4), st.sampled_from([1, 2, 4]), st.integers(0, 2**31))
def test_norms_match_torch(n, groups, seed) -> None:
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal((n, 4, 3)) * 2 + 1, rng.standard_normal(4), rng.standard_normal(4)]
    dd, tt = _both(arrays, [True] * 3)
    _compare(
        F.group_norm(dd[0], groups, dd[1], dd[2]), TF.group_norm(tt[0], groups, tt[1], tt[2]), dd, tt, seed
    )
    dd, tt = _both(arrays, [True] * 3)
    _compare(
        F.batch_norm(dd[0], None, None, dd[1], dd[2], training=True),
        TF.batch_norm(tt[0], None, None, tt[1], tt[2], training=True),
        dd,
        tt,
        seed,
    )
    dd, tt = _both([arrays[0]], [True])
    _compare(F.layer_norm(dd[0], (4, 3)), TF.layer_norm(tt[0], (4, 3)), dd, tt, seed)

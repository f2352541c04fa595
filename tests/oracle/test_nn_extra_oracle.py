"""Live comparison of the issue-13 norms, sliding blocks, pooling and losses with PyTorch
(skipped without torch): hypothesis draws shapes, geometry, options and values (ties and
hinge boundaries included); values and gradients must agree in float64."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad
import dyngrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional
pytestmark = pytest.mark.oracle


def _check(fn: str, arrays: list, diff: list, seed: int, *, pos: tuple = (), **kw) -> None:
    """``fn(first, *pos, *rest, **kw)`` of both libraries: values and the gradients of
    ``sum(out * cot)`` agree (rtol 1e-8: a loss near a clamped variance reaches 1e5)."""
    d = [dyngrad.tensor(a, requires_grad=r) for a, r in zip(arrays, diff)]
    t = [torch.tensor(a, requires_grad=r) for a, r in zip(arrays, diff)]
    dout = getattr(F, fn)(d[0], *pos, *d[1:], **kw)
    tout = getattr(TF, fn)(t[0], *pos, *t[1:], **kw)
    np.testing.assert_allclose(dout.detach().numpy(), tout.detach().numpy(), rtol=1e-8, atol=1e-11)
    cot = np.random.default_rng(seed).standard_normal(tuple(tout.shape))
    gd = dyngrad.autograd.grad(dout, [x for x in d if x.requires_grad], dyngrad.tensor(cot))
    gt = torch.autograd.grad(tout, [x for x in t if x.requires_grad], torch.tensor(cot))
    for a, b in zip(gd, gt):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-8, atol=1e-11)


def _values(rng: np.random.Generator, shape: tuple, coarse: bool) -> np.ndarray:
    """Normal values, or (``coarse``) small integers: ties and exact hinge boundaries."""
    return rng.integers(-2, 3, shape).astype(np.float64) if coarse else rng.standard_normal(shape)


@settings(max_examples=8, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(0, 2),
       st.integers(1, 2), st.integers(1, 3), st.booleans(), st.integers(0, 2**31))
def test_unfold_and_fold_match_torch(c, kh, kw, s, p, d, extra, batched, seed) -> None:
    rng = np.random.default_rng(seed)
    h, w = d * (kh - 1) + 1 + int(rng.integers(0, 4)) + extra - 1, d * (kw - 1) + 1 + int(rng.integers(0, 4))
    geo = {"kernel_size": (kh, kw), "dilation": d, "padding": p, "stride": (s, 1 + s % 2)}
    x = rng.standard_normal((2, c, h, w) if batched else (c, h, w))
    _check("unfold", [x], [True], seed, **geo)
    cols = TF.unfold(torch.tensor(x), **geo)
    _check("fold", [rng.standard_normal(tuple(cols.shape))], [True], seed, output_size=(h, w), **geo)


@settings(max_examples=8, deadline=None)
@given(st.integers(1, 8), st.integers(1, 8), st.integers(1, 5), st.integers(1, 5), st.booleans(),
       st.integers(0, 2**31))
def test_adaptive_max_pool_matches_torch_including_ties(h, w, oh, ow, coarse, seed) -> None:
    rng = np.random.default_rng(seed)
    x = _values(rng, (2, 2, h, w), coarse)
    _check("adaptive_max_pool2d", [x], [True], seed, output_size=(oh, ow))
    _check("adaptive_max_pool1d", [x[0]], [True], seed, output_size=oh)
    _check("adaptive_avg_pool1d", [x[0]], [True], seed, output_size=ow)
    di = F.adaptive_max_pool2d(dyngrad.tensor(x), (oh, ow), return_indices=True)[1]
    ti = TF.adaptive_max_pool2d(torch.tensor(x), (oh, ow), return_indices=True)[1]
    np.testing.assert_array_equal(di.numpy(), ti.numpy())


@settings(max_examples=8, deadline=None)
@given(st.integers(1, 3), st.integers(1, 5), st.integers(2, 5), st.integers(1, 6), st.integers(0, 2**31))
def test_norms_match_torch(n, c, length, size, seed) -> None:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, length))
    w, b = rng.standard_normal(c), rng.standard_normal(c)
    rm, rv = rng.standard_normal(c), rng.uniform(0.5, 2, c)
    _check("instance_norm", [x, rm.copy(), rv.copy(), w, b], [True, False, False, True, True], seed)
    _check("instance_norm", [x, rm, rv, w, b], [True, False, False, True, True], seed, use_input_stats=False)
    _check("rms_norm", [x, rng.standard_normal(length)], [True, True], seed, pos=([length],))
    _check("local_response_norm", [x], [True], seed, size=size, alpha=0.3, beta=0.7, k=1.5)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 5), st.integers(2, 5), st.sampled_from(["none", "mean", "sum"]), st.booleans(),
       st.floats(0.1, 2.0), st.integers(0, 2**31))
def test_losses_match_torch(n, c, reduction, coarse, margin, seed) -> None:
    rng = np.random.default_rng(seed)
    x, y, z = (_values(rng, (n, c), coarse) for _ in range(3))
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    cls = rng.integers(0, c, n)
    ml = np.full((n, c), -1, np.int64)
    for r in range(n):
        k = int(rng.integers(0, c + 1))
        ml[r, :k] = rng.permutation(c)[:k]
    r = {"reduction": reduction}
    _check("margin_ranking_loss", [x[:, 0], y[:, 0], sign], [True, True, False], seed, margin=margin, **r)
    _check("hinge_embedding_loss", [x, np.sign(y) + (y == 0)], [True, False], seed, margin=margin, **r)
    _check("soft_margin_loss", [x, np.sign(y) + (y == 0)], [True, False], seed, **r)
    _check("cosine_embedding_loss", [x, y, sign], [True, True, False], seed, margin=margin - 1, **r)
    _check("triplet_margin_loss", [x, y, z], [True, True, True], seed, margin=margin, **r)
    # swap with smooth values only: with small integers d(a, n) and d(p, n) tie up to rounding, and
    # which side of the tie each library lands on depends on its summation order (both are valid
    # subgradients; torch.minimum and dyngrad.minimum split an exact tie the same way)
    xs, ys, zs = (_values(rng, (n, c), False) for _ in range(3))
    _check("triplet_margin_loss", [xs, ys, zs], [True, True, True], seed, margin=margin, swap=True, **r)
    _check("poisson_nll_loss", [x, np.abs(y) * 2], [True, False], seed, full=True, **r)
    _check("poisson_nll_loss", [np.abs(x) + 0.1, np.abs(y)], [True, False], seed, log_input=False, **r)
    _check("gaussian_nll_loss", [x, y, np.abs(z) + 0.01 * coarse], [True, False, True], seed, **r)
    _check("multilabel_soft_margin_loss", [x, rng.random((n, c))], [True, False], seed, **r)
    for p in (1, 2):
        d = [dyngrad.tensor(x, requires_grad=True), dyngrad.tensor(cls)]
        t = [torch.tensor(x, requires_grad=True), torch.tensor(cls)]
        wd, wt = (dyngrad.tensor(np.arange(1.0, c + 1)), torch.tensor(np.arange(1.0, c + 1))) if coarse else (None, None)
        dout = F.multi_margin_loss(*d, p=p, margin=margin, weight=wd, **r)
        tout = TF.multi_margin_loss(*t, p=p, margin=margin, weight=wt, **r)
        np.testing.assert_allclose(dout.detach().numpy(), tout.detach().numpy(), rtol=1e-9, atol=1e-11)
        (dout.sum()).backward()
        (tout.sum()).backward()
        np.testing.assert_allclose(d[0].grad.numpy(), t[0].grad.numpy(), rtol=1e-9, atol=1e-11)
    _check("multilabel_margin_loss", [x, ml], [True, False], seed, **r)

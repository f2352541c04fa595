"""The issue-13 norms, padding layers, sliding blocks, pooling and losses against PyTorch
2.13's values and gradients (tests/golden/nn_extra.npz, from tests/golden/gen_nn_extra.py),
gradcheck/gradgradcheck in float64, module state and reprs as PyTorch's, misuse errors and
the docstring examples."""

from __future__ import annotations

import os

import numpy as np
import pytest

import dyngrad
import dyngrad.nn.functional as F
from dyngrad import nn
from dyngrad.autograd import gradcheck, gradgradcheck

from .nn_extra_cases import CASES, DIFF, STATEFUL

GOLDEN = np.load(os.path.join(os.path.dirname(__file__), "..", "golden", "nn_extra.npz"))


@pytest.mark.parametrize("name,fn,inputs,kw", CASES, ids=[c[0] for c in CASES])
def test_function_matches_pytorch_values_gradients_and_buffer_updates(name, fn, inputs, kw):
    ts = [dyngrad.tensor(GOLDEN[f"{name}/in{i}"], requires_grad=spec[0] in DIFF) for i, spec in enumerate(inputs)]
    tkw = {k: (dyngrad.tensor(GOLDEN[f"{name}/kw_{k}"], requires_grad=v[0] in DIFF)
               if isinstance(v, tuple) and v and isinstance(v[0], str) else v) for k, v in kw.items()}
    out = getattr(F, fn)(*ts, **tkw)
    np.testing.assert_allclose(out.detach().numpy(), GOLDEN[f"{name}/out"], rtol=1e-10, atol=1e-12)
    out.backward(dyngrad.tensor(GOLDEN[f"{name}/cot"]))
    for i, (spec, t) in enumerate(zip(inputs, ts)):
        if spec[0] in DIFF:
            np.testing.assert_allclose(t.grad.numpy(), GOLDEN[f"{name}/grad{i}"], rtol=1e-10, atol=1e-12)
        elif f"{name}/after{i}" in GOLDEN:
            np.testing.assert_allclose(t.numpy(), GOLDEN[f"{name}/after{i}"], rtol=1e-12, atol=1e-14)
    for k, t in tkw.items():
        if f"{name}/grad_{k}" in GOLDEN:
            np.testing.assert_allclose(t.grad.numpy(), GOLDEN[f"{name}/grad_{k}"], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,ctor,kw,shape", STATEFUL, ids=[c[0] for c in STATEFUL])
def test_stateful_layer_matches_pytorch_in_training_and_eval(name, ctor, kw, shape):
    m = getattr(nn, ctor)(**kw).double()
    for step in range(2):
        y = m(dyngrad.tensor(GOLDEN[f"{name}/x{step}"]))
        np.testing.assert_allclose(y.detach().numpy(), GOLDEN[f"{name}/y{step}"], rtol=1e-10, atol=1e-12)
    m.eval()
    y = m(dyngrad.tensor(GOLDEN[f"{name}/x_eval"]))
    np.testing.assert_allclose(y.detach().numpy(), GOLDEN[f"{name}/y_eval"], rtol=1e-10, atol=1e-12)
    want = {k[len(name) + 7:]: v for k, v in GOLDEN.items() if k.startswith(f"{name}/state_")}
    got = m.state_dict()
    assert sorted(got) == sorted(want)
    for k, v in want.items():
        np.testing.assert_allclose(got[k].numpy(), v, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("nd", ["1", "2"])
def test_adaptive_max_pool_indices_match_pytorch_with_ties(nd):
    x = dyngrad.tensor(GOLDEN[f"indices{nd}/x"])
    fn = F.adaptive_max_pool2d if nd == "2" else F.adaptive_max_pool1d
    out, idx = fn(x, (3, 2) if nd == "2" else 3, return_indices=True)
    np.testing.assert_array_equal(out.numpy(), GOLDEN[f"indices{nd}/out"])
    np.testing.assert_array_equal(idx.numpy(), GOLDEN[f"indices{nd}/idx"])
    assert idx.dtype == dyngrad.int64


def _x(*shape, seed=0, positive=False):
    a = np.random.default_rng(seed).standard_normal(shape)
    return dyngrad.tensor(np.abs(a) + 0.5 if positive else a, requires_grad=True)


GRADCHECKS = [
    ("instance_norm", lambda x, w: F.instance_norm(x, weight=w, bias=w * 0.5), [(2, 2, 3), (2,)], True),
    ("rms_norm", lambda x, w: F.rms_norm(x, [4], w), [(3, 4), (4,)], True),
    ("local_response_norm", lambda x: F.local_response_norm(x, 3, alpha=0.5), [(1, 4, 2)], False),
    ("unfold", lambda x: F.unfold(x, 2, padding=1, stride=2), [(1, 1, 3, 4)], False),
    ("fold", lambda x: F.fold(x, (3, 4), 2, padding=1, stride=2), [(1, 8, 6)], True),
    ("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (2, 3)), [(1, 1, 5, 4)], False),
    ("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 3), [(2, 2, 5)], False),
    ("lp_pool2d", lambda x: F.lp_pool2d(x, 2, 2), [(1, 2, 4, 4)], False),
    ("cosine_embedding_loss", lambda a, b: F.cosine_embedding_loss(a, b, dyngrad.tensor([1.0, -1.0, -1.0]), -0.5),
     [(3, 2), (3, 2)], False),
    ("triplet_margin_loss", lambda a, p, n: F.triplet_margin_loss(a, p, n, swap=True), [(3, 4)] * 3, False),
    ("gaussian_nll_loss", lambda x, v: F.gaussian_nll_loss(x, dyngrad.tensor([[0.1, -0.2]] * 3), v), [(3, 2), (3, 2)], True),
    ("multi_margin_loss", lambda x: F.multi_margin_loss(x, dyngrad.tensor([0, 2, 1]), p=2, margin=3.0), [(3, 4)],
     True),
    ("multilabel_margin_loss", lambda x: F.multilabel_margin_loss(x, dyngrad.tensor([[1, 0, -1, 2], [3, -1, 0, 0],
                                                                                     [0, 1, 2, 3]])),
     [(3, 4)], False),
    ("multilabel_soft_margin_loss", lambda x: F.multilabel_soft_margin_loss(x, dyngrad.tensor([[0.0, 1.0], [1.0, 0.2]])),
     [(2, 2)], True),
    ("poisson_nll_loss", lambda x: F.poisson_nll_loss(x, dyngrad.tensor([[0.0, 3.0], [2.0, 5.0]]), full=True),
     [(2, 2)], True),
]


@pytest.mark.parametrize("name,f,shapes,twice", GRADCHECKS, ids=[g[0] for g in GRADCHECKS])
def test_passes_gradcheck_in_float64_and_gradgradcheck_where_smooth(name, f, shapes, twice):
    positive = name in ("lp_pool2d", "gaussian_nll_loss")
    args = tuple(_x(*s, seed=i, positive=positive and i == len(shapes) - 1 or name == "lp_pool2d")
                 for i, s in enumerate(shapes))
    assert gradcheck(f, args)
    if twice:
        assert gradgradcheck(f, args)


def test_unfold_and_fold_are_adjoint_and_fold_of_unfold_counts_block_overlaps():
    rng = np.random.default_rng(3)
    x = dyngrad.tensor(rng.standard_normal((2, 3, 5, 6)))
    kw = {"kernel_size": (2, 3), "dilation": (2, 1), "padding": 1, "stride": (1, 2)}
    cols = F.unfold(x, **kw)
    y = dyngrad.tensor(rng.standard_normal(tuple(cols.shape)))
    lhs = float((cols * y).sum())
    rhs = float((x * F.fold(y, (5, 6), **kw)).sum())
    assert abs(lhs - rhs) < 1e-10 * max(1.0, abs(lhs))
    ones = dyngrad.ones(1, 1, 3, 3)
    counts = F.fold(F.unfold(ones, 2), (3, 3), 2)
    assert counts[0, 0].tolist() == [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]


def test_unfold_keeps_an_infinity_in_place_without_making_nans():
    x = dyngrad.zeros(1, 1, 3, 3)
    x[0, 0, 1, 1] = float("inf")
    cols = F.unfold(x, 2).numpy()
    assert not np.isnan(cols).any() and np.isinf(cols).sum() == 4


def test_rms_norm_default_eps_is_the_dtype_epsilon():
    x = dyngrad.tensor([[1e-4, -1e-4]], dtype=dyngrad.float32)
    expect = 1e-4 / np.sqrt(1e-8 + np.finfo(np.float32).eps)
    np.testing.assert_allclose(F.rms_norm(x, [2]).numpy()[0, 0], expect, rtol=1e-5)
    np.testing.assert_allclose(nn.RMSNorm(2)(x).detach().numpy()[0, 0], expect, rtol=1e-5)

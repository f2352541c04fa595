"""Live comparison with PyTorch for the nn.functional losses/normalisations/pools and the
small linear-algebra ops that the other oracle files do not draw: hypothesis draws shapes
and values, and outputs and the gradients of every floating input must match in float64
(rtol 1e-6). Skipped when torch is not installed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad as dg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

RTOL, ATOL = 1e-6, 1e-9


def _compare(fn, arrays, seed):
    """Run ``fn(lib, *tensors)`` in both libraries on the same float64 inputs (integer
    arrays are passed as int64 tensors without grad) and compare value and input grads."""
    results = []
    for lib in (dg, torch):
        ts = []
        for a in arrays:
            if a.dtype.kind == "f":
                ts.append(lib.tensor(a.copy(), dtype=lib.float64, requires_grad=True))
            else:
                ts.append(lib.tensor(a.copy()))
        out = fn(lib, *ts)
        g = np.random.default_rng(seed).standard_normal(tuple(out.shape))
        diff = [t for t in ts if t.requires_grad]
        grads = lib.autograd.grad(out, diff, lib.tensor(g, dtype=lib.float64), allow_unused=True)
        results.append(
            (out.detach().numpy(), [np.zeros(tuple(t.shape)) if gr is None else gr.detach().numpy() for t, gr in zip(diff, grads)])
        )
    (o1, g1), (o2, g2) = results
    np.testing.assert_allclose(o1, o2, rtol=RTOL, atol=ATOL)
    for a, b in zip(g1, g2):
        np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL)


dims = st.integers(1, 5)


def F(lib):
    return lib.nn.functional


LOSSES = {
    "mse_loss": lambda L, a, b: F(L).mse_loss(a, b),
    "l1_loss": lambda L, a, b: F(L).l1_loss(a, b, reduction="sum"),
    "smooth_l1_loss": lambda L, a, b: F(L).smooth_l1_loss(a, b, beta=0.7),
    "huber_loss": lambda L, a, b: F(L).huber_loss(a, b, delta=0.6),
    "kl_div": lambda L, a, b: F(L).kl_div(F(L).log_softmax(a, -1), F(L).softmax(b, -1), reduction="batchmean"),
    "bce_with_logits": lambda L, a, b: F(L).binary_cross_entropy_with_logits(a, L.sigmoid(b)),
    "bce": lambda L, a, b: F(L).binary_cross_entropy(L.sigmoid(a), L.sigmoid(b)),
    "cosine_similarity": lambda L, a, b: F(L).cosine_similarity(a, b, dim=-1),
    "softmax": lambda L, a, b: F(L).softmax(a, dim=-1) * b,
    "log_softmax": lambda L, a, b: F(L).log_softmax(a, dim=0) * b,
    "normalize": lambda L, a, b: F(L).normalize(a, dim=-1) + b,
}


@pytest.mark.parametrize("name", sorted(LOSSES))
@settings(max_examples=15, deadline=None)
@given(n=dims, c=dims, seed=st.integers(0, 2**16))
def test_losses_and_normalising_functions_match_live_torch(name, n, c, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((n, c)), rng.standard_normal((n, c))
    _compare(LOSSES[name], [a, b], seed)


@settings(max_examples=20, deadline=None)
@given(n=dims, i=dims, j=dims, o=dims, bias=st.booleans(), seed=st.integers(0, 2**16))
def test_linear_and_bilinear_match_live_torch(n, i, j, o, bias, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal((n, i)), rng.standard_normal((n, j))
    w, w2, b = rng.standard_normal((o, i)), rng.standard_normal((o, i, j)), rng.standard_normal(o)
    if bias:
        _compare(lambda L, x, w, b: F(L).linear(x, w, b), [x, w, b], seed)
        _compare(lambda L, x, y, w2, b: F(L).bilinear(x, y, w2, b), [x, y, w2, b], seed)
    else:
        _compare(lambda L, x, w: F(L).linear(x, w), [x, w], seed)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 3), c=st.integers(1, 4), length=st.integers(3, 8), k=st.integers(1, 3),
       stride=st.integers(1, 2), pad=st.integers(0, 1), seed=st.integers(0, 2**16))
def test_conv1d_matches_live_torch(n, c, length, k, stride, pad, seed):
    rng = np.random.default_rng(seed)
    x, w, b = rng.standard_normal((n, c, length)), rng.standard_normal((2, c, k)), rng.standard_normal(2)
    _compare(lambda L, x, w, b: F(L).conv1d(x, w, b, stride=stride, padding=pad), [x, w, b], seed)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 3), c=st.integers(1, 3), h=st.integers(2, 7), w=st.integers(2, 7),
       k=st.integers(1, 2), out=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_avg_and_adaptive_pools_match_live_torch(n, c, h, w, k, out, seed):
    x = np.random.default_rng(seed).standard_normal((n, c, h, w))
    _compare(lambda L, x: F(L).avg_pool2d(x, k), [x], seed)
    _compare(lambda L, x: F(L).adaptive_avg_pool2d(x, (min(out, h), min(out, w))), [x], seed)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(2, 4), c=st.integers(1, 4), length=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_layer_and_batch_norm_match_live_torch(n, c, length, seed):
    rng = np.random.default_rng(seed)
    x, g, b = rng.standard_normal((n, c, length)), rng.standard_normal(c), rng.standard_normal(c)
    _compare(lambda L, x: F(L).layer_norm(x, (c, length)), [x], seed)
    _compare(
        lambda L, x, g, b: F(L).batch_norm(x, None, None, g, b, training=True, eps=1e-5), [x, g, b], seed
    )


@settings(max_examples=20, deadline=None)
@given(vocab=st.integers(2, 6), d=dims, n=dims, seed=st.integers(0, 2**16))
def test_embedding_and_one_hot_match_live_torch(vocab, d, n, seed):
    rng = np.random.default_rng(seed)
    w, idx = rng.standard_normal((vocab, d)), rng.integers(0, vocab, n)
    _compare(lambda L, w, i: F(L).embedding(i, w), [w, idx], seed)
    a = F(dg).one_hot(dg.tensor(idx), vocab).numpy()
    b = F(torch).one_hot(torch.tensor(idx), vocab).numpy()
    np.testing.assert_array_equal(a, b)


LINALG = {
    "mm": (lambda L, a, b: L.mm(a, b), lambda n, m, p: [(n, m), (m, p)]),
    "bmm": (lambda L, a, b: L.bmm(a, b), lambda n, m, p: [(2, n, m), (2, m, p)]),
    "mv": (lambda L, a, b: L.mv(a, b), lambda n, m, p: [(n, m), (m,)]),
    "dot": (lambda L, a, b: L.dot(a, b), lambda n, m, p: [(m,), (m,)]),
    "outer": (lambda L, a, b: L.outer(a, b), lambda n, m, p: [(n,), (p,)]),
    "tensordot": (lambda L, a, b: L.tensordot(a, b, dims=1), lambda n, m, p: [(n, m), (m, p)]),
    "trace": (lambda L, a: L.trace(a), lambda n, m, p: [(n, m)]),
    "diag": (lambda L, a: L.diag(a, 1), lambda n, m, p: [(n, m)]),
    "diagonal": (lambda L, a: L.diagonal(a, -1), lambda n, m, p: [(n, m)]),
    "tril": (lambda L, a: L.tril(a), lambda n, m, p: [(n, m)]),
    "triu": (lambda L, a: L.triu(a, 1), lambda n, m, p: [(n, m)]),
}


@pytest.mark.parametrize("name", sorted(LINALG))
@settings(max_examples=15, deadline=None)
@given(n=dims, m=dims, p=dims, seed=st.integers(0, 2**16))
def test_small_linear_algebra_ops_match_live_torch(name, n, m, p, seed):
    fn, shapes = LINALG[name]
    rng = np.random.default_rng(seed)
    _compare(fn, [rng.standard_normal(s) for s in shapes(n, m, p)], seed)

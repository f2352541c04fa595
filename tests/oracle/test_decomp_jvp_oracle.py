"""Live comparison with PyTorch's forward-mode rules of qr, eigh and svd (``torch.func.jvp``
vs ``dyngrad.func.jvp``) in float64. Both libraries call LAPACK, but may pick different
signs for Q's columns / eigenvectors / singular vectors: PyTorch's primals and tangents are
sign-aligned to dyngrad's first (a tangent follows its vector's sign). Skipped when torch
is not installed."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad as dg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def _both(fn, x: np.ndarray, u: np.ndarray) -> tuple:  # noqa: ANN001
    ours = dg.func.jvp(lambda a: tuple(fn(dg, a)), (dg.tensor(x),), (dg.tensor(u),))
    theirs = torch.func.jvp(lambda a: tuple(fn(torch, a)), (torch.tensor(x),), (torch.tensor(u),))
    return [[t._data for t in side] for side in ours], [[t.numpy() for t in side] for side in theirs]


def _flip(a: np.ndarray, s: np.ndarray, rows: bool = False) -> np.ndarray:
    """``a`` with columns (rows) ``:k`` multiplied by the signs ``s`` (shape ``(*, 1, k)``)."""
    a = a.copy()
    k = s.shape[-1]
    if rows:
        a[..., :k, :] *= np.swapaxes(s, -1, -2)
    else:
        a[..., :, :k] *= s
    return a


CASES = [
    ("qr_tall", lambda m, a: m.linalg.qr(a), (5, 3)),
    ("qr_wide", lambda m, a: m.linalg.qr(a), (2, 3, 5)),
    ("eigh", lambda m, a: m.linalg.eigh(a), (2, 4, 4)),
    ("svd_reduced", lambda m, a: m.linalg.svd(a, full_matrices=False), (2, 5, 3)),
    ("svd_full", lambda m, a: m.linalg.svd(a), (3, 5)),
]


@pytest.mark.parametrize("name,fn,shape", CASES, ids=[c[0] for c in CASES])
def test_decomposition_tangents_match_pytorch(name, fn, shape) -> None:  # noqa: ANN001
    rng = np.random.default_rng(0)
    x, u = rng.standard_normal(shape), rng.standard_normal(shape)
    if name == "eigh":
        x, u = x + np.swapaxes(x, -1, -2), u + np.swapaxes(u, -1, -2)
    (po, to), (pt, tt) = _both(fn, x, u)
    if name.startswith("qr"):
        s = np.sign(np.sum(po[0] * pt[0], axis=-2, keepdims=True))
        pt = [_flip(pt[0], s), _flip(pt[1], s, rows=True)]
        tt = [_flip(tt[0], s), _flip(tt[1], s, rows=True)]
    elif name == "eigh":
        s = np.sign(np.sum(po[1] * pt[1], axis=-2, keepdims=True))
        pt, tt = [pt[0], _flip(pt[1], s)], [tt[0], _flip(tt[1], s)]
    else:
        k = pt[1].shape[-1]
        s = np.sign(np.sum(po[0][..., :k] * pt[0][..., :k], axis=-2, keepdims=True))
        pt = [_flip(pt[0], s), pt[1], _flip(pt[2], s, rows=True)]
        tt = [_flip(tt[0], s), tt[1], _flip(tt[2], s, rows=True)]
        if name == "svd_full":  # the complement's basis is arbitrary: compare the reduced part
            pt, po = [pt[0][..., :k], pt[1], pt[2][..., :k, :]], [po[0][..., :k], po[1], po[2][..., :k, :]]
            np.testing.assert_array_equal(to[2][..., k:, :], 0)
            np.testing.assert_array_equal(tt[2][..., k:, :], 0)
            to, tt = [to[0][..., :k], to[1], to[2][..., :k, :]], [tt[0][..., :k], tt[1], tt[2][..., :k, :]]
    for i, (a, b) in enumerate(zip(po, pt)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10, err_msg=f"{name}: primal {i}")
    for i, (a, b) in enumerate(zip(to, tt)):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10, err_msg=f"{name}: tangent {i}")

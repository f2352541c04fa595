"""Nested forward mode (several dual levels: ``jacfwd(jacfwd(f))``, ``jvp`` of ``jvp``,
forward-over-forward Hessians) against a live torch.func (PyTorch 2.13), on a Rosenbrock
function and an MLP loss. Skipped without torch."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.oracle

rng = np.random.default_rng(11)


def _rosenbrock(x):  # noqa: ANN001, ANN202 - works on either library's tensors
    return ((1 - x[:-1]) ** 2 + 100 * (x[1:] - x[:-1] ** 2) ** 2).sum()


def _mlp_loss(lib, x, y, w2):  # noqa: ANN001, ANN202
    F = lib.nn.functional

    def loss(w1):  # noqa: ANN001, ANN202
        h = lib.tanh(F.linear(x, w1))
        return F.mse_loss(F.linear(h, w2), y)

    return loss


def _both(*shapes: tuple) -> tuple[list, list]:
    arrs = [rng.standard_normal(s) for s in shapes]
    return [dyngrad.tensor(a) for a in arrs], [torch.tensor(a) for a in arrs]


@pytest.mark.parametrize("n", [2, 5])
def test_jacfwd_of_jacfwd_matches_torch_on_rosenbrock(n: int) -> None:
    (x,), (xt,) = _both((n,))
    H = dyngrad.func.jacfwd(dyngrad.func.jacfwd(_rosenbrock))(x)
    Ht = torch.func.jacfwd(torch.func.jacfwd(_rosenbrock))(xt)
    np.testing.assert_allclose(H.data, Ht.numpy(), rtol=1e-12, atol=1e-9)


def test_jvp_of_jvp_matches_torch_on_rosenbrock() -> None:
    (x, u, v), (xt, ut, vt) = _both((6,), (6,), (6,))
    inner = lambda z: dyngrad.func.jvp(_rosenbrock, (z,), (u,))[1]  # noqa: E731
    inner_t = lambda z: torch.func.jvp(_rosenbrock, (z,), (ut,))[1]  # noqa: E731
    got = dyngrad.func.jvp(inner, (x,), (v,))
    want = torch.func.jvp(inner_t, (xt,), (vt,))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.data, w.numpy(), rtol=1e-12)


def test_forward_over_forward_hessian_matches_torch_on_an_mlp_loss() -> None:
    (x, y, w1, w2), (xt, yt, w1t, w2t) = _both((8, 3), (8, 2), (4, 3), (2, 4))
    H = dyngrad.func.jacfwd(dyngrad.func.jacfwd(_mlp_loss(dyngrad, x, y, w2)))(w1)
    Ht = torch.func.jacfwd(torch.func.jacfwd(_mlp_loss(torch, xt, yt, w2t)))(w1t)
    assert H.shape == tuple(Ht.shape) == (4, 3, 4, 3)
    np.testing.assert_allclose(H.data, Ht.numpy(), rtol=1e-10, atol=1e-12)
    Hrev = torch.func.hessian(_mlp_loss(torch, xt, yt, w2t))(w1t)
    np.testing.assert_allclose(H.data, Hrev.numpy(), rtol=1e-10, atol=1e-12)


def test_nested_dual_levels_match_torch_func_jvp_of_jvp_on_an_mlp_loss() -> None:
    (x, y, w1, w2, u), (xt, yt, w1t, w2t, ut) = _both((8, 3), (8, 2), (4, 3), (2, 4), (4, 3))
    f, ft = _mlp_loss(dyngrad, x, y, w2), _mlp_loss(torch, xt, yt, w2t)
    from dyngrad.autograd import forward_ad as fwd

    with fwd.dual_level():
        a = fwd.make_dual(w1, u)
        with fwd.dual_level():
            b = fwd.make_dual(a, u)
            first = fwd.unpack_dual(f(b)).tangent
        second = fwd.unpack_dual(first).tangent
    want = torch.func.jvp(lambda z: torch.func.jvp(ft, (z,), (ut,))[1], (w1t,), (ut,))[1]
    np.testing.assert_allclose(second.data, want.numpy(), rtol=1e-10)

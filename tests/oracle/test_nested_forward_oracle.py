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
    np.testing.assert_allclose(H._data, Ht.numpy(), rtol=1e-12, atol=1e-9)


def test_jvp_of_jvp_matches_torch_on_rosenbrock() -> None:
    (x, u, v), (xt, ut, vt) = _both((6,), (6,), (6,))
    inner = lambda z: dyngrad.func.jvp(_rosenbrock, (z,), (u,))[1]  # noqa: E731
    inner_t = lambda z: torch.func.jvp(_rosenbrock, (z,), (ut,))[1]  # noqa: E731
    got = dyngrad.func.jvp(inner, (x,), (v,))
    want = torch.func.jvp(inner_t, (xt,), (vt,))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g._data, w.numpy(), rtol=1e-12)


def test_forward_over_forward_hessian_matches_torch_on_an_mlp_loss() -> None:
    (x, y, w1, w2), (xt, yt, w1t, w2t) = _both((8, 3), (8, 2), (4, 3), (2, 4))
    H = dyngrad.func.jacfwd(dyngrad.func.jacfwd(_mlp_loss(dyngrad, x, y, w2)))(w1)
    Ht = torch.func.jacfwd(torch.func.jacfwd(_mlp_loss(torch, xt, yt, w2t)))(w1t)
    assert H.shape == tuple(Ht.shape) == (4, 3, 4, 3)
    np.testing.assert_allclose(H._data, Ht.numpy(), rtol=1e-10, atol=1e-12)
    Hrev = torch.func.hessian(_mlp_loss(torch, xt, yt, w2t))(w1t)
    np.testing.assert_allclose(H._data, Hrev.numpy(), rtol=1e-10, atol=1e-12)


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
    np.testing.assert_allclose(second._data, want.numpy(), rtol=1e-10)


# ---------------------------------------------------------------- three levels deep
_W = rng.standard_normal((3, 3)) * 0.5


def _three_deep_fns(lib):  # noqa: ANN001, ANN202 - compositions of sin / mul / exp / matmul
    W = lib.tensor(_W)
    return {
        "sin": lambda x: lib.sin(x),
        "mul": lambda x: x * x * x[0],
        "exp": lambda x: lib.exp(x * 0.5),
        "matmul": lambda x: W @ (x * x),
        "sin_exp_matmul": lambda x: lib.sin(W @ lib.exp(x)) * x,
        "exp_sin_mul": lambda x: lib.exp(lib.sin(x) * x[1]),
        "matmul_sin_sum": lambda x: (lib.sin(W @ x) * x).sum(),
    }


_COMPS = ["".join(c) for c in __import__("itertools").product("fr", repeat=3)]  # f: jacfwd, r: jacrev


def _compose(func, f, comp):  # noqa: ANN001, ANN202
    for k in comp:
        f = (func.jacfwd if k == "f" else func.jacrev)(f)
    return f


@pytest.mark.parametrize("comp", _COMPS)
@pytest.mark.parametrize("name", list(_three_deep_fns(dyngrad)))
def test_every_three_deep_jacfwd_jacrev_composition_matches_torch_func(name: str, comp: str) -> None:
    x = rng.standard_normal(3)
    got = _compose(dyngrad.func, _three_deep_fns(dyngrad)[name], comp)(dyngrad.tensor(x))
    want = _compose(torch.func, _three_deep_fns(torch)[name], comp)(torch.tensor(x))
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(got._data, want.numpy(), rtol=1e-10, atol=1e-12)
    assert not got.requires_grad


@pytest.mark.parametrize("name", list(_three_deep_fns(dyngrad)))
def test_jvp_of_jvp_of_jvp_matches_torch_func(name: str) -> None:
    x, u, v, w = (rng.standard_normal(3) for _ in range(4))

    def three(func, f, T):  # noqa: ANN001, ANN202
        g1 = lambda z: func.jvp(f, (z,), (T(u),))[1]  # noqa: E731
        g2 = lambda z: func.jvp(g1, (z,), (T(v),))[1]  # noqa: E731
        return func.jvp(g2, (T(x),), (T(w),))

    got = three(dyngrad.func, _three_deep_fns(dyngrad)[name], dyngrad.tensor)
    want = three(torch.func, _three_deep_fns(torch)[name], torch.tensor)
    for g, t in zip(got, want):
        np.testing.assert_allclose(g._data, t.numpy(), rtol=1e-10, atol=1e-12)


def test_reverse_mode_over_jacfwd_of_jacfwd_matches_torch() -> None:
    (x,), (xt,) = _both((4,))
    x.requires_grad_()
    xt.requires_grad_()
    H = dyngrad.func.jacfwd(dyngrad.func.jacfwd(_rosenbrock))(x)
    Ht = torch.func.jacfwd(torch.func.jacfwd(_rosenbrock))(xt)
    (g,) = dyngrad.autograd.grad((H * H).sum(), x)
    (gt,) = torch.autograd.grad((Ht * Ht).sum(), xt)
    np.testing.assert_allclose(g._data, gt.numpy(), rtol=1e-10)


def test_vmap_of_jacfwd_of_jacfwd_and_jacfwd_of_hessian_match_torch() -> None:
    (xs, x), (xst, xt) = _both((5, 4), (4,))
    got = dyngrad.func.vmap(dyngrad.func.jacfwd(dyngrad.func.jacfwd(_rosenbrock)))(xs)
    want = torch.func.vmap(torch.func.jacfwd(torch.func.jacfwd(_rosenbrock)))(xst)
    np.testing.assert_allclose(got._data, want.numpy(), rtol=1e-10, atol=1e-9)
    got = dyngrad.func.jacfwd(dyngrad.func.hessian(_rosenbrock))(x)
    want = torch.func.jacfwd(torch.func.hessian(_rosenbrock))(xt)
    np.testing.assert_allclose(got._data, want.numpy(), rtol=1e-10, atol=1e-9)


def _mixed(lib):  # noqa: ANN001, ANN202
    return lambda x: (lib.sin(x) * lib.exp(x[0]) + x ** 3).sum()


_XS, _U, _V = rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal(4)


def _jvp2(func, g, T):  # noqa: ANN001, ANN202
    return lambda z: func.jvp(lambda y: func.jvp(g, (y,), (T(_U),))[1], (z,), (T(_V),))[1]


MIXED = {
    "vmap(jvp(jvp))": lambda func, g, T: func.vmap(_jvp2(func, g, T))(T(_XS)),
    "jvp(vmap(jvp))": lambda func, g, T: func.jvp(lambda z: func.vmap(lambda y: func.jvp(g, (y,), (T(_U),))[1])(z),
                                                  (T(_XS),), (T(np.ones((3, 4))),))[1],
    "vmap(jacfwd^3)": lambda func, g, T: func.vmap(func.jacfwd(func.jacfwd(func.jacfwd(g))))(T(_XS)),
    "jacfwd(vmap(jacfwd))": lambda func, g, T: func.jacfwd(func.vmap(func.jacfwd(g)))(T(_XS)),
    "hessian(jvp)": lambda func, g, T: func.hessian(lambda z: func.jvp(g, (z,), (T(_U),))[1])(T(_XS[0])),
    "jacfwd(jacfwd(grad))": lambda func, g, T: func.jacfwd(func.jacfwd(func.grad(g)))(T(_XS[0])),
    "jacrev(jvp(jvp))": lambda func, g, T: func.jacrev(_jvp2(func, g, T))(T(_XS[0])),
}


@pytest.mark.parametrize("name", list(MIXED))
def test_nested_forward_mode_mixed_with_vmap_and_reverse_mode_matches_torch_func(name: str) -> None:
    got = MIXED[name](dyngrad.func, _mixed(dyngrad), dyngrad.tensor)
    want = MIXED[name](torch.func, _mixed(torch), torch.tensor)
    np.testing.assert_allclose(got._data, want.detach().numpy(), rtol=1e-10, atol=1e-12)

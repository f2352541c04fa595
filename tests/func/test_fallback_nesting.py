"""Value-reading functions (``float(x.sum())``, ``.item()``, ``.tolist()``, ``if t > 0``,
NumPy on ``._data``) under nested transforms.

Reading a value cannot be batched, so the vmap over jacfwd's basis tangents falls back to
one jvp per column (``autograd.functional._jac_forward``). That loop stacked the columns
with ``np.stack`` of ``._data`` unless they required grad or a vmap level was active, which
dropped an OUTER dual level's tangents: ``jacfwd(jacfwd(f))`` and ``jvp(jacfwd(f))`` came
out 0 with no warning (every distribution with ``validate_args=True``). Each composition is
checked against torch.func on the same function without the read (torch raises for reads
under vmap, where dyngrad's loop is a documented extension), and against dyngrad's own
reverse-over-reverse."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad as dg
from dyngrad import func as F

torch = pytest.importorskip("torch")
TF = torch.func

X0 = np.array([0.3, -0.7, 1.1])
V0 = np.array([1.0, 2.0, -0.5])
XB0 = np.stack([X0, 0.5 * X0])

READS = {
    "float": lambda x: float(x.sum()),
    "item": lambda x: x.sum().item(),
    "tolist": lambda x: x.tolist(),
    "if": lambda x: 1 if x.sum() > 0 else 0,
    "numpy": lambda x: np.linalg.norm(x._data),
}


def _f(lib, read=None):
    def f(x):  # noqa: ANN001, ANN202
        if read is not None:
            read(x)
        return lib.sin(x) * (x ** 2).sum() + x ** 3 / 3

    return f


def _np(t):  # noqa: ANN001, ANN202
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t._data)


CASES = {  # name -> (composition of a function module M, f, args), kind of arguments
    "jacfwd(jacfwd)": (lambda M, f, x: M.jacfwd(M.jacfwd(f))(x), "x"),
    "jacfwd^3": (lambda M, f, x: M.jacfwd(M.jacfwd(M.jacfwd(f)))(x), "x"),
    "jacfwd(jacfwd(sum))": (lambda M, f, x: M.jacfwd(M.jacfwd(lambda y: f(y).sum()))(x), "x"),
    "jacrev(jacfwd)": (lambda M, f, x: M.jacrev(M.jacfwd(f))(x), "x"),
    "jacfwd(jacrev)": (lambda M, f, x: M.jacfwd(M.jacrev(f))(x), "x"),
    "grad(sum(jacfwd))": (lambda M, f, x: M.grad(lambda y: M.jacfwd(f)(y).sum())(x), "x"),
    "hessian": (lambda M, f, x: M.hessian(lambda y: f(y).sum())(x), "x"),
    "jvp(jacfwd)": (lambda M, f, x, v: M.jvp(M.jacfwd(f), (x,), (v,))[1], "xv"),
    "jvp(jvp)": (lambda M, f, x, v: M.jvp(lambda y: M.jvp(f, (y,), (v,))[1], (x,), (v,))[1], "xv"),
    "jacfwd(jvp)": (lambda M, f, x, v: M.jacfwd(lambda y: M.jvp(f, (y,), (v,))[1])(x), "xv"),
    "vmap(jacfwd(jacfwd))": (lambda M, f, x: M.vmap(M.jacfwd(M.jacfwd(f)))(x), "b"),
    "vmap(jacfwd)": (lambda M, f, x: M.vmap(M.jacfwd(f))(x), "b"),
    "jacfwd(vmap)": (lambda M, f, x: M.jacfwd(M.vmap(f))(x), "b"),
    "jacrev(vmap)": (lambda M, f, x: M.jacrev(M.vmap(f))(x), "b"),
    "jvp(vmap)": (lambda M, f, x: M.jvp(M.vmap(f), (x,), (x * 0 + 1,))[1], "b"),
    "jacfwd(vmap(jacfwd))": (lambda M, f, x: M.jacfwd(M.vmap(M.jacfwd(f)))(x), "b"),
    "vmap(jvp(jacfwd))": (lambda M, f, x: M.vmap(lambda y: M.jvp(M.jacfwd(f), (y,), (y * 0 + 1,))[1])(x), "b"),
    "vmap(grad(sum(jacfwd)))": (lambda M, f, x: M.vmap(M.grad(lambda y: M.jacfwd(f)(y).sum()))(x), "b"),
    "vmap(hessian)": (lambda M, f, x: M.vmap(M.hessian(lambda y: f(y).sum()))(x), "b"),
    "vmap(jacfwd(jacrev))": (lambda M, f, x: M.vmap(M.jacfwd(M.jacrev(f)))(x), "b"),
    "vmap(jacrev(jacfwd))": (lambda M, f, x: M.vmap(M.jacrev(M.jacfwd(f)))(x), "b"),
}


def _args(kind, mk):  # noqa: ANN001, ANN202
    if kind == "b":
        return (mk(XB0),)
    return (mk(X0), mk(V0)) if kind == "xv" else (mk(X0),)


@pytest.mark.parametrize("read", sorted(READS))
@pytest.mark.parametrize("name", sorted(CASES))
def test_value_reading_f_under_nested_transforms(name, read):  # noqa: ANN001
    comp, kind = CASES[name]
    ref = _np(comp(TF, _f(torch), *_args(kind, lambda a: torch.tensor(a, dtype=torch.float64))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "vmap fell back to a loop": expected here
        got = _np(comp(F, _f(dg, READS[read]), *_args(kind, lambda a: dg.tensor(a, dtype=dg.float64))))
    assert got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)
    assert np.abs(ref).max() > 0.1  # (a silent 0 would fail)


def test_issue_repro_second_derivative_is_minus_one():
    def f(x):  # noqa: ANN001, ANN202
        float(x.sum())
        return -(x ** 2) / 2

    x = dg.tensor([0.5], dtype=dg.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert F.jacfwd(F.jacfwd(f))(x)._data.tolist() == [[[-1.0]]]
        p, t = F.jvp(F.jacfwd(f), (x,), (dg.tensor([1.0], dtype=dg.float64),))
    assert t._data.tolist() == [[-1.0]]
    assert p._data.tolist() == [[-0.5]]


@pytest.mark.parametrize("validate", [False, True])
def test_distribution_log_prob_validate_args_jacfwd_jacfwd(validate):  # noqa: ANN001
    D = dg.distributions
    loc = dg.tensor([0.2, -0.4], dtype=dg.float64)
    sc = dg.tensor([1.5, 0.5], dtype=dg.float64)
    v = dg.tensor([0.1, 0.9], dtype=dg.float64)

    def lp_loc(m):  # noqa: ANN001, ANN202
        return D.Normal(m, sc, validate_args=validate).log_prob(v).sum()

    def lp_scale(s):  # noqa: ANN001, ANN202
        return D.Normal(loc, s, validate_args=validate).log_prob(v).sum()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        h_loc = F.jacfwd(F.jacfwd(lp_loc))(loc)._data
        h_scale = F.jacfwd(F.jacfwd(lp_scale))(sc)._data
        hvp = F.jvp(F.jacfwd(lp_loc), (loc,), (dg.ones(2, dtype=dg.float64),))[1]._data
        h_scale_rr = F.jacrev(F.jacrev(lp_scale))(sc)._data
    np.testing.assert_allclose(h_loc, np.diag(-1 / sc._data ** 2), rtol=1e-12)
    # d2/ds2 [-log s - (v-m)^2 / (2 s^2)] = 1/s^2 - 3 (v-m)^2 / s^4
    z2 = (v._data - loc._data) ** 2
    np.testing.assert_allclose(h_scale, np.diag(1 / sc._data ** 2 - 3 * z2 / sc._data ** 4), rtol=1e-12)
    np.testing.assert_allclose(h_scale, h_scale_rr, rtol=1e-12)
    np.testing.assert_allclose(hvp, -1 / sc._data ** 2, rtol=1e-12)
    tl = torch.tensor(loc._data, requires_grad=False)
    ref = TF.jacfwd(TF.jacfwd(lambda m: torch.distributions.Normal(m, torch.tensor(sc._data)).log_prob(
        torch.tensor(v._data)).sum()))(tl)
    np.testing.assert_allclose(h_loc, ref.numpy(), rtol=1e-12)


def test_nested_vmap_fallback_keeps_outer_levels():
    def g(x):  # noqa: ANN001, ANN202
        return dg.sin(x) * x.sum()

    def f(x):  # noqa: ANN001, ANN202
        float(x.sum())
        return g(x)

    X = dg.tensor(np.random.RandomState(0).randn(2, 2, 3), dtype=dg.float64)
    T = dg.ones_like(X)
    comps = [
        lambda h: F.jvp(F.vmap(F.vmap(h)), (X,), (T,))[1],
        lambda h: F.grad(lambda y: F.vmap(F.vmap(h))(y).sum())(X),
        lambda h: F.vmap(F.vmap(F.jacfwd(F.jacfwd(h))))(X),
        lambda h: F.vmap(F.jacfwd(F.jacfwd(h)), chunk_size=1)(X[0]),
        lambda h: F.jvp(lambda y: F.jvp(F.jacfwd(h), (y,), (T[0, 0],))[1], (X[0, 0],), (T[0, 0],))[1],
        lambda h: F.jacfwd(F.jacfwd(lambda a, b: h(a * b), argnums=(0, 1)), argnums=1)(X[0, 0], X[0, 1])[0],
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for c in comps:
            want = c(g)._data
            assert np.abs(want).max() > 0.1
            np.testing.assert_allclose(c(f)._data, want, rtol=1e-12, atol=1e-14)

"""Forward-mode rules (``jvp``) of the decompositions qr, eigh and svd.

Each rule is checked three ways on well-conditioned float64 inputs (distinct eigenvalues
and singular values, full rank): against central finite differences of the forward,
against the double-vjp construction (``J u`` as the derivative of the backward's
``v -> J^T v`` with respect to ``v``, reverse mode only, at a random ``v``), and through
``gradcheck(check_forward_ad=True)``.

Eigenvectors, singular vectors and Q are determined up to sign. The tangents follow the
sign the forward chose (``V^T dV`` is skew), so the finite differences align the sign of
each perturbed vector with the unperturbed one before differencing.
"""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad as D
from dyngrad.autograd import forward_ad as fwAD
from dyngrad.autograd import gradcheck
from dyngrad.ops import decomp as _dc
from dyngrad.ops import spectral as _sp

T = lambda a: D.tensor(a, dtype=D.float64)  # noqa: E731


def _qr(a):  # noqa: ANN001, ANN202
    return tuple(D.linalg.qr(a))


def _eigh(a):  # noqa: ANN001, ANN202
    return tuple(D.linalg.eigh(a))


def _svd(a):  # noqa: ANN001, ANN202
    return tuple(D.linalg.svd(a, full_matrices=False))


def _svd_full(a):  # noqa: ANN001, ANN202
    return tuple(D.linalg.svd(a, full_matrices=True))


# (name, function, input shape, Function class, which outputs carry a sign per column)
CASES = [
    ("qr_tall", _qr, (5, 3), _dc.Qr),
    ("qr_square", _qr, (3, 3), _dc.Qr),
    ("qr_wide", _qr, (2, 4), _dc.Qr),
    ("qr_batched_tall", _qr, (2, 4, 2), _dc.Qr),
    ("qr_batched_wide", _qr, (2, 3, 5), _dc.Qr),
    ("eigh", _eigh, (4, 4), _sp.Eigh),
    ("eigh_batched", _eigh, (2, 3, 3, 3), _sp.Eigh),
    ("svd_tall", _svd, (5, 3), _sp.Svd),
    ("svd_square", _svd, (3, 3), _sp.Svd),
    ("svd_wide", _svd, (2, 4), _sp.Svd),
    ("svd_batched", _svd, (2, 4, 3), _sp.Svd),
    ("svd_full_square", _svd_full, (3, 3), _sp.Svd),
]


def _inputs(name: str, shape: tuple, seed: int = 0) -> tuple:
    """A well-conditioned primal and a tangent (both symmetric for eigh)."""
    rng = np.random.default_rng(seed)
    x, u = rng.standard_normal(shape), rng.standard_normal(shape)
    if name.startswith("eigh"):
        # eigenvalues near 0, 1.5, 3, ...: gaps far above the perturbation
        n = shape[-1]
        q, _ = np.linalg.qr(rng.standard_normal(shape))
        x = q @ (np.arange(n) * 1.5 * np.eye(n)) @ np.swapaxes(q, -1, -2) + 0.1 * (x + np.swapaxes(x, -1, -2))
        u = u + np.swapaxes(u, -1, -2)
    return x, u


def _align(name: str, ref: list, out: list) -> list:
    """``out`` with the sign of each vector flipped to agree with ``ref`` (Q's columns with
    R's rows, U's columns with Vh's rows, V's columns)."""
    out = [o.copy() for o in out]
    if name.startswith("eigh"):
        out[1] = out[1] * np.sign(np.sum(ref[1] * out[1], axis=-2, keepdims=True))
        return out
    s = np.sign(np.sum(ref[0] * out[0], axis=-2, keepdims=True))  # one sign per column of Q / U
    if name.startswith("qr"):
        out[0] = out[0] * s
        out[1] = out[1] * np.swapaxes(s, -1, -2)
    else:
        k = ref[1].shape[-1]
        s = s[..., :k]
        out[0][..., :k] = out[0][..., :k] * s
        out[2][..., :k, :] = out[2][..., :k, :] * np.swapaxes(s, -1, -2)
    return out


def _forward_jvp(fn, x: np.ndarray, u: np.ndarray) -> tuple:  # noqa: ANN001
    with fwAD.dual_level():
        outs = fn(fwAD.make_dual(T(x), T(u)))
        tans = [fwAD.unpack_dual(o).tangent for o in outs]
    return [o.data for o in outs], tans


def _fd_jvp(name: str, fn, x: np.ndarray, u: np.ndarray, h: float = 1e-6) -> list:  # noqa: ANN001
    ref = [o.data for o in fn(T(x))]
    plus = _align(name, ref, [o.data for o in fn(T(x + h * u))])
    minus = _align(name, ref, [o.data for o in fn(T(x - h * u))])
    return [(p - m) / (2 * h) for p, m in zip(plus, minus)]


def _double_vjp_jvp(fn, x: np.ndarray, u: np.ndarray) -> list:  # noqa: ANN001
    """``J u`` from reverse mode only: the backward is linear in the output cotangent ``v``;
    differentiate it with respect to ``v`` (at a random ``v``: a zero ``v`` would take the
    backward's eigenvalue-only shortcut)."""
    rng = np.random.default_rng(5)
    leaf = T(x).requires_grad_()
    outs = fn(leaf)
    vs = [T(rng.standard_normal(o.shape)).requires_grad_() for o in outs]
    (g,) = D.autograd.grad(list(outs), [leaf], vs, create_graph=True)
    res = D.autograd.grad([g], vs, [T(u)], allow_unused=True)
    return [np.zeros(o.shape) if r is None else r.data for r, o in zip(res, outs)]


@pytest.mark.parametrize("name,fn,shape,cls", CASES, ids=[c[0] for c in CASES])
def test_jvp_rule_runs_and_matches_finite_differences_and_double_vjp(name, fn, shape, cls, monkeypatch) -> None:  # noqa: ANN001
    assert "jvp" in cls.__dict__
    calls = []
    rule = cls.jvp
    monkeypatch.setattr(cls, "jvp", staticmethod(lambda ctx, *t: calls.append(1) or rule(ctx, *t)))
    x, u = _inputs(name, shape)
    outs, tans = _forward_jvp(fn, x, u)
    assert calls, f"{cls.__name__}.jvp did not run"
    fd = _fd_jvp(name, fn, x, u)
    dv = _double_vjp_jvp(fn, x, u)
    for i, (o, t, f, d) in enumerate(zip(outs, tans, fd, dv)):
        assert t is not None and t.shape == o.shape and t.dtype == D.float64
        np.testing.assert_allclose(t.data, f, rtol=1e-6, atol=1e-7, err_msg=f"{name}: output {i} vs fd")
        np.testing.assert_allclose(t.data, d, rtol=1e-10, atol=1e-12, err_msg=f"{name}: output {i} vs double vjp")


@pytest.mark.parametrize("name,fn,shape,cls", CASES, ids=[c[0] for c in CASES])
def test_gradcheck_with_forward_ad_passes(name, fn, shape, cls) -> None:  # noqa: ANN001
    x, _ = _inputs(name, shape, seed=1)
    if name.startswith("eigh"):  # eigh reads one triangle: check it on symmetric inputs
        assert gradcheck(lambda a: fn(a + a.mT), (T(x).requires_grad_(),), check_forward_ad=True)
    else:
        assert gradcheck(fn, (T(x).requires_grad_(),), check_forward_ad=True)


@pytest.mark.parametrize("shape", [(4, 2), (2, 4)])
def test_svd_full_matrices_tangent_is_the_reduced_one_padded_with_zeros(shape) -> None:  # noqa: ANN001
    x, u = _inputs("svd", shape, seed=2)
    k = min(shape)
    _, full = _forward_jvp(_svd_full, x, u)
    _, red = _forward_jvp(_svd, x, u)
    np.testing.assert_allclose(full[0].data[:, :k], red[0].data, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(full[1].data, red[1].data, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(full[2].data[:k], red[2].data, rtol=1e-12, atol=1e-14)
    assert not np.any(full[0].data[:, k:]) and not np.any(full[2].data[k:])
    # the reduced part of the full decomposition through gradcheck (forward and reverse)
    f = lambda a: (D.linalg.svd(a)[0][:, :k], D.linalg.svd(a)[1], D.linalg.svd(a)[2][:k])  # noqa: E731
    assert gradcheck(f, (T(x).requires_grad_(),), check_forward_ad=True)


def test_eigh_tangent_of_an_unsymmetric_direction_is_that_of_its_symmetric_part() -> None:
    x, u = _inputs("eigh", (3, 3), seed=3)
    w = np.random.default_rng(4).standard_normal((3, 3))  # not symmetric
    _, t_w = _forward_jvp(_eigh, x, w)
    _, t_s = _forward_jvp(_eigh, x, (w + w.T) / 2)
    for a, b in zip(t_w, t_s):
        np.testing.assert_allclose(a.data, b.data, rtol=1e-12, atol=1e-14)
    # and so jvp is the adjoint of vjp for any direction: <v, J w> = <J^T v, w>
    v = [np.random.default_rng(6).standard_normal(o.shape) for o in t_w]
    leaf = T(x).requires_grad_()
    (g,) = D.autograd.grad(list(_eigh(leaf)), [leaf], [T(a) for a in v])
    lhs = sum(float(np.sum(a * t.data)) for a, t in zip(v, t_w))
    assert abs(lhs - float(np.sum(g.data * w))) < 1e-10 * max(1.0, abs(lhs))


def test_eigenvector_tangent_is_not_zero() -> None:
    """Regression: the double-vjp fallback ran the backward at a zero cotangent, which takes
    the eigenvalue-only shortcut and gave eigenvectors a zero tangent."""
    x, u = _inputs("eigh", (3, 3), seed=7)
    _, (tL, tV) = _forward_jvp(_eigh, x, u)
    assert np.abs(tV.data).max() > 1e-3


@pytest.mark.parametrize("fn,shape", [(_qr, (4, 3)), (_eigh, (3, 3)), (_svd, (3, 2))], ids=["qr", "eigh", "svd"])
def test_jvp_rules_are_differentiable_reverse_over_forward_equals_reverse_over_reverse(fn, shape) -> None:  # noqa: ANN001
    """The rules are written with dyngrad ops: the Hessian of a scalar function through
    ``jacrev(jacfwd(f))`` (reverse mode through the jvp rule) equals ``jacrev(jacrev(f))``."""
    x, _ = _inputs("eigh" if fn is _eigh else "x", shape, seed=8)

    def f(a):  # noqa: ANN001, ANN202
        if fn is _eigh:
            a = (a + a.mT) * 0.5
        outs = fn(a)
        w = [T(np.linspace(0.5, 1.5, o.numel()).reshape(o.shape)) for o in outs]
        return sum(((o * wi) ** 3).sum() for o, wi in zip(outs, w))

    h_fr = D.func.jacrev(D.func.jacfwd(f))(T(x))
    h_rr = D.func.jacrev(D.func.jacrev(f))(T(x))
    np.testing.assert_allclose(h_fr.data, h_rr.data, rtol=1e-8, atol=1e-10)

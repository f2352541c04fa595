"""Forward-mode rules (``jvp``) of the decompositions qr, eigh and svd, beyond the op
database's checks (the qr/eigh/svd entries of tests/op_db/decomp.py name their Function, so
tests/test_op_db.py asserts that its jvp rule ran and equals central differences, the
double-vjp construction and ``gradcheck(check_forward_ad=True)``): full_matrices tangents,
unsymmetric directions for eigh, nonzero eigenvector tangents, and reverse-over-forward.

Eigenvectors, singular vectors and Q are determined up to sign; the tangents follow the
sign the forward chose (``V^T dV`` is skew). The db entries check sign-invariant functions
of them (Q and R together, squares of vectors).
"""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad as D
from dyngrad.autograd import forward_ad as fwAD
from dyngrad.autograd import gradcheck

T = lambda a: D.tensor(a, dtype=D.float64)  # noqa: E731


def _qr(a):  # noqa: ANN001, ANN202
    return tuple(D.linalg.qr(a))


def _eigh(a):  # noqa: ANN001, ANN202
    return tuple(D.linalg.eigh(a))


def _svd(a):  # noqa: ANN001, ANN202
    return tuple(D.linalg.svd(a, full_matrices=False))


def _svd_full(a):  # noqa: ANN001, ANN202
    return tuple(D.linalg.svd(a, full_matrices=True))


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


def _forward_jvp(fn, x: np.ndarray, u: np.ndarray) -> tuple:  # noqa: ANN001
    with fwAD.dual_level():
        outs = fn(fwAD.make_dual(T(x), T(u)))
        tans = [fwAD.unpack_dual(o).tangent for o in outs]
    return [o._data for o in outs], tans


@pytest.mark.parametrize("shape", [(4, 2), (2, 4)])
def test_svd_full_matrices_tangent_is_the_reduced_one_padded_with_zeros(shape) -> None:  # noqa: ANN001
    x, u = _inputs("svd", shape, seed=2)
    k = min(shape)
    _, full = _forward_jvp(_svd_full, x, u)
    _, red = _forward_jvp(_svd, x, u)
    np.testing.assert_allclose(full[0]._data[:, :k], red[0]._data, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(full[1]._data, red[1]._data, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(full[2]._data[:k], red[2]._data, rtol=1e-12, atol=1e-14)
    assert not np.any(full[0]._data[:, k:]) and not np.any(full[2]._data[k:])
    # the reduced part of the full decomposition through gradcheck (forward and reverse)
    f = lambda a: (D.linalg.svd(a)[0][:, :k], D.linalg.svd(a)[1], D.linalg.svd(a)[2][:k])  # noqa: E731
    assert gradcheck(f, (T(x).requires_grad_(),), check_forward_ad=True)


def test_eigh_tangent_of_an_unsymmetric_direction_is_that_of_its_symmetric_part() -> None:
    x, u = _inputs("eigh", (3, 3), seed=3)
    w = np.random.default_rng(4).standard_normal((3, 3))  # not symmetric
    _, t_w = _forward_jvp(_eigh, x, w)
    _, t_s = _forward_jvp(_eigh, x, (w + w.T) / 2)
    for a, b in zip(t_w, t_s):
        np.testing.assert_allclose(a._data, b._data, rtol=1e-12, atol=1e-14)
    # and so jvp is the adjoint of vjp for any direction: <v, J w> = <J^T v, w>
    v = [np.random.default_rng(6).standard_normal(o.shape) for o in t_w]
    leaf = T(x).requires_grad_()
    (g,) = D.autograd.grad(list(_eigh(leaf)), [leaf], [T(a) for a in v])
    lhs = sum(float(np.sum(a * t._data)) for a, t in zip(v, t_w))
    assert abs(lhs - float(np.sum(g._data * w))) < 1e-10 * max(1.0, abs(lhs))


def test_eigenvector_tangent_is_not_zero() -> None:
    """Regression: the double-vjp fallback ran the backward at a zero cotangent, which takes
    the eigenvalue-only shortcut and gave eigenvectors a zero tangent."""
    x, u = _inputs("eigh", (3, 3), seed=7)
    _, (tL, tV) = _forward_jvp(_eigh, x, u)
    assert np.abs(tV._data).max() > 1e-3


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
    np.testing.assert_allclose(h_fr._data, h_rr._data, rtol=1e-8, atol=1e-10)

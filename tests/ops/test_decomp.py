"""dyngrad.linalg decompositions and matrix functions: inv, det, slogdet, logdet, solve,
cholesky, qr, eigh, svd, matrix norms. Table-driven (see tests/ops/harness.py) against golden
PyTorch 2.13 values; gradcheck and gradgradcheck in float64 (all decompositions here are
twice differentiable away from their singular points); errors.

Outputs that are only defined up to sign (eigenvectors, singular vectors) are compared
through sign-invariant functions of them (squares, reconstructions)."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad as dg
from dyngrad.autograd import gradcheck, gradgradcheck
from tests.op_db.decomp import _well_conditioned


# ----------------------------------------------------------------------------- semantics
def _a(*shape, seed=0):
    return dg.tensor(_well_conditioned(np.random.default_rng(seed), (shape,))[0], requires_grad=True)


@pytest.mark.parametrize(
    "fn,name",
    [
        (lambda a: dg.linalg.inv(a), "LinalgInvExBackward0"),
        (lambda a: dg.linalg.det(a), "LinalgDetBackward0"),
        (lambda a: dg.linalg.slogdet(a)[1], "LinalgSlogdetBackward0"),
        (lambda a: dg.linalg.solve(a, a), "LinalgSolveExBackward0"),
        (lambda a: dg.linalg.cholesky(a @ a.mT), "LinalgCholeskyExBackward0"),
        (lambda a: dg.linalg.qr(a).Q, "LinalgQrBackward0"),
        (lambda a: dg.linalg.eigh(a).eigenvalues, "LinalgEighBackward0"),
        (lambda a: dg.linalg.svd(a).S, "LinalgSvdBackward0"),
    ],
)
def test_grad_fn_names_match_pytorch(fn, name):
    assert type(fn(_a(3, 3)).grad_fn).__name__ == name


def test_results_are_namedtuples_with_pytorch_field_names():
    a = _a(3, 3)
    assert dg.linalg.slogdet(a)._fields == ("sign", "logabsdet")
    assert dg.linalg.qr(a)._fields == ("Q", "R")
    assert dg.linalg.eigh(a + a.mT)._fields == ("eigenvalues", "eigenvectors")
    assert dg.linalg.svd(a)._fields == ("U", "S", "Vh")
    assert not dg.linalg.slogdet(a).sign.requires_grad


def test_decompositions_reconstruct_their_input():
    a = _a(4, 3).detach()
    q, r = dg.linalg.qr(a)
    np.testing.assert_allclose((q @ r).numpy(), a.numpy(), atol=1e-12)
    u, s, vh = dg.linalg.svd(a, full_matrices=True)
    assert u.shape == (4, 4) and vh.shape == (3, 3)
    sym = (a @ a.mT + dg.eye(4, dtype=dg.float64))
    lam, v = dg.linalg.eigh(sym)
    np.testing.assert_allclose((v * lam.unsqueeze(-2) @ v.mT).numpy(), sym.numpy(), atol=1e-12)
    L = dg.linalg.cholesky(sym)
    np.testing.assert_allclose((L @ L.mT).numpy(), sym.numpy(), atol=1e-12)
    assert np.all(np.triu(L.numpy(), 1) == 0)


def test_det_gradient_at_a_singular_matrix_is_the_cofactor_matrix():
    a = dg.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=dg.float64, requires_grad=True)
    dg.linalg.det(a).backward()
    np.testing.assert_allclose(a.grad.numpy(), [[4.0, -2.0], [-2.0, 1.0]], atol=1e-12)
    assert gradcheck(dg.linalg.det, (a,))  # finite differences agree (PyTorch gives 0 here)


def test_eigenvalue_gradient_is_defined_for_repeated_eigenvalues():
    a = dg.eye(3, dtype=dg.float64).requires_grad_()
    dg.linalg.eigh(a).eigenvalues.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.eye(3), atol=1e-12)


def test_svd_values_gradient_is_defined_for_repeated_singular_values():
    a = dg.eye(3, dtype=dg.float64).requires_grad_()
    dg.linalg.svd(a).S.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.eye(3), atol=1e-12)


def test_svd_full_matrices_backward_refuses_gradients_on_the_extra_columns():
    a = _a(4, 2)
    u = dg.linalg.svd(a, full_matrices=True).U
    with pytest.raises(RuntimeError, match="full_matrices=False"):
        u.sum().backward()


def test_solve_and_inv_gradcheck_with_broadcast_batches():
    a = _a(2, 1, 3, 3)
    b = dg.tensor(np.random.default_rng(1).standard_normal((4, 3, 2)), requires_grad=True)
    assert gradcheck(lambda x, y: dg.linalg.solve(x, y), (a, b))
    assert gradgradcheck(lambda x: dg.linalg.inv(x) @ b.detach(), (a,))


# ----------------------------------------------------------------------------- errors
ERRORS = [
    (lambda: dg.linalg.inv(dg.tensor([[1.0, 2.0], [2.0, 4.0]])), RuntimeError, "singular"),
    (lambda: dg.linalg.inv(dg.ones(2, 3)), RuntimeError, "square matrices, but they are 2 by 3"),
    (lambda: dg.linalg.det(dg.ones(3)), RuntimeError, "at least 2 dimensions"),
    (lambda: dg.linalg.det(dg.ones(2, 2, dtype=dg.int64)), RuntimeError, "floating point"),
    (lambda: dg.linalg.solve(dg.eye(3), dg.ones(2, 2)), RuntimeError, r"Incompatible shapes.*\[3, 3\] and \[2, 2\]"),
    (lambda: dg.linalg.solve(dg.eye(3), dg.ones(3, dtype=dg.float64)), RuntimeError, "same dtype"),
    (lambda: dg.linalg.solve(dg.ones(2, 2), dg.ones(2, 1)), RuntimeError, "singular"),
    (lambda: dg.linalg.cholesky(-dg.eye(2)), RuntimeError, "positive-definite"),
    (lambda: dg.linalg.qr(dg.ones(3, 2), mode="complete"), RuntimeError, "reduced"),
    (lambda: dg.linalg.eigh(dg.eye(2), UPLO="X"), RuntimeError, "UPLO"),
    (lambda: dg.linalg.svd(dg.ones(3)), RuntimeError, "at least 2 dimensions"),
    (lambda: dg.linalg.matrix_norm(dg.ones(3, 3), 3), RuntimeError, "not supported"),
]


@pytest.mark.parametrize("fn,exc,words", ERRORS, ids=[f"{i}-{e[1].__name__}" for i, e in enumerate(ERRORS)])
def test_misuse_raises_pytorch_type_with_clear_message(fn, exc, words):
    with pytest.raises(exc, match=words):
        fn()

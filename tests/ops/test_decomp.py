"""dyngrad.linalg decompositions and matrix functions: inv, det, slogdet, logdet, solve,
cholesky, qr, eigh, svd, matrix norms. Table-driven (see tests/ops/harness.py) against golden
PyTorch 2.13 values; gradcheck and gradgradcheck in float64 (all decompositions here are
twice differentiable away from their singular points); errors.

Outputs that are only defined up to sign (eigenvectors, singular vectors) are compared
through sign-invariant functions of them (squares, reconstructions)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import dyngrad as dg
from dyngrad.autograd import gradcheck, gradgradcheck
from tests.ops.harness import (
    OpSpec,
    case_params,
    load_golden,
    run_backward_vs_golden,
    run_dtype_check,
    run_forward_vs_golden,
    run_gradcheck,
    run_gradgradcheck,
)

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "golden", "decomp.npz")


def _well_conditioned(rng, shapes):
    """Random matrices; square ones get ``+3 I`` so they are safely invertible."""
    out = []
    for s in shapes:
        a = rng.standard_normal(s)
        if len(s) >= 2 and s[-1] == s[-2]:
            a = a + 3 * np.eye(s[-1])
        out.append(a)
    return tuple(out)


def S(name: str, f, shapes, **kw) -> OpSpec:
    """A spec written once for both libraries: ``f(module, *inputs)``."""
    kw.setdefault("zero_dim", False)
    kw.setdefault("zero_size", False)
    kw.setdefault("int_result", None)
    kw.setdefault("make_inputs", _well_conditioned)
    kw.setdefault("rtol", 1e-8)
    kw.setdefault("atol", 1e-10)
    return OpSpec(name, lambda *a: f(dg, *a), lambda torch, *a: f(torch, *a), shapes=shapes, **kw)


def _spd(m, x):
    return x @ x.mT + m.eye(x.shape[-1], dtype=x.dtype)


def _sym(x):
    return x + x.mT


def _flat(m, *ts):
    return m.cat([t.reshape(-1) for t in ts])


def _qr(m, a):
    q, r = m.linalg.qr(a)
    return _flat(m, q, r)


def _eigh_vectors(m, x, uplo="L"):
    vals, vecs = m.linalg.eigh(_sym(x), UPLO=uplo)
    return _flat(m, vals, vecs * vecs)


def _svd_parts(m, a, full=False):
    u, s, vh = m.linalg.svd(a, full_matrices=full)
    return _flat(m, u * u, s, vh * vh)


def _svd_rebuild(m, a):
    u, s, vh = m.linalg.svd(a, full_matrices=False)
    return (u * s.unsqueeze(-2)) @ vh


SINGULAR = lambda rng, shapes: (np.array([[1.0, 2.0, 0.5], [2.0, 4.0, 1.0], [0.3, -1.0, 2.0]]),)  # noqa: E731

SPECS = [
    S("inv", lambda m, a: m.linalg.inv(a), ((3, 3),)),
    S("inv_batched", lambda m, a: m.linalg.inv(a), ((2, 3, 3),)),
    S("inverse", lambda m, a: m.inverse(a), ((2, 2),)),
    S("det", lambda m, a: m.linalg.det(a), ((3, 3),)),
    S("det_batched", lambda m, a: a.det(), ((2, 2, 3, 3),)),
    S("det_singular", lambda m, a: m.linalg.det(a), ((3, 3),), make_inputs=SINGULAR, twice_differentiable=False),
    S("slogdet_logabsdet", lambda m, a: m.linalg.slogdet(a).logabsdet, ((2, 3, 3),)),
    S("slogdet_sign", lambda m, a: m.linalg.slogdet(-a)[0], ((2, 3, 3),), differentiable=False),
    S("logdet", lambda m, a: m.logdet(a), ((3, 3),)),
    S("solve_matrix", lambda m, a, b: m.linalg.solve(a, b), ((3, 3), (3, 2))),
    S("solve_vector", lambda m, a, b: m.linalg.solve(a, b), ((3, 3), (3,))),
    S("solve_batched_vector", lambda m, a, b: m.linalg.solve(a, b), ((2, 3, 3), (2, 3))),
    S("solve_broadcast_batch", lambda m, a, b: m.linalg.solve(a, b), ((2, 3, 3), (3, 2))),
    S("solve_right", lambda m, a, b: m.linalg.solve(a, b, left=False), ((3, 3), (2, 3))),
    S("cholesky", lambda m, x: m.linalg.cholesky(_spd(m, x)), ((3, 3),)),
    S("cholesky_batched_upper", lambda m, x: m.linalg.cholesky(_spd(m, x), upper=True), ((2, 3, 3),)),
    S("qr_tall", _qr, ((4, 3),)),
    S("qr_square", _qr, ((3, 3),)),
    S("qr_wide", _qr, ((2, 4),)),
    S("qr_batched", _qr, ((2, 4, 2),)),
    S("eigh_values", lambda m, x: m.linalg.eigh(_sym(x)).eigenvalues, ((3, 3),)),
    S("eigh_vectors", _eigh_vectors, ((3, 3),)),
    S("eigh_upper_batched", lambda m, x: _eigh_vectors(m, x, "U"), ((2, 3, 3),)),
    S("eigvalsh", lambda m, x: m.linalg.eigvalsh(_sym(x)), ((4, 4),)),
    S("svd_values", lambda m, a: m.linalg.svd(a, full_matrices=False).S, ((4, 3),)),
    S("svd_tall", _svd_parts, ((4, 3),)),
    S("svd_wide", _svd_parts, ((3, 5),)),
    S("svd_batched", _svd_parts, ((2, 3, 3),)),
    S("svd_square_full_matrices", lambda m, a: _svd_parts(m, a, True), ((3, 3),)),
    S("svd_rebuild", _svd_rebuild, ((4, 3),)),
    S("svdvals", lambda m, a: m.linalg.svdvals(a), ((3, 5),)),
    S("matrix_norm_fro", lambda m, a: m.linalg.matrix_norm(a), ((2, 3, 4),)),
    S("matrix_norm_nuc", lambda m, a: m.linalg.matrix_norm(a, "nuc"), ((3, 4),)),
    S("matrix_norm_1", lambda m, a: m.linalg.matrix_norm(a, 1), ((3, 4),)),
    S("matrix_norm_inf_keepdim", lambda m, a: m.linalg.matrix_norm(a, float("inf"), keepdim=True), ((2, 3, 4),)),
    S("matrix_norm_neg1", lambda m, a: m.linalg.matrix_norm(a, -1), ((3, 4),)),
    S("matrix_norm_neg_inf", lambda m, a: m.linalg.matrix_norm(a, -float("inf")), ((2, 3, 4),)),
    S("matrix_norm_2", lambda m, a: m.linalg.matrix_norm(a, 2), ((3, 4),)),
    S("matrix_norm_neg2", lambda m, a: m.linalg.matrix_norm(a, -2), ((4, 3),)),
    S("linalg_norm_default", lambda m, a: m.linalg.norm(a), ((2, 3, 4),)),
    S("linalg_norm_matrix_ord", lambda m, a: m.linalg.norm(a, "fro", (0, 2)), ((2, 3, 4),)),
    S("linalg_vecdot", lambda m, a, b: m.linalg.vecdot(a, b, dim=1), ((2, 3, 4), (3, 1))),
    S("linalg_diagonal", lambda m, a: m.linalg.diagonal(a, offset=1), ((2, 3, 4),)),
    S("linalg_matmul", lambda m, a, b: m.linalg.matmul(a, b), ((2, 3, 4), (4, 2))),
    S("linalg_norm_vector_dim", lambda m, a: m.linalg.norm(a, 3, 1), ((2, 3, 4),)),
]
NAMES = {s.name: s for s in SPECS}
GRAD_SPECS = [s for s in SPECS if s.differentiable]
GRADGRAD_SPECS = [s for s in GRAD_SPECS if s.twice_differentiable]


@pytest.fixture(scope="module")
def golden():
    if not os.path.exists(GOLDEN):
        pytest.skip("golden file missing: run tests/golden/gen_decomp.py")
    return load_golden(GOLDEN)


@pytest.mark.parametrize("spec,case", case_params(SPECS))
def test_forward_matches_torch(spec, case, golden):
    run_forward_vs_golden(spec, golden, case)


# PyTorch 2.13 returns a zero gradient for det at an exactly singular matrix; dyngrad returns
# the cofactor matrix (the true derivative, checked by gradcheck and a test below).
NOT_TORCH_GRAD = {"det_singular"}
BACKWARD_SPECS = [s for s in SPECS if s.name not in NOT_TORCH_GRAD]


@pytest.mark.parametrize("spec,case", case_params(BACKWARD_SPECS))
def test_backward_matches_torch(spec, case, golden):
    run_backward_vs_golden(spec, golden, case)


@pytest.mark.parametrize("spec", GRAD_SPECS, ids=[s.name for s in GRAD_SPECS])
def test_gradcheck(spec):
    run_gradcheck(spec)


@pytest.mark.parametrize("spec", GRADGRAD_SPECS, ids=[s.name for s in GRADGRAD_SPECS])
def test_gradgradcheck(spec):
    run_gradgradcheck(spec)


@pytest.mark.parametrize("spec", GRAD_SPECS, ids=[s.name for s in GRAD_SPECS])
def test_float32_and_float64_results_keep_their_dtype(spec):
    run_dtype_check(spec)


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

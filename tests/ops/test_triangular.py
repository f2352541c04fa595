"""``linalg.solve_triangular`` (ops/triangular.py): golden values, gradients, forward mode
and vmap come from its op-db entries (tests/op_db/special_fns.py); these are the misuse
errors and the triangle-only reading."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad as dg


def _m(a):
    return dg.tensor(np.asarray(a, dtype=np.float64))


def test_only_the_named_triangle_of_a_is_read():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    B = rng.standard_normal((3, 2))
    for upper in (True, False):
        tri = np.triu(A) if upper else np.tril(A)
        x = dg.linalg.solve_triangular(_m(A), _m(B), upper=upper).numpy()
        np.testing.assert_allclose(tri @ x, B, atol=1e-12)
    unit = np.tril(A, -1) + np.eye(3)
    x = dg.linalg.solve_triangular(_m(A), _m(B), upper=False, unitriangular=True).numpy()
    np.testing.assert_allclose(unit @ x, B, atol=1e-12)


def test_gradient_of_a_is_zero_outside_its_triangle():
    A = _m(np.eye(3) * 2 + np.tril(np.ones((3, 3)), -1)).requires_grad_()
    dg.linalg.solve_triangular(A, _m(np.ones((3, 1))), upper=False).sum().backward()
    assert (np.triu(A.grad.numpy(), 1) == 0).all() and (np.tril(A.grad.numpy()) != 0).any()


@pytest.mark.parametrize("A,B,match", [
    (np.ones((2, 3)), np.ones((2, 1)), "A must be batches of square matrices"),
    (np.eye(3), np.ones(3), "at least 2 dimensions"),
    (np.eye(3), np.ones((2, 1)), "Incompatible shapes of A and B"),
])
def test_misuse_raises_runtime_error_with_pytorchs_wording(A, B, match):
    with pytest.raises(RuntimeError, match=match):
        dg.linalg.solve_triangular(_m(A), _m(B), upper=True)


def test_different_dtypes_raise():
    with pytest.raises(RuntimeError, match="same dtype"):
        dg.linalg.solve_triangular(_m(np.eye(2)), dg.ones(2, 1), upper=True)


def test_upper_is_a_required_keyword_as_in_pytorch():
    with pytest.raises(TypeError):
        dg.linalg.solve_triangular(_m(np.eye(2)), _m(np.ones((2, 1))))  # type: ignore[call-arg]

"""vmap of the decompositions beyond the op database's per-op vmap checks (tests/test_op_db.py
runs every entry of tests/op_db/, including the qr, eigh, svd and solve entries of
tests/op_db/vmap_decomp.py, with the batch dim first, last and only on the first input):
forward mode through the decompositions' jvp rules under vmap.

Batched and per-example decompositions call the same LAPACK routine on the same matrices,
so sign-ambiguous outputs (eigenvectors, singular vectors, Q) agree exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad as D
from dyngrad.func import vmap
from tests.func.vmap_checks import T, _fallbacks, _run_vmap


def test_nested_vmap_of_svdvals_and_solve_equals_a_double_loop() -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4, 3))
    got = vmap(vmap(D.linalg.svdvals))(T(a))
    want = np.stack([np.stack([np.linalg.svd(a[i, j], compute_uv=False) for j in range(3)]) for i in range(2)])
    np.testing.assert_allclose(got._data, want, rtol=1e-12)

    A = rng.standard_normal((2, 3, 3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((3, 2, 3))  # (vector, outer batch, inner batch): batch dims last
    got = vmap(vmap(D.linalg.solve, in_dims=(0, 1)), in_dims=(0, 1))(T(A), T(b))
    want = np.stack([np.stack([np.linalg.solve(A[i, j], b[:, i, j]) for j in range(3)]) for i in range(2)])
    np.testing.assert_allclose(got._data, want, rtol=1e-12)


def test_vmap_of_eigh_inside_jacrev_equals_per_example_jacobians() -> None:
    """Batching rule + reverse mode: the Jacobian of the eigenvalues of each example."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 3, 3))
    x = x + np.swapaxes(x, -1, -2)
    f = lambda a: D.linalg.eigvalsh((a + a.mT) * 0.5)  # noqa: E731
    got = vmap(D.func.jacrev(f))(T(x))
    want = np.stack([D.func.jacrev(f)(T(xi))._data for xi in x])
    np.testing.assert_allclose(got._data, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "fn,shape",
    [
        (lambda a: D.linalg.qr(a).Q, (4, 3)),
        (lambda a: D.linalg.eigh((a + a.mT) * 0.5).eigenvectors, (3, 3)),
        (lambda a: D.linalg.svd(a, full_matrices=False).U, (4, 3)),
    ],
    ids=["qr", "eigh", "svd"],
)
def test_vmap_of_forward_mode_through_the_jvp_rules_equals_a_loop(fn, shape) -> None:  # noqa: ANN001
    rng = np.random.default_rng(2)
    x, u = rng.standard_normal((3, *shape)), rng.standard_normal((3, *shape))
    tangent = lambda a, b: D.func.jvp(fn, (a,), (b,))[1]  # noqa: E731
    _, out, messages = _run_vmap(tangent, [x, u], (0, 0))
    assert not _fallbacks(messages), messages
    want = np.stack([tangent(T(x[i]), T(u[i]))._data for i in range(3)])
    np.testing.assert_allclose(out._data, want, rtol=1e-10, atol=1e-12)

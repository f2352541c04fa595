"""vmap of the decompositions that are not in the shared op table (tests/func/test_vmap_rules.py
has inverse, det, slogdet, cholesky and solve): qr, eigh, svd, and solve's broadcasting and
vector cases. Each entry runs with the batch dim first, last and only on the first input,
must equal a loop over the examples, must run through its Function's batching rule, and
its gradients through vmap must equal the per-example gradients.

Batched and per-example decompositions call the same LAPACK routine on the same matrices,
so sign-ambiguous outputs (eigenvectors, singular vectors, Q) agree exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad as D
from dyngrad.func import vmap
from tests.op_db.info import rows
from tests.op_db.vmap_decomp import VMAP_DECOMP
from tests.func.vmap_checks import T, _fallbacks, _run_vmap, check_gradients, check_values




TABLE = rows(VMAP_DECOMP)
WHERE = ["first", "last", "only_first"]


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("name,fn,shapes,domain,cls", TABLE, ids=[r[0] for r in TABLE])
def test_vmap_equals_a_loop_and_runs_the_ops_batching_rule(name, fn, shapes, domain, cls, where) -> None:  # noqa: ANN001
    check_values(name, fn, shapes, domain, cls, where)


@pytest.mark.parametrize("name,fn,shapes,domain,cls", TABLE, ids=[r[0] for r in TABLE])
def test_gradients_through_vmap_equal_gradients_through_a_loop(name, fn, shapes, domain, cls) -> None:  # noqa: ANN001
    check_gradients(name, fn, shapes, domain)


def test_nested_vmap_of_svdvals_and_solve_equals_a_double_loop() -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4, 3))
    got = vmap(vmap(D.linalg.svdvals))(T(a))
    want = np.stack([np.stack([np.linalg.svd(a[i, j], compute_uv=False) for j in range(3)]) for i in range(2)])
    np.testing.assert_allclose(got.data, want, rtol=1e-12)

    A = rng.standard_normal((2, 3, 3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((3, 2, 3))  # (vector, outer batch, inner batch): batch dims last
    got = vmap(vmap(D.linalg.solve, in_dims=(0, 1)), in_dims=(0, 1))(T(A), T(b))
    want = np.stack([np.stack([np.linalg.solve(A[i, j], b[:, i, j]) for j in range(3)]) for i in range(2)])
    np.testing.assert_allclose(got.data, want, rtol=1e-12)


def test_vmap_of_eigh_inside_jacrev_equals_per_example_jacobians() -> None:
    """Batching rule + reverse mode: the Jacobian of the eigenvalues of each example."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 3, 3))
    x = x + np.swapaxes(x, -1, -2)
    f = lambda a: D.linalg.eigvalsh((a + a.mT) * 0.5)  # noqa: E731
    got = vmap(D.func.jacrev(f))(T(x))
    want = np.stack([D.func.jacrev(f)(T(xi)).data for xi in x])
    np.testing.assert_allclose(got.data, want, rtol=1e-10, atol=1e-12)


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
    want = np.stack([tangent(T(x[i]), T(u[i])).data for i in range(3)])
    np.testing.assert_allclose(out.data, want, rtol=1e-10, atol=1e-12)

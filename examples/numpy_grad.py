"""Differentiate a plain NumPy function with ``dyngrad.func.grad``: arrays in, arrays out.

The function below never mentions dyngrad: ``grad`` passes it dyngrad Tensors, which share
the operators and array methods of ndarrays (``@``, ``**``, ``.sum()``, ``.T``) and answer
NumPy's own functions (``np.exp(x)``, ``np.sum(x)``, ``np.linalg.solve(A, x)``: NumPy's
protocols run dyngrad ops, docs/numpy.md), so ``grad`` traces it unchanged. A NumPy function
dyngrad does not cover raises a TypeError naming it instead of a silently wrong gradient.
Run: ``python examples/numpy_grad.py``.
"""

from __future__ import annotations

import numpy as np

from dyngrad.func import grad, hessian, jacrev


def least_squares(w: np.ndarray, A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """0.5 * ||A w - b||^2 + 0.1 * sum(w^4): plain NumPy."""
    r = A @ w - b
    return 0.5 * np.dot(r, r) + 0.1 * np.sum(w ** 4)


def main() -> None:
    rng = np.random.default_rng(1)
    A, b, w = rng.standard_normal((6, 3)), rng.standard_normal(6), rng.standard_normal(3)
    g = grad(least_squares)(w, A, b)
    exact = A.T @ (A @ w - b) + 0.4 * w ** 3
    print("grad (dyngrad):", g, type(g).__name__)
    print("grad (by hand):", exact)
    assert isinstance(g, np.ndarray) and np.allclose(g, exact)
    H = hessian(least_squares)(w, A, b)
    assert np.allclose(H, A.T @ A + np.diag(1.2 * w ** 2))
    J = jacrev(lambda w, A, b: A @ w - b)(w, A, b)  # arrays passed as arguments become Tensors
    assert np.allclose(J, A)
    eps = 1e-6
    fd = np.array([(least_squares(w + eps * e, A, b) - least_squares(w - eps * e, A, b)) / (2 * eps)
                   for e in np.eye(3)])
    print("max |grad - finite differences|:", float(np.abs(g - fd).max()))
    # gradient descent on the NumPy function
    for _ in range(300):
        w = w - 0.05 * grad(least_squares)(w, A, b)
    print("after 300 steps, |grad| =", float(np.linalg.norm(grad(least_squares)(w, A, b))))


if __name__ == "__main__":
    main()

"""Drive ``scipy.optimize.minimize`` with dyngrad derivatives of a plain NumPy objective.

The objective is written with ``import numpy as np`` only (NumPy's functions on dyngrad
Tensors run dyngrad ops, docs/numpy.md); ``dyngrad.func`` supplies its value and gradient
together (``jac=True``) and Hessian-vector products (``hessp``, forward over reverse).
SciPy is an optional extra (``pip install dyngrad[scipy]``); without it the example says so.
Run: ``python examples/scipy_optimize.py``.
"""

from __future__ import annotations

import numpy as np

from dyngrad.func import grad, grad_and_value, jvp


def objective(x: np.ndarray, A: np.ndarray) -> np.ndarray:
    """A Rosenbrock valley plus a soft log-sum-exp penalty of A x: plain NumPy."""
    rosen = np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
    z = A @ x
    m = np.max(z)
    return rosen + 0.01 * (m + np.log(np.sum(np.exp(z - m))))


def value_and_grad(x: np.ndarray, A: np.ndarray) -> tuple[float, np.ndarray]:
    g, v = grad_and_value(objective)(x, A)
    return float(v), g


def hessp(x: np.ndarray, p: np.ndarray, A: np.ndarray) -> np.ndarray:
    """H(x) p without forming H: the jvp of the gradient (forward over reverse)."""
    _, hp = jvp(lambda y: grad(objective)(y, A), (x,), (p,))
    return np.asarray(hp)


def main() -> None:
    try:
        from scipy.optimize import minimize
    except ImportError:
        print("SciPy is not installed (pip install dyngrad[scipy]); nothing to run.")
        return
    rng = np.random.default_rng(0)
    n = 6
    A = rng.standard_normal((4, n))
    x0 = np.full(n, -1.0)
    r1 = minimize(value_and_grad, x0, args=(A,), jac=True, method="BFGS")
    r2 = minimize(value_and_grad, x0, args=(A,), jac=True, hessp=hessp, method="trust-ncg")
    print(f"BFGS      (jac=True):        f = {r1.fun:.8f} in {r1.nit} iterations, |grad| = {np.linalg.norm(r1.jac):.1e}")
    print(f"trust-ncg (jac=True, hessp): f = {r2.fun:.8f} in {r2.nit} iterations, |grad| = {np.linalg.norm(r2.jac):.1e}")
    assert r1.success and r2.success and abs(r1.fun - r2.fun) < 1e-6
    # the Hessian-vector product matches finite differences of the gradient
    p, eps = rng.standard_normal(n), 1e-6
    fd = (value_and_grad(x0 + eps * p, A)[1] - value_and_grad(x0 - eps * p, A)[1]) / (2 * eps)
    assert np.allclose(hessp(x0, p, A), fd, rtol=1e-5, atol=1e-5)


if __name__ == "__main__":
    main()

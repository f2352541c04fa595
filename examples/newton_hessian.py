"""Fit a logistic-regression model with Newton's method, using the exact Hessian from
``dyngrad.autograd.functional.hessian``.

Newton's step solves ``H(w) d = -g(w)`` and moves ``w += d``; near the optimum it converges
quadratically (the gradient norm roughly squares each step), which this script prints.
Run: ``python examples/newton_hessian.py``.
"""

from __future__ import annotations

import numpy as np

import dyngrad
from dyngrad.autograd.functional import hessian


def main() -> None:
    rng = np.random.default_rng(0)
    n, d = 200, 3
    X = rng.standard_normal((n, d))
    w_true = np.array([1.5, -2.0, 0.5])
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-(X @ w_true)))).astype(np.float64)
    Xt, yt = dyngrad.tensor(X), dyngrad.tensor(y)

    def loss(w: dyngrad.Tensor) -> dyngrad.Tensor:
        """Mean logistic loss plus a small L2 penalty (so H is positive definite)."""
        z = Xt @ w
        nll = (dyngrad.log1p((-z).exp()) + (1 - yt) * z).mean()
        return nll + 1e-3 * (w * w).sum()

    w = dyngrad.zeros(d, dtype=dyngrad.float64)
    norms = []
    for step in range(8):
        wr = w.detach().requires_grad_()
        value = loss(wr)
        (g,) = dyngrad.autograd.grad(value, wr)
        H = hessian(loss, w)
        delta = np.linalg.solve(H.numpy(), -g.numpy())
        w = w + dyngrad.tensor(delta)
        norms.append(float(np.linalg.norm(g.numpy())))
        print(f"step {step}: loss {float(value):.8f}  |grad| {norms[-1]:.3e}")
        if norms[-1] < 1e-12:
            break
    print("fitted w:", np.round(w.numpy(), 4), " true w:", w_true)
    assert norms[-1] < 1e-8, "Newton's method did not converge"


if __name__ == "__main__":
    main()

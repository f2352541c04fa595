"""Issue 14's NumPy programs (tests/numpy_programs.py) differentiated by dyngrad through NumPy's
own functions, against PyTorch 2.13's torch.func on the same math written in torch: value,
gradient, Hessian and vmap of the gradient agree in float64. Skipped without torch."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dyngrad.func import grad, hessian, vmap
from tests.numpy_programs import PROGRAMS

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle
tf = torch.func


def _ndtr(x):  # noqa: ANN001, ANN202
    return 0.5 * torch.special.erfc(-x / math.sqrt(2.0))


def _ode(theta):  # noqa: ANN001, ANN202
    k, c = theta[0], theta[1]
    y = torch.stack([theta[2], theta[3]])
    h = 0.05

    def rhs(y):  # noqa: ANN001, ANN202
        return torch.stack([y[1], -k * y[0] - c * y[1]])

    for _ in range(40):
        k1 = rhs(y)
        k2 = rhs(y + h / 2 * k1)
        k3 = rhs(y + h / 2 * k2)
        k4 = rhs(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[0] ** 2 + 0.5 * y[1] ** 2


def _gauss(theta, X):  # noqa: ANN001, ANN202, N803
    n, d = X.shape
    A = theta[d:].reshape(d, d)
    S = A @ A.T + torch.eye(d, dtype=X.dtype)
    R = X - theta[:d]
    quad = (R * torch.linalg.solve(S, R.T).T).sum()
    return -0.5 * (n * torch.linalg.slogdet(S)[1] + quad + n * d * math.log(2 * math.pi))


def _softmax_ce(theta, X, labels):  # noqa: ANN001, ANN202, N803
    n, d = X.shape
    z = X @ theta.reshape(d, -1)
    z = z - z.amax(1, keepdim=True)
    return (torch.log(torch.exp(z).sum(1)) - z[torch.arange(n), labels]).mean()


def _rbf(theta, Wt):  # noqa: ANN001, ANN202, N803
    X = theta[:-1].reshape(Wt.shape[0], -1)
    ell = torch.exp(theta[-1])
    sq = (X ** 2).sum(1)
    D = sq[:, None] + sq[None, :] - 2 * X @ X.T
    return (torch.exp(-0.5 * D / ell ** 2) * Wt).sum()


def _tanh_net(theta, X, y):  # noqa: ANN001, ANN202, N803
    d, h = X.shape[1], 5
    pred = torch.tanh(X @ theta[: d * h].reshape(d, h) + theta[d * h: d * h + h]) @ theta[d * h + h:]
    return ((pred - y) ** 2).mean()


def _bs(p):  # noqa: ANN001, ANN202
    S, K, T, r, sigma = p[0], p[1], p[2], p[3], p[4]
    d1 = (torch.log(S / K) + (r + sigma ** 2 / 2) * T) / (sigma * torch.sqrt(T))
    d2 = d1 - sigma * torch.sqrt(T)
    return S * _ndtr(d1) - K * torch.exp(-r * T) * _ndtr(d2)


TORCH = {
    "least squares": lambda w, A, b: 0.5 * ((A @ w - b) ** 2).sum(),
    "logistic regression": lambda w, X, y: (torch.logaddexp(torch.zeros((), dtype=X.dtype), X @ w) - y * (X @ w)).mean() + 0.01 * torch.dot(w, w),
    "gaussian log-likelihood": _gauss,
    "softmax cross-entropy": _softmax_ce,
    "rbf kernel": _rbf,
    "rosenbrock": lambda x: (100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum(),
    "tanh net": _tanh_net,
    "black-scholes": _bs,
    "ode loop": _ode,
}


def _torch_args(x, data):  # noqa: ANN001, ANN202
    return torch.tensor(x), tuple(torch.tensor(d) for d in data)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_a_numpy_programs_gradient_and_hessian_through_dyngrad_equal_torch_func_on_the_same_math(name):
    f, x, data = PROGRAMS[name]
    tfn = TORCH[name]
    tx, tdata = _torch_args(x, data)
    np.testing.assert_allclose(f(x, *data), tfn(tx, *tdata).item(), rtol=1e-12)
    np.testing.assert_allclose(grad(f)(x, *data), tf.grad(tfn)(tx, *tdata).numpy(), rtol=1e-9, atol=1e-12)
    H = tf.hessian(tfn)(tx, *tdata).numpy()
    np.testing.assert_allclose(hessian(f)(x, *data), H, rtol=1e-8, atol=1e-10 * max(1.0, np.abs(H).max()))


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_vmap_of_a_numpy_programs_gradient_equals_torch_func_vmap(name):
    f, x, data = PROGRAMS[name]
    tfn = TORCH[name]
    xs = np.stack([x, x * 1.01 + 0.01])
    in_dims = (0,) + (None,) * len(data)
    ours = vmap(grad(f), in_dims=in_dims)(xs, *data)
    theirs = tf.vmap(tf.grad(tfn), in_dims=in_dims)(torch.tensor(xs), *_torch_args(x, data)[1])
    np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-9, atol=1e-12)

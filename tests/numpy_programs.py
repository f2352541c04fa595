"""Ordinary NumPy programs (issue 14's "Done when" collection), written with ``import numpy as
np`` only (Black-Scholes takes its normal CDF from ``dyngrad.scipy.special``, the one swap
SciPy's lack of a protocol asks for). Each is ``f(theta, *data) -> scalar`` with a 1-d
parameter vector; PROGRAMS lists them with data and a parameter point. The torch mirrors
(the same math, for the oracle tests) are in tests/oracle/test_numpy_programs_oracle.py."""

from __future__ import annotations

import numpy as np

from dyngrad.scipy.special import ndtr


def least_squares(w, A, b):  # noqa: ANN001, ANN201, N803
    r = A @ w - b
    return 0.5 * np.sum(r ** 2)


def logistic_regression(w, X, y):  # noqa: ANN001, ANN201, N803
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - y * z) + 0.01 * np.dot(w, w)


def gaussian_loglik(theta, X):  # noqa: ANN001, ANN201, N803
    n, d = X.shape
    mu = theta[:d]
    A = np.reshape(theta[d:], (d, d))
    S = A @ A.T + np.eye(d)
    sign, logdet = np.linalg.slogdet(S)
    R = X - mu
    quad = np.sum(R * np.linalg.solve(S, R.T).T)
    return -0.5 * (n * logdet + quad + n * d * np.log(2 * np.pi))


def softmax_cross_entropy(theta, X, labels):  # noqa: ANN001, ANN201, N803
    n, d = X.shape
    W = np.reshape(theta, (d, -1))
    z = X @ W
    z = z - np.max(z, axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(z), axis=1))
    return np.mean(lse - z[np.arange(n), labels])


def rbf_kernel(theta, Wt):  # noqa: ANN001, ANN201, N803
    n = Wt.shape[0]
    X = np.reshape(theta[:-1], (n, -1))
    ell = np.exp(theta[-1])
    sq = np.sum(X ** 2, axis=1)
    D = sq[:, None] + sq[None, :] - 2 * X @ X.T
    K = np.exp(-0.5 * D / ell ** 2)
    return np.sum(K * Wt)


def rosenbrock(x):  # noqa: ANN001, ANN201
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def tanh_net(theta, X, y):  # noqa: ANN001, ANN201, N803
    d, h = X.shape[1], 5
    W1 = np.reshape(theta[: d * h], (d, h))
    b1 = theta[d * h: d * h + h]
    w2 = theta[d * h + h:]
    pred = np.tanh(X @ W1 + b1) @ w2
    return np.mean((pred - y) ** 2)


def black_scholes(p):  # noqa: ANN001, ANN201
    S, K, T, r, sigma = p[0], p[1], p[2], p[3], p[4]
    d1 = (np.log(S / K) + (r + sigma ** 2 / 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return S * ndtr(d1) - K * np.exp(-r * T) * ndtr(d2)


def ode_oscillator(theta):  # noqa: ANN001, ANN201
    """A damped oscillator x'' = -k x - c x' by 40 RK4 steps of a Python loop."""
    k, c = theta[0], theta[1]
    y = np.stack([theta[2], theta[3]])
    h = 0.05

    def rhs(y):  # noqa: ANN001, ANN202
        return np.stack([y[1], -k * y[0] - c * y[1]])

    for _ in range(40):
        k1 = rhs(y)
        k2 = rhs(y + h / 2 * k1)
        k3 = rhs(y + h / 2 * k2)
        k4 = rhs(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[0] ** 2 + 0.5 * y[1] ** 2


_rng = np.random.default_rng(7)
_X = _rng.standard_normal((8, 3))
#: name -> (function, parameter point, data)
PROGRAMS = {
    "least squares": (least_squares, _rng.standard_normal(3), (_X, _rng.standard_normal(8))),
    "logistic regression": (logistic_regression, _rng.standard_normal(3), (_X, (_rng.random(8) > 0.5).astype(float))),
    "gaussian log-likelihood": (gaussian_loglik, 0.5 * _rng.standard_normal(3 + 9), (_X,)),
    "softmax cross-entropy": (softmax_cross_entropy, _rng.standard_normal(3 * 4), (_X, _rng.integers(0, 4, 8))),
    "rbf kernel": (rbf_kernel, np.concatenate([_rng.standard_normal(4 * 2), [0.1]]), (_rng.standard_normal((4, 4)),)),
    "rosenbrock": (rosenbrock, np.array([-1.2, 1.0, 0.8, 1.1]), ()),
    "tanh net": (tanh_net, 0.5 * _rng.standard_normal(3 * 5 + 5 + 5), (_X, _rng.standard_normal(8))),
    "black-scholes": (black_scholes, np.array([100.0, 95.0, 0.5, 0.03, 0.25]), ()),
    "ode loop": (ode_oscillator, np.array([4.0, 0.3, 1.0, 0.0]), ()),
}

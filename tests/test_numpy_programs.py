"""Issue 14's collection of ordinary NumPy programs (tests/numpy_programs.py), differentiated
unchanged: gradients, Hessians (reverse over reverse and forward over reverse) and vmap of the
gradient agree with finite differences of the NumPy function run on plain arrays."""

from __future__ import annotations

import numpy as np
import pytest

from dyngrad.func import grad, hessian, jacfwd, vmap
from tests.numpy_programs import PROGRAMS

NAMES = list(PROGRAMS)


def _fd_grad(f, x, data, eps=1e-6):  # noqa: ANN001, ANN202
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e, *data) - f(x - e, *data)) / (2 * eps)
    return g


@pytest.mark.parametrize("name", NAMES)
def test_the_numpy_program_runs_on_plain_arrays_to_a_number(name):
    f, x, data = PROGRAMS[name]
    v = f(x, *data)
    assert np.ndim(v) == 0 and np.isfinite(v) and not hasattr(v, "grad_fn")


@pytest.mark.parametrize("name", NAMES)
def test_the_gradient_of_a_numpy_program_equals_finite_differences(name):
    f, x, data = PROGRAMS[name]
    g = grad(f)(x, *data)
    assert type(g) is np.ndarray and g.dtype == np.float64
    np.testing.assert_allclose(g, _fd_grad(f, x, data), rtol=1e-6, atol=1e-6 * max(1.0, np.abs(g).max()))


@pytest.mark.parametrize("name", NAMES)
def test_the_hessian_of_a_numpy_program_equals_finite_differences_of_its_gradient(name):
    f, x, data = PROGRAMS[name]
    H = hessian(f)(x, *data)
    assert type(H) is np.ndarray and H.shape == (x.size, x.size)
    eps = 1e-5
    fd = np.stack([(grad(f)(x + eps * e, *data) - grad(f)(x - eps * e, *data)) / (2 * eps) for e in np.eye(x.size)])
    np.testing.assert_allclose(H, fd, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(H).max()))
    np.testing.assert_allclose(H, H.T, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(H).max()))
    Hf = jacfwd(grad(f))(x, *data)  # forward over reverse, through the same NumPy calls
    np.testing.assert_allclose(Hf, H, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(H).max()))


@pytest.mark.parametrize("name", NAMES)
def test_vmap_of_the_gradient_of_a_numpy_program_equals_the_gradients_one_by_one(name):
    f, x, data = PROGRAMS[name]
    xs = np.stack([x, x * 1.01 + 0.01, x * 0.98])
    gs = vmap(grad(f), in_dims=(0,) + (None,) * len(data))(xs, *data)
    assert type(gs) is np.ndarray and gs.shape == xs.shape
    for row, g in zip(xs, gs):
        np.testing.assert_allclose(g, _fd_grad(f, row, data), rtol=1e-6, atol=1e-6 * max(1.0, np.abs(g).max()))

"""Cumprod's forward-mode rule with zeros in the input, against finite differences.

``cumprod`` is smooth everywhere (each output is a product of entries), so a central
difference is accurate at any point, zeros included; the zeros are in ``x`` itself with a
non-zero tangent there, so a zero entry's own tangent (the ``u_z`` term) is exercised.
"""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from dyngrad.autograd import forward_ad as fwAD
from dyngrad.ops import statistics as _st

T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731


def _jvp(x: np.ndarray, u: np.ndarray, dim: int) -> np.ndarray:
    with fwAD.dual_level():
        out = dyngrad.cumprod(fwAD.make_dual(T(x), T(u)), dim)
        return fwAD.unpack_dual(out).tangent._data


def _fd(x: np.ndarray, u: np.ndarray, dim: int, h: float = 1e-5) -> np.ndarray:
    return (np.cumprod(x + h * u, axis=dim) - np.cumprod(x - h * u, axis=dim)) / (2 * h)


@pytest.mark.parametrize(
    "x",
    [
        [[1.5, 0.0, 2.0, -0.5]],  # one zero: the zero's tangent flows on
        [[0.0, 2.0, 0.0, 3.0]],  # two zeros: entries after the second have no tangent
        [[0.7, -1.2, 2.0, 0.0]],  # zero last
        [[0.0, 0.0, 1.0, 2.0]],  # adjacent zeros
        [[1.5, 2.0, -0.5, 3.0]],  # no zero
    ],
)
def test_cumprod_jvp_with_zeros_in_the_input_equals_finite_differences(x: list) -> None:
    x = np.array(x)
    u = np.random.default_rng(5).standard_normal(x.shape)
    np.testing.assert_allclose(_jvp(x, u, 1), _fd(x, u, 1), rtol=1e-7, atol=1e-9)


def test_cumprod_jvp_with_zeros_along_dim_0_of_a_3d_input_equals_finite_differences() -> None:
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 2, 3))
    x[1, 0, 0] = x[0, 1, 2] = x[2, 1, 2] = x[3, 0, 1] = 0.0
    u = rng.standard_normal(x.shape)
    np.testing.assert_allclose(_jvp(x, u, 0), _fd(x, u, 0), rtol=1e-7, atol=1e-9)


def test_cumprod_jvp_runs_the_explicit_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    rule = _st.Cumprod.jvp
    monkeypatch.setattr(_st.Cumprod, "jvp", staticmethod(lambda ctx, *t: calls.append(1) or rule(ctx, *t)))
    _jvp(np.array([1.0, 0.0, 2.0]), np.ones(3), 0)
    assert calls

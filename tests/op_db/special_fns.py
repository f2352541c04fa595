"""The special-function family of the op database: the gamma family (``lgamma``,
``digamma``, ``polygamma``, ``mvlgamma``), ``erfinv`` and the ``x log y`` terms (``xlogy``,
``special.xlog1py``, ``special.entr``). Golden values in tests/golden/special_fns.npz
(written by tests/golden/gen_special_fns.py); the entry type is tests/op_db/info.py.

Tolerances: PyTorch 2.13's trigamma (``polygamma(1, .)``, also the derivative of
``digamma``) has a relative error of up to ~1e-9 (a short asymptotic series,
ATen/native/Math.h calc_trigamma); dyngrad's is accurate to ~1e-15 (checked against mpmath
in tests/ops/test_special_fns.py), so those entries compare with ``rtol=1e-8``. Everything
else is compared at ``rtol=1e-13`` or tighter, except ``gammainc``/``gammaincc``: PyTorch's
differs from mpmath by up to 2e-9 for concentrations around 20-30 (dyngrad's by ~1e-15).
"""

from __future__ import annotations

import os

import numpy as np

import dyngrad as dg
from tests.op_db.info import OpInfo as OpSpec
from tests.op_db.info import update

GOLDEN_PATH = os.path.join(os.path.dirname(__file__), "..", "golden", "special_fns.npz")


def _negative_non_integer(rng, shapes):
    """Values in (-4, 0) at least 0.1 away from the poles 0, -1, -2, -3, -4."""
    return (-rng.integers(0, 4, size=shapes[0]) - rng.uniform(0.1, 0.9, size=shapes[0]),)


def _wide_positive(rng, shapes):
    """Log-uniform values in [1e-3, 1e6]."""
    return (10.0 ** rng.uniform(-3, 6, size=shapes[0]),)


def _zeros_in_x(rng, shapes):
    """x with exact zeros planted, y positive."""
    x = rng.uniform(-2, 2, size=shapes[0])
    x.reshape(-1)[::2] = 0.0
    return x, rng.uniform(0.1, 3.0, size=shapes[1])


def _tail(rng, shapes):
    """|y| in [0.99, 1 - 1e-12] with both signs: the tail of erfinv."""
    y = 1 - 10.0 ** rng.uniform(-12, -2, size=shapes[0])
    return (y * rng.choice([-1.0, 1.0], size=shapes[0]),)


_TRIGAMMA = 1e-8  # PyTorch's trigamma error (module docstring)
_BIG = "float64 derivatives of values in the millions: central differences are not meaningful"

SPECS = [
    OpSpec("lgamma", dg.lgamma, domain=(0.1, 6.0), rtol=_TRIGAMMA, atol=1e-14),
    OpSpec("lgamma_negative", dg.lgamma, "lgamma", make_inputs=_negative_non_integer, rtol=1e-13, atol=1e-14,
           int_result=None),
    OpSpec("lgamma_wide", dg.lgamma, "lgamma", make_inputs=_wide_positive, rtol=1e-13, atol=1e-14,
           check_grad=False, int_result=None),
    OpSpec("digamma", dg.digamma, domain=(0.1, 6.0), rtol=_TRIGAMMA, atol=1e-14),
    OpSpec("digamma_negative", dg.digamma, "digamma", make_inputs=_negative_non_integer, rtol=_TRIGAMMA,
           atol=1e-12, int_result=None),
    OpSpec("digamma_wide", dg.digamma, "digamma", make_inputs=_wide_positive, rtol=_TRIGAMMA, atol=1e-14,
           check_grad=False, int_result=None),
    OpSpec("polygamma_1", lambda x: dg.polygamma(1, x), lambda torch, x: torch.polygamma(1, x),
           domain=(0.2, 6.0), rtol=_TRIGAMMA, atol=1e-12),
    OpSpec("polygamma_2", lambda x: dg.polygamma(2, x), lambda torch, x: torch.polygamma(2, x),
           domain=(0.2, 6.0), rtol=1e-13, atol=1e-13),
    OpSpec("polygamma_3_negative", lambda x: dg.polygamma(3, x), lambda torch, x: torch.polygamma(3, x),
           make_inputs=_negative_non_integer, rtol=1e-12, atol=1e-12, grad_rtol=1e-3, int_result=None,
           skips={"gradgradcheck": _BIG}),
    OpSpec("mvlgamma_p3", lambda x: dg.mvlgamma(x, 3), lambda torch, x: torch.mvlgamma(x, 3),
           domain=(1.1, 6.0), rtol=_TRIGAMMA, atol=1e-13, int_result=None),
    OpSpec("erfinv", dg.erfinv, domain=(-0.95, 0.95), rtol=1e-14, atol=1e-15, int_result=None),
    OpSpec("erfinv_tail", dg.erfinv, "erfinv", make_inputs=_tail, rtol=1e-13, atol=0.0, check_grad=False,
           int_result=None, compare_float32=False),
    OpSpec("xlogy", dg.xlogy, shapes=((2, 3), (2, 3)), domain=[(-2.0, 2.0), (0.1, 3.0)],
           broadcast=[((2, 3), (3,)), ((), (2, 3)), ((2, 1), (1, 3))], rtol=1e-14, atol=1e-15, int_result=None),
    OpSpec("xlogy_zero_x", dg.xlogy, "xlogy", shapes=((2, 4), (2, 4)), make_inputs=_zeros_in_x,
           check_grad=False, rtol=1e-14, atol=1e-15, int_result=None, zero_dim=False, zero_size=False),
    OpSpec("xlog1py", dg.special.xlog1py, "special.xlog1py", shapes=((2, 3), (2, 3)),
           domain=[(-2.0, 2.0), (-0.9, 3.0)], broadcast=[((2, 3), (3,))], rtol=1e-14, atol=1e-15,
           int_result=None),
    OpSpec("entr", dg.special.entr, "special.entr", domain=(0.05, 3.0), rtol=1e-14, atol=1e-15),
]


# ---------------------------------------------------------------- linalg.solve_triangular
# (added with the distributions, which need it for MultivariateNormal; same golden file)
def _triangular_inputs(rng, shapes):
    """A well-conditioned square A (the other triangle full of noise, which must be ignored)
    and a right-hand side B."""
    a = rng.standard_normal(shapes[0]) + 3 * np.eye(shapes[0][-1])
    return a, rng.standard_normal(shapes[1])


def _tri(upper, left=True, unit=False):
    def f(m, a, b):
        return m.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit)

    return dict(fn=lambda a, b: f(dg, a, b), torch_fn=lambda torch, a, b: f(torch, a, b))


_TRI = dict(make_inputs=_triangular_inputs, rtol=1e-12, atol=1e-13, zero_dim=False, zero_size=False, int_result=None)
SPECS += [
    OpSpec("solve_triangular_lower", shapes=((3, 3), (3, 2)), broadcast=[((2, 3, 3), (3, 2)), ((3, 3), (2, 3, 4))],
           **_tri(False), **_TRI),
    OpSpec("solve_triangular_upper_unit", shapes=((2, 4, 4), (2, 4, 1)), **_tri(True, unit=True), **_TRI),
    OpSpec("solve_triangular_right", shapes=((3, 3), (2, 3)), skips={"node_name": "left=False is a transposed solve: "
           "the outermost node is TransposeBackward0, PyTorch has one LinalgSolveTriangularBackward0"},
           **_tri(True, left=False), **_TRI),
]


# ---------------------------------------------------------------- incomplete gamma
# differentiable in x only (as PyTorch), so the concentration is a constant of the entry
_A = np.array([0.3, 2.5, 24.0])


def _igamma(upper):
    def f(m, x):
        a = m.tensor(_A, dtype=x.dtype)
        return (m.special.gammaincc if upper else m.special.gammainc)(a, x)

    return dict(fn=lambda x: f(dg, x), torch_fn=lambda torch, x: f(torch, x))


SPECS += [
    OpSpec("gammainc", shapes=((2, 3),), domain=(0.05, 30.0), rtol=5e-9, atol=1e-14, zero_dim=False, int_result=None,
           **_igamma(False)),
    OpSpec("gammaincc", shapes=((2, 3),), domain=(0.05, 30.0), rtol=5e-9, atol=1e-14, zero_dim=False, int_result=None,
           **_igamma(True)),
]


update(SPECS, tuple(s.name for s in SPECS if s.name.startswith("mvlgamma")),
        vmap_fallback="mvlgamma checks its domain (every element > (p - 1) / 2) by reading the values, as "
        "PyTorch's raises for them: under vmap that check runs per example")

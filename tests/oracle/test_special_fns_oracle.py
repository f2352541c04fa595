"""Live comparison of the special functions with PyTorch 2.13 over wide ranges (float64),
including the poles and edges (0, negative integers, +-1 for erfinv, +-inf, nan). Skipped
when torch is not installed."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad as dg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

_RNG = np.random.default_rng(20261202)
EDGES = np.array([-3.0, -2.0, -1.0, -0.0, 0.0, 1.0, 2.0, 10.0, 1e17, np.inf, -np.inf, np.nan, -1.5, -0.5, 1e-300])
WIDE = np.concatenate([_RNG.uniform(-50, 50, 4000), _RNG.uniform(-3, 3, 4000), 10 ** _RNG.uniform(-300, 300, 1000),
                       -(10 ** _RNG.uniform(-10, 15, 1000)), EDGES])
UNIT = np.concatenate([_RNG.uniform(-1, 1, 4000), 1 - 10 ** _RNG.uniform(-16, 0, 1000), 10 ** _RNG.uniform(-300, 0, 500),
                       np.array([-1.0, 1.0, 0.0, -0.0, 1.5, -1.5, np.nan, np.inf])])


def _assert_close(ours: np.ndarray, theirs: np.ndarray, rtol: float, atol: float = 1e-300) -> None:
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    inf = np.isinf(theirs)
    np.testing.assert_array_equal(ours[inf], theirs[inf])
    m = ~np.isnan(theirs) & ~inf
    np.testing.assert_allclose(ours[m], theirs[m], rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", ["lgamma", "digamma"])
def test_gamma_functions_match_pytorch_to_1e_14_over_a_wide_range_with_edges(name):
    ours = getattr(dg, name)(dg.tensor(WIDE, dtype=dg.float64)).numpy()
    theirs = getattr(torch, name)(torch.from_numpy(WIDE)).numpy()
    # absolute: near the functions' zeros (lgamma at x = -2.457..., 1, 2; digamma at 1.4616...)
    # the result is a difference of O(1) terms, so a few ulps of 1 (NumPy's libm differs by
    # one ulp between versions) is what either library can promise there
    _assert_close(ours, theirs, 1e-14, atol=1e-15)


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_polygamma_of_order_two_and_up_matches_pytorch_off_the_poles(n):
    x = WIDE[(WIDE > -30) & (WIDE < 1e10) & (WIDE != np.trunc(WIDE))]
    _assert_close(dg.polygamma(n, dg.tensor(x, dtype=dg.float64)).numpy(),
                  torch.polygamma(n, torch.from_numpy(x)).numpy(), 1e-13)


def test_trigamma_matches_pytorch_to_its_series_accuracy_off_the_poles():
    x = WIDE[(WIDE > -30) & (WIDE < 1e10) & (WIDE != np.trunc(WIDE))]
    _assert_close(dg.polygamma(1, dg.tensor(x, dtype=dg.float64)).numpy(),
                  torch.polygamma(1, torch.from_numpy(x)).numpy(), 2e-9)


def test_erfinv_matches_pytorch_to_1e_14_on_minus_one_to_one_and_outside():
    _assert_close(dg.erfinv(dg.tensor(UNIT, dtype=dg.float64)).numpy(), torch.erfinv(torch.from_numpy(UNIT)).numpy(), 1e-14)


def test_xlogy_family_matches_pytorch_with_zeros_nans_and_negative_y():
    x = np.array([0.0, 0.0, 0.0, 0.0, 1.0, 2.0, -1.5, 0.0])
    y = np.array([0.0, np.nan, -1.0, 2.0, 0.0, -1.0, 3.0, np.inf])
    for ours_fn, theirs_fn in ((dg.xlogy, torch.xlogy), (dg.special.xlog1py, torch.special.xlog1py)):
        a = [dg.tensor(v, dtype=dg.float64, requires_grad=True) for v in (x, y)]
        b = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (x, y)]
        o, t = ours_fn(*a), theirs_fn(*b)
        _assert_close(o.detach().numpy(), t.detach().numpy(), 1e-15)
        o.sum().backward()
        t.sum().backward()
        for p, q in zip(a, b):
            _assert_close(p.grad.numpy(), q.grad.numpy(), 1e-15)

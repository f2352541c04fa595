"""Live comparison of dyngrad.distributions with PyTorch 2.13's torch.distributions: the
cases of tests/distributions/cases.py (values and parameter gradients of log_prob, cdf,
icdf, entropy, moments; every KL pair) plus validation errors raised by both. Skipped when
torch is not installed."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from tests.distributions.cases import CASES, KL_CASES, KL_GRAD_RTOL, evaluate, evaluate_kl

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def _same(ours: dict, theirs: dict, rtol: float, grad_rtol: float, what: str) -> None:
    assert set(ours) == set(theirs), what
    for k, want in theirs.items():
        tol = grad_rtol if "|grad|" in k else rtol
        np.testing.assert_allclose(ours[k], want, rtol=tol, atol=1e-13 if tol <= 1e-10 else 1e-9, equal_nan=True,
                                   err_msg=f"{what} {k}")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_distribution_matches_live_pytorch(case):
    _same(evaluate(dyngrad, case), evaluate(torch, case), case.rtol, max(case.rtol, case.grad_rtol), case.name)


@pytest.mark.parametrize("case", KL_CASES, ids=lambda c: c[0])
def test_kl_matches_live_pytorch(case):
    _same(evaluate_kl(dyngrad, case), evaluate_kl(torch, case), 1e-12, KL_GRAD_RTOL.get(case[0], 1e-12), case[0])


def test_gamma_implicit_gradient_matches_pytorch_over_a_wide_range_of_concentrations():
    from dyngrad.distributions._standard_gamma import standard_gamma_grad

    rng = np.random.default_rng(3)
    alpha = np.repeat(10 ** np.linspace(-1.5, 3, 25), 8)
    x = rng.standard_gamma(alpha)
    want = torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x)).numpy()
    np.testing.assert_allclose(standard_gamma_grad(alpha, x), want, rtol=3e-4, atol=1e-12)

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


def _tril2(m, p):
    return m.stack([m.stack([p[2].exp(), p[0] * 0]), m.stack([p[1], p[2].exp()])])


HESSIAN_CASES = [
    ("normal", lambda m, D, p: D.Normal(p[0], p[1].exp()).log_prob(m.tensor([0.5, -1.0], dtype=m.float64)).sum()),
    ("gamma", lambda m, D, p: D.Gamma(p[0].exp(), p[1].exp()).log_prob(m.tensor([0.5, 2.0], dtype=m.float64)).sum()
     + D.Gamma(p[0].exp(), p[1].exp()).entropy()),
    ("beta", lambda m, D, p: D.Beta(p[0].exp(), p[1].exp()).log_prob(m.tensor([0.3], dtype=m.float64)).sum()),
    ("mvn_tril", lambda m, D, p: D.MultivariateNormal(p[:2], scale_tril=_tril2(m, p)).log_prob(
        m.tensor([0.5, -1.0], dtype=m.float64))),
    ("kl_dirichlet", lambda m, D, p: D.kl_divergence(D.Dirichlet(p.exp()), D.Dirichlet(m.ones(3, dtype=m.float64)))),
    ("categorical", lambda m, D, p: D.Categorical(logits=p).log_prob(m.tensor([1, 2])).sum() + D.Categorical(logits=p).entropy()),
    ("tanh_normal", lambda m, D, p: D.TransformedDistribution(D.Normal(p[0], p[1].exp()), [D.transforms.TanhTransform()])
     .log_prob(m.tensor([0.3], dtype=m.float64)).sum()),
    ("lowrank", lambda m, D, p: D.LowRankMultivariateNormal(p[:2] * 0, p[:2].reshape(2, 1), p[1:].exp()).log_prob(
        m.tensor([0.5, -1.0], dtype=m.float64))),
]


@pytest.mark.parametrize("name,f", HESSIAN_CASES, ids=[c[0] for c in HESSIAN_CASES])
def test_hessian_and_forward_mode_jacobian_of_distribution_quantities_match_pytorch(name, f):
    x0 = np.array([0.3, 1.2, 2.0])
    res = []
    for m in (dyngrad, torch):
        x = m.tensor(x0, dtype=m.float64)
        h = m.autograd.functional.hessian(lambda v, m=m: f(m, m.distributions, v), x)
        j = m.func.jacfwd(lambda v, m=m: f(m, m.distributions, v))(x)
        res.append((h.detach().numpy(), j.detach().numpy()))
    # 1e-8: PyTorch's trigamma / polygamma error (tests/op_db/special_fns.py)
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-8, atol=1e-8)

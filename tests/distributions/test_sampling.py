"""Samples: shapes (``sample_shape + batch_shape + event_shape``), empirical moments within
Monte-Carlo error of ``mean`` / ``variance`` (fixed seed), support, reproducibility with
``manual_seed``, and the reparameterisation test: the pathwise gradient of ``E[f(x)]``
(``rsample``) agrees with the score-function estimate (``f(x) * grad log_prob(x)``) and
with the exact gradient where one is known."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad as dg
from dyngrad import distributions as D


def _t(*v):
    return dg.tensor(np.array(v, dtype=np.float64))


MOMENT_CASES = [
    ("normal", lambda: D.Normal(_t(0.5, -1.0), _t(1.5, 0.3))),
    ("laplace", lambda: D.Laplace(_t(0.5, -1.0), _t(1.5, 0.3))),
    ("uniform", lambda: D.Uniform(_t(-1.0, 2.0), _t(3.0, 2.5))),
    ("exponential", lambda: D.Exponential(_t(0.5, 4.0))),
    ("gamma", lambda: D.Gamma(_t(0.3, 5.0), _t(2.0, 0.5))),
    ("beta", lambda: D.Beta(_t(0.5, 4.0), _t(2.0, 1.5))),
    ("dirichlet", lambda: D.Dirichlet(_t(0.5, 1.0, 3.0))),
    ("bernoulli", lambda: D.Bernoulli(probs=_t(0.1, 0.8))),
    ("poisson", lambda: D.Poisson(_t(0.7, 12.0))),
    ("binomial", lambda: D.Binomial(10, probs=_t(0.3, 0.9))),
    ("onehot", lambda: D.OneHotCategorical(probs=_t(0.2, 0.5, 0.3))),
    ("mvn", lambda: D.MultivariateNormal(_t(1.0, -1.0), covariance_matrix=dg.tensor([[2.0, 0.6], [0.6, 1.0]],
                                                                                      dtype=dg.float64))),
    ("independent", lambda: D.Independent(D.Normal(_t(0.5, -1.0), _t(1.5, 0.3)), 1)),
    ("lowrank_mvn", lambda: D.LowRankMultivariateNormal(_t(1.0, -1.0, 0.0), dg.tensor([[1.0], [0.5], [-0.3]],
                                                                                       dtype=dg.float64), _t(0.5, 1.0, 0.2))),
    ("chi2", lambda: D.Chi2(_t(0.7, 6.0))),
    ("student_t", lambda: D.StudentT(_t(9.0, 30.0), _t(0.5, -1.0), _t(1.5, 0.3))),
    ("lognormal", lambda: D.LogNormal(_t(0.1, -1.0), _t(0.4, 0.2))),
    ("gumbel", lambda: D.Gumbel(_t(0.5, -1.0), _t(1.5, 0.3))),
]
N = 40_000


@pytest.mark.parametrize("name,make", MOMENT_CASES, ids=[c[0] for c in MOMENT_CASES])
def test_sample_moments_match_mean_and_variance_within_monte_carlo_error(name, make):
    dg.manual_seed(0)
    d = make()
    x = d.sample((N,)).numpy().astype(np.float64)
    assert x.shape == (N,) + d.batch_shape + d.event_shape
    assert bool(np.all(d.support.check(dg.tensor(x)).numpy()))
    mean, var = d.mean.detach().numpy(), d.variance.detach().numpy()
    se = np.sqrt(var / N)
    assert np.all(np.abs(x.mean(0) - mean) < 5 * se + 1e-12), (x.mean(0), mean)
    # the sample variance's standard error is about var * sqrt(2 / N) (more for heavy tails)
    assert np.all(np.abs(x.var(0) - var) < 0.05 * var + 1e-12), (x.var(0), var)


def test_categorical_sample_frequencies_match_probs():
    dg.manual_seed(1)
    p = np.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]])
    x = D.Categorical(probs=dg.tensor(p)).sample((N,)).numpy()
    assert x.shape == (N, 2) and x.dtype == np.int64
    freq = np.stack([(x == k).mean(0) for k in range(3)], -1)
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / N))


def test_manual_seed_makes_samples_reproducible():
    d = D.Normal(_t(0.0), _t(1.0))
    dg.manual_seed(3)
    a = d.sample((5,)).numpy()
    dg.manual_seed(3)
    assert np.array_equal(a, d.sample((5,)).numpy())


@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
def test_sample_shape_prefixes_batch_and_event_shape(shape):
    d = D.MultivariateNormal(dg.zeros(5, 2, dtype=dg.float64), scale_tril=dg.eye(2, dtype=dg.float64))
    assert d.sample(shape).shape == shape + (5, 2)
    assert d.rsample(shape).shape == shape + (5, 2)
    assert d.log_prob(d.sample(shape)).shape == shape + (5,)


def test_sample_is_detached_and_rsample_carries_the_graph():
    loc = _t(0.5).requires_grad_()
    d = D.Normal(loc, _t(1.0))
    assert not d.sample().requires_grad
    assert d.rsample().requires_grad


# ------------------------------------------------------------------ reparameterisation
def _f(x):
    return (x - 0.3) ** 2 + x.sin()


REPARAM_CASES = [
    ("normal", lambda p: D.Normal(p[0], p[1]), (0.4, 1.3)),
    ("laplace", lambda p: D.Laplace(p[0], p[1]), (0.4, 0.8)),
    ("exponential", lambda p: D.Exponential(p[0]), (1.7,)),
    ("gamma", lambda p: D.Gamma(p[0], p[1]), (2.5, 1.5)),
    ("gamma_small_concentration", lambda p: D.Gamma(p[0], p[1]), (0.6, 1.0)),
    ("beta", lambda p: D.Beta(p[0], p[1]), (2.0, 3.0)),
    ("gumbel", lambda p: D.Gumbel(p[0], p[1]), (0.2, 0.7)),
    ("student_t", lambda p: D.StudentT(p[0], p[1], p[2]), (6.0, 0.2, 0.7)),
]


@pytest.mark.parametrize("name,make,values", REPARAM_CASES, ids=[c[0] for c in REPARAM_CASES])
def test_pathwise_gradient_agrees_with_the_score_function_estimate(name, make, values):
    # (Uniform is left out: its support moves with its parameters, so the score function
    # estimator misses the boundary term; its pathwise gradient is checked exactly below.)
    n = 60_000
    dg.manual_seed(11)
    params = [dg.tensor(v, dtype=dg.float64, requires_grad=True) for v in values]
    d = make(params)
    assert d.has_rsample
    x = d.rsample((n,))
    fx = _f(x)
    path = [g.item() for g in dg.autograd.grad(fx.mean(), params)]
    # score function: grad E[f] = E[f(x) grad log p(x)] with x held fixed (a baseline cuts the variance)
    xs = d.sample((n,))
    fs = _f(xs).detach()
    per_sample = dg.autograd.grad((d.log_prob(xs) * (fs - fs.mean())).sum(), params)
    score = [g.item() / n for g in per_sample]
    for k, (a, b) in enumerate(zip(path, score)):
        assert abs(a - b) < 0.05 * max(1.0, abs(b)), f"{name} param {k}: pathwise {a}, score function {b}"


def test_pathwise_gradient_of_the_normal_mean_is_exact_in_expectation():
    # E[x^2] = loc^2 + scale^2: d/dloc = 2 loc, d/dscale = 2 scale
    dg.manual_seed(5)
    loc, scale = _t(0.7).requires_grad_(), _t(1.2).requires_grad_()
    x = D.Normal(loc, scale).rsample((200_000,))
    gl, gs = dg.autograd.grad((x**2).mean(), [loc, scale])
    assert abs(gl.item() - 1.4) < 0.02 and abs(gs.item() - 2.4) < 0.03


def test_uniform_pathwise_gradient_is_exact_in_expectation():
    # E[x^2] = (low^2 + low high + high^2) / 3
    dg.manual_seed(4)
    lo, hi = _t(-0.5).requires_grad_(), _t(1.5).requires_grad_()
    x = D.Uniform(lo, hi).rsample((200_000,))
    gl, gh = dg.autograd.grad((x**2).mean(), [lo, hi])
    assert abs(gl.item() - (2 * -0.5 + 1.5) / 3) < 0.01 and abs(gh.item() - (-0.5 + 2 * 1.5) / 3) < 0.01


def test_gamma_pathwise_gradient_of_the_mean_is_one_over_rate():
    # E[x] = c / rate, so d/dc E[x] = 1 / rate: the implicit gradient averaged over samples
    dg.manual_seed(6)
    c, r = _t(0.8).requires_grad_(), _t(2.0).requires_grad_()
    x = D.Gamma(c, r).rsample((100_000,))
    gc, gr = dg.autograd.grad(x.mean(), [c, r])
    assert abs(gc.item() - 0.5) < 0.01 and abs(gr.item() + 0.2) < 0.005


def test_dirichlet_pathwise_gradient_of_the_mean_matches_the_exact_one():
    dg.manual_seed(7)
    a = _t(0.7, 1.5, 3.0).requires_grad_()
    x = D.Dirichlet(a).rsample((30_000,))
    (g,) = dg.autograd.grad(x[:, 0].mean(), [a])
    s = 5.2  # E[x0] = a0 / sum(a): gradient (s - a0) / s^2, -a0 / s^2, -a0 / s^2
    exact = np.array([(s - 0.7) / s**2, -0.7 / s**2, -0.7 / s**2])
    assert np.all(np.abs(g.numpy() - exact) < 0.012), (g.numpy(), exact)


def test_mvn_rsample_gradient_flows_to_loc_and_scale_tril():
    L = dg.tensor([[1.0, 0.0], [0.5, 2.0]], dtype=dg.float64, requires_grad=True)
    loc = _t(0.1, 0.2).requires_grad_()
    dg.manual_seed(8)
    x = D.MultivariateNormal(loc, scale_tril=L).rsample((100_000,))
    gl, gL = dg.autograd.grad((x**2).sum(-1).mean(), [loc, L])  # E = |loc|^2 + ||L||_F^2
    assert np.allclose(gl.numpy(), [0.2, 0.4], atol=0.03)
    assert np.allclose(np.tril(gL.numpy()), 2 * np.tril(L.detach().numpy()), atol=0.05)


def test_gamma_rsample_is_not_twice_differentiable_and_says_so():
    c = _t(2.0).requires_grad_()
    x = D.Gamma(c, _t(1.0)).rsample()
    (g,) = dg.autograd.grad(x.sum(), [c], create_graph=True)
    with pytest.raises(RuntimeError):
        dg.autograd.grad(g.sum(), [c])


def test_relaxed_one_hot_samples_lie_on_the_simplex_and_harden_to_the_categorical_at_low_temperature():
    dg.manual_seed(9)
    p = np.array([0.2, 0.5, 0.3])
    d = D.RelaxedOneHotCategorical(dg.tensor(0.05, dtype=dg.float64), probs=dg.tensor(p))
    x = d.rsample((20_000,)).numpy()
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-12)
    freq = np.bincount(x.argmax(-1), minlength=3) / len(x)  # argmax of a Gumbel-softmax is categorical
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / len(x)))


def test_relaxed_bernoulli_rsample_is_differentiable_in_the_logits():
    logits = _t(0.3, -1.0).requires_grad_()
    dg.manual_seed(10)
    x = D.RelaxedBernoulli(dg.tensor(0.5, dtype=dg.float64), logits=logits).rsample((1000,))
    assert ((x.detach().numpy() > 0) & (x.detach().numpy() < 1)).all()
    (g,) = dg.autograd.grad(x.mean(), [logits])
    assert (g.numpy() > 0).all()  # larger logits push the relaxed sample up

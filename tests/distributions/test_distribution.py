"""The Distribution API: batch and event shapes, ``expand``, lazy ``probs``/``logits``,
``enumerate_support``, dtypes of number parameters, ``stddev``/``perplexity``, repr,
``register_kl`` dispatch on subclasses, constraints, and transforms (inverse, cache,
``log_abs_det_jacobian`` against autograd)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dyngrad as dg
from dyngrad import distributions as D
from dyngrad.distributions import constraints
from dyngrad.distributions import transforms as T


def _t(*v):
    return dg.tensor(np.array(v, dtype=np.float64))


SHAPES = [
    ("normal_numbers", lambda: D.Normal(0.0, 1.0), (), ()),
    ("normal_broadcast", lambda: D.Normal(dg.zeros(2, 1), dg.ones(3)), (2, 3), ()),
    ("categorical", lambda: D.Categorical(logits=dg.zeros(4, 5)), (4,), ()),
    ("onehot", lambda: D.OneHotCategorical(logits=dg.zeros(4, 5)), (4,), (5,)),
    ("dirichlet", lambda: D.Dirichlet(dg.ones(2, 3)), (2,), (3,)),
    ("mvn", lambda: D.MultivariateNormal(dg.zeros(3), covariance_matrix=dg.eye(3).expand(4, 3, 3)), (4,), (3,)),
    ("independent", lambda: D.Independent(D.Normal(dg.zeros(2, 3), dg.ones(2, 3)), 1), (2,), (3,)),
    ("transformed", lambda: D.TransformedDistribution(D.Normal(dg.zeros(2), dg.ones(2)), [T.ExpTransform()]), (2,), ()),
    ("binomial", lambda: D.Binomial(5, probs=dg.full((3,), 0.5)), (3,), ()),
]


@pytest.mark.parametrize("name,make,batch,event", SHAPES, ids=[s[0] for s in SHAPES])
def test_batch_and_event_shapes_are_pytorchs(name, make, batch, event):
    d = make()
    assert d.batch_shape == batch and d.event_shape == event
    assert d.sample((2,)).shape == (2,) + batch + event


@pytest.mark.parametrize("name,make,batch,event", SHAPES, ids=[s[0] for s in SHAPES])
def test_expand_broadcasts_the_batch_and_keeps_values(name, make, batch, event):
    d = make()
    e = d.expand((7,) + batch)
    assert e.batch_shape == (7,) + batch and e.event_shape == event
    x = d.sample()
    np.testing.assert_allclose(e.log_prob(x).numpy(), np.broadcast_to(d.log_prob(x).numpy(), (7,) + batch))


def test_number_parameters_take_the_default_dtype():
    d = D.Normal(0.0, 1.0)
    assert d.loc.dtype == dg.float32 and d.sample().dtype == dg.float32
    assert D.Normal(_t(0.0), 1.0).scale.dtype == dg.float64


def test_probs_and_logits_are_computed_lazily_from_each_other():
    b = D.Bernoulli(logits=_t(0.0, 2.0))
    assert "probs" not in b.__dict__
    np.testing.assert_allclose(b.probs.numpy(), [0.5, 1 / (1 + math.exp(-2))])
    c = D.Categorical(probs=_t(1.0, 3.0))  # normalised
    np.testing.assert_allclose(c.probs.numpy(), [0.25, 0.75])
    np.testing.assert_allclose(c.logits.numpy(), np.log([0.25, 0.75]))


def test_enumerate_support_lists_every_value_along_a_new_first_dim():
    c = D.Categorical(probs=dg.ones(2, 3))
    assert c.enumerate_support().shape == (3, 2)
    assert c.enumerate_support(expand=False).shape == (3, 1)
    assert D.Bernoulli(probs=dg.full((4,), 0.3)).enumerate_support().tolist() == [[0.0] * 4, [1.0] * 4]
    assert D.Binomial(3, probs=dg.full((2,), 0.3)).enumerate_support().shape == (4, 2)


def test_stddev_is_the_square_root_of_variance_and_perplexity_exp_entropy():
    d = D.Gamma(_t(2.0, 3.0), _t(1.0, 0.5))
    np.testing.assert_allclose(d.stddev.numpy(), np.sqrt(d.variance.numpy()))
    np.testing.assert_allclose(d.perplexity().numpy(), np.exp(d.entropy().numpy()))


def test_repr_names_the_distribution_and_its_parameters():
    assert repr(D.Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"
    assert repr(D.Categorical(probs=dg.ones(2, 3))) == "Categorical(probs: (2, 3))"


def test_register_kl_dispatches_to_the_most_specific_registered_pair():
    class MyNormal(D.Normal):
        pass

    p, q = MyNormal(_t(0.0), _t(1.0)), D.Normal(_t(1.0), _t(2.0))
    base = D.kl_divergence(p, q)  # falls back to (Normal, Normal)
    np.testing.assert_allclose(base.numpy(), D.kl_divergence(D.Normal(_t(0.0), _t(1.0)), q).numpy())

    @D.register_kl(MyNormal, D.Normal)
    def _mine(p, q):  # noqa: ANN001, ANN202
        return p.loc * 0 + 42.0

    assert D.kl_divergence(p, q).item() == 42.0
    assert D.kl_divergence(D.Normal(_t(0.0), _t(1.0)), q).item() != 42.0


def test_register_kl_rejects_a_non_distribution_type():
    with pytest.raises(TypeError):
        D.register_kl(int, D.Normal)


def test_kl_of_a_distribution_with_itself_is_zero():
    for d in (D.Normal(_t(0.3), _t(1.2)), D.Gamma(_t(2.0), _t(0.5)), D.Dirichlet(_t(0.5, 2.0, 1.0)),
              D.MultivariateNormal(_t(1.0, 2.0), covariance_matrix=dg.tensor([[2.0, 0.3], [0.3, 1.0]], dtype=dg.float64))):
        assert abs(D.kl_divergence(d, d).sum().item()) < 1e-12


# ------------------------------------------------------------------ constraints
def test_constraints_check_elementwise_and_reduce_event_dims():
    assert constraints.positive.check(_t(1.0, 0.0, -1.0)).tolist() == [True, False, False]
    assert constraints.unit_interval.check(_t(0.0, 1.0, 1.5)).tolist() == [True, True, False]
    assert constraints.simplex.check(dg.tensor([[0.5, 0.5], [0.7, 0.7]])).tolist() == [True, False]
    assert constraints.independent(constraints.real, 1).check(dg.tensor([[0.0, float("nan")], [1.0, 2.0]])).tolist() \
        == [False, True]
    assert constraints.integer_interval(0, 3).check(_t(0.0, 3.0, 4.0, 1.5)).tolist() == [True, True, False, False]
    assert constraints.is_dependent(constraints.dependent)
    with pytest.raises(ValueError):
        constraints.dependent.check(_t(1.0))


# ------------------------------------------------------------------ transforms
TRANSFORMS = [
    ("exp", T.ExpTransform(), _t(-1.0, 0.0, 2.0)),
    ("sigmoid", T.SigmoidTransform(), _t(-3.0, 0.0, 2.0)),
    ("tanh", T.TanhTransform(), _t(-2.0, 0.1, 1.5)),
    ("affine", T.AffineTransform(_t(1.0, 2.0, 3.0), -2.5), _t(-1.0, 0.0, 2.0)),
    ("compose", T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.TanhTransform()]), _t(-1.0, 0.0, 0.7)),
]


@pytest.mark.parametrize("name,t,x", TRANSFORMS, ids=[c[0] for c in TRANSFORMS])
def test_transform_inverse_round_trips_and_log_det_matches_autograd(name, t, x):
    y = t(x)
    np.testing.assert_allclose(t.inv(y).numpy(), x.numpy(), rtol=1e-10, atol=1e-12)
    assert t.inv.inv is t
    xs = x.clone().requires_grad_()
    (dydx,) = dg.autograd.grad(t(xs).sum(), [xs])  # elementwise maps: the Jacobian is diagonal
    np.testing.assert_allclose(t.log_abs_det_jacobian(x, y).numpy(), np.log(np.abs(dydx.numpy())), rtol=1e-10)
    np.testing.assert_allclose(t.inv.log_abs_det_jacobian(y, x).numpy(), -np.log(np.abs(dydx.numpy())), rtol=1e-10)


def test_a_cached_transform_returns_the_exact_input_from_its_inverse():
    t = T.TanhTransform(cache_size=1)
    x = _t(20.0)  # tanh(20) rounds to 1: atanh could not recover it
    y = t(x)
    assert t.inv(y) is x
    with pytest.raises(ValueError):
        T.ExpTransform(cache_size=2)


def test_transformed_distribution_log_prob_is_the_change_of_variables_formula():
    base = D.Normal(_t(0.2), _t(0.7))
    d = D.TransformedDistribution(base, [T.ExpTransform()])  # a log-normal
    y = _t(0.5, 1.0, 3.0)
    want = base.log_prob(y.log()) - y.log()
    np.testing.assert_allclose(d.log_prob(y).numpy(), want.numpy(), rtol=1e-14)
    np.testing.assert_allclose(d.cdf(y).numpy(), base.cdf(y.log()).numpy())
    assert d.has_rsample and d.rsample((3,)).shape == (3, 1)


def test_dirichlet_and_beta_modes_with_all_concentrations_below_one_are_pytorchs_first_vertex():
    d = D.Dirichlet(dg.tensor([[0.5, 0.3, 0.9], [2.0, 3.0, 1.0]], dtype=dg.float64))
    np.testing.assert_allclose(d.mode.numpy(), [[1.0, 0.0, 0.0], [1 / 3, 2 / 3, 0.0]])
    assert D.Beta(_t(0.5, 2.0), _t(0.5, 0.5)).mode.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("module,name", [
    ("normal", "Normal"), ("laplace", "Laplace"), ("uniform", "Uniform"), ("exponential", "Exponential"),
    ("bernoulli", "Bernoulli"), ("categorical", "Categorical"), ("one_hot_categorical", "OneHotCategorical"),
    ("poisson", "Poisson"), ("binomial", "Binomial"), ("gamma", "Gamma"), ("beta", "Beta"), ("dirichlet", "Dirichlet"),
    ("log_normal", "LogNormal"), ("gumbel", "Gumbel"), ("relaxed_categorical", "ExpRelaxedCategorical"),
    ("relaxed_categorical", "RelaxedOneHotCategorical"), ("relaxed_bernoulli", "LogitRelaxedBernoulli"),
    ("relaxed_bernoulli", "RelaxedBernoulli"), ("multivariate_normal", "MultivariateNormal"),
    ("lowrank_multivariate_normal", "LowRankMultivariateNormal"), ("cauchy", "Cauchy"), ("chi2", "Chi2"),
    ("studentT", "StudentT"), ("independent", "Independent"),
    ("transformed_distribution", "TransformedDistribution"), ("transforms", "ExpTransform"),
    ("kl", "kl_divergence"), ("kl", "register_kl"), ("distribution", "Distribution"), ("utils", "probs_to_logits"),
])
def test_pytorchs_submodule_import_paths_exist(module, name):
    import importlib

    assert hasattr(importlib.import_module(f"dyngrad.distributions.{module}"), name)


GRADGRAD = [
    ("normal", lambda p: D.Normal(p[0], p[1].exp()).log_prob(_t(0.5, -1.0))),
    ("gamma", lambda p: D.Gamma(p[0].exp(), p[1].exp()).log_prob(_t(0.5, 2.0)) + D.Gamma(p[0].exp(), p[1].exp()).entropy()),
    ("dirichlet", lambda p: D.Dirichlet(p.exp()).log_prob(_t(0.2, 0.3, 0.5))),
    ("mvn_cov", lambda p: D.MultivariateNormal(p[:2], covariance_matrix=dg.eye(2, dtype=dg.float64) * p[2].exp() + 0.1)
     .log_prob(_t(0.5, -1.0))),
    ("laplace_kl", lambda p: D.kl_divergence(D.Laplace(p[0], p[1].exp()), D.Laplace(p[2], _t(1.0)))),
]


@pytest.mark.parametrize("name,f", GRADGRAD, ids=[c[0] for c in GRADGRAD])
def test_log_probs_entropies_and_kls_are_twice_differentiable(name, f):
    x = _t(0.3, 1.2, 2.0).requires_grad_()
    assert dg.autograd.gradcheck(f, (x,))
    assert dg.autograd.gradgradcheck(f, (x,))

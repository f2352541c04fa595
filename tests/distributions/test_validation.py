"""Argument validation (``validate_args``) and misuse errors, with PyTorch's exception types
and messages; ``Distribution.set_default_validate_args``."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad as dg
from dyngrad import distributions as D


def _t(*v):
    return dg.tensor(np.array(v, dtype=np.float64))


EYE2 = dg.eye(2, dtype=dg.float64)

MISUSE = [
    ("negative_scale", lambda: D.Normal(_t(0.0), _t(-1.0)), "Expected parameter scale .* GreaterThan"),
    ("nan_loc", lambda: D.Normal(_t(float("nan")), _t(1.0)), "Expected parameter loc .* Real"),
    ("probs_and_logits", lambda: D.Bernoulli(probs=_t(0.5), logits=_t(0.0)), "Either `probs` or `logits`"),
    ("neither_probs_nor_logits", lambda: D.Categorical(), "Either `probs` or `logits`"),
    ("probs_above_one", lambda: D.Bernoulli(probs=_t(1.5)), "Expected parameter probs .* Interval"),
    ("categorical_0d", lambda: D.Categorical(probs=dg.tensor(0.5)), "must be at least one-dimensional"),
    ("dirichlet_0d", lambda: D.Dirichlet(dg.tensor(0.5)), "must be at least one-dimensional"),
    ("uniform_low_above_high", lambda: D.Uniform(_t(1.0), _t(0.0)), "Expected parameter low .* LessThan"),
    ("mvn_two_matrices", lambda: D.MultivariateNormal(_t(0.0, 0.0), covariance_matrix=EYE2, scale_tril=EYE2),
     "Exactly one of covariance_matrix or precision_matrix or scale_tril"),
    ("mvn_negative_diagonal", lambda: D.MultivariateNormal(_t(0.0, 0.0), scale_tril=-EYE2), "LowerCholesky"),
    ("mvn_not_positive_definite", lambda: D.MultivariateNormal(_t(0.0, 0.0), covariance_matrix=-EYE2),
     "PositiveDefinite"),
    ("mvn_0d_loc", lambda: D.MultivariateNormal(dg.tensor(0.0), scale_tril=EYE2), "loc must be at least one-dimensional"),
    ("lowrank_bad_factor", lambda: D.LowRankMultivariateNormal(_t(0.0, 0.0), dg.ones(3, 1, dtype=dg.float64), _t(1.0, 1.0)),
     "cov_factor must be a batch of matrices with shape 2 x m"),
    ("lowrank_bad_diag", lambda: D.LowRankMultivariateNormal(_t(0.0, 0.0), dg.ones(2, 1, dtype=dg.float64), _t(1.0, -1.0)),
     "Expected parameter cov_diag"),
    ("independent_too_many_dims", lambda: D.Independent(D.Normal(_t(0.0), _t(1.0)), 2),
     r"Expected reinterpreted_batch_ndims <= len\(base_distribution.batch_shape\), actual 2 vs 1"),
    ("value_outside_support", lambda: D.Exponential(_t(1.0)).log_prob(_t(-1.0)),
     r"to be within the support \(GreaterThanEq"),
    ("value_wrong_shape", lambda: D.Normal(_t(0.0, 0.0), _t(1.0, 1.0)).log_prob(_t(1.0, 2.0, 3.0)),
     "Value is not broadcastable with batch_shape\\+event_shape: \\(3,\\) vs \\(2,\\)"),
    ("value_not_a_tensor", lambda: D.Normal(_t(0.0), _t(1.0)).log_prob(1.0), "must be a Tensor"),
    ("poisson_non_integer", lambda: D.Poisson(_t(1.0)).log_prob(_t(1.5)), "IntegerGreaterThan"),
    ("category_out_of_range", lambda: D.Categorical(probs=_t(0.5, 0.5)).log_prob(dg.tensor(2)), "IntegerInterval"),
    ("off_the_simplex", lambda: D.Dirichlet(_t(1.0, 1.0)).log_prob(_t(0.2, 0.3)), "Simplex"),
    ("zero_concentration", lambda: D.Gamma(_t(0.0), _t(1.0)), "Expected parameter concentration"),
    ("event_shape_mismatch", lambda: D.MultivariateNormal(_t(0.0, 0.0), scale_tril=EYE2).log_prob(_t(1.0, 2.0, 3.0)),
     "The right-most size of value must match event_shape"),
]


@pytest.mark.parametrize("name,fn,match", MISUSE, ids=[m[0] for m in MISUSE])
def test_misuse_raises_value_error_with_pytorchs_message(name, fn, match):
    with pytest.raises(ValueError, match=match):
        fn()


def test_validate_args_false_skips_the_checks():
    d = D.Normal(_t(0.0), _t(-1.0), validate_args=False)
    assert d.scale.item() == -1.0
    assert np.isnan(d.log_prob(_t(0.0)).item())


def test_set_default_validate_args_turns_validation_off_and_back_on():
    try:
        D.Distribution.set_default_validate_args(False)
        D.Exponential(_t(-1.0))
        assert D.Exponential(_t(1.0)).log_prob(_t(-1.0)).shape == (1,)
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Exponential(_t(-1.0))


def test_set_default_validate_args_rejects_a_non_bool():
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args("yes")  # type: ignore[arg-type]


def test_rsample_of_a_discrete_distribution_raises_not_implemented():
    with pytest.raises(NotImplementedError):
        D.Bernoulli(probs=_t(0.5)).rsample()
    assert not D.Categorical(probs=_t(0.5, 0.5)).has_rsample


def test_kl_without_a_registered_pair_raises_not_implemented():
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Normal and q type"
                       " Poisson"):
        D.kl_divergence(D.Normal(_t(0.0), _t(1.0)), D.Poisson(_t(1.0)))


def test_binomial_entropy_with_inhomogeneous_counts_raises():
    with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
        D.Binomial(_t(3.0, 4.0), probs=_t(0.5, 0.5)).entropy()


def test_mvn_kl_with_different_event_shapes_raises():
    p = D.MultivariateNormal(_t(0.0, 0.0), scale_tril=EYE2)
    q = D.MultivariateNormal(_t(0.0, 0.0, 0.0), scale_tril=dg.eye(3, dtype=dg.float64))
    with pytest.raises(ValueError, match="different event shapes"):
        D.kl_divergence(p, q)

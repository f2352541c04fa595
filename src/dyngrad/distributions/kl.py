"""``kl_divergence(p, q)`` and ``register_kl`` (PyTorch's ``torch.distributions.kl``).

The registry maps a pair of distribution types to a function; ``kl_divergence`` picks the
most specific registered pair for ``(type(p), type(q))`` along both MROs (ties are an
error, as PyTorch's). This is PyTorch's public extension point, so it is a table by design.
Formulas are PyTorch 2.13's (torch/distributions/kl.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..ops.gamma import digamma, lgamma
from ..ops.pointwise import logaddexp, where
from ..ops.special import log1p
from ..ops.triangular import solve_triangular
from ..tensor import Tensor
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent, sum_rightmost
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal, batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY: dict[tuple[type, type], Callable[[Any, Any], Tensor]] = {}
_INF = float("inf")


def register_kl(type_p: type, type_q: type) -> Callable[[Callable], Callable]:
    """Decorator registering ``fn(p, q)`` as ``kl_divergence`` for ``p: type_p``, ``q: type_q``
    (subclasses included, unless a more specific pair is registered).

    Args:
        type_p (type): a :class:`Distribution` subclass.
        type_q (type): a :class:`Distribution` subclass.
    Returns:
        callable: the decorator; it registers and returns ``fn`` unchanged.
    Raises:
        TypeError: a type that is not a :class:`Distribution` subclass (PyTorch accepts it
            silently).

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import Normal, kl_divergence, register_kl
        >>> class MyNormal(Normal):
        ...     pass
        >>> @register_kl(MyNormal, MyNormal)
        ... def _kl_mine(p, q):
        ...     return dyngrad.zeros(p.batch_shape) + 42.0
        >>> kl_divergence(MyNormal(0.0, 1.0), MyNormal(1.0, 2.0))
        tensor(42.)
    """
    if not (isinstance(type_p, type) and issubclass(type_p, Distribution)):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not (isinstance(type_q, type) and issubclass(type_q, Distribution)):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun: Callable) -> Callable:
        _KL_REGISTRY[type_p, type_q] = fun
        _dispatch_kl.cache_clear()
        return fun

    return decorator


@functools.cache
def _dispatch_kl(type_p: type, type_q: type) -> Callable | None:
    matches = [(sp, sq) for sp, sq in _KL_REGISTRY if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return None
    mro_p, mro_q = type_p.__mro__, type_q.__mro__
    rank = {m: (mro_p.index(m[0]), mro_q.index(m[1])) for m in matches}
    left = min(matches, key=lambda m: rank[m])
    right = min(matches, key=lambda m: (rank[m][1], rank[m][0]))
    if _KL_REGISTRY[left] is not _KL_REGISTRY[right]:
        import warnings

        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please register_kl"
                      f"({left[0].__name__}, {right[1].__name__})", RuntimeWarning, stacklevel=3)
    return _KL_REGISTRY[left]


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """``KL(p || q) = E_p[log p(x) - log q(x)]`` by the closed form registered for the pair of types
    (:func:`register_kl`), of the broadcast batch shape.

    Derivative: the registered formula is composed of differentiable ops, so gradients flow to both
    distributions' parameters.

    Args:
        p (Distribution): the first distribution.
        q (Distribution): the second, with a broadcastable batch shape.
    Returns:
        Tensor: ``(*batch)``, the broadcast of ``p.batch_shape`` and ``q.batch_shape``.
    Raises:
        NotImplementedError: no formula is registered for the pair (PyTorch's message).

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import Normal, kl_divergence
        >>> kl_divergence(Normal(dyngrad.tensor([0.0]), dyngrad.tensor([1.0])), Normal(dyngrad.tensor([1.0]), dyngrad.tensor([2.0])))
        tensor([0.4431])
    """
    fun = _dispatch_kl(type(p), type(q))  # type: ignore[arg-type]  # classes are hashable
    if fun is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
                                  f"{q.__class__.__name__}")
    return fun(p, q)


def _mask(t: Tensor, cond: np.ndarray, value: float) -> Tensor:
    """``t`` with ``value`` where ``cond`` (a NumPy bool mask, broadcast)."""
    if not cond.any():
        return t
    return where(Tensor._make(np.broadcast_to(cond, np.broadcast_shapes(cond.shape, tuple(t.shape)))), value, t)


def _softplus(x: Tensor) -> Tensor:
    return logaddexp(x * 0, x)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    t1 = p.probs * (_softplus(-q.logits) - _softplus(-p.logits))
    t1 = _mask(_mask(t1, q.probs._data == 0, _INF), p.probs._data == 0, 0.0)
    t2 = (1 - p.probs) * (_softplus(q.logits) - _softplus(p.logits))
    t2 = _mask(_mask(t2, q.probs._data == 1, _INF), p.probs._data == 1, 0.0)
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    t = p.probs * (p.logits - q.logits)
    t = _mask(_mask(t, q.probs._data == 0, _INF), p.probs._data == 0, 0.0)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Binomial, q: Binomial) -> Tensor:
    if (p.total_count._data < q.total_count._data).any():
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + log1p(-p.probs) - log1p(-q.probs))
    return _mask(kl, p.total_count._data > q.total_count._data, _INF)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be computed")
    Lp, Lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = Lq.diagonal(0, -2, -1).log().sum(-1) - Lp.diagonal(0, -2, -1).log().sum(-1)
    batch = tuple(np.broadcast_shapes(tuple(Lq.shape[:-2]), tuple(Lp.shape[:-2])))
    n = p.event_shape[0]
    term2 = solve_triangular(Lq.expand(batch + (n, n)), Lp.expand(batch + (n, n)), upper=False).pow(2).sum((-2, -1))
    term3 = batch_mahalanobis(Lq, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = lgamma(q.concentration) - lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = lgamma(q.concentration1) + lgamma(q.concentration0) + lgamma(sum_p)
    t2 = lgamma(p.concentration1) + lgamma(p.concentration0) + lgamma(sum_q)
    t3 = (p.concentration1 - q.concentration1) * digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * digamma(p.concentration0)
    t5 = (sum_q - sum_p) * digamma(sum_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = lgamma(sum_p) - lgamma(sum_q)
    t2 = (lgamma(p.concentration) - lgamma(q.concentration)).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = digamma(p.concentration) - digamma(sum_p).unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _mask(result, (q.low._data > p.low._data) | (q.high._data < p.high._data), _INF)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * (-loc_abs_diff / p.scale).exp()
    return t1 + t2 + t3 - 1


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    # Chyzak & Nielsen 2019, "A closed-form formula for the Kullback-Leibler divergence between Cauchy distributions"
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    return t1 - (4 * p.scale * q.scale).log()


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)

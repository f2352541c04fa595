"""KL divergences between different families (and among the low-rank normals) (PyTorch 2.13's torch/distributions/kl.py):
the pairs with a closed form, and the pairs where ``p``'s support is not inside ``q``'s
(``inf`` everywhere). Importing this module registers them (dyngrad.distributions does)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..ops.gamma import digamma, lgamma
from ..ops.linalg import diag_embed, matmul
from ..ops.special import erf
from ..ops.triangular import solve_triangular
from ..ops.xlogy import xlogy
from ..tensor import Tensor
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .exponential import Exponential
from .gamma import Gamma
from .kl import _INF, _mask, register_kl
from .laplace import Laplace
from .lowrank_multivariate_normal import LowRankMultivariateNormal, _lowrank_logdet, _lowrank_mahalanobis
from .multivariate_normal import MultivariateNormal, batch_mahalanobis
from .normal import Normal
from .poisson import Poisson
from .uniform import Uniform

__all__: list[str] = []

_EULER_GAMMA = 0.57721566490153286060


def _infinite_like(t: Tensor) -> Tensor:
    return Tensor._make(np.full(tuple(t.shape), np.inf, dtype=t._data.dtype))


def _x_log_x(t: Tensor) -> Tensor:
    return xlogy(t, t)


def _register_infinite(type_p: type, attr: str, *types_q: type) -> None:
    for type_q in types_q:
        register_kl(type_p, type_q)(lambda p, q, _a=attr: _infinite_like(getattr(p, _a)))


_register_infinite(Exponential, "rate", Uniform, Beta)
_register_infinite(Gamma, "rate", Uniform, Beta)
_register_infinite(Laplace, "loc", Uniform, Gamma, Exponential, Beta)
_register_infinite(Normal, "loc", Uniform, Gamma, Exponential, Beta)
_register_infinite(Poisson, "rate", Binomial, Bernoulli)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p: Bernoulli, q: Poisson) -> Tensor:
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p: Exponential, q: Gamma) -> Tensor:
    ratio = q.rate / p.rate
    t1 = -q.concentration * ratio.log()
    return t1 + ratio + lgamma(q.concentration) + q.concentration * _EULER_GAMMA - (1 + _EULER_GAMMA)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p: Gamma, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p: Exponential, q: Normal) -> Tensor:
    var_normal = q.scale.pow(2)
    rate_sqr = p.rate.pow(2)
    t1 = 0.5 * (rate_sqr * var_normal * 2 * math.pi).log()
    return t1 - 1 + (rate_sqr.reciprocal() - q.loc / p.rate + q.loc.pow(2) * 0.5) / var_normal


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p: Gamma, q: Normal) -> Tensor:
    var_normal = q.scale.pow(2)
    beta_sqr = p.rate.pow(2)
    c = p.concentration
    t1 = 0.5 * (beta_sqr * var_normal * 2 * math.pi).log() - c - lgamma(c)
    t2 = 0.5 * (c.pow(2) + c) / beta_sqr
    t3 = q.loc * c / p.rate
    t4 = 0.5 * q.loc.pow(2)
    return t1 + (c - 1) * digamma(c) + (t2 - t3 + t4) / var_normal


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p: Normal, q: Laplace) -> Tensor:
    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    r = loc_diff / p.scale
    t2 = math.sqrt(2 / math.pi) * p.scale * (-0.5 * r.pow(2)).exp()
    t3 = loc_diff * erf(math.sqrt(0.5) * r)
    return -scale_ratio.log() + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p: Laplace, q: Normal) -> Tensor:
    var_normal = q.scale.pow(2)
    ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * (2 * ratio / math.pi).log()
    return -t1 + ratio + (0.5 * p.loc.pow(2) - p.loc * q.loc + 0.5 * q.loc.pow(2)) / var_normal - 1


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p: Uniform, q: Normal) -> Tensor:
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t2 = width.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p: Uniform, q: Exponential) -> Tensor:
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return _mask(result, p.low._data < 0, _INF)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p: Uniform, q: Gamma) -> Tensor:
    width = p.high - p.low
    t2 = lgamma(q.concentration) - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t4 = q.rate * (p.high + p.low) / 2
    return _mask(-width.log() + t2 + t3 + t4, p.low._data < 0, _INF)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p: Uniform, q: Beta) -> Tensor:
    width = p.high - p.low
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t3 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    t4 = lgamma(q.concentration1) + lgamma(q.concentration0) - lgamma(q.concentration1 + q.concentration0)
    return _mask(t3 + t4 - width.log() - t2, (p.high._data > 1) | (p.low._data < 0), _INF)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p: Beta, q: Uniform) -> Tensor:
    result = -p.entropy() + (q.high - q.low).log()
    return _mask(result, (q.low._data > 0) | (q.high._data < 1), _INF)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p: Beta, q: Exponential) -> Tensor:
    c1, c0 = p.concentration1, p.concentration0
    return -p.entropy() - q.rate.log() + q.rate * (c1 / (c1 + c0))


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p: Beta, q: Gamma) -> Tensor:
    c1, c0 = p.concentration1, p.concentration0
    t2 = lgamma(q.concentration) - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (digamma(c1) - digamma(c1 + c0))
    return -p.entropy() + t2 - t3 + q.rate * c1 / (c1 + c0)


@register_kl(Beta, Normal)
def _kl_beta_normal(p: Beta, q: Normal) -> Tensor:
    c1, c0 = p.concentration1, p.concentration0
    e = c1 / (c1 + c0)
    var_normal = q.scale.pow(2)
    t2 = 0.5 * (var_normal * 2 * math.pi).log()
    t3 = (e * (1 - e) / (c1 + c0 + 1) + e.pow(2)) * 0.5
    return -p.entropy() + t2 + (t3 - q.loc * e + q.loc.pow(2) * 0.5) / var_normal


# ---------------------------------------------------------------- low-rank multivariate normals
def _trace_xxt(x: Tensor) -> Tensor:
    """``trace(X X^T)`` over the last two dims."""
    return x.pow(2).sum((-2, -1))


def _check_events(p: Any, q: Any) -> None:
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two (Low Rank) Multivariate Normals with different event shapes "
                         "cannot be computed")


def _woodbury_factor(q: LowRankMultivariateNormal) -> Tensor:
    """``A = C^{-1/2} W^T D^{-1}`` with ``inv(cov_q) = inv(D) - A^T A``."""
    qWt_qDinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return solve_triangular(q._capacitance_tril, qWt_qDinv, upper=False)


def _lowrank_logdet_of(d: LowRankMultivariateNormal) -> Tensor:
    return _lowrank_logdet(d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag, d._capacitance_tril)


def _lowrank_mahalanobis_of(q: LowRankMultivariateNormal, x: Tensor) -> Tensor:
    return _lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, x, q._capacitance_tril)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p: LowRankMultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    _check_events(p, q)
    term1 = _lowrank_logdet_of(q) - _lowrank_logdet_of(p)
    term3 = _lowrank_mahalanobis_of(q, q.loc - p.loc)
    A = _woodbury_factor(q)
    pW, pD, qD = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag, q._unbroadcasted_cov_diag
    term2 = ((pD / qD).sum(-1) + _trace_xxt(pW * qD.rsqrt().unsqueeze(-1))
             - _trace_xxt(A * pD.sqrt().unsqueeze(-2)) - _trace_xxt(matmul(A, pW)))
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p: LowRankMultivariateNormal, q: MultivariateNormal) -> Tensor:
    _check_events(p, q)
    Lq = q._unbroadcasted_scale_tril
    term1 = 2 * Lq.diagonal(0, -2, -1).log().sum(-1) - _lowrank_logdet_of(p)
    term3 = batch_mahalanobis(Lq, q.loc - p.loc)
    batch = tuple(np.broadcast_shapes(tuple(Lq.shape[:-2]), tuple(p._unbroadcasted_cov_factor.shape[:-2])))
    n = p.event_shape[0]
    Lq = Lq.expand(batch + (n, n))
    pW = p._unbroadcasted_cov_factor.expand(batch + (n, p.cov_factor.shape[-1]))
    pD = diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(batch + (n, n))
    term2 = _trace_xxt(solve_triangular(Lq, pW, upper=False)) + _trace_xxt(solve_triangular(Lq, pD, upper=False))
    return 0.5 * (term1 + term2 + term3 - n)


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrank(p: MultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    _check_events(p, q)
    Lp = p._unbroadcasted_scale_tril
    term1 = _lowrank_logdet_of(q) - 2 * Lp.diagonal(0, -2, -1).log().sum(-1)
    term3 = _lowrank_mahalanobis_of(q, q.loc - p.loc)
    A = _woodbury_factor(q)
    term2 = _trace_xxt(Lp * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1)) - _trace_xxt(matmul(A, Lp))
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])

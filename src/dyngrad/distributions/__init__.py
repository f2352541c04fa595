"""``dyngrad.distributions``: PyTorch's ``torch.distributions`` for the common
distributions, with their constraints, transforms and the KL registry. See
docs/distributions.md for what is here, what differs and what is missing."""

from . import constraints, kl_cross, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .constraints import Constraint
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import (
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    SigmoidTransform,
    TanhTransform,
    Transform,
)
from .uniform import Uniform

__all__ = [
    "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ComposeTransform", "Constraint", "Dirichlet",
    "Distribution", "ExpTransform", "Exponential", "Gamma", "Gumbel", "Independent", "Laplace", "LogNormal",
    "LowRankMultivariateNormal", "MultivariateNormal", "Normal",
    "OneHotCategorical", "Poisson", "RelaxedBernoulli", "RelaxedOneHotCategorical",
    "SigmoidTransform", "StudentT", "TanhTransform", "Transform", "TransformedDistribution",
    "Uniform", "constraints", "kl_cross", "kl_divergence", "register_kl", "transforms",
]

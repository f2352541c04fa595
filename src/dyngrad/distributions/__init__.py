"""``dyngrad.distributions``: PyTorch's ``torch.distributions`` for the common
distributions, with their constraints, transforms and the KL registry. See
docs/distributions.md for what is here, what differs and what is missing."""

from . import constraints, kl_cross, transforms
from .constraints import Constraint
from .continuous import Exponential, Laplace, Normal, Uniform
from .derived import Gumbel, LogNormal
from .discrete import Bernoulli, Binomial, Categorical, OneHotCategorical, Poisson
from .distribution import Distribution
from .gamma import Beta, Dirichlet, Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .low_rank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal
from .relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from .transformed_distribution import TransformedDistribution
from .transforms import (
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    SigmoidTransform,
    TanhTransform,
    Transform,
)

__all__ = [
    "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical", "ComposeTransform", "Constraint", "Dirichlet",
    "Distribution", "ExpTransform", "Exponential", "Gamma", "Gumbel", "Independent", "Laplace", "LogNormal",
    "LowRankMultivariateNormal", "MultivariateNormal", "Normal",
    "OneHotCategorical", "Poisson", "RelaxedBernoulli", "RelaxedOneHotCategorical",
    "SigmoidTransform", "TanhTransform", "Transform", "TransformedDistribution",
    "Uniform", "constraints", "kl_cross", "kl_divergence", "register_kl", "transforms",
]

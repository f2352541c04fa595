""":class:`TransformedDistribution`: the distribution of ``T(x)`` for ``x ~ base`` and a
chain of bijective transforms ``T`` (PyTorch's ``TransformedDistribution``), with ``log_prob``
by the change-of-variables formula and ``cdf``/``icdf`` through monotone transforms."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, _shape
from .independent import Independent, sum_rightmost
from .transforms import ComposeTransform, Transform

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """``y = transforms[-1](... transforms[0](x))`` with ``x ~ base_distribution``.

    ``log_prob(y) = base.log_prob(x) - sum_t log |dt/dx|`` with ``x = T^{-1}(y)``.

    Args:
        base_distribution: the distribution of ``x``.
        transforms: a :class:`~.transforms.Transform` or a list of them.
        validate_args: see :class:`Distribution`.

    Raises:
        ValueError: ``transforms`` of the wrong type, or a base with fewer dims than the
            transforms' domain needs (PyTorch's messages).

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import ExpTransform, Normal, TransformedDistribution
        >>> d = TransformedDistribution(Normal(dyngrad.tensor(0.0), dyngrad.tensor(1.0)), [ExpTransform()])
        >>> round(float(d.log_prob(dyngrad.tensor(2.0))), 4)                # the log-normal density
        -1.8523
    """

    arg_constraints: dict[str, constraints.Constraint] = {}

    def __init__(self, base_distribution: Distribution, transforms: Any, validate_args: bool | None = None) -> None:
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = base_distribution.batch_shape + base_distribution.event_shape
        transform = ComposeTransform(self.transforms)
        base_event_dim = len(base_distribution.event_shape)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least "
                             f"{transform.domain.event_dim}, but got {len(base_shape)}.")
        reinterpreted = transform.domain.event_dim - base_event_dim
        if reinterpreted > 0:
            base_distribution = Independent(base_distribution, reinterpreted)
        self.base_dist = base_distribution
        event_dim = transform.codomain.event_dim + max(len(base_distribution.event_shape) - transform.domain.event_dim, 0)
        cut = len(base_shape) - event_dim
        super().__init__(base_shape[:cut], base_shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> TransformedDistribution:
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = _shape(batch_shape)
        new.base_dist = self.base_dist.expand(batch_shape + self.base_dist.event_shape[: max(
            0, len(self.base_dist.event_shape) - len(self._event_shape))])
        new.transforms = self.transforms
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    @constraints.dependent_property(is_discrete=False)
    def support(self) -> Any:
        if not self.transforms:
            return self.base_dist.support
        s = self.transforms[-1].codomain
        extra = len(self._event_shape) - s.event_dim
        return constraints.independent(s, extra) if extra > 0 else s

    def sample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.grad_mode import no_grad

        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self._event_shape)
        log_prob: Any = 0.0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            log_prob = log_prob - sum_rightmost(t.log_abs_det_jacobian(x, y), event_dim - t.domain.event_dim)
            y = x
        return log_prob + sum_rightmost(self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape))

    def _sign(self) -> Any:
        sign: Any = 1
        for t in self.transforms:
            sign = sign * t.sign
        return sign

    def _monotonize_cdf(self, value: Tensor) -> Tensor:
        sign = self._sign()
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value: Tensor) -> Tensor:
        """The CDF through the inverse transforms (all must be monotone scalar maps)."""
        for t in reversed(self.transforms):
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value: Tensor) -> Tensor:
        """The inverse CDF through the transforms (all must be monotone scalar maps)."""
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for t in self.transforms:
            value = t(value)
        return value

"""Bijective transforms of random variables (PyTorch's ``torch.distributions.transforms``):
:class:`ExpTransform`, :class:`AffineTransform`, :class:`SigmoidTransform`,
:class:`TanhTransform`, :class:`ComposeTransform`, and the inverse ``t.inv`` of each.

A transform maps ``x`` (in ``domain``) to ``y = t(x)`` (in ``codomain``), and
``log_abs_det_jacobian(x, y)`` is ``log |dy/dx|`` (summed over the ``event_dim`` rightmost
dims). With ``cache_size=1`` a transform remembers its last ``(x, y)`` pair, so that
``t.inv(t(x))`` returns ``x`` itself (exact, and keeping ``x``'s graph) as PyTorch's does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..ops.pointwise import logaddexp
from ..ops.special import log1p
from ..tensor import Tensor
from . import constraints
from .independent import sum_rightmost

__all__ = ["Transform", "ComposeTransform", "ExpTransform", "AffineTransform", "SigmoidTransform", "TanhTransform",
           "identity_transform"]


def _softplus(x: Tensor) -> Tensor:
    return logaddexp(x * 0, x)


class Transform:
    """Base of the transforms.

    Args:
        cache_size: 0 (no cache) or 1 (remember the last ``(x, y)``).

    Raises:
        ValueError: another ``cache_size``.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import Transform, constraints
        >>> class Square(Transform):                  # y = x**2 on (0, inf)
        ...     domain = codomain = constraints.positive
        ...     bijective = True
        ...     def _call(self, x):
        ...         return x * x
        ...     def _inverse(self, y):
        ...         return y.sqrt()
        ...     def log_abs_det_jacobian(self, x, y):
        ...         return (2 * x).log()
        >>> t = Square()
        >>> t(dyngrad.tensor([3.0])), t.inv(dyngrad.tensor([4.0]))
        (tensor([9.]), tensor([2.]))
    """

    bijective = False
    domain: constraints.Constraint = constraints.real
    codomain: constraints.Constraint = constraints.real
    sign: int = 1

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y: tuple[Any, Any] = (None, None)
        self._inv: Any = None

    @property
    def event_dim(self) -> int:
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> Transform:
        """The inverse transform (``t.inv.inv is t``)."""
        inv = self._inv
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = inv
        return inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __call__(self, x: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = (x, y)
        return y

    def _inv_call(self, y: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = (x, y)
        return x

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """``log |dy/dx|`` at ``x`` (with ``y = t(x)``)."""
        raise NotImplementedError

    def forward_shape(self, shape: Any) -> Any:
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        return shape

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"


class _InverseTransform(Transform):
    """The inverse of a transform: ``domain`` and ``codomain`` swapped."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv.codomain

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv.domain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self._inv.bijective

    @property
    def sign(self) -> int:  # type: ignore[override]
        return self._inv.sign

    @property
    def inv(self) -> Transform:
        return self._inv

    def __call__(self, x: Tensor) -> Tensor:
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -self._inv.log_abs_det_jacobian(y, x)

    def __repr__(self) -> str:
        return f"{self._inv!r}.inv"


class ComposeTransform(Transform):
    """Apply ``parts`` in order (``parts[0]`` first).

    Args:
        parts: the transforms.
        cache_size: see :class:`Transform`.

    Raises:
        ValueError: a ``cache_size`` other than 0 or 1.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import AffineTransform, ComposeTransform, ExpTransform
        >>> t = ComposeTransform([ExpTransform(), AffineTransform(0.0, 3.0)])
        >>> x = dyngrad.tensor([0.0, 1.0])
        >>> [round(v, 4) for v in t(x).tolist()], [round(v, 4) for v in t.log_abs_det_jacobian(x, t(x)).tolist()]
        ([3.0, 8.1548], [1.0986, 2.0986])
        >>> [round(v, 4) for v in t.inv(t(x)).tolist()]
        [0.0, 1.0]
    """

    def __init__(self, parts: list[Transform], cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(p.bijective for p in self.parts)

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        if not self.parts:
            return constraints.real
        return self.parts[0].domain

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        if not self.parts:
            return constraints.real
        return self.parts[-1].codomain

    @property
    def sign(self) -> int:  # type: ignore[override]
        s = 1
        for p in self.parts:
            s = s * p.sign
        return s

    @property
    def inv(self) -> Transform:
        inv = self._inv
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            inv._inv = self
            self._inv = inv
        return inv

    def __call__(self, x: Tensor) -> Tensor:
        for p in self.parts:
            x = p(x)
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if not self.parts:
            return x * 0
        terms = []
        event_dim = self.domain.event_dim
        for p in self.parts:
            y_p = p(x)
            terms.append(sum_rightmost(p.log_abs_det_jacobian(x, y_p), event_dim - p.domain.event_dim))
            x = y_p
            event_dim += p.codomain.event_dim - p.domain.event_dim
        out = terms[0]
        for t in terms[1:]:
            out = out + t
        return out

    def __repr__(self) -> str:
        return "ComposeTransform(" + ", ".join(repr(p) for p in self.parts) + ")"


identity_transform = ComposeTransform([])


class ExpTransform(Transform):
    """``y = exp(x)``; ``log |dy/dx| = x``; the inverse is ``log``.

    Args:
        cache_size (int): 0 (no cache) or 1 (remember the last ``(x, y)``). Default: ``0``.
    Raises:
        ValueError: a ``cache_size`` other than 0 or 1.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import ExpTransform
        >>> t = ExpTransform()
        >>> x = dyngrad.tensor([0.0, 1.0])
        >>> [round(v, 4) for v in t(x).tolist()], [round(v, 4) for v in t.log_abs_det_jacobian(x, t(x)).tolist()]
        ([1.0, 2.7183], [0.0, 1.0])
        >>> [round(v, 4) for v in t.inv(t(x)).tolist()]
        [0.0, 1.0]
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = 1

    def _call(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x


class SigmoidTransform(Transform):
    """``y = sigmoid(x)``; ``log |dy/dx| = -softplus(-x) - softplus(x)``; the inverse clamps ``y`` into
    ``[tiny, 1 - eps]`` before the logit (PyTorch's).

    Args:
        cache_size (int): 0 (no cache) or 1 (remember the last ``(x, y)``). Default: ``0``.
    Raises:
        ValueError: a ``cache_size`` other than 0 or 1.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import SigmoidTransform
        >>> t = SigmoidTransform()
        >>> x = dyngrad.tensor([0.0, 1.0])
        >>> [round(v, 4) for v in t(x).tolist()], [round(v, 4) for v in t.log_abs_det_jacobian(x, t(x)).tolist()]
        ([0.5, 0.7311], [-1.3863, -1.6265])
        >>> [round(v, 4) for v in t.inv(t(x)).tolist()]
        [0.0, 1.0]
    """

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = 1

    def _call(self, x: Tensor) -> Tensor:
        finfo = np.finfo(x._data.dtype)
        return x.sigmoid().clamp(min=float(finfo.tiny), max=1.0 - float(finfo.eps))

    def _inverse(self, y: Tensor) -> Tensor:
        finfo = np.finfo(y._data.dtype)
        y = y.clamp(min=float(finfo.tiny), max=1.0 - float(finfo.eps))
        return y.log() - log1p(-y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -_softplus(-x) - _softplus(x)


class TanhTransform(Transform):
    """``y = tanh(x)``; ``log |dy/dx| = 2 (log 2 - x - softplus(-2x))`` (stable form, as PyTorch's);
    the inverse is ``atanh``.

    Args:
        cache_size (int): 0 (no cache) or 1 (remember the last ``(x, y)``). Default: ``0``.
    Raises:
        ValueError: a ``cache_size`` other than 0 or 1.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import TanhTransform
        >>> t = TanhTransform()
        >>> x = dyngrad.tensor([0.0, 1.0])
        >>> [round(v, 4) for v in t(x).tolist()], [round(v, 4) for v in t.log_abs_det_jacobian(x, t(x)).tolist()]
        ([0.0, 0.7616], [0.0, -0.8676])
        >>> [round(v, 4) for v in t.inv(t(x)).tolist()]
        [0.0, 1.0]
    """

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = 1

    def _call(self, x: Tensor) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.atanh()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return 2.0 * (math.log(2.0) - x - _softplus(-2.0 * x))


class AffineTransform(Transform):
    """``y = loc + scale * x``; ``log |dy/dx| = log |scale|`` (summed over ``event_dim``
    rightmost dims).

    Args:
        loc: Tensor or number.
        scale: Tensor or number (non-zero).
        event_dim: the number of rightmost dims that form one event.
        cache_size: see :class:`Transform`.

    Raises:
        ValueError: a ``cache_size`` other than 0 or 1.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import AffineTransform
        >>> t = AffineTransform(1.0, 2.0)
        >>> x = dyngrad.tensor([0.0, 1.0])
        >>> [round(v, 4) for v in t(x).tolist()], [round(v, 4) for v in t.log_abs_det_jacobian(x, t(x)).tolist()]
        ([1.0, 3.0], [0.6931, 0.6931])
        >>> [round(v, 4) for v in t.inv(t(x)).tolist()]
        [0.0, 1.0]
    """

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    @property
    def event_dim(self) -> int:
        return self._event_dim

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.real if self._event_dim == 0 else constraints.independent(constraints.real, self._event_dim)

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return self.domain

    @property
    def sign(self) -> Any:  # type: ignore[override]
        s = self.scale
        if isinstance(s, (int, float)):
            return 1 if s > 0 else -1 if s < 0 else 0
        return s.sign()

    def _call(self, x: Tensor) -> Tensor:
        return self.loc + self.scale * x

    def _inverse(self, y: Tensor) -> Tensor:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        shape = tuple(x.shape)
        s = self.scale
        if isinstance(s, (int, float)):
            r = Tensor._make(np.full(shape, math.log(abs(s)), dtype=x._data.dtype))
        else:
            r = s.abs().log()
            if tuple(r.shape) != shape:
                r = r.expand(np.broadcast_shapes(tuple(r.shape), shape))
        if self._event_dim:
            r = r.reshape(tuple(r.shape[: r.dim() - self._event_dim]) + (-1,)).sum(-1)
        return r

    def __repr__(self) -> str:
        return f"AffineTransform(loc={self.loc}, scale={self.scale})"

"""Constraints: what values a parameter or a sample may take (PyTorch's
``torch.distributions.constraints``).

A :class:`Constraint` answers ``check(value)`` with a bool Tensor of the batch shape (the
rightmost ``event_dim`` dims are reduced with ``all``). Distributions list theirs in
``arg_constraints`` (checked at construction) and ``support`` (checked by ``log_prob``,
``cdf``, ``icdf`` when ``validate_args`` is on). The names are PyTorch's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor

__all__ = [
    "Constraint", "boolean", "dependent", "dependent_property", "greater_than", "greater_than_eq",
    "half_open_interval", "independent", "integer_interval", "interval", "is_dependent", "less_than",
    "lower_cholesky", "lower_triangular", "nonnegative", "nonnegative_integer", "one_hot", "positive",
    "positive_definite", "positive_integer", "positive_semidefinite", "real", "real_vector", "simplex",
    "unit_interval",
]


def _data(value: Any) -> np.ndarray:
    return value._data if isinstance(value, Tensor) else np.asarray(value)


class Constraint:
    """A region of values. ``is_discrete`` and ``event_dim`` as PyTorch's: ``event_dim`` is
    how many rightmost dims make one event (``check`` reduces them).

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import constraints
        >>> constraints.positive.check(dyngrad.tensor([-1.0, 2.0]))
        tensor([False,  True])
        >>> constraints.interval(0.0, 1.0).check(dyngrad.tensor([0.5, 2.0]))
        tensor([ True, False])
    """

    is_discrete = False
    event_dim = 0

    def check(self, value: Any) -> Tensor:
        """A bool Tensor: whether each event of ``value`` satisfies the constraint."""
        raise NotImplementedError

    def _reduce(self, ok: Any) -> Tensor:
        for _ in range(self.event_dim):
            ok = ok.all(-1)
        return Tensor._make(np.asarray(ok))

    def __repr__(self) -> str:
        return self.__class__.__name__[1:] + "()"


class _Dependent(Constraint):
    """A placeholder whose support depends on other variables; cannot be checked."""

    def __init__(self, *, is_discrete: bool = False, event_dim: int = 0) -> None:
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def __call__(self, *, is_discrete: bool = False, event_dim: int = 0) -> _Dependent:
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value: Any) -> Tensor:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    """True for :data:`dependent` and :func:`dependent_property` constraints."""
    return isinstance(constraint, _Dependent)


class dependent_property(property):
    """A property whose constraint is dependent (PyTorch's ``constraints.dependent_property``):
    ``support`` of distributions whose support depends on their parameters."""

    def __init__(self, fn: Any = None, *, is_discrete: bool = False, event_dim: int = 0) -> None:
        super().__init__(fn)
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def __call__(self, fn: Any) -> dependent_property:
        return dependent_property(fn, is_discrete=self.is_discrete, event_dim=self.event_dim)


class _Elementwise(Constraint):
    def __init__(self, test: Any, name: str, *, discrete: bool = False, event_dim: int = 0) -> None:
        self._test, self._name, self.is_discrete, self.event_dim = test, name, discrete, event_dim

    def check(self, value: Any) -> Tensor:
        with np.errstate(invalid="ignore"):
            return self._reduce(self._test(_data(value)))

    def __repr__(self) -> str:
        return self._name


def _bound(v: Any) -> Any:
    return v._data if isinstance(v, Tensor) else v


def greater_than(lower_bound: Any) -> Constraint:
    """``value > lower_bound``."""
    lb = _bound(lower_bound)
    return _Elementwise(lambda x: x > lb, f"GreaterThan(lower_bound={lower_bound})")


def greater_than_eq(lower_bound: Any) -> Constraint:
    """``value >= lower_bound``."""
    lb = _bound(lower_bound)
    return _Elementwise(lambda x: x >= lb, f"GreaterThanEq(lower_bound={lower_bound})")


def less_than(upper_bound: Any) -> Constraint:
    """``value < upper_bound``."""
    ub = _bound(upper_bound)
    return _Elementwise(lambda x: x < ub, f"LessThan(upper_bound={upper_bound})")


def interval(lower_bound: Any, upper_bound: Any) -> Constraint:
    """``lower_bound <= value <= upper_bound``."""
    lb, ub = _bound(lower_bound), _bound(upper_bound)
    return _Elementwise(lambda x: (x >= lb) & (x <= ub), f"Interval(lower_bound={lower_bound}, upper_bound={upper_bound})")


def half_open_interval(lower_bound: Any, upper_bound: Any) -> Constraint:
    """``lower_bound <= value < upper_bound``."""
    lb, ub = _bound(lower_bound), _bound(upper_bound)
    return _Elementwise(lambda x: (x >= lb) & (x < ub),
                        f"HalfOpenInterval(lower_bound={lower_bound}, upper_bound={upper_bound})")


def integer_interval(lower_bound: Any, upper_bound: Any) -> Constraint:
    """Integers in ``[lower_bound, upper_bound]``."""
    lb, ub = _bound(lower_bound), _bound(upper_bound)
    return _Elementwise(lambda x: (x % 1 == 0) & (x >= lb) & (x <= ub),
                        f"IntegerInterval(lower_bound={lower_bound}, upper_bound={upper_bound})", discrete=True)


class independent(Constraint):
    """``base_constraint`` with ``reinterpreted_batch_ndims`` more rightmost dims per event."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        self.base_constraint, self.reinterpreted_batch_ndims = base_constraint, reinterpreted_batch_ndims
        self.is_discrete = base_constraint.is_discrete
        self.event_dim = base_constraint.event_dim + reinterpreted_batch_ndims

    def check(self, value: Any) -> Tensor:
        ok: Any = self.base_constraint.check(value)._data
        for _ in range(self.reinterpreted_batch_ndims):
            ok = ok.all(-1)
        return Tensor._make(np.asarray(ok))

    def __repr__(self) -> str:
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value: Any) -> Tensor:
        x = _data(value)
        return Tensor._make(np.asarray((x >= 0).all(-1) & (np.abs(x.sum(-1) - 1) < 1e-6)))


class _OneHot(Constraint):
    is_discrete, event_dim = True, 1

    def check(self, value: Any) -> Tensor:
        x = _data(value)
        return Tensor._make(np.asarray(((x == 0) | (x == 1)).all(-1) & (x.sum(-1) == 1)))


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value: Any) -> Tensor:
        x = _data(value)
        return Tensor._make(np.asarray((np.tril(x) == x).all((-2, -1))))


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value: Any) -> Tensor:
        x = _data(value)
        tri = (np.tril(x) == x).all((-2, -1))
        return Tensor._make(np.asarray(tri & (np.diagonal(x, axis1=-2, axis2=-1) > 0).all(-1)))


class _PositiveDefinite(Constraint):
    event_dim = 2

    def __init__(self, semi: bool = False) -> None:
        self._semi = semi

    def check(self, value: Any) -> Tensor:
        x = _data(value)
        sym = np.allclose(x, np.swapaxes(x, -1, -2), atol=1e-6) if x.size else True
        ev = np.linalg.eigvalsh(x) if x.size else np.ones(x.shape[:-1])
        ok = (ev >= 0).all(-1) if self._semi else (ev > 0).all(-1)
        return Tensor._make(np.asarray(ok & sym))

    def __repr__(self) -> str:
        return "PositiveSemidefinite()" if self._semi else "PositiveDefinite()"


dependent = _Dependent()
real = _Elementwise(lambda x: x == x, "Real()")  # not nan
real_vector = independent(real, 1)
positive = greater_than(0.0)
positive._name = "GreaterThan(lower_bound=0.0)"  # type: ignore[attr-defined]
nonnegative = greater_than_eq(0.0)
unit_interval = interval(0.0, 1.0)
boolean = _Elementwise(lambda x: (x == 0) | (x == 1), "Boolean()", discrete=True)
nonnegative_integer = _Elementwise(lambda x: (x % 1 == 0) & (x >= 0), "IntegerGreaterThan(lower_bound=0)", discrete=True)
positive_integer = _Elementwise(lambda x: (x % 1 == 0) & (x >= 1), "IntegerGreaterThan(lower_bound=1)", discrete=True)
simplex = _Simplex()
one_hot = _OneHot()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
positive_definite = _PositiveDefinite()
positive_semidefinite = _PositiveDefinite(semi=True)

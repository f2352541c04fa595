"""In-place random fills (``Tensor.uniform_``, ``normal_``, ``bernoulli_``, ``random_``,
``exponential_``, ``geometric_``, ``cauchy_``, ``log_normal_``): each is a like draw
(:class:`~dyngrad.ops.random.LikeDraw`, shaped like the tensor in its dtype) written back by
the in-place path every in-place op takes (``ops._util.inplace``), so fills bump the version
counter, rebase views and refuse leaves that require grad like any in-place op. The
result has a zero gradient with respect to the old values (PyTorch's ``UniformBackward0`` &
co.). Under vmap an unbatched tensor cannot take one draw per example
(``randomness='different'`` raises, as PyTorch)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..creation import Generator, rng_of
from ..tensor import Tensor
from ._util import inplace
from .random import LikeDraw, _no_extra, _num, _out
from .. import _backend as B

__all__ = ["uniform_", "normal_", "bernoulli_", "random_", "exponential_", "geometric_", "cauchy_", "log_normal_"]
TENSOR_METHODS = set(__all__)


class _Fill(LikeDraw):
    """A draw shaped like ``input`` in its dtype, written back by an in-place fill."""

    inplace_fill = True


class Uniform(_Fill):
    @staticmethod
    def forward(ctx: Any, input: Tensor, low: float, high: float, generator: Any) -> Tensor:
        return _out(rng_of(generator).uniform(low, high, input._data.shape), input._data.dtype)


class Normal(_Fill):
    @staticmethod
    def forward(ctx: Any, input: Tensor, mean: float, std: float, generator: Any) -> Tensor:
        return _out(rng_of(generator).normal(mean, std, input._data.shape), input._data.dtype)


class BernoulliFill(_Fill):
    _node_name = "BernoulliBackward1"

    @staticmethod
    def forward(ctx: Any, input: Tensor, p: float, generator: Any) -> Tensor:
        return _out(rng_of(generator).random(input._data.shape) < p, input._data.dtype)


class Random(_Fill):
    _node_name = "RandomBackward2"

    @staticmethod
    def forward(ctx: Any, input: Tensor, low: int, high: int, generator: Any) -> Tensor:
        return _out(rng_of(generator).integers(low, high, input._data.shape, endpoint=False), input._data.dtype)


class Exponential(_Fill):
    @staticmethod
    def forward(ctx: Any, input: Tensor, lambd: float, generator: Any) -> Tensor:
        return _out(rng_of(generator).exponential(1.0 / lambd, input._data.shape), input._data.dtype)


class Geometric(_Fill):
    @staticmethod
    def forward(ctx: Any, input: Tensor, p: float, generator: Any) -> Tensor:
        return _out(rng_of(generator).geometric(p, input._data.shape), input._data.dtype)


class Cauchy(_Fill):
    @staticmethod
    def forward(ctx: Any, input: Tensor, median: float, sigma: float, generator: Any) -> Tensor:
        return _out(median + sigma * rng_of(generator).standard_cauchy(input._data.shape), input._data.dtype)


class LogNormal(_Fill):
    @staticmethod
    def forward(ctx: Any, input: Tensor, mean: float, std: float, generator: Any) -> Tensor:
        return _out(rng_of(generator).lognormal(mean, std, input._data.shape), input._data.dtype)


def _fill(cls: type, self: Tensor, *args: Any) -> Tensor:
    def draw(t: Tensor, *a: Any) -> Tensor:
        return cls.apply(t, *a)

    draw.__name__ = cls.__name__.lower()
    return inplace(draw, self, *args)


def _float_fill(self: Tensor, op: str) -> None:
    if B.kind(self._data) != "f":
        raise NotImplementedError(f"{op}: only floating dtypes are supported, got {self.dtype.name}")


def uniform_(self: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: Generator | None = None, **kw: Any) -> Tensor:
    """Fill ``self`` in place with samples of ``U[from, to)``; returns self.

    Derivative: the draw does not depend on the old values: ``grad_self = 0`` (derivatives.yaml
    ``uniform_``: ``zeros_like(grad)``).

    Args:
        self (Tensor): ``(*)``, floating, overwritten.
        from_ (float): the lower bound (PyTorch's ``from``, also accepted as a keyword).
            Default: ``0.0``.
        to (float): the upper bound. Default: ``1.0``.
        generator (Generator, optional): keyword only; the Generator to draw from. Default:
            ``None`` (``dyngrad.default_generator``).
    Returns:
        Tensor: ``self`` itself, ``(*)``.
    Raises:
        RuntimeError: ``from > to``; an integer or bool tensor (NotImplementedError).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.empty(1000)
        >>> dyngrad.uniform_(x, -1.0, 1.0) is x
        True
        >>> bool(((x >= -1) & (x < 1)).all()), abs(x.mean().item()) < 0.1
        (True, True)
    """
    from_ = kw.pop("from", from_)
    _no_extra("uniform_", kw)
    _float_fill(self, "uniform_")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={from_} > to={to}")
    return _fill(Uniform, self, float(from_), float(to), generator)


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    """Fill ``self`` in place with samples of ``N(mean, std^2)``; returns self.

    Derivative: the draw does not depend on the old values: ``grad_self = 0`` (derivatives.yaml
    ``normal_``: ``zeros_like(grad)``).

    Args:
        self (Tensor): ``(*)``, floating, overwritten.
        mean (float): the mean. Default: ``0.0``.
        std (float): the standard deviation, ``>= 0``. Default: ``1.0``.
        generator (Generator, optional): keyword only; the Generator to draw from. Default:
            ``None`` (``dyngrad.default_generator``).
    Returns:
        Tensor: ``self`` itself, ``(*)``.
    Raises:
        RuntimeError: ``std < 0``; an integer or bool tensor (NotImplementedError).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.empty(2000)
        >>> dyngrad.normal_(x, 3.0, 0.5) is x
        True
        >>> abs(x.mean().item() - 3.0) < 0.1, abs(x.std().item() - 0.5) < 0.1
        (True, True)
    """
    _float_fill(self, "normal_")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    return _fill(Normal, self, float(mean), float(std), generator)


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
    """Fill ``self`` in place with Bernoulli samples: 1 with probability ``p``, else 0; returns ``self``.

    ``p`` is a number or a floating tensor of probabilities that broadcasts to ``self``'s shape;
    ``self`` may have any dtype (bool: ``True``/``False``). Not differentiable (overwrites).

    Args:
        self (Tensor): ``(*)``, any dtype, written in place.
        p (float or Tensor, optional): the probability. Default: ``0.5``.
        generator (Generator, optional): keyword-only; the generator to draw from. Default:
            ``None``.
    Returns:
        Tensor: ``self``, ``(*)``.
    Raises:
        RuntimeError: when ``p`` (or an element of it) is outside ``[0, 1]``, or ``self`` is a
            leaf that requires grad.
        NotImplementedError: when ``p`` is a non-floating tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.zeros(3, dtype=dyngrad.int64).bernoulli_(1.0)
        tensor([1, 1, 1])
        >>> x = dyngrad.zeros(3)
        >>> dyngrad.bernoulli_(x, dyngrad.tensor([0.0, 1.0, 1.0])) is x, x
        (True, tensor([0., 1., 1.]))
    """
    if isinstance(p, Tensor):
        from .copying import copy_
        from .sampling import bernoulli

        return copy_(self, bernoulli(p.expand(*self.shape) if tuple(p.shape) != tuple(self.shape) else p,
                                     generator=generator))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
    return _fill(BernoulliFill, self, float(p), generator)


def random_(self: Tensor, from_: Any = None, to: Any = None, *, generator: Generator | None = None, **kw: Any) -> Tensor:
    """Fill ``self`` in place with integers uniform on ``[from, to)``; ``random_(to)`` is
    ``[0, to)``; ``random_()`` covers ``[0, 2**mantissa]`` for floats (every integer the
    dtype holds exactly) and ``[0, max]`` for integer dtypes, as PyTorch. Returns self.

    Derivative: the draw does not depend on the old values: ``grad_self = 0`` (derivatives.yaml
    ``random_``: ``zeros_like(grad)``).

    Args:
        self (Tensor): ``(*)``, any dtype, overwritten.
        from_ (int, optional): the lower bound (``from`` as a keyword), or the upper bound
            when ``to`` is None. Default: ``None``.
        to (int, optional): the upper bound (exclusive). Default: ``None``.
        generator (Generator, optional): keyword only; the Generator to draw from. Default:
            ``None`` (``dyngrad.default_generator``).
    Returns:
        Tensor: ``self`` itself, ``(*)``.
    Raises:
        RuntimeError: ``from >= to``.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.empty(100, dtype=dyngrad.int64)
        >>> dyngrad.random_(x, 3, 6) is x
        True
        >>> sorted(set(x.tolist()))
        [3, 4, 5]
    """
    from_ = kw.pop("from", from_)
    _no_extra("random_", kw)
    if from_ is not None and to is None:
        from_, to = 0, from_
    low = 0 if from_ is None else int(from_)
    if to is None:
        dt = self._data.dtype
        if dt.kind == "f":
            high = 2 ** (np.finfo(dt).nmant + 1) + 1
        elif dt.kind == "b":
            high = 2
        else:
            high = int(np.iinfo(dt).max) + 1
    else:
        high = int(to)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    return _fill(Random, self, low, high, generator)


def exponential_(self: Tensor, lambd: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    """Fill ``self`` in place with samples of the exponential distribution of rate ``lambd``.

    The density is ``lambd * exp(-lambd * x)`` for ``x >= 0`` (mean ``1 / lambd``); returns
    ``self``. Random values differ from PyTorch's (another generator). Not differentiable
    (overwrites).

    Args:
        self (Tensor): ``(*)``, floating, written in place.
        lambd (float, optional): the rate, ``> 0``. Default: ``1.0``.
        generator (Generator, optional): keyword-only; the generator to draw from. Default:
            ``None``.
    Returns:
        Tensor: ``self``, ``(*)``, non-negative values.
    Raises:
        RuntimeError: when ``lambd <= 0``, ``self`` is not floating, or ``self`` is a leaf that
            requires grad.

    Example:
        >>> import dyngrad
        >>> g = dyngrad.Generator().manual_seed(0)
        >>> x = dyngrad.empty(10000).exponential_(2.0, generator=g)
        >>> bool((x >= 0).all()), abs(x.mean().item() - 0.5) < 0.05
        (True, True)
    """
    if B.kind(self._data) != "f":
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {self.dtype.name}")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    return _fill(Exponential, self, float(lambd), generator)


def geometric_(self: Tensor, p: float, *, generator: Generator | None = None) -> Tensor:
    """Fill ``self`` in place with the number of Bernoulli(``p``) trials up to the first
    success (1, 2, ...); any dtype.

    Derivative: the draw does not depend on the old values: ``grad_self = 0`` (derivatives.yaml
    ``geometric_``: ``zeros_like(grad)``).

    Args:
        self (Tensor): ``(*)``, any dtype, overwritten.
        p (float): the success probability, in ``(0, 1)``.
        generator (Generator, optional): keyword only; the Generator to draw from. Default:
            ``None`` (``dyngrad.default_generator``).
    Returns:
        Tensor: ``self`` itself, ``(*)``.
    Raises:
        RuntimeError: ``p`` outside ``(0, 1)``.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.empty(1000)
        >>> dyngrad.geometric_(x, 0.5) is x
        True
        >>> bool((x >= 1).all()), abs(x.mean().item() - 2.0) < 0.2
        (True, True)
    """
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    return _fill(Geometric, self, float(p), generator)


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    """Fill ``self`` in place with samples of the Cauchy distribution of location ``median``, scale ``sigma``.

    The density is ``1 / (pi * sigma * (1 + ((x - median) / sigma)**2))``; returns ``self``. Random values differ from PyTorch's (another generator). Not
    differentiable (overwrites).

    Args:
        self (Tensor): ``(*)``, floating, written in place.
        median (float, optional): the location. Default: ``0.0``.
        sigma (float, optional): the scale, ``> 0``. Default: ``1.0``.
        generator (Generator, optional): keyword-only; the generator to draw from. Default:
            ``None``.
    Returns:
        Tensor: ``self``, ``(*)``.
    Raises:
        RuntimeError: when ``sigma <= 0``, ``self`` is not floating, or ``self`` is a leaf that
            requires grad.

    Example:
        >>> import dyngrad
        >>> g = dyngrad.Generator().manual_seed(0)
        >>> x = dyngrad.empty(10001).cauchy_(median=2.0, generator=g)
        >>> abs(x.median().item() - 2.0) < 0.1
        True
    """
    if B.kind(self._data) != "f":
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {self.dtype.name}")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_num(sigma)}")
    return _fill(Cauchy, self, float(median), float(sigma), generator)


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Generator | None = None) -> Tensor:
    """Fill ``self`` in place with ``exp(N(mean, std^2))`` samples.

    Derivative: the draw does not depend on the old values: ``grad_self = 0`` (derivatives.yaml
    ``log_normal_``: ``zeros_like(grad)``).

    Args:
        self (Tensor): ``(*)``, floating, overwritten.
        mean (float): the mean of the underlying normal. Default: ``1.0``.
        std (float): its standard deviation, ``> 0``. Default: ``2.0``.
        generator (Generator, optional): keyword only; the Generator to draw from. Default:
            ``None`` (``dyngrad.default_generator``).
    Returns:
        Tensor: ``self`` itself, ``(*)``.
    Raises:
        RuntimeError: ``std <= 0``.
        NotImplementedError: an integer or bool tensor (a RuntimeError subclass).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.empty(2000)
        >>> dyngrad.log_normal_(x, 0.0, 0.25) is x
        True
        >>> bool((x > 0).all()), abs(x.log().mean().item()) < 0.05
        (True, True)
    """
    if B.kind(self._data) != "f":
        # (PyTorch's NotImplementedError, a RuntimeError subclass: "log_normal_cpu" not implemented)
        raise NotImplementedError("log_normal_ expects a floating point tensor, but got " + self.dtype.name)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    return _fill(LogNormal, self, float(mean), float(std), generator)

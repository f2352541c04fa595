"""Draws parameterised by tensors: ``normal`` (all four of PyTorch's overloads),
``bernoulli``, ``poisson``, ``multinomial``. Their tensor arguments are distribution
parameters (:class:`~dyngrad.ops.random.ParamDraw`): under vmap with ``randomness='same'``
a batched parameter raises (as PyTorch); 'different' draws once with the parameters
batched. The samples of ``normal``, ``bernoulli`` and ``poisson`` require grad when their
parameters do, with a zero gradient (PyTorch 2.13; not reparameterised)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..creation import Generator, _size, rng_of
from ..tensor import Tensor, check_device
from .random import NormalSized, ParamDraw, _finish, _float_dtype, _need_float, _num, _out
from .. import _backend as B

__all__ = ["normal", "bernoulli", "multinomial", "poisson"]
TENSOR_METHODS = {"bernoulli", "multinomial"}


class NormalTensor(ParamDraw):
    """``N(mean, std^2)`` with ``mean`` and/or ``std`` a tensor (they broadcast)."""

    _node_name = "NormalBackward3"

    @staticmethod
    def forward(ctx: Any, mean: Any, std: Any, generator: Any) -> Tensor:
        m = mean._data if isinstance(mean, Tensor) else mean
        s = std._data if isinstance(std, Tensor) else std
        if isinstance(std, Tensor) and np.any(s < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        shape = np.broadcast_shapes(np.shape(m), np.shape(s))
        dts = [a._data.dtype for a in (mean, std) if isinstance(a, Tensor)]
        nd = np.result_type(*dts)
        return _out(m + s * rng_of(generator).standard_normal(shape), nd)


class Bernoulli(ParamDraw):
    """1 with probability ``input`` (elementwise), else 0, in ``input``'s dtype."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, generator: Any) -> Tensor:
        p = input._data
        if np.any(~((p >= 0) & (p <= 1))):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        return _out(rng_of(generator).random(p.shape) < p, p.dtype)


class BernoulliP(ParamDraw):
    """1 with probability ``p`` (a number) shaped like ``input``, in its dtype."""

    _node_name = "BernoulliBackward1"

    @staticmethod
    def forward(ctx: Any, input: Tensor, p: float, generator: Any) -> Tensor:
        return _out(rng_of(generator).random(input._data.shape) < p, input._data.dtype)


class Poisson(ParamDraw):
    """Poisson samples of rate ``input`` (elementwise), in its dtype."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, generator: Any) -> Tensor:
        lam = input._data
        if np.any(~(lam >= 0)):
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        return _out(rng_of(generator).poisson(lam), lam.dtype)


class Multinomial(ParamDraw):
    """``num_samples`` category indices per row of ``input`` (``(*, k)`` weights, any
    number of leading dims here: the public function allows 1 or 2 dims, as PyTorch)."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, num_samples: int, replacement: bool, generator: Any) -> Tensor:
        w = input._data.astype(np.float64)
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        k = w.shape[-1]
        rows = w.reshape(-1, k)
        tot = rows.sum(-1, keepdims=True)
        if np.any(tot <= 0):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        rng = rng_of(generator)
        probs = rows / tot
        if replacement:  # inverse CDF, all rows at once
            cdf = np.cumsum(probs, axis=-1)
            u = rng.random((rows.shape[0], num_samples)) * cdf[:, -1:]
            idx = (u[:, :, None] >= cdf[:, None, :]).sum(-1)
            idx = np.minimum(idx, k - 1)
        else:
            if np.any((rows > 0).sum(-1) < num_samples):
                raise RuntimeError("invalid multinomial distribution (with replacement=False, not enough non-negative category to sample)")
            # Gumbel top-k (exponential race): sampling without replacement, all rows at once
            with np.errstate(divide="ignore"):
                keys = np.log(probs) - np.log(rng.exponential(1.0, rows.shape))
            idx = np.argsort(-keys, axis=-1, kind="stable")[:, :num_samples]
        out = Tensor._make(idx.reshape((*w.shape[:-1], num_samples)).astype(np.int64))
        ctx.mark_non_differentiable(out)
        return out


def normal(mean: Any = 0.0, std: Any = 1.0, size: Any = None, *, generator: Generator | None = None,
           dtype: Any = None, device: Any = None, requires_grad: bool = False, out: Any = None) -> Tensor:
    """Normal samples, PyTorch's four overloads:

    * ``normal(mean: Tensor, std: Tensor)``: one sample per element of the broadcast shape;
    * ``normal(mean: Tensor, std: float = 1)`` and ``normal(mean: float, std: Tensor)``;
    * ``normal(mean: float, std: float, size)`` (with ``dtype``, ``requires_grad``).

    With tensor arguments the result has their (promoted) dtype and requires grad when they
    do, with a zero gradient (PyTorch: the sample is not reparameterised).

    Derivative: ``grad_mean = 0``, ``grad_std = 0`` (derivatives.yaml ``normal``:
    ``zeros_like``; use ``mean + std * randn_like(mean)`` for a reparameterised sample).

    Args:
        mean (Tensor or float): the means, ``(*)``. Default: ``0.0``.
        std (Tensor or float): the standard deviations, ``>= 0``, broadcastable with
            ``mean``. Default: ``1.0``.
        size (sequence of int, optional): the result's shape, only with two numbers.
            Default: ``None``.
        generator (Generator, optional): keyword only; the Generator to draw from. Default:
            ``None`` (``dyngrad.default_generator``).
        dtype (dtype, optional): keyword only, with two numbers: the result's floating
            dtype. Default: ``None`` (the default dtype).
        device: keyword only; ``None`` or ``'cpu'``.
        requires_grad (bool): keyword only, with two numbers. Default: ``False``.
        out (Tensor, optional): keyword only; write the result here (see dyngrad/_out.py).
    Returns:
        Tensor: the broadcast shape of ``mean`` and ``std``, or ``size``.
    Raises:
        RuntimeError: a negative std; shapes that do not broadcast.
        TypeError: two numbers and no size, or ``size`` with a Tensor argument.
        NotImplementedError: an integer ``mean`` or ``std`` tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.normal(0.0, 1.0, (2, 3)).shape
        dyngrad.Size([2, 3])
        >>> dyngrad.normal(dyngrad.tensor([0.0, 10.0]), 0.0)
        tensor([ 0., 10.])
        >>> x = dyngrad.normal(dyngrad.full((2000,), 3.0), dyngrad.tensor(0.5))
        >>> abs(x.mean().item() - 3.0) < 0.1
        True
    """
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        if size is not None:
            raise TypeError("normal(): size is only accepted with a float mean and std")
        for a in (mean, std):
            if isinstance(a, Tensor) and B.kind(a._data) != "f":
                raise NotImplementedError(f"normal: only floating dtypes are supported, got {a.dtype.name}")
        if not isinstance(std, Tensor) and std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
        if isinstance(mean, Tensor) and isinstance(std, Tensor):
            _check_broadcast(tuple(mean.shape), tuple(std.shape))
        return NormalTensor.apply(mean, std, generator)
    if size is None:
        raise TypeError(
            "normal() received an invalid combination of arguments - got (float, float), but expected "
            "one of: (Tensor mean, Tensor std), (Tensor mean, float std), (float mean, Tensor std), "
            "(float mean, float std, tuple of ints size)"
        )
    check_device(device)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    nd = _need_float(_float_dtype(dtype), "normal")
    sz = _size(tuple(size)) if isinstance(size, (tuple, list)) else _size((size,))
    return _finish(NormalSized.apply(sz, float(mean), float(std), nd, generator), requires_grad)


def _check_broadcast(a: tuple, b: tuple) -> None:
    """PyTorch's RuntimeError for shapes that do not broadcast."""
    for k in range(1, min(len(a), len(b)) + 1):
        x, y = a[-k], b[-k]
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                f"dimension {max(len(a), len(b)) - k}"
            )


def bernoulli(input: Tensor, p: Any = None, *, generator: Generator | None = None, out: Any = None) -> Tensor:
    """Samples of Bernoulli distributions: 1 with probability ``input`` (elementwise), else 0.

    With ``p`` given, every element is 1 with probability ``p`` instead (``input`` gives only the
    shape and dtype). Random values differ from PyTorch's (another generator); seeded draws are
    reproducible.

    Derivative: ``grad_input = 0`` (the sample is not reparameterised; the result requires grad
    when ``input`` does, as PyTorch's ``BernoulliBackward0``).

    Args:
        input (Tensor): ``(*)``, floating, the probabilities in ``[0, 1]``.
        p (float, optional): one probability for every element. Default: ``None``.
        generator (Generator, optional): keyword-only; the generator to draw from. Default:
            ``None`` (the default generator).
        out (Tensor, optional): keyword-only; the result is written into it. Default: ``None``.
    Returns:
        Tensor: ``(*)``, ``input``'s shape and dtype, of 0s and 1s.
    Raises:
        RuntimeError: when a probability is outside ``[0, 1]``.
        NotImplementedError: when ``input`` is not floating (a RuntimeError subclass).

    Example:
        >>> import dyngrad
        >>> dyngrad.bernoulli(dyngrad.tensor([0.0, 1.0, 1.0]))
        tensor([0., 1., 1.])
        >>> g = dyngrad.Generator().manual_seed(0)
        >>> dyngrad.bernoulli(dyngrad.full((1000,), 0.3), generator=g).mean().item() < 0.4
        True
    """
    if B.kind(input._data) != "f":
        raise NotImplementedError(f"bernoulli: only floating dtypes are supported, got {input.dtype.name}")
    if p is not None:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
        return BernoulliP.apply(input, float(p), generator)
    return Bernoulli.apply(input, generator)


def poisson(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Poisson samples with rates ``input`` (floating), in its dtype; zero gradient.

    Derivative: ``grad_input = 0`` (derivatives.yaml ``poisson``: ``zeros_like(self)``).

    Args:
        input (Tensor): ``(*)``, floating, the rates ``>= 0``.
        generator (Generator, optional): the Generator to draw from. Default: ``None``
            (``dyngrad.default_generator``).
    Returns:
        Tensor: ``(*)``, ``input``'s dtype, non-negative integral values.
    Raises:
        RuntimeError: a negative rate; an integer input (NotImplementedError).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.poisson(dyngrad.full((2000,), 4.0))
        >>> bool((x == x.round()).all()), abs(x.mean().item() - 4.0) < 0.2
        (True, True)
        >>> dyngrad.poisson(dyngrad.zeros(2))
        tensor([0., 0.])
    """
    if B.kind(input._data) != "f":
        raise NotImplementedError(f"poisson: only floating dtypes are supported, got {input.dtype.name}")
    return Poisson.apply(input, generator)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator: Generator | None = None,
                out: Any = None) -> Tensor:
    """Category indices drawn with probabilities proportional to the non-negative weights
    ``input`` (``(k,)`` gives ``(num_samples,)``; ``(n, k)`` one row of samples per row),
    int64, without replacement unless ``replacement``.

    Not differentiable: the result is an int64 index tensor.

    Args:
        input (Tensor): ``(k)`` or ``(n, k)``, floating, non-negative weights (need not sum
            to 1).
        num_samples (int): how many indices per row, ``> 0``.
        replacement (bool): draw with replacement. Default: ``False``.
        generator (Generator, optional): keyword only; the Generator to draw from. Default:
            ``None`` (``dyngrad.default_generator``).
        out (Tensor, optional): keyword only; write the result here.
    Returns:
        Tensor: int64, ``(num_samples)`` or ``(n, num_samples)``.
    Raises:
        RuntimeError: ``input`` not 1-d or 2-d, a non-floating dtype, negative/inf/nan
            weights, a row summing to 0, ``num_samples <= 0``, or more samples than
            categories without replacement; also (unlike PyTorch 2.13, which then returns
            zero-weight categories) more samples than nonzero weights without replacement.

    Example:
        >>> import dyngrad
        >>> dyngrad.multinomial(dyngrad.tensor([0.0, 1.0, 0.0]), 3, replacement=True)
        tensor([1, 1, 1])
        >>> dyngrad.multinomial(dyngrad.tensor([[0.0, 1.0], [1.0, 0.0]]), 1)
        tensor([[1],
                [0]])
        >>> sorted(dyngrad.multinomial(dyngrad.tensor([1.0, 2.0, 3.0]), 3).tolist())
        [0, 1, 2]
    """
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if B.kind(input._data) != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype.name}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > input.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    return Multinomial.apply(input, int(num_samples), bool(replacement), generator)

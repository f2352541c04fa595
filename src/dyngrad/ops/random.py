"""Random sampling: every draw is a :class:`RandomOp` (an autograd.Function with
``random = True``), so that a transform sees it go by (``vmap``'s ``randomness`` argument
decides what a draw inside vmap means: see docs/transforms.md).

Three kinds, each with one batching rule shared by the kind:

* *sized* draws, ``forward(ctx, size, ...)``: ``rand``, ``randn``, ``randint``,
  ``normal(float, float, size)`` and ``randperm`` (whose ``size`` is the shape of the batch
  of permutations). Under ``randomness='different'`` the rule draws ``(batch_size, *size)``
  in one call.
* *like* draws, ``forward(ctx, input, ...)``, where ``input`` gives only the shape (and
  dtype): ``rand_like``, ``randn_like``, ``randint_like``, dropout's mask and the in-place
  fills (``uniform_``, ``normal_``, ``bernoulli_(float)``, ``random_``, ``exponential_``,
  ``geometric_``, ``cauchy_``, ``log_normal_``). 'same' draws one example's worth for the
  whole batch; 'different' draws the batched shape.
* *parameterised* draws, whose tensor arguments are distribution parameters:
  ``normal(mean, std)`` with a tensor, ``bernoulli``, ``poisson``, ``multinomial``. 'different'
  draws once with the parameters batched; 'same' with a batched parameter raises (as
  PyTorch's vmap does).

Gradients follow PyTorch 2.13 (derivatives.yaml): the samples of ``normal``, ``bernoulli``,
``poisson`` and the in-place fills have a zero gradient with respect to their tensor
arguments (they are not reparameterised; ``mean + std * randn_like(std)`` is); the ``*_like``
draws and ``multinomial`` do not require grad. Dropout is ``input * mask`` with the mask a
like draw, so its gradient is ``grad * mask / (1 - p)`` (PyTorch's node is ``MulBackward0``
too).

The numbers come from NumPy's PCG64 through a :class:`~dyngrad.creation.Generator`: seeding
makes them reproducible within dyngrad, but they are not PyTorch's streams.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..creation import Generator, _size, rng_of
from ..tensor import Tensor, check_device
from ._bases import Op
from ._batching import front, logical_ndim, pad_to
from ._util import inplace

__all__ = [
    "rand", "randn", "randint", "randperm", "normal", "rand_like", "randn_like", "randint_like",
    "bernoulli", "multinomial", "poisson",
    "uniform_", "normal_", "bernoulli_", "random_", "exponential_", "geometric_", "cauchy_", "log_normal_",
]
TENSOR_METHODS = {
    "bernoulli", "multinomial",
    "uniform_", "normal_", "bernoulli_", "random_", "exponential_", "geometric_", "cauchy_", "log_normal_",
}

_SAME_BATCHED = (
    "Vmap does not currently support same randomness with a batched tensor input. "
    "Please file an issue with functorch"
)
_INPLACE_DIFFERENT = (
    "vmap: Cannot ask for different inplace randomness on an unbatched tensor. This will appear "
    "like same randomness. If this is necessary for your usage, please file an issue with functorch."
)


class RandomOp(Op):
    """Base of the random ops: ``random = True`` (a vmap level handles the call by its
    randomness mode even when no argument is batched; see ``Function.random``). A subclass
    takes the batching rule of its kind (below) or states its own."""

    random = True

    @staticmethod
    def vmap(info: Any, in_dims: tuple, *args: Any) -> Any:
        raise RuntimeError(
            f"vmap: {info.function.__name__} draws random numbers but states no batching rule "
            "(derive it from SizedDraw, LikeDraw or ParamDraw, or give it a vmap rule)"
        )

    @staticmethod
    def jvp(ctx: Any, *tangents: Any) -> Any:
        """No tangent: a sample does not move with its arguments (draws of a size take no
        tensor; parameterised draws have a zero derivative, as PyTorch's)."""
        return None


# ------------------------------------------------------------------ batching rules
def _sized_vmap(info: Any, in_dims: tuple, size: tuple, *rest: Any) -> tuple:
    """'different' (the only mode that reaches a rule without a batched argument): one draw
    of ``(batch_size, *size)``."""
    return info.function.apply((info.batch_size, *size), *rest), 0


def _like_vmap(info: Any, in_dims: tuple, input: Tensor, *rest: Any) -> tuple:
    """``input`` gives the shape: 'same' draws one example's shape (shared by the batch),
    'different' the batched shape. An in-place fill of an unbatched tensor cannot hold one
    draw per example (PyTorch's error)."""
    cls, d = info.function, in_dims[0]
    if d is None:  # 'different' with nothing batched
        if cls.inplace_fill:
            raise RuntimeError(_INPLACE_DIFFERENT)
        return cls.apply(input.unsqueeze(0).expand(info.batch_size, *input.shape), *rest), 0
    if info.randomness == "same":
        return cls.apply(input.select(d, 0), *rest), None
    return cls.apply(input, *rest), d


def _param_vmap(info: Any, in_dims: tuple, *args: Any) -> tuple:
    """Tensor arguments are parameters: 'same' with a batched one raises (PyTorch); otherwise
    batch dims go to the front (per-example ranks aligned) and one draw covers the batch."""
    if info.randomness == "same":
        raise RuntimeError(_SAME_BATCHED)
    tensors = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    rank = max(logical_ndim(args[i], in_dims[i]) for i in tensors)
    new = list(args)
    for i in tensors:
        if in_dims[i] is not None:
            new[i] = pad_to(front(args[i], in_dims[i]), rank)
    if all(in_dims[i] is None for i in tensors):  # 'different' with nothing batched
        a = args[tensors[0]]
        new[tensors[0]] = a.unsqueeze(0).expand(info.batch_size, *a.shape)
    return info.function.apply(*new), 0


class SizedDraw(RandomOp):
    vmap = staticmethod(_sized_vmap)


class LikeDraw(RandomOp):
    """``forward(ctx, input, ...)``: a draw shaped like ``input``. ``inplace_fill``: the draw
    backs an in-place fill (its output is differentiable with a zero gradient, as PyTorch's
    ``UniformBackward0`` & co.); otherwise the output does not require grad."""

    vmap = staticmethod(_like_vmap)
    inplace_fill = False

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Any:
        n = len(ctx.needs_input_grad)
        return (g * 0, *(None,) * (n - 1))

    @staticmethod
    def jvp(ctx: Any, u: Any, *rest: Any) -> Any:
        return None if u is None else u * 0


class ParamDraw(RandomOp):
    """A draw whose tensor arguments are the distribution's parameters; zero gradients."""

    vmap = staticmethod(_param_vmap)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Any:
        return tuple(g * 0 if need else None for need in ctx.needs_input_grad)


# ------------------------------------------------------------------ dtype and argument checks
def _float_dtype(dtype: Any) -> np.dtype:
    return B.to_np_dtype(dtype) if dtype is not None else B.get_default_dtype().np


def _need_float(nd: np.dtype, op: str) -> np.dtype:
    """A floating draw into an integer or bool dtype: PyTorch's NotImplementedError (a
    RuntimeError)."""
    if nd.kind != "f":
        raise NotImplementedError(f"{op}: only floating dtypes are supported, got {B.from_np_dtype(nd).name}")
    return nd


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        t.requires_grad = True
    return t


def _out(arr: Any, nd: np.dtype) -> Tensor:
    return Tensor._make(np.asarray(arr).astype(nd, copy=False))


# ------------------------------------------------------------------ sized draws
class Rand(SizedDraw):
    """``U[0, 1)`` of shape ``size``."""

    @staticmethod
    def forward(ctx: Any, size: tuple, nd: np.dtype, generator: Any) -> Tensor:
        return _out(rng_of(generator).random(size), nd)


class Randn(SizedDraw):
    """``N(0, 1)`` of shape ``size``."""

    @staticmethod
    def forward(ctx: Any, size: tuple, nd: np.dtype, generator: Any) -> Tensor:
        return _out(rng_of(generator).standard_normal(size), nd)


class Randint(SizedDraw):
    """Integers uniform on ``[low, high)`` of shape ``size``."""

    @staticmethod
    def forward(ctx: Any, size: tuple, low: int, high: int, nd: np.dtype, generator: Any) -> Tensor:
        return _out(rng_of(generator).integers(low, high, size), nd)


class NormalSized(SizedDraw):
    """``N(mean, std^2)`` of shape ``size`` (numbers ``mean`` and ``std``)."""

    _node_name = "NormalBackward0"

    @staticmethod
    def forward(ctx: Any, size: tuple, mean: float, std: float, nd: np.dtype, generator: Any) -> Tensor:
        return _out(rng_of(generator).normal(mean, std, size), nd)


class Randperm(SizedDraw):
    """A random permutation of ``0..n-1`` for each index of ``size`` (output ``(*size, n)``)."""

    @staticmethod
    def forward(ctx: Any, size: tuple, n: int, nd: np.dtype, generator: Any) -> Tensor:
        rng = rng_of(generator)
        if not size:
            return _out(rng.permutation(n), nd)
        return _out(rng.permuted(np.broadcast_to(np.arange(n), (*size, n)), axis=-1), nd)


def rand(*size: Any, generator: Generator | None = None, dtype: Any = None, device: Any = None,
         requires_grad: bool = False, out: Any = None) -> Tensor:
    """Uniform samples on ``[0, 1)``.

    Args:
        size: the shape (ints, or one tuple/list).
        generator: the Generator to draw from (default: the default one).
        dtype: a floating dtype (default: the default dtype).
        requires_grad: make the result a leaf that requires grad.
    Returns:
        A new Tensor of shape ``size``.
    Raises:
        RuntimeError: an integer or bool dtype (NotImplementedError, as PyTorch); a negative size.
    """
    check_device(device)
    nd = _need_float(_float_dtype(dtype), "rand")
    return _finish(Rand.apply(_size(size), nd, generator), requires_grad)


def randn(*size: Any, generator: Generator | None = None, dtype: Any = None, device: Any = None,
          requires_grad: bool = False, out: Any = None) -> Tensor:
    """Standard normal samples (same arguments as :func:`rand`)."""
    check_device(device)
    nd = _need_float(_float_dtype(dtype), "randn")
    return _finish(Randn.apply(_size(size), nd, generator), requires_grad)


def randint(low: int, high: Any = None, size: Any = None, *, generator: Generator | None = None,
            dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Integers uniform on ``[low, high)`` of shape ``size`` (int64 by default);
    ``randint(high, size)`` draws from ``[0, high)``.

    Raises:
        TypeError: no size. RuntimeError: ``low >= high``; requires_grad on an integer dtype.
    """
    check_device(device)
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        raise TypeError("randint() missing required argument 'size'")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    nd = B.to_np_dtype(dtype) if dtype is not None else np.dtype(np.int64)
    return _finish(Randint.apply(_size((size,)), int(low), int(high), nd, generator), requires_grad)


def randperm(n: int, *, generator: Generator | None = None, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    """A random permutation of ``0..n-1`` (int64 by default).

    Raises:
        RuntimeError: ``n < 0``.
    """
    check_device(device)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    nd = B.to_np_dtype(dtype) if dtype is not None else np.dtype(np.int64)
    return _finish(Randperm.apply((), int(n), nd, generator), requires_grad)


# ------------------------------------------------------------------ like draws
class RandLike(LikeDraw):
    @staticmethod
    def forward(ctx: Any, input: Tensor, nd: np.dtype, generator: Any) -> Tensor:
        out = _out(rng_of(generator).random(input.data.shape), nd)
        ctx.mark_non_differentiable(out)
        return out


class RandnLike(LikeDraw):
    @staticmethod
    def forward(ctx: Any, input: Tensor, nd: np.dtype, generator: Any) -> Tensor:
        out = _out(rng_of(generator).standard_normal(input.data.shape), nd)
        ctx.mark_non_differentiable(out)
        return out


class RandintLike(LikeDraw):
    @staticmethod
    def forward(ctx: Any, input: Tensor, low: int, high: int, nd: np.dtype, generator: Any) -> Tensor:
        out = _out(rng_of(generator).integers(low, high, input.data.shape), nd)
        ctx.mark_non_differentiable(out)
        return out


class DropoutMask(LikeDraw):
    """``(U[0,1) >= p) / (1 - p)`` shaped like ``input`` in its dtype (0 everywhere for
    ``p = 1``): the factor of inverted dropout."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, p: float, generator: Any) -> Tensor:
        dt = input.data.dtype
        if p == 1.0:
            out = Tensor._make(np.zeros(input.data.shape, dt))
        else:
            keep = rng_of(generator).random(input.data.shape) >= p
            out = Tensor._make(keep.astype(dt) / np.asarray(1 - p, dt))
        ctx.mark_non_differentiable(out)
        return out


class KeepMask(LikeDraw):
    """1 with probability ``1 - p`` else 0, shaped like ``input`` in its dtype (alpha dropout's
    mask, which it scales itself)."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, p: float, generator: Any) -> Tensor:
        keep = rng_of(generator).random(input.data.shape) >= p
        out = Tensor._make(keep.astype(input.data.dtype))
        ctx.mark_non_differentiable(out)
        return out


def _like_dtype(input: Tensor, dtype: Any) -> np.dtype:
    return B.to_np_dtype(dtype) if dtype is not None else input.data.dtype


def rand_like(input: Tensor, *, dtype: Any = None, generator: Generator | None = None, requires_grad: bool = False,
              device: Any = None, memory_format: Any = None, layout: Any = None) -> Tensor:
    """Uniform ``[0, 1)`` samples with ``input``'s shape (and dtype unless given).

    Raises:
        RuntimeError: a non-floating dtype (NotImplementedError, as PyTorch).
    """
    nd = _need_float(_like_dtype(input, dtype), "rand_like")
    return _finish(RandLike.apply(input, nd, generator), requires_grad)


def randn_like(input: Tensor, *, dtype: Any = None, generator: Generator | None = None, requires_grad: bool = False,
               device: Any = None, memory_format: Any = None, layout: Any = None) -> Tensor:
    """Standard normal samples with ``input``'s shape (see :func:`rand_like`)."""
    nd = _need_float(_like_dtype(input, dtype), "randn_like")
    return _finish(RandnLike.apply(input, nd, generator), requires_grad)


def randint_like(input: Tensor, low: int, high: Any = None, *, dtype: Any = None, generator: Generator | None = None,
                 requires_grad: bool = False, device: Any = None, memory_format: Any = None) -> Tensor:
    """Integers uniform on ``[low, high)`` with ``input``'s shape and dtype (a float input
    gives integral floats, as PyTorch); ``randint_like(input, high)`` from ``[0, high)``.

    Raises:
        RuntimeError: ``low >= high``.
    """
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    return _finish(RandintLike.apply(input, int(low), int(high), _like_dtype(input, dtype), generator), requires_grad)


def dropout_mask(input: Tensor, p: float, generator: Generator | None = None) -> Tensor:
    """The factor of inverted dropout shaped like ``input``: 0 with probability ``p``, else
    ``1 / (1 - p)`` (does not require grad). ``nn.functional.dropout`` is ``input *
    dropout_mask(input, p)``."""
    return DropoutMask.apply(input, float(p), generator)


def keep_mask(input: Tensor, p: float, generator: Generator | None = None) -> Tensor:
    """1 with probability ``1 - p`` else 0, shaped like ``input`` (does not require grad)."""
    return KeepMask.apply(input, float(p), generator)


# ------------------------------------------------------------------ in-place fills
class _Fill(LikeDraw):
    """A draw shaped like ``input`` in its dtype, written back by an in-place fill."""

    inplace_fill = True


class Uniform(_Fill):
    @staticmethod
    def forward(ctx: Any, input: Tensor, low: float, high: float, generator: Any) -> Tensor:
        return _out(rng_of(generator).uniform(low, high, input.data.shape), input.data.dtype)


class Normal(_Fill):
    @staticmethod
    def forward(ctx: Any, input: Tensor, mean: float, std: float, generator: Any) -> Tensor:
        return _out(rng_of(generator).normal(mean, std, input.data.shape), input.data.dtype)


class BernoulliFill(_Fill):
    _node_name = "BernoulliBackward1"

    @staticmethod
    def forward(ctx: Any, input: Tensor, p: float, generator: Any) -> Tensor:
        return _out(rng_of(generator).random(input.data.shape) < p, input.data.dtype)


class Random(_Fill):
    _node_name = "RandomBackward2"

    @staticmethod
    def forward(ctx: Any, input: Tensor, low: int, high: int, generator: Any) -> Tensor:
        return _out(rng_of(generator).integers(low, high, input.data.shape, endpoint=False), input.data.dtype)


class Exponential(_Fill):
    @staticmethod
    def forward(ctx: Any, input: Tensor, lambd: float, generator: Any) -> Tensor:
        return _out(rng_of(generator).exponential(1.0 / lambd, input.data.shape), input.data.dtype)


class Geometric(_Fill):
    @staticmethod
    def forward(ctx: Any, input: Tensor, p: float, generator: Any) -> Tensor:
        return _out(rng_of(generator).geometric(p, input.data.shape), input.data.dtype)


class Cauchy(_Fill):
    @staticmethod
    def forward(ctx: Any, input: Tensor, median: float, sigma: float, generator: Any) -> Tensor:
        return _out(median + sigma * rng_of(generator).standard_cauchy(input.data.shape), input.data.dtype)


class LogNormal(_Fill):
    @staticmethod
    def forward(ctx: Any, input: Tensor, mean: float, std: float, generator: Any) -> Tensor:
        return _out(rng_of(generator).lognormal(mean, std, input.data.shape), input.data.dtype)


def _fill(cls: type, self: Tensor, *args: Any) -> Tensor:
    def draw(t: Tensor, *a: Any) -> Tensor:
        return cls.apply(t, *a)

    draw.__name__ = cls.__name__.lower()
    return inplace(draw, self, *args)


def _float_fill(self: Tensor, op: str) -> None:
    if self.data.dtype.kind != "f":
        raise NotImplementedError(f"{op}: only floating dtypes are supported, got {self.dtype.name}")


def uniform_(self: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: Generator | None = None, **kw: Any) -> Tensor:
    """Fill ``self`` in place with samples of ``U[from, to)``; returns self.

    Args:
        from_: the lower bound (PyTorch's ``from``, also accepted as a keyword).
        to: the upper bound.
        generator: the Generator to draw from.
    Raises:
        RuntimeError: ``from > to``; an integer or bool tensor (NotImplementedError).
    """
    from_ = kw.pop("from", from_)
    _no_extra("uniform_", kw)
    _float_fill(self, "uniform_")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={from_} > to={to}")
    return _fill(Uniform, self, float(from_), float(to), generator)


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    """Fill ``self`` in place with samples of ``N(mean, std^2)``; returns self.

    Raises:
        RuntimeError: ``std < 0``; an integer or bool tensor (NotImplementedError).
    """
    _float_fill(self, "normal_")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    return _fill(Normal, self, float(mean), float(std), generator)


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
    """Fill ``self`` in place with 1 with probability ``p`` (a number, or a tensor that
    broadcasts to ``self``), else 0; any dtype. Returns self.

    Raises:
        RuntimeError: ``p`` outside ``[0, 1]``.
    """
    if isinstance(p, Tensor):
        from .copying import copy_

        return copy_(self, bernoulli(p.expand(*self.shape) if tuple(p.shape) != tuple(self.shape) else p,
                                     generator=generator))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
    return _fill(BernoulliFill, self, float(p), generator)


def random_(self: Tensor, from_: Any = None, to: Any = None, *, generator: Generator | None = None, **kw: Any) -> Tensor:
    """Fill ``self`` in place with integers uniform on ``[from, to)``; ``random_(to)`` is
    ``[0, to)``; ``random_()`` covers ``[0, 2**mantissa]`` for floats (every integer the
    dtype holds exactly) and ``[0, max]`` for integer dtypes, as PyTorch. Returns self.

    Raises:
        RuntimeError: ``from >= to``.
    """
    from_ = kw.pop("from", from_)
    _no_extra("random_", kw)
    if from_ is not None and to is None:
        from_, to = 0, from_
    low = 0 if from_ is None else int(from_)
    if to is None:
        dt = self.data.dtype
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

    Raises:
        RuntimeError: ``lambd <= 0``; an integer or bool tensor.
    """
    if self.data.dtype.kind != "f":
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {self.dtype.name}")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    return _fill(Exponential, self, float(lambd), generator)


def geometric_(self: Tensor, p: float, *, generator: Generator | None = None) -> Tensor:
    """Fill ``self`` in place with the number of Bernoulli(``p``) trials up to the first
    success (1, 2, ...); any dtype.

    Raises:
        RuntimeError: ``p`` outside ``(0, 1)``.
    """
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    return _fill(Geometric, self, float(p), generator)


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    """Fill ``self`` in place with samples of the Cauchy distribution.

    Raises:
        RuntimeError: ``sigma <= 0``; an integer or bool tensor.
    """
    if self.data.dtype.kind != "f":
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {self.dtype.name}")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_num(sigma)}")
    return _fill(Cauchy, self, float(median), float(sigma), generator)


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Generator | None = None) -> Tensor:
    """Fill ``self`` in place with ``exp(N(mean, std^2))`` samples.

    Raises:
        RuntimeError: ``std <= 0``; an integer or bool tensor.
    """
    if self.data.dtype.kind != "f":
        raise RuntimeError("log_normal_ expects a floating point tensor, but got " + self.dtype.name)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    return _fill(LogNormal, self, float(mean), float(std), generator)


def _num(v: Any) -> str:
    """A number as PyTorch prints it in these messages (``-1``, not ``-1.0``)."""
    f = float(v)
    return str(int(f)) if f.is_integer() else str(f)


def _no_extra(op: str, kw: dict) -> None:
    if kw:
        raise TypeError(f"{op}() got an unexpected keyword argument '{next(iter(kw))}'")


# ------------------------------------------------------------------ parameterised draws
class NormalTensor(ParamDraw):
    """``N(mean, std^2)`` with ``mean`` and/or ``std`` a tensor (they broadcast)."""

    _node_name = "NormalBackward3"

    @staticmethod
    def forward(ctx: Any, mean: Any, std: Any, generator: Any) -> Tensor:
        m = mean.data if isinstance(mean, Tensor) else mean
        s = std.data if isinstance(std, Tensor) else std
        if isinstance(std, Tensor) and np.any(s < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        shape = np.broadcast_shapes(np.shape(m), np.shape(s))
        dts = [a.data.dtype for a in (mean, std) if isinstance(a, Tensor)]
        nd = np.result_type(*dts)
        return _out(m + s * rng_of(generator).standard_normal(shape), nd)


class Bernoulli(ParamDraw):
    """1 with probability ``input`` (elementwise), else 0, in ``input``'s dtype."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, generator: Any) -> Tensor:
        p = input.data
        if np.any(~((p >= 0) & (p <= 1))):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        return _out(rng_of(generator).random(p.shape) < p, p.dtype)


class BernoulliP(ParamDraw):
    """1 with probability ``p`` (a number) shaped like ``input``, in its dtype."""

    _node_name = "BernoulliBackward1"

    @staticmethod
    def forward(ctx: Any, input: Tensor, p: float, generator: Any) -> Tensor:
        return _out(rng_of(generator).random(input.data.shape) < p, input.data.dtype)


class Poisson(ParamDraw):
    """Poisson samples of rate ``input`` (elementwise), in its dtype."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, generator: Any) -> Tensor:
        lam = input.data
        if np.any(~(lam >= 0)):
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        return _out(rng_of(generator).poisson(lam), lam.dtype)


class Multinomial(ParamDraw):
    """``num_samples`` category indices per row of ``input`` (``(*, k)`` weights, any
    number of leading dims here: the public function allows 1 or 2 dims, as PyTorch)."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, num_samples: int, replacement: bool, generator: Any) -> Tensor:
        w = input.data.astype(np.float64)
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

    Raises:
        RuntimeError: a negative std; shapes that do not broadcast.
        TypeError: two numbers and no size.
    """
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        if size is not None:
            raise TypeError("normal(): size is only accepted with a float mean and std")
        for a in (mean, std):
            if isinstance(a, Tensor) and a.data.dtype.kind != "f":
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
    """1 with probability ``input`` (elementwise; or with probability ``p`` for every
    element when given), else 0, in ``input``'s floating dtype. The result requires grad
    when ``input`` does, with a zero gradient (as PyTorch).

    Raises:
        RuntimeError: probabilities outside ``[0, 1]``; an integer input (NotImplementedError).
    """
    if input.data.dtype.kind != "f":
        raise NotImplementedError(f"bernoulli: only floating dtypes are supported, got {input.dtype.name}")
    if p is not None:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
        return BernoulliP.apply(input, float(p), generator)
    return Bernoulli.apply(input, generator)


def poisson(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Poisson samples with rates ``input`` (floating), in its dtype; zero gradient.

    Raises:
        RuntimeError: a negative rate; an integer input (NotImplementedError).
    """
    if input.data.dtype.kind != "f":
        raise NotImplementedError(f"poisson: only floating dtypes are supported, got {input.dtype.name}")
    return Poisson.apply(input, generator)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator: Generator | None = None,
                out: Any = None) -> Tensor:
    """Category indices drawn with probabilities proportional to the non-negative weights
    ``input`` (``(k,)`` gives ``(num_samples,)``; ``(n, k)`` one row of samples per row),
    int64, without replacement unless ``replacement``.

    Raises:
        RuntimeError: ``input`` not 1-d or 2-d, a non-floating dtype, negative/inf/nan
            weights, a row summing to 0, ``num_samples <= 0``, or more samples than
            categories without replacement.
    """
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if input.data.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype.name}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > input.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    return Multinomial.apply(input, int(num_samples), bool(replacement), generator)


"""Random sampling: every draw is a :class:`RandomOp` (an autograd.Function with
``random = True``), so that a transform sees it go by (``vmap``'s ``randomness`` argument
decides what a draw inside vmap means: see docs/transforms.md). This module holds the
bases with their batching rules, the draws of a size and the draws shaped like a tensor;
``ops/random_fills.py`` the in-place fills and ``ops/sampling.py`` the draws parameterised
by tensors (``normal``, ``bernoulli``, ``poisson``, ``multinomial``).

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

__all__ = ["rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like"]
TENSOR_METHODS: set = set()

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


def _out(arr: Any, nd: np.dtype, like: Any = None) -> Tensor:
    """A draw (a NumPy array from the host Generator) as a Tensor of dtype ``nd``; in
    ``like``'s library when ``like`` (the input of a ``*_like`` draw) is an Array API array
    (the Generator is NumPy's PCG64: the same numbers on every backend, copied there)."""
    out = B.asarray_any(arr).astype(nd, copy=False)
    if like is not None and type(like) is not np.ndarray and B.is_api_array(like):
        out = B.like(out, like)
    return Tensor._make(out)


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
        *size (int): the shape (ints, or one tuple/list).
        generator (Generator, optional): the Generator to draw from (default: the default one).
        dtype: a floating dtype (default: the default dtype).
        device: ``"cpu"`` (or None), or ``"meta"`` (a tensor with a shape and no values).
        requires_grad (bool): make the result a leaf that requires grad.
        out: not supported (None).
    Returns:
        Tensor: ``(*size)``, a new leaf.
    Raises:
        NotImplementedError: an integer or bool dtype (as PyTorch).
        RuntimeError: a negative size, or a device other than the CPU and meta.

    Example:
        >>> import dyngrad
        >>> g = dyngrad.Generator().manual_seed(0)
        >>> x = dyngrad.rand(2, 3, generator=g)
        >>> x.shape, bool(((x >= 0) & (x < 1)).all())
        (dyngrad.Size([2, 3]), True)
    """
    check_device(device)
    nd = _need_float(_float_dtype(dtype), "rand")
    return _finish(Rand.apply(_size(size), nd, generator), requires_grad)


def randn(*size: Any, generator: Generator | None = None, dtype: Any = None, device: Any = None,
          requires_grad: bool = False, out: Any = None) -> Tensor:
    """Standard normal samples (mean 0, variance 1).

    Args:
        *size (int): the shape (ints, or one tuple/list).
        generator (Generator, optional): the Generator to draw from (default: the default one,
            seeded by :func:`dyngrad.manual_seed`).
        dtype: a floating dtype (default: the default dtype).
        device: ``"cpu"`` (or None), or ``"meta"`` (a tensor with a shape and no values).
        requires_grad (bool): make the result a leaf that requires grad.
        out: not supported (None).
    Returns:
        Tensor: ``(*size)``, a new leaf.
    Raises:
        NotImplementedError: an integer or bool dtype (as PyTorch).
        RuntimeError: a negative size, or a device other than the CPU and meta.

    Example:
        >>> import dyngrad
        >>> _ = dyngrad.manual_seed(0)
        >>> x = dyngrad.randn(1000, dtype=dyngrad.float64)
        >>> abs(x.mean().item()) < 0.1, abs(x.std().item() - 1) < 0.1
        (True, True)
    """
    check_device(device)
    nd = _need_float(_float_dtype(dtype), "randn")
    return _finish(Randn.apply(_size(size), nd, generator), requires_grad)


def randint(low: int, high: Any = None, size: Any = None, *, generator: Generator | None = None,
            dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Integers uniform on ``[low, high)`` of shape ``size`` (int64 by default);
    ``randint(high, size)`` draws from ``[0, high)``.

    Args:
        low (int): the lowest value (or, with ``size`` in the second place, the bound ``high``).
        high (int): one above the highest value.
        size (tuple of int): the shape.
        generator (Generator, optional): the Generator to draw from.
        dtype: an integer (or floating) dtype, default int64.
        device: ``"cpu"`` (or None), or ``"meta"`` (a tensor with a shape and no values).
        requires_grad (bool): only for floating dtypes.
    Returns:
        Tensor: ``(*size)``.
    Raises:
        TypeError: no size, or an int ``size`` (as PyTorch: a tuple of ints).
        RuntimeError: ``low >= high``; ``requires_grad`` with an integer dtype.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.randint(3, 6, (100,))
        >>> x.dtype, int(x.min()) >= 3, int(x.max()) < 6
        (dyngrad.int64, True, True)
    """
    check_device(device)
    pos = 3
    if size is None:
        low, high, size, pos = 0, low, high, 2
    if high is None:
        raise TypeError("randint() missing required argument 'size'")
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        raise TypeError(f"randint(): argument 'size' (position {pos}) must be tuple of ints, not {type(size).__name__}")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    nd = B.to_np_dtype(dtype) if dtype is not None else np.dtype(np.int64)
    return _finish(Randint.apply(_size((size,)), int(low), int(high), nd, generator), requires_grad)


def randperm(n: int, *, generator: Generator | None = None, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    """A random permutation of ``0..n-1`` (int64 by default).

    Not differentiable (an integer result; with a floating ``dtype`` and ``requires_grad`` a
    leaf).

    Args:
        n (int): the number of elements, ``>= 0``.
        generator (Generator, optional): keyword only; the Generator to draw from. Default:
            ``None`` (``dyngrad.default_generator``).
        dtype (dtype, optional): keyword only. Default: ``None`` (int64).
        device: keyword only; ``None`` or ``'cpu'``.
        requires_grad (bool): keyword only. Default: ``False``.
    Returns:
        Tensor: ``(n)``.
    Raises:
        RuntimeError: ``n < 0``.

    Example:
        >>> import dyngrad
        >>> p = dyngrad.randperm(5)
        >>> p.dtype, sorted(p.tolist())
        (dyngrad.int64, [0, 1, 2, 3, 4])
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
        out = _out(rng_of(generator).random(input._data.shape), nd, input._data)
        ctx.mark_non_differentiable(out)
        return out


class RandnLike(LikeDraw):
    @staticmethod
    def forward(ctx: Any, input: Tensor, nd: np.dtype, generator: Any) -> Tensor:
        out = _out(rng_of(generator).standard_normal(input._data.shape), nd, input._data)
        ctx.mark_non_differentiable(out)
        return out


class RandintLike(LikeDraw):
    @staticmethod
    def forward(ctx: Any, input: Tensor, low: int, high: int, nd: np.dtype, generator: Any) -> Tensor:
        out = _out(rng_of(generator).integers(low, high, input._data.shape), nd, input._data)
        ctx.mark_non_differentiable(out)
        return out


class DropoutMask(LikeDraw):
    """``(U[0,1) >= p) / (1 - p)`` shaped like ``input`` in its dtype (0 everywhere for
    ``p = 1``): the factor of inverted dropout."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, p: float, generator: Any) -> Tensor:
        d = input._data
        dt = d.dtype if type(d) is np.ndarray else B.np_dtype_of(d)
        if p == 1.0:
            out = _out(np.zeros(d.shape, dt), dt, d)
        else:
            keep = rng_of(generator).random(d.shape) >= p
            out = _out(keep.astype(dt) / B.asarray_any(1 - p, dt), dt, d)
        ctx.mark_non_differentiable(out)
        return out


class KeepMask(LikeDraw):
    """1 with probability ``1 - p`` else 0, shaped like ``input`` in its dtype (alpha dropout's
    mask, which it scales itself)."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, p: float, generator: Any) -> Tensor:
        d = input._data
        keep = rng_of(generator).random(d.shape) >= p
        out = _out(keep, d.dtype if type(d) is np.ndarray else B.np_dtype_of(d), d)
        ctx.mark_non_differentiable(out)
        return out


def _like_dtype(input: Tensor, dtype: Any) -> np.dtype:
    return B.to_np_dtype(dtype) if dtype is not None else B.np_dtype_of(input._data)


def rand_like(input: Tensor, *, dtype: Any = None, generator: Generator | None = None, requires_grad: bool = False,
              device: Any = None, memory_format: Any = None, layout: Any = None) -> Tensor:
    """Uniform ``[0, 1)`` samples with ``input``'s shape (and dtype unless given).

    Not differentiable: no gradient flows to ``input`` (the result is a new leaf).

    Args:
        input (Tensor): ``(*)``; only its shape (and dtype) are used.
        dtype (dtype, optional): keyword only. Default: ``None`` (``input``'s).
        generator (Generator, optional): keyword only; the Generator to draw from. Default:
            ``None`` (``dyngrad.default_generator``).
        requires_grad (bool): keyword only; the result is a leaf. Default: ``False``.
        device: keyword only; ``"cpu"`` (or None) or ``"meta"``; any other device raises
            RuntimeError, as ``zeros(..., device=...)``.
        memory_format, layout: keyword only; accepted for PyTorch's signature.
    Returns:
        Tensor: ``input``'s shape.
    Raises:
        NotImplementedError: a non-floating dtype (a RuntimeError subclass, as PyTorch).

    Example:
        >>> import dyngrad
        >>> u = dyngrad.rand_like(dyngrad.zeros(2, 3))
        >>> u.shape, bool(((u >= 0) & (u < 1)).all())
        (dyngrad.Size([2, 3]), True)
    """
    check_device(device)
    nd = _need_float(_like_dtype(input, dtype), "rand_like")
    return _finish(RandLike.apply(input, nd, generator), requires_grad)


def randn_like(input: Tensor, *, dtype: Any = None, generator: Generator | None = None, requires_grad: bool = False,
               device: Any = None, memory_format: Any = None, layout: Any = None) -> Tensor:
    """Standard normal samples with ``input``'s shape (see :func:`rand_like`).

    Not differentiable: no gradient flows to ``input`` (the result is a new leaf).

    Args:
        input (Tensor): ``(*)``; only its shape (and dtype) are used.
        dtype (dtype, optional): keyword only. Default: ``None`` (``input``'s).
        generator (Generator, optional): keyword only; the Generator to draw from. Default:
            ``None`` (``dyngrad.default_generator``).
        requires_grad (bool): keyword only; the result is a leaf. Default: ``False``.
        device: keyword only; ``"cpu"`` (or None) or ``"meta"``; any other device raises
            RuntimeError, as ``zeros(..., device=...)``.
        memory_format, layout: keyword only; accepted for PyTorch's signature.
    Returns:
        Tensor: ``input``'s shape.
    Raises:
        NotImplementedError: a non-floating dtype (a RuntimeError subclass, as PyTorch).

    Example:
        >>> import dyngrad
        >>> z = dyngrad.randn_like(dyngrad.zeros(2000, dtype=dyngrad.float64))
        >>> z.dtype, abs(z.mean().item()) < 0.1
        (dyngrad.float64, True)
    """
    check_device(device)
    nd = _need_float(_like_dtype(input, dtype), "randn_like")
    return _finish(RandnLike.apply(input, nd, generator), requires_grad)


def randint_like(input: Tensor, low: int, high: Any = None, *, dtype: Any = None, generator: Generator | None = None,
                 requires_grad: bool = False, device: Any = None, memory_format: Any = None) -> Tensor:
    """Integers uniform on ``[low, high)`` with ``input``'s shape and dtype (a float input
    gives integral floats, as PyTorch); ``randint_like(input, high)`` from ``[0, high)``.

    Not differentiable: no gradient flows to ``input`` (the result is a new leaf).

    Args:
        input (Tensor): ``(*)``; only its shape (and dtype) are used.
        low (int): the lower bound, or the upper one when ``high`` is None.
        high (int, optional): the upper bound (exclusive). Default: ``None``.
        dtype (dtype, optional): keyword only. Default: ``None`` (``input``'s).
        generator (Generator, optional): keyword only; the Generator to draw from. Default:
            ``None`` (``dyngrad.default_generator``).
        requires_grad (bool): keyword only. Default: ``False``.
        device: keyword only; ``"cpu"`` (or None) or ``"meta"``; any other device raises
            RuntimeError, as ``zeros(..., device=...)``.
        memory_format: keyword only; accepted for PyTorch's signature.
    Returns:
        Tensor: ``input``'s shape.
    Raises:
        RuntimeError: ``low >= high``.

    Example:
        >>> import dyngrad
        >>> r = dyngrad.randint_like(dyngrad.zeros(100, dtype=dyngrad.int64), 3, 6)
        >>> sorted(set(r.tolist()))
        [3, 4, 5]
        >>> dyngrad.randint_like(dyngrad.zeros(2), 5).dtype
        dyngrad.float32
    """
    check_device(device)
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


def _num(v: Any) -> str:
    """A number as PyTorch prints it in these messages (``-1``, not ``-1.0``)."""
    f = float(v)
    return str(int(f)) if f.is_integer() else str(f)


def _no_extra(op: str, kw: dict) -> None:
    if kw:
        raise TypeError(f"{op}() got an unexpected keyword argument '{next(iter(kw))}'")


# device="meta" (see creation.py): a shape-only result, the random stream left untouched
def _state() -> Any:
    from ..creation import get_rng_state

    return get_rng_state()


def _set_state(s: Any) -> None:
    from ..creation import set_rng_state

    set_rng_state(s)


from .._tensor.metadata import meta_device as _meta_device  # noqa: E402

rand = _meta_device(rand, rng=(_state, _set_state))
randn = _meta_device(randn, rng=(_state, _set_state))
randint = _meta_device(randint, rng=(_state, _set_state))
randperm = _meta_device(randperm, rng=(_state, _set_state))
rand_like = _meta_device(rand_like, like=True, rng=(_state, _set_state))
randn_like = _meta_device(randn_like, like=True, rng=(_state, _set_state))
randint_like = _meta_device(randint_like, like=True, rng=(_state, _set_state))

"""The gamma function family: ``lgamma``, ``digamma``, ``polygamma``, ``mvlgamma``
(``input (*) -> output (*)``).

Integer and bool inputs compute in the default float dtype; float32 stays float32 (computed
in float64 and rounded). Poles give ``inf``/``nan`` as PyTorch does, without warnings. The
values come from the NumPy kernels in :mod:`dyngrad.ops._specfun` (which says how each is
computed and how it compares with PyTorch's). Derivatives (A&S 6.1, 6.3, 6.4; PyTorch's
``tools/autograd/derivatives.yaml``): ``lgamma' = digamma``, ``digamma' = polygamma(1, .)``,
``polygamma(n, .)' = polygamma(n + 1, .)``; every backward is a dyngrad op, so all are
differentiable to any order.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from . import _specfun
from ._bases import Elementwise
from ._docs import inplace_doc
from ._util import float_data, inplace, require_tensor, wrap

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma", "igamma", "igammac", "lgamma_", "digamma_", "mvlgamma_"]
# (polygamma is a method too, ``x.polygamma(n)``, with its arguments swapped: tensor.py)
TENSOR_METHODS = {"lgamma", "digamma", "mvlgamma", "igamma", "igammac", "lgamma_", "digamma_", "mvlgamma_"}


#: the kernels with the standard's functions only, for Array API arrays (array-api-strict)
_STD = {_specfun.lgamma: _specfun.lgamma_std, _specfun.digamma: _specfun.digamma_std,
        _specfun.polygamma: _specfun.polygamma_std}


def _apply64(kernel: Any, x: Tensor, *args: Any) -> Tensor:
    d = float_data(x)
    if B.is_api_array(d):
        return wrap(B.astype(_STD[kernel](*args, B.astype(d, np.float64, copy=False)), B.np_dtype_of(d), copy=False))
    return wrap(B.asarray_any(kernel(*args, d.astype(np.float64)), dtype=np.float64).astype(d.dtype, copy=False))


class Lgamma(Elementwise):
    """``out = log|Gamma(x)|``; ``grad_x = grad * digamma(x)`` (A&S 6.3.1)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _apply64(_specfun.lgamma, x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        return digamma(ctx.saved_tensors[0])


class Digamma(Elementwise):
    """``out = psi(x) = Gamma'(x) / Gamma(x)``; ``grad_x = grad * polygamma(1, x)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return _apply64(_specfun.digamma, x)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        return polygamma(1, ctx.saved_tensors[0])


class Polygamma(Elementwise):
    """``out = psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x)`` (A&S 6.4.10);
    ``grad_x = grad * polygamma(n + 1, x)``. ``n`` is a non-negative int."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, n: int) -> Tensor:
        ctx.save_for_backward(x)
        ctx.n = n
        return _apply64(_specfun.polygamma, x, n)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        return polygamma(ctx.n + 1, ctx.saved_tensors[0]), None


class Mvlgamma(Elementwise):
    """``out = sum_{i<p} lgamma(x - i/2) + p(p-1)/4 log(pi)`` (the log of the multivariate
    gamma function, Muirhead 1982, 2.1.12); ``grad_x = grad * sum_{i<p} digamma(x - i/2)``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, p: int) -> Tensor:
        ctx.save_for_backward(x)
        ctx.p = p
        d = float_data(x)
        if B.is_api_array(d):
            d64 = B.astype(d, np.float64, copy=False)
            out = sum((_specfun.lgamma_std(d64 - i / 2) for i in range(p)), B.zeros_like(d64))
            return wrap(B.astype(out + p * (p - 1) / 4 * math.log(math.pi), B.np_dtype_of(d), copy=False))
        d64 = d.astype(np.float64)
        out = sum((_specfun.lgamma(d64 - i / 2) for i in range(p)), np.zeros_like(d64))
        return wrap((out + p * (p - 1) / 4 * math.log(math.pi)).astype(d.dtype, copy=False))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        d = digamma(x)
        for i in range(1, ctx.p):
            d = d + digamma(x - i / 2)
        return d, None


class Igamma(Elementwise):
    """``out = P(a, x)``, the regularised lower incomplete gamma function (A&S 6.5.1);
    ``grad_x = grad * x^(a-1) e^-x / Gamma(a)`` (the Gamma(a, 1) density). The derivative in
    ``a`` is not implemented, as in PyTorch (``not_implemented("igamma: input")``)."""

    _upper = False

    @staticmethod
    def forward(ctx: Any, a: Tensor, x: Tensor) -> Tensor:
        ctx.save_for_backward(a, x)
        if B.is_api_array(a._data) or B.is_api_array(x._data):
            ad, xd = float_data(a), float_data(x)
            rt = np.result_type(B.np_dtype_of(ad), B.np_dtype_of(xd))
            out = _specfun.gammainc_std(B.astype(ad, np.float64, copy=False), B.astype(xd, np.float64, copy=False),
                                        ctx._forward_cls._upper)
            return wrap(B.astype(out, rt, copy=False))
        rt = np.result_type(float_data(a).dtype, float_data(x).dtype)
        out = _specfun.gammainc(a._data.astype(np.float64), x._data.astype(np.float64), ctx._forward_cls._upper)
        return wrap(out.astype(rt, copy=False))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            name = "igammac" if ctx._forward_cls._upper else "igamma"
            raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
        density = ((a - 1) * x.log() - x - lgamma(a)).exp()
        return None, (-density if ctx._forward_cls._upper else density)


class Igammac(Igamma):
    """``out = Q(a, x) = 1 - P(a, x)``, the regularised upper incomplete gamma function;
    ``grad_x = -grad * x^(a-1) e^-x / Gamma(a)``; no derivative in ``a`` (as PyTorch)."""

    _upper = True


def igamma(input: Any, other: Any) -> Tensor:
    """The regularised lower incomplete gamma function ``P(input, other)``
    (``torch.special.gammainc``).

    ``P(a, x) = (1 / Gamma(a)) * int_0^x t^(a-1) e^-t dt``.

    Derivative: ``grad_other = grad_output * other^(input-1) * exp(-other) / Gamma(input)``;
    no derivative in ``input`` (backward raises NotImplementedError, as PyTorch's
    derivatives.yaml ``igamma``).

    Args:
        input (Tensor or number): ``a``, ``(*)``, ``>= 0``.
        other (Tensor or number): ``x``, broadcastable with ``input``, ``>= 0``; at least one
            of the two is a Tensor. (PyTorch wants two floating Tensors; dyngrad also takes
            numbers and integer tensors.)
    Returns:
        Tensor: the broadcast shape, the promoted float dtype (``nan`` for negative arguments).
    Raises:
        RuntimeError: when the shapes do not broadcast.
        TypeError: when neither operand is a Tensor.
        NotImplementedError: in backward, when ``input`` requires grad.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, 3.0], requires_grad=True)
        >>> y = dyngrad.igamma(dyngrad.tensor([1.0, 2.0]), x)
        >>> y.detach()
        tensor([0.6321, 0.8009])
        >>> y.sum().backward()
        >>> x.grad
        tensor([0.3679, 0.1494])
    """
    require_tensor("igamma", input)
    from .pointwise import _operands

    return Igamma.apply(*_operands("igamma", input, other)[0])


def igammac(input: Any, other: Any) -> Tensor:
    """The regularised upper incomplete gamma function ``Q(input, other) = 1 - P``
    (``torch.special.gammaincc``); arguments as :func:`igamma`.

    Derivative: ``grad_other = -grad_output * other^(input-1) * exp(-other) /
    Gamma(input)``; no derivative in ``input`` (as PyTorch's derivatives.yaml ``igammac``).

    Args:
        input (Tensor or number): ``a``, ``(*)``, ``>= 0``.
        other (Tensor or number): ``x``, broadcastable with ``input``, ``>= 0``; at least one
            of the two is a Tensor.
    Returns:
        Tensor: the broadcast shape, the promoted float dtype (``nan`` for negative arguments).
    Raises:
        RuntimeError: when the shapes do not broadcast.
        TypeError: when neither operand is a Tensor.
        NotImplementedError: in backward, when ``input`` requires grad.

    Example:
        >>> import dyngrad
        >>> dyngrad.igammac(dyngrad.tensor([1.0, 2.0]), dyngrad.tensor([1.0, 3.0]))
        tensor([0.3679, 0.1991])
    """
    require_tensor("igammac", input)
    from .pointwise import _operands

    return Igammac.apply(*_operands("igammac", input, other)[0])


def lgamma(input: Tensor) -> Tensor:
    """Elementwise ``log|Gamma(input)|`` (``inf`` at 0, -1, -2, ... and at ``+-inf``).

    Derivative: ``grad_input = grad_output * digamma(input)`` (derivatives.yaml ``lgamma``).

    Args:
        input (Tensor): ``(*)``, floating (integers compute in the default dtype).
    Returns:
        Tensor: ``(*)``, the input's float dtype.
    Raises:
        TypeError: when ``input`` is not a Tensor.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([0.5, 3.0], requires_grad=True)
        >>> y = dyngrad.lgamma(x)
        >>> y.detach()
        tensor([0.5724, 0.6931])
        >>> y.sum().backward()
        >>> x.grad
        tensor([-1.9635,  0.9228])
    """
    return Lgamma.apply(input)


def digamma(input: Tensor) -> Tensor:
    """Elementwise digamma ``psi(input) = Gamma'(input) / Gamma(input)``, the derivative of ``lgamma``.

    ``-inf`` at ``+0``, ``inf`` at ``-0`` and ``nan`` at the negative integers, as PyTorch.

    Derivative: ``grad_input = grad_output * polygamma(1, input)`` (trigamma; source: PyTorch's
    derivatives.yaml, Abramowitz & Stegun 6.4.1), itself differentiable.

    Args:
        input (Tensor): ``(*)``, any dtype (integer and bool inputs compute in the default float
            dtype).
    Returns:
        Tensor: ``(*)``, ``input``'s shape; ``input``'s floating dtype.
    Raises:
        TypeError: when ``input`` is not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.digamma(dyngrad.tensor([1.0, 0.5, 0.0, -0.0, -1.0, -1.5]))
        tensor([-0.5772, -1.9635,    -inf,     inf,     nan,  0.7032])
        >>> x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
        >>> dyngrad.digamma(x).sum().backward()
        >>> x.grad
        tensor([1.6449, 0.6449])
    """
    return Digamma.apply(input)


def polygamma(n: int, input: Tensor) -> Tensor:
    """Elementwise ``n``-th derivative of digamma; ``polygamma(0, x)`` is ``digamma(x)``.

    Derivative: ``grad_input = grad_output * polygamma(n + 1, input)`` (derivatives.yaml
    ``polygamma``); none in ``n``.

    Args:
        n (int): the order, ``>= 0``.
        input (Tensor): ``(*)``, floating (integers compute in the default dtype).
    Returns:
        Tensor: ``(*)``, the input's float dtype (``inf``/``-inf`` at the poles 0, -1, -2, ...,
        with the sign of ``(-1)**(n+1)``).
    Raises:
        RuntimeError: ``n`` negative (PyTorch's message).
        TypeError: ``n`` not an int.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([0.5, 3.0], requires_grad=True)
        >>> y = dyngrad.polygamma(1, x)
        >>> y.detach()
        tensor([4.9348, 0.3949])
        >>> y.sum().backward()
        >>> x.grad
        tensor([-16.8288,  -0.1541])
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"polygamma(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 0:
        return Digamma.apply(input)
    return Polygamma.apply(input, int(n))


def mvlgamma(input: Tensor, p: int) -> Tensor:
    """Elementwise multivariate log-gamma of dimension ``p``:
    ``sum_{i<p} lgamma(input - i/2) + p(p-1)/4 log(pi)``.

    Derivative: ``grad_input = grad_output * sum_{i<p} digamma(input - i/2)``
    (derivatives.yaml ``mvlgamma_backward``).

    Args:
        input (Tensor): ``(*)``, floating; the function's domain is ``input > (p - 1) / 2``
            (below it the sum of ``log|Gamma|`` is returned, as PyTorch 2.13 does).
        p (int): the dimension, ``>= 1``.
    Returns:
        Tensor: ``(*)``, the input's float dtype.
    Raises:
        RuntimeError: ``p < 1`` (PyTorch's message).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.5, 3.0], requires_grad=True)
        >>> y = dyngrad.mvlgamma(x, 2)
        >>> y.detach()
        tensor([0.4516, 1.5502])
        >>> y.sum().backward()
        >>> x.grad
        tensor([-0.5407,  1.6259])
    """
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    # (PyTorch 2.13 no longer refuses elements <= (p - 1) / 2: it returns the sum of log|Gamma|)
    return Mvlgamma.apply(input, int(p))


def lgamma_(input: Tensor) -> Tensor:
    """In-place :func:`lgamma`."""
    return inplace(lgamma, input)


def digamma_(input: Tensor) -> Tensor:
    """In-place :func:`digamma`: overwrites ``input`` with ``psi(input)`` and returns it.

    Derivative: as :func:`digamma`'s, ``grad_input = grad_output * polygamma(1, input)``.

    Args:
        input (Tensor): ``(*)``, floating.
    Returns:
        Tensor: ``input`` itself, ``(*)``.
    Raises:
        RuntimeError: when ``input`` has an integer or bool dtype (the float result cannot be
            written back), or is a leaf that requires grad (outside ``no_grad``).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, 2.0])
        >>> dyngrad.digamma_(x) is x
        True
        >>> x
        tensor([-0.5772,  0.4228])
    """
    return inplace(digamma, input)


def polygamma_(input: Tensor, n: int) -> Tensor:
    """In-place :func:`polygamma` (``x.polygamma_(n)``)."""
    def polygamma(t: Tensor) -> Tensor:  # (named so an error names polygamma_, not <lambda>_)
        return _polygamma(n, t)

    return inplace(polygamma, input)


def mvlgamma_(input: Tensor, p: int) -> Tensor:
    """In-place :func:`mvlgamma`."""
    return inplace(mvlgamma, input, p)


# ---------------------------------------------------------------- docstrings (ops/_docs.py)
lgamma_.__doc__ = inplace_doc("lgamma", "[0.5, 3.0]", "tensor([0.5724, 0.6931])")
mvlgamma_.__doc__ = inplace_doc("mvlgamma", "[1.5, 3.0]", "tensor([0.4516, 1.5502])", call=", 2",
                                args="        p (int): the dimension, ``>= 1``.\n",
                                raises="        RuntimeError: ``p < 1``.\n")


_polygamma = polygamma

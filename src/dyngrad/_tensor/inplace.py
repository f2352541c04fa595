"""Tensor methods that change the tensor in place: ``x += y`` and the other augmented
operators, ``zero_`` / ``fill_`` / ``copy_``, and every ``name_`` form of an op (``add_``,
``exp_``, ``clamp_``, ``masked_fill_``, ...). Each bumps the version counter and is refused
where it would corrupt autograd state (``Tensor._check_inplace``, in dyngrad/tensor.py).

Each method is a one-line forward: ``x.name(*args)`` is ``dyngrad.ops.name(x, *args)``, reached
as ``_core._ops`` (the ops are built on Tensor, so dyngrad/tensor.py imports them at its end,
once Tensor exists: see dyngrad/_tensor/__init__.py).

``x[i] = v`` is in indexing.py, next to ``x[i]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import dyngrad.tensor as _core  # its end imports the ops (see _tensor/__init__.py)

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = ["InplaceMethods"]


class InplaceMethods:
    """In-place methods of :class:`dyngrad.Tensor`."""

    __slots__ = ()

    # ---- operators (x += y)
    def __iadd__(self, other: Any) -> Tensor:
        return _core._ops.add_(self, other)

    def __isub__(self, other: Any) -> Tensor:
        return _core._ops.sub_(self, other)

    def __imul__(self, other: Any) -> Tensor:
        return _core._ops.mul_(self, other)

    def __itruediv__(self, other: Any) -> Tensor:
        return _core._ops.div_(self, other)

    def __ipow__(self, other: Any) -> Tensor:
        return _core._ops.pow_(self, other)

    def __iand__(self, other: Any) -> Tensor:
        return _core._ops.bitwise_and_(self, other)

    def __ior__(self, other: Any) -> Tensor:
        return _core._ops.bitwise_or_(self, other)

    def __ixor__(self, other: Any) -> Tensor:
        return _core._ops.bitwise_xor_(self, other)

    def __ilshift__(self, other: Any) -> Tensor:
        return _core._ops.bitwise_left_shift_(self, other)

    def __irshift__(self, other: Any) -> Tensor:
        return _core._ops.bitwise_right_shift_(self, other)

    # ---- fill and copy
    def zero_(self) -> Tensor:
        """Fill with zeros in place; bumps the version; returns self (``self.fill_(0)``).

        Derivative: ``grad_self = 0`` (the old values are gone).

        Returns:
            Tensor: ``self``, ``(*)``.
        Raises:
            RuntimeError: when ``self`` is a leaf that requires grad (outside ``no_grad``).

        Example:
            >>> import dyngrad
            >>> x = dyngrad.ones(2)
            >>> x.zero_() is x, x
            (True, tensor([0., 0.]))
        """
        return _core._ops.fill_(self, 0)

    def fill_(self, value: Any) -> Tensor:
        return _core._ops.fill_(self, value)

    def copy_(self, src: Any) -> Tensor:
        return _core._ops.copy_(self, src)

    # ---- ops.arithmetic
    def add_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.add_(self, *args, **kwargs)

    def div_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.div_(self, *args, **kwargs)

    def mul_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.mul_(self, *args, **kwargs)

    def neg_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.neg_(self, *args, **kwargs)

    def pow_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.pow_(self, *args, **kwargs)

    def sub_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.sub_(self, *args, **kwargs)

    # ---- ops.elementwise
    def abs_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.abs_(self, *args, **kwargs)

    def clamp_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.clamp_(self, *args, **kwargs)

    def clip_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.clip_(self, *args, **kwargs)

    def cos_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.cos_(self, *args, **kwargs)

    def exp_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.exp_(self, *args, **kwargs)

    def log_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.log_(self, *args, **kwargs)

    def relu_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.relu_(self, *args, **kwargs)

    def sigmoid_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.sigmoid_(self, *args, **kwargs)

    def sin_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.sin_(self, *args, **kwargs)

    def sqrt_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.sqrt_(self, *args, **kwargs)

    def tanh_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.tanh_(self, *args, **kwargs)

    # ---- ops.trig
    def acos_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.acos_(self, *args, **kwargs)

    def acosh_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.acosh_(self, *args, **kwargs)

    def asin_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.asin_(self, *args, **kwargs)

    def asinh_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.asinh_(self, *args, **kwargs)

    def atan_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.atan_(self, *args, **kwargs)

    def atanh_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.atanh_(self, *args, **kwargs)

    def cosh_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.cosh_(self, *args, **kwargs)

    def sinh_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.sinh_(self, *args, **kwargs)

    def tan_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.tan_(self, *args, **kwargs)

    # ---- ops.special
    def erf_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.erf_(self, *args, **kwargs)

    def erfc_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.erfc_(self, *args, **kwargs)

    def exp2_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.exp2_(self, *args, **kwargs)

    def expm1_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.expm1_(self, *args, **kwargs)

    def log10_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.log10_(self, *args, **kwargs)

    def log1p_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.log1p_(self, *args, **kwargs)

    def log2_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.log2_(self, *args, **kwargs)

    def logit_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.logit_(self, *args, **kwargs)

    def reciprocal_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.reciprocal_(self, *args, **kwargs)

    def rsqrt_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.rsqrt_(self, *args, **kwargs)

    def square_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.square_(self, *args, **kwargs)

    # ---- ops.rounding
    def ceil_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.ceil_(self, *args, **kwargs)

    def fix_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.fix_(self, *args, **kwargs)

    def floor_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.floor_(self, *args, **kwargs)

    def frac_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.frac_(self, *args, **kwargs)

    def nan_to_num_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.nan_to_num_(self, *args, **kwargs)

    def round_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.round_(self, *args, **kwargs)

    def sign_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.sign_(self, *args, **kwargs)

    def trunc_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.trunc_(self, *args, **kwargs)

    # ---- ops.comparison
    def bitwise_and_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.bitwise_and_(self, *args, **kwargs)

    def bitwise_left_shift_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.bitwise_left_shift_(self, *args, **kwargs)

    def bitwise_or_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.bitwise_or_(self, *args, **kwargs)

    def bitwise_right_shift_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.bitwise_right_shift_(self, *args, **kwargs)

    def bitwise_xor_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.bitwise_xor_(self, *args, **kwargs)

    # ---- ops.masking, ops.gather
    def masked_fill_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.masked_fill_(self, *args, **kwargs)

    def scatter_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.scatter_(self, *args, **kwargs)

    def scatter_add_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.scatter_add_(self, *args, **kwargs)

    # ---- special functions (ops.gamma, ops.xlogy, ops.special.erfinv)
    def lgamma_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.lgamma_(self, *args, **kwargs)

    def digamma_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.digamma_(self, *args, **kwargs)

    def polygamma_(self, n: int) -> Any:
        """In-place :meth:`Tensor.polygamma`: ``x.polygamma_(n)`` writes ``polygamma(n, x)``
        into ``x``'s memory and returns ``x``.

        Derivative: as :func:`dyngrad.polygamma`'s, ``grad = grad_output * polygamma(n + 1, x)``
        (derivatives.yaml ``polygamma``); ``x`` takes over the new history.

        Args:
            n (int): the order, ``>= 0``.
        Returns:
            Tensor: ``self``, ``(*)``.
        Raises:
            RuntimeError: a negative ``n``, a leaf that requires grad, or an integer ``self``
                (it cannot hold the floating result).
            TypeError: an ``n`` that is not an int.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.tensor([0.5, 3.0])
            >>> x.polygamma_(1) is x, x
            (True, tensor([4.9348, 0.3949]))
        """
        return _core._ops.gamma.polygamma_(self, n)

    def mvlgamma_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.mvlgamma_(self, *args, **kwargs)

    def erfinv_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.erfinv_(self, *args, **kwargs)

    def xlogy_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.xlogy_(self, *args, **kwargs)

    # --- apisurface: ops.scatter_reduce
    def index_put_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.index_put_(self, *args, **kwargs)

    # ---- the generic in-place forms (ops/inplace_variants.py): inplace(op, self, ...)
    def absolute_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.absolute_(self, *args, **kwargs)

    def addbmm_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.addbmm_(self, *args, **kwargs)

    def addcdiv_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.addcdiv_(self, *args, **kwargs)

    def addcmul_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.addcmul_(self, *args, **kwargs)

    def addmm_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.addmm_(self, *args, **kwargs)

    def addmv_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.addmv_(self, *args, **kwargs)

    def addr_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.addr_(self, *args, **kwargs)

    def arccos_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.arccos_(self, *args, **kwargs)

    def arccosh_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.arccosh_(self, *args, **kwargs)

    def arcsin_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.arcsin_(self, *args, **kwargs)

    def arcsinh_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.arcsinh_(self, *args, **kwargs)

    def arctan2_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.arctan2_(self, *args, **kwargs)

    def arctan_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.arctan_(self, *args, **kwargs)

    def arctanh_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.arctanh_(self, *args, **kwargs)

    def atan2_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.atan2_(self, *args, **kwargs)

    def baddbmm_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.baddbmm_(self, *args, **kwargs)

    def bitwise_not_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.bitwise_not_(self, *args, **kwargs)

    def clamp_max_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.clamp_max_(self, *args, **kwargs)

    def clamp_min_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.clamp_min_(self, *args, **kwargs)

    def cumprod_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.cumprod_(self, *args, **kwargs)

    def cumsum_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.cumsum_(self, *args, **kwargs)

    def divide_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.divide_(self, *args, **kwargs)

    def float_power_(self, *args: Any, **kwargs: Any) -> Any:
        """In-place :meth:`Tensor.float_power`: ``x.float_power_(e)`` writes ``x ** e``,
        computed in float64, into ``x``'s memory and returns ``x``.

        Derivative: as :func:`dyngrad.float_power`'s; ``x`` takes over the new history.

        Args:
            exponent (Tensor or number): broadcastable to ``self``'s shape.
        Returns:
            Tensor: ``self``, ``(*)``.
        Raises:
            RuntimeError: a ``self`` that is not float64 (it cannot hold the float64 result;
                PyTorch's check), a leaf that requires grad, or an ``exponent`` that broadcasts
                ``self`` larger.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.tensor([2.0, 3.0], dtype=dyngrad.float64)
            >>> x.float_power_(2) is x, x
            (True, tensor([4., 9.], dtype=dyngrad.float64))
        """
        if self._data.dtype.kind != "f" or self._data.dtype.itemsize != 8:
            name = {"f4": "Float", "f2": "Half", "i8": "Long", "i4": "Int", "i2": "Short", "i1": "Char", "u1": "Byte",
                    "b1": "Bool"}.get(f"{self._data.dtype.kind}{self._data.dtype.itemsize}", str(self._data.dtype))
            raise RuntimeError(f"float_power_(): the base given to float_power_ has dtype {name} but the operation's "
                               "result requires dtype Double")
        return _core._ops.inplace_variants.float_power_(self, *args, **kwargs)

    def floor_divide_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.floor_divide_(self, *args, **kwargs)

    def fmod_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.fmod_(self, *args, **kwargs)

    def hypot_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.hypot_(self, *args, **kwargs)

    def igamma_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.igamma_(self, *args, **kwargs)

    def igammac_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.igammac_(self, *args, **kwargs)

    def index_add_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.index_add_(self, *args, **kwargs)

    def index_copy_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.index_copy_(self, *args, **kwargs)

    def index_fill_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.index_fill_(self, *args, **kwargs)

    def lerp_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.lerp_(self, *args, **kwargs)

    def multiply_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.multiply_(self, *args, **kwargs)

    def negative_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.negative_(self, *args, **kwargs)

    def remainder_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.remainder_(self, *args, **kwargs)

    def scatter_reduce_(self, *args: Any, **kwargs: Any) -> Any:
        """In-place :meth:`Tensor.scatter_reduce`: reduces ``src`` into ``self`` at ``index``
        along ``dim`` and returns ``self`` (see :func:`dyngrad.scatter_reduce` for the Args,
        the reductions and the derivative).

        Args:
            dim (int): the dimension ``index`` indexes.
            index (Tensor): int64, ``src``'s shape (or smaller).
            src (Tensor): the values to reduce in.
            reduce (str): ``'sum'``, ``'prod'``, ``'mean'``, ``'amax'`` or ``'amin'``.
            include_self (bool): keyword; count ``self``'s values in. Default: ``True``.
        Returns:
            Tensor: ``self``, ``(*)``.
        Raises:
            RuntimeError: an unknown ``reduce``, an index out of range, or a leaf that
                requires grad.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.zeros(2)
            >>> x.scatter_reduce_(0, dyngrad.tensor([0, 1, 0, 1]), dyngrad.tensor([1.0, 2.0, 3.0, 4.0]), 'amax')
            tensor([3., 4.])
        """
        return _core._ops.inplace_variants.scatter_reduce_(self, *args, **kwargs)

    def subtract_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.subtract_(self, *args, **kwargs)

    def tril_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.tril_(self, *args, **kwargs)

    def triu_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.triu_(self, *args, **kwargs)

    def true_divide_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.true_divide_(self, *args, **kwargs)

    def index_reduce_(self, *args: Any, **kwargs: Any) -> Any:
        """In-place :meth:`Tensor.index_reduce`: reduces the slices of ``source`` into the
        slices of ``self`` that ``index`` names along ``dim`` and returns ``self`` (see
        :func:`dyngrad.index_reduce` for the reductions and the derivative).

        Args:
            dim (int): the dimension.
            index (Tensor): int64 ``(K,)``, one entry per slice of ``source``.
            source (Tensor): ``self``'s shape with ``K`` along ``dim``.
            reduce (str): ``'prod'``, ``'mean'``, ``'amax'`` or ``'amin'``.
            include_self (bool): keyword; count ``self``'s values in. Default: ``True``.
        Returns:
            Tensor: ``self``, ``(*)``.
        Raises:
            RuntimeError: an unknown ``reduce``, an index out of range, or a leaf that
                requires grad.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.ones(3, 2)
            >>> src = dyngrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
            >>> x.index_reduce_(0, dyngrad.tensor([0, 2, 0]), src, 'prod')
            tensor([[ 5., 12.],
                    [ 1.,  1.],
                    [ 3.,  4.]])
        """
        return _core._ops.inplace_variants.index_reduce_(self, *args, **kwargs)

    def eq_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.eq_(self, *args, **kwargs)

    def ne_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.ne_(self, *args, **kwargs)

    def not_equal_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.not_equal_(self, *args, **kwargs)

    def lt_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.lt_(self, *args, **kwargs)

    def less_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.less_(self, *args, **kwargs)

    def le_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.le_(self, *args, **kwargs)

    def less_equal_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.less_equal_(self, *args, **kwargs)

    def gt_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.gt_(self, *args, **kwargs)

    def greater_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.greater_(self, *args, **kwargs)

    def ge_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.ge_(self, *args, **kwargs)

    def greater_equal_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.greater_equal_(self, *args, **kwargs)

    def logical_and_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.logical_and_(self, *args, **kwargs)

    def logical_or_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.logical_or_(self, *args, **kwargs)

    def logical_xor_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.logical_xor_(self, *args, **kwargs)

    def logical_not_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.logical_not_(self, *args, **kwargs)

    def unsqueeze_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.unsqueeze_(self, *args, **kwargs)

    def squeeze_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.squeeze_(self, *args, **kwargs)

    def t_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.t_(self, *args, **kwargs)

    def transpose_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.transpose_(self, *args, **kwargs)

    def swapdims_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.swapdims_(self, *args, **kwargs)

    def swapaxes_(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inplace_variants.swapaxes_(self, *args, **kwargs)

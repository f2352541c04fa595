"""Tensor's operator and op-forwarding methods, kept apart from its state (tensor.py).

Every method here is a one-line forward to the op of the same name in :mod:`dyngrad.ops`
(``x.exp()`` is ``ops.exp(x)``). Names not written out are found by ``__getattr__`` among
``ops.TENSOR_METHODS``; the frequent ones are written out because a class attribute is
found at once, while the fallback pays for a failed lookup first (about 1.7 us a call).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .tensor import Tensor

# The ops are built on Tensor, so they cannot be imported here; tensor.py sets this module
# attribute to dyngrad.ops once both exist.
_ops: Any = None

__all__ = ["TensorMethods"]


class TensorMethods:
    """Mixin of :class:`dyngrad.Tensor`: operators and method forms of the ops."""

    __slots__ = ()

    # ------------------------------------------------------------------ operators
    def __neg__(self) -> Tensor:
        return _ops.neg(self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return _ops.abs(self)

    def __invert__(self) -> Tensor:
        return _ops.logical_not(self) if self.data.dtype == np.bool_ else _ops.bitwise_not(self)

    def __add__(self, other: Any) -> Tensor:
        return _ops.add(self, other)

    def __radd__(self, other: Any) -> Tensor:
        return _ops.add(other, self)

    def __iadd__(self, other: Any) -> Tensor:
        return _ops.add_(self, other)

    def __sub__(self, other: Any) -> Tensor:
        return _ops.sub(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return _ops.sub(other, self)

    def __isub__(self, other: Any) -> Tensor:
        return _ops.sub_(self, other)

    def __mul__(self, other: Any) -> Tensor:
        return _ops.mul(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return _ops.mul(other, self)

    def __imul__(self, other: Any) -> Tensor:
        return _ops.mul_(self, other)

    def __truediv__(self, other: Any) -> Tensor:
        return _ops.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return _ops.div(other, self)

    def __itruediv__(self, other: Any) -> Tensor:
        return _ops.div_(self, other)

    def __floordiv__(self, other: Any) -> Tensor:
        return _ops.floor_divide(self, other)

    def __rfloordiv__(self, other: Any) -> Tensor:
        return _ops.floor_divide(other, self)

    def __mod__(self, other: Any) -> Tensor:
        return _ops.remainder(self, other)

    def __rmod__(self, other: Any) -> Tensor:
        return _ops.remainder(other, self)

    def __pow__(self, other: Any) -> Tensor:
        return _ops.pow(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return _ops.pow(other, self)

    def __ipow__(self, other: Any) -> Tensor:
        return _ops.pow_(self, other)

    def __matmul__(self, other: Any) -> Tensor:
        return _ops.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return _ops.matmul(other, self)

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        if other is None:  # PyTorch: ``t == None`` is False
            return False  # type: ignore[return-value]
        return _ops.eq(self, other)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        if other is None:
            return True  # type: ignore[return-value]
        return _ops.ne(self, other)

    def __lt__(self, other: Any) -> Tensor:
        return _ops.lt(self, other)

    def __le__(self, other: Any) -> Tensor:
        return _ops.le(self, other)

    def __gt__(self, other: Any) -> Tensor:
        return _ops.gt(self, other)

    def __ge__(self, other: Any) -> Tensor:
        return _ops.ge(self, other)

    def __and__(self, other: Any) -> Tensor:
        return _ops.bitwise_and(self, other)

    def __rand__(self, other: Any) -> Tensor:
        return _ops.bitwise_and(other, self)

    def __iand__(self, other: Any) -> Tensor:
        return _ops.bitwise_and_(self, other)

    def __or__(self, other: Any) -> Tensor:
        return _ops.bitwise_or(self, other)

    def __ror__(self, other: Any) -> Tensor:
        return _ops.bitwise_or(other, self)

    def __ior__(self, other: Any) -> Tensor:
        return _ops.bitwise_or_(self, other)

    def __xor__(self, other: Any) -> Tensor:
        return _ops.bitwise_xor(self, other)

    def __rxor__(self, other: Any) -> Tensor:
        return _ops.bitwise_xor(other, self)

    def __ixor__(self, other: Any) -> Tensor:
        return _ops.bitwise_xor_(self, other)

    def __lshift__(self, other: Any) -> Tensor:
        return _ops.bitwise_left_shift(self, other)

    def __rlshift__(self, other: Any) -> Tensor:
        return _ops.bitwise_left_shift(other, self)

    def __ilshift__(self, other: Any) -> Tensor:
        return _ops.bitwise_left_shift_(self, other)

    def __rshift__(self, other: Any) -> Tensor:
        return _ops.bitwise_right_shift(self, other)

    def __rrshift__(self, other: Any) -> Tensor:
        return _ops.bitwise_right_shift(other, self)

    def __irshift__(self, other: Any) -> Tensor:
        return _ops.bitwise_right_shift_(self, other)

    def where(self, condition: Any, other: Any) -> Tensor:
        """``where(condition, self, other)`` (the method's argument order differs)."""
        return _ops.where(condition, self, other)

    def __getitem__(self, index: Any) -> Tensor:
        return _ops.getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        _ops.setitem_(self, index, value)

    # ---- frequent methods, forwarded explicitly: a class attribute is found at once, while
    # the __getattr__ fallback below costs a failed lookup first (~1.7 us a call)
    def sum(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sum(self, *args, **kwargs)

    def mean(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.mean(self, *args, **kwargs)

    def prod(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.prod(self, *args, **kwargs)

    def amax(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.amax(self, *args, **kwargs)

    def amin(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.amin(self, *args, **kwargs)

    def max(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.max(self, *args, **kwargs)

    def min(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.min(self, *args, **kwargs)

    def argmax(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.argmax(self, *args, **kwargs)

    def argmin(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.argmin(self, *args, **kwargs)

    def std(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.std(self, *args, **kwargs)

    def var(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.var(self, *args, **kwargs)

    def norm(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.norm(self, *args, **kwargs)

    def logsumexp(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.logsumexp(self, *args, **kwargs)

    def cumsum(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.cumsum(self, *args, **kwargs)

    def cumprod(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.cumprod(self, *args, **kwargs)

    def any(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.any(self, *args, **kwargs)

    def all(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.all(self, *args, **kwargs)

    def exp(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.exp(self, *args, **kwargs)

    def log(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.log(self, *args, **kwargs)

    def log1p(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.log1p(self, *args, **kwargs)

    def expm1(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.expm1(self, *args, **kwargs)

    def sqrt(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sqrt(self, *args, **kwargs)

    def rsqrt(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.rsqrt(self, *args, **kwargs)

    def square(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.square(self, *args, **kwargs)

    def reciprocal(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.reciprocal(self, *args, **kwargs)

    def abs(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.abs(self, *args, **kwargs)

    def neg(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.neg(self, *args, **kwargs)

    def sign(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sign(self, *args, **kwargs)

    def sin(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sin(self, *args, **kwargs)

    def cos(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.cos(self, *args, **kwargs)

    def tan(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.tan(self, *args, **kwargs)

    def tanh(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.tanh(self, *args, **kwargs)

    def sigmoid(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sigmoid(self, *args, **kwargs)

    def relu(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.relu(self, *args, **kwargs)

    def pow(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.pow(self, *args, **kwargs)

    def clamp(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.clamp(self, *args, **kwargs)

    def clamp_min(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.clamp_min(self, *args, **kwargs)

    def clamp_max(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.clamp_max(self, *args, **kwargs)

    def maximum(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.maximum(self, *args, **kwargs)

    def minimum(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.minimum(self, *args, **kwargs)

    def add(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.add(self, *args, **kwargs)

    def sub(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sub(self, *args, **kwargs)

    def mul(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.mul(self, *args, **kwargs)

    def div(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.div(self, *args, **kwargs)

    def matmul(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.matmul(self, *args, **kwargs)

    def mm(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.mm(self, *args, **kwargs)

    def bmm(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.bmm(self, *args, **kwargs)

    def softmax(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.softmax(self, *args, **kwargs)

    def log_softmax(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.log_softmax(self, *args, **kwargs)

    def reshape(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.reshape(self, *args, **kwargs)

    def view(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.view(self, *args, **kwargs)

    def view_as(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.view_as(self, *args, **kwargs)

    def flatten(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.flatten(self, *args, **kwargs)

    def squeeze(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.squeeze(self, *args, **kwargs)

    def unsqueeze(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.unsqueeze(self, *args, **kwargs)

    def permute(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.permute(self, *args, **kwargs)

    def transpose(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.transpose(self, *args, **kwargs)

    def t(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.t(self, *args, **kwargs)

    def expand(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.expand(self, *args, **kwargs)

    def expand_as(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.expand_as(self, *args, **kwargs)

    def repeat(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.repeat(self, *args, **kwargs)

    def flip(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.flip(self, *args, **kwargs)

    def narrow(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.narrow(self, *args, **kwargs)

    def select(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.select(self, *args, **kwargs)

    def unbind(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.unbind(self, *args, **kwargs)

    def chunk(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.chunk(self, *args, **kwargs)

    def split(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.split(self, *args, **kwargs)

    def gather(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.gather(self, *args, **kwargs)

    def index_select(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.index_select(self, *args, **kwargs)

    def masked_fill(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.masked_fill(self, *args, **kwargs)

    def sort(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sort(self, *args, **kwargs)

    def argsort(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.argsort(self, *args, **kwargs)

    def topk(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.topk(self, *args, **kwargs)

    def sum_to_size(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sum_to_size(self, *args, **kwargs)

    def clone(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.clone(self, *args, **kwargs)

    def contiguous(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.contiguous(self, *args, **kwargs)

    def add_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.add_(self, *args, **kwargs)

    def sub_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sub_(self, *args, **kwargs)

    def mul_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.mul_(self, *args, **kwargs)

    def div_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.div_(self, *args, **kwargs)

    def clamp_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.clamp_(self, *args, **kwargs)

    def masked_fill_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.masked_fill_(self, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        # Every other PyTorch Tensor method is a forward to the op of the same name in
        # dyngrad.ops (``x.exp()`` is ``ops.exp(x)``, ``x.exp_()`` its in-place form).
        if name.startswith("_"):
            raise AttributeError(name)
        fn = getattr(_ops, name, None)
        if fn is None or name not in _ops.TENSOR_METHODS:
            raise AttributeError(f"'Tensor' object has no attribute '{name}'")
        return fn.__get__(self)

    @property
    def T(self) -> Tensor:  # noqa: N802
        return _ops.permute(self, tuple(range(self.data.ndim - 1, -1, -1)))

    @property
    def mT(self) -> Tensor:  # noqa: N802
        return _ops.transpose(self, -2, -1)

    @property
    def H(self) -> Tensor:  # noqa: N802
        return self.T

    @property
    def mH(self) -> Tensor:  # noqa: N802
        return self.mT

    @property
    def real(self) -> Tensor:
        return self


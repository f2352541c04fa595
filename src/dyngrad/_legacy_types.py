"""PyTorch's legacy typed constructors: ``FloatTensor``, ``DoubleTensor``, ``HalfTensor``,
``LongTensor``, ``IntTensor``, ``ShortTensor``, ``CharTensor``, ``ByteTensor``, ``BoolTensor``.

Each is a class whose call is the legacy constructor with its dtype (``LongTensor([1.7, 2])``
is ``tensor([1, 2])``; ``FloatTensor(2, 3)`` a zero-filled ``(2, 3)`` float32 tensor, where
PyTorch leaves the memory uninitialized) and whose ``isinstance`` check is a dtype check
(``isinstance(torch.ones(2), torch.FloatTensor)`` is True), as PyTorch's ``tensortype``.
"""

from __future__ import annotations

from typing import Any

from . import _backend as B
from .tensor import Tensor, check_device, legacy_array

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor",
           "ByteTensor", "BoolTensor"]


class _TensorType(type):
    """Metaclass of the typed constructors (PyTorch's ``torch.tensortype``)."""

    dtype: B.dtype

    def __call__(cls, *args: Any, device: Any = None) -> Tensor:  # type: ignore[override]
        check_device(device)
        return Tensor._make(legacy_array(args, cls.dtype.np, cls.__name__, like=cls))

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype

    def __repr__(cls) -> str:
        return f"<class 'dyngrad.{cls.__name__}'>"


#: each constructor's example: (data, the repr it prints)
_EXAMPLES = {
    "FloatTensor": ("[1, 2]", "tensor([1., 2.])"),
    "DoubleTensor": ("[1, 2]", "tensor([1., 2.], dtype=dyngrad.float64)"),
    "HalfTensor": ("[1.5, 2]", "tensor([1.5000, 2.0000], dtype=dyngrad.float16)"),
    "LongTensor": ("[1.7, 2]", "tensor([1, 2])"),
    "IntTensor": ("[1.7, 2]", "tensor([1, 2], dtype=dyngrad.int32)"),
    "ShortTensor": ("[1.7, 2]", "tensor([1, 2], dtype=dyngrad.int16)"),
    "CharTensor": ("[-1, 2]", "tensor([-1,  2], dtype=dyngrad.int8)"),
    "ByteTensor": ("[1, 255]", "tensor([  1, 255], dtype=dyngrad.uint8)"),
    "BoolTensor": ("[0, 2]", "tensor([False,  True])"),
}


def _doc(name: str, dtype: B.dtype) -> str:
    data, shown = _EXAMPLES[name]
    return f"""Legacy constructor of {dtype} tensors; ``isinstance(t, {name})`` is ``t.dtype == {dtype}``.

    ``{name}(data)`` copies a sequence or ndarray, cast to {dtype} (as ``tensor(data,
    dtype={dtype})``; floats cast to an integer type truncate toward zero); ``{name}(t)`` returns
    a Tensor ``t`` that already has that dtype (sharing its memory); ``{name}(*sizes)`` (ints or
    one ``Size``) is a zero-filled tensor of that shape (PyTorch leaves it uninitialized);
    ``{name}()`` is an empty ``(0,)`` tensor. Not differentiable (the result never requires grad).

    Args:
        *args: ``data`` (a sequence or ndarray, any shape), a Tensor of dtype {dtype}, or ints
            ``*sizes``. Default: none (an empty tensor).
        device (str or device, optional): only ``'cpu'``. Default: ``None``.
    Returns:
        Tensor: ``data``'s shape, or ``(*sizes)``; dtype {dtype}.
    Raises:
        TypeError: for a lone number (``{name}(2.5)``), several non-int arguments, or a Tensor
            of another dtype.
        RuntimeError: for a negative size, or a device other than the CPU.
        ValueError: when NumPy cannot convert ``data`` (a string, ragged lists).
        OverflowError: when an int in ``data`` does not fit the dtype (PyTorch raises
            RuntimeError, or wraps a negative value for ``uint8``).

    Example:
        >>> import dyngrad
        >>> dyngrad.{name}({data})
        {shown}
        >>> dyngrad.{name}(2, 3).shape
        dyngrad.Size([2, 3])
        >>> isinstance(dyngrad.{name}({data}), dyngrad.{name})
        True
    """


def _make(name: str, dtype: B.dtype) -> _TensorType:
    return _TensorType(name, (), {"dtype": dtype, "__doc__": _doc(name, dtype), "__module__": "dyngrad"})


FloatTensor = _make("FloatTensor", B.float32)
DoubleTensor = _make("DoubleTensor", B.float64)
HalfTensor = _make("HalfTensor", B.float16)
LongTensor = _make("LongTensor", B.int64)
IntTensor = _make("IntTensor", B.int32)
ShortTensor = _make("ShortTensor", B.int16)
CharTensor = _make("CharTensor", B.int8)
ByteTensor = _make("ByteTensor", B.uint8)
BoolTensor = _make("BoolTensor", B.bool_)

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


def _make(name: str, dtype: B.dtype) -> _TensorType:
    return _TensorType(name, (), {"dtype": dtype, "__doc__": f"Legacy constructor of {dtype} tensors; "
                                  f"``isinstance(t, {name})`` is ``t.dtype == {dtype}``.",
                                  "__module__": "dyngrad"})


FloatTensor = _make("FloatTensor", B.float32)
DoubleTensor = _make("DoubleTensor", B.float64)
HalfTensor = _make("HalfTensor", B.float16)
LongTensor = _make("LongTensor", B.int64)
IntTensor = _make("IntTensor", B.int32)
ShortTensor = _make("ShortTensor", B.int16)
CharTensor = _make("CharTensor", B.int8)
ByteTensor = _make("ByteTensor", B.uint8)
BoolTensor = _make("BoolTensor", B.bool_)
